"""Segment reductions (sorted or not) and their gradients."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._types import Array


def _segment_sum(
    data: ArrayLike, ids: ArrayLike, count: int | None, dtype: DTypeLike
) -> Array:
    """Sums of the rows of ``data`` with equal ``ids``; ``count`` rows (None: ``ids[-1] + 1``
    for sorted ids); rows with a negative id are left out."""
    ids = np.asarray(ids)
    if count is None:
        count = int(ids[-1]) + 1 if ids.size else 0
    keep = ids >= 0
    result = np.zeros((count,) + np.shape(data)[ids.ndim :], dtype=dtype)
    np.add.at(result, ids[keep], np.asarray(data)[keep])
    return result


def _segment_max(
    data: ArrayLike, ids: ArrayLike, count: int, dtype: DTypeLike
) -> Array:
    """Maxima of the rows of ``data`` with equal ``ids`` (``count`` rows; an empty one holds
    the lowest value of ``dtype``); rows with a negative id are left out."""
    ids = np.asarray(ids)
    keep = ids >= 0
    lowest = np.finfo(dtype).min if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min
    result = np.full((count,) + np.shape(data)[ids.ndim :], lowest, dtype=dtype)
    np.maximum.at(result, ids[keep], np.asarray(data)[keep])
    return result


def _sorted_segment_max(data: ArrayLike, ids: ArrayLike, dtype: DTypeLike) -> Array:
    """Maxima of the rows of ``data`` with equal sorted ``ids`` (``ids[-1] + 1`` rows); a
    segment no row is in holds 0, as TF's SegmentMax gives."""
    ids = np.asarray(ids)
    count = int(ids[-1]) + 1 if ids.size else 0
    result = _segment_max(data, ids, count, dtype)
    present = np.zeros(count, dtype=bool)
    present[ids] = True
    result[~present] = 0
    return result


def _segment_min(
    data: ArrayLike, ids: ArrayLike, count: int, dtype: DTypeLike
) -> Array:
    """Minima of the rows of ``data`` with equal ``ids`` (``count`` rows; an empty one holds
    the largest value of ``dtype``, as TF's UnsortedSegmentMin); rows with a negative id are
    left out."""
    ids = np.asarray(ids)
    keep = ids >= 0
    largest = (
        np.finfo(dtype).max if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max
    )
    result = np.full((count,) + np.shape(data)[ids.ndim :], largest, dtype=dtype)
    np.minimum.at(result, ids[keep], np.asarray(data)[keep])
    return result


def _sorted_segment_min(data: ArrayLike, ids: ArrayLike, dtype: DTypeLike) -> Array:
    """Minima of the rows of ``data`` with equal sorted ``ids`` (``ids[-1] + 1`` rows); a
    segment no row is in holds 0, as TF's SegmentMin gives."""
    ids = np.asarray(ids)
    count = int(ids[-1]) + 1 if ids.size else 0
    result = _segment_min(data, ids, count, dtype)
    present = np.zeros(count, dtype=bool)
    present[ids] = True
    result[~present] = 0
    return result


def _segment_prod(
    data: ArrayLike, ids: ArrayLike, count: int | None, dtype: DTypeLike
) -> Array:
    """Products of the rows of ``data`` with equal ``ids``; ``count`` rows (None: ``ids[-1] +
    1`` for sorted ids), an empty one 1; rows with a negative id are left out."""
    ids = np.asarray(ids)
    if count is None:
        count = int(ids[-1]) + 1 if ids.size else 0
    keep = ids >= 0
    result = np.ones((count,) + np.shape(data)[ids.ndim :], dtype=dtype)
    np.multiply.at(result, ids[keep], np.asarray(data)[keep])
    return result


def _segment_gather(value: ArrayLike, ids: ArrayLike) -> Array:
    """Row ``ids[i]`` of ``value`` for each i, zeros where the id is negative."""
    ids = np.asarray(ids)
    keep = ids >= 0
    rows = np.take(value, np.where(keep, ids, 0), axis=0)
    return rows * np.reshape(keep, keep.shape + (1,) * (rows.ndim - keep.ndim))
