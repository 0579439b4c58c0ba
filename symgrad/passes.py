"""The optimizer: an explicit list of named Program → Program passes.

Each pass takes a Program and returns one; none prints anything or knows the
backend. :data:`PASSES` runs for every compiled module, :data:`FAST_PASSES`
after them for the fast form (``compile(optimize=True)``, the default).
``symgrad show --after PASS`` prints the Program after any of them.

A new pass is a function ``Program -> Program`` and one :class:`Pass` entry in
the list, where its order among the others says what it may assume.

>>> [p.name for p in PASSES + FAST_PASSES]  # doctest: +NORMALIZE_WHITESPACE
['value-numbering', 'simplify', 'schedule', 'dce', 'cse',
 'fold-scalar-factors', 'blas-reductions', 'memory-schedule']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

import sympy as sp

from .errors import InvalidArgumentError
from .expression_dtypes import WEAK_FLOAT, WEAK_INT, expression_dtype
from .ops import functions as F
from .optimize import (
    common_subexpressions,
    deduplicate,
    eliminate_dead_code,
    schedule,
    simplify_statements,
)
from .program import Program, Statement
from .shapes import Signature
from .signatures import natural_signature

# Float dtypes BLAS computes in, and the in-place planner writes into.
FLOATS = ("float32", "float64")


@dataclass(frozen=True)
class Pass:
    """A named Program → Program rewrite.

    ``simplifying`` passes are skipped by ``compile(simplify=False)``.
    """

    name: str
    run: Callable[[Program], Program]
    doc: str
    simplifying: bool = False


# --- fast-form rewrites --------------------------------------------------------------------


def is_array(signature: Signature | None) -> TypeGuard[tuple[Any, ...]]:
    """A signature of rank >= 1 (NumPy gives 0-d results as scalars, which have no ``out``)."""
    return isinstance(signature, tuple) and len(signature) >= 1


# --- naturals ---------------------------------------------------------------------------------


def statement_naturals(program: Program) -> dict[sp.Expr, Signature]:
    """Run-time signatures of every symbol, with CSE temporaries worked out from their expressions."""
    known: dict[sp.Expr, Signature] = dict(program.naturals)
    for statement in program.statements:
        if statement.symbol not in known:
            natural = natural_signature(statement.expr, known)
            if natural is not None:
                known[statement.symbol] = natural
    return known


# --- reductions of products as dot products ---------------------------------------------------


def _is_full_reduction(node: sp.Expr, known: dict[sp.Expr, Signature]) -> bool:
    value, axes, keepdims = node.args
    natural = natural_signature(value, known)
    if keepdims or not is_array(natural):
        return False
    return not len(axes) or sorted(int(a) for a in axes) == list(range(len(natural)))


def _as_dot(
    node: sp.Expr, known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> sp.Expr | None:
    """``np.sum(c*a*b)`` as ``c*(a @ b)`` (and the mean likewise), or None if it is no such sum."""
    if type(node) not in (F.ReduceSum, F.ReduceMean) or not _is_full_reduction(node, known):
        return None
    value = node.args[0]
    factors = list(value.args) if isinstance(value, sp.Mul) else [value]
    scalars = [f for f in factors if natural_signature(f, known) == ()]
    arrays = [f for f in factors if f not in scalars]
    if (
        len(arrays) == 1
        and isinstance(arrays[0], sp.Pow)
        and arrays[0].exp == 2
        and arrays[0].base.is_Symbol
    ):
        arrays = [arrays[0].base, arrays[0].base]
    if len(arrays) < 2:
        return None
    signature = natural_signature(arrays[0], known)
    dtype = dtype_of(arrays[0])
    if dtype not in FLOATS or any(natural_signature(a, known) != signature for a in arrays):
        return None
    if any(dtype_of(f) not in (dtype, WEAK_INT, WEAK_FLOAT) for f in factors):
        return None  # a float64 scalar would have made NumPy sum in float64
    dot = F.Dot(sp.Mul(*arrays[:-1]), arrays[-1], sp.Integer(len(signature)))  # type: ignore[arg-type]  # an array signature (checked by the caller)
    result = sp.Mul(*scalars, dot)
    if isinstance(node, F.ReduceMean):
        count = 1
        for dim in signature:  # type: ignore[union-attr]  # an array signature (checked by the caller)
            if not isinstance(dim, int):
                # Known at run time only: the size of an operand that is a name (printing
                # ``np.size`` of an expression would evaluate it).
                named = [a for a in arrays if a.is_Symbol]
                return result / F.Count(named[0]) if named else None
            count *= dim
        result = result / count
    return result


_NO, _YES, _MATRIX = (
    sp.Integer(0),
    sp.Integer(1),
    sp.Integer(2),
)  # MatMulNode's transpose flags and rank


def _as_matmul(
    node: sp.Expr, known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> sp.Expr | None:
    """``np.sum(c*a*b, axis=k, keepdims=True)`` of ``a`` [N, M] and ``b`` [N, 1] (k=0) or
    [1, M] (k=1) as ``c*(b.T @ a)`` or ``c*(a @ b.T)``: no [N, M] temporary. None if it is no such sum.

    The gradient of a parameter broadcast along one axis of a matrix (an outer product's
    factor, a per-row or per-column scale) is this sum.
    """
    if type(node) is not F.ReduceSum or not isinstance(node.args[0], sp.Mul):
        return None
    value, axes, keepdims = node.args
    if not keepdims or len(axes) != 1:
        return None
    scalars = [f for f in value.args if natural_signature(f, known) == ()]
    arrays = [f for f in value.args if f not in scalars]
    result = natural_signature(value, known)
    if len(arrays) != 2 or not isinstance(result, tuple) or len(result) != 2:
        return None
    dtype = dtype_of(arrays[0])
    if dtype not in FLOATS or dtype_of(arrays[1]) != dtype:
        return None
    if any(dtype_of(f) not in (dtype, WEAK_INT, WEAK_FLOAT) for f in scalars):
        return None
    axis = int(axes[0]) % 2
    rows, columns = result
    for full, factor in (arrays, arrays[::-1]):
        if natural_signature(full, known) != result:
            continue
        shape = natural_signature(factor, known)
        if axis == 0 and shape == (rows, 1):
            return sp.Mul(*scalars, F.MatMulNode(factor, full, _YES, _NO, _MATRIX, _MATRIX))
        if axis == 1 and shape == (1, columns):
            return sp.Mul(*scalars, F.MatMulNode(full, factor, _NO, _YES, _MATRIX, _MATRIX))
    return None


def _scalars_outside(
    node: sp.Expr, known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> sp.Expr | None:
    """``np.sum(c*a, axis)`` as ``c*np.sum(a, axis)`` for scalars ``c`` (the mean likewise), or None."""
    if type(node) not in (F.ReduceSum, F.ReduceMean) or not isinstance(node.args[0], sp.Mul):
        return None
    value = node.args[0]
    scalars = [f for f in value.args if natural_signature(f, known) == ()]
    arrays = [f for f in value.args if f not in scalars]
    if not scalars or not arrays:
        return None
    dtype = dtype_of(sp.Mul(*arrays))
    if dtype not in FLOATS or any(
        dtype_of(f) not in (dtype, WEAK_INT, WEAK_FLOAT) for f in scalars
    ):
        return None  # a float64 scalar would have made NumPy sum in float64
    return sp.Mul(*scalars, type(node)(sp.Mul(*arrays), *node.args[1:]))


def _reduced_only(expr: sp.Basic, symbol: sp.Symbol, reduced: bool = False) -> bool:
    """Is every read of ``symbol`` in ``expr`` a factor of the value a ReduceSum or ReduceMean sums?"""
    if expr == symbol:
        return reduced
    if type(expr) in (F.ReduceSum, F.ReduceMean):
        value = expr.args[0]
        inside = value.args if isinstance(value, sp.Mul) else (value,)
        return all(_reduced_only(f, symbol, f == symbol) for f in inside) and all(
            _reduced_only(a, symbol) for a in expr.args[1:]
        )
    return all(_reduced_only(a, symbol) for a in expr.args)


def _count(factor: sp.Expr) -> bool:
    """A run-time element count of a name, or its reciprocal (the divisor of a mean's gradient)."""
    if isinstance(factor, sp.Pow) and factor.exp == -1:
        factor = factor.base
    return isinstance(factor, (F.SizeOf, F.Count)) and factor.args[0].is_Symbol


def fold_scalar_factors(
    statements: list[Statement],
    known: dict[sp.Expr, Signature],
    dtype_of: Callable[[sp.Expr], str],
    returned: set[sp.Symbol],
) -> list[Statement]:
    """Drop ``g = c*a`` (``c`` scalars) when every read of ``g`` is inside a sum: ``c*np.sum(a*x)``.

    The gradient of a mean is such a ``g``; summing ``a`` and scaling the scalar
    result saves a pass over the array.
    """
    readers: dict[sp.Symbol, list[int]] = {}
    for index, statement in enumerate(statements):
        for symbol in statement.expr.free_symbols:
            readers.setdefault(symbol, []).append(index)
    statements = list(statements)
    dropped: set[int] = set()
    for index, statement in enumerate(statements):
        expr, symbol = statement.expr, statement.symbol
        if not isinstance(expr, sp.Mul) or symbol in returned or not is_array(known.get(symbol)):
            continue
        scalars = [
            f
            for f in expr.args
            if natural_signature(f, known) == () and (f.is_Symbol or f.is_Number or _count(f))
        ]
        arrays = [f for f in expr.args if f not in scalars]
        if not scalars or len(arrays) != 1 or not arrays[0].is_Symbol or not readers.get(symbol):
            continue
        if not all(_reduced_only(statements[r].expr, symbol) for r in readers[symbol]):
            continue
        for r in readers[symbol]:
            reader = statements[r].expr.xreplace({symbol: expr})
            pulled = {
                node: _scalars_outside(node, known, dtype_of)
                for node in reader.atoms(F.ReduceSum, F.ReduceMean)
            }
            statements[r] = statements[r].with_expr(
                reader.xreplace({node: new for node, new in pulled.items() if new is not None})
            )
            for read in expr.free_symbols:
                readers.setdefault(read, []).append(r)
        dropped.add(index)
    return [s for i, s in enumerate(statements) if i not in dropped]


def blas_reductions(
    statements: list[Statement], known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> list[Statement]:
    rewritten = []
    for statement in statements:
        expr = statement.expr
        if expr.has(F.ReduceSum):
            dots = {
                node: _as_dot(node, known, dtype_of) or _as_matmul(node, known, dtype_of)
                for node in expr.atoms(F.ReduceSum)
            }
            expr = expr.xreplace({node: dot for node, dot in dots.items() if dot is not None})
        rewritten.append(statement.with_expr(expr))
    return rewritten


# --- scheduling -----------------------------------------------------------------------------


def memory_schedule(
    statements: list[Statement], known: dict[sp.Expr, Signature]
) -> list[Statement]:
    """Within each section, scalar results first: their operands may then die sooner."""
    return schedule(statements, lambda s: 0 if known.get(s.symbol) == () else 1)


# --- the passes as Program -> Program ----------------------------------------------------------


def _statements_pass(rewrite: Callable[[Program], list[Statement]]) -> Callable[[Program], Program]:
    @functools.wraps(rewrite)
    def run(program: Program) -> Program:
        return replace(program, statements=rewrite(program))

    return run


def _dtype_of(program: Program) -> Callable[[sp.Expr], str]:
    """``expression_dtype`` over the program's symbols, remembering subexpressions."""
    return functools.partial(expression_dtype, table=program.dtypes_by_symbol(), memo={})


def _returned(program: Program) -> set[sp.Symbol]:
    return set().union(*(sp.sympify(o.symbol).free_symbols for o in program.outputs))


PASSES: list[Pass] = [
    Pass("value-numbering", deduplicate, "bind each distinct right-hand side once"),
    Pass(
        "simplify",
        _statements_pass(lambda p: simplify_statements(p.statements)),
        "stability rewrites (log1p, expm1) and bounded, targeted simplification",
        simplifying=True,
    ),
    Pass(
        "schedule",
        _statements_pass(lambda p: schedule(p.statements)),
        "forward values, then gradients, then updates, as far as dependencies allow",
    ),
    Pass("dce", _statements_pass(eliminate_dead_code), "drop statements no output needs"),
    Pass("cse", _statements_pass(common_subexpressions), "common subexpressions as temporaries"),
]

FAST_PASSES: list[Pass] = [
    Pass(
        "fold-scalar-factors",
        _statements_pass(
            lambda p: fold_scalar_factors(
                p.statements, statement_naturals(p), _dtype_of(p), _returned(p)
            )
        ),
        "an array that is a scalar times another, read only by sums, is not computed",
    ),
    Pass(
        "blas-reductions",
        _statements_pass(
            lambda p: blas_reductions(p.statements, statement_naturals(p), _dtype_of(p))
        ),
        "sums of products as dot and matrix products",
    ),
    Pass(
        "memory-schedule",
        _statements_pass(lambda p: memory_schedule(p.statements, statement_naturals(p))),
        "scalar results first, so that their operands die sooner",
    ),
]


def pass_names() -> list[str]:
    return [p.name for p in PASSES + FAST_PASSES]


def run_passes(
    program: Program,
    *,
    simplify: bool = True,
    fast: bool = True,
    until: str | None = None,
    passes: Sequence[Pass] | None = None,
) -> Program:
    """``program`` through the pipeline (``PASSES``, then ``FAST_PASSES`` with ``fast``).

    ``until`` stops after the pass of that name (it runs even if ``fast`` is off).
    """
    if until is not None and until not in pass_names():
        raise InvalidArgumentError(
            f"symgrad: no pass named {until!r}; the passes are {', '.join(pass_names())}"
        )
    pipeline = list(passes) if passes is not None else PASSES + FAST_PASSES
    fast_names = {p.name for p in FAST_PASSES}
    for step in pipeline:
        if step.simplifying and not simplify:
            continue
        if step.name in fast_names and not fast and until is None:
            continue
        program = step.run(program)
        if step.name == until:
            break
    return program
