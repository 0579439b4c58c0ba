"""Run-time checks of the generated function: its inputs, and the values TF1 checks when an op runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from ._types import Array, Axes, Checked


def _check(
    name: str, value: Any, dtype: DTypeLike, shape: tuple[int | None, ...] | None
) -> Array | np.generic:
    """``value`` as an array of ``dtype``; a ValueError if its shape or type does not fit."""
    if type(value) is dtype and not shape:
        return value  # a NumPy scalar of the right type: as good as a 0-d array, and cheaper
    try:
        array = np.asarray(value)
    except ValueError:
        raise ValueError(
            f"input {name!r}: not a rectangular array (ragged nested lists)"
        ) from None
    if array.dtype != dtype:
        if array.dtype.kind not in "biuf":
            raise ValueError(
                f"input {name!r}: expected numbers convertible to "
                f"{np.dtype(dtype).name}, got {type(value).__name__} of dtype {array.dtype}"
            )
        numbers = not isinstance(value, (np.ndarray, np.generic))
        if numbers and np.dtype(dtype).kind in "iu":
            # Python numbers, converted as TF1 feeds them: one the dtype cannot hold (2**31
            # for int32, NaN) is an error, not a number wrapped round.
            try:
                array = np.asarray(value, dtype=dtype)
            except (OverflowError, ValueError) as error:
                raise ValueError(
                    f"input {name!r}: {np.dtype(dtype).name} cannot hold the value: {error}"
                ) from None
        else:
            array = array.astype(dtype)
    if shape is not None and array.shape != shape:
        # A loop, not any() over a generator: this runs on every call, for every input.
        fits = array.ndim == len(shape)
        for want, got in zip(shape, array.shape):
            if want is not None and want != got:
                fits = False
        if not fits:
            dims = ["None" if d is None else str(d) for d in shape]
            expected = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
            raise ValueError(
                f"input {name!r}: expected shape {expected}, got {array.shape}"
            )
    return array


def _matrices(value: Checked) -> Checked:
    """``value``, a matrix or a batch of matrices (an operand of matmul whose rank was unknown)."""
    if np.ndim(value) < 2:
        raise ValueError(f"matmul needs rank 2 or more, got shape {np.shape(value)}")
    return value


def _ensure_shape(value: Checked, shape: Sequence[int | None]) -> Checked:
    """``value``, checked to have ``shape`` (None: any size) where the graph did not know it."""
    actual = np.shape(value)
    if len(actual) != len(shape) or any(
        d is not None and d != a for d, a in zip(shape, actual)
    ):
        expected = "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"
        raise ValueError(f"expected shape {expected}, got {list(actual)}")
    return value


def _ensure_segment_ids(
    ids: Checked, count: int | None, ordered: int, op_type: str
) -> Checked:
    """``ids``, checked as TF's ``op_type`` checks them: below ``count`` (when given), and
    sorted and non-negative (``ordered``)."""
    values = np.asarray(ids).reshape(-1)
    if values.size:
        if ordered and values.min() < 0:
            raise IndexError(f"{op_type}: segment id {values.min()} is negative")
        if ordered and np.any(values[1:] < values[:-1]):
            raise ValueError(
                f"{op_type}: segment ids are not sorted: {values.tolist()!r:.60}"
            )
        if count is not None and values.max() >= count:
            raise IndexError(
                f"{op_type}: segment id {values.max()} is not in [0, {count})"
            )
    return ids


def _ensure_in_range(
    indices: Checked, like: ArrayLike, axis: int, op_type: str
) -> Checked:
    """``indices``, checked to lie in ``[0, n)`` for ``n`` the size of ``like`` along ``axis``
    (``op_type`` refuses others in TF, where NumPy would wrap a negative index round)."""
    size = np.shape(like)[axis]
    values = np.asarray(indices)
    if values.size:
        low, high = values.min(), values.max()
        if low < 0 or high >= size:
            raise IndexError(
                f"{op_type}: index {low if low < 0 else high} is not in [0, {size}) "
                f"(axis {axis} of shape {list(np.shape(like))})"
            )
    return indices


def _ensure_broadcastable(weights: Checked, values: ArrayLike, op_type: str) -> Checked:
    """``weights``, checked to be a scalar or of the rank of ``values`` with each size 1 or
    the size of ``values``, as TF1's losses check them (NumPy broadcasts a lower rank too)."""
    shape, other = np.shape(weights), np.shape(values)
    if shape and (
        len(shape) != len(other) or any(n not in (1, m) for n, m in zip(shape, other))
    ):
        raise ValueError(
            f"{op_type}: weights of shape {list(shape)} can not be broadcast to values of "
            f"shape {list(other)}"
        )
    return weights


def _ensure_axis(
    value: Checked, axis: int, size: int, at_least: int, op_type: str
) -> Checked:
    """``value``, checked to have an axis ``axis`` of ``size`` entries (``at_least``: or more),
    where ``op_type`` checks it in TF and NumPy would take the value anyway."""
    shape = np.shape(value)
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
    value: ArrayLike, other: ArrayLike, difference: int
) -> ArrayLike:
    """``value`` without its last axis if its rank exceeds ``other``'s by ``difference``
    (TF1's losses drop a [batch, 1] label's or weight's last axis by the ranks that arrive)."""
    if np.ndim(value) - np.ndim(other) == difference:
        if np.shape(value)[-1] != 1:
            raise ValueError(
                f"cannot squeeze the last axis of shape {list(np.shape(value))}: its size is "
                "not 1"
            )
        return np.squeeze(value, -1)
    return value


def _ensure_same_dims(
    value: Checked, like: ArrayLike, axes: Axes, like_axes: Axes, op_type: str
) -> Checked:
    """``value``, checked to have as many entries along ``axes`` as ``like`` along ``like_axes``
    (``op_type`` checks these in TF, where NumPy would broadcast a size 1)."""
    actual, other = np.shape(value), np.shape(like)
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


def _select_condition(
    condition: ArrayLike, x: ArrayLike, y: ArrayLike
) -> NDArray[np.bool_]:
    """A condition of unknown rank as TF's Select takes it: a scalar, a vector that picks
    rows, or the branches' shape; spread over that shape."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    if np.ndim(condition) == 1 and len(shape) > 1:
        condition = np.reshape(condition, (-1,) + (1,) * (len(shape) - 1))
    return np.broadcast_to(condition, shape)


def _kept_shapes(
    loop: str, names: Sequence[str], values: Sequence[Any], shapes: Sequence[Any]
) -> None:
    """A ValueError if a loop's carried value left a step with another shape than it had
    when the loop began: its static shape's unknown sizes are kept from step to step (the
    generated code relies on it), unless ``shape_invariants`` says they may change."""
    for name, value, shape in zip(names, values, shapes):
        if np.shape(value) != tuple(shape):
            raise ValueError(
                f"{loop}: loop variable {name!r} began with shape {tuple(shape)} and left a "
                f"step with shape {np.shape(value)}; to let its size change from step to "
                f"step, give shape_invariants with None there"
            )
