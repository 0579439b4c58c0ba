"""Segment reductions (sorted or not) and their gradients."""

from __future__ import annotations

import math

from ._types import Array, DType, Namespace
from .namespace import _device_of, _traced
from .scatter import _take


def _segment_rows(
    xp: Namespace, data: Array, ids: Array, count: int | None
) -> tuple[Array, Array, int]:
    """``data`` as rows (one per id), the 0/1 matrix of which segment each row is in (rows
    with a negative id are in none), and the number of segments."""
    ids = xp.asarray(ids, device=_device_of(data))
    if count is None and math.prod(
        ids.shape
    ):  # sorted ids: the last one is the largest
        last = xp.reshape(ids, (-1,))[-1]
        if _traced(last):
            raise TypeError(
                "the number of segments is the largest segment id, a value JAX does not know "
                "while it traces (jax.jit, jax.vmap); use unsorted_segment_sum/max with "
                "num_segments, or call the function without tracing"
            )
        count = int(last) + 1
    elif count is None:
        count = 0
    rows = xp.reshape(data, (-1,) + tuple(data.shape[ids.ndim :]))
    segments = xp.reshape(xp.arange(count, device=_device_of(data)), (-1, 1))
    return rows, segments == xp.reshape(ids, (1, -1)), count


def _segment_sum(
    xp: Namespace, data: Array, ids: Array, count: int | None, dtype: DType
) -> Array:
    """Sums of the rows of ``data`` with equal ``ids``: the 0/1 segment matrix times the rows."""
    rows, hits, count = _segment_rows(xp, data, ids, count)
    return xp.tensordot(xp.astype(hits, dtype), xp.astype(rows, dtype), axes=1)


def _segment_max(
    xp: Namespace, data: Array, ids: Array, count: int | None, dtype: DType
) -> Array:
    """Maxima of the rows of ``data`` with equal ``ids`` (an empty segment holds the lowest
    value of ``dtype``)."""
    rows, hits, count = _segment_rows(xp, data, ids, count)
    info = xp.finfo(dtype) if xp.isdtype(dtype, "real floating") else xp.iinfo(dtype)
    if rows.shape[0] == 0:  # no rows: every segment is empty (a max of nothing raises)
        shape = (count,) + tuple(rows.shape[1:])
        return xp.full(shape, info.min, dtype=dtype, device=_device_of(data))
    lowest = xp.asarray(info.min, dtype=dtype, device=_device_of(data))
    hits = xp.reshape(hits, tuple(hits.shape) + (1,) * (rows.ndim - 1))
    return xp.max(xp.where(hits, xp.astype(rows, dtype)[None, ...], lowest), axis=1)


def _sorted_segment_max(xp: Namespace, data: Array, ids: Array, dtype: DType) -> Array:
    """Maxima of the rows of ``data`` with equal sorted ``ids`` (``ids[-1] + 1`` rows); a
    segment no row is in holds 0, as TF's SegmentMax gives."""
    rows, hits, count = _segment_rows(xp, data, ids, None)
    result = _segment_max(xp, data, ids, count, dtype)
    present = xp.any(hits, axis=1)
    present = xp.reshape(present, (count,) + (1,) * (result.ndim - 1))
    return xp.where(present, result, xp.zeros_like(result))


def _segment_min(
    xp: Namespace, data: Array, ids: Array, count: int | None, dtype: DType
) -> Array:
    """Minima of the rows of ``data`` with equal ``ids`` (an empty segment holds the largest
    value of ``dtype``, as TF's UnsortedSegmentMin)."""
    rows, hits, count = _segment_rows(xp, data, ids, count)
    info = xp.finfo(dtype) if xp.isdtype(dtype, "real floating") else xp.iinfo(dtype)
    if rows.shape[0] == 0:  # no rows: every segment is empty (a min of nothing raises)
        shape = (count,) + tuple(rows.shape[1:])
        return xp.full(shape, info.max, dtype=dtype, device=_device_of(data))
    largest = xp.asarray(info.max, dtype=dtype, device=_device_of(data))
    hits = xp.reshape(hits, tuple(hits.shape) + (1,) * (rows.ndim - 1))
    return xp.min(xp.where(hits, xp.astype(rows, dtype)[None, ...], largest), axis=1)


def _sorted_segment_min(xp: Namespace, data: Array, ids: Array, dtype: DType) -> Array:
    """Minima of the rows of ``data`` with equal sorted ``ids`` (``ids[-1] + 1`` rows); a
    segment no row is in holds 0, as TF's SegmentMin gives."""
    rows, hits, count = _segment_rows(xp, data, ids, None)
    result = _segment_min(xp, data, ids, count, dtype)
    present = xp.any(hits, axis=1)
    present = xp.reshape(present, (count,) + (1,) * (result.ndim - 1))
    return xp.where(present, result, xp.zeros_like(result))


def _segment_prod(
    xp: Namespace, data: Array, ids: Array, count: int | None, dtype: DType
) -> Array:
    """Products of the rows of ``data`` with equal ``ids`` (an empty segment is 1)."""
    rows, hits, count = _segment_rows(xp, data, ids, count)
    one = xp.asarray(1, dtype=dtype, device=_device_of(data))
    hits = xp.reshape(hits, tuple(hits.shape) + (1,) * (rows.ndim - 1))
    factors = xp.where(hits, xp.astype(rows, dtype)[None, ...], one)
    return xp.prod(factors, axis=1, dtype=dtype)  # int32 stays int32


def _segment_gather(xp: Namespace, value: Array, ids: Array) -> Array:
    """Row ``ids[i]`` of ``value`` for each i, zeros where the id is negative."""
    ids = xp.asarray(ids, device=_device_of(value))
    keep = ids >= 0
    rows = _take(xp, value, xp.where(keep, ids, xp.zeros_like(ids)), 0)
    keep = xp.reshape(keep, tuple(keep.shape) + (1,) * (rows.ndim - keep.ndim))
    return rows * xp.astype(keep, rows.dtype)
