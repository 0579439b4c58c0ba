"""Corpus of TF1 graph programs for max-pooling with windows that do not overlap (TensorFlow
parity tests).

Same conventions as ``programs.py``. A ``max_pool`` whose strides equal its ``ksize`` reads
each element at most once; the generated module computes it, its gradient and its second
derivative on a reshape of the input instead of a sliding window. These programs pin that
path's edges against TensorFlow: ``VALID`` leaving rows and columns past the last whole
window unread, ``SAME`` padding before and after, non-square and 1x1 windows, ties (the
gradient goes to the first maximum in row-major order), float32, and gradients of
gradients. The fixture ``tf_fixtures_pool_blocks.json`` (written by ``record_tf.py
programs_pool_blocks``) is keyed by function ``__name__``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _weights(seed, shape, dtype=np.float64):
    return np.random.RandomState(seed).uniform(-1.0, 1.0, size=shape).astype(dtype)


def _ties(seed, shape, dtype=np.float64):
    """Small integers: many equal elements in every window."""
    return np.random.RandomState(seed).randint(0, 3, size=shape).astype(dtype)


def _pooled(tf, x, pools, seed, dtype=np.float64):
    """Each pool's value, ``sum(pool * W)`` over all of them and its gradient in ``x``."""
    ys = [tf.nn.max_pool(x, ksize, strides, padding) for ksize, strides, padding in pools]
    loss = tf.add_n(
        [
            tf.reduce_sum(y * tf.constant(_weights(seed + k, y.shape.as_list(), dtype)))
            for k, y in enumerate(ys)
        ]
    )
    return {"fetches": [ys, loss, tf.gradients(loss, [x])], "feeds": {}}


@_program
def block_valid_unread_edges(tf):
    # 7x5 by 2x2 windows, stride 2: the last row and column are read by no window
    x = tf.Variable(_ties(1, (2, 7, 5, 2)), name="x")
    return _pooled(tf, x, [([1, 2, 2, 1], [1, 2, 2, 1], "VALID")], 2)


@_program
def block_same_pads_before_and_after(tf):
    # 7x8 by 3x3, stride 3: SAME pads one row above and one below, one column right;
    # every value is <= 0, so the padding must never win a window
    x = tf.Variable(_ties(3, (1, 7, 8, 2)) - 2.0, name="x")
    return _pooled(tf, x, [([1, 3, 3, 1], [1, 3, 3, 1], "SAME")], 4)


@_program
def block_non_square_and_1x1_float32(tf):
    x = tf.Variable(_ties(5, (2, 5, 7, 3), np.float32), name="x")
    pools = [
        ([1, 2, 3, 1], [1, 2, 3, 1], "SAME"),
        ([1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
        ([1, 3, 2, 1], [1, 3, 2, 1], "VALID"),
    ]
    return _pooled(tf, x, pools, 6, np.float32)


@_program
def block_grad_of_grad_ties(tf):
    x = tf.Variable(_ties(7, (2, 5, 5, 2)), name="x")
    y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    inner = tf.reduce_sum(tf.square(y))
    gx = tf.gradients(inner, x)[0]
    outer = tf.reduce_sum(gx * tf.constant(_weights(8, (2, 5, 5, 2))))
    return {"fetches": [gx, outer, tf.gradients(outer, x)], "feeds": {}}
