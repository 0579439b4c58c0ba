"""Shape ops: reshape, transpose, expand/squeeze, concat/stack/unstack/split, tile,
broadcast_to, gather, slicing, and tensors made from shapes (zeros, one_hot, ...).

Each op is a NumPy call (a small SymPy node that prints itself) with its
shape rule and its gradient as graph ops, next to each other.
"""

from __future__ import annotations

import builtins
import operator
import typing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy as sp

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names, get_default_graph
from ..shapes import (
    Shape,
    as_shape,
    broadcast_shapes,
    broadcast_signatures,
    format_shape,
    is_fully_defined,
    num_elements,
    shapes_compatible,
    signature,
    unknown_rank_axes,
)
from ..signatures import reduced_axes_of, signature_of
from .broadcasting import sum_to_shape_of
from .elementwise import add, add_n, cast, identity, multiply, ones_like, zeros_like
from .elementwise import where as _select
from .functions import IndexKey, Literal, _Structural, check, dtype_literal, helper, literal
from .functions import cast as cast_node
from .registry import OpDef, arg_symbols, register
from .sources import PACKER, constant, convert_to_tensor


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


# --- array functions ------------------------------------------------------------------------

# The array functions a Call may name, each meaning what NumPy's function of that name does
# with the arguments given here (value first, then literals: sizes, axes, keywords). Every
# backend's printer has one rule for each (tests/test_layers.py checks it), so a function
# added here without a rule in some backend fails a test rather than a user.
ARRAY_FUNCTIONS = frozenset(
    {
        "broadcast_to",
        "concatenate",
        "expand_dims",
        "flip",
        "ndim",
        "pad",
        "reshape",
        "roll",
        "size",
        "squeeze",
        "stack",
        "take",
        "take_along_axis",
        "tile",
        "transpose",
    }
)


class Call(_Structural):
    """``function(value, <literal arguments>)`` for one of :data:`ARRAY_FUNCTIONS`: args are
    the function's name, the value, then literals printed as they are."""

    def result_dtype(self, dtype_of: Any) -> str:
        return dtype_of(self.args[1])


def call(function: str, value: sp.Expr, *literals: Any) -> Call:
    if function not in ARRAY_FUNCTIONS:
        raise ValueError(f"{function!r} is not one of the IR's array functions (ARRAY_FUNCTIONS)")
    return Call(
        Literal(function), value, *(x if isinstance(x, sp.Basic) else literal(x) for x in literals)
    )


class AsArray(_Structural):
    """An array of a dtype (args: the value, a :class:`DTypeLiteral`) made of Python ints
    computed at run time: a shape, a rank."""

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[1])


class AsScalar(AsArray):
    """A scalar of a dtype (args: the value, a :class:`DTypeLiteral`) made of a Python int
    computed at run time: a size."""


class ShapeOf(_Structural):
    """The shape of ``x`` as a tuple of Python ints, for run-time shapes (only inside other
    calls)."""

    def shape_only_arguments(self) -> tuple[int, ...]:
        return (0,)

    def result_dtype(self, dtype_of: Any) -> str:
        return "weak_int"


def shape_argument(tensor: Tensor, value: sp.Expr) -> sp.Basic:
    """The shape of ``tensor`` as a literal if static, else :class:`ShapeOf` ``value``."""
    static = _static_shape_of(tensor)
    return literal(static) if static is not None else ShapeOf(value)


class Index(_Structural):
    """``x[key]`` with a basic-indexing key, printed as Python would write it."""


class ListOf(_Structural):
    """``[a, b, c]`` (the operands of concatenate and stack)."""


class Filled(_Structural):
    """An array of ``sizes`` all equal to ``value`` (sizes computed at run time among ints):
    args are the value's text, the dtype's name, then the sizes."""

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[1])


# The arrays a Created makes, each as NumPy's function of that name makes it.
CREATED_KINDS = frozenset({"zeros", "ones", "full", "eye"})


class Created(_Structural):
    """An array made from literals alone: args are its kind (one of :data:`CREATED_KINDS`),
    its arguments as Python text (``(3, 4)``; ``(3, 4), 0.5``; ``3, 3``), then its dtype.

    (Kind, arguments, dtype, in that order: sums of such arrays keep one order of terms.)
    """

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[2])


def created(kind: str, dtype: Any, *arguments: str) -> Created:
    if kind not in CREATED_KINDS:
        raise ValueError(f"{kind!r} is not one of CREATED_KINDS")
    return Created(Literal(kind), Literal(", ".join(arguments)), dtype_literal(dtype))


def _lower_call(function: str, *attributes: str) -> Any:
    def lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
        return call(function, operands[0], *(op.attrs[a] for a in attributes))

    return lower


# --- where (TF1's Select) --------------------------------------------------------------------


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elements of ``x`` where ``condition`` holds, else of ``y``.

    As TF1's ``where``: a vector ``condition`` picks whole rows of ``x``/``y`` of higher rank
    (it must be as long as their first axis, checked when run where a size is unknown then),
    even where it would also broadcast along the last axis (a square matrix); otherwise all
    three broadcast.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     rows = sg.where([True, False], [[1.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]])
    ...     print(sg.compile(rows)())
    [[1. 2.]
     [0. 0.]]
    """
    if x is not None and y is not None:
        condition = convert_to_tensor(condition)
        widest = builtins.max(
            (_shape_of(x), _shape_of(y)), key=lambda s: -1 if s is None else len(s)
        )
        if (
            condition.shape is not None
            and len(condition.shape) == 1
            and widest is not None
            and len(widest) > 1
        ):
            # TF1's Select: a vector picks rows, and must be as long as the first axis.
            count, rows = condition.shape[0], widest[0]
            if count is not None and rows is not None and count != rows:
                raise ShapeError(
                    f"symgrad: Select: the condition '{condition.name}' "
                    f"{format_shape(condition.shape)} picks rows of values of shape "
                    f"{format_shape(widest)}: it must have {rows} entries"
                )
            if count is None or rows is None:
                wide = convert_to_tensor(x if _shape_of(x) == widest else y)
                condition = ensure_same_dims(condition, wide, (0,), (0,), "Select")
            # a size-1 axis for every axis after the first: the condition broadcasts per row
            condition = reshape(condition, [-1] + [1] * (len(widest) - 1))
        elif condition.shape is None and _shape_of(x) is not None and _shape_of(y) is not None:
            # A condition of unknown rank (a shape-less bool placeholder, as in
            # layers.dropout(training=is_training)): TF's Select keeps the branches' shape and
            # takes a scalar, a vector of rows or a full condition at run time.
            if not isinstance(x, Tensor):
                x = convert_to_tensor(x, dtype=y.dtype if isinstance(y, Tensor) else None)
            if not isinstance(y, Tensor):
                y = convert_to_tensor(y, dtype=x.dtype)
            condition = _select_condition(condition, x, y)
    return _select(condition, x, y, name)


def _select_condition(condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """``condition`` (of unknown rank) spread over the broadcast shape of ``x`` and ``y``."""
    try:
        shape = broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise ShapeError(
            f"symgrad: Select: branches '{x.name}' {format_shape(x.shape)} and '{y.name}' "
            f"{format_shape(y.shape)} do not broadcast"
        ) from None
    return _op("SelectCondition", [condition, x, y], {}, shape, condition.dtype, None)


def _select_condition_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    return broadcast_signatures(sigs[1], sigs[2])


register(
    OpDef(
        "SelectCondition",
        lower=lambda op, xs: helper("_select_condition", xs[0], xs[1], xs[2], dtype="bool"),
        gradient=lambda op, grad: [None, None, None],
        materialized_inputs=lambda op: (1, 2),
        shape_only_inputs=(1, 2),
        signature=_select_condition_signature,
    )
)


def _shape_of(value: Any) -> Shape:
    """Static shape of a tensor (None: unknown rank) or of an array-like."""
    if isinstance(value, Tensor):
        return value.shape
    return np.shape(value)


# --- reshape ---------------------------------------------------------------------------------


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


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``np.reshape``; one dim may be -1.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 28, 28])
    ...     sg.reshape(x, [-1, 784]).shape
    (None, 784)
    """
    x = convert_to_tensor(tensor)
    if isinstance(shape, Tensor) and shape.op.type == "Shape":
        return reshape_like(x, shape.op.inputs[0])  # reshape(t, tf.shape(u)): u's run-time shape
    if isinstance(shape, Tensor):
        shape = _shape_argument(shape, "Reshape", x)
    target = _ints(shape, "Reshape", "the shape", x)
    if target.count(-1) > 1 or any(d < -1 for d in target):
        raise ShapeError(f"symgrad: Reshape: invalid target shape {tuple(target)} for '{x.name}'")
    known = int(np.prod([d for d in target if d != -1])) if target else 1
    total = num_elements(x.shape)
    if total is not None:
        if -1 in target:
            if known == 0 or total % known:
                raise ShapeError(
                    f"symgrad: Reshape: cannot reshape '{x.name}' of shape "
                    f"{format_shape(x.shape)} ({total} elements) to {tuple(target)}"
                )
            out: tuple[Any, ...] = tuple(total // known if d == -1 else d for d in target)
        elif known != total:
            raise ShapeError(
                f"symgrad: Reshape: cannot reshape '{x.name}' of shape {format_shape(x.shape)} "
                f"({total} elements) to {tuple(target)} ({known} elements)"
            )
        else:
            out = tuple(target)
    else:
        out = tuple(None if d == -1 else d for d in target)
    return _op("Reshape", [x], {"shape": tuple(target)}, out, x.dtype, name)


def _reshape_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [reshape_like(grad, op.inputs[0])]


def reshape_like(tensor: Tensor, like: Tensor) -> Tensor:
    """``tensor`` reshaped to the (run-time) shape of ``like``."""
    return _op("ReshapeLike", [tensor, like], {}, like.shape, tensor.dtype, None)


def _lower_reshape_like(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    value = operands[0]
    if isinstance(value, sp.Number):
        # A number (the 1 that seeds a gradient) reshaped is an array of its own: NumPy would
        # make it int64 or float64, whatever the tensor's dtype.
        dtype = op.outputs[0].dtype.name
        value = cast_node(value, dtype, dtype)
    return call("reshape", value, shape_argument(op.inputs[1], operands[1]))


def _static_like(op: Operation) -> tuple[int, ...]:
    return () if is_fully_defined(op.inputs[1].shape) else (1,)


def _reshape_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    """``x.reshape(-1, ...)`` keeps the unknown dim of ``x`` when the known dims around it hold
    as many elements on both sides: ``[None, 784]`` images reshaped to ``[-1, 28, 28, 1]`` keep
    their batch size, so a CNN's logits still meet the ``[None, 10]`` labels with one signature.
    Any other reshape gives fresh unknown dims (always sound)."""
    source, target = sigs[0], op.attrs["shape"]
    fresh = signature(op.outputs[0].shape, op.name)
    if isinstance(source, frozenset) or target.count(-1) != 1:
        return fresh
    unknown = [d for d in source if isinstance(d, frozenset)]
    known_in = int(np.prod([d for d in source if isinstance(d, int)]))
    known_out = int(np.prod([d for d in target if d != -1]))
    if len(unknown) != 1 or known_in == 0 or known_in != known_out:
        return fresh
    return tuple(unknown[0] if d == -1 else d for d in target)


register(
    OpDef(
        "Reshape",
        lower=_lower_call("reshape", "shape"),
        gradient=_reshape_gradient,
        signature=_reshape_signature,
    )
)
register(
    OpDef(
        "ReshapeLike",
        lower=_lower_reshape_like,
        gradient=lambda op, g: [reshape_like(g, op.inputs[0]), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


# --- transpose, expand_dims, squeeze -------------------------------------------------------------


def transpose(
    a: Any, perm: Sequence[int] | None = None, name: str | None = None, conjugate: bool = False
) -> Tensor:
    """Permute axes (reverse them by default); ``perm`` may be a constant int tensor."""
    with default_names([a], {"Transpose": "transpose"}):
        return _transpose(a, perm, name)


def _transpose(a: Any, perm: Sequence[int] | None, name: str | None) -> Tensor:
    x = convert_to_tensor(a)
    if isinstance(perm, Tensor):
        perm = _shape_argument(perm, "Transpose", x)
    if x.shape is None:
        if perm is None:  # NumPy reverses the axes of whatever rank arrives, as TF does
            return _op("Transpose", [x], {"perm": None}, None, x.dtype, name)
        # A permutation fixes the rank: TF's kernel refuses any other, and so does the check.
        x = ensure_shape(x, [None] * len(perm))
    shape = x.shape
    assert shape is not None  # given above where it was not
    rank = len(shape)
    order = tuple(builtins.range(rank))[::-1] if perm is None else tuple(int(p) for p in perm)
    if sorted(p % builtins.max(rank, 1) if -rank <= p < rank else -1 for p in order) != list(
        builtins.range(rank)
    ):
        raise ShapeError(
            f"symgrad: Transpose: perm {perm!r} is not a permutation of the {rank} axes "
            f"of '{x.name}' {format_shape(shape)}"
        )
    order = tuple(p % rank for p in order) if rank else order
    return _op("Transpose", [x], {"perm": order}, tuple(shape[p] for p in order), x.dtype, name)


def _transpose_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    if op.attrs["perm"] is None:  # the reversal, of a rank known only at run time
        return [transpose(grad)]
    return [transpose(grad, list(np.argsort(op.attrs["perm"])))]


def _transpose_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if op.attrs["perm"] is None or not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    return tuple(sigs[0][p] for p in op.attrs["perm"])


def _lower_transpose(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    perm = op.attrs["perm"]
    if perm is None or perm == tuple(builtins.range(len(perm)))[::-1]:
        return call("transpose", operands[0])
    return call("transpose", operands[0], perm)


register(
    OpDef(
        "Transpose",
        lower=_lower_transpose,
        gradient=_transpose_gradient,
        signature=_transpose_signature,
    )
)


def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:
    """Insert a size-1 axis at ``axis``."""
    x = convert_to_tensor(input)
    if x.shape is None:
        # NumPy counts a negative axis in the result's axes, as TF does: -1 appends one.
        (position,) = unknown_rank_axes(int(axis), "ExpandDims", x.name)
        return _op("ExpandDims", [x], {"axis": position}, None, x.dtype, name)
    rank = len(x.shape) + 1
    if not -rank <= int(axis) < rank:
        raise ShapeError(
            f"symgrad: ExpandDims: axis {axis} is out of range for '{x.name}' of rank {rank - 1}"
        )
    position = int(axis) % rank
    shape = tuple(x.shape[:position]) + (1,) + tuple(x.shape[position:])
    return _op("ExpandDims", [x], {"axis": position}, shape, x.dtype, name)


def squeeze_last_by_rank(value: Tensor, other: Tensor, difference: int) -> Tensor:
    """``value`` without its last axis (which must have size 1) when its rank, known only at
    run time, exceeds ``other``'s by ``difference``; else ``value`` as it is: TF1's dynamic
    ``_remove_squeezable_dimensions`` of labels and weights of unknown rank."""
    attrs = {"difference": int(difference)}
    return _op("SqueezeLastByRank", [value, other], attrs, None, value.dtype, None)


register(
    OpDef(
        "SqueezeLastByRank",
        lower=lambda op, xs: helper("_squeeze_last_by_rank", xs[0], xs[1], op.attrs["difference"]),
        gradient=lambda op, grad: [reshape_like(grad, op.inputs[0]), None],
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
    )
)


def squeeze(
    input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None
) -> Tensor:
    """Remove size-1 axes (all of them, or those in ``axis``)."""
    x = convert_to_tensor(input)
    axis = squeeze_dims if axis is None else axis
    if x.shape is None:
        # The axes to drop (all of size 1 if none are named) are known when the value arrives;
        # NumPy refuses an axis whose size is not 1, as TF's kernel does.
        requested = None if axis is None else (axis if isinstance(axis, (list, tuple)) else [axis])
        axes = None if requested is None else unknown_rank_axes(requested, "Squeeze", x.name)
        return _op("Squeeze", [x], {"axes": axes}, None, x.dtype, name)
    rank = len(x.shape)
    if axis is None:
        if None in x.shape:
            # Which axes have size 1 is known when the value arrives: the result's rank is
            # unknown until then, as TF's shape function says.
            return _op("Squeeze", [x], {"axes": None}, None, x.dtype, name)
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        requested = axis if isinstance(axis, (list, tuple)) else [axis]
        axes = tuple(sorted(_axis(a, rank, "Squeeze", x.name) for a in requested))
        for a in axes:
            if x.shape[a] not in (1, None):
                raise ShapeError(
                    f"symgrad: Squeeze: axis {a} of '{x.name}' {format_shape(x.shape)} "
                    f"has size {x.shape[a]}, not 1"
                )
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return _op("Squeeze", [x], {"axes": axes}, shape, x.dtype, name)


def _squeeze_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if op.attrs["axes"] is None or not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    return tuple(d for i, d in enumerate(sigs[0]) if i not in op.attrs["axes"])


def _expand_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    sig = list(sigs[0])
    sig.insert(op.attrs["axis"], 1)
    return tuple(sig)


register(
    OpDef(
        "ExpandDims",
        lower=_lower_call("expand_dims", "axis"),
        gradient=lambda op, g: [reshape_like(g, op.inputs[0])],
        signature=_expand_signature,
    )
)
register(
    OpDef(
        "Squeeze",
        lower=_lower_call("squeeze", "axes"),
        gradient=lambda op, g: [reshape_like(g, op.inputs[0])],
        signature=_squeeze_signature,
    )
)


# --- slicing -----------------------------------------------------------------------------------


def _key_text(key: tuple[Any, ...]) -> str:
    parts = []
    for item in key:
        if item is Ellipsis:
            parts.append("...")
        elif item is None:
            parts.append("None")
        elif isinstance(item, slice):
            start = "" if item.start is None else str(item.start)
            stop = "" if item.stop is None else str(item.stop)
            parts.append(f"{start}:{stop}" + ("" if item.step is None else f":{item.step}"))
        else:
            parts.append(str(item))
    return ", ".join(parts)


def _folded_index(part: Any) -> Any:
    """A scalar int tensor whose value the graph fixes, as an int; anything else as it is."""
    value = constant_value(part)
    if value is not None and value.ndim == 0 and part.dtype.is_integer:
        return int(value)
    return part


def _normalize_key(x: Tensor, key: Any) -> tuple[tuple[Any, ...], Shape]:
    items = key if isinstance(key, tuple) else (key,)
    normalized: list[Any] = []
    for item in items:
        value = constant_value(item)
        if value is not None and value.ndim == 0 and item.dtype.is_integer:
            item = int(value)  # a[tf.constant(1, tf.int64)]: the graph fixes the index
        if isinstance(item, Tensor):
            raise InvalidArgumentError(
                f"symgrad: StridedSlice: indexing '{x.name}' with tensor "
                f"'{item.name}' is not supported; use symgrad.gather"
            )
        if isinstance(item, slice):
            # Slice bounds the graph fixes (``a[tf.constant(1):]``) are ints too.
            item = slice(*(_folded_index(part) for part in (item.start, item.stop, item.step)))
            for part in (item.start, item.stop, item.step):
                if part is not None and not isinstance(part, (int, np.integer)):
                    raise InvalidArgumentError(
                        f"symgrad: StridedSlice: slice bounds must be ints, got "
                        f"{part!r} indexing '{x.name}'"
                    )
            if item.step == 0:
                raise InvalidArgumentError(
                    f"symgrad: StridedSlice: slice step 0 indexing '{x.name}'"
                )
            normalized.append(
                slice(*(None if p is None else int(p) for p in (item.start, item.stop, item.step)))
            )
        elif item is Ellipsis or item is None:
            normalized.append(item)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            normalized.append(int(item))
        else:
            raise InvalidArgumentError(
                f"symgrad: StridedSlice: unsupported index {item!r} for '{x.name}'"
            )
    if normalized.count(Ellipsis) > 1:
        raise InvalidArgumentError(
            f"symgrad: StridedSlice: more than one '...' indexing '{x.name}'"
        )
    if x.shape is None:
        # NumPy reads the key against the rank that arrives, as TF's kernel does (axes after
        # the key's are kept whole); the result's rank is known only then. Trailing full
        # slices stay: each asks for an axis, which NumPy checks the value has.
        return tuple(normalized), None
    consumed = sum(1 for i in normalized if i is not None and i is not Ellipsis)
    if consumed > len(x.shape):
        raise ShapeError(
            f"symgrad: StridedSlice: too many indices for '{x.name}' of shape "
            f"{format_shape(x.shape)}"
        )
    if Ellipsis in normalized:
        at = normalized.index(Ellipsis)
        normalized[at : at + 1] = [slice(None)] * (len(x.shape) - consumed)
    else:
        normalized += [slice(None)] * (len(x.shape) - consumed)
    shape: list[Any] = []
    axis = 0
    for item in normalized:
        if item is None:
            shape.append(1)
            continue
        dim = x.shape[axis]
        if isinstance(item, int):
            if dim is not None and not -dim <= item < dim:
                raise ShapeError(
                    f"symgrad: StridedSlice: index {item} is out of bounds for axis {axis} of "
                    f"'{x.name}' with size {dim}"
                )
        else:
            shape.append(None if dim is None else len(builtins.range(*item.indices(dim))))
        axis += 1
    # Drop trailing full slices: x[1] rather than x[1, :, :].
    while normalized and normalized[-1] == slice(None):
        normalized.pop()
    return tuple(normalized), tuple(shape)


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any = None,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """TF1's ``strided_slice(input_, begin, end, strides, *_mask)``, or ``x[key]`` when only a
    key is given (``strided_slice(x, key)``; ``tensor[...]`` calls this) with ints, slices,
    ``...`` and ``None``; also a constant int tensor as an index, and a constant bool tensor
    as a mask (``x[mask]``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[1, 2, 3], [4, 5, 6]])
    ...     print(sg.compile(sg.strided_slice(x, [0, 2], [0, 0], [1, -1], begin_mask=1, end_mask=3))())
    [[3 2 1]
     [6 5 4]]
    """
    x = convert_to_tensor(input_)
    if end is None and strides is None:
        key = begin
    else:
        key = _key_of_masks(
            x,
            begin,
            end,
            strides,
            begin_mask,
            end_mask,
            ellipsis_mask,
            new_axis_mask,
            shrink_axis_mask,
        )
    if isinstance(key, Tensor) and key.dtype.is_bool:
        return _masked(x, key, name)
    normalized, shape = _normalize_key(x, key)
    return _op("StridedSlice", [x], {"key": normalized}, shape, x.dtype, name)


def _key_of_masks(
    x: Tensor,
    begin: Any,
    end: Any,
    strides: Any,
    begin_mask: int,
    end_mask: int,
    ellipsis_mask: int,
    new_axis_mask: int,
    shrink_axis_mask: int,
) -> tuple[Any, ...]:
    """The Python key that TF's begin/end/strides vectors and bit masks stand for: bit i of
    a mask speaks of entry i (an ellipsis, a new axis, an index, or an open start/end)."""
    starts = _ints(_shape_argument(begin, "StridedSlice", x), "StridedSlice", "begin", x)
    ends = _ints(_shape_argument(end, "StridedSlice", x), "StridedSlice", "end", x)
    steps = (
        [1] * len(starts)
        if strides is None
        else _ints(_shape_argument(strides, "StridedSlice", x), "StridedSlice", "strides", x)
    )
    if not len(starts) == len(ends) == len(steps):
        raise ShapeError(
            f"symgrad: StridedSlice: begin {starts}, end {ends} and strides {steps} of "
            f"'{x.name}' must have equal lengths"
        )
    key: list[Any] = []
    for i, (start, stop, step) in enumerate(zip(starts, ends, steps, strict=True)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(start)
        else:
            key.append(
                slice(
                    None if begin_mask & bit else start,
                    None if end_mask & bit else stop,
                    None if step == 1 else step,
                )
            )
    return tuple(key)


def _masked(x: Tensor, mask: Tensor, name: str | None) -> Tensor:
    """``x[mask]`` (TF's boolean_mask) for a mask the graph fixes: a gather of its True places."""
    value = constant_value(mask)
    if value is None or value.ndim == 0:
        raise InvalidArgumentError(
            f"symgrad: BooleanMask: indexing '{x.name}' with bool tensor '{mask.name}' needs a "
            f"constant mask of rank >= 1; use symgrad.gather with the indices"
        )
    if x.shape is None:  # a rank known only at run time: the op indexes with the mask then
        return _op("BooleanMask", [x, mask], {"axis": 0}, None, x.dtype, name)
    lead = tuple(x.shape[: value.ndim])
    if lead != value.shape and shapes_compatible(lead, value.shape):
        # Leading sizes known only at run time: the op indexes with the mask then, and NumPy
        # refuses a mask that does not match them, as TF's kernel does.
        shape = (None, *x.shape[value.ndim :])
        return _op("BooleanMask", [x, mask], {"axis": 0}, shape, x.dtype, name)
    if lead != value.shape:
        raise ShapeError(
            f"symgrad: BooleanMask: mask '{mask.name}' {format_shape(value.shape)} does not match "
            f"the leading axes of '{x.name}' {format_shape(x.shape)}"
        )
    flat = x if value.ndim == 1 else reshape(x, [-1, *x.shape[value.ndim :]])
    places = constant(np.flatnonzero(value).astype(np.int64))
    return gather(flat, places, axis=0, name=name)


def _lower_slice(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    key = op.attrs["key"]
    if not key:
        return operands[0]
    return Index(operands[0], Literal(_key_text(key)))


def _back_to_input(op_type: str, op: Operation, grad: Tensor, attr: str) -> Tensor:
    """``op_type`` of ``grad`` and ``op``'s input, with ``op``'s attribute ``attr``: the
    cotangent spread back to the input's shape (read from the input at run time)."""
    x = op.inputs[0]
    return _op(op_type, [grad, x], {attr: op.attrs[attr]}, x.shape, grad.dtype, None)


def _slice_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [_back_to_input("SliceGrad", op, grad, "key")]


def _lower_slice_gradient(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    key = op.attrs["key"]
    dtype = op.outputs[0].dtype
    return helper(
        "_scatter",
        operands[0],
        shape_argument(op.inputs[1], operands[1]),
        IndexKey(_key_text(key)) if key else literal(()),
        dtype_literal(dtype),
        dtype=dtype.name,
    )


def _slice_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    source, out, axis = sigs[0], [], 0
    fresh = signature(op.outputs[0].shape, op.name)
    if not (isinstance(fresh, tuple) and isinstance(source, tuple)):
        return fresh  # a rank known only at run time
    for item in op.attrs["key"]:
        if item is None:
            out.append(1)
            continue
        if isinstance(item, slice):
            out.append(source[axis] if item == slice(None) else fresh[len(out)])
        axis += 1
    return tuple(out) + tuple(source[axis:])


register(
    OpDef("StridedSlice", lower=_lower_slice, gradient=_slice_gradient, signature=_slice_signature)
)
register(
    OpDef(
        "SliceGrad",
        lower=_lower_slice_gradient,
        gradient=lambda op, g: [strided_slice(g, op.attrs["key"]), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


# --- concat, stack, unstack, split ----------------------------------------------------------------


def _axis(axis: int, rank: int, op: str, name: str) -> int:
    if not -rank <= int(axis) < rank:
        raise ShapeError(f"symgrad: {op}: axis {axis} is out of range for '{name}' of rank {rank}")
    return int(axis) % rank


def concat(values: Sequence[Any], axis: int, name: str | None = "concat") -> Tensor:
    """Join tensors along an existing axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise InvalidArgumentError("symgrad: ConcatV2: needs at least one tensor")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise DTypeError(
                f"symgrad: ConcatV2: '{t.name}' is {t.dtype.name}, "
                f"'{tensors[0].name}' {tensors[0].dtype.name}"
            )
    ranked = [t for t in tensors if t.shape is not None]
    if not ranked:  # unknown ranks (unshaped placeholders): NumPy checks them at run time
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise ShapeError(f"symgrad: ConcatV2: axis must be an integer, got {axis!r}")
        if len(tensors) == 1:
            return identity(tensors[0], name=name if name != "concat" else None)
        return _op("ConcatV2", tensors, {"axis": int(axis)}, None, tensors[0].dtype, name)
    first = ranked[0]
    first_shape = first.shape
    assert first_shape is not None  # ranked
    rank = len(first_shape)
    position = _axis(axis, rank, "ConcatV2", first.name)
    shape: list[Any] = list(first_shape)
    if len(ranked) < len(tensors):
        shape[position] = None  # an input of unknown rank adds an unknown length
    for t in ranked[1:]:
        t_shape = t.shape
        assert t_shape is not None  # ranked
        if len(t_shape) != rank or any(
            a is not None and b is not None and a != b and i != position
            for i, (a, b) in enumerate(zip(shape, t_shape, strict=False))
        ):
            raise ShapeError(
                f"symgrad: ConcatV2: shapes {format_shape(first.shape)} of '{first.name}' and "
                f"{format_shape(t.shape)} of '{t.name}' differ off axis {position}"
            )
        shape[position] = (
            None
            if shape[position] is None or t_shape[position] is None
            else shape[position] + t_shape[position]
        )
        shape = [
            a if a is not None else b if i != position else a
            for i, (a, b) in enumerate(zip(shape, t_shape, strict=False))
        ]
    if len(tensors) == 1:
        return identity(first, name=name if name != "concat" else None)
    return _op("ConcatV2", tensors, {"axis": position}, tuple(shape), first.dtype, name)


def _lower_concat(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    return call("concatenate", ListOf(*operands), op.attrs["axis"])


def _concat_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    axis = op.attrs["axis"]
    sizes = [None if t.shape is None else t.shape[axis] for t in op.inputs]
    if None in sizes:
        return [
            _op(
                "ConcatPart",
                [grad] + list(op.inputs),
                {"axis": axis, "index": i},
                t.shape,
                grad.dtype,
                None,
            )
            for i, t in enumerate(op.inputs)
        ]
    results: list[Tensor | None] = []
    start = 0
    for size in sizes:
        assert size is not None  # None is not in sizes
        key = (slice(None),) * axis + (slice(start, start + size),)
        results.append(strided_slice(grad, key))
        start += size
    return results


def _lower_concat_part(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    grad, *parts = operands
    axis, index = op.attrs["axis"], op.attrs["index"]
    sizes = ListOf(*(Index(ShapeOf(p), Literal(str(axis))) for p in parts))
    return helper("_concat_part", grad, axis, sizes, index)


register(OpDef("ConcatV2", lower=_lower_concat, gradient=_concat_gradient))


def _concat_part_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # The part's gradient in its place among zeros, shaped like the concatenation's gradient;
    # the parts give only their sizes.
    whole, *parts = op.inputs
    placed = _op(
        "UnconcatPart", [grad, whole, *parts], dict(op.attrs), whole.shape, grad.dtype, None
    )
    return [placed] + [None] * len(parts)


def _lower_unconcat_part(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    grad, whole, *parts = operands
    axis, index = op.attrs["axis"], op.attrs["index"]
    sizes = ListOf(*(Index(ShapeOf(p), Literal(str(axis))) for p in parts))
    return helper("_unconcat_part", grad, whole, axis, sizes, index)


def _unconcat_part_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    _, whole, *parts = op.inputs
    part = _op("ConcatPart", [grad, *parts], dict(op.attrs), op.inputs[0].shape, grad.dtype, None)
    return [part, None] + [None] * len(parts)


register(
    OpDef(
        "ConcatPart",
        lower=_lower_concat_part,
        gradient=_concat_part_gradient,
        materialized_inputs=lambda op: tuple(builtins.range(1, len(op.inputs))),
    )
)
register(
    OpDef(
        "UnconcatPart",
        lower=_lower_unconcat_part,
        gradient=_unconcat_part_gradient,
        materialized_inputs=lambda op: tuple(builtins.range(1, len(op.inputs))),
        signature=lambda op, sigs: sigs[1],
    )
)


def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Join tensors of one shape along a new axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise InvalidArgumentError("symgrad: Pack: needs at least one tensor")
    # A value of a rank known only at run time takes the shape of one whose shape is known,
    # checked when run (TF merges the static shapes; np.stack checks the values).
    known = next((t for t in tensors if t.shape is not None), None)
    if known is not None:
        tensors = [ensure_shape(t, known.shape) if t.shape is None else t for t in tensors]
    first = tensors[0]
    for t in tensors[1:]:
        if not shapes_compatible(t.shape, first.shape) or t.dtype != first.dtype:
            raise ShapeError(
                f"symgrad: Pack: '{t.name}' {t.dtype.name}{format_shape(t.shape)} differs from "
                f"'{first.name}' {first.dtype.name}{format_shape(first.shape)}"
            )
    if first.shape is None:  # NumPy places the new axis when the values arrive, as TF does
        return _op("Pack", tensors, {"axis": int(axis)}, None, first.dtype, name)
    if not -(len(first.shape) + 1) <= int(axis) <= len(first.shape):
        raise ShapeError(
            f"symgrad: Pack: axis {axis} is out of range for stacking '{first.name}' of rank "
            f"{len(first.shape)} {format_shape(first.shape)} (the result has rank {len(first.shape) + 1})"
        )
    position = int(axis) % (len(first.shape) + 1)
    # Each dim as the value that knows it says (np.stack checks that the values agree).
    shapes = [typing.cast(tuple[Any, ...], t.shape) for t in tensors]  # all known here
    merged = [next((d for d in dims if d is not None), None) for dims in zip(*shapes, strict=True)]
    shape = tuple(merged[:position]) + (len(tensors),) + tuple(merged[position:])
    return _op("Pack", tensors, {"axis": position}, shape, first.dtype, name)


PACKER["stack"] = stack  # convert_to_tensor packs lists of tensors with it


def _along(axis: int, index: int | slice) -> tuple[Any, ...]:
    """The key of ``index`` along ``axis``: counted from the end when the rank is known only
    at run time (``[..., i, :]`` for axis -2)."""
    if axis < 0:
        return (Ellipsis, index) + (slice(None),) * (-axis - 1)
    return (slice(None),) * axis + (index,)


def _lower_stack(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    # A constant scalar is printed as a Python number, which np.stack would make float64 (or
    # int64): cast it to the op's dtype first, as the other operands are.
    dtype = op.outputs[0].dtype.name
    typed = [cast_node(x, dtype, dtype) if x.is_Number else x for x in operands]
    return call("stack", ListOf(*typed), op.attrs["axis"])


def _stack_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    axis = op.attrs["axis"]
    return [strided_slice(grad, _along(axis, i)) for i in builtins.range(len(op.inputs))]


def _stack_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    return tuple(sigs[0][: op.attrs["axis"]]) + (len(sigs),) + tuple(sigs[0][op.attrs["axis"] :])


register(
    OpDef(
        "Pack",
        lower=_lower_stack,
        gradient=_stack_gradient,
        signature=_stack_signature,
    )
)


def unstack(
    value: Any, num: int | None = None, axis: int = 0, name: str = "unstack"
) -> list[Tensor]:
    """The slices of ``value`` along ``axis``, as a list."""
    x = convert_to_tensor(value)
    if x.shape is None:  # the slices read the rank that arrives
        if num is None:
            raise ShapeError(
                f"symgrad: Unpack: '{x.name}' has a rank known only at run time; pass num="
            )
        position, count = int(axis), int(num)
        x = ensure_axis(x, position, count, at_least=False, op_type="Unpack")
    else:
        position = _axis(axis, len(x.shape), "Unpack", x.name)
        count = x.shape[position] if num is None else num
        if count is not None and x.shape[position] is not None and count != x.shape[position]:
            raise ShapeError(
                f"symgrad: Unpack: num={count} for axis {position} of '{x.name}' "
                f"{format_shape(x.shape)}, of size {x.shape[position]}"
            )
        if count is not None and x.shape[position] is None:
            x = ensure_axis(x, position, count, at_least=False, op_type="Unpack")
    if count is None:
        raise ShapeError(
            f"symgrad: Unpack: axis {position} of '{x.name}' has unknown size; pass num="
        )
    # One op in TF1 ('unstack:0', 'unstack:1'), a slice per part here ('unstack', 'unstack_1').
    with default_names([x], {"StridedSlice": name or "unstack"}):
        return [strided_slice(x, _along(position, i)) for i in builtins.range(count)]


def split(
    value: Any, num_or_size_splits: Any, axis: int = 0, num: int | None = None, name: str = "split"
) -> list[Tensor]:
    """Split ``value`` along ``axis`` into equal parts, or parts of the given sizes (a list,
    or a constant int tensor)."""
    x = convert_to_tensor(value)
    if isinstance(num_or_size_splits, Tensor):
        fixed = _shape_argument(num_or_size_splits, "Split", x)
        scalar = num_or_size_splits.shape == ()
        num_or_size_splits = fixed[0] if scalar else fixed
    if x.shape is None:  # the slices read the rank that arrives
        position, size = int(axis), None
    else:
        position = _axis(axis, len(x.shape), "Split", x.name)
        size = x.shape[position]
    if isinstance(num_or_size_splits, (int, np.integer)):
        parts = int(num_or_size_splits)
        if parts <= 0 or (size is not None and size % parts):
            raise ShapeError(
                f"symgrad: Split: axis {position} of '{x.name}' (size {size}) does not split "
                f"into {parts} equal parts"
            )
        if size is None:  # the parts' size is known when the value arrives
            return [_split_equal(x, position, parts, i, name) for i in builtins.range(parts)]
        sizes = [size // parts] * parts
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
            raise ShapeError(f"symgrad: Split: invalid sizes {sizes} for '{x.name}'")
        if -1 in sizes and size is not None:
            sizes[sizes.index(-1)] = size - (sum(sizes) + 1)
        if size is not None and sum(sizes) != size:
            raise ShapeError(
                f"symgrad: Split: sizes {sizes} do not add up to {size}, axis {position} of "
                f"'{x.name}'"
            )
    if size is None:  # the parts must fill the axis that arrives, as TF's kernel checks
        known = sum(s for s in sizes if s != -1)
        x = ensure_axis(x, position, known, at_least=-1 in sizes, op_type="SplitV")
    # Parts after a -1 (an unknown size) are counted from the end of the axis.
    cut = sizes.index(-1) if -1 in sizes else len(sizes)
    bounds: list[tuple[int, int | None]] = []
    start = 0
    for part in sizes[:cut]:
        bounds.append((start, start + part))
        start += part
    if cut < len(sizes):
        end = -sum(sizes[cut + 1 :])
        bounds.append((start, end or None))
        for part in sizes[cut + 1 :]:
            bounds.append((end, end + part or None))
            end += part
    return [strided_slice(x, _along(position, slice(a, b))) for a, b in bounds]


def _split_equal(x: Tensor, axis: int, parts: int, index: int, name: str) -> Tensor:
    """Part ``index`` of ``x`` cut into ``parts`` equal parts along an axis of unknown size."""
    shape = (
        None if x.shape is None else tuple(None if i == axis else d for i, d in enumerate(x.shape))
    )
    attrs = {"axis": axis, "parts": parts, "index": index}
    return _op("SplitEqual", [x], attrs, shape, x.dtype, name)


def _lower_split_equal(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    axis, parts, index = op.attrs["axis"], op.attrs["parts"], op.attrs["index"]
    return helper("_split_equal", operands[0], axis, parts, index)


def _split_equal_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    (x,) = op.inputs
    return [_op("UnsplitEqual", [grad, x], dict(op.attrs), x.shape, grad.dtype, None)]


def _lower_unsplit_equal(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    axis, parts, index = op.attrs["axis"], op.attrs["parts"], op.attrs["index"]
    return helper("_unsplit_equal", operands[0], operands[1], axis, parts, index)


def _unsplit_equal_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # The part's gradient is the same part of the full one; ``like`` gives only a shape.
    attrs = op.attrs
    return [_split_equal(grad, attrs["axis"], attrs["parts"], attrs["index"], "split"), None]


def _split_equal_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    """Every part of one split has one signature: the fast form may then compute them in place
    of each other."""
    if not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    dims = list(sigs[0])
    axis, parts = op.attrs["axis"], op.attrs["parts"]
    dims[axis] = frozenset({("split", dims[axis], parts)})
    return tuple(dims)


register(
    OpDef(
        "SplitEqual",
        lower=_lower_split_equal,
        gradient=_split_equal_gradient,
        signature=_split_equal_signature,
    )
)
register(
    OpDef(
        "UnsplitEqual",
        lower=_lower_unsplit_equal,
        gradient=_unsplit_equal_gradient,
        materialized_inputs=lambda op: (1,),
        signature=lambda op, sigs: sigs[1],
    )
)


# --- tile, broadcast_to -----------------------------------------------------------------------------


def tile(input: Any, multiples: Sequence[int], name: str | None = None) -> Tensor:
    """Repeat ``input`` ``multiples[i]`` times along axis i."""
    x = convert_to_tensor(input)
    if isinstance(multiples, Tensor):
        multiples = _shape_argument(multiples, "Tile", x)
    multiples = tuple(_ints(multiples, "Tile", "multiples", x))
    if x.shape is None:  # one multiple per axis fixes the rank, checked when run as by TF
        x = ensure_shape(x, [None] * len(multiples))
    if x.shape is None or len(multiples) != len(x.shape):
        raise ShapeError(
            f"symgrad: Tile: {len(multiples)} multiples for '{x.name}' of shape "
            f"{format_shape(x.shape)}"
        )
    shape = tuple(None if d is None else d * m for d, m in zip(x.shape, multiples, strict=False))
    return _op("Tile", [x], {"multiples": multiples}, shape, x.dtype, name)


def _tile_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [_back_to_input("Untile", op, grad, "multiples")]


register(OpDef("Tile", lower=_lower_call("tile", "multiples"), gradient=_tile_gradient))
register(
    OpDef(
        "Untile",
        lower=lambda op, xs: helper(
            "_untile", xs[0], shape_argument(op.inputs[1], xs[1]), op.attrs["multiples"]
        ),
        gradient=lambda op, g: [tile(g, op.attrs["multiples"]), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``np.broadcast_to`` to a static shape (a list, or a constant int tensor), or to
    ``tf.shape(t)``: then ``t``'s run-time shape (any other run-time tensor is an error)."""
    x = convert_to_tensor(input)
    like = _run_time_shape_of(shape)
    if like is not None:
        if (
            x.shape is not None
            and like.shape is not None
            and (
                len(x.shape) > len(like.shape)
                or any(
                    d not in (None, 1, e) and e is not None
                    for d, e in zip(x.shape[::-1], like.shape[::-1], strict=False)
                )
            )
        ):
            raise ShapeError(
                f"symgrad: BroadcastTo: cannot broadcast '{x.name}' of shape "
                f"{format_shape(x.shape)} to the shape of '{like.name}' {format_shape(like.shape)}"
            )
        spread = add(x, zeros_like(like, dtype=x.dtype), name=name)
        if like.shape is None:  # NumPy checks what it can: the rank is known only at run time
            return spread
        # The sum would also spread 'like' over a size of 'x' where 'like' has 1; TF's kernel
        # gives exactly 'like's shape, so every size is checked against it.
        if spread.shape is None:  # x's rank is known only at run time: like's shape
            spread = ensure_shape(spread, like.shape)
        axes = tuple(builtins.range(len(like.shape)))
        return ensure_same_dims(spread, like, axes, axes, "BroadcastTo")
    target = tuple(_ints(_shape_argument(shape, "BroadcastTo", x), "BroadcastTo", "the shape", x))
    try:  # a value of unknown rank is checked by NumPy when it arrives, as by TF's kernel
        if x.shape is not None and broadcast_shapes(x.shape, target) != target:
            raise ValueError
    except ValueError:
        raise ShapeError(
            f"symgrad: BroadcastTo: cannot broadcast '{x.name}' of shape "
            f"{format_shape(x.shape)} to {target}"
        ) from None
    return _op("BroadcastTo", [x], {"shape": target}, target, x.dtype, name)


register(
    OpDef(
        "BroadcastTo",
        lower=_lower_call("broadcast_to", "shape"),
        gradient=lambda op, g: [
            sum_to_shape_of(g, op.inputs[0], reduced_axes_of(op.inputs[0], op.outputs[0]))
        ],
    )
)


# --- gather -------------------------------------------------------------------------------------------


def gather(
    params: Any,
    indices: Any,
    axis: int | None = None,
    name: str | None = None,
    validate_indices: Any = None,
    batch_dims: int = 0,
) -> Tensor:
    """``np.take(params, indices, axis)``; the gradient adds up over repeated indices.

    With ``batch_dims=b`` the first b axes of params and indices are batch axes: each
    batch entry gathers with its own indices (``axis`` defaults to b, as in TF1).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     p = sg.constant([[1.0, 2.0], [3.0, 4.0]])
    ...     f = sg.compile(sg.gather(p, sg.constant([[1], [0]]), batch_dims=1))
    >>> f().tolist()
    [[2.0], [3.0]]
    """
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    if batch_dims:
        return _batch_gather(params, indices, axis, batch_dims, name)
    if axis is None:
        axis = 0
    if not indices.dtype.is_integer:
        raise DTypeError(
            f"symgrad: GatherV2: indices '{indices.name}' must be int32 or int64, "
            f"got {indices.dtype.name}"
        )
    if params.shape is None:
        # The gathered axis is found when the value arrives: counted from the start, it is the
        # same axis at any rank (the gradient scatters along it).
        if int(axis) < 0:
            raise ShapeError(
                f"symgrad: GatherV2: axis {axis} of '{params.name}', whose rank is known only at "
                f"run time; give an axis counted from the start, or the placeholder a shape"
            )
        indices = ensure_in_range(indices, params, int(axis), "GatherV2")
        return _op("GatherV2", [params, indices], {"axis": int(axis)}, None, params.dtype, name)
    position = _axis(axis, len(params.shape), "GatherV2", params.name)
    size = params.shape[position]
    if indices.op.type == "Const":
        # TF's kernel refuses an index outside [0, size), a negative one too, which NumPy
        # would wrap round to the end.
        values = np.asarray(indices.op.attrs["value"])
        if values.size and (values.min() < 0 or (size is not None and values.max() >= size)):
            bound = "?" if size is None else size
            raise ShapeError(
                f"symgrad: GatherV2: indices {values.tolist()!r:.60} are out of range [0, "
                f"{bound}) for axis {position} of '{params.name}' {format_shape(params.shape)}"
            )
    if indices.op.type != "Const" or size is None:
        indices = ensure_in_range(indices, params, position, "GatherV2")
    shape = (
        None
        if indices.shape is None  # the result's rank, too, is known only at run time
        else tuple(params.shape[:position])
        + tuple(indices.shape)
        + tuple(params.shape[position + 1 :])
    )
    return _op("GatherV2", [params, indices], {"axis": position}, shape, params.dtype, name)


def _batch_gather(
    params: Tensor, indices: Tensor, axis: int | None, batch_dims: int, name: str | None
) -> Tensor:
    """Gather with batch axes, as one plain gather: the batch axes and the gathered axis of
    ``params`` flattened into one, and each batch entry's indices offset by its position."""
    where = f"'{params.name}' with indices '{indices.name}'"
    if params.shape is None or indices.shape is None:
        raise ShapeError(f"symgrad: GatherV2: batch_dims needs known ranks ({where})")
    if batch_dims < 0:
        batch_dims += len(indices.shape)
    axis = batch_dims if axis is None else _axis(axis, len(params.shape), "GatherV2", params.name)
    if not 0 < batch_dims <= min(len(indices.shape), axis):
        raise InvalidArgumentError(
            f"symgrad: GatherV2: batch_dims={batch_dims} with axis={axis} for {where}; "
            f"batch_dims must be at most the rank of indices and at most axis"
        )
    if axis != batch_dims:
        raise InvalidArgumentError(
            f"symgrad: GatherV2: batch_dims={batch_dims} is supported with axis={batch_dims} "
            f"(the default), not axis={axis} ({where})"
        )
    batch = tuple(params.shape[:batch_dims])
    size = params.shape[axis]
    if not is_fully_defined(batch + (size,)) or tuple(indices.shape[:batch_dims]) != batch:
        raise ShapeError(
            f"symgrad: GatherV2: batch_dims={batch_dims} needs equal static batch axes of "
            f"params {format_shape(params.shape)} and indices {format_shape(indices.shape)}"
        )
    # Fully defined, as checked above.
    known_batch, known_size = typing.cast(tuple[int, ...], batch), typing.cast(int, size)
    count = int(np.prod(known_batch))
    flat = reshape(params, [count * known_size, *params.shape[axis + 1 :]])
    offsets = (np.arange(count) * known_size).reshape(
        known_batch + (1,) * (len(indices.shape) - batch_dims)
    )
    # Each entry's indices must stay in its own row: a flat index past it would read the next.
    checked = ensure_in_range(indices, params, axis, "GatherV2")
    shifted = checked + constant(offsets.astype(indices.dtype.numpy))
    return gather(flat, shifted, axis=0, name=name)


def _gather_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    params, indices = op.inputs
    scattered = _op(
        "ScatterAdd",
        [grad, indices, params],
        {"axis": op.attrs["axis"]},
        params.shape,
        grad.dtype,
        None,
    )
    return [scattered, None]


class GatheredSlices(typing.NamedTuple):
    """A gather's part of a gradient, as TF1's ``IndexedSlices`` hold it: the cotangent of
    the gathered rows (``values``) and their ``indices`` into ``params`` (rows repeat when an
    index does)."""

    values: Tensor
    indices: Tensor
    params: Tensor


def gathered_slices(gradient: Tensor) -> list[GatheredSlices] | None:
    """The slices of the gathers (along axis 0) whose gradients ``gradient`` adds up, when it
    is nothing else, else None: where TF1's gradient is ``IndexedSlices``, which its clipping
    functions and sparse optimizer kernels read slice by slice (repeated rows not summed).
    Any other op on the gradient (``g * t``) makes it dense, as in TF1."""
    op = gradient.op
    if op.type == "ScatterAdd":
        if op.attrs["axis"] != 0:
            return None
        return [GatheredSlices(op.inputs[0], op.inputs[1], op.inputs[2])]
    if op.type == "Identity":
        return gathered_slices(op.inputs[0])
    if op.type in ("Elementwise", "AddN") and op.attrs["expr"] == sp.Add(
        *arg_symbols(len(op.inputs))
    ):
        parts = [gathered_slices(t) for t in op.inputs]  # the sum of several gathers' gradients
        if any(part is None for part in parts):
            return None
        return [piece for part in parts for piece in typing.cast(list[GatheredSlices], part)]
    return None


def from_slices(slices: list[GatheredSlices], values: Sequence[Tensor]) -> Tensor:
    """The gradient ``slices`` stand for, with new ``values`` for them (clipped or scaled, as
    TF1's clipping functions give ``IndexedSlices`` back): still a sum of scatter-adds, so
    still sparse for the optimizers."""
    parts = [
        _op(
            "ScatterAdd",
            [new, part.indices, part.params],
            {"axis": 0},
            part.params.shape,
            new.dtype,
            None,
        )
        for part, new in zip(slices, values, strict=True)
    ]
    return parts[0] if len(parts) == 1 else add_n(parts)


def _gather_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    params, indices, axis = sigs[0], sigs[1], op.attrs["axis"]
    if not (isinstance(params, tuple) and isinstance(indices, tuple)):
        return signature(op.outputs[0].shape, op.name)
    return tuple(params[:axis]) + tuple(indices) + tuple(params[axis + 1 :])


register(
    OpDef(
        "GatherV2",
        lower=lambda op, xs: call("take", xs[0], xs[1], Literal(f"axis={op.attrs['axis']}")),
        gradient=_gather_gradient,
        signature=_gather_signature,
    )
)


def _scatter_into_shape(
    op_type: str, helper_name: str, gradient: Callable[[Operation, Tensor], list[Tensor | None]]
) -> OpDef:
    """An op of ``(values, where, like)`` that lowers to the template's ``helper_name``: the
    values scattered along ``axis`` into zeros of ``like``'s shape (``like`` read for its
    shape only, and only when that is not static)."""
    return OpDef(
        op_type,
        lower=lambda op, xs: helper(
            helper_name,
            xs[0],
            xs[1],
            shape_argument(op.inputs[2], xs[2]),
            op.attrs["axis"],
            dtype_literal(op.outputs[0].dtype),
            dtype=op.outputs[0].dtype.name,
        ),
        gradient=gradient,
        materialized_inputs=lambda op: () if is_fully_defined(op.inputs[2].shape) else (2,),
        shape_only_inputs=(2,),
        signature=lambda op, sigs: sigs[2],
    )


register(
    _scatter_into_shape(
        "ScatterAdd",
        "_scatter_add",
        lambda op, g: [gather(g, op.inputs[1], axis=op.attrs["axis"]), None, None],
    )
)


# --- tensors made from shapes ----------------------------------------------------------------------------


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


def _run_time_shape_of(shape: Any) -> Tensor | None:
    """``t`` when ``shape`` is ``tf.shape(t)`` of a tensor whose shape is known only at run
    time: then ``zeros``/``ones``/``fill``/``broadcast_to`` follow ``t``'s run-time shape."""
    if isinstance(shape, Tensor) and shape.op.type == "Shape" and shape.op.inputs:
        return shape.op.inputs[0]
    return None


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


register(
    OpDef(
        "FillSizes",
        lower=_lower_filled,
        gradient=lambda op, grad: [None] * len(op.inputs),
    )
)


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


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """``x``, with the static ``shape`` (``None`` dims: any size) checked when the graph runs.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.ensure_shape(sg.placeholder(sg.int32), [None])
    <symgrad.Tensor 'EnsureShape:0' shape=(None,) dtype=int32>
    """
    x = convert_to_tensor(x)
    static = as_shape(shape)
    if static is None:
        return identity(x, name=name)
    if x.shape is not None and not shapes_compatible(x.shape, static):
        raise ShapeError(
            f"symgrad: EnsureShape: '{x.name}' has shape {format_shape(x.shape)}, "
            f"not the required {format_shape(static)}"
        )
    if x.shape is not None:
        static = tuple(d if d is not None else e for d, e in zip(static, x.shape, strict=True))
        if static == x.shape:
            return identity(x, name=name)
    return _op("EnsureShape", [x], {"shape": tuple(static)}, tuple(static), x.dtype, name)


register(
    OpDef(
        "EnsureShape",
        lower=lambda op, xs: check("_ensure_shape", xs[0], op.attrs["shape"]),
        gradient=lambda op, grad: [grad],
    )
)


def ensure_same_dims(
    x: Tensor, like: Tensor, axes: Sequence[int], like_axes: Sequence[int], op_type: str
) -> Tensor:
    """``x``, with its size along each of ``axes`` checked to equal ``like``'s along
    ``like_axes``: when the graph is built where both sizes are known, when it runs where
    one is not. For the ops that TF checks so (``op_type`` names the one asking), where
    NumPy would broadcast a size 1 silently: the labels of a sparse cross-entropy and the
    targets of ``in_top_k`` against their batch.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     labels = sg.placeholder(sg.int32, [None], name="labels")
    ...     logits = sg.placeholder(sg.float32, [None, 10], name="logits")
    ...     checked = ensure_same_dims(labels, logits, [0], [0], "InTopK")
    ...     f = sg.compile(checked)
    >>> f([1, 2], [[0.0] * 10] * 2).tolist()
    [1, 2]
    """
    unchecked: list[tuple[int, int]] = []
    for axis, like_axis in zip(axes, like_axes, strict=True):
        size = None if x.shape is None else x.shape[axis]
        like_size = None if like.shape is None else like.shape[like_axis]
        if size is not None and like_size is not None:
            if size != like_size:
                raise ShapeError(
                    f"symgrad: {op_type}: '{x.name}' has {size} entries along axis {axis}, "
                    f"'{like.name}' {like_size} along axis {like_axis}; they must be equal"
                )
            continue
        unchecked.append((axis, like_axis))
    if not unchecked:
        return x
    attrs = {
        "axes": tuple(a for a, _ in unchecked),
        "like_axes": tuple(b for _, b in unchecked),
        "what": op_type,
    }
    return _op("EnsureSameDims", [x, like], attrs, x.shape, x.dtype, None)


def _lower_ensure_same_dims(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    value, like = signature_of(op.inputs[0]), signature_of(op.inputs[1])
    pairs = list(zip(op.attrs["axes"], op.attrs["like_axes"], strict=True))
    if (
        isinstance(value, tuple)
        and isinstance(like, tuple)
        and all(value[a] == like[b] for a, b in pairs)
    ):
        # One origin for each pair of sizes: equal at run time, as in the body for equal
        # batch sizes (signatures.assuming), where the function's shape check made them so.
        return operands[0]
    return check(
        "_ensure_same_dims",
        operands[0],
        operands[1],
        op.attrs["axes"],
        op.attrs["like_axes"],
        Literal(repr(op.attrs["what"])),  # a string in the module, not a name
    )


register(
    OpDef(
        "EnsureSameDims",
        lower=_lower_ensure_same_dims,
        gradient=lambda op, grad: [grad, None],
        # ``like`` is read for its shape: a named array (or an input of its shape), never an
        # expression computed again for it.
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[0],
    )
)


def ensure_in_range(indices: Tensor, like: Tensor, axis: int, op_type: str) -> Tensor:
    """``indices``, checked when the graph runs to lie in ``[0, n)``, ``n`` the size of ``like``
    along ``axis``: TF's kernels (``op_type`` names the one asking) refuse an index outside,
    where NumPy's indexing would wrap a negative one round to the end, or a batched gather's
    flat index would read another batch entry's row.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     ids = sg.placeholder(sg.int32, [None], name="ids")
    ...     table = sg.placeholder(sg.float32, [3, 2], name="table")
    ...     f = sg.compile(ensure_in_range(ids, table, 0, "GatherV2"))
    >>> f([2, 0], [[0.0] * 2] * 3).tolist()
    [2, 0]
    """
    return _op(
        "EnsureInRange",
        [indices, like],
        {"axis": int(axis), "what": op_type},
        indices.shape,
        indices.dtype,
        None,
    )


register(
    OpDef(
        "EnsureInRange",
        lower=lambda op, xs: check(
            "_ensure_in_range",
            xs[0],
            xs[1],
            op.attrs["axis"],
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [None, None],
        # ``like`` is read for its shape: a named array, never an expression computed again.
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[0],
    )
)


def ensure_axis(
    x: Tensor, axis: int, size: int = 0, at_least: bool = True, op_type: str = "EnsureAxis"
) -> Tensor:
    """``x``, checked when the graph runs to have an axis ``axis`` with ``size`` entries (or at
    least ``size``): where the rank or that size is known only then, and NumPy would take the
    value anyway (an axis 0 of a 0-d value, a slice past the end, parts that do not fill the
    axis) where TF's kernel, ``op_type``, refuses it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, name="x")
    ...     f = sg.compile(ensure_axis(x, 1, 3, at_least=False, op_type="Unpack"))
    >>> f([[1.0, 2.0, 3.0]]).shape
    (1, 3)
    """
    attrs = {"axis": int(axis), "size": int(size), "at_least": bool(at_least), "what": op_type}
    return _op("EnsureAxis", [x], attrs, x.shape, x.dtype, None)


register(
    OpDef(
        "EnsureAxis",
        lower=lambda op, xs: check(
            "_ensure_axis",
            xs[0],
            op.attrs["axis"],
            op.attrs["size"],
            int(op.attrs["at_least"]),
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [grad],
        signature=lambda op, sigs: sigs[0],
    )
)


def ensure_broadcastable(weights: Tensor, values: Tensor, op_type: str) -> Tensor:
    """``weights``, checked when the graph runs to be a scalar or of the rank of ``values``
    with each size 1 or the size of ``values`` (TF1's ``assert_broadcastable``, which
    ``op_type`` asks for): NumPy would also broadcast a lower rank, silently. For where the
    static shapes cannot decide it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     weights = sg.placeholder(sg.float32, name="weights")
    ...     values = sg.placeholder(sg.float32, [None, 2], name="values")
    ...     f = sg.compile(ensure_broadcastable(weights, values, "compute_weighted_loss"))
    >>> f([[1.0, 0.0]], [[1.0, 2.0]] * 3).tolist()
    [[1.0, 0.0]]
    """
    attrs = {"what": op_type}
    return _op("EnsureBroadcastable", [weights, values], attrs, weights.shape, weights.dtype, None)


register(
    OpDef(
        "EnsureBroadcastable",
        lower=lambda op, xs: check(
            "_ensure_broadcastable",
            xs[0],
            xs[1],
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [grad, None],
        # ``values`` is read for its shape: a named array, never an expression computed again.
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[0],
    )
)

# --- shape, size, rank -------------------------------------------------------------------------------------


def shape(input: Any, name: str | None = None, out_type: Any = _dtypes.int32) -> Tensor:
    """The run-time shape of a tensor, as an int32 vector (a constant when static)."""
    x = convert_to_tensor(input)
    out_type = _dtypes.as_dtype(out_type)
    if is_fully_defined(x.shape):  # a constant, named as TF1's Shape op is
        with default_names([x], {"Const": "Shape"}):
            return constant(np.asarray(x.shape, dtype=out_type.numpy), dtype=out_type, name=name)
    length = None if x.shape is None else len(x.shape)
    return _op("Shape", [x], {"out": out_type.name}, (length,), out_type, name)


register(
    OpDef(
        "Shape",
        lower=lambda op, xs: AsArray(ShapeOf(xs[0]), dtype_literal(op.attrs["out"])),
        gradient=None,
        materialized_inputs=lambda op: (0,),
    )
)


def size(input: Any, name: str | None = None, out_type: Any = _dtypes.int32) -> Tensor:
    """The number of elements (a constant when static)."""
    x = convert_to_tensor(input)
    count = num_elements(x.shape)
    if count is not None:
        with default_names([x], {"Const": "Size"}):
            return constant(np.asarray(count, dtype=_dtypes.as_dtype(out_type).numpy), name=name)
    out = _op("Size", [x], {}, (), _dtypes.int64, name)
    return cast(out, out_type) if _dtypes.as_dtype(out_type) != _dtypes.int64 else out


register(
    OpDef(
        "Size",
        lower=lambda op, xs: AsScalar(call("size", xs[0]), dtype_literal("int64")),
        gradient=None,
        materialized_inputs=lambda op: (0,),
    )
)


def rank(input: Any, name: str | None = None) -> Tensor:
    """The number of axes, as an int32 scalar: a constant when the rank is static."""
    x = convert_to_tensor(input)
    if x.shape is None:
        return _op("Rank", [x], {}, (), _dtypes.int32, name)
    with default_names([x], {"Const": "Rank"}):
        return constant(np.int32(len(x.shape)), name=name)


register(
    OpDef(
        "Rank",
        lower=lambda op, xs: AsArray(call("ndim", xs[0]), dtype_literal("int32")),
        gradient=None,
        materialized_inputs=lambda op: (0,),
    )
)


def _getitem(self: Tensor, key: Any) -> Tensor:
    with self.graph.default_names({"StridedSlice": "strided_slice"}):
        return strided_slice(self, key)


Tensor.__getitem__ = _getitem  # type: ignore[method-assign]  # declared on Tensor, defined here


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
