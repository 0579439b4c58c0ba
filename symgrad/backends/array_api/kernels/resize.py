"""TF1's legacy image resizing (NHWC): ResizeBilinear, ResizeNearestNeighbor and their
gradients, as the NumPy backend's kernels compute them (float32 source coordinates per
axis, gathers, and per-axis interpolation matrices for the gradients)."""

from __future__ import annotations

from ._types import Array, Device, Namespace, Pair, Shape
from .namespace import _device_of


def _resize_positions(
    xp: Namespace, size: int, out: int, corners: bool, half: bool, device: Device
) -> Array:
    """The float32 source coordinates of the ``out`` positions along one axis."""
    if corners and out > 1:
        scale = xp.asarray(size - 1, dtype=xp.float32, device=device) / xp.asarray(
            out - 1, dtype=xp.float32, device=device
        )
    else:
        scale = xp.asarray(size, dtype=xp.float32, device=device) / xp.asarray(
            out, dtype=xp.float32, device=device
        )
    positions = xp.astype(xp.arange(out, device=device), xp.float32)
    return (positions + (0.5 if half else 0.0)) * scale


def _bilinear_taps(
    xp: Namespace, size: int, out: int, corners: bool, half: bool, device: Device
) -> tuple:
    """TF's bilinear taps along one axis: lower and upper indices, the upper's weight."""
    source = _resize_positions(xp, size, out, corners, half, device)
    if half:
        source = source - 0.5
    below = xp.floor(source)
    lower = xp.clip(xp.astype(below, xp.int64), 0, size - 1)
    upper = xp.clip(xp.astype(xp.ceil(source), xp.int64), 0, size - 1)
    return lower, upper, source - below


def _nearest_taps(
    xp: Namespace, size: int, out: int, corners: bool, half: bool, device: Device
) -> Array:
    """TF's nearest source index of each output position along one axis."""
    source = _resize_positions(xp, size, out, corners, half, device)
    whole = xp.floor(source)
    if corners:  # the sources are not negative: round halves up
        whole = whole + xp.astype(source - whole >= 0.5, xp.float32)
    return xp.clip(xp.astype(whole, xp.int64), 0, size - 1)


def _resize_bilinear(
    xp: Namespace, x: Array, size: Pair, corners: bool, half: bool
) -> Array:
    """TF's ResizeBilinear: float32 results, lerps along the width, then the height."""
    device = _device_of(x)
    top, bottom, down = _bilinear_taps(xp, x.shape[1], size[0], corners, half, device)
    left, right, across = _bilinear_taps(xp, x.shape[2], size[1], corners, half, device)
    across = across[:, None]
    rows = xp.astype(x, xp.float32)
    upper = xp.take(rows, top, axis=1)
    lower = xp.take(rows, bottom, axis=1)
    upper_left = xp.take(upper, left, axis=2)
    lower_left = xp.take(lower, left, axis=2)
    upper = upper_left + (xp.take(upper, right, axis=2) - upper_left) * across
    lower = lower_left + (xp.take(lower, right, axis=2) - lower_left) * across
    return upper + (lower - upper) * down[:, None, None]


def _bilinear_matrix(
    xp: Namespace, size: int, out: int, corners: bool, half: bool, device: Device
) -> Array:
    """The (out, size) float32 matrix of one axis's bilinear weights."""
    lower, upper, weight = _bilinear_taps(xp, size, out, corners, half, device)
    columns = xp.arange(size, dtype=xp.int64, device=device)
    at_lower = xp.astype(columns == lower[:, None], xp.float32)
    at_upper = xp.astype(columns == upper[:, None], xp.float32)
    return at_lower * (1.0 - weight)[:, None] + at_upper * weight[:, None]


def _resize_adjoint(xp: Namespace, dy: Array, rows: Array, columns: Array) -> Array:
    """``dy`` (batch, out_h, out_w, c) taken back through the per-axis matrices ``rows``
    (out_h, h) and ``columns`` (out_w, w): (batch, h, w, c)."""
    batch, height, width, depth = dy.shape
    flat = xp.reshape(dy, (batch, height, width * depth))
    spread = xp.matmul(xp.matrix_transpose(rows), flat)
    spread = xp.reshape(spread, (batch, rows.shape[1], width, depth))
    return xp.matmul(xp.matrix_transpose(columns), spread)


def _resize_bilinear_grad(
    xp: Namespace, dy: Array, shape: Shape, corners: bool, half: bool
) -> Array:
    """TF's ResizeBilinearGrad, in the dtype of ``dy`` (the image's shape is ``shape``)."""
    device = _device_of(dy)
    rows = _bilinear_matrix(xp, shape[1], dy.shape[1], corners, half, device)
    columns = _bilinear_matrix(xp, shape[2], dy.shape[2], corners, half, device)
    return _resize_adjoint(
        xp, dy, xp.astype(rows, dy.dtype), xp.astype(columns, dy.dtype)
    )


def _resize_nearest(
    xp: Namespace, x: Array, size: Pair, corners: bool, half: bool
) -> Array:
    """TF's ResizeNearestNeighbor: the nearest element of ``x``, in its own dtype."""
    device = _device_of(x)
    rows = _nearest_taps(xp, x.shape[1], size[0], corners, half, device)
    columns = _nearest_taps(xp, x.shape[2], size[1], corners, half, device)
    return xp.take(xp.take(x, rows, axis=1), columns, axis=2)


def _resize_nearest_grad(
    xp: Namespace, dy: Array, shape: Shape, corners: bool, half: bool
) -> Array:
    """TF's ResizeNearestNeighborGrad: each output's ``dy`` added to its source."""
    device = _device_of(dy)
    rows = _nearest_taps(xp, shape[1], dy.shape[1], corners, half, device)
    columns = _nearest_taps(xp, shape[2], dy.shape[2], corners, half, device)
    heights = xp.arange(shape[1], dtype=xp.int64, device=device)
    widths = xp.arange(shape[2], dtype=xp.int64, device=device)
    to_rows = xp.astype(heights == rows[:, None], dy.dtype)
    to_columns = xp.astype(widths == columns[:, None], dy.dtype)
    return _resize_adjoint(xp, dy, to_rows, to_columns)
