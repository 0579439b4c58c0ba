"""TF1's ``tf.losses``: the losses and their weighting (``losses_impl.py``'s rules).

A loss is the per-example loss times ``weights`` (broadcast), reduced as ``reduction`` says;
TF1's default, ``SUM_BY_NONZERO_WEIGHTS``, divides the weighted sum by the number of
examples whose weight is not zero (0 when there is none). The result goes to
``GraphKeys.LOSSES`` as in TF1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError, ShapeError
from ..graph import Tensor, get_default_graph
from ..ops.base import constant_value
from ..ops.checks import ensure_broadcastable
from ..ops.elementwise import (
    abs,
    cast,
    div_no_nan,
    greater,
    log,
    maximum,
    multiply,
    not_equal,
    ones_like,
    relu,
    square,
    squared_difference,
    stop_gradient,
    subtract,
    where,
)
from ..ops.elementwise import huber_loss as _huber_loss
from ..ops.elementwise import zeros_like as _zeros_like
from ..ops.nn_ops import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
)
from ..ops.reductions import reduce_sum
from ..ops.reshaping import squeeze, squeeze_last_by_rank
from ..ops.shape_queries import shape
from ..ops.sources import constant, convert_to_tensor
from ..shapes import format_shape, num_elements, shapes_compatible
from .variable_scope import GraphKeys, add_loss


class Reduction:
    """TF1's ``tf.losses.Reduction``: how a weighted loss is reduced (the same strings)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple[str, ...]:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_BY_NONZERO_WEIGHTS)


def _present(weights: Tensor) -> Tensor:
    """1.0 where a float32 weight is not zero, else 0.0 (TF1's ``where(equal(w, 0), 0, 1)``);
    known when built for weights the graph fixes (TF1's default 1.0)."""
    known = constant_value(weights)
    if known is not None:
        return constant((known != 0).astype(np.float32))
    return cast(not_equal(weights, 0.0), _dtypes.float32)


def _num_present(losses: Tensor, weights: Tensor) -> Tensor:
    """How many entries of ``losses`` have a weight that is not zero: for one nonzero weight
    the graph fixes (TF1's default 1.0), the losses' size."""
    known = constant_value(weights)
    if known is not None and known.ndim == 0 and known != 0:
        return reduce_sum(ones_like(losses))
    return reduce_sum(multiply(_present(weights), ones_like(losses)))


def _check_broadcastable(weights: Tensor, losses: Tensor) -> Tensor:
    """``weights``, checked as TF1's ``assert_broadcastable`` checks them: a scalar, or of the
    losses' rank with each size 1 or the losses' size (NumPy would also take a lower rank,
    silently). When the graph is built where the static shapes decide it, else when run."""
    if weights.shape is not None and not weights.shape:
        return weights
    if weights.shape is None or losses.shape is None:
        return ensure_broadcastable(weights, losses, "compute_weighted_loss")
    pairs = list(zip(weights.shape, losses.shape, strict=False))
    if len(weights.shape) != len(losses.shape) or any(
        w is not None and w != 1 and v is not None and w != v for w, v in pairs
    ):
        raise ShapeError(
            f"symgrad: compute_weighted_loss: weights '{weights.name}' "
            f"{format_shape(weights.shape)} can not be broadcast to the losses '{losses.name}' "
            f"{format_shape(losses.shape)}: they must be a scalar or have the losses' rank, "
            f"each size 1 or the losses' size"
        )
    if any(w != 1 and (w is None or v is None) for w, v in pairs):
        return ensure_broadcastable(weights, losses, "compute_weighted_loss")
    return weights


def _float_pair(op: str, labels: Any, predictions: Any) -> tuple[Tensor, Tensor]:
    """``labels`` and ``predictions`` cast to float32, as TF1's losses do, and checked to have
    compatible static shapes (TF1's ``assert_is_compatible_with``)."""
    if labels is None or predictions is None:
        raise InvalidArgumentError(f"symgrad: {op}: labels and predictions must not be None")
    labels, predictions = convert_to_tensor(labels), convert_to_tensor(predictions)
    _check_compatible(op, labels, predictions)
    return cast(labels, _dtypes.float32), cast(predictions, _dtypes.float32)


def _check_compatible(op: str, labels: Tensor, predictions: Tensor) -> None:
    if not shapes_compatible(predictions.shape, labels.shape):
        raise ShapeError(
            f"symgrad: {op}: predictions '{predictions.name}' {format_shape(predictions.shape)} "
            f"and labels '{labels.name}' {format_shape(labels.shape)} must have the same shape"
        )


def compute_weighted_loss(
    losses: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """``losses * weights``, reduced by ``reduction`` and added to ``loss_collection``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.compute_weighted_loss([1.0, 2.0, 4.0], weights=[1.0, 0.0, 1.0])
    ...     print(sg.compile(loss)())
    2.5
    """
    if reduction not in Reduction.all():
        raise InvalidArgumentError(
            f"symgrad: compute_weighted_loss: reduction {reduction!r} is not one of "
            f"{', '.join(Reduction.all())}"
        )
    graph = get_default_graph()
    with graph.name_scope(scope or "weighted_loss"):
        losses, weights = convert_to_tensor(losses), convert_to_tensor(weights)
        weights = _check_broadcastable(weights, losses)
        input_dtype = losses.dtype
        # TF1 computes the weighting in float32 and casts the result back.
        losses = cast(losses, _dtypes.float32)
        weights = cast(weights, _dtypes.float32)
        weighted = multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = div_no_nan(loss, reduce_sum(multiply(ones_like(losses), weights)))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = div_no_nan(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                count = reduce_sum(ones_like(losses))
                loss = div_no_nan(loss, count)
        loss = cast(loss, input_dtype)
    add_loss(loss, loss_collection)
    return loss


def sparse_softmax_cross_entropy(
    labels: Any,
    logits: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.sparse_softmax_cross_entropy``: the weighted cross-entropy of
    integer class ``labels``, by default its mean over the examples of nonzero weight.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.sparse_softmax_cross_entropy([0], [[0.0, 0.0]])
    ...     print(round(float(sg.compile(loss)()), 4))
    0.6931
    """
    with get_default_graph().name_scope(scope or "sparse_softmax_cross_entropy_loss"):
        labels, logits, weights = _squeezed(
            convert_to_tensor(labels), convert_to_tensor(logits), convert_to_tensor(weights)
        )
        losses = sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy"
        )
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def _squeezed(labels: Tensor, logits: Tensor, weights: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """TF1's ``_remove_squeezable_dimensions`` for class labels: labels of the logits' rank
    (``[batch, 1]``) and weights of one more axis than the labels (``[batch, 1]`` per
    example) lose their last, size-1 axis; by the static ranks where both are known, else by
    the ranks that arrive when the graph runs."""
    if labels.shape is not None and logits.shape is not None:
        if len(labels.shape) == len(logits.shape) and labels.shape:
            labels = squeeze(labels, [-1])
    elif labels.shape is None or labels.shape:
        labels = squeeze_last_by_rank(labels, logits, 0)
    if weights.shape is not None and not weights.shape:
        return labels, logits, weights  # a scalar weight
    if labels.shape is not None and weights.shape is not None:
        if len(weights.shape) - len(labels.shape) == 1:
            weights = squeeze(weights, [-1])
    elif weights.shape is None or weights.shape[-1] in (1, None):
        weights = squeeze_last_by_rank(weights, labels, 1)
    return labels, logits, weights


def softmax_cross_entropy(
    onehot_labels: Any,
    logits: Any,
    weights: Any = 1.0,
    label_smoothing: float = 0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.softmax_cross_entropy``: the weighted cross-entropy of one-hot
    labels, smoothed towards ``label_smoothing / classes`` if given; no gradient reaches
    the labels.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.softmax_cross_entropy([[1.0, 0.0]], [[0.0, 0.0]])
    ...     print(round(float(sg.compile(loss)()), 4))
    0.6931
    """
    with get_default_graph().name_scope(scope or "softmax_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = cast(convert_to_tensor(onehot_labels), logits.dtype)
        if label_smoothing > 0:
            classes = cast(shape(labels)[-1], logits.dtype)
            labels = labels * (1 - label_smoothing) + label_smoothing / classes
        labels = stop_gradient(labels)
        losses = softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def sigmoid_cross_entropy(
    multi_class_labels: Any,
    logits: Any,
    weights: Any = 1.0,
    label_smoothing: float = 0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.sigmoid_cross_entropy``: the weighted cross-entropy of independent
    binary labels, smoothed towards 1/2 by ``label_smoothing`` if given.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.sigmoid_cross_entropy([[1.0, 0.0]], [[0.0, 0.0]])
    ...     print(round(float(sg.compile(loss)()), 4))
    0.6931
    """
    if multi_class_labels is None or logits is None:
        raise InvalidArgumentError(
            "symgrad: sigmoid_cross_entropy: multi_class_labels and logits must not be None"
        )
    with get_default_graph().name_scope(scope or "sigmoid_cross_entropy_loss"):
        logits = convert_to_tensor(logits)
        labels = convert_to_tensor(multi_class_labels)
        _check_compatible("sigmoid_cross_entropy", labels, logits)
        labels = cast(labels, logits.dtype)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def mean_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.mean_squared_error``: the weighted squared differences, in float32 as
    in TF1, by default their mean over the entries of nonzero weight.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.mean_squared_error([1.0, 2.0], [2.0, 4.0])
    ...     print(sg.compile(loss)())
    2.5
    """
    with get_default_graph().name_scope(scope or "mean_squared_error"):
        labels, predictions = _float_pair("mean_squared_error", labels, predictions)
        losses = squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def absolute_difference(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.absolute_difference``: the weighted ``|predictions - labels|``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.absolute_difference([1.0, 2.0], [2.0, 4.0])
    ...     print(sg.compile(loss)())
    1.5
    """
    with get_default_graph().name_scope(scope or "absolute_difference"):
        labels, predictions = _float_pair("absolute_difference", labels, predictions)
        losses = abs(subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def huber_loss(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    delta: float = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.huber_loss``: ``err**2 / 2`` where ``|err| <= delta``, else
    ``delta * (|err| - delta / 2)``, weighted.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.huber_loss([0.0, 0.0], [0.5, 3.0])
    ...     print(sg.compile(loss)())
    1.3125
    """
    with get_default_graph().name_scope(scope or "huber_loss"):
        labels, predictions = _float_pair("huber_loss", labels, predictions)
        losses = _huber_loss(subtract(predictions, labels), delta)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def log_loss(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    epsilon: float = 1e-7,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.log_loss``: the weighted binary cross-entropy of probabilities,
    ``-y log(p + epsilon) - (1 - y) log(1 - p + epsilon)``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.log_loss([1.0, 0.0], [0.5, 0.5])
    ...     print(round(float(sg.compile(loss)()), 4))
    0.6931
    """
    with get_default_graph().name_scope(scope or "log_loss"):
        labels, predictions = _float_pair("log_loss", labels, predictions)
        losses = -multiply(labels, log(predictions + epsilon)) - multiply(
            1 - labels, log(1 - predictions + epsilon)
        )
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def hinge_loss(
    labels: Any,
    logits: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> Tensor:
    """TF1's ``tf.losses.hinge_loss``: labels 0/1 become -1/+1 and the loss is
    ``max(0, 1 - label * logit)``, weighted.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.hinge_loss([1.0, 0.0], [0.5, -3.0])
    ...     print(sg.compile(loss)())
    0.25
    """
    with get_default_graph().name_scope(scope or "hinge_loss"):
        labels, logits = _float_pair("hinge_loss", labels, logits)
        all_ones = ones_like(labels)
        signs = subtract(2 * labels, all_ones)
        losses = relu(subtract(all_ones, multiply(signs, logits)))
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def cosine_distance(
    labels: Any,
    predictions: Any,
    axis: int | None = None,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
    dim: int | None = None,
) -> Tensor:
    """TF1's ``tf.losses.cosine_distance``: ``1 - sum(labels * predictions, axis)`` of unit
    vectors along ``axis`` (kept, of size 1), weighted; ``dim`` is TF1's old name of ``axis``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.cosine_distance([[1.0, 0.0]], [[0.6, 0.8]], axis=1)
    ...     print(round(float(sg.compile(loss)()), 4))
    0.4
    """
    if axis is not None and dim is not None:
        raise InvalidArgumentError("symgrad: cosine_distance: give axis or dim, not both")
    axis = dim if axis is None else axis
    if axis is None:
        raise InvalidArgumentError("symgrad: cosine_distance: the argument axis is required")
    with get_default_graph().name_scope(scope or "cosine_distance_loss"):
        labels, predictions = _float_pair("cosine_distance", labels, predictions)
        losses = 1 - reduce_sum(multiply(predictions, labels), axis=(axis,), keepdims=True)
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


def mean_pairwise_squared_error(
    labels: Any,
    predictions: Any,
    weights: Any = 1.0,
    scope: str | None = None,
    loss_collection: Any = GraphKeys.LOSSES,
) -> Tensor:
    """TF1's ``tf.losses.mean_pairwise_squared_error``: per example, the mean over pairs of
    its entries of ``((p_i - p_j) - (y_i - y_j))**2``, weighted and summed over the batch;
    entries whose weight is zero do not count as present.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.losses.mean_pairwise_squared_error([[0.0, 0.0, 0.0]], [[1.0, 2.0, 3.0]])
    ...     print(round(float(sg.compile(loss)()), 4))
    2.0
    """
    with get_default_graph().name_scope(scope or "mean_pairwise_squared_error"):
        predictions = convert_to_tensor(predictions)
        if predictions.shape is None:
            # The pairs are counted per example, over every axis but the first.
            raise ShapeError(
                f"symgrad: mean_pairwise_squared_error: predictions '{predictions.name}' have "
                f"no static rank; declare it (e.g. shape=[None, None])"
            )
        per_example = list(range(1, len(predictions.shape)))
        labels, predictions = _float_pair("mean_pairwise_squared_error", labels, predictions)
        weights = _check_broadcastable(convert_to_tensor(weights), predictions)
        weights = cast(weights, _dtypes.float32)
        diffs = subtract(predictions, labels)
        sum_squares = reduce_sum(square(diffs), axis=per_example, keepdims=True)
        sum_diff = reduce_sum(diffs, axis=per_example, keepdims=True)
        known = constant_value(weights)
        count = num_elements(tuple(predictions.shape[1:]))
        if known is not None and known.ndim == 0 and known != 0 and count is not None:
            # One nonzero weight and the entries per example known (TF1's default): TF's
            # counts are these numbers, and its guards against no pairs fold away.
            if count < 2:
                return _added(reduce_sum(multiply(sum_squares, 0.0)), loss_collection)
            term1 = multiply(2.0 / (count - 1), sum_squares)
            term2 = multiply(2.0 / (count * (count - 1)), square(sum_diff))
            return _added(reduce_sum(multiply(term1 - term2, weights)), loss_collection)
        num_present = reduce_sum(
            multiply(_present(weights), ones_like(diffs)), axis=per_example, keepdims=True
        )
        term1 = 2.0 * div_no_nan(sum_squares, maximum(num_present - 1, 0.0))
        term2 = 2.0 * div_no_nan(
            square(sum_diff), maximum(multiply(num_present, num_present - 1), 0.0)
        )
        loss = reduce_sum(multiply(term1 - term2, weights))
        mean_loss = where(greater(reduce_sum(num_present), 0.0), loss, _zeros_like(loss))
    return _added(mean_loss, loss_collection)


def _added(loss: Tensor, loss_collection: Any) -> Tensor:
    """``loss``, added to ``loss_collection`` (TF1's ``util.add_loss``)."""
    add_loss(loss, loss_collection)
    return loss


__all__ = [
    "Reduction",
    "absolute_difference",
    "compute_weighted_loss",
    "cosine_distance",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_pairwise_squared_error",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]
