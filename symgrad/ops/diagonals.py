"""Diagonals and bands: diag and diag_part (TF1's, of rank 2k), matrix_diag and
matrix_diag_part (the matrices of the last two axes, non-square too) and matrix_band_part.
"""

from __future__ import annotations

import builtins
from typing import Any

from ..errors import InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import format_shape
from .array_nodes import shape_argument
from .base import _known_rank, _op, _static_ints, _static_like
from .functions import helper
from .registry import OpDef, register
from .sources import convert_to_tensor


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
    if x.shape is None:
        # A rank known only at run time, as TF takes it: the kernel reads the last two axes then.
        return _op("MatrixDiagPart", [x], {}, None, x.dtype, name)
    if len(x.shape) < 2:
        raise ShapeError(
            f"symgrad: MatrixDiagPart: '{x.name}' {format_shape(x.shape)} must have rank >= 2"
        )
    rows, columns = x.shape[-2:]
    length = None if rows is None or columns is None else builtins.min(rows, columns)
    return _op("MatrixDiagPart", [x], {}, tuple(x.shape[:-2]) + (length,), x.dtype, name)


def _matrix_diag_part_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    if x.shape is not None and x.shape[-1] is not None and x.shape[-1] == x.shape[-2]:
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

__all__ = [
    "diag",
    "diag_part",
    "matrix_band_part",
    "matrix_diag",
    "matrix_diag_part",
]
