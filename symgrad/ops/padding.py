"""``pad``: constant, reflected or symmetric borders, and the gradient of a mirrored border
folded back onto the places it copies (``MirrorPadGrad``).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import format_shape
from .array_nodes import call
from .base import _known_rank, _op, _static_ints, constant_value
from .checks import _rank_of_arguments, ensure_axis
from .functions import Literal, helper, literal
from .registry import OpDef, register
from .slicing import strided_slice
from .sources import convert_to_tensor

_PAD_MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


def pad(
    tensor: Any,
    paddings: Any,
    mode: str = "CONSTANT",
    name: str | None = None,
    constant_values: Any = 0,
) -> Tensor:
    """``np.pad``: ``paddings[i] = [before, after]`` for axis i; ``mode`` is ``CONSTANT``,
    ``REFLECT`` (the edge not repeated) or ``SYMMETRIC`` (repeated), in any case.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([1.0, 2.0, 3.0])
    ...     print(sg.compile(sg.pad(x, [[2, 1]], "REFLECT"))())
    [3. 2. 1. 2. 3. 2.]
    """
    x = convert_to_tensor(tensor)
    flat = _static_ints(paddings, "Pad", "paddings", x)
    x = _rank_of_arguments(x, len(flat) // 2)
    rank = _known_rank(x, "Pad")
    assert x.shape is not None
    if len(flat) != 2 * rank or any(p < 0 for p in flat):
        raise ShapeError(
            f"symgrad: Pad: paddings {flat} must be {rank} pairs of non-negative ints for "
            f"'{x.name}' of shape {format_shape(x.shape)}"
        )
    pairs = tuple((flat[2 * i], flat[2 * i + 1]) for i in builtins.range(rank))
    numpy_mode = _PAD_MODES.get(str(mode).upper())
    if numpy_mode is None:
        raise InvalidArgumentError(
            f"symgrad: Pad: mode {mode!r} for '{x.name}' must be CONSTANT, REFLECT or SYMMETRIC"
        )
    # REFLECT may pad at most size - 1 on a side, SYMMETRIC at most size (TF's limits).
    limit = {"constant": None, "reflect": 1, "symmetric": 0}[numpy_mode]
    input_shape = x.shape  # x may become its run-time check below, of the same shape
    for axis, ((before, after), dim) in enumerate(zip(pairs, input_shape, strict=True)):
        if limit is None:
            continue
        needed = builtins.max(before, after) + limit
        if dim is None and needed:
            # NumPy mirrors a short axis again and again; TF's kernel refuses it when run.
            x = ensure_axis(x, axis, needed, at_least=True, op_type="MirrorPad")
        elif dim is not None and needed > dim:
            raise InvalidArgumentError(
                f"symgrad: MirrorPad: paddings {[before, after]} of axis {axis} are too large "
                f"for '{x.name}' of shape {format_shape(x.shape)} in mode {mode}"
            )
    fill = constant_values
    if isinstance(fill, Tensor):
        fixed = constant_value(fill)
        if fixed is None:
            raise InvalidArgumentError(
                f"symgrad: Pad: constant_values must be a number or a constant tensor, not "
                f"'{fill.name}'"
            )
        fill = fixed
    fill = np.asarray(fill).astype(x.dtype.numpy).item()
    shape = tuple(
        None if d is None else d + b + a for d, (b, a) in zip(input_shape, pairs, strict=True)
    )
    attrs = {"paddings": pairs, "mode": numpy_mode, "constant_values": fill}
    return _op("Pad", [x], attrs, shape, x.dtype, name)


def _lower_pad(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    pairs, mode = op.attrs["paddings"], op.attrs["mode"]
    if mode == "constant":
        fill = op.attrs["constant_values"]
        extra = [] if fill == 0 else [Literal(f"constant_values={fill!r}")]
        return call("pad", operands[0], literal(pairs), *extra)
    return call("pad", operands[0], literal(pairs), Literal(f"mode={mode!r}"))


def _pad_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    pairs = op.attrs["paddings"]
    if op.attrs["mode"] == "constant":
        # The gradient of padding with constants is the slice of the original place.
        key = tuple(builtins.slice(b, -a if a else None) for b, a in pairs)
        return [strided_slice(grad, key)]
    return [_op("MirrorPadGrad", [grad], dict(op.attrs), op.inputs[0].shape, grad.dtype, None)]


register(OpDef("Pad", lower=_lower_pad, gradient=_pad_gradient))
register(
    OpDef(
        "MirrorPadGrad",
        lower=lambda op, xs: helper(
            "_mirror_pad_grad",
            xs[0],
            literal(op.attrs["paddings"]),
            Literal(repr(op.attrs["mode"])),
        ),
        # Folding the mirrored borders back is the transpose of mirror-padding.
        gradient=lambda op, g: [_op("Pad", [g], dict(op.attrs), op.inputs[0].shape, g.dtype, None)],
    )
)

__all__ = [
    "pad",
]
