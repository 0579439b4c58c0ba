"""Test configuration: keep generated modules of the test run out of the user's cache."""

import os
import tempfile

# Scripts run by hand or in subprocesses, not test modules.
collect_ignore = ["scripts"]

os.environ.setdefault("SYMGRAD_CACHE_DIR", tempfile.mkdtemp(prefix="symgrad-tests-"))


def pytest_addoption(parser):  # type: ignore[no-untyped-def]
    parser.addoption("--update-goldens", action="store_true", default=False,
                     help="rewrite the golden generated modules under tests/golden/ instead of comparing")
