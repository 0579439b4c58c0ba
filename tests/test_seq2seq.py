"""tf.contrib.seq2seq decoding (issue 35): TrainingHelper, GreedyEmbeddingHelper,
BasicDecoder, dynamic_decode (a while_loop collecting TensorArrays) and sequence_mask. The
tutorial program that trains with them against TensorFlow's recorded quality is
tests/tf1_programs/programs/udacity_seq2seq_sort_letters.py."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg

seq2seq = sg.contrib.seq2seq


def test_teacher_forcing_decodes_what_dynamic_rnn_computes() -> None:
    """With impute_finished, a TrainingHelper decoder is dynamic_rnn with sequence_length:
    the same outputs (zeros past each length), final state and lengths, and gradients."""
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(3, 5, 2)).astype(np.float32)
    lengths = np.array([5, 2, 3], np.int32)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, None, 2], name="x")
        n = sg.placeholder(sg.int32, [None], name="n")
        with sg.variable_scope("cell", initializer=sg.constant_initializer(0.3)):
            cell = sg.nn.rnn_cell.GRUCell(4)
            reference, reference_state = sg.nn.dynamic_rnn(
                cell, x, sequence_length=n, dtype=sg.float32
            )
        start = cell.zero_state(sg.shape(x)[0], sg.float32)
        decoder = seq2seq.BasicDecoder(cell, seq2seq.TrainingHelper(x, n), start)
        outputs, state, decoded_lengths = seq2seq.dynamic_decode(decoder, impute_finished=True)
        (kernel,) = [v for v in sg.trainable_variables() if "kernel" in v.name][:1]
        grads = sg.gradients(sg.reduce_sum(outputs.rnn_output), kernel)
        reference_grads = sg.gradients(sg.reduce_sum(reference), kernel)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            got = sess.run(
                [outputs.rnn_output, state, decoded_lengths, grads[0]], {x: xv, n: lengths}
            )
            want = sess.run([reference, reference_state, reference_grads[0]], {x: xv, n: lengths})
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    assert got[2].tolist() == lengths.tolist()
    np.testing.assert_allclose(got[3], want[2], rtol=1e-4, atol=1e-5)


def test_greedy_decoding_stops_at_the_end_token_or_the_limit() -> None:
    """A decoder whose logits always pick token 2 after token 1: ids 1, 2, 2, ... with end
    token 2 every sequence finishes at its first 2; without one, at maximum_iterations."""
    with sg.Graph().as_default():
        embedding = sg.constant(np.eye(3, dtype=np.float32))

        class Echo(sg.nn.rnn_cell.RNNCell):
            """Outputs logits that pick (input id + 1), capped at 2; no state to speak of."""

            state_size = 1
            output_size = 3

            def __call__(self, inputs, state, scope=None):  # type: ignore[no-untyped-def]
                shifted = sg.concat([inputs[:, 2:] * 0.0, inputs[:, :2]], 1) + inputs * [0, 0, 1]
                return shifted * 10.0, state

        start = sg.constant([0, 1], dtype=sg.int32)
        state = sg.zeros([2, 1])
        for end, limit, want_ids, want_lengths in (
            (2, None, [[1, 2], [2, 2]], [2, 1]),
            (5, 4, None, [4, 4]),
        ):
            helper = seq2seq.GreedyEmbeddingHelper(embedding, start, end)
            outputs, _, lengths = seq2seq.dynamic_decode(
                seq2seq.BasicDecoder(Echo(), helper, state), maximum_iterations=limit
            )
            ids, decoded = sg.Session().run([outputs.sample_id, lengths])
            if want_ids is not None:
                assert ids.tolist() == want_ids
            assert decoded.tolist() == want_lengths


def test_sequence_mask() -> None:
    with sg.Graph().as_default():
        lengths = sg.placeholder(sg.int32, [None], name="lengths")
        mask = sg.sequence_mask(lengths)
        floats = sg.sequence_mask(lengths, 4, dtype=sg.float32)
        assert mask.shape == (None, None) and floats.shape == (None, 4)
        got = sg.compile([mask, floats])([2, 0, 3])
    assert got[0].tolist() == [[True, True, False], [False, False, False], [True, True, True]]
    assert got[1].tolist() == [[1, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 0]]
    with sg.Graph().as_default(), pytest.raises(sg.errors.DTypeError, match="must be integers"):
        sg.sequence_mask(sg.constant([1.5]))
