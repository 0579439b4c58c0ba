"""The adjoints of NumPy broadcasting: ``SumToShape`` and ``BroadcastLike``.

``SumToShape`` sums a cotangent back to an operand's shape after NumPy
broadcasting (the gradient of every broadcasting elementwise op);
``BroadcastLike`` spreads it back without materialising the broadcast. Each is
the other's gradient. They come before the elementwise ops, whose gradients
build them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..graph import Operation, Tensor
from ..shapes import ALL_AXES
from ..signatures import reduced_axes_of
from . import functions as F
from .registry import Lowered, OpDef, register


def like_signature(op: Operation, operands: Sequence[Any]) -> Any:
    """Ops whose output has the shape of their input 1 (the ``like`` tensor)."""
    return operands[1]


def sum_to_shape_of(grad: Tensor, like: Tensor, axes: Any) -> Tensor:
    """Sum ``grad`` over ``axes`` (from :func:`symgrad.shapes.broadcast_axes`) to ``like``'s shape.

    ``axes=None`` means the axes are only known at run time; ``ALL_AXES`` sums everything.
    """
    if axes == ():
        return grad
    op = grad.graph.create_op(
        "SumToShape", [grad, like], {"axes": axes}, [(like.shape, grad.dtype)]
    )
    return op.outputs[0]


def _lower_sum_to_shape(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    grad, like = operands
    axes = op.attrs["axes"]
    if axes is None:
        return F.SumToShape(grad, like)
    if axes == ALL_AXES:
        return F.ReduceSum(grad, sp.Tuple(), sp.Integer(0))
    target = op.inputs[1].shape
    source = op.inputs[0].shape
    assert source is not None and target is not None  # explicit axes come from known ranks
    out_rank = len(source)
    lead = out_rank - len(target)
    leading = tuple(a for a in axes if a < lead)
    stretched = tuple(a - lead for a in axes if a >= lead)
    expr = grad
    if leading:
        everything = len(leading) == out_rank
        expr = F.ReduceSum(expr, sp.Tuple() if everything else F.axes_tuple(leading), sp.Integer(0))
    if stretched:
        everything = len(stretched) == len(target)
        expr = F.ReduceSum(
            expr, sp.Tuple() if everything else F.axes_tuple(stretched), sp.Integer(1)
        )
    return expr


def _sum_to_shape_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [broadcast_like(grad, op.inputs[0]), None]


def _like_if_axes_dynamic(op: Operation) -> tuple[int, ...]:
    return (1,) if op.attrs["axes"] is None else ()


register(
    OpDef(
        "SumToShape",
        lower=_lower_sum_to_shape,
        gradient=_sum_to_shape_gradient,
        materialized_inputs=_like_if_axes_dynamic,
        shape_only_inputs=(1,),
        signature=like_signature,
    )
)


def broadcast_like(grad: Tensor, like: Tensor) -> Tensor:
    """``grad`` broadcast (NumPy rules) to ``like``'s shape, without materialising it."""
    op = grad.graph.create_op("BroadcastLike", [grad, like], {}, [(like.shape, grad.dtype)])
    return op.outputs[0]


def _lower_broadcast_like(op: Operation, operands: Sequence[Any]) -> Lowered:
    grad, like = operands
    return Lowered(grad.expr, grad.natural, like.witnesses)


def _broadcast_like_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    source = op.inputs[0]
    return [sum_to_shape_of(grad, source, reduced_axes_of(source, op.outputs[0])), None]


register(
    OpDef(
        "BroadcastLike",
        lower=_lower_broadcast_like,
        gradient=_broadcast_like_gradient,
        shape_only_inputs=(1,),
        value_lowering=True,
        signature=like_signature,
    )
)
