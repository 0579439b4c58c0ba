"""The everyday structural ops of TF1: pad, slice, reverse, cumsum/cumprod, linspace, the
diagonal ops, band_part, boolean_mask, the segment sums, embedding_lookup and the local
response normalization.

Each op is a NumPy call or a helper of the generated module (``_mirror_pad_grad``,
``_segment_sum``, ...) with its shape rule and its gradient as graph ops, next to each
other. Ops that are compositions of other ops (``slice``, ``segment_mean``, ``lrn``,
``linspace``) get their gradients from their parts.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names
from ..shapes import format_shape, unknown_rank_axes
from .array_ops import (
    _axis,
    _ints,
    _masked,
    _op,
    _scatter_into_shape,
    _static_like,
    call,
    concat,
    constant_value,
    ensure_axis,
    ensure_shape,
    gather,
    reshape,
    shape_argument,
    strided_slice,
)
from .elementwise import cast, equal, identity, maximum, sqrt, where
from .functions import Literal, check, dtype_literal, helper, literal
from .reductions import reduce_sum
from .registry import OpDef, register
from .sources import constant, convert_to_tensor


def _static_ints(value: Any, op: str, what: str, tensor: Tensor | None = None) -> list[int]:
    """A list of ints given as a list, a NumPy array or a tensor the graph fixes."""
    if isinstance(value, Tensor):
        fixed = constant_value(value)
        if fixed is None or not value.dtype.is_integer:
            raise InvalidArgumentError(
                f"symgrad: {op}: {what} must be ints or a constant int tensor, not tensor "
                f"'{value.name}' (computed at run time)"
            )
        value = fixed
    return _ints(np.asarray(value).ravel().tolist(), op, what, tensor)


def _rank_of_arguments(x: Tensor, rank: int) -> Tensor:
    """``x``, of the ``rank`` that the op's arguments (one pair of paddings, one begin per axis)
    give it when its own rank is known only at run time: checked then, as TF's kernel does."""
    return ensure_shape(x, [None] * rank) if x.shape is None else x


def _known_rank(x: Tensor, op: str) -> int:
    if x.shape is None:
        raise ShapeError(f"symgrad: {op}: '{x.name}' needs a known rank")
    return len(x.shape)


# --- pad ---------------------------------------------------------------------------------------

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


# --- slice, strided_slice with masks, reverse ----------------------------------------------------


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


# --- cumsum, cumprod ---------------------------------------------------------------------------


def _cumulative(
    op_type: str, x: Any, axis: Any, exclusive: bool, reverse: bool, name: Any
) -> Tensor:
    x = convert_to_tensor(x)
    (position,) = _static_ints(axis, op_type, "axis", x)
    if x.dtype.is_bool:
        raise DTypeError(f"symgrad: {op_type}: does not take bool tensors ('{x.name}')")
    attrs = {
        # With a rank known only at run time the helper reads the axis then, as TF does.
        "axis": position if x.shape is None else _axis(position, len(x.shape), op_type, x.name),
        "exclusive": bool(exclusive),
        "reverse": bool(reverse),
    }
    return _op(op_type, [x], attrs, x.shape, x.dtype, name)


def cumsum(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """Running sums along ``axis``; ``exclusive`` leaves the element itself out, ``reverse``
    runs from the end.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.cumsum(sg.constant([1, 2, 3]), exclusive=True))())
    [0 1 3]
    """
    return _cumulative("Cumsum", x, axis, exclusive, reverse, name)


def cumprod(
    x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False, name: str | None = None
) -> Tensor:
    """Running products along ``axis``; the gradient is TF's, which divides by ``x`` (NaN or
    inf where an element is 0, as in TensorFlow).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.cumprod(sg.constant([1.0, 2.0, 3.0]), reverse=True))())
    [6. 6. 3.]
    """
    return _cumulative("Cumprod", x, axis, exclusive, reverse, name)


def _lower_cumulative(helper_name: str) -> Any:
    def lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
        a = op.attrs
        return helper(helper_name, operands[0], a["axis"], int(a["exclusive"]), int(a["reverse"]))

    return lower


def _cumsum_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    a = op.attrs
    return [cumsum(grad, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"])]


def _cumprod_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _CumprodGrad: cumsum(prod * grad) in the other direction, divided by x.
    a, x = op.attrs, op.inputs[0]
    summed = cumsum(
        op.outputs[0] * grad, a["axis"], exclusive=a["exclusive"], reverse=not a["reverse"]
    )
    return [summed / x]


for _type, _name, _rule in (
    ("Cumsum", "_cumsum", _cumsum_gradient),
    ("Cumprod", "_cumprod", _cumprod_gradient),
):
    register(
        OpDef(
            _type,
            lower=_lower_cumulative(_name),
            gradient=_rule,
            signature=lambda op, sigs: sigs[0],
        )
    )


# --- linspace ----------------------------------------------------------------------------------


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), as TF's
    ``linspace_nd`` computes them: ``start + i * (stop - start) / (num - 1)``, and exactly
    ``stop`` at the end; differentiable in ``start`` and ``stop``. Scalar bounds only.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.linspace(1.0, 3.0, 5))())
    [1.  1.5 2.  2.5 3. ]
    """
    (count,) = _static_ints(num, "LinSpace", "num")
    lo, hi = convert_to_tensor(start), convert_to_tensor(stop)
    if lo.dtype != hi.dtype:
        hi = convert_to_tensor(stop, dtype=lo.dtype)
    if lo.shape != () or hi.shape != ():
        raise ShapeError(
            f"symgrad: LinSpace: start '{lo.name}' and stop '{hi.name}' must be scalars, "
            f"got {format_shape(lo.shape)} and {format_shape(hi.shape)}"
        )
    if count < 1:
        raise InvalidArgumentError(f"symgrad: LinSpace: num must be positive, got {count}")
    dtype = lo.dtype.numpy
    if count == 1:
        return reshape(lo, [1], name=name)
    steps = constant(np.arange(count - 1, dtype=dtype))
    inner = lo + steps * ((hi - lo) / np.asarray(count - 1, dtype=dtype))
    return identity(_concat_last(inner, hi), name=name)


def _concat_last(values: Tensor, last: Tensor) -> Tensor:
    # Through ``pad`` and a one-hot constant: ``stop`` lands exactly on the last place.
    assert values.shape is not None
    count = values.shape[0]
    assert count is not None
    end = np.zeros(count + 1, dtype=values.dtype.numpy)
    end[-1] = 1
    return pad(values, [[0, 1]]) + last * constant(end)


lin_space = linspace


# --- diagonals and bands ---------------------------------------------------------------------------


def diag(diagonal: Any, name: str | None = None) -> Tensor:
    """TF1's ``diag``: a tensor of rank 2k with ``diagonal`` (rank k) on its diagonal.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.diag(sg.constant([1, 2])))())
    [[1 0]
     [0 2]]
    """
    d = convert_to_tensor(diagonal)
    if _known_rank(d, "Diag") < 1:
        raise ShapeError(f"symgrad: Diag: '{d.name}' must have rank >= 1")
    assert d.shape is not None
    return _op("Diag", [d], {}, tuple(d.shape) * 2, d.dtype, name)


def diag_part(input: Any, name: str | None = None) -> Tensor:
    """TF1's ``diag_part``: the diagonal of a tensor of shape ``s + s`` (the inverse of ``diag``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.diag_part(sg.constant([[1, 2], [3, 4]])))())
    [1 4]
    """
    x = convert_to_tensor(input)
    rank = _known_rank(x, "DiagPart")
    half = rank // 2
    assert x.shape is not None
    if (
        rank == 0
        or rank % 2
        or any(
            a is not None and b is not None and a != b
            for a, b in zip(x.shape[:half], x.shape[half:], strict=True)
        )
    ):
        raise ShapeError(
            f"symgrad: DiagPart: '{x.name}' of shape {format_shape(x.shape)} must have even "
            f"rank and shape s + s"
        )
    return _op("DiagPart", [x], {}, tuple(x.shape[:half]), x.dtype, name)


register(
    OpDef(
        "Diag", lower=lambda op, xs: helper("_diag", xs[0]), gradient=lambda op, g: [diag_part(g)]
    )
)
register(
    OpDef(
        "DiagPart",
        lower=lambda op, xs: helper("_diag_part", xs[0]),
        gradient=lambda op, g: [diag(g)],
    )
)


def matrix_diag(diagonal: Any, name: str | None = None, k: int = 0) -> Tensor:
    """``linalg.diag``: matrices (the last axis) with ``diagonal``'s last axis on their diagonal.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.linalg.diag(sg.constant([[1, 2]])))())
    [[[1 0]
      [0 2]]]
    """
    d = convert_to_tensor(diagonal)
    if k != 0:
        raise InvalidArgumentError("symgrad: MatrixDiag: only k=0 (the main diagonal) is supported")
    if _known_rank(d, "MatrixDiag") < 1:
        raise ShapeError(f"symgrad: MatrixDiag: '{d.name}' must have rank >= 1")
    assert d.shape is not None
    return _op("MatrixDiag", [d], {}, tuple(d.shape) + (d.shape[-1],), d.dtype, name)


def matrix_diag_part(input: Any, name: str | None = None, k: int = 0) -> Tensor:
    """``linalg.diag_part``: the main diagonals of the matrices of the last two axes (of length
    ``min(rows, columns)``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.linalg.diag_part(sg.constant([[1, 2, 3], [4, 5, 6]])))())
    [1 5]
    """
    x = convert_to_tensor(input)
    if k != 0:
        raise InvalidArgumentError(
            "symgrad: MatrixDiagPart: only k=0 (the main diagonal) is supported"
        )
    if _known_rank(x, "MatrixDiagPart") < 2:
        raise ShapeError(f"symgrad: MatrixDiagPart: '{x.name}' must have rank >= 2")
    assert x.shape is not None
    rows, columns = x.shape[-2:]
    length = None if rows is None or columns is None else builtins.min(rows, columns)
    return _op("MatrixDiagPart", [x], {}, tuple(x.shape[:-2]) + (length,), x.dtype, name)


def _matrix_diag_part_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    assert x.shape is not None
    if x.shape[-1] is not None and x.shape[-1] == x.shape[-2]:
        return [matrix_diag(grad)]
    # A non-square (or unknown) matrix: the diagonal written into zeros of x's shape.
    return [_op("MatrixSetDiagZeros", [grad, x], {}, x.shape, grad.dtype, None)]


register(
    OpDef(
        "MatrixDiag",
        lower=lambda op, xs: helper("_matrix_diag", xs[0]),
        gradient=lambda op, g: [matrix_diag_part(g)],
    )
)
register(
    OpDef(
        "MatrixDiagPart",
        lower=lambda op, xs: helper("_matrix_diag_part", xs[0]),
        gradient=_matrix_diag_part_gradient,
    )
)
register(
    OpDef(
        "MatrixSetDiagZeros",
        lower=lambda op, xs: helper(
            "_matrix_set_diag_zeros", xs[0], shape_argument(op.inputs[1], xs[1])
        ),
        gradient=lambda op, g: [matrix_diag_part(g), None],
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)


def matrix_band_part(input: Any, num_lower: Any, num_upper: Any, name: str | None = None) -> Tensor:
    """Zero everything outside a band of the matrices of the last two axes: keep ``[i, j]``
    where ``i - j <= num_lower`` and ``j - i <= num_upper`` (a negative bound keeps that
    whole triangle).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    ...     print(sg.compile(sg.linalg.band_part(x, 0, -1))())
    [[1 2 3]
     [0 5 6]
     [0 0 9]]
    """
    x = convert_to_tensor(input)
    if _known_rank(x, "MatrixBandPart") < 2:
        raise ShapeError(f"symgrad: MatrixBandPart: '{x.name}' must have rank >= 2")
    (lower,) = _static_ints(num_lower, "MatrixBandPart", "num_lower", x)
    (upper,) = _static_ints(num_upper, "MatrixBandPart", "num_upper", x)
    attrs = {"lower": lower, "upper": upper}
    return _op("MatrixBandPart", [x], attrs, x.shape, x.dtype, name)


register(
    OpDef(
        "MatrixBandPart",
        lower=lambda op, xs: helper("_band_part", xs[0], op.attrs["lower"], op.attrs["upper"]),
        gradient=lambda op, g: [matrix_band_part(g, op.attrs["lower"], op.attrs["upper"])],
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


# --- segment sums ----------------------------------------------------------------------------------


def _segment_ids(data: Tensor, segment_ids: Any, op: str, flat: bool) -> Tensor:
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:
        raise DTypeError(
            f"symgrad: {op}: segment_ids '{ids.name}' must be int32 or int64, got {ids.dtype.name}"
        )
    if data.shape is None or ids.shape is None:
        raise ShapeError(f"symgrad: {op}: data and segment_ids need known ranks")
    lead = tuple(data.shape[: len(ids.shape)])
    if (
        (flat and len(ids.shape) != 1)
        or len(lead) != len(ids.shape)
        or any(
            a is not None and b is not None and a != b for a, b in zip(lead, ids.shape, strict=True)
        )
    ):
        raise ShapeError(
            f"symgrad: {op}: segment_ids '{ids.name}' {format_shape(ids.shape)} must match the "
            f"leading axes of data '{data.name}' {format_shape(data.shape)}"
        )
    return ids


def _checked_segment_ids(ids: Tensor, count: int | None, ordered: bool, op_type: str) -> Tensor:
    """``ids``, checked when the graph runs as TF's kernel ``op_type`` checks them: below
    ``count`` (the unsorted ops, where a negative id drops its row), or sorted and non-negative
    (``ordered``, the sorted ops). NumPy would add a row to the wrong segment, or drop it."""
    fixed = constant_value(ids)
    if fixed is not None:
        if fixed.size and count is not None and int(fixed.max()) >= count:
            raise InvalidArgumentError(
                f"symgrad: {op_type}: segment id {int(fixed.max())} of '{ids.name}' is not in "
                f"[0, {count})"
            )
        return ids
    attrs = {"count": count, "ordered": ordered, "what": op_type}
    if ids.op.type == "EnsureSegmentIds" and ids.op.attrs["ordered"] == ordered:
        return ids  # checked already (segment_mean's two sums read one check)
    return _op("EnsureSegmentIds", [ids], attrs, ids.shape, ids.dtype, None)


register(
    OpDef(
        "EnsureSegmentIds",
        lower=lambda op, xs: check(
            "_ensure_segment_ids",
            xs[0],
            literal(op.attrs["count"]),
            int(op.attrs["ordered"]),
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [None],
        signature=lambda op, sigs: sigs[0],
    )
)


def unsorted_segment_sum(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Sums of the rows of ``data`` with equal ``segment_ids`` (any order; an id < 0 drops its
    row), ``num_segments`` of them; an empty segment is 0.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([1.0, 2.0, 3.0])
    ...     print(sg.compile(sg.unsorted_segment_sum(data, [2, 0, 2], 4))())
    [2. 0. 4. 0.]
    """
    x = convert_to_tensor(data)
    ids = _segment_ids(x, segment_ids, "UnsortedSegmentSum", flat=False)
    (count,) = _static_ints(num_segments, "UnsortedSegmentSum", "num_segments", x)
    ids = _checked_segment_ids(ids, count, False, "UnsortedSegmentSum")
    return _segment_sum_op("UnsortedSegmentSum", x, ids, count, name)


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Sums of the rows of ``data`` with equal sorted ``segment_ids``: ``max(ids) + 1`` rows
    (known when the ids are constant, else decided at run time); a skipped id gives 0.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ...     print(sg.compile(sg.segment_sum(data, [0, 0, 2]))())
    [[4. 6.]
     [0. 0.]
     [5. 6.]]
    """
    x = convert_to_tensor(data)
    ids, count = _sorted_segment_ids(x, segment_ids, "SegmentSum")
    return _segment_sum_op("SegmentSum", x, ids, count, name)


def _sorted_segment_ids(x: Tensor, segment_ids: Any, op_type: str) -> tuple[Tensor, int | None]:
    """The sorted ``segment_ids`` of ``x``, checked (now if constant, else when run), and the
    number of segments, ``max(ids) + 1``, if known now."""
    ids = _segment_ids(x, segment_ids, op_type, flat=True)
    fixed = constant_value(ids)
    count = None if fixed is None else (int(fixed.max()) + 1 if fixed.size else 0)
    if fixed is not None and (np.any(np.diff(fixed) < 0) or np.any(fixed < 0)):
        raise InvalidArgumentError(
            f"symgrad: {op_type}: segment_ids '{ids.name}' must be sorted and non-negative, "
            f"got {fixed.tolist()!r:.60}"
        )
    return _checked_segment_ids(ids, count, True, op_type), count


def _segment_sum_op(op_type: str, x: Tensor, ids: Tensor, count: int | None, name: Any) -> Tensor:
    if x.dtype.is_bool:
        raise DTypeError(f"symgrad: {op_type}: does not take bool tensors ('{x.name}')")
    assert x.shape is not None and ids.shape is not None
    shape = (count,) + tuple(x.shape[len(ids.shape) :])
    return _op(op_type, [x, ids], {"num_segments": count}, shape, x.dtype, name)


def _lower_segment_sum(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    count = op.attrs["num_segments"]
    return helper(
        "_segment_sum",
        operands[0],
        operands[1],
        literal(count),
        dtype_literal(op.outputs[0].dtype),
    )


def _segment_sum_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, ids = op.inputs
    # TF's _UnsortedSegmentSumGrad: each row takes its segment's cotangent, a dropped row 0.
    return [_op("SegmentGather", [grad, ids], {}, x.shape, grad.dtype, None), None]


def _segment_gather_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    g = op.inputs[0]
    assert g.shape is not None
    count = g.shape[0]
    if count is None:
        # Segments counted at run time come from sorted ids (SegmentSum, SegmentMax): their
        # number is the last id + 1 again.
        return [_segment_sum_op("SegmentSum", grad, op.inputs[1], None, None), None]
    return [_segment_sum_op("UnsortedSegmentSum", grad, op.inputs[1], count, None), None]


for _type in ("SegmentSum", "UnsortedSegmentSum"):
    register(OpDef(_type, lower=_lower_segment_sum, gradient=_segment_sum_gradient))
register(
    OpDef(
        "SegmentGather",
        lower=lambda op, xs: helper("_segment_gather", xs[0], xs[1]),
        gradient=_segment_gather_gradient,
        signature=lambda op, sigs: tuple(sigs[1]) + tuple(sigs[0][1:]),
    )
)


def unsorted_segment_max(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Maxima of the rows of ``data`` with equal ``segment_ids`` (an id < 0 drops its row); an
    empty segment holds the dtype's lowest value, as in TF. Ties share the gradient equally
    (TF's ``_UnsortedSegmentMinOrMaxGrad``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([1.0, 5.0, 3.0])
    ...     print(sg.compile(sg.unsorted_segment_max(data, [1, 1, 0], 2))())
    [3. 5.]
    """
    x = convert_to_tensor(data)
    ids = _segment_ids(x, segment_ids, "UnsortedSegmentMax", flat=False)
    (count,) = _static_ints(num_segments, "UnsortedSegmentMax", "num_segments", x)
    ids = _checked_segment_ids(ids, count, False, "UnsortedSegmentMax")
    return _segment_sum_op("UnsortedSegmentMax", x, ids, count, name)


def _segment_max_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, ids = op.inputs
    count = op.attrs["num_segments"]
    # Each row takes its segment's maximum; the rows equal to it share the cotangent.
    gathered = _op("SegmentGather", [op.outputs[0], ids], {}, x.shape, x.dtype, None)
    selected = cast(equal(x, gathered), x.dtype)
    # Sorted ids (SegmentMax) may leave the number of segments to run time.
    summed = "SegmentSum" if op.type == "SegmentMax" else "UnsortedSegmentSum"
    shares = _segment_sum_op(summed, selected, ids, count, None)
    # An empty segment has no share and no row reads it: divide by at least 1 there.
    shares = maximum(shares, np.asarray(1, dtype=x.dtype.numpy))
    weighted = _op("SegmentGather", [grad / shares, ids], {}, x.shape, x.dtype, None)
    return [weighted * selected, None]


register(
    OpDef(
        "UnsortedSegmentMax",
        lower=lambda op, xs: helper(
            "_segment_max",
            xs[0],
            xs[1],
            op.attrs["num_segments"],
            dtype_literal(op.outputs[0].dtype),
        ),
        gradient=_segment_max_gradient,
    )
)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Maxima of the rows of ``data`` with equal sorted ``segment_ids``: ``max(ids) + 1`` rows
    (known when the ids are constant, else decided at run time); a skipped id gives 0, as in
    TF. Ties share the gradient equally (TF's ``_SegmentMinOrMaxGrad``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([[1.0, 8.0], [3.0, 4.0], [5.0, 6.0]])
    ...     print(sg.compile(sg.segment_max(data, [0, 0, 2]))())
    [[3. 8.]
     [0. 0.]
     [5. 6.]]
    """
    x = convert_to_tensor(data)
    ids, count = _sorted_segment_ids(x, segment_ids, "SegmentMax")
    return _segment_sum_op("SegmentMax", x, ids, count, name)


register(
    OpDef(
        "SegmentMax",
        lower=lambda op, xs: helper(
            "_sorted_segment_max", xs[0], xs[1], dtype_literal(op.outputs[0].dtype)
        ),
        gradient=lambda op, grad: _segment_max_gradient(op, grad),
    )
)


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Means of the rows of ``data`` with equal sorted ``segment_ids`` (0 for an empty one).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.segment_mean(sg.constant([1.0, 3.0, 5.0]), [0, 0, 1]))())
    [2. 5.]
    """
    x = convert_to_tensor(data)
    ids = _segment_ids(x, segment_ids, "SegmentMean", flat=True)
    if constant_value(ids) is None:
        ids = _checked_segment_ids(ids, None, True, "SegmentMean")
    total = segment_sum(x, ids)
    assert x.shape is not None
    counts = segment_sum(cast(ids * 0 + 1, x.dtype), ids)
    counts = reshape(counts, [-1] + [1] * (len(x.shape) - 1))
    return total / maximum(counts, np.asarray(1, dtype=x.dtype.numpy))


# --- embedding_lookup ----------------------------------------------------------------------------


def embedding_lookup(
    params: Any,
    ids: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: float | None = None,
) -> Tensor:
    """The rows ``params[ids]`` (ids of any rank), as ``np.take``; the gradient adds the
    cotangents of repeated ids (``np.add.at``).

    ``params`` is one tensor or a list of shards of one table (each with static rows):
    id ``i`` is row ``i // len(params)`` of shard ``i % len(params)`` with
    ``partition_strategy="mod"``, and with ``"div"`` the ids are split into contiguous
    ranges, the first shards one id longer where they do not divide evenly (TF's rules).
    With ``max_norm`` each looked-up row longer than it is scaled down to that L2 norm, as
    TF's ``clip_by_norm``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     table = sg.constant([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    ...     print(sg.compile(sg.nn.embedding_lookup(table, [[2, 0]]))())
    [[[4. 5.]
      [0. 1.]]]
    """
    if str(partition_strategy) not in ("mod", "div"):
        raise InvalidArgumentError(
            f"symgrad: embedding_lookup: partition_strategy must be 'mod' or 'div', got "
            f"{partition_strategy!r}"
        )
    if isinstance(params, (list, tuple)) and len(params) == 1:
        params = params[0]
    if isinstance(params, (list, tuple)):
        table, ids = _sharded_table(list(params), ids, str(partition_strategy))
    else:
        table = convert_to_tensor(params)
    rows = gather(table, ids, name=name if max_norm is None else None)
    if max_norm is None:
        return rows
    return _clip_rows(rows, table, float(max_norm), name)


def _sharded_table(shards: list[Any], ids: Any, strategy: str) -> tuple[Tensor, Any]:
    """The shards as one table (concatenated in order) and ``ids`` mapped to its rows by TF's
    partition rule (``embedding_ops.embedding_lookup``); a constant map, as the shard sizes
    are static."""
    if not shards:
        raise InvalidArgumentError("symgrad: embedding_lookup: params is an empty list")
    tensors = [convert_to_tensor(p) for p in shards]
    sizes = []
    for shard in tensors:
        if shard.shape is None or not shard.shape or shard.shape[0] is None:
            raise ShapeError(
                f"symgrad: embedding_lookup: shard '{shard.name}' has shape "
                f"{format_shape(shard.shape)}; sharded tables need static row counts"
            )
        sizes.append(int(shard.shape[0]))
    count, total = len(tensors), builtins.sum(sizes)
    every = np.arange(total)
    if strategy == "mod":
        partition, row = every % count, every // count
    else:
        per, extras = divmod(total, count)
        partition = np.maximum(every // (per + 1), (every - extras) // max(per, 1))
        row = np.where(partition < extras, every % (per + 1), (every - extras) % max(per, 1))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    if np.any(row >= np.asarray(sizes)[partition]):
        raise ShapeError(
            f"symgrad: embedding_lookup: shards of {sizes} rows do not hold ids 0..{total - 1} "
            f"by partition_strategy={strategy!r}"
        )
    positions = (starts[partition] + row).astype(np.int64)
    table = concat(tensors, 0)
    if np.array_equal(positions, every):
        return table, ids  # the shards in order are the table ("div" with TF's sizes)
    return table, gather(constant(positions), ids)


def _clip_rows(rows: Tensor, table: Tensor, max_norm: float, name: str | None) -> Tensor:
    # TF's embedding_ops._clip: clip_by_norm over the axes of one embedding, with its
    # guard for an all-zero row (no division by 0, no NaN gradient).
    assert rows.shape is not None and table.shape is not None
    axes = list(builtins.range(len(rows.shape) - len(table.shape) + 1, len(rows.shape)))
    squares = reduce_sum(rows * rows, axes, keepdims=True)
    positive = squares > 0
    norms = where(positive, sqrt(where(positive, squares, squares * 0 + 1)), squares)
    limit = np.asarray(max_norm, dtype=rows.dtype.numpy)
    return (rows * limit) / maximum(norms, limit)


# --- local response normalization ----------------------------------------------------------------


def local_response_normalization(
    input: Any,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """TF's ``nn.lrn``: ``input / (bias + alpha * sqr_sum) ** beta`` where ``sqr_sum`` sums the
    squares over the ``2 * depth_radius + 1`` nearest channels (the last axis, rank 4).

    Built from a windowed channel sum (a symmetric band, so its gradient is itself) and
    elementwise ops: the gradient is TF's ``LRNGrad``, and second derivatives exist too.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[[[1.0, 2.0]]]])
    ...     print(sg.compile(sg.nn.lrn(x, depth_radius=1, bias=0.0, alpha=1.0, beta=0.5))())
    [[[[0.4472136 0.8944272]]]]
    """
    x = convert_to_tensor(input)
    if x.shape is None or len(x.shape) != 4:
        raise ShapeError(
            f"symgrad: LRN: '{x.name}' must have rank 4 (NHWC), got {format_shape(x.shape)}"
        )
    if not x.dtype.is_floating:
        raise DTypeError(f"symgrad: LRN: '{x.name}' must be floating point, got {x.dtype.name}")
    (radius,) = _static_ints(depth_radius, "LRN", "depth_radius", x)
    dtype = x.dtype.numpy
    window = _op("DepthWindowSum", [x * x], {"radius": radius}, x.shape, x.dtype, None)
    scale = np.asarray(bias, dtype=dtype) + np.asarray(alpha, dtype=dtype) * window
    return identity(x * scale ** np.asarray(-beta, dtype=dtype), name=name)


register(
    OpDef(
        "DepthWindowSum",
        lower=lambda op, xs: helper("_depth_window_sum", xs[0], op.attrs["radius"]),
        gradient=lambda op, g: [_op("DepthWindowSum", [g], dict(op.attrs), g.shape, g.dtype, None)],
        signature=lambda op, sigs: sigs[0],
    )
)
lrn = local_response_normalization

__all__ = [
    "boolean_mask",
    "cumprod",
    "cumsum",
    "diag",
    "diag_part",
    "embedding_lookup",
    "lin_space",
    "linspace",
    "local_response_normalization",
    "lrn",
    "matrix_band_part",
    "matrix_diag",
    "matrix_diag_part",
    "pad",
    "reverse",
    "reverse_v2",
    "roll",
    "segment_max",
    "segment_mean",
    "segment_sum",
    "slice",
    "unsorted_segment_max",
    "unsorted_segment_sum",
]
