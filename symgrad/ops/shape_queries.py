"""``shape``, ``size`` and ``rank``: constants where the static shape knows them, else read
from the value when the graph runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..graph import Tensor, default_names
from ..shapes import is_fully_defined, num_elements
from .array_nodes import AsArray, AsScalar, ShapeOf, call
from .base import _op
from .elementwise import cast
from .functions import dtype_literal
from .registry import OpDef, register
from .sources import constant, convert_to_tensor


def shape(input: Any, name: str | None = None, out_type: Any = _dtypes.int32) -> Tensor:
    """The run-time shape of a tensor, as an int32 vector (a constant when static)."""
    x = convert_to_tensor(input)
    out_type = _dtypes.as_dtype(out_type)
    if is_fully_defined(x.shape):  # a constant, named as TF1's Shape op is
        with default_names([x], {"Const": "Shape"}):
            return constant(np.asarray(x.shape, dtype=out_type.numpy), dtype=out_type, name=name)
    length = None if x.shape is None else len(x.shape)
    return _op("Shape", [x], {"out": out_type.name}, (length,), out_type, name)


register(
    OpDef(
        "Shape",
        lower=lambda op, xs: AsArray(ShapeOf(xs[0]), dtype_literal(op.attrs["out"])),
        gradient=None,
        materialized_inputs=lambda op: (0,),
    )
)


def size(input: Any, name: str | None = None, out_type: Any = _dtypes.int32) -> Tensor:
    """The number of elements (a constant when static)."""
    x = convert_to_tensor(input)
    count = num_elements(x.shape)
    if count is not None:
        with default_names([x], {"Const": "Size"}):
            return constant(np.asarray(count, dtype=_dtypes.as_dtype(out_type).numpy), name=name)
    out = _op("Size", [x], {}, (), _dtypes.int64, name)
    return cast(out, out_type) if _dtypes.as_dtype(out_type) != _dtypes.int64 else out


register(
    OpDef(
        "Size",
        lower=lambda op, xs: AsScalar(call("size", xs[0]), dtype_literal("int64")),
        gradient=None,
        materialized_inputs=lambda op: (0,),
    )
)


def rank(input: Any, name: str | None = None) -> Tensor:
    """The number of axes, as an int32 scalar: a constant when the rank is static."""
    x = convert_to_tensor(input)
    if x.shape is None:
        return _op("Rank", [x], {}, (), _dtypes.int32, name)
    with default_names([x], {"Const": "Rank"}):
        return constant(np.int32(len(x.shape)), name=name)


register(
    OpDef(
        "Rank",
        lower=lambda op, xs: AsArray(call("ndim", xs[0]), dtype_literal("int32")),
        gradient=None,
        materialized_inputs=lambda op: (0,),
    )
)
