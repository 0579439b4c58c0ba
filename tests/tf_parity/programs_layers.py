"""Corpus of TF1 programs for ``tf.layers``: dense, flatten, batch_normalization.

Same conventions as ``programs.py`` (``fn(tf)`` returning fetches, feeds and optional
``"before"`` ops run first in a Session). Initializers are constants so that the numbers do
not depend on a random generator. Recording needs the legacy Keras that ``tf.layers`` is
built on in TensorFlow 2.21: ``pip install tf-keras==2.21.0`` and ``TF_USE_LEGACY_KERAS=1``.

Covered: ``layers.dense`` (rank 2 and rank 3 inputs, activation, no bias, names made unique,
``reuse=True``) with its gradients; ``layers.flatten``; ``layers.batch_normalization`` in
training mode (2-D and 4-D inputs, the moving-statistics updates of ``UPDATE_OPS`` run as
TF1 programs run them), in inference mode,
with ``center``/``scale`` off, and its gradients with respect to the input, gamma and beta.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-1.0, high=1.0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _kernel(seed, shape, dtype=np.float64):
    return _arr(seed, shape, dtype=dtype)


@_program
def dense_relu_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 4], name="x")
    h = tf.layers.dense(
        x, 3, activation=tf.nn.relu, kernel_initializer=tf.constant_initializer(_kernel(1, (4, 3)))
    )
    y = tf.layers.dense(
        h,
        2,
        kernel_initializer=tf.constant_initializer(_kernel(2, (3, 2))),
        bias_initializer=tf.constant_initializer(0.25),
    )
    loss = tf.reduce_sum(tf.square(y))
    variables = tf.trainable_variables()
    return {
        "fetches": [h, y, loss] + tf.gradients(loss, [x] + variables),
        "feeds": {x: _arr(3, (5, 4))},
    }


@_program
def dense_rank3_no_bias(tf):
    x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
    y = tf.layers.dense(
        x, 2, use_bias=False, kernel_initializer=tf.constant_initializer(_kernel(4, (4, 2)))
    )
    loss = tf.reduce_sum(tf.tanh(y))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(5, (2, 3, 4), dtype=np.float32)},
    }


@_program
def dense_reuse_shares_kernel(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    init = tf.constant_initializer(_kernel(6, (2, 2)))
    a = tf.layers.dense(x, 2, name="shared", kernel_initializer=init)
    b = tf.layers.dense(a, 2, name="shared", reuse=True)
    loss = tf.reduce_sum(b * b)
    return {
        "fetches": [b, loss] + tf.gradients(loss, tf.trainable_variables()),
        "feeds": {x: _arr(7, (3, 2))},
    }


@_program
def flatten_then_dense(tf):
    x = tf.placeholder(tf.float64, [None, 2, 3, 2], name="x")
    f = tf.layers.flatten(x)
    y = tf.layers.dense(f, 1, kernel_initializer=tf.constant_initializer(_kernel(8, (12, 1))))
    loss = tf.reduce_mean(y)
    return {"fetches": [f, y, loss] + tf.gradients(loss, [x]), "feeds": {x: _arr(9, (3, 2, 3, 2))}}


def _batch_norm_program(tf, shape, steps, **kwargs):
    x = tf.placeholder(tf.float64, [None] + list(shape[1:]), name="x")
    y = tf.layers.batch_normalization(x, training=True, momentum=0.9, **kwargs)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    variables = tf.global_variables()
    loss = tf.reduce_sum(tf.square(y) * _arr(10, shape))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()) + variables,
        "feeds": {x: _arr(11, shape, -2.0, 3.0)},
        "before": [tf.group(*update_ops)] * steps,
    }


@_program
def batch_norm_training_2d(tf):
    return _batch_norm_program(tf, (6, 3), 2)


@_program
def batch_norm_training_4d(tf):
    return _batch_norm_program(tf, (2, 3, 3, 2), 2)


@_program
def batch_norm_training_no_center_no_scale(tf):
    return _batch_norm_program(tf, (5, 4), 1, center=False, scale=False, epsilon=0.01)


@_program
def batch_norm_inference_after_updates(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    train_out = tf.layers.batch_normalization(x, training=True, momentum=0.5, name="bn")
    test_out = tf.layers.batch_normalization(x, training=False, name="bn", reuse=True)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    loss = tf.reduce_sum(tf.square(test_out))
    return {
        "fetches": [train_out, test_out] + tf.gradients(loss, [x]) + tf.global_variables(),
        "feeds": {x: _arr(12, (4, 3), -1.0, 4.0)},
        "before": [tf.group(*update_ops)] * 3,
    }


@_program
def conv2d_same_relu_max_pooling(tf):
    x = tf.placeholder(tf.float64, [None, 6, 6, 2], name="x")
    c = tf.layers.conv2d(
        x,
        3,
        3,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=tf.constant_initializer(_kernel(13, (3, 3, 2, 3))),
        bias_initializer=tf.constant_initializer(0.1),
    )
    p = tf.layers.max_pooling2d(c, 2, 2)
    loss = tf.reduce_sum(tf.square(p))
    return {
        "fetches": [c, p, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(14, (2, 6, 6, 2))},
    }


@_program
def conv2d_valid_strided_average_pooling_same(tf):
    x = tf.placeholder(tf.float32, [None, 7, 7, 1], name="x")
    c = tf.layers.conv2d(
        x,
        2,
        (3, 2),
        strides=2,
        kernel_initializer=tf.constant_initializer(_kernel(15, (3, 2, 1, 2))),
    )
    p = tf.layers.average_pooling2d(c, 2, 1, padding="same")
    loss = tf.reduce_mean(tf.tanh(p))
    return {
        "fetches": [c, p, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(16, (3, 7, 7, 1), dtype=np.float32)},
    }


@_program
def layers_cnn_adam_steps(tf):
    x = tf.placeholder(tf.float64, [None, 8, 8, 1], name="x")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    c = tf.layers.conv2d(
        x,
        4,
        3,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=tf.constant_initializer(_kernel(17, (3, 3, 1, 4))),
    )
    p = tf.layers.max_pooling2d(c, 2, 2)
    f = tf.layers.flatten(p)
    logits = tf.layers.dense(f, 3, kernel_initializer=tf.constant_initializer(_kernel(18, (64, 3))))
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    step = tf.train.AdamOptimizer(0.01).minimize(loss)
    return {
        "fetches": [loss] + tf.trainable_variables(),
        "feeds": {x: _arr(19, (5, 8, 8, 1)), labels: np.array([0, 1, 2, 1, 0])},
        "before": [step] * 3,
    }


def _fused_batch_norm_program(tf, shape, axis, dtype, training):
    # A 4-D float32 input runs TF1's fused kernel, which moves the moving variance toward the
    # unbiased batch variance; float64 does not (TF's fused kernel takes no float64).
    x = tf.placeholder(tf.as_dtype(dtype), [None] + list(shape[1:]), name="x")
    y = tf.layers.batch_normalization(x, axis=axis, training=training, momentum=0.5)
    loss = tf.reduce_sum(tf.square(y) * _arr(13, shape).astype(dtype))
    feeds = {x: _arr(14, shape, -2.0, 3.0).astype(dtype)}
    if not isinstance(training, bool):
        feeds[training] = True
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x]) + tf.global_variables(),
        "feeds": feeds,
        "before": [tf.group(*tf.get_collection(tf.GraphKeys.UPDATE_OPS))] * 2,
        "rtol": 1e-5,
    }


@_program
def batch_norm_fused_float32_channels_last(tf):
    return _fused_batch_norm_program(tf, (2, 3, 3, 2), -1, np.float32, True)


@_program
def batch_norm_fused_float32_channels_first(tf):
    return _fused_batch_norm_program(tf, (2, 2, 3, 3), 1, np.float32, True)


@_program
def batch_norm_fused_training_placeholder(tf):
    training = tf.placeholder(tf.bool, [], name="training")
    return _fused_batch_norm_program(tf, (3, 2, 2, 2), 3, np.float32, training)


@_program
def batch_norm_4d_float64_not_fused(tf):
    return _fused_batch_norm_program(tf, (2, 3, 3, 2), -1, np.float64, True)


@_program
def batch_norm_4d_float32_fused_false(tf):
    x = tf.placeholder(tf.float32, [None, 2, 2, 3], name="x")
    tf.layers.batch_normalization(x, training=True, momentum=0.0, fused=False)
    feeds = {x: _arr(15, (2, 2, 2, 3)).astype(np.float32)}
    update = tf.group(*tf.get_collection(tf.GraphKeys.UPDATE_OPS))
    return {"fetches": tf.global_variables(), "feeds": feeds, "before": [update], "rtol": 1e-5}


# --- recurrent nets: tf.nn.rnn_cell cells unrolled by dynamic_rnn / static_rnn ----------------
#
# The cells make Glorot-uniform kernels (random); "before" assigns every variable fixed values
# so that TF and symgrad run the same weights.


def _rnn_program(tf, build, x_shape, time_major=False, lengths=None):
    declared = [x_shape[0], None, x_shape[2]] if time_major else [None] + list(x_shape[1:])
    x = tf.placeholder(tf.float64, declared, name="x")
    feeds = {x: _arr(20, x_shape, -2.0, 2.0)}
    length = None
    if lengths is not None:
        length = tf.placeholder(tf.int32, [None], name="length")
        feeds[length] = np.array(lengths, np.int32)
    outputs, state = build(x, length)
    flat_state = _flat(state)
    variables = tf.trainable_variables()
    assign = [tf.assign(v, _arr(30 + i, v.shape.as_list())) for i, v in enumerate(variables)]
    outputs_list = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    sizes = [[1 if d is None else d for d in o.shape.as_list()] for o in outputs_list]
    weights = [_arr(50 + i, shape) for i, shape in enumerate(sizes)]  # the batch broadcasts
    loss = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(outputs_list, weights, strict=True)])
    loss += tf.add_n([tf.reduce_sum(s * s) for s in flat_state])
    return {
        "fetches": outputs_list + flat_state + tf.gradients(loss, [x] + variables),
        "feeds": feeds,
        "before": [tf.group(*assign)],
    }


def _flat(state):
    if isinstance(state, (tuple, list)):
        return [leaf for part in state for leaf in _flat(part)]
    return [state]


@_program
def rnn_basic_lstm_dynamic(tf):
    def build(x, length):
        cell = tf.nn.rnn_cell.BasicLSTMCell(4)
        return tf.nn.dynamic_rnn(cell, x, dtype=tf.float64)

    return _rnn_program(tf, build, (2, 4, 3))


@_program
def rnn_gru_dynamic_sequence_length(tf):
    def build(x, length):
        cell = tf.nn.rnn_cell.GRUCell(3)
        return tf.nn.dynamic_rnn(cell, x, sequence_length=length, dtype=tf.float64)

    return _rnn_program(tf, build, (3, 4, 2), lengths=[4, 2, 0])


@_program
def rnn_basic_static_initial_state(tf):
    def build(x, length):
        cell = tf.nn.rnn_cell.BasicRNNCell(3, activation=tf.nn.relu)
        start = tf.ones([tf.shape(x)[0], 3], tf.float64) * 0.5
        steps = tf.unstack(x, axis=1)
        return tf.nn.static_rnn(cell, steps, initial_state=start, sequence_length=length)

    return _rnn_program(tf, build, (2, 3, 2), lengths=[1, 3])


@_program
def rnn_lstm_peepholes_projection_time_major(tf):
    def build(x, length):
        cell = tf.nn.rnn_cell.LSTMCell(
            4, use_peepholes=True, cell_clip=0.8, num_proj=2, proj_clip=0.5, forget_bias=0.5
        )
        return tf.nn.dynamic_rnn(cell, x, dtype=tf.float64, time_major=True)

    return _rnn_program(tf, build, (3, 2, 3), time_major=True)


@_program
def rnn_multi_lstm_gru(tf):
    def build(x, length):
        cells = [tf.nn.rnn_cell.BasicLSTMCell(3), tf.nn.rnn_cell.GRUCell(2)]
        multi = tf.nn.rnn_cell.MultiRNNCell(cells)
        return tf.nn.dynamic_rnn(multi, x, sequence_length=length, dtype=tf.float64)

    return _rnn_program(tf, build, (2, 3, 2), lengths=[3, 1])


@_program
def rnn_bidirectional_gru_sequence_length(tf):
    def build(x, length):
        forward, backward = tf.nn.rnn_cell.GRUCell(2), tf.nn.rnn_cell.GRUCell(3)
        return tf.nn.bidirectional_dynamic_rnn(
            forward, backward, x, sequence_length=length, dtype=tf.float64
        )

    return _rnn_program(tf, build, (3, 4, 2), lengths=[4, 2, 1])


@_program
def rnn_basic_lstm_concatenated_state(tf):
    def build(x, length):
        cell = tf.nn.rnn_cell.BasicLSTMCell(2, state_is_tuple=False, forget_bias=0.0)
        return tf.nn.dynamic_rnn(cell, x, dtype=tf.float64)

    return _rnn_program(tf, build, (2, 3, 2))
