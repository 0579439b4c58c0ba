"""Why is my gradient None? — and what formula computes it.

:func:`explain_gradients` walks the graph as :func:`symgrad.gradients` does
and says, for each x, in words with tensor names, whether and how it reaches
the ys and where each path is cut. :func:`formulas` recovers each output of a
compiled program as a SymPy expression in terms of the inputs and the named
intermediates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from .graph import Operation
from .ops import functions as F
from .ops.registry import opdef_of
from .program import Program

# Ops whose outputs carry no gradient to their inputs, with the reason in words.
_CUTTING = {
    "StopGradient": "stop_gradient",
    "OnesLike": "ones_like (depends on its input only through its shape)",
    "ZerosLike": "zeros_like (depends on its input only through its shape)",
    "Floor": "floor (no gradient)",
    "Round": "round (no gradient)",
    "Shape": "shape (no gradient)",
    "Size": "size (no gradient)",
}


def _reason(op: Operation, stops: set[Operation]) -> str | None:
    """Why no gradient passes from ``op``'s output to its inputs (None if it does)."""
    if op in stops:
        return f"it is in stop_gradients ('{op.outputs[0].name}')"
    if op.type in _CUTTING:
        return f"'{op.outputs[0].name}' is {_CUTTING[op.type]}"
    output = op.outputs[0] if op.outputs else None
    if output is not None and not output.dtype.is_floating:
        kind = "a comparison" if output.dtype.is_bool else "an integer tensor"
        return f"'{output.name}' is {kind} ({output.dtype.name}): no gradient flows through it"
    if opdef_of(op).gradient is None:
        return f"'{output.name if output is not None else op.name}' ({op.type}) has no gradient"
    return None


def explain_gradients(ys: Any, xs: Any, stop_gradients: Any = None) -> str:
    """For each x, in words: does the gradient of ``sum(ys)`` reach it, along which paths, and
    where is each other path cut?

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w1, w2 = sg.Variable(2.0, name="w1"), sg.Variable(2.0, name="w2")
    ...     b = sg.multiply(sg.stop_gradient(w1 * 3.0, name="a_stopped"), w2, name="b")
    ...     print(sg.explain_gradients(b, [w1, w2]))
    w1:0: None — no path from it to the ys carries a gradient:
      w1:0 → Mul:0 → a_stopped:0 → b:0 is cut: 'a_stopped:0' is stop_gradient
    w2:0: gets a gradient, along 1 path:
      w2:0 → b:0
    """
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    stops = {t.op for t in (stop_gradients or [])}
    targets = {y.op for y in ys}
    consumers: dict[Operation, list[Operation]] = {}
    for op in ys[0].graph.get_operations():
        for tensor in op.inputs:
            consumers.setdefault(tensor.op, []).append(op)
    lines = []
    for x in xs:
        live, cut = _paths(x.op, targets, consumers, stops)
        if live:
            lines.append(
                f"{x.name}: gets a gradient, along {len(live)} path{'s' if len(live) > 1 else ''}:"
            )
            lines += [f"  {_path_text(path)}" for path in live[:5]]
            if len(live) > 5:
                lines.append(f"  ... and {len(live) - 5} more")
            lines += [f"  (cut: {_path_text(path)}: {reason})" for path, reason in cut[:5]]
        elif cut:
            lines.append(f"{x.name}: None — no path from it to the ys carries a gradient:")
            lines += [f"  {_path_text(path)} is cut: {reason}" for path, reason in cut[:5]]
        else:
            lines.append(
                f"{x.name}: None — the ys do not depend on it "
                f"(zeros with unconnected_gradients='zero')"
            )
    return "\n".join(lines)


def _path_text(path: Sequence[Operation]) -> str:
    return " → ".join(op.outputs[0].name if op.outputs else op.name for op in path)


def _paths(
    start: Operation,
    targets: set[Operation],
    consumers: dict[Operation, list[Operation]],
    stops: set[Operation],
    limit: int = 50,
) -> tuple:
    """Forward paths from ``start`` to the targets: (carrying a gradient, [(cut path, reason)])."""
    live: list[list[Operation]] = []
    cut: list[tuple] = []
    stack = [(start, [start], None)]
    while stack and len(live) + len(cut) < limit:
        op, path, blocked = stack.pop()
        if op in targets:
            (cut.append((path, blocked)) if blocked else live.append(path))
            if op is not start:
                continue
        for consumer in reversed(consumers.get(op, [])):
            if consumer in path:
                continue
            reason = blocked or (
                _reason(consumer, stops)
                if consumer not in targets or consumer in stops
                else _reason_of_target(consumer, stops)
            )
            stack.append((consumer, path + [consumer], reason))
    return live, cut


def _reason_of_target(op: Operation, stops: set[Operation]) -> str | None:
    # A y still receives its own seed; it blocks only what flows *through* it to its inputs.
    return _reason(op, stops)


# --- formulas -----------------------------------------------------------------------------------


def formulas(program: Program, expand: bool = False, limit: int = 200) -> dict[str, sp.Expr]:
    """Each output as a SymPy expression of the inputs and the named intermediates.

    Common subexpressions are put back; with ``expand``, named intermediates are
    replaced by their own formulas too, while the result stays under ``limit``
    operations.
    """
    named: dict[sp.Symbol, sp.Expr] = {}
    inlined: dict[sp.Symbol, sp.Expr] = {}
    for statement in program.statements:  # program order: definitions come first
        expr = statement.expr.xreplace(inlined)
        if statement.temporary:
            inlined[statement.symbol] = expr
        else:
            named[statement.symbol] = expr
    result = {}
    for output in program.outputs:
        expr = named.get(output.symbol, output.symbol)
        if expand:
            for _ in range(len(named)):
                bigger = expr.xreplace(named)
                if bigger == expr or sp.count_ops(bigger) > limit:
                    break
                expr = bigger
        result[output.name] = expr
    return result


def readable(expr: sp.Expr) -> sp.Expr:
    """An expression for reading: unbroadcasting and broadcasting dropped (they move no values)."""
    replacements = {}
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (F.SumToShape, F.BroadcastTo)):
            replacements[node] = node.args[0]
    expr = expr.xreplace(replacements) if replacements else expr
    return sp.factor_terms(expr) if sp.count_ops(expr) < 200 else expr
