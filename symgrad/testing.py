"""Snapshot testing of generated modules, for symgrad's tests and for yours.

Keep a reviewed copy of each generated module in your repository and compare
against it in a test; a change in the generated code fails with a unified
diff, and one flag accepts it. With pytest, add to your ``conftest.py``::

    pytest_plugins = ["symgrad.testing"]

and write tests like::

    def test_model_code(symgrad_snapshot):
        compiled = build_and_compile_my_model()
        symgrad_snapshot(compiled, "tests/snapshots/my_model.py")

A relative snapshot path is taken from pytest's root folder (where ``pytest.ini``,
``pyproject.toml`` or ``setup.cfg`` is), whichever folder pytest runs from. The
first run of a new snapshot test writes the snapshot and fails, so that it gets
reviewed; run ``pytest --update-snapshots`` to write or rewrite the snapshots (or set
``SYMGRAD_UPDATE_SNAPSHOTS=1``). Generated code is byte-stable across
processes and hash seeds for a given SymPy minor version (symgrad pins it).
"""

from __future__ import annotations

import contextlib
import difflib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .files import write_atomic


class SnapshotMismatch(AssertionError):
    """Generated code differs from its snapshot; the message holds the unified diff."""


def _source_of(generated: Any) -> str:
    return generated if isinstance(generated, str) else generated.source


def assert_snapshot(generated: Any, path: str | Path, update: bool | None = None) -> None:
    """Compare ``generated`` (a CompiledModule or source text) with the file at ``path``.

    With ``update`` (default: ``SYMGRAD_UPDATE_SNAPSHOTS=1`` in the environment)
    the file is written instead. A missing snapshot is written and reported as
    a failure, so that it gets reviewed.
    """
    source = _source_of(generated)
    path = Path(path)
    if update is None:
        update = os.environ.get("SYMGRAD_UPDATE_SNAPSHOTS", "") not in ("", "0")
    if update:
        write_atomic(path, source)
        return
    if not path.exists():
        write_atomic(path, source)
        raise SnapshotMismatch(
            f"snapshot {path} did not exist; it was written: review and commit it"
        )
    expected = path.read_text()
    if source != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), source.splitlines(True), str(path), "generated now"
            )
        )
        raise SnapshotMismatch(
            f"generated code differs from the snapshot {path} "
            f"(run pytest --update-snapshots to accept it):\n{diff}"
        )


# --- the pytest plugin -------------------------------------------------------------------------


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--update-snapshots",
        action="store_true",
        default=False,
        help="symgrad: write generated-code snapshots instead of comparing with them",
    )


def _fixture() -> Any:
    import pytest

    @pytest.fixture
    def symgrad_snapshot(request: Any) -> Callable[[Any, str | Path], None]:
        """``symgrad_snapshot(compiled_or_source, path)``: compare with (or update) a snapshot."""
        update = request.config.getoption("--update-snapshots") or None
        root = Path(request.config.rootpath)

        def check(generated: Any, path: str | Path) -> None:
            # Relative to the project, not to the folder pytest happens to be started from.
            assert_snapshot(generated, root / path, update=update)

        return check

    return symgrad_snapshot


# The fixture exists only where pytest does; symgrad itself does not need pytest.
with contextlib.suppress(ImportError):
    symgrad_snapshot = _fixture()
