"""Corpus of TF1 control flow (TensorFlow parity tests): ``tf.cond``, ``tf.case``,
``tf.while_loop`` (counters, accumulations, shapes that change, nested loops, a loop in a
branch, ``maximum_iterations``), ``tf.map_fn``, ``tf.scan``, ``tf.foldl``/``foldr`` and
``tf.nn.dynamic_rnn`` over a time axis of unknown size with ``sequence_length``, with their
gradients, and second derivatives through ``cond`` (TF1 has none through loops). Inputs are
``[None]`` and shape-less placeholders, as TF1 programs write them.

Same conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds":
{...}}``); ``tf_fixtures_control.json`` is written by ``record_tf.py programs_control``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-1.0, high=1.0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _huber(tf, value):
    x = tf.placeholder(tf.float64, name="x")  # no shape, as TF1 programs write it
    error = tf.abs(x)
    loss = tf.cond(error < 1.0, lambda: 0.5 * tf.square(x), lambda: error - 0.5)
    (grad,) = tf.gradients(loss, x)
    (second,) = tf.gradients(grad, x)
    return {"fetches": [loss, grad, second], "feeds": {x: value}}


@_program
def cond_huber_inside(tf):
    return _huber(tf, 0.4)


@_program
def cond_huber_outside(tf):
    return _huber(tf, -2.5)


def _batch_switch(tf, training):
    # A training/inference switch: the branches read different values and shapes of a batch.
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    is_training = tf.placeholder(tf.bool, [], name="is_training")
    w = tf.Variable(_arr(1, (3, 2), dtype=np.float32), name="w")
    scale = tf.Variable(np.float32(1.5), name="scale")
    h = tf.matmul(x, w)
    out = tf.cond(
        is_training,
        lambda: tf.nn.relu(h) * scale,
        lambda: tf.tanh(h) + tf.reduce_mean(x),
    )
    loss = tf.reduce_sum(out * out)
    return {
        "fetches": [out, loss, tf.gradients(loss, [x, w, scale])],
        "feeds": {x: _arr(2, (4, 3), dtype=np.float32), is_training: training},
    }


@_program
def cond_switch_training(tf):
    return _batch_switch(tf, True)


@_program
def cond_switch_inference(tf):
    return _batch_switch(tf, False)


@_program
def cond_nested_with_tuple_results(tf):
    x = tf.placeholder(tf.float64, [None], name="x")
    total = tf.reduce_sum(x)
    a, b = tf.cond(
        total > 0.0,
        lambda: tf.cond(total > 1.0, lambda: (x * 2.0, total), lambda: (x * x, total * 3.0)),
        lambda: (tf.sin(x), -total),
    )
    loss = tf.reduce_sum(a) * b
    grad = tf.gradients(loss, x)[0]
    hessian_vector = tf.gradients(tf.reduce_sum(grad * x), x)[0]
    return {"fetches": [a, b, loss, grad, hessian_vector], "feeds": {x: _arr(3, (5,), 0.0, 1.0)}}


def _case(tf, branch):
    x = tf.placeholder(tf.float64, [None], name="x")
    k = tf.placeholder(tf.int32, [], name="k")
    y = tf.case(
        [(tf.equal(k, 0), lambda: tf.exp(x)), (tf.equal(k, 1), lambda: x**3)],
        default=lambda: tf.log(x + 2.0),
    )
    loss = tf.reduce_sum(y)
    return {"fetches": [y, tf.gradients(loss, x)], "feeds": {x: _arr(4, (3,)), k: branch}}


@_program
def case_three_ways(tf):
    return _case(tf, 1)


@_program
def case_default(tf):
    return _case(tf, 7)


@_program
def while_power_series(tf):
    # sum of x**k for k < n, n fed: the number of steps is known only at run time.
    x = tf.placeholder(tf.float64, [None], name="x")
    n = tf.placeholder(tf.int32, [], name="n")
    _, _, total = tf.while_loop(
        lambda k, power, total: k < n,
        lambda k, power, total: (k + 1, power * x, total + power),
        [tf.constant(0), tf.ones_like(x), tf.zeros_like(x)],
    )
    loss = tf.reduce_sum(total)
    return {"fetches": [total, tf.gradients(loss, x)], "feeds": {x: _arr(5, (4,)), n: 5}}


@_program
def while_newton_sqrt_until_converged(tf):
    # A data-dependent trip count: iterate until every estimate is close.
    a = tf.placeholder(tf.float64, name="a")
    steps, root = tf.while_loop(
        lambda i, r: tf.reduce_max(tf.abs(r * r - a)) > 1e-10,
        lambda i, r: (i + 1, 0.5 * (r + a / r)),
        [tf.constant(0), tf.ones_like(a)],
    )
    return {
        "fetches": [steps, root, tf.gradients(tf.reduce_sum(root), a)],
        "feeds": {a: np.array([2.0, 9.0, 0.5])},
    }


@_program
def while_maximum_iterations(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(_arr(6, (2, 2), dtype=np.float32), name="w")
    i, h = tf.while_loop(
        lambda i, h: i < 100,
        lambda i, h: [i + 1, tf.tanh(tf.matmul(h, w))],
        [tf.constant(0), x],
        maximum_iterations=4,
    )
    loss = tf.reduce_sum(h)
    return {
        "fetches": [i, h, tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(7, (3, 2), dtype=np.float32)},
    }


@_program
def while_growing_shape(tf):
    # The loop variable grows by a row each step: shape_invariants let its first dim vary.
    x = tf.placeholder(tf.float64, [None], name="x")
    start = tf.reshape(x, [1, -1])
    _, rows = tf.while_loop(
        lambda i, rows: i < 3,
        lambda i, rows: (i + 1, tf.concat([rows, tf.sin(rows[-1:]) * rows[:1]], 0)),
        [tf.constant(0), start],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, None])],
    )
    loss = tf.reduce_sum(rows * rows)
    return {"fetches": [rows, tf.gradients(loss, x)], "feeds": {x: _arr(8, (3,))}}


@_program
def while_nested_loops(tf):
    x = tf.placeholder(tf.float64, [None], name="x")

    def outer_body(i, acc):
        _, inner = tf.while_loop(
            lambda j, a: j < i, lambda j, a: (j + 1, a * x + 1.0), [tf.constant(0), acc]
        )
        return i + 1, inner

    _, result = tf.while_loop(lambda i, acc: i < 3, outer_body, [tf.constant(0), x])
    loss = tf.reduce_sum(result)
    return {"fetches": [result, tf.gradients(loss, x)], "feeds": {x: _arr(9, (2,))}}


@_program
def while_inside_cond(tf):
    x = tf.placeholder(tf.float64, [None], name="x")
    flag = tf.placeholder(tf.bool, [], name="flag")

    def looped():
        return tf.while_loop(lambda i, v: i < 4, lambda i, v: (i + 1, v * 0.5 + x), [0, x])[1]

    y = tf.cond(flag, looped, lambda: x * 3.0)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)],
        "feeds": {x: _arr(10, (3,)), flag: True},
    }


@_program
def while_reads_variables(tf):
    # An RNN written by hand with a while_loop over a [time, batch, depth] placeholder.
    x = tf.placeholder(tf.float32, [None, None, 3], name="x")
    w = tf.Variable(_arr(11, (3, 4), dtype=np.float32), name="w")
    u = tf.Variable(_arr(12, (4, 4), dtype=np.float32), name="u")
    steps = tf.shape(x)[0]
    h0 = tf.zeros([tf.shape(x)[1], 4])

    def body(t, h):
        return t + 1, tf.tanh(tf.matmul(x[t], w) + tf.matmul(h, u))

    _, h = tf.while_loop(lambda t, h: t < steps, body, [tf.constant(0), h0])
    loss = tf.reduce_sum(h)
    return {
        "fetches": [h, tf.gradients(loss, [x, w, u])],
        "feeds": {x: _arr(13, (5, 2, 3), dtype=np.float32)},
    }


@_program
def map_fn_rows(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    w = tf.Variable(_arr(14, (3,)), name="w")
    y = tf.map_fn(lambda row: tf.reduce_sum(tf.sin(row) * w), x)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), [x, w])],
        "feeds": {x: _arr(15, (4, 3))},
    }


@_program
def map_fn_tuple_elems(tf):
    a = tf.placeholder(tf.float64, [None, 2], name="a")
    b = tf.placeholder(tf.float64, [None], name="b")
    y = tf.map_fn(lambda pair: pair[0] * pair[1], (a, b), dtype=tf.float64)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y), [a, b])],
        "feeds": {a: _arr(16, (3, 2)), b: _arr(17, (3,))},
    }


@_program
def scan_running_product(tf):
    x = tf.placeholder(tf.float64, [None], name="x")
    y = tf.scan(lambda acc, v: acc * v + 1.0, x, initializer=tf.constant(0.5, tf.float64))
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y), x)], "feeds": {x: _arr(18, (5,))}}


@_program
def scan_reverse_without_initializer(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    y = tf.scan(lambda acc, v: tf.tanh(acc + v), x, reverse=True)
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)], "feeds": {x: _arr(19, (4, 2))}}


@_program
def foldl_and_foldr(tf):
    x = tf.placeholder(tf.float64, [None], name="x")
    left = tf.foldl(lambda a, v: a * 2.0 + v * v, x)
    right = tf.foldr(lambda a, v: a * 2.0 + v * v, x, initializer=tf.constant(1.0, tf.float64))
    return {
        "fetches": [left, right, tf.gradients(left, x), tf.gradients(right, x)],
        "feeds": {x: _arr(20, (4,))},
    }


def _kernel_initializer(seed):
    def initializer(shape, dtype=None, partition_info=None):
        del partition_info
        return np.asarray(_arr(seed, shape, -0.5, 0.5), dtype=np.float32)

    return initializer


def _dynamic_rnn(tf, cell_name, with_lengths):
    x = tf.placeholder(tf.float32, [None, None, 3], name="x")  # batch and time unknown
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    with tf.variable_scope("model", initializer=_kernel_initializer(21)):
        cell = {
            "basic": lambda: tf.nn.rnn_cell.BasicRNNCell(4),
            "gru": lambda: tf.nn.rnn_cell.GRUCell(4),
            "lstm": lambda: tf.nn.rnn_cell.LSTMCell(4),
        }[cell_name]()
        outputs, state = tf.nn.dynamic_rnn(
            cell, x, sequence_length=lengths if with_lengths else None, dtype=tf.float32
        )
    last = state.h if cell_name == "lstm" else state
    loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(last)
    feeds = {x: _arr(22, (3, 5, 3), dtype=np.float32)}
    if with_lengths:
        feeds[lengths] = np.array([5, 2, 4], dtype=np.int32)
    return {
        "fetches": [outputs, state, tf.gradients(loss, [x] + tf.trainable_variables())],
        "feeds": feeds,
    }


@_program
def dynamic_rnn_basic_unknown_time(tf):
    return _dynamic_rnn(tf, "basic", False)


@_program
def dynamic_rnn_gru_sequence_length(tf):
    return _dynamic_rnn(tf, "gru", True)


@_program
def dynamic_rnn_lstm_sequence_length(tf):
    return _dynamic_rnn(tf, "lstm", True)


@_program
def tensor_array_collects_a_loop(tf):
    # A recurrence written by hand: inputs read from an unstacked TensorArray, outputs
    # written to a growing one, stacked after the loop.
    x = tf.placeholder(tf.float64, [None, None], name="x")  # [time, batch]
    w = tf.Variable(np.float64(0.7), name="w")
    steps = tf.shape(x)[0]
    inputs = tf.TensorArray(tf.float64, size=steps).unstack(x)
    outputs = tf.TensorArray(tf.float64, size=0, dynamic_size=True)

    def body(t, h, out):
        h = tf.tanh(inputs.read(t) + w * h)
        return t + 1, h, out.write(t, h * h)

    _, h, outputs = tf.while_loop(
        lambda t, h, out: t < steps, body, [tf.constant(0), tf.zeros_like(x[0]), outputs]
    )
    stacked = outputs.stack()
    loss = tf.reduce_sum(stacked) + tf.reduce_sum(h)
    return {
        "fetches": [stacked, outputs.size(), tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(23, (4, 3))},
    }


@_program
def tensor_array_fixed_size_gather(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    ta = tf.TensorArray(tf.float32, size=3, element_shape=[2], clear_after_read=False)

    def body(i, ta):
        return i + 1, ta.write(i, x[i] * tf.cast(i + 1, tf.float32))

    _, ta = tf.while_loop(lambda i, ta: i < 3, body, [0, ta])
    picked = ta.gather([2, 0])
    return {
        "fetches": [
            ta.stack(),
            picked,
            ta.read(1),
            tf.gradients(tf.reduce_sum(picked * picked), x),
        ],
        "feeds": {x: _arr(24, (3, 2), dtype=np.float32)},
    }


@_program
def bidirectional_dynamic_rnn_sequence_length(tf):
    # Each sequence reversed within its length while the number of steps is unknown.
    x = tf.placeholder(tf.float32, [None, None, 3], name="x")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    with tf.variable_scope("model", initializer=_kernel_initializer(25)):
        (forward, backward), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
            tf.nn.rnn_cell.GRUCell(3),
            tf.nn.rnn_cell.GRUCell(3),
            x,
            sequence_length=lengths,
            dtype=tf.float32,
        )
    loss = tf.reduce_sum(forward * backward) + tf.reduce_sum(state_bw)
    return {
        "fetches": [
            forward,
            backward,
            state_bw,
            tf.gradients(loss, [x] + tf.trainable_variables()),
        ],
        "feeds": {
            x: _arr(26, (3, 5, 3), dtype=np.float32),
            lengths: np.array([5, 1, 3], dtype=np.int32),
        },
    }
