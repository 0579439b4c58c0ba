"""Python operators on tensors (``+ - * / // % ** @``, comparisons, and ``& | ^ ~`` as the
logical operations of bool tensors), as in TF1.

``==`` and ``!=`` keep Python's identity meaning (tensors are graph nodes and
dictionary keys); use ``symgrad.equal`` for elementwise equality.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .graph import Tensor, default_names
from .ops import elementwise as E
from .ops.linalg import matmul


def _swap(function: Callable[..., Tensor]) -> Callable[[Tensor, Any], Tensor]:
    return lambda self, other: function(other, self)


def _named(tf_name: str, op_types: tuple[str, ...], function: Callable[..., Tensor]) -> Any:
    """``function`` making its ops of ``op_types`` under TF1's name for the operator
    (``a + b`` is ``add``, ``a / b`` is ``truediv``: what ``get_tensor_by_name`` finds)."""
    names = dict.fromkeys(op_types, tf_name)

    def apply(self: Tensor, *other: Any) -> Tensor:
        with default_names([self], names):
            return function(self, *other)

    return apply


_BINARY: dict[str, tuple[Callable[..., Tensor], str, tuple[str, ...]]] = {
    "add": (E.add, "add", ("Add",)),
    "sub": (E.subtract, "sub", ("Sub",)),
    "mul": (E.multiply, "mul", ("Mul",)),
    "truediv": (E.truediv, "truediv", ("RealDiv",)),
    "floordiv": (E.floordiv, "floordiv", ("FloorDiv",)),
    "mod": (E.floormod, "mod", ("FloorMod",)),
    "and": (E.logical_and, "and", ("LogicalAnd",)),
    "or": (E.logical_or, "or", ("LogicalOr",)),
    "xor": (E.logical_xor, "xor", ("LogicalXor",)),
    "pow": (E.pow, "pow", ("Pow",)),
    "matmul": (matmul, "matmul", ("MatMul", "BatchMatMulV2")),
}

_OPERATORS: dict[str, Any] = {
    "__invert__": lambda self: E.logical_not(self),
    "__gt__": E.greater,
    "__ge__": E.greater_equal,
    "__lt__": E.less,
    "__le__": E.less_equal,
    "__neg__": lambda self: E.negative(self),
    "__abs__": lambda self: E.abs(self),
}
for _operator, (_function, _tf_name, _op_types) in _BINARY.items():
    _OPERATORS[f"__{_operator}__"] = _named(_tf_name, _op_types, _function)
    _OPERATORS[f"__r{_operator}__"] = _named(_tf_name, _op_types, _swap(_function))

for _name, _function in _OPERATORS.items():
    setattr(Tensor, _name, _function)
