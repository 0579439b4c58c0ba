"""``symgrad.contrib.legacy_seq2seq``: the sequence losses of TF1's
``tf.contrib.legacy_seq2seq`` over lists of per-step tensors (``sequence_loss_by_example``,
``sequence_loss``). These add 1e-12 to the total weight before dividing by it, as TF1 does."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError
from ..graph import Tensor, name_scope
from ..ops.elementwise import add_n, cast
from ..ops.nn_ops import sparse_softmax_cross_entropy_with_logits
from ..ops.reductions import reduce_sum
from ..ops.reshaping import reshape
from ..ops.shape_queries import shape as shape_of
from ..ops.sources import convert_to_tensor
from ..tf1_names import missing_attribute


def _lists(
    logits: Sequence[Any], targets: Sequence[Any], weights: Sequence[Any]
) -> tuple[list[Tensor], list[Tensor], list[Tensor]]:
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise InvalidArgumentError(
            f"symgrad: legacy_seq2seq: lengths of logits, weights, and targets must be the "
            f"same {len(logits)}, {len(weights)}, {len(targets)}."
        )
    logits = [convert_to_tensor(x) for x in logits]
    return (
        logits,
        [convert_to_tensor(t) for t in targets],
        [convert_to_tensor(w, dtype=x.dtype) for w, x in zip(weights, logits, strict=True)],
    )


def sequence_loss_by_example(
    logits: Sequence[Any],
    targets: Sequence[Any],
    weights: Sequence[Any],
    average_across_timesteps: bool = True,
    softmax_loss_function: Callable[..., Any] | None = None,
    name: str | None = None,
) -> Tensor:
    """The weighted cross entropy of each example, ``[batch]``, summed over the steps
    (TF1's ``tf.contrib.legacy_seq2seq.sequence_loss_by_example``): ``logits`` a list of
    ``[batch, classes]``, ``targets`` of int ``[batch]`` and ``weights`` of ``[batch]``
    tensors, one per step; divided by the example's total weight plus 1e-12 when
    ``average_across_timesteps``.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     logits = [sg.constant(np.zeros((2, 4), np.float32))] * 3
    ...     loss = sg.contrib.legacy_seq2seq.sequence_loss_by_example(
    ...         logits, [sg.zeros([2], sg.int32)] * 3, [sg.ones([2])] * 3)
    ...     print(sg.compile(loss)().round(4))
    [1.3863 1.3863]
    """
    logits, targets, weights = _lists(logits, targets, weights)
    with name_scope(name, "sequence_loss_by_example", logits + targets + weights):
        steps = []
        for logit, target, weight in zip(logits, targets, weights, strict=True):
            if softmax_loss_function is None:
                crossent = sparse_softmax_cross_entropy_with_logits(
                    labels=reshape(target, [-1]), logits=logit
                )
            else:
                crossent = convert_to_tensor(softmax_loss_function(labels=target, logits=logit))
            steps.append(crossent * weight)
        log_perps = add_n(steps)
        if average_across_timesteps:
            # TF1 adds 1e-12 to avoid dividing by 0 where every weight is 0.
            log_perps = log_perps / (add_n(weights) + 1e-12)
    return log_perps


def sequence_loss(
    logits: Sequence[Any],
    targets: Sequence[Any],
    weights: Sequence[Any],
    average_across_timesteps: bool = True,
    average_across_batch: bool = True,
    softmax_loss_function: Callable[..., Any] | None = None,
    name: str | None = None,
) -> Tensor:
    """The sum over the batch of :func:`sequence_loss_by_example`, divided by the batch size
    when ``average_across_batch`` (TF1's ``tf.contrib.legacy_seq2seq.sequence_loss``): a
    scalar."""
    logits, targets, weights = _lists(logits, targets, weights)
    with name_scope(name, "sequence_loss", logits + targets + weights):
        cost = reduce_sum(
            sequence_loss_by_example(
                logits,
                targets,
                weights,
                average_across_timesteps=average_across_timesteps,
                softmax_loss_function=softmax_loss_function,
            )
        )
        if average_across_batch:
            return cost / cast(shape_of(targets[0])[0], cost.dtype)
        return cost


__all__ = ["sequence_loss", "sequence_loss_by_example"]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib.legacy_seq2seq", name)
