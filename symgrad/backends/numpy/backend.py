"""The NumPy backend's record: its printer, kernels, template and module generator."""

from __future__ import annotations

from ...passes import FAST_PASSES, run_passes
from ...program import Program
from ...signatures import EqualDims
from .. import Backend
from . import emit, planner
from .printer import MODULE_ALIAS, Printer


def generate_source(
    program: Program,
    fast_form: bool = True,
    specialized: Program | None = None,
    assumption: EqualDims | None = None,
) -> str:
    """The module's text: the fast form (``symgrad.backends.numpy.planner``) or one readable
    expression per statement.

    ``specialized`` is the program traced under the shape ``assumption``
    (``signatures.equal_dims``); the fast form runs its body for inputs that pass the
    assumption's run-time check, where it differs from the general one.
    """
    printer = Printer()
    if not fast_form:
        lines = emit.statement_lines(program, printer)
        functions = emit.function_texts(program, lambda p: emit.statement_lines(p, Printer()))
        return emit.render(program, emit.statement_summary(lines), lines, functions=functions)
    fast_program = run_passes(program, passes=FAST_PASSES)
    lines = planner.fast_lines(fast_program, printer)
    functions = emit.function_texts(fast_program, lambda p: planner.fast_lines(p, Printer()))
    special = None
    if specialized is not None and assumption is not None:
        fast = run_passes(specialized, passes=FAST_PASSES)
        special_lines = planner.fast_lines(fast, printer)
        if special_lines != lines:
            guard = emit.guard_text(assumption, [i.name for i in program.inputs])
            special = emit.Specialized(fast, guard, special_lines)
    return emit.render(program, emit.statement_summary(lines), lines, special, functions)


NUMPY = Backend(
    name="numpy",
    module_alias=MODULE_ALIAS,
    template=f"numpy/{emit.TEMPLATE}",
    has_out=True,
    printer=Printer,
    kernels=emit.KERNELS,
    generate=generate_source,
    specializes_shapes=True,
    portable=False,
)
