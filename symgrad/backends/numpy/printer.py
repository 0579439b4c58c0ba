"""The NumPy printer: how each SymPy node and each of symgrad's IR nodes reads as NumPy.

Every node of the IR prints here, in a ``_print_<Node>`` method (the nodes carry no
printing of their own), so another backend brings its own printer and touches
nothing else. Dtypes are kept exact: float literals are printed in the precision of
the statement they appear in (NumPy converts a Python float to the array's dtype),
and a statement whose expression NumPy would evaluate in another dtype gets an
explicit conversion.
"""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from ...dtypes import DType
from ...expression_dtypes import expression_dtype
from ...ops import array_nodes as A
from ...ops import functions as F
from ...ops import linalg as L
from ...ops import random_ops as R


def _call(printer: Any, fn: str, *args: Any) -> str:
    return f"{printer._module_format('numpy.' + fn)}({', '.join(printer._print(a) for a in args)})"


def _np(printer: Any, name: str) -> str:
    return printer._module_format("numpy." + name)


def _same_as(rule: str) -> Callable[[Any, Any], str]:
    """A print rule that defers to the printer's ``rule``: a subclass that overrides ``rule``
    then prints the aliases its way too (a plain alias would keep this class's function)."""

    def print_rule(printer: Any, expr: Any) -> str:
        return str(getattr(printer, rule)(expr))

    return print_rule


def _axis_text(axes: sp.Tuple) -> str:
    items = [str(int(a)) for a in axes]
    return items[0] if len(items) == 1 else "(" + ", ".join(items) + ")"


# How generated modules name NumPy (``import numpy as np``).
MODULE_ALIAS = "np"
# NumPy's function for each array function of the IR (symgrad.ops.array_nodes.ARRAY_FUNCTIONS).
NUMPY_FUNCTIONS = {name: name for name in A.ARRAY_FUNCTIONS}
ARRAY_LITERAL_LIMIT = 64  # larger constants are stored as base64 bytes


_INTEGER_DTYPES = frozenset(
    ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
)


def _constant_math(expr: Any) -> bool:
    """A SymPy function or root of numbers alone (``exp(2)``, ``sqrt(2)``) with a real value."""
    if not isinstance(expr, sp.Expr) or not expr.is_number or expr.is_Atom:
        return False
    if isinstance(expr, sp.Function):
        plain = type(expr).__module__.startswith("sympy.")  # symgrad's nodes print themselves
    else:
        plain = isinstance(expr, sp.Pow) and not expr.exp.is_Integer
    return plain and expr.is_extended_real is True


class Printer(NumPyPrinter):
    """NumPy code as a person would write it: ``np.tanh(x)``, ``x/32``, ``x**2``.

    >>> import sympy as sp
    >>> from symgrad.ops import functions as F
    >>> x = sp.Symbol("x")
    >>> Printer().doprint(F.ReduceSum(F.Sigmoid(x), sp.Tuple(), sp.Integer(0)))
    'np.sum(_sigmoid(x))'
    """

    def __init__(self, table: dict[sp.Symbol, Any] | None = None) -> None:
        super().__init__({"fully_qualified_modules": False, "allow_unknown_functions": False})
        self._float_dtype = "float64"
        self._integer_dtype: str | None = None
        # Names the fast form knows hold ndarrays: their reductions print as methods,
        # ``a.sum()``, which skip the dispatch ``np.sum`` adds (about 2 µs a call).
        self.arrays: set[sp.Symbol] = set()
        self.table = table or {}

    @property
    def table(self) -> dict[sp.Symbol, Any]:
        return self._table

    @table.setter
    def table(self, table: dict[sp.Symbol, Any]) -> None:
        self._table = table
        self._dtypes: dict[sp.Expr, str] = {}  # expression_dtype of what was printed, per table

    def dtype_of(self, expr: sp.Expr) -> str:
        return expression_dtype(expr, self._table, self._dtypes)

    def _as_number(self, term: sp.Expr, text: str) -> str:
        """A bool mask as 0/1 of the current float dtype: NumPy adds bools as logical or."""
        if self.dtype_of(term) == "bool":
            return f"np.{self._float_dtype}({text})"
        return text

    @contextlib.contextmanager
    def float_context(self, dtype_name: str) -> Iterator[None]:
        """Print numbers for an expression of ``dtype_name``: floats in that precision, and
        integers that SymPy folded past that integer dtype's range wrapped round, as TF's
        integer kernels wrap (``int16(300) * int16(300)`` is 24464)."""
        saved = self._float_dtype, self._integer_dtype
        self._float_dtype = dtype_name if dtype_name in ("float16", "float32") else "float64"
        self._integer_dtype = dtype_name if dtype_name in _INTEGER_DTYPES else None
        try:
            yield
        finally:
            self._float_dtype, self._integer_dtype = saved

    def _print_Integer(self, expr: sp.Integer) -> str:
        value = int(expr)
        if self._integer_dtype is not None:
            limits = np.iinfo(self._integer_dtype)
            if not limits.min <= value <= limits.max:
                span = int(limits.max) - int(limits.min) + 1
                value = (value - int(limits.min)) % span + int(limits.min)
        return str(value)

    def _module_format(self, fqn: str, register: bool = True) -> str:
        if fqn == "numpy":
            return "np"
        return "np." + fqn[len("numpy.") :] if fqn.startswith("numpy.") else fqn

    def _float_literal(self, value: float) -> str:
        return _float_text(value, self._float_dtype)

    # Hooks another backend's printer overrides where it spells the same thing differently.

    def _call(self, name: str, *args: sp.Expr) -> str:
        """``np.<name>(args)``: NumPy's functions take Python numbers as they are."""
        return _call(self, name, *args)

    def _shape(self, value: sp.Expr) -> str:
        return f"{_np(self, 'shape')}({self._print(value)})"

    def _size(self, value: sp.Expr) -> str:
        return f"{_np(self, 'size')}({self._print(value)})"

    def _matrix_transpose(self, value: sp.Expr) -> str:
        """The last two axes of ``value`` swapped (its rank is above 2)."""
        return f"{self._module_format('numpy.swapaxes')}({self._print(value)}, -1, -2)"

    def _helper_call(self, name: str, *texts: str) -> str:
        """A call of the kernel ``_<name>``, which the module then defines (backends/kernels.py)."""
        return f"_{name}({', '.join(texts)})"

    def _vdot(self, a: sp.Expr, b: sp.Expr) -> str:
        """The sum of ``a * b`` over all elements (both of rank above 1)."""
        return _call(self, "vdot", a, b)

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if _constant_math(expr):
            # exp(2), log(3), sqrt(2): the number itself. A call on a Python number would
            # give a float64 scalar, which makes a float32 array it meets float64 (NumPy 2's
            # promotion), where TF computes in float32; the standard's functions take no
            # numbers at all.
            return self._float_literal(float(expr))
        return super()._print(expr, **kwargs)

    def _print_Float(self, expr: sp.Float) -> str:
        return self._float_literal(float(expr))

    def _print_Rational(self, expr: sp.Rational) -> str:
        return f"{expr.p}/{expr.q}"

    _print_Half = _print_Rational

    def _print_Add(self, expr: sp.Add, order: str | None = None) -> str:
        """SymPy's term order, but subtracted terms last: ``y - x*w``, not ``-x*w + y``."""
        terms = self._as_ordered_terms(expr, order=order)
        positive = [t for t in terms if not t.could_extract_minus_sign()]
        negative = [t for t in terms if t.could_extract_minus_sign()]
        parts: list[str] = []
        for term in positive + negative:
            shown = -term if term in negative else term
            text = self._as_number(shown, self.parenthesize(shown, PRECEDENCE["Add"], strict=False))
            if term in negative:
                parts.append(f"- {text}" if parts else f"-{text}")
            else:
                parts.append(f"+ {text}" if parts else text)
        return " ".join(parts)

    def _print_Mul(self, expr: sp.Mul) -> str:
        # as_coeff_Mul, not as_coeff_mul: a Float coefficient (0.2 * mask) is one too.
        coefficient, rest = expr.as_coeff_Mul()
        factors = sp.Mul.make_args(rest)
        if all(self.dtype_of(f) == "bool" for f in factors):
            # Only masks: -mask or 2*mask would negate or scale bools; make them numbers first.
            masks = [self._as_number(f, self._print(f)) for f in factors]
            return (
                "*".join(([] if coefficient == 1 else [self._print(coefficient)]) + masks)
                if coefficient != -1
                else "-" + "*".join(masks)
            )
        if coefficient.is_negative and any(self.dtype_of(f) == "bool" for f in factors):
            # ``-mask * x`` would negate the bool mask first, which NumPy refuses.
            return f"-({self._print(-expr)})"
        return StrPrinter._print_Mul(self, expr)

    def parenthesize(self, item: Any, level: int, strict: bool = False) -> str:
        """SymPy's rule, except that ``x**-1`` and ``x**-0.5`` print as divisions (``1/x``), which
        bind like ``*`` and ``@``: ``a @ (1/x)`` must keep its parentheses."""
        if isinstance(item, sp.Pow) and item.exp in (-1, -sp.S.Half) and not item.base.is_Number:
            if PRECEDENCE["Mul"] < level or (not strict and PRECEDENCE["Mul"] <= level):
                return f"({self._print(item)})"
            return self._print(item)
        return super().parenthesize(item, level, strict)

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        base, exponent = expr.args
        if base.is_Number and exponent.is_Rational:
            # sqrt(2 * x) becomes sqrt(2) * sqrt(x): np.sqrt(2) would be a float64 that makes a
            # float32 statement float64; a Python number keeps the statement's dtype.
            return self._float_literal(float(expr))
        if exponent == sp.S.Half:
            return f"np.sqrt({self._print(base)})"
        if exponent == -sp.S.Half:
            return f"1/np.sqrt({self._print(base)})"
        if exponent == -1:
            return f"1/{self.parenthesize(base, PRECEDENCE['Mul'], strict=True)}"
        # parenthesize(strict=False) wraps precedence <= Pow: ``**`` groups to the right.
        base_text = self.parenthesize(base, PRECEDENCE["Pow"], strict=False)
        if exponent.is_Integer:
            exponent_text = str(exponent) if exponent > 0 else f"({exponent})"
        elif exponent.is_Rational:
            exponent_text = self._float_literal(float(exponent))
            exponent_text = exponent_text if float(exponent) > 0 else f"({exponent_text})"
        else:
            exponent_text = self.parenthesize(exponent, PRECEDENCE["Pow"], strict=False)
        return f"{base_text}**{exponent_text}"

    def _print_Infinity(self, expr: Any) -> str:
        return "np.inf"

    def _print_NegativeInfinity(self, expr: Any) -> str:
        return "-np.inf"

    def _print_NaN(self, expr: Any) -> str:
        return "np.nan"

    def _print_Exp1(self, expr: Any) -> str:
        return "np.e"

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        return expr.name  # names are sanitised identifiers already (naming.py)

    # --- symgrad's IR nodes (symgrad.ops.functions, array_nodes, linalg) --------------------

    def _print_Sigmoid(self, expr: F.Sigmoid) -> str:
        return self._helper_call("sigmoid", self._print(expr.args[0]))

    def _print_Softplus(self, expr: F.Softplus) -> str:
        return self._helper_call("softplus", self._print(expr.args[0]))

    def _print_Power(self, expr: F.Power) -> str:
        x, y = expr.args
        return (
            f"{self.parenthesize(x, PRECEDENCE['Pow'], strict=False)}"
            f"**{self.parenthesize(y, PRECEDENCE['Pow'], strict=False)}"
        )

    def _print_LogWherePositive(self, expr: F.LogWherePositive) -> str:
        x = self._print(expr.args[0])
        np_ = self._module_format("numpy")
        return f"{np_}.where({x} > 0, {np_}.log({np_}.where({x} > 0, {x}, 1)), 0)"

    def _print_Relu(self, expr: F.Relu) -> str:
        return self._call("maximum", expr.args[0], sp.Integer(0))

    def _print_Maximum(self, expr: F.Maximum) -> str:
        return self._call("maximum", *expr.args)

    def _print_Minimum(self, expr: F.Minimum) -> str:
        return self._call("minimum", *expr.args)

    def _print_Where(self, expr: F.Where) -> str:
        return _call(self, "where", *expr.args)

    def _print_OneWhere(self, expr: F.OneWhere) -> str:
        return _call(self, "where", expr.args[0], 1, expr.args[1])

    def _print_ZeroOver(self, expr: F.ZeroOver) -> str:
        return f"0 / {self.parenthesize(expr.args[0], PRECEDENCE['Mul'], strict=True)}"

    def _print_NanUnlessFinite(self, expr: F.NanUnlessFinite) -> str:
        if len(expr.args) == 1:
            return f"0 * {self.parenthesize(expr.args[0], PRECEDENCE['Mul'], strict=True)}"
        total = " + ".join(self.parenthesize(a, PRECEDENCE["Add"], strict=False) for a in expr.args)
        return f"0 * ({total})"

    def _print_LogicalNot(self, expr: F.LogicalNot) -> str:
        return self._call("logical_not", expr.args[0])

    def _print_Round(self, expr: F.Round) -> str:
        return _call(self, "round", expr.args[0])

    def _print_Floor(self, expr: F.Floor) -> str:
        return self._call("floor", expr.args[0])

    def _print_Abs(self, expr: F.Abs) -> str:
        return self._call("abs", expr.args[0])

    def _print_Sign(self, expr: F.Sign) -> str:
        return self._call("sign", expr.args[0])

    def _print__Comparison(self, expr: F._Comparison) -> str:
        return _call(self, expr.operation, *expr.args)

    def _print_IsFinite(self, expr: F.IsFinite) -> str:
        return self._call("isfinite", expr.args[0])

    def _print_Cast(self, expr: F.Cast) -> str:
        with self.float_context(expr.source):
            value = self._print(expr.args[0])
        if expr.args[0].is_Number and expr.target != "bool":
            return f"{self._module_format('numpy.' + expr.target)}({value})"
        return (
            f"{self._module_format('numpy.asarray')}({value}, "
            f"dtype={self._module_format('numpy.' + expr.target)})"
        )

    def _print_ReduceSum(self, expr: F.ReduceSum) -> str:
        value, axes, keepdims = expr.args
        text = self._print(value)
        parts = [text]
        if len(axes):
            parts.append(f"axis={_axis_text(axes)}")
        if keepdims:
            parts.append("keepdims=True")
        if expr.operation == "mean" and self.dtype_of(value) in F.INTEGER_MEANS:
            return self._integer_mean(expr)
        if expr.operation in ("sum", "prod") and self.dtype_of(value) in F.NARROW_INTEGERS:
            parts.append(f"dtype={self._module_format('numpy.' + self.dtype_of(value))}")
        identity = _empty_reduction(expr.operation, self.dtype_of(value))
        if identity:
            # TF's max of no elements is -inf (the dtype's least value for integers), its
            # min +inf; NumPy raises on an empty batch unless given that value.
            parts.append(f"initial={identity}")
        if value in self.arrays:
            return f"{text}.{expr.operation}({', '.join(parts[1:])})"
        return f"{self._module_format('numpy.' + expr.operation)}({', '.join(parts)})"

    def _integer_mean(self, expr: F.ReduceSum) -> str:
        """TF's mean of integers (NumPy's is a float, NaN for no elements)."""
        value, axes, keepdims = expr.args
        axis = _axis_text(axes) if len(axes) else "None"
        return self._helper_call("integer_mean", self._print(value), axis, str(bool(keepdims)))

    def _print_SumToShape(self, expr: F.SumToShape) -> str:
        g, like = expr.args
        return self._helper_call("sum_to_shape", self._print(g), self._shape(like))

    def _print_ExpandDims(self, expr: F.ExpandDims) -> str:
        value, axes = expr.args
        return (
            f"{self._module_format('numpy.expand_dims')}({self._print(value)}, {_axis_text(axes)})"
        )

    def _print_BroadcastTo(self, expr: F.BroadcastTo) -> str:
        value, static_shape, copy, *witnesses = expr.args
        np_shape = self._module_format("numpy.shape")
        if witnesses:
            shapes = [f"{np_shape}({self._print(w)})" for w in witnesses]
            shape = (
                shapes[0]
                if len(shapes) == 1
                else (f"{self._module_format('numpy.broadcast_shapes')}({', '.join(shapes)})")
            )
        else:
            dims = [str(int(d)) for d in static_shape]
            shape = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
        text = f"{self._module_format('numpy.broadcast_to')}({self._print(value)}, {shape})"
        return f"{text}.copy()" if copy else text

    def _print_SizeOf(self, expr: F.SizeOf) -> str:
        value, axes = expr.args
        if not len(axes):
            count = self._size(value)
        else:
            shape = self._shape(value)
            count = " * ".join(f"{shape}[{int(a)}]" for a in axes)
        return f"max({count}, 1)"

    def _print_Count(self, expr: F.Count) -> str:
        return self._size(expr.args[0])

    def _print_MatMulNode(self, expr: F.MatMulNode) -> str:
        a, b, transpose_a, transpose_b, rank_a, rank_b = expr.args

        def operand(value: sp.Expr, transpose: Any, rank: Any) -> str:
            if not transpose:
                return self.parenthesize(value, PRECEDENCE["Mul"], strict=False)
            if int(rank) == 2:
                if isinstance(value, A.Index):  # a subscript binds as tightly as ``.T``
                    return f"{self._print(value)}.T"
                return f"{self.parenthesize(value, PRECEDENCE['Atom'], strict=True)}.T"
            return self._matrix_transpose(value)

        return f"{operand(a, transpose_a, rank_a)} @ {operand(b, transpose_b, rank_b)}"

    def _print_Dot(self, expr: F.Dot) -> str:
        a, b, rank = expr.args
        if int(rank) == 1:
            # ``a*b @ c`` would read ambiguously and ``a @ b*c`` means ``(a @ b)*c``.
            left = self.parenthesize(a, PRECEDENCE["Mul"], strict=False)
            right = self.parenthesize(b, PRECEDENCE["Mul"], strict=False)
            return f"{left} @ {right}"
        return self._vdot(a, b)

    def _print_Helper(self, expr: F.Helper) -> str:
        name, _, *arguments = expr.args
        return f"{name}({', '.join(self._print(a) for a in arguments)})"

    _print_Check = _same_as("_print_Helper")

    def _print_CallFunction(self, expr: F.CallFunction) -> str:
        name, *arguments = expr.args
        return f"{name}({', '.join(self._print(a) for a in arguments)})"

    def _print_Branch(self, expr: F.Branch) -> str:
        pred, true_name, false_name, *arguments = expr.args
        listed = ", ".join(self._print(a) for a in arguments)
        return f"({true_name}({listed}) if {self._print(pred)} else {false_name}({listed}))"

    def _print_ItemOf(self, expr: F.ItemOf) -> str:
        value, index, _ = expr.args
        return f"{self._print(value)}[{index}]"

    def _print_Call(self, expr: A.Call) -> str:
        function, value, *rest = expr.args
        arguments = [self._print(value)] + [self._print(r) for r in rest]
        return f"{_np(self, NUMPY_FUNCTIONS[str(function)])}({', '.join(arguments)})"

    def _print_AsArray(self, expr: A.AsArray) -> str:
        value, dtype = expr.args
        return f"{_np(self, 'array')}({self._print(value)}, dtype={self._print(dtype)})"

    def _print_AsScalar(self, expr: A.AsScalar) -> str:
        value, dtype = expr.args
        return f"{self._print(dtype)}({self._print(value)})"

    def _print_DTypeLiteral(self, expr: F.DTypeLiteral) -> str:
        return _np(self, "bool_" if expr.name == "bool" else expr.name)

    def _print_IndexKey(self, expr: F.IndexKey) -> str:
        return f"{_np(self, 's_')}[{expr.name}]"

    def _print_ShapeOf(self, expr: A.ShapeOf) -> str:
        return self._shape(expr.args[0])

    def _print_Index(self, expr: A.Index) -> str:
        value, key = expr.args
        return f"{self.parenthesize(value, PRECEDENCE['Func'], strict=False)}[{self._print(key)}]"

    def _print_ListOf(self, expr: A.ListOf) -> str:
        return "[" + ", ".join(self._print(a) for a in expr.args) + "]"

    def _print_Filled(self, expr: A.Filled) -> str:
        value, dtype, *sizes = expr.args
        listed = [self._print(s) for s in sizes]
        shape = "(" + ", ".join(listed) + ("," if len(listed) == 1 else "") + ")"
        return f"{self._module_format('numpy.full')}({shape}, {value}, dtype=np.{dtype})"

    def _print_Created(self, expr: A.Created) -> str:
        kind, arguments, dtype = expr.args
        return f"{_np(self, str(kind))}({arguments}, dtype={self._print(dtype)})"

    def _print_EinsumNode(self, expr: L.EinsumNode) -> str:
        subscripts, *operands = expr.args
        listed = ", ".join(self._print(o) for o in operands)
        return f"{self._module_format('numpy.einsum')}({subscripts}, {listed})"

    def _print_QrQ(self, expr: L.QrQ) -> str:
        return f"{self._module_format('numpy.linalg.qr')}({self._print(expr.args[0])})[0]"

    def _print_RandomDraw(self, expr: R.RandomDraw) -> str:
        stream, kind, dtype, size, *rest = expr.args
        generator = f"rng[{int(stream)}]"
        name = str(dtype)
        # Generator draws float32 and float64 only: a float16 draw is a float32 one, rounded.
        drawn = "float32" if name == "float16" else name
        after = f".astype({_np(self, name)})" if drawn != name else ""
        kind = str(kind)
        if kind == "permutation":
            return f"{generator}.permutation({self._print(rest[0])})"
        if kind in ("log_uniform_candidates", "uniform_candidates", "unigram_candidates"):
            return f"_{kind}({generator}, {', '.join(self._print(r) for r in rest)})"
        if kind in ("truncated_normal", "categorical"):
            operands = [self._print(r) for r in rest] if rest else [self._print(size)]
            return f"_{kind}({generator}, {', '.join(operands)}, {_np(self, name)})"
        if kind == "integers":
            low, high = (self._print(r) for r in rest)
            return (
                f"{generator}.integers({low}, {high}, {self._print(size)}, dtype={_np(self, name)})"
            )
        method = {"normal": "standard_normal", "uniform": "random"}[kind]
        return f"{generator}.{method}({self._print(size)}, dtype={_np(self, drawn)}){after}"

    # --- elementwise math, activations, logical ops, argmax ---

    # NumPy has no erf: the module's helpers apply the C library's (math.erf, within 1 ulp).
    def _print_TextbookForm(self, expr: F.TextbookForm) -> str:
        """A loss as TF evaluates it: its kernel, or its textbook form where that is TF's."""
        if not expr.kernel:
            return self._print(expr.textbook())
        return self._helper_call(expr.kernel, *(self._print(a) for a in expr.args))

    _print_LogisticLoss = _print_HuberLoss = _print_HuberGrad = _print_TextbookForm
    _print_WeightedLogisticLoss = _print_WeightedLogisticGrad = _print_TextbookForm

    def _print_Erf(self, expr: F.Erf) -> str:
        return self._helper_call("erf", self._print(expr.args[0]))

    def _print_Erfc(self, expr: F.Erfc) -> str:
        return self._helper_call("erfc", self._print(expr.args[0]))

    def _print_Ceil(self, expr: F.Ceil) -> str:
        return self._call("ceil", expr.args[0])

    def _print_FloorDiv(self, expr: F.FloorDiv) -> str:
        return self._call("floor_divide", *expr.args)

    def _print_FloorMod(self, expr: F.FloorMod) -> str:
        return self._call("mod", *expr.args)

    def _print_TruncateMod(self, expr: F.TruncateMod) -> str:
        return _call(self, "fmod", *expr.args)

    def _print_TruncateDiv(self, expr: F.TruncateDiv) -> str:
        # x - fmod(x, y) is an exact multiple of y: floor division of it truncates x / y.
        x, y = (self.parenthesize(a, PRECEDENCE["Mul"], strict=True) for a in expr.args)
        return f"({x} - {_call(self, 'fmod', *expr.args)}) // {y}"

    def _guarded(self, expr: sp.Expr, combine: str) -> str:
        """``x <combine> y`` where x (Xlogy, Xdivy) or y (DivNoNan) is not 0, else 0; the other
        branch sees 1 in place of y, so np.where discards no inf or NaN and NumPy warns of none."""
        x, y = expr.args
        zero_at = x if combine != "div_no_nan" else y
        np_ = self._module_format("numpy")
        test = f"{_call(self, 'equal', zero_at, 0)}"
        # A nonzero number needs no guard: np.where would make it an int64 (float64) array,
        # which widens a float32 (float16) operand to float64.
        guard = not (y.is_Number and y != 0)
        safe_y = f"{np_}.where({test}, 1, {self._print(y)})" if guard else self._print(y)
        if combine == "log":
            value = f"{self.parenthesize(x, PRECEDENCE['Mul'], strict=False)}*{np_}.log({safe_y})"
        else:
            value = f"{self.parenthesize(x, PRECEDENCE['Mul'], strict=False)}/{safe_y}"
        if zero_at.is_Number and zero_at != 0:
            return f"({value})"
        return f"{np_}.where({test}, 0, {value})"

    def _print_Xlogy(self, expr: F.Xlogy) -> str:
        return self._guarded(expr, "log")

    def _print_Xdivy(self, expr: F.Xdivy) -> str:
        return self._guarded(expr, "div")

    def _print_DivNoNan(self, expr: F.DivNoNan) -> str:
        return self._guarded(expr, "div_no_nan")

    def _print_MulNoNan(self, expr: F.MulNoNan) -> str:
        # x is replaced by 0 where y is 0: the product is 0 there, with no inf * 0 to warn of.
        x, y = expr.args
        return self._print(sp.Mul(F.Where(F.Equal(y, 0), 0, x), y, evaluate=False))

    def _print_Relu6(self, expr: F.Relu6) -> str:
        return _call(self, "clip", expr.args[0], 0, 6)

    def _print_Elu(self, expr: F.Elu) -> str:
        # expm1 of the negative part only: no overflow warning for large positive x.
        x = expr.args[0]
        negative = _call(self, "expm1", F.Minimum(x, 0))
        return f"{_np(self, 'where')}({self._print(F.Greater(x, 0))}, {self._print(x)}, {negative})"

    def _print_Selu(self, expr: F.Selu) -> str:
        x = expr.args[0]
        np_ = self._module_format("numpy")
        scale = self._float_literal(F.SELU_SCALE)
        alpha = self._float_literal(F.SELU_ALPHA)
        negative = f"{alpha}*{_call(self, 'expm1', F.Minimum(x, 0))}"
        return f"{scale}*{np_}.where({self._print(F.Greater(x, 0))}, {self._print(x)}, {negative})"

    def _print__Logical(self, expr: F._Logical) -> str:
        return self._call(expr.operation, *expr.args)

    def _print_ArgMax(self, expr: F.ArgMax) -> str:
        value, axis = expr.args
        return f"{_np(self, expr.operation)}({self._print(value)}, axis={int(axis)})"

    # SymPy looks up ``_print_<class name>`` for the concrete class only (not for a
    # Function's intermediate base classes), so subclasses name their base's rule.
    _print_ArgMin = _same_as("_print_ArgMax")
    _print_LogicalAnd = _same_as("_print__Logical")
    _print_LogicalOr = _same_as("_print__Logical")
    _print_LogicalXor = _same_as("_print__Logical")
    _print_ReduceAny = _same_as("_print_ReduceSum")
    _print_ReduceAll = _same_as("_print_ReduceSum")
    _print_ReduceMean = _same_as("_print_ReduceSum")
    _print_ReduceMax = _same_as("_print_ReduceSum")
    _print_ReduceMin = _same_as("_print_ReduceSum")
    _print_MaybeEmptyReduceMax = _same_as("_print_ReduceSum")  # ``initial=`` covers no elements
    _print_MaybeEmptyReduceMin = _same_as("_print_ReduceSum")
    _print_ReduceProd = _same_as("_print_ReduceSum")
    _print_Greater = _same_as("_print__Comparison")
    _print_ReluMask = _same_as("_print__Comparison")
    _print_GreaterEqual = _same_as("_print__Comparison")
    _print_Less = _same_as("_print__Comparison")
    _print_LessEqual = _same_as("_print__Comparison")
    _print_Equal = _same_as("_print__Comparison")
    _print_NotEqual = _same_as("_print__Comparison")


class FormulaPrinter(StrPrinter):
    """SymPy's text of a formula, with structural nodes as the generated code writes them.

    ``CompiledModule.explain`` uses it: ``sum(x*w)`` rather than ``ReduceSum(x*w, (), 0)``.
    """

    def _print_Function(self, expr: sp.Function) -> str:
        # SymPy dispatches on the concrete class only (``_print_ReduceSum``), so the one rule
        # for every structural node hooks in here.
        if isinstance(expr, F._Structural):
            return Printer().doprint(expr).replace("np.", "")
        return super()._print_Function(expr)


def formula_text(expr: sp.Expr) -> str:
    """``expr`` as text, structural nodes written like NumPy without ``np.``."""
    return FormulaPrinter().doprint(expr)


def _empty_reduction(reduction: str, dtype: str) -> str | None:
    """What TF's ``reduce_max``/``reduce_min`` of no elements gives, as code (None: no rule)."""
    if reduction not in ("max", "min"):
        return None
    if dtype in ("float16", "float32", "float64", "weak_float"):
        return "-np.inf" if reduction == "max" else "np.inf"
    if dtype in ("int32", "int64", "weak_int"):
        integer = "int64" if dtype == "weak_int" else dtype
        return f"np.iinfo(np.{integer}).{'min' if reduction == 'max' else 'max'}"
    return None


def _shape_literal(shape: Any) -> str:
    if shape is None:
        return "None"
    items = ", ".join("None" if d is None else str(d) for d in shape)
    return "(" + items + ("," if len(shape) == 1 else "") + ")"


def _numpy_dtype(dtype: DType | str) -> str:
    name = dtype.name if isinstance(dtype, DType) else dtype
    return "np.bool_" if name == "bool" else f"np.{name}"


def _float_text(value: float, dtype_name: str) -> str:
    if not np.isfinite(value):
        return "np.nan" if np.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value) if dtype_name == "float64" else str(np.dtype(dtype_name).type(value))


def _filled_literal(value: np.ndarray, dtype: DType) -> str | None:
    """A constant whose elements are all the same bits (an optimizer's zero-filled slots, a
    bias of 0.1 everywhere) as ``np.zeros``/``np.full`` of its shape: a line instead of its
    bytes in base64 (4 MB of text for Adam's slot of an 800K-weight layer). None if the
    elements differ, or if the one value would not print back to the same bits (a NaN
    with a payload, a complex number)."""
    flat = np.ascontiguousarray(value).reshape(-1)
    if not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
        return None
    bits = flat.view(np.uint8).reshape(flat.size, -1)
    if not (bits == bits[0]).all():
        return None
    first = flat[0]
    shape = _shape_literal(value.shape)
    if dtype.is_floating:
        text = _float_text(float(first), dtype.name)
        special = {"np.nan": np.nan, "np.inf": np.inf, "-np.inf": -np.inf}
        number = special[text] if text in special else float(text)
        if np.full(1, number, dtype=value.dtype).view(np.uint8).tobytes() != bits[0].tobytes():
            return None
        if text == "0.0":
            return f"np.zeros({shape}, dtype={_numpy_dtype(dtype)})"
    else:
        text = repr(first.item())
    return f"np.full({shape}, {text}, dtype={_numpy_dtype(dtype)})"


def _array_literal(value: np.ndarray, dtype: DType) -> str:
    if value.size == 0:  # a nested list of no numbers would lose the dims after the empty one
        return f"np.zeros({_shape_literal(value.shape)}, dtype={_numpy_dtype(dtype)})"
    if value.size <= ARRAY_LITERAL_LIMIT:
        if dtype.is_floating:
            items = np.vectorize(lambda v: _float_text(float(v), dtype.name), otypes=[object])(
                value
            ).tolist()
        else:
            items = value.tolist()
        text = repr(items).replace("'", "")
        return f"np.array({text}, dtype={_numpy_dtype(dtype)})"
    filled = _filled_literal(value, dtype)
    if filled is not None:
        return filled
    data = base64.b64encode(
        np.ascontiguousarray(value).astype(value.dtype.newbyteorder("<")).tobytes()
    )
    shape = "(" + ", ".join(str(d) for d in value.shape) + ("," if value.ndim == 1 else "") + ")"
    return (
        f'np.frombuffer(base64.b64decode(\n    "{data.decode()}"), '
        f'dtype=np.dtype({_numpy_dtype(dtype)}).newbyteorder("<")).reshape({shape}).astype({_numpy_dtype(dtype)})'
    )


def print_statement(
    printer: Printer, expr: sp.Expr, dtype: Any, table: dict[sp.Symbol, Any], convert: bool = True
) -> str:
    name = dtype if isinstance(dtype, str) else dtype.name
    with printer.float_context(name):
        text = printer.doprint(expr)
    if (
        convert
        and (printer.dtype_of(expr) if printer.table is table else expression_dtype(expr, table))
        != name
    ):
        text = f"np.asarray({text}, dtype={_numpy_dtype(dtype)})"
    return text
