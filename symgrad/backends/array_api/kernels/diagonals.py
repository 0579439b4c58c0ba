"""Diagonals and bands of matrices, and their gradients."""

from __future__ import annotations

import math

from ._types import Array, Namespace, Shape
from .namespace import _device_of


def _diag(xp: Namespace, value: Array) -> Array:
    """A tensor of shape ``s + s`` with ``value`` (of shape ``s``) on its diagonal."""
    flat = xp.reshape(value, (1, -1))
    eye = xp.eye(flat.shape[1], dtype=value.dtype, device=_device_of(value))
    return xp.reshape(eye * flat, tuple(value.shape) * 2)


def _diag_part(xp: Namespace, value: Array) -> Array:
    """The diagonal of a tensor of shape ``s + s``, of shape ``s``."""
    lead = tuple(value.shape[: value.ndim // 2])
    count = math.prod(lead)
    eye = xp.eye(count, dtype=value.dtype, device=_device_of(value))
    return xp.reshape(xp.sum(xp.reshape(value, (count, count)) * eye, axis=1), lead)


def _matrix_diag(xp: Namespace, value: Array) -> Array:
    """Matrices with the last axis of ``value`` on their diagonals."""
    eye = xp.eye(value.shape[-1], dtype=value.dtype, device=_device_of(value))
    return xp.expand_dims(value, axis=-1) * eye


def _matrix_diag_part(xp: Namespace, value: Array) -> Array:
    """The main diagonals of the matrices of the last two axes."""
    size = min(value.shape[-2:])
    eye = xp.eye(size, dtype=value.dtype, device=_device_of(value))
    return xp.sum(value[..., :size, :size] * eye, axis=-1)


def _matrix_set_diag_zeros(xp: Namespace, value: Array, shape: Shape) -> Array:
    """Zero matrices of ``shape`` with ``value`` on their main diagonals."""
    rows, columns = shape[-2:]
    device = _device_of(value)
    if value.shape[-1] < rows:
        extra = xp.zeros(
            tuple(value.shape[:-1]) + (rows - value.shape[-1],),
            dtype=value.dtype,
            device=device,
        )
        value = xp.concat([value, extra], axis=-1)
    eye = xp.eye(rows, columns, dtype=value.dtype, device=device)
    return xp.broadcast_to(xp.expand_dims(value, axis=-1) * eye, tuple(shape))


def _band_part(xp: Namespace, value: Array, lower: int, upper: int) -> Array:
    """Zeros outside the band ``i - j <= lower``, ``j - i <= upper`` (negative: no bound)."""
    device = _device_of(value)
    i = xp.reshape(xp.arange(value.shape[-2], device=device), (-1, 1))
    j = xp.reshape(xp.arange(value.shape[-1], device=device), (1, -1))
    keep = xp.ones((value.shape[-2], value.shape[-1]), dtype=xp.bool, device=device)
    if lower >= 0:
        keep = xp.logical_and(keep, i - j <= lower)
    if upper >= 0:
        keep = xp.logical_and(keep, j - i <= upper)
    return xp.where(keep, value, xp.zeros_like(value))
