"""The op registry: one :class:`OpDef` per op type.

An OpDef says how an op becomes SymPy (``lower``) and how its gradient is built
as more graph ops (``gradient``). Shape and dtype rules run when the op is
built, in the function that builds it, next to its OpDef.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..graph import Operation, Tensor
from ..shapes import Signature

# lower(op, operand_exprs) -> expression of the op's output in terms of its operands.
LowerFn = Callable[[Operation, Sequence[sp.Expr]], sp.Expr]
# gradient(op, output_cotangent) -> one cotangent (or None) per input. (A control op's rule
# gets a list: one cotangent or None per output.)
GradientFn = Callable[[Operation, Any], list[Tensor | None]]


@dataclass(frozen=True)
class OpDef:
    """How one op type is traced to SymPy and differentiated.

    ``elementwise`` ops fuse with their neighbours and broadcast like NumPy;
    ``materialized_inputs(op)`` are input positions whose run-time value (not
    only their expression) the lowering refers to, e.g. for a run-time size;
    ``shape_only_inputs`` are read for their shape alone and do not count as
    uses when deciding what to fuse.
    With ``value_lowering`` the rule gets the tracer's values (expression,
    evaluated shape, shape witnesses) and returns a ``Lowered``.
    ``signature(op, operand_signatures)`` gives the output's shape with the
    origins of its unknown dims (see :mod:`symgrad.shapes`); without it,
    elementwise ops broadcast and other ops get fresh unknown dims.
    A ``random`` op draws from the generated function's random source: the
    tracer numbers it (its stream in ``rng``) and always binds it to a name.
    An ``effectful`` op changes state when run (an assignment). Random and
    effectful ops are not :attr:`pure`: two of them built alike are two ops, each
    drawing or writing on its own, so value numbering never merges them.
    A ``control`` op (``"cond"``, ``"while"``, ``"scan"``) runs function bodies
    (:class:`symgrad.graph.Subgraph` s in its attributes): the tracer makes each body a
    function of the generated module, and its gradient rule gets one cotangent (or None)
    per output, in a list.
    """

    type: str
    lower: LowerFn | None
    gradient: GradientFn | None
    elementwise: bool = False
    materialized_inputs: Callable[[Operation], tuple[int, ...]] = lambda op: ()
    shape_only_inputs: tuple[int, ...] = ()
    value_lowering: bool = False
    signature: Callable[[Operation, Sequence[Any]], Any] | None = None
    random: bool = False
    effectful: bool = False
    control: str | None = None

    @property
    def pure(self) -> bool:
        """Whether two ops of this type with equal inputs and attributes are one value."""
        return not (self.random or self.effectful)


REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    if opdef.type in REGISTRY:
        raise RuntimeError(f"op type {opdef.type} registered twice")
    REGISTRY[opdef.type] = opdef
    return opdef


def opdef_of(op: Operation) -> OpDef:
    return REGISTRY[op.type]


def arg_symbols(count: int) -> tuple[sp.Symbol, ...]:
    """The canonical operand symbols ``a0, a1, ...`` of elementwise rules."""
    return tuple(sp.Symbol(f"a{i}", real=True) for i in range(count))


class Lowered:
    """A lowering whose evaluated shape (``natural``) differs from the op's shape.

    Returned by ops that do not materialise a broadcast; ``witnesses`` are
    expressions whose run-time shapes broadcast to the op's shape.
    """

    def __init__(
        self, expr: sp.Expr, natural: Signature | None, witnesses: Sequence[sp.Expr]
    ) -> None:
        self.expr = expr
        self.natural = natural
        self.witnesses = tuple(witnesses)
