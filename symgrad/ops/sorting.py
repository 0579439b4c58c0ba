"""``top_k``: the ``k`` largest entries along the last axis, and where they are.

TF1's ``TopKV2`` has two outputs; here the indices are one op (``TopKIndices``) and the values
another (``TopKValues``: the input taken at those indices), so that the gradient of the values
is the incoming gradient put back at those positions (``TopKScatter``, TF's ``_TopKGrad``), and
the gradient of that is taking at the positions again.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import sympy as sp

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import format_shape
from .array_nodes import call, shape_argument
from .base import _op, constant_value
from .functions import helper
from .registry import OpDef, register
from .sources import convert_to_tensor


class TopKV2(NamedTuple):
    """What ``top_k`` returns, as TF1's namedtuple: ``values, indices = top_k(x, k)``."""

    values: Tensor
    indices: Tensor


def top_k(input: Any, k: Any = 1, sorted: bool = True, name: str | None = None) -> TopKV2:
    """The ``k`` largest entries of ``input`` along its last axis, largest first, and their
    positions (int32). Of equal entries the one with the lower index comes first (TF's rule).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     values, indices = sg.nn.top_k(sg.constant([[1.0, 3.0, 3.0, 2.0]]), k=2)
    ...     print(*sg.compile([values, indices])())
    [[3. 3.]] [[1 2]]
    """
    del sorted  # the k entries always come out largest first, which sorted=False allows too
    x = convert_to_tensor(input)
    if isinstance(k, Tensor):
        fixed = constant_value(k)
        if fixed is None or fixed.ndim or not k.dtype.is_integer:
            raise InvalidArgumentError(
                f"symgrad: TopKV2: k must be an int or a constant int scalar, not tensor "
                f"'{k.name}' (computed at run time)"
            )
        k = int(fixed)
    try:
        k = operator.index(k)
    except TypeError:
        raise DTypeError(f"symgrad: TopKV2: k must be an int, got {k!r:.40}") from None
    if x.dtype.is_bool:
        raise DTypeError(f"symgrad: TopKV2: '{x.name}' is bool; top_k takes numbers")
    if x.shape is not None and len(x.shape) == 0:
        raise ShapeError(
            f"symgrad: TopKV2: input '{x.name}' has shape {format_shape(x.shape)}; top_k needs "
            f"rank 1 or more"
        )
    if k < 0:
        raise InvalidArgumentError(f"symgrad: TopKV2: k of '{x.name}' must be >= 0, got {k}")
    last = None if x.shape is None else x.shape[-1]
    if last is not None and last < k:
        raise ShapeError(
            f"symgrad: TopKV2: input '{x.name}' {format_shape(x.shape)} must have at least "
            f"k={k} columns"
        )
    # The last axis of whatever rank arrives, as TF's kernel reads it.
    shape = None if x.shape is None else (*x.shape[:-1], k)
    base = name or "TopKV2"
    indices = _op("TopKIndices", [x], {"k": k}, shape, _dtypes.int32, f"{base}/indices")
    values = _op("TopKValues", [x, indices], {}, shape, x.dtype, f"{base}/values")
    return TopKV2(values, indices)


def _values_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, indices = op.inputs
    scattered = _op("TopKScatter", [grad, indices, x], {}, x.shape, grad.dtype, None)
    return [scattered, None]


def _scatter_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    _, indices, _ = op.inputs
    return [_op("TopKValues", [grad, indices], {}, indices.shape, grad.dtype, None), None, None]


def _lower_scatter(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    value, indices, like = operands
    return helper("_top_k_grad", value, indices, shape_argument(op.inputs[2], like))


register(
    OpDef(
        "TopKIndices",
        lower=lambda op, xs: helper("_top_k_indices", xs[0], op.attrs["k"], dtype="int32"),
        gradient=None,
    )
)
register(
    OpDef(
        "TopKValues",
        lower=lambda op, xs: call("take_along_axis", xs[0], xs[1], -1),
        gradient=_values_gradient,
    )
)
register(
    OpDef(
        "TopKScatter",
        lower=_lower_scatter,
        gradient=_scatter_gradient,
        materialized_inputs=lambda op: (2,),
        shape_only_inputs=(2,),
    )
)


__all__ = ["TopKV2", "top_k"]
