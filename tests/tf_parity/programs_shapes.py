"""Corpus of TF1 programs whose placeholders say ``[None]`` or no shape (TensorFlow parity tests).

Same conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds": {...}}``).
The feeds are the shapes TF1 programs meet: equal sizes (the generated function's
equal-sizes body), and sizes where one operand has size 1 and broadcasts, a scalar fed to
a shape-less placeholder, a column against a row, an empty batch (its general body, which
must give TensorFlow's broadcasting answers).

``PROGRAMS`` lists all programs in definition order; ``tf_fixtures_shapes.json`` (written by
``record_tf.py programs_shapes``) is keyed by function ``__name__``.
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


def _regression(tf, x_shape, y_shape, dtype=None):
    """The tutorial's linear regression, its loss and the gradients of every input."""
    dtype = dtype or tf.float64
    x = tf.placeholder(dtype, shape=x_shape, name="x")
    y = tf.placeholder(dtype, shape=y_shape, name="y")
    w = tf.Variable(np.asarray(0.5, dtype.as_numpy_dtype), name="w")
    b = tf.Variable(np.asarray(-0.25, dtype.as_numpy_dtype), name="b")
    loss = tf.reduce_mean(tf.square(y - (x * w + b)))
    return x, y, [loss, tf.gradients(loss, [w, b, x, y])]


@_program
def none_equal_sizes(tf):
    x, y, fetches = _regression(tf, [None], [None])
    return {"fetches": fetches, "feeds": {x: _arr(1, (6,)), y: _arr(2, (6,))}}


@_program
def none_x_of_size_one_broadcasts(tf):
    x, y, fetches = _regression(tf, [None], [None])
    return {"fetches": fetches, "feeds": {x: _arr(3, (1,)), y: _arr(4, (5,))}}


@_program
def none_y_of_size_one_broadcasts(tf):
    x, y, fetches = _regression(tf, [None], [None])
    return {"fetches": fetches, "feeds": {x: _arr(5, (5,)), y: _arr(6, (1,))}}


@_program
def none_both_of_size_one(tf):
    x, y, fetches = _regression(tf, [None], [None])
    return {"fetches": fetches, "feeds": {x: _arr(7, (1,)), y: _arr(8, (1,))}}


@_program
def none_empty_batch(tf):
    x, y, fetches = _regression(tf, [None], [None])
    return {"fetches": fetches, "feeds": {x: np.zeros(0), y: np.zeros(0)}}


@_program
def none_float32_equal_sizes(tf):
    x, y, fetches = _regression(tf, [None], [None], tf.float32)
    return {
        "fetches": fetches,
        "feeds": {x: _arr(9, (7,), dtype=np.float32), y: _arr(10, (7,), dtype=np.float32)},
        "rtol": 1e-5,
    }


@_program
def shapeless_equal_sizes(tf):
    x, y, fetches = _regression(tf, None, None)
    return {"fetches": fetches, "feeds": {x: _arr(11, (6,)), y: _arr(12, (6,))}}


@_program
def shapeless_scalar_x(tf):
    x, y, fetches = _regression(tf, None, None)
    return {"fetches": fetches, "feeds": {x: np.float64(1.5), y: _arr(13, (4,))}}


@_program
def shapeless_matrices(tf):
    x, y, fetches = _regression(tf, None, None)
    return {"fetches": fetches, "feeds": {x: _arr(14, (2, 3)), y: _arr(15, (2, 3))}}


@_program
def shapeless_row_against_matrix(tf):
    x, y, fetches = _regression(tf, None, None)
    return {"fetches": fetches, "feeds": {x: _arr(16, (3,)), y: _arr(17, (2, 3))}}


@_program
def shapeless_x_with_none_y(tf):
    x, y, fetches = _regression(tf, None, [None])
    return {"fetches": fetches, "feeds": {x: _arr(18, (5,)), y: _arr(19, (5,))}}


@_program
def column_against_vector(tf):
    # [N, 1] against [N]: equal batch sizes, and still an [N, N] broadcast.
    x, y, fetches = _regression(tf, [None, 1], [None])
    return {"fetches": fetches, "feeds": {x: _arr(20, (3, 1)), y: _arr(21, (3,))}}


def _softmax_regression(tf, labels_shape):
    x = tf.placeholder(tf.float64, shape=[None, 4], name="x")
    labels = tf.placeholder(tf.float64, shape=labels_shape, name="labels")
    w = tf.Variable(_arr(22, (4, 3)), name="w")
    b = tf.Variable(_arr(23, (3,)), name="b")
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(-tf.reduce_sum(labels * tf.nn.log_softmax(logits), axis=1))
    return x, labels, [loss, tf.gradients(loss, [w, b, x, labels])]


@_program
def softmax_equal_batches(tf):
    x, labels, fetches = _softmax_regression(tf, [None, 3])
    one_hot = np.eye(3)[[0, 2, 1, 2, 0]]
    return {"fetches": fetches, "feeds": {x: _arr(24, (5, 4)), labels: one_hot}}


@_program
def softmax_one_label_row_broadcasts(tf):
    x, labels, fetches = _softmax_regression(tf, [None, 3])
    return {"fetches": fetches, "feeds": {x: _arr(25, (5, 4)), labels: np.eye(3)[[1]]}}


@_program
def mlp_batch_of_none(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3], name="x")
    y = tf.placeholder(tf.float64, shape=[None, 2], name="y")
    w1 = tf.Variable(_arr(26, (3, 4)), name="w1")
    w2 = tf.Variable(_arr(27, (4, 2)), name="w2")
    h = tf.tanh(tf.matmul(x, w1))
    loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
    return {
        "fetches": [loss, tf.gradients(loss, [w1, w2, x, y])],
        "feeds": {x: _arr(28, (6, 3)), y: _arr(29, (6, 2))},
    }


@_program
def per_example_weights_column(tf):
    # Per-example weights [None, 1] against values [None, 2].
    v = tf.placeholder(tf.float64, shape=[None, 2], name="v")
    s = tf.placeholder(tf.float64, shape=[None, 1], name="s")
    w = tf.Variable(_arr(30, (2,)), name="w")
    loss = tf.reduce_sum(tf.exp(v * w) * s)
    return {
        "fetches": [loss, tf.gradients(loss, [w, v, s])],
        "feeds": {v: _arr(31, (4, 2)), s: _arr(32, (4, 1))},
    }


@_program
def max_min_over_empty_batch(tf):
    # TF's maximum of no elements is the dtype's least value, its minimum the greatest: the
    # batch axis is reduced; its gradient is empty. Integers and a norm of order inf too.
    x = tf.placeholder(tf.float32, [None, 3])
    k = tf.placeholder(tf.int32, [None, 3])
    s = tf.placeholder(tf.float64)
    fetches = [
        tf.reduce_max(x),
        tf.reduce_min(x, axis=0),
        tf.reduce_max(x, axis=0, keepdims=True),
        tf.reduce_max(x, axis=1),
        tf.reduce_max(k, axis=0),
        tf.reduce_min(k),
        tf.norm(x, ord=np.inf),
        tf.reduce_max(s),
        tf.gradients(tf.reduce_sum(tf.reduce_max(x, axis=0) * 0.0) + tf.reduce_sum(x), x)[0],
    ]
    feeds = {
        x: np.zeros((0, 3), np.float32),
        k: np.zeros((0, 3), np.int32),
        s: np.zeros((2, 0)),
    }
    return {"fetches": fetches, "feeds": feeds}
