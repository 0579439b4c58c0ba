"""Why is my gradient None? — and what formula computes it.

:func:`explain_gradients` walks the graph as :func:`symgrad.gradients` does
and says, for each x, in words with tensor names, whether and how it reaches
the ys and where each path is cut. :func:`formulas` recovers each output of a
compiled program as a SymPy expression in terms of the inputs and the named
intermediates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp
from sympy.core.parameters import evaluate

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
      w1:0 → mul:0 → a_stopped:0 → b:0 is cut: 'a_stopped:0' is stop_gradient
    w2:0: gets a gradient, along 1 path:
      w2:0 → b:0
    """
    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    stops = {t.op for t in (stop_gradients or [])}
    targets = {y.op for y in ys}
    # Only ops from which a y can be reached matter: everything else (the gradient ops that
    # gradients() added, other branches) is left out before any path is followed.
    relevant = _ancestors_of(targets)
    consumers: dict[Operation, list[Operation]] = {}
    for op in ys[0].graph.get_operations():
        if op not in relevant:
            continue
        for tensor in op.inputs:
            consumers.setdefault(tensor.op, []).append(op)
    paths = _Paths(targets, consumers, stops)
    lines = []
    for x in xs:
        start = x.op
        live_count, cut_count = paths.live(start), paths.cut(start)
        live = paths.examples(start, blocked_wanted=False)
        cut = paths.examples(start, blocked_wanted=True)
        if live_count:
            lines.append(
                f"{x.name}: gets a gradient, along {live_count} path{'s' if live_count > 1 else ''}:"
            )
            lines += [f"  {_path_text(path)}" for path, _ in live]
            if live_count > len(live):
                lines.append(f"  ... and {live_count - len(live)} more")
            lines += [f"  (cut: {_path_text(path)}: {reason})" for path, reason in cut]
            if cut_count > len(cut):
                lines.append(f"  (... and {cut_count - len(cut)} more cut paths)")
        elif cut_count:
            lines.append(f"{x.name}: None — no path from it to the ys carries a gradient:")
            lines += [f"  {_path_text(path)} is cut: {reason}" for path, reason in cut]
            if cut_count > len(cut):
                lines.append(f"  ... and {cut_count - len(cut)} more cut paths")
        else:
            lines.append(
                f"{x.name}: None — the ys do not depend on it "
                f"(zeros with unconnected_gradients='zero')"
            )
    return "\n".join(lines)


def _path_text(path: Sequence[Operation], ends: int = 6) -> str:
    """The path's tensors joined by arrows; a long path shows its first and last ``ends`` ops."""
    names = [op.outputs[0].name if op.outputs else op.name for op in path]
    if len(names) > 2 * ends + 1:
        names = names[:ends] + [f"… {len(names) - 2 * ends} more …"] + names[-ends:]
    return " → ".join(names)


def _ancestors_of(ops: set[Operation]) -> set[Operation]:
    """``ops`` and every op they read (through data inputs), without recursion."""
    seen = set(ops)
    stack = list(ops)
    while stack:
        for tensor in stack.pop().inputs:
            if tensor.op not in seen:
                seen.add(tensor.op)
                stack.append(tensor.op)
    return seen


class _Paths:
    """Counts of the forward paths from an op to the ys, carrying a gradient or cut, and the
    first few of each, in time linear in the size of the graph.

    A path ends at the first y it reaches (unless that y is where it started). It is cut at
    the first op along it that passes no gradient to its inputs. Counts come from one pass
    over the ops in reverse creation order (a topological order), not from following paths,
    whose number can grow exponentially with depth.
    """

    def __init__(
        self,
        targets: set[Operation],
        consumers: dict[Operation, list[Operation]],
        stops: set[Operation],
        shown: int = 5,
    ) -> None:
        self.targets, self.consumers, self.stops, self.shown = targets, consumers, stops, shown
        self._reasons: dict[Operation, str | None] = {}
        self._counts: dict[Operation, tuple[int, int]] = {}  # op -> (all paths, live paths)

    def reason(self, op: Operation) -> str | None:
        if op not in self._reasons:
            self._reasons[op] = _reason(op, self.stops)
        return self._reasons[op]

    def _count(self, op: Operation) -> tuple[int, int]:
        """(all, live) paths from ``op`` onwards, ``op`` being reached (not started from)."""
        if op in self._counts:
            return self._counts[op]
        # Fill the table from the deepest ops up, so that no recursion is needed.
        pending = [op]
        order = []
        seen = {op}
        while pending:
            node = pending.pop()
            order.append(node)
            if node in self.targets:
                continue
            for consumer in self.consumers.get(node, []):
                if consumer not in seen and consumer not in self._counts:
                    seen.add(consumer)
                    pending.append(consumer)
        for node in sorted(order, key=lambda n: -n.index):
            if node in self.targets:
                self._counts[node] = (1, 1)
                continue
            self._counts[node] = self._sum_over_consumers(node)
        return self._counts[op]

    def _sum_over_consumers(self, op: Operation) -> tuple[int, int]:
        total = live = 0
        for consumer in self.consumers.get(op, []):
            every, carrying = self._count(consumer)
            total += every
            live += 0 if self.reason(consumer) else carrying
        return total, live

    def live(self, start: Operation) -> int:
        for consumer in self.consumers.get(start, []):
            self._count(consumer)
        return int(start in self.targets) + self._sum_over_consumers(start)[1]

    def cut(self, start: Operation) -> int:
        for consumer in self.consumers.get(start, []):
            self._count(consumer)
        total, live = self._sum_over_consumers(start)
        return total - live

    def examples(
        self, start: Operation, blocked_wanted: bool
    ) -> list[tuple[list[Operation], str | None]]:
        """The first few paths (live or cut) in depth-first order, following only branches that
        lead to one; a path is kept as a linked list of (op, previous) until it is shown."""
        found: list[tuple[list[Operation], str | None]] = []
        stack: list[tuple[Operation, Any, str | None]] = [(start, None, None)]
        while stack and len(found) < self.shown:
            op, previous, blocked = stack.pop()
            link = (op, previous)
            if op in self.targets:
                if (blocked is not None) == blocked_wanted:
                    found.append((_unlink(link), blocked))
                if op is not start:
                    continue
            for consumer in reversed(self.consumers.get(op, [])):
                every, carrying = self._count(consumer)
                reason = blocked or self.reason(consumer)
                if blocked_wanted:
                    useful = every if reason else every - carrying
                else:
                    useful = 0 if reason else carrying
                if useful:
                    stack.append((consumer, link, reason))
        return found


def _unlink(link: Any) -> list[Operation]:
    path = []
    while link is not None:
        path.append(link[0])
        link = link[1]
    return path[::-1]


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
    expanded = _expanded(named, limit) if expand else named
    return {o.name: expanded.get(o.symbol, o.symbol) for o in program.outputs}


def _expanded(named: dict[sp.Symbol, sp.Expr], limit: int) -> dict[sp.Symbol, sp.Expr]:
    """Each named intermediate written in the inputs where that stays within ``limit``
    operations, else in terms of the intermediates it reads.

    Built once per name, in program order, from the expansions of earlier names: each
    expression is constructed once and shares its parts (and SymPy's cached facts about
    them) with the others, so a deep chain costs time linear in its depth rather than
    rebuilding the whole formula level by level.
    """
    expanded: dict[sp.Symbol, sp.Expr] = {}
    sizes: dict[sp.Symbol, int] = {}
    nesting: dict[sp.Symbol, int] = {}
    for symbol, expr in named.items():  # program order: definitions come first
        own = _operations(expr)
        reads = [t for t in expr.free_symbols if t in expanded]
        grown = own + sum(_occurrences(expr, t) * sizes[t] for t in reads)
        depth = _nesting(expr, {})
        if grown <= limit and reads:
            depth = _nesting(expr, nesting)
            # SymPy's automatic evaluation asks deep questions of nested functions (is
            # tanh(0.5*tanh(...)) zero?) that cost seconds on long chains; past a few levels
            # the formula is built unevaluated, symbols simply replaced by their formulas.
            with evaluate(depth <= _EVALUATED_NESTING):
                expr = expr.xreplace({t: expanded[t] for t in reads})
            own = grown
        expanded[symbol], sizes[symbol], nesting[symbol] = expr, own, depth
    return expanded


_EVALUATED_NESTING = 6


def _nesting(expr: sp.Basic, nesting: dict[sp.Symbol, int]) -> int:
    """How deeply function calls nest in ``expr``, a symbol counting as ``nesting[symbol]``."""
    if isinstance(expr, sp.Symbol):
        return nesting.get(expr, 0)
    inner = max((_nesting(arg, nesting) for arg in expr.args), default=0)
    return inner + int(isinstance(expr, sp.Function))


def _operations(expr: sp.Expr) -> int:
    """Operations in ``expr``, counted like ``sympy.count_ops`` but in one pass."""
    count = 0
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Add, sp.Mul)):
            count += len(node.args) - 1
        elif node.args and isinstance(node, sp.Expr):
            count += 1
    return count


def _occurrences(expr: sp.Expr, symbol: sp.Symbol) -> int:
    return sum(1 for node in sp.preorder_traversal(expr) if node == symbol)


def function_formulas(program: Program, text: Callable[[sp.Expr], str]) -> list[str]:
    """The functions a program calls, as recurrences (what ``explain()`` prints after the
    outputs): a loop's carried values at step ``t`` from those at the step before (after, for
    a loop that runs backwards, as a gradient does), its rows at ``t``, each step's stacked
    output; a cond's branches; a while loop's condition.

    Each value is written in the loop's own names: ``h[t] = tanh(x[t] @ W + h[t-1] @ U + b)``;
    ``text`` prints a formula (as text or LaTeX).
    """
    bodies = {f.name: f.program for f in program.functions if f.program is not None}
    lines: list[str] = []
    for function in program.functions:
        loop = function.loop
        if loop is None:
            continue
        body = bodies[loop.body]
        assert body is not None
        step = sp.Symbol("t" if loop.kind == "scan" else "k")
        previous = step + 1 if loop.reverse else step - 1
        inputs = list(body.inputs)
        names: dict[sp.Symbol, sp.Expr] = {}
        position = 0
        for name in loop.carried:  # a carried value enters the step as the previous step's
            names[inputs[position].symbol] = _indexed(name, previous)
            position += 1
        for name, width in loop.sequences:
            if width is None:
                names[inputs[position].symbol] = _indexed(name, step)
                position += 1
            else:  # a saved trace: the values step t started from, and what it drew
                for saved in inputs[position : position + width]:
                    at = step if saved.name.endswith(("_drawn", "_saved")) else step - 1
                    names[saved.symbol] = _indexed(saved.name, at)
                position += width
        for captured, given in zip(inputs[position:], loop.captured, strict=False):
            names[captured.symbol] = sp.Symbol(given)
        results = list(formulas(body, expand=True).values())
        targets = [*loop.carried, *loop.outputs]
        if loop.kind == "while":
            test = _condition(bodies[loop.condition], loop, previous, text)
            header = f"{function.name}: while {test}"
            if loop.limit:
                header += f" and {step} < {loop.limit}"
        else:
            direction = "backwards" if loop.reverse else "forwards"
            rows = ", ".join(name for name, _ in loop.sequences)
            header = f"{function.name}: for each row {step} of {rows}, {direction}"
        lines.append(header + ":")
        for target, result in zip(targets, results, strict=False):
            value = readable(result.xreplace(names))
            lines.append(f"    {_indexed(target, step)} = {text(value)}")
    return lines


def _indexed(name: str, step: sp.Expr) -> sp.Symbol:
    """``h[t-1]``: a loop's value at a step, as one symbol (so formulas print it as is)."""
    return sp.Symbol(f"{name}[{step}]")


def _condition(
    condition: Program | None, loop: Any, step: sp.Expr, text: Callable[[sp.Expr], str]
) -> str:
    if condition is None:
        return "?"
    names = {
        given.symbol: _indexed(name, step)
        for given, name in zip(condition.inputs, loop.carried, strict=False)
    }
    names.update(
        {
            given.symbol: sp.Symbol(name)
            for given, name in zip(
                condition.inputs[len(loop.carried) :], loop.captured, strict=False
            )
        }
    )
    (test,) = list(formulas(condition, expand=True).values())[:1]
    return text(readable(test.xreplace(names)))


def readable(expr: sp.Expr) -> sp.Expr:
    """An expression for reading: unbroadcasting and broadcasting dropped (they move no values)."""
    replacements = {}
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (F.SumToShape, F.BroadcastTo)):
            replacements[node] = node.args[0]
    expr = expr.xreplace(replacements) if replacements else expr
    return sp.factor_terms(expr) if sp.count_ops(expr) < 200 else expr
