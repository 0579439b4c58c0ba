"""TF1's ``tf.losses`` cross-entropies and their weighting (``losses_impl.py``'s rules).

A loss is the per-example loss times ``weights`` (broadcast), reduced as ``reduction`` says;
TF1's default, ``SUM_BY_NONZERO_WEIGHTS``, divides the weighted sum by the number of
examples whose weight is not zero (0 when there is none). The result goes to
``GraphKeys.LOSSES`` as in TF1.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError
from ..graph import Tensor, get_default_graph
from .array_ops import shape
from .elementwise import cast, div_no_nan, equal, multiply, ones_like, stop_gradient, where
from .elementwise import zeros_like as _zeros_like
from .nn_ops import (
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
)
from .reductions import reduce_sum
from .sources import convert_to_tensor
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


def _num_present(losses: Tensor, weights: Tensor) -> Tensor:
    """How many entries of ``losses`` have a weight that is not zero."""
    present = where(equal(weights, 0.0), _zeros_like(weights), ones_like(weights))
    return reduce_sum(multiply(present, ones_like(losses)))


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
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype
        # TF1 computes the weighting in float32 and casts the result back.
        losses = cast(losses, _dtypes.float32)
        weights = cast(convert_to_tensor(weights), _dtypes.float32)
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
        losses = sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits, name="xentropy"
        )
        return compute_weighted_loss(losses, weights, None, loss_collection, reduction)


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


__all__ = [
    "Reduction",
    "compute_weighted_loss",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]
