"""The optimizer: an explicit list of named Program → Program passes.

Each pass takes a Program and returns one; none prints anything or knows the
backend. :data:`PASSES` runs for every compiled module, :data:`FAST_PASSES`
after them for the fast form (``compile(optimize=True)``, the default).
``symgrad show --after PASS`` prints the Program after any of them.

A new pass is a function ``Program -> Program`` and one :class:`Pass` entry in
the list, where its order among the others says what it may assume.

>>> [p.name for p in PASSES + FAST_PASSES]  # doctest: +NORMALIZE_WHITESPACE
['value-numbering', 'simplify', 'schedule', 'dce', 'cse',
 'fold-scalar-factors', 'blas-reductions', 'leading-sums', 'conv-biases',
 'masked-pool-gradients', 'pooled-bias-sums', 'pool-first-taps', 'pooled-convolutions',
 'sliced-products', 'memory-schedule']
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

import sympy as sp

from .dtypes import variant
from .errors import InvalidArgumentError
from .expression_dtypes import WEAK_FLOAT, WEAK_INT, expression_dtype
from .naming import Namer
from .ops import functions as F
from .ops.array_nodes import Index
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


# How many products in a row may leave their scalar factors to the next one. The array a
# deferral computes differs from the value it stands for by the factors deferred so far;
# bounding how many accumulate bounds how far its magnitude can drift towards overflow or
# underflow (a few dozen factors of 10 span the float32 range), at the cost of one pass over
# the array in every DEFERRAL_LIMIT + 1 products.
DEFERRAL_LIMIT = 8


@dataclass
class _ScalarFolding:
    """The state of :func:`fold_scalar_factors` as it walks the statements."""

    statements: list[Statement]
    known: dict[sp.Expr, Signature]
    table: dict[sp.Symbol, Any]  # dtypes, with the symbols this pass adds
    namer: Namer
    readers: dict[sp.Symbol, set[int]] = field(default_factory=dict)
    # How many products' scalar factors an unscaled array lacks.
    deferred: dict[sp.Symbol, int] = field(default_factory=dict)
    added: list[Statement] = field(default_factory=list)  # scale statements, placed by the caller

    def dtype_of(self, expr: sp.Expr) -> str:
        return expression_dtype(expr, self.table)

    def read_by(self, index: int, expr: sp.Expr) -> None:
        for symbol in expr.free_symbols:
            self.readers.setdefault(symbol, set()).add(index)

    def scalar_factors(self, expr: sp.Mul) -> list[sp.Expr]:
        return [
            f
            for f in expr.args
            if natural_signature(f, self.known) == () and (f.is_Symbol or f.is_Number or _count(f))
        ]

    def carries_a_scale(self, expr: sp.Expr, symbol: sp.Symbol) -> bool:
        """Is ``symbol`` read by ``expr`` only as a factor of it, a product with scalar factors
        of its own (or inside sums)?

        Such a product multiplies by its scalars anyway, in one pass over the array, so one
        scalar more costs nothing there.
        """
        if not isinstance(expr, sp.Mul) or symbol not in expr.args:
            return False
        multipliers = [  # the planner divides by reciprocals and by a fraction's denominator
            f
            for f in self.scalar_factors(expr)
            if not (isinstance(f, sp.Pow) and f.exp == -1)
            and not (f.is_Rational and not f.is_Integer)
        ]
        return bool(multipliers) and all(_reduced_only(f, symbol) for f in expr.args if f != symbol)

    def sums_pull_out(self, expr: sp.Expr, symbol: sp.Symbol, scale: sp.Expr) -> bool:
        """Would every sum in ``expr`` that reads ``symbol`` take a ``scale`` on it outside?"""
        scaled = expr.xreplace({symbol: scale * symbol})
        return all(
            _scalars_outside(node, self.known, self.dtype_of) is not None
            for node in scaled.atoms(F.ReduceSum, F.ReduceMean)
            if node.has(symbol)
        )

    def substitute(self, symbol: sp.Symbol, value: sp.Expr) -> None:
        """``value`` for ``symbol`` in each statement that reads it, scalars taken out of sums."""
        for index in sorted(self.readers.get(symbol, ())):
            reader = self.statements[index].expr.xreplace({symbol: value})
            pulled = {
                node: _scalars_outside(node, self.known, self.dtype_of)
                for node in reader.atoms(F.ReduceSum, F.ReduceMean)
            }
            reader = reader.xreplace({node: p for node, p in pulled.items() if p is not None})
            self.statements[index] = self.statements[index].with_expr(reader)
            self.read_by(index, value)

    def scale_for(self, statement: Statement, scalars: list[sp.Expr]) -> sp.Expr:
        """One factor for ``scalars``: the factor itself if it is alone, else a new statement
        ``<name>_scale`` (so that a chain of products does not multiply ever longer lists)."""
        if len(scalars) == 1:
            return scalars[0]
        product = sp.Mul(*scalars)
        name = self.namer.claim([f"{statement.name}_scale"])
        symbol = sp.Symbol(name, real=True)
        dtype = self.dtype_of(product)
        self.added.append(
            Statement(
                name, symbol, product, (), dtype, statement.section, statement.tensor_name, True
            )
        )
        self.known[symbol] = ()
        self.table[symbol] = dtype
        return symbol

    def fold(self, index: int, returned: set[sp.Symbol]) -> bool:
        """Fold the scalars of statement ``index`` into its readers; False if it is dropped."""
        statement = self.statements[index]
        expr, symbol = statement.expr, statement.symbol
        if (
            not isinstance(expr, sp.Mul)
            or symbol in returned
            or not is_array(self.known.get(symbol))
        ):
            return True
        scalars = self.scalar_factors(expr)
        arrays = [f for f in expr.args if f not in scalars]
        readers = [self.statements[r].expr for r in sorted(self.readers.get(symbol, ()))]
        if not scalars or not arrays or not readers:
            return True
        products = [r for r in readers if not _reduced_only(r, symbol)]
        if len(arrays) == 1 and arrays[0].is_Symbol:
            if products:
                return True  # each product would compute ``c*a`` again
            self.substitute(symbol, expr)
            return False
        dtype = self.dtype_of(sp.Mul(*arrays))
        if dtype not in FLOATS or any(
            self.dtype_of(f) not in (dtype, WEAK_INT, WEAK_FLOAT) for f in scalars
        ):
            return True  # without its scalars, the product would have another dtype
        depth = 1 + max(self.deferred.get(f, 0) for f in expr.args)
        if depth > DEFERRAL_LIMIT or not all(self.carries_a_scale(r, symbol) for r in products):
            return True
        if not all(self.sums_pull_out(r, symbol, sp.Mul(*scalars)) for r in readers):
            return True
        scale = self.scale_for(statement, scalars)
        name = self.namer.claim([f"{statement.name}_unscaled"])
        unscaled = sp.Symbol(name, real=True)
        self.known[unscaled] = self.known[symbol]
        self.table[unscaled] = statement.dtype
        self.deferred[unscaled] = depth
        self.statements[index] = replace(
            statement, name=name, symbol=unscaled, expr=sp.Mul(*arrays)
        )
        self.substitute(symbol, scale * unscaled)
        return True


def _namer(program: Program) -> Namer:
    """Names for the statements a pass adds, free among the program's own."""
    return Namer(
        [program.name]
        + [i.name for i in program.inputs]
        + [c.name for c in program.constants]
        + [s.name for s in program.statements]
        + [o.name for o in program.outputs]
    )


def fold_scalar_factors(
    program: Program, known: dict[sp.Expr, Signature], returned: set[sp.Symbol]
) -> list[Statement]:
    """Carry the scalar factors of ``g = c*a*b`` (``c`` scalars, ``a``, ``b`` arrays) to
    where ``g`` is read, when every read can take them for free.

    A read inside a sum takes them outside it (``np.sum(g*x)`` is ``c*np.sum(a*b*x)``); a
    read as a factor of another product that has scalar factors of its own multiplies by
    them with those (``h = w*g*u`` is ``(w*c)*a*b*u``), and may carry them on in turn. Then
    ``g`` is computed without ``c``, as ``g_unscaled``, and ``g = c*a`` (``a`` a name) is
    not computed at all. Each saves a pass over the array: the gradient of a mean, a chain
    of scalar weights (``d_pre_k = w_k1*(1 - z_k**2)*d_pre_k1``). Scales that several
    products carried on are one scalar statement, ``g_scale``; at most
    ``DEFERRAL_LIMIT`` products in a row defer.
    """
    state = _ScalarFolding(
        statements=list(program.statements),
        known=known,
        table=program.dtypes_by_symbol(),
        namer=_namer(program),
    )
    for index, statement in enumerate(state.statements):
        state.read_by(index, statement.expr)
    placed: list[Statement] = []
    for index in range(len(state.statements)):
        state.added = []
        kept = state.fold(index, returned)
        placed.extend(state.added)  # a scale goes right before the array it scales
        if kept:
            placed.append(state.statements[index])
    return placed


def _rewrite_nodes(
    statements: list[Statement], kind: type, rewrite: Callable[[sp.Expr], sp.Expr | None]
) -> list[Statement]:
    """``statements`` with each node of type ``kind`` replaced by ``rewrite(node)`` where that
    is not None, nested ones too: a replacement is built from the node's old arguments, so
    the nodes inside one rewritten are found again in the new expression (a first conv's
    bias inside the second conv's input, in a CNN written as one expression)."""
    rewritten = []
    for statement in statements:
        expr = statement.expr
        while expr.has(kind):
            found = {node: rewrite(node) for node in expr.atoms(kind)}
            replaced = expr.xreplace({n: new for n, new in found.items() if new is not None})
            if replaced == expr:
                break
            expr = replaced
        rewritten.append(statement.with_expr(expr))
    return rewritten


def blas_reductions(
    statements: list[Statement], known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> list[Statement]:
    return _rewrite_nodes(
        statements,
        F.ReduceSum,
        lambda node: _as_dot(node, known, dtype_of) or _as_matmul(node, known, dtype_of),
    )


def _leading_sum(
    node: sp.Expr, known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> sp.Expr | None:
    """``x.sum(axis=(0, 1, 2))`` of a float array of rank 3 or more summed over every axis but
    the last (a convolution's bias gradient) as the kernel ``_sum_leading_axes``: a product
    of a ones vector and x's rows, one BLAS call, where NumPy's sum over leading axes runs
    column by column (165 against 9 µs on [50, 14, 14, 8] float32)."""
    if type(node) is not F.ReduceSum or node.args[2]:
        return None
    value, axes = node.args[0], node.args[1]
    natural = natural_signature(value, known)
    if not isinstance(natural, tuple) or len(natural) < 3 or dtype_of(value) not in FLOATS:
        return None
    if sorted(int(a) for a in axes) != list(range(len(natural) - 1)):
        return None
    return F.helper("_sum_leading_axes", value)


def leading_sums(
    statements: list[Statement], known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> list[Statement]:
    return _rewrite_nodes(statements, F.ReduceSum, lambda n: _leading_sum(n, known, dtype_of))


def _conv_with_bias(
    node: sp.Expr,
    known: dict[sp.Expr, Signature],
    dtype_of: Callable[[sp.Expr], str],
    fused_naturals: dict[sp.Expr, Any],
) -> sp.Expr | None:
    """``_conv2d(x, w, ...) + b`` (``b`` one value per output channel, of the convolution's
    dtype: a conv layer's bias) as ``_conv2d_bias(x, w, b, ...)``, which adds the bias to
    each chunk of the output while it is in cache; None if there is no such pair. The
    fused call's run-time signature, the convolution's, goes into ``fused_naturals``."""
    conv = next((a for a in node.args if _is_helper(a, "_conv2d")), None)
    if conv is None:
        return None
    x, w, strides, dilations, padding = conv.args[2:]
    filters, natural = natural_signature(w, known), natural_signature(conv, known)
    if not isinstance(filters, tuple) or len(filters) != 4 or natural is None:
        return None
    dtype = dtype_of(conv)
    bias = next(
        (
            a
            for a in node.args
            if a is not conv
            and natural_signature(a, known) == (filters[3],)
            and dtype_of(a) == dtype
            and dtype in FLOATS
        ),
        None,
    )
    if bias is None:
        return None
    fused = F.helper("_conv2d_bias", x, w, bias, strides, dilations, padding)
    fused_naturals[fused] = natural
    return sp.Add(fused, *(a for a in node.args if a is not conv and a is not bias))


def conv_biases(program: Program) -> Program:
    known, dtype_of = statement_naturals(program), _dtype_of(program)
    fused: dict[sp.Expr, Any] = {}
    statements = _rewrite_nodes(
        program.statements, sp.Add, lambda n: _conv_with_bias(n, known, dtype_of, fused)
    )
    return replace(program, statements=statements, naturals={**program.naturals, **fused})


def _masked_pool_gradient(node: sp.Expr) -> sp.Expr | None:
    """``_max_pool_grad(x, y, dy, ksize, strides, padding) * (x > c)`` (relu's gradient
    after a max-pool of its output), for windows that do not overlap (``strides`` equal to
    ``ksize``), as ``_max_pool_grad(x, y, dy * (y > c), ...)``: the mask on the pooled
    array, a quarter of the size for 2x2 windows, and no product over x's.

    Exact: each element of x gets either ``+0.0`` (not its window's first maximum; times a
    mask of 0 or 1 it stays ``+0.0``) or its window's ``dy``, and the window's first maximum
    *is* ``y``, so ``x > c`` there is ``y > c``. (Overlapping windows would add several
    ``dy`` first, and a sum that overflows times 0 is NaN where the rewrite gives 0.)"""
    pool = next((a for a in node.args if _is_helper(a, "_max_pool_grad")), None)
    if pool is None:
        return None
    x, y, dy, ksize, strides, padding = pool.args[2:]
    # y a statement of its own (a forward value): an expression would be computed twice.
    if not y.is_Symbol or ast.literal_eval(ksize.name) != ast.literal_eval(strides.name):
        return None
    masks = [
        a
        for a in node.args
        if isinstance(a, F.Greater) and a.args[0] == x and isinstance(a.args[1], sp.Number)
    ]
    if not masks:
        return None
    pooled_masks = [type(m)(y, m.args[1]) for m in masks]
    routed = F.helper("_max_pool_grad", x, y, sp.Mul(dy, *pooled_masks), ksize, strides, padding)
    others = [a for a in node.args if a is not pool and a not in masks]
    return sp.Mul(routed, *others)


def _is_helper(node: sp.Basic, name: str) -> bool:
    return isinstance(node, F.Helper) and node.args[0] == F.Literal(name)


def masked_pool_gradients(statements: list[Statement]) -> list[Statement]:
    return _rewrite_nodes(statements, sp.Mul, _masked_pool_gradient)


def _pool_taps_call(node: sp.Basic, pool: sp.Expr, y: sp.Symbol, taps: sp.Symbol, size: Any) -> Any:
    """``_max_pool_grad(x, y, dy, k, k, p)``, the gradient of ``y = pool`` (``_max_pool(x, k,
    k, p)``), as ``_max_pool_grad_at_taps(dy, taps, k, p, size)``; None for any other node."""
    if not _is_helper(node, "_max_pool_grad"):
        return None
    x, pooled, dy, ksize, strides, padding = node.args[2:]
    if (pooled, x, ksize, strides, padding) != (y, *pool.args[2:]):
        return None
    return F.helper("_max_pool_grad_at_taps", dy, taps, ksize, padding, size)


def pool_first_taps(program: Program, known: dict[sp.Expr, Signature]) -> list[Statement]:
    """For a max-pool ``y = _max_pool(x, k, k, p)`` whose windows do not overlap and whose
    gradient the program takes (``_max_pool_grad(x, y, dy, ...)``): the index of each
    window's first maximum right after the pool, ``y_taps = _max_pool_first_taps(x, y, k,
    p)``, while ``x`` is still in cache, and the gradient from it,
    ``_max_pool_grad_at_taps(dy, y_taps, ...)``. The backward pass then reads a uint8
    array a quarter of ``y``'s size (2x2 windows) instead of ``x`` again, and ``x`` (a
    relu's output, the largest array of a CNN) need not live until then. Needs ``x``'s
    height and width known before run time (the gradient's size)."""
    statements = list(program.statements)
    namer = _namer(program)
    placed: list[Statement] = []
    for index, statement in enumerate(statements):
        placed.append(statement)
        pool = statement.expr
        if not _is_helper(pool, "_max_pool"):
            continue
        x, ksize, strides, padding = pool.args[2:]
        natural = known.get(x)
        sizes = natural[1:3] if isinstance(natural, tuple) and len(natural) == 4 else ()
        if ast.literal_eval(ksize.name) != ast.literal_eval(strides.name) or not all(
            isinstance(d, int) for d in sizes
        ):
            continue
        y = statement.symbol
        later = statements[index + 1 :]
        size = F.literal(tuple(sizes))
        if not any(
            _pool_taps_call(n, pool, y, y, size) is not None
            for later_statement in later
            for n in later_statement.expr.atoms(F.Helper)
        ):
            continue
        name = namer.claim([f"{statement.name}_taps"])
        taps = sp.Symbol(name, real=True)
        first_taps = F.helper("_max_pool_first_taps", x, y, ksize, padding, dtype="uint8")
        placed.append(Statement(name, taps, first_taps, (), "uint8", statement.section, "", True))
        for offset, later_statement in enumerate(later, start=index + 1):
            found = {
                n: _pool_taps_call(n, pool, y, taps, size)
                for n in later_statement.expr.atoms(F.Helper)
            }
            replacements = {n: new for n, new in found.items() if new is not None}
            if replacements:
                statements[offset] = later_statement.with_expr(
                    later_statement.expr.xreplace(replacements)
                )
    return placed


def _readers(statements: list[Statement], symbol: sp.Symbol) -> list[int]:
    """The positions of the statements whose expressions read ``symbol``."""
    return [i for i, s in enumerate(statements) if symbol in s.expr.free_symbols]


@dataclass
class _PooledConvolution:
    """A convolution, relu and max-pool that ``pooled_convolutions`` made one call."""

    statement: Statement  # ``y_and_taps = _conv2d_relu_max_pool(...)``
    pooled: str  # y's name
    conv: tuple[sp.Expr, ...]  # x, kernel (height, width) or None, strides, dilations, padding
    pool: tuple[sp.Expr, ...]  # the taps' symbol, ksize, padding
    rows: sp.Symbol | None = None  # the statement holding the rows it keeps, if any


def _conv_arguments(conv: sp.Expr) -> tuple[sp.Expr, ...] | None:
    """(x, w, bias, strides, dilations, padding) of a ``_conv2d_bias`` call, or of a
    ``_conv2d`` call with the bias None; else None."""
    if _is_helper(conv, "_conv2d_bias"):
        return tuple(conv.args[2:])
    if _is_helper(conv, "_conv2d"):
        x, w, strides, dilations, padding = conv.args[2:]
        return x, w, F.literal(None), strides, dilations, padding
    return None


def _fused_pool(
    statements: list[Statement], index: int, known: dict[sp.Expr, Signature]
) -> tuple[Statement, Statement, F.Helper, tuple[sp.Expr, ...]] | None:
    """If statement ``index`` is ``r = relu(conv)``, read only by a max-pool whose windows
    do not overlap and by its taps: the pool's and the taps' statements, the fused call
    and the convolution's (x, kernel, strides, dilations, padding); else None."""
    statement = statements[index]
    if not isinstance(statement.expr, F.Relu):
        return None
    arguments = _conv_arguments(statement.expr.args[0])
    if arguments is None:
        return None
    x, w, bias, strides, dilations, padding = arguments
    readers = _readers(statements, statement.symbol)
    if len(readers) != 2:
        return None
    pool, taps = (statements[i] for i in readers)
    if not (_is_helper(pool.expr, "_max_pool") and _is_helper(taps.expr, "_max_pool_first_taps")):
        return None
    r, ksize, pool_strides, pool_padding = pool.expr.args[2:]
    if r != statement.symbol or ksize != pool_strides:
        return None
    if taps.expr.args[2:] != (r, pool.symbol, ksize, pool_padding):
        return None
    filters = known.get(w)
    kernel = F.literal(tuple(filters[:2])) if isinstance(filters, tuple) else None
    call = F.helper(
        "_conv2d_relu_max_pool",
        *(x, w, bias, strides, dilations, padding, ksize, pool_padding, False),
        dtype="variant",
    )
    return pool, taps, call, (x, kernel, strides, dilations, padding)


def pooled_convolutions(program: Program) -> Program:
    """A convolution's relu read only by a max-pool whose windows do not overlap and by
    its taps (pool-first-taps), ``r = relu(_conv2d_bias(x, w, b, ...))`` (or ``_conv2d``),
    ``y = _max_pool(r, k, k, p)``, ``y_taps = _max_pool_first_taps(r, y, k, p)``, as one
    call giving both, ``_conv2d_relu_max_pool(x, w, b, ..., k, p, keep_rows)``; and the
    filter's gradient through that pool, ``_conv2d_backprop_filter(x, g, ...)`` of ``g =
    _max_pool_grad_at_taps(dy, y_taps, ...)`` read by nothing else, as
    ``_conv2d_backprop_filter_at_taps(x, dy, y_taps, ..., rows)``. A forward pass alone
    nests the three in one expression and takes no taps: there they are one
    ``_conv2d_relu_max_pool_values`` call (``_pooled_values``).

    Where the pool tiles a convolution computed by im2col (a network's first layer), the
    kernels group im2col's rows by the pool's taps: the pool compares whole contiguous
    arrays, the relu's output and the gradient before the pool are never NHWC arrays, and
    the rows the forward made (kept when the gradient reads them) serve the filter's
    gradient too. The forward's values are the same bit for bit; the filter's gradient is
    equal within rounding (its products are summed in another order)."""
    statements = program.statements
    returned = _returned(program)
    namer = _namer(program)
    known = statement_naturals(program)
    naturals = dict(program.naturals)
    fused: list[_PooledConvolution] = []
    placed: list[Statement] = []
    replaced: dict[sp.Symbol, Statement] = {}  # the pool's and taps' statements, rewritten
    for index, statement in enumerate(statements):
        if statement.symbol in replaced:
            placed.append(replaced.pop(statement.symbol))
            continue
        found = None if statement.symbol in returned else _fused_pool(statements, index, known)
        if found is None:
            placed.append(statement)
            continue
        # The call stands where the relu was; the pool and its taps read its tuple.
        pool, taps, call, conv = found
        both = sp.Symbol(namer.claim([f"{pool.name}_and_taps"]), real=True)
        pooled_dtype = pool.dtype if isinstance(pool.dtype, str) else pool.dtype.name
        items = {
            pool.symbol: F.ItemOf(both, sp.Integer(0), F.Literal(pooled_dtype)),
            taps.symbol: F.ItemOf(both, sp.Integer(1), F.Literal("uint8")),
        }
        for symbol, item in items.items():
            if symbol in known:
                naturals[item] = known[symbol]
        replaced[pool.symbol] = pool.with_expr(items[pool.symbol])
        replaced[taps.symbol] = taps.with_expr(items[taps.symbol])
        call_statement = Statement(
            both.name, both, call, (), variant, pool.section, "", True, statement.comment
        )
        ksize, pool_padding = pool.expr.args[3], pool.expr.args[5]
        fused.append(
            _PooledConvolution(call_statement, pool.name, conv, (taps.symbol, ksize, pool_padding))
        )
        placed.append(call_statement)
    placed = _filter_gradients_at_taps(placed, returned, fused, namer)
    placed = _pooled_values(placed, known, naturals)
    return replace(program, statements=placed, naturals=naturals)


def _pooled_values(
    statements: list[Statement], known: dict[sp.Expr, Signature], naturals: dict[sp.Expr, Any]
) -> list[Statement]:
    """``statements`` with each max-pool of a convolution's relu nested in an expression,
    ``_max_pool(relu(_conv2d_bias(x, w, b, ...)), k, k, p)`` (windows that do not overlap;
    the relu read nowhere else), as ``_conv2d_relu_max_pool_values(x, w, b, ..., k, p)``:
    what a forward pass alone (a prediction, an evaluation) makes of a CNN's layers, where
    no gradient reads the pool's taps. The new calls' run-time signatures, the pools',
    go into ``naturals``."""
    relus = Counter(
        node
        for statement in statements
        for node in sp.preorder_traversal(statement.expr)
        if isinstance(node, F.Relu)
    )

    def rewrite(node: sp.Expr) -> sp.Expr | None:
        if not _is_helper(node, "_max_pool"):
            return None
        relu, ksize, strides, padding = node.args[2:]
        if not isinstance(relu, F.Relu) or ksize != strides or relus[relu] != 1:
            return None
        arguments = _conv_arguments(relu.args[0])
        if arguments is None:
            return None
        fused = F.helper("_conv2d_relu_max_pool_values", *arguments, ksize, padding)
        natural = natural_signature(node, known)
        if natural is not None:
            naturals[fused] = natural
        return fused

    return _rewrite_nodes(statements, F.Helper, rewrite)


def _filter_gradients_at_taps(
    statements: list[Statement],
    returned: set[sp.Symbol],
    fused: list[_PooledConvolution],
    namer: Namer,
) -> list[Statement]:
    """``statements`` with each filter gradient through a pool's taps rewritten (see
    ``pooled_convolutions``), and the fused forward calls whose rows one reads keeping
    them, in a statement of their own right after the call."""
    statements = list(statements)
    dropped: set[int] = set()
    for index, routed in enumerate(statements):
        if not _is_helper(routed.expr, "_max_pool_grad_at_taps") or routed.symbol in returned:
            continue
        readers = _readers(statements, routed.symbol)
        if len(readers) != 1:
            continue
        reader = statements[readers[0]]
        nodes = [
            node
            for node in reader.expr.atoms(F.Helper)
            if _is_helper(node, "_conv2d_backprop_filter") and node.args[3] == routed.symbol
        ]
        if len(nodes) != 1:
            continue
        x, _, kernel, strides, dilations, padding = nodes[0].args[2:]
        dy, taps, ksize, pool_padding, size = routed.expr.args[2:]
        forward = next(
            (
                f
                for f in fused
                if f.conv == (x, kernel, strides, dilations, padding)
                and f.pool == (taps, ksize, pool_padding)
            ),
            None,
        )
        if forward is not None and forward.rows is None:
            forward.rows = sp.Symbol(namer.claim([f"{forward.pooled}_rows"]), real=True)
        rows = F.literal(None) if forward is None else forward.rows
        call = F.helper(
            "_conv2d_backprop_filter_at_taps",
            *(x, dy, taps, kernel, strides, dilations, padding, ksize, pool_padding, size, rows),
        )
        expr = reader.expr.xreplace({nodes[0]: call})
        if routed.symbol not in expr.free_symbols:  # its one reader no longer reads it
            statements[readers[0]] = reader.with_expr(expr)
            dropped.add(index)
    calls = {f.statement.symbol: f for f in fused if f.rows is not None}
    after_taps = {f.pool[0]: f for f in calls.values()}
    placed: list[Statement] = []
    for index, statement in enumerate(statements):
        if index in dropped:
            continue
        if statement.symbol in calls:  # the call keeps its rows
            call = statement.expr
            statement = statement.with_expr(call.func(*call.args[:-1], F.literal(True)))
        placed.append(statement)
        forward = after_taps.get(statement.symbol)
        if forward is not None and forward.rows is not None:
            # The call's third value, after its pool and taps: the rows, or None where it
            # made none (the pool not tiling an im2col convolution, more than one chunk of
            # images); a variant, let go after its last read as the tuple is.
            rows = F.ItemOf(forward.statement.symbol, sp.Integer(2), F.Literal("variant"))
            placed.append(
                Statement(
                    forward.rows.name, forward.rows, rows, (), variant, statement.section, "", True
                )
            )
    return placed


def _sums_over_windows(node: sp.Expr) -> bool:
    """Does the sum ``node`` add up whole pooling windows: over both spatial axes (1 and 2)
    of an NHWC array (the sum then has the same shape for the pooled array)?"""
    if _is_helper(node, "_sum_leading_axes"):
        return True
    if not isinstance(node, F.ReduceSum):
        return False
    axes = {int(a) for a in node.args[1]}
    return not axes or {1, 2} <= axes


def _pooled_gradient(node: sp.Expr) -> sp.Expr | None:
    """The pooled gradient ``g`` of a max-pool gradient whose windows do not overlap
    (``_max_pool_grad(x, y, g, k, k, p)`` or ``_max_pool_grad_at_taps(g, taps, ...)``)."""
    if _is_helper(node, "_max_pool_grad_at_taps"):
        return node.args[2]
    if _is_helper(node, "_max_pool_grad") and node.args[5] == node.args[6]:
        return node.args[4]
    return None


def _pooled_sum(node: sp.Expr, values: dict[sp.Expr, sp.Expr]) -> sp.Expr | None:
    """``node`` summing such a max-pool gradient (``values`` maps a symbol to what it is)
    as the same sum of the pooled gradient; None for any other node."""
    if not _sums_over_windows(node):
        return None
    summed = node.args[2] if isinstance(node, F.Helper) else node.args[0]
    pooled = _pooled_gradient(values.get(summed, summed))
    return None if pooled is None else node.xreplace({summed: pooled})


def pooled_bias_sums(program: Program) -> list[Statement]:
    """A sum over the spatial axes of a max-pool's gradient whose windows do not overlap,
    ``_sum_leading_axes(_max_pool_grad(x, y, g, ...))`` (the gradient of the bias
    added before a relu and a pool), as the same sum of the pooled gradient ``g``: each of
    its values is placed once and the rest are zeros, so the sums are the same values
    added in another order, over a quarter of the elements (2x2 windows). Where the
    gradient is a statement of its own and ``g`` an expression, ``g`` becomes a statement,
    ``<gradient>_pooled``."""
    statements = list(program.statements)
    defined = {s.symbol: i for i, s in enumerate(statements)}
    namer = _namer(program)
    pooled: dict[int, Statement] = {}  # statements to place before the gradient at an index
    values = {s.symbol: s.expr for s in statements}
    for index, statement in enumerate(statements):
        nodes = statement.expr.atoms(F.ReduceSum, F.Helper)
        sums = [n for n in nodes if _pooled_sum(n, values) is not None]
        for node in sums:
            summed = node.args[2] if isinstance(node, F.Helper) else node.args[0]
            g = _pooled_gradient(values.get(summed, summed))
            if summed in defined and g is not None and not g.is_Symbol:
                at = defined[summed]
                gradient = statements[at]
                name = namer.claim([f"{gradient.name}_pooled"])
                symbol = sp.Symbol(name, real=True)
                pooled[at] = replace(gradient, name=name, symbol=symbol, expr=g, temporary=True)
                statements[at] = gradient.with_expr(gradient.expr.xreplace({g: symbol}))
                values[summed] = statements[at].expr
        replacements = {n: _pooled_sum(n, values) for n in sums}
        statements[index] = statement.with_expr(statement.expr.xreplace(replacements))
    placed: list[Statement] = []
    for index, statement in enumerate(statements):
        if index in pooled:
            placed.append(pooled[index])
        placed.append(statement)
    # A gradient that only such sums read is no longer needed.
    return eliminate_dead_code(replace(program, statements=placed))


_COLUMNS = re.compile(r":, (\d*):(\d*)")
_ROWS = re.compile(r"(\d*):(\d*)(?:, :)?")


def _sliced_product(node: sp.Expr) -> sp.Expr | None:
    """``(a @ b)[:, j:k]`` as ``a @ b[:, j:k]`` and ``(a @ b)[i:l]`` as ``a[i:l] @ b``, for
    matrices: the product computes only the entries the slice keeps."""
    product, key = node.args
    if not isinstance(product, F.MatMulNode) or not isinstance(key, F.Literal):
        return None
    a, b, transpose_a, transpose_b, rank_a, rank_b = product.args
    if (rank_a, rank_b) != (2, 2):
        return None
    columns, rows = _COLUMNS.fullmatch(key.name), _ROWS.fullmatch(key.name)
    if columns:
        bounds = f"{columns[1]}:{columns[2]}"
        b = Index(b, F.Literal(bounds if transpose_b else f":, {bounds}"))
    elif rows:
        bounds = f"{rows[1]}:{rows[2]}"
        a = Index(a, F.Literal(f":, {bounds}" if transpose_a else bounds))
    else:
        return None
    return F.MatMulNode(a, b, transpose_a, transpose_b, rank_a, rank_b)


def sliced_products(statements: list[Statement]) -> list[Statement]:
    return _rewrite_nodes(statements, Index, _sliced_product)


# --- scheduling -----------------------------------------------------------------------------


def memory_schedule(
    statements: list[Statement], known: dict[sp.Expr, Signature]
) -> list[Statement]:
    """Within each section, scalar results of arrays first: their operands may then die sooner.

    A scalar computed from scalars alone (a product of weights) frees nothing early: it stays
    where it was, next to the statement that needs it.
    """

    def priority(statement: Statement) -> int:
        if known.get(statement.symbol) != ():
            return 1
        # A name of unknown signature counts as an array, so that a body specialized on known
        # sizes keeps the general body's order where nothing else differs.
        reads_an_array = any(known.get(s) != () for s in statement.expr.free_symbols)
        return 0 if reads_an_array else 1

    return schedule(statements, priority)


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
        _statements_pass(lambda p: fold_scalar_factors(p, statement_naturals(p), _returned(p))),
        "scalar factors of a product move to the sums and products that read it",
    ),
    Pass(
        "blas-reductions",
        _statements_pass(
            lambda p: blas_reductions(p.statements, statement_naturals(p), _dtype_of(p))
        ),
        "sums of products as dot and matrix products",
    ),
    Pass(
        "leading-sums",
        _statements_pass(lambda p: leading_sums(p.statements, statement_naturals(p), _dtype_of(p))),
        "sums over every axis but the last of arrays of rank 3 or more as one BLAS product",
    ),
    Pass(
        "conv-biases",
        conv_biases,
        "a convolution plus its bias as one kernel call, the bias added chunk by chunk",
    ),
    Pass(
        "masked-pool-gradients",
        _statements_pass(lambda p: masked_pool_gradients(p.statements)),
        "relu's mask after a max-pool gradient applied to the pooled gradient instead",
    ),
    Pass(
        "pooled-bias-sums",
        _statements_pass(pooled_bias_sums),
        "a bias's gradient through a max-pool summed over the pooled gradient",
    ),
    Pass(
        "pool-first-taps",
        _statements_pass(lambda p: pool_first_taps(p, statement_naturals(p))),
        "a max-pool's first-maximum taps found in the forward, for its gradient",
    ),
    Pass(
        "pooled-convolutions",
        pooled_convolutions,
        "a convolution's relu and max-pool as one call giving the pool and its taps (the"
        " pool alone in a forward pass), and the filter's gradient through them from the"
        " pooled gradient",
    ),
    Pass(
        "sliced-products",
        _statements_pass(lambda p: sliced_products(p.statements)),
        "a slice of a matrix product as the product of the sliced factor",
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
    if program.functions:  # the bodies of loops and branches go through the same passes
        program = replace(
            program,
            functions=[
                f
                if f.program is None
                else replace(
                    f,
                    program=run_passes(
                        f.program, simplify=simplify, fast=fast, until=until, passes=passes
                    ),
                )
                for f in program.functions
            ],
        )
    return program
