"""Corpus of TF1 graph programs for convolutions and pooling (TensorFlow parity tests).

Same conventions as ``programs.py``: every program is a plain function ``fn(tf)`` taking
the graph-API module (``tensorflow.compat.v1`` when recording, ``symgrad`` when testing),
building a graph in the current default graph and returning ``{"fetches": [...],
"feeds": {...}}`` (optionally ``"rtol"``).

Covered: ``nn.conv2d`` (SAME/VALID, strides 1 and 2, unequal strides, dilation 2, odd sizes,
even and 1x1 kernels, channels > 1, batch > 1, the ``filters=`` spelling), ``nn.max_pool``
(ties inside a window and across overlapping windows, SAME edges), ``nn.avg_pool`` (SAME
edges average over the elements inside the input), ``nn.conv2d_transpose``, ``nn.bias_add``
on 4-D values, gradients of gradients (conv2d, max_pool, avg_pool), ``[None, h, w, c]``
placeholders fed with two batch sizes, and a small CNN with a softmax cross-entropy.
float32 and float64.

Almost every program fetches the op's value, a scalar loss (the output times a fixed random
weight array, summed) and ``tf.gradients`` of that loss with respect to every float input.
The fixture ``tf_fixtures_conv.json`` (written by ``record_tf.py programs_conv``) is keyed
by function ``__name__``.
"""

import numpy as np

PROGRAMS = []

# float32 sums of a few dozen products are accumulated in another order by TF's kernels.
F32_RTOL = 2e-5


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-2.0, high=2.0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _ties(seed, shape, dtype=np.float64):
    """Small integers: many equal elements in every pooling window."""
    return np.random.RandomState(seed).randint(0, 3, size=shape).astype(dtype)


def _vg(tf, y, shape, xs, seed, dtype=np.float64, feeds=None):
    """The value ``y``, ``sum(y * W)`` for a fixed random ``W`` and its gradients in ``xs``."""
    w = _arr(seed, shape, -1.0, 1.0, dtype)
    loss = tf.reduce_sum(y * tf.constant(w))
    spec = {"fetches": [y, loss, tf.gradients(loss, xs)], "feeds": feeds or {}}
    if dtype == np.float32:
        spec["rtol"] = F32_RTOL
    return spec


def _conv(tf, x_shape, w_shape, strides, padding, out_shape, dtype=np.float64, **kw):
    x = tf.Variable(_arr(1, x_shape, dtype=dtype), name="x")
    w = tf.Variable(_arr(2, w_shape, dtype=dtype), name="w")
    y = tf.nn.conv2d(x, w, strides, padding, **kw)
    return _vg(tf, y, out_shape, [x, w], 3, dtype)


# ---------------------------------------------------------------------------
# conv2d
# ---------------------------------------------------------------------------


@_program
def conv_same_stride1(tf):
    return _conv(tf, (2, 5, 7, 2), (3, 3, 2, 3), [1, 1, 1, 1], "SAME", (2, 5, 7, 3))


@_program
def conv_valid_stride1(tf):
    return _conv(tf, (2, 5, 7, 2), (3, 2, 2, 3), [1, 1, 1, 1], "VALID", (2, 3, 6, 3))


@_program
def conv_same_stride2_odd(tf):
    # 7 -> 4 with a 4x4 kernel: 3 padding elements, 1 before and 2 after (TF's asymmetry)
    return _conv(tf, (1, 7, 7, 2), (4, 4, 2, 2), [1, 2, 2, 1], "SAME", (1, 4, 4, 2))


@_program
def conv_same_stride2_even(tf):
    return _conv(tf, (2, 6, 8, 1), (3, 3, 1, 4), [1, 2, 2, 1], "SAME", (2, 3, 4, 4))


@_program
def conv_valid_stride2_odd(tf):
    # (7 - 3) // 2 + 1 = 3 rows; the last input row is read by no window
    return _conv(tf, (2, 8, 7, 3), (3, 3, 3, 2), [1, 2, 2, 1], "VALID", (2, 3, 3, 2))


@_program
def conv_strides_2_1(tf):
    return _conv(tf, (1, 5, 5, 2), (2, 3, 2, 2), [1, 2, 1, 1], "SAME", (1, 3, 5, 2))


# TF's CPU kernels have no gradient of a dilated conv2d; atrous_conv2d computes the same
# convolution through space_to_batch and a plain conv2d, which they differentiate.


@_program
def conv_dilation2_value(tf):
    x = tf.constant(_arr(1, (2, 7, 6, 2)))
    w = tf.constant(_arr(2, (3, 3, 2, 2)))
    same = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[1, 2, 2, 1])
    valid = tf.nn.conv2d(x, w, 1, "VALID", dilations=2)
    return {"fetches": [same, valid], "feeds": {}}


@_program
def conv_dilation2_same(tf):
    x = tf.Variable(_arr(1, (2, 7, 6, 2)), name="x")
    w = tf.Variable(_arr(2, (3, 3, 2, 2)), name="w")
    y = tf.nn.atrous_conv2d(x, w, 2, "SAME")
    return _vg(tf, y, (2, 7, 6, 2), [x, w], 3)


@_program
def conv_dilation2_valid(tf):
    x = tf.Variable(_arr(1, (1, 8, 9, 1)), name="x")
    w = tf.Variable(_arr(2, (2, 3, 1, 3)), name="w")
    y = tf.nn.atrous_conv2d(x, w, 2, "VALID")
    return _vg(tf, y, (1, 6, 5, 3), [x, w], 3)


@_program
def conv_1x1(tf):
    return _conv(tf, (3, 4, 5, 4), (1, 1, 4, 2), [1, 1, 1, 1], "VALID", (3, 4, 5, 2))


@_program
def conv_1x1_stride2(tf):
    return _conv(tf, (1, 5, 5, 3), (1, 1, 3, 2), [1, 2, 2, 1], "SAME", (1, 3, 3, 2))


@_program
def conv_kernel_is_input(tf):
    return _conv(tf, (2, 3, 3, 2), (3, 3, 2, 5), [1, 1, 1, 1], "VALID", (2, 1, 1, 5))


@_program
def conv_float32_same(tf):
    return _conv(tf, (2, 6, 5, 3), (3, 3, 3, 4), [1, 1, 1, 1], "SAME", (2, 6, 5, 4), np.float32)


@_program
def conv_float32_valid_stride2(tf):
    return _conv(tf, (2, 9, 9, 2), (5, 5, 2, 3), [1, 2, 2, 1], "VALID", (2, 3, 3, 3), np.float32)


# Stride 1 with enough channels goes kernel row by kernel row in the fast form: 64 output
# channels or more one product per kernel row (the forward below; the input gradient in the
# third, whose input has 64 channels), fewer side by side; the filter gradient per kernel
# row whenever kernel width x channels reaches 16.


@_program
def conv_kernel_rows_64_channels_same_even(tf):
    # a 2x3 kernel: SAME pads its one extra row after
    return _conv(tf, (1, 4, 5, 16), (2, 3, 16, 64), [1, 1, 1, 1], "SAME", (1, 4, 5, 64))


@_program
def conv_kernel_rows_64_channels_valid_float32(tf):
    spec = _conv(
        tf, (2, 4, 3, 24), (2, 2, 24, 64), [1, 1, 1, 1], "VALID", (2, 3, 2, 64), np.float32
    )
    # The input's gradient sums 256 float32 products that cancel (to 0.11 from terms summing
    # to 62 in magnitude): against the float64 value TF is off by up to 6.7e-6 and symgrad by
    # up to 8.0e-6, so the two differ by more than F32_RTOL there.
    spec["rtol"] = 1e-4
    return spec


@_program
def conv_kernel_rows_64_input_channels_same_even(tf):
    # 4x4 SAME on 4x5: one padding row and column before, two after
    return _conv(tf, (1, 4, 5, 64), (4, 4, 64, 2), [1, 1, 1, 1], "SAME", (1, 4, 5, 2))


@_program
def conv_filters_keyword(tf):
    x = tf.Variable(_arr(4, (1, 4, 4, 2)), name="x")
    w = tf.Variable(_arr(5, (2, 2, 2, 1)), name="w")
    y = tf.nn.conv2d(x, filters=w, strides=[1, 1, 1, 1], padding="SAME")
    return _vg(tf, y, (1, 4, 4, 1), [x, w], 6)


@_program
def conv_bias_add_relu(tf):
    x = tf.Variable(_arr(7, (2, 5, 5, 2)), name="x")
    w = tf.Variable(_arr(8, (3, 3, 2, 3)), name="w")
    b = tf.Variable(_arr(9, (3,)), name="b")
    y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))
    return _vg(tf, y, (2, 5, 5, 3), [x, w, b], 10)


@_program
def conv_none_batch_2(tf):
    x = tf.placeholder(tf.float64, [None, 6, 5, 2], name="x")
    w = tf.Variable(_arr(11, (3, 3, 2, 2)), name="w")
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(y * y)
    return {
        "fetches": [y, loss, tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(12, (2, 6, 5, 2))},
    }


@_program
def conv_none_batch_5(tf):
    x = tf.placeholder(tf.float64, [None, 6, 5, 2], name="x")
    w = tf.Variable(_arr(11, (3, 3, 2, 2)), name="w")
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(y * y)
    return {
        "fetches": [y, loss, tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(13, (5, 6, 5, 2))},
    }


@_program
def conv_none_spatial(tf):
    # height and width known only at run time: padding is computed from the fed shape
    x = tf.placeholder(tf.float64, [None, None, None, 1], name="x")
    w = tf.Variable(_arr(14, (3, 3, 1, 2)), name="w")
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(y * y)
    return {
        "fetches": [y, loss, tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(15, (2, 5, 6, 1))},
    }


@_program
def conv_grad_of_grad(tf):
    x = tf.Variable(_arr(16, (2, 5, 5, 2)), name="x")
    w = tf.Variable(_arr(17, (3, 3, 2, 2)), name="w")
    y = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
    inner = tf.reduce_sum(tf.square(y))
    gx, gw = tf.gradients(inner, [x, w])
    outer = tf.reduce_sum(gx * tf.constant(_arr(18, (2, 5, 5, 2)))) + tf.reduce_sum(
        gw * tf.constant(_arr(19, (3, 3, 2, 2)))
    )
    return {"fetches": [gx, gw, outer, tf.gradients(outer, [x, w])], "feeds": {}}


@_program
def conv_dilated_grad_of_grad(tf):
    x = tf.Variable(_arr(20, (1, 6, 6, 1)), name="x")
    w = tf.Variable(_arr(21, (2, 2, 1, 2)), name="w")
    y = tf.nn.atrous_conv2d(x, w, 2, "VALID")
    inner = tf.reduce_sum(tf.square(y))
    gx = tf.gradients(inner, x)[0]
    outer = tf.reduce_sum(gx * tf.constant(_arr(22, (1, 6, 6, 1))))
    return {"fetches": [gx, outer, tf.gradients(outer, [x, w])], "feeds": {}}


@_program
def conv_hessian_filter(tf):
    x = tf.constant(_arr(23, (1, 4, 4, 1)))
    w = tf.Variable(_arr(24, (2, 2, 1, 1)), name="w")
    y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID")
    return {"fetches": [tf.hessians(tf.reduce_sum(y**2), w)], "feeds": {}}


# ---------------------------------------------------------------------------
# conv2d_transpose
# ---------------------------------------------------------------------------


@_program
def conv_transpose_same_stride2(tf):
    v = tf.Variable(_arr(25, (2, 3, 3, 4)), name="v")
    w = tf.Variable(_arr(26, (3, 3, 2, 4)), name="w")
    y = tf.nn.conv2d_transpose(v, w, [2, 5, 5, 2], [1, 2, 2, 1], "SAME")
    return _vg(tf, y, (2, 5, 5, 2), [v, w], 27)


@_program
def conv_transpose_valid(tf):
    v = tf.Variable(_arr(28, (1, 3, 2, 2)), name="v")
    w = tf.Variable(_arr(29, (2, 3, 1, 2)), name="w")
    y = tf.nn.conv2d_transpose(v, w, [1, 4, 4, 1], [1, 1, 1, 1], "VALID")
    return _vg(tf, y, (1, 4, 4, 1), [v, w], 30)


@_program
def conv_transpose_float32_stride2_valid(tf):
    v = tf.Variable(_arr(31, (2, 3, 3, 3), dtype=np.float32), name="v")
    w = tf.Variable(_arr(32, (2, 2, 1, 3), dtype=np.float32), name="w")
    y = tf.nn.conv2d_transpose(v, w, [2, 6, 6, 1], [1, 2, 2, 1], "VALID")
    return _vg(tf, y, (2, 6, 6, 1), [v, w], 33, np.float32)


# ---------------------------------------------------------------------------
# max_pool
# ---------------------------------------------------------------------------


def _pool(tf, fn, x_value, ksize, strides, padding, out_shape, dtype=np.float64):
    x = tf.Variable(x_value.astype(dtype), name="x")
    y = fn(x, ksize, strides, padding)
    return _vg(tf, y, out_shape, [x], 40, dtype)


@_program
def max_pool_2x2_stride2(tf):
    return _pool(
        tf,
        tf.nn.max_pool,
        _arr(41, (2, 6, 6, 3)),
        [1, 2, 2, 1],
        [1, 2, 2, 1],
        "VALID",
        (2, 3, 3, 3),
    )


@_program
def max_pool_ties_2x2(tf):
    return _pool(
        tf,
        tf.nn.max_pool,
        _ties(42, (2, 6, 6, 2)),
        [1, 2, 2, 1],
        [1, 2, 2, 1],
        "VALID",
        (2, 3, 3, 2),
    )


@_program
def max_pool_ties_overlap_valid(tf):
    # 3x3 windows, stride 1: each element is in up to 9 windows, ties everywhere
    return _pool(
        tf,
        tf.nn.max_pool,
        _ties(43, (1, 6, 7, 2)),
        [1, 3, 3, 1],
        [1, 1, 1, 1],
        "VALID",
        (1, 4, 5, 2),
    )


@_program
def max_pool_ties_overlap_same(tf):
    return _pool(
        tf,
        tf.nn.max_pool,
        _ties(44, (2, 5, 5, 1)),
        [1, 3, 3, 1],
        [1, 1, 1, 1],
        "SAME",
        (2, 5, 5, 1),
    )


@_program
def max_pool_ties_same_stride2_odd(tf):
    return _pool(
        tf,
        tf.nn.max_pool,
        _ties(45, (1, 7, 5, 2)),
        [1, 3, 3, 1],
        [1, 2, 2, 1],
        "SAME",
        (1, 4, 3, 2),
    )


@_program
def max_pool_all_equal(tf):
    return _pool(
        tf, tf.nn.max_pool, np.ones((1, 4, 4, 1)), [1, 2, 2, 1], [1, 1, 1, 1], "SAME", (1, 4, 4, 1)
    )


@_program
def max_pool_float32_ties(tf):
    return _pool(
        tf,
        tf.nn.max_pool,
        _ties(46, (2, 5, 6, 3)),
        [1, 2, 3, 1],
        [1, 2, 1, 1],
        "SAME",
        (2, 3, 6, 3),
        np.float32,
    )


@_program
def max_pool_negative_same(tf):
    # all values negative: the SAME padding must never win a window
    return _pool(
        tf,
        tf.nn.max_pool,
        _arr(47, (1, 5, 5, 1), -5.0, -1.0),
        [1, 2, 2, 1],
        [1, 2, 2, 1],
        "SAME",
        (1, 3, 3, 1),
    )


@_program
def max_pool_grad_of_grad(tf):
    x = tf.Variable(_ties(48, (1, 5, 5, 2)) + _arr(49, (1, 5, 5, 2), 0.0, 0.5), name="x")
    y = tf.nn.max_pool(x, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
    inner = tf.reduce_sum(tf.square(y))
    gx = tf.gradients(inner, x)[0]
    outer = tf.reduce_sum(gx * tf.constant(_arr(50, (1, 5, 5, 2))))
    return {"fetches": [gx, outer, tf.gradients(outer, x)], "feeds": {}}


@_program
def max_pool_grad_of_grad_ties(tf):
    x = tf.Variable(_ties(51, (2, 4, 4, 1)), name="x")
    y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")
    inner = tf.reduce_sum(y * tf.constant(_arr(52, (2, 3, 3, 1))))
    gx = tf.gradients(inner, x)[0]
    outer = tf.reduce_sum(tf.square(gx))
    return {"fetches": [gx, outer, tf.gradients(outer, x)], "feeds": {}}


@_program
def max_pool2d_spelling(tf):
    x = tf.Variable(_ties(53, (1, 4, 4, 1)), name="x")
    y = tf.nn.max_pool2d(x, 2, 2, "VALID")
    return _vg(tf, y, (1, 2, 2, 1), [x], 54)


# ---------------------------------------------------------------------------
# avg_pool
# ---------------------------------------------------------------------------


@_program
def avg_pool_2x2_valid(tf):
    return _pool(
        tf,
        tf.nn.avg_pool,
        _arr(60, (2, 6, 6, 2)),
        [1, 2, 2, 1],
        [1, 2, 2, 1],
        "VALID",
        (2, 3, 3, 2),
    )


@_program
def avg_pool_same_edges_stride2(tf):
    return _pool(
        tf, tf.nn.avg_pool, _arr(61, (1, 5, 7, 2)), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", (1, 3, 4, 2)
    )


@_program
def avg_pool_same_overlap(tf):
    return _pool(
        tf, tf.nn.avg_pool, _arr(62, (2, 4, 5, 1)), [1, 2, 3, 1], [1, 1, 1, 1], "SAME", (2, 4, 5, 1)
    )


@_program
def avg_pool_float32_same(tf):
    return _pool(
        tf,
        tf.nn.avg_pool,
        _arr(63, (2, 5, 5, 3)),
        [1, 3, 3, 1],
        [1, 2, 2, 1],
        "SAME",
        (2, 3, 3, 3),
        np.float32,
    )


@_program
def avg_pool_grad_of_grad(tf):
    x = tf.Variable(_arr(64, (1, 5, 5, 1)), name="x")
    y = tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    inner = tf.reduce_sum(tf.square(y))
    gx = tf.gradients(inner, x)[0]
    outer = tf.reduce_sum(tf.square(gx))
    return {"fetches": [gx, outer, tf.gradients(outer, x)], "feeds": {}}


@_program
def avg_pool2d_spelling(tf):
    x = tf.Variable(_arr(65, (1, 5, 5, 1)), name="x")
    y = tf.nn.avg_pool2d(x, 2, 2, "SAME")
    return _vg(tf, y, (1, 3, 3, 1), [x], 66)


# ---------------------------------------------------------------------------
# a small CNN
# ---------------------------------------------------------------------------


def _small_cnn(tf, dtype, batch_seed, batch):
    x = tf.placeholder(dtype, [None, 8, 8, 1], name="x")
    labels = tf.placeholder(dtype, [None, 3], name="labels")
    w1 = tf.Variable(_arr(70, (3, 3, 1, 4), -0.5, 0.5, dtype), name="w1")
    b1 = tf.Variable(_arr(71, (4,), -0.1, 0.1, dtype), name="b1")
    w2 = tf.Variable(_arr(72, (3, 3, 4, 6), -0.5, 0.5, dtype), name="w2")
    b2 = tf.Variable(_arr(73, (6,), -0.1, 0.1, dtype), name="b2")
    w3 = tf.Variable(_arr(74, (2 * 2 * 6, 3), -0.5, 0.5, dtype), name="w3")
    h1 = tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1)
    p1 = tf.nn.max_pool(h1, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h2 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(p1, w2, [1, 1, 1, 1], "SAME"), b2))
    p2 = tf.nn.avg_pool(h2, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    logits = tf.matmul(tf.reshape(p2, [-1, 2 * 2 * 6]), w3)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    rng = np.random.RandomState(batch_seed)
    feeds = {
        x: rng.uniform(0, 1, (batch, 8, 8, 1)).astype(dtype),
        labels: np.eye(3, dtype=dtype)[rng.randint(0, 3, batch)],
    }
    spec = {"fetches": [logits, loss, tf.gradients(loss, [w1, b1, w2, b2, w3])], "feeds": feeds}
    if dtype == np.float32:
        spec["rtol"] = F32_RTOL
    return spec


@_program
def small_cnn_float64(tf):
    return _small_cnn(tf, np.float64, 80, 4)


@_program
def small_cnn_float32(tf):
    return _small_cnn(tf, np.float32, 81, 3)


def _predicting_cnn(tf, dtype, channels, padding, batch, seed):
    """A CNN's forward pass alone (a prediction: no gradient), each layer's relu read only by
    its 2x2 max-pool: the fast form computes each layer as one call without the pool's taps.
    The first layer's input has ``channels`` channels (1: im2col grouped by the pool's taps;
    16: kernel row by kernel row); ties and zero rows in the input, a relu that kills whole
    windows (negative bias)."""
    x = tf.placeholder(dtype, [None, 8, 8, channels], name="x")
    w1 = tf.Variable(_arr(seed, (3, 3, channels, 16), -0.5, 0.5, dtype), name="w1")
    b1 = tf.Variable(_arr(seed + 1, (16,), -0.3, 0.1, dtype), name="b1")
    w2 = tf.Variable(_arr(seed + 2, (3, 3, 16, 8), -0.5, 0.5, dtype), name="w2")
    b2 = tf.Variable(_arr(seed + 3, (8,), -0.1, 0.1, dtype), name="b2")
    p1 = tf.nn.max_pool(tf.nn.relu(tf.nn.conv2d(x, w1, [1, 1, 1, 1], padding) + b1), 2, 2, padding)
    p2 = tf.nn.max_pool(
        tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(p1, w2, [1, 1, 1, 1], "SAME"), b2)), 2, 2, "SAME"
    )
    logits = tf.reduce_sum(p2, axis=[1, 2])
    images = _ties(seed + 4, (batch, 8, 8, channels), dtype) - 1.0
    images[0, :2] = 0.0
    spec = {"fetches": [p2, tf.argmax(logits, 1)], "feeds": {x: images}}
    if dtype == np.float32:
        spec["rtol"] = F32_RTOL
    return spec


@_program
def predicting_cnn_grayscale_float32(tf):
    return _predicting_cnn(tf, np.float32, 1, "SAME", 5, 90)


@_program
def predicting_cnn_channels_valid_float64(tf):
    return _predicting_cnn(tf, np.float64, 16, "VALID", 3, 95)


# ---------------------------------------------------------------------------
# depthwise_conv2d and separable_conv2d
# ---------------------------------------------------------------------------


def _depthwise(tf, x_shape, w_shape, strides, padding, out_shape, dtype=np.float64, **kw):
    x = tf.Variable(_arr(31, x_shape, dtype=dtype), name="x")
    w = tf.Variable(_arr(32, w_shape, dtype=dtype), name="w")
    y = tf.nn.depthwise_conv2d(x, w, strides, padding, **kw)
    return _vg(tf, y, out_shape, [x, w], 33, dtype)


@_program
def depthwise_same_stride1(tf):
    return _depthwise(tf, (2, 5, 7, 3), (3, 3, 3, 2), [1, 1, 1, 1], "SAME", (2, 5, 7, 6))


@_program
def depthwise_valid_stride1(tf):
    return _depthwise(tf, (2, 5, 7, 2), (3, 2, 2, 3), [1, 1, 1, 1], "VALID", (2, 3, 6, 6))


@_program
def depthwise_same_stride2_odd(tf):
    # 7 -> 4 with a 4x4 kernel: 3 padding elements, 1 before and 2 after
    return _depthwise(tf, (1, 7, 7, 2), (4, 4, 2, 1), [1, 2, 2, 1], "SAME", (1, 4, 4, 2))


@_program
def depthwise_valid_stride2(tf):
    return _depthwise(tf, (2, 8, 7, 3), (3, 3, 3, 2), [1, 2, 2, 1], "VALID", (2, 3, 3, 6))


@_program
def depthwise_rate2_same(tf):
    return _depthwise(
        tf, (2, 7, 6, 2), (3, 3, 2, 2), [1, 1, 1, 1], "SAME", (2, 7, 6, 4), rate=[2, 2]
    )


@_program
def depthwise_rate_2_1_valid(tf):
    return _depthwise(
        tf, (1, 8, 9, 2), (2, 3, 2, 1), [1, 1, 1, 1], "VALID", (1, 6, 7, 2), rate=[2, 1]
    )


@_program
def depthwise_dilations_keyword(tf):
    return _depthwise(
        tf, (1, 7, 7, 1), (2, 2, 1, 3), [1, 1, 1, 1], "SAME", (1, 7, 7, 3), dilations=[3, 3]
    )


@_program
def depthwise_float32_same_stride2(tf):
    return _depthwise(
        tf, (2, 6, 5, 3), (3, 3, 3, 2), [1, 2, 2, 1], "SAME", (2, 3, 3, 6), np.float32
    )


@_program
def depthwise_native_ops(tf):
    x = tf.constant(_arr(34, (2, 6, 5, 2)))
    w = tf.constant(_arr(35, (3, 2, 2, 2)))
    dy = tf.constant(_arr(36, (2, 3, 3, 4)))
    return {
        "fetches": [
            tf.nn.depthwise_conv2d_native(x, w, [1, 2, 2, 1], "SAME"),
            tf.nn.depthwise_conv2d_native_backprop_input([2, 6, 5, 2], w, dy, [1, 2, 2, 1], "SAME"),
            tf.nn.depthwise_conv2d_native_backprop_filter(
                x, [3, 2, 2, 2], dy, [1, 2, 2, 1], "SAME"
            ),
        ],
        "feeds": {},
    }


@_program
def depthwise_none_batch(tf):
    x = tf.placeholder(tf.float64, [None, 6, 5, 2], name="x")
    w = tf.Variable(_arr(37, (3, 3, 2, 2)), name="w")
    y = tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")
    loss = tf.reduce_sum(y * y)
    return {
        "fetches": [y, loss, tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(38, (3, 6, 5, 2))},
    }


@_program
def depthwise_grad_of_grad(tf):
    x = tf.Variable(_arr(39, (2, 5, 5, 2)), name="x")
    w = tf.Variable(_arr(40, (3, 3, 2, 2)), name="w")
    y = tf.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME")
    inner = tf.reduce_sum(tf.square(y))
    gx, gw = tf.gradients(inner, [x, w])
    outer = tf.reduce_sum(gx * tf.constant(_arr(41, (2, 5, 5, 2)))) + tf.reduce_sum(
        gw * tf.constant(_arr(42, (3, 3, 2, 2)))
    )
    return {"fetches": [gx, gw, outer, tf.gradients(outer, [x, w])], "feeds": {}}


@_program
def depthwise_rate2_grad_of_grad(tf):
    x = tf.Variable(_arr(43, (1, 6, 6, 2)), name="x")
    w = tf.Variable(_arr(44, (2, 2, 2, 1)), name="w")
    y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID", rate=[2, 2])
    inner = tf.reduce_sum(tf.sin(y))
    gx = tf.gradients(inner, x)[0]
    outer = tf.reduce_sum(gx * tf.constant(_arr(45, (1, 6, 6, 2))))
    return {"fetches": [gx, outer, tf.gradients(outer, [x, w])], "feeds": {}}


@_program
def depthwise_hessian_filter(tf):
    x = tf.constant(_arr(46, (1, 4, 4, 2)))
    w = tf.Variable(_arr(47, (2, 2, 2, 1)), name="w")
    y = tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "VALID")
    return {"fetches": [tf.hessians(tf.reduce_sum(y**2), w)], "feeds": {}}


def _separable(tf, x_shape, m, out, strides, padding, out_shape, dtype=np.float64, **kw):
    c = x_shape[3]
    x = tf.Variable(_arr(51, x_shape, dtype=dtype), name="x")
    dw = tf.Variable(_arr(52, (3, 3, c, m), dtype=dtype), name="dw")
    pw = tf.Variable(_arr(53, (1, 1, c * m, out), dtype=dtype), name="pw")
    y = tf.nn.separable_conv2d(x, dw, pw, strides, padding, **kw)
    return _vg(tf, y, out_shape, [x, dw, pw], 54, dtype)


@_program
def separable_same_stride1(tf):
    return _separable(tf, (2, 5, 6, 3), 2, 4, [1, 1, 1, 1], "SAME", (2, 5, 6, 4))


@_program
def separable_valid_stride2(tf):
    return _separable(tf, (1, 7, 8, 2), 1, 3, [1, 2, 2, 1], "VALID", (1, 3, 3, 3))


@_program
def separable_rate2_same(tf):
    return _separable(tf, (1, 7, 7, 2), 2, 3, [1, 1, 1, 1], "SAME", (1, 7, 7, 3), rate=[2, 2])


@_program
def separable_float32_none_batch(tf):
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    dw = tf.Variable(_arr(55, (3, 3, 2, 2), dtype=np.float32), name="dw")
    pw = tf.Variable(_arr(56, (1, 1, 4, 3), dtype=np.float32), name="pw")
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 2, 2, 1], "SAME")
    feeds = {x: _arr(57, (2, 6, 6, 2), dtype=np.float32)}
    return _vg(tf, y, (2, 3, 3, 3), [x, dw, pw], 58, np.float32, feeds)


@_program
def separable_grad_of_grad(tf):
    x = tf.Variable(_arr(58, (1, 5, 5, 2)), name="x")
    dw = tf.Variable(_arr(59, (3, 3, 2, 1)), name="dw")
    pw = tf.Variable(_arr(60, (1, 1, 2, 2)), name="pw")
    y = tf.nn.separable_conv2d(x, dw, pw, [1, 1, 1, 1], "SAME")
    gx = tf.gradients(tf.reduce_sum(tf.square(y)), x)[0]
    outer = tf.reduce_sum(gx * tf.constant(_arr(61, (1, 5, 5, 2))))
    return {"fetches": [gx, outer, tf.gradients(outer, [x, dw, pw])], "feeds": {}}
