"""The portable printer: each node as a call of the Python array API standard (2023.12).

The generated function takes its namespace ``xp`` from its inputs, so this printer writes
``xp.tanh(x)`` where the NumPy printer writes ``np.tanh(x)``. It shares the NumPy
printer's rules (term order, literals in the statement's precision, exact dtypes) and
overrides only what the standard spells or allows differently:

- names: ``xp.atan``, ``xp.pow``, ``xp.concat``, ``xp.permute_dims`` (NumPy's
  ``arctan``, ``power``, ``concatenate``, ``transpose``);
- Python scalars mix with arrays in operators only: a function argument that is a number
  becomes ``xp.asarray(number, dtype=...)``, and a bool mask in arithmetic becomes
  ``xp.astype(mask, xp.float32)`` (the standard does not promote bool);
- ``axis`` is keyword-only in ``concat``, ``stack``, ``flip``, ``expand_dims``;
- ``x.shape`` instead of ``np.shape(x)``, ``xp.astype`` instead of ``np.asarray(dtype=)``;
- a NumPy-only call with no portable twin raises :class:`symgrad.errors.BackendError`
  naming the op and the backend, at compile time.
"""

from __future__ import annotations

import ast
import operator as pyoperator
from collections.abc import Callable
from typing import Any

import sympy as sp
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from ...errors import BackendError
from ...ops import array_nodes as A
from ...ops import functions as F
from ...ops import linalg as L
from ...ops import random_ops as R
from ..numpy.printer import Printer as NumPyCodePrinter
from ..numpy.printer import _axis_text, _float_text
from .kernels import KERNELS

BACKEND = "array_api"

# NumPy's name -> the standard's, where they differ.
RENAMED = {
    "arccos": "acos",
    "arcsin": "asin",
    "arctan": "atan",
    "arctan2": "atan2",
    "arccosh": "acosh",
    "arcsinh": "asinh",
    "arctanh": "atanh",
    "power": "pow",
    "concatenate": "concat",
    "transpose": "permute_dims",
    "mod": "remainder",
    "absolute": "abs",
    "amax": "max",
    "amin": "min",
    "bool_": "bool",
}
# What the standard has (2023.12), as the generated code may call it.
STANDARD = frozenset(
    [
        "abs",
        "acos",
        "acosh",
        "add",
        "asin",
        "asinh",
        "atan",
        "atan2",
        "atanh",
        "bitwise_and",
        "bitwise_invert",
        "bitwise_left_shift",
        "bitwise_or",
        "bitwise_right_shift",
        "bitwise_xor",
        "ceil",
        "clip",
        "conj",
        "copysign",
        "cos",
        "cosh",
        "divide",
        "equal",
        "exp",
        "expm1",
        "floor",
        "floor_divide",
        "greater",
        "greater_equal",
        "hypot",
        "imag",
        "isfinite",
        "isinf",
        "isnan",
        "less",
        "less_equal",
        "log",
        "log1p",
        "log2",
        "log10",
        "logaddexp",
        "logical_and",
        "logical_not",
        "logical_or",
        "logical_xor",
        "maximum",
        "minimum",
        "multiply",
        "negative",
        "not_equal",
        "positive",
        "pow",
        "real",
        "remainder",
        "round",
        "sign",
        "signbit",
        "sin",
        "sinh",
        "square",
        "sqrt",
        "subtract",
        "tan",
        "tanh",
        "trunc",
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "std",
        "var",
        "any",
        "all",
        "argmax",
        "argmin",
        "cumulative_sum",
        "reshape",
        "permute_dims",
        "concat",
        "stack",
        "flip",
        "expand_dims",
        "squeeze",
        "broadcast_to",
        "broadcast_arrays",
        "take",
        "tile",
        "roll",
        "moveaxis",
        "repeat",
        "unstack",
        "where",
        "matmul",
        "tensordot",
        "vecdot",
        "matrix_transpose",
        # The linalg extension: the orthogonal initializer's QR.
        "linalg.qr",
        "asarray",
        "astype",
        "zeros",
        "ones",
        "full",
        "eye",
        "arange",
        "linspace",
        "zeros_like",
        "ones_like",
        "full_like",
        "empty",
        "e",
        "inf",
        "nan",
        "pi",
        "newaxis",
        "float16",
        "float32",
        "float64",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "bool",
    ]
)


_INTEGER = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
_FLOAT = frozenset({"float16", "float32", "float64", "weak_float"})


class AsNumber(sp.Function):
    """A bool mask taken as 0/1 of the statement's float dtype (printing only)."""


class Printer(NumPyCodePrinter):
    """Array API code: ``xp.tanh(x)``, ``x.shape``, ``xp.astype(mask, xp.float32)``.

    >>> import sympy as sp
    >>> from symgrad.ops import functions as F
    >>> x = sp.Symbol("x")
    >>> Printer().doprint(F.ReduceSum(sp.atan(x), sp.Tuple(), sp.Integer(0)))
    'xp.sum(xp.atan(x))'
    """

    # IR nodes whose NumPy rule this printer keeps: those rules print through the hooks this
    # class overrides (``_call``, ``_module_format``, ``_shape``, ``_argument``, ...), so they
    # write the standard's calls. Every other node has a rule of its own here, and a new node
    # must be given one or be listed here (tests/test_layers.py).
    SHARED_RULES = frozenset(
        {
            "Abs",
            "ArgMax",
            "ArgMin",
            "Ceil",
            "Count",
            "DivNoNan",
            "Dot",
            "Equal",
            "Erf",
            "Erfc",
            "Floor",
            "FloorDiv",
            "FloorMod",
            "Greater",
            "HuberGrad",
            "HuberLoss",
            "GreaterEqual",
            "IsFinite",
            "Less",
            "LessEqual",
            "Literal",
            "LogicalAnd",
            "LogicalNot",
            "LogicalOr",
            "LogicalXor",
            "LogisticLoss",
            "MatMulNode",
            "Maximum",
            "Minimum",
            "MulNoNan",
            "NanUnlessFinite",
            "NotEqual",
            "Power",
            "ReduceAll",
            "ReduceAny",
            "ReduceMax",
            "ReduceMean",
            "ReduceMin",
            "ReduceProd",
            "Relu",
            "ReluMask",
            "ShapeOf",
            "Sign",
            "SizeOf",
            "SumToShape",
            "TextbookForm",
            "WeightedLogisticGrad",
            "WeightedLogisticLoss",
            "Xdivy",
            "Xlogy",
            "ZeroOver",
        }
    )

    def __init__(self, table: dict[sp.Symbol, Any] | None = None) -> None:
        super().__init__(table)
        # The dtype of the statement being printed: that of a number with nothing beside it.
        self.statement_dtype = "float64"

    # --- names ---------------------------------------------------------------------------

    def _module_format(self, fqn: str, register: bool = True) -> str:
        if fqn == "numpy":
            return "xp"
        if not fqn.startswith("numpy."):
            return fqn
        name = fqn[len("numpy.") :]
        name = RENAMED.get(name, name)
        if name not in STANDARD:
            raise BackendError(
                f"symgrad: the {BACKEND} backend has no portable form of numpy.{name} "
                f"(the array API standard has no {name}); compile this graph with "
                f'backend="numpy"'
            )
        return f"xp.{name}"

    def _xp(self, name: str) -> str:
        return self._module_format("numpy." + name)

    def _dtype_text(self, dtype: str) -> str:
        name = "float64" if dtype == "weak_float" else "int64" if dtype == "weak_int" else dtype
        return f"xp.{RENAMED.get(name, name)}"

    def _float_literal(self, value: float) -> str:
        text = _float_text(value, self._float_dtype)
        return text.replace("np.", "math.")

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        base, exponent = expr.args
        if self.dtype_of(base) == "bool":
            # A mask squared: the standard raises bools to no power; as 0/1 it can.
            base_text = f"xp.astype({self._print(base)}, xp.{self._float_dtype})"
            return f"{base_text}**{self.parenthesize(exponent, PRECEDENCE['Pow'], strict=False)}"
        if exponent == sp.S.Half and not base.is_Number:
            return f"xp.sqrt({self._print(base)})"
        if exponent == -sp.S.Half and not base.is_Number:
            return f"1/xp.sqrt({self._print(base)})"
        return super()._print_Pow(expr, rational)

    def _print_Infinity(self, expr: Any) -> str:
        return "math.inf"

    def _print_NegativeInfinity(self, expr: Any) -> str:
        return "-math.inf"

    def _print_NaN(self, expr: Any) -> str:
        return "math.nan"

    def _print_Exp1(self, expr: Any) -> str:
        return "math.e"

    def _print_Pi(self, expr: Any) -> str:
        return "math.pi"

    def _print_DTypeLiteral(self, expr: F.DTypeLiteral) -> str:
        return self._dtype_text(expr.name)

    def _print_IndexKey(self, expr: F.IndexKey) -> str:
        return _slice_tuple(expr.name)

    # --- scalars and bools: the standard promotes neither ------------------------------

    def _as_number(self, term: sp.Expr, text: str) -> str:
        if self.dtype_of(term) == "bool":
            return f"xp.astype({self._argument_text(term)}, xp.{self._float_dtype})"
        return text

    def _argument_text(self, expr: sp.Expr) -> str:
        """``expr`` printed as a call's argument: a comparison without its parentheses."""
        text = self._print(expr)
        if isinstance(expr, F._Comparison) and text.startswith("(") and text.endswith(")"):
            return text[1:-1]
        return text

    def _print_AsNumber(self, expr: AsNumber) -> str:
        return f"xp.astype({self._argument_text(expr.args[0])}, xp.{self._float_dtype})"

    def _needs_number(self, whole: sp.Expr, part: sp.Expr) -> bool:
        """Whether ``part`` (a bool mask, or integers in a float expression) must be cast
        first: NumPy promotes across kinds, the standard does not."""
        kind = self.dtype_of(part)
        if kind == "bool":
            return True
        return kind in _INTEGER and self.dtype_of(whole) in _FLOAT

    def _print_Mul(self, expr: sp.Mul) -> str:
        coefficient, rest = expr.as_coeff_Mul()
        factors = sp.Mul.make_args(rest)
        if any(self._needs_number(expr, f) for f in factors):
            numbers = [AsNumber(f) if self._needs_number(expr, f) else f for f in factors]
            if coefficient != 1:
                numbers.insert(0, coefficient)
            return StrPrinter._print_Mul(self, sp.Mul(*numbers, evaluate=False))
        return StrPrinter._print_Mul(self, expr)

    def _print_Add(self, expr: sp.Add, order: str | None = None) -> str:
        terms = sp.Add.make_args(expr)
        if any(self.dtype_of(t) in _INTEGER for t in terms) and self.dtype_of(expr) in _FLOAT:
            cast = [AsNumber(t) if self.dtype_of(t) in _INTEGER else t for t in terms]
            return super()._print_Add(sp.Add(*cast, evaluate=False), order)
        return super()._print_Add(expr, order)

    def is_scalar(self, expr: sp.Expr) -> bool:
        """Whether ``expr`` is a Python number when it runs (no array in it, only sizes)."""
        sizes = expr.atoms(F.SizeOf, F.Count, A.ShapeOf)
        plain = expr.xreplace({a: sp.Integer(1) for a in sizes}) if sizes else expr
        return not any(not isinstance(s, F.Literal) for s in plain.free_symbols)

    def _argument(self, value: sp.Expr, like: list[sp.Expr]) -> str:
        """``value`` as a function argument: a number becomes an array of the other
        arguments' dtype (the standard's functions take arrays only)."""
        if not self.is_scalar(value):
            return self._print(value)
        others = [a for a in like if a is not value and not self.is_scalar(a)]
        dtype = self.dtype_of(others[0]) if others else self.statement_dtype
        literal = (
            value.is_Number
            or value.is_NumberSymbol
            or isinstance(value, sp.logic.boolalg.BooleanAtom)
        )
        if not literal and self.dtype_of(value) not in ("weak_int", "weak_float"):
            dtype = self.dtype_of(value)
        if dtype == "bool":
            text = str(bool(value)) if literal else self._print(value)
            return f"xp.asarray({text}, device=device)"
        dtype = {"weak_float": self._float_dtype, "weak_int": "int64"}.get(dtype, dtype)
        with self.float_context(dtype):
            text = self._print(value)
        if dtype.startswith(("int", "uint")) and value.is_Number:
            text = str(int(value))
        return f"xp.asarray({text}, dtype={self._dtype_text(dtype)}, device=device)"

    def _call(self, name: str, *args: sp.Expr) -> str:
        listed = ", ".join(self._argument(a, list(args)) for a in args)
        return f"{self._xp(name)}({listed})"

    # --- elementwise -------------------------------------------------------------------------

    def _print_Sigmoid(self, expr: F.Sigmoid) -> str:
        x = expr.args[0]
        return f"xp.exp(-xp.logaddexp({self._zero(x)}, {self._print(-x)}))"

    def _print_Softplus(self, expr: F.Softplus) -> str:
        return self._call("logaddexp", sp.Integer(0), expr.args[0])

    def _zero(self, like: sp.Expr) -> str:
        return self._argument(sp.Integer(0), [like])

    def _print_LogWherePositive(self, expr: F.LogWherePositive) -> str:
        x = expr.args[0]
        positive = f"{self.parenthesize(x, PRECEDENCE['Relational'], strict=True)} > 0"
        one = self._argument(sp.Integer(1), [x])
        safe = f"xp.where({positive}, {self._print(x)}, {one})"
        return f"xp.where({positive}, xp.log({safe}), {self._zero(x)})"

    def _print_Where(self, expr: F.Where) -> str:
        condition, x, y = expr.args
        return f"xp.where({self._print(condition)}, {self._argument(x, [y])}, {self._argument(y, [x])})"

    def _print_OneWhere(self, expr: F.OneWhere) -> str:
        return self._print_Where(F.Where(expr.args[0], sp.Integer(1), expr.args[1]))

    def _print__Comparison(self, expr: F._Comparison) -> str:
        # Operators take Python scalars; the functions of the standard do not.
        operator = {
            "greater": ">",
            "greater_equal": ">=",
            "less": "<",
            "less_equal": "<=",
            "equal": "==",
            "not_equal": "!=",
        }[expr.operation]
        a, b = expr.args
        if self.dtype_of(a) == "bool" and b.is_Number:
            b = sp.true if b else sp.false  # a mask compares with True/False, not 1/0
        if a.is_Number and b.is_Number:
            compare = getattr(
                pyoperator,
                {
                    "greater": "gt",
                    "greater_equal": "ge",
                    "less": "lt",
                    "less_equal": "le",
                    "equal": "eq",
                    "not_equal": "ne",
                }[expr.operation],
            )
            return f"xp.asarray({bool(compare(float(a), float(b)))}, device=device)"
        if a.is_Number or a == b:  # (a linter takes ``x >= x`` for a slip)
            return self._call(expr.operation, a, b)
        left = self.parenthesize(a, PRECEDENCE["Relational"], strict=True)
        right = self.parenthesize(b, PRECEDENCE["Relational"], strict=True)
        return f"({left} {operator} {right})"

    def _print_Cast(self, expr: F.Cast) -> str:
        with self.float_context(expr.source):
            value = self._argument_text(expr.args[0])
        target = self._dtype_text(expr.target)
        if expr.args[0].is_Number:
            return f"xp.asarray({value}, dtype={target})"
        return f"xp.astype({value}, {target})"

    def _print_TruncateMod(self, expr: F.TruncateMod) -> str:
        x, y = expr.args
        xt, yt = (self.parenthesize(a, PRECEDENCE["Mul"], strict=True) for a in expr.args)
        if self.dtype_of(x) in _INTEGER or self.dtype_of(y) in _INTEGER:
            # remainder takes the sign of y, fmod that of x: move a remainder whose sign
            # differs from x's back by y.
            remainder = self._call("remainder", x, y)
            return (
                f"({remainder} - xp.where(({remainder} != 0) & (({remainder} < 0) != ({xt} < 0)), "
                f"{self._argument(y, [x])}, {self._argument(sp.Integer(0), [x])}))"
            )
        return f"({xt} - xp.trunc({xt} / {yt}) * {yt})"

    def _print_TruncateDiv(self, expr: F.TruncateDiv) -> str:
        x, y = expr.args
        if self.dtype_of(x).startswith(("int", "uint", "weak_int")):
            xt, yt = (self._argument(a, list(expr.args)) for a in expr.args)
            # floor division of |x| by |y|, with the sign of the quotient: truncation.
            return (
                f"xp.where(({xt} < 0) == ({yt} < 0), xp.floor_divide(xp.abs({xt}), xp.abs({yt})), "
                f"-xp.floor_divide(xp.abs({xt}), xp.abs({yt})))"
            )
        return f"xp.trunc({self.parenthesize(x, PRECEDENCE['Mul'], strict=True)} / {self.parenthesize(y, PRECEDENCE['Mul'], strict=True)})"

    def _guarded(self, expr: sp.Expr, combine: str) -> str:
        x, y = expr.args
        float_name = self.dtype_of(expr)
        float_name = self._float_dtype if float_name not in _FLOAT - {"weak_float"} else float_name

        def number(a: sp.Expr, precedence: int) -> str:
            # A bool operand (a mask) counts as 0/1, as NumPy takes it.
            if self.dtype_of(a) == "bool":
                return f"xp.astype({self._argument_text(a)}, xp.{float_name})"
            return self.parenthesize(a, precedence, strict=False)

        zero_at = x if combine != "div_no_nan" else y
        if zero_at.is_Number and zero_at != 0:  # no guard (xp.where takes no Python bool)
            if combine == "log":
                return f"({number(x, PRECEDENCE['Mul'])}*xp.log({number(y, PRECEDENCE['Lambda'])}))"
            return f"({number(x, PRECEDENCE['Mul'])}/{number(y, PRECEDENCE['Pow'])})"
        if self.dtype_of(zero_at) == "bool":
            test = f"xp.logical_not({self._argument_text(zero_at)})"
        else:
            test = f"({self.parenthesize(zero_at, PRECEDENCE['Relational'], strict=True)} == 0)"
        one = f"xp.asarray(1, dtype=xp.{float_name}, device=device)"
        zero = f"xp.asarray(0, dtype=xp.{float_name}, device=device)"
        safe_y = f"xp.where({test}, {one}, {number(y, PRECEDENCE['Lambda'])})"
        operation = "xp.log(" + safe_y + ")" if combine == "log" else safe_y
        joiner = "*" if combine == "log" else "/"
        value = f"{number(x, PRECEDENCE['Mul'])}{joiner}{operation}"
        return f"xp.where({test}, {zero}, {value})"

    def _print_Relu6(self, expr: F.Relu6) -> str:
        x = expr.args[0]
        low = self._argument(sp.Integer(0), [x])
        high = self._argument(sp.Integer(6), [x])
        return f"xp.minimum(xp.maximum({self._print(x)}, {low}), {high})"

    def _print_Elu(self, expr: F.Elu) -> str:
        x = expr.args[0]
        negative = f"xp.expm1({self._print(F.Minimum(x, 0))})"
        return f"xp.where({self._print(F.Greater(x, 0))}, {self._print(x)}, {negative})"

    def _print_Selu(self, expr: F.Selu) -> str:
        x = expr.args[0]
        scale = self._float_literal(F.SELU_SCALE)
        alpha = self._float_literal(F.SELU_ALPHA)
        negative = f"{alpha}*xp.expm1({self._print(F.Minimum(x, 0))})"
        return f"{scale}*xp.where({self._print(F.Greater(x, 0))}, {self._print(x)}, {negative})"

    def _print_Round(self, expr: F.Round) -> str:
        return f"xp.round({self._print(expr.args[0])})"

    def _print_Piecewise(self, expr: Any) -> str:
        raise BackendError(f"symgrad: the {BACKEND} backend has no portable form of Piecewise")

    # --- reductions, shapes, products ---------------------------------------------------

    def _print_ReduceSum(self, expr: F.ReduceSum) -> str:
        value, axes, keepdims = expr.args
        parts = [self._print(value)]
        if len(axes):
            parts.append(f"axis={_axis_text(axes)}")
        if keepdims:
            parts.append("keepdims=True")
        name = expr.operation
        dtype = self.dtype_of(value)
        if name == "mean" and dtype in F.INTEGER_MEANS:
            return self._integer_mean(expr)
        if name in ("sum", "prod") and dtype in F.NARROW_INTEGERS:
            parts.append(f"dtype=xp.{dtype}")
        if dtype == "bool" and name in ("sum", "mean", "prod"):
            # NumPy counts True as 1; the standard sums numbers only.
            parts[0] = f"xp.astype({parts[0]}, xp.int64)"
            dtype = "int64"
        return f"{self._xp(name)}({', '.join(parts)})"

    def _print_MaybeEmptyReduceMax(self, expr: F.MaybeEmptyReduceMax) -> str:
        # TF's maximum of no elements is the dtype's least value, its minimum the greatest;
        # the standard leaves both undefined (NumPy raises), so a helper answers for an
        # empty batch. Reductions over axes of known, nonzero size print as ``xp.max``.
        value, axes, keepdims = expr.args
        axis = _axis_text(axes) if len(axes) else "None"
        return self._helper_call(
            "reduce_extremum", f'"{expr.operation}"', self._print(value), axis, str(bool(keepdims))
        )

    _print_MaybeEmptyReduceMin = _print_MaybeEmptyReduceMax

    def _shape(self, value: sp.Expr) -> str:
        return f"{self.parenthesize(value, PRECEDENCE['Atom'], strict=True)}.shape"

    def _print_ExpandDims(self, expr: F.ExpandDims) -> str:
        value, axes = expr.args
        text = self._print(value)
        # One axis at a time lands where NumPy puts them all at once (positions in the result)
        # if those counted from the start go in rising order and those from the end from -1.
        given = [int(a) for a in axes]
        ordered = sorted(a for a in given if a >= 0) + sorted(
            (a for a in given if a < 0), reverse=True
        )
        for axis in ordered:
            text = f"xp.expand_dims({text}, axis={axis})"
        return text

    def _print_BroadcastTo(self, expr: F.BroadcastTo) -> str:
        value, static_shape, copy, *witnesses = expr.args
        if witnesses:
            if len(witnesses) == 1:
                shape = self._shape(witnesses[0])
            else:
                listed = ", ".join(self._argument(w, []) for w in witnesses)
                shape = f"xp.broadcast_arrays({listed})[0].shape"
        else:
            dims = [str(int(d)) for d in static_shape]
            shape = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
        text = f"xp.broadcast_to({self._argument(value, [])}, {shape})"
        return f"xp.asarray({text}, copy=True)" if copy else text

    def _helper_call(self, name: str, *texts: str) -> str:
        # The template's helpers take the namespace first. The standard has no erf: its
        # helpers take the namespace's own where it has one (PyTorch's) and read
        # NumPy-backed arrays on the host (see ``_by_math``).
        return super()._helper_call(name, "xp", *texts)

    def _size(self, value: sp.Expr) -> str:
        return f"math.prod({self._shape(value)})"

    def _matrix_transpose(self, value: sp.Expr) -> str:
        return f"xp.matrix_transpose({self._print(value)})"

    def _vdot(self, a: sp.Expr, b: sp.Expr) -> str:
        return f"xp.sum({self.parenthesize(a, PRECEDENCE['Mul'], strict=False)} * {self.parenthesize(b, PRECEDENCE['Mul'], strict=False)})"

    def _print_EinsumNode(self, expr: L.EinsumNode) -> str:
        subscripts, *operands = expr.args
        listed = ", ".join(self._argument(o, list(operands)) for o in operands)
        return f"_einsum(xp, {subscripts}, {listed})"

    def _print_QrQ(self, expr: L.QrQ) -> str:
        # The standard's linalg extension: a (Q, R) named tuple, as NumPy's.
        return f"{self._xp('linalg.qr')}({self._print(expr.args[0])})[0]"

    # --- calls, helpers, literals ----------------------------------------------------------

    def _print_ListOf(self, expr: A.ListOf) -> str:
        items = list(expr.args)
        return "[" + ", ".join(self._argument(a, items) for a in items) + "]"

    def _print_Index(self, expr: A.Index) -> str:
        value, key = expr.args
        if not isinstance(key, F.Literal):
            # Rows picked by an integer array: the standard's take (1-D indices; a helper
            # reshapes others).
            return f"_take(xp, {self._print(value)}, {self._print(key)}, axis=0)"
        text = self._print(key)
        if not isinstance(value, A.ShapeOf) and "..." not in text:
            # The standard indexes every axis or says ``...`` for the rest (NumPy assumes it).
            text = f"{text}, ..." if text.strip() else "..."
        return f"{self.parenthesize(value, PRECEDENCE['Func'], strict=False)}[{text}]"

    def _print_Call(self, expr: A.Call) -> str:
        function, value, *rest = expr.args
        arguments = [self._print(value)] + [self._print(r) for r in rest]
        return PORTABLE_FUNCTIONS[str(function)](self, value, arguments)

    def _print_Helper(self, expr: F.Helper) -> str:
        name, _, *arguments = expr.args
        if str(name) not in KERNELS:
            raise BackendError(
                f"symgrad: the {BACKEND} backend has no portable kernel {name} (the "
                f"backends/array_api/kernels package); compile this graph with "
                f'backend="numpy"'
            )
        return f"{name}(xp, {', '.join(self._print(a) for a in arguments)})"

    _print_Check = _print_Helper

    def _print_CallFunction(self, expr: F.CallFunction) -> str:
        name, *arguments = expr.args
        return f"{name}({', '.join(self._print(a) for a in arguments)})"

    def _print_Branch(self, expr: F.Branch) -> str:
        pred, true_name, false_name, *arguments = expr.args
        listed = ", ".join(self._print(a) for a in arguments)
        test = f'_holds({self._print(pred)}, "{true_name}")'
        return f"({true_name}({listed}) if {test} else {false_name}({listed}))"

    def _print_ItemOf(self, expr: F.ItemOf) -> str:
        value, index, _ = expr.args
        return f"{self._print(value)}[{index}]"

    def _print_Filled(self, expr: A.Filled) -> str:
        value, dtype, *sizes = expr.args
        # The standard's sizes are Python ints; a size computed at run time is a 0-d array.
        listed = [str(s) if s.is_Integer else f"int({self._print(s)})" for s in sizes]
        shape = "(" + ", ".join(listed) + ("," if len(listed) == 1 else "") + ")"
        return f"xp.full({shape}, {value}, dtype=xp.{dtype}, device=device)"

    def _print_Created(self, expr: A.Created) -> str:
        kind, arguments, dtype = expr.args
        return f"{self._xp(str(kind))}({arguments}, dtype={self._print(dtype)}, device=device)"

    def _print_AsArray(self, expr: A.AsArray) -> str:
        # An array made from a shape (the Shape op), a rank or a size: on the inputs' device.
        value, dtype = expr.args
        return f"xp.asarray({self._print(value)}, dtype={self._print(dtype)}, device=device)"

    _print_AsScalar = _print_AsArray

    def _print_RandomDraw(self, expr: R.RandomDraw) -> str:
        numpy = NumPyCodePrinter(self.table)
        numpy._float_dtype = self._float_dtype
        # The draw is NumPy's (Generators are NumPy's); its shape arguments print portably.
        numpy._print_ShapeOf = self._print_ShapeOf  # type: ignore[method-assign]
        text = numpy._print_RandomDraw(expr)
        return f"xp.asarray({text}, device=device)"


def _slice_tuple(key: str) -> str:
    """``1:3, ::2`` as a tuple of ``slice`` objects and ints that helpers can take apart."""
    subscript = ast.parse(f"_[{key}]", mode="eval").body
    assert isinstance(subscript, ast.Subscript)
    items = subscript.slice.elts if isinstance(subscript.slice, ast.Tuple) else [subscript.slice]
    parts = []
    for item in items:
        if isinstance(item, ast.Slice):
            bounds = [
                ast.unparse(b) if b is not None else "None"
                for b in (item.lower, item.upper, item.step)
            ]
            parts.append(f"slice({', '.join(bounds)})")
        else:
            parts.append(ast.unparse(item))
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


# --- the array functions of the IR (symgrad.ops.array_nodes.ARRAY_FUNCTIONS) ----------------

CallRule = Callable[[Printer, sp.Expr, list[str]], str]


def _standard(name: str, axis_at: int | None = None) -> CallRule:
    """The standard's function ``name``, whose ``axis`` (argument ``axis_at`` of the IR's
    call, if given) is keyword-only."""

    def rule(printer: Printer, value: sp.Expr, arguments: list[str]) -> str:
        if axis_at is not None and len(arguments) > axis_at and "=" not in arguments[axis_at]:
            arguments = list(arguments)
            arguments[axis_at] = f"axis={arguments[axis_at]}"
        return f"xp.{name}({', '.join(arguments)})"

    return rule


def _kernel(name: str) -> CallRule:
    """A kernel of this backend that does what the standard has no function for."""

    def rule(printer: Printer, value: sp.Expr, arguments: list[str]) -> str:
        return f"{name}(xp, {', '.join(arguments)})"

    return rule


def _permute_dims(printer: Printer, value: sp.Expr, arguments: list[str]) -> str:
    if len(arguments) == 1:  # NumPy's transpose without axes reverses them
        value_text = printer.parenthesize(value, PRECEDENCE["Atom"], strict=True)
        arguments = [*arguments, f"tuple(range({value_text}.ndim - 1, -1, -1))"]
    return f"xp.permute_dims({', '.join(arguments)})"


def _squeeze(printer: Printer, value: sp.Expr, arguments: list[str]) -> str:
    if arguments[1] == "None":
        # The standard names the axes to drop; with a rank known only at run time they are
        # the size-1 axes of the value that arrives.
        return f"_squeeze_ones(xp, {arguments[0]})"
    return _standard("squeeze", axis_at=1)(printer, value, arguments)


def _rank(printer: Printer, value: sp.Expr, arguments: list[str]) -> str:
    # The standard's arrays say their rank; it has no function for it.
    return f"{printer.parenthesize(value, PRECEDENCE['Atom'], strict=True)}.ndim"


def _size(printer: Printer, value: sp.Expr, arguments: list[str]) -> str:
    # Nor for their number of elements.
    return f"math.prod({printer.parenthesize(value, PRECEDENCE['Atom'], strict=True)}.shape)"


# One rule per array function of the IR.
PORTABLE_FUNCTIONS: dict[str, CallRule] = {
    "broadcast_to": _standard("broadcast_to"),
    "concatenate": _standard("concat", axis_at=1),
    "expand_dims": _standard("expand_dims", axis_at=1),
    "flip": _standard("flip", axis_at=1),
    "ndim": _rank,
    "pad": _kernel("_pad"),
    "reshape": _standard("reshape"),
    "roll": _standard("roll", axis_at=2),  # roll(x, shift, *, axis)
    "size": _size,
    "squeeze": _squeeze,
    "stack": _standard("stack", axis_at=1),
    "take": _kernel("_take"),
    "take_along_axis": _kernel("_take_along_axis"),
    "tile": _standard("tile"),
    "transpose": _permute_dims,
}
