# mypy: disable-error-code="var-annotated, misc"
# (_scatter starts ``items`` as an empty list: a kernel's body takes no annotation of a
# local, which would be copied; mypy, not knowing the type of its items, then reports
# the sum over them as "misc".)
"""Gathers, scatters and their gradients: slicing, concatenation and splits, masks, one-hot, padding."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import EllipsisType
from typing import Literal

import numpy as np

from ._types import Array, Device, DType, Key, Namespace, Shape
from .namespace import _device_of


def _take(xp: Namespace, value: Array, indices: Array, axis: int) -> Array:
    """``value``'s entries at ``indices`` (of any rank) along ``axis``; the standard's take
    wants 1-D indices, so they are flattened and the result reshaped."""
    axis = axis % value.ndim
    indices = xp.asarray(indices, device=_device_of(value))
    flat = xp.take(value, xp.reshape(indices, (-1,)), axis=axis)
    shape = (
        tuple(value.shape[:axis])
        + tuple(indices.shape)
        + tuple(value.shape[axis + 1 :])
    )
    return xp.reshape(flat, shape)


def _placement(
    xp: Namespace, positions: Array, size: int, dtype: DType, device: Device
) -> Array:
    """The (size, len(positions)) 0/1 matrix that puts row j at ``positions[j]``: a matrix
    product with it writes rows into zeros, as item assignment would."""
    rows = xp.reshape(xp.arange(size, device=device), (-1, 1))
    return xp.astype(rows == xp.reshape(positions, (1, -1)), dtype)


def _scatter(
    xp: Namespace, value: Array | float, shape: Shape, key: Key, dtype: DType
) -> Array:
    """Zeros of ``shape`` with ``value`` written at the basic index ``key`` (the gradient of
    slicing): along each sliced axis a 0/1 matrix places the rows."""
    device = _device_of(value) if hasattr(value, "shape") else None
    value = xp.asarray(value, dtype=dtype, device=device)
    device = _device_of(value)
    specified = sum(1 for k in key if k is not None and k is not Ellipsis)
    items = []
    for item in key:
        items += (
            [slice(None)] * (len(shape) - specified) if item is Ellipsis else [item]
        )
    items += [slice(None)] * (len(shape) - sum(1 for k in items if k is not None))
    axis = dim = 0
    for item in items:
        if item is None:  # an axis the slicing added: not one of ``shape``
            value = xp.squeeze(value, axis=axis)
            continue
        size = shape[dim]
        if isinstance(item, slice):
            positions = list(range(size)[item])
        else:
            positions = [item % size]
            value = xp.expand_dims(value, axis=axis)
        if positions != list(range(size)):
            place = _placement(
                xp,
                xp.asarray(positions, dtype=xp.int64, device=device),
                size,
                dtype,
                device,
            )
            value = xp.moveaxis(xp.tensordot(place, value, axes=([1], [axis])), 0, axis)
        axis += 1
        dim += 1
    return value


def _scatter_add(
    xp: Namespace, value: Array, indices: Array, shape: Shape, axis: int, dtype: DType
) -> Array:
    """Zeros of ``shape`` with ``value`` added at ``indices`` along ``axis`` (the gradient of
    take): a 0/1 matrix of the indices times the rows, which sums repeated indices."""
    device = _device_of(value)
    indices = xp.asarray(indices, device=device)
    depth = indices.ndim
    order = tuple(range(axis, axis + depth)) + tuple(
        a for a in range(value.ndim) if not axis <= a < axis + depth
    )
    rows = xp.permute_dims(value, order)
    rows = xp.reshape(rows, (-1,) + tuple(rows.shape[depth:]))
    place = _placement(xp, xp.reshape(indices, (-1,)), shape[axis], dtype, device)
    return xp.moveaxis(xp.tensordot(place, xp.astype(rows, dtype), axes=1), 0, axis)


def _untile(
    xp: Namespace, value: Array, shape: Shape, multiples: tuple[int, ...]
) -> Array:
    """Sum the ``multiples`` tiles of ``value`` (of tile shape ``shape``) on each other."""
    split = tuple(n for pair in zip(multiples, shape) for n in pair)
    return xp.sum(xp.reshape(value, split), axis=tuple(range(0, 2 * len(shape), 2)))


def _equal_part(
    shape: tuple[int, ...], axis: int, parts: int, index: int, count: int = 1
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


def _split_equal(
    xp: Namespace, value: Array, axis: int, parts: int, index: int
) -> Array:
    """Part ``index`` of ``value`` cut into ``parts`` equal parts along ``axis``."""
    return value[_equal_part(tuple(value.shape), axis, parts, index)]


def _unsplit_equal(
    xp: Namespace, grad: Array, like: Array, axis: int, parts: int, index: int
) -> Array:
    """The gradient of ``_split_equal``: ``grad`` between zeros, shaped like ``like`` (arrays
    of the array API may not take item assignment)."""
    shape, zeros = tuple(like.shape), xp.zeros_like(like, dtype=grad.dtype)
    before = zeros[_equal_part(shape, axis, parts, 0, index)]
    after = zeros[_equal_part(shape, axis, parts, index + 1, parts - index - 1)]
    return xp.concat([before, grad, after], axis=axis)


def _concat_part(
    xp: Namespace, value: Array, axis: int, sizes: Sequence[int | Array], index: int
) -> Array:
    """The part of ``value`` that came from input ``index`` of a concatenation along ``axis``."""
    start = sum(sizes[:index])
    part = slice(start, start + sizes[index])
    if axis < 0:  # counted from the end: the rank arrives with the value
        return value[(..., part) + (slice(None),) * (-1 - axis)]
    return value[(slice(None),) * axis + (part, ...)]


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _unconcat_part(
    xp: Namespace, grad: Array, like: Array, axis: int, sizes: Sequence[int | Array],
    index: int
) -> Array:
    """The gradient of ``_concat_part``: ``grad`` between zeros, shaped like ``like`` (arrays
    of the array API may not take item assignment)."""
    zeros = xp.zeros_like(like, dtype=grad.dtype)
    start, stop = sum(sizes[:index]), sum(sizes[: index + 1])

    def span(part):
        if axis < 0:
            return zeros[(..., part) + (slice(None),) * (-1 - axis)]
        return zeros[(slice(None),) * axis + (part, ...)]

    return xp.concat([span(slice(0, start)), grad, span(slice(stop, None))], axis=axis)


def _one_hot(
    xp: Namespace, indices: Array, depth: int, on: float, off: float, axis: int,
    dtype: DType
) -> Array:
    """``on`` where ``indices`` point along a new axis of size ``depth``, ``off`` elsewhere."""
    device = _device_of(indices)
    hits = xp.expand_dims(indices, axis=-1) == xp.arange(depth, device=device)
    on, off = (xp.asarray(v, dtype=dtype, device=device) for v in (on, off))
    return xp.moveaxis(xp.where(hits, on, off), -1, axis)

# fmt: on


def _squeeze_ones(xp: Namespace, value: Array) -> Array:
    """``value`` without its size-1 axes (the standard's squeeze names the axes to drop)."""
    return xp.squeeze(value, axis=tuple(i for i, n in enumerate(value.shape) if n == 1))


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _pad(
    xp: Namespace, value: Array, paddings: Sequence[tuple[int, int]],
    constant_values: float = 0,
    mode: Literal["constant", "reflect", "symmetric"] = "constant"
) -> Array:
    """``value`` padded by ``paddings`` (before, after) per axis: with ``constant_values``,
    or mirrored ('reflect' leaves the edge out, 'symmetric' repeats it)."""
    device = _device_of(value)
    for axis, (before, after) in enumerate(paddings):
        if not (before or after):
            continue
        size = value.shape[axis]
        if mode == "constant":
            shape = list(value.shape)
            pieces = []
            for count in (before, after):
                shape[axis] = count
                pieces.append(
                    xp.full(
                        tuple(shape), constant_values, dtype=value.dtype, device=device
                    )
                )
            parts = [pieces[0], value, pieces[1]]
        else:
            edge = 1 if mode == "reflect" else 0
            head = value[(slice(None),) * axis + (slice(edge, edge + before), ...)]
            tail = value[
                (slice(None),) * axis + (slice(size - after - edge, size - edge), ...)
            ]
            head, tail = xp.flip(head, axis=axis), xp.flip(tail, axis=axis)
            parts = [head, value, tail]
        value = xp.concat(parts, axis=axis)
    return value

# fmt: on


def _take_along_axis(xp: Namespace, value: Array, indices: Array, axis: int) -> Array:
    """``value``'s entries at ``indices`` along ``axis`` (the standard's take_along_axis
    is 2024.12): the axis moved last, rows flattened, one take of row offsets + indices."""
    value = xp.moveaxis(value, axis, -1)
    indices = xp.moveaxis(xp.astype(indices, xp.int64), axis, -1)
    n = value.shape[-1]
    rows = xp.reshape(
        xp.arange(math.prod(indices.shape[:-1]), device=_device_of(value)), (-1, 1)
    )
    flat = xp.reshape(rows * n + xp.reshape(indices, (-1, indices.shape[-1])), (-1,))
    taken = xp.take(xp.reshape(value, (-1,)), flat)
    return xp.moveaxis(xp.reshape(taken, tuple(indices.shape)), -1, axis)


def _one_hot_like(xp: Namespace, labels: Array, logits: Array, dtype: DType) -> Array:
    """One-hot vectors of ``labels`` as long as the last axis of ``logits``; labels not of the
    logits' shape without its last axis are an error, as in TF (they would broadcast)."""
    if tuple(labels.shape) != tuple(logits.shape)[:-1]:
        raise ValueError(
            f"labels of shape {list(labels.shape)} must have the shape of the logits "
            f"{list(logits.shape)} without its last axis"
        )
    classes = xp.arange(logits.shape[-1], device=_device_of(logits))
    return xp.astype(xp.expand_dims(labels, axis=-1) == classes, dtype)


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _mirror_pad_grad(
    xp: Namespace, value: Array, paddings: Sequence[tuple[int, int]],
    mode: Literal["reflect", "symmetric"]
) -> Array:
    """Fold the mirrored borders of ``value`` back onto the places they copy (the gradient
    of a 'reflect' or 'symmetric' pad): per axis, a 0/1 matrix of where each place came from."""
    device = _device_of(value)
    for axis, (before, after) in enumerate(paddings):
        if before or after:
            size = value.shape[axis] - before - after
            # Which original place each padded place copies (index arithmetic, in NumPy).
            places = np.pad(np.arange(size), (before, after), mode=mode).tolist()
            place = _placement(
                xp,
                xp.asarray(places, dtype=xp.int64, device=device),
                size,
                value.dtype,
                device,
            )
            value = xp.moveaxis(xp.tensordot(place, value, axes=([1], [axis])), 0, axis)
    return value

# fmt: on


def _boolean_mask(xp: Namespace, value: Array, mask: Array, axis: int) -> Array:
    """The entries of ``value`` where ``mask`` (over the axes from ``axis``) is True: the
    masked axes first, the standard's boolean index (the sole index), then back in place."""
    mask = xp.asarray(mask, dtype=xp.bool, device=_device_of(value))
    masked = tuple(range(axis, axis + mask.ndim))
    order = masked + tuple(a for a in range(value.ndim) if a not in masked)
    return xp.moveaxis(xp.permute_dims(value, order)[mask], 0, axis)


def _boolean_mask_grad(
    xp: Namespace, value: Array, mask: Array, shape: Shape, axis: int, dtype: DType
) -> Array:
    """Zeros of ``shape`` with ``value`` written where ``mask`` is True (a 0/1 matrix of the
    True places times the rows)."""
    device = _device_of(value)
    mask = xp.asarray(mask, dtype=xp.bool, device=device)
    places = xp.nonzero(xp.reshape(mask, (-1,)))[0]
    place = _placement(xp, places, math.prod(mask.shape), dtype, device)
    rows = xp.tensordot(place, xp.astype(xp.moveaxis(value, axis, 0), dtype), axes=1)
    rows = xp.reshape(rows, tuple(mask.shape) + tuple(rows.shape[1:]))
    front = tuple(range(mask.ndim))
    order = list(range(mask.ndim, rows.ndim))
    for k, a in enumerate(front):
        order.insert(axis + k, a)
    return xp.permute_dims(rows, tuple(order))


def _array_write(
    xp: Namespace, flow: Array, index: Array, value: Array, size: int
) -> Array:
    """TensorArray.write: the rows written so far (``flow``; a 0-d stand-in before the first
    write, which gives the rows their shape) with row ``index`` set to ``value``, as a new
    array (the standard has no item assignment for every library). The array has ``size``
    rows, or grows to ``index + 1`` where its size is dynamic (-1)."""
    value = xp.asarray(value)
    flow = xp.asarray(flow)  # the stand-in may arrive as a Python number
    row = int(index)
    if row < 0:
        raise IndexError(f"TensorArray: write to index {row} < 0")
    device = _device_of(value)
    if flow.ndim != value.ndim + 1:
        count = max(size, row + 1)
        flow = xp.zeros((count,) + tuple(value.shape), dtype=value.dtype, device=device)
    elif row >= flow.shape[0]:
        if size >= 0:
            raise IndexError(
                f"TensorArray: write to index {row} of an array of size {size} "
                f"(dynamic_size=False)"
            )
        missing = (row + 1 - flow.shape[0],) + tuple(value.shape)
        flow = xp.concat([flow, xp.zeros(missing, dtype=value.dtype, device=device)])
    # Full keys (``...``): the standard leaves indexing fewer axes than an array has undefined.
    return xp.concat(
        [flow[:row, ...], xp.expand_dims(value, axis=0), flow[row + 1 :, ...]]
    )


def _array_write_grad(xp: Namespace, grad: Array, flow: Array, index: Array) -> Array:
    """The cotangent of the rows before a write: ``grad`` with zeros at row ``index`` (its
    value was written over), cut to the rows ``flow`` had (none before the first write)."""
    flow = xp.asarray(flow)
    if flow.ndim != grad.ndim:
        return xp.zeros(tuple(flow.shape), dtype=grad.dtype, device=_device_of(grad))
    part = grad[: flow.shape[0], ...]
    row = int(index)
    if row >= part.shape[0]:
        return part
    zero = xp.zeros(
        (1,) + tuple(part.shape[1:]), dtype=part.dtype, device=_device_of(part)
    )
    return xp.concat([part[:row, ...], zero, part[row + 1 :, ...]])


def _sequence_mask(xp: Namespace, lengths: Array, maxlen: Array) -> Array:
    """``[..., maxlen]`` booleans: position j of a sequence of length n is ``j < n``."""
    lengths = xp.asarray(lengths)
    positions = xp.arange(int(maxlen), dtype=lengths.dtype, device=_device_of(lengths))
    return positions < xp.expand_dims(lengths, axis=-1)
