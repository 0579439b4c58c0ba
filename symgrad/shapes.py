"""Static shapes: tuples of ints where ``None`` is an unknown dimension.

A shape of ``None`` (rather than a tuple) means the rank itself is unknown, as
for ``placeholder(float32)`` without a shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TypeGuard

import numpy as np

from .errors import ShapeError

Dim = int | None
Shape = tuple[Dim, ...] | None


def as_shape(shape: Any) -> Shape:
    """Normalise a user shape (None, int, list/tuple of ints/None, a TensorShape)."""
    if shape is None:
        return None
    if hasattr(shape, "as_list"):
        try:
            shape = shape.as_list()
        except ValueError:  # a TF TensorShape of unknown rank
            return None
    if isinstance(shape, int):
        shape = (shape,)
    dims: list[Dim] = []
    for dim in shape:
        if dim is None:
            dims.append(None)
        elif hasattr(dim, "__index__") and not isinstance(dim, bool):
            value = int(dim)
            if value == -1:  # TF spells an unknown dimension -1 too
                dims.append(None)
                continue
            if value < 0:
                raise ShapeError(f"symgrad: shape {tuple(shape)} has a negative dimension")
            dims.append(value)
        else:
            raise ShapeError(f"symgrad: {shape!r} is not a shape (dims must be ints or None)")
    return tuple(dims)


class Dimension(int):
    """A known dimension of a :class:`TensorShape`: an ``int`` with TF1's ``.value``.

    >>> TensorShape([None, 3])[1].value, TensorShape([None, 3])[1] * 2
    (3, 6)
    """

    @property
    def value(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return int.__repr__(self)


class TensorShape(tuple):
    """A tensor's static shape, TF1's ``TensorShape``: a tuple of ints and ``None``.

    ``shape[i]`` is a :class:`Dimension` (an int with ``.value``) where the dim is known and
    ``None`` where it is not (TF1 gives ``Dimension(None)``, whose ``.value`` is ``None``; here
    ``shape[i] is None`` says it). It compares equal to a list or tuple of the same dims.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     s = sg.placeholder(sg.float32, [None, 28, 28]).get_shape()
    >>> s.as_list(), s.ndims, s[1].value, s.is_fully_defined(), s == [None, 28, 28]
    ([None, 28, 28], 3, 28, False, True)
    >>> s.merge_with([5, None, 28]).as_list(), s[1:].num_elements()
    ([5, 28, 28], 784)
    """

    def __new__(cls, dims: Any = ()) -> TensorShape:
        normalised = as_shape(dims)
        if normalised is None:
            raise ShapeError(
                "symgrad: TensorShape: a shape of unknown rank has no dims (the tensor's "
                ".shape is None)"
            )
        return super().__new__(cls, normalised)

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        if isinstance(key, slice):
            return TensorShape(item)
        return None if item is None else Dimension(item)

    def __iter__(self) -> Iterator[Any]:
        for dim in tuple.__iter__(self):
            yield None if dim is None else Dimension(dim)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__

    @property
    def ndims(self) -> int:
        return len(self)

    rank = ndims

    @property
    def dims(self) -> list[Dimension | None]:
        return list(self)

    def as_list(self) -> list[int | None]:
        return [None if d is None else int(d) for d in tuple.__iter__(self)]

    def is_fully_defined(self) -> bool:
        return all(d is not None for d in tuple.__iter__(self))

    def num_elements(self) -> int | None:
        return num_elements(tuple(self))

    def is_compatible_with(self, other: Any) -> bool:
        return shapes_compatible(tuple(self), as_shape(other))

    def assert_is_compatible_with(self, other: Any) -> None:
        if not self.is_compatible_with(other):
            raise ShapeError(
                f"symgrad: Shapes {format_shape(tuple(self))} and "
                f"{format_shape(as_shape(other))} are incompatible"
            )

    def merge_with(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both (a ValueError if there is none)."""
        theirs = as_shape(other)
        if theirs is None:
            return self
        self.assert_is_compatible_with(theirs)
        return TensorShape(
            [a if a is not None else b for a, b in zip(tuple.__iter__(self), theirs, strict=True)]
        )

    def concatenate(self, other: Any) -> TensorShape:
        return TensorShape(tuple(self.as_list()) + tuple(as_shape(other) or ()))

    def assert_has_rank(self, rank: int) -> None:
        if len(self) != rank:
            raise ShapeError(f"symgrad: Shape {format_shape(tuple(self))} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        self.assert_has_rank(rank)
        return self

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ShapeError(f"symgrad: Shape {format_shape(tuple(self))} is not fully defined")


def unknown_shape() -> None:
    """TF1's ``tensor_shape.unknown_shape()``: symgrad spells an unknown rank ``None``."""
    return None


def format_shape(shape: Shape) -> str:
    """Shape as text for messages: ``(None, 3)``, ``()``; unknown rank is ``<unknown>``."""
    if shape is None:
        return "<unknown>"
    if len(shape) == 1:
        return f"({shape[0]},)"
    return "(" + ", ".join(str(d) for d in shape) + ")"


def broadcast_shapes(*shapes: Shape) -> Shape:
    """The NumPy broadcast of static shapes, or raise ValueError.

    Unknown dims broadcast with 1 to unknown, with n to n.
    """
    if any(s is None for s in shapes):
        return None
    known_shapes = [s for s in shapes if s is not None]  # all of them, as checked above
    rank = max((len(s) for s in known_shapes), default=0)
    result: list[Dim] = []
    for axis in range(rank):
        dims = [s[len(s) - rank + axis] for s in known_shapes if len(s) - rank + axis >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError("incompatible")
        if known:
            result.append(known.pop())
        elif any(d is None for d in dims):
            result.append(None)
        else:
            result.append(1)
    return tuple(result)


def is_fully_defined(shape: Shape) -> TypeGuard[tuple[int, ...]]:
    return shape is not None and all(d is not None for d in shape)


def num_elements(shape: Shape) -> int | None:
    if not is_fully_defined(shape):
        return None
    count = 1
    for d in shape:
        count *= d
    return count


# Sum every axis, whatever the rank: the gradient of a scalar operand.
ALL_AXES = "all"


def shapes_compatible(a: Shape, b: Shape) -> bool:
    """True if a value of static shape ``a`` may have static shape ``b``."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(
        x is None or y is None or x == y for x, y in zip(a, b, strict=False)
    )


def _axis_items(axis: object) -> Iterable[object]:
    """An axis argument as a sequence: a list, a tuple, a NumPy array of axes, or one axis."""
    if isinstance(axis, (list, tuple)):
        return axis
    if isinstance(axis, np.ndarray) and axis.ndim:
        return list(axis.tolist())
    return (axis,)


def normalize_axes(axis: object, rank: int, op: str, tensor: str) -> tuple[int, ...]:
    """Turn an axis argument (None, int, list) into sorted non-negative axes."""
    if axis is None:
        return tuple(range(rank))
    items = _axis_items(axis)
    result = []
    for item in items:
        if not hasattr(item, "__index__"):
            raise ShapeError(
                f"symgrad: {op}: axis {axis!r} for tensor '{tensor}' is not an int or list of ints"
            )
        value = int(item)
        if not -rank <= value < rank:
            raise ShapeError(
                f"symgrad: {op}: axis {value} is out of range for tensor '{tensor}' of rank {rank}"
            )
        result.append(value % rank)
    if len(set(result)) != len(result):
        raise ShapeError(
            f"symgrad: {op}: axis {axis!r} repeats an axis of tensor '{tensor}' (rank {rank})"
        )
    return tuple(sorted(result))


def unknown_rank_axes(axis: object, op: str, tensor: str) -> tuple[int, ...]:
    """Sorted axes of a tensor whose rank is known only at run time.

    Axes all counted from the start, or all from the end, name the same axes at any rank, so
    NumPy can read them when the value arrives; a mix (``[0, -1]``) could name one axis twice.
    """
    items = _axis_items(axis)
    values = []
    for item in items:
        if isinstance(item, bool) or not hasattr(item, "__index__"):
            raise ShapeError(
                f"symgrad: {op}: axis {axis!r} for tensor '{tensor}' is not an int or list of ints"
            )
        values.append(int(item))
    if len(set(values)) != len(values):
        raise ShapeError(f"symgrad: {op}: axis {axis!r} repeats an axis of tensor '{tensor}'")
    if values and min(values) < 0 <= max(values):
        raise ShapeError(
            f"symgrad: {op}: axis {axis!r} mixes axes counted from the start and from the end; "
            f"tensor '{tensor}' has a rank known only at run time, so give its placeholder a "
            f"shape or count all axes one way"
        )
    return tuple(sorted(values))


def squeeze_axes(shape: Sequence[Dim], axes: tuple[int, ...], keepdims: bool) -> tuple[Dim, ...]:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


# --- signatures: static shapes whose unknown dims carry their origin -------------------------
#
# An unknown dim is a frozenset of origin tokens and stands for the largest of
# them at run time (broadcasting makes the others 1 or equal). A value of
# unknown rank has a frozenset signature: the broadcast of the shapes of its
# origins. Equal signatures mean equal shapes at run time, which is what the
# tracer needs to leave a broadcast implicit.

Signature = tuple[Any, ...] | frozenset[Any]


class _AssumedScalar:
    """The origin of ``ASSUMED_SCALAR``: no op's name, so no traced value can have it by chance."""

    def __repr__(self) -> str:
        return "assumed scalar"


# The signature of an input of unknown rank that the compiler assumes is fed a 0-d value (a
# keep_prob or a learning rate; ``signatures.equal_dims``). While a graph is traced it is an
# unknown rank like any other, as the ops' rules expect of a value whose static rank is
# unknown (so what it meets has an unknown rank too); only the gradient's unbroadcasting
# (``signatures.broadcast_axes_of``) and the program's signatures after tracing
# (``EqualDims.ranks_known``) read it as ``()``.
ASSUMED_SCALAR: frozenset[Any] = frozenset({(_AssumedScalar(), "shape")})


def signature(shape: Shape, origin: str) -> Signature:
    """``shape`` with each unknown dim (or an unknown rank) replaced by tokens of ``origin``."""
    if shape is None:
        return frozenset({(origin, "shape")})
    return tuple(frozenset({(origin, axis)}) if d is None else d for axis, d in enumerate(shape))


def broadcast_signatures(*signatures: Signature) -> Signature:
    """The signature of a NumPy broadcast of values with these signatures."""
    if any(isinstance(s, frozenset) for s in signatures):
        tokens: frozenset[Any] = frozenset()
        for sig in signatures:
            if isinstance(sig, frozenset):
                tokens |= sig
            elif sig != ():
                tokens |= {("shape", sig)}
        return tokens
    # No frozenset (unknown rank) is left: every signature is a tuple.
    tuples = [s for s in signatures if isinstance(s, tuple)]
    rank = max((len(s) for s in tuples), default=0)
    result: list[Any] = []
    for axis in range(rank):
        dims = [s[len(s) - rank + axis] for s in tuples if len(s) - rank + axis >= 0]
        known = [d for d in dims if isinstance(d, int) and d != 1]
        unknown = [d for d in dims if isinstance(d, frozenset)]
        if known:
            result.append(known[0])
        elif unknown:
            result.append(frozenset().union(*unknown))
        else:
            result.append(1)
    return tuple(result)
