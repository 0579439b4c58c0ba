"""Max and average pooling (NHWC) and their gradients, as in TF1."""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike, NDArray

from ._types import HW, Array, Shape
from .conv import _add_windows, _pads, _windows


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


def _block_max(blocks: Array) -> Array:
    """The maximum of each window of ``_blocks``, one kernel tap at a time (contiguous
    channels: faster than ``np.max`` over the two strided kernel axes)."""
    top = np.array(blocks[:, :, 0, :, 0])
    for i in range(np.shape(blocks)[2]):
        for j in range(np.shape(blocks)[4]):
            if i or j:
                np.maximum(top, blocks[:, :, i, :, j], out=top)
    return top


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
    blocks = _blocks(x, ksize, padding, -np.inf)
    kh, kw = ksize
    taps = np.zeros(np.shape(y), dtype=np.uint8)
    if np.isnan(np.sum(y)):
        # A NaN tap makes its window's maximum NaN, which equality does not find.
        found = np.zeros(np.shape(y), dtype=bool)
        for tap in range(kh * kw):
            window_tap = blocks[:, :, tap // kw, :, tap % kw]
            first = (np.equal(window_tap, y) | np.isnan(window_tap)) & ~found
            np.copyto(taps, tap, where=first)
            found |= first
        return taps
    # Without a NaN, a window's index counts the taps before its first maximum: the sum,
    # over every tap but the last, of "no maximum up to and including this tap".
    unclaimed = None
    for tap in range(kh * kw - 1):
        first = np.equal(blocks[:, :, tap // kw, :, tap % kw], y)
        if unclaimed is None:
            unclaimed = ~first
        else:
            unclaimed &= ~first
        taps += unclaimed.view(np.uint8)
    return taps


def _max_pool_grad_at_taps(
    dy: Array, taps: NDArray[np.uint8], ksize: HW, padding: str, size: HW
) -> Array:
    """The gradient of a max-pool whose windows do not overlap, of an input of spatial
    ``size``: each window's ``dy`` at its ``_max_pool_first_taps`` tap, +0.0 elsewhere."""
    kh, kw = ksize
    n, out_h, out_w, c = np.shape(dy)
    grad = np.empty((n, out_h, kh, out_w, kw, c), dtype=dy.dtype)
    # Each tap gets dy's bits ANDed with an all-ones (its window's first maximum) or
    # all-zeros mask: exact for any dy (inf, NaN and -0.0 pass as they are, the others get
    # TF's +0.0), and faster than a product or np.where into the strided taps.
    bits = np.dtype(f"i{np.dtype(dy.dtype).itemsize}")
    dy_bits = np.ascontiguousarray(dy).view(bits)
    at_tap = np.empty(np.shape(dy), dtype=bool)
    mask = np.empty(np.shape(dy), dtype=bits)
    for tap in range(kh * kw):
        np.equal(taps, tap, out=at_tap)
        np.negative(at_tap.view(np.int8), out=mask)  # True -> -1: all bits set
        np.bitwise_and(dy_bits, mask, out=grad[:, :, tap // kw, :, tap % kw].view(bits))
    h, w = size
    top, left = _pads(h, kh, kh, padding)[0], _pads(w, kw, kw, padding)[0]
    grad = np.reshape(grad, (n, out_h * kh, out_w * kw, c))
    grad = grad[:, top : top + h, left : left + w]
    # VALID leaves the rows and columns past the last whole window unread: zeros.
    unread = (h - np.shape(grad)[1], w - np.shape(grad)[2])
    if unread != (0, 0):
        grad = np.pad(grad, [(0, 0), (0, unread[0]), (0, unread[1]), (0, 0)])
    return grad


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
