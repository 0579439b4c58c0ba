"""Python operators on tensors (``+ - * / // % ** @``, comparisons, and ``& | ^ ~`` as the
logical operations of bool tensors), as in TF1.

``==`` and ``!=`` keep Python's identity meaning (tensors are graph nodes and
dictionary keys); use ``symgrad.equal`` for elementwise equality.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .graph import Tensor
from .ops import elementwise as E
from .ops.linalg import matmul


def _swap(function: Callable[..., Tensor]) -> Callable[[Tensor, Any], Tensor]:
    return lambda self, other: function(other, self)


_OPERATORS = {
    "__add__": E.add,
    "__radd__": _swap(E.add),
    "__sub__": E.subtract,
    "__rsub__": _swap(E.subtract),
    "__mul__": E.multiply,
    "__rmul__": _swap(E.multiply),
    "__truediv__": E.truediv,
    "__rtruediv__": _swap(E.truediv),
    "__floordiv__": E.floordiv,
    "__rfloordiv__": _swap(E.floordiv),
    "__mod__": E.floormod,
    "__rmod__": _swap(E.floormod),
    "__and__": E.logical_and,
    "__rand__": _swap(E.logical_and),
    "__or__": E.logical_or,
    "__ror__": _swap(E.logical_or),
    "__xor__": E.logical_xor,
    "__rxor__": _swap(E.logical_xor),
    "__invert__": lambda self: E.logical_not(self),
    "__pow__": E.pow,
    "__rpow__": _swap(E.pow),
    "__matmul__": matmul,
    "__rmatmul__": _swap(matmul),
    "__gt__": E.greater,
    "__ge__": E.greater_equal,
    "__lt__": E.less,
    "__le__": E.less_equal,
    "__neg__": lambda self: E.negative(self),
    "__abs__": lambda self: E.abs(self),
}

for _name, _function in _OPERATORS.items():
    setattr(Tensor, _name, _function)
