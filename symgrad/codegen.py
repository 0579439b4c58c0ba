"""Program → Python source: a NumPy printer and the Jinja module template.

The printer decides how each SymPy node reads as NumPy; the template only
loops over precomputed lines. Dtypes are kept exact: float literals are
printed in the precision of the statement they appear in (NumPy converts a
Python float to the array's dtype), and a statement whose expression NumPy
would evaluate in another dtype gets an explicit conversion.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from .dtypes import DType
from .formatter import format_source
from .naming import comment_text
from .ops import functions as F
from .program import Program
from .shapes import format_shape
from .version import __version__

TEMPLATE = "module.py.jinja"


def template_directory() -> Path:
    """``symgrad/_templates`` in an installed wheel, else ``templates/`` of the source tree."""
    installed = Path(__file__).resolve().parent / "_templates"
    if (installed / TEMPLATE).is_file():
        return installed
    return Path(__file__).resolve().parent.parent / "templates"


@functools.lru_cache(maxsize=1)
def template_environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_directory())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


ARRAY_LITERAL_LIMIT = 64  # larger constants are stored as base64 bytes


class Printer(NumPyPrinter):
    """NumPy code as a person would write it: ``np.tanh(x)``, ``x/32``, ``x**2``."""

    printmethod = "_numpycode"

    def __init__(self, table: dict[sp.Symbol, Any] | None = None) -> None:
        super().__init__({"fully_qualified_modules": False, "allow_unknown_functions": False})
        self._float_dtype = "float64"
        self.helpers_used: set = set()
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
        saved = self._float_dtype
        self._float_dtype = dtype_name if dtype_name in ("float16", "float32") else "float64"
        try:
            yield
        finally:
            self._float_dtype = saved

    def _module_format(self, fqn: str, register: bool = True) -> str:
        if fqn == "numpy":
            return "np"
        return "np." + fqn[len("numpy.") :] if fqn.startswith("numpy.") else fqn

    def _float_literal(self, value: float) -> str:
        return _float_text(value, self._float_dtype)

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
        parts = []
        for term in positive + negative:
            shown = -term if term in negative else term
            text = self._as_number(shown, self.parenthesize(shown, PRECEDENCE["Add"], strict=False))
            if term in negative:
                parts.append(f"- {text}" if parts else f"-{text}")
            else:
                parts.append(f"+ {text}" if parts else text)
        return " ".join(parts)

    def _print_Mul(self, expr: sp.Mul) -> str:
        coefficient, factors = expr.as_coeff_mul()
        if all(self.dtype_of(f) == "bool" for f in factors):
            # Only masks: -mask or 2*mask would negate or scale bools; make them numbers first.
            masks = [self._as_number(f, self._print(f)) for f in factors]
            return (
                "*".join(([] if coefficient == 1 else [self._print(coefficient)]) + masks)
                if coefficient != -1
                else "-" + "*".join(masks)
            )
        return StrPrinter._print_Mul(self, expr)  # type: ignore[arg-type]

    def _print_Pow(self, expr: sp.Pow, rational: bool = False) -> str:
        base, exponent = expr.args
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


# --- dtypes of expressions as NumPy evaluates them ------------------------------------------

WEAK_INT, WEAK_FLOAT = "weak_int", "weak_float"
_PRESERVING = (F.Relu, F.Maximum, F.Minimum, F.Sign, F.Abs)


def _promote(a: str, b: str) -> str:
    """NumPy 2 (NEP 50) promotion, where Python numbers are 'weak'."""
    weak = (WEAK_INT, WEAK_FLOAT)
    if a in weak and b in weak:
        return WEAK_FLOAT if WEAK_FLOAT in (a, b) else WEAK_INT
    if a in weak or b in weak:
        concrete, python = (b, a) if a in weak else (a, b)
        kind = np.dtype(concrete).kind
        if python == WEAK_INT:
            return "int64" if kind == "b" else concrete
        return concrete if kind == "f" else "float64"
    return np.result_type(a, b).name


def expression_dtype(
    expr: sp.Expr, table: dict[sp.Symbol, DType], memo: dict[sp.Expr, str] | None = None
) -> str:
    """The dtype NumPy gives ``expr`` (``weak_*`` for plain Python numbers).

    ``memo`` keeps the answers for subexpressions (valid while ``table`` is unchanged).
    """
    if memo is None:
        memo = {}
    known = memo.get(expr)
    if known is None:
        known = memo[expr] = _expression_dtype(expr, table, memo)
    return known


def _expression_dtype(
    expr: sp.Expr, table: dict[sp.Symbol, DType], memo: dict[sp.Expr, str]
) -> str:
    if isinstance(expr, F.Literal):
        return WEAK_INT
    if expr.is_Symbol:
        dtype = table.get(expr)
        if dtype is None:
            return WEAK_FLOAT
        return dtype if isinstance(dtype, str) else dtype.name
    if expr.is_Integer:
        return WEAK_INT
    if expr.is_Number or expr in (sp.pi, sp.E):
        return WEAK_FLOAT
    if isinstance(expr, F.BOOLEAN_FUNCTIONS):
        return "bool"
    if isinstance(expr, F.Cast):
        return expr.target
    if isinstance(expr, F.Literal):
        return WEAK_INT
    if isinstance(expr, F.Where):
        return _promote(
            expression_dtype(expr.args[1], table, memo), expression_dtype(expr.args[2], table, memo)
        )
    if isinstance(expr, F._Structural):
        return expr.result_dtype(lambda e: expression_dtype(e, table, memo))
    argument_types = [
        expression_dtype(a, table, memo) for a in expr.args if not isinstance(a, sp.Tuple)
    ]
    result = argument_types[0]
    for other in argument_types[1:]:
        result = _promote(result, other)
    if isinstance(expr, sp.Add) and "bool" in argument_types:
        return WEAK_FLOAT  # the printer turns masks into numbers of the statement's dtype
    if isinstance(expr, sp.Mul):
        coefficient, factors = expr.as_coeff_mul()
        if coefficient != 1 and all(expression_dtype(f, table, memo) == "bool" for f in factors):
            return WEAK_FLOAT  # printed as numbers, see Printer._print_Mul
    if isinstance(expr, (sp.Add, sp.Mul, _PRESERVING)):
        return result
    if isinstance(expr, sp.Pow):
        base, exponent = expr.args
        if exponent.is_Integer and exponent > 0:
            return result
        return _promote(result, WEAK_FLOAT) if result not in ("bool",) else "float64"
    # transcendental functions: floats stay, everything else becomes float64
    if result in (WEAK_INT, WEAK_FLOAT):
        return WEAK_FLOAT
    return result if np.dtype(result).kind == "f" else "float64"


# --- rendering ---------------------------------------------------------------------------------

SECTION_TITLES = {"forward": "Forward", "gradient": "Gradients", "update": "Updates"}


@dataclass(frozen=True)
class Line:
    text: str  # one statement: ``name = expr``, ``name += expr``, ``np.tanh(t, out=t)``
    section: str
    # np.where evaluates both branches: the one it discards may overflow or divide by
    # zero where TF stays silent, so such lines run without floating-point warnings.
    guarded: bool = False
    comment: str = ""  # shown above the line: which derivative a gradient statement computes

    @property
    def title(self) -> str:
        return SECTION_TITLES.get(self.section, self.section)


def _numpy_dtype(dtype: DType | str) -> str:
    name = dtype.name if isinstance(dtype, DType) else dtype
    return "np.bool_" if name == "bool" else f"np.{name}"


def _float_text(value: float, dtype_name: str) -> str:
    if not np.isfinite(value):
        return "np.nan" if np.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value) if dtype_name == "float64" else str(np.dtype(dtype_name).type(value))


def _array_literal(value: np.ndarray, dtype: DType) -> str:
    if value.size <= ARRAY_LITERAL_LIMIT:
        if dtype.is_floating:
            items = np.vectorize(lambda v: _float_text(float(v), dtype.name), otypes=[object])(
                value
            ).tolist()
        else:
            items = value.tolist()
        text = repr(items).replace("'", "")
        return f"np.array({text}, dtype={_numpy_dtype(dtype)})"
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


def _describe(dtype: DType, shape: Any) -> str:
    return f"{dtype.name} {'any shape' if shape is None else format_shape(shape)}"


def _shape_literal(shape: Any) -> str:
    if shape is None:
        return "None"
    items = ", ".join("None" if d is None else str(d) for d in shape)
    return "(" + items + ("," if len(shape) == 1 else "") + ")"


# Calls that run as one BLAS product (``@`` is counted from the syntax tree).
BLAS_CALLS = frozenset({"dot", "vdot", "matmul", "inner", "outer", "tensordot", "einsum"})


def statement_summary(lines: list[Line]) -> str:
    """``Statements: 9, BLAS calls: 3``: what the function body runs, counted the same way in
    both forms (a ``del`` is not a statement here; every ``@`` and ``np.dot``-like call is).

    >>> statement_summary([Line("h = x @ w", "forward"), Line("h += b", "forward"),
    ...                    Line("del x", "forward")])
    'Statements: 2, BLAS calls: 1'
    """
    statements = blas = 0
    for line in lines:
        if line.text.startswith("del "):
            continue
        statements += 1
        blas += sum(1 for node in ast.walk(ast.parse(line.text)) if _is_blas(node))
    return f"Statements: {statements}, BLAS calls: {blas}"


def _is_blas(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, ast.MatMult)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "np"
        and node.func.attr in BLAS_CALLS
    )


def render(program: Program, summary: str, statement_lines: list[Line], helpers: list[str]) -> str:
    """Fill the module template with the program's precomputed lines, laid out by the formatter.

    Each statement is printed on one line; ``ruff format`` (pinned) breaks the
    long ones, so the module reads as a person formatting it would leave it.
    """
    environment = template_environment()
    template = environment.get_template(TEMPLATE)
    width = max([len(i.name) for i in program.inputs + program.outputs] + [4])  # type: ignore[operator]
    needs_base64 = any(c.value.size > ARRAY_LITERAL_LIMIT for c in program.constants)
    source = template.render(
        version=__version__,
        template_name=TEMPLATE,
        function_name=program.name,
        graph_name=comment_text(program.graph_name or program.name),
        inputs=[
            {
                "name": i.name,
                "numpy_dtype": _numpy_dtype(i.dtype),
                "shape": _shape_literal(i.shape),
                "doc": f"{i.name.ljust(width)}  {_describe(i.dtype, i.shape).ljust(24)}  {i.kind}",
            }
            for i in program.inputs
        ],
        outputs=[
            {
                "name": o.name,
                "symbol": o.symbol if isinstance(o.symbol, str) else str(o.symbol),
                "doc": f"{o.name.ljust(width)}  {_describe(o.dtype, o.shape)}",
            }
            for o in program.outputs
        ],
        constants=[f"{c.name} = {_array_literal(c.value, c.dtype)}" for c in program.constants],
        signature=f"def {program.name}({', '.join(i.name for i in program.inputs)}):",
        checks=[
            f'{i.name} = _check("{i.name}", {i.name}, {_numpy_dtype(i.dtype)}, {_shape_literal(i.shape)})'
            for i in program.inputs
        ],
        return_statement=f"return {', '.join(str(o.symbol) for o in program.outputs)}",
        lines=statement_lines,
        summary=summary,
        helpers=helpers,
        needs_base64=needs_base64,
    )
    return format_source(source)


def guarded_statements(statements: list[Any]) -> set:
    """Symbols of statements that run under ``np.errstate``: a ``where`` or one of its branches."""
    branches = {
        arg
        for s in statements
        for where in s.expr.atoms(F.Where)
        for arg in where.args[1:]
        if arg.is_Symbol
    }
    return {s.symbol for s in statements if s.expr.has(F.Where) or s.symbol in branches}


def statement_lines(
    program: Program, printer: Printer | None = None
) -> tuple[list[Line], list[str]]:
    table = program.dtypes_by_symbol()
    printer = printer or Printer(table)
    printer.table = table
    guarded = guarded_statements(program.statements)
    lines = [
        Line(
            f"{s.name} = {print_statement(printer, s.expr, s.dtype, table, convert=not s.temporary)}",
            s.section,
            guarded=s.symbol in guarded,
            comment=s.comment,
        )
        for s in program.statements
    ]
    return lines, sorted(printer.helpers_used)
