"""Max and average pooling (NHWC) and their gradients, as in TF1."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ._types import HW, Array, Shape
from .conv import (
    _ROWS_MIN_BACKWARD,
    _ROWS_MIN_FORWARD,
    _add_channels,
    _add_windows,
    _conv2d,
    _conv2d_backprop_filter,
    _conv2d_bias,
    _image_chunks,
    _padded,
    _pads,
    _windows,
)
from .math import _relu


def _blocks(x: Array, ksize: HW, padding: str, fill: float) -> Array:
    """The windows of a pooling whose strides equal its ``ksize`` (windows that do not
    overlap): ``x``, padded with ``fill`` where SAME needs it, reshaped to (batch,
    out_height, kernel_height, out_width, kernel_width, channels), a view when no
    padding is needed."""
    n, h, w, c = np.shape(x)
    kh, kw = ksize
    pads = [(0, 0), _pads(h, kh, kh, padding), _pads(w, kw, kw, padding), (0, 0)]
    if pads != [(0, 0)] * 4:
        x = np.pad(x, pads, constant_values=fill)
    out_h, out_w = (h + sum(pads[1])) // kh, (w + sum(pads[2])) // kw
    return np.reshape(x[:, : out_h * kh, : out_w * kw], (n, out_h, kh, out_w, kw, c))


def _block_taps(blocks: Array) -> list[Array]:
    """The windows' taps of ``_blocks``, in row-major order: one array (view) per tap, of
    the pooled shape."""
    kh, kw = np.shape(blocks)[2], np.shape(blocks)[4]
    return [blocks[:, :, i, :, j] for i in range(kh) for j in range(kw)]


def _tap_max(taps: list[Array]) -> Array:
    """The elementwise maximum of the arrays ``taps`` (a window's taps), the first of
    equal values kept, a NaN kept."""
    top = np.array(taps[0])
    for tap in taps[1:]:
        np.maximum(top, tap, out=top)
    return top


def _block_max(blocks: Array) -> Array:
    """The maximum of each window of ``_blocks``, one kernel tap at a time (contiguous
    channels: faster than ``np.max`` over the two strided kernel axes)."""
    return _tap_max(_block_taps(blocks))


def _max_pool(x: Array, ksize: HW, strides: HW, padding: str) -> Array:
    """TF's max_pool: the maximum of each window (padding never wins)."""
    if tuple(strides) == tuple(ksize):
        return _block_max(_blocks(x, ksize, padding, -np.inf))
    return np.max(_windows(x, ksize, strides, (1, 1), padding, -np.inf), axis=(4, 5))


def _first_max(x: Array, ksize: HW, strides: HW, padding: str) -> NDArray[np.intp]:
    """In each pooling window of ``x``, the row-major position of its first maximum
    (where TF's max_pool gradient goes when several elements tie)."""
    windows = _windows(x, ksize, strides, (1, 1), padding, -np.inf)
    flat = np.reshape(windows, np.shape(windows)[:4] + (ksize[0] * ksize[1],))
    return np.argmax(flat, axis=-1)


def _max_pool_first_taps(
    x: Array, y: Array, ksize: HW, padding: str
) -> NDArray[np.uint8]:
    """For each window of a max-pool whose strides equal its ``ksize`` (windows that do not
    overlap), the row-major index of the tap that holds its first maximum (where TF's
    gradient goes when several tie; a NaN counts as a maximum, as in ``np.argmax``), as
    uint8. ``y`` is the pool's output, ``_max_pool(x, ...)``: each window is compared with
    it. Found in the forward, right after the pool, ``x`` is still in cache and its
    gradient (``_max_pool_grad_at_taps``) need not keep it."""
    return _first_max_taps(_block_taps(_blocks(x, ksize, padding, -np.inf)), y)


def _first_max_taps(window_taps: list[Array], y: Array) -> NDArray[np.uint8]:
    """The index in ``window_taps`` (arrays of ``y``'s shape, a window's taps) of the
    first that equals ``y``, their maximum (or is NaN), as uint8."""
    taps = np.zeros(np.shape(y), dtype=np.uint8)
    if np.isnan(np.sum(y)):
        # A NaN tap makes its window's maximum NaN, which equality does not find.
        found = np.zeros(np.shape(y), dtype=bool)
        for tap, window_tap in enumerate(window_taps):
            first = (np.equal(window_tap, y) | np.isnan(window_tap)) & ~found
            np.copyto(taps, tap, where=first)
            found |= first
        return taps
    # Without a NaN, a window's index counts the taps before its first maximum: the sum,
    # over every tap but the last, of "no maximum up to and including this tap".
    unclaimed = None
    for window_tap in window_taps[:-1]:
        first = np.equal(window_tap, y)
        if unclaimed is None:
            unclaimed = ~first
        else:
            unclaimed &= ~first
        taps += unclaimed.view(np.uint8)
    return taps


def _bits_at_tap(
    dy_bits: Array, taps: NDArray[np.uint8], tap: int, out: Array, at_tap: Array
) -> None:
    """``out`` (integers of dy's width) = ``dy_bits`` where ``taps == tap``, 0 elsewhere:
    the bits times 1 or 0 (``at_tap``: a bool array of dy's shape, reused), exact for any
    dy (inf, NaN and -0.0 pass as they are; elsewhere +0.0, as TF gives), and a fifth
    faster than ANDing them with a mask made from it."""
    np.equal(taps, tap, out=at_tap)
    np.multiply(dy_bits, at_tap, out=out)


def _max_pool_grad_at_taps(
    dy: Array, taps: NDArray[np.uint8], ksize: HW, padding: str, size: HW
) -> Array:
    """The gradient of a max-pool whose windows do not overlap, of an input of spatial
    ``size``: each window's ``dy`` at its ``_max_pool_first_taps`` tap, +0.0 elsewhere."""
    kh, kw = ksize
    n, out_h, out_w, c = np.shape(dy)
    grad = np.empty((n, out_h, kh, out_w, kw, c), dtype=dy.dtype)
    # Each tap gets dy's bits where it is its window's first maximum (faster than a
    # product or np.where into the strided taps).
    bits = np.dtype(f"i{np.dtype(dy.dtype).itemsize}")
    dy_bits = np.ascontiguousarray(dy).view(bits)
    at_tap = np.empty(np.shape(dy), dtype=bool)
    for tap in range(kh * kw):
        out = grad[:, :, tap // kw, :, tap % kw].view(bits)
        _bits_at_tap(dy_bits, taps, tap, out, at_tap)
    h, w = size
    top, left = _pads(h, kh, kh, padding)[0], _pads(w, kw, kw, padding)[0]
    grad = np.reshape(grad, (n, out_h * kh, out_w * kw, c))
    grad = grad[:, top : top + h, left : left + w]
    # VALID leaves the rows and columns past the last whole window unread: zeros.
    unread = (h - np.shape(grad)[1], w - np.shape(grad)[2])
    if unread != (0, 0):
        grad = np.pad(grad, [(0, 0), (0, unread[0]), (0, unread[1]), (0, 0)])
    return grad


# A max-pool whose windows do not overlap and tile a convolution's output exactly, right
# after the convolution's relu: when the convolution goes by im2col (few input channels, a
# network's first layer), its rows can be made grouped by the pool's taps (all the windows'
# first taps, then all their second ...). Each tap's output is then one contiguous array,
# which the pool, its first-maximum taps and the gradient compare and route whole, and the
# convolution's output never exists as NHWC.


def _pool_tap_planes(
    x: Array, kernel: HW, strides: HW, dilations: HW, padding: str, ksize: HW
) -> Array:
    """``_pool_tap_rows`` of one-channel ``x``, transposed: one row per kernel tap, each
    holding what that tap reads for every output of the convolution, the outputs grouped by
    the pool's taps. A pool tap and a kernel tap read their image at the sum of their
    offsets, so the copy goes in two steps: first the image at each distinct offset (a
    strided copy of a few planes), then each row from the plane at its offset, in runs as
    long as a pool tap's outputs (a contiguous copy). Gathering every element straight from
    the windows took 0.51 against 0.36 ms for 50 MNIST images by 5x5 kernels."""
    (kh, kw), (sh, sw), (dh, dw), (ph, pw) = kernel, strides, dilations, ksize
    extent = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    padded = _padded(x, extent, strides, padding, 0)[..., 0]
    n, padded_h, padded_w = np.shape(padded)
    pooled_h = ((padded_h - extent[0]) // sh + 1) // ph
    pooled_w = ((padded_w - extent[1]) // sw + 1) // pw
    # Offsets from a pool window's first input row (column): a pool tap's, then a kernel tap's.
    reach = ((ph - 1) * sh + extent[0], (pw - 1) * sw + extent[1])
    at_offsets = np.lib.stride_tricks.sliding_window_view(padded, reach, axis=(1, 2))
    at_offsets = at_offsets[:, :: ph * sh, :: pw * sw][:, :pooled_h, :pooled_w]
    planes = np.empty(reach + (n, pooled_h, pooled_w), padded.dtype)
    np.copyto(planes, np.moveaxis(at_offsets, (3, 4), (0, 1)))
    # (pool tap row, column, batch, pooled row, column, kernel tap row, column)
    taps = np.lib.stride_tricks.sliding_window_view(planes, extent, axis=(0, 1))
    taps = taps[::sh, ::sw, ..., ::dh, ::dw]
    rows = np.empty((kh, kw, ph, pw, n, pooled_h, pooled_w), padded.dtype)
    np.copyto(rows, np.moveaxis(taps, (5, 6), (0, 1)))
    return np.reshape(rows, (kh * kw, -1))


def _pool_tap_rows(
    x: Array, kernel: HW, strides: HW, dilations: HW, padding: str, ksize: HW
) -> Array:
    """The im2col rows of ``_patches(x, ...)`` grouped by the pool's taps: a matrix of
    (taps * batch * pooled height * pooled width) rows of kernel height * kernel width *
    channels, the rows of tap 0 first; the pool's windows must tile the convolution's
    output. One channel: a transposed view of the taps' planes, as in ``_patches``
    (``_pool_tap_planes``)."""
    if np.shape(x)[3] == 1:
        return _pool_tap_planes(x, kernel, strides, dilations, padding, ksize).T
    windows = _windows(x, kernel, strides, dilations, padding, 0)
    n, out_h, out_w, c = np.shape(windows)[:4]
    (kh, kw), (ph, pw) = kernel, ksize
    # (batch, pooled row, tap row, pooled column, tap column, channel, kernel row, column)
    split = np.reshape(windows, (n, out_h // ph, ph, out_w // pw, pw, c, kh, kw))
    rows = np.empty((ph, pw, n, out_h // ph, out_w // pw, kh, kw, c), windows.dtype)
    np.copyto(rows, np.transpose(split, (2, 4, 0, 1, 3, 6, 7, 5)))
    return np.reshape(rows, (-1, kh * kw * c))


def _pooled_im2col_sizes(
    x_shape: Shape,
    filters_shape: Shape,
    strides: HW,
    dilations: HW,
    padding: str,
    ksize: HW,
    rows_min: int,
) -> tuple[int, int] | None:
    """The pooled height and width, if a convolution of ``x_shape`` by ``filters_shape``
    goes by im2col (not kernel row by kernel row: ``rows_min`` is that path's least kernel
    width times channels) and windows of ``ksize`` tile its output (one window at least)
    exactly; else None."""
    kh, kw, c = filters_shape[:3]
    if tuple(strides) == (1, 1) == tuple(dilations) and kw * c >= rows_min:
        return None
    pooled = []
    for axis, k in ((0, kh), (1, kw)):
        extent, size = (k - 1) * dilations[axis] + 1, x_shape[1 + axis]
        pads = _pads(size, extent, strides[axis], padding)
        out = max(0, (size + sum(pads) - extent) // strides[axis] + 1)
        if out == 0 or out % ksize[axis]:
            return None
        pooled.append(out // ksize[axis])
    return pooled[0], pooled[1]


def _pooled_conv2d_relu(
    x: Array,
    filters: Array,
    bias: Array | None,
    strides: HW,
    dilations: HW,
    padding: str,
    ksize: HW,
    pool_padding: str,
) -> Iterator[tuple[Array, list[Array], Array | None]]:
    """``y = _max_pool(r, ksize, ksize, pool_padding)`` of ``r = relu(_conv2d(x, filters,
    ...) + bias)`` (``bias`` one value per output channel, or None), bit for bit, one chunk
    of images at a time: per chunk, y, the relu's values at each tap of the pool's windows
    (arrays of y's shape, ``_block_taps``) and the im2col rows made (or None). Rows grouped
    by the pool's taps where the pool tiles an im2col convolution's output
    (``_pool_tap_rows``): each tap's values one contiguous array, no NHWC relu output; else
    the convolution, relu and pool one after the other, as one chunk."""
    kh, kw, c, c_out = np.shape(filters)
    pooled = _pooled_im2col_sizes(
        np.shape(x), (kh, kw, c), strides, dilations, padding, ksize, _ROWS_MIN_FORWARD
    )
    if pooled is None:
        if bias is None:
            z = _conv2d(x, filters, strides, dilations, padding)
        else:
            z = _conv2d_bias(x, filters, bias, strides, dilations, padding)
        taps = _block_taps(_blocks(_relu(z, out=z), ksize, pool_padding, -np.inf))
        yield _tap_max(taps), taps, None
        return
    matrix = np.reshape(filters, (kh * kw * c, c_out))
    for images in _image_chunks(x, kh * kw * c):
        rows = _pool_tap_rows(x[images], (kh, kw), strides, dilations, padding, ksize)
        z = rows @ matrix
        if bias is not None:
            _add_channels(np.reshape(z, (-1,) + pooled + (c_out,)), bias)
        _relu(z, out=z)
        # (tap, batch, pooled height, pooled width, channel)
        taps = list(np.reshape(z, (ksize[0] * ksize[1], -1) + pooled + (c_out,)))
        yield _tap_max(taps), taps, rows


def _conv2d_relu_max_pool(
    x: Array,
    filters: Array,
    bias: Array | None,
    strides: HW,
    dilations: HW,
    padding: str,
    ksize: HW,
    pool_padding: str,
    keep_rows: bool,
) -> tuple[Array, NDArray[np.uint8], Array | None]:
    """``y = _max_pool(r, ksize, ksize, pool_padding)`` and ``_max_pool_first_taps(r, y,
    ksize, pool_padding)`` of ``r = relu(_conv2d(x, filters, ...) + bias)`` (``bias`` one
    value per output channel, or None), bit for bit, and the im2col rows it made if
    ``keep_rows`` (for ``_conv2d_backprop_filter_at_taps``; None if it made none, or more
    than one chunk of them); see ``_pooled_conv2d_relu``. Each chunk's taps are found
    while its values are in cache."""
    ys, first_taps, rows = [], [], []
    for y, taps, chunk_rows in _pooled_conv2d_relu(
        x, filters, bias, strides, dilations, padding, ksize, pool_padding
    ):
        ys.append(y)
        first_taps.append(_first_max_taps(taps, y))
        rows.append(chunk_rows)
    if len(ys) == 1:
        return ys[0], first_taps[0], rows[0] if keep_rows else None
    return np.concatenate(ys), np.concatenate(first_taps), None


def _conv2d_relu_max_pool_values(
    x: Array,
    filters: Array,
    bias: Array | None,
    strides: HW,
    dilations: HW,
    padding: str,
    ksize: HW,
    pool_padding: str,
) -> Array:
    """``_max_pool(relu(_conv2d(x, filters, ...) + bias), ksize, ksize, pool_padding)`` (as
    ``_conv2d_relu_max_pool``, bit for bit) where no gradient reads the pool's taps: a
    forward pass alone, such as a prediction or an evaluation."""
    ys = [
        y
        for y, _, _ in _pooled_conv2d_relu(
            x, filters, bias, strides, dilations, padding, ksize, pool_padding
        )
    ]
    return ys[0] if len(ys) == 1 else np.concatenate(ys)


def _conv2d_backprop_filter_at_taps(
    x: Array,
    dy: Array,
    taps: NDArray[np.uint8],
    kernel: HW,
    strides: HW,
    dilations: HW,
    padding: str,
    ksize: HW,
    pool_padding: str,
    size: HW,
    rows: Array | None,
) -> Array:
    """``_conv2d_backprop_filter(x, _max_pool_grad_at_taps(dy, taps, ksize, pool_padding,
    size), kernel, strides, dilations, padding)``: the gradient of a convolution's filter
    through a max-pool whose windows do not overlap (``dy`` the pooled gradient, ``taps``
    its ``_max_pool_first_taps``, ``size`` the convolution output's). Where the pool tiles
    an im2col convolution's output, each tap's rows (``_pool_tap_rows``; ``rows`` if the
    forward kept them, of the whole batch) times ``dy`` where that tap holds the maximum
    (+0.0 elsewhere): no gradient the size of the convolution's output; else the two
    kernels one after the other."""
    filters_shape = tuple(kernel) + (np.shape(x)[3], np.shape(dy)[3])
    tiled = _pooled_im2col_sizes(
        np.shape(x),
        filters_shape,
        strides,
        dilations,
        padding,
        ksize,
        _ROWS_MIN_BACKWARD,
    )
    if tiled is None:
        full = _max_pool_grad_at_taps(dy, taps, ksize, pool_padding, size)
        return _conv2d_backprop_filter(x, full, kernel, strides, dilations, padding)
    bits = np.dtype(f"i{np.dtype(dy.dtype).itemsize}")
    size_k = int(np.prod(filters_shape[:3]))
    grad = np.zeros((size_k, filters_shape[3]), dtype=np.result_type(x, dy))
    # The rows a forward kept are the whole batch's, one chunk.
    chunks = [slice(None)] if rows is not None else _image_chunks(x, size_k)
    for images in chunks:
        if len(chunks) > 1 or rows is None:
            rows = _pool_tap_rows(x[images], kernel, strides, dilations, padding, ksize)
        dy_rows = np.reshape(np.ascontiguousarray(dy[images]), (-1, filters_shape[3]))
        routed = np.empty_like(dy_rows)
        at_tap = np.empty(np.shape(dy_rows), dtype=bool)
        count = np.shape(dy_rows)[0]
        tap_rows = np.reshape(taps[images], (count, -1))
        for tap in range(ksize[0] * ksize[1]):
            _bits_at_tap(dy_rows.view(bits), tap_rows, tap, routed.view(bits), at_tap)
            grad += rows[tap * count : (tap + 1) * count].T @ routed
    return np.reshape(grad, filters_shape)


def _max_pool_grad(
    x: Array, y: Array, dy: Array, ksize: HW, strides: HW, padding: str
) -> Array:
    """The gradient of ``_max_pool``: each window's ``dy`` goes to its first maximum.
    ``y`` is ``_max_pool(x, ...)``, the forward's output (TF's MaxPoolGrad takes it too):
    windows that do not overlap are compared with it, not scanned again."""
    if tuple(strides) == tuple(ksize):
        first_taps = _max_pool_first_taps(x, y, ksize, padding)
        return _max_pool_grad_at_taps(dy, first_taps, ksize, padding, np.shape(x)[1:3])
    first = _first_max(x, ksize, strides, padding)
    taps = np.arange(ksize[0] * ksize[1])
    routed = np.where(first[..., None] == taps, dy[..., None], 0)
    columns = np.reshape(routed, np.shape(routed)[:4] + tuple(ksize))
    return _add_windows(columns, np.shape(x), strides, (1, 1), padding)


def _max_pool_grad_grad(
    x: Array, y: Array, g: Array, ksize: HW, strides: HW, padding: str
) -> Array:
    """The gradient of ``_max_pool_grad`` in ``dy``: ``g`` read at each window's first
    maximum (``y`` as in ``_max_pool_grad``)."""
    if tuple(strides) == tuple(ksize):
        taps = _max_pool_first_taps(x, y, ksize, padding)
        g_blocks = _blocks(g, ksize, padding, 0)
        result = np.zeros(np.shape(taps), dtype=g.dtype)
        for tap in range(ksize[0] * ksize[1]):
            g_tap = g_blocks[:, :, tap // ksize[1], :, tap % ksize[1]]
            np.copyto(result, g_tap, where=taps == tap)
        return result
    first = _first_max(x, ksize, strides, padding)
    windows = _windows(g, ksize, strides, (1, 1), padding, 0)
    flat = np.reshape(windows, np.shape(windows)[:4] + (ksize[0] * ksize[1],))
    return np.take_along_axis(flat, first[..., None], axis=-1)[..., 0]


def _pool_counts(
    shape: Shape, ksize: HW, strides: HW, padding: str, dtype: DTypeLike
) -> Array:
    """How many elements of an input of NHWC ``shape`` each pooling window covers."""
    ones = np.ones((1,) + tuple(shape[1:3]) + (1,), dtype=dtype)
    return np.sum(_windows(ones, ksize, strides, (1, 1), padding, 0), axis=(4, 5))


def _avg_pool(x: Array, ksize: HW, strides: HW, padding: str) -> Array:
    """TF's avg_pool: the mean of each window over its elements inside ``x``."""
    total = np.sum(_windows(x, ksize, strides, (1, 1), padding, 0), axis=(4, 5))
    return total / _pool_counts(np.shape(x), ksize, strides, padding, x.dtype)


def _avg_pool_grad(
    dy: Array, shape: Shape, ksize: HW, strides: HW, padding: str
) -> Array:
    """The gradient of ``_avg_pool``: each window's ``dy`` shared by its elements."""
    share = dy / _pool_counts(shape, ksize, strides, padding, dy.dtype)
    columns = np.broadcast_to(share[..., None, None], np.shape(share) + tuple(ksize))
    return _add_windows(columns, shape, strides, (1, 1), padding)
