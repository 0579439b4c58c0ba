"""TF1's legacy image resizing (NHWC): ResizeBilinear, ResizeNearestNeighbor and their
gradients.

The source coordinate of each output row (column) is computed once per axis in float32,
as TF's kernels compute it: ``scale = in / out`` (``(in - 1) / (out - 1)`` with
``align_corners``), ``i * scale`` or, with ``half_pixel_centers``, ``(i + 0.5) * scale -
0.5`` (nearest: without the ``- 0.5``). Values are gathered at those rows and columns; a
gradient applies each axis's interpolation matrix, transposed, with one matrix product.
"""

from __future__ import annotations

import numpy as np

from ._types import HW, Array, Shape


def _resize_positions(size: int, out: int, corners: bool, half: bool) -> Array:
    """The float32 source coordinates of the ``out`` positions along one axis, as TF's:
    each position (plus 0.5 for half-pixel centers) times the scale."""
    if corners and out > 1:
        scale = np.float32(size - 1) / np.float32(out - 1)
    else:
        scale = np.float32(size) / np.float32(out)
    return (np.arange(out, dtype=np.float32) + np.float32(0.5 if half else 0.0)) * scale


def _bilinear_taps(size: int, out: int, corners: bool, half: bool) -> tuple:
    """TF's bilinear taps along one axis: the lower and upper source index of each
    output position and the float32 weight of the upper one."""
    source = _resize_positions(size, out, corners, half)
    if half:
        source = source - np.float32(0.5)
    below = np.floor(source)
    lower = np.maximum(below.astype(np.intp), 0)
    upper = np.minimum(np.ceil(source).astype(np.intp), size - 1)
    return lower, upper, source - below


def _nearest_taps(size: int, out: int, corners: bool, half: bool) -> Array:
    """TF's nearest source index of each output position along one axis (``roundf``,
    halves away from zero, with ``align_corners``; else the floor)."""
    source = _resize_positions(size, out, corners, half)
    whole = np.floor(source)
    if corners:  # the sources are not negative: round halves up
        whole = whole + (source - whole >= np.float32(0.5))
    return np.clip(whole.astype(np.intp), 0, size - 1)


def _resize_bilinear(x: Array, size: HW, corners: bool, half: bool) -> Array:
    """TF's ResizeBilinear: float32 results, each the lerp of the lerps along the width
    of the two rows around it (TF's order of operations, so the same rounding)."""
    top, bottom, down = _bilinear_taps(x.shape[1], size[0], corners, half)
    left, right, across = _bilinear_taps(x.shape[2], size[1], corners, half)
    across = across[:, None]
    rows = x.astype(np.float32)
    upper, lower = rows[:, top], rows[:, bottom]
    upper = upper[:, :, left] + (upper[:, :, right] - upper[:, :, left]) * across
    lower = lower[:, :, left] + (lower[:, :, right] - lower[:, :, left]) * across
    return upper + (lower - upper) * down[:, None, None]


def _bilinear_matrix(size: int, out: int, corners: bool, half: bool) -> Array:
    """The (out, size) float32 matrix of one axis's bilinear weights."""
    lower, upper, weight = _bilinear_taps(size, out, corners, half)
    columns = np.arange(size)
    matrix = (columns == lower[:, None]) * (np.float32(1) - weight)[:, None]
    return matrix + (columns == upper[:, None]) * weight[:, None]


def _resize_adjoint(dy: Array, rows: Array, columns: Array) -> Array:
    """``dy`` (batch, out_h, out_w, c) taken back through the per-axis matrices ``rows``
    (out_h, h) and ``columns`` (out_w, w): (batch, h, w, c)."""
    batch, height, width, depth = dy.shape
    flat = np.reshape(dy, (batch, height, width * depth))
    spread = np.matmul(rows.T, flat).reshape(batch, rows.shape[1], width, depth)
    return np.matmul(columns.T, spread)


def _resize_bilinear_grad(dy: Array, shape: Shape, corners: bool, half: bool) -> Array:
    """TF's ResizeBilinearGrad: each output's ``dy`` shared by its two or four taps, in
    the dtype of ``dy`` (the image's shape is ``shape``)."""
    rows = _bilinear_matrix(shape[1], dy.shape[1], corners, half)
    columns = _bilinear_matrix(shape[2], dy.shape[2], corners, half)
    return _resize_adjoint(dy, rows.astype(dy.dtype), columns.astype(dy.dtype))


def _resize_nearest(x: Array, size: HW, corners: bool, half: bool) -> Array:
    """TF's ResizeNearestNeighbor: the nearest element of ``x``, in its own dtype."""
    rows = _nearest_taps(x.shape[1], size[0], corners, half)
    columns = _nearest_taps(x.shape[2], size[1], corners, half)
    return x[:, rows][:, :, columns]


def _resize_nearest_grad(dy: Array, shape: Shape, corners: bool, half: bool) -> Array:
    """TF's ResizeNearestNeighborGrad: each output's ``dy`` added to the element it came
    from (the image of shape ``shape``)."""
    rows = _nearest_taps(shape[1], dy.shape[1], corners, half)
    columns = _nearest_taps(shape[2], dy.shape[2], corners, half)
    to_rows = (np.arange(shape[1]) == rows[:, None]).astype(dy.dtype)
    to_columns = (np.arange(shape[2]) == columns[:, None]).astype(dy.dtype)
    return _resize_adjoint(dy, to_rows, to_columns)
