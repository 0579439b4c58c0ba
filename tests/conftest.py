"""Test configuration: keep generated modules of the test run out of the user's cache."""

import os
import tempfile

# Scripts run by hand or in subprocesses, not test modules.
collect_ignore = ["scripts"]

os.environ.setdefault("SYMGRAD_CACHE_DIR", tempfile.mkdtemp(prefix="symgrad-tests-"))

# Snapshot testing (--update-snapshots, the symgrad_snapshot fixture), as users get it.
pytest_plugins = ["symgrad.testing"]
