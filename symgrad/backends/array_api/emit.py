"""Program → portable Python source: statement lines from the portable printer, filled into
``templates/array_api/module.py.jinja``.

There is one form here, the readable one: the NumPy fast form's planning writes into
existing arrays (``out=``, ``+=``), which the standard does not have.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import sympy as sp

from ...errors import BackendError
from ...formatter import format_source
from ...naming import comment_text, docstring_text
from ...program import Program
from ...version import __version__
from ..functions import body_text, loop_text
from ..kernels import KernelLibrary
from ..numpy.emit import (
    KERNEL_FOLDER,
    Line,
    _describe,
    body_lines,
    render_with_kernels,
    statement_summary,
    template_environment,
)
from ..numpy.printer import _array_literal, _shape_literal
from . import kernels
from .printer import Printer

BACKEND_FOLDER, TEMPLATE = "array_api", "module.py.jinja"
KERNELS = KernelLibrary(
    [Path(kernels.__file__).parent / f"{m}.py" for m in kernels.MODULES]
    + [KERNEL_FOLDER / f"{m}.py" for m in kernels.FROM_NUMPY],
    kernels.KERNELS,
)


def portable_dtype(dtype: Any) -> str:
    """The standard's name of a dtype in generated code.

    >>> portable_dtype("float32"), portable_dtype("bool")
    ('xp.float32', 'xp.bool')
    """
    return f"xp.{getattr(dtype, 'name', dtype)}"


def print_statement(printer: Printer, expr: sp.Expr, dtype: Any, convert: bool = True) -> str:
    """One statement's right-hand side, converted to ``dtype`` where the standard's rules
    give another (``xp.astype`` of an array, ``xp.asarray`` of a Python number)."""
    name = getattr(dtype, "name", dtype)
    printer.statement_dtype = name
    with printer.float_context(name):
        text = printer.doprint(expr)
    if convert and printer.dtype_of(expr) != name:
        if not printer.is_scalar(expr):
            return f"xp.astype({text}, {portable_dtype(dtype)})"
        return f"xp.asarray({text}, dtype={portable_dtype(dtype)}, device=device)"
    return text


def statement_lines(program: Program, printer: Printer | None = None) -> list[Line]:
    """The function body's lines."""
    return body_lines(program, printer or Printer(), _right_side)


def _right_side(printer: Printer, statement: Any, table: dict[Any, Any]) -> str:
    return print_statement(
        printer, statement.expr, statement.dtype, convert=not statement.temporary
    )


def _check_dtypes(program: Program) -> None:
    """A BackendError for a dtype the standard does not have (float16), naming the tensor."""
    named = [(i.name, i.dtype) for i in program.inputs] + [
        (s.name, s.dtype) for s in program.statements
    ]
    for name, dtype in named:
        if getattr(dtype, "name", dtype) == "float16":
            raise BackendError(
                f"symgrad: the array_api backend has no float16 (tensor '{name}'): the array "
                f'API standard has no such dtype; compile this graph with backend="numpy"'
            )


def _truth(test: str, where: str) -> str:
    """A loop's condition tested through ``_holds``, which refuses a value jax.jit traces."""
    return f'_holds({test}, "{where}")'


def _quiet_block(line: str) -> str:
    """The block around a line whose discarded branch may warn (``where``)."""
    return "with _quiet(xp):"


def generate_source(program: Program) -> str:
    """The portable module of ``program``, laid out by the pinned formatter.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [3], name="x")
    ...     compiled = sg.compile(sg.reduce_sum(sg.tanh(x)), name="total", backend="array_api")
    >>> print([line for line in generate_source(compiled.program).splitlines() if "xp.sum" in line][0])
        sum_ = xp.sum(xp.tanh(x))
    """
    _check_dtypes(program)
    printer = Printer()
    lines = statement_lines(program, printer)
    functions = []
    for function in program.functions:
        if function.loop is not None:
            functions.append("\n".join(loop_text(function, "xp.stack", _truth, ", ...")))
            continue
        assert function.program is not None
        _check_dtypes(function.program)
        inner = statement_lines(function.program, Printer())
        rows = [(line.text, line.guarded, line.comment) for line in inner]
        text = body_text(function, rows, statement_summary(inner), _quiet_block)
        functions.append("\n".join(text))
    body = "\n".join([line.text for line in lines] + functions)
    # Constants the body reads (a graph may hold some it no longer needs after the passes).
    constants = [c for c in program.constants if re.search(rf"\b{c.name}\b", body)]
    uses_device = bool(program.inputs or constants) or "device" in body
    width = max([len(i.name) for i in program.inputs + program.outputs] + [4])
    streams = program.random_streams
    parameters = [i.name for i in program.inputs] + (["rng"] if streams else [])
    template = template_environment(BACKEND_FOLDER).get_template(TEMPLATE)
    source = render_with_kernels(
        template,
        KERNELS,
        version=__version__,
        template_name=TEMPLATE,
        graph_name=comment_text(program.graph_name or program.name),
        provenance=[docstring_text(line) for line in program.provenance],
        inputs=[
            {"doc": f"{i.name.ljust(width)}  {_describe(i.dtype, i.shape).ljust(24)}  {i.kind}"}
            for i in program.inputs
        ],
        outputs=[
            {"doc": f"{o.name.ljust(width)}  {_describe(o.dtype, o.shape)}"}
            for o in program.outputs
        ],
        constants=[{"name": c.name, "value": _array_literal(c.value, c.dtype)} for c in constants],
        namespace_names="xp, device" if uses_device else "xp, _",
        signature=f"def {program.name}({', '.join(parameters)}):",
        namespace_arguments=", ".join(i.name for i in program.inputs),
        checks=[
            f'{i.name} = _check(xp, device, "{i.name}", {i.name}, '
            f"{portable_dtype(i.dtype)}, {_shape_literal(i.shape)})"
            for i in program.inputs
        ]
        + ([f"rng = _generators(rng, {len(streams)})"] if streams else []),
        random_streams=[f"rng[{k}]  {comment_text(name)}" for k, name in enumerate(streams)],
        return_statement=f"return {', '.join(str(o.symbol) for o in program.outputs)}",
        lines=lines,
        summary=statement_summary(lines),
        functions=functions,
    )
    return format_source(source)
