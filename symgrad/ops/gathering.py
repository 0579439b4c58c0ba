"""Gathering and selecting: gather (with batch axes), whose gradient is a scatter-add that
TF1's sparse optimizers and clipping functions read slice by slice (``IndexedSlices``), and
TF1's ``where`` (Select), whose vector condition picks rows.
"""

from __future__ import annotations

import builtins
import typing
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import (
    Shape,
    broadcast_shapes,
    broadcast_signatures,
    format_shape,
    is_fully_defined,
    signature,
)
from .array_nodes import call, shape_argument
from .base import _axis, _op
from .checks import ensure_in_range, ensure_same_dims
from .elementwise import add_n
from .elementwise import where as _select
from .functions import Literal, dtype_literal, helper
from .registry import OpDef, arg_symbols, register
from .reshaping import reshape, transpose
from .sources import constant, convert_to_tensor

# --- gather -------------------------------------------------------------------------------------------


def gather(
    params: Any,
    indices: Any,
    axis: int | None = None,
    name: str | None = None,
    validate_indices: Any = None,
    batch_dims: int = 0,
) -> Tensor:
    """``np.take(params, indices, axis)``; the gradient adds up over repeated indices.

    With ``batch_dims=b`` the first b axes of params and indices are batch axes: each
    batch entry gathers with its own indices (``axis`` defaults to b, as in TF1).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     p = sg.constant([[1.0, 2.0], [3.0, 4.0]])
    ...     f = sg.compile(sg.gather(p, sg.constant([[1], [0]]), batch_dims=1))
    >>> f().tolist()
    [[2.0], [3.0]]
    """
    params = convert_to_tensor(params)
    indices = convert_to_tensor(indices)
    if batch_dims:
        return _batch_gather(params, indices, axis, batch_dims, name)
    if axis is None:
        axis = 0
    if not indices.dtype.is_integer:
        raise DTypeError(
            f"symgrad: GatherV2: indices '{indices.name}' must be int32 or int64, "
            f"got {indices.dtype.name}"
        )
    if params.shape is None:
        # The gathered axis is found when the value arrives: counted from the start, it is the
        # same axis at any rank (the gradient scatters along it).
        if int(axis) < 0:
            raise ShapeError(
                f"symgrad: GatherV2: axis {axis} of '{params.name}', whose rank is known only at "
                f"run time; give an axis counted from the start, or the placeholder a shape"
            )
        indices = ensure_in_range(indices, params, int(axis), "GatherV2")
        return _op("GatherV2", [params, indices], {"axis": int(axis)}, None, params.dtype, name)
    position = _axis(axis, len(params.shape), "GatherV2", params.name)
    size = params.shape[position]
    if indices.op.type == "Const":
        # TF's kernel refuses an index outside [0, size), a negative one too, which NumPy
        # would wrap round to the end.
        values = np.asarray(indices.op.attrs["value"])
        if values.size and (values.min() < 0 or (size is not None and values.max() >= size)):
            bound = "?" if size is None else size
            raise ShapeError(
                f"symgrad: GatherV2: indices {values.tolist()!r:.60} are out of range [0, "
                f"{bound}) for axis {position} of '{params.name}' {format_shape(params.shape)}"
            )
    if indices.op.type != "Const" or size is None:
        indices = ensure_in_range(indices, params, position, "GatherV2")
    shape = (
        None
        if indices.shape is None  # the result's rank, too, is known only at run time
        else tuple(params.shape[:position])
        + tuple(indices.shape)
        + tuple(params.shape[position + 1 :])
    )
    return _op("GatherV2", [params, indices], {"axis": position}, shape, params.dtype, name)


def _batch_gather(
    params: Tensor, indices: Tensor, axis: int | None, batch_dims: int, name: str | None
) -> Tensor:
    """Gather with batch axes, as one plain gather: the batch axes and the gathered axis of
    ``params`` flattened into one, and each batch entry's indices offset by its position."""
    where = (
        f"'{params.name}' {format_shape(params.shape)} with indices '{indices.name}' "
        f"{format_shape(indices.shape)}"
    )
    if params.shape is None or indices.shape is None:
        raise ShapeError(f"symgrad: GatherV2: batch_dims needs known ranks ({where})")
    if batch_dims < 0:
        batch_dims += len(indices.shape)
    axis = batch_dims if axis is None else _axis(axis, len(params.shape), "GatherV2", params.name)
    if not 0 <= batch_dims <= min(len(indices.shape), axis):
        raise InvalidArgumentError(
            f"symgrad: GatherV2: batch_dims={batch_dims} with axis={axis} for {where}; "
            f"batch_dims must be at most the rank of indices and at most axis"
        )
    if batch_dims == 0:  # a negative batch_dims counting all the axes of indices
        return gather(params, indices, axis=axis, name=name)
    batch = tuple(params.shape[:batch_dims])
    size = params.shape[axis]
    if not is_fully_defined(batch + (size,)) or tuple(indices.shape[:batch_dims]) != batch:
        raise ShapeError(
            f"symgrad: GatherV2: batch_dims={batch_dims} needs equal static batch axes and a "
            f"static size of the gathered axis {axis} ({where})"
        )
    if axis != batch_dims:
        return _batch_gather_past_batch(params, indices, axis, batch_dims, name)
    # Fully defined, as checked above.
    known_batch, known_size = typing.cast(tuple[int, ...], batch), typing.cast(int, size)
    count = int(np.prod(known_batch))
    flat = reshape(params, [count * known_size, *params.shape[axis + 1 :]])
    offsets = (np.arange(count) * known_size).reshape(
        known_batch + (1,) * (len(indices.shape) - batch_dims)
    )
    # Each entry's indices must stay in its own row: a flat index past it would read the next.
    checked = ensure_in_range(indices, params, axis, "GatherV2")
    shifted = checked + constant(offsets.astype(indices.dtype.numpy))
    return gather(flat, shifted, axis=0, name=name)


def _batch_gather_past_batch(
    params: Tensor, indices: Tensor, axis: int, batch_dims: int, name: str | None
) -> Tensor:
    """Gather along ``axis`` past the batch axes (TF's ``axis > batch_dims``): that axis moved
    next to the batch axes, gathered there, and the axes it passed moved back in front of
    the gathered ones: ``params[:axis] + indices[batch_dims:] + params[axis + 1:]``."""
    assert params.shape is not None and indices.shape is not None
    rank, batch = len(params.shape), batch_dims
    moved = transpose(params, [*range(batch), axis, *range(batch, axis), *range(axis + 1, rank)])
    gathered = _batch_gather(moved, indices, batch, batch, None)
    taken, passed = len(indices.shape) - batch, axis - batch  # the indices' axes, those passed
    order = [
        *range(batch),
        *range(batch + taken, batch + taken + passed),
        *range(batch, batch + taken),
        *range(batch + taken + passed, batch + taken + passed + rank - axis - 1),
    ]
    return transpose(gathered, order, name=name)


def _gather_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    params, indices = op.inputs
    scattered = _op(
        "ScatterAdd",
        [grad, indices, params],
        {"axis": op.attrs["axis"]},
        params.shape,
        grad.dtype,
        None,
    )
    return [scattered, None]


class GatheredSlices(typing.NamedTuple):
    """A gather's part of a gradient, as TF1's ``IndexedSlices`` hold it: the cotangent of
    the gathered rows (``values``) and their ``indices`` into ``params`` (rows repeat when an
    index does)."""

    values: Tensor
    indices: Tensor
    params: Tensor


def gathered_slices(gradient: Tensor) -> list[GatheredSlices] | None:
    """The slices of the gathers (along axis 0) whose gradients ``gradient`` adds up, when it
    is nothing else, else None: where TF1's gradient is ``IndexedSlices``, which its clipping
    functions and sparse optimizer kernels read slice by slice (repeated rows not summed).
    Any other op on the gradient (``g * t``) makes it dense, as in TF1."""
    op = gradient.op
    if op.type == "ScatterAdd":
        if op.attrs["axis"] != 0:
            return None
        return [GatheredSlices(op.inputs[0], op.inputs[1], op.inputs[2])]
    if op.type == "Identity":
        return gathered_slices(op.inputs[0])
    if op.type in ("Elementwise", "AddN") and op.attrs["expr"] == sp.Add(
        *arg_symbols(len(op.inputs))
    ):
        parts = [gathered_slices(t) for t in op.inputs]  # the sum of several gathers' gradients
        if any(part is None for part in parts):
            return None
        return [piece for part in parts for piece in typing.cast(list[GatheredSlices], part)]
    return None


def from_slices(slices: list[GatheredSlices], values: Sequence[Tensor]) -> Tensor:
    """The gradient ``slices`` stand for, with new ``values`` for them (clipped or scaled, as
    TF1's clipping functions give ``IndexedSlices`` back): still a sum of scatter-adds, so
    still sparse for the optimizers."""
    parts = [
        _op(
            "ScatterAdd",
            [new, part.indices, part.params],
            {"axis": 0},
            part.params.shape,
            new.dtype,
            None,
        )
        for part, new in zip(slices, values, strict=True)
    ]
    return parts[0] if len(parts) == 1 else add_n(parts)


def _gather_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    params, indices, axis = sigs[0], sigs[1], op.attrs["axis"]
    if not (isinstance(params, tuple) and isinstance(indices, tuple)):
        return signature(op.outputs[0].shape, op.name)
    return tuple(params[:axis]) + tuple(indices) + tuple(params[axis + 1 :])


register(
    OpDef(
        "GatherV2",
        lower=lambda op, xs: call("take", xs[0], xs[1], Literal(f"axis={op.attrs['axis']}")),
        gradient=_gather_gradient,
        signature=_gather_signature,
    )
)


def _scatter_into_shape(
    op_type: str, helper_name: str, gradient: Callable[[Operation, Tensor], list[Tensor | None]]
) -> OpDef:
    """An op of ``(values, where, like)`` that lowers to the template's ``helper_name``: the
    values scattered along ``axis`` into zeros of ``like``'s shape (``like`` read for its
    shape only, and only when that is not static)."""
    return OpDef(
        op_type,
        lower=lambda op, xs: helper(
            helper_name,
            xs[0],
            xs[1],
            shape_argument(op.inputs[2], xs[2]),
            op.attrs["axis"],
            dtype_literal(op.outputs[0].dtype),
            dtype=op.outputs[0].dtype.name,
        ),
        gradient=gradient,
        materialized_inputs=lambda op: () if is_fully_defined(op.inputs[2].shape) else (2,),
        shape_only_inputs=(2,),
        signature=lambda op, sigs: sigs[2],
    )


register(
    _scatter_into_shape(
        "ScatterAdd",
        "_scatter_add",
        lambda op, g: [gather(g, op.inputs[1], axis=op.attrs["axis"]), None, None],
    )
)


# --- where (TF1's Select) --------------------------------------------------------------------


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Tensor:
    """Elements of ``x`` where ``condition`` holds, else of ``y``.

    As TF1's ``where``: a vector ``condition`` picks whole rows of ``x``/``y`` of higher rank
    (it must be as long as their first axis, checked when run where a size is unknown then),
    even where it would also broadcast along the last axis (a square matrix); otherwise all
    three broadcast.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     rows = sg.where([True, False], [[1.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]])
    ...     print(sg.compile(rows)())
    [[1. 2.]
     [0. 0.]]
    """
    if x is not None and y is not None:
        condition = convert_to_tensor(condition)
        widest = builtins.max(
            (_shape_of(x), _shape_of(y)), key=lambda s: -1 if s is None else len(s)
        )
        if (
            condition.shape is not None
            and len(condition.shape) == 1
            and widest is not None
            and len(widest) > 1
        ):
            # TF1's Select: a vector picks rows, and must be as long as the first axis.
            count, rows = condition.shape[0], widest[0]
            if count is not None and rows is not None and count != rows:
                raise ShapeError(
                    f"symgrad: Select: the condition '{condition.name}' "
                    f"{format_shape(condition.shape)} picks rows of values of shape "
                    f"{format_shape(widest)}: it must have {rows} entries"
                )
            if count is None or rows is None:
                wide = convert_to_tensor(x if _shape_of(x) == widest else y)
                condition = ensure_same_dims(condition, wide, (0,), (0,), "Select")
            # a size-1 axis for every axis after the first: the condition broadcasts per row
            condition = reshape(condition, [-1] + [1] * (len(widest) - 1))
        elif condition.shape is None and _shape_of(x) is not None and _shape_of(y) is not None:
            # A condition of unknown rank (a shape-less bool placeholder, as in
            # layers.dropout(training=is_training)): TF's Select keeps the branches' shape and
            # takes a scalar, a vector of rows or a full condition at run time.
            if not isinstance(x, Tensor):
                x = convert_to_tensor(x, dtype=y.dtype if isinstance(y, Tensor) else None)
            if not isinstance(y, Tensor):
                y = convert_to_tensor(y, dtype=x.dtype)
            condition = _select_condition(condition, x, y)
    return _select(condition, x, y, name)


def _select_condition(condition: Tensor, x: Tensor, y: Tensor) -> Tensor:
    """``condition`` (of unknown rank) spread over the broadcast shape of ``x`` and ``y``."""
    try:
        shape = broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise ShapeError(
            f"symgrad: Select: branches '{x.name}' {format_shape(x.shape)} and '{y.name}' "
            f"{format_shape(y.shape)} do not broadcast"
        ) from None
    return _op("SelectCondition", [condition, x, y], {}, shape, condition.dtype, None)


def _select_condition_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    return broadcast_signatures(sigs[1], sigs[2])


register(
    OpDef(
        "SelectCondition",
        lower=lambda op, xs: helper("_select_condition", xs[0], xs[1], xs[2], dtype="bool"),
        gradient=lambda op, grad: [None, None, None],
        materialized_inputs=lambda op: (1, 2),
        shape_only_inputs=(1, 2),
        signature=_select_condition_signature,
    )
)


def _shape_of(value: Any) -> Shape:
    """Static shape of a tensor (None: unknown rank) or of an array-like."""
    if isinstance(value, Tensor):
        return value.shape
    return np.shape(value)
