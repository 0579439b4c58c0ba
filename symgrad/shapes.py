"""Static shapes: tuples of ints where ``None`` is an unknown dimension.

A shape of ``None`` (rather than a tuple) means the rank itself is unknown, as
for ``placeholder(float32)`` without a shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeGuard

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


def normalize_axes(axis: object, rank: int, op: str, tensor: str) -> tuple[int, ...]:
    """Turn an axis argument (None, int, list) into sorted non-negative axes."""
    if axis is None:
        return tuple(range(rank))
    items: Iterable[object] = axis if isinstance(axis, (list, tuple)) else (axis,)
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
