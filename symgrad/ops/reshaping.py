"""Reshaping ops: reshape (and ``reshape_like``, to another tensor's run-time shape),
transpose, expand_dims and squeeze.

Each op is an IR call (:mod:`symgrad.ops.array_nodes`) with its shape rule and its gradient
as graph ops, next to each other.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import ShapeError
from ..graph import Operation, Tensor, default_names
from ..shapes import format_shape, num_elements, signature, unknown_rank_axes
from .array_nodes import _lower_call, call, shape_argument
from .base import _axis, _ints, _op, _shape_argument, _static_like
from .checks import ensure_shape
from .functions import cast as cast_node
from .functions import helper
from .registry import OpDef, register
from .sources import convert_to_tensor

# --- reshape ---------------------------------------------------------------------------------


def reshape(tensor: Any, shape: Any, name: str | None = None) -> Tensor:
    """``np.reshape``; one dim may be -1.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 28, 28])
    ...     sg.reshape(x, [-1, 784]).shape
    (None, 784)
    """
    x = convert_to_tensor(tensor)
    if isinstance(shape, Tensor) and shape.op.type == "Shape":
        return reshape_like(x, shape.op.inputs[0])  # reshape(t, tf.shape(u)): u's run-time shape
    if isinstance(shape, Tensor):
        shape = _shape_argument(shape, "Reshape", x)
    target = _ints(shape, "Reshape", "the shape", x)
    if target.count(-1) > 1 or any(d < -1 for d in target):
        raise ShapeError(f"symgrad: Reshape: invalid target shape {tuple(target)} for '{x.name}'")
    known = int(np.prod([d for d in target if d != -1])) if target else 1
    total = num_elements(x.shape)
    if total is not None:
        if -1 in target:
            if known == 0 or total % known:
                raise ShapeError(
                    f"symgrad: Reshape: cannot reshape '{x.name}' of shape "
                    f"{format_shape(x.shape)} ({total} elements) to {tuple(target)}"
                )
            out: tuple[Any, ...] = tuple(total // known if d == -1 else d for d in target)
        elif known != total:
            raise ShapeError(
                f"symgrad: Reshape: cannot reshape '{x.name}' of shape {format_shape(x.shape)} "
                f"({total} elements) to {tuple(target)} ({known} elements)"
            )
        else:
            out = tuple(target)
    else:
        out = tuple(None if d == -1 else d for d in target)
    return _op("Reshape", [x], {"shape": tuple(target)}, out, x.dtype, name)


def _reshape_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [reshape_like(grad, op.inputs[0])]


def reshape_like(tensor: Tensor, like: Tensor) -> Tensor:
    """``tensor`` reshaped to the (run-time) shape of ``like``."""
    return _op("ReshapeLike", [tensor, like], {}, like.shape, tensor.dtype, None)


def _lower_reshape_like(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    value = operands[0]
    if isinstance(value, sp.Number):
        # A number (the 1 that seeds a gradient) reshaped is an array of its own: NumPy would
        # make it int64 or float64, whatever the tensor's dtype.
        dtype = op.outputs[0].dtype.name
        value = cast_node(value, dtype, dtype)
    return call("reshape", value, shape_argument(op.inputs[1], operands[1]))


def _reshape_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    """``x.reshape(-1, ...)`` keeps the unknown dim of ``x`` when the known dims around it hold
    as many elements on both sides: ``[None, 784]`` images reshaped to ``[-1, 28, 28, 1]`` keep
    their batch size, so a CNN's logits still meet the ``[None, 10]`` labels with one signature.
    Any other reshape gives fresh unknown dims (always sound)."""
    source, target = sigs[0], op.attrs["shape"]
    fresh = signature(op.outputs[0].shape, op.name)
    if isinstance(source, frozenset) or target.count(-1) != 1:
        return fresh
    unknown = [d for d in source if isinstance(d, frozenset)]
    known_in = int(np.prod([d for d in source if isinstance(d, int)]))
    known_out = int(np.prod([d for d in target if d != -1]))
    if len(unknown) != 1 or known_in == 0 or known_in != known_out:
        return fresh
    return tuple(unknown[0] if d == -1 else d for d in target)


register(
    OpDef(
        "Reshape",
        lower=_lower_call("reshape", "shape"),
        gradient=_reshape_gradient,
        signature=_reshape_signature,
    )
)
register(
    OpDef(
        "ReshapeLike",
        lower=_lower_reshape_like,
        gradient=lambda op, g: [reshape_like(g, op.inputs[0]), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


# --- transpose, expand_dims, squeeze -------------------------------------------------------------


def transpose(
    a: Any, perm: Sequence[int] | None = None, name: str | None = None, conjugate: bool = False
) -> Tensor:
    """Permute axes (reverse them by default); ``perm`` may be a constant int tensor."""
    with default_names([a], {"Transpose": "transpose"}):
        return _transpose(a, perm, name)


def _transpose(a: Any, perm: Sequence[int] | None, name: str | None) -> Tensor:
    x = convert_to_tensor(a)
    if isinstance(perm, Tensor):
        perm = _shape_argument(perm, "Transpose", x)
    if x.shape is None:
        if perm is None:  # NumPy reverses the axes of whatever rank arrives, as TF does
            return _op("Transpose", [x], {"perm": None}, None, x.dtype, name)
        # A permutation fixes the rank: TF's kernel refuses any other, and so does the check.
        x = ensure_shape(x, [None] * len(perm))
    shape = x.shape
    assert shape is not None  # given above where it was not
    rank = len(shape)
    order = tuple(builtins.range(rank))[::-1] if perm is None else tuple(int(p) for p in perm)
    if sorted(p % builtins.max(rank, 1) if -rank <= p < rank else -1 for p in order) != list(
        builtins.range(rank)
    ):
        raise ShapeError(
            f"symgrad: Transpose: perm {perm!r} is not a permutation of the {rank} axes "
            f"of '{x.name}' {format_shape(shape)}"
        )
    order = tuple(p % rank for p in order) if rank else order
    return _op("Transpose", [x], {"perm": order}, tuple(shape[p] for p in order), x.dtype, name)


def _transpose_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    if op.attrs["perm"] is None:  # the reversal, of a rank known only at run time
        return [transpose(grad)]
    return [transpose(grad, list(np.argsort(op.attrs["perm"])))]


def _transpose_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if op.attrs["perm"] is None or not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    return tuple(sigs[0][p] for p in op.attrs["perm"])


def _lower_transpose(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    perm = op.attrs["perm"]
    if perm is None or perm == tuple(builtins.range(len(perm)))[::-1]:
        return call("transpose", operands[0])
    return call("transpose", operands[0], perm)


register(
    OpDef(
        "Transpose",
        lower=_lower_transpose,
        gradient=_transpose_gradient,
        signature=_transpose_signature,
    )
)


def expand_dims(input: Any, axis: int, name: str | None = None) -> Tensor:
    """Insert a size-1 axis at ``axis``."""
    x = convert_to_tensor(input)
    if x.shape is None:
        # NumPy counts a negative axis in the result's axes, as TF does: -1 appends one.
        (position,) = unknown_rank_axes(int(axis), "ExpandDims", x.name)
        return _op("ExpandDims", [x], {"axis": position}, None, x.dtype, name)
    rank = len(x.shape) + 1
    if not -rank <= int(axis) < rank:
        raise ShapeError(
            f"symgrad: ExpandDims: axis {axis} is out of range for '{x.name}' of rank {rank - 1}"
        )
    position = int(axis) % rank
    shape = tuple(x.shape[:position]) + (1,) + tuple(x.shape[position:])
    return _op("ExpandDims", [x], {"axis": position}, shape, x.dtype, name)


def squeeze_last_by_rank(value: Tensor, other: Tensor, difference: int) -> Tensor:
    """``value`` without its last axis (which must have size 1) when its rank, known only at
    run time, exceeds ``other``'s by ``difference``; else ``value`` as it is: TF1's dynamic
    ``_remove_squeezable_dimensions`` of labels and weights of unknown rank."""
    attrs = {"difference": int(difference)}
    return _op("SqueezeLastByRank", [value, other], attrs, None, value.dtype, None)


register(
    OpDef(
        "SqueezeLastByRank",
        lower=lambda op, xs: helper("_squeeze_last_by_rank", xs[0], xs[1], op.attrs["difference"]),
        gradient=lambda op, grad: [reshape_like(grad, op.inputs[0]), None],
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
    )
)


def squeeze(
    input: Any, axis: Any = None, name: str | None = None, squeeze_dims: Any = None
) -> Tensor:
    """Remove size-1 axes (all of them, or those in ``axis``)."""
    x = convert_to_tensor(input)
    axis = squeeze_dims if axis is None else axis
    if x.shape is None:
        # The axes to drop (all of size 1 if none are named) are known when the value arrives;
        # NumPy refuses an axis whose size is not 1, as TF's kernel does.
        requested = None if axis is None else (axis if isinstance(axis, (list, tuple)) else [axis])
        axes = None if requested is None else unknown_rank_axes(requested, "Squeeze", x.name)
        return _op("Squeeze", [x], {"axes": axes}, None, x.dtype, name)
    rank = len(x.shape)
    if axis is None:
        if None in x.shape:
            # Which axes have size 1 is known when the value arrives: the result's rank is
            # unknown until then, as TF's shape function says.
            return _op("Squeeze", [x], {"axes": None}, None, x.dtype, name)
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        requested = axis if isinstance(axis, (list, tuple)) else [axis]
        axes = tuple(sorted(_axis(a, rank, "Squeeze", x.name) for a in requested))
        for a in axes:
            if x.shape[a] not in (1, None):
                raise ShapeError(
                    f"symgrad: Squeeze: axis {a} of '{x.name}' {format_shape(x.shape)} "
                    f"has size {x.shape[a]}, not 1"
                )
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return _op("Squeeze", [x], {"axes": axes}, shape, x.dtype, name)


def _squeeze_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if op.attrs["axes"] is None or not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    return tuple(d for i, d in enumerate(sigs[0]) if i not in op.attrs["axes"])


def _expand_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    sig = list(sigs[0])
    sig.insert(op.attrs["axis"], 1)
    return tuple(sig)


register(
    OpDef(
        "ExpandDims",
        lower=_lower_call("expand_dims", "axis"),
        gradient=lambda op, g: [reshape_like(g, op.inputs[0])],
        signature=_expand_signature,
    )
)
register(
    OpDef(
        "Squeeze",
        lower=_lower_call("squeeze", "axes"),
        gradient=lambda op, g: [reshape_like(g, op.inputs[0])],
        signature=_squeeze_signature,
    )
)
