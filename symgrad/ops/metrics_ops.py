"""TF1's streaming metrics (``tf.metrics``, ``metrics_impl.py``): ``accuracy`` and ``mean``.

A streaming metric keeps two local variables, ``total`` and ``count`` (initialized by
``local_variables_initializer``), and returns ``(value, update_op)``: running ``update_op``
adds a batch to them and gives the updated value; ``value`` reads the value so far.
"""

from __future__ import annotations

from typing import Any

from .. import dtypes as _dtypes
from ..errors import ShapeError
from ..graph import Tensor, get_default_graph
from ..shapes import format_shape, shapes_compatible
from .array_ops import size, squeeze
from .elementwise import cast, div_no_nan, equal, maximum, multiply, ones_like
from .reductions import reduce_sum
from .sources import convert_to_tensor
from .state import Variable, assign_add
from .variable_scope import GraphKeys, add_to_collections

METRIC_VARIABLES = GraphKeys.METRIC_VARIABLES


def _metric_variable(name: str) -> Variable:
    return Variable(
        0.0,
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
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)
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


__all__ = ["METRIC_VARIABLES", "accuracy", "mean"]
