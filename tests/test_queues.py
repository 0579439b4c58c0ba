"""TF1's queue-based input pipelines (symgrad.queues).

The programs of ``tf_parity/programs_queues.py`` run here under symgrad and are compared with
what TensorFlow 2.21's ``compat.v1`` returned for the same code (``tf_fixtures_queues.json``,
written by ``tf_parity/record_tf_queues.py``): element order and values of unshuffled
pipelines, epochs, batch sizes and the smaller final batch, the contents of shuffled epochs,
direct FIFOQueue use. The rest checks what TF cannot record: seeded shuffles reproducible from
run to run, the Coordinator, and symgrad's errors.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    OutOfRangeError,
    SymgradError,
)

from .tf_parity.programs_queues import PROGRAMS

FIXTURE = Path(__file__).resolve().parent / "tf_parity" / "tf_fixtures_queues.json"
RECORDED = json.loads(FIXTURE.read_text())["programs"]


def _is_array(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and isinstance(value[1], list)
    )


def _assert_same(ours: Any, theirs: Any, where: str) -> None:
    if _is_array(theirs):
        assert _is_array(ours), f"{where}: {ours!r} is not an array"
        assert ours[0] == theirs[0], f"{where}: dtype {ours[0]} != TF's {theirs[0]}"
        assert ours[1] == theirs[1], f"{where}: shape {ours[1]} != TF's {theirs[1]}"
        np.testing.assert_allclose(
            np.asarray(ours[2], dtype=np.float64),
            np.asarray(theirs[2], dtype=np.float64),
            rtol=1e-6,
            err_msg=where,
        )
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), where
        for key in theirs:
            _assert_same(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), (
            f"{where}: {ours!r} != TF's {theirs!r}"
        )
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _assert_same(a, b, f"{where}[{index}]")
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=1e-6), where
    else:
        assert ours == theirs, f"{where}: {ours!r} != TF's {theirs!r}"


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_the_program_matches_tensorflow(program: Any) -> None:
    with tf.Graph().as_default():
        ours = json.loads(json.dumps(program(tf)))
    _assert_same(ours, RECORDED[program.__name__], program.__name__)


def test_every_program_is_recorded() -> None:
    assert sorted(RECORDED) == sorted(p.__name__ for p in PROGRAMS)


def test_the_recorded_values_are_what_tf1_gives() -> None:
    # A few of the fixture's facts spelled out: the smaller final batch, epochs in order.
    smaller = RECORDED["batch_smaller_final_batch"]
    assert [v[1] for v in smaller["values"]] == [[3], [3], [1]] and smaller["ended"]
    assert smaller["static"] == [None]  # allow_smaller_final_batch: unknown batch size
    dropped = RECORDED["batch_drops_the_remainder"]
    assert len(dropped["values"]) == 2 and dropped["static"] == [[3, 2], [3]]
    in_order = RECORDED["slice_producer_epochs_in_order"]["values"]
    assert [v[1][2] for v in in_order] == [3, 1, 4, 1, 5] * 2
    assert RECORDED["shuffle_batch_one_epoch"]["sizes"] == [6, 6, 6, 2]


# -- shuffling: NumPy's order, reproducible with a seed ------------------------------------------


def _drain(fetch: Any, graph: tf.Graph) -> list[Any]:
    values = []
    with graph.as_default(), tf.Session() as sess:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while not coord.should_stop():
                values.append(np.asarray(sess.run(fetch)).tolist())
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    return values


def _shuffled_pipeline(seed: int | None, graph_seed: int | None = None) -> list[Any]:
    graph = tf.Graph()
    with graph.as_default():
        if graph_seed is not None:
            tf.set_random_seed(graph_seed)
        (item,) = tf.train.slice_input_producer(
            [np.arange(30, dtype=np.int32)], num_epochs=2, seed=seed
        )
        batch = tf.train.shuffle_batch(
            [item],
            batch_size=4,
            capacity=10,
            min_after_dequeue=5,
            seed=seed,
            allow_smaller_final_batch=True,
        )
    return _drain(batch, graph)


def test_seeded_shuffling_is_reproducible_run_to_run() -> None:
    first, second = _shuffled_pipeline(seed=11), _shuffled_pipeline(seed=11)
    assert first == second
    assert first != _shuffled_pipeline(seed=12)
    flat = [v for b in first for v in b]
    assert sorted(flat) == sorted(list(range(30)) * 2) and flat != sorted(flat)
    assert [len(b) for b in first] == [4] * 15
    assert _shuffled_pipeline(None, graph_seed=4) == _shuffled_pipeline(None, graph_seed=4)


def test_without_a_seed_shuffling_differs_run_to_run() -> None:
    orders = {tuple(tuple(b) for b in _shuffled_pipeline(seed=None)) for _ in range(3)}
    assert len(orders) == 3


def test_each_epoch_is_a_permutation() -> None:
    graph = tf.Graph()
    with graph.as_default():
        (item,) = tf.train.slice_input_producer([np.arange(12)], num_epochs=3, seed=1)
    values = _drain(item, graph)
    epochs = [values[i : i + 12] for i in range(0, 36, 12)]
    assert len(values) == 36 and all(sorted(e) == list(range(12)) for e in epochs)
    assert epochs[0] != epochs[1]


def test_a_shuffle_batch_draws_from_its_buffer() -> None:
    # The buffer holds `capacity` elements: the first batch comes from the first 10 slices.
    graph = tf.Graph()
    with graph.as_default():
        (item,) = tf.train.slice_input_producer([np.arange(100)], shuffle=False)
        batch = tf.train.shuffle_batch([item], 5, capacity=10, min_after_dequeue=5, seed=0)
    with graph.as_default(), tf.Session() as sess:
        tf.train.start_queue_runners(sess)
        first = sess.run(batch)
        later = [sess.run(batch) for _ in range(30)]
    assert all(v < 10 for v in first)
    assert len({int(v) for b in later for v in b}) > 100 - 10  # epochs go on (no num_epochs)


# -- the pipeline and the session loop -----------------------------------------------------------


def test_epochs_end_with_out_of_range_every_run_after() -> None:
    graph = tf.Graph()
    with graph.as_default():
        (item,) = tf.train.slice_input_producer([np.arange(3.0)], num_epochs=1, shuffle=False)
        doubled = item * 2.0
    with graph.as_default(), tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        threads = tf.train.start_queue_runners(sess)
        assert [float(sess.run(doubled)) for _ in range(3)] == [0.0, 2.0, 4.0]
        for _ in range(2):
            with pytest.raises(OutOfRangeError) as caught:
                sess.run(doubled)
            assert isinstance(caught.value, tf.errors.OutOfRangeError)
            assert isinstance(caught.value, SymgradError)
        assert all(not t.is_alive() for t in threads)


def test_a_new_session_starts_the_pipeline_again() -> None:
    graph = tf.Graph()
    with graph.as_default():
        batch = tf.train.batch(
            tf.train.slice_input_producer([np.arange(5)], num_epochs=1, shuffle=False),
            batch_size=2,
            allow_smaller_final_batch=True,
        )
    assert _drain(batch, graph) == [[0, 1], [2, 3], [4]]
    assert _drain(batch, graph) == [[0, 1], [2, 3], [4]]


def test_a_training_loop_with_the_coordinator() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).reshape(64, 1)
    with tf.Graph().as_default():
        xs, ys = tf.train.slice_input_producer([x, y], num_epochs=40, seed=0)
        xb, yb = tf.train.shuffle_batch([xs, ys], 16, capacity=64, min_after_dequeue=16, seed=1)
        w = tf.Variable(tf.zeros([3, 1]))
        b = tf.Variable(0.0)
        loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            steps = 0
            try:
                while not coord.should_stop():
                    sess.run(train)
                    steps += 1
            except tf.errors.OutOfRangeError:
                assert not coord.should_stop()
            finally:
                coord.request_stop()
            assert coord.should_stop()
            coord.join(threads)
            assert coord.joined and all(not t.is_alive() for t in threads)
            w_value = sess.run(w)
    # 40 epochs of 64, batches of 16; the buffer keeps 16 back until the input ends.
    assert steps == 40 * 64 // 16
    np.testing.assert_allclose(w_value.ravel(), [1.0, -2.0, 0.5], atol=1e-3)


def test_the_coordinator_raises_what_was_reported() -> None:
    coord = tf.train.Coordinator()
    with coord.stop_on_exception():
        raise ValueError("a thread failed")
    assert coord.should_stop()
    with pytest.raises(ValueError, match="a thread failed"):
        coord.join()
    clean = tf.train.Coordinator()
    clean.request_stop(OutOfRangeError("end"))
    clean.join()  # a clean stop: nothing raised
    clean.clear_stop()
    assert not clean.should_stop() and not clean.wait_for_stop(0.01)


def test_an_error_in_a_runner_reaches_the_run_and_the_coordinator() -> None:
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        # The runner cannot feed x: its enqueue op fails when the dequeue runs it.
        batch = tf.train.batch([x], batch_size=2, enqueue_many=True)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            tf.train.start_queue_runners(sess, coord)
            with pytest.raises(SymgradError):
                sess.run(batch)
            assert coord.should_stop()
            with pytest.raises(SymgradError):
                coord.join()


def test_queue_runners_must_be_started() -> None:
    with tf.Graph().as_default():
        (item,) = tf.train.slice_input_producer([np.arange(3)])
        with tf.Session() as sess, pytest.raises(FailedPreconditionError, match="runners"):
            sess.run(item)


def test_a_queue_closed_or_full_says_so() -> None:
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
        put = q.enqueue_many([[1, 2, 3]])
        put_one = q.enqueue(4)
        with tf.Session() as sess:
            with pytest.raises(FailedPreconditionError, match="full"):
                sess.run(put)
            sess.run(q.close())
            with pytest.raises(FailedPreconditionError, match="closed"):
                sess.run(put_one)
            with pytest.raises(OutOfRangeError):
                sess.run(q.dequeue())


def test_wrong_values_are_symgrad_errors() -> None:
    with tf.Graph().as_default():
        q = tf.FIFOQueue(4, [tf.float32, tf.int32], shapes=[[2], []])
        v = tf.placeholder(tf.float32, [None])
        put = q.enqueue([v, 1])
        with pytest.raises(InvalidArgumentError, match="2 component"):
            q.enqueue([1.0])
        with pytest.raises(InvalidArgumentError, match="int32"):
            q.enqueue([v, tf.constant(1.5)])
        with tf.Session() as sess, pytest.raises(InvalidArgumentError, match="shape"):
            sess.run(put, feed_dict={v: [1.0, 2.0, 3.0]})
        with pytest.raises(InvalidArgumentError, match="batch_size"):
            tf.train.batch([v], batch_size=0)
        with pytest.raises(InvalidArgumentError, match="num_epochs"):
            tf.train.slice_input_producer([np.arange(3)], num_epochs=0)
        with pytest.raises(InvalidArgumentError, match="dynamic_pad"):
            tf.train.batch([v], batch_size=2, dynamic_pad=True)


def test_range_and_input_producers() -> None:
    graph = tf.Graph()
    with graph.as_default():
        index = tf.train.range_input_producer(4, num_epochs=2, shuffle=False).dequeue()
        rows = tf.train.input_producer(np.eye(2), num_epochs=1, shuffle=False).dequeue()
    assert _drain(index, graph) == [0, 1, 2, 3, 0, 1, 2, 3]
    assert _drain(rows, graph) == [[1.0, 0.0], [0.0, 1.0]]


def test_string_pipelines_are_provided() -> None:
    """The file readers of TF1's queue pipelines exist (tests/test_strings.py runs them)."""
    for module, name in [
        (tf.train, "string_input_producer"),
        (tf, "TextLineReader"),
        (tf, "WholeFileReader"),
        (tf, "decode_csv"),
    ]:
        assert callable(getattr(module, name))
