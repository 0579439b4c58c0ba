"""Slicing ops: ``x[key]`` (``Tensor.__getitem__``, installed here) and TF1's
``strided_slice`` with its bit masks, ``slice``, ``reverse``, ``roll`` and ``boolean_mask``.

Ops that are compositions of other ops (``slice``, a mask the graph fixes) get their
gradients from their parts.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names
from ..shapes import Shape, format_shape, shapes_compatible, signature, unknown_rank_axes
from .array_nodes import Index, call, shape_argument
from .base import (
    _axis,
    _back_to_input,
    _ints,
    _known_rank,
    _op,
    _shape_argument,
    _static_ints,
    _static_like,
    constant_value,
)
from .checks import _rank_of_arguments, ensure_axis
from .functions import IndexKey, Literal, dtype_literal, helper, literal
from .gathering import _scatter_into_shape, gather
from .registry import OpDef, register
from .reshaping import reshape
from .sources import constant, convert_to_tensor

# --- x[key] and strided_slice -----------------------------------------------------------------


def _key_text(key: tuple[Any, ...]) -> str:
    parts = []
    for item in key:
        if item is Ellipsis:
            parts.append("...")
        elif item is None:
            parts.append("None")
        elif isinstance(item, builtins.slice):
            start = "" if item.start is None else str(item.start)
            stop = "" if item.stop is None else str(item.stop)
            parts.append(f"{start}:{stop}" + ("" if item.step is None else f":{item.step}"))
        else:
            parts.append(str(item))
    return ", ".join(parts)


def _folded_index(part: Any) -> Any:
    """A scalar int tensor whose value the graph fixes, as an int; anything else as it is."""
    value = constant_value(part)
    if value is not None and value.ndim == 0 and part.dtype.is_integer:
        return int(value)
    return part


def _normalize_key(x: Tensor, key: Any) -> tuple[tuple[Any, ...], Shape]:
    items = key if isinstance(key, tuple) else (key,)
    normalized: list[Any] = []
    for item in items:
        value = constant_value(item)
        if value is not None and value.ndim == 0 and item.dtype.is_integer:
            item = int(value)  # a[tf.constant(1, tf.int64)]: the graph fixes the index
        if isinstance(item, Tensor):
            raise InvalidArgumentError(
                f"symgrad: StridedSlice: indexing '{x.name}' with tensor "
                f"'{item.name}' is not supported; use symgrad.gather"
            )
        if isinstance(item, builtins.slice):
            # Slice bounds the graph fixes (``a[tf.constant(1):]``) are ints too.
            item = builtins.slice(
                *(_folded_index(part) for part in (item.start, item.stop, item.step))
            )
            for part in (item.start, item.stop, item.step):
                if part is not None and not isinstance(part, (int, np.integer)):
                    raise InvalidArgumentError(
                        f"symgrad: StridedSlice: slice bounds must be ints, got "
                        f"{part!r} indexing '{x.name}'"
                    )
            if item.step == 0:
                raise InvalidArgumentError(
                    f"symgrad: StridedSlice: slice step 0 indexing '{x.name}'"
                )
            normalized.append(
                builtins.slice(
                    *(None if p is None else int(p) for p in (item.start, item.stop, item.step))
                )
            )
        elif item is Ellipsis or item is None:
            normalized.append(item)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            normalized.append(int(item))
        else:
            raise InvalidArgumentError(
                f"symgrad: StridedSlice: unsupported index {item!r} for '{x.name}'"
            )
    if normalized.count(Ellipsis) > 1:
        raise InvalidArgumentError(
            f"symgrad: StridedSlice: more than one '...' indexing '{x.name}'"
        )
    if x.shape is None:
        # NumPy reads the key against the rank that arrives, as TF's kernel does (axes after
        # the key's are kept whole); the result's rank is known only then. Trailing full
        # slices stay: each asks for an axis, which NumPy checks the value has.
        return tuple(normalized), None
    consumed = sum(1 for i in normalized if i is not None and i is not Ellipsis)
    if consumed > len(x.shape):
        raise ShapeError(
            f"symgrad: StridedSlice: too many indices for '{x.name}' of shape "
            f"{format_shape(x.shape)}"
        )
    if Ellipsis in normalized:
        at = normalized.index(Ellipsis)
        normalized[at : at + 1] = [builtins.slice(None)] * (len(x.shape) - consumed)
    else:
        normalized += [builtins.slice(None)] * (len(x.shape) - consumed)
    shape: list[Any] = []
    axis = 0
    for item in normalized:
        if item is None:
            shape.append(1)
            continue
        dim = x.shape[axis]
        if isinstance(item, int):
            if dim is not None and not -dim <= item < dim:
                raise ShapeError(
                    f"symgrad: StridedSlice: index {item} is out of bounds for axis {axis} of "
                    f"'{x.name}' with size {dim}"
                )
        else:
            shape.append(None if dim is None else len(builtins.range(*item.indices(dim))))
        axis += 1
    # Drop trailing full slices: x[1] rather than x[1, :, :].
    while normalized and normalized[-1] == builtins.slice(None):
        normalized.pop()
    return tuple(normalized), tuple(shape)


def strided_slice(
    input_: Any,
    begin: Any,
    end: Any = None,
    strides: Any = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
    var: Any = None,
    name: str | None = None,
) -> Tensor:
    """TF1's ``strided_slice(input_, begin, end, strides, *_mask)``, or ``x[key]`` when only a
    key is given (``strided_slice(x, key)``; ``tensor[...]`` calls this) with ints, slices,
    ``...`` and ``None``; also a constant int tensor as an index, and a bool tensor or bool
    NumPy array as the whole key: a mask (``x[mask]`` is ``boolean_mask(x, mask)``, as in TF).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[1, 2, 3], [4, 5, 6]])
    ...     print(sg.compile(sg.strided_slice(x, [0, 2], [0, 0], [1, -1], begin_mask=1, end_mask=3))())
    [[3 2 1]
     [6 5 4]]
    """
    x = convert_to_tensor(input_)
    if end is None and strides is None:
        key = begin
    else:
        key = _key_of_masks(
            x,
            begin,
            end,
            strides,
            begin_mask,
            end_mask,
            ellipsis_mask,
            new_axis_mask,
            shrink_axis_mask,
        )
    if _is_mask(key):
        # TF's x[mask]: a bool tensor, bool NumPy array or bool alone is a boolean_mask.
        return boolean_mask(x, key, name=name)
    _check_no_mask_inside(x, key)
    normalized, shape = _normalize_key(x, key)
    return _op("StridedSlice", [x], {"key": normalized}, shape, x.dtype, name)


def _is_mask(key: Any) -> bool:
    """Whether TF reads ``key`` as a boolean mask: a bool tensor, a bool NumPy array or a
    Python bool (a list of bools is not one: TF slices with it, and refuses it)."""
    if isinstance(key, Tensor):
        return key.dtype.is_bool
    return isinstance(key, (bool, np.bool_)) or (
        isinstance(key, np.ndarray) and key.dtype == np.bool_
    )


def _check_no_mask_inside(x: Tensor, key: Any) -> None:
    """TF takes a mask only as the whole key: a list of bools, or a mask among other
    indices, is a TypeError there (its slicing refuses bool begin/end values)."""
    items = key if isinstance(key, (tuple, list)) else (key,)
    for item in items:
        if _is_mask(item) or (isinstance(key, list) and isinstance(item, (bool, np.bool_))):
            raise DTypeError(
                f"symgrad: StridedSlice: indexing '{x.name}' {format_shape(x.shape)} with "
                f"{key!r}: a bool mask must be the whole index (a bool tensor or NumPy "
                f"array, as for boolean_mask), not a list of bools or one part of the index"
            )


def _key_of_masks(
    x: Tensor,
    begin: Any,
    end: Any,
    strides: Any,
    begin_mask: int,
    end_mask: int,
    ellipsis_mask: int,
    new_axis_mask: int,
    shrink_axis_mask: int,
) -> tuple[Any, ...]:
    """The Python key that TF's begin/end/strides vectors and bit masks stand for: bit i of
    a mask speaks of entry i (an ellipsis, a new axis, an index, or an open start/end)."""
    starts = _ints(_shape_argument(begin, "StridedSlice", x), "StridedSlice", "begin", x)
    ends = _ints(_shape_argument(end, "StridedSlice", x), "StridedSlice", "end", x)
    steps = (
        [1] * len(starts)
        if strides is None
        else _ints(_shape_argument(strides, "StridedSlice", x), "StridedSlice", "strides", x)
    )
    if not len(starts) == len(ends) == len(steps):
        raise ShapeError(
            f"symgrad: StridedSlice: begin {starts}, end {ends} and strides {steps} of "
            f"'{x.name}' must have equal lengths"
        )
    key: list[Any] = []
    for i, (start, stop, step) in enumerate(zip(starts, ends, steps, strict=True)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(start)
        else:
            key.append(
                builtins.slice(
                    None if begin_mask & bit else start,
                    None if end_mask & bit else stop,
                    None if step == 1 else step,
                )
            )
    return tuple(key)


def _masked(x: Tensor, mask: Tensor, name: str | None) -> Tensor:
    """``x[mask]`` (TF's boolean_mask) for a mask the graph fixes: a gather of its True places."""
    value = constant_value(mask)
    if value is None or value.ndim == 0:
        raise InvalidArgumentError(
            f"symgrad: BooleanMask: indexing '{x.name}' with bool tensor '{mask.name}' needs a "
            f"constant mask of rank >= 1; use symgrad.gather with the indices"
        )
    if x.shape is None:  # a rank known only at run time: the op indexes with the mask then
        return _op("BooleanMask", [x, mask], {"axis": 0}, None, x.dtype, name)
    lead = tuple(x.shape[: value.ndim])
    if lead != value.shape and shapes_compatible(lead, value.shape):
        # Leading sizes known only at run time: the op indexes with the mask then, and NumPy
        # refuses a mask that does not match them, as TF's kernel does.
        shape = (None, *x.shape[value.ndim :])
        return _op("BooleanMask", [x, mask], {"axis": 0}, shape, x.dtype, name)
    if lead != value.shape:
        raise ShapeError(
            f"symgrad: BooleanMask: mask '{mask.name}' {format_shape(value.shape)} does not match "
            f"the leading axes of '{x.name}' {format_shape(x.shape)}"
        )
    flat = x if value.ndim == 1 else reshape(x, [-1, *x.shape[value.ndim :]])
    places = constant(np.flatnonzero(value).astype(np.int64))
    return gather(flat, places, axis=0, name=name)


def _lower_slice(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    key = op.attrs["key"]
    if not key:
        return operands[0]
    return Index(operands[0], Literal(_key_text(key)))


def _slice_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    return [_back_to_input("SliceGrad", op, grad, "key")]


def _lower_slice_gradient(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    key = op.attrs["key"]
    dtype = op.outputs[0].dtype
    return helper(
        "_scatter",
        operands[0],
        shape_argument(op.inputs[1], operands[1]),
        IndexKey(_key_text(key)) if key else literal(()),
        dtype_literal(dtype),
        dtype=dtype.name,
    )


def _slice_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    source, out, axis = sigs[0], [], 0
    fresh = signature(op.outputs[0].shape, op.name)
    if not (isinstance(fresh, tuple) and isinstance(source, tuple)):
        return fresh  # a rank known only at run time
    for item in op.attrs["key"]:
        if item is None:
            out.append(1)
            continue
        if isinstance(item, builtins.slice):
            out.append(source[axis] if item == builtins.slice(None) else fresh[len(out)])
        axis += 1
    return tuple(out) + tuple(source[axis:])


register(
    OpDef("StridedSlice", lower=_lower_slice, gradient=_slice_gradient, signature=_slice_signature)
)
register(
    OpDef(
        "SliceGrad",
        lower=_lower_slice_gradient,
        gradient=lambda op, g: [strided_slice(g, op.attrs["key"]), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


# --- slice, reverse, roll ---------------------------------------------------------------------


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> Tensor:
    """``input_[begin[i] : begin[i] + size[i]]`` on every axis; a size of -1 takes the rest.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[1, 2, 3], [4, 5, 6]])
    ...     print(sg.compile(sg.slice(x, [0, 1], [-1, 2]))())
    [[2 3]
     [5 6]]
    """
    with default_names([input_], {"StridedSlice": "Slice"}):
        return _slice(input_, begin, size, name)


def _slice(input_: Any, begin: Any, size: Any, name: str | None) -> Tensor:
    x = convert_to_tensor(input_)
    starts = _static_ints(begin, "Slice", "begin", x)
    sizes = _static_ints(size, "Slice", "size", x)
    x = _rank_of_arguments(x, len(starts))
    rank = _known_rank(x, "Slice")
    assert x.shape is not None
    if len(starts) != rank or len(sizes) != rank:
        raise ShapeError(
            f"symgrad: Slice: begin {starts} and size {sizes} must have one entry per axis of "
            f"'{x.name}' of shape {format_shape(x.shape)}"
        )
    key = []
    for axis, (start, count, dim) in enumerate(zip(starts, sizes, x.shape, strict=True)):
        bad = start < 0 or count < -1 or (dim is not None and start + builtins.max(count, 0) > dim)
        if bad or (dim is not None and start > dim):
            raise InvalidArgumentError(
                f"symgrad: Slice: begin {start} and size {count} are out of range for axis "
                f"{axis} of '{x.name}' of shape {format_shape(x.shape)}"
            )
        key.append(builtins.slice(start, None if count == -1 else start + count))
        if dim is None:  # NumPy would cut the slice short at the end of the axis; TF refuses
            x = ensure_axis(x, axis, start + builtins.max(count, 0), op_type="Slice")
    return strided_slice(x, tuple(key), name=name)


def reverse(tensor: Any, axis: Any, name: str | None = None) -> Tensor:
    """``np.flip`` over the axes ``axis`` (TF1's ``reverse``, i.e. ``reverse_v2``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.reverse(sg.constant([[1, 2], [3, 4]]), [1]))())
    [[2 1]
     [4 3]]
    """
    x = convert_to_tensor(tensor)
    requested = _static_ints(axis, "ReverseV2", "axis")
    if x.shape is None:  # NumPy reads axes of one sign at any rank, as TF's kernel does
        axes = unknown_rank_axes(requested, "ReverseV2", x.name)
    else:
        axes = tuple(_axis(a, len(x.shape), "ReverseV2", x.name) for a in requested)
    if len(set(axes)) != len(axes):
        raise InvalidArgumentError(f"symgrad: ReverseV2: axis {list(axes)} repeats an axis")
    return _op("ReverseV2", [x], {"axes": axes}, x.shape, x.dtype, name)


register(
    OpDef(
        "ReverseV2",
        lower=lambda op, xs: call("flip", xs[0], Literal(f"axis={op.attrs['axes']!r}")),
        gradient=lambda op, g: [reverse(g, list(op.attrs["axes"]))],
        signature=lambda op, sigs: sigs[0],
    )
)
reverse_v2 = reverse


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> Tensor:
    """``input`` with its elements moved ``shift`` places along ``axis`` (ints, or lists of
    them of one length; constants), those pushed past one end coming back at the other, as
    TF's ``roll``. An axis named twice moves by the sum of its shifts.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.roll(sg.constant([[1, 2, 3], [4, 5, 6]]), [1, -1], [0, 1]))())
    [[5 6 4]
     [2 3 1]]
    """
    x = convert_to_tensor(input)
    shifts = _static_ints(shift, "Roll", "shift")
    requested = _static_ints(axis, "Roll", "axis")
    if len(shifts) != len(requested):
        raise InvalidArgumentError(
            f"symgrad: Roll: shift {list(shifts)} and axis {list(requested)} must have one "
            "entry each"
        )
    rank = _known_rank(x, "Roll")
    moved: dict[int, int] = {}
    for step, requested_axis in zip(shifts, requested, strict=True):
        axis_index = _axis(requested_axis, rank, "Roll", x.name)
        moved[axis_index] = moved.get(axis_index, 0) + step
    axes = tuple(sorted(moved))
    return _op(
        "Roll", [x], {"shift": tuple(moved[a] for a in axes), "axis": axes}, x.shape, x.dtype, name
    )


register(
    OpDef(
        "Roll",
        lower=lambda op, xs: call("roll", xs[0], op.attrs["shift"], op.attrs["axis"]),
        gradient=lambda op, g: [roll(g, [-s for s in op.attrs["shift"]], list(op.attrs["axis"]))],
        signature=lambda op, sigs: sigs[0],
    )
)


# --- boolean_mask --------------------------------------------------------------------------------


def boolean_mask(
    tensor: Any, mask: Any, name: str | None = "boolean_mask", axis: int | None = None
) -> Tensor:
    """The entries of ``tensor`` where ``mask`` (covering axes ``axis .. axis + mask.ndim``)
    is True, those axes flattened into one.

    A mask the graph fixes gives a static shape (a gather of its True places). A mask
    computed at run time gives an axis of unknown size: the generated code indexes with
    the mask (``x[mask]``), and the gradient writes the cotangent back into zeros at the
    mask's places.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([1.0, -2.0, 3.0])
    ...     print(sg.compile(sg.boolean_mask(x, x > 0))())
    [1. 3.]
    """
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask)
    if not m.dtype.is_bool:
        raise DTypeError(f"symgrad: BooleanMask: mask '{m.name}' must be bool, got {m.dtype.name}")
    if x.shape is None and not axis and constant_value(m) is not None:
        return _masked(x, m, name)  # indexed when the value arrives, as TF's kernel does
    depth = _known_rank(m, "BooleanMask")
    if depth == 0:
        raise ShapeError(
            f"symgrad: BooleanMask: mask '{m.name}' of shape () over '{x.name}' "
            f"{format_shape(x.shape)}: a mask cannot be scalar"
        )
    if x.shape is None:
        # The value's rank arrives at run time, as in TF; indexing then checks the mask
        # against the axes it covers. Only an axis counted from the start names them.
        start = 0 if axis is None else int(axis)
        if depth == 0 or start < 0:
            raise ShapeError(
                f"symgrad: BooleanMask: a mask '{m.name}' {format_shape(m.shape)} over axis "
                f"{start} of '{x.name}', whose rank is known only when run, needs a mask of "
                f"rank 1 or more and an axis counted from the start"
            )
        return _op("BooleanMask", [x, m], {"axis": start}, None, x.dtype, name)
    rank = len(x.shape)
    start = 0 if axis is None else _axis(axis, rank, "BooleanMask", x.name)
    assert x.shape is not None and m.shape is not None
    covered = tuple(x.shape[start : start + depth])
    if (
        depth == 0
        or len(covered) != depth
        or any(
            a is not None and b is not None and a != b
            for a, b in zip(covered, m.shape, strict=True)
        )
    ):
        raise ShapeError(
            f"symgrad: BooleanMask: mask '{m.name}' {format_shape(m.shape)} does not match axes "
            f"{start}..{start + depth - 1} of '{x.name}' {format_shape(x.shape)}"
        )
    if start == 0 and constant_value(m) is not None:
        return _masked(x, m, name)
    shape = tuple(x.shape[:start]) + (None,) + tuple(x.shape[start + depth :])
    return _op("BooleanMask", [x, m], {"axis": start}, shape, x.dtype, name)


def _boolean_mask_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, m = op.inputs
    scattered = _op("BooleanMaskGrad", [grad, m, x], dict(op.attrs), x.shape, grad.dtype, None)
    return [scattered, None]


register(
    OpDef(
        "BooleanMask",
        lower=lambda op, xs: helper("_boolean_mask", xs[0], xs[1], op.attrs["axis"]),
        gradient=_boolean_mask_gradient,
    )
)
register(
    _scatter_into_shape(
        "BooleanMaskGrad",
        "_boolean_mask_grad",
        lambda op, g: [boolean_mask(g, op.inputs[1], axis=op.attrs["axis"]), None, None],
    )
)


# --- Tensor.__getitem__ -----------------------------------------------------------------------


def _getitem(self: Tensor, key: Any) -> Tensor:
    run_time = _run_time_index(key)
    if run_time is not None:
        # ``x[t]`` with a step counter computed at run time (a loop's body): the row t, as
        # TF's strided slice with a shrunk axis takes it; the rest of the key applies after.
        position, index = run_time
        items = key if isinstance(key, tuple) else (key,)
        if any(item is Ellipsis or item is None for item in items[:position]):
            raise InvalidArgumentError(
                f"symgrad: StridedSlice: a run-time index '{index.name}' after '...' or a new "
                f"axis indexing '{self.name}' is not supported; use symgrad.gather"
            )
        taken = gather(self, index, axis=position)
        rest = items[:position] + items[position + 1 :]
        return taken if all(item == builtins.slice(None) for item in rest) else taken[rest]
    with self.graph.default_names({"StridedSlice": "strided_slice"}):
        return strided_slice(self, key)


def _run_time_index(key: Any) -> tuple[int, Tensor] | None:
    """The position and tensor of the first scalar int index computed at run time in ``key``."""
    items = key if isinstance(key, tuple) else (key,)
    for position, item in enumerate(items):
        if (
            isinstance(item, Tensor)
            and item.dtype.is_integer
            and item.shape is not None
            and len(item.shape) == 0
            and constant_value(item) is None
        ):
            return position, item
    return None


Tensor.__getitem__ = _getitem  # type: ignore[method-assign]  # declared on Tensor, defined here

__all__ = [
    "boolean_mask",
    "reverse",
    "reverse_v2",
    "roll",
    "slice",
    "strided_slice",
]
