"""Gathers, scatters and their gradients: slicing, concatenation and splits, masks, one-hot, padding."""

from __future__ import annotations

from collections.abc import Sequence
from types import EllipsisType

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._types import Array, Index, Indices, MirrorMode, Shape


def _scatter(value: ArrayLike, shape: Shape, key: Index, dtype: DTypeLike) -> Array:
    """Zeros of ``shape`` with ``value`` written at ``key`` (the gradient of slicing)."""
    result = np.zeros(shape, dtype=dtype)
    result[key] = value
    return result


def _scatter_add(
    value: ArrayLike, indices: Indices, shape: Shape, axis: int, dtype: DTypeLike
) -> Array:
    """Zeros of ``shape`` with ``value`` added at ``indices`` along ``axis`` (the gradient of take)."""
    result = np.zeros(shape, dtype=dtype)
    depth = np.ndim(indices)
    moved = np.moveaxis(
        np.asarray(value), list(range(axis, axis + depth)), list(range(depth))
    )
    np.add.at(np.moveaxis(result, axis, 0), indices, moved)
    return result


def _untile(
    value: ArrayLike, shape: Shape, multiples: Sequence[int]
) -> Array | np.generic:
    """Sum the ``multiples`` tiles of ``value`` (of tile shape ``shape``) on each other."""
    split = [n for pair in zip(multiples, shape) for n in pair]
    return np.sum(np.reshape(value, split), axis=tuple(range(0, 2 * len(shape), 2)))


def _concat_part(value: Array, axis: int, sizes: Sequence[int], index: int) -> Array:
    """The part of ``value`` that came from input ``index`` of a concatenation along ``axis``."""
    start = sum(sizes[:index])
    part = slice(start, start + sizes[index])
    if axis < 0:  # counted from the end: the rank arrives with the value
        return value[(..., part) + (slice(None),) * (-1 - axis)]
    return value[(slice(None),) * axis + (part,)]


def _unconcat_part(
    grad: Array, like: ArrayLike, axis: int, sizes: Sequence[int], index: int
) -> Array:
    """The gradient of ``_concat_part``: ``grad`` in its place among zeros shaped like ``like``."""
    full = np.zeros(np.shape(like), dtype=grad.dtype)
    start = sum(sizes[:index])
    part = slice(start, start + sizes[index])
    if axis < 0:
        full[(..., part) + (slice(None),) * (-1 - axis)] = grad
    else:
        full[(slice(None),) * axis + (part,)] = grad
    return full


def _equal_part(
    shape: Shape, axis: int, parts: int, index: int, count: int = 1
) -> tuple[slice | EllipsisType, ...]:
    """Where ``count`` parts from part ``index`` of ``parts`` equal ones along ``axis`` lie in
    a value of ``shape``, as an index; TF's Split refuses an axis they do not fill evenly."""
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"Split: a value of shape {shape} has no axis {axis}")
    if shape[axis] % parts:
        raise ValueError(
            f"Split: axis {axis} of a value of shape {shape} does not split into "
            f"{parts} equal parts"
        )
    step = shape[axis] // parts
    part = slice(index * step, (index + count) * step)
    if axis < 0:
        return (..., part) + (slice(None),) * (-1 - axis)
    return (slice(None),) * axis + (part, ...)


def _split_equal(value: Array, axis: int, parts: int, index: int) -> Array:
    """Part ``index`` of ``value`` cut into ``parts`` equal parts along ``axis``."""
    return value[_equal_part(np.shape(value), axis, parts, index)]


def _unsplit_equal(
    grad: Array, like: ArrayLike, axis: int, parts: int, index: int
) -> Array:
    """The gradient of ``_split_equal``: ``grad`` in its part of zeros shaped like ``like``."""
    full = np.zeros(np.shape(like), dtype=grad.dtype)
    full[_equal_part(np.shape(like), axis, parts, index)] = grad
    return full


def _one_hot_like(labels: ArrayLike, logits: ArrayLike, dtype: DTypeLike) -> Array:
    """One-hot vectors of ``labels`` as long as the last axis of ``logits``. A label outside
    the classes is an error, as in TF: its row of zeros would be a silently wrong loss, and
    so are labels not of the logits' shape without its last axis (they would broadcast)."""
    if np.shape(labels) != np.shape(logits)[:-1]:
        raise ValueError(
            f"labels of shape {list(np.shape(labels))} must have the shape of the logits "
            f"{list(np.shape(logits))} without its last axis"
        )
    classes = np.shape(logits)[-1]
    if np.size(labels) and not 0 <= np.min(labels) <= np.max(labels) < classes:
        outside = np.asarray(labels)[
            (np.asarray(labels) < 0) | (np.asarray(labels) >= classes)
        ]
        raise IndexError(
            f"label value {outside.flat[0]} is outside the valid range of [0, {classes})"
        )
    return (np.expand_dims(labels, -1) == np.arange(classes)).astype(dtype)


def _one_hot(
    indices: ArrayLike, depth: int, on: float, off: float, axis: int, dtype: DTypeLike
) -> Array:
    """``on`` where ``indices`` point along a new axis of size ``depth``, ``off`` elsewhere."""
    hits = np.expand_dims(indices, -1) == np.arange(depth)
    return np.moveaxis(np.where(hits, on, off).astype(dtype), -1, axis)


def _mirror_pad_grad(
    value: Array, paddings: Sequence[tuple[int, int]], mode: MirrorMode
) -> Array:
    """Fold the mirrored borders of ``value`` back onto the places they copy (the gradient
    of ``np.pad`` with ``mode`` 'reflect' or 'symmetric')."""
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            size = value.shape[axis] - before - after
            places = np.pad(np.arange(size), (before, after), mode=mode)
            shape = value.shape[:axis] + (size,) + value.shape[axis + 1 :]
            result = np.zeros(shape, dtype=value.dtype)
            np.add.at(np.moveaxis(result, axis, 0), places, np.moveaxis(value, axis, 0))
            value = result
    return value


def _boolean_mask(value: ArrayLike, mask: ArrayLike, axis: int) -> Array:
    """The entries of ``value`` where ``mask`` (over the axes from ``axis``) is True."""
    return np.asarray(value)[(slice(None),) * axis + (np.asarray(mask, dtype=bool),)]


def _boolean_mask_grad(
    value: ArrayLike, mask: ArrayLike, shape: Shape, axis: int, dtype: DTypeLike
) -> Array:
    """Zeros of ``shape`` with ``value`` written where ``mask`` is True."""
    result = np.zeros(shape, dtype=dtype)
    result[(slice(None),) * axis + (np.asarray(mask, dtype=bool),)] = value
    return result


def _array_write(flow: Array, index: ArrayLike, value: ArrayLike, size: int) -> Array:
    """TensorArray.write: the rows written so far (``flow``; a 0-d stand-in before the first
    write, which gives the rows their shape) with row ``index`` set to ``value``, copied. The
    array has ``size`` rows, or grows to ``index + 1`` where its size is dynamic (-1)."""
    value = np.asarray(value)
    row = int(np.asarray(index))
    if row < 0:
        raise IndexError(f"TensorArray: write to index {row} < 0")
    if np.ndim(flow) != value.ndim + 1:
        rows = np.zeros((max(size, row + 1),) + value.shape, dtype=value.dtype)
    elif row >= np.shape(flow)[0]:
        if size >= 0:
            raise IndexError(
                f"TensorArray: write to index {row} of an array of size {size} "
                f"(dynamic_size=False)"
            )
        missing = (row + 1 - np.shape(flow)[0],) + value.shape
        rows = np.concatenate([flow, np.zeros(missing, dtype=value.dtype)])
    else:
        rows = np.array(flow, copy=True)
    rows[row] = value
    return rows


def _array_write_grad(grad: Array, flow: Array, index: ArrayLike) -> Array:
    """The cotangent of the rows before a write: ``grad`` with zeros at row ``index`` (its
    value was written over), cut to the rows ``flow`` had (none before the first write)."""
    if np.ndim(flow) != np.ndim(grad):
        return np.zeros(np.shape(flow), dtype=grad.dtype)
    part = np.array(grad[: np.shape(flow)[0]], copy=True)
    row = int(np.asarray(index))
    if row < part.shape[0]:
        part[row] = 0
    return part


def _sequence_mask(lengths: ArrayLike, maxlen: ArrayLike) -> Array:
    """``[..., maxlen]`` booleans: position j of a sequence of length n is ``j < n``."""
    return np.arange(int(np.asarray(maxlen))) < np.expand_dims(np.asarray(lengths), -1)
