"""Corpus of TF1 programs whose placeholders have no shape at all (TensorFlow parity tests).

TF1 programs write ``tf.placeholder(tf.float32)`` and ``tf.placeholder(tf.int32)`` and then
``tf.matmul(x, W)``, ``tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, ...)`` or
``tf.where(is_training, a, b)``: the rank is known only when the graph is fed. Same
conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds": {...}}``).

``PROGRAMS`` lists all programs in definition order; ``tf_fixtures_shapeless.json`` (written by
``record_tf.py programs_shapeless``) is keyed by function ``__name__``.
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


def _matmul_loss(tf, x_value, w_shape, transpose_b=False, dtype=np.float64):
    x = tf.placeholder(tf.as_dtype(dtype), name="x")
    w = tf.Variable(_arr(1, w_shape, dtype=dtype), name="w")
    y = tf.matmul(x, w, transpose_b=transpose_b)
    loss = tf.reduce_sum(tf.tanh(y) * y)
    return {"fetches": [y, loss, tf.gradients(loss, [x, w])], "feeds": {x: x_value}}


@_program
def matmul_shapeless_left(tf):
    return _matmul_loss(tf, _arr(2, (4, 3)), (3, 2))


@_program
def matmul_shapeless_left_float32_transposed(tf):
    return _matmul_loss(tf, _arr(3, (4, 3), dtype=np.float32), (2, 3), True, np.float32)


@_program
def matmul_shapeless_left_fed_a_batch(tf):
    # BatchMatMulV2 broadcasts the weights over the fed batch; their gradient sums it back.
    return _matmul_loss(tf, _arr(4, (2, 4, 3)), (3, 2))


@_program
def matmul_shapeless_right(tf):
    a = tf.Variable(_arr(5, (2, 3)), name="a")
    w = tf.placeholder(tf.float64, name="w")
    y = tf.matmul(a, w, transpose_a=False, transpose_b=True)
    loss = tf.reduce_sum(y**2)
    return {"fetches": [y, loss, tf.gradients(loss, [a, w])], "feeds": {w: _arr(6, (4, 3))}}


@_program
def matmul_both_shapeless_transposed(tf):
    a = tf.placeholder(tf.float64, name="a")
    b = tf.placeholder(tf.float64, name="b")
    y = tf.matmul(a, b, transpose_a=True)
    loss = tf.reduce_sum(tf.sin(y))
    return {
        "fetches": [y, loss, tf.gradients(loss, [a, b])],
        "feeds": {a: _arr(7, (3, 2)), b: _arr(8, (3, 4))},
    }


@_program
def sparse_xent_shapeless_labels(tf):
    labels = tf.placeholder(tf.int32, name="labels")
    logits = tf.placeholder(tf.float32, [None, 5], name="logits")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    loss = tf.reduce_mean(xent)
    return {
        "fetches": [xent, loss, tf.gradients(loss, logits)],
        "feeds": {
            labels: np.array([0, 4, 2], np.int32),
            logits: _arr(9, (3, 5), -3, 3, np.float32),
        },
    }


@_program
def sparse_xent_shapeless_labels_int64_rank3(tf):
    labels = tf.placeholder(tf.int64, name="labels")
    logits = tf.placeholder(tf.float64, [None, None, 4], name="logits")
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return {
        "fetches": [xent, tf.gradients(tf.reduce_sum(xent * xent), logits)],
        "feeds": {labels: np.array([[0, 3], [1, 1]], np.int64), logits: _arr(10, (2, 2, 4))},
    }


@_program
def sparse_xent_shapeless_logits(tf):
    # The tutorial's softmax regression with nothing declared: the logits come out of a
    # matmul of a shape-less placeholder, so the number of classes is known at run time only.
    x = tf.placeholder(tf.float32, name="x")
    y = tf.placeholder(tf.int32, name="y")
    w = tf.Variable(_arr(11, (4, 3), dtype=np.float32), name="w")
    b = tf.Variable(_arr(12, (3,), dtype=np.float32), name="b")
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return {
        "fetches": [logits, loss, tf.gradients(loss, [w, b, x])],
        "feeds": {x: _arr(13, (5, 4), dtype=np.float32), y: np.array([0, 2, 1, 1, 0], np.int32)},
    }


@_program
def softmax_xent_v2_shapeless_labels(tf):
    labels = tf.placeholder(tf.float64, name="labels")
    logits = tf.Variable(_arr(14, (3, 4), -2, 2), name="logits")
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return {
        "fetches": [xent, tf.gradients(tf.reduce_sum(xent), [logits, labels])],
        "feeds": {labels: np.eye(4)[[1, 3, 0]]},
    }


def _where(tf, condition_value):
    condition = tf.placeholder(tf.bool, name="is_training")
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    w = tf.Variable(_arr(15, (3,)), name="w")
    chosen = tf.where(condition, x * w, tf.zeros_like(x) - w)
    loss = tf.reduce_sum(chosen**2)
    return {
        "fetches": [chosen, loss, tf.gradients(loss, [x, w])],
        "feeds": {condition: condition_value, x: _arr(16, (2, 3))},
    }


@_program
def where_shapeless_condition_scalar(tf):
    return _where(tf, True)


@_program
def where_shapeless_condition_scalar_false(tf):
    return _where(tf, np.bool_(False))


@_program
def where_shapeless_condition_rows(tf):
    return _where(tf, np.array([False, True]))


@_program
def where_shapeless_condition_elements(tf):
    return _where(tf, np.array([[True, False, True], [False, False, True]]))


@_program
def mlp_nothing_declared(tf):
    # Two layers on a shape-less input, dropout-style switch on a shape-less flag.
    x = tf.placeholder(tf.float64, name="x")
    y = tf.placeholder(tf.int64, name="y")
    keep = tf.placeholder(tf.bool, name="keep")
    w1 = tf.Variable(_arr(17, (4, 6)), name="w1")
    w2 = tf.Variable(_arr(18, (6, 3)), name="w2")
    h = tf.nn.relu(tf.matmul(x, w1))
    h = tf.where(keep, h, h * 0.5)
    logits = tf.matmul(h, w2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    return {
        "fetches": [loss, tf.gradients(loss, [w1, w2])],
        "feeds": {x: _arr(19, (6, 4)), y: np.array([0, 1, 2, 2, 1, 0]), keep: False},
    }


def _reductions_from_the_end(tf, x_value):
    # Axes counted from the end name the same axis whatever rank is fed; softmax's own
    # gradient reduces its last axis this way.
    x = tf.placeholder(tf.float64, name="x")
    total = tf.reduce_sum(tf.sin(x), axis=-1)
    mean = tf.reduce_mean(x * x, axis=[-1], keepdims=True)
    largest = tf.reduce_max(x, axis=-1)
    loss = tf.reduce_sum(total * total) + tf.reduce_sum(tf.exp(mean)) + tf.reduce_sum(largest)
    (grad,) = tf.gradients(loss, [x])
    return {
        "fetches": [total, mean, largest, loss, grad, tf.gradients(tf.reduce_sum(grad**2), [x])],
        "feeds": {x: x_value},
    }


@_program
def reductions_over_the_last_axis_fed_a_matrix(tf):
    return _reductions_from_the_end(tf, _arr(20, (2, 3)))


@_program
def reductions_over_the_last_axis_fed_rank_3(tf):
    return _reductions_from_the_end(tf, _arr(21, (2, 4, 3)))


@_program
def sparse_xent_second_derivative_shapeless_logits(tf):
    logits = tf.placeholder(tf.float64, name="logits")
    labels = tf.placeholder(tf.int64, name="labels")
    loss = tf.reduce_sum(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    (grad,) = tf.gradients(loss, [logits])
    return {
        "fetches": [loss, grad, tf.gradients(tf.reduce_sum(grad * grad), [logits])],
        "feeds": {logits: _arr(22, (4, 3)), labels: np.array([0, 2, 1, 2])},
    }


@_program
def softmax_second_derivative_shapeless(tf):
    x = tf.placeholder(tf.float64, name="x")
    probabilities = tf.nn.softmax(x)
    (grad,) = tf.gradients(tf.reduce_sum(probabilities * tf.cos(x)), [x])
    return {
        "fetches": [probabilities, grad, tf.gradients(tf.reduce_sum(grad**2), [x])],
        "feeds": {x: _arr(23, (3, 5))},
    }


@_program
def concat_and_split_of_shapeless_values_differentiated_twice(tf):
    # concat along an axis counted from the end, and an equal split of an axis whose size
    # arrives with the value: their gradients are differentiated again.
    a = tf.placeholder(tf.float64, name="a")
    b = tf.placeholder(tf.float64, name="b")
    joined = tf.concat([a, b], -1)
    left, right = tf.split(joined, 2, axis=0)
    loss = tf.reduce_sum(tf.sin(joined) * tf.cos(joined)) + tf.reduce_sum(left * right * right)
    d_a, d_b = tf.gradients(loss, [a, b])
    return {
        "fetches": [
            joined,
            left,
            d_a,
            d_b,
            tf.gradients(tf.reduce_sum(d_a * d_a) + tf.reduce_sum(d_b), [a, b]),
        ],
        "feeds": {a: _arr(1, (4, 2)), b: _arr(2, (4, 3))},
    }


@_program
def sigmoid_xent_float64_unreduced_gradient(tf):
    # The gradient of an unreduced loss of unknown shape is seeded with ones of its dtype (the
    # portable form refused an int64 seed meeting float64 values).
    x = tf.placeholder(tf.float64, name="logits")
    y = tf.placeholder(tf.float64, name="labels")
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x)
    feeds = {x: np.array([0.0, 3.0, -2.0, 5.0]), y: np.array([0.5, 1.0, 0.0, 0.3])}
    return {"fetches": [loss, tf.gradients(loss, [x, y])], "feeds": feeds}


@_program
def zeros_ones_fill_of_sizes_known_when_run(tf):
    # tf.zeros([tf.shape(x)[0], n]): a size computed at run time among ints (an RNN's zero
    # state, a mask's ones); fill with a tensor value passes its gradient on.
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    batch = tf.shape(x)[0]
    state = tf.zeros([batch, 4], tf.float64)
    mask = tf.ones(tf.stack([batch, 2]), tf.int32)
    scale = tf.reduce_sum(x)
    filled = tf.fill([2, batch], scale)
    loss = tf.reduce_sum(filled * tf.transpose(x[:, :2])) + tf.reduce_sum(state)
    feeds = {x: np.arange(15.0).reshape(5, 3) / 10}
    return {"fetches": [state, mask, filled, tf.gradients(loss, x)], "feeds": feeds}
