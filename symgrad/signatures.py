"""Shape signatures of graph tensors: static shapes whose unknown dims carry their origin.

Two tensors with equal signatures have equal shapes at run time, so
``x * w`` of a ``[None]`` placeholder ``x`` is known to keep ``x``'s shape and
its gradient needs no run-time unbroadcasting. The rules are each op's
``OpDef.signature`` (elementwise ops broadcast; ops without a rule get fresh
unknown dims, which is always sound).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from .graph import Tensor
from .ops import functions as F
from .ops.registry import opdef_of
from .shapes import ALL_AXES, Signature, broadcast_signatures, signature

_SOURCES = ("Placeholder", "VariableV2", "Const")


def signature_of(tensor: Tensor) -> Signature:
    """The signature of ``tensor``, computed once per tensor (iteratively: graphs may be deep)."""
    cache: dict[int, Signature] = tensor.graph.__dict__.setdefault("_signatures", {})
    if id(tensor) in cache:
        return cache[id(tensor)]
    stack = [tensor]
    while stack:
        current = stack[-1]
        if id(current) in cache:
            stack.pop()
            continue
        missing = [t for t in current.op.inputs if id(t) not in cache]
        if missing:
            stack.extend(missing)
            continue
        stack.pop()
        cache[id(current)] = _compute(current, [cache[id(t)] for t in current.op.inputs])
    return cache[id(tensor)]


def _compute(tensor: Tensor, inputs: Sequence[Signature]) -> Signature:
    op = tensor.op
    if op.type in _SOURCES:
        return signature(tensor.shape, tensor.name)
    opdef = opdef_of(op)
    if opdef.signature is not None:
        return opdef.signature(op, list(inputs))
    if opdef.elementwise and inputs:  # without inputs (ones_like of a static shape): its own
        return broadcast_signatures(*inputs)
    return signature(tensor.shape, op.name)


def broadcast_axes_of(index: int, operands: Sequence[Signature], result: Signature) -> Any:
    """Axes of ``result`` over which operand ``index`` was broadcast, for summing its gradient.

    Leading axes first (summed away), then stretched size-1 axes (summed with
    keepdims); ``ALL_AXES`` for a scalar operand; None when only the run time
    can tell (an unknown dim facing a different unknown or a larger dim: it
    may be 1 and stretched).
    """
    operand = operands[index]
    others = [s for j, s in enumerate(operands) if j != index]
    if all(s == () for s in others):
        return ()
    if operand == ():
        return ALL_AXES
    if (
        isinstance(operand, frozenset)
        or isinstance(result, frozenset)
        or any(isinstance(s, frozenset) for s in others)
    ):
        return None
    lead = len(result) - len(operand)
    axes = list(range(lead))
    for axis, dim in enumerate(operand):
        position = lead + axis
        if dim == 1:
            if result[position] != 1:
                axes.append(position)
        elif isinstance(dim, frozenset):
            facing = [
                s[len(s) - len(result) + position]
                for s in others
                if isinstance(s, tuple)  # all are, as checked above
                and len(s) - len(result) + position >= 0
            ]
            if any(d != 1 and d != dim for d in facing):
                return None
    return tuple(axes)


def reduced_axes_of(operand: Tensor, result: Tensor) -> Any:
    """Axes to sum so that ``result`` (a broadcast of ``operand``) takes its shape again."""
    sig = signature_of(result)
    return broadcast_axes_of(0, [signature_of(operand), sig], sig)


def natural_signature(expr: sp.Expr, known: dict[sp.Expr, Signature]) -> Signature | None:
    """The signature evaluating ``expr`` gives, from its parts; None if it cannot be told.

    ``known`` holds the signatures of symbols and structural nodes, and
    remembers each subexpression worked out here. Computed from the expression
    itself, not from the ops it came from, so a rule that cancels (``x - x`` is
    0) is seen to give a scalar.
    """
    found = known.get(expr)
    if found is not None:
        return found
    if expr.is_Number or expr in (sp.pi, sp.E) or isinstance(expr, sp.logic.boolalg.BooleanAtom):
        return ()
    if expr.is_Symbol:
        return None
    if isinstance(expr, F._Structural):
        natural = expr.natural(lambda part: natural_signature(part, known))
        if natural is not None:
            known[expr] = natural
        return natural
    parts = expr.args[:1] if isinstance(expr, F.Cast) else expr.args
    signatures = [natural_signature(part, known) for part in parts]
    if any(sig is None for sig in signatures):
        return None
    natural = broadcast_signatures(*signatures)  # type: ignore[arg-type]  # no None left (returned above)
    known[expr] = natural
    return natural
