"""Elementwise functions and reductions the array library lacks (erf, products of the others, cumulative sums, top-k)."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._types import Array, Scan, Shape


def _sigmoid(x: Array) -> Array:
    """``1 / (1 + exp(-x))``: one exponential and one division, both vectorised (NumPy's
    ``logaddexp`` is a scalar loop, ten times slower). Below about -88 (float32) or -709
    (float64) ``exp(-x)`` overflows to inf and the value is 0, where the exact one is
    subnormal; the overflow is expected, so it is not reported."""
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


# NumPy's vectorised maximum runs only where both operands are arrays, not against a
# scalar: relu against a row of zeros this long ran three times as fast (0.16 against
# 0.48 ms on 1.25M float32, AVX-512).
_RELU_ROW = 8192


def _relu(x: Array, out: Array | None = None) -> Array:
    """``np.maximum(x, 0, out=out)`` (a NaN stays NaN), taken against a row of zeros."""
    size = np.size(x)
    if not (isinstance(x, np.ndarray) and x.flags.c_contiguous and size >= _RELU_ROW):
        return np.maximum(x, 0, out=out)
    if out is None:
        out = np.empty_like(x)
    elif not (
        np.shape(out) == np.shape(x) and out.dtype == x.dtype and out.flags.c_contiguous
    ):
        return np.maximum(x, 0, out=out)
    zeros = np.zeros(_RELU_ROW, dtype=x.dtype)
    flat, flat_out = np.reshape(x, -1), np.reshape(out, -1)
    bulk = size - size % _RELU_ROW
    rows = (-1, _RELU_ROW)
    np.maximum(
        np.reshape(flat[:bulk], rows), zeros, out=np.reshape(flat_out[:bulk], rows)
    )
    np.maximum(flat[bulk:], zeros[: size - bulk], out=flat_out[bulk:])
    return out


def _softplus(x: Array) -> Array:
    """``log(1 + exp(x))``, finite for any ``x`` and exact where it is near 0 (large negative
    ``x``): ``max(x, 0) + log1p(exp(-|x|))``, vectorised, where ``logaddexp(0, x)`` is not."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _sum_leading_axes(x: Array) -> Array:
    """``x`` summed over every axis but the last, as a product of a ones vector and x's rows:
    one BLAS call, where NumPy's sum over leading axes runs column by column, 7 to 18 times
    slower when the last axis is short (a convolution's channels)."""
    rows = np.reshape(x, (-1, np.shape(x)[-1]))
    return np.ones(np.shape(rows)[0], dtype=rows.dtype) @ rows


def _logistic_loss(logits: Array, labels: Array) -> Array:
    """``softplus(logits) - logits * labels`` as TF evaluates it: finite for any logits, and
    without cancellation where the loss is near 0 (a confident, correct prediction)."""
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


def _huber_loss(error: Array, delta: Array) -> Array:
    """TF1's Huber loss of ``error``: ``q**2 / 2 + delta * (|error| - q)``, ``q =
    min(|error|, delta)``, in TF's order of operations."""
    absolute = np.abs(error)
    quadratic = np.minimum(absolute, delta)
    return 0.5 * (quadratic * quadratic) + delta * (absolute - quadratic)


def _weighted_logistic_loss(logits: Array, labels: Array, pos_weight: Array) -> Array:
    """TF's weighted sigmoid cross-entropy: ``(1 - z) * x + (1 + (q - 1) * z) *
    (log1p(exp(-|x|)) + max(-x, 0))``, finite for any logits."""
    log_weight = 1 + (pos_weight - 1) * labels
    softplus = np.log1p(np.exp(-np.abs(logits))) + np.maximum(-logits, 0)
    return (1 - labels) * logits + log_weight * softplus


def _weighted_logistic_grad(logits: Array, labels: Array, pos_weight: Array) -> Array:
    """TF's gradient of ``_weighted_logistic_loss`` in the logits: ``(1 + (q - 1) * z) *
    sigmoid(x) - q * z``, but ``1 - z`` at ``x = 0`` (TF's abs and relu pass no gradient
    there)."""
    log_weight = 1 + (pos_weight - 1) * labels
    small = np.exp(-np.abs(logits))
    return (1 - labels) - log_weight * (
        np.sign(logits) * (small / (1 + small)) + (logits < 0)
    )


def _erf(x: ArrayLike) -> Array:
    """The error function elementwise, by the C library's erf (``math.erf``: within 1 ulp)."""
    x = np.asarray(x)
    return np.fromiter(map(math.erf, x.ravel().tolist()), x.dtype, x.size).reshape(
        x.shape
    )


def _erfc(x: ArrayLike) -> Array:
    """``1 - erf(x)`` elementwise without cancellation, by the C library's ``math.erfc``."""
    x = np.asarray(x)
    return np.fromiter(map(math.erfc, x.ravel().tolist()), x.dtype, x.size).reshape(
        x.shape
    )


def _top_k_indices(x: ArrayLike, k: int) -> NDArray[np.int32]:
    """Positions of the ``k`` largest entries along the last axis, largest first; of equal
    entries the lower index first (a stable sort of the reversed axis, read backwards)."""
    if np.ndim(x) == 0:  # a rank known only at run time
        raise ValueError(f"top_k needs rank 1 or more, got shape {list(np.shape(x))}")
    n = np.shape(x)[-1]
    if n < k:
        raise ValueError(
            f"top_k needs at least k={k} entries along the last axis, got {n}"
        )
    order = np.argsort(np.flip(x, -1), axis=-1, kind="stable")
    return (n - 1 - np.flip(order, -1)[..., :k]).astype(np.int32)


def _top_k_grad(value: Array, indices: NDArray[np.integer], shape: Shape) -> Array:
    """``value`` put at ``indices`` along the last axis of zeros of ``shape``."""
    result = np.zeros(shape, dtype=value.dtype)
    np.put_along_axis(result, indices, value, -1)
    return result


def _prod_others(value: Array, axes: tuple[int, ...] | None) -> Array:
    """At each position, the product over ``axes`` of every other element (zeros allowed)."""
    axes = tuple(range(np.ndim(value))) if axes is None else axes
    front = np.moveaxis(value, axes, tuple(range(-len(axes), 0)))
    lead = front.shape[: front.ndim - len(axes)]  # sizes, not -1: a batch may be empty
    flat = np.reshape(front, lead + (int(np.prod(front.shape[len(lead) :])),))
    ones = np.ones_like(flat[..., :1])
    before = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[
        ..., ::-1
    ]
    others = np.reshape(before * after, front.shape)
    return np.moveaxis(others, tuple(range(-len(axes), 0)), axes)


def _prod_others_vjp(
    cotangent: ArrayLike, value: Array, axes: tuple[int, ...] | None
) -> Array:
    """The gradient of ``_prod_others(value, axes)`` against ``cotangent``: for each j, the sum
    over i != j of cotangent[i] times the product of every element but i and j."""
    axes = tuple(range(np.ndim(value))) if axes is None else axes
    last = tuple(range(-len(axes), 0))
    front = np.moveaxis(value, axes, last)
    lead = front.shape[: front.ndim - len(axes)]  # sizes, not -1: a batch may be empty
    flat = np.reshape(front, lead + (int(np.prod(front.shape[len(lead) :])),))
    weights = np.reshape(
        np.moveaxis(np.broadcast_to(cotangent, np.shape(value)), axes, last), flat.shape
    )
    result = np.zeros(flat.shape, dtype=np.result_type(flat, weights))
    for i in range(flat.shape[-1]):
        masked = flat.copy()
        masked[..., i] = 1
        others = _prod_others(masked, (masked.ndim - 1,))
        others[..., i] = 0
        result += weights[..., i : i + 1] * others
    return np.moveaxis(np.reshape(result, front.shape), last, axes)


def _integer_mean(
    value: ArrayLike, axis: int | tuple[int, ...] | None, keepdims: bool
) -> Array | np.integer:
    """TF's mean of integers: the sum (in 64 bits) divided by the count, rounded toward 0,
    in the value's dtype; 0 for no elements (a float mean would give NaN, cast to INT_MIN)."""
    value = np.asarray(value)
    wide = np.uint64 if value.dtype.kind == "u" else np.int64
    total = np.sum(value, axis=axis, keepdims=keepdims, dtype=wide)
    count = max(value.size // max(total.size, 1), 1)
    return (np.sign(total) * (np.abs(total) // count)).astype(value.dtype)


def _sum_to_shape(value: ArrayLike, shape: Shape) -> ArrayLike:
    """Sum ``value`` over the axes that NumPy broadcasting added to ``shape``."""
    if np.shape(value) == shape:
        return value
    lead = np.ndim(value) - len(shape)
    value = np.sum(value, axis=tuple(range(lead))) if lead else value
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and np.shape(value)[i] != 1)
    return np.sum(value, axis=axes, keepdims=True) if axes else value


def _cumulative(
    function: Scan, start: int, value: Array, axis: int, exclusive: int, reverse: int
) -> Array:
    """``function`` (np.cumsum or np.cumprod) along ``axis`` as TF computes it: ``exclusive``
    shifts by one place from ``start``, ``reverse`` runs from the end."""
    value = np.asarray(value)
    # The axis is read against the rank that arrives (known only at run time), as by TF.
    if not -value.ndim <= axis < value.ndim:
        raise ValueError(
            f"axis {axis} is out of range for a value of shape {list(value.shape)}"
        )
    axis %= value.ndim
    if reverse:
        value = np.flip(value, axis)
    result = function(value, axis=axis, dtype=value.dtype)
    if exclusive:
        result = np.roll(result, 1, axis=axis)
        result[(slice(None),) * axis + (slice(0, 1),)] = start
    return np.flip(result, axis) if reverse else result


def _cumsum(value: Array, axis: int, exclusive: int, reverse: int) -> Array:
    """Running sums along ``axis`` (TF's cumsum)."""
    return _cumulative(np.cumsum, 0, value, axis, exclusive, reverse)


def _cumprod(value: Array, axis: int, exclusive: int, reverse: int) -> Array:
    """Running products along ``axis`` (TF's cumprod)."""
    return _cumulative(np.cumprod, 1, value, axis, exclusive, reverse)


def _depth_window_sum(value: ArrayLike, radius: int) -> Array:
    """Sums over the ``2 * radius + 1`` nearest places of the last axis (zeros beyond it)."""
    padded = np.pad(value, [(0, 0)] * (np.ndim(value) - 1) + [(radius, radius)])
    windows = np.lib.stride_tricks.sliding_window_view(padded, 2 * radius + 1, axis=-1)
    return np.sum(windows, axis=-1)
