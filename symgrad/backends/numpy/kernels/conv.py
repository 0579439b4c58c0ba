# mypy: no-strict-optional
# (_conv2d_backprop_filter sums from None, and mypy cannot tell that its loop over
# _image_chunks runs at least once; a "type: ignore" in a kernel's body would be
# copied into the generated modules.)
"""Convolutions (NHWC, HWIO filters) and their gradients, as in TF1."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from ._types import HW, Array, Shape


def _pads(size: int, extent: int, stride: int, padding: str) -> tuple[int, int]:
    """TF's padding before and after one spatial axis: SAME puts the odd element after."""
    if padding == "VALID":
        return 0, 0
    total = max((-(-size // stride) - 1) * stride + extent - size, 0)
    return total // 2, total - total // 2


def _padded(x: ArrayLike, extent: HW, strides: HW, padding: str, fill: float) -> Array:
    """NHWC ``x`` with the ``fill`` a convolution or pooling of windows spanning ``extent``
    rows and columns reads around it (``x`` itself, as an array, where it reads none)."""
    (top, bottom), (left, right) = (
        _pads(np.shape(x)[1 + a], extent[a], strides[a], padding) for a in (0, 1)
    )
    if not (top or bottom or left or right):
        return np.asarray(x)
    # One fill and one copy: np.pad costs about 80 µs of Python a call.
    n, h, w, c = np.shape(x)
    padded = np.empty((n, top + h + bottom, left + w + right, c), np.result_type(x))
    padded[...] = fill  # (-inf into integers is an OverflowError, as with np.pad)
    padded[:, top : top + h, left : left + w] = x
    return padded


def _windows(
    x: ArrayLike, kernel: HW, strides: HW, dilations: HW, padding: str, fill: float
) -> Array:
    """The windows of NHWC ``x`` a convolution or pooling reads, as a strided view of
    shape (batch, out_height, out_width, channels, kernel_height, kernel_width)."""
    extent = ((kernel[0] - 1) * dilations[0] + 1, (kernel[1] - 1) * dilations[1] + 1)
    padded = _padded(x, extent, strides, padding, fill)
    view = np.lib.stride_tricks.sliding_window_view(padded, extent, axis=(1, 2))
    return view[:, :: strides[0], :: strides[1], :, :: dilations[0], :: dilations[1]]


def _add_windows(
    columns: Array, shape: Shape, strides: HW, dilations: HW, padding: str
) -> Array:
    """The adjoint of ``_windows``: adds each window's values back where they were read
    (one strided slice per kernel tap), giving an array of NHWC ``shape``."""
    n, out_h, out_w, c, kh, kw = np.shape(columns)
    (h, w), (sh, sw), (dh, dw) = shape[1:3], strides, dilations
    top, bottom = _pads(h, (kh - 1) * dh + 1, sh, padding)
    left, right = _pads(w, (kw - 1) * dw + 1, sw, padding)
    total = np.zeros((n, top + h + bottom, left + w + right, c), dtype=columns.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + (out_h - 1) * sh + 1, sh)
            cols = slice(j * dw, j * dw + (out_w - 1) * sw + 1, sw)
            total[:, rows, cols] += columns[..., i, j]
    return total[:, top : top + h, left : left + w]


def _image_chunks(x: ArrayLike, row_size: int, elements: int = 2**24) -> list[slice]:
    """Slices of the batch of NHWC ``x``, so that the rows of ``row_size`` elements a
    convolution makes of a slice (at most one per pixel) stay under 16M elements (64 MB
    of float32): a large batch (a whole test set) never needs all of them in memory at
    once, and a training batch is usually one slice."""
    n, h, w = np.shape(x)[:3]
    step = max(1, elements // max(h * w * row_size, 1))
    return [slice(start, start + step) for start in range(0, max(n, 1), step)]


def _patches(
    x: ArrayLike, kernel: HW, strides: HW, dilations: HW, padding: str
) -> Array:
    """The windows of NHWC ``x`` copied once into rows (im2col): shape (batch, out_height,
    out_width, kernel_height * kernel_width * channels), each row in the order of an HWIO
    filter's first three axes, so that a convolution is one matrix product."""
    windows = _windows(x, kernel, strides, dilations, padding, 0)
    n, out_h, out_w, c = np.shape(windows)[:4]
    if c == 1:
        # One channel (a grayscale image): copying each tap's plane in turn is about 4x faster
        # than gathering the windows element by element. The rows are then a transposed view
        # of the taps' planes, which a matrix product reads as it is (no copy).
        taps = np.empty((kernel[0], kernel[1], n, out_h, out_w), dtype=windows.dtype)
        for i in range(kernel[0]):
            for j in range(kernel[1]):
                taps[i, j] = windows[:, :, :, 0, i, j]
        return np.moveaxis(
            np.reshape(taps, (kernel[0] * kernel[1], n, out_h, out_w)), 0, 3
        )
    rows = np.transpose(windows, (0, 1, 2, 4, 5, 3))
    return np.reshape(rows, (n, out_h, out_w, kernel[0] * kernel[1] * c))


# A stride-1 convolution is also computed kernel row by kernel row (``_correlate_by_rows``):
# the windows along the width (``_line_windows``) times each kernel row's filters, each
# product added in at its row offset; with few channels, one product with every kernel
# row's filters side by side, each row's part then added in (``_add_shifted_rows``). Those
# products are shorter than im2col's (for the second convolution of the MNIST CNN at batch
# 50, 9,800 x 160 by 160 x 320 against 9,800 x 800 by 800 x 64), which OpenBLAS ran about
# 20 % faster over the whole batch, and their rows are a fifth of im2col's to copy. With
# few channels the products are too thin and im2col is faster. The convolution goes by rows
# from this kernel width times channels on (measured on 3x3 and 5x5 kernels, 1 to 64
# channels):
_ROWS_MIN_FORWARD = 48
# and its gradients from this kernel width (filter) or height (input) times channels on.
_ROWS_MIN_BACKWARD = 16
# The images of one product: their rows stay under 256K elements (1 MB of float32, about a
# core's L2 cache), which ran faster than whole batches and bounds what a call allocates.
_ROWS_CHUNK = 2**18
# From this many output channels on, the products go one kernel row at a time: on the MNIST
# CNN's second convolution (64 channels) the forward took 11.6 against 12.2 ms so in the
# generated step's line profile (the step 0.2 ms less, median of 40 rounds); its input
# gradient (32 channels) made the step 0.5 ms slower so.
_ROW_PRODUCTS_MIN_CHANNELS = 64


def _zeros_around(x: Array, axis: int, before: int, after: int) -> Array:
    """NHWC ``x`` with ``before`` and ``after`` zeros along ``axis`` (``x`` itself when both
    are 0): one new array and one copy, where ``np.pad`` costs about 80 µs of Python a call."""
    if not before and not after:
        return x
    shape = list(np.shape(x))
    shape[axis] += before + after
    padded = np.zeros(shape, dtype=x.dtype)
    inside = [slice(None)] * 4
    inside[axis] = slice(before, before + np.shape(x)[axis])
    padded[tuple(inside)] = x
    return padded


def _line_windows(x: ArrayLike, extent: int, axis: int) -> Array:
    """The windows of ``extent`` elements of NHWC ``x`` along one spatial ``axis`` (1 or 2), as
    a view of shape (batch, height, width, extent, channels): reshaping a slice of it to
    (rows, extent * channels) copies each window into a row, its elements in order."""
    view = np.lib.stride_tricks.sliding_window_view(x, extent, axis=axis)
    return np.swapaxes(view, 3, 4)


def _rows(windows: Array) -> Array:
    """The windows of ``_line_windows`` (or a slice of them), one copied into each row."""
    return np.reshape(windows, (-1, np.shape(windows)[3] * np.shape(windows)[4]))


def _rows_by_input_row(windows: Array) -> Array:
    """The windows of ``_line_windows`` along the width [batch, input rows, width, kernel
    width, depth], one copied into each row as ``_rows`` does, but input row by input row
    (then image, then column): the rows of a range of input rows are then one block."""
    depth = np.shape(windows)[3] * np.shape(windows)[4]
    return np.reshape(np.ascontiguousarray(np.moveaxis(windows, 1, 0)), (-1, depth))


def _kernel_row_spans(
    kernel_rows: int, input_rows: int, height: int, offset: int
) -> tuple[list[tuple[int, int, int]], int | None]:
    """For each kernel row ``i``, the output rows ``first:last`` it reaches when output row
    ``y`` reads input row ``y + i - offset`` (as ``(i, first, last)``), and the first kernel
    row that reaches all ``height`` of them (None if none does)."""
    spans = [
        (i, max(0, offset - i), min(height, input_rows + offset - i))
        for i in range(kernel_rows)
    ]
    covering = next(
        (i for i, first, last in spans if (first, last) == (0, height)), None
    )
    return spans, covering


def _add_shifted_rows(parts: Array, total: Array, offset: int) -> None:
    """``parts`` [batch, rows, width, kernel_height, channels] holds what each kernel row
    ``i`` makes of each input row: sets each row ``y`` of ``total`` [batch, height, width,
    channels] to the sum, over ``i``, of part ``i`` of input row ``y + i - offset`` (rows
    outside the input add nothing). ``total`` may hold anything before: a kernel row that
    reaches every row of it (the middle one, for SAME) is copied in first, not added to
    zeros."""
    height = np.shape(total)[1]
    spans, covering = _kernel_row_spans(
        np.shape(parts)[3], np.shape(parts)[1], height, offset
    )
    if covering is None:
        total[...] = 0
    else:
        np.copyto(
            total, parts[:, covering - offset : covering - offset + height, :, covering]
        )
    for i, first, last in spans:
        if last > first and i != covering:
            total[:, first:last] += parts[
                :, first + i - offset : last + i - offset, :, i
            ]


def _add_row_products(
    windows: Array, per_kernel_row: Array, total: Array, offset: int
) -> None:
    """Sets each row ``y`` of ``total`` [batch, height, width, channels] to the sum, over
    the kernel rows ``i``, of input row ``y + i - offset`` of ``windows`` (``_line_windows``
    along the width: [batch, input rows, width, kernel width, depth]) times
    ``per_kernel_row[i]`` [kernel width * depth, channels]; rows outside the input add
    nothing. The windows are copied input row by input row (then image, then column), so
    that the rows a kernel row reads are one block: one product per kernel row over just
    the input rows whose output it reaches, added up in a buffer laid out the same way
    (the kernel row that reaches every output row writes its product there first, the
    others add theirs in order), which is then copied into ``total``."""
    count, input_rows, width = np.shape(windows)[:3]
    kernel_rows, channels = np.shape(per_kernel_row)[0], np.shape(per_kernel_row)[2]
    height = np.shape(total)[1]
    rows = _rows_by_input_row(windows)
    per_row = count * width  # the rows of one input or output row
    by_row = np.empty((height, count, width, channels), dtype=total.dtype)
    flat = np.reshape(by_row, (-1, channels))
    spans, covering = _kernel_row_spans(kernel_rows, input_rows, height, offset)
    if covering is None:
        flat[...] = 0
    else:
        start = (covering - offset) * per_row
        np.matmul(
            rows[start : start + height * per_row], per_kernel_row[covering], out=flat
        )
    for i, first, last in spans:
        if last > first and i != covering:
            inputs = rows[
                (first + i - offset) * per_row : (last + i - offset) * per_row
            ]
            flat[first * per_row : last * per_row] += inputs @ per_kernel_row[i]
    np.copyto(total, np.moveaxis(by_row, 0, 1))


def _correlate_by_rows(
    windows: Array,
    per_kernel_row: Array,
    total: Array,
    offset: int,
    bias: Array | None = None,
) -> None:
    """Sets each row ``y`` of NHWC ``total`` to the sum, over the kernel rows ``i``, of
    input row ``y + i - offset`` of ``windows`` (``_line_windows`` along the width) times
    ``per_kernel_row[i]`` [kernel width * depth, channels], plus ``bias`` (one value per
    channel, added to each chunk of images as it is made): a stride-1 convolution, or its
    input's gradient, kernel row by kernel row. From ``_ROW_PRODUCTS_MIN_CHANNELS`` output
    channels on, one product per kernel row (``_add_row_products``); with fewer, those
    products are too thin, and one product takes every kernel row side by side and is added
    back at each row's offset (``_add_shifted_rows``)."""
    kernel_rows, depth, channels = np.shape(per_kernel_row)
    if channels >= _ROW_PRODUCTS_MIN_CHANNELS:
        for images in _image_chunks(windows, depth + channels, _ROWS_CHUNK):
            _add_row_products(windows[images], per_kernel_row, total[images], offset)
            if bias is not None:
                _add_channels(total[images], bias)
        return
    side_by_side = np.reshape(
        np.transpose(per_kernel_row, (1, 0, 2)), (depth, kernel_rows * channels)
    )
    for images in _image_chunks(
        windows, max(depth, kernel_rows * channels), _ROWS_CHUNK
    ):
        products = _rows(windows[images]) @ side_by_side
        parts = np.reshape(
            products, np.shape(windows[images])[:3] + (kernel_rows, channels)
        )
        _add_shifted_rows(parts, total[images], offset)
        if bias is not None:
            _add_channels(total[images], bias)


def _conv2d_by_rows(
    x: Array, filters: Array, padding: str, bias: Array | None = None
) -> Array:
    """``_conv2d`` with strides and dilations 1, kernel row by kernel row; ``bias`` (if
    given) added to each chunk of images as it is made."""
    kh, kw, c, c_out = np.shape(filters)
    n, h, w = np.shape(x)[:3]
    top, bottom = _pads(h, kh, 1, padding)
    left, right = _pads(w, kw, 1, padding)
    out_shape = (n, top + h + bottom - kh + 1, left + w + right - kw + 1, c_out)
    y = np.empty(out_shape, dtype=np.result_type(x, filters))
    windows = _line_windows(_zeros_around(x, 2, left, right), kw, 2)
    _correlate_by_rows(windows, np.reshape(filters, (kh, kw * c, c_out)), y, top, bias)
    return y


def _add_channels(y: Array, bias: Array) -> None:
    """``y += bias`` for NHWC ``y`` and one value per channel, over rows of y's width
    times its channels: NumPy adds a vector as short as the channels one short inner loop
    at a time (0.34 against 0.21 ms on 50x28x28x32 float32)."""
    width = np.shape(y)[2] * np.shape(y)[3]
    if y.flags.c_contiguous and width:
        rows = np.reshape(y, (-1, width))
        np.add(rows, np.tile(bias, np.shape(y)[2]), out=rows)
    else:
        y += bias


def _conv2d_backprop_input_by_rows(
    dy: Array, filters: Array, shape: Shape, padding: str
) -> Array:
    """``_conv2d_backprop_input`` with strides and dilations 1: the correlation of ``dy``
    (padded by what the convolution's windows left out) with the filters turned half a
    turn, kernel row by kernel row."""
    kh, kw, c, c_out = np.shape(filters)
    h, w = shape[1:3]
    top, left = _pads(h, kh, 1, padding)[0], _pads(w, kw, 1, padding)[0]
    out_w = np.shape(dy)[2]
    # Kernel row i of the filters turned half a turn: (column, output channel) by channel.
    turned = np.transpose(filters[::-1, ::-1], (0, 1, 3, 2))
    dx = np.empty((np.shape(dy)[0], h, w, c), dtype=np.result_type(dy, filters))
    windows = _line_windows(
        _zeros_around(dy, 2, kw - 1 - left, w + left - out_w), kw, 2
    )
    _correlate_by_rows(
        windows, np.reshape(turned, (kh, kw * c_out, c)), dx, kh - 1 - top
    )
    return dx


def _conv2d_backprop_filter_by_rows(
    x: Array, dy: Array, kernel: HW, padding: str
) -> Array:
    """``_conv2d_backprop_filter`` with strides and dilations 1, kernel row by kernel row:
    row ``i`` of the gradient is ``x``'s windows along the width on the input rows that
    kernel row reads, times ``dy`` on the output rows they reach. A chunk of images is
    copied input row by input row (then image, then column), so that each kernel row's
    rows, and ``dy``'s, are one block and its gradient one product. Against one product of
    the windows with ``dy``'s windows along the height (zeros where a kernel row reaches
    past the input), this multiplies none of those zeros and copies ``dy`` once, not once
    per kernel row: the second convolution of the MNIST CNN 11.2 against 10.7 ms, and
    0.74-1.05 times the time on 3x3 and 5x5 kernels of 8 to 128 channels."""
    (kh, kw), c, c_out = kernel, np.shape(x)[3], np.shape(dy)[3]
    h, w = np.shape(x)[1:3]
    top, (left, right) = _pads(h, kh, 1, padding)[0], _pads(w, kw, 1, padding)
    out_h, out_w = np.shape(dy)[1:3]
    along_width = _line_windows(_zeros_around(x, 2, left, right), kw, 2)
    grad = np.zeros((kh, kw * c, c_out), dtype=np.result_type(x, dy))
    spans = _kernel_row_spans(kh, h, out_h, top)[0]  # output row y reads y + i - top
    for images in _image_chunks(x, kw * c + c_out, _ROWS_CHUNK):
        rows = _rows_by_input_row(along_width[images])
        # dy output row by output row (then image, then column), as the rows.
        dy_rows = np.reshape(
            np.ascontiguousarray(np.moveaxis(dy[images], 1, 0)), (-1, c_out)
        )
        per_row = np.shape(along_width[images])[0] * out_w  # the rows of one row
        for i, first, last in spans:
            if last > first:
                inputs = rows[(first + i - top) * per_row : (last + i - top) * per_row]
                grad[i] += inputs.T @ dy_rows[first * per_row : last * per_row]
    return np.reshape(grad, (kh, kw, c, c_out))


def _conv2d(
    x: Array, filters: Array, strides: HW, dilations: HW, padding: str
) -> Array:
    """TF's conv2d: each window of NHWC ``x`` contracted with the HWIO ``filters``."""
    kh, kw, c, c_out = np.shape(filters)
    if tuple(strides) == (1, 1) == tuple(dilations) and kw * c >= _ROWS_MIN_FORWARD:
        return _conv2d_by_rows(x, filters, padding)
    matrix = np.reshape(filters, (kh * kw * c, c_out))
    parts = []
    for images in _image_chunks(x, kh * kw * c):
        patches = _patches(x[images], (kh, kw), strides, dilations, padding)
        rows = np.reshape(patches, (-1, kh * kw * c)) @ matrix
        parts.append(np.reshape(rows, np.shape(patches)[:3] + (c_out,)))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _conv2d_bias(
    x: Array, filters: Array, bias: Array, strides: HW, dilations: HW, padding: str
) -> Array:
    """``_conv2d(x, filters, ...) + bias``, ``bias`` one value per output channel of the
    convolution's dtype: added to each chunk of images while it is in cache (kernel row by
    kernel row), else along rows as long as the output's width times its channels."""
    kw, c = np.shape(filters)[1:3]
    if tuple(strides) == (1, 1) == tuple(dilations) and kw * c >= _ROWS_MIN_FORWARD:
        return _conv2d_by_rows(x, filters, padding, bias)
    y = _conv2d(x, filters, strides, dilations, padding)
    _add_channels(y, bias)
    return y


def _conv2d_backprop_input(
    dy: Array, filters: Array, shape: Shape, strides: HW, dilations: HW, padding: str
) -> Array:
    """The gradient of ``_conv2d`` in its input of ``shape`` (TF's conv2d_transpose): what
    each kernel tap read, as one batched product whose blocks (one per tap) are contiguous,
    each then added back where its tap read."""
    kh, kw, c, c_out = np.shape(filters)
    if tuple(strides) == (1, 1) == tuple(dilations) and kh * c >= _ROWS_MIN_BACKWARD:
        return _conv2d_backprop_input_by_rows(dy, filters, shape, padding)
    per_tap = np.swapaxes(np.reshape(filters, (kh * kw, c, c_out)), 1, 2)
    (h, w), (sh, sw), (dh, dw) = shape[1:3], strides, dilations
    top, bottom = _pads(h, (kh - 1) * dh + 1, sh, padding)
    left, right = _pads(w, (kw - 1) * dw + 1, sw, padding)
    parts = []
    for images in _image_chunks(dy, kh * kw * c):
        n, out_h, out_w = np.shape(dy[images])[:3]
        taps = np.matmul(np.reshape(dy[images], (1, -1, c_out)), per_tap)
        taps = np.reshape(taps, (kh, kw, n, out_h, out_w, c))
        total = np.zeros((n, top + h + bottom, left + w + right, c), dtype=taps.dtype)
        for i in range(kh):
            for j in range(kw):
                rows = slice(i * dh, i * dh + (out_h - 1) * sh + 1, sh)
                cols = slice(j * dw, j * dw + (out_w - 1) * sw + 1, sw)
                total[:, rows, cols] += taps[i, j]
        parts.append(total[:, top : top + h, left : left + w])
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _conv2d_backprop_filter(
    x: Array, dy: Array, kernel: HW, strides: HW, dilations: HW, padding: str
) -> Array:
    """The gradient of ``_conv2d`` in its filter of spatial size ``kernel``."""
    unit = tuple(strides) == (1, 1) == tuple(dilations)
    if unit and kernel[1] * np.shape(x)[3] >= _ROWS_MIN_BACKWARD:
        return _conv2d_backprop_filter_by_rows(x, dy, kernel, padding)
    size = kernel[0] * kernel[1] * np.shape(x)[3]
    grad = None
    for images in _image_chunks(x, size):
        patches = _patches(x[images], kernel, strides, dilations, padding)
        rows = np.reshape(patches, (-1, size))
        part = rows.T @ np.reshape(dy[images], (-1, np.shape(dy)[3]))
        grad = part if grad is None else grad + part
    return np.reshape(grad, tuple(kernel) + (np.shape(x)[3], np.shape(dy)[3]))


def _depthwise_conv2d(
    x: Array, filters: Array, strides: HW, dilations: HW, padding: str
) -> Array:
    """TF's depthwise_conv2d: each channel of NHWC ``x`` correlated with its own
    ``channel_multiplier`` filters of ``filters`` [height, width, channels, multiplier];
    output channel ``c * multiplier + m`` is channel ``c``'s ``m``-th."""
    kh, kw, c, m = np.shape(filters)
    windows = _windows(x, (kh, kw), strides, dilations, padding, 0)
    y = np.einsum("nhwcij,ijcm->nhwcm", windows, filters)
    return np.reshape(y, np.shape(y)[:3] + (c * m,))


def _depthwise_conv2d_backprop_input(
    dy: Array, filters: Array, shape: Shape, strides: HW, dilations: HW, padding: str
) -> Array:
    """The gradient of ``_depthwise_conv2d`` in its input of ``shape``."""
    c, m = np.shape(filters)[2:]
    grouped = np.reshape(dy, np.shape(dy)[:3] + (c, m))
    columns = np.einsum("nhwcm,ijcm->nhwcij", grouped, filters)
    return _add_windows(columns, shape, strides, dilations, padding)


def _depthwise_conv2d_backprop_filter(
    x: Array, dy: Array, kernel: HW, strides: HW, dilations: HW, padding: str
) -> Array:
    """The gradient of ``_depthwise_conv2d`` in its filter, ``kernel`` high and wide."""
    c = np.shape(x)[3]
    windows = _windows(x, kernel, strides, dilations, padding, 0)
    grouped = np.reshape(dy, np.shape(dy)[:3] + (c, np.shape(dy)[3] // c))
    return np.einsum("nhwcij,nhwcm->ijcm", windows, grouped)
