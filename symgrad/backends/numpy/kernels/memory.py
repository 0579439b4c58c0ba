"""Pools of preallocated arrays that the fast form's memory planner reuses across calls."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import DTypeLike

from ._types import Array, Shape

# Per pool, the arrays that finished calls gave back, for the next call to take (see _take_rows).
_SPARE_ROWS: dict[str, list[list[Array]]] = {}


def _take_rows(pool: str, count: int, shape: Shape, dtype: DTypeLike) -> list[Array]:
    """``count`` arrays of ``shape``, views of one block: the block an earlier call gave back
    to ``pool``, or a new one. A call holds its block until it returns, so calls at the same
    time (in threads, or one inside another) never share one, and a steady run allocates none."""
    spare = _SPARE_ROWS.setdefault(pool, [])
    while spare:
        try:
            rows = spare.pop()
        except IndexError:  # another thread took the last one
            break
        if len(rows) == count and rows[0].shape == shape and rows[0].dtype == dtype:
            return rows
    # Each array starts on a 64-byte boundary (a cache line, an AVX-512 register): NumPy
    # aligns to 16 bytes, and SIMD loops run up to twice as fast over aligned arrays.
    size, itemsize = math.prod(shape), np.dtype(dtype).itemsize
    # Elements from the start of one array to the next: whole cache lines.
    step = (size * itemsize + 63) // 64 * 64 // itemsize
    raw = np.empty(count * step * itemsize + 64, dtype=np.uint8)
    start = -raw.ctypes.data % 64
    block = raw[start : start + count * step * itemsize].view(dtype)
    return [block[i * step : i * step + size].reshape(shape) for i in range(count)]


def _give_rows(pool: str, rows: list[Array]) -> None:
    """Keep ``rows`` (every array of a block, none of them still read) for the next call."""
    _SPARE_ROWS[pool].append(rows)
