"""TF1's session configuration messages (symgrad.config), nested feeds and structured fetches."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as tf
from symgrad.errors import ArgumentTypeError, InvalidArgumentError, MessageFieldError


def test_defaults_are_tensorflows() -> None:
    config = tf.ConfigProto()
    assert config.log_device_placement is False and config.allow_soft_placement is False
    assert config.intra_op_parallelism_threads == 0 == config.inter_op_parallelism_threads
    assert dict(config.device_count) == {} and config.gpu_options == tf.GPUOptions()
    assert config.gpu_options.allow_growth is False
    assert config.gpu_options.per_process_gpu_memory_fraction == 0.0
    assert tf.RunOptions().trace_level == tf.RunOptions.NO_TRACE == 0
    assert (tf.RunOptions.SOFTWARE_TRACE, tf.RunOptions.HARDWARE_TRACE) == (1, 2)
    assert tf.RunOptions.FULL_TRACE == 3
    metadata = tf.RunMetadata()
    assert list(metadata.step_stats.dev_stats) == [] and list(metadata.partition_graphs) == []


def test_fields_set_by_keyword_and_attribute() -> None:
    config = tf.ConfigProto(
        log_device_placement=True,
        allow_soft_placement=True,
        intra_op_parallelism_threads=2,
        inter_op_parallelism_threads=4,
        device_count={"GPU": 0, "CPU": 1},
        gpu_options=tf.GPUOptions(allow_growth=True, per_process_gpu_memory_fraction=0.4),
    )
    assert config.log_device_placement and config.allow_soft_placement
    assert (config.intra_op_parallelism_threads, config.inter_op_parallelism_threads) == (2, 4)
    assert dict(config.device_count) == {"GPU": 0, "CPU": 1}
    assert config.gpu_options.allow_growth
    assert config.gpu_options.per_process_gpu_memory_fraction == pytest.approx(0.4)
    other = tf.ConfigProto()
    other.gpu_options.allow_growth = True
    other.device_count["CPU"] = 2
    other.intra_op_parallelism_threads = 3
    assert other.gpu_options.allow_growth and other.device_count == {"CPU": 2}
    assert tf.ConfigProto() != other
    assert tf.ConfigProto(gpu_options={"allow_growth": True}).gpu_options.allow_growth
    assert repr(tf.GPUOptions(allow_growth=True)) == "GPUOptions(allow_growth=True)"
    assert tf.GPUOptions(per_process_gpu_memory_fraction=1).per_process_gpu_memory_fraction == 1.0


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.ConfigProto(no_such_field=1),
        lambda: tf.GPUOptions(allow_grow=True),
        lambda: tf.RunOptions(trace=3),
        lambda: tf.RunMetadata(stats=None),
        lambda: tf.ConfigProto(intra_op_parallelism_threads=2.0),
        lambda: tf.ConfigProto(intra_op_parallelism_threads=True),
        lambda: tf.GPUOptions(allow_growth="yes"),
        lambda: tf.ConfigProto(device_count={"GPU": "none"}),
        lambda: tf.ConfigProto(gpu_options=1),
    ],
)
def test_unknown_fields_and_wrong_values_are_errors(make) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(MessageFieldError) as caught:
        make()
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)


def test_attributes_are_checked_as_protobuf_does() -> None:
    config = tf.ConfigProto()
    with pytest.raises(AttributeError, match="no field 'allow_growth'"):
        config.allow_growth = True  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="in place"):
        config.gpu_options = tf.GPUOptions()
    with pytest.raises(TypeError):
        config.log_device_placement = "yes"
    with pytest.raises(TypeError, match="No positional|positional"):
        tf.ConfigProto(True)  # type: ignore[misc]


def test_accepted_by_session_interactive_session_and_run() -> None:
    config = tf.ConfigProto(allow_soft_placement=True)
    config.gpu_options.allow_growth = True
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        y = x * 2.0
        options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        metadata = tf.RunMetadata()
        with tf.Session(config=config) as sess:
            value = sess.run(y, {x: [1.0, 2.0]}, options=options, run_metadata=metadata)
            np.testing.assert_array_equal(value, [2.0, 4.0])
            step = sess.make_callable(y, [x], accept_options=True)
            np.testing.assert_array_equal(step([1.0, 1.0], options=options), [2.0, 2.0])
            with pytest.raises(ArgumentTypeError, match="RunOptions"):
                sess.run(y, {x: [1.0, 2.0]}, options=1)
            with pytest.raises(ArgumentTypeError, match="RunMetadata"):
                sess.run(y, {x: [1.0, 2.0]}, run_metadata={})
        sess = tf.InteractiveSession(config=tf.ConfigProto(log_device_placement=True))
        try:
            np.testing.assert_array_equal(y.eval({x: [0.5, 1.0]}), [1.0, 2.0])
        finally:
            sess.close()
        with pytest.raises(ArgumentTypeError, match="ConfigProto"):
            tf.Session(config={"allow_soft_placement": True})


def test_nested_feeds_and_structured_fetches() -> None:
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, [1, 2], name="c")
        h = tf.placeholder(tf.float32, [1, 2], name="h")
        k = tf.placeholder(tf.float32, [1, 2], name="k")
        state = (tf.nn.rnn_cell.LSTMStateTuple(c, h), k)
        new = (tf.nn.rnn_cell.LSTMStateTuple(c + 1.0, h * 2.0), k - 1.0)
        with tf.Session() as sess:
            value = (tf.nn.rnn_cell.LSTMStateTuple(np.zeros((1, 2)), np.ones((1, 2))), [[3.0, 3.0]])
            for _ in range(2):
                value = sess.run(new, {state: value})
            assert isinstance(value, tuple) and isinstance(value[0], tf.nn.rnn_cell.LSTMStateTuple)
            np.testing.assert_array_equal(value[0].c, [[2.0, 2.0]])
            np.testing.assert_array_equal(value[0].h, [[4.0, 4.0]])
            np.testing.assert_array_equal(value[1], [[1.0, 1.0]])
            fetched = sess.run({"state": new, "list": [[c], h]}, {state: value})
            assert set(fetched) == {"state", "list"}
            assert isinstance(fetched["state"][0], tf.nn.rnn_cell.LSTMStateTuple)
            assert isinstance(fetched["list"], list) and isinstance(fetched["list"][0], list)
            with pytest.raises(InvalidArgumentError, match="same structure"):
                sess.run(new, {state: (np.zeros((1, 2)), np.zeros((1, 2)))})
            with pytest.raises(InvalidArgumentError, match="same structure"):
                sess.run(new, {state: np.zeros((2, 1, 2))})


def test_constant_refuses_a_list_of_tensors_as_tensorflow_does() -> None:
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        with pytest.raises(tf.DTypeError, match="tf.stack|symgrad.stack"):
            tf.constant([a, a])
        with pytest.raises(tf.DTypeError, match="float32"):
            tf.convert_to_tensor([a, tf.constant([1, 2])])
        assert tf.convert_to_tensor([a, a]).op.name == "packed"
        # With a dtype, TF 2.21's compat.v1 casts the list's tensors to it.
        assert tf.convert_to_tensor([a, a], dtype=tf.float64).dtype == tf.float64
