"""Source ops: constants and placeholders, and value → tensor conversion.

Variables, which are sources too, live in :mod:`symgrad.ops.state` beside their
assignments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, ShapeError
from ..graph import Tensor, get_default_graph
from ..shapes import as_shape, format_shape, is_fully_defined
from .registry import OpDef, register

# Sources have no SymPy rule of their own: the tracer turns them into inputs
# (placeholders) or baked-in values (constants).
register(OpDef("Const", lower=None, gradient=None))
register(OpDef("Placeholder", lower=None, gradient=None))


def _as_array(value: Any, dtype: _dtypes.DType | None, op: str) -> np.ndarray:
    if isinstance(value, Tensor):
        raise DTypeError(
            f"symgrad: {op}: expected a Python or NumPy value, got Tensor '{value.name}'"
        )
    try:
        raw = np.asarray(value)
    except ValueError:
        raise ShapeError(
            f"symgrad: {op}: {value!r:.60} is not a rectangular array (ragged nested lists)"
        ) from None
    target = dtype or _dtypes.infer_dtype(value, op)
    if raw.dtype.kind not in "biuf":
        raise DTypeError(
            f"symgrad: {op}: cannot make a {target.name} tensor from non-numeric "
            f"value {value!r:.60} (NumPy dtype {raw.dtype})"
        )
    if (
        target.is_integer
        and raw.dtype.kind == "f"
        and not np.all(np.isfinite(raw) & (raw == np.round(raw)))
    ):
        raise DTypeError(
            f"symgrad: {op}: value {value!r:.60} is not exactly representable as {target.name}"
        )
    if target.is_bool and raw.dtype.kind != "b":
        raise DTypeError(
            f"symgrad: {op}: cannot make a bool tensor from {raw.dtype} value {value!r:.60}"
        )
    return raw.astype(target.numpy)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Tensor:
    """A constant tensor, baked into the generated code.

    Python floats give float32 and Python ints int32, as in TensorFlow.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     c = sg.constant([1.0, 2.0], name="c")
    >>> c.shape, c.dtype
    ((2,), symgrad.float32)
    """
    target = _dtypes.as_dtype(dtype) if dtype is not None else None
    array = _as_array(value, target, "constant")
    if shape is not None:
        wanted = as_shape(shape)
        if not is_fully_defined(wanted):
            raise ShapeError(
                f"symgrad: constant: shape {format_shape(wanted)} must be fully defined"
            )
        if array.size == 1:
            array = np.full(wanted, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(wanted)):
            array = array.reshape(wanted)
        else:
            raise ShapeError(
                f"symgrad: constant: a value of shape {format_shape(array.shape)} "
                f"cannot fill shape {format_shape(wanted)}"
            )
    array.setflags(write=False)
    graph = get_default_graph()
    op = graph.create_op(
        "Const",
        [],
        {"value": array},
        [(tuple(array.shape), _dtypes.as_dtype(array.dtype))],
        name=name,
    )
    return op.outputs[0]


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """An input fed at run time; ``None`` dims (or ``shape=None``) accept any size.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 784], name="images")
    >>> x
    <symgrad.Tensor 'images:0' shape=(None, 784) dtype=float32>
    """
    try:
        dtype, shape = _dtypes.as_dtype(dtype), as_shape(shape)
    except (DTypeError, ShapeError) as error:
        detail = str(error).replace("symgrad: ", "", 1)
        raise type(error)(f"symgrad: Placeholder '{name or 'Placeholder'}': {detail}") from None
    op = get_default_graph().create_op("Placeholder", [], {}, [(shape, dtype)], name=name)
    return op.outputs[0]


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """A tensor as is (checking ``dtype``), or a new constant for a Python/NumPy value."""
    if isinstance(value, Tensor):
        if dtype is not None and _dtypes.as_dtype(dtype) != value.dtype:
            raise DTypeError(
                f"symgrad: tensor '{value.name}' has dtype {value.dtype.name}, "
                f"expected {_dtypes.as_dtype(dtype).name}"
            )
        return value
    return constant(value, dtype=dtype, name=name)
