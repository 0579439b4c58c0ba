"""The project's own code meets the bar it sets for generated code.

``ruff format --check`` and ``ruff check`` over the project (configuration in
``pyproject.toml``), and ``mypy`` over the package. ruff comes with symgrad (it
formats generated modules); mypy with the ``test`` extra.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from ruff import find_ruff_bin

ROOT = Path(__file__).resolve().parent.parent


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.parametrize("command", [["format", "--check"], ["check"]], ids=["format", "check"])
def test_project_code_is_ruff_clean(command: list[str]) -> None:
    result = _run([str(find_ruff_bin()), *command, "."])
    assert result.returncode == 0, result.stdout + result.stderr


def test_package_type_checks() -> None:
    pytest.importorskip("mypy")
    result = _run([sys.executable, "-m", "mypy", "symgrad"])
    assert result.returncode == 0, result.stdout + result.stderr
