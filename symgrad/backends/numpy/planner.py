"""The fast form of a program: BLAS reductions, in-place arithmetic, reused buffers.

The readable form prints each statement as one NumPy expression, and NumPy
allocates a new array for every operation in it. Knowing each value's run-time
shape signature (``Program.naturals``) and its last use, this stage prints the
same computation the way NumPy code is tuned by hand:

* ``np.sum(a*b)`` of two arrays of one shape becomes ``a @ b`` (a BLAS dot
  product, no temporary array); ``np.sum(a**2)`` becomes ``a @ a``; scalar
  factors move outside the sum. A sum over the axis along which one factor is
  broadcast becomes a matrix product (``np.sum(u*g, axis=0, keepdims=True)``
  with ``u`` of shape [N, 1] is ``u.T @ g``).
* an array that is a scalar times another and is only ever summed is not
  computed: the scalar multiplies the sums (the gradient of a mean); the
  scalar factors of a product move to the sums and products that read it
  (``symgrad.passes.fold_scalar_factors``), and the scalars of one product
  multiply each other before the array (``t *= w2 * w3``).
* a statement over arrays evaluates into one buffer:
  ``t = x * w; t += b; np.tanh(t, out=t)``.
* when the statement reads an array for the last time, that array's memory
  becomes the result (``tanh_grad = np.square(tanh, out=tanh)``).
* statements that reduce to scalars run as soon as their operands exist, and
  names are deleted after their last read, so arrays die early and NumPy takes
  memory that is already mapped for the next one.
* many arrays of one shape alive at once (a deep chain's activations) come
  from one block (``Arena``) that calls hand on to each other, instead of one
  allocation each per call.

Only arrays this stage knows it allocated are ever overwritten: never an input,
a module constant, a returned value, nor an array that a view (a reshape, a
slice, a transpose, ``np.asarray``) or an alias may share memory with.
Results equal the readable form's up to floating-point reassociation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp
from sympy.codegen.cfunctions import expm1, log1p
from sympy.printing.precedence import PRECEDENCE

from ...dtypes import variant
from ...expression_dtypes import WEAK_FLOAT, WEAK_INT, dtype_name
from ...naming import Namer
from ...ops import functions as F
from ...passes import is_array, statement_naturals
from ...program import Program, Statement
from ...shapes import Signature
from ...signatures import natural_signature
from .emit import Line, guarded_statements
from .printer import MODULE_ALIAS, Printer, print_statement

# The dtypes whose arrays the planner may compute in place (out=, +=).
IN_PLACE_DTYPES = ("float32", "float64")

# SymPy functions that are NumPy ufuncs of one argument, so they can write into ``out``.
UFUNCS = {
    sp.tanh: "tanh",
    sp.exp: "exp",
    sp.log: "log",
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tan: "tan",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.asin: "arcsin",
    sp.acos: "arccos",
    sp.atan: "arctan",
    sp.asinh: "arcsinh",
    sp.acosh: "arccosh",
    sp.atanh: "arctanh",
    expm1: "expm1",
    log1p: "log1p",
    # TF1 rounding, landed with the everyday elementwise ops
    F.Ceil: "ceil",
}
POWERS = {sp.Integer(2): "square", sp.S.Half: "sqrt", sp.Integer(-1): "reciprocal"}
# Expressions whose value NumPy always returns in a new array (never a view or an input).
FRESH_STRUCTURAL = (F.MatMulNode,)
# Kernels (``kernels/``) whose result is always an array they created (never an argument,
# nor a view of one), so that a statement may go on computing in it.
FRESH_KERNELS = frozenset(
    {
        "_conv2d",
        "_conv2d_bias",
        "_conv2d_relu_max_pool_values",
        "_conv2d_backprop_input",
        "_conv2d_backprop_filter",
        "_max_pool",
        "_max_pool_grad",
        "_max_pool_grad_at_taps",
        "_sum_leading_axes",
    }
)


# --- liveness -------------------------------------------------------------------------------


def _is_fresh(expr: sp.Expr) -> bool:
    """Does evaluating ``expr`` always give a new array (not a view, an input or an alias)?"""
    if isinstance(expr, (sp.Add, sp.Mul, sp.Pow, *FRESH_STRUCTURAL)):
        return True
    if isinstance(expr, (F.ReduceSum,)) and len(expr.args[1]):
        return True
    if isinstance(expr, F.Helper):
        return str(expr.args[0]) in FRESH_KERNELS
    return isinstance(expr, sp.Function) and not isinstance(expr, (F._Structural, F.Cast))


def _writable(expr: sp.Expr) -> bool:
    """May a statement's later operations write into what evaluating ``expr`` gave? Yes for a
    symbol (the first operation makes a new array of it unless it is dying), arithmetic and
    ufuncs (evaluated into a new array) and fresh values; not for a view (``np.reshape(x, s)``,
    a slice, ``np.diagonal``) or a kernel that may return its argument."""
    if expr.is_Symbol or isinstance(expr, (sp.Add, sp.Mul, F.Relu)) or type(expr) in UFUNCS:
        return True
    return isinstance(expr, sp.Pow) or _is_fresh(expr)


def _value_arguments(expr: sp.Basic) -> list[sp.Basic]:
    """The arguments whose values ``expr`` reads (not those read only for their shape)."""
    if isinstance(expr, F._Structural):
        skip = expr.shape_only_arguments()
        return [a for i, a in enumerate(expr.args) if i not in skip]
    return list(expr.args)


def value_reads(expr: sp.Basic) -> set[sp.Symbol]:
    """Symbols whose values ``expr`` reads; ``np.shape(t)`` reads no value of ``t``.

    Overwriting an array in place keeps its shape, so only these reads keep
    its contents alive.
    """
    if expr.is_Symbol:
        return {expr}
    found: set[sp.Symbol] = set()
    for argument in _value_arguments(expr):
        found |= value_reads(argument)
    return found


def aliased_arrays(expr: sp.Basic) -> set[sp.Symbol]:
    """Arrays the value of ``expr`` may be, or view: ``t``, ``np.reshape(t, s)``, ``t[1:]``."""
    if expr.is_Symbol:
        return {expr}
    if expr.is_Number or _is_fresh(expr) or isinstance(expr, (F.ReduceSum, F.Dot, F.SizeOf)):
        return set()  # a new array or a scalar
    found: set[sp.Symbol] = set()
    for argument in _value_arguments(expr):
        found |= aliased_arrays(argument)
    return found


def _occurrences(expr: sp.Basic, symbol: sp.Symbol) -> int:
    """How often ``expr`` reads the value of ``symbol``."""
    if expr == symbol:
        return 1
    return sum(_occurrences(a, symbol) for a in _value_arguments(expr))


@dataclass
class Buffers:
    """Which arrays may be overwritten, and when each one dies."""

    last_use: dict[sp.Symbol, int]  # the last statement reading its value
    returned: set[sp.Symbol]
    pinned: set[sp.Symbol]  # aliased or returned: never overwritten

    @classmethod
    def of(cls, program: Program, statements: list[Statement]) -> Buffers:
        last_use: dict[sp.Symbol, int] = {}
        returned = cls.returned_by(program)
        pinned = set(returned)
        for index, statement in enumerate(statements):
            for symbol in value_reads(statement.expr):
                last_use[symbol] = index
            pinned |= aliased_arrays(statement.expr)
        return cls(last_use, returned, pinned)

    @staticmethod
    def returned_by(program: Program) -> set[sp.Symbol]:
        return set().union(*(sp.sympify(o.symbol).free_symbols for o in program.outputs))

    def dying_at(self, index: int, symbol: sp.Symbol) -> bool:
        return symbol not in self.pinned and self.last_use.get(symbol) == index


# --- in-place lowering of one statement -----------------------------------------------------

OPERATORS = {
    "add": ("+", PRECEDENCE["Add"]),
    "subtract": ("-", PRECEDENCE["Add"]),
    "multiply": ("*", PRECEDENCE["Mul"]),
    "divide": ("/", PRECEDENCE["Mul"]),
    "power": ("**", PRECEDENCE["Pow"]),
}


# --- what the lowering writes: records, printed once the pools are planned -------------------


@dataclass(frozen=True)
class Slot:
    """A pool array for the value of statement ``index``; the arena gives it a name, or none."""

    index: int


@dataclass(frozen=True)
class Assign:
    """``target = text``: NumPy evaluates ``text`` into a new array."""

    target: str
    text: str


@dataclass(frozen=True)
class Augmented:
    """``target <operator>= operand``."""

    target: str
    operator: str
    operand: str


@dataclass(frozen=True)
class InPlace:
    """``np.<op>(*operands, out=out)`` (``op`` a ufunc's name, or a kernel's, ``_relu``, called
    as it is), bound to ``target`` when it is the value's first operation."""

    target: str
    op: str
    operands: tuple[str, ...]
    out: str | Slot | None
    binds: bool


Record = Assign | Augmented | InPlace


def record_text(record: Record, slots: dict[int, str]) -> str:
    """The line of ``record``; ``slots`` names the pool arrays (statement index -> ``pool.pop()``)."""
    if isinstance(record, Assign):
        return f"{record.target} = {record.text}"
    if isinstance(record, Augmented):
        return f"{record.target} {record.operator}= {record.operand}"
    arguments = list(record.operands)
    if record.out is not None:
        out = slots[record.out.index] if isinstance(record.out, Slot) else record.out
        arguments.append(f"out={out}")
    function = record.op if record.op.startswith("_") else f"{MODULE_ALIAS}.{record.op}"
    call = f"{function}({', '.join(arguments)})"
    return f"{record.target} = {call}" if record.binds else call


def _retarget(record: Record, old: str, new: str) -> Record:
    """``record`` writing into ``new`` instead of ``old`` (operands that are ``old`` read ``new``)."""
    if isinstance(record, Assign):
        return replace(record, target=new)
    if isinstance(record, Augmented):
        return replace(record, target=new)
    operands = tuple(new if o == old else o for o in record.operands)
    out = new if record.out == old else record.out
    return replace(record, target=new, operands=operands, out=out)


def named_truthfully(records: list[Record], argument: str) -> tuple[list[Record], bool]:
    """Records in which the statement's name holds only its value (and sums accumulating it).

    ``t = x @ w; t += b; np.tanh(t, out=t)`` would name ``x @ w + b`` ``t`` for two lines
    (and ``t = np.sqrt(v); t += eps; np.divide(m, t, out=t)`` the denominator);
    the argument is computed under its own name instead and the function binds ``t``:
    ``t_arg = x @ w; t_arg += b; t = np.tanh(t_arg, out=t_arg)``. True if ``argument`` is
    used (it then aliases the value and is deleted after the statement).
    """
    # A function of the array so far: a unary one, or a division of something by it.
    functions = [
        i
        for i, r in enumerate(records)
        if isinstance(r, InPlace)
        and not r.binds
        and (
            r.operands == (r.target,)
            or (r.op == "divide" and r.operands[1:] == (r.target,) != r.operands[:1])
        )
    ]
    if not functions:
        return records, False
    last = functions[-1]
    record = records[last]
    assert isinstance(record, InPlace)  # as all of ``functions`` are
    target = record.target
    before = [_retarget(r, target, argument) for r in records[:last]]
    bound = InPlace(target, record.op, (*record.operands[:-1], argument), argument, binds=True)
    return [*before, bound, *records[last + 1 :]], True


class _InPlace:
    """Lines that leave the value of an elementwise expression in one array, ``target``.

    Operands are evaluated anchor first: the operand of the result's own shape
    that needs the most work. The first operation creates the array, or writes
    into the anchor itself when this statement reads it last (``reusable``).
    Every later operation writes into it.
    """

    def __init__(
        self,
        target: str,
        printer: Printer,
        known: dict[sp.Expr, Signature],
        signature: Signature,
        reusable: set[sp.Symbol],
        slot: Slot | None = None,
    ) -> None:
        self.target = target
        self.printer = printer
        self.known = known
        self.signature = signature
        self.reusable = reusable
        self.slot = slot  # where a new array may be created instead of allocated
        self.records: list[Record] = []
        self.pending: sp.Symbol | None = None  # the anchor, a symbol not yet in ``target``
        self.reused: sp.Symbol | None = None  # the array that became ``target``
        self.in_slot = False  # the value was created in ``slot``

    def _full(self, expr: sp.Expr) -> bool:
        return natural_signature(expr, self.known) == self.signature

    def _anchor(self, candidates: list[sp.Expr]) -> int | None:
        full = [i for i, c in enumerate(candidates) if self._full(c) and _writable(c)]
        for prefer in (lambda c: not c.is_Symbol, lambda c: c in self.reusable, lambda c: True):
            chosen = [i for i in full if prefer(candidates[i])]
            if chosen:
                return chosen[0]
        return None

    # -- operations on the target
    def _create(self, text: str) -> None:
        self.records.append(Assign(self.target, text))
        self.pending = None

    def _out(self) -> str | Slot | None:
        """The ``out=`` of the first operation: a dead array, or the slot, if there is one."""
        if self.pending in self.reusable:
            self.reused = self.pending
            return self.pending.name  # type: ignore[union-attr]  # pending is in reusable, so not None
        if self.slot is not None:
            self.in_slot = True
            return self.slot
        return None

    def _unary(self, ufunc: str, *constants: str) -> None:
        """``target = ufunc(target, *constants)``."""
        if self.pending is not None:
            operands = (self.pending.name, *constants)
            self.records.append(InPlace(self.target, ufunc, operands, self._out(), binds=True))
            self.pending = None
        else:
            operands = (self.target, *constants)
            self.records.append(InPlace(self.target, ufunc, operands, self.target, False))

    def _binary(self, operation: str, operand: sp.Expr, reverse: bool = False) -> None:
        """``target = target <op> operand`` (or ``operand <op> target`` with ``reverse``)."""
        if self.pending is None and not reverse:
            symbol = OPERATORS[operation][0]
            self.records.append(Augmented(self.target, symbol, self.printer.doprint(operand)))
            return
        current = self.pending.name if self.pending is not None else self.target
        out = self._out() if self.pending is not None else self.target
        if out is not None or self.pending is None:
            left, right = (self.printer.doprint(operand), current)
            if not reverse:
                left, right = right, left
            binds = self.pending is not None
            self.records.append(InPlace(self.target, operation, (left, right), out, binds))
            self.pending = None
            return
        symbol, precedence = OPERATORS[operation]
        text = self.printer.parenthesize(operand, precedence, strict=not reverse)
        self._create(f"{text} {symbol} {current}" if reverse else f"{current} {symbol} {text}")

    # -- expressions
    def evaluate(self, expr: sp.Expr) -> None:
        """Lines leaving ``expr`` in ``target`` (a symbol is left ``pending``)."""
        if expr.is_Symbol:
            self.pending = expr
        elif isinstance(expr, sp.Add):
            self._add(expr)
        elif isinstance(expr, sp.Mul):
            self._mul(expr)
        elif isinstance(expr, sp.Pow) and expr.exp.is_Number and self._full(expr.base):
            self.evaluate(expr.base)
            if expr.exp in POWERS:
                self._unary(POWERS[expr.exp])
            elif expr.exp == -sp.S.Half:
                self._unary("sqrt")
                self._unary("reciprocal")
            else:
                self._binary("power", expr.exp)
        elif type(expr) in UFUNCS and len(expr.args) == 1:
            self.evaluate(expr.args[0])
            self._unary(UFUNCS[type(expr)])
        elif isinstance(expr, F.Relu) and self._full(expr.args[0]):
            self.evaluate(expr.args[0])
            self._unary("_relu")  # the kernel: np.maximum against zeros, not against 0
        else:
            self._create(
                self.printer.doprint(expr)
            )  # a new array: np.where(...), a broadcast sum, ...

    def _add(self, expr: sp.Add) -> None:
        terms = self.printer._as_ordered_terms(expr)
        anchor = self._anchor(terms)
        if anchor is None:
            return self._create(self.printer.doprint(expr))
        negated = terms[anchor].could_extract_minus_sign()  # ``target`` holds minus the sum so far
        self.evaluate(-terms[anchor] if negated else terms[anchor])
        for term in terms[:anchor] + terms[anchor + 1 :]:
            negative = term.could_extract_minus_sign()
            operand = -term if negative else term
            if negated and not negative:
                self._binary("subtract", operand, reverse=True)
                negated = False
            else:
                self._binary("add" if negative == negated else "subtract", operand)
        if negated:
            self._unary("negative")

    def _numerator(self, anchored: sp.Expr, factors: list[sp.Expr]) -> sp.Expr | None:
        """For an anchor ``1/d`` (``d`` evaluated into an array of the result's shape), an
        array factor to divide by it; None if there is none."""
        if not (_is_reciprocal(anchored) and _writable(anchored.base)):
            return None
        arrays = [
            f
            for f in factors
            if not _is_reciprocal(f) and natural_signature(f, self.known) not in ((), None)
        ]
        return next((f for f in arrays if self._full(f)), arrays[0] if arrays else None)

    def _mul(self, expr: sp.Mul) -> None:
        coefficient, factors = expr.as_coeff_mul()
        factors = list(factors)
        anchor = self._anchor(factors)
        if anchor is None:
            return self._create(self.printer.doprint(expr))
        anchored = factors.pop(anchor)
        numerator = self._numerator(anchored, factors)
        if numerator is not None:
            # ``a / d`` as one division into d's array, not its reciprocal times a: one pass
            # over the array less, and one rounding (Adam's ``m / (sqrt(v) + eps)``).
            self.evaluate(anchored.base)
            self._binary("divide", numerator, reverse=True)
            factors.remove(numerator)
        else:
            self.evaluate(anchored)
        # Scalar factors multiply each other first, and the array once: one pass over it, not
        # one per scalar (as the readable form's ``2*w*c*x`` does, scalars printed first).
        scalars = [
            f for f in factors if natural_signature(f, self.known) == () and not _is_reciprocal(f)
        ]
        if scalars and not (coefficient.is_Rational and not coefficient.is_Integer):
            scalars, coefficient = [coefficient, *scalars], sp.S.One
        for factor in factors:
            if _is_reciprocal(factor):
                self._binary("divide", factor.base)
            elif factor not in scalars:
                self._binary("multiply", factor)
            elif factor == scalars[-1]:
                self._binary("multiply", sp.Mul(*scalars))
        if coefficient == -1:
            self._unary("negative")
        elif coefficient.is_Rational and not coefficient.is_Integer:
            # ``x*p/q`` as the readable form computes it: multiply by p, then divide by q.
            if abs(coefficient.p) != 1:
                self._binary("multiply", sp.Integer(coefficient.p))
                self._binary("divide", sp.Integer(coefficient.q))
            else:
                self._binary("divide", sp.Integer(coefficient.p * coefficient.q))
        elif coefficient != 1:
            self._binary("multiply", coefficient)


def _is_reciprocal(factor: sp.Expr) -> bool:
    return isinstance(factor, sp.Pow) and factor.exp == -1


def _dtypes_match(expr: sp.Expr, dtype: str, dtype_of: Callable[[sp.Expr], str]) -> bool:
    """Every elementwise node computes in ``dtype`` (no upcast that rounding per step would change)."""
    if expr.is_Number:
        return True
    if dtype_of(expr) not in (dtype, WEAK_INT, WEAK_FLOAT):
        return False
    if isinstance(expr, F._Structural):
        return True
    return all(_dtypes_match(a, dtype, dtype_of) for a in expr.args if isinstance(a, sp.Expr))


def _in_place_candidate(
    statement: Statement, known: dict[sp.Expr, Signature], dtype_of: Callable[[sp.Expr], str]
) -> bool:
    """An elementwise statement over arrays of one float dtype, computed without conversion."""
    expr = statement.expr
    dtype = dtype_name(statement.dtype)
    if dtype not in IN_PLACE_DTYPES or not is_array(known.get(statement.symbol)):
        return False
    if not isinstance(expr, (sp.Add, sp.Mul, sp.Pow, F.Relu)) and type(expr) not in UFUNCS:
        return False
    if natural_signature(expr, known) != known[statement.symbol]:
        return False
    return _dtypes_match(expr, dtype, dtype_of)


@dataclass
class _Lowered:
    """One statement's records, and what became of memory."""

    records: list[Record]
    reusable: set[sp.Symbol]  # dying arrays it was allowed to compute in
    reused: sp.Symbol | None  # the one whose memory the value took over
    in_slot: bool  # the value was created in a pool array (a ``Slot`` in the records)


def _lower(
    statement: Statement,
    printer: Printer,
    known: dict[sp.Expr, Signature],
    reusable: set[sp.Symbol],
    slot: Slot | None,
) -> _Lowered:
    lowering = _InPlace(statement.name, printer, known, known[statement.symbol], reusable, slot)
    with printer.float_context(dtype_name(statement.dtype)):
        lowering.evaluate(statement.expr)
    assert lowering.records and lowering.pending is None, statement
    return _Lowered(lowering.records, reusable, lowering.reused, lowering.in_slot)


def fast_lines(program: Program, printer: Printer) -> list[Line]:
    """The program's statements as fast NumPy lines (see the module docstring).

    ``program`` has been through the fast form's passes (:data:`symgrad.passes.FAST_PASSES`).
    """
    known = statement_naturals(program)
    table = program.dtypes_by_symbol()
    printer.table = table
    printer.arrays = {s for s, signature in known.items() if s.is_Symbol and is_array(signature)}
    statements = program.statements
    buffers = Buffers.of(program, statements)
    guarded_symbols = guarded_statements(statements)
    owned: set[sp.Symbol] = set()  # arrays this stage allocated, still alive
    dims = arena_dims(program)
    lowered: list[_Lowered] = []
    for index, statement in enumerate(statements):
        signature = known.get(statement.symbol)
        dtype = dtype_name(statement.dtype)
        if statement.symbol not in guarded_symbols and _in_place_candidate(
            statement, known, printer.dtype_of
        ):
            reusable = {
                s
                for s in value_reads(statement.expr)
                if s in owned
                and buffers.dying_at(index, s)
                and _occurrences(statement.expr, s) == 1
            }
            slot = Slot(index) if _sizable(signature, dims) else None
            lowered.append(_lower(statement, printer, known, reusable, slot))
            owned.add(statement.symbol)
            owned.discard(lowered[-1].reused)  # its memory is the new value's now
        else:
            rhs = print_statement(
                printer, statement.expr, statement.dtype, table, not statement.temporary
            )
            lowered.append(_Lowered([Assign(statement.name, rhs)], set(), None, False))
            if (
                _is_fresh(statement.expr)
                and is_array(signature)
                and dtype in IN_PLACE_DTYPES
                and printer.dtype_of(statement.expr) == dtype
            ):
                owned.add(statement.symbol)
    arena = Arena.plan(statements, lowered, known, buffers, dims)
    for index, low in enumerate(lowered):
        if low.in_slot and index not in arena.slots:  # in no pool: a plain new array after all
            lowered[index] = _lower(statements[index], printer, known, low.reusable, None)
    if not statements:
        return []
    section = statements[-1].section
    return (
        arena.lines(statements[0].section)
        + _with_deletes(statements, lowered, arena, known, buffers, guarded_symbols)
        + arena.give_lines(section)
    )


def _with_deletes(
    statements: list[Statement],
    lowered: list[_Lowered],
    arena: Arena,
    known: dict[sp.Expr, Signature],
    buffers: Buffers,
    guarded_symbols: set[sp.Symbol],
) -> list[Line]:
    """The lowered lines, pool slots filled in, each array let go after its last read.

    Deleting lets an array go now rather than at return: the next array then takes memory
    that is already mapped instead of faulting in new pages. A pool's arrays go back to
    their pool instead.
    """
    last_read = {
        symbol: index for index, s in enumerate(statements) for symbol in s.expr.free_symbols
    }
    local = {s.symbol for s in statements} - buffers.returned - arena.members
    # The tuples a call gives (a loop's values, a kernel's several results) go too: each
    # holds its values alive for as long as it lives.
    tuples = {s.symbol for s in statements if s.dtype == variant}
    namer = Namer(
        [s.name for s in statements]
        + [str(s) for s in known if isinstance(s, sp.Symbol)]
        + [name for name, *_ in arena.pools]
    )
    lines: list[Line] = []
    for index, (statement, low) in enumerate(zip(statements, lowered, strict=False)):
        guarded = statement.symbol in guarded_symbols
        records, aliased = named_truthfully(low.records, f"{statement.name}_arg")
        if aliased:
            argument = namer.claim([f"{statement.name}_arg"])
            records, _ = named_truthfully(low.records, argument)
        texts = [record_text(record, arena.slots) for record in records]
        lines.extend(
            Line(text, statement.section, guarded, statement.comment if not position else "")
            for position, text in enumerate(texts)
        )
        # Every pool array goes back, the last ones too: the pool is whole again for the next call.
        lines.extend(
            Line(text, statement.section, False) for text in sorted(arena.returns.get(index, []))
        )
        done = sorted(
            [
                str(s)
                for s in statement.expr.free_symbols
                if s in local and last_read[s] == index and (is_array(known.get(s)) or s in tuples)
            ]
            + ([argument] if aliased else [])
        )
        if done and index < len(statements) - 1:  # the return frees the last ones anyway
            lines.append(Line(f"del {', '.join(done)}", statement.section, False))
    return lines


@dataclass
class Arena:
    """Pools of equal arrays, each cut from one block that calls hand on to each other.

    A program that keeps many arrays alive at once (a deep chain's activations, kept for its
    backward pass) otherwise allocates each on its own; when the allocator gives that memory
    back to the system between calls, every call faults all those pages in again. Arrays of
    one dtype and shape signature come from one pool,
    ``_float64_rows = _take_rows("_float64_rows", n, (...), np.float64)``: an array is created
    with ``out=_float64_rows.pop()`` and goes back with ``_float64_rows.append(name)`` after
    its last read, where it would have been deleted; before returning, the function gives the
    whole pool back (``_give_rows``) for the next call to take. So a steady run allocates no
    block at all, whatever the allocator does with freed memory (glibc keeps a freed block
    mapped only once its thresholds have grown past the block's size). A call holds its block
    until it returns: calls in several threads, or one inside another, never share one; the
    module keeps, per pool, as many blocks as calls ran at once, and drops one whose shape no
    longer fits. The lines stay the same when statements come and go, so generated code diffs
    stay local. Only
    arrays that the function creates and computes in place, and neither returns nor lets a view
    escape, come from a pool, and only where a pool pays for its block: at least
    ``MINIMUM_ARRAYS`` alive at once, and (where the shape is static) ``MINIMUM_BYTES``.
    """

    MINIMUM_ARRAYS = 16  # fewer allocations than this cost less than creating the pool's views
    MINIMUM_BYTES = 1 << 20  # smaller blocks stay in memory the allocator keeps anyway

    slots: dict[int, str] = field(default_factory=dict)  # creating statement -> ``pool.pop()``
    returns: dict[int, list[str]] = field(default_factory=dict)  # statement -> lines after it
    # (name, arrays, one array's shape as the inside of a tuple literal, dtype)
    pools: list[tuple[str, int, str, str]] = field(default_factory=list)
    members: set[sp.Symbol] = field(default_factory=set)  # every name that holds a pool array

    @classmethod
    def plan(
        cls,
        statements: list[Statement],
        lowered: list[_Lowered],
        known: dict[sp.Expr, Signature],
        buffers: Buffers,
        dims: dict[object, str],
    ) -> Arena:
        # A buffer is created in a slot and then passes from name to name as statements reuse it.
        buffer_of: dict[sp.Symbol, int] = {}
        holders: dict[int, list[sp.Symbol]] = {}
        for index, (statement, low) in enumerate(zip(statements, lowered, strict=False)):
            if low.in_slot:
                buffer = index
            elif low.reused is not None and low.reused in buffer_of:
                buffer = buffer_of[low.reused]
            else:
                continue
            buffer_of[statement.symbol] = buffer
            holders.setdefault(buffer, []).append(statement.symbol)
        groups: dict[tuple[str, Signature], list[int]] = {}
        for buffer, names in holders.items():
            if not any(n in buffers.pinned for n in names):
                statement = statements[buffer]
                groups.setdefault(
                    (dtype_name(statement.dtype), known[statement.symbol]), []
                ).append(buffer)
        arena = cls()
        for (dtype, signature), group in sorted(groups.items(), key=lambda item: min(item[1])):
            ends = {b: max([b] + [buffers.last_use.get(n, b) for n in holders[b]]) for b in group}
            created, ended = Counter(group), Counter(ends.values())
            live = peak = 0
            for index in sorted(
                set(group) | set(ends.values())
            ):  # pops inside a statement, then returns
                live += created[index]
                peak = max(peak, live)
                live -= ended[index]
            size = _static_size(signature)
            if peak < cls.MINIMUM_ARRAYS or (
                size is not None and peak * size * np.dtype(dtype).itemsize < cls.MINIMUM_BYTES
            ):
                continue
            name = _pool_name(dtype, sum(1 for pool in arena.pools if pool[3] == dtype))
            for buffer in group:
                arena.slots[buffer] = f"{name}.pop()"
                arena.returns.setdefault(ends[buffer], []).append(
                    f"{name}.append({holders[buffer][-1]})"
                )
                arena.members.update(holders[buffer])
            row = [str(d) if isinstance(d, int) else dims[d] for d in signature]
            arena.pools.append((name, peak, ", ".join(row) + ("," if len(row) == 1 else ""), dtype))
        return arena

    def lines(self, section: str) -> list[Line]:
        """The pools' takes, at the top of the body."""
        return [
            Line(f'{name} = _take_rows("{name}", {count}, ({shape}), np.{dtype})', section, False)
            for name, count, shape, dtype in self.pools
        ]

    def give_lines(self, section: str) -> list[Line]:
        """The pools given back, whole, before the return."""
        return [Line(f'_give_rows("{name}", {name})', section, False) for name, *_ in self.pools]


def _static_size(signature: Signature) -> int | None:
    """Elements of an array of this signature, if every dim is a number."""
    if not isinstance(signature, tuple) or not all(isinstance(d, int) for d in signature):
        return None
    size = 1
    for dim in signature:
        size *= dim
    return size


def arena_dims(program: Program) -> dict[object, str]:
    """Run-time dims a pool's block can be sized by: each input's unknown dims, as ``x.shape[0]``."""
    dims: dict[object, str] = {}
    for item in program.inputs:
        signature = program.naturals.get(item.symbol)
        if isinstance(signature, tuple):
            for axis, dim in enumerate(signature):
                if not isinstance(dim, int):
                    dims.setdefault(dim, f"{item.name}.shape[{axis}]")
    return dims


def _pool_name(dtype: str, number: int) -> str:
    return f"_{dtype}_rows" + (f"_{number}" if number else "")


def _sizable(signature: Signature | None, dims: dict[object, str]) -> bool:
    """Can a pool of arrays of this signature be allocated (every dim a number or an input's dim)?"""
    return is_array(signature) and all(isinstance(d, int) or d in dims for d in signature)
