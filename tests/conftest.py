"""Test configuration: keep generated modules of the test run out of the user's cache and out of
``examples/output/``, in one temporary folder that is removed when the run ends."""

import atexit
import os
import shutil
import tempfile

# Scripts run by hand or in subprocesses, not test modules.
collect_ignore = [
    "scripts",
    "jax_parity/record_jax.py",
    # TF1 programs run one per process by tests/test_tf1_programs.py, and their TF recorder.
    "tf1_programs/programs",
    "tf1_programs/record_tf.py",
]

_SCRATCH = tempfile.mkdtemp(prefix="symgrad-tests-")
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)
os.environ.setdefault("SYMGRAD_CACHE_DIR", os.path.join(_SCRATCH, "cache"))
os.environ.setdefault("SYMGRAD_EXAMPLES_OUTPUT", os.path.join(_SCRATCH, "examples-output"))

# Snapshot testing (--update-snapshots, the symgrad_snapshot fixture), as users get it.
pytest_plugins = ["symgrad.testing"]
