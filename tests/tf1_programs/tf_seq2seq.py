"""TF1's ``tf.contrib.seq2seq`` decoding for the TensorFlow reference runs (``runner.py
--backend tensorflow``): TensorFlow 2 ships no ``contrib``, so the tutorials' helpers,
``BasicDecoder``, ``dynamic_decode`` and ``sequence_loss`` are written here anew on TF's own
``compat.v1`` ops (``while_loop``, ``TensorArray``, ``cond``, the cells), following the
semantics TF 1.15's contrib documents: a TrainingHelper finishes a sequence once
``time + 1 >= sequence_length``, a GreedyEmbeddingHelper once it samples the end token, and
``dynamic_decode`` loops until every sequence has finished (or ``maximum_iterations``),
records each sequence's length at the step it finished, and with ``impute_finished`` zeroes
a finished sequence's outputs and keeps its state.

Imported only by the TensorFlow backend of the runner, never by symgrad's tests.
"""

import collections
import types


def make(v1):
    """A ``contrib.seq2seq`` namespace over ``v1`` (``tensorflow.compat.v1``)."""
    nest = __import__("tensorflow").nest
    BasicDecoderOutput = collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))

    def to_time_major(value):
        rank = value.shape.ndims
        return v1.transpose(value, [1, 0] + list(range(2, rank)))

    class TrainingHelper:
        def __init__(self, inputs, sequence_length, time_major=False, name=None):
            self._inputs = inputs if time_major else to_time_major(v1.convert_to_tensor(inputs))
            self._lengths = v1.cast(sequence_length, v1.int32)
            self._zero = v1.zeros_like(self._inputs[0])

        @property
        def batch_size(self):
            return v1.shape(self._lengths)[0]

        def initialize(self):
            finished = v1.equal(0, self._lengths)
            inputs = v1.cond(v1.reduce_all(finished), lambda: self._zero, lambda: self._inputs[0])
            return finished, inputs

        def sample(self, time, outputs, state):
            return v1.cast(v1.argmax(outputs, -1), v1.int32)

        def next_inputs(self, time, outputs, state, sample_ids):
            following = time + 1
            finished = following >= self._lengths
            inputs = v1.cond(
                v1.reduce_all(finished),
                lambda: self._zero,
                lambda: v1.gather(self._inputs, following),
            )
            return finished, inputs, state

    class GreedyEmbeddingHelper:
        def __init__(self, embedding, start_tokens, end_token):
            self._embed = (
                embedding
                if callable(embedding)
                else (lambda ids: v1.nn.embedding_lookup(embedding, ids))
            )
            self._start = v1.cast(start_tokens, v1.int32)
            self._end = v1.cast(end_token, v1.int32)
            self._start_inputs = self._embed(self._start)

        @property
        def batch_size(self):
            return v1.shape(self._start)[0]

        def initialize(self):
            return v1.zeros(v1.shape(self._start), v1.bool), self._start_inputs

        def sample(self, time, outputs, state):
            return v1.cast(v1.argmax(outputs, -1), v1.int32)

        def next_inputs(self, time, outputs, state, sample_ids):
            finished = v1.equal(sample_ids, self._end)
            inputs = v1.cond(
                v1.reduce_all(finished), lambda: self._start_inputs, lambda: self._embed(sample_ids)
            )
            return finished, inputs, state

    class BasicDecoder:
        def __init__(self, cell, helper, initial_state, output_layer=None):
            self._cell, self._helper = cell, helper
            self._state, self._layer = initial_state, output_layer

        def initialize(self):
            finished, inputs = self._helper.initialize()
            return finished, inputs, self._state

        def step(self, time, inputs, state):
            outputs, state = self._cell(inputs, state)
            if self._layer is not None:
                outputs = self._layer(outputs)
            ids = self._helper.sample(time, outputs, state)
            finished, inputs, state = self._helper.next_inputs(time, outputs, state, ids)
            return BasicDecoderOutput(outputs, ids), state, inputs, finished

    def dynamic_decode(
        decoder,
        output_time_major=False,
        impute_finished=False,
        maximum_iterations=None,
        parallel_iterations=32,
        swap_memory=False,
        scope=None,
    ):
        with v1.variable_scope(scope or "decoder"):
            finished, inputs, state = decoder.initialize()
            if maximum_iterations is not None:
                finished = v1.logical_or(finished, maximum_iterations <= 0)
            lengths = v1.zeros_like(finished, dtype=v1.int32)
            float_dtype = nest.flatten(state)[0].dtype
            outputs_ta = v1.TensorArray(float_dtype, size=0, dynamic_size=True)
            ids_ta = v1.TensorArray(v1.int32, size=0, dynamic_size=True)

            def condition(time, outputs_ta, ids_ta, state, inputs, finished, lengths):
                return v1.logical_not(v1.reduce_all(finished))

            def body(time, outputs_ta, ids_ta, state, inputs, finished, lengths):
                outputs, next_state, next_inputs, done = decoder.step(time, inputs, state)
                next_finished = v1.logical_or(done, finished)
                if maximum_iterations is not None:
                    next_finished = v1.logical_or(next_finished, time + 1 >= maximum_iterations)
                next_lengths = v1.where(
                    v1.logical_not(finished), v1.fill(v1.shape(lengths), time + 1), lengths
                )
                if impute_finished:
                    outputs = BasicDecoderOutput(
                        *(v1.where(finished, v1.zeros_like(o), o) for o in outputs)
                    )
                    next_state = nest.map_structure(
                        lambda new, old: v1.where(finished, old, new), next_state, state
                    )
                # A list, as loop_vars are: TF's while_loop with maximum_iterations compares
                # the structures' sequence types.
                return [
                    time + 1,
                    outputs_ta.write(time, outputs.rnn_output),
                    ids_ta.write(time, outputs.sample_id),
                    next_state,
                    next_inputs,
                    next_finished,
                    next_lengths,
                ]

            _, outputs_ta, ids_ta, state, _, _, lengths = v1.while_loop(
                condition,
                body,
                [v1.constant(0), outputs_ta, ids_ta, state, inputs, finished, lengths],
                maximum_iterations=maximum_iterations,
            )
            rnn_output, sample_id = outputs_ta.stack(), ids_ta.stack()
            if not output_time_major:
                rnn_output, sample_id = to_time_major(rnn_output), to_time_major(sample_id)
            return BasicDecoderOutput(rnn_output, sample_id), state, lengths

    def sequence_loss(
        logits,
        targets,
        weights,
        average_across_timesteps=True,
        average_across_batch=True,
        name=None,
    ):
        classes = v1.shape(logits)[2]
        crossent = v1.nn.sparse_softmax_cross_entropy_with_logits(
            labels=v1.reshape(targets, [-1]), logits=v1.reshape(logits, [-1, classes])
        ) * v1.reshape(weights, [-1])
        return v1.reduce_sum(crossent) / v1.reduce_sum(weights)

    return types.SimpleNamespace(
        BasicDecoder=BasicDecoder,
        BasicDecoderOutput=BasicDecoderOutput,
        GreedyEmbeddingHelper=GreedyEmbeddingHelper,
        TrainingHelper=TrainingHelper,
        dynamic_decode=dynamic_decode,
        sequence_loss=sequence_loss,
    )
