"""symgrad against TensorFlow 1 on ``tf.layers`` (dense, flatten, batch_normalization):
tf_parity/programs_layers.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_layers.json. The comparison is that of tests/test_tf_parity.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import FORMS, assert_matches_tensorflow, compare_fetches, load_fixtures
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity.programs_layers import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_layers.json")


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    expected = FIXTURES[program.__name__]["fetches"]
    with sg.Graph().as_default():
        stateful = "before" in program(sg)
    if not stateful:
        assert_matches_tensorflow(program, expected, optimize)
        return
    if not optimize:
        pytest.skip("a Session runs the fast form only")
    actual, built = _run_in_session(program)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))


def test_variable_names_follow_tf1() -> None:
    # TensorFlow 2.21 (tf.compat.v1.layers) names these exactly so.
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4])
        y = sg.layers.dense(x, 3)
        sg.layers.dense(y, 2, name="out")
        sg.layers.dense(x, 3)
        sg.layers.batch_normalization(y, training=True)
        names = [v.op.name for v in sg.global_variables()]
        trainable = [v.op.name for v in sg.trainable_variables()]
        updates = sg.get_collection(sg.GraphKeys.UPDATE_OPS)
    assert names == [
        "dense/kernel",
        "dense/bias",
        "out/kernel",
        "out/bias",
        "dense_1/kernel",
        "dense_1/bias",
        "batch_normalization/gamma",
        "batch_normalization/beta",
        "batch_normalization/moving_mean",
        "batch_normalization/moving_variance",
    ]
    assert "batch_normalization/moving_mean" not in trainable
    assert len(updates) == 2


def test_dense_reuses_by_name_and_refuses_a_second_creation() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4])
        sg.layers.dense(x, 3, name="h")
        sg.layers.dense(x, 3, name="h", reuse=True)
        assert len(sg.trainable_variables()) == 2
        with pytest.raises(ValueError, match="h/kernel already exists"):
            sg.layers.dense(x, 3, name="h")


def test_dense_needs_a_known_last_dimension() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, None])
        with pytest.raises(sg.ShapeError, match=r"layers\.dense.*known last dimension"):
            sg.layers.dense(x, 3)
        with pytest.raises(sg.ShapeError, match=r"layers\.dense.*no known rank"):
            sg.layers.dense(sg.placeholder(sg.float32), 3)


def test_batch_norm_training_placeholder_chooses_per_run() -> None:
    data = np.array([[0.0, 10.0], [2.0, 14.0], [4.0, 18.0]])
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 2])
        training = sg.placeholder(sg.bool, [])
        y = sg.layers.batch_normalization(x, training=training, epsilon=0.0)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            normalized = sess.run(y, {x: data, training: True})
            inference = sess.run(y, {x: data, training: False})
    np.testing.assert_allclose(normalized.mean(axis=0), [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(normalized.std(axis=0), [1.0, 1.0], rtol=1e-12)
    np.testing.assert_allclose(inference, data)  # moving mean 0, moving variance 1


def test_conv_layers_name_and_check_their_arguments() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 8, 8, 3])
        sg.layers.conv2d(x, 4, 3)
        sg.layers.conv2d(x, 4, 3)
        assert [v.op.name for v in sg.trainable_variables()] == [
            "conv2d/kernel",
            "conv2d/bias",
            "conv2d_1/kernel",
            "conv2d_1/bias",
        ]
        assert tuple(sg.trainable_variables()[0].shape) == (3, 3, 3, 4)
        with pytest.raises(sg.InvalidArgumentError, match="padding must be 'same' or 'valid'"):
            sg.layers.conv2d(x, 4, 3, padding="full")
        with pytest.raises(sg.InvalidArgumentError, match="'channels_last' or 'channels_first'"):
            sg.layers.max_pooling2d(x, 2, 2, data_format="NHWC")
        with pytest.raises(sg.InvalidArgumentError, match="pool_size must be a positive int"):
            sg.layers.average_pooling2d(x, 0, 2)
        with pytest.raises(
            sg.ShapeError, match=r"layers\.conv2d.*\[batch, height, width, channels\]"
        ):
            sg.layers.conv2d(sg.placeholder(sg.float32, [None, 8]), 4, 3)
