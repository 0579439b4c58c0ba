"""The IR's array nodes: a call of one of NumPy's array functions (:data:`ARRAY_FUNCTIONS`),
basic indexing, lists of operands, run-time shapes and sizes, and arrays made from literals.

Each backend's printer has one rule for each node and for each array function
(``tests/test_layers.py`` checks it): the nodes say what is computed, never how a library
spells it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..graph import Operation, Tensor
from .base import _static_shape_of
from .functions import Literal, _Structural, dtype_literal, literal

# The array functions a Call may name, each meaning what NumPy's function of that name does
# with the arguments given here (value first, then literals: sizes, axes, keywords). Every
# backend's printer has one rule for each (tests/test_layers.py checks it), so a function
# added here without a rule in some backend fails a test rather than a user.
ARRAY_FUNCTIONS = frozenset(
    {
        "broadcast_to",
        "concatenate",
        "expand_dims",
        "flip",
        "ndim",
        "pad",
        "reshape",
        "roll",
        "size",
        "squeeze",
        "stack",
        "take",
        "take_along_axis",
        "tile",
        "transpose",
    }
)


class Call(_Structural):
    """``function(value, <literal arguments>)`` for one of :data:`ARRAY_FUNCTIONS`: args are
    the function's name, the value, then literals printed as they are."""

    def result_dtype(self, dtype_of: Any) -> str:
        return dtype_of(self.args[1])


def call(function: str, value: sp.Expr, *literals: Any) -> Call:
    if function not in ARRAY_FUNCTIONS:
        raise ValueError(f"{function!r} is not one of the IR's array functions (ARRAY_FUNCTIONS)")
    return Call(
        Literal(function), value, *(x if isinstance(x, sp.Basic) else literal(x) for x in literals)
    )


class AsArray(_Structural):
    """An array of a dtype (args: the value, a :class:`DTypeLiteral`) made of Python ints
    computed at run time: a shape, a rank."""

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[1])


class AsScalar(AsArray):
    """A scalar of a dtype (args: the value, a :class:`DTypeLiteral`) made of a Python int
    computed at run time: a size."""


class ShapeOf(_Structural):
    """The shape of ``x`` as a tuple of Python ints, for run-time shapes (only inside other
    calls)."""

    def shape_only_arguments(self) -> tuple[int, ...]:
        return (0,)

    def result_dtype(self, dtype_of: Any) -> str:
        return "weak_int"


def shape_argument(tensor: Tensor, value: sp.Expr) -> sp.Basic:
    """The shape of ``tensor`` as a literal if static, else :class:`ShapeOf` ``value``."""
    static = _static_shape_of(tensor)
    return literal(static) if static is not None else ShapeOf(value)


class Index(_Structural):
    """``x[key]`` with a basic-indexing key, printed as Python would write it."""


class ListOf(_Structural):
    """``[a, b, c]`` (the operands of concatenate and stack)."""


class Filled(_Structural):
    """An array of ``sizes`` all equal to ``value`` (sizes computed at run time among ints):
    args are the value's text, the dtype's name, then the sizes."""

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[1])


# The arrays a Created makes, each as NumPy's function of that name makes it.
CREATED_KINDS = frozenset({"zeros", "ones", "full", "eye"})


class Created(_Structural):
    """An array made from literals alone: args are its kind (one of :data:`CREATED_KINDS`),
    its arguments as Python text (``(3, 4)``; ``(3, 4), 0.5``; ``3, 3``), then its dtype.

    (Kind, arguments, dtype, in that order: sums of such arrays keep one order of terms.)
    """

    def result_dtype(self, dtype_of: Any) -> str:
        return str(self.args[2])


def created(kind: str, dtype: Any, *arguments: str) -> Created:
    if kind not in CREATED_KINDS:
        raise ValueError(f"{kind!r} is not one of CREATED_KINDS")
    return Created(Literal(kind), Literal(", ".join(arguments)), dtype_literal(dtype))


def _lower_call(function: str, *attributes: str) -> Any:
    def lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
        return call(function, operands[0], *(op.attrs[a] for a in attributes))

    return lower
