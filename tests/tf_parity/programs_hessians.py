"""Corpus of ``tf.hessians`` programs over vector and matrix variables (TensorFlow parity tests).

Same conventions as ``programs.py``: every program is a plain function
``fn(tf)`` taking the graph-API module (``tensorflow.compat.v1`` when
recording, ``symgrad`` when testing), building a graph in the current default
graph and returning ``{"fetches": [...], "feeds": {...}}``. Programs never
create sessions.

The programs are the models whose Hessians symgrad builds as one vectorised
block: least squares with L2 over 30 and 300 weights (closed form
``2 * x.T @ x / N + 0.02 * I``), logistic regression, a tanh layer with
transposed matmuls, broadcasting and a matrix variable. The fixture file
``tf_fixtures_hessians.json`` is keyed by function ``__name__``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-1.0, high=1.0):
    """Deterministic uniform random float64 array."""
    return np.random.RandomState(seed).uniform(low, high, size=shape)


def least_squares_l2(tf, weights, rows=64, seed=0):
    """``mean((x @ w - y)**2) + 0.01 * sum(w**2)`` over ``weights`` weights, and its Hessian."""
    x = tf.placeholder(tf.float64, shape=[rows, weights], name="x")
    y = tf.placeholder(tf.float64, shape=[rows], name="y")
    w = tf.Variable(_arr(seed + 1, (weights,)), name="w")
    prediction = tf.reshape(tf.matmul(x, tf.reshape(w, [-1, 1])), [-1])
    loss = tf.reduce_mean(tf.square(prediction - y)) + 0.01 * tf.reduce_sum(tf.square(w))
    feeds = {x: _arr(seed + 2, (rows, weights)), y: _arr(seed + 3, (rows,))}
    return {"fetches": [loss, tf.hessians(loss, w)], "feeds": feeds}


@_program
def hessians_least_squares_l2_30(tf):
    return least_squares_l2(tf, 30)


@_program
def hessians_least_squares_l2_300(tf):
    return least_squares_l2(tf, 300)


@_program
def hessians_logistic_regression(tf):
    x = tf.placeholder(tf.float64, shape=[16, 5], name="x")
    labels = tf.placeholder(tf.float64, shape=[16], name="labels")
    w = tf.Variable(_arr(11, (5,)), name="w")
    b = tf.Variable(0.3, dtype=tf.float64, name="b")
    logits = tf.reshape(tf.matmul(x, tf.expand_dims(w, 1)), [-1]) + b
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    feeds = {x: _arr(12, (16, 5), -2.0, 2.0), labels: (_arr(13, (16,)) > 0).astype(np.float64)}
    return {"fetches": [loss, tf.hessians(loss, [w, b])], "feeds": feeds}


@_program
def hessians_tanh_layer_transposed(tf):
    x = tf.placeholder(tf.float64, shape=[4, 3], name="x")
    w = tf.Variable(_arr(21, (2, 3)), name="w")
    h = tf.tanh(tf.matmul(x, w, transpose_b=True))
    v = tf.constant(_arr(22, (2, 4)))
    loss = tf.reduce_sum(tf.matmul(v, h, transpose_a=True, transpose_b=True) ** 2) / 8.0
    return {"fetches": [loss, tf.hessians(loss, w)], "feeds": {x: _arr(23, (4, 3), -2.0, 2.0)}}


@_program
def hessians_broadcast_and_mean_axis(tf):
    w = tf.Variable(_arr(31, (3,)), name="w")
    data = tf.constant(_arr(32, (5, 3), 0.5, 1.5))
    scale = tf.reduce_sum(w * w)
    z = tf.sin(data * w) + scale * data - tf.reduce_mean(data * tf.exp(w), axis=0)
    loss = tf.reduce_sum(tf.reduce_mean(z * z, axis=1, keepdims=True))
    return {"fetches": [loss, tf.hessians(loss, w)], "feeds": {}}


def ridge_batch_free(tf, weights, rows=7, seed=40):
    """``mean((X w - y)**2) + 0.5 * sum(w * w)`` with ``[None, weights]`` rows fed: the Hessian
    is ``2 X^T X / N + I``, built through a batch axis known only at run time."""
    x = tf.placeholder(tf.float64, shape=[None, weights], name="X")
    y = tf.placeholder(tf.float64, shape=[None], name="y")
    w = tf.Variable(_arr(seed + 1, (weights,)), name="w")
    loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y)) + 0.5 * tf.reduce_sum(w * w)
    feeds = {x: _arr(seed + 2, (rows, weights)), y: _arr(seed + 3, (rows,))}
    return {"fetches": [loss, tf.hessians(loss, w)], "feeds": feeds}


def logistic_batch_free(tf, weights, rows=7, seed=50):
    """Mean sigmoid cross-entropy of ``X @ theta`` (theta ``[weights, 1]``) with ``[None,
    weights]`` rows fed: the Hessian is ``X^T diag(s (1 - s)) X / N``, shape ``[n, 1, n, 1]``."""
    x = tf.placeholder(tf.float64, shape=[None, weights], name="X")
    y = tf.placeholder(tf.float64, shape=[None], name="y")
    theta = tf.Variable(_arr(seed + 1, (weights, 1), -0.5, 0.5), name="theta")
    loss = tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(
            labels=tf.reshape(y, [-1, 1]), logits=tf.matmul(x, theta)
        )
    )
    labels = (_arr(seed + 3, (rows,)) > 0).astype(np.float64)
    feeds = {x: _arr(seed + 2, (rows, weights), -2.0, 2.0), y: labels}
    return {"fetches": [loss, tf.hessians(loss, theta)], "feeds": feeds}


@_program
def hessians_ridge_batch_free_3(tf):
    return ridge_batch_free(tf, 3)


@_program
def hessians_ridge_batch_free_30(tf):
    return ridge_batch_free(tf, 30)


@_program
def hessians_logistic_batch_free_3(tf):
    return logistic_batch_free(tf, 3)


@_program
def hessians_logistic_batch_free_30(tf):
    return logistic_batch_free(tf, 30)


@_program
def hessians_cross_entropy_labels_depend_on_x(tf):
    # TF takes the labels' derivative inside the cross-entropy's gradient as 0: this Hessian
    # is not symmetric, and row i is d grad_i / dx.
    data = tf.placeholder(tf.float64, shape=[None, 3], name="data")
    x = tf.Variable(_arr(61, (3, 3)), name="x")
    logits = tf.matmul(data, x)
    labels = tf.nn.softmax(tf.sin(logits))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    return {"fetches": [loss, tf.hessians(loss, x)], "feeds": {data: _arr(62, (6, 3), -2.0, 2.0)}}
