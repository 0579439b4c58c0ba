"""Recurrent cells and their unrolling (symgrad.rnn): names, reuse, dropout and errors.

The values, final states and gradients are checked against TensorFlow in the layers corpus
(``tests/tf_parity/programs_layers.py``, the ``rnn_*`` programs); the variable and op names
below are TF 2.21's (``compat.v1`` with its Keras 2 cells).
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from symgrad.contrib import rnn


def _names() -> list[str]:
    return [v.name for v in sg.global_variables()]


def test_variables_are_named_as_in_tf1() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 5, 3])
        cell = sg.nn.rnn_cell.DropoutWrapper(sg.nn.rnn_cell.BasicLSTMCell(4), output_keep_prob=0.5)
        sg.nn.dynamic_rnn(cell, x, dtype=sg.float32)
        cells = [
            sg.nn.rnn_cell.DropoutWrapper(sg.nn.rnn_cell.GRUCell(4), input_keep_prob=0.9)
            for _ in range(2)
        ]
        sg.nn.dynamic_rnn(sg.nn.rnn_cell.MultiRNNCell(cells), x, dtype=sg.float32, scope="deep")
        mine = sg.nn.rnn_cell.BasicRNNCell(4, name="mine")
        sg.nn.static_rnn(mine, sg.unstack(x, axis=1), dtype=sg.float32)
        state = sg.nn.rnn_cell.BasicLSTMCell(4).zero_state(sg.shape(x)[0], sg.float32)
        assert _names() == [
            "rnn/basic_lstm_cell/kernel:0",
            "rnn/basic_lstm_cell/bias:0",
            "deep/multi_rnn_cell/cell_0/gru_cell/gates/kernel:0",
            "deep/multi_rnn_cell/cell_0/gru_cell/gates/bias:0",
            "deep/multi_rnn_cell/cell_0/gru_cell/candidate/kernel:0",
            "deep/multi_rnn_cell/cell_0/gru_cell/candidate/bias:0",
            "deep/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0",
            "deep/multi_rnn_cell/cell_1/gru_cell/gates/bias:0",
            "deep/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0",
            "deep/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0",
            "rnn/mine/kernel:0",
            "rnn/mine/bias:0",
        ]
        assert (state.c.name, state.h.name) == (
            "BasicLSTMCellZeroState/zeros:0",
            "BasicLSTMCellZeroState/zeros_1:0",
        )


def test_lstm_cell_variables_with_peepholes_and_projection() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 5, 3])
        cell = sg.nn.rnn_cell.LSTMCell(4, use_peepholes=True, num_proj=2)
        outputs, state = sg.nn.dynamic_rnn(cell, x, dtype=sg.float32)
        assert [(v.name, v.shape) for v in sg.global_variables()] == [
            ("rnn/lstm_cell/kernel:0", (5, 16)),
            ("rnn/lstm_cell/bias:0", (16,)),
            ("rnn/lstm_cell/w_f_diag:0", (4,)),
            ("rnn/lstm_cell/w_i_diag:0", (4,)),
            ("rnn/lstm_cell/w_o_diag:0", (4,)),
            ("rnn/lstm_cell/projection/kernel:0", (4, 2)),
        ]
        assert (outputs.shape, state.c.shape, state.h.shape) == ((None, 5, 2), (None, 4), (None, 2))


def test_a_cell_called_again_uses_its_variables() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3, 2], name="x")
        cell = rnn.GRUCell(3)
        first, _ = rnn.static_rnn(cell, sg.unstack(x, axis=1), dtype=sg.float64)
        with sg.variable_scope("again"):
            second, _ = rnn.static_rnn(cell, sg.unstack(x, axis=1), dtype=sg.float64)
        assert len(sg.trainable_variables()) == 4
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            feed = {x: np.random.default_rng(0).standard_normal((2, 3, 2))}
            a, b = sess.run([first[-1], second[-1]], feed)
    np.testing.assert_array_equal(a, b)


def test_dropout_kept_whole_is_the_cell_itself() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 4, 2], name="x")
        keep = sg.placeholder(sg.float64, [], name="keep")
        cell = sg.nn.rnn_cell.BasicLSTMCell(3)
        plain, _ = sg.nn.dynamic_rnn(cell, x, dtype=sg.float64)
        wrapped = sg.nn.rnn_cell.DropoutWrapper(
            cell, input_keep_prob=keep, output_keep_prob=keep, state_keep_prob=keep
        )
        dropped, _ = sg.nn.dynamic_rnn(wrapped, x, dtype=sg.float64, scope="wrapped")
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            feed = {x: np.random.default_rng(1).standard_normal((5, 4, 2))}
            whole, same = sess.run([plain, dropped], {**feed, keep: 1.0})
            half = sess.run(dropped, {**feed, keep: 0.5})
    np.testing.assert_allclose(whole, same, rtol=1e-12)
    assert 0.2 < np.mean(half == 0.0) < 0.8  # outputs dropped at about half the places


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
def test_the_unrolled_recurrence_compiles_in_every_form(form: str) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3, 2], name="x")
        length = sg.placeholder(sg.int32, [None], name="length")
        outputs, state = sg.nn.dynamic_rnn(
            sg.nn.rnn_cell.BasicLSTMCell(2), x, sequence_length=length, dtype=sg.float64
        )
        loss = sg.reduce_sum(outputs) + sg.reduce_sum(state.c)
        fetches = [outputs, state.h, *sg.gradients(loss, [x, *sg.trainable_variables()])]
        feed = {
            x: np.random.default_rng(2).standard_normal((2, 3, 2)),
            length: np.array([3, 1], np.int32),
        }
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            expected = sess.run(fetches, feed)
            values = sess.run(sg.trainable_variables())
        inputs = [x, length, *sg.trainable_variables()]
        arguments = [feed[x], feed[length], *values]
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile(fetches, inputs, backend="array_api")
            arguments = [xps.asarray(a) for a in arguments]
        else:
            compiled = sg.compile(fetches, inputs, optimize=form == "fast")
        got = compiled(*arguments)
    for want, have in zip(expected, got, strict=True):
        np.testing.assert_allclose(np.asarray(have), want, rtol=1e-10, atol=1e-12)
    assert np.all(np.asarray(got[0])[1, 1:] == 0.0)  # past its length a sequence outputs 0


def test_bad_rnn_input_is_a_clear_error() -> None:
    with sg.Graph().as_default():
        cell = sg.nn.rnn_cell.BasicRNNCell(2)
        x = sg.placeholder(sg.float32, [None, 4, 3], name="x")
        with pytest.raises(sg.InvalidArgumentError, match="dtype must be specified"):
            sg.nn.dynamic_rnn(cell, x)
        with pytest.raises(sg.ShapeError, match="BasicRNNCell: inputs .* known depth"):
            cell(sg.placeholder(sg.float32, [None, None]), sg.zeros([1, 2]))
        with pytest.raises(sg.InvalidArgumentError, match="input_keep_prob must be between"):
            sg.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob=0.0)
        with pytest.raises(sg.InvalidArgumentError, match="static_rnn: inputs must not be empty"):
            sg.nn.static_rnn(cell, [], dtype=sg.float32)


def test_lengths_pick_rows_whatever_the_static_batch_sizes_say() -> None:
    """The mask of ``sequence_length`` picks rows (TF1's Select of a vector): with a fixed
    batch and lengths of unknown length, or constant lengths and a batch of None, when the
    batch equals the units (a square state) too."""
    rng = np.random.default_rng(3)
    x_value = rng.standard_normal((3, 4, 2))
    for x_shape, lengths in (([3, 4, 2], "fed"), ([None, 4, 2], [4, 0, 2])):
        with sg.Graph().as_default():
            x = sg.placeholder(sg.float64, x_shape, name="x")
            fed = sg.placeholder(sg.int32, [None], name="lengths")
            cell = sg.nn.rnn_cell.GRUCell(3)  # 3 units for 3 sequences
            length = fed if lengths == "fed" else lengths
            outputs, state = sg.nn.dynamic_rnn(cell, x, sequence_length=length, dtype=sg.float64)
            with sg.Session() as sess:
                sess.run(sg.global_variables_initializer())
                out, last = sess.run([outputs, state], {x: x_value, fed: [4, 0, 2]})
        assert np.all(out[1] == 0.0) and np.all(last[1] == 0.0)  # length 0: nothing ran
        assert np.all(out[2, 2:] == 0.0) and np.all(out[2, :2] != 0.0)
        np.testing.assert_array_equal(last[2], out[2, 1])


def test_state_dropout_keeps_the_cell_state_of_every_lstm() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 1, 2], name="x")
        multi = sg.nn.rnn_cell.MultiRNNCell([sg.nn.rnn_cell.BasicLSTMCell(3) for _ in range(2)])
        _, plain = sg.nn.dynamic_rnn(multi, x, dtype=sg.float32)
        wrapped = sg.nn.rnn_cell.DropoutWrapper(multi, state_keep_prob=0.5, seed=1)
        _, dropped = sg.nn.dynamic_rnn(wrapped, x, dtype=sg.float32, scope="again")
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            feed = {x: np.random.default_rng(4).standard_normal((64, 1, 2))}
            kept, half = sess.run([plain, dropped], feed)
    for layer in range(2):
        np.testing.assert_array_equal(half[layer].c, kept[layer].c)
        assert 0.2 < np.mean(half[layer].h == 0.0) < 0.8


def test_lengths_tf_refuses_are_errors() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3, 2], name="x")
        lengths = sg.placeholder(sg.int32, [None], name="lengths")
        cells = sg.nn.rnn_cell.GRUCell(2), sg.nn.rnn_cell.GRUCell(2)
        outputs, _ = sg.nn.bidirectional_dynamic_rnn(
            *cells, x, sequence_length=lengths, dtype=sg.float32
        )
        with pytest.raises(sg.ShapeError, match="sequence_length .* must be a vector"):
            sg.nn.dynamic_rnn(sg.nn.rnn_cell.GRUCell(2), x, sequence_length=3, dtype=sg.float32)
        with pytest.raises(sg.ShapeError, match="static_rnn: the inputs of each step"):
            sg.nn.static_rnn(cells[0], [sg.placeholder(sg.float32)], dtype=sg.float32)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            for bad in ([4, 1], [-1, 1]):  # past the 3 steps, or negative
                with pytest.raises(IndexError, match="ReverseSequence"):
                    sess.run(outputs, {x: np.zeros((2, 3, 2)), lengths: bad})
