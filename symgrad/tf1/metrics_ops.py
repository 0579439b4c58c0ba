"""TF1's streaming metrics (``tf.metrics``, ``metrics_impl.py``): ``accuracy``, ``mean``,
``precision``, ``recall``, ``auc`` and the counts they are made of (``true_positives``,
``false_positives``, ``true_negatives``, ``false_negatives``).

A streaming metric keeps local variables (``total`` and ``count``, or counts of outcomes;
initialized by ``local_variables_initializer``), and returns ``(value, update_op)``: running
``update_op`` adds a batch to them and gives the updated value; ``value`` reads the value so
far.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import InvalidArgumentError, ShapeError
from ..graph import Tensor, get_default_graph
from ..ops.elementwise import (
    add,
    cast,
    div_no_nan,
    equal,
    greater,
    identity,
    log,
    logical_and,
    logical_not,
    maximum,
    minimum,
    multiply,
    ones_like,
    subtract,
    truediv,
    where,
)
from ..ops.reductions import reduce_sum
from ..ops.reshaping import reshape, squeeze
from ..ops.shape_queries import size
from ..ops.sources import constant, convert_to_tensor
from ..ops.state import Variable, assign_add
from ..shapes import format_shape, shapes_compatible
from .variable_scope import GraphKeys, add_to_collections

METRIC_VARIABLES = GraphKeys.METRIC_VARIABLES


def _metric_variable(name: str, size: int | None = None) -> Variable:
    return Variable(
        0.0 if size is None else np.zeros(size, np.float32),
        name=name,
        dtype=_dtypes.float32,
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, METRIC_VARIABLES],
    )


def _squeeze_last(tensor: Tensor, other: Tensor) -> Tensor:
    """``tensor`` without its size-1 last axis where it has one axis more than ``other``."""
    if (
        tensor.shape is not None
        and other.shape is not None
        and len(tensor.shape) == len(other.shape) + 1
        and tensor.shape[-1] == 1
    ):
        return squeeze(tensor, [-1])
    return tensor


def mean(
    values: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """The running (weighted) mean of ``values``: ``(mean, update_op)``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None])
    ...     value, update = sg.metrics.mean(x)
    ...     with sg.Session() as sess:
    ...         sess.run(sg.local_variables_initializer())
    ...         _ = sess.run(update, {x: [1.0, 2.0]})
    ...         print(sess.run(update, {x: [6.0]}), sess.run(value))
    3.0 3.0
    """
    graph = get_default_graph()
    with graph.name_scope(name or "mean"):
        values = cast(convert_to_tensor(values), _dtypes.float32)
        total = _metric_variable("total")
        count = _metric_variable("count")
        if weights is None:
            num_values = cast(size(values), _dtypes.float32)
        else:
            weights = cast(convert_to_tensor(weights), _dtypes.float32)
            weights = _squeeze_last(weights, values)
            weights = multiply(weights, ones_like(values))  # broadcast to the values' shape
            values = multiply(values, weights)
            num_values = reduce_sum(weights)
        update_total = assign_add(total, reduce_sum(values))
        update_count = assign_add(count, num_values)
        value = div_no_nan(total, maximum(count, 0.0), name="value")
        update_op = div_no_nan(update_total, maximum(update_count, 0.0), name="update_op")
    _collect(metrics_collections, value, updates_collections, update_op)
    return value, update_op


def accuracy(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    name: str | None = None,
) -> tuple[Tensor, Tensor]:
    """How often ``predictions`` equal ``labels``, over every batch ``update_op`` has seen:
    ``(accuracy, update_op)``, backed by the local variables ``accuracy/total`` and
    ``accuracy/count``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.placeholder(sg.int64, [None])
    ...     p = sg.placeholder(sg.int64, [None])
    ...     acc, update = sg.metrics.accuracy(labels=y, predictions=p)
    ...     with sg.Session() as sess:
    ...         sess.run(sg.local_variables_initializer())
    ...         print(sess.run(update, {y: [1, 2, 3, 4], p: [1, 2, 0, 0]}))
    0.5
    """
    labels = convert_to_tensor(labels)
    predictions = convert_to_tensor(predictions)
    predictions = _squeeze_last(predictions, labels)
    labels = _squeeze_last(labels, predictions)
    if (
        labels.shape is not None
        and predictions.shape is not None
        and not shapes_compatible(labels.shape, predictions.shape)
    ):
        raise ShapeError(
            f"symgrad: accuracy: predictions '{predictions.name}' "
            f"{format_shape(predictions.shape)} and labels '{labels.name}' "
            f"{format_shape(labels.shape)} must have the same shape"
        )
    if labels.dtype != predictions.dtype:
        predictions = cast(predictions, labels.dtype)
    is_correct = cast(equal(predictions, labels), _dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


# --- counts of outcomes, precision, recall --------------------------------------------------------


def _as_bools(labels: Any, predictions: Any) -> tuple[Tensor, Tensor]:
    labels = cast(convert_to_tensor(labels), _dtypes.bool_)
    predictions = cast(convert_to_tensor(predictions), _dtypes.bool_)
    predictions = _squeeze_last(predictions, labels)
    return _squeeze_last(labels, predictions), predictions


def _count(condition: Tensor, weights: Any, name: str) -> tuple[Tensor, Tensor]:
    """A local variable ``<name>/count`` that ``update_op`` adds the (weighted) number of
    elements where ``condition`` holds to: ``(count, update_op)``."""
    with get_default_graph().name_scope(name):
        count = _metric_variable("count")
        hits = cast(condition, _dtypes.float32)
        if weights is not None:
            weights = _squeeze_last(cast(convert_to_tensor(weights), _dtypes.float32), hits)
            hits = multiply(hits, weights)
        update = assign_add(count, reduce_sum(hits))
        return identity(count, name="value"), update


# compute(labels, predictions, weights, name) -> (value, update_op)
_Compute = Callable[[Any, Any, Any, str], tuple[Tensor, Tensor]]


def _tf1_metric(kind: str, compute: _Compute) -> Callable[..., tuple[Tensor, Tensor]]:
    """A metric with TF1's signature (``labels, predictions, weights, metrics_collections,
    updates_collections, name``) made of ``compute``; the value and the update op go into
    the collections asked for."""

    def metric(
        labels: Any,
        predictions: Any,
        weights: Any = None,
        metrics_collections: Any = None,
        updates_collections: Any = None,
        name: str | None = None,
    ) -> tuple[Tensor, Tensor]:
        value, update = compute(labels, predictions, weights, name or kind)
        _collect(metrics_collections, value, updates_collections, update)
        return value, update

    metric.__name__ = metric.__qualname__ = kind
    return metric


def _outcome_metric(kind: str, label: bool, prediction: bool) -> Callable[..., Any]:
    def compute(labels: Any, predictions: Any, weights: Any, name: str) -> tuple[Tensor, Tensor]:
        labels, predictions = _as_bools(labels, predictions)
        wanted_labels = labels if label else logical_not(labels)
        wanted_predictions = predictions if prediction else logical_not(predictions)
        return _count(logical_and(wanted_labels, wanted_predictions), weights, name)

    metric = _tf1_metric(kind, compute)
    metric.__doc__ = (
        f"The (weighted) number of elements whose label is {label} and whose prediction is "
        f"{prediction}, over every batch ``update_op`` has seen (TF1's ``tf.metrics.{kind}``)."
    )
    return metric


true_positives = _outcome_metric("true_positives", True, True)
false_positives = _outcome_metric("false_positives", False, True)
true_negatives = _outcome_metric("true_negatives", False, False)
false_negatives = _outcome_metric("false_negatives", True, False)


def _collect(
    metrics_collections: Any, value: Tensor, updates_collections: Any, update: Tensor
) -> None:
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update)


def _ratio_metric(kind: str, other: Callable[..., Any]) -> Callable[..., Any]:
    """hits / (hits + ``other``), hits the true positives: 0 where nothing was counted yet,
    as TF1's ``_realdiv_maybe_zero``."""

    def compute(labels: Any, predictions: Any, weights: Any, name: str) -> tuple[Tensor, Tensor]:
        with get_default_graph().name_scope(name):
            labels, predictions = _as_bools(labels, predictions)
            hits, update_hits = true_positives(labels, predictions, weights)
            misses, update_misses = other(labels, predictions, weights)
            value = div_no_nan(hits, add(hits, misses), name="value")
            update = div_no_nan(update_hits, add(update_hits, update_misses), name="update_op")
        return value, update

    return _tf1_metric(kind, compute)


precision = _ratio_metric("precision", false_positives)
precision.__doc__ = """The fraction of positive predictions that are right, tp / (tp + fp), over
every batch ``update_op`` has seen (TF1's ``tf.metrics.precision``; 0 before any positive
prediction).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     y = sg.placeholder(sg.bool, [None])
...     p = sg.placeholder(sg.bool, [None])
...     value, update = sg.metrics.precision(y, p)
...     with sg.Session() as sess:
...         sess.run(sg.local_variables_initializer())
...         print(sess.run(update, {y: [True, False, True], p: [True, True, False]}))
0.5
"""
recall = _ratio_metric("recall", false_negatives)
recall.__doc__ = """The fraction of positive labels that are predicted, tp / (tp + fn), over every
batch ``update_op`` has seen (TF1's ``tf.metrics.recall``; 0 before any positive label)."""


# --- the area under the ROC or precision-recall curve ----------------------------------------------

_CURVES = ("ROC", "PR")
_SUMMATIONS = ("trapezoidal", "careful_interpolation", "minoring", "majoring")


def auc(
    labels: Any,
    predictions: Any,
    weights: Any = None,
    num_thresholds: int = 200,
    metrics_collections: Any = None,
    updates_collections: Any = None,
    curve: str = "ROC",
    name: str | None = None,
    summation_method: str = "trapezoidal",
    thresholds: Any = None,
) -> tuple[Tensor, Tensor]:
    """The area under the ROC curve (or the precision-recall curve, ``curve="PR"``) of
    ``predictions`` in [0, 1] against bool ``labels``, from counts of outcomes at
    ``num_thresholds`` thresholds kept in local variables (TF1's ``tf.metrics.auc``, with its
    thresholds, its 1e-6 in the rates and its summation methods).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.placeholder(sg.bool, [None])
    ...     p = sg.placeholder(sg.float32, [None])
    ...     value, update = sg.metrics.auc(y, p)
    ...     with sg.Session() as sess:
    ...         sess.run(sg.local_variables_initializer())
    ...         print(round(float(sess.run(update, {y: [0, 0, 1, 1], p: [0.1, 0.4, 0.35, 0.8]})), 3))
    0.75
    """
    if curve not in _CURVES:
        raise InvalidArgumentError(f"symgrad: auc: curve must be 'ROC' or 'PR', got {curve!r}")
    if summation_method not in _SUMMATIONS:
        raise InvalidArgumentError(
            f"symgrad: auc: summation_method must be one of {', '.join(_SUMMATIONS)}, got "
            f"{summation_method!r}"
        )
    if thresholds is not None:
        inner = sorted(float(t) for t in thresholds)
    else:
        if num_thresholds < 2:
            raise InvalidArgumentError(
                f"symgrad: auc: num_thresholds must be at least 2, got {num_thresholds}"
            )
        inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    # The two outer thresholds make the curve start at (1, 1) and end at (0, 0).
    cuts = np.array([-1e-7, *inner, 1.0 + 1e-7], np.float32)
    count = len(cuts)
    with get_default_graph().name_scope(name or "auc"):
        labels = cast(convert_to_tensor(labels), _dtypes.bool_)
        predictions = cast(convert_to_tensor(predictions), _dtypes.float32)
        predictions = _squeeze_last(predictions, labels)
        labels = _squeeze_last(labels, predictions)
        # [thresholds, examples]: which predictions are above which threshold
        above = greater(reshape(predictions, [1, -1]), constant(cuts.reshape(-1, 1)))
        positive = reshape(labels, [1, -1])
        weight = None
        if weights is not None:
            weight = cast(convert_to_tensor(weights), _dtypes.float32)
            weight = reshape(multiply(weight, ones_like(predictions)), [1, -1])
        values: dict[str, Tensor] = {}
        updates: dict[str, Tensor] = {}
        for key, label_is, prediction_is in (
            ("true_positives", True, True),
            ("false_negatives", True, False),
            ("true_negatives", False, False),
            ("false_positives", False, True),
        ):
            hits = cast(
                logical_and(
                    positive if label_is else logical_not(positive),
                    above if prediction_is else logical_not(above),
                ),
                _dtypes.float32,
            )
            if weight is not None:
                hits = multiply(hits, weight)
            variable = _metric_variable(key, count)
            values[key] = variable
            updates[key] = assign_add(variable, reduce_sum(hits, axis=1))
        value = _area(values, count, curve, summation_method, "value")
        update = _area(updates, count, curve, summation_method, "update_op")
    _collect(metrics_collections, value, updates_collections, update)
    return value, update


def _area(counts: dict[str, Tensor], n: int, curve: str, method: str, name: str) -> Tensor:
    tp, fn = counts["true_positives"], counts["false_negatives"]
    tn, fp = counts["true_negatives"], counts["false_positives"]
    epsilon = 1e-6
    if curve == "PR" and method == "careful_interpolation":
        return _interpolated_pr_area(tp, fp, fn, n, name)
    rate = truediv(add(tp, epsilon), add(add(tp, fn), epsilon))  # recall, the ROC's y
    if curve == "ROC":
        x, y = truediv(fp, add(add(fp, tn), epsilon)), rate
    else:
        x, y = rate, truediv(add(tp, epsilon), add(add(tp, fp), epsilon))
    width = subtract(x[: n - 1], x[1:])
    if method == "minoring":
        height = minimum(y[: n - 1], y[1:])
    elif method == "majoring":
        height = maximum(y[: n - 1], y[1:])
    else:
        height = truediv(add(y[: n - 1], y[1:]), 2.0)
    return reduce_sum(multiply(width, height), name=name)


def _interpolated_pr_area(tp: Tensor, fp: Tensor, fn: Tensor, n: int, name: str) -> Tensor:
    """The precision-recall area with precision interpolated between thresholds as Davis &
    Goadrich do (TF1's ``interpolate_pr_auc``)."""
    drop = subtract(tp[: n - 1], tp[1:])
    predicted = add(tp, fp)
    slope = div_no_nan(drop, maximum(subtract(predicted[: n - 1], predicted[1:]), 0.0))
    intercept = subtract(tp[1:], multiply(slope, predicted[1:]))
    both = logical_and(greater(predicted[: n - 1], 0.0), greater(predicted[1:], 0.0))
    ratio = where(
        both,
        div_no_nan(predicted[: n - 1], maximum(predicted[1:], 0.0)),
        ones_like(predicted[1:]),
    )
    return reduce_sum(
        div_no_nan(
            multiply(slope, add(drop, multiply(intercept, log(ratio)))),
            maximum(add(tp[1:], fn[1:]), 0.0),
        ),
        name=name,
    )


__all__ = [
    "METRIC_VARIABLES",
    "accuracy",
    "auc",
    "false_negatives",
    "false_positives",
    "mean",
    "precision",
    "recall",
    "true_negatives",
    "true_positives",
]
