"""Freed memory kept for the next step: glibc's malloc put where its own heuristic leads.

A compiled step allocates its arrays on every call, and NumPy takes them from the C
library's ``malloc``. glibc maps a block of at least its *mmap threshold* afresh (and
unmaps it when freed), and gives the top of its heap back to the system once more than its
*trim threshold* lies free there. Both start low (128 KiB) and grow only when a large
mapped block is freed: the mmap threshold to that block's size, up to 32 MiB, the trim
threshold to twice it. Whether a step's arrays fault in new pages on every call therefore
depends on what the process happened to free before. The MNIST CNN training step
(``benchmarks/train_step.py``) faulted 0 pages per call when one of its convolutions freed a
31 MB block, and 3,000 to 6,000 (8 to 14 ms of a 55 ms step) when no block was that large.

:func:`keep_freed_memory` fixes the two thresholds where glibc's heuristic ends after a
32 MiB block is freed (mmap threshold 32 MiB, trim threshold 64 MiB), so a steady step
reuses memory that is already mapped, as TF1's allocator does for its kernels. A process
then keeps up to 64 MiB of freed memory, and blocks up to 32 MiB come from the heap.
:class:`symgrad.Session` calls it; ``SYMGRAD_KEEP_FREED_MEMORY=0`` in the environment
leaves malloc as it is. Elsewhere than glibc (macOS, musl) it does nothing.
"""

from __future__ import annotations

import ctypes
import logging
import os
import sys
import threading

logger = logging.getLogger(__name__)

# mallopt's parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
# The largest mmap threshold glibc's own heuristic reaches on 64-bit systems
# (DEFAULT_MMAP_THRESHOLD_MAX), and the trim threshold it pairs with it.
MMAP_THRESHOLD = 32 * 2**20
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD
ENVIRONMENT_VARIABLE = "SYMGRAD_KEEP_FREED_MEMORY"

_lock = threading.Lock()
_kept: bool | None = None  # None: not tried yet in this process


def keep_freed_memory() -> bool:
    """Fix glibc's mmap and trim thresholds at 32 and 64 MiB, once per process; whether
    they are (False where malloc is not glibc's, or with ``SYMGRAD_KEEP_FREED_MEMORY=0``).

    >>> import symgrad.allocator
    >>> symgrad.allocator.keep_freed_memory() in (True, False)
    True
    """
    global _kept
    with _lock:
        if _kept is None:
            _kept = _set_thresholds()
        return _kept


def _set_thresholds() -> bool:
    if os.environ.get(ENVIRONMENT_VARIABLE, "1").strip() == "0":
        return False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)  # the C library this process already runs on
    except OSError:
        return False
    # Only glibc has gnu_get_libc_version; musl's mallopt is a stub that does nothing.
    if not hasattr(libc, "gnu_get_libc_version") or not hasattr(libc, "mallopt"):
        return False
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.mallopt.restype = ctypes.c_int
    kept = (
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
        and libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    )
    logger.debug(
        "glibc mmap/trim thresholds fixed at %d/%d bytes: %s", MMAP_THRESHOLD, TRIM_THRESHOLD, kept
    )
    return kept
