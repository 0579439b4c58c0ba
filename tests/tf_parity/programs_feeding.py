"""Corpus of TF1 programs that feed variables and intermediate tensors (TensorFlow parity tests).

Same conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds": {...}}``),
except that feed keys may be any tensor: a placeholder, a variable (its stored value is not
used in that run), a constant, or an intermediate tensor (its value replaces its computation,
so what computes it, placeholders included, is not needed). Gradient ops built before the run
read the fed value wherever they read the fed tensor.

``PROGRAMS`` lists all programs in definition order; ``tf_fixtures_feeding.json`` (written by
``record_tf.py programs_feeding``) is keyed by function ``__name__``.
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


@_program
def feed_scalar_variable(tf):
    x = tf.placeholder(tf.float32, shape=[3], name="x")
    w = tf.Variable(2.0, name="w")
    y = x * w + 1.0
    return {
        "fetches": [y, w, tf.gradients(tf.reduce_sum(y), [x, w])],
        "feeds": {x: np.array([1.0, 2.0, 3.0], np.float32), w: np.float32(-0.5)},
    }


@_program
def feed_matrix_variable_with_gradients(tf):
    x = tf.placeholder(tf.float64, shape=[4, 3], name="x")
    w = tf.Variable(_arr(1, (3, 2)), name="w")
    b = tf.Variable(_arr(2, (2,)), name="b")
    loss = tf.reduce_sum(tf.tanh(tf.matmul(x, w) + b) ** 2)
    return {
        "fetches": [loss, tf.gradients(loss, [w, b, x])],
        "feeds": {x: _arr(3, (4, 3)), w: _arr(4, (3, 2), -2.0, 2.0)},
    }


@_program
def feed_intermediate_cuts_its_inputs(tf):
    x = tf.placeholder(tf.float64, shape=[3], name="x")  # not fed: h replaces it
    w = tf.Variable(_arr(5, (3,)), name="w")
    h = tf.sin(x * w, name="h")
    y = tf.reduce_sum(h**2 * w)
    return {
        "fetches": [y, h, tf.gradients(y, h)],
        "feeds": {h: _arr(6, (3,))},
    }


@_program
def feed_intermediate_gradient_reads_fed_value(tf):
    x = tf.placeholder(tf.float64, shape=[3], name="x")
    w = tf.Variable(_arr(7, (3,)), name="w")
    h = tf.tanh(x * w, name="h")
    y = tf.reduce_sum(h * x + h**2)
    return {
        "fetches": [y, tf.gradients(y, [x, w])],
        "feeds": {x: _arr(8, (3,)), h: _arr(9, (3,))},
    }


@_program
def feed_intermediate_matmul_layer(tf):
    x = tf.placeholder(tf.float64, shape=[5, 4], name="x")
    w1 = tf.Variable(_arr(10, (4, 3)), name="w1")
    w2 = tf.Variable(_arr(11, (3, 2)), name="w2")
    hidden = tf.nn.relu(tf.matmul(x, w1), name="hidden")
    logits = tf.matmul(hidden, w2)
    loss = tf.reduce_mean(tf.nn.softmax(logits) * _arr(12, (5, 2)))
    return {
        "fetches": [logits, loss, tf.gradients(loss, [w1, w2, hidden])],
        "feeds": {x: _arr(13, (5, 4)), hidden: _arr(14, (5, 3), 0.0, 2.0)},
    }


@_program
def feed_constant(tf):
    x = tf.placeholder(tf.float32, shape=[2], name="x")
    c = tf.constant(3.0, name="c")
    y = c * x**2
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y), x)],
        "feeds": {x: np.array([1.0, -2.0], np.float32), c: np.float32(0.25)},
    }


@_program
def feed_fetched_tensor_itself(tf):
    x = tf.placeholder(tf.float64, shape=[2, 2], name="x")
    h = tf.exp(x, name="h")
    return {
        "fetches": [h, h + 1.0],
        "feeds": {h: _arr(15, (2, 2))},
    }


@_program
def feed_variable_and_intermediate_together(tf):
    x = tf.placeholder(tf.float64, shape=[3], name="x")
    w = tf.Variable(_arr(16, (3,)), name="w")
    v = tf.Variable(_arr(17, (3,)), name="v")
    h = tf.sigmoid(x * w, name="h")
    y = tf.reduce_sum(h * v + w * v)
    return {
        "fetches": [y, tf.gradients(y, [w, v])],
        "feeds": {h: _arr(18, (3,)), v: _arr(19, (3,)), x: _arr(20, (3,))},
    }
