"""Formatting of generated modules: the pinned ``ruff format``, run once per module.

The emitter prints every statement on one line and leaves the layout to the
formatter, as SymForce's ``codegen/format_util.py`` does. ruff is pinned to one
exact version in ``pyproject.toml`` because its output is part of the generated
code that users snapshot-test: another version may break a long line differently.

The formatter runs with ruff's defaults (``--isolated``: no configuration file
of the user's project applies), so the same graph gives the same bytes in every
folder.

>>> print(format_source("x = [ 1,2 ]\\n"), end="")
x = [1, 2]
"""

from __future__ import annotations

import os
import subprocess
import sysconfig
import threading
from functools import cache

from ruff import find_ruff_bin

from .errors import FormatterError

# ruff's own default; written out because the generated code is laid out to it.
LINE_LENGTH = 88

# find_ruff_bin reads sysconfig's variables, which CPython 3.11 fills on first use without a
# lock: a thread reading them while another fills them got None for "EXE" (a TypeError inside
# ruff, 2-3 first compiles in 40 from four threads). Filled here, under the import lock, and the
# lookup itself runs once, under a lock of its own.
sysconfig.get_config_vars()
_LOOKUP = threading.Lock()


def ruff_executable() -> str:
    """The path of the ``ruff`` binary installed with symgrad (looked up once per process)."""
    with _LOOKUP:
        return _find_ruff()


@cache
def _find_ruff() -> str:
    try:
        return os.fsdecode(find_ruff_bin())
    except FileNotFoundError as error:
        raise FormatterError(
            "symgrad: the ruff binary that formats generated code was not found "
            f"({error}); reinstall symgrad's dependencies: pip install --force-reinstall symgrad"
        ) from None


def format_source(source: str) -> str:
    """``source`` laid out by ``ruff format`` (defaults, ruff's own line length of 88).

    The input must be valid Python; a formatter failure means the emitter wrote
    something it should not have, and is raised as a :class:`FormatterError`
    with ruff's message.
    """
    command = [
        ruff_executable(),
        "format",
        "--isolated",
        "--no-cache",
        f"--line-length={LINE_LENGTH}",
        "--stdin-filename=generated.py",
        "-",
    ]
    try:
        completed = subprocess.run(
            command,
            input=source.encode("utf-8"),
            capture_output=True,
            check=False,
            # ruff reads no environment settings that matter here, but keep it from
            # picking up a user's RUFF_* variables.
            env={k: v for k, v in os.environ.items() if not k.startswith("RUFF_")},
        )
    except OSError as error:
        raise FormatterError(
            f"symgrad: could not run the formatter {command[0]}: {error}"
        ) from None
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip()
        raise FormatterError(f"symgrad: the formatter rejected a generated module: {message}")
    return completed.stdout.decode("utf-8")
