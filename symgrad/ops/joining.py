"""Joining and splitting: concat, stack, unstack and split, and the ops that repeat a
tensor, tile and broadcast_to.
"""

from __future__ import annotations

import builtins
import typing
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names
from ..shapes import broadcast_shapes, format_shape, shapes_compatible, signature
from ..signatures import reduced_axes_of
from .array_nodes import Index, ListOf, ShapeOf, _lower_call, call, shape_argument
from .base import (
    _axis,
    _back_to_input,
    _ints,
    _op,
    _run_time_shape_of,
    _shape_argument,
    _static_like,
)
from .broadcasting import sum_to_shape_of
from .checks import ensure_axis, ensure_same_dims, ensure_shape
from .elementwise import add, cast, identity, zeros_like
from .functions import Literal, helper
from .functions import cast as cast_node
from .registry import OpDef, register
from .slicing import strided_slice
from .sources import PACKER, convert_to_tensor

# --- concat, stack, unstack, split ----------------------------------------------------------------


def concat(values: Sequence[Any], axis: int, name: str | None = "concat") -> Tensor:
    """Join tensors along an existing axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise InvalidArgumentError("symgrad: ConcatV2: needs at least one tensor")
    for t in tensors[1:]:
        if t.dtype != tensors[0].dtype:
            raise DTypeError(
                f"symgrad: ConcatV2: '{t.name}' is {t.dtype.name}, "
                f"'{tensors[0].name}' {tensors[0].dtype.name}"
            )
    ranked = [t for t in tensors if t.shape is not None]
    if not ranked:  # unknown ranks (unshaped placeholders): NumPy checks them at run time
        if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
            raise ShapeError(f"symgrad: ConcatV2: axis must be an integer, got {axis!r}")
        if len(tensors) == 1:
            return identity(tensors[0], name=name if name != "concat" else None)
        return _op("ConcatV2", tensors, {"axis": int(axis)}, None, tensors[0].dtype, name)
    first = ranked[0]
    first_shape = first.shape
    assert first_shape is not None  # ranked
    rank = len(first_shape)
    position = _axis(axis, rank, "ConcatV2", first.name)
    shape: list[Any] = list(first_shape)
    if len(ranked) < len(tensors):
        shape[position] = None  # an input of unknown rank adds an unknown length
    for t in ranked[1:]:
        t_shape = t.shape
        assert t_shape is not None  # ranked
        if len(t_shape) != rank or any(
            a is not None and b is not None and a != b and i != position
            for i, (a, b) in enumerate(zip(shape, t_shape, strict=False))
        ):
            raise ShapeError(
                f"symgrad: ConcatV2: shapes {format_shape(first.shape)} of '{first.name}' and "
                f"{format_shape(t.shape)} of '{t.name}' differ off axis {position}"
            )
        shape[position] = (
            None
            if shape[position] is None or t_shape[position] is None
            else shape[position] + t_shape[position]
        )
        shape = [
            a if a is not None else b if i != position else a
            for i, (a, b) in enumerate(zip(shape, t_shape, strict=False))
        ]
    if len(tensors) == 1:
        return identity(first, name=name if name != "concat" else None)
    return _op("ConcatV2", tensors, {"axis": position}, tuple(shape), first.dtype, name)


def _lower_concat(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    return call("concatenate", ListOf(*operands), op.attrs["axis"])


def _concat_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    axis = op.attrs["axis"]
    sizes = [None if t.shape is None else t.shape[axis] for t in op.inputs]
    if None in sizes:
        return [
            _op(
                "ConcatPart",
                [grad] + list(op.inputs),
                {"axis": axis, "index": i},
                t.shape,
                grad.dtype,
                None,
            )
            for i, t in enumerate(op.inputs)
        ]
    results: list[Tensor | None] = []
    start = 0
    for size in sizes:
        assert size is not None  # None is not in sizes
        key = (slice(None),) * axis + (slice(start, start + size),)
        results.append(strided_slice(grad, key))
        start += size
    return results


def _lower_concat_part(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    grad, *parts = operands
    axis, index = op.attrs["axis"], op.attrs["index"]
    sizes = ListOf(*(Index(ShapeOf(p), Literal(str(axis))) for p in parts))
    return helper("_concat_part", grad, axis, sizes, index)


def _concat_signature(op: Operation, inputs: Sequence[Any]) -> Any:
    """The parts' dims off the axis are equal (TF checks it when the graph runs): the first
    part's; along the axis, their sum where every size is known."""
    shape = op.outputs[0].shape
    if shape is None or not all(isinstance(s, tuple) and len(s) == len(shape) for s in inputs):
        return signature(shape, op.name)
    axis = op.attrs["axis"]
    along = [s[axis] for s in inputs]
    dims = list(inputs[0])
    dims[axis] = (
        sum(along) if all(isinstance(d, int) for d in along) else frozenset({(op.name, axis)})
    )
    return tuple(dims)


register(
    OpDef("ConcatV2", lower=_lower_concat, gradient=_concat_gradient, signature=_concat_signature)
)


def _concat_part_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # The part's gradient in its place among zeros, shaped like the concatenation's gradient;
    # the parts give only their sizes.
    whole, *parts = op.inputs
    placed = _op(
        "UnconcatPart", [grad, whole, *parts], dict(op.attrs), whole.shape, grad.dtype, None
    )
    return [placed] + [None] * len(parts)


def _lower_unconcat_part(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    grad, whole, *parts = operands
    axis, index = op.attrs["axis"], op.attrs["index"]
    sizes = ListOf(*(Index(ShapeOf(p), Literal(str(axis))) for p in parts))
    return helper("_unconcat_part", grad, whole, axis, sizes, index)


def _unconcat_part_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    _, whole, *parts = op.inputs
    part = _op("ConcatPart", [grad, *parts], dict(op.attrs), op.inputs[0].shape, grad.dtype, None)
    return [part, None] + [None] * len(parts)


register(
    OpDef(
        "ConcatPart",
        lower=_lower_concat_part,
        gradient=_concat_part_gradient,
        materialized_inputs=lambda op: tuple(builtins.range(1, len(op.inputs))),
    )
)
register(
    OpDef(
        "UnconcatPart",
        lower=_lower_unconcat_part,
        gradient=_unconcat_part_gradient,
        materialized_inputs=lambda op: tuple(builtins.range(1, len(op.inputs))),
        signature=lambda op, sigs: sigs[1],
    )
)


def stack(values: Sequence[Any], axis: int = 0, name: str = "stack") -> Tensor:
    """Join tensors of one shape along a new axis."""
    tensors = [convert_to_tensor(v) for v in values]
    if not tensors:
        raise InvalidArgumentError("symgrad: Pack: needs at least one tensor")
    # A value of a rank known only at run time takes the shape of one whose shape is known,
    # checked when run (TF merges the static shapes; np.stack checks the values).
    known = next((t for t in tensors if t.shape is not None), None)
    if known is not None:
        tensors = [ensure_shape(t, known.shape) if t.shape is None else t for t in tensors]
    first = tensors[0]
    for t in tensors[1:]:
        if not shapes_compatible(t.shape, first.shape) or t.dtype != first.dtype:
            raise ShapeError(
                f"symgrad: Pack: '{t.name}' {t.dtype.name}{format_shape(t.shape)} differs from "
                f"'{first.name}' {first.dtype.name}{format_shape(first.shape)}"
            )
    if first.shape is None:  # NumPy places the new axis when the values arrive, as TF does
        return _op("Pack", tensors, {"axis": int(axis)}, None, first.dtype, name)
    if not -(len(first.shape) + 1) <= int(axis) <= len(first.shape):
        raise ShapeError(
            f"symgrad: Pack: axis {axis} is out of range for stacking '{first.name}' of rank "
            f"{len(first.shape)} {format_shape(first.shape)} (the result has rank {len(first.shape) + 1})"
        )
    position = int(axis) % (len(first.shape) + 1)
    # Each dim as the value that knows it says (np.stack checks that the values agree).
    shapes = [typing.cast(tuple[Any, ...], t.shape) for t in tensors]  # all known here
    merged = [next((d for d in dims if d is not None), None) for dims in zip(*shapes, strict=True)]
    shape = tuple(merged[:position]) + (len(tensors),) + tuple(merged[position:])
    return _op("Pack", tensors, {"axis": position}, shape, first.dtype, name)


PACKER["stack"] = stack  # convert_to_tensor packs lists of tensors with it
PACKER["cast"] = cast  # and casts them to a dtype it is asked for


def _along(axis: int, index: int | slice) -> tuple[Any, ...]:
    """The key of ``index`` along ``axis``: counted from the end when the rank is known only
    at run time (``[..., i, :]`` for axis -2)."""
    if axis < 0:
        return (Ellipsis, index) + (slice(None),) * (-axis - 1)
    return (slice(None),) * axis + (index,)


def _lower_stack(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    # A constant scalar is printed as a Python number, which np.stack would make float64 (or
    # int64): cast it to the op's dtype first, as the other operands are.
    dtype = op.outputs[0].dtype.name
    typed = [cast_node(x, dtype, dtype) if x.is_Number else x for x in operands]
    return call("stack", ListOf(*typed), op.attrs["axis"])


def _stack_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    axis = op.attrs["axis"]
    return [strided_slice(grad, _along(axis, i)) for i in builtins.range(len(op.inputs))]


def _stack_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    if not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    return tuple(sigs[0][: op.attrs["axis"]]) + (len(sigs),) + tuple(sigs[0][op.attrs["axis"] :])


register(
    OpDef(
        "Pack",
        lower=_lower_stack,
        gradient=_stack_gradient,
        signature=_stack_signature,
    )
)


def unstack(
    value: Any, num: int | None = None, axis: int = 0, name: str = "unstack"
) -> list[Tensor]:
    """The slices of ``value`` along ``axis``, as a list."""
    x = convert_to_tensor(value)
    if x.shape is None:  # the slices read the rank that arrives
        if num is None:
            raise ShapeError(
                f"symgrad: Unpack: '{x.name}' has a rank known only at run time; pass num="
            )
        position, count = int(axis), int(num)
        x = ensure_axis(x, position, count, at_least=False, op_type="Unpack")
    else:
        position = _axis(axis, len(x.shape), "Unpack", x.name)
        count = x.shape[position] if num is None else num
        if count is not None and x.shape[position] is not None and count != x.shape[position]:
            raise ShapeError(
                f"symgrad: Unpack: num={count} for axis {position} of '{x.name}' "
                f"{format_shape(x.shape)}, of size {x.shape[position]}"
            )
        if count is not None and x.shape[position] is None:
            x = ensure_axis(x, position, count, at_least=False, op_type="Unpack")
    if count is None:
        raise ShapeError(
            f"symgrad: Unpack: axis {position} of '{x.name}' has unknown size; pass num="
        )
    # One op in TF1 ('unstack:0', 'unstack:1'), a slice per part here ('unstack', 'unstack_1').
    with default_names([x], {"StridedSlice": name or "unstack"}):
        return [strided_slice(x, _along(position, i)) for i in builtins.range(count)]


def split(
    value: Any, num_or_size_splits: Any, axis: int = 0, num: int | None = None, name: str = "split"
) -> list[Tensor]:
    """Split ``value`` along ``axis`` into equal parts, or parts of the given sizes (a list,
    or a constant int tensor)."""
    x = convert_to_tensor(value)
    if isinstance(num_or_size_splits, Tensor):
        fixed = _shape_argument(num_or_size_splits, "Split", x)
        scalar = num_or_size_splits.shape == ()
        num_or_size_splits = fixed[0] if scalar else fixed
    if x.shape is None:  # the slices read the rank that arrives
        position, size = int(axis), None
    else:
        position = _axis(axis, len(x.shape), "Split", x.name)
        size = x.shape[position]
    if isinstance(num_or_size_splits, (int, np.integer)):
        parts = int(num_or_size_splits)
        if parts <= 0 or (size is not None and size % parts):
            raise ShapeError(
                f"symgrad: Split: axis {position} of '{x.name}' (size {size}) does not split "
                f"into {parts} equal parts"
            )
        if size is None:  # the parts' size is known when the value arrives
            return [_split_equal(x, position, parts, i, name) for i in builtins.range(parts)]
        sizes = [size // parts] * parts
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
            raise ShapeError(f"symgrad: Split: invalid sizes {sizes} for '{x.name}'")
        if -1 in sizes and size is not None:
            sizes[sizes.index(-1)] = size - (sum(sizes) + 1)
        if size is not None and sum(sizes) != size:
            raise ShapeError(
                f"symgrad: Split: sizes {sizes} do not add up to {size}, axis {position} of "
                f"'{x.name}'"
            )
    if size is None:  # the parts must fill the axis that arrives, as TF's kernel checks
        known = sum(s for s in sizes if s != -1)
        x = ensure_axis(x, position, known, at_least=-1 in sizes, op_type="SplitV")
    # Parts after a -1 (an unknown size) are counted from the end of the axis.
    cut = sizes.index(-1) if -1 in sizes else len(sizes)
    bounds: list[tuple[int, int | None]] = []
    start = 0
    for part in sizes[:cut]:
        bounds.append((start, start + part))
        start += part
    if cut < len(sizes):
        end = -sum(sizes[cut + 1 :])
        bounds.append((start, end or None))
        for part in sizes[cut + 1 :]:
            bounds.append((end, end + part or None))
            end += part
    return [strided_slice(x, _along(position, slice(a, b))) for a, b in bounds]


def _split_equal(x: Tensor, axis: int, parts: int, index: int, name: str) -> Tensor:
    """Part ``index`` of ``x`` cut into ``parts`` equal parts along an axis of unknown size."""
    shape = (
        None if x.shape is None else tuple(None if i == axis else d for i, d in enumerate(x.shape))
    )
    attrs = {"axis": axis, "parts": parts, "index": index}
    return _op("SplitEqual", [x], attrs, shape, x.dtype, name)


def _lower_split_equal(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    axis, parts, index = op.attrs["axis"], op.attrs["parts"], op.attrs["index"]
    return helper("_split_equal", operands[0], axis, parts, index)


def _split_equal_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    (x,) = op.inputs
    return [_op("UnsplitEqual", [grad, x], dict(op.attrs), x.shape, grad.dtype, None)]


def _lower_unsplit_equal(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    axis, parts, index = op.attrs["axis"], op.attrs["parts"], op.attrs["index"]
    return helper("_unsplit_equal", operands[0], operands[1], axis, parts, index)


def _unsplit_equal_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # The part's gradient is the same part of the full one; ``like`` gives only a shape.
    attrs = op.attrs
    return [_split_equal(grad, attrs["axis"], attrs["parts"], attrs["index"], "split"), None]


def _split_equal_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    """Every part of one split has one signature: the fast form may then compute them in place
    of each other."""
    if not isinstance(sigs[0], tuple):
        return signature(op.outputs[0].shape, op.name)
    dims = list(sigs[0])
    axis, parts = op.attrs["axis"], op.attrs["parts"]
    dims[axis] = frozenset({("split", dims[axis], parts)})
    return tuple(dims)


register(
    OpDef(
        "SplitEqual",
        lower=_lower_split_equal,
        gradient=_split_equal_gradient,
        signature=_split_equal_signature,
    )
)
register(
    OpDef(
        "UnsplitEqual",
        lower=_lower_unsplit_equal,
        gradient=_unsplit_equal_gradient,
        materialized_inputs=lambda op: (1,),
        signature=lambda op, sigs: sigs[1],
    )
)


# --- tile, broadcast_to -----------------------------------------------------------------------------


def tile(input: Any, multiples: Sequence[int], name: str | None = None) -> Tensor:
    """Repeat ``input`` ``multiples[i]`` times along axis i."""
    x = convert_to_tensor(input)
    if isinstance(multiples, Tensor):
        multiples = _shape_argument(multiples, "Tile", x)
    multiples = tuple(_ints(multiples, "Tile", "multiples", x))
    if x.shape is None:  # one multiple per axis fixes the rank, checked when run as by TF
        x = ensure_shape(x, [None] * len(multiples))
    if x.shape is None or len(multiples) != len(x.shape):
        raise ShapeError(
            f"symgrad: Tile: {len(multiples)} multiples for '{x.name}' of shape "
            f"{format_shape(x.shape)}"
        )
    shape = tuple(None if d is None else d * m for d, m in zip(x.shape, multiples, strict=False))
    return _op("Tile", [x], {"multiples": multiples}, shape, x.dtype, name)


def _tile_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [_back_to_input("Untile", op, grad, "multiples")]


register(OpDef("Tile", lower=_lower_call("tile", "multiples"), gradient=_tile_gradient))
register(
    OpDef(
        "Untile",
        lower=lambda op, xs: helper(
            "_untile", xs[0], shape_argument(op.inputs[1], xs[1]), op.attrs["multiples"]
        ),
        gradient=lambda op, g: [tile(g, op.attrs["multiples"]), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> Tensor:
    """``np.broadcast_to`` to a static shape (a list, or a constant int tensor), or to
    ``tf.shape(t)``: then ``t``'s run-time shape (any other run-time tensor is an error)."""
    x = convert_to_tensor(input)
    like = _run_time_shape_of(shape)
    if like is not None:
        if (
            x.shape is not None
            and like.shape is not None
            and (
                len(x.shape) > len(like.shape)
                or any(
                    d not in (None, 1, e) and e is not None
                    for d, e in zip(x.shape[::-1], like.shape[::-1], strict=False)
                )
            )
        ):
            raise ShapeError(
                f"symgrad: BroadcastTo: cannot broadcast '{x.name}' of shape "
                f"{format_shape(x.shape)} to the shape of '{like.name}' {format_shape(like.shape)}"
            )
        spread = add(x, zeros_like(like, dtype=x.dtype), name=name)
        if like.shape is None:  # NumPy checks what it can: the rank is known only at run time
            return spread
        # The sum would also spread 'like' over a size of 'x' where 'like' has 1; TF's kernel
        # gives exactly 'like's shape, so every size is checked against it.
        if spread.shape is None:  # x's rank is known only at run time: like's shape
            spread = ensure_shape(spread, like.shape)
        axes = tuple(builtins.range(len(like.shape)))
        return ensure_same_dims(spread, like, axes, axes, "BroadcastTo")
    target = tuple(_ints(_shape_argument(shape, "BroadcastTo", x), "BroadcastTo", "the shape", x))
    try:  # a value of unknown rank is checked by NumPy when it arrives, as by TF's kernel
        if x.shape is not None and broadcast_shapes(x.shape, target) != target:
            raise ValueError
    except ValueError:
        raise ShapeError(
            f"symgrad: BroadcastTo: cannot broadcast '{x.name}' of shape "
            f"{format_shape(x.shape)} to {target}"
        ) from None
    return _op("BroadcastTo", [x], {"shape": target}, target, x.dtype, name)


register(
    OpDef(
        "BroadcastTo",
        lower=_lower_call("broadcast_to", "shape"),
        gradient=lambda op, g: [
            sum_to_shape_of(g, op.inputs[0], reduced_axes_of(op.inputs[0], op.outputs[0]))
        ],
    )
)
