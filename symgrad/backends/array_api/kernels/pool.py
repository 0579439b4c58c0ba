"""Max and average pooling (NHWC) and their gradients, as in TF1."""

from __future__ import annotations

import math

from ._types import Array, Device, DType, Namespace, Padding, Pair, Shape
from .conv import _add_windows, _tf_pads, _windows
from .namespace import _device_of, _native


def _max_pool(
    xp: Namespace, x: Array, ksize: Pair, strides: Pair, padding: Padding
) -> Array:
    """TF's max_pool: the maximum of each window (padding never wins)."""
    torch = _native(xp, "torch", x)
    if torch is not None:  # torch's own, on x padded with -inf as TF pads
        (top, bottom), (left, right) = _tf_pads(
            x.shape[1:3], ksize, strides, (1, 1), padding
        )
        padded = torch.nn.functional.pad(
            x.permute(0, 3, 1, 2), (left, right, top, bottom), value=-math.inf
        )
        return torch.nn.functional.max_pool2d(padded, ksize, strides).permute(
            0, 2, 3, 1
        )
    jax = _native(xp, "jax", x)
    if jax is not None:  # JAX's own window reduction, padding with -inf as TF pads
        pads = _tf_pads(x.shape[1:3], ksize, strides, (1, 1), padding)
        return jax.lax.reduce_window(
            x,
            jax.numpy.asarray(-math.inf, dtype=x.dtype),
            jax.lax.max,
            (1, *ksize, 1),
            (1, *strides, 1),
            ((0, 0), *pads, (0, 0)),
        )
    return xp.max(
        _windows(xp, x, ksize, strides, (1, 1), padding, -math.inf), axis=(4, 5)
    )


def _first_max(
    xp: Namespace, x: Array, ksize: Pair, strides: Pair, padding: Padding
) -> Array:
    """Whether each tap of each pooling window of ``x`` is the window's first maximum (where
    TF's max_pool gradient goes when several elements tie), of shape (..., taps)."""
    windows = _windows(xp, x, ksize, strides, (1, 1), padding, -math.inf)
    flat = xp.reshape(windows, tuple(windows.shape[:4]) + (ksize[0] * ksize[1],))
    first = xp.argmax(flat, axis=-1)
    return xp.expand_dims(first, axis=-1) == xp.arange(
        ksize[0] * ksize[1], device=_device_of(x)
    )


# Parameters laid out by hand, formatting off: see _types.py.
# fmt: off

def _max_pool_grad(
    xp: Namespace, x: Array, y: Array, dy: Array, ksize: Pair, strides: Pair,
    padding: Padding
) -> Array:
    """The gradient of ``_max_pool``: each window's ``dy`` goes to its first maximum.
    ``y``, the forward's output (the NumPy kernel compares windows with it), is not
    needed here: argmax and torch's own pooling find the first maxima themselves."""
    # torch's own pooling keeps a window's first maximum, a NaN counting as one, as TF does
    # (JAX's gradient of its window maximum lets a later element win over a NaN).
    torch = _native(xp, "torch", x, dy)
    if torch is not None:
        (top, bottom), (left, right) = _tf_pads(
            x.shape[1:3], ksize, strides, (1, 1), padding
        )
        padded = torch.nn.functional.pad(
            x.permute(0, 3, 1, 2), (left, right, top, bottom), value=-math.inf
        )
        _, where = torch.nn.functional.max_pool2d(
            padded, ksize, strides, return_indices=True
        )
        grad = torch.ops.aten.max_pool2d_with_indices_backward(
            dy.permute(0, 3, 1, 2), padded, ksize, strides, (0, 0), (1, 1), False, where
        )
        h, w = x.shape[1], x.shape[2]
        return grad[:, :, top : top + h, left : left + w].permute(0, 2, 3, 1)
    first = _first_max(xp, x, ksize, strides, padding)
    routed = xp.where(first, xp.expand_dims(dy, axis=-1), xp.zeros_like(dy[..., None]))
    columns = xp.reshape(routed, tuple(routed.shape[:4]) + tuple(ksize))
    return _add_windows(xp, columns, x.shape, strides, (1, 1), padding)


def _max_pool_grad_grad(
    xp: Namespace, x: Array, y: Array, g: Array, ksize: Pair, strides: Pair,
    padding: Padding
) -> Array:
    """The gradient of ``_max_pool_grad`` in ``dy``: ``g`` read at each window's first
    maximum (``y`` as in ``_max_pool_grad``)."""
    first = _first_max(xp, x, ksize, strides, padding)
    windows = _windows(xp, g, ksize, strides, (1, 1), padding, 0)
    flat = xp.reshape(windows, tuple(windows.shape[:4]) + (ksize[0] * ksize[1],))
    return xp.sum(xp.where(first, flat, xp.zeros_like(flat)), axis=-1)


def _pool_counts(
    xp: Namespace, shape: Shape, ksize: Pair, strides: Pair, padding: Padding,
    dtype: DType, device: Device
) -> Array:
    """How many elements of an input of NHWC ``shape`` each pooling window covers."""
    ones = xp.ones((1,) + tuple(shape[1:3]) + (1,), dtype=dtype, device=device)
    return xp.sum(_windows(xp, ones, ksize, strides, (1, 1), padding, 0), axis=(4, 5))

# fmt: on


def _avg_pool(
    xp: Namespace, x: Array, ksize: Pair, strides: Pair, padding: Padding
) -> Array:
    """TF's avg_pool: the mean of each window over its elements inside ``x``."""
    total = xp.sum(_windows(xp, x, ksize, strides, (1, 1), padding, 0), axis=(4, 5))
    counts = _pool_counts(xp, x.shape, ksize, strides, padding, x.dtype, _device_of(x))
    return total / counts


def _avg_pool_grad(
    xp: Namespace, dy: Array, shape: Shape, ksize: Pair, strides: Pair, padding: Padding
) -> Array:
    """The gradient of ``_avg_pool``: each window's ``dy`` shared by its elements."""
    share = dy / _pool_counts(
        xp, shape, ksize, strides, padding, dy.dtype, _device_of(dy)
    )
    columns = xp.broadcast_to(share[..., None, None], tuple(share.shape) + tuple(ksize))
    return _add_windows(xp, columns, shape, strides, (1, 1), padding)
