# mypy: disable-error-code="index"
# (_add_windows indexes a total that starts as None: its loop runs at least once, which
# mypy cannot tell. A kernel's body takes no ignore comment: it would be copied.)
"""Convolutions (NHWC, HWIO filters) and their gradients, as in TF1."""

from __future__ import annotations

from ._types import Array, Namespace, Padding, Pair, Shape
from .namespace import _device_of, _native


def _pads(size: int, extent: int, stride: int, padding: Padding) -> tuple[int, int]:
    """TF's padding before and after one spatial axis: SAME puts the odd element after."""
    if padding == "VALID":
        return 0, 0
    total = max((-(-size // stride) - 1) * stride + extent - size, 0)
    return total // 2, total - total // 2


def _tf_pads(
    size: Pair, kernel: Pair, strides: Pair, dilations: Pair, padding: Padding
) -> tuple[tuple[int, int], tuple[int, int]]:
    """TF's padding of an image of spatial ``size``: ((top, bottom), (left, right))."""
    top_bottom, left_right = [
        _pads(int(size[a]), (kernel[a] - 1) * dilations[a] + 1, strides[a], padding)
        for a in (0, 1)
    ]
    return top_bottom, left_right


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _windows(
    xp: Namespace, x: Array, kernel: Pair, strides: Pair, dilations: Pair,
    padding: Padding, fill: float
) -> Array:
    """The windows of NHWC ``x`` a convolution or pooling reads, of shape
    (batch, out_height, out_width, channels, kernel_height, kernel_width): one strided slice
    per kernel tap, stacked."""
    device = _device_of(x)
    extent = [(k - 1) * d + 1 for k, d in zip(kernel, dilations)]
    pads = [_pads(x.shape[1 + a], extent[a], strides[a], padding) for a in (0, 1)]
    for axis, (before, after) in zip((1, 2), pads):
        if before or after:
            shape = list(x.shape)
            edges = []
            for count in (before, after):
                shape[axis] = count
                edges.append(xp.full(tuple(shape), fill, dtype=x.dtype, device=device))
            x = xp.concat([edges[0], x, edges[1]], axis=axis)
    out = [(x.shape[1 + a] - extent[a]) // strides[a] + 1 for a in (0, 1)]
    taps = []
    for i in range(kernel[0]):
        row = []
        for j in range(kernel[1]):
            top, left = i * dilations[0], j * dilations[1]
            rows = slice(top, top + (out[0] - 1) * strides[0] + 1, strides[0])
            cols = slice(left, left + (out[1] - 1) * strides[1] + 1, strides[1])
            row.append(x[:, rows, cols, :])
        taps.append(xp.stack(row, axis=-1))
    return xp.stack(taps, axis=-2)

# fmt: on


def _spread(
    xp: Namespace, value: Array, axis: int, start: int, step: int, size: int
) -> Array:
    """``value`` placed along ``axis`` at ``start``, ``start + step``, ... in zeros of length
    ``size`` (the adjoint of a strided slice)."""
    device = _device_of(value)
    count = value.shape[axis]
    if step > 1 and count > 1:
        shape = list(value.shape)
        shape.insert(axis + 1, step - 1)
        gaps = xp.zeros(tuple(shape), dtype=value.dtype, device=device)
        value = xp.concat([xp.expand_dims(value, axis=axis + 1), gaps], axis=axis + 1)
        merged = (
            list(value.shape[:axis]) + [count * step] + list(value.shape[axis + 2 :])
        )
        value = xp.reshape(value, tuple(merged))
        value = value[(slice(None),) * axis + (slice(0, (count - 1) * step + 1), ...)]
    elif step > 1:
        value = value[(slice(None),) * axis + (slice(0, count), ...)]
    shape = list(value.shape)
    parts = []
    for length in (start, size - start - value.shape[axis]):
        shape[axis] = length
        parts.append(xp.zeros(tuple(shape), dtype=value.dtype, device=device))
    return xp.concat([parts[0], value, parts[1]], axis=axis)


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _add_windows(
    xp: Namespace, columns: Array, shape: Shape, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array:
    """The adjoint of ``_windows``: adds each window's values back where they were read
    (one strided slice per kernel tap), giving an array of NHWC ``shape``."""
    kh, kw = columns.shape[4:]
    (h, w), (sh, sw), (dh, dw) = tuple(shape[1:3]), strides, dilations
    top, bottom = _pads(h, (kh - 1) * dh + 1, sh, padding)
    left, right = _pads(w, (kw - 1) * dw + 1, sw, padding)
    total = None
    for i in range(kh):
        for j in range(kw):
            tap = _spread(xp, columns[..., i, j], 1, i * dh, sh, top + h + bottom)
            tap = _spread(xp, tap, 2, j * dw, sw, left + w + right)
            total = tap if total is None else total + tap
    return total[:, top : top + h, left : left + w, :]


def _native_conv2d(
    xp: Namespace, x: Array, filters: Array, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array | None:
    """``_conv2d`` by torch's or JAX's own convolution, on ``x`` padded as TF pads; None
    for other libraries."""
    (top, bottom), (left, right) = pads = _tf_pads(
        x.shape[1:3], filters.shape[:2], strides, dilations, padding
    )
    torch = _native(xp, "torch", x, filters)
    if torch is not None:
        padded = torch.nn.functional.pad(x.permute(0, 3, 1, 2), (left, right, top, bottom))
        y = torch.nn.functional.conv2d(
            padded, filters.permute(3, 2, 0, 1), stride=strides, dilation=dilations
        )
        return y.permute(0, 2, 3, 1)
    jax = _native(xp, "jax", x, filters)
    if jax is not None:
        return jax.lax.conv_general_dilated(
            x, filters, strides, pads, rhs_dilation=dilations,
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
        )
    return None


def _native_conv2d_backprop_input(
    xp: Namespace, dy: Array, filters: Array, shape: Shape, strides: Pair,
    dilations: Pair, padding: Padding
) -> Array | None:
    """``_conv2d_backprop_input`` by torch's own (for the padded input, the padding then
    cut off) or by the transpose of JAX's convolution; None for other libraries."""
    h, w = int(shape[1]), int(shape[2])
    (top, bottom), (left, right) = _tf_pads(
        (h, w), filters.shape[:2], strides, dilations, padding
    )
    torch = _native(xp, "torch", dy, filters)
    if torch is not None:
        size = (dy.shape[0], filters.shape[2], top + h + bottom, left + w + right)
        dx = torch.nn.grad.conv2d_input(
            size, filters.permute(3, 2, 0, 1), dy.permute(0, 3, 1, 2),
            stride=strides, dilation=dilations,
        )
        return dx[:, :, top : top + h, left : left + w].permute(0, 2, 3, 1)
    jax = _native(xp, "jax", dy, filters)
    if jax is not None:
        x = jax.numpy.zeros((dy.shape[0], h, w, filters.shape[2]), dtype=dy.dtype)
        _, transpose = jax.vjp(
            lambda v: _native_conv2d(xp, v, filters, strides, dilations, padding), x
        )
        return transpose(dy)[0]
    return None


def _native_conv2d_backprop_filter(
    xp: Namespace, x: Array, dy: Array, kernel: Pair, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array | None:
    """``_conv2d_backprop_filter`` by torch's own (on ``x`` padded as TF pads) or by the
    transpose of JAX's convolution; None for other libraries."""
    torch = _native(xp, "torch", x, dy)
    if torch is not None:
        (top, bottom), (left, right) = _tf_pads(
            x.shape[1:3], kernel, strides, dilations, padding
        )
        padded = torch.nn.functional.pad(x.permute(0, 3, 1, 2), (left, right, top, bottom))
        size = (dy.shape[3], x.shape[3], kernel[0], kernel[1])
        dw = torch.nn.grad.conv2d_weight(
            padded, size, dy.permute(0, 3, 1, 2), stride=strides, dilation=dilations
        )
        return dw.permute(2, 3, 1, 0)
    jax = _native(xp, "jax", x, dy)
    if jax is not None:
        zeros = jax.numpy.zeros(tuple(kernel) + (x.shape[3], dy.shape[3]), dtype=x.dtype)
        _, transpose = jax.vjp(
            lambda f: _native_conv2d(xp, x, f, strides, dilations, padding), zeros
        )
        return transpose(dy)[0]
    return None


def _conv2d(
    xp: Namespace, x: Array, filters: Array, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array:
    """TF's conv2d: each window of NHWC ``x`` contracted with the HWIO ``filters``."""
    native = _native_conv2d(xp, x, filters, strides, dilations, padding)
    if native is not None:
        return native
    windows = _windows(xp, x, filters.shape[:2], strides, dilations, padding, 0)
    return xp.tensordot(windows, filters, axes=((4, 5, 3), (0, 1, 2)))


def _conv2d_backprop_input(
    xp: Namespace, dy: Array, filters: Array, shape: Shape, strides: Pair,
    dilations: Pair, padding: Padding
) -> Array:
    """The gradient of ``_conv2d`` in its input of ``shape`` (TF's conv2d_transpose)."""
    native = _native_conv2d_backprop_input(
        xp, dy, filters, shape, strides, dilations, padding
    )
    if native is not None:
        return native
    columns = xp.tensordot(dy, filters, axes=((3,), (3,)))  # (n, oh, ow, kh, kw, c)
    return _add_windows(
        xp, xp.moveaxis(columns, 5, 3), shape, strides, dilations, padding
    )


def _conv2d_backprop_filter(
    xp: Namespace, x: Array, dy: Array, kernel: Pair, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array:
    """The gradient of ``_conv2d`` in its filter of spatial size ``kernel``."""
    native = _native_conv2d_backprop_filter(xp, x, dy, kernel, strides, dilations, padding)
    if native is not None:
        return native
    windows = _windows(xp, x, kernel, strides, dilations, padding, 0)
    return xp.moveaxis(xp.tensordot(windows, dy, axes=((0, 1, 2), (0, 1, 2))), 0, 2)

# fmt: on
# fmt: off


# Parameters laid out by hand, formatting off: see _types.py.

def _depthwise_conv2d(
    xp: Namespace, x: Array, filters: Array, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array:
    """TF's depthwise_conv2d: each channel of NHWC ``x`` correlated with its own
    ``channel_multiplier`` filters of ``filters`` [height, width, channels, multiplier];
    output channel ``c * multiplier + m`` is channel ``c``'s ``m``-th."""
    kh, kw, c, m = filters.shape
    windows = _windows(xp, x, (kh, kw), strides, dilations, padding, 0)
    taps = [
        xp.expand_dims(windows[..., i, j], axis=4) * filters[i, j, ...]
        for i in range(kh)
        for j in range(kw)
    ]
    total = taps[0]
    for tap in taps[1:]:
        total = total + tap
    return xp.reshape(total, tuple(total.shape[:3]) + (c * m,))


def _depthwise_conv2d_backprop_input(
    xp: Namespace, dy: Array, filters: Array, shape: Shape, strides: Pair,
    dilations: Pair, padding: Padding
) -> Array:
    """The gradient of ``_depthwise_conv2d`` in its input of ``shape``."""
    kh, kw, c, m = filters.shape
    grouped = xp.reshape(dy, tuple(dy.shape[:3]) + (c, m))
    taps = []
    for i in range(kh):
        row = [xp.sum(grouped * filters[i, j, ...], axis=4) for j in range(kw)]
        taps.append(xp.stack(row, axis=-1))
    columns = xp.stack(taps, axis=-2)  # (n, oh, ow, c, kh, kw)
    return _add_windows(xp, columns, shape, strides, dilations, padding)


def _depthwise_conv2d_backprop_filter(
    xp: Namespace, x: Array, dy: Array, kernel: Pair, strides: Pair, dilations: Pair,
    padding: Padding
) -> Array:
    """The gradient of ``_depthwise_conv2d`` in its filter, ``kernel`` high and wide."""
    c = x.shape[3]
    windows = _windows(xp, x, kernel, strides, dilations, padding, 0)
    grouped = xp.reshape(dy, tuple(dy.shape[:3]) + (c, dy.shape[3] // c))
    taps = []
    for i in range(kernel[0]):
        row = []
        for j in range(kernel[1]):
            tap = xp.expand_dims(windows[..., i, j], axis=4) * grouped
            row.append(xp.sum(tap, axis=(0, 1, 2)))
        taps.append(xp.stack(row))
    return xp.stack(taps)

# fmt: on
