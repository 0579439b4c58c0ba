"""``symgrad.contrib.seq2seq``: the weighted sequence loss of TF1's ``tf.contrib.seq2seq``
(``sequence_loss``), with TF 1.15's semantics: the weighted sparse softmax cross entropy of
each step, summed and divided by the total weight (``div_no_nan``: 0 where the weights sum
to 0), or by the count of non-zero weights for the ``sum_over_*`` forms."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError, ShapeError
from ..graph import Tensor, name_scope
from ..ops.elementwise import cast, div_no_nan
from ..ops.nn_ops import sparse_softmax_cross_entropy_with_logits
from ..ops.reductions import count_nonzero, reduce_sum
from ..ops.reshaping import reshape
from ..ops.shape_queries import shape as shape_of
from ..ops.sources import convert_to_tensor
from ..shapes import format_shape
from ..tf1_names import missing_attribute


def _rank(x: Tensor, rank: int, what: str, dims: str) -> None:
    if x.shape is None or len(x.shape) != rank:
        raise ShapeError(
            f"symgrad: sequence_loss: {what} must be a [{dims}] tensor, got '{x.name}' "
            f"{format_shape(x.shape)}"
        )


def sequence_loss(
    logits: Any,
    targets: Any,
    weights: Any,
    average_across_timesteps: bool = True,
    average_across_batch: bool = True,
    sum_over_timesteps: bool = False,
    sum_over_batch: bool = False,
    softmax_loss_function: Callable[..., Any] | None = None,
    name: str | None = None,
) -> Tensor:
    """The weighted cross entropy of a sequence of logits (TF1's
    ``tf.contrib.seq2seq.sequence_loss``): ``logits`` ``[batch, steps, classes]``, int
    ``targets`` and float ``weights`` ``[batch, steps]``. A scalar when both axes are
    averaged (or summed), a ``[steps]`` (``[batch]``) vector when only the batch (the steps)
    is, else ``[batch, steps]``.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     logits = sg.constant(np.zeros((2, 3, 4), np.float32))
    ...     loss = sg.contrib.seq2seq.sequence_loss(
    ...         logits, sg.zeros([2, 3], sg.int32), sg.ones([2, 3]))
    ...     print(round(float(sg.compile(loss)()), 4))
    1.3863
    """
    logits = convert_to_tensor(logits)
    targets = convert_to_tensor(targets)
    weights = convert_to_tensor(weights, dtype=logits.dtype)
    _rank(logits, 3, "logits", "batch_size x sequence_length x logits")
    _rank(targets, 2, "targets", "batch_size x sequence_length")
    _rank(weights, 2, "weights", "batch_size x sequence_length")
    if average_across_timesteps and sum_over_timesteps:
        raise InvalidArgumentError(
            "symgrad: sequence_loss: average_across_timesteps and sum_over_timesteps cannot "
            "both be True"
        )
    if average_across_batch and sum_over_batch:
        raise InvalidArgumentError(
            "symgrad: sequence_loss: average_across_batch and sum_over_batch cannot both be True"
        )
    with name_scope(name, "sequence_loss", [logits, targets, weights]):
        assert logits.shape is not None
        batch, steps, classes = logits.shape
        # TF reshapes by tf.shape(logits); symgrad's reshape takes known dims and one -1.
        logits_flat = reshape(logits, [-1, classes if classes is not None else shape_of(logits)[2]])
        targets_flat = reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = sparse_softmax_cross_entropy_with_logits(
                labels=targets_flat, logits=logits_flat
            )
        else:
            crossent = convert_to_tensor(
                softmax_loss_function(labels=targets_flat, logits=logits_flat)
            )
        crossent = crossent * reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            return div_no_nan(reduce_sum(crossent), reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            count = cast(count_nonzero(weights), crossent.dtype)
            return div_no_nan(reduce_sum(crossent), count)
        if steps is None and batch is None:
            raise ShapeError(
                f"symgrad: sequence_loss: the batch size or the number of steps of "
                f"'{logits.name}' {format_shape(logits.shape)} must be known when the graph "
                f"is built to keep a loss per step or per example"
            )
        crossent = reshape(crossent, [-1, steps] if steps is not None else [batch, -1])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return div_no_nan(reduce_sum(crossent, axis=axis), reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            count = cast(count_nonzero(weights, axis=axis), crossent.dtype)
            return div_no_nan(reduce_sum(crossent, axis=axis), count)
        return crossent


__all__ = ["sequence_loss"]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib.seq2seq", name)
