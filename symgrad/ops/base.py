"""The small pieces the op families share: a one-output op (``_op``), arguments read as
Python ints, axes and static shapes, and the values the graph fixes without running
(:func:`constant_value`; a scalar int one is a Python int wherever Python wants one).
"""

from __future__ import annotations

import operator
import typing
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, get_default_graph
from ..shapes import Shape, is_fully_defined


def _op(
    op_type: str,
    inputs: Sequence[Tensor],
    attrs: dict,
    shape: Shape,
    dtype: _dtypes.DType,
    name: str | None,
) -> Tensor:
    graph = inputs[0].graph if inputs else get_default_graph()
    return graph.create_op(op_type, inputs, attrs, [(shape, dtype)], name=name).outputs[0]


def _static_shape_of(tensor: Tensor) -> tuple[int, ...] | None:
    return tuple(tensor.shape) if is_fully_defined(tensor.shape) else None


def _static_like(op: Operation) -> tuple[int, ...]:
    return () if is_fully_defined(op.inputs[1].shape) else (1,)


def _back_to_input(op_type: str, op: Operation, grad: Tensor, attr: str) -> Tensor:
    """``op_type`` of ``grad`` and ``op``'s input, with ``op``'s attribute ``attr``: the
    cotangent spread back to the input's shape (read from the input at run time)."""
    x = op.inputs[0]
    return _op(op_type, [grad, x], {attr: op.attrs[attr]}, x.shape, grad.dtype, None)


# --- arguments: ints, axes, shapes ---------------------------------------------------------


def _axis(axis: int, rank: int, op: str, name: str) -> int:
    if not -rank <= int(axis) < rank:
        raise ShapeError(f"symgrad: {op}: axis {axis} is out of range for '{name}' of rank {rank}")
    return int(axis) % rank


def _known_rank(x: Tensor, op: str) -> int:
    if x.shape is None:
        raise ShapeError(f"symgrad: {op}: '{x.name}' needs a known rank")
    return len(x.shape)


def _ints(values: Any, op: str, what: str, tensor: Tensor | None = None) -> list[int]:
    """``values`` (a list or one value) as Python ints; anything else (a string, a float) is a
    DTypeError naming the op, the argument and the tensor, as TF's TypeError does."""
    items = list(values) if isinstance(values, (list, tuple, np.ndarray)) else [values]
    for position, item in enumerate(items):
        if isinstance(item, Tensor):
            known = constant_value(item)
            if known is None or known.ndim or not item.dtype.is_integer:
                of = f" of '{tensor.name}'" if tensor is not None else ""
                raise InvalidArgumentError(
                    f"symgrad: {op}: {what}{of} must be ints or constant int tensors, not "
                    f"tensor '{item.name}' (computed at run time)"
                )
            items[position] = int(known)
    try:
        return [operator.index(v) for v in items]
    except TypeError:
        bad = next(v for v in items if not _is_index(v))
        of = f" of '{tensor.name}'" if tensor is not None else ""
        raise DTypeError(
            f"symgrad: {op}: {what}{of} must be ints, got {type(bad).__name__} {bad!r:.40} "
            f"in {values!r:.60}"
        ) from None


def _is_index(value: Any) -> bool:
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _static_ints(value: Any, op: str, what: str, tensor: Tensor | None = None) -> list[int]:
    """A list of ints given as a list, a NumPy array or a tensor the graph fixes."""
    if isinstance(value, Tensor):
        fixed = constant_value(value)
        if fixed is None or not value.dtype.is_integer:
            raise InvalidArgumentError(
                f"symgrad: {op}: {what} must be ints or a constant int tensor, not tensor "
                f"'{value.name}' (computed at run time)"
            )
        value = fixed
    return _ints(np.asarray(value).ravel().tolist(), op, what, tensor)


def _shape_argument(shape: Any, op: str, of: Tensor | None = None) -> Any:
    """A shape given as a list, or as a tensor whose value the graph fixes (``tf.constant``)."""
    if not isinstance(shape, Tensor):
        return shape
    value = constant_value(shape)
    if value is None or value.ndim > 1 or not shape.dtype.is_integer:
        target = f" of '{of.name}'" if of is not None else ""
        raise InvalidArgumentError(
            f"symgrad: {op}: the shape{target} must be a list of ints or a constant int "
            f"tensor, not tensor '{shape.name}' (computed at run time)"
        )
    return [int(d) for d in np.atleast_1d(value)]


def _run_time_shape_of(shape: Any) -> Tensor | None:
    """``t`` when ``shape`` is ``tf.shape(t)`` of a tensor whose shape is known only at run
    time: then ``zeros``/``ones``/``fill``/``broadcast_to`` follow ``t``'s run-time shape."""
    if isinstance(shape, Tensor) and shape.op.type == "Shape" and shape.op.inputs:
        return shape.op.inputs[0]
    return None


# --- values the graph fixes ----------------------------------------------------------------


def constant_value(tensor: Any) -> np.ndarray | None:
    """The value of ``tensor`` if the graph fixes it without running (TF1's
    ``tensor_util.constant_value``): a constant, or the shape of a statically shaped tensor
    (``shape()`` already folds to a constant then), through identities and casts.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     constant_value(sg.constant([2, 3]))
    array([2, 3], dtype=int32)
    """
    if not isinstance(tensor, Tensor):
        return None
    op = tensor.op
    if op.type == "Const":
        return np.asarray(op.attrs["value"])
    if op.type in ("Identity", "Cast") and op.inputs:
        inner = constant_value(op.inputs[0])
        return None if inner is None else inner.astype(tensor.dtype.numpy)
    # Indexing and stacking of known values are known too (``tf.shape(c)[0]``,
    # ``tf.stack([2, n])``), so such tensors serve as static shapes and indices.
    if op.type == "StridedSlice" and op.inputs and "key" in op.attrs:
        inner = constant_value(op.inputs[0])
        return None if inner is None else np.asarray(inner[op.attrs["key"]])
    if op.type == "Pack":
        parts = [constant_value(t) for t in op.inputs]
        if any(p is None for p in parts):
            return None
        return np.stack(typing.cast(list[np.ndarray], parts), axis=op.attrs["axis"])
    return None


def _index(self: Tensor) -> int:
    """A scalar int tensor whose value the graph fixes is an int wherever Python wants one
    (``tf.expand_dims(x, tf.constant(0))``, ``reduce_sum(x, axis=tf.constant(1))``)."""
    value = constant_value(self)
    if value is None or value.ndim or not self.dtype.is_integer:
        raise DTypeError(
            f"symgrad: tensor '{self.name}' is used as an int (an axis, a dim, an index), "
            "but its value is computed at run time; give a Python int or a constant int tensor"
        )
    return int(value)


Tensor.__index__ = _index  # type: ignore[method-assign]  # declared on Tensor, defined here
