# mypy: allow-redefinition
# (A kernel may bind a name to the next form of its value, as _einsum's ``terms``: text,
# then a list. Its body takes no annotation nor ignore comment: they would be copied.)
"""Elementwise functions and reductions the array library lacks (erf, products of the others, cumulative sums, top-k)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from ._types import Array, Axes, Namespace, Shape
from .namespace import _device_of, _special


def _prod_others(xp: Namespace, value: Array, axes: Sequence[int] | None) -> Array:
    """At each position, the product over ``axes`` of every other element (zeros allowed):
    running products from both ends, one slice at a time (the standard has no cumprod)."""
    axes = (
        tuple(range(value.ndim))
        if axes is None
        else tuple(a % value.ndim for a in axes)
    )
    keep = tuple(a for a in range(value.ndim) if a not in axes)
    order = keep + axes
    front = xp.permute_dims(value, order)
    lead = tuple(front.shape[: len(keep)])  # sizes, not -1: a batch may be empty
    flat = xp.reshape(front, lead + (int(np.prod(front.shape[len(keep) :])),))
    count = flat.shape[-1]
    if count == 0:
        return value
    columns = [flat[..., i] for i in range(count)]
    before = [xp.ones_like(columns[0])]
    for column in columns[:-1]:
        before.append(before[-1] * column)
    after = [xp.ones_like(columns[0])]
    for column in columns[:0:-1]:
        after.append(after[-1] * column)
    others = xp.stack([b * a for b, a in zip(before, after[::-1])], axis=-1)
    inverse = tuple(order.index(a) for a in range(value.ndim))
    return xp.permute_dims(xp.reshape(others, front.shape), inverse)


def _prod_others_vjp(
    xp: Namespace, cotangent: Array, value: Array, axes: Sequence[int] | None
) -> Array:
    """The gradient of ``_prod_others(value, axes)`` against ``cotangent``: for each j, the sum
    over i != j of cotangent[i] times the product of every element but i and j (the
    standard has no item assignment: element i is set to 1, then its term to 0, by where)."""
    axes = (
        tuple(range(value.ndim))
        if axes is None
        else tuple(a % value.ndim for a in axes)
    )
    keep = tuple(a for a in range(value.ndim) if a not in axes)
    order = keep + axes
    front = xp.permute_dims(value, order)
    lead = tuple(front.shape[: len(keep)])  # sizes, not -1: a batch may be empty
    flat = xp.reshape(front, lead + (int(np.prod(front.shape[len(keep) :])),))
    weights = xp.permute_dims(xp.broadcast_to(cotangent, tuple(value.shape)), order)
    weights = xp.reshape(weights, tuple(flat.shape))
    positions = xp.arange(flat.shape[-1], device=_device_of(flat))
    result = xp.zeros_like(flat)
    for i in range(flat.shape[-1]):
        masked = xp.where(positions == i, xp.ones_like(flat), flat)
        others = _prod_others(xp, masked, (masked.ndim - 1,))
        others = xp.where(positions == i, xp.zeros_like(others), others)
        result = result + weights[..., i : i + 1] * others
    inverse = tuple(order.index(a) for a in range(value.ndim))
    return xp.permute_dims(xp.reshape(result, front.shape), inverse)


def _sum_leading_axes(xp: Namespace, x: Array) -> Array:
    """``x`` summed over every axis but the last (the fast form's BLAS product of ones and
    rows is a NumPy matter; the namespace's own sum serves here)."""
    return xp.sum(x, axis=tuple(range(x.ndim - 1)))


def _logistic_loss(xp: Namespace, logits: Array, labels: Array) -> Array:
    """``softplus(logits) - logits * labels`` as TF evaluates it: finite for any logits, and
    without cancellation where the loss is near 0 (a confident, correct prediction)."""
    return (
        xp.maximum(logits, xp.zeros_like(logits))
        - logits * labels
        + xp.log1p(xp.exp(-xp.abs(logits)))
    )


def _huber_loss(xp: Namespace, error: Array, delta: Array) -> Array:
    """TF1's Huber loss of ``error``: ``q**2 / 2 + delta * (|error| - q)``, ``q =
    min(|error|, delta)``, in TF's order of operations (``delta`` a number or an array)."""
    absolute = xp.abs(error)
    quadratic = xp.where(absolute <= delta, absolute, xp.zeros_like(absolute) + delta)
    return 0.5 * (quadratic * quadratic) + delta * (absolute - quadratic)


def _weighted_logistic_loss(
    xp: Namespace, logits: Array, labels: Array, pos_weight: Array
) -> Array:
    """TF's weighted sigmoid cross-entropy: ``(1 - z) * x + (1 + (q - 1) * z) *
    (log1p(exp(-|x|)) + max(-x, 0))``, finite for any logits."""
    log_weight = 1 + (pos_weight - 1) * labels
    negative = -logits
    softplus = xp.log1p(xp.exp(-xp.abs(logits))) + xp.where(
        negative > 0, negative, 0 * negative
    )
    return (1 - labels) * logits + log_weight * softplus


def _weighted_logistic_grad(
    xp: Namespace, logits: Array, labels: Array, pos_weight: Array
) -> Array:
    """TF's gradient of ``_weighted_logistic_loss`` in the logits: ``(1 + (q - 1) * z) *
    sigmoid(x) - q * z``, but ``1 - z`` at ``x = 0`` (TF's abs and relu pass no gradient
    there)."""
    log_weight = 1 + (pos_weight - 1) * labels
    small = xp.exp(-xp.abs(logits))
    below = xp.astype(logits < 0, logits.dtype)
    return (1 - labels) - log_weight * (xp.sign(logits) * (small / (1 + small)) + below)


def _erf(xp: Namespace, x: Array) -> Array:
    """The error function elementwise (see ``_special``)."""
    return _special(xp, x, "erf", math.erf)


def _erfc(xp: Namespace, x: Array) -> Array:
    """``1 - erf(x)`` elementwise without cancellation (see ``_special``)."""
    return _special(xp, x, "erfc", math.erfc)


def _top_k_indices(xp: Namespace, x: Array, k: int) -> Array:
    """Positions of the ``k`` largest entries along the last axis, largest first; of equal
    entries the lower index first (a stable sort of the reversed axis, read backwards)."""
    if x.ndim == 0:  # a rank known only at run time
        raise ValueError(f"top_k needs rank 1 or more, got shape {list(x.shape)}")
    n = x.shape[-1]
    if n < k:
        raise ValueError(
            f"top_k needs at least k={k} entries along the last axis, got {n}"
        )
    order = xp.argsort(xp.flip(x, axis=-1), axis=-1, stable=True)
    return xp.astype((n - 1) - xp.flip(order, axis=-1)[..., :k], xp.int32)


def _top_k_grad(xp: Namespace, value: Array, indices: Array, shape: Shape) -> Array:
    """``value`` put at ``indices`` along the last axis of zeros of ``shape`` (the indices
    of a row differ, so a where over one 0/1 axis per index places each exactly)."""
    hits = xp.expand_dims(indices, axis=-1) == xp.arange(
        shape[-1], device=_device_of(value)
    )
    placed = xp.where(
        hits, xp.expand_dims(value, axis=-1), xp.zeros_like(value[..., :1, None])
    )
    return xp.broadcast_to(xp.sum(placed, axis=-2), tuple(shape))


def _einsum(xp: Namespace, subscripts: str, *operands: Array) -> Array:
    """``einsum`` where the namespace has one; else the standard's way: each operand laid
    out over every letter (size 1 where it has none), multiplied, summed over the letters
    that are not in the output."""
    if hasattr(xp, "einsum"):
        return xp.einsum(subscripts, *operands)
    subscripts = subscripts.replace(" ", "")
    terms, _, output = subscripts.partition("->")
    terms = terms.split(",")
    if "->" not in subscripts:
        letters = "".join(terms)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if "." in subscripts:
        raise ValueError(
            f"einsum {subscripts!r}: ellipses need a namespace with einsum"
        )
    order = list(output) + sorted({c for t in terms for c in t} - set(output))
    # NumPy multiplies integers by floats; the standard wants one kind: the floats'.
    floats = [o.dtype for o in operands if xp.isdtype(o.dtype, "real floating")]
    if floats:
        operands = [xp.astype(o, floats[0]) for o in operands]
    product = None
    for term, operand in zip(terms, operands):
        while len(set(term)) != len(term):  # a letter twice: the diagonal of those axes
            letter = next(c for c in term if term.count(c) > 1)
            first, second = (
                term.index(letter),
                term.index(letter, term.index(letter) + 1),
            )
            size = operand.shape[first]
            shape = [1] * operand.ndim
            shape[first] = shape[second] = size
            eye = xp.eye(size, dtype=operand.dtype, device=_device_of(operand))
            operand = xp.sum(operand * xp.reshape(eye, tuple(shape)), axis=second)
            term = term[:second] + term[second + 1 :]
        present = [c for c in order if c in term]
        operand = xp.permute_dims(operand, tuple(term.index(c) for c in present))
        sizes = dict(zip(present, operand.shape))
        operand = xp.reshape(operand, tuple(sizes.get(c, 1) for c in order))
        product = operand if product is None else product * operand
    contracted = tuple(range(len(output), len(order)))
    return xp.sum(product, axis=contracted) if contracted else product


def _cumsum(
    xp: Namespace, value: Array, axis: int, exclusive: bool, reverse: bool
) -> Array:
    """Running sums along ``axis`` as TF computes them: ``exclusive`` shifts by one place
    from 0, ``reverse`` runs from the end."""
    if (
        not -value.ndim <= axis < value.ndim
    ):  # read against the rank that arrives, as by TF
        raise ValueError(
            f"axis {axis} is out of range for a value of shape {list(value.shape)}"
        )
    axis %= value.ndim
    if reverse:
        value = xp.flip(value, axis=axis)
    result = xp.cumulative_sum(
        value, axis=axis, dtype=value.dtype, include_initial=exclusive
    )
    if exclusive:
        result = result[(slice(None),) * axis + (slice(0, -1), ...)]
    return xp.flip(result, axis=axis) if reverse else result


def _cumprod(
    xp: Namespace, value: Array, axis: int, exclusive: bool, reverse: bool
) -> Array:
    """Running products along ``axis`` as TF computes them (one slice at a time: the
    standard of 2023.12 has no cumulative product)."""
    if (
        not -value.ndim <= axis < value.ndim
    ):  # read against the rank that arrives, as by TF
        raise ValueError(
            f"axis {axis} is out of range for a value of shape {list(value.shape)}"
        )
    axis %= value.ndim
    if reverse:
        value = xp.flip(value, axis=axis)
    count = value.shape[axis]
    if count == 0:
        return value
    slices = [value[(slice(None),) * axis + (i, ...)] for i in range(count)]
    running = [xp.ones_like(slices[0]) if exclusive else slices[0]]
    for item in slices[:-1] if exclusive else slices[1:]:
        running.append(running[-1] * item)
    result = xp.stack(running, axis=axis)
    return xp.flip(result, axis=axis) if reverse else result


def _depth_window_sum(xp: Namespace, value: Array, radius: int) -> Array:
    """Sums over the ``2 * radius + 1`` nearest places of the last axis (zeros beyond it)."""
    size = value.shape[-1]
    edge = xp.zeros(
        tuple(value.shape[:-1]) + (radius,), dtype=value.dtype, device=_device_of(value)
    )
    padded = xp.concat([edge, value, edge], axis=-1)
    total = padded[..., 0:size]
    for offset in range(1, 2 * radius + 1):
        total = total + padded[..., offset : offset + size]
    return total


def _integer_mean(xp: Namespace, value: Array, axis: Axes, keepdims: bool) -> Array:
    """TF's mean of integers: the sum (in 64 bits) divided by the count, rounded toward 0,
    in the value's dtype; 0 for no elements (the standard's mean takes floats only)."""
    wide = xp.uint64 if xp.isdtype(value.dtype, "unsigned integer") else xp.int64
    total = xp.sum(value, axis=axis, keepdims=keepdims, dtype=wide)
    count = max(int(np.prod(value.shape)) // max(int(np.prod(total.shape)), 1), 1)
    return xp.astype(xp.sign(total) * (xp.abs(total) // count), value.dtype)


def _reduce_extremum(
    xp: Namespace, name: Literal["max", "min"], value: Array, axis: Axes, keepdims: bool
) -> Array:
    """TF's ``reduce_max``/``reduce_min``: over no elements, the dtype's least/greatest value
    (the standard leaves that undefined)."""
    axes = (
        range(value.ndim)
        if axis is None
        else (axis,)
        if isinstance(axis, int)
        else axis
    )
    reduced = {a % value.ndim for a in axes}
    if all(
        value.shape[a] != 0 for a in reduced
    ):  # sizes a lazy array does not know pass
        return getattr(xp, name)(value, axis=axis, keepdims=keepdims)
    if xp.isdtype(value.dtype, "real floating"):
        fill = -float("inf") if name == "max" else float("inf")
    else:
        info = xp.iinfo(value.dtype)
        fill = info.min if name == "max" else info.max
    shape = tuple(
        1 if i in reduced else size
        for i, size in enumerate(value.shape)
        if keepdims or i not in reduced
    )
    return xp.full(shape, fill, dtype=value.dtype, device=_device_of(value))


def _sum_to_shape(xp: Namespace, value: Array, shape: Shape) -> Array:
    """Sum ``value`` over the axes that broadcasting added to ``shape``."""
    if not hasattr(value, "shape") or tuple(value.shape) == tuple(shape):
        return value
    lead = value.ndim - len(shape)
    value = xp.sum(value, axis=tuple(range(lead))) if lead else value
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and value.shape[i] != 1)
    return xp.sum(value, axis=axes, keepdims=True) if axes else value
