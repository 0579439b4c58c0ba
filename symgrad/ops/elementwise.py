"""Elementwise ops: one SymPy rule each; gradients come from ``sympy.diff``.

Every elementwise op stores its rule as a SymPy expression over the canonical
operand symbols ``a0, a1, ...`` (attribute ``expr``). Python numbers among the
operands are folded into that expression, so ``pow(r, 2)`` is ``a0**2``. The
gradient of every such op is built the same way: the partial derivative
``diff(expr, a_i)``, rewritten through the op's own output where that is
cheaper (``d tanh = 1 - z**2``), times the incoming cotangent, summed back to
the operand's shape. Special points follow TensorFlow through the primitives
of :mod:`symgrad.ops.functions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy as sp
from sympy.codegen.cfunctions import expm1 as _expm1
from sympy.codegen.cfunctions import log1p as _log1p

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names, get_default_graph
from ..shapes import broadcast_shapes, format_shape, is_fully_defined
from ..signatures import broadcast_axes_of, signature_of
from . import functions as F
from .broadcasting import sum_to_shape_of
from .registry import OpDef, arg_symbols, register
from .sources import constant, convert_to_tensor, holds_tensor

_COTANGENT = sp.Symbol("_g", real=True)
_OUTPUT = sp.Symbol("_z", real=True)


# --- building ----------------------------------------------------------------------


def _number_for(
    value: Any, dtype: _dtypes.DType, op: str, other: str = "the other operand"
) -> sp.Expr:
    """A Python scalar as a SymPy number holding the value ``dtype`` gives it."""
    if isinstance(value, (bool, np.bool_)):
        if not dtype.is_bool:
            return sp.Integer(int(value))
        return sp.Integer(int(value))
    if dtype.is_bool:
        raise DTypeError(f"symgrad: {op}: cannot combine bool tensor with number {value!r}")
    if dtype.is_integer:
        if float(value) != int(value):
            raise DTypeError(
                f"symgrad: {op}: {value!r} is not exactly representable as {dtype.name}, "
                f"the dtype of {other}; use symgrad.cast"
            )
        return sp.Integer(int(value))
    stored = float(np.asarray(value, dtype=dtype.numpy))
    if stored.is_integer() and -(2**53) < stored < 2**53:
        return sp.Integer(int(stored))
    return sp.Float(stored, precision=53)


def _is_python_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, bool, np.number, np.bool_))


def _resolve_operands(
    op: str,
    operands: Sequence[Any],
    bool_positions: Sequence[int] = (),
) -> list[Any]:
    """Tensors stay; arrays become constants; Python scalars stay scalars.

    Values are converted to the dtype of the first tensor operand, as TF does; a list that
    holds tensors is packed into one first (``convert_to_tensor``).
    """
    operands = [convert_to_tensor(x) if holds_tensor(x) else x for x in operands]
    tensors = [
        x for i, x in enumerate(operands) if isinstance(x, Tensor) and i not in bool_positions
    ]
    if tensors:
        dtype = tensors[0].dtype
    else:
        first = next(i for i in range(len(operands)) if i not in bool_positions)
        dtype = _dtypes.infer_dtype(operands[first], op)
    resolved: list[Any] = []
    for i, value in enumerate(operands):
        want = _dtypes.bool_ if i in bool_positions else dtype
        if (
            isinstance(value, Tensor)
            or _is_python_scalar(value)
            and tensors
            and i not in bool_positions
        ):
            resolved.append(value)
        else:
            resolved.append(constant(value, dtype=want))
    return resolved


def _check_dtypes(
    op: str, name: str | None, tensors: Sequence[Tensor], bool_positions: Sequence[int]
) -> _dtypes.DType:
    numeric = [
        t for i, t in enumerate(tensors) if i not in bool_positions and isinstance(t, Tensor)
    ]
    for i, t in enumerate(tensors):
        if i in bool_positions and isinstance(t, Tensor) and not t.dtype.is_bool:
            raise DTypeError(
                f"symgrad: {op}: condition '{t.name}' must be bool, got {t.dtype.name}"
            )
    dtype = numeric[0].dtype
    for t in numeric[1:]:
        if t.dtype != dtype:
            listing = ", ".join(f"'{u.name}' {u.dtype.name}" for u in numeric)
            raise DTypeError(
                f"symgrad: {op}: operands must have the same dtype, got {listing}; use symgrad.cast"
            )
    return dtype


def make_elementwise(
    op_type: str,
    rule: Callable[..., sp.Expr],
    operands: Sequence[Any],
    name: str | None = None,
    out_dtype: _dtypes.DType | None = None,
    bool_positions: Sequence[int] = (),
    allowed: str = "numeric",
) -> Tensor:
    """Build an elementwise op from a rule over its operands' SymPy symbols."""
    resolved = _resolve_operands(op_type, operands, bool_positions)
    tensors = [x for x in resolved if isinstance(x, Tensor)]
    dtype = _check_dtypes(op_type, name, resolved, bool_positions)
    if allowed == "float" and not dtype.is_floating:
        raise DTypeError(
            f"symgrad: {op_type}: needs a floating-point tensor, got "
            f"'{tensors[0].name}' of dtype {dtype.name}; use symgrad.cast"
        )
    if allowed == "numeric" and dtype.is_bool:
        raise DTypeError(f"symgrad: {op_type}: does not take bool tensors ('{tensors[0].name}')")
    try:
        shape = broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        listing = " and ".join(f"'{t.name}' {format_shape(t.shape)}" for t in tensors)
        raise ShapeError(f"symgrad: {op_type}: cannot broadcast shapes of {listing}") from None
    symbols = iter(arg_symbols(len(tensors)))
    other = f"'{tensors[0].name}'" if tensors else "the other operand"
    args = [
        next(symbols) if isinstance(x, Tensor) else _number_for(x, dtype, op_type, other)
        for x in resolved
    ]
    expr = sp.sympify(rule(*args))
    return _create(op_type, expr, tensors, shape, out_dtype or dtype, name)


def _create(
    op_type: str,
    expr: sp.Expr,
    inputs: Sequence[Tensor],
    shape: Any,
    dtype: _dtypes.DType,
    name: str | None,
) -> Tensor:
    graph = get_default_graph() if not inputs else inputs[0].graph
    op = graph.create_op(op_type, inputs, {"expr": expr}, [(shape, dtype)], name=name)
    return op.outputs[0]


def expression_op(expr: sp.Expr, inputs: Sequence[Tensor], like: Tensor, name: str) -> Tensor:
    """An op computing ``expr`` (over ``a0..``) of ``inputs``, with ``like``'s dtype.

    Gradient code is made of these; its shape is the broadcast of its inputs.
    """
    shape = broadcast_shapes(*(t.shape for t in inputs))
    out = _create("Elementwise", expr, inputs, shape, like.dtype, name)
    out.op.auto_named = True
    return out


def _lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    mapping = dict(zip(arg_symbols(len(op.inputs)), operands, strict=False))
    lowered = op.attrs["expr"].xreplace(mapping)
    if lowered.has(sp.I):
        # SymPy folds log(-1) or sqrt(-2) of constants to complex numbers; TF's real
        # kernels give NaN there.
        lowered = lowered.replace(_complex_number, lambda _: sp.nan)
    return lowered


def _complex_number(expr: sp.Expr) -> bool:
    return bool(expr.is_number and expr.is_extended_real is False)


# --- the gradient of every elementwise op -------------------------------------------


def _through_output(partial: sp.Expr, expr: sp.Expr) -> sp.Expr:
    """Rewrite ``partial`` through the op's output: ``1 - tanh(a0)**2`` → ``1 - _z**2``."""
    if expr.is_Atom or expr.is_Add or expr.is_Mul or sp.count_ops(expr) > 4:
        return partial
    return partial.subs(expr, _OUTPUT)


def _select_inputs(expr: sp.Expr, candidates: Sequence[tuple]) -> tuple:
    """Keep the (symbol, tensor) pairs ``expr`` uses; renumber them ``a0, a1, ...``."""
    used = [(sym, t) for sym, t in candidates if expr.has(sym)]
    renamed = dict(zip([sym for sym, _ in used], arg_symbols(len(used)), strict=False))
    # Two-step rename: the new names overlap the old ones.
    temporary = {sym: sp.Dummy() for sym, _ in used}
    expr = expr.xreplace(temporary).xreplace({temporary[s]: renamed[s] for s, _ in used})
    return expr, [t for _, t in used]


# TF's SqrtGrad, RsqrtGrad and ReciprocalGrad kernels give 0 where the incoming gradient
# is 0 (even where the local derivative is inf): the "safe sqrt via where" idiom relies on it.
# So does _MulNoNanGrad (mul_no_nan(x, grad): 0 where grad is 0, even where x is inf or NaN).
ZERO_WHERE_COTANGENT_IS_ZERO = frozenset({"Sqrt", "Rsqrt", "Reciprocal", "MulNoNan"})


def _only_in_comparisons(expr: sp.Expr, symbol: sp.Symbol) -> bool:
    """``symbol`` occurs in ``expr`` only inside comparisons: TF has no gradient path.

    (Relu's mask, :class:`F.ReluMask`, is the exception: TF differentiates ReluGrad.)
    """
    masks = [
        e
        for e in sp.preorder_traversal(expr)
        if isinstance(e, F.BOOLEAN_FUNCTIONS) and not isinstance(e, F.ReluMask)
    ]
    if not masks:
        return False
    hidden = expr.xreplace({m: sp.Dummy() for m in masks})
    return not hidden.has(symbol)


def _zero_where_cotangent_is_zero(partial: sp.Expr, symbols: Sequence[sp.Symbol]) -> sp.Expr:
    """``partial`` with its operands replaced by 1 where the cotangent is 0: finite there,
    so ``cotangent * partial`` is exactly 0, with no inf * 0 and no warning."""
    safe = F.Equal(_COTANGENT, 0)
    return partial.xreplace({s: F.OneWhere(safe, s) for s in symbols if partial.has(s)})


def _without_guards_of(expr: sp.Expr, cotangent: sp.Symbol) -> sp.Expr:
    """``expr`` with the guards that keep it finite where ``cotangent`` is 0 taken out.

    A first-order gradient ``g * h(OneWhere(g == 0, x))`` is ``g * h(x)`` where g != 0 and 0
    where g == 0; its derivative by ``g`` is ``h(x)`` everywhere (TF's SqrtGradGrad and kin),
    not ``h(1)`` where ``g`` is 0, which the product rule over the guard would give."""
    guard = F.Equal(cotangent, 0)
    return expr.replace(
        lambda e: isinstance(e, F.OneWhere) and e.args[0] == guard, lambda e: e.args[1]
    )


def elementwise_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    expr = op.attrs["expr"]
    args = arg_symbols(len(op.inputs))
    output = op.outputs[0]
    results: list[Tensor | None] = []
    for i, x in enumerate(op.inputs):
        if not x.dtype.is_floating:
            results.append(None)
            continue
        if _only_in_comparisons(expr, args[i]):
            results.append(None)  # e.g. the mask of maximum's gradient: TF has no path
            continue
        partial = sp.diff(_without_guards_of(expr, args[i]), args[i])
        if partial.has(sp.Derivative, sp.DiracDelta, sp.Subs):
            results.append(None)  # floor, round: TF has no gradient
            continue
        if partial == 0:
            results.append(zeros_like(x))  # differentiable, with a zero gradient (sign)
            continue
        partial = _through_output(partial, expr)
        if op.type in ZERO_WHERE_COTANGENT_IS_ZERO:
            partial = _zero_where_cotangent_is_zero(partial, [*args, _OUTPUT])
        cotangent = _COTANGENT * partial
        if cotangent == _COTANGENT:
            local = grad
        else:
            candidates = (
                [(_COTANGENT, grad)]
                + list(zip(args, op.inputs, strict=False))
                + [(_OUTPUT, output)]
            )
            body, inputs = _select_inputs(cotangent, candidates)
            local = expression_op(body, inputs, like=x, name=f"{op.name}_grad")
        axes = broadcast_axes_of(i, [signature_of(t) for t in op.inputs], signature_of(output))
        results.append(sum_to_shape_of(local, x, axes))
    return results


ELEMENTWISE = register(
    OpDef("Elementwise", lower=_lower, gradient=elementwise_gradient, elementwise=True)
)


def _no_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [None] * len(op.inputs)


def _cast_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    source = op.inputs[0]
    if not (source.dtype.is_floating and grad.dtype.is_floating):
        return [None]
    return [cast(grad, source.dtype)]


# --- the table ----------------------------------------------------------------------
# One line per op: type, rule. Differentiation is generic (above) unless noted.


def _define(op_type: str, gradient: Any = elementwise_gradient, shape_only: tuple = ()) -> str:
    register(
        OpDef(
            op_type, lower=_lower, gradient=gradient, elementwise=True, shape_only_inputs=shape_only
        )
    )
    return op_type


def _power(x: sp.Expr, y: sp.Expr) -> sp.Expr:
    # A symbolic exponent needs TF's d/dy = z * log(x) where x > 0, else 0.
    # x**0 would fold to 1 and lose TF's NaN derivative at x = 0 (see F.ZeroOver).
    return x**y if y.is_Number and not y.is_zero else F.Power(x, y)


UNARY = {
    "Neg": lambda x: -x,
    "Square": lambda x: x**2,
    "Sqrt": sp.sqrt,
    "Rsqrt": lambda x: 1 / sp.sqrt(x),
    "Reciprocal": lambda x: 1 / x,
    "Exp": sp.exp,
    "Expm1": _expm1,
    "Log": sp.log,
    "Log1p": _log1p,
    "Sin": sp.sin,
    "Cos": sp.cos,
    "Tanh": sp.tanh,
    "Sigmoid": F.Sigmoid,
    "Softplus": F.Softplus,
    "Relu": F.Relu,
    "Abs": F.Abs,
    "Sign": F.Sign,
    "Floor": F.Floor,
    "Round": F.Round,
    "Identity": lambda x: x,
    # TF1's other elementwise math and activations
    "Tan": sp.tan,
    "Sinh": sp.sinh,
    "Cosh": sp.cosh,
    "Asin": sp.asin,
    "Acos": sp.acos,
    "Atan": sp.atan,
    "Asinh": sp.asinh,
    "Acosh": sp.acosh,
    "Atanh": sp.atanh,
    "Ceil": F.Ceil,
    "Relu6": F.Relu6,
    "Elu": F.Elu,
    "Selu": F.Selu,
    "Softsign": lambda x: x / (1 + F.Abs(x)),
    "Erf": F.Erf,
    "Erfc": F.Erfc,
}
BINARY = {
    "Add": lambda x, y: x + y,
    "Sub": lambda x, y: x - y,
    "Mul": lambda x, y: x * y,
    "RealDiv": lambda x, y: x / y,
    "Pow": _power,
    "Maximum": F.Maximum,
    "Minimum": F.Minimum,
    "SquaredDifference": lambda x, y: (x - y) ** 2,
    # TF1's other elementwise ops
    "Atan2": sp.atan2,
    "FloorDiv": F.FloorDiv,
    "FloorMod": F.FloorMod,
    "TruncateDiv": F.TruncateDiv,
    "TruncateMod": F.TruncateMod,
    "DivNoNan": F.DivNoNan,
    "MulNoNan": F.MulNoNan,
    "Xlogy": F.Xlogy,
    "Xdivy": F.Xdivy,
    # Not TF ops: losses as one textbook function each (see F.TextbookForm).
    "LogisticLoss": F.LogisticLoss,
    "HuberLoss": F.HuberLoss,
    "WeightedLogisticLoss": F.WeightedLogisticLoss,
}
LOGICAL = {
    "LogicalAnd": F.LogicalAnd,
    "LogicalOr": F.LogicalOr,
    "LogicalXor": F.LogicalXor,
    "LogicalNot": F.LogicalNot,
}
PREDICATES = {
    "IsFinite": F.IsFinite,
}
COMPARISONS = {
    "Greater": F.Greater,
    "GreaterEqual": F.GreaterEqual,
    "Less": F.Less,
    "LessEqual": F.LessEqual,
    "Equal": F.Equal,
    "NotEqual": F.NotEqual,
}
for _type in [
    *UNARY,
    *BINARY,
    *COMPARISONS,
    *PREDICATES,
    "Select",
    *LOGICAL,
    "AddN",
    "ClipByValue",
]:
    _define(_type)
# Ops through which no gradient flows.
_define("StopGradient", gradient=_no_gradient)
for _type in ["OnesLike", "ZerosLike"]:
    _define(_type, gradient=_no_gradient, shape_only=(0,))
_define("Cast", gradient=_cast_gradient)
# An identity whose derivative TF defines as 0 (not None): the labels inside the
# softmax cross-entropy's own gradient.
_define("ZeroGradient", gradient=lambda op, grad: [zeros_like(op.inputs[0])])
# Their expression is the identity (or reads only a shape), but their derivative is zero:
# forward mode (hessians) must not carry a tangent through them either.
ZERO_DERIVATIVE_OPS = frozenset({"StopGradient", "OnesLike", "ZerosLike", "ZeroGradient"})


def zero_gradient(x: Tensor, name: str | None = None) -> Tensor:
    """``x``, with a zero gradient (TF's second-order rule for cross-entropy labels)."""
    return make_elementwise("ZeroGradient", lambda a: a, [x], name, allowed="any")


# --- the public functions -------------------------------------------------------------


def _unary(op_type: str, floats_only: bool = True) -> Callable[..., Tensor]:
    rule = UNARY[op_type]

    def apply(x: Any, name: str | None = None) -> Tensor:
        return make_elementwise(
            op_type, rule, [x], name, allowed="float" if floats_only else "numeric"
        )

    apply.__name__ = op_type.lower()
    apply.__doc__ = f"Elementwise ``{op_type}`` of a tensor (TF1's ``tf.{op_type.lower()}``)."
    return apply


def _binary(op_type: str) -> Callable[..., Tensor]:
    rule = BINARY[op_type]

    def apply(x: Any, y: Any, name: str | None = None) -> Tensor:
        return make_elementwise(op_type, rule, [x, y], name)

    apply.__name__ = op_type.lower()
    apply.__doc__ = f"Elementwise ``{op_type}`` with NumPy broadcasting."
    return apply


def _comparison(op_type: str) -> Callable[..., Tensor]:
    rule = COMPARISONS[op_type]
    # TF compares bools for (in)equality only: tf.equal(predicted, labels) of bool tensors.
    allowed = "any" if op_type in ("Equal", "NotEqual") else "numeric"

    def apply(x: Any, y: Any, name: str | None = None) -> Tensor:
        return make_elementwise(
            op_type, rule, [x, y], name, out_dtype=_dtypes.bool_, allowed=allowed
        )

    apply.__name__ = op_type.lower()
    apply.__doc__ = f"Elementwise ``{op_type}`` comparison; a bool tensor without gradient."
    return apply


add = _binary("Add")
subtract = _binary("Sub")
multiply = _binary("Mul")
maximum = _binary("Maximum")
minimum = _binary("Minimum")
squared_difference = _binary("SquaredDifference")
_pow = _binary("Pow")


def pow(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Elementwise ``x ** y`` with NumPy broadcasting.

    Integers to a negative constant power are an error, as in TensorFlow (NumPy
    refuses them too, and a rewrite to ``1 / x`` would silently give 0).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.pow(sg.constant(2.0), -1).dtype.name
    'float32'
    """
    if _is_integer_operand(x) and _is_integer_operand(y):
        exponent = _known_value(y)
        if exponent is not None and np.any(exponent < 0):
            base = f"'{x.name}'" if isinstance(x, Tensor) else repr(x)
            raise InvalidArgumentError(
                f"symgrad: Pow: integers to negative integer powers are not allowed "
                f"({base} ** {exponent.tolist()!r:.40}); cast to a float dtype first"
            )
    return _pow(x, y, name)


def _is_integer_operand(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value.dtype.is_integer
    return np.issubdtype(np.asarray(value).dtype, np.integer)


def _known_value(value: Any) -> np.ndarray | None:
    """The value of a Python/NumPy number or a constant tensor (None if known only at run time)."""
    if not isinstance(value, Tensor):
        return np.asarray(value)
    if value.op.type == "Const":
        return np.asarray(value.op.attrs["value"])
    return None


negative = _unary("Neg", floats_only=False)
abs = _unary("Abs", floats_only=False)
sign = _unary("Sign", floats_only=False)
square = _unary("Square", floats_only=False)
sqrt, rsqrt, reciprocal = _unary("Sqrt"), _unary("Rsqrt"), _unary("Reciprocal")
exp, expm1, log, log1p = _unary("Exp"), _unary("Expm1"), _unary("Log"), _unary("Log1p")
sin, cos, tanh, sigmoid = _unary("Sin"), _unary("Cos"), _unary("Tanh"), _unary("Sigmoid")
softplus, relu = _unary("Softplus"), _unary("Relu", floats_only=False)
floor, round = _unary("Floor"), _unary("Round")


def logistic_loss(logits: Any, labels: Any, name: str | None = None) -> Tensor:
    """``softplus(logits) - logits * labels`` elementwise, evaluated as TF evaluates it (finite
    for any logits); its gradient is ``sigmoid(logits) - labels``."""
    return make_elementwise("LogisticLoss", F.LogisticLoss, [logits, labels], name, allowed="float")


def huber_loss(error: Any, delta: Any, name: str | None = None) -> Tensor:
    """The Huber loss of ``error`` elementwise, evaluated as TF1's ``losses.huber_loss`` does;
    its gradient is ``clip(error, -delta, delta)``."""
    return make_elementwise("HuberLoss", F.HuberLoss, [error, delta], name, allowed="float")


def weighted_logistic_loss(
    logits: Any, labels: Any, pos_weight: Any, name: str | None = None
) -> Tensor:
    """The sigmoid cross-entropy with positives weighted by ``pos_weight``, evaluated as TF
    does; its gradient is ``(1 + (q - 1) * labels) * sigmoid(logits) - q * labels``."""
    return make_elementwise(
        "WeightedLogisticLoss",
        F.WeightedLogisticLoss,
        [logits, labels, pos_weight],
        name,
        allowed="float",
    )


def is_finite(x: Any, name: str | None = None) -> Tensor:
    """True where ``x`` is neither infinite nor NaN."""
    return make_elementwise(
        "IsFinite", F.IsFinite, [x], name, out_dtype=_dtypes.bool_, allowed="float"
    )


greater, greater_equal = _comparison("Greater"), _comparison("GreaterEqual")
less, less_equal = _comparison("Less"), _comparison("LessEqual")
equal, not_equal = _comparison("Equal"), _comparison("NotEqual")


def truediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x / y``; integer tensors give float32 (8- and 16-bit) or float64, as in TensorFlow."""
    dtype = next((v.dtype for v in (x, y) if isinstance(v, Tensor)), None)
    if dtype is not None and dtype.is_integer:
        wide = _dtypes.float32 if dtype.numpy.itemsize <= 2 else _dtypes.float64
        x, y = (cast(v, wide) if isinstance(v, Tensor) else v for v in (x, y))
    with default_names([x, y], {"RealDiv": "truediv"}):
        return make_elementwise("RealDiv", BINARY["RealDiv"], [x, y], name)


divide = truediv


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elements of ``x`` where ``condition`` holds, else of ``y`` (broadcasting all three)."""
    if x is None or y is None:
        raise InvalidArgumentError(
            "symgrad: Select: the one-argument form of where (indices of true "
            "elements) is not supported; pass x and y"
        )
    return make_elementwise(
        "Select", F.Where, [condition, x, y], name, bool_positions=(0,), allowed="any"
    )


def identity(x: Any, name: str | None = None) -> Tensor:
    """The same value as a new tensor (e.g. to give it a name)."""
    return make_elementwise("Identity", UNARY["Identity"], [x], name, allowed="any")


def stop_gradient(x: Any, name: str | None = None) -> Tensor:
    """The value of ``x``, through which no gradient flows.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant(3.0)
    ...     print(sg.gradients(sg.stop_gradient(x) * x, x)[0] is not None)
    True
    """
    return make_elementwise("StopGradient", lambda a: a, [x], name, allowed="any")


def cast(x: Any, dtype: Any, name: str | None = None) -> Tensor:
    """Convert ``x`` to ``dtype``; the gradient flows only between float dtypes."""
    target = _dtypes.as_dtype(dtype)
    if not isinstance(x, Tensor):
        return constant(np.asarray(x).astype(target.numpy), dtype=target, name=name)
    if x.dtype == target:
        return identity(x, name=name)
    return make_elementwise(
        "Cast",
        lambda a: F.cast(a, target.name, x.dtype.name),
        [x],
        name,
        out_dtype=target,
        allowed="any",
    )


def _filled_like(
    op_type: str, value: sp.Expr, tensor: Any, dtype: Any, name: str | None, optimize: bool
) -> Tensor:
    if not isinstance(tensor, Tensor):
        tensor = constant(tensor)
    out_dtype = _dtypes.as_dtype(dtype) if dtype is not None else tensor.dtype
    if optimize and is_fully_defined(tensor.shape):
        # As TF1 (optimize=True): a static shape does not read the tensor, so a variable's
        # initializer may use ones_like(other_variable) before other_variable is initialized.
        return _create(op_type, value, [], tensor.shape, out_dtype, name)
    return make_elementwise(
        op_type, lambda a: value, [tensor], name, out_dtype=out_dtype, allowed="any"
    )


def ones_like(
    tensor: Tensor, dtype: Any = None, name: str | None = None, optimize: bool = True
) -> Tensor:
    """Ones of ``tensor``'s shape (known at run time for ``None`` dims).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.ones_like(sg.placeholder(sg.float32, [None, 2]))
    <symgrad.Tensor 'ones_like:0' shape=(None, 2) dtype=float32>
    """
    with default_names([tensor], {"OnesLike": "ones_like"}):
        return _filled_like("OnesLike", sp.S.One, tensor, dtype, name, optimize)


def zeros_like(
    tensor: Tensor, dtype: Any = None, name: str | None = None, optimize: bool = True
) -> Tensor:
    """Zeros of ``tensor``'s shape.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.zeros_like(sg.constant([1.0, 2.0]))
    <symgrad.Tensor 'zeros_like:0' shape=(2,) dtype=float32>
    """
    with default_names([tensor], {"ZerosLike": "zeros_like"}):
        return _filled_like("ZerosLike", sp.S.Zero, tensor, dtype, name, optimize)


# --- TF1's other elementwise ops -----------------------------------------

tan, sinh, cosh = _unary("Tan"), _unary("Sinh"), _unary("Cosh")
asin, acos, atan = _unary("Asin"), _unary("Acos"), _unary("Atan")
asinh, acosh, atanh = _unary("Asinh"), _unary("Acosh"), _unary("Atanh")
ceil = _unary("Ceil")
relu6, elu, selu = _unary("Relu6"), _unary("Elu"), _unary("Selu")
softsign = _unary("Softsign")
erf, erfc = _unary("Erf"), _unary("Erfc")


def _binary_float(op_type: str, tf_name: str) -> Callable[..., Tensor]:
    rule = BINARY[op_type]

    def apply(x: Any, y: Any, name: str | None = None) -> Tensor:
        return make_elementwise(op_type, rule, [x, y], name, allowed="float")

    apply.__name__ = tf_name
    apply.__doc__ = f"Elementwise ``{op_type}`` of two float tensors, as TF1's ``tf.{tf_name}``."
    return apply


def atan2(y: Any, x: Any, name: str | None = None) -> Tensor:
    """The angle of the point ``(x, y)``: ``arctan(y / x)`` in the right quadrant.

    Both arguments get gradients (``x / (x**2 + y**2)`` and ``-y / (x**2 + y**2)``), as in TF.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     angle = sg.compile(sg.atan2(sg.constant(1.0), sg.constant(-1.0)))()
    >>> print(f"{float(angle):.4f}")
    2.3562
    """
    return make_elementwise("Atan2", BINARY["Atan2"], [y, x], name, allowed="float")


div_no_nan = _binary_float("DivNoNan", "div_no_nan")
multiply_no_nan = _binary_float("MulNoNan", "math.multiply_no_nan")
xlogy = _binary_float("Xlogy", "math.xlogy")
xdivy = _binary_float("Xdivy", "math.xdivy")


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> Tensor:
    """TF1's ``saturate_cast``: ``value`` clipped to the range both dtypes hold, then cast, so
    that no value wraps around (300.0 to uint8 is 255, -3 to uint8 is 0).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.saturate_cast(sg.constant([-3.0, 7.5, 300.0]), sg.uint8))())
    [  0   7 255]
    """
    x = convert_to_tensor(value)
    target = _dtypes.as_dtype(dtype)
    if not (x.dtype.is_floating or x.dtype.is_integer) or not (
        target.is_floating or target.is_integer
    ):
        raise DTypeError(
            f"symgrad: saturate_cast: '{x.name}' of dtype {x.dtype.name} to {target.name}: "
            f"both must be integer or float dtypes"
        )

    def limits(dtype: _dtypes.DType) -> tuple[float, float]:
        info = np.finfo(dtype.numpy) if dtype.is_floating else np.iinfo(dtype.numpy)
        return float(info.min), float(info.max)

    (low_in, high_in), (low_out, high_out) = limits(x.dtype), limits(target)
    clipped = x
    if low_out > low_in:
        clipped = maximum(clipped, _limit(low_out, x.dtype))
    if high_out < high_in:
        clipped = minimum(clipped, _limit(high_out, x.dtype))
    return cast(clipped, target, name=name)


def _limit(value: float, dtype: _dtypes.DType) -> Tensor:
    """``value`` as a constant of ``dtype``, rounded down to one the dtype holds (float32 holds
    2**31 - 1 only as 2**31, which would let a value wrap around)."""
    held = np.asarray(value).astype(dtype.numpy)
    if float(held) > value:
        held = np.nextafter(held, held.dtype.type(-np.inf)) if dtype.is_floating else held
    return constant(held, dtype=dtype)


def floordiv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x // y``, rounding towards minus infinity as Python does; no gradient, as in TF.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.floordiv(sg.constant([7, -7]), 2))())
    [ 3 -4]
    """
    with default_names([x, y], {"FloorDiv": "floordiv"}):
        return make_elementwise("FloorDiv", BINARY["FloorDiv"], [x, y], name)


def floormod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x % y`` with the sign of ``y``, as Python; TF's gradient (``-floordiv(x, y)`` for y).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.mod(sg.constant([7, -7]), 3))())
    [1 2]
    """
    return make_elementwise("FloorMod", BINARY["FloorMod"], [x, y], name)


mod = floormod


def truncatediv(x: Any, y: Any, name: str | None = None) -> Tensor:
    """Integer ``x / y`` rounded towards zero (C's division); no gradient, as in TF."""
    return _integer_op("TruncateDiv", x, y, name)


def truncatemod(x: Any, y: Any, name: str | None = None) -> Tensor:
    """The remainder of :func:`truncatediv`, with the sign of ``x`` (C's ``fmod``)."""
    return make_elementwise("TruncateMod", BINARY["TruncateMod"], [x, y], name)


def _integer_op(op_type: str, x: Any, y: Any, name: str | None) -> Tensor:
    out = make_elementwise(op_type, BINARY[op_type], [x, y], name)
    if not out.dtype.is_integer:
        raise DTypeError(
            f"symgrad: {op_type}: takes integer tensors, got '{out.op.inputs[0].name}' of dtype "
            f"{out.dtype.name}; use symgrad.floordiv or symgrad.truediv for floats"
        )
    return out


def div(x: Any, y: Any, name: str | None = None) -> Tensor:
    """TF1's ``tf.div``: Python 2 division, floor division for integers, true division else.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile([sg.div(sg.constant(-7), 2), sg.div(sg.constant(-7.0), 2)])())
    [np.int32(-4), np.float32(-3.5)]
    """
    dtype = next((v.dtype for v in (x, y) if isinstance(v, Tensor)), None)
    if dtype is None:
        dtype = _dtypes.infer_dtype(x, "Div")
    with default_names([x, y], {"FloorDiv": "div", "RealDiv": "div"}):
        if dtype.is_integer:
            return make_elementwise("FloorDiv", BINARY["FloorDiv"], [x, y], name)
        return make_elementwise("RealDiv", BINARY["RealDiv"], [x, y], name)


def _logical(op_type: str, tf_name: str) -> Callable[..., Tensor]:
    rule = LOGICAL[op_type]

    def apply(*operands: Any, name: str | None = None) -> Tensor:
        out = make_elementwise(op_type, rule, list(operands), name, allowed="any")
        if not out.dtype.is_bool:
            tensor = next(t for t in out.op.inputs)
            raise DTypeError(
                f"symgrad: {op_type}: takes bool tensors, got '{tensor.name}' of dtype "
                f"{tensor.dtype.name}; compare or cast it first"
            )
        return out

    apply.__name__ = tf_name
    apply.__doc__ = f"Elementwise ``{tf_name}`` of bool tensors (TF1's ``tf.{tf_name}``)."
    return apply


_logical_and, _logical_or = (
    _logical("LogicalAnd", "logical_and"),
    _logical("LogicalOr", "logical_or"),
)
_logical_xor, _logical_not = (
    _logical("LogicalXor", "logical_xor"),
    _logical("LogicalNot", "logical_not"),
)


def logical_and(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x and y`` elementwise, for bool tensors.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.logical_and(sg.constant([True, True]), [True, False]))())
    [ True False]
    """
    return _logical_and(x, y, name=name)


def logical_or(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x or y`` elementwise, for bool tensors."""
    return _logical_or(x, y, name=name)


def logical_xor(x: Any, y: Any, name: str | None = None) -> Tensor:
    """``x != y`` elementwise, for bool tensors."""
    return _logical_xor(x, y, name=name)


def logical_not(x: Any, name: str | None = None) -> Tensor:
    """``not x`` elementwise, for a bool tensor."""
    return _logical_not(x, name=name)


def leaky_relu(features: Any, alpha: float = 0.2, name: str | None = None) -> Tensor:
    """``x`` where ``x > 0``, else ``alpha * x``; the gradient at 0 is ``alpha``, as in TF.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.nn.leaky_relu(sg.constant([-1.0, 2.0])))())
    [-0.2  2. ]
    """
    if isinstance(features, Tensor) and features.dtype.is_integer:
        features = cast(features, _dtypes.float32)  # as TF: integer features become float32
    # TF keeps alpha in a float attribute: float64 features are scaled by float32(alpha).
    _alpha = _number_for(float(np.float32(alpha)), _dtype_of(features), "LeakyRelu")
    # ReluMask, not Greater: TF's LeakyReluGrad differentiates to zeros, not None.
    return make_elementwise(
        "LeakyRelu",
        lambda x: F.Where(F.ReluMask(x, 0), x, _alpha * x),
        [features],
        name,
        allowed="float",
    )


def _dtype_of(value: Any) -> _dtypes.DType:
    return value.dtype if isinstance(value, Tensor) else _dtypes.infer_dtype(value, "op")


_define("LeakyRelu")


def add_n(inputs: Sequence[Any], name: str | None = None) -> Tensor:
    """The sum of a list of tensors of one shape and dtype; each gets the whole gradient.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.add_n([sg.constant(1.0), sg.constant(2.0), 3.0]))())
    6.0
    """
    values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if not values:
        raise InvalidArgumentError("symgrad: AddN: inputs must be a non-empty list of tensors")
    known = [v.shape for v in values if isinstance(v, Tensor) and is_fully_defined(v.shape)]
    if any(s != known[0] for s in known):
        listing = ", ".join(format_shape(s) for s in known)
        raise ShapeError(f"symgrad: AddN: inputs must have one shape, got {listing}")
    return make_elementwise("AddN", lambda *xs: sp.Add(*xs), values, name)


def accumulate_n(
    inputs: Sequence[Any], shape: Any = None, tensor_dtype: Any = None, name: str | None = None
) -> Tensor:
    """TF1's ``accumulate_n``: the same sum as :func:`add_n`."""
    return add_n(inputs, name=name)


def clip_by_value(
    t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None
) -> Tensor:
    """``t`` clipped into ``[clip_value_min, clip_value_max]``.

    Computed as TF does, ``maximum(minimum(t, max), min)``: at a bound the gradient goes to ``t``
    (ties of minimum and maximum go to their first argument), elsewhere to the bound it clips to.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.clip_by_value(sg.constant([-2.0, 0.5, 2.0]), -1.0, 1.0))())
    [-1.   0.5  1. ]
    """
    with default_names([t], {"ClipByValue": "clip_by_value"}):
        return _clip_by_value(t, clip_value_min, clip_value_max, name)


def _clip_by_value(t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None) -> Tensor:
    return make_elementwise(
        "ClipByValue",
        lambda x, low, high: F.Maximum(F.Minimum(x, high), low),
        [t, clip_value_min, clip_value_max],
        name,
    )


def to_float(x: Any, name: str = "ToFloat") -> Tensor:
    """``cast(x, float32)``."""
    return cast(x, _dtypes.float32, name=name)


def to_double(x: Any, name: str = "ToDouble") -> Tensor:
    """``cast(x, float64)``."""
    return cast(x, _dtypes.float64, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> Tensor:
    """``cast(x, int32)``."""
    return cast(x, _dtypes.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> Tensor:
    """``cast(x, int64)``."""
    return cast(x, _dtypes.int64, name=name)
