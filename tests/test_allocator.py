"""``symgrad.allocator``: a session keeps the memory its steps free mapped for the next step.

Each check runs in a fresh Python process, since glibc's thresholds are the process's state
(and move only upwards once raised): the second of two 3 MB arrays, allocated after the
first is freed, faults in new pages under glibc's own heuristic and none once the thresholds
are fixed. 3 MB stays under the 4 MB from which NumPy asks for huge pages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import symgrad.allocator

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="glibc's malloc thresholds are Linux's"
)

PROBE = """
import json, resource, sys
import numpy as np

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

if sys.argv[1] == "session":
    import symgrad as sg
    sg.Session().close()
    from symgrad.allocator import keep_freed_memory
    kept = keep_freed_memory()
else:
    kept = None
first = np.ones(3 * 2**20 // 8)
del first
before = faults()
second = np.ones(3 * 2**20 // 8)
print(json.dumps({"kept": kept, "faults": faults() - before}))
"""


def _probe(how: str, **environment: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.update(environment)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, how], capture_output=True, text=True, env=env, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_session_keeps_freed_memory_mapped() -> None:
    glibc = _probe("plain")
    kept = _probe("session")
    if not kept["kept"]:
        pytest.skip("malloc here is not glibc's")
    # 768 pages of 4 KiB: glibc maps the second array afresh on its own ...
    assert glibc["faults"] > 300, glibc
    # ... and reuses the first one's memory once a session fixed the thresholds.
    assert kept["faults"] < 50, kept


def test_the_environment_variable_leaves_malloc_alone() -> None:
    untouched = _probe("session", SYMGRAD_KEEP_FREED_MEMORY="0")
    assert untouched["kept"] is False
    assert untouched["faults"] > 300, untouched


def test_keep_freed_memory_is_done_once() -> None:
    first = symgrad.allocator.keep_freed_memory()
    assert symgrad.allocator.keep_freed_memory() is first


def test_threads_creating_sessions_at_once_set_the_thresholds_once() -> None:
    """Sessions made in 8 threads at once: every one sees the same outcome (one mallopt)."""
    script = (
        "import threading, symgrad as sg, symgrad.allocator as a\n"
        "calls = []\n"
        "real = a._set_thresholds\n"
        "a._set_thresholds = lambda: calls.append(1) or real()\n"
        "seen = []\n"
        "def make():\n"
        "    sg.Session().close()\n"
        "    seen.append(a.keep_freed_memory())\n"
        "threads = [threading.Thread(target=make) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(len(calls), len(set(seen)), len(seen))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.split() == ["1", "1", "8"], done.stdout
