"""Max and average pooling (NHWC) and their gradients, as in TF1."""

from __future__ import annotations

from collections.abc import Iterator

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


def _first_max_taps(blocks: Array, top: Array) -> Iterator[tuple[int, int, Array]]:
    """``_first_max`` for the windows of ``_blocks`` whose maxima are ``top``: for each
    kernel tap (i, j) in row-major order, a mask of the windows whose first maximum the
    tap holds (a NaN counts as a maximum, as in ``np.argmax``)."""
    kh, kw = np.shape(blocks)[2], np.shape(blocks)[4]
    # A NaN tap makes its window's maximum NaN: without one, equality alone finds the
    # taps, and the last tap holds the maximum of every window no earlier tap holds.
    nan_free = not np.isnan(np.sum(top))
    free = None  # the windows whose first maximum is still to come (None: all)
    for i in range(kh):
        for j in range(kw):
            tap = blocks[:, :, i, :, j]
            if nan_free and free is not None and (i, j) == (kh - 1, kw - 1):
                yield i, j, free
                return
            first = np.equal(tap, top)
            if not nan_free:
                first |= np.isnan(tap)
            if free is None:
                free = ~first
            else:
                first &= free
                free ^= first  # a later tie in the same window loses
            yield i, j, first


def _max_pool_grad(
    x: Array, y: Array, dy: Array, ksize: HW, strides: HW, padding: str
) -> Array:
    """The gradient of ``_max_pool``: each window's ``dy`` goes to its first maximum.
    ``y`` is ``_max_pool(x, ...)``, the forward's output (TF's MaxPoolGrad takes it too):
    windows that do not overlap are compared with it, not scanned again."""
    if tuple(strides) == tuple(ksize):
        blocks = _blocks(x, ksize, padding, -np.inf)
        grad = np.empty(np.shape(blocks), dtype=dy.dtype)
        # Each tap gets dy's bits ANDed with an all-ones (its window's first maximum) or
        # all-zeros mask: exact for any dy (inf, NaN and -0.0 pass as they are, the others
        # get TF's +0.0), and faster than a product or np.where into the strided taps.
        bits = np.dtype(f"i{np.dtype(dy.dtype).itemsize}")
        dy_bits = np.ascontiguousarray(dy).view(bits)
        mask = np.empty(np.shape(dy), dtype=bits)
        for i, j, first in _first_max_taps(blocks, y):
            np.negative(first.view(np.int8), out=mask)  # True -> -1: all bits set
            np.bitwise_and(dy_bits, mask, out=grad[:, :, i, :, j].view(bits))
        n, out_h, kh, out_w, kw, c = np.shape(grad)
        h, w = np.shape(x)[1:3]
        top, left = _pads(h, kh, kh, padding)[0], _pads(w, kw, kw, padding)[0]
        grad = np.reshape(grad, (n, out_h * kh, out_w * kw, c))
        grad = grad[:, top : top + h, left : left + w]
        # VALID leaves the rows and columns past the last whole window unread: zeros.
        unread = (h - np.shape(grad)[1], w - np.shape(grad)[2])
        if unread != (0, 0):
            grad = np.pad(grad, [(0, 0), (0, unread[0]), (0, unread[1]), (0, 0)])
        return grad
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
        blocks = _blocks(x, ksize, padding, -np.inf)
        g_blocks = _blocks(g, ksize, padding, 0)
        n, out_h, _, out_w, _, c = np.shape(g_blocks)
        result = np.zeros((n, out_h, out_w, c), dtype=g.dtype)
        for i, j, first in _first_max_taps(blocks, y):
            np.copyto(result, g_blocks[:, :, i, :, j], where=first)
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
