"""Shape signatures of graph tensors: static shapes whose unknown dims carry their origin.

Two tensors with equal signatures have equal shapes at run time, so
``x * w`` of a ``[None]`` placeholder ``x`` is known to keep ``x``'s shape and
its gradient needs no run-time unbroadcasting. The rules are each op's
``OpDef.signature`` (elementwise ops broadcast; ops without a rule get fresh
unknown dims, which is always sound).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .graph import Tensor
from .ops import functions as F
from .ops.registry import opdef_of
from .shapes import ALL_AXES, ASSUMED_SCALAR, Signature, broadcast_signatures, signature

_SOURCES = ("Placeholder", "VariableV2", "Const")

# Signatures assumed for some tensors (see :func:`assuming`), with the cache of the
# signatures that follow from them; None outside an ``assuming`` block.
_ASSUMED: contextvars.ContextVar[tuple[Mapping[Tensor, Signature], dict[int, Signature]] | None] = (
    contextvars.ContextVar("symgrad_assumed_signatures", default=None)
)


@contextlib.contextmanager
def assuming(signatures: Mapping[Tensor, Signature]) -> Iterator[None]:
    """Within the block, ``signature_of`` gives these tensors these signatures, and every
    tensor computed from them what follows.

    The compiler traces a graph a second time under the assumption that the unknown dims
    of its placeholders are equal (``x`` and ``y`` of shape ``[None]`` then have one
    signature), for the body that a run-time shape check selects. Only tracing may run in
    the block: gradient ops built here would bake the assumption into the graph.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None], name="x")
    ...     y = sg.placeholder(sg.float64, [None], name="y")
    ...     d = y - x
    ...     with assuming({x: signature_of(x), y: signature_of(x)}):
    ...         same = signature_of(d) == signature_of(x)
    ...     same, signature_of(d) == signature_of(x)
    (True, False)
    """
    # The mapping is kept with the cache so that no tensor's id is reused while the block runs.
    token = _ASSUMED.set((dict(signatures), {id(t): s for t, s in signatures.items()}))
    try:
        yield
    finally:
        _ASSUMED.reset(token)


@dataclass(frozen=True)
class EqualDims:
    """An assumption about the run-time shapes of a function's inputs, and the signatures it gives.

    ``classes`` are groups of ``(input position, axis)`` whose sizes are assumed equal;
    ``vectors`` are the positions of inputs of unknown rank, assumed to be vectors of
    one length (their axis 0 is in the first class); ``scalars`` those of inputs of unknown
    rank assumed to be 0-d. Both keep an unknown rank while the graph is traced (the ops'
    shape rules need ranks that agree with the static shapes): the vectors with one
    signature, ``vector``, the scalars with ``shapes.ASSUMED_SCALAR``;
    :meth:`ranks_known` then gives them their assumed ranks.
    """

    signatures: dict[Tensor, Signature]
    classes: tuple[tuple[tuple[int, int], ...], ...]
    vectors: tuple[int, ...]
    vector: Signature = frozenset()
    vector_as: Signature = ()
    scalars: tuple[int, ...] = ()

    def ranks_known(self, naturals: Mapping[Any, Signature]) -> dict[Any, Signature]:
        """``naturals`` of a program traced under the assumption, with the inputs of unknown
        rank, and all values of their shape, known to be vectors or scalars."""
        known: dict[Any, Signature] = {ASSUMED_SCALAR: ()}
        if self.vectors:
            known[self.vector] = self.vector_as
        return {k: known.get(v, v) if isinstance(v, frozenset) else v for k, v in naturals.items()}


def equal_dims(inputs: Sequence[Tensor], scalars: Collection[Tensor] = ()) -> EqualDims | None:
    """Assume that the unknown dims of ``inputs`` are equal axis by axis, that the inputs of
    unknown rank in ``scalars`` are 0-d and that the other ones are vectors; None where that
    assumes nothing.

    This is how TF1 programs are fed: ``x`` and ``y`` of shape ``[None]`` (or of no shape
    at all) get arrays of one length, ``[None, 784]`` images and ``[None, 10]`` labels one
    batch size. Under the assumption their signatures are equal, so the compiler can prove
    that ``y - x`` keeps ``x``'s shape (compute it in place, no run-time unbroadcast). The
    generated function checks the assumption on each call and runs the general code where
    it does not hold (a size-1 feed that broadcasts as in TF1).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, name="x")
    ...     y = sg.placeholder(sg.float64, [None], name="y")
    ...     w = sg.Variable(1.0, name="w")
    ...     keep_prob = sg.placeholder(sg.float64, name="keep_prob")
    ...     found = equal_dims([x, y, w, keep_prob], scalars=[keep_prob])
    >>> found.classes, found.vectors, found.scalars
    ((((0, 0), (1, 0)),), (0,), (3,))
    """
    classes: dict[int, list[tuple[int, int]]] = {}
    scalar_positions = tuple(p for p, t in enumerate(inputs) if t.shape is None and t in scalars)
    vectors = tuple(
        p for p, t in enumerate(inputs) if t.shape is None and p not in scalar_positions
    )
    for position, tensor in enumerate(inputs):
        if position in scalar_positions:
            continue
        for axis, dim in enumerate((None,) if tensor.shape is None else tensor.shape):
            if dim is None:
                classes.setdefault(axis, []).append((position, axis))
    shared = {axis: members for axis, members in sorted(classes.items()) if len(members) > 1}
    if not shared and not vectors and not scalar_positions:
        return None
    signatures: dict[Tensor, Signature] = {inputs[p]: ASSUMED_SCALAR for p in scalar_positions}
    origins: dict[int, Any] = {}
    for axis, members in shared.items():
        ranked = [(p, a) for p, a in members if inputs[p].shape is not None] or members
        origins[axis] = (inputs[ranked[0][0]].name, ranked[0][1])
        for position, _ in members:
            tensor = inputs[position]
            if tensor.shape is not None:
                dims = list(signatures.get(tensor) or signature(tensor.shape, tensor.name))
                dims[axis] = frozenset({origins[axis]})
                signatures[tensor] = tuple(dims)
    vector: Signature = frozenset()
    vector_as: Signature = ()
    if vectors:
        first = inputs[vectors[0]]
        vector = signature(None, first.name)
        vector_as = (frozenset({origins.get(0, (first.name, 0))}),)
        for position in vectors:
            signatures[inputs[position]] = vector
    return EqualDims(
        signatures,
        tuple(tuple(members) for members in shared.values()),
        vectors,
        vector,
        vector_as,
        scalar_positions,
    )


def signature_of(tensor: Tensor) -> Signature:
    """The signature of ``tensor``, computed once per tensor (iteratively: graphs may be deep)."""
    assumed = _ASSUMED.get()
    if assumed is not None:
        cache = assumed[1]
    else:
        cache = tensor.graph.__dict__.setdefault("_signatures", {})
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
        found = opdef.signature(op, list(inputs))
        # A control op (a loop, a cond) gives one signature per output.
        return found[tensor.value_index] if opdef.control is not None else found
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
    operands = [() if s == ASSUMED_SCALAR else s for s in operands]  # 0-d at run time
    result = () if result == ASSUMED_SCALAR else result
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
