"""Diagonals and bands of matrices, and their gradients."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._types import Array, Shape


def _diag(value: ArrayLike) -> Array:
    """A tensor of shape ``s + s`` with ``value`` (of shape ``s``) on its diagonal."""
    flat = np.ravel(value)
    result = np.zeros((flat.size, flat.size), dtype=np.asarray(value).dtype)
    np.fill_diagonal(result, flat)
    return np.reshape(result, np.shape(value) * 2)


def _diag_part(value: ArrayLike) -> Array:
    """The diagonal of a tensor of shape ``s + s``, of shape ``s``."""
    lead = np.shape(value)[: np.ndim(value) // 2]
    count = int(np.prod(lead))
    return np.reshape(np.diagonal(np.reshape(value, (count, count))).copy(), lead)


def _matrix_diag(value: ArrayLike) -> Array:
    """Matrices with the last axis of ``value`` on their diagonals."""
    size = np.shape(value)[-1]
    result = np.zeros(np.shape(value) + (size,), dtype=np.asarray(value).dtype)
    result[..., np.arange(size), np.arange(size)] = value
    return result


def _matrix_diag_part(value: ArrayLike) -> Array:
    """The main diagonals of the matrices of the last two axes."""
    return np.diagonal(value, axis1=-2, axis2=-1).copy()


def _matrix_set_diag_zeros(value: ArrayLike, shape: Shape) -> Array:
    """Zero matrices of ``shape`` with ``value`` on their main diagonals."""
    result = np.zeros(shape, dtype=np.asarray(value).dtype)
    size = min(shape[-2:])
    result[..., np.arange(size), np.arange(size)] = value
    return result


def _band_part(value: Array, lower: int, upper: int) -> Array:
    """Zeros outside the band ``i - j <= lower``, ``j - i <= upper`` (negative: no bound)."""
    if lower >= 0:
        value = np.triu(value, -lower)
    if upper >= 0:
        value = np.tril(value, upper)
    return value
