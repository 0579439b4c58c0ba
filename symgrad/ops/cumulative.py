"""Running sums and products: cumsum and cumprod (exclusive, reversed), each a helper of the
generated module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..errors import DTypeError
from ..graph import Operation, Tensor
from .base import _axis, _op, _static_ints
from .functions import helper
from .registry import OpDef, register
from .sources import convert_to_tensor


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

__all__ = [
    "cumprod",
    "cumsum",
]
