"""Formulas as a person writes them on a whiteboard, derived from a Program for display only.

The Program that runs keeps its plumbing: unbroadcasting (``_sum_to_shape``),
materialised broadcasts, run-time sizes, and the special-point branches of the
numerically stable forms (``where(z >= 0, ...)``). None of that is what a person
writes, so this module derives, for reading only:

- plumbing hidden: broadcasts and no-op unbroadcasts dropped, a real unbroadcast
  shown as the ``sum`` it is, ``size(...)`` as ``N`` (the batch size); the shape of
  each formula is shown once, beside it;
- branches folded back to the function they implement: where both branches of a
  ``where(c, ...)`` compute one smooth function, one branch stands for both, and
  the stable spellings read ``softmax(z)``, ``log_softmax(z)``, ``onehot(y)``;
- intermediates named before they are used: layers ``z = x @ W + b`` and their
  activations ``h = tanh(z)``, and in deeper models the backpropagated errors
  ``d_z2``;
- scalars pulled out of matrix products and sums, and constants shown as the user
  wrote them (``0.005``, not ``0.00499999988824129``).

Every step works on SymPy expressions (``xreplace``/``replace``), and the result is
printed by subclasses of SymPy's ``StrPrinter`` and ``LatexPrinter``. Before a display
is returned it is evaluated with NumPy on random inputs of two batch sizes and
compared with the Program's own values: a display that does not reproduce every
output is never shown (the caller falls back to the verbose formulas).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float64, [None, 3], name="x")
...     y = sg.placeholder(sg.float64, [None, 1], name="y")
...     W = sg.Variable([[0.0]] * 3, dtype=sg.float64, name="W")
...     b = sg.Variable([0.0], dtype=sg.float64, name="b")
...     z = sg.matmul(x, W) + b
...     loss = sg.reduce_mean(sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z))
...     f = sg.compile({"dW": sg.gradients(loss, W)[0]}, name="logistic")
>>> print(whiteboard(f.program, vars(f.module)).text())
z = x @ W + b                  # (N, 1)
dW = x.T @ (sigmoid(z) - y) / N  # (3, 1)
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from .backends.numpy.printer import Printer, _axis_text
from .ops import array_nodes as A
from .ops import functions as F
from .program import Program, Statement

# The batch size: every dimension that was None in the graph.
N = sp.Symbol("N", positive=True, integer=True)

# Two batch sizes for the probes; primes that static dimensions rarely equal.
_PROBE_SIZES = (13, 17)


# --- display-only functions ----------------------------------------------------------------


class Softmax(sp.Function):
    """``softmax(z)`` along ``axis`` (display only)."""

    nargs = 2


class LogSoftmax(sp.Function):
    """``log_softmax(z)`` along ``axis`` (display only)."""

    nargs = 2


class OneHot(sp.Function):
    """``onehot(y)``: rows of the identity of size ``depth`` (display only); args: y, depth."""

    nargs = 2


class _Evaluator(Printer):
    """NumPy code for display expressions, so that a display can be checked against the Program."""

    def _print_Softmax(self, expr: Softmax) -> str:
        z, axis = (self._print(a) for a in expr.args)
        shifted = f"np.exp({z} - np.max({z}, axis={axis}, keepdims=True))"
        return f"({shifted} / np.sum({shifted}, axis={axis}, keepdims=True))"

    def _print_LogSoftmax(self, expr: LogSoftmax) -> str:
        z, axis = (self._print(a) for a in expr.args)
        shifted = f"({z} - np.max({z}, axis={axis}, keepdims=True))"
        return f"({shifted} - np.log(np.sum(np.exp({shifted}), axis={axis}, keepdims=True)))"

    def _print_OneHot(self, expr: OneHot) -> str:
        labels, depth = (self._print(a) for a in expr.args)
        return f"np.eye({depth})[{labels}]"

    # A display may use these where the module does not, so they are not the module's kernels.
    def _print_Sigmoid(self, expr: Any) -> str:
        return f"np.exp(-np.logaddexp(0, -({self._print(expr.args[0])})))"

    def _print_Softplus(self, expr: Any) -> str:
        return f"np.logaddexp(0, {self._print(expr.args[0])})"


# --- the result ----------------------------------------------------------------------------


# The width explain()'s text is laid out for: its shape comments align within it.
TEXT_COLUMNS = 100


@dataclass(frozen=True)
class Formula:
    """``name = expr``, of ``shape`` (dims are ints or multiples of ``N``)."""

    name: str
    symbol: sp.Symbol
    expr: sp.Expr
    shape: tuple[Any, ...]
    output: bool


@dataclass(frozen=True)
class Whiteboard:
    """The named intermediates and the outputs, in the order they are defined."""

    formulas: list[Formula]

    def lines(self) -> list[tuple[str, str, str]]:
        """``(name, formula text, shape text)`` per formula."""
        return [(f.name, formula_text(f.expr), _shape_text(f.shape)) for f in self.formulas]

    def text(self) -> str:
        """One ``name = formula  # shape`` line per formula, the shapes aligned after the
        longest formula for which every aligned line fits in ``TEXT_COLUMNS``; a longer line
        takes its comment two spaces after it (not every other line padded out to it)."""
        lines = self.lines()
        rows = [f"{name} = {text}" for name, text, _ in lines]
        comments = [f"  # {shape}" for _, _, shape in lines]
        width = 0
        for candidate in sorted({len(r) for r in rows}, reverse=True):
            aligned = [c for r, c in zip(rows, comments, strict=True) if len(r) <= candidate]
            if all(candidate + len(c) <= TEXT_COLUMNS for c in aligned):
                width = candidate
                break
        return "\n".join(
            f"{row.ljust(width)}{comment}" for row, comment in zip(rows, comments, strict=True)
        )

    def latex_lines(self) -> list[tuple[str, str, str]]:
        """``(LaTeX name, LaTeX formula, shape text)`` per formula."""
        printer = WhiteboardLatexPrinter()
        return [
            (printer.doprint(f.symbol), printer.doprint(f.expr), _shape_text(f.shape))
            for f in self.formulas
        ]

    def latex(self) -> str:
        """An aligned LaTeX block, each shape in a third column."""
        rows = " \\\\ ".join(
            f"{name} &= {tex} && {_latex_shape(shape)}" for name, tex, shape in self.latex_lines()
        )
        return f"\\begin{{aligned}}{rows}\\end{{aligned}}"


def _shape_text(shape: tuple[Any, ...]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _latex_shape(shape_text: str) -> str:
    return "\\text{" + shape_text + "}"


# --- printers ------------------------------------------------------------------------------


def _constant_text(value: float) -> str:
    """A float as the user wrote it: the shortest decimal that gives the same float32, where
    the value is a float32 (the user's ``0.005`` stored in a float32 graph), else Python's."""
    if np.isfinite(value) and float(np.float32(value)) == value:
        return np.format_float_positional(np.float32(value), unique=True, trim="-")
    return repr(value)


def _value_preserving(cast: F.Cast) -> bool:
    """A conversion that changes no value: bool to a number, or to a wider float."""
    floats = ("float16", "float32", "float64")
    widths = {name: i for i, name in enumerate(floats)}
    if cast.source == "bool" or (cast.source.startswith("int") and cast.target in widths):
        return True
    return (
        cast.source in widths
        and cast.target in widths
        and widths[cast.target] >= widths[cast.source]
    )


def _clip(expr: sp.Expr) -> tuple[sp.Expr, sp.Expr, sp.Expr] | None:
    """``(x, low, high)`` of ``minimum(maximum(x, low), high)``: ``clip(x, low, high)``."""
    if isinstance(expr, F.Minimum) and isinstance(expr.args[0], F.Maximum):
        return (*expr.args[0].args, expr.args[1])
    return None


def _rank_suffix(transpose: Any) -> str:
    return ".T" if transpose else ""


def _split_constant(term: sp.Expr) -> list[sp.Expr]:
    """A constant SymPy folded from a whole number and a float32 the user wrote, as the two:
    ``1 - p + 1e-07`` in float32 is ``1.0000001000000012 - p`` to SymPy."""
    if not term.is_Float:
        return [term]
    number = float(term)
    whole = round(number)
    rest = number - whole
    if whole == 0 or rest == 0 or len(repr(number)) <= 12 or float(np.float32(rest)) != rest:
        return [term]
    written = _constant_text(rest)  # the float32's shortest decimal: what the user wrote
    if len(written) > 10:
        return [term]
    return [sp.Integer(whole), sp.Float(float(written))]


def _ordered_terms(expr: sp.Add) -> list[sp.Expr]:
    """Added terms as a person orders them: the larger first, subtracted ones last
    (``x @ W + b``, ``sigmoid(z) - y``); SymPy's order breaks ties."""
    terms = [part for term in sp.Add.make_args(expr) for part in _split_constant(term)]
    ranked = sorted(
        range(len(terms)),
        key=lambda i: (terms[i].could_extract_minus_sign(), -sp.count_ops(terms[i]), i),
    )
    return [terms[i] for i in ranked]


class _Terms:
    """Constants and sums as both whiteboard printers write them (mixed into a SymPy printer)."""

    parenthesize: Callable[..., str]

    def _print_Float(self, expr: sp.Float) -> str:
        return _constant_text(float(expr))

    def _print_Add(self, expr: sp.Add, order: str | None = None) -> str:
        parts = []
        for term in _ordered_terms(expr):
            negative = term.could_extract_minus_sign()
            text = self.parenthesize(-term if negative else term, PRECEDENCE["Add"])
            parts.append(("- " if negative else "+ ") + text)
        text = " ".join(parts)
        return text[2:] if text.startswith("+ ") else "-" + text[2:]


class WhiteboardPrinter(_Terms, StrPrinter):
    """Python-like text: ``x.T @ d``, ``sum(d, axis=0)``, ``sigmoid(z)``, ``(z > 0)``."""

    _names = {
        "Sigmoid": "sigmoid",
        "Softplus": "softplus",
        "Relu": "relu",
        "Abs": "abs",
        "Sign": "sign",
        "Maximum": "maximum",
        "Minimum": "minimum",
        "Where": "where",
        "LogicalNot": "not_",
        "Floor": "floor",
        "Round": "round",
    }
    _comparisons = {
        "Greater": ">",
        "ReluMask": ">",
        "GreaterEqual": ">=",
        "Less": "<",
        "LessEqual": "<=",
        "Equal": "==",
        "NotEqual": "!=",
    }

    def _print_Function(self, expr: sp.Function) -> str:
        kind = type(expr).__name__
        if kind in self._comparisons:
            left, right = (self._print(a) for a in expr.args)
            return f"({left} {self._comparisons[kind]} {right})"
        if isinstance(expr, F.Cast):
            if _value_preserving(expr):  # a mask as 0/1, a float widened: nothing to write
                return self._print(expr.args[0])
            return (
                f"{'bool_' if expr.target == 'bool' else expr.target}({self._print(expr.args[0])})"
            )
        if isinstance(expr, F.Power):
            base, exponent = expr.args
            return f"{self.parenthesize(base, PRECEDENCE['Pow'], strict=True)} ** {self.parenthesize(exponent, PRECEDENCE['Pow'], strict=True)}"
        clipped = _clip(expr)
        if clipped:
            return f"clip({self.stringify(clipped, ', ')})"
        if isinstance(expr, F.MatMulNode):
            a, b, ta, tb, _, _ = expr.args
            left = self.parenthesize(a, PRECEDENCE["Func"]) + _rank_suffix(ta)
            right = self.parenthesize(b, PRECEDENCE["Func"]) + _rank_suffix(tb)
            return f"{left} @ {right}"
        if isinstance(expr, F.ReduceSum):  # sum, mean, max, min, prod
            value, axes, keepdims = expr.args
            name = type(expr).operation
            extra = "" if not len(axes) else f", axis={_axis_text(axes)}"
            extra += ", keepdims=True" if keepdims and len(axes) else ""
            return f"{name}({self._print(value)}{extra})"
        if isinstance(expr, (Softmax, LogSoftmax)):
            name = "softmax" if isinstance(expr, Softmax) else "log_softmax"
            return f"{name}({self._print(expr.args[0])})"
        if isinstance(expr, OneHot):
            return f"onehot({self._print(expr.args[0])})"
        if isinstance(expr, F._Structural):
            return Printer().doprint(expr).replace("np.", "")
        if kind in self._names:
            return f"{self._names[kind]}({self.stringify(expr.args, ', ')})"
        return super()._print_Function(expr)


class WhiteboardLatexPrinter(_Terms, LatexPrinter):
    """LaTeX: ``x^{\\top} \\left(\\sigma(z) - y\\right)``, ``\\sum_{0}``, ``\\operatorname{softmax}``."""

    # Structural nodes carry a ``_latex`` method for the verbose formulas; here every
    # function goes through ``_print_Function`` instead.
    printmethod = "_whiteboard_latex"

    _comparisons = {
        "Greater": ">",
        "ReluMask": ">",
        "GreaterEqual": "\\geq",
        "Less": "<",
        "LessEqual": "\\leq",
        "Equal": "=",
        "NotEqual": "\\neq",
    }

    def _print_Function(self, expr: Any, exp: Any = None) -> str:
        kind = type(expr).__name__
        text = self._function_text(expr, kind)
        if text is None:
            return super()._print_Function(expr, exp)
        return f"\\left({text}\\right)^{{{exp}}}" if exp is not None else text

    def _function_text(self, expr: Any, kind: str) -> str | None:
        if kind in self._comparisons:
            left, right = (self._print(a) for a in expr.args)
            return f"\\left[{left} {self._comparisons[kind]} {right}\\right]"
        if isinstance(expr, F.Cast):
            if _value_preserving(expr):
                return self._print(expr.args[0])
            return f"\\operatorname{{{expr.target}}}\\left({self._print(expr.args[0])}\\right)"
        if isinstance(expr, F.Where):  # a case split, as a textbook writes one
            condition, holds, fails = (self._print(a) for a in expr.args)
            if condition.startswith("\\left[") and condition.endswith("\\right]"):
                condition = condition[6:-7]  # no Iverson brackets after "if"
            return (
                f"\\begin{{cases}}{holds} & \\text{{if }} {condition} \\\\ "
                f"{fails} & \\text{{otherwise}}\\end{{cases}}"
            )
        clipped = _clip(expr)
        if clipped:
            return (
                f"\\operatorname{{clip}}\\left({', '.join(self._print(a) for a in clipped)}\\right)"
            )
        if isinstance(expr, F.Power):
            base = self.parenthesize(expr.args[0], PRECEDENCE["Pow"], strict=True)
            return f"{{{base}}}^{{{self._print(expr.args[1])}}}"
        if isinstance(expr, F.MatMulNode):
            a, b, ta, tb, _, _ = expr.args
            left = self._operand(a) + ("^{\\top}" if ta else "")
            right = self._operand(b) + ("^{\\top}" if tb else "")
            return f"{left} {right}"
        if isinstance(expr, F.ReduceSum):
            value, axes, _ = expr.args
            name = {"sum": "\\sum", "mean": "\\operatorname{mean}"}.get(
                type(expr).operation, f"\\operatorname{{{type(expr).operation}}}"
            )
            below = f"_{{{_axis_text(axes)}}}" if len(axes) else ""
            return f"{name}{below}\\left({self._print(value)}\\right)"
        names = {
            "Sigmoid": "\\sigma",
            "Softplus": "\\operatorname{softplus}",
            "Relu": "\\operatorname{relu}",
            "Softmax": "\\operatorname{softmax}",
            "LogSoftmax": "\\operatorname{log\\_softmax}",
            "OneHot": "\\operatorname{onehot}",
        }
        if kind in names:
            return f"{names[kind]}\\left({self._print(expr.args[0])}\\right)"
        if isinstance(expr, F._Structural):
            return expr._latex(self)
        return None

    def _operand(self, expr: sp.Expr) -> str:
        text = self._print(expr)
        return text if expr.is_Symbol else f"\\left({text}\\right)"


def formula_text(expr: sp.Expr) -> str:
    """``expr`` as a Python-like line, spaced as PEP 8 spaces it (``ast.unparse``)."""
    text = WhiteboardPrinter().doprint(expr)
    try:
        return ast.unparse(ast.parse(text, mode="eval"))
    except SyntaxError:  # a node printed as something that is not Python: keep SymPy's text
        return text


# --- probing: the Program's values and shapes on random inputs ----------------------------


class _Probe:
    """The Program evaluated on random inputs whose None dimensions are ``size``."""

    def __init__(self, program: Program, namespace: dict[str, Any], size: int) -> None:
        self.size = size
        self.namespace = namespace
        self.table = program.dtypes_by_symbol()
        self.values: dict[str, Any] = {}
        rng = np.random.default_rng(size)
        for item in program.inputs:
            if item.shape is None:
                raise _CannotDisplay("an input of unknown rank")
            shape = tuple(size if d is None else d for d in item.shape)
            if item.dtype.is_bool:
                value: Any = rng.random(shape) < 0.5
            elif item.dtype.is_floating:
                value = rng.standard_normal(shape)
            else:  # labels and indices: 0 and 1 are valid for every depth above 1
                value = rng.integers(0, 2, shape)
            self.values[item.symbol.name] = np.asarray(value).astype(item.dtype.name)
        for constant in program.constants:
            self.values[constant.symbol.name] = constant.value
        self._memo: dict[sp.Expr, Any] = {}
        for statement in program.statements:
            self.values[statement.symbol.name] = self.evaluate(statement.expr, statement)

    def evaluate(self, expr: sp.Expr, statement: Statement | None = None) -> Any:
        if expr in self._memo:
            return self._memo[expr]
        printer = _Evaluator(self.table)
        dtype = statement.dtype if statement is not None else "float64"
        with printer.float_context(dtype if isinstance(dtype, str) else dtype.name):
            code = printer.doprint(expr)
        scope = dict(self.values)
        scope[N.name] = self.size
        with np.errstate(all="ignore"):
            try:
                value = eval(code, self.namespace, scope)
            except Exception as error:  # any failure means: no display, never a wrong one
                raise _CannotDisplay(f"cannot evaluate {code}: {error}") from error
        self._memo[expr] = value
        return value

    def shape(self, expr: sp.Expr) -> tuple[int, ...]:
        return tuple(np.shape(self.evaluate(expr)))


class _CannotDisplay(Exception):
    """The program uses something the display does not cover (the caller falls back)."""


def _symbolic_shape(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[Any, ...]:
    """Dims equal in both probes are static; dims that follow the batch size are ``k*N``."""
    if len(first) != len(second):
        raise _CannotDisplay("a rank that depends on the batch size")
    dims: list[Any] = []
    small, large = _PROBE_SIZES
    for a, b in zip(first, second, strict=True):
        if a == b:
            dims.append(a)
        elif a % small == 0 and b % large == 0 and a // small == b // large:
            dims.append(a // small * N)
        else:
            raise _CannotDisplay("a dimension that is not a multiple of the batch size")
    return tuple(dims)


# --- rewriting -----------------------------------------------------------------------------

_Shapes = tuple[tuple[int, ...], tuple[int, ...]]


def _broadcast(*shapes: _Shapes) -> _Shapes:
    return (
        tuple(np.broadcast_shapes(*(s[0] for s in shapes))),
        tuple(np.broadcast_shapes(*(s[1] for s in shapes))),
    )


class _Plumbing:
    """Drops broadcasts and no-op unbroadcasts, shows a real unbroadcast as a sum and
    ``size(...)`` as ``N``, keeping each result equal to the original up to broadcasting
    (the original is ``broadcast_to(result, its shape)``)."""

    def __init__(self, probes: tuple[_Probe, _Probe]) -> None:
        self.probes = probes
        self.memo: dict[sp.Expr, tuple[sp.Expr, _Shapes]] = {}

    def shape(self, expr: sp.Expr) -> _Shapes:
        return (self.probes[0].shape(expr), self.probes[1].shape(expr))

    def __call__(self, expr: sp.Expr) -> tuple[sp.Expr, _Shapes]:
        if expr not in self.memo:
            self.memo[expr] = self._rewrite(expr)
        return self.memo[expr]

    def _rewrite(self, expr: sp.Expr) -> tuple[sp.Expr, _Shapes]:
        if expr.is_Symbol and expr.name not in self.probes[0].values:
            return expr, ((), ())  # an attribute spelled as a symbol (a dtype name)
        if expr.is_Number or isinstance(expr, (F.Literal, sp.Tuple)) or not expr.args:
            return expr, (((), ()) if expr.is_Number else self.shape(expr))
        if isinstance(expr, F.BroadcastTo):
            return self(expr.args[0])
        if isinstance(expr, F.Check):
            return self(expr.args[2])  # the checked value itself
        if isinstance(expr, F.SizeOf):
            return self._size(expr), ((), ())
        if isinstance(expr, F.SumToShape):
            return self._unbroadcast(expr)
        if isinstance(expr, (sp.Add, sp.Mul, sp.Pow)) or (
            isinstance(expr, sp.Function) and not _is_atom(expr) and not isinstance(expr, A.Index)
        ):
            pairs = [self(a) for a in expr.args]
            return expr.func(*(p[0] for p in pairs)), _broadcast(*(p[1] for p in pairs))
        if isinstance(expr, A.Index) and isinstance(expr.args[0], A.Created):
            kind = str(expr.args[0].args[0])
            if kind == "eye" and len(expr.args) == 2:
                depth = self.shape(expr)[0][-1]
                return OneHot(self(expr.args[1])[0], sp.Integer(depth)), self.shape(expr)
        if type(expr) in (F.ReduceSum, F.ReduceMean) and not expr.args[2]:
            new, shapes = self(expr.args[0])
            if shapes == ((), ()):  # the sum of a broadcast scalar: the scalar times a count
                if type(expr) is F.ReduceMean:
                    return new, shapes
                counted = F.SizeOf(expr.args[0], expr.args[1])
                return new * self._size(counted), self.shape(expr)
        if isinstance(expr, sp.Function):  # structural: its operands must keep their shapes
            args = []
            for arg in expr.args:
                if isinstance(arg, sp.Expr) and arg.args and not isinstance(arg, sp.Tuple):
                    new, shapes = self(arg)
                    args.append(new if shapes == self.shape(arg) else arg)
                else:
                    args.append(arg)
            return expr.func(*args), self.shape(expr)
        return expr, self.shape(expr)

    def _size(self, expr: F.SizeOf) -> sp.Expr:
        value, axes = expr.args
        shape = _symbolic_shape(*self.shape(value))
        picked = [int(a) for a in axes] if len(axes) else range(len(shape))
        return sp.Mul(*(shape[i] for i in picked))

    def _unbroadcast(self, expr: F.SumToShape) -> tuple[sp.Expr, _Shapes]:
        value, like = expr.args
        before, after = self.shape(value), self.shape(like)
        new, shapes = self(value)
        if before == after:
            return new, shapes
        lead = len(before[0]) - len(after[0])
        kept = [
            i for i, n in enumerate(after[0]) if n == 1 and before[0][lead + i] != 1
        ]  # axes of size 1 that broadcasting stretched: summed with keepdims
        if kept or shapes != before:
            return expr, after  # not a plain sum over leading axes: shown as it runs
        return F.ReduceSum(new, F.axes_tuple(tuple(range(lead))), sp.S.Zero), after


def _textbook_forms(expr: sp.Expr) -> sp.Expr:
    """The math as a textbook writes it, where the program's form is there for the edges:

    - losses the printers evaluate in a stable form (``F.TextbookForm``):
      ``LogisticLoss(z, t)`` as ``softplus(z) - z * t``;
    - ``div_no_nan(a, b)`` as ``a / b`` (they differ where b is 0 only: an empty batch, whose
      mean loss TF1 takes as 0);
    - a number converted to a dtype that holds it exactly, as the number; a whole float as
      an integer (so that ``1.0 * x`` reads ``x``).
    """

    def textbook(node: sp.Expr) -> sp.Expr:
        if isinstance(node, F.TextbookForm):
            return node.textbook()
        if isinstance(node, F.DivNoNan):
            return node.args[0] / node.args[1]
        if isinstance(node, F.Cast) and node.args[0].is_Number and _exact_in(node):
            return node.args[0]
        return node

    expr = _bottom_up(expr, textbook)
    whole = {
        f: sp.Integer(int(f))
        for f in expr.atoms(sp.Float)
        if float(f).is_integer() and abs(float(f)) < 2**53
    }
    return expr.xreplace(whole) if whole else expr  # 1.0 * x as x


def _exact_in(cast: F.Cast) -> bool:
    """Whether the number ``cast`` converts keeps its value in the target dtype."""
    try:
        target = np.dtype(cast.target)
    except TypeError:
        return False
    value = complex(cast.args[0])
    if value.imag or target.kind not in "fiu":
        return False
    with np.errstate(all="ignore"):
        converted = target.type(value.real)
    return bool(np.isfinite(converted) and float(converted) == value.real)


def _fold_stable_forms(expr: sp.Expr) -> sp.Expr:
    """``exp(z - max z) / sum(exp(z - max z))`` as ``softmax(z)``, ``z - max z - log(sum
    exp(z - max z))`` as ``log_softmax(z)``."""

    def shifted(node: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
        """(z, axis) if ``node`` is ``exp(z - max(z, axis, keepdims))``."""
        if not isinstance(node, sp.exp):
            return None
        for term in sp.Add.make_args(node.args[0]):
            inner = -term
            if isinstance(inner, F.ReduceMax) and inner.args[2] and len(inner.args[1]) == 1:
                z = node.args[0] + inner
                if inner.args[0] == z:
                    return z, inner.args[1][0]
        return None

    def normaliser(node: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
        """(z, axis) if ``node`` is ``sum(exp(z - max z), axis, keepdims)``."""
        if type(node) is F.ReduceSum and node.args[2] and len(node.args[1]) == 1:
            found = shifted(node.args[0])
            if found and found[1] == node.args[1][0]:
                return found
        return None

    def fold(node: sp.Expr) -> sp.Expr:
        if isinstance(node, sp.Mul):
            factors = sp.Mul.make_args(node)
            for factor in factors:
                if isinstance(factor, sp.Pow) and factor.exp == -1:
                    found = normaliser(factor.base)
                    if found:
                        z, axis = found
                        top = sp.exp(z - F.ReduceMax(z, sp.Tuple(axis), sp.S.One))
                        if top in factors:
                            rest = [f for f in factors if f not in (factor, top)]
                            return sp.Mul(Softmax(z, axis), *rest)
        if isinstance(node, sp.Add):
            for term in sp.Add.make_args(node):
                if isinstance(-term, sp.log):
                    found = normaliser((-term).args[0])
                    if found:
                        z, axis = found
                        peak = F.ReduceMax(z, sp.Tuple(axis), sp.S.One)
                        candidate = node - (z - peak - (-term)) + LogSoftmax(z, axis)
                        if sp.count_ops(candidate) < sp.count_ops(node):
                            return candidate
        return node

    return _bottom_up(expr, fold)


def _bottom_up(expr: sp.Expr, rule: Callable[[sp.Expr], sp.Expr]) -> sp.Expr:
    if not expr.args or isinstance(expr, (F.Literal, sp.Tuple)):
        return expr
    args = [_bottom_up(a, rule) for a in expr.args]
    return rule(expr.func(*args) if args != list(expr.args) else expr)


def _is_atom(expr: sp.Expr) -> bool:
    """Opaque at the elementwise level: structural nodes and display functions over arrays."""
    return isinstance(expr, (F._Structural, Softmax, LogSoftmax, OneHot))


def _atoms(expr: sp.Expr) -> list[sp.Expr]:
    """The symbols and the outermost structural subexpressions of ``expr``, in a fixed order."""
    found: dict[sp.Expr, None] = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.is_Symbol or _is_atom(node):
            found[node] = None
        elif isinstance(node, F.Cast):  # its other arguments name dtypes, not values
            stack.append(node.args[0])
        elif not isinstance(node, (F.Literal, sp.Tuple)):
            stack.extend(reversed(node.args))
    return list(found)


def _conditions(expr: sp.Expr) -> list[sp.Expr]:
    """Comparisons used as masks or ``where`` conditions at the elementwise level of ``expr``."""
    found: dict[sp.Expr, None] = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, F._Comparison):
            found[node] = None
        elif not (node.is_Atom or _is_atom(node)):
            stack.extend(reversed(node.args))
    return list(found)


def _branch(expr: sp.Expr, condition: sp.Expr, holds: bool) -> sp.Expr:
    """``expr`` where ``condition`` is known to hold (or not), at the elementwise level."""
    if isinstance(expr, F.Where) and expr.args[0] == condition:
        return _branch(expr.args[1] if holds else expr.args[2], condition, holds)
    if isinstance(expr, F.LogicalNot) and expr.args[0] == condition:
        return sp.S.Zero if holds else sp.S.One
    if expr == condition:
        return sp.S.One if holds else sp.S.Zero
    if expr.is_Atom or _is_atom(expr):
        return expr
    return expr.func(*(_branch(a, condition, holds) for a in expr.args))


def _same_function(first: sp.Expr, second: sp.Expr) -> bool:
    """Whether two elementwise expressions agree on random points (atoms drawn independently)."""
    atoms = list(dict.fromkeys(_atoms(first) + _atoms(second)))
    stand_ins = {atom: sp.Symbol(f"a{i}") for i, atom in enumerate(atoms)}
    rng = np.random.default_rng(0)
    scope = {s.name: 3 * rng.standard_normal(64) for s in stand_ins.values()}
    values = []
    for expr in (first, second):
        code = _Evaluator({}).doprint(expr.xreplace(stand_ins))
        with np.errstate(all="ignore"):
            try:
                values.append(np.broadcast_to(eval(code, {"np": np}, dict(scope)), (64,)))
            except Exception:
                return False
    finite = np.isfinite(values[0])
    return bool(
        finite.mean() > 0.5
        and np.allclose(values[0], values[1], rtol=1e-9, atol=1e-12, equal_nan=True)
    )


def _fold_branches(expr: sp.Expr) -> sp.Expr:
    """Where both branches of a stable form compute one function, keep the simpler one:
    ``where(z >= 0, ...)`` of a stable sigmoid or softplus becomes ``sigmoid(z)``."""
    if expr.is_Atom or isinstance(expr, (F.Literal, sp.Tuple)):
        return expr
    if _is_atom(expr):  # fold inside, at the operands' own elementwise level
        return expr.func(*(_fold_branches(a) for a in expr.args))
    inner = {atom: _fold_branches(atom) for atom in _atoms(expr) if not atom.is_Symbol}
    expr = expr.xreplace(inner)
    for condition in _conditions(expr):
        holds, fails = _branch(expr, condition, True), _branch(expr, condition, False)
        if _same_function(holds, fails):
            expr = min((fails, holds), key=sp.count_ops)  # ties: the branch without a flip
    return expr


def _pull_scalars(expr: sp.Expr, scalars: set[sp.Symbol]) -> sp.Expr:
    """Scalar factors out of matrix products and sums: ``x.T @ (d / N)`` as ``x.T @ d / N``."""

    def scalar(factor: sp.Expr) -> bool:
        return factor.is_number or (factor.free_symbols <= scalars | {N} and not _has_atom(factor))

    def split(operand: sp.Expr) -> tuple[list[sp.Expr], sp.Expr]:
        factors = sp.Mul.make_args(operand)
        outside = [f for f in factors if scalar(f)]
        if not outside or len(outside) == len(factors):
            return [], operand
        return outside, sp.Mul(*(f for f in factors if not scalar(f)))

    def rule(node: sp.Expr) -> sp.Expr:
        if isinstance(node, F.MatMulNode):
            left, a = split(node.args[0])
            right, b = split(node.args[1])
            if left or right:
                return sp.Mul(*left, *right, node.func(a, b, *node.args[2:]))
        if type(node) in (F.ReduceSum, F.ReduceMean):
            outside, inner = split(node.args[0])
            if outside:
                return sp.Mul(*outside, node.func(inner, *node.args[1:]))
        return node

    return _bottom_up(expr, rule)


def _common_factors(node: sp.Expr) -> sp.Expr:
    """``-y/N + sigmoid(z)/N`` as ``(sigmoid(z) - y)/N`` (SymPy's ``factor_terms``)."""
    return sp.factor_terms(node) if isinstance(node, sp.Add) else node


def _has_atom(expr: sp.Expr) -> bool:
    return any(_is_atom(node) for node in sp.preorder_traversal(expr))


def _affine(expr: sp.Expr) -> bool:
    """``x @ W + b`` (or ``x @ W``): a layer before its activation."""
    return isinstance(expr, F.MatMulNode) or (
        isinstance(expr, sp.Add) and any(isinstance(t, F.MatMulNode) for t in expr.args)
    )


def _activation(expr: sp.Expr) -> bool:
    """``f(x @ W + b)`` for an elementwise function of one argument."""
    return (
        isinstance(expr, sp.Function)
        and len(expr.args) == 1
        and not _is_atom(expr)
        and _affine(expr.args[0])
    )


def _readers(exprs: dict[sp.Symbol, sp.Expr]) -> dict[sp.Symbol, list[sp.Symbol]]:
    readers: dict[sp.Symbol, list[sp.Symbol]] = {s: [] for s in exprs}
    for symbol, expr in exprs.items():
        for read in sorted(expr.free_symbols, key=str):
            if read in readers:
                readers[read].append(symbol)
    return readers


# --- the pipeline --------------------------------------------------------------------------

# Past these sizes a display would not fit on a whiteboard: the verbose formulas are shown.
_STATEMENT_LIMIT = 200
_TEXT_LIMIT = 400


@dataclass(frozen=True)
class _Draft:
    name: str
    expr: sp.Expr
    shape: tuple[Any, ...]
    output: bool
    source: sp.Symbol | None  # the Program value it must reproduce (None: checked through others)


def whiteboard(program: Program, namespace: dict[str, Any]) -> Whiteboard | None:
    """The display of ``program``'s outputs, or None where it cannot be derived and checked.

    ``namespace`` is the generated module's (its helpers evaluate the Program on the probes).
    """
    if len(program.statements) > _STATEMENT_LIMIT or not program.outputs:
        return None
    try:
        probes = (
            _Probe(program, namespace, _PROBE_SIZES[0]),
            _Probe(program, namespace, _PROBE_SIZES[1]),
        )
        drafts = _drafts(program, probes)
        formulas = _finish(drafts, program, probes)
        _check(formulas, drafts, probes)
    except _CannotDisplay:
        return None
    return Whiteboard(formulas)


def _drafts(program: Program, probes: tuple[_Probe, _Probe]) -> list[_Draft]:
    """Plumbing hidden, layers and backpropagated errors named, everything else inlined."""
    plumbing = _Plumbing(probes)

    def shape_of(symbol: sp.Symbol) -> tuple[Any, ...]:
        return _symbolic_shape(probes[0].shape(symbol), probes[1].shape(symbol))

    statements = program.statements
    display = {s.symbol: plumbing(s.expr)[0] for s in statements}
    output_names: dict[sp.Symbol, list[str]] = {}
    for output in program.outputs:
        output_names.setdefault(output.symbol, []).append(output.name)
    taken = {i.name for i in program.inputs} | {o.name for o in program.outputs}

    def fresh(name: str) -> str:
        while name in taken:
            name += "_"
        taken.add(name)
        return name

    # Layers: z = x @ W + b (alone or inside its activation h = f(z)), in program order.
    layers: list[sp.Symbol] = []
    activations: list[sp.Symbol] = []
    for s in statements:
        if s.section != "forward" or s.symbol in output_names or s.temporary:
            continue
        expr = display[s.symbol]
        if _affine(expr):
            layers.append(s.symbol)
        elif _activation(expr) or (
            isinstance(expr, sp.Function)
            and len(expr.args) == 1
            and not _is_atom(expr)
            and expr.args[0] in layers
        ):
            activations.append(s.symbol)
            if _activation(expr):
                layers.append(s.symbol)
    several = len(layers) > 1
    z_names = {s: fresh(f"z{k + 1}" if several else "z") for k, s in enumerate(layers)}
    h_names = {
        s: fresh(f"h{k + 1}" if len(activations) > 1 else "h") for k, s in enumerate(activations)
    }

    # Errors backpropagated to a layer: the c of dW = a.T @ c; named when there are several.
    errors: dict[sp.Symbol, str] = {}
    for s in statements:
        for node in sp.preorder_traversal(display[s.symbol]):
            if isinstance(node, F.MatMulNode) and node.args[2] and not node.args[3]:
                error, operand = node.args[1], node.args[0]
                layer = _layer_reading(operand, layers, display)
                if error in display and layer is not None and error not in output_names:
                    errors.setdefault(error, "d_" + z_names[layer])
    if len(errors) < 2:
        errors = {}
    errors = {s: fresh(name) for s, name in errors.items()}

    drafts: list[_Draft] = []
    written: dict[sp.Symbol, sp.Expr] = {}
    for s in statements:
        expr = display[s.symbol].xreplace(
            {t: written[t] for t in display[s.symbol].free_symbols if t in written}
        )
        shape = shape_of(s.symbol)
        if s.symbol in h_names and s.symbol in z_names:  # h = f(x @ W + b): z first
            z = sp.Symbol(z_names[s.symbol])
            drafts.append(_Draft(z.name, expr.args[0], shape, False, None))
            expr = expr.func(z)
            name = h_names[s.symbol]
        elif s.symbol in output_names:
            name = output_names[s.symbol][0]
        else:
            name = z_names.get(s.symbol) or h_names.get(s.symbol) or errors.get(s.symbol, "")
        if not name:
            written[s.symbol] = expr
            continue
        drafts.append(_Draft(name, expr, shape, s.symbol in output_names, s.symbol))
        written[s.symbol] = sp.Symbol(name)
    defined = {s.symbol for s in statements}
    for output in program.outputs:
        first = output_names[output.symbol][0]
        if output.symbol in defined and output.name == first:
            continue  # written where its statement is
        expr = sp.Symbol(first) if output.symbol in defined else output.symbol
        drafts.append(_Draft(output.name, expr, shape_of(output.symbol), True, output.symbol))
    return drafts


def _layer_reading(
    operand: sp.Expr, layers: list[sp.Symbol], display: dict[sp.Symbol, sp.Expr]
) -> sp.Symbol | None:
    """The layer whose ``operand @ W`` is ``operand`` (the layer whose weights dW is of)."""
    for layer in layers:
        for node in sp.preorder_traversal(display[layer]):
            if isinstance(node, F.MatMulNode) and node.args[0] == operand and not node.args[2]:
                return layer
    return None


def _finish(drafts: list[_Draft], program: Program, probes: tuple[_Probe, _Probe]) -> list[Formula]:
    """Stable forms folded, scalars pulled out; the budget of a whiteboard line enforced."""
    scalars = {i.symbol for i in program.inputs if i.shape == ()}
    scalars |= {sp.Symbol(d.name) for d in drafts if d.shape == ()}
    formulas = []
    for draft in drafts:
        expr = _textbook_forms(draft.expr)
        expr = _fold_branches(expr)
        expr = _fold_stable_forms(expr)
        expr = _bottom_up(expr, _common_factors)
        expr = _pull_scalars(expr, scalars)
        if len(formula_text(expr)) > _TEXT_LIMIT:
            raise _CannotDisplay(f"{draft.name}: too long for a whiteboard")
        formulas.append(Formula(draft.name, sp.Symbol(draft.name), expr, draft.shape, draft.output))
    return formulas


def _check(formulas: list[Formula], drafts: list[_Draft], probes: tuple[_Probe, _Probe]) -> None:
    """Every formula, evaluated in order on both probes, gives the Program's value."""
    for probe in probes:
        scope: dict[str, Any] = {}
        for formula, draft in zip(formulas, drafts, strict=True):
            code = _Evaluator(probe.table).doprint(formula.expr)
            with np.errstate(all="ignore"):
                try:
                    value = eval(
                        code, probe.namespace, {**probe.values, **scope, N.name: probe.size}
                    )
                except Exception as error:
                    raise _CannotDisplay(f"{formula.name}: {error}") from error
            scope[formula.name] = value
            if draft.source is None:
                continue
            expected = np.asarray(probe.values[draft.source.name])
            try:
                got = np.broadcast_to(np.asarray(value), expected.shape)
            except ValueError as error:
                raise _CannotDisplay(f"{formula.name}: shape {np.shape(value)}") from error
            if expected.dtype.kind in "biu":
                same = np.array_equal(got, expected)
            else:
                finite = np.abs(expected[np.isfinite(expected)])
                scale = max(1.0, float(finite.max(initial=0.0)))
                same = np.allclose(got, expected, rtol=1e-3, atol=1e-5 * scale, equal_nan=True)
            if not same:
                raise _CannotDisplay(f"{formula.name}: the display does not reproduce the value")
