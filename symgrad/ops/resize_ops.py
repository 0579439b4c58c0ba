"""TF1's legacy image resizing ops (NHWC): ResizeBilinear and ResizeNearestNeighbor, with
their gradients (``tf.image.resize_images`` and friends in :mod:`symgrad.image` build on
them).

Each lowers to a kernel of the generated module (``_resize_bilinear``, ...;
``symgrad/backends/<backend>/kernels/resize.py``) that computes the source coordinates of
each axis once, in float32 as TF's kernels do, and gathers (a gradient applies each axis's
interpolation matrix, transposed, with a matrix product: no loop over pixels).

TF's rules followed here (``tensorflow/core/kernels/image/resize_*_op.cc``,
``tensorflow/python/ops/image_grad.py``):

* ``scale = in / out``, or ``(in - 1) / (out - 1)`` with ``align_corners`` (and ``out >
  1``); the source of output ``i`` is ``i * scale``, with ``half_pixel_centers`` ``(i +
  0.5) * scale - 0.5`` (bilinear) or ``(i + 0.5) * scale`` (nearest).
* Bilinear reads the rows ``max(floor(s), 0)`` and ``min(ceil(s), in - 1)`` weighted by
  ``s - floor(s)``, and returns float32 whatever the image's dtype.
* Nearest takes ``floor(s)`` (``round(s)``, halves up, with ``align_corners``), clipped
  into the image, in the image's dtype.
* The gradients (``ResizeBilinearGrad``, ``ResizeNearestNeighborGrad``) are the adjoints,
  in the image's dtype; integer images get none. TF declares both gradient ops not
  differentiable (``ResizeBilinearGrad`` is ``NotDifferentiable``, the nearest one has no
  gradient): so here, where their second derivatives are None.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import dtypes as _dtypes
from ..graph import Operation, Tensor
from ..shapes import Shape, is_fully_defined
from .array_nodes import shape_argument
from .conv_ops import _batch_first
from .elementwise import cast
from .functions import helper, literal
from .registry import OpDef, register


def _flags(op: Operation) -> dict:
    return {k: op.attrs[k] for k in ("align_corners", "half_pixel_centers")}


def _arguments(op: Operation) -> tuple[Any, ...]:
    return literal(op.attrs["align_corners"]), literal(op.attrs["half_pixel_centers"])


def _op(
    op_type: str, inputs: Sequence[Tensor], attrs: dict, shape: Shape, dtype: Any, name: Any
) -> Tensor:
    graph = inputs[0].graph
    return graph.create_op(op_type, inputs, attrs, [(shape, dtype)], name=name).outputs[0]


def resize(
    op_type: str,
    images: Tensor,
    size: tuple[int, int],
    align_corners: bool,
    half_pixel_centers: bool,
    name: str | None = None,
) -> Tensor:
    """A ``ResizeBilinear`` or ``ResizeNearestNeighbor`` op of the 4-D ``images`` to the
    static ``size`` (height, width); the caller has checked its arguments."""
    assert images.shape is not None and len(images.shape) == 4
    height, width = int(size[0]), int(size[1])
    attrs = {
        "size": (height, width),
        "align_corners": bool(align_corners),
        "half_pixel_centers": bool(half_pixel_centers),
    }
    shape = (images.shape[0], height, width, images.shape[3])
    dtype = _dtypes.float32 if op_type == "ResizeBilinear" else images.dtype
    return _op(op_type, [images], attrs, shape, dtype, name)


def _bilinear_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    if not x.dtype.is_floating:
        return [None]  # TF's kernels have no gradient for integer images
    if grad.dtype != x.dtype:  # the float32 cotangent, added up in the image's dtype
        grad = cast(grad, x.dtype)
    return [_op("ResizeBilinearGrad", [grad, x], _flags(op), x.shape, x.dtype, None)]


def _nearest_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    if not x.dtype.is_floating:
        return [None]
    return [_op("ResizeNearestNeighborGrad", [grad, x], _flags(op), x.shape, x.dtype, None)]


def _static_like(op: Operation) -> tuple[int, ...]:
    return () if is_fully_defined(op.inputs[1].shape) else (1,)


register(
    OpDef(
        "ResizeBilinear",
        lower=lambda op, xs: helper(
            "_resize_bilinear", xs[0], literal(op.attrs["size"]), *_arguments(op), dtype="float32"
        ),
        gradient=_bilinear_gradient,
        signature=lambda op, sigs: _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "ResizeNearestNeighbor",
        lower=lambda op, xs: helper(
            "_resize_nearest", xs[0], literal(op.attrs["size"]), *_arguments(op)
        ),
        gradient=_nearest_gradient,
        signature=lambda op, sigs: _batch_first(op, sigs[0]),
    )
)


def _gradient_opdef(op_type: str, kernel: str) -> OpDef:
    """A gradient op: the cotangent and the image (read for its shape); as TF's, it has no
    gradient itself."""

    def lower(op: Operation, xs: Sequence[Any]) -> Any:
        return helper(kernel, xs[0], shape_argument(op.inputs[1], xs[1]), *_arguments(op))

    return OpDef(
        op_type,
        lower=lower,
        gradient=None,
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )


register(_gradient_opdef("ResizeBilinearGrad", "_resize_bilinear_grad"))
register(_gradient_opdef("ResizeNearestNeighborGrad", "_resize_nearest_grad"))

__all__ = ["resize"]
