"""Matrix products: ``matmul`` (``@``) for 2-D and batched operands."""

from __future__ import annotations

from typing import Any, List, Optional

import sympy as sp

from ..errors import DTypeError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import broadcast_axes, broadcast_shapes, broadcast_signatures, format_shape
from .functions import MatMulNode
from .reductions import sum_to_shape_of
from .registry import OpDef, register
from .sources import convert_to_tensor


def _matrix_dims(shape: Any, transpose: bool) -> tuple:
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if transpose else (rows, cols)


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           name: Optional[str] = None) -> Tensor:
    """Matrix product of the last two axes, broadcasting leading (batch) axes.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 784])
    ...     w = sg.constant(0.0, shape=[784, 10])
    ...     (x @ w).shape
    (None, 10)
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype=a.dtype) if not isinstance(b, Tensor) else b
    if a.dtype != b.dtype:
        raise DTypeError(f"symgrad: MatMul: operands '{a.name}' ({a.dtype.name}) and '{b.name}' "
                         f"({b.dtype.name}) must have the same dtype")
    if a.dtype.is_bool:
        raise DTypeError(f"symgrad: MatMul: bool operands are not supported ('{a.name}')")
    for tensor in (a, b):
        if tensor.shape is None or len(tensor.shape) < 2:
            raise ShapeError(f"symgrad: MatMul: operand '{tensor.name}' has shape "
                             f"{format_shape(tensor.shape)}; matmul needs rank 2 or more")
    rows, inner_a = _matrix_dims(a.shape, transpose_a)
    inner_b, cols = _matrix_dims(b.shape, transpose_b)
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ShapeError(f"symgrad: MatMul: inner dimensions differ: '{a.name}' {format_shape(a.shape)}"
                         f"{' (transposed)' if transpose_a else ''} and '{b.name}' {format_shape(b.shape)}"
                         f"{' (transposed)' if transpose_b else ''}")
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ShapeError(f"symgrad: MatMul: batch dimensions of '{a.name}' {format_shape(a.shape)} and "
                         f"'{b.name}' {format_shape(b.shape)} do not broadcast") from None
    shape = tuple(batch) + (rows, cols)  # type: ignore[arg-type]
    op = a.graph.create_op("MatMul", [a, b], {"transpose_a": bool(transpose_a),
                                               "transpose_b": bool(transpose_b)},
                           [(shape, a.dtype)], name=name)
    return op.outputs[0]


def _lower(op: Operation, operands: List[sp.Expr]) -> sp.Expr:
    a, b = op.inputs
    return MatMulNode(operands[0], operands[1], sp.Integer(int(op.attrs["transpose_a"])),
                      sp.Integer(int(op.attrs["transpose_b"])), sp.Integer(len(a.shape)),
                      sp.Integer(len(b.shape)))


def _gradient(op: Operation, grad: Tensor) -> List[Optional[Tensor]]:
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        grad_a, grad_b = matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)
    elif not ta and tb:
        grad_a, grad_b = matmul(grad, b), matmul(grad, a, transpose_a=True)
    elif ta and not tb:
        grad_a, grad_b = matmul(b, grad, transpose_b=True), matmul(a, grad)
    else:
        grad_a = matmul(b, grad, transpose_a=True, transpose_b=True)
        grad_b = matmul(grad, a, transpose_a=True, transpose_b=True)
    # Leading (batch) axes broadcast like elementwise operands.
    batches = [a.shape[:-2] + (1, 1), b.shape[:-2] + (1, 1)]
    result = op.outputs[0].shape[:-2] + (1, 1)  # type: ignore[index]
    return [sum_to_shape_of(grad_a, a, broadcast_axes(0, batches, result)),
            sum_to_shape_of(grad_b, b, broadcast_axes(1, batches, result))]


def _signature(op: Operation, operands: List[Any]) -> Any:
    a, b = operands
    rows, _ = _matrix_dims(a, op.attrs["transpose_a"])
    _, cols = _matrix_dims(b, op.attrs["transpose_b"])
    return tuple(broadcast_signatures(a[:-2], b[:-2])) + (rows, cols)  # type: ignore[arg-type]


register(OpDef("MatMul", lower=_lower, gradient=_gradient, signature=_signature))
