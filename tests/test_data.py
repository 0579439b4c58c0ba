"""``tf.data`` (symgrad.data): datasets and iterators a Session reads from Python.

The programs of ``tf_parity/programs_data.py`` run here under symgrad and are compared with
what TensorFlow 2.21's ``compat.v1`` returned for the same code (``tf_fixtures_data.json``,
written by ``tf_parity/record_tf_data.py``): the elements, their dtypes and shapes, where
``OutOfRangeError`` comes, and a training loop's losses. Shuffling cannot give TF's order:
it is checked for its algorithm (a permutation, the buffer's reach) and reproducibility.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.errors import MissingTF1NameError, OutOfRangeError, SymgradError

from .tf_parity.programs_data import PROGRAMS

FIXTURE = Path(__file__).resolve().parent / "tf_parity" / "tf_fixtures_data.json"
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
            rtol=1e-5,
            atol=1e-6,
            err_msg=where,
        )
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and sorted(ours) == sorted(theirs), where
        for key in theirs:
            _assert_same(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), (
            f"{where}: {len(ours) if isinstance(ours, list) else ours!r} items, TF {len(theirs)}"
        )
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _assert_same(a, b, f"{where}[{index}]")
    elif isinstance(theirs, float):
        assert ours == pytest.approx(theirs, rel=1e-5, abs=1e-6), where
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
    # A few of the fixture's facts, spelled out: the last partial batch, where the epoch ends.
    epoch = RECORDED["range_batch_epoch"]
    assert [v[2] for v in epoch["values"]] == [[0, 1], [2, 3], [4]]
    assert epoch["ended"] and epoch["again"] == "OutOfRangeError"
    assert RECORDED["linear_regression_training_loop"]["steps"] == 8  # ceil(60 / 8)
    losses = RECORDED["linear_regression_training_loop"]["losses"]
    assert losses[-1] < losses[0] / 10


# -- shuffle: TF's buffer algorithm, not TF's numbers --------------------------------------


def _epoch(dataset: Any, session: Any = None) -> list[int]:
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        values = []
        while True:
            try:
                values.append(int(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                return values


def test_shuffle_is_a_permutation_reproducible_with_a_seed() -> None:
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.range(50).shuffle(50, seed=7)
        first, second = _epoch(dataset), _epoch(dataset)
        other = _epoch(tf.data.Dataset.range(50).shuffle(50, seed=8))
    assert sorted(first) == list(range(50))
    assert first == second  # a seed: the same order in each new session
    assert first != list(range(50)) and other != first


def test_shuffle_without_a_seed_differs_run_to_run() -> None:
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.range(50).shuffle(50)
        orders = {tuple(_epoch(dataset)) for _ in range(3)}
    assert len(orders) == 3 and all(sorted(o) == list(range(50)) for o in orders)


def test_the_graph_seed_makes_shuffle_reproducible() -> None:
    orders = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            orders.append(_epoch(tf.data.Dataset.range(30).shuffle(30)))
    assert orders[0] == orders[1] and orders[0] != list(range(30))


def test_a_small_buffer_only_reaches_so_far_ahead() -> None:
    # With a buffer of k, the i-th element given is one of the first i + k of the input.
    with tf.Graph().as_default():
        for seed in range(5):
            order = _epoch(tf.data.Dataset.range(40).shuffle(3, seed=seed))
            assert sorted(order) == list(range(40))
            assert all(value < index + 3 for index, value in enumerate(order))
        assert _epoch(tf.data.Dataset.range(10).shuffle(1, seed=0)) == list(range(10))


def test_shuffle_statistics_are_uniform() -> None:
    # A full buffer picks uniformly: each value lands first about equally often.
    counts = np.zeros(5)
    with tf.Graph().as_default():
        nxt = tf.data.Dataset.range(5).shuffle(5).repeat().make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            for _ in range(2000):
                epoch = [int(sess.run(nxt)) for _ in range(5)]
                assert sorted(epoch) == [0, 1, 2, 3, 4]
                counts[epoch[0]] += 1
    assert np.all(np.abs(counts / 2000 - 0.2) < 0.04), counts


def test_reshuffle_each_iteration() -> None:
    with tf.Graph().as_default():
        fresh = tf.data.Dataset.range(20).shuffle(20, seed=1).repeat(2)
        same = tf.data.Dataset.range(20).shuffle(20, seed=1, reshuffle_each_iteration=False)
        a, b = _epoch(fresh), _epoch(same.repeat(2))
    assert a[:20] != a[20:] and sorted(a[:20]) == sorted(a[20:]) == list(range(20))
    assert b[:20] == b[20:]


def test_an_initializer_restarts_a_seeded_shuffle_in_the_same_order() -> None:
    # As TF1 does: re-running the initializer of a seeded shuffle gives the same order.
    with tf.Graph().as_default():
        iterator = tf.data.Dataset.range(10).shuffle(10, seed=3).make_initializable_iterator()
        nxt = iterator.get_next()
        with tf.Session() as sess:
            orders = []
            for _ in range(2):
                sess.run(iterator.initializer)
                orders.append([int(sess.run(nxt)) for _ in range(10)])
    assert orders[0] == orders[1] and sorted(orders[0]) == list(range(10))


# -- the API around it --------------------------------------------------------------------


def test_out_of_range_error_is_tfs_name_and_an_index_error() -> None:
    assert tf.errors.OutOfRangeError is OutOfRangeError
    assert issubclass(OutOfRangeError, SymgradError) and issubclass(OutOfRangeError, IndexError)


def test_get_next_tensors_and_specs() -> None:
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices(
            {"x": np.zeros((6, 2), np.float32), "y": np.arange(6)}
        ).batch(4)
        iterator = dataset.make_initializable_iterator()
        element = iterator.get_next()
        assert sorted(element) == ["x", "y"]
        assert element["x"].shape == (None, 2) and element["x"].dtype == tf.float32
        assert element["y"].dtype == tf.int64
        assert iterator.output_types == {"x": tf.float32, "y": tf.int64}
        assert tf.data.get_output_classes(dataset) == {"x": tf.Tensor, "y": tf.Tensor}
        assert element["x"].op.type == "Placeholder"


def test_a_one_shot_iterator_has_no_initializer() -> None:
    with tf.Graph().as_default():
        iterator = tf.data.Dataset.range(3).make_one_shot_iterator()
        with pytest.raises(tf.InvalidArgumentError, match="no initializer"):
            iterator.initializer  # noqa: B018


def test_constant_tensors_and_make_callable() -> None:
    with tf.Graph().as_default():
        values = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        row = tf.data.Dataset.from_tensor_slices(values).make_one_shot_iterator().get_next()
        total = tf.reduce_sum(row)
        with tf.Session() as sess:
            step = sess.make_callable(total)
            assert [float(step()) for _ in range(3)] == [3.0, 7.0, 11.0]
            with pytest.raises(tf.errors.OutOfRangeError):
                step()


def test_bad_arguments_are_clear_errors() -> None:
    with tf.Graph().as_default():
        with pytest.raises(tf.InvalidArgumentError, match="first dimensions"):
            tf.data.Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
        with pytest.raises(tf.InvalidArgumentError, match="scalar"):
            tf.data.Dataset.from_tensor_slices(1.0)
        with pytest.raises(tf.InvalidArgumentError, match="batch_size"):
            tf.data.Dataset.range(3).batch(0)
        with pytest.raises(tf.InvalidArgumentError, match="datasets"):
            tf.data.Dataset.zip((tf.data.Dataset.range(2), [1, 2]))


def test_missing_data_names_point_to_the_readme() -> None:
    with pytest.raises(MissingTF1NameError, match=r"tf\.data\.TFRecordDataset"):
        tf.data.TFRecordDataset  # noqa: B018
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        tf.data.no_such_name  # noqa: B018


# -- filter, padded_batch, from_generator, interleave, cache, Iterator.from_structure ---------


def test_shuffle_then_filter_is_reproducible_with_a_seed() -> None:
    def odd_after_shuffle(seed: int) -> Any:
        return tf.data.Dataset.range(60).shuffle(60, seed=seed).filter(lambda n: tf.equal(n % 2, 1))

    with tf.Graph().as_default():
        first, second = _epoch(odd_after_shuffle(5)), _epoch(odd_after_shuffle(5))
        other = _epoch(odd_after_shuffle(6))
    assert first == second and sorted(first) == list(range(1, 60, 2))
    assert first != sorted(first) and other != first


def test_filter_predicate_must_be_a_scalar_bool() -> None:
    with tf.Graph().as_default():
        with pytest.raises(tf.InvalidArgumentError, match="tf.bool scalar"):
            tf.data.Dataset.range(3).filter(lambda n: n)
        with pytest.raises(tf.InvalidArgumentError, match=r"shape \(1,\)"):
            tf.data.Dataset.range(3).filter(lambda n: tf.equal([n], [1]))


def test_padded_batch_errors() -> None:
    with tf.Graph().as_default():
        rows = tf.data.Dataset.from_tensor_slices(np.zeros((3, 4), np.float32))
        with pytest.raises(tf.errors.ShapeError, match="not compatible"):
            rows.padded_batch(2, padded_shapes=[3])
        with pytest.raises(tf.errors.ShapeError, match="not compatible"):
            rows.padded_batch(2, padded_shapes=[None, None])
        with pytest.raises(tf.errors.DTypeError, match="int32 does not match"):
            rows.map(lambda r: tf.cast(r, tf.int64)).padded_batch(
                2, [None], padding_values=tf.constant(1, tf.int32)
            )
        assert rows.padded_batch(2, [6]).output_shapes == (None, 6)


def _generated(rows: Any, types: Any, shapes: Any = None) -> list[Any]:
    def generator() -> Any:
        yield from rows

    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_generator(generator, types, shapes)
        nxt = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            return [sess.run(nxt) for _ in rows]


def test_from_generator_wrong_shapes_and_dtypes_are_clear_errors() -> None:
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(3,\) where .* \(2,\)"):
        _generated([[1.0, 2.0], [1.0, 2.0, 3.0]], tf.float32, [2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was int32"):
        _generated([1.5], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was bool"):
        _generated([1], tf.bool)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was int32"):
        _generated([[[1], [2, 3]]], tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected structure"):
        _generated([(1, 2)], (tf.float32, tf.int32, tf.int32))
    # What TF converts: ints to floats, float64 to float32, bools to ints.
    values = _generated([np.array([1.0, 2.0]), 3, True], tf.float32)
    assert [v.dtype for v in values] == [np.float32] * 3
    with tf.Graph().as_default(), pytest.raises(tf.InvalidArgumentError, match="callable"):
        tf.data.Dataset.from_generator([1, 2], tf.int32)


def test_from_generator_is_called_anew_per_start() -> None:
    calls = []

    def numbers() -> Any:
        calls.append(1)
        yield from range(3)

    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_generator(numbers, tf.int64, []).repeat(2)
        iterator = dataset.make_initializable_iterator()
        nxt = iterator.get_next()
        with tf.Session() as sess:
            for _ in range(2):
                sess.run(iterator.initializer)
                assert [int(sess.run(nxt)) for _ in range(6)] == [0, 1, 2] * 2
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(nxt)
    assert len(calls) == 4  # two epochs per start, two starts
    assert dataset.output_shapes == () and dataset.output_types == tf.int64


def test_from_generator_without_shapes_has_unknown_rank() -> None:
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_generator(lambda: iter([[1, 2]]), tf.int32)
        assert dataset.output_shapes is None
        assert dataset.make_one_shot_iterator().get_next().shape is None


def test_flat_map_and_interleave_need_a_dataset() -> None:
    with tf.Graph().as_default():
        with pytest.raises(tf.InvalidArgumentError, match="must return a tf.data.Dataset"):
            tf.data.Dataset.range(3).flat_map(lambda n: n * 2)
        with pytest.raises(tf.InvalidArgumentError, match="cycle_length"):
            tf.data.Dataset.range(3).interleave(tf.data.Dataset.from_tensors, cycle_length=0)


def test_cache_computes_each_element_once_per_start() -> None:
    with tf.Graph().as_default():
        noise = tf.data.Dataset.range(4).map(lambda n: tf.random_uniform([]))
        iterator = noise.cache().repeat(3).make_initializable_iterator()
        nxt = iterator.get_next()
        with tf.Session() as sess:
            starts = []
            for _ in range(2):
                sess.run(iterator.initializer)
                values = [float(sess.run(nxt)) for _ in range(12)]
                assert values[:4] == values[4:8] == values[8:]
                starts.append(values[:4])
    assert starts[0] != starts[1]  # as TF: a new start computes them again


def test_concatenate_needs_the_same_dtypes() -> None:
    with (
        tf.Graph().as_default(),
        pytest.raises(tf.errors.DTypeError, match="incompatible dataset elements"),
    ):
        tf.data.Dataset.range(3).concatenate(tf.data.Dataset.from_tensors(1.0))


def test_reinitializable_iterator_checks_the_dataset() -> None:
    with tf.Graph().as_default():
        iterator = tf.data.Iterator.from_structure(tf.int64, tf.TensorShape([]))
        with pytest.raises(tf.errors.DTypeError, match="expected output types"):
            iterator.make_initializer(tf.data.Dataset.from_tensors(1.0))
        with pytest.raises(tf.errors.ShapeError, match="expected output shapes"):
            iterator.make_initializer(tf.data.Dataset.from_tensors(np.int64([1, 2])))
        with pytest.raises(tf.InvalidArgumentError, match="make_initializer"):
            iterator.initializer  # noqa: B018
        nxt = iterator.get_next()
        evens = iterator.make_initializer(tf.data.Dataset.range(0, 6, 2))
        odds = iterator.make_initializer(tf.data.Dataset.range(1, 4, 2))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(nxt)
            sess.run(evens)
            assert int(sess.run(nxt)) == 0
            sess.run(odds)
            assert [int(sess.run(nxt)) for _ in range(2)] == [1, 3]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
            sess.run(evens)
            assert int(sess.run(nxt)) == 0


def test_string_handles_and_file_datasets_name_a_substitute() -> None:
    with tf.Graph().as_default():
        iterator = tf.data.Dataset.range(3).make_one_shot_iterator()
        with pytest.raises(MissingTF1NameError, match="from_structure"):
            iterator.string_handle()
        with pytest.raises(MissingTF1NameError, match="make_initializer"):
            tf.data.Iterator.from_string_handle(None, tf.int64)
    for name in ("TFRecordDataset", "FixedLengthRecordDataset"):
        with pytest.raises(MissingTF1NameError, match="from_generator"):
            getattr(tf.data, name)
