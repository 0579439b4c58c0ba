"""``symgrad.contrib.seq2seq``: TF1's ``tf.contrib.seq2seq`` as the seq2seq tutorials use it.

``sequence_loss`` with TF 1.15's semantics: the weighted sparse softmax cross entropy of
each step, summed and divided by the total weight (``div_no_nan``: 0 where the weights sum
to 0), or by the count of non-zero weights for the ``sum_over_*`` forms.

Decoding: ``TrainingHelper`` (the targets fed as the next inputs, teacher forcing),
``GreedyEmbeddingHelper`` (the embedding of the likeliest token fed back, until the end
token), ``BasicDecoder`` (a cell, a helper, an optional output layer) and ``dynamic_decode``,
which runs a decoder in a ``while_loop`` until every sequence has finished (or
``maximum_iterations``), collecting each step's outputs in TensorArrays, as TF1 does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import dtypes as _dtypes
from ..control_flow import cond, flatten, pack_as, while_loop
from ..errors import InvalidArgumentError, ShapeError
from ..graph import Tensor, name_scope
from ..ops.creation import zeros
from ..ops.elementwise import (
    cast,
    div_no_nan,
    equal,
    greater_equal,
    logical_not,
    logical_or,
    zeros_like,
)
from ..ops.gathering import gather, where
from ..ops.nn_ops import sparse_softmax_cross_entropy_with_logits
from ..ops.reductions import argmax, count_nonzero, reduce_all, reduce_sum
from ..ops.reshaping import reshape, transpose
from ..ops.segments import embedding_lookup
from ..ops.shape_queries import shape as shape_of
from ..ops.sources import constant, convert_to_tensor
from ..ops.tensor_array import TensorArray
from ..shapes import format_shape
from ..tf1.variable_scope import variable_scope
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


# --- decoding ------------------------------------------------------------------------------


class BasicDecoderOutput(NamedTuple):
    """A decoder's outputs: the cell's (after the output layer), and the sampled ids."""

    rnn_output: Any
    sample_id: Any


def _time_major(value: Tensor) -> Tensor:
    if value.shape is None or len(value.shape) < 2:
        raise ShapeError(
            f"symgrad: seq2seq: '{value.name}' must be [batch, time, ...], got "
            f"{format_shape(value.shape)}"
        )
    return transpose(value, [1, 0, *range(2, len(value.shape))])


def _argmax_ids(outputs: Tensor) -> Tensor:
    return cast(argmax(outputs, -1), _dtypes.int32)


class TrainingHelper:
    """Teacher forcing: the decoder's input at step t + 1 is ``inputs[:, t + 1]``, whatever it
    produced; a sequence has finished once ``sequence_length`` steps ran.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     helper = sg.contrib.seq2seq.TrainingHelper(sg.zeros([2, 3, 4]), [3, 1])
    ...     finished, first = helper.initialize()
    ...     first.shape
    (2, 4)
    """

    def __init__(
        self, inputs: Any, sequence_length: Any, time_major: bool = False, name: str | None = None
    ) -> None:
        with name_scope(name, "TrainingHelper"):
            inputs = convert_to_tensor(inputs)
            self._inputs = inputs if time_major else _time_major(inputs)
            self._lengths = cast(convert_to_tensor(sequence_length), _dtypes.int32)
            if self._lengths.shape is not None and len(self._lengths.shape) != 1:
                raise ShapeError(
                    f"symgrad: TrainingHelper: sequence_length '{self._lengths.name}' must be "
                    f"a vector, got {format_shape(self._lengths.shape)}"
                )
            self._zero_inputs = zeros_like(self._inputs[0])

    @property
    def batch_size(self) -> Tensor:
        return shape_of(self._lengths)[0]

    @property
    def sample_ids_dtype(self) -> _dtypes.DType:
        return _dtypes.int32

    def initialize(self, name: str | None = None) -> tuple[Tensor, Tensor]:
        finished = equal(0, self._lengths)
        inputs = cond(reduce_all(finished), lambda: self._zero_inputs, lambda: self._inputs[0])
        return finished, inputs

    def sample(self, time: Any, outputs: Tensor, state: Any, name: str | None = None) -> Tensor:
        return _argmax_ids(outputs)

    def next_inputs(
        self, time: Any, outputs: Tensor, state: Any, sample_ids: Tensor, name: str | None = None
    ) -> tuple[Tensor, Tensor, Any]:
        following = time + 1
        finished = greater_equal(following, self._lengths)
        inputs = cond(
            reduce_all(finished),
            lambda: self._zero_inputs,
            lambda: gather(self._inputs, following),
        )
        return finished, inputs, state


class GreedyEmbeddingHelper:
    """Inference: the decoder's next input is the embedding of the likeliest id it produced;
    a sequence has finished once it produced ``end_token``."""

    def __init__(self, embedding: Any, start_tokens: Any, end_token: Any) -> None:
        if callable(embedding):
            self._embed: Callable[[Tensor], Tensor] = embedding
        else:
            params = convert_to_tensor(embedding)
            self._embed = lambda ids: embedding_lookup(params, ids)
        self._start_tokens = cast(convert_to_tensor(start_tokens), _dtypes.int32)
        if self._start_tokens.shape is not None and len(self._start_tokens.shape) != 1:
            raise ShapeError(
                f"symgrad: GreedyEmbeddingHelper: start_tokens must be a vector, got "
                f"{format_shape(self._start_tokens.shape)}"
            )
        self._end_token = cast(convert_to_tensor(end_token), _dtypes.int32)
        self._start_inputs = self._embed(self._start_tokens)

    @property
    def batch_size(self) -> Tensor:
        return shape_of(self._start_tokens)[0]

    @property
    def sample_ids_dtype(self) -> _dtypes.DType:
        return _dtypes.int32

    def initialize(self, name: str | None = None) -> tuple[Tensor, Tensor]:
        finished = zeros(shape_of(self._start_tokens), dtype=_dtypes.bool_)
        return finished, self._start_inputs

    def sample(self, time: Any, outputs: Tensor, state: Any, name: str | None = None) -> Tensor:
        return _argmax_ids(outputs)

    def next_inputs(
        self, time: Any, outputs: Tensor, state: Any, sample_ids: Tensor, name: str | None = None
    ) -> tuple[Tensor, Tensor, Any]:
        finished = equal(sample_ids, self._end_token)
        inputs = cond(
            reduce_all(finished), lambda: self._start_inputs, lambda: self._embed(sample_ids)
        )
        return finished, inputs, state


class BasicDecoder:
    """One step of decoding: the cell on the step's inputs, the output layer on its output,
    the helper's sample, and the helper's next inputs."""

    def __init__(
        self, cell: Any, helper: Any, initial_state: Any, output_layer: Any = None
    ) -> None:
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    @property
    def batch_size(self) -> Tensor:
        return self._helper.batch_size

    def initialize(self, name: str | None = None) -> tuple[Tensor, Tensor, Any]:
        finished, inputs = self._helper.initialize()
        return finished, inputs, self._initial_state

    def step(
        self, time: Any, inputs: Tensor, state: Any, name: str | None = None
    ) -> tuple[BasicDecoderOutput, Any, Tensor, Tensor]:
        cell_outputs, cell_state = self._cell(inputs, state)
        if self._output_layer is not None:
            cell_outputs = self._output_layer(cell_outputs)
        sample_ids = self._helper.sample(time, cell_outputs, cell_state)
        finished, next_inputs, next_state = self._helper.next_inputs(
            time, cell_outputs, cell_state, sample_ids
        )
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


def dynamic_decode(
    decoder: Any,
    output_time_major: bool = False,
    impute_finished: bool = False,
    maximum_iterations: Any = None,
    parallel_iterations: int = 32,
    swap_memory: bool = False,
    scope: Any = None,
) -> tuple[BasicDecoderOutput, Any, Tensor]:
    """Run ``decoder`` step after step until every sequence has finished (or
    ``maximum_iterations`` steps): a ``while_loop`` in the generated module, its outputs
    collected in TensorArrays. Returns ``(outputs, final_state, final_sequence_lengths)``;
    ``outputs`` is ``[batch, time, ...]`` (``[time, batch, ...]`` with
    ``output_time_major``). With ``impute_finished`` a finished sequence's outputs are zeros
    and its state is kept."""
    del parallel_iterations, swap_memory
    with variable_scope(scope or "decoder"):
        finished, inputs, state = decoder.initialize()
        limit = None if maximum_iterations is None else convert_to_tensor(maximum_iterations)
        if limit is not None:
            finished = logical_or(finished, greater_equal(0, limit))
        lengths = cast(zeros_like(cast(finished, _dtypes.int32)), _dtypes.int32)
        float_dtype = flatten(state)[0].dtype
        outputs_ta = TensorArray(float_dtype, size=0, dynamic_size=True)
        ids_ta = TensorArray(_dtypes.int32, size=0, dynamic_size=True)

        def condition(time: Any, *rest: Any) -> Tensor:
            return logical_not(reduce_all(rest[-2]))

        def body(
            time: Tensor,
            outputs_ta: TensorArray,
            ids_ta: TensorArray,
            state: Any,
            inputs: Tensor,
            finished: Tensor,
            lengths: Tensor,
        ) -> tuple[Any, ...]:
            outputs, next_state, next_inputs, decoder_finished = decoder.step(time, inputs, state)
            next_finished = logical_or(decoder_finished, finished)
            if limit is not None:
                next_finished = logical_or(next_finished, greater_equal(time + 1, limit))
            next_lengths = where(logical_not(finished), zeros_like(lengths) + (time + 1), lengths)
            if impute_finished:
                outputs = BasicDecoderOutput(*(where(finished, zeros_like(o), o) for o in outputs))
                next_state = pack_as(
                    next_state,
                    [
                        where(finished, old, new)
                        for old, new in zip(flatten(state), flatten(next_state), strict=True)
                    ],
                )
            return (
                time + 1,
                outputs_ta.write(time, outputs.rnn_output),
                ids_ta.write(time, outputs.sample_id),
                next_state,
                next_inputs,
                next_finished,
                next_lengths,
            )

        _, outputs_ta, ids_ta, state, _, _, lengths = while_loop(
            condition,
            body,
            [
                constant(0, dtype=_dtypes.int32),
                outputs_ta,
                ids_ta,
                state,
                inputs,
                finished,
                lengths,
            ],
            maximum_iterations=limit,
        )
        rnn_output, sample_id = outputs_ta.stack(), ids_ta.stack()
        if not output_time_major:
            rnn_output, sample_id = _time_major(rnn_output), _time_major(sample_id)
        return BasicDecoderOutput(rnn_output, sample_id), state, lengths


__all__ = [
    "BasicDecoder",
    "BasicDecoderOutput",
    "GreedyEmbeddingHelper",
    "TrainingHelper",
    "dynamic_decode",
    "sequence_loss",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib.seq2seq", name)
