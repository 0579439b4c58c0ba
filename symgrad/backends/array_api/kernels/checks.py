"""Run-time checks of the generated function: its inputs, and the values TF1 checks when an op runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._types import Array, Device, DType, Namespace
from .namespace import _is_numpy, _numpy_dtype, _traced

# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _check(
    xp: Namespace, device: Device, name: str, value: Any, dtype: DType,
    shape: tuple[int | None, ...] | None
) -> Array:
    """``value`` as an array of ``dtype`` in ``xp``; a ValueError if its shape or type does
    not fit. Arrays of ``xp`` are checked where they are, never copied to NumPy."""
    if not (hasattr(value, "shape") and hasattr(value, "dtype")):
        # Python numbers, converted as TF1 feeds them (with the dtype: 2**31 does not fit
        # int32, NaN no integer), through NumPy so that every library reads them alike.
        try:
            value = np.asarray(value, dtype=_numpy_dtype(dtype))
        except (OverflowError, ValueError, TypeError) as error:
            raise ValueError(
                f"input {name!r}: not a rectangular array of numbers that {dtype} holds "
                f"({error})"
            ) from None
    if isinstance(value, (np.ndarray, np.generic)) and not _is_numpy(xp):
        try:
            value = xp.asarray(value, device=device)
        except (ValueError, TypeError):
            raise ValueError(
                f"input {name!r}: not a rectangular array of numbers"
            ) from None
    if value.dtype != dtype:
        if not xp.isdtype(value.dtype, ("bool", "integral", "real floating")):
            raise ValueError(
                f"input {name!r}: expected numbers convertible to {dtype}, "
                f"got {type(value).__name__} of dtype {value.dtype}"
            )
        value = xp.astype(value, dtype)
        if value.dtype != dtype:  # JAX without jax_enable_x64 makes float32 of float64
            raise ValueError(
                f"input {name!r}: expected {dtype}, the array library made {value.dtype} "
                f"(for 64-bit JAX arrays, enable jax_enable_x64)"
            )
    got = tuple(value.shape)
    if any(n is None or isinstance(n, float) for n in got):
        # A Dask array after boolean indexing: the gradients' shapes need the sizes.
        raise ValueError(
            f"input {name!r}: shape {got} has unknown sizes; compute them first "
            f"(for a Dask array, {name}.compute_chunk_sizes())"
        )
    if (
        shape is not None
        and got != shape
        and (
            len(got) != len(shape)
            or any(want is not None and want != n for want, n in zip(shape, got))
        )
    ):
        dims = ["None" if d is None else str(d) for d in shape]
        expected = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
        raise ValueError(f"input {name!r}: expected shape {expected}, got {got}")
    return value

# fmt: on


def _matrices(xp: Namespace, value: Array) -> Array:
    """``value``, a matrix or a batch of matrices (an operand of matmul whose rank was unknown)."""
    if value.ndim < 2:
        raise ValueError(f"matmul needs rank 2 or more, got shape {tuple(value.shape)}")
    return value


def _ensure_shape(xp: Namespace, value: Array, shape: Sequence[int | None]) -> Array:
    """``value``, checked to have ``shape`` (None: any size) where the graph did not know it."""
    actual = tuple(value.shape)
    if len(actual) != len(shape) or any(
        d is not None and d != a for d, a in zip(shape, actual)
    ):
        expected = "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
        raise ValueError(f"expected shape {expected}, got {list(actual)}")
    return value


def _ensure_segment_ids(
    xp: Namespace, ids: Array, count: int | None, ordered: bool, op_type: str
) -> Array:
    """``ids``, checked as TF's ``op_type`` checks them: below ``count`` (when given), and
    sorted and non-negative (``ordered``); not while JAX traces them."""
    values = xp.reshape(xp.asarray(ids), (-1,))
    if values.shape[0]:
        low, high = xp.min(values), xp.max(values)
        if _traced(low):
            return ids
        low, high = int(low), int(high)
        if ordered and low < 0:
            raise IndexError(f"{op_type}: segment id {low} is negative")
        if ordered and bool(xp.any(values[1:] < values[:-1])):
            raise ValueError(f"{op_type}: segment ids are not sorted")
        if count is not None and high >= count:
            raise IndexError(f"{op_type}: segment id {high} is not in [0, {count})")
    return ids


def _ensure_in_range(
    xp: Namespace, indices: Array, like: Array, axis: int, op_type: str
) -> Array:
    """``indices``, checked to lie in ``[0, n)`` for ``n`` the size of ``like`` along ``axis``
    (``op_type`` refuses others in TF, where indexing would wrap a negative index round); not
    while JAX traces them."""
    size = like.shape[axis]
    values = xp.asarray(indices)
    if all(values.shape):  # not empty
        low, high = xp.min(values), xp.max(values)
        if _traced(low):
            return indices
        low, high = int(low), int(high)
        if low < 0 or high >= size:
            raise IndexError(
                f"{op_type}: index {low if low < 0 else high} is not in [0, {size}) "
                f"(axis {axis} of shape {list(like.shape)})"
            )
    return indices


def _ensure_broadcastable(
    xp: Namespace, weights: Array, values: Array, op_type: str
) -> Array:
    """``weights``, checked to be a scalar or of the rank of ``values`` with each size 1 or
    the size of ``values``, as TF1's losses check them (NumPy broadcasts a lower rank too)."""
    shape, other = tuple(weights.shape), tuple(values.shape)
    if shape and (
        len(shape) != len(other) or any(n not in (1, m) for n, m in zip(shape, other))
    ):
        raise ValueError(
            f"{op_type}: weights of shape {list(shape)} can not be broadcast to values of "
            f"shape {list(other)}"
        )
    return weights


def _ensure_axis(
    xp: Namespace, value: Array, axis: int, size: int, at_least: bool, op_type: str
) -> Array:
    """``value``, checked to have an axis ``axis`` of ``size`` entries (``at_least``: or more),
    where ``op_type`` checks it in TF and indexing would take the value anyway."""
    shape = tuple(value.shape)
    if not -len(shape) <= axis < len(shape):
        raise ValueError(
            f"{op_type}: a value of shape {list(shape)} has no axis {axis}"
        )
    if shape[axis] < size or (not at_least and shape[axis] != size):
        raise ValueError(
            f"{op_type}: axis {axis} of shape {list(shape)} must have "
            f"{'at least ' if at_least else ''}{size} entries"
        )
    return value


def _squeeze_last_by_rank(
    xp: Namespace, value: Array, other: Array, difference: int
) -> Array:
    """``value`` without its last axis if its rank exceeds ``other``'s by ``difference``
    (TF1's losses drop a [batch, 1] label's or weight's last axis by the ranks that arrive)."""
    if value.ndim - other.ndim == difference:
        if value.shape[-1] != 1:
            raise ValueError(
                f"cannot squeeze the last axis of shape {list(value.shape)}: its size is not 1"
            )
        return xp.squeeze(value, axis=-1)
    return value


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _ensure_same_dims(
    xp: Namespace, value: Array, like: Array, axes: Sequence[int],
    like_axes: Sequence[int], op_type: str
) -> Array:
    """``value``, checked to have as many entries along ``axes`` as ``like`` along ``like_axes``
    (``op_type`` checks these in TF, where NumPy would broadcast a size 1)."""
    actual, other = tuple(value.shape), tuple(like.shape)
    for axis, like_axis in zip(axes, like_axes):
        if not -len(other) <= like_axis < len(other):  # a rank known only at run time
            raise ValueError(
                f"{op_type}: the tensor that shape {list(actual)} goes with has no axis "
                f"{like_axis} (shape {list(other)})"
            )
        if actual[axis] != other[like_axis]:
            raise ValueError(
                f"{op_type}: {actual[axis]} entries along axis {axis} (shape {list(actual)}), but "
                f"{other[like_axis]} along axis {like_axis} of the tensor they go with (shape "
                f"{list(other)})"
            )
    return value

# fmt: on


def _select_condition(
    xp: Namespace, condition: Array, x: Array | float, y: Array | float
) -> Array:
    """A condition of unknown rank as TF's Select takes it: a scalar, a vector that picks
    rows, or the branches' shape; spread over that shape (shapes are tuples: NumPy
    computes their broadcast, the arrays stay in ``xp``)."""
    shape = np.broadcast_shapes(
        tuple(getattr(x, "shape", ())), tuple(getattr(y, "shape", ()))
    )
    if condition.ndim == 1 and len(shape) > 1:
        condition = xp.reshape(condition, (-1,) + (1,) * (len(shape) - 1))
    return xp.broadcast_to(condition, shape)
