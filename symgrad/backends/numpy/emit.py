"""Program → Python source: statement lines from the printer, filled into the template.

The printer (``printer.py``) decides how each node reads as NumPy; the template
(``templates/numpy/module.py.jinja``) only loops over precomputed lines.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from ...dtypes import DType
from ...formatter import format_source
from ...naming import comment_text, docstring_text
from ...ops import functions as F
from ...program import Program
from ...shapes import format_shape
from ...signatures import EqualDims
from ...version import __version__
from .. import template_root
from ..functions import body_text, loop_text
from ..kernels import KernelLibrary, kernel_text, standard_imports
from . import kernels
from .printer import (
    Printer,
    _array_literal,
    _numpy_dtype,
    _shape_literal,
    print_statement,
)

# The folder under templates/, and the file named in each generated module's first line.
BACKEND_FOLDER, TEMPLATE = "numpy", "module.py.jinja"
KERNEL_FOLDER = Path(kernels.__file__).parent
KERNELS = KernelLibrary([KERNEL_FOLDER / f"{m}.py" for m in kernels.MODULES], kernels.KERNELS)


def template_directory(folder: str = BACKEND_FOLDER) -> Path:
    """``symgrad/_templates/<folder>`` in an installed wheel, else ``templates/<folder>`` of the source tree."""
    return template_root() / folder


@functools.cache
def template_environment(folder: str = BACKEND_FOLDER) -> jinja2.Environment:
    """The Jinja environment of one backend's templates (``templates/<folder>``)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_directory(folder))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


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


def _describe(dtype: DType, shape: Any) -> str:
    return f"{dtype.name} {'any shape' if shape is None else format_shape(shape)}"


# One BLAS product each: ``@`` and NumPy's product functions.
_BLAS = re.compile(r"(?<![@=])@(?![@=])|\bnp\.(?:dot|vdot|matmul|inner|outer|tensordot|einsum)\(")


def statement_summary(lines: list[Line]) -> str:
    """``Statements: 9, BLAS calls: 3``: what the function body runs, counted the same way in
    both forms (a ``del`` is not a statement here; every ``@`` and ``np.dot``-like call is).

    >>> statement_summary([Line("h = x @ w", "forward"), Line("h += b", "forward"),
    ...                    Line("del x", "forward")])
    'Statements: 2, BLAS calls: 1'
    """
    body = [line.text for line in lines if not line.text.startswith("del ")]
    blas = sum(len(_BLAS.findall(text)) for text in body)
    return f"Statements: {len(body)}, BLAS calls: {blas}"


@dataclass(frozen=True)
class Specialized:
    """A second body of the function, run when ``guard`` holds for its (checked) inputs."""

    program: Program  # the same function, traced under the assumption the guard checks
    guard: str  # ``x.shape[0] == y.shape[0]``
    lines: list[Line]


def guard_text(assumption: EqualDims, names: list[str]) -> str:
    """The run-time check of ``assumption`` over the inputs called ``names``.

    >>> guard_text(EqualDims({}, (((0, 0), (1, 0), (2, 0)),), (0,)), ["x", "y", "z"])
    'x.ndim == 1 and x.shape[0] == y.shape[0] == z.shape[0]'
    >>> guard_text(EqualDims({}, (), (0,), scalars=(1,)), ["x", "rate"])
    'x.ndim == 1 and rate.ndim == 0'
    """
    parts = [f"{names[p]}.ndim == 1" for p in assumption.vectors]
    parts += [f"{names[p]}.ndim == 0" for p in assumption.scalars]
    parts += [" == ".join(f"{names[p]}.shape[{a}]" for p, a in c) for c in assumption.classes]
    return " and ".join(parts)


def render_with_kernels(template: jinja2.Template, kernels: KernelLibrary, **fields: Any) -> str:
    """The template rendered with the kernels its code calls (``kernels``) and the
    standard-library modules they and the code use (``standard_imports``)."""
    skeleton = template.render(kernels="", standard_imports=[], **fields)
    needed = kernels.needed(skeleton)
    return template.render(
        kernels=kernel_text(needed),
        standard_imports=standard_imports(skeleton, needed),
        **fields,
    )


def function_texts(program: Program, lines_of: Callable[[Program], list[Line]]) -> list[str]:
    """The text of each function the program calls (loops, their bodies, branches), each
    body's statements printed by ``lines_of``."""
    texts = []
    for function in program.functions:
        if function.loop is not None:
            texts.append("\n".join(loop_text(function, "np.stack")))
            continue
        assert function.program is not None
        lines = lines_of(function.program)
        body = [(line.text, line.guarded, line.comment) for line in lines]
        texts.append(
            "\n".join(body_text(function, body, statement_summary(lines), lambda _: QUIET))
        )
    return texts


# Where np.where computes both branches, as the main function's template says it.
QUIET = 'with np.errstate(divide="ignore", invalid="ignore", over="ignore"):'


def render(
    program: Program,
    summary: str,
    statement_lines: list[Line],
    special: Specialized | None = None,
    functions: list[str] | None = None,
) -> str:
    """Fill the module template with the program's precomputed lines, laid out by the formatter.

    Each statement is printed on one line; ``ruff format`` (pinned) breaks the
    long ones, so the module reads as a person formatting it would leave it.
    ``special`` adds the body for inputs that pass its guard.
    """
    environment = template_environment()
    template = environment.get_template(TEMPLATE)
    width = max([len(i.name) for i in program.inputs + program.outputs] + [4])
    # A function with random ops takes its random source as its last argument, ``rng``
    # (symgrad.ops.random_ops); one without keeps exactly its inputs.
    streams = program.random_streams
    parameters = [i.name for i in program.inputs] + (["rng"] if streams else [])
    source = render_with_kernels(
        template,
        KERNELS,
        version=__version__,
        template_name=TEMPLATE,
        function_name=program.name,
        graph_name=comment_text(program.graph_name or program.name),
        provenance=[docstring_text(line) for line in program.provenance],
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
        signature=f"def {program.name}({', '.join(parameters)}):",
        checks=[
            f'{i.name} = _check("{i.name}", {i.name}, {_numpy_dtype(i.dtype)}, {_shape_literal(i.shape)})'
            for i in program.inputs
        ]
        + ([f"rng = _generators(rng, {len(streams)})"] if streams else []),
        random_streams=[f"rng[{k}]  {comment_text(name)}" for k, name in enumerate(streams)],
        return_statement=f"return {', '.join(str(o.symbol) for o in program.outputs)}",
        lines=statement_lines,
        summary=summary,
        special=_special_fields(program, special, parameters),
        functions=functions or [],
    )
    return format_source(source)


def _special_fields(
    program: Program, special: Specialized | None, parameters: list[str]
) -> dict[str, Any] | None:
    """The template's fields for the body of the inputs that pass the guard: it takes the
    function's parameters, the random streams ``rng`` included."""
    if special is None:
        return None
    names = ", ".join(parameters)
    name = f"_{program.name}_same_shapes"
    return {
        "guard": special.guard,
        "call": f"{name}({names})",
        "signature": f"def {name}({names}):",
        "lines": special.lines,
        "summary": statement_summary(special.lines),
        "return_statement": (f"return {', '.join(str(o.symbol) for o in special.program.outputs)}"),
    }


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


def statement_lines(program: Program, printer: Printer | None = None) -> list[Line]:
    return body_lines(program, printer or Printer(), _right_side)


def _right_side(printer: Printer, statement: Any, table: dict[Any, Any]) -> str:
    convert = not statement.temporary
    return print_statement(printer, statement.expr, statement.dtype, table, convert=convert)


def body_lines(
    program: Program, printer: Printer, right_side: Callable[[Any, Any, dict[Any, Any]], str]
) -> list[Line]:
    """The function body's lines, each statement's right side as
    ``right_side(printer, statement, dtypes_by_symbol)`` prints it with ``printer`` (of any
    backend)."""
    table = program.dtypes_by_symbol()
    printer.table = table
    guarded = guarded_statements(program.statements)
    lines = [
        Line(
            f"{s.name} = {right_side(printer, s, table)}",
            s.section,
            guarded=s.symbol in guarded,
            comment=s.comment,
        )
        for s in program.statements
    ]
    return lines
