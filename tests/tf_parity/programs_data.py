"""TF1 programs with ``tf.data`` input pipelines (TensorFlow parity tests of symgrad.data).

Each program is ``fn(tf)``: it builds a graph in a fresh default graph, runs it in a session
(reading iterators until ``tf.errors.OutOfRangeError`` where it says so) and returns plain
Python values (lists, numbers, strings), the same code under TensorFlow and under symgrad.
``tf_fixtures_data.json`` (written by ``record_tf_data.py``) holds what TensorFlow 2.21's
``compat.v1`` returned, keyed by function name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

PROGRAMS: list[Any] = []


def _program(fn: Any) -> Any:
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _plain(value: Any) -> Any:
    """``value`` as JSON: arrays as (dtype, shape, values)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None:
        return None
    array = np.asarray(value)
    return [array.dtype.name, list(array.shape), array.tolist()]


def _drain(tf: Any, sess: Any, fetches: Any, limit: int = 100) -> dict[str, Any]:
    """Run ``fetches`` until the iterator ends: the values and where it ended."""
    values = []
    for _ in range(limit):
        try:
            values.append(_plain(sess.run(fetches)))
        except tf.errors.OutOfRangeError:
            return {"values": values, "ended": True}
    return {"values": values, "ended": False}


def _spec(tf: Any, dataset: Any) -> Any:
    types = tf.data.get_output_types(dataset)
    shapes = tf.data.get_output_shapes(dataset)

    def walk(t: Any, s: Any) -> Any:
        if isinstance(t, dict):
            return {k: walk(t[k], s[k]) for k in sorted(t)}
        if isinstance(t, tuple):
            return [walk(a, b) for a, b in zip(t, s, strict=True)]
        dims = (
            None
            if s.ndims is None
            else [d if isinstance(d, int) or d is None else d.value for d in s.as_list()]
        )
        return [t.name, dims]

    return walk(types, shapes)


@_program
def range_batch_epoch(tf):
    dataset = tf.data.Dataset.range(5).batch(2)
    nxt = tf.data.make_one_shot_iterator(dataset).get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
        try:
            sess.run(nxt)
            out["again"] = "no error"
        except tf.errors.OutOfRangeError:
            out["again"] = "OutOfRangeError"
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def slices_dict_batch_repeat(tf):
    features = {
        "a": np.arange(12, dtype=np.float64).reshape(4, 3),
        "b": [1, 2, 3, 4],
        "c": np.array([0.5, 1.5, 2.5, 3.5], np.float32),
    }
    dataset = tf.data.Dataset.from_tensor_slices(features).repeat(2).batch(3)
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def slices_tuple_drop_remainder(tf):
    x = np.arange(14, dtype=np.float32).reshape(7, 2)
    y = [0.25 * i for i in range(7)]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(3, drop_remainder=True)
    a, b = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, [a, b])
    out["spec"] = _spec(tf, dataset)
    out["static"] = [list(a.shape.as_list()), list(b.shape.as_list())]
    return out


@_program
def skip_take_repeat(tf):
    dataset = tf.data.Dataset.range(10).skip(2).take(5).repeat(2).batch(4).prefetch(1)
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _drain(tf, sess, nxt)


@_program
def take_all_skip_all(tf):
    a = tf.data.Dataset.range(3).take(-1).make_one_shot_iterator().get_next()
    b = tf.data.Dataset.range(3).skip(-1).make_one_shot_iterator().get_next()
    c = tf.data.Dataset.range(3).repeat(0).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return [_drain(tf, sess, a), _drain(tf, sess, b), _drain(tf, sess, c)]


@_program
def zip_tuple_and_dict(tf):
    numbers = tf.data.Dataset.range(4)
    doubles = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float64) * 2.0)
    pairs = tf.data.Dataset.zip((numbers, doubles)).batch(3)
    named = tf.data.Dataset.zip({"n": numbers, "pair": (doubles, numbers)})
    p = pairs.make_one_shot_iterator().get_next()
    n = named.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return {
            "pairs": _drain(tf, sess, p),
            "named": _drain(tf, sess, n),
            "spec": [_spec(tf, pairs), _spec(tf, named)],
        }


@_program
def from_tensors_repeat(tf):
    dataset = tf.data.Dataset.from_tensors(([1, 2, 3], np.float32(4.0))).repeat(3).batch(2)
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def map_tuple_then_batch(tf):
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.array([3, 1, 4, 1, 5], np.int64)
    dataset = (
        tf.data.Dataset.from_tensor_slices((x, y))
        .map(lambda a, b: (tf.reduce_sum(a * a), tf.cast(b, tf.float32) * 0.5, a[0]))
        .batch(2)
    )
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def map_dict_after_batch(tf):
    data = {"x": np.linspace(-1.0, 1.0, 6).astype(np.float32), "k": [1, 2, 3, 4, 5, 6]}
    dataset = (
        tf.data.Dataset.from_tensor_slices(data)
        .batch(4)
        .map(lambda d: {"y": tf.tanh(d["x"]) * 2.0, "k2": d["k"] * d["k"]})
    )
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def initializable_restart_with_feed(tf):
    values = tf.placeholder(tf.float32, [None], name="values")
    dataset = tf.data.Dataset.from_tensor_slices(values).map(lambda v: v * 10.0).batch(2)
    iterator = dataset.make_initializable_iterator()
    nxt = iterator.get_next()
    with tf.Session() as sess:
        out = {}
        try:
            sess.run(nxt)
            out["before"] = "no error"
        except tf.errors.FailedPreconditionError:
            out["before"] = "FailedPreconditionError"
        sess.run(iterator.initializer, feed_dict={values: [1.0, 2.0, 3.0]})
        out["first"] = _plain(sess.run(nxt))
        sess.run(iterator.initializer, feed_dict={values: [4.0, 5.0, 6.0, 7.0, 8.0]})
        out["second"] = _drain(tf, sess, nxt)
        sess.run(iterator.initializer, feed_dict={values: [9.0]})
        out["third"] = _drain(tf, sess, nxt)
    return out


@_program
def two_get_next_in_one_run(tf):
    iterator = tf.data.Dataset.range(7).make_one_shot_iterator()
    a = iterator.get_next()
    b = iterator.get_next()
    with tf.Session() as sess:
        return _drain(tf, sess, [a, b, a + 100])


@_program
def fed_get_next_does_not_advance(tf):
    nxt = tf.data.Dataset.range(4).make_one_shot_iterator().get_next()
    doubled = nxt * 2
    with tf.Session() as sess:
        first = sess.run(doubled)
        fed = sess.run(doubled, feed_dict={nxt: 50})
        rest = _drain(tf, sess, doubled)
    return {"first": _plain(first), "fed": _plain(fed), "rest": rest}


@_program
def one_shot_iterator_per_session(tf):
    nxt = tf.data.Dataset.range(3).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = _drain(tf, sess, nxt)
    with tf.Session() as sess:
        second = _drain(tf, sess, nxt, limit=2)
    return [first, second]


@_program
def linear_regression_training_loop(tf):
    rng = np.random.RandomState(0)
    features = rng.uniform(-1.0, 1.0, size=(20, 3)).astype(np.float32)
    targets = (features @ np.array([[1.5], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((features, targets)).repeat(3).batch(8)
    x, y = dataset.make_one_shot_iterator().get_next()
    w = tf.Variable(tf.zeros([3, 1]), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    train = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    losses = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        steps = 0
        while True:
            try:
                _, value = sess.run([train, loss])
            except tf.errors.OutOfRangeError:
                break
            steps += 1
            losses.append(float(value))
        final = sess.run([w, b])
    return {"steps": steps, "losses": losses, "w": _plain(final[0]), "b": _plain(final[1])}


# -- filter, padded_batch, from_generator, flat_map, interleave, cache, concatenate, apply,
# -- Iterator.from_structure -----------------------------------------------------------------


@_program
def filter_then_batch(tf):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.array([0, 1, 1, 0, 1, 0], np.int64)
    dataset = (
        tf.data.Dataset.from_tensor_slices((x, labels))
        .filter(lambda a, y: tf.logical_and(tf.equal(y, 1), tf.reduce_sum(a) > 2.0))
        .batch(2)
    )
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def filter_dict_after_map_repeat(tf):
    data = {"v": np.linspace(-1.0, 1.0, 5).astype(np.float32), "k": [1, 2, 3, 4, 5]}
    dataset = (
        tf.data.Dataset.from_tensor_slices(data)
        .map(lambda d: {"v": d["v"] * 2.0, "k": d["k"]})
        .filter(lambda d: d["v"] >= 0.0)
        .repeat(2)
    )
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _drain(tf, sess, nxt)


@_program
def padded_batch_lengths(tf):
    dataset = tf.data.Dataset.range(1, 6).map(lambda n: tf.fill([n], n))
    loose = dataset.padded_batch(2, padded_shapes=[None])
    fixed = dataset.padded_batch(2, padded_shapes=[6], drop_remainder=True)
    a = loose.make_one_shot_iterator().get_next()
    b = fixed.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return {
            "loose": _drain(tf, sess, a),
            "fixed": _drain(tf, sess, b),
            "spec": [_spec(tf, loose), _spec(tf, fixed)],
        }


@_program
def padded_batch_tuple_padding_values(tf):
    dataset = tf.data.Dataset.range(1, 5).map(
        lambda n: (
            tf.fill([n, 2], tf.cast(n, tf.float32)),
            tf.cumsum(tf.fill([n], tf.constant(1, tf.int64))) - 1,
            n > 2,
        )
    )
    batched = dataset.padded_batch(
        3,
        padded_shapes=([None, 3], [-1], []),
        padding_values=(-1.0, tf.constant(7, tf.int64), False),
    )
    nxt = batched.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, batched)
    return out


@_program
def padded_batch_too_small(tf):
    dataset = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill([n], n)).padded_batch(2, [2])
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = _plain(sess.run(nxt))
        try:
            sess.run(nxt)
            second = "no error"
        except tf.errors.OutOfRangeError:
            second = "OutOfRangeError"
        except Exception:  # TF: DataLossError; symgrad: InvalidArgumentError
            second = "error"
    return {"first": first, "second": second}


def _counting(n, scale):
    for i in range(int(n)):
        yield [i, i * 2][: 1 + i % 2], np.float64(i * scale)


@_program
def from_generator_args_and_restart(tf):
    dataset = tf.data.Dataset.from_generator(
        _counting,
        (tf.int32, tf.float32),
        (tf.TensorShape([None]), tf.TensorShape([])),
        args=(5, 0.5),
    )
    batched = dataset.padded_batch(2, ([None], []))
    iterator = batched.make_initializable_iterator()
    nxt = iterator.get_next()
    with tf.Session() as sess:
        sess.run(iterator.initializer)
        first = _drain(tf, sess, nxt)
        sess.run(iterator.initializer)
        again = _drain(tf, sess, nxt)
    return {"first": first, "again": again, "spec": _spec(tf, dataset)}


@_program
def from_generator_wrong_shape(tf):
    def rows():
        yield [1.0, 2.0]
        yield [1.0, 2.0, 3.0]
        yield [4.0, 5.0]

    dataset = tf.data.Dataset.from_generator(rows, tf.float32, tf.TensorShape([2]))
    nxt = dataset.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        for _ in range(4):
            try:
                out.append(_plain(sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                out.append("OutOfRangeError")
            except tf.errors.InvalidArgumentError:
                out.append("InvalidArgumentError")
    return out


@_program
def flat_map_and_interleave_order(tf):
    source = tf.data.Dataset.range(1, 6)

    def runs(n):
        return tf.data.Dataset.from_tensors(n).repeat(n)

    flat = source.flat_map(runs)
    two_by_two = source.interleave(runs, cycle_length=2, block_length=2)
    three = source.interleave(lambda n: tf.data.Dataset.range(10 * n, 10 * n + 3), cycle_length=3)
    fetches = [d.make_one_shot_iterator().get_next() for d in (flat, two_by_two, three)]
    with tf.Session() as sess:
        return {
            "flat": _drain(tf, sess, fetches[0]),
            "two_by_two": _drain(tf, sess, fetches[1]),
            "three": _drain(tf, sess, fetches[2]),
            "spec": _spec(tf, three),
        }


@_program
def flat_map_slices_of_batches(tf):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    dataset = (
        tf.data.Dataset.from_tensor_slices(x)
        .batch(4)
        .flat_map(lambda b: tf.data.Dataset.from_tensor_slices(b * 10.0))
        .batch(5)
    )
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, dataset)
    return out


@_program
def cache_keeps_the_first_pass(tf):
    dataset = tf.data.Dataset.range(3).map(lambda n: tf.random_uniform([]) + tf.cast(n, tf.float32))
    cached = dataset.cache().repeat(2)
    nxt = cached.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        values = [float(v) for v in (sess.run(nxt) for _ in range(6))]
        try:
            sess.run(nxt)
            end = "no error"
        except tf.errors.OutOfRangeError:
            end = "OutOfRangeError"
    return {"repeats": values[:3] == values[3:], "end": end, "floor": [int(v) for v in values]}


@_program
def concatenate_and_apply(tf):
    a = tf.data.Dataset.from_tensor_slices((np.zeros((2, 3), np.float32), [1, 2]))
    b = tf.data.Dataset.from_tensors(
        (np.ones((4, 3), np.float32), np.array([3, 4, 5, 6], np.int32))
    )
    joined = a.batch(2).concatenate(b).apply(lambda d: d.map(lambda u, v: (u * 2.0, v + 1)))
    nxt = joined.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        out = _drain(tf, sess, nxt)
    out["spec"] = _spec(tf, joined)
    return out


@_program
def reinitializable_iterator_switches(tf):
    train = tf.data.Dataset.from_tensor_slices(
        (np.arange(10, dtype=np.float32).reshape(5, 2), np.arange(5, dtype=np.int64))
    ).batch(2)
    valid = tf.data.Dataset.from_tensor_slices(
        (np.full((3, 2), -1.0, np.float32), np.array([7, 8, 9], np.int64))
    ).batch(3)
    iterator = tf.data.Iterator.from_structure(
        tf.data.get_output_types(train), tf.data.get_output_shapes(train)
    )
    x, y = iterator.get_next()
    total = tf.reduce_sum(x) + tf.cast(tf.reduce_sum(y), tf.float32)
    to_train = iterator.make_initializer(train)
    to_valid = iterator.make_initializer(valid)
    out = {"static": [x.shape.as_list(), y.shape.as_list()]}
    with tf.Session() as sess:
        try:
            sess.run(total)
            out["before"] = "no error"
        except tf.errors.FailedPreconditionError:
            out["before"] = "FailedPreconditionError"
        sess.run(to_train)
        out["train_first"] = _plain(sess.run(total))
        sess.run(to_valid)
        out["valid"] = _drain(tf, sess, total)
        sess.run(to_train)
        out["train"] = _drain(tf, sess, [x, y])
    return out


@_program
def shuffle_filter_batch_sizes(tf):
    # The order is not TF's; the batch sizes and the set of elements are.
    dataset = (
        tf.data.Dataset.range(40).shuffle(40, seed=3).filter(lambda n: tf.equal(n % 4, 1)).batch(4)
    )
    nxt = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        batches = _drain(tf, sess, nxt)
    return {
        "sizes": [b[1] for b in batches["values"]],
        "set": sorted(v for b in batches["values"] for v in b[2]),
        "ended": batches["ended"],
    }
