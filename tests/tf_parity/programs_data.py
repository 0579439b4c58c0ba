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
