"""The rewrites behind the passes of :mod:`symgrad.passes`: value numbering, stability
rewrites, bounded simplification, scheduling, dead code, CSE.

Every step is bounded, so no graph can make compile() hang here: expressions
larger than ``SIMPLIFY_LIMIT`` operations, and all statements once
``SIMPLIFY_SECONDS`` are spent, are left as they are (still correct, only
less tidy).
"""

from __future__ import annotations

import functools
import heapq
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p

from .expression_dtypes import WEAK_FLOAT, dtype_name, expression_dtype
from .naming import Namer
from .ops.array_nodes import ShapeOf
from .ops.functions import is_pure
from .program import Program, Statement

SIMPLIFY_LIMIT = 60


def _is_log_of_one_plus(e: sp.Expr) -> bool:
    return isinstance(e, sp.log) and e.args[0].is_Add and sp.S.One in e.args[0].args


def _exp_minus_one(e: sp.Expr) -> bool:
    return e.is_Add and sp.S.NegativeOne in e.args and any(isinstance(t, sp.exp) for t in e.args)


def _to_expm1(e: sp.Expr) -> sp.Expr:
    first = next(t for t in e.args if isinstance(t, sp.exp))
    rest = [t for t in e.args if t is not first and t != sp.S.NegativeOne]
    return sp.Add(expm1(first.args[0]), *rest)


def stability_rewrites(expr: sp.Expr) -> sp.Expr:
    """``log(1 + x)`` → ``log1p(x)`` and ``exp(x) - 1`` → ``expm1(x)``, exactly where they occur.

    (``sympy.codegen.rewriting``'s versions factor and expand their input, which
    turns the stable ``exp(x - max)`` into the overflowing ``exp(x)*exp(-max)``.)
    """
    expr = expr.replace(_is_log_of_one_plus, lambda e: log1p(e.args[0] - 1))
    return expr.replace(_exp_minus_one, _to_expm1)


# Remembered: a module with a shape-specialised body runs its statements through the passes
# twice (most come out the same), and factor_terms was a fifth of a CNN step's compile.
@functools.lru_cache(maxsize=4096)
def _tidy(expr: sp.Expr) -> sp.Expr:
    """A cheaper equal form, if targeted rewrites find one (never ``simplify()``)."""
    cost = sp.count_ops(expr)
    if cost == 0 or cost > SIMPLIFY_LIMIT:
        return expr
    best = expr
    stable = stability_rewrites(expr) if expr.has(sp.log, sp.exp) else expr
    if stable != expr:
        best, cost = stable, sp.count_ops(stable)
    factored = sp.factor_terms(best)
    if sp.count_ops(factored) < cost:
        best = factored
    # A rewrite that cancels a symbol away could also cancel away the shape it carried.
    return best if best.free_symbols == expr.free_symbols else expr


SIMPLIFY_SECONDS = 5.0


def simplify_statements(
    statements: list[Statement], budget: float = SIMPLIFY_SECONDS
) -> list[Statement]:
    """Tidy each statement until the time budget is spent; the rest stay as they are (still right)."""
    deadline = time.perf_counter() + budget
    result = []
    for statement in statements:
        tidy = time.perf_counter() < deadline
        result.append(statement.with_expr(_tidy(statement.expr)) if tidy else statement)
    return result


def common_subexpressions(program: Program) -> list[Statement]:
    """``sympy.cse`` over all statements; temporaries go right before their first use.

    A temporary is named after the statement that first needs it
    (``loss_t0``), so that a change elsewhere does not renumber it.
    """
    statements = program.statements
    if not statements:
        return statements
    replacements, reduced = sp.cse(
        [s.expr for s in statements],
        symbols=sp.numbered_symbols("_cse", real=True),
        order="canonical",
        optimizations=None,
    )
    # A run-time shape (``x.shape``) stays where it is read: it costs nothing, and a backend
    # indexes a shape otherwise than an array (the portable form's arrays want ``[0, ...]``).
    shapes: dict[sp.Symbol, sp.Expr] = {}
    worth = []
    for symbol, expr in replacements:
        expr = expr.xreplace(shapes)
        if isinstance(expr, ShapeOf):
            shapes[symbol] = expr
        else:
            worth.append((symbol, expr))
    if shapes:
        replacements, reduced = worth, [expr.xreplace(shapes) for expr in reduced]
    if not replacements:
        return statements
    # Where is each temporary first needed? (directly, or through a later temporary)
    first_use: dict[sp.Symbol, int] = {}
    for index, expr in enumerate(reduced):
        for symbol in expr.free_symbols:
            first_use.setdefault(symbol, index)
    for symbol, expr in reversed(replacements):
        position = first_use.get(symbol)
        if position is None:
            continue  # the terms that used it cancelled (``c*(-t) + c*t`` is 0)
        for inner in expr.free_symbols:
            if inner in first_use:
                first_use[inner] = min(first_use[inner], position)
            else:
                first_use[inner] = position
    namer = Namer(
        [program.name]
        + [i.name for i in program.inputs]
        + [c.name for c in program.constants]
        + [s.name for s in statements]
        + [o.name for o in program.outputs]
    )
    # A statement that is a whole temporary (``y = y_t0``) takes the temporary's place.
    temporaries = {symbol for symbol, _ in replacements}
    aliased: dict[sp.Symbol, int] = {}
    for index, expr in enumerate(reduced):
        if expr in temporaries and expr not in aliased:
            aliased[expr] = index
    table = program.dtypes_by_symbol()
    renamed: dict[sp.Symbol, sp.Symbol] = {}
    pending: dict[int, list[Statement]] = {}
    replacements = [(symbol, expr) for symbol, expr in replacements if symbol in first_use]
    for symbol, expr in replacements:
        owner = statements[first_use[symbol]]
        expr = expr.xreplace(renamed)
        if symbol in aliased:
            named = statements[aliased[symbol]]
            renamed[symbol] = named.symbol
            statement = named.with_expr(expr)
        else:
            count = len(pending.get(first_use[symbol], []))
            name = namer.claim([f"{owner.name}_t{count}"])
            renamed[symbol] = sp.Symbol(name, real=True)
            dtype = expression_dtype(
                expr, table
            )  # whatever NumPy gives: temporaries are never converted
            statement = Statement(
                name,
                renamed[symbol],
                expr,
                None,
                dtype,
                owner.section,
                owner.tensor_name,
                temporary=True,
            )
            table[renamed[symbol]] = dtype
        pending.setdefault(first_use[symbol], []).append(statement)
    alias_positions = set(aliased.values())
    # The symbols each final symbol stands for, to see whether CSE cancelled one away.
    covers: dict[sp.Symbol, set] = {}
    for symbol, expr in replacements:
        covers[symbol] = set().union(*(covers.get(s, {s}) for s in expr.free_symbols))
        covers[renamed[symbol]] = covers[symbol] | {renamed[symbol]}
    result: list[Statement] = []
    for index, (statement, expr) in enumerate(zip(statements, reduced, strict=False)):
        result.extend(pending.get(index, []))
        if index in alias_positions:
            continue
        final = expr.xreplace(renamed)
        kept = set().union(*(covers.get(s, {s}) for s in final.free_symbols))
        if not statement.expr.free_symbols <= kept:
            # Substituting temporaries made terms cancel (2*s*c - 2*c*s): the result lost
            # symbols and possibly its shape; keep this statement as it was.
            result.append(statement)
            continue
        result.append(statement.with_expr(final))
    return _masks_in_their_readers_precision(result, table)


# Float dtypes from the narrowest.
_FLOAT_DTYPES = ("float16", "float32", "float64")


def _masks_in_their_readers_precision(
    statements: list[Statement], table: dict[sp.Symbol, Any]
) -> list[Statement]:
    """Give a temporary that turns bool masks into numbers the narrowest float dtype of the
    statements that read it.

    Such a temporary (``np.greater_equal(x, y) + np.less(x, y)`` from a tie's gradient) has
    NumPy's weak float type: the printer writes its masks as numbers of the statement's own
    float dtype. Alone, it would be float64, and make a float32 statement that reads it
    float64. Its values (0, 1, 2, ...) are exact in every float dtype, and a narrower one
    promotes in a wider statement, so the narrowest reader's dtype keeps every reader's.
    """
    readers: dict[sp.Symbol, list[int]] = {}
    for index, statement in enumerate(statements):
        for symbol in statement.expr.free_symbols:
            readers.setdefault(symbol, []).append(index)
    result = list(statements)
    for index in reversed(range(len(result))):  # a temporary's readers come after it
        statement = result[index]
        if not statement.temporary or statement.dtype != WEAK_FLOAT:
            continue
        if not any(
            expression_dtype(node, table) == "bool"
            for node in sp.preorder_traversal(statement.expr)
            if isinstance(node, sp.Expr)
        ):
            continue
        dtypes = {dtype_name(result[r].dtype) for r in readers.get(statement.symbol, [])}
        floats = [d for d in _FLOAT_DTYPES if d in dtypes]
        if floats:
            result[index] = replace(statement, dtype=floats[0])
    return result


def deduplicate(program: Program) -> Program:
    """Bind each distinct right-hand side once (the same gradient built twice, say).

    Equal expressions of different dtypes stay apart: ``2/3`` in float32 and in
    float64 are two values (TF computes each in its own precision), and so do two equal
    expressions that are not pure (two random draws are two arrays).
    """
    first: dict[tuple[sp.Expr, str], sp.Symbol] = {}
    alias: dict[sp.Symbol, sp.Symbol] = {}
    kept: list[Statement] = []
    for statement in program.statements:
        expr = statement.expr.xreplace(alias) if alias else statement.expr
        if not is_pure(expr):
            kept.append(statement.with_expr(expr))
            continue
        key = (expr, str(statement.dtype))
        if key in first:
            alias[statement.symbol] = first[key]
            continue
        first[key] = statement.symbol
        kept.append(statement.with_expr(expr))
    outputs = [replace(o, symbol=alias.get(o.symbol, o.symbol)) for o in program.outputs]
    return replace(program, statements=kept, outputs=outputs)


SECTION_ORDER = {"forward": 0, "gradient": 1, "update": 2}


def schedule(
    statements: list[Statement], priority: Callable[[Statement], int] | None = None
) -> list[Statement]:
    """Forward values first, then gradients, then updates, as far as dependencies allow.

    A topological order that, among ready statements, takes the earliest
    section, then the lowest ``priority`` if given, then the original
    position: deterministic, and contiguous sections read better.
    """

    def key(i: int) -> tuple[int, int, int]:
        statement = statements[i]
        return (SECTION_ORDER.get(statement.section, 0), priority(statement) if priority else 0, i)

    position = {s.symbol: i for i, s in enumerate(statements)}
    waiting_on = {
        i: {position[d] for d in s.expr.free_symbols if d in position}
        for i, s in enumerate(statements)
    }
    users: dict[int, list[int]] = {i: [] for i in range(len(statements))}
    for i, deps in waiting_on.items():
        for d in deps:
            users[d].append(i)
    ready = [key(i) for i in range(len(statements)) if not waiting_on[i]]
    heapq.heapify(ready)
    order: list[Statement] = []
    while ready:
        *_, i = heapq.heappop(ready)
        order.append(statements[i])
        for user in users[i]:
            waiting_on[user].discard(i)
            if not waiting_on[user]:
                heapq.heappush(ready, key(user))
    return order


def eliminate_dead_code(program: Program) -> list[Statement]:
    """Drop statements that no output needs (e.g. values read only for their shape)."""
    needed = {o.symbol for o in program.outputs}
    kept: list[Statement] = []
    for statement in reversed(program.statements):
        if statement.symbol in needed:
            kept.append(statement)
            needed |= statement.expr.free_symbols
    return kept[::-1]
