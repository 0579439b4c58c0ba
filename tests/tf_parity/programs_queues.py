"""TF1 programs with queue-based input pipelines (TensorFlow parity tests of symgrad.queues).

Each program is ``fn(tf)``: it builds a graph in a fresh default graph, runs it in a session
(dequeuing until ``tf.errors.OutOfRangeError`` where it says so) and returns plain Python
values, the same code under TensorFlow and under symgrad. ``tf_fixtures_queues.json`` (written
by ``record_tf_queues.py``) holds what TensorFlow 2.21's ``compat.v1`` returned, keyed by
function name. Shuffled pipelines return what must match whatever the order: the sorted
elements of an epoch.
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


def _static(tensors: Any) -> Any:
    """Static shapes (lists with None) of a tensor, or of a list or dict of them."""
    if isinstance(tensors, dict):
        return {k: _static(v) for k, v in sorted(tensors.items())}
    if isinstance(tensors, (list, tuple)):
        return [_static(t) for t in tensors]
    shape = tensors.shape
    return None if shape is None or shape.ndims is None else list(shape.as_list())


def _drain(tf: Any, sess: Any, fetches: Any, limit: int = 60) -> dict[str, Any]:
    """Run ``fetches`` until the pipeline ends: the values and whether it ended."""
    values = []
    for _ in range(limit):
        try:
            values.append(_plain(sess.run(fetches)))
        except tf.errors.OutOfRangeError:
            return {"values": values, "ended": True}
    return {"values": values, "ended": False}


def _started(tf: Any) -> tuple[Any, Any, Any]:
    """A session with its variables initialized and its queue runners started."""
    sess = tf.Session()
    sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    return sess, coord, threads


def _stop(sess: Any, coord: Any, threads: Any) -> None:
    coord.request_stop()
    coord.join(threads)
    sess.close()


@_program
def slice_producer_epochs_in_order(tf):
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    y = np.array([3, 1, 4, 1, 5], dtype=np.int32)
    a, b = tf.train.slice_input_producer([x, y], num_epochs=2, shuffle=False)
    sess, coord, threads = _started(tf)
    out = _drain(tf, sess, [a, b])
    out["static"] = _static([a, b])
    out["dtypes"] = [a.dtype.name, b.dtype.name]
    _stop(sess, coord, threads)
    return out


@_program
def batch_smaller_final_batch(tf):
    x = np.arange(7, dtype=np.float32) * 0.5
    (item,) = tf.train.slice_input_producer([x], num_epochs=1, shuffle=False)
    batch = tf.train.batch([item], batch_size=3, allow_smaller_final_batch=True)
    sess, coord, threads = _started(tf)
    out = _drain(tf, sess, batch)
    out["static"] = _static(batch)
    out["kind"] = type(batch).__name__ in ("list", "tuple")
    _stop(sess, coord, threads)
    return out


@_program
def batch_drops_the_remainder(tf):
    x = np.arange(14, dtype=np.int32).reshape(7, 2)
    y = np.arange(7, dtype=np.float64)
    a, b = tf.train.slice_input_producer([x, y], num_epochs=1, shuffle=False)
    xb, yb = tf.train.batch([a, b], batch_size=3)
    sess, coord, threads = _started(tf)
    out = _drain(tf, sess, [xb, yb])
    out["static"] = _static([xb, yb])
    _stop(sess, coord, threads)
    return out


@_program
def batch_of_a_dict_two_epochs(tf):
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = np.array([7, 8, 9], dtype=np.int64)
    a, b = tf.train.slice_input_producer([x, y], num_epochs=2, shuffle=False)
    batch = tf.train.batch({"image": a, "label": b}, batch_size=2)
    sess, coord, threads = _started(tf)
    out = _drain(tf, sess, batch)
    out["static"] = _static(batch)
    _stop(sess, coord, threads)
    return out


@_program
def batch_transformed_elements(tf):
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    (row,) = tf.train.slice_input_producer([x], num_epochs=1, shuffle=False)
    scaled = tf.reduce_sum(row * 2.0 + 1.0)
    batch = tf.train.batch([scaled, row], batch_size=2)
    sess, coord, threads = _started(tf)
    out = _drain(tf, sess, batch)
    _stop(sess, coord, threads)
    return out


@_program
def batch_enqueue_many_repeats(tf):
    x = tf.constant(np.arange(5, dtype=np.float32))
    batch = tf.train.batch([x], batch_size=3, enqueue_many=True)
    sess, coord, threads = _started(tf)
    out = [_plain(sess.run(batch)) for _ in range(4)]
    _stop(sess, coord, threads)
    return {"values": out, "static": _static(batch)}


@_program
def shuffled_epochs_hold_every_element(tf):
    x = np.arange(8, dtype=np.int32)
    (item,) = tf.train.slice_input_producer([x], num_epochs=3, shuffle=True, seed=5)
    sess, coord, threads = _started(tf)
    drained = _drain(tf, sess, item)
    _stop(sess, coord, threads)
    values = [v[2] for v in drained["values"]]
    return {
        "epochs": [sorted(values[i : i + 8]) for i in range(0, len(values), 8)],
        "ended": drained["ended"],
    }


@_program
def shuffle_batch_one_epoch(tf):
    x = np.arange(20, dtype=np.float32)
    y = np.arange(20, dtype=np.int32) * 10
    a, b = tf.train.slice_input_producer([x, y], num_epochs=1, shuffle=True, seed=3)
    xb, yb = tf.train.shuffle_batch(
        [a, b],
        batch_size=6,
        capacity=12,
        min_after_dequeue=4,
        seed=4,
        allow_smaller_final_batch=True,
    )
    sess, coord, threads = _started(tf)
    drained = _drain(tf, sess, [xb, yb])
    _stop(sess, coord, threads)
    sizes = [v[0][1][0] for v in drained["values"]]
    pairs = sorted((p, q) for v in drained["values"] for p, q in zip(v[0][2], v[1][2], strict=True))
    return {
        "sizes": sizes,
        "pairs": pairs,
        "ended": drained["ended"],
        "static": _static([xb, yb]),
    }


@_program
def coordinator_loop(tf):
    x = np.arange(10, dtype=np.float32)
    (item,) = tf.train.slice_input_producer([x], num_epochs=1, shuffle=False)
    batch = tf.train.batch([item], batch_size=4)
    total = tf.reduce_sum(batch)
    sess = tf.Session()
    sess.run(tf.local_variables_initializer())
    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    sums, ended = [], False
    try:
        while not coord.should_stop():
            sums.append(float(sess.run(total)))
    except tf.errors.OutOfRangeError:
        ended = True
    finally:
        coord.request_stop()
    stopped = coord.should_stop()
    coord.join(threads)
    sess.close()
    return {
        "sums": sums,
        "ended": ended,
        "stopped": stopped,
        "threads_is_list": isinstance(threads, list),
    }


@_program
def fifo_queue_increment(tf):
    q = tf.FIFOQueue(3, "float")
    init = q.enqueue_many(([0.0, 0.0, 0.0],))
    x = q.dequeue()
    y = x + 1
    q_inc = q.enqueue([y])
    with tf.Session() as sess:
        sess.run(init)
        sizes = [int(sess.run(q.size()))]
        for _ in range(4):
            sess.run(q_inc)
        sizes.append(int(sess.run(q.size())))
        values = [float(sess.run(x)) for _ in range(3)]
        sizes.append(int(sess.run(q.size())))
    return {"values": values, "sizes": sizes, "static": _static(x), "dtype": x.dtype.name}


@_program
def fifo_queue_fed_close(tf):
    q = tf.FIFOQueue(10, [tf.float32, tf.int32], shapes=[[2], []])
    a = tf.placeholder(tf.float32, [None, 2])
    b = tf.placeholder(tf.int32, [None])
    one_a = tf.placeholder(tf.float32, [2])
    enqueue_many = q.enqueue_many([a, b])
    enqueue_one = q.enqueue([one_a, tf.constant(99)])
    pair = q.dequeue_many(2)
    up_to = q.dequeue_up_to(2)
    single = q.dequeue()
    close = q.close()
    out: dict[str, Any] = {}
    with tf.Session() as sess:
        sess.run(enqueue_many, feed_dict={a: [[1, 2], [3, 4], [5, 6]], b: [10, 20, 30]})
        sess.run(enqueue_one, feed_dict={one_a: [7, 8]})
        out["size"] = int(sess.run(q.size()))
        out["pair"] = _plain(sess.run(pair))
        out["single"] = _plain(sess.run(single))
        out["closed_before"] = bool(sess.run(q.is_closed()))
        sess.run(close)
        out["closed_after"] = bool(sess.run(q.is_closed()))
        try:
            sess.run(pair)
            out["pair_after_close"] = "no error"
        except tf.errors.OutOfRangeError:
            out["pair_after_close"] = "OutOfRangeError"
        out["up_to"] = _plain(sess.run(up_to))
        try:
            sess.run(single)
            out["single_after"] = "no error"
        except tf.errors.OutOfRangeError:
            out["single_after"] = "OutOfRangeError"
    out["static"] = _static([pair, up_to, single])
    return out


@_program
def fifo_queue_of_a_dict(tf):
    q = tf.FIFOQueue(4, [tf.int32, tf.float32], shapes=[[], []], names=["n", "v"])
    enqueue = q.enqueue({"n": 3, "v": 0.5})
    item = q.dequeue()
    with tf.Session() as sess:
        sess.run(enqueue)
        sess.run(enqueue)
        value = sess.run(item)
    return {"value": _plain(value), "keys": sorted(item), "size_static": _static(item)}


@_program
def random_shuffle_queue_holds_all(tf):
    q = tf.RandomShuffleQueue(10, 2, tf.int32, shapes=[[]], seed=1)
    v = tf.placeholder(tf.int32, [None])
    enqueue = q.enqueue_many([v])
    item = q.dequeue()
    with tf.Session() as sess:
        sess.run(enqueue, feed_dict={v: list(range(6))})
        taken = [int(sess.run(item)) for _ in range(4)]
        sess.run(q.close())
        taken += [int(sess.run(item)) for _ in range(2)]
        try:
            sess.run(item)
            end = "no error"
        except tf.errors.OutOfRangeError:
            end = "OutOfRangeError"
    return {"sorted": sorted(taken), "end": end}


@_program
def queue_runner_by_hand(tf):
    q = tf.FIFOQueue(5, tf.float32, shapes=[[]])
    counter = tf.Variable(0.0)
    increment = tf.assign_add(counter, 1.0)
    enqueue = q.enqueue([increment])
    tf.train.add_queue_runner(tf.train.QueueRunner(q, [enqueue]))
    taken = q.dequeue_many(3)
    sess, coord, threads = _started(tf)
    first = sess.run(taken)
    _stop(sess, coord, threads)
    return {"first_batch_positive": bool(np.all(first > 0)), "shape": list(first.shape)}
