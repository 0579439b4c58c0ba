"""Tensors made from shapes and numbers: zeros, ones, fill, eye, range, linspace and one_hot.

A shape may be static (a list, a constant int tensor), ``tf.shape(t)`` (then ``t``'s
run-time shape) or a list of sizes among which scalar int tensors computed at run time.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names
from ..shapes import Signature, format_shape
from ..signatures import signature_of
from .array_nodes import Filled, Index, created
from .base import (
    _axis,
    _ints,
    _op,
    _run_time_shape_of,
    _shape_argument,
    _static_ints,
    constant_value,
)
from .elementwise import identity, multiply, ones_like, zeros_like
from .functions import Literal, dtype_literal, helper
from .joining import broadcast_to
from .padding import pad
from .registry import OpDef, register
from .reshaping import reshape
from .sources import constant, convert_to_tensor

# --- zeros, ones, fill, eye, range, one_hot ---------------------------------------------------


def _run_time_sizes(shape: Any, op: str) -> list[int | Tensor] | None:
    """The sizes of a shape that lists scalar int tensors computed at run time among ints
    (``[tf.shape(x)[0], 4]``, or ``tf.stack`` of such sizes); None for any other shape."""
    if isinstance(shape, Tensor) and shape.op.type == "Pack" and shape.op.attrs["axis"] == 0:
        items: list[Any] = list(shape.op.inputs)
    elif isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        items = list(shape)
    else:
        return None
    sizes: list[int | Tensor] = []
    for item in items:
        fixed = constant_value(item) if isinstance(item, Tensor) else np.asarray(item)
        if fixed is not None:
            sizes.extend(_ints([fixed.item()] if fixed.ndim == 0 else [None], op, "the shape"))
            continue
        if item.shape != () or not item.dtype.is_integer:
            raise InvalidArgumentError(
                f"symgrad: {op}: a size of the shape must be an int or a scalar int tensor, "
                f"not '{item.name}' {item.dtype.name}{format_shape(item.shape)}"
            )
        sizes.append(item)
    if not any(isinstance(size, Tensor) for size in sizes):
        return None
    return sizes


def _filled(
    op_type: str, sizes: list[int | Tensor], value: Any, dtype: _dtypes.DType, name: str | None
) -> Tensor:
    """``value`` over a shape whose sizes ``sizes`` computes at run time (some of them)."""
    shape = tuple(None if isinstance(size, Tensor) else int(size) for size in sizes)
    inputs = [size for size in sizes if isinstance(size, Tensor)]
    attrs = {"sizes": shape, "value": value, "what": op_type}
    default = {"Zeros": "zeros", "Ones": "ones"}.get(op_type, op_type)  # TF's op names
    return _op("FillSizes", inputs, attrs, shape, dtype, name or default)


def _lower_filled(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    fed = iter(operands)
    sizes = [next(fed) if size is None else sp.Integer(size) for size in op.attrs["sizes"]]
    value = Literal(_number_text(op.attrs["value"]))
    return Filled(value, Literal(op.outputs[0].dtype.name), *sizes)


def _number_text(value: Any) -> str:
    """A Python number as code that needs no import (``float("inf")`` rather than ``inf``)."""
    if isinstance(value, float) and not np.isfinite(value):
        return f'float("{value}")'
    return repr(value)


def _filled_signature(op: Operation, inputs: Sequence[Any]) -> Signature:
    """A size read from a tensor's run-time shape (``zeros([tf.shape(x)[0], 4])``, an RNN's
    zero state) is that tensor's dim: values made from it share x's batch size."""
    sizes = iter(op.inputs)
    dims: list[Any] = []
    for axis, size in enumerate(op.attrs["sizes"]):
        if size is not None:
            dims.append(size)
            continue
        dims.append(_size_origin(next(sizes)) or frozenset({(op.outputs[0].name, axis)}))
    return tuple(dims)


def _size_origin(size: Tensor) -> Any:
    """The signature token of ``tf.shape(t)[k]``'s dim k of t, if ``size`` is that."""
    op = size.op
    if op.type != "StridedSlice" or not op.inputs or op.inputs[0].op.type != "Shape":
        return None
    key = op.attrs.get("key")
    if not (isinstance(key, tuple) and len(key) == 1 and isinstance(key[0], int)):
        return None
    known = signature_of(op.inputs[0].op.inputs[0])
    if not isinstance(known, tuple) or not -len(known) <= key[0] < len(known):
        return None
    return known[key[0]]


register(
    OpDef(
        "FillSizes",
        lower=_lower_filled,
        gradient=lambda op, grad: [None] * len(op.inputs),
        signature=_filled_signature,
    )
)


def _static_dims(shape: Any, op: str) -> tuple[int, ...]:
    dims = tuple(_ints(_shape_argument(shape, op), op, "the shape"))
    if any(d < 0 for d in dims):
        raise ShapeError(f"symgrad: {op}: negative dimension in {dims}")
    return dims


def _created(
    op_type: str,
    kind: str,
    arguments: tuple[str, ...],
    shape: tuple[int, ...],
    dtype: _dtypes.DType,
    name: str | None,
) -> Tensor:
    """An array made from literals alone: ``kind`` (zeros, ones, full, eye) of ``arguments``
    (Python text: a shape, a fill value, sizes) and ``dtype``."""
    return _op(op_type, [], {"kind": kind, "arguments": arguments}, shape, dtype, name)


def zeros(shape: Any, dtype: Any = _dtypes.float32, name: str | None = None) -> Tensor:
    """Zeros of a shape: a list, a constant int tensor, ``tf.shape(t)`` (then ``t``'s run-time
    shape), or a list (or ``tf.stack``) of sizes among which scalar int tensors computed at
    run time, as ``[tf.shape(x)[0], 4]``. Any other tensor computed at run time is an error.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 3])
    ...     state = sg.zeros([sg.shape(x)[0], 4])
    ...     print(state.shape, sg.compile(state, [x])([[1.0, 2.0, 3.0]] * 2).shape)
    (None, 4) (2, 4)
    """
    with default_names([], {"Zeros": "zeros", "ZerosLike": "zeros"}):
        like = _run_time_shape_of(shape)
        if like is not None:
            return zeros_like(like, dtype=dtype, name=name)
        sizes = _run_time_sizes(shape, "Zeros")
        if sizes is not None:
            return _filled("Zeros", sizes, 0, _dtypes.as_dtype(dtype), name)
        dims, dtype = _static_dims(shape, "Zeros"), _dtypes.as_dtype(dtype)
        return _created("Zeros", "zeros", (repr(dims),), dims, dtype, name)


def ones(shape: Any, dtype: Any = _dtypes.float32, name: str | None = None) -> Tensor:
    """Ones of a static shape, given as for :func:`zeros`."""
    with default_names([], {"Ones": "ones", "OnesLike": "ones"}):
        like = _run_time_shape_of(shape)
        if like is not None:
            return ones_like(like, dtype=dtype, name=name)
        sizes = _run_time_sizes(shape, "Ones")
        if sizes is not None:
            return _filled("Ones", sizes, 1, _dtypes.as_dtype(dtype), name)
        dims, dtype = _static_dims(shape, "Ones"), _dtypes.as_dtype(dtype)
        return _created("Ones", "ones", (repr(dims),), dims, dtype, name)


def fill(dims: Any, value: Any, name: str | None = None) -> Tensor:
    """``value`` repeated over a static shape, given as for :func:`zeros`.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 2])
    ...     filled = sg.fill(sg.shape(x), 7.0)
    ...     with sg.Session() as sess:
    ...         print(sess.run(filled, {x: [[1, 2], [3, 4], [5, 6]]}).tolist())
    [[7.0, 7.0], [7.0, 7.0], [7.0, 7.0]]
    """
    like = _run_time_shape_of(dims)
    if like is not None:
        filler = convert_to_tensor(value)
        if filler.shape != ():
            raise ShapeError("symgrad: Fill: value must be a scalar")
        return multiply(ones_like(like, dtype=filler.dtype), filler, name=name)
    sizes = _run_time_sizes(dims, "Fill")
    if isinstance(value, Tensor):
        # A value computed or fed at run time (its gradient is the sum of the filled one's).
        if value.shape != ():
            raise ShapeError(
                f"symgrad: Fill: value '{value.name}' {format_shape(value.shape)} must be a scalar"
            )
        if sizes is not None:
            return multiply(_filled("Fill", sizes, 1, value.dtype, None), value, name=name)
        return broadcast_to(value, list(_static_dims(dims, "Fill")), name=name)
    array = np.asarray(value)
    dtype = _dtypes.infer_dtype(value, "Fill")
    if array.ndim:
        raise ShapeError("symgrad: Fill: value must be a scalar")
    if sizes is not None:
        return _filled("Fill", sizes, array.item(), dtype, name)
    shape = _static_dims(dims, "Fill")
    literal_value = _number_text(array.item())
    return _created("Fill", "full", (repr(shape), literal_value), shape, dtype, name)


def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Any = None,
    dtype: Any = _dtypes.float32,
    name: str | None = None,
) -> Tensor:
    """The identity matrix."""
    dtype = _dtypes.as_dtype(dtype)
    columns = num_rows if num_columns is None else int(num_columns)
    if batch_shape:
        raise InvalidArgumentError("symgrad: eye: batch_shape is not supported")
    rows = int(num_rows)
    return _created("Eye", "eye", (str(rows), str(columns)), (rows, columns), dtype, name)


for _type in ("Zeros", "Ones", "Fill", "Eye"):
    register(
        OpDef(
            _type,
            lower=lambda op, xs: created(
                op.attrs["kind"], op.outputs[0].dtype, *op.attrs["arguments"]
            ),
            gradient=None,
        )
    )


def range(
    start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None, name: str = "range"
) -> Tensor:
    """``np.arange`` as a constant (the bounds must be Python numbers).

    (This module shadows the builtin ``range`` with TF's: it calls ``builtins.range``.)
    """
    if limit is None:
        start, limit = 0, start
    for bound in (start, limit, delta):
        if isinstance(bound, Tensor):
            raise InvalidArgumentError("symgrad: range: bounds must be Python numbers")
    values = np.arange(start, limit, delta)
    if dtype is not None:
        target = _dtypes.as_dtype(dtype)
    else:  # TF: Python floats give float32, ints int32
        target = (
            _dtypes.float32
            if any(isinstance(b, float) for b in (start, limit, delta))
            else _dtypes.int32
        )
    return constant(values.astype(target.numpy), dtype=target, name=name)


def one_hot(
    indices: Any,
    depth: int,
    on_value: Any = None,
    off_value: Any = None,
    axis: int = -1,
    dtype: Any = None,
    name: str | None = None,
) -> Tensor:
    """Vectors with ``on_value`` at ``indices`` and ``off_value`` elsewhere (no gradient).

    As in TensorFlow, an index outside ``[0, depth)`` (``-1`` for "no class") gives a
    vector of ``off_value`` only.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.one_hot([0, 2, -1], 3))())
    [[1. 0. 0.]
     [0. 0. 1.]
     [0. 0. 0.]]
    """
    with default_names([indices], {"OneHot": "one_hot"}):
        return one_hot_of_labels(indices, depth, on_value, off_value, axis, dtype, name, False)


def one_hot_of_labels(
    indices: Any,
    depth: int,
    on_value: Any = None,
    off_value: Any = None,
    axis: int = -1,
    dtype: Any = None,
    name: str | None = None,
    in_range: bool = True,
) -> Tensor:
    """``one_hot`` of indices the caller knows are in ``[0, depth)`` when ``in_range`` (class
    labels, which TF's cross-entropy kernels reject otherwise): a row of the identity each."""
    indices = convert_to_tensor(indices)
    if not indices.dtype.is_integer:
        raise DTypeError(
            f"symgrad: OneHot: indices '{indices.name}' must be integers, got {indices.dtype.name}"
        )
    if int(depth) < 0:
        raise InvalidArgumentError(
            f"symgrad: OneHot: depth {depth} of the one-hot vectors of '{indices.name}' is negative"
        )
    dtype = _one_hot_dtype(on_value, off_value, dtype)
    attrs = {
        "depth": int(depth),
        "on": 1 if on_value is None else _fixed_number(on_value, "on_value"),
        "off": 0 if off_value is None else _fixed_number(off_value, "off_value"),
        "axis": int(axis),
        "in_range": bool(in_range),
    }
    if indices.shape is None:
        # The new axis is placed when the indices arrive: -1 (last) or one counted from the
        # start, the axes TF's kernel takes.
        if int(axis) < -1:
            raise ShapeError(
                f"symgrad: OneHot: axis {axis} for indices '{indices.name}' of unknown rank; "
                f"give -1 (the last axis) or an axis counted from the start"
            )
        return _op("OneHot", [indices], attrs, None, dtype, name)
    if not -(len(indices.shape) + 1) <= int(axis) <= len(indices.shape):
        raise ShapeError(
            f"symgrad: OneHot: axis {axis} is out of range for indices '{indices.name}' of rank "
            f"{len(indices.shape)} (the result has rank {len(indices.shape) + 1})"
        )
    position = _axis(axis, len(indices.shape) + 1, "OneHot", indices.name)
    shape = list(indices.shape)
    shape.insert(position, int(depth))
    attrs["axis"] = position
    return _op("OneHot", [indices], attrs, tuple(shape), dtype, name)


def _fixed_number(value: Any, what: str) -> Any:
    """An on/off value as a Python number: a number, or a tensor the graph fixes."""
    fixed = constant_value(value) if isinstance(value, Tensor) else np.asarray(value)
    if fixed is None or fixed.ndim:
        raise InvalidArgumentError(
            f"symgrad: OneHot: {what} must be a number or a constant scalar tensor, got "
            f"{getattr(value, 'name', value)!r}"
        )
    return fixed.item()


def _one_hot_dtype(on_value: Any, off_value: Any, dtype: Any) -> _dtypes.DType:
    """TF's dtype of a one-hot tensor: ``dtype``, else that of the on/off values (which must
    agree), else float32."""
    if dtype is not None:
        return _dtypes.as_dtype(dtype)
    given = {
        role: value.dtype if isinstance(value, Tensor) else _dtypes.infer_dtype(value, "OneHot")
        for role, value in (("on_value", on_value), ("off_value", off_value))
        if value is not None
    }
    if len(set(given.values())) > 1:
        raise DTypeError(
            f"symgrad: OneHot: on_value of dtype {given['on_value'].name} does not match "
            f"off_value of dtype {given['off_value'].name}"
        )
    return next(iter(given.values()), _dtypes.float32)


def _lower_one_hot(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    a, dtype = op.attrs, op.outputs[0].dtype
    # Indexing the identity wraps a negative index and raises on one >= depth, where TF gives
    # a row of zeros: only for indices known to be in range.
    in_range = a.get("in_range", False)
    rank = None if op.inputs[0].shape is None else len(op.inputs[0].shape)
    if in_range and a["on"] == 1 and a["off"] == 0 and a["axis"] in (-1, rank):
        identity = created("eye", dtype, str(a["depth"]))
        return Index(identity, operands[0])  # row i of the identity is the one-hot vector of i
    return helper(
        "_one_hot",
        operands[0],
        a["depth"],
        a["on"],
        a["off"],
        a["axis"],
        dtype_literal(dtype),
        dtype=dtype.name,
    )


register(OpDef("OneHot", lower=_lower_one_hot, gradient=None))


def one_hot_like(labels: Tensor, logits: Tensor, name: str | None = None) -> Tensor:
    """``one_hot(labels, depth)`` in ``logits``' dtype, where ``depth`` is the size of the last
    axis of ``logits`` at run time (the cross-entropy of logits whose class count is unknown)."""
    shape = None if logits.shape is None or labels.shape is None else (*labels.shape, None)
    return _op("OneHotLike", [labels, logits], {}, shape, logits.dtype, name)


register(
    OpDef(
        "OneHotLike",
        lower=lambda op, xs: helper(
            "_one_hot_like",
            xs[0],
            xs[1],
            dtype_literal(op.outputs[0].dtype),
            dtype=op.outputs[0].dtype.name,
        ),
        gradient=lambda op, grad: [None, None],
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
    )
)


# --- linspace ----------------------------------------------------------------------------------


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), as TF's
    ``linspace_nd`` computes them: ``start + i * (stop - start) / (num - 1)``, and exactly
    ``stop`` at the end; differentiable in ``start`` and ``stop``. Scalar bounds only.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.linspace(1.0, 3.0, 5))())
    [1.  1.5 2.  2.5 3. ]
    """
    (count,) = _static_ints(num, "LinSpace", "num")
    lo, hi = convert_to_tensor(start), convert_to_tensor(stop)
    if lo.dtype != hi.dtype:
        hi = convert_to_tensor(stop, dtype=lo.dtype)
    if lo.shape != () or hi.shape != ():
        raise ShapeError(
            f"symgrad: LinSpace: start '{lo.name}' and stop '{hi.name}' must be scalars, "
            f"got {format_shape(lo.shape)} and {format_shape(hi.shape)}"
        )
    if count < 1:
        raise InvalidArgumentError(f"symgrad: LinSpace: num must be positive, got {count}")
    dtype = lo.dtype.numpy
    if count == 1:
        return reshape(lo, [1], name=name)
    steps = constant(np.arange(count - 1, dtype=dtype))
    inner = lo + steps * ((hi - lo) / np.asarray(count - 1, dtype=dtype))
    return identity(_concat_last(inner, hi), name=name)


def _concat_last(values: Tensor, last: Tensor) -> Tensor:
    # Through ``pad`` and a one-hot constant: ``stop`` lands exactly on the last place.
    assert values.shape is not None
    count = values.shape[0]
    assert count is not None
    end = np.zeros(count + 1, dtype=values.dtype.numpy)
    end[-1] = 1
    return pad(values, [[0, 1]]) + last * constant(end)


lin_space = linspace

__all__ = [
    "eye",
    "fill",
    "lin_space",
    "linspace",
    "one_hot",
    "one_hot_like",
    "one_hot_of_labels",
    "ones",
    "range",
    "zeros",
]
