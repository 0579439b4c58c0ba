"""Reductions and their adjoint: sum, mean, max, min, prod, and the broadcast back.

``Sum``/``Mean`` reduce; ``BroadcastGrad`` spreads a cotangent back over the
reduced axes (the gradient of both), and a reduction is its gradient. The
adjoints of NumPy broadcasting are in :mod:`symgrad.ops.broadcasting`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import (
    Shape,
    is_fully_defined,
    normalize_axes,
    num_elements,
    signature,
    squeeze_axes,
    unknown_rank_axes,
)
from . import functions as F
from .base import constant_value
from .broadcasting import like_signature
from .checks import ensure_axis
from .elementwise import (
    cast,
    equal,
    exp,
    identity,
    is_finite,
    log,
    not_equal,
    stop_gradient,
    where,
    zeros_like,
)
from .functions import helper
from .registry import Lowered, OpDef, register
from .sources import convert_to_tensor

# --- reduce_sum / reduce_mean -------------------------------------------------------------

LOGICAL_REDUCTIONS = ("Any", "All")  # reductions of bool tensors


def _reduce(
    op_type: str,
    x: Any,
    axis: Any,
    keepdims: bool | None,
    name: str | None,
    reduction_indices: Any = None,
    keep_dims: bool | None = None,
) -> Tensor:
    x = convert_to_tensor(x)
    if axis is None:
        axis = reduction_indices
    keepdims = bool(keepdims if keepdims is not None else keep_dims)
    if x.dtype.is_bool and op_type not in LOGICAL_REDUCTIONS:
        raise DTypeError(f"symgrad: {op_type}: cannot reduce bool tensor '{x.name}'; cast it first")
    if op_type in LOGICAL_REDUCTIONS and not x.dtype.is_bool:
        raise DTypeError(
            f"symgrad: {op_type}: reduces bool tensors, got '{x.name}' of dtype {x.dtype.name}"
        )
    if isinstance(axis, Tensor):
        if axis.shape != ():
            # A vector of axes the graph fixes (tf.constant([1, 2])) is that list.
            fixed = constant_value(axis)
            if fixed is None or fixed.ndim != 1 or not axis.dtype.is_integer:
                raise InvalidArgumentError(
                    f"symgrad: {op_type}: axis must be a Python int or list, or a constant int "
                    f"tensor, not tensor '{axis.name}'"
                )
            axis = [int(a) for a in fixed]
        else:
            # A scalar int tensor the graph fixes (tf.constant(1)) is that int
            # (Tensor.__index__, a clear error if it is computed at run time).
            axis = operator.index(axis)
    shape: Shape
    axes: tuple[int, ...] | None
    if x.shape is None:
        if isinstance(axis, (list, tuple)) and not axis:
            return identity(x, name=name)
        if axis is None:
            axes, shape = None, (None if keepdims else ())
        else:
            # Axes of one sign name the same axes whatever the rank fed at run time (softmax's
            # gradient reduces axis -1 this way), as TF's kernels read them; the rank stays
            # unknown.
            axes, shape = unknown_rank_axes(axis, op_type, x.name), None
            # NumPy reduces a 0-d value over axis 0 or -1; TF's kernel refuses it.
            x = ensure_axis(x, axes[-1] if axes[0] >= 0 else axes[0], op_type=op_type)
    else:
        known = normalize_axes(axis, len(x.shape), op_type, x.name)
        if isinstance(axis, (list, tuple)) and not axis:
            return identity(x, name=name)
        axes, shape = known, squeeze_axes(x.shape, known, keepdims)
    op = x.graph.create_op(
        op_type, [x], {"axes": axes, "keepdims": keepdims}, [(shape, x.dtype)], name=name
    )
    return op.outputs[0]


def _axes_arg(op: Operation) -> sp.Tuple:
    axes = op.attrs["axes"]
    rank = None if op.inputs[0].shape is None else len(op.inputs[0].shape)
    if axes is None or (rank is not None and len(axes) == rank):
        return sp.Tuple()  # all axes
    return F.axes_tuple(axes)


def _lower_reduce(node: type, maybe_empty: type | None = None) -> Any:
    """Lowering to ``node``; to ``maybe_empty`` where a reduced axis may have no elements."""

    def lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
        chosen = maybe_empty if maybe_empty and _may_reduce_nothing(op) else node
        return chosen(operands[0], _axes_arg(op), sp.Integer(int(op.attrs["keepdims"])))

    return lower


def _may_reduce_nothing(op: Operation) -> bool:
    """Whether a reduced axis of ``op``'s input is of size 0 or of a size known only when run."""
    shape, axes = op.inputs[0].shape, op.attrs["axes"]
    if shape is None:
        return True
    reduced = range(len(shape)) if axes is None else axes
    return any(shape[axis] is None or shape[axis] == 0 for axis in reduced)


def _reduce_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [
        broadcast_gradient(
            grad, op.inputs[0], op.attrs["axes"], op.attrs["keepdims"], mean=op.type == "Mean"
        )
    ]


def _reduce_signature(op: Operation, operands: Sequence[Any]) -> Any:
    sig, axes, keepdims = operands[0], op.attrs["axes"], op.attrs["keepdims"]
    if isinstance(sig, frozenset):  # unknown rank
        # A full reduction without keepdims is a scalar; any other result has a rank and
        # sizes known only at run time.
        return frozenset({(op.name, "shape")}) if keepdims or axes is not None else ()
    try:  # None, or axes counted from the end, of a value whose rank was unknown when built
        axes = normalize_axes(axes, len(sig), op.type, op.inputs[0].name)
    except ShapeError:
        return signature(op.outputs[0].shape, op.name)
    return squeeze_axes(sig, axes, keepdims)


def _tf1_reduction(
    function_name: str, build: Callable[..., Tensor], doc: str
) -> Callable[..., Tensor]:
    """The TF1 function ``function_name``: TF1's reduction signature, calling ``build``.

    Every TF1 reduction takes the same arguments (with the old names ``reduction_indices``
    and ``keep_dims``), so they share one signature and differ in what they build.
    """

    def reduce(
        input_tensor: Any,
        axis: Any = None,
        keepdims: bool | None = None,
        name: str | None = None,
        reduction_indices: Any = None,
        keep_dims: bool | None = None,
    ) -> Tensor:
        return build(input_tensor, axis, keepdims, name, reduction_indices, keep_dims)

    reduce.__name__ = reduce.__qualname__ = function_name
    reduce.__doc__ = doc
    return reduce


def _reduction(
    op_type: str,
    doc: str,
    node: type,
    gradient: Callable[[Operation, Tensor], list[Tensor | None]],
    maybe_empty: type | None = None,
) -> Callable[..., Tensor]:
    """Register the reduction ``op_type`` and return its TF1 function ``reduce_<op_type>``."""
    lower = _lower_reduce(node, maybe_empty)
    register(OpDef(op_type, lower=lower, gradient=gradient, signature=_reduce_signature))
    return _tf1_reduction(f"reduce_{op_type.lower()}", functools.partial(_reduce, op_type), doc)


reduce_sum = _reduction(
    "Sum",
    """Sum over ``axis`` (all axes by default), like ``tf.reduce_sum``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, shape=[None, 3])
    ...     sg.reduce_sum(x, axis=1).shape
    (None,)
    """,
    F.ReduceSum,
    _reduce_gradient,
)
reduce_mean = _reduction(
    "Mean",
    """Mean over ``axis`` (all axes by default), like ``tf.reduce_mean``.""",
    F.ReduceMean,
    _reduce_gradient,
)


# --- reduce_max / reduce_min / reduce_prod / reduce_logsumexp ---------------------------------------


def _logsumexp(
    input_tensor: Any,
    axis: Any,
    keepdims: bool | None,
    name: str | None,
    reduction_indices: Any,
    keep_dims: bool | None,
) -> Tensor:
    x = convert_to_tensor(input_tensor)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axis = reduction_indices if axis is None else axis
    raw_max = reduce_max(x, axis, keepdims=True)
    shift = stop_gradient(where(is_finite(raw_max), raw_max, zeros_like(raw_max)))
    total = log(reduce_sum(exp(x - shift), axis, keepdims=keep))
    if not keep:
        shift = reduce_sum(shift, axis)  # drops the size-1 axes
    return identity(total + shift, name=name)


reduce_logsumexp = _tf1_reduction(
    "reduce_logsumexp",
    _logsumexp,
    """``log(sum(exp(x)))`` over ``axis``, shifted by the maximum so that it never overflows.""",
)


def _euclidean_norm(
    input_tensor: Any,
    axis: Any,
    keepdims: bool | None,
    name: str | None,
    reduction_indices: Any,
    keep_dims: bool | None,
) -> Tensor:
    x = convert_to_tensor(input_tensor)
    if not x.dtype.is_floating:
        raise DTypeError(
            f"symgrad: EuclideanNorm: takes float tensors, got '{x.name}' of dtype {x.dtype.name}"
        )
    axis = reduction_indices if axis is None else axis
    if isinstance(axis, (list, tuple)) and not axis:
        raise InvalidArgumentError(
            "symgrad: EuclideanNorm: an empty list of axes is not supported; use tf.abs"
        )
    return _reduce("EuclideanNorm", x, axis, keepdims, name, None, keep_dims)


def _euclidean_norm_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _EuclideanNormGrad: x / norm * grad (NaN for an all-zero slice, as in TF).
    x, axes, keepdims = op.inputs[0], op.attrs["axes"], op.attrs["keepdims"]
    norm = broadcast_gradient(op.outputs[0], x, axes, keepdims, mean=False)
    return [x / norm * broadcast_gradient(grad, x, axes, keepdims, mean=False)]


register(
    OpDef(
        "EuclideanNorm",
        lower=lambda op, xs: sp.sqrt(
            F.ReduceSum(xs[0] * xs[0], _axes_arg(op), sp.Integer(int(op.attrs["keepdims"])))
        ),
        gradient=_euclidean_norm_gradient,
        signature=_reduce_signature,
    )
)
reduce_euclidean_norm = _tf1_reduction(
    "reduce_euclidean_norm",
    _euclidean_norm,
    """The square root of the sum of squares over ``axis`` (all axes by default), as
    ``tf.math.reduce_euclidean_norm``; its gradient is TF's ``x / norm * grad``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.math.reduce_euclidean_norm(sg.constant([[3.0, 4.0]]), 1))())
    [5.]
    """,
)


def _tie_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    """TF's rule for max and min: the cotangent is split equally between tied extrema."""
    x, axes, keepdims = op.inputs[0], op.attrs["axes"], op.attrs["keepdims"]
    extremum = broadcast_gradient(op.outputs[0], x, axes, keepdims, mean=False)
    chosen = cast(equal(x, extremum), x.dtype)
    count = broadcast_gradient(
        reduce_sum(chosen, None if axes is None else list(axes), keepdims=keepdims),
        x,
        axes,
        keepdims,
        mean=False,
    )
    return [broadcast_gradient(grad, x, axes, keepdims, mean=False) * chosen / count]


def _prod_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    others = x.graph.create_op(
        "ProdOthers", [x], {"axes": op.attrs["axes"]}, [(x.shape, x.dtype)]
    ).outputs[0]
    return [
        broadcast_gradient(grad, x, op.attrs["axes"], op.attrs["keepdims"], mean=False) * others
    ]


def _prod_others_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    vjp = x.graph.create_op(
        "ProdOthersVJP", [grad, x], {"axes": op.attrs["axes"]}, [(x.shape, x.dtype)]
    )
    return [vjp.outputs[0]]


def _no_third_order_prod(op: Operation, grad: Tensor) -> list[Tensor | None]:
    raise InvalidArgumentError(
        "symgrad: gradients: third derivatives through reduce_prod are not supported"
    )


def _lower_prod_others_vjp(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    axes = op.attrs["axes"]
    return helper(
        "_prod_others_vjp",
        operands[0],
        operands[1],
        F.literal(None if axes is None else tuple(axes)),
    )


def _lower_prod_others(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    axes = op.attrs["axes"]
    return helper("_prod_others", operands[0], F.literal(None if axes is None else tuple(axes)))


reduce_max = _reduction(
    "Max",
    """Maximum over ``axis``; tied maxima share the gradient equally, as in TF.""",
    F.ReduceMax,
    _tie_gradient,
    F.MaybeEmptyReduceMax,
)
reduce_min = _reduction(
    "Min",
    """Minimum over ``axis``; tied minima share the gradient equally, as in TF.""",
    F.ReduceMin,
    _tie_gradient,
    F.MaybeEmptyReduceMin,
)
reduce_prod = _reduction(
    "Prod",
    """Product over ``axis``; its gradient is exact where elements are zero.""",
    F.ReduceProd,
    _prod_gradient,
)
register(
    OpDef(
        "ProdOthers",
        lower=_lower_prod_others,
        gradient=_prod_others_gradient,
        signature=lambda op, sigs: sigs[0],
    )
)
register(
    OpDef(
        "ProdOthersVJP",
        lower=_lower_prod_others_vjp,
        gradient=_no_third_order_prod,
        signature=lambda op, sigs: sigs[1],
    )
)


# --- BroadcastGrad: the adjoint of a reduction ---------------------------------------------


def broadcast_gradient(
    grad: Tensor, like: Tensor, axes: tuple[int, ...] | None, keepdims: bool, mean: bool
) -> Tensor:
    """``grad`` (the cotangent of a reduction of ``like``) spread back to ``like``'s shape."""
    op = grad.graph.create_op(
        "BroadcastGrad",
        [grad, like],
        {"axes": axes, "keepdims": keepdims, "mean": mean},
        [(like.shape, grad.dtype)],
    )
    return op.outputs[0]


def _expand_axes(op: Operation) -> tuple[int, ...]:
    """Axes where the reduced cotangent needs a size-1 axis to broadcast back."""
    axes, keepdims = op.attrs["axes"], op.attrs["keepdims"]
    if keepdims or axes is None:
        return ()
    if tuple(axes) == tuple(range(len(axes))):  # leading axes broadcast by themselves
        return ()
    return tuple(axes)


def _count(op: Operation, like: sp.Expr) -> sp.Expr:
    shape = op.inputs[1].shape
    axes = op.attrs["axes"]
    if shape is not None:
        static = num_elements(
            tuple(shape[a] for a in (axes if axes is not None else range(len(shape))))
        )
        if static is not None:
            return sp.Integer(max(static, 1))  # TF's _safe_shape_div, as in SizeOf
    all_axes = axes is None or (shape is not None and len(axes) == len(shape))
    return F.SizeOf(like, sp.Tuple() if all_axes else F.axes_tuple(axes))


def _lower_broadcast_gradient(op: Operation, operands: Sequence[Any]) -> Lowered:
    grad, like = operands
    expand = _expand_axes(op)
    if not expand or grad.natural == ():  # a scalar broadcasts as it is
        expr, natural = grad.expr, grad.natural
    else:
        # Axes are inserted at the positions of the reduced shape, so the
        # cotangent must have that shape itself first.
        expr = F.ExpandDims(grad.materialized_expr(), F.axes_tuple(expand))
        natural = list(grad.sig)
        for axis in expand:
            natural.insert(axis, 1)
        natural = tuple(natural)
    if op.attrs["mean"]:
        expr = expr / _count(op, like.expr)
    return Lowered(expr, natural, like.witnesses)


def _broadcast_gradient_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    reduce = reduce_mean if op.attrs["mean"] else reduce_sum
    if op.attrs["axes"] is None:  # a full reduction of an unknown-rank tensor
        return [reduce(grad, keepdims=op.attrs["keepdims"] or None), None]
    return [reduce(grad, axis=list(op.attrs["axes"]), keepdims=op.attrs["keepdims"]), None]


def _like_if_dynamic_count(op: Operation) -> tuple[int, ...]:
    """A mean's run-time element count reads the reduced value itself."""
    if op.attrs["mean"] and not is_fully_defined(op.inputs[1].shape):
        return (1,)
    return ()


register(
    OpDef(
        "BroadcastGrad",
        lower=_lower_broadcast_gradient,
        gradient=_broadcast_gradient_gradient,
        materialized_inputs=_like_if_dynamic_count,
        shape_only_inputs=(1,),
        value_lowering=True,
        signature=like_signature,
    )
)


# --- reduce_any / reduce_all / count_nonzero / argmax / argmin ----------


def _no_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [None] * len(op.inputs)


reduce_any = _reduction(
    "Any",
    """Logical or of a bool tensor over ``axis`` (all axes by default), like ``tf.reduce_any``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.reduce_any(sg.constant([[True, False], [False, False]]), 1))())
    [ True False]
    """,
    F.ReduceAny,
    _no_gradient,
)
reduce_all = _reduction(
    "All",
    """Logical and of a bool tensor over ``axis`` (all axes by default), like ``tf.reduce_all``.""",
    F.ReduceAll,
    _no_gradient,
)


def count_nonzero(
    input_tensor: Any = None,
    axis: Any = None,
    keepdims: bool | None = None,
    dtype: Any = _dtypes.int64,
    name: str | None = None,
    reduction_indices: Any = None,
    keep_dims: bool | None = None,
    input: Any = None,
) -> Tensor:
    """How many elements are not zero over ``axis``, as ``dtype`` (int64), like TF1's.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.count_nonzero(sg.constant([[0.0, 1.5], [2.0, 3.0]]), axis=1))())
    [1 2]
    """
    value = convert_to_tensor(input_tensor if input_tensor is not None else input)
    nonzero = cast(value if value.dtype.is_bool else not_equal(value, 0), _dtypes.int64)
    if _dtypes.as_dtype(dtype) == _dtypes.int64:
        return reduce_sum(nonzero, axis, keepdims, name, reduction_indices, keep_dims)
    count = reduce_sum(nonzero, axis, keepdims, None, reduction_indices, keep_dims)
    return cast(count, dtype, name=name)


def _arg_reduce(
    op_type: str, input: Any, axis: Any, name: str | None, dimension: Any, output_type: Any
) -> Tensor:
    x = convert_to_tensor(input)
    if axis is not None and dimension is not None:
        raise InvalidArgumentError(
            f"symgrad: {op_type}: give axis or its old name dimension, not both"
        )
    axis = dimension if axis is None else axis
    if isinstance(axis, Tensor):
        if axis.op.type != "Const":
            raise InvalidArgumentError(
                f"symgrad: {op_type}: axis must be known when the graph is built, not "
                f"computed tensor '{axis.name}'"
            )
        axis = axis.op.attrs["value"]
    axis = 0 if axis is None else int(axis)  # TF1: axis None means 0
    out_dtype = _dtypes.as_dtype(output_type)
    if not out_dtype.is_integer:
        raise DTypeError(f"symgrad: {op_type}: output_type must be int32 or int64, got {out_dtype}")
    if x.dtype.is_bool:
        raise DTypeError(f"symgrad: {op_type}: takes a numeric tensor, got bool '{x.name}'")
    axes: tuple[int, ...]
    shape: Shape
    if x.shape is None:  # NumPy reads the axis at run time, as TF's kernel does
        axes, shape = unknown_rank_axes(axis, op_type, x.name), None
        x = ensure_axis(x, axes[0], op_type=op_type)  # NumPy would take a 0-d value
    elif not x.shape:
        raise InvalidArgumentError(f"symgrad: {op_type}: tensor '{x.name}' is a scalar")
    else:
        axes = normalize_axes(axis, len(x.shape), op_type, x.name)
        shape = squeeze_axes(x.shape, axes, False)
    indices = x.graph.create_op(
        op_type,
        [x],
        {"axes": axes, "keepdims": False},
        [(shape, _dtypes.int64)],
        name=None if out_dtype != _dtypes.int64 else name,
    ).outputs[0]
    return indices if out_dtype == _dtypes.int64 else cast(indices, out_dtype, name=name)


def argmax(
    input: Any,
    axis: Any = None,
    name: str | None = None,
    dimension: Any = None,
    output_type: Any = _dtypes.int64,
) -> Tensor:
    """The index of the largest value along ``axis`` (0 if None, as TF1); ties give the first.

    No gradient flows through it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.argmax(sg.constant([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]), 1))())
    [1 0]
    """
    return _arg_reduce("ArgMax", input, axis, name, dimension, output_type)


def argmin(
    input: Any,
    axis: Any = None,
    name: str | None = None,
    dimension: Any = None,
    output_type: Any = _dtypes.int64,
) -> Tensor:
    """The index of the smallest value along ``axis`` (0 if None, as TF1); ties give the first."""
    return _arg_reduce("ArgMin", input, axis, name, dimension, output_type)


def arg_max(
    input: Any,
    dimension: Any = None,
    output_type: Any = _dtypes.int64,
    name: str | None = None,
) -> Tensor:
    """TF1's old spelling of :func:`argmax`: the axis is ``dimension`` (the second argument).

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     print(tf.compile(tf.arg_max(tf.constant([[1.0, 3.0], [2.0, 0.0]]), dimension=1))())
    [1 0]
    """
    return _arg_reduce("ArgMax", input, None, name, dimension, output_type)


def arg_min(
    input: Any,
    dimension: Any = None,
    output_type: Any = _dtypes.int64,
    name: str | None = None,
) -> Tensor:
    """TF1's old spelling of :func:`argmin`: the axis is ``dimension`` (the second argument).

    >>> import symgrad as tf
    >>> with tf.Graph().as_default():
    ...     print(tf.compile(tf.arg_min(tf.constant([[1.0, 3.0], [2.0, 0.0]]), 0))())
    [0 1]
    """
    return _arg_reduce("ArgMin", input, None, name, dimension, output_type)


def _lower_arg(node: type) -> Any:
    def lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
        return node(operands[0], sp.Integer(op.attrs["axes"][0]))

    return lower


register(
    OpDef("ArgMax", lower=_lower_arg(F.ArgMax), gradient=_no_gradient, signature=_reduce_signature)
)
register(
    OpDef("ArgMin", lower=_lower_arg(F.ArgMin), gradient=_no_gradient, signature=_reduce_signature)
)
