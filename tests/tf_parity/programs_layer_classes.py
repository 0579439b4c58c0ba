"""Corpus of TF1 programs for the layer classes (``tf.layers.Dense``, ``Conv1D``,
``Conv2D``, the pooling layers, ``Flatten``, ``Dropout``, ``BatchNormalization``, ``Layer``),
``tf.layers.conv1d``/``max_pooling1d``/``average_pooling1d``, ``data_format="channels_first"``,
``tf.orthogonal_initializer`` and ``tf.train.FtrlOptimizer``.

Same conventions as ``programs.py`` (``fn(tf)`` returning fetches, feeds and optional
``"before"`` ops run first in a Session), plus ``"names"``: labelled names of what the
program built (layer and scope names, variables, ops, shapes, counts), recorded as TF1 gives
them (``record_tf.plain_names``). Initializers are constants wherever a value is fetched, so
that the numbers do not depend on a random generator; the orthogonal initializer's programs
fetch what does not depend on the draw (``WᵀW = gain² I``) and, with ``rtol``, statistics.
Recording needs the legacy Keras that ``tf.layers`` is built on in TensorFlow 2.21:
``pip install tf-keras==2.21.0`` and ``TF_USE_LEGACY_KERAS=1``.
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


def _init(tf, seed, shape):
    return tf.constant_initializer(_arr(seed, shape))


def _names(items):
    return [item.name for item in items]


# ---------------------------------------------------------------------------
# Dense
# ---------------------------------------------------------------------------


@_program
def dense_class_relu_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 4], name="x")
    hidden = tf.layers.Dense(3, activation=tf.nn.relu, kernel_initializer=_init(tf, 1, (4, 3)))
    out = tf.layers.Dense(
        2, kernel_initializer=_init(tf, 2, (3, 2)), bias_initializer=_init(tf, 3, (2,))
    )
    h = hidden(x)
    y = out(h)
    loss = tf.reduce_sum(tf.square(y))
    return {
        "fetches": [h, y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(4, (5, 4))},
        "names": [
            ("layer names", [hidden.name, out.name]),
            ("scope names", [hidden.scope_name, out.scope_name]),
            ("variables", _names(tf.global_variables())),
            ("kernel, bias", [hidden.kernel, hidden.bias, out.kernel, out.bias]),
            ("layer variables", _names(out.variables)),
            ("trainable, weights", [_names(out.trainable_variables), _names(out.weights)]),
            ("outputs", [h, y]),
            ("units, built", [hidden.units, hidden.built]),
            ("kernel shape", out.kernel.shape),
        ],
    }


@_program
def dense_class_called_twice_shares_variables(tf):
    a = tf.placeholder(tf.float64, [None, 3], name="a")
    b = tf.placeholder(tf.float64, [None, 3], name="b")
    layer = tf.layers.Dense(2, activation=tf.tanh, kernel_initializer=_init(tf, 5, (3, 2)))
    ya, yb = layer(a), layer(b)
    loss = tf.reduce_sum(ya * yb)
    return {
        "fetches": [ya, yb, loss] + tf.gradients(loss, [layer.kernel, layer.bias, a, b]),
        "feeds": {a: _arr(6, (4, 3)), b: _arr(7, (4, 3))},
        "names": [
            ("variables", _names(tf.global_variables())),
            ("layer variables", _names(layer.variables)),
            ("first output", ya),
            ("losses, updates", [len(layer.losses), len(layer.updates)]),
        ],
    }


@_program
def dense_class_named_twice_is_made_unique(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    first = tf.layers.Dense(2, name="out", kernel_initializer=_init(tf, 8, (2, 2)))
    second = tf.layers.Dense(2, name="out", kernel_initializer=_init(tf, 9, (2, 2)))
    y = second(first(x))
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y), tf.trainable_variables()),
        "feeds": {x: _arr(10, (3, 2))},
        "names": [
            ("names", [first.name, second.name]),
            ("scope names", [first.scope_name, second.scope_name]),
            ("variables", _names(tf.trainable_variables())),
            ("output", y),
        ],
    }


@_program
def dense_class_rank3_no_bias(tf):
    x = tf.placeholder(tf.float32, [None, 3, 4], name="x")
    layer = tf.layers.Dense(2, use_bias=False, kernel_initializer=_init(tf, 11, (4, 2)))
    y = layer(x)
    loss = tf.reduce_sum(tf.sin(y))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x, layer.kernel]),
        "feeds": {x: _arr(12, (2, 3, 4), dtype=np.float32)},
        "names": [
            ("bias", layer.bias),
            ("variables", _names(layer.variables)),
            ("output shape", y.shape),
        ],
    }


@_program
def dense_class_in_variable_and_name_scopes(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    with tf.variable_scope("net"):
        inner = tf.layers.Dense(2, kernel_initializer=_init(tf, 13, (2, 2)))
        h = inner(x)
    with tf.name_scope("block"):
        outer = tf.layers.Dense(1, kernel_initializer=_init(tf, 14, (2, 1)))
        y = outer(h)
    return {
        "fetches": [h, y],
        "feeds": {x: _arr(15, (3, 2))},
        "names": [
            ("names", [inner.name, outer.name]),
            ("scope names", [inner.scope_name, outer.scope_name]),
            ("variables", _names(tf.global_variables())),
            ("outputs", [h, y]),
        ],
    }


@_program
def dense_classes_shared_through_auto_reuse(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")

    def model(inputs):
        with tf.variable_scope("model", reuse=tf.AUTO_REUSE):
            hidden = tf.layers.Dense(
                4, name="fc", activation=tf.nn.relu, kernel_initializer=_init(tf, 90, (3, 4))
            )
            return tf.layers.Dense(2, kernel_initializer=_init(tf, 91, (4, 2)))(hidden(inputs))

    a, b = model(x), model(2.0 * x)
    return {
        "fetches": [a, b] + tf.gradients(tf.reduce_sum(a * b), tf.trainable_variables()),
        "feeds": {x: _arr(92, (3, 3))},
        "names": [("variables", _names(tf.global_variables())), ("outputs", [a, b])],
    }


@_program
def dense_class_after_a_functional_dense(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    h = tf.layers.dense(x, 2, kernel_initializer=_init(tf, 16, (2, 2)))
    layer = tf.layers.Dense(2, kernel_initializer=_init(tf, 17, (2, 2)))
    y = layer(h)
    z = tf.layers.dense(y, 1, kernel_initializer=_init(tf, 18, (2, 1)))
    return {
        "fetches": [y, z],
        "feeds": {x: _arr(19, (2, 2))},
        "names": [
            ("scope name", layer.scope_name),
            ("variables", _names(tf.global_variables())),
            ("outputs", [h, y, z]),
        ],
    }


@_program
def dense_class_regularizers_and_losses(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    layer = tf.layers.Dense(
        2,
        kernel_initializer=_init(tf, 20, (3, 2)),
        bias_initializer=_init(tf, 21, (2,)),
        kernel_regularizer=tf.nn.l2_loss,
        bias_regularizer=tf.nn.l2_loss,
        activity_regularizer=tf.nn.l2_loss,
    )
    y = layer(x)
    layer(2.0 * x)
    collected = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    total = tf.add_n(layer.losses)
    return {
        "fetches": [y, total, tf.add_n(collected)] + tf.gradients(total, [layer.kernel, x]),
        "feeds": {x: _arr(22, (4, 3))},
        "names": [("layer losses", len(layer.losses)), ("collected", len(collected))],
    }


@_program
def dense_class_not_trainable(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    frozen = tf.layers.Dense(2, trainable=False, kernel_initializer=_init(tf, 23, (2, 2)))
    live = tf.layers.Dense(1, kernel_initializer=_init(tf, 24, (2, 1)))
    y = live(frozen(x))
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y), tf.trainable_variables()),
        "feeds": {x: _arr(25, (3, 2))},
        "names": [
            ("trainable", _names(tf.trainable_variables())),
            ("global", _names(tf.global_variables())),
            ("frozen's", [_names(frozen.trainable_weights), _names(frozen.non_trainable_weights)]),
            ("frozen's variables", _names(frozen.variables)),
        ],
    }


@_program
def dense_class_activation_by_name_float32(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    layer = tf.layers.Dense(4, activation="tanh", kernel_initializer=_init(tf, 26, (3, 4)))
    y = layer(x)
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y * y), [x, layer.kernel, layer.bias]),
        "feeds": {x: _arr(27, (2, 3), dtype=np.float32)},
        "names": [("output", y), ("dtype", layer.dtype), ("parameters", layer.count_params())],
    }


@_program
def dense_class_trained_a_few_steps(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    target = tf.placeholder(tf.float64, [None, 1], name="target")
    hidden = tf.layers.Dense(4, activation=tf.nn.sigmoid, kernel_initializer=_init(tf, 28, (3, 4)))
    out = tf.layers.Dense(1, kernel_initializer=_init(tf, 29, (4, 1)))
    loss = tf.reduce_mean(tf.square(out(hidden(x)) - target))
    step = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return {
        "fetches": [loss] + tf.trainable_variables(),
        "feeds": {x: _arr(30, (6, 3)), target: _arr(31, (6, 1))},
        "before": [step] * 4,
    }


# ---------------------------------------------------------------------------
# Conv2D, conv2d and channels_first
# ---------------------------------------------------------------------------


@_program
def conv2d_class_same_relu_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 5, 5, 2], name="x")
    layer = tf.layers.Conv2D(
        3,
        3,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=_init(tf, 32, (3, 3, 2, 3)),
        bias_initializer=_init(tf, 33, (3,)),
    )
    y = layer(x)
    loss = tf.reduce_sum(y * y)
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x, layer.kernel, layer.bias]),
        "feeds": {x: _arr(34, (2, 5, 5, 2))},
        "names": [
            ("name, scope", [layer.name, layer.scope_name]),
            ("variables", _names(layer.variables)),
            ("kernel shape", layer.kernel.shape),
            ("attributes", [layer.filters, list(layer.kernel_size), list(layer.strides)]),
            ("padding, data_format", [layer.padding, layer.data_format]),
            ("output", y),
        ],
    }


@_program
def conv2d_class_called_twice_strided(tf):
    a = tf.placeholder(tf.float64, [None, 6, 6, 1], name="a")
    b = tf.placeholder(tf.float64, [None, 6, 6, 1], name="b")
    layer = tf.layers.Conv2D(
        2, (2, 3), strides=(2, 1), kernel_initializer=_init(tf, 35, (2, 3, 1, 2))
    )
    ya, yb = layer(a), layer(b)
    loss = tf.reduce_sum(ya * yb)
    return {
        "fetches": [ya, yb] + tf.gradients(loss, [layer.kernel, a]),
        "feeds": {a: _arr(36, (2, 6, 6, 1)), b: _arr(37, (2, 6, 6, 1))},
        "names": [
            ("variables", _names(tf.global_variables())),
            ("first output", ya),
            ("shapes", [ya.shape, yb.shape]),
        ],
    }


@_program
def conv2d_class_dilated_valid(tf):
    x = tf.placeholder(tf.float32, [None, 7, 7, 2], name="x")
    layer = tf.layers.Conv2D(2, 3, dilation_rate=2, kernel_initializer=_init(tf, 38, (3, 3, 2, 2)))
    y = layer(x)
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(tf.square(y)), [x, layer.kernel]),
        "feeds": {x: _arr(39, (1, 7, 7, 2), dtype=np.float32)},
        "names": [("dilation", list(layer.dilation_rate)), ("shape", y.shape)],
    }


@_program
def conv2d_channels_first_functional(tf):
    x = tf.placeholder(tf.float32, [None, 2, 5, 4], name="x")
    y = tf.layers.conv2d(
        x,
        3,
        (3, 2),
        padding="same",
        strides=(2, 1),
        data_format="channels_first",
        activation=tf.nn.elu,
        kernel_initializer=_init(tf, 40, (3, 2, 2, 3)),
        bias_initializer=_init(tf, 41, (3,)),
    )
    loss = tf.reduce_sum(tf.square(y))
    # float32: TF's CPU kernels compute NCHW convolutions (through oneDNN) in float32 only.
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(42, (2, 2, 5, 4), dtype=np.float32)},
        "names": [
            ("variables", _names(tf.global_variables())),
            ("kernel shape", tf.trainable_variables()[0].shape),
            ("shape", y.shape),
        ],
    }


def _channels_first_pair(tf, rank):
    """A channels-first conv layer and its channels-last twin (the same kernel and bias) on one
    channels-first input: (input, first's output, last's output made channels-first, layers).
    float32: TF's CPU kernels compute NCHW convolutions (through oneDNN) in float32 only."""
    shape = [None, 3, 5, 4][: rank + 2]
    x = tf.placeholder(tf.float32, shape, name="x")
    kernel_shape = (3,) * rank + (3, 2)
    make = tf.layers.Conv2D if rank == 2 else tf.layers.Conv1D
    options = dict(
        kernel_initializer=_init(tf, 43, kernel_shape), bias_initializer=_init(tf, 88, (2,))
    )
    first = make(2, 3, padding="same", data_format="channels_first", **options)
    last = make(2, 3, padding="same", **options)
    to_last = [0, 2, 3, 1][: rank + 2] if rank == 2 else [0, 2, 1]
    to_first = [0, 3, 1, 2] if rank == 2 else [0, 2, 1]
    y_last = tf.transpose(last(tf.transpose(x, to_last)), to_first)
    return x, first(x), y_last, first, last


@_program
def conv2d_class_channels_first_equals_channels_last(tf):
    x, y_first, y_last, first, last = _channels_first_pair(tf, 2)
    return {
        "fetches": [y_first, y_last]
        + tf.gradients(tf.reduce_sum(tf.sin(y_first)), [x, first.kernel, first.bias])
        + tf.gradients(tf.reduce_sum(tf.sin(y_last)), [x, last.kernel, last.bias]),
        "feeds": {x: _arr(44, (2, 3, 5, 4), dtype=np.float32)},
        "names": [("variables", _names(tf.global_variables())), ("shapes", [y_first.shape])],
    }


@_program
def conv1d_class_channels_first_equals_channels_last(tf):
    x, y_first, y_last, first, last = _channels_first_pair(tf, 1)
    return {
        "fetches": [y_first, y_last]
        + tf.gradients(tf.reduce_sum(tf.sin(y_first)), [x, first.kernel, first.bias])
        + tf.gradients(tf.reduce_sum(tf.sin(y_last)), [x, last.kernel, last.bias]),
        "feeds": {x: _arr(89, (2, 3, 5), dtype=np.float32)},
        "names": [("variables", _names(tf.global_variables())), ("shapes", [y_first.shape])],
    }


# ---------------------------------------------------------------------------
# conv1d and Conv1D
# ---------------------------------------------------------------------------


@_program
def conv1d_functional_valid_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 7, 3], name="x")
    y = tf.layers.conv1d(
        x, 4, 3, kernel_initializer=_init(tf, 45, (3, 3, 4)), bias_initializer=_init(tf, 46, (4,))
    )
    loss = tf.reduce_sum(tf.square(y))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(47, (2, 7, 3))},
        "names": [
            ("variables", _names(tf.global_variables())),
            ("kernel shape", tf.trainable_variables()[0].shape),
            ("output", y),
            ("shape", y.shape),
        ],
    }


@_program
def conv1d_functional_same_strided_relu(tf):
    x = tf.placeholder(tf.float32, [None, 9, 2], name="x")
    y = tf.layers.conv1d(
        x,
        3,
        4,
        strides=2,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=_init(tf, 48, (4, 2, 3)),
        bias_initializer=_init(tf, 49, (3,)),
    )
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y), [x] + tf.trainable_variables()),
        "feeds": {x: _arr(50, (3, 9, 2), dtype=np.float32)},
        "names": [("shape", y.shape)],
    }


@_program
def conv1d_functional_dilated(tf):
    x = tf.placeholder(tf.float64, [None, 10, 2], name="x")
    y = tf.layers.conv1d(
        x, 2, 3, dilation_rate=3, use_bias=False, kernel_initializer=_init(tf, 51, (3, 2, 2))
    )
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y * y), [x] + tf.trainable_variables()),
        "feeds": {x: _arr(52, (2, 10, 2))},
        "names": [("variables", _names(tf.global_variables())), ("shape", y.shape)],
    }


@_program
def conv1d_functional_causal(tf):
    x = tf.placeholder(tf.float64, [None, 6, 2], name="x")
    y = tf.layers.conv1d(
        x, 2, 3, padding="causal", dilation_rate=2, kernel_initializer=_init(tf, 53, (3, 2, 2))
    )
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(tf.sin(y)), [x] + tf.trainable_variables()),
        "feeds": {x: _arr(54, (2, 6, 2))},
        "names": [("shape", y.shape)],
    }


@_program
def conv1d_functional_channels_first(tf):
    x = tf.placeholder(tf.float32, [None, 3, 8], name="x")
    y = tf.layers.conv1d(
        x,
        2,
        3,
        strides=2,
        padding="same",
        data_format="channels_first",
        kernel_initializer=_init(tf, 55, (3, 3, 2)),
        bias_initializer=_init(tf, 56, (2,)),
    )
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(tf.square(y)), [x] + tf.trainable_variables()),
        "feeds": {x: _arr(57, (2, 3, 8), dtype=np.float32)},
        "names": [("kernel shape", tf.trainable_variables()[0].shape), ("shape", y.shape)],
    }


@_program
def conv1d_class_called_twice(tf):
    a = tf.placeholder(tf.float64, [None, 5, 2], name="a")
    b = tf.placeholder(tf.float64, [None, 5, 2], name="b")
    layer = tf.layers.Conv1D(3, 2, activation=tf.tanh, kernel_initializer=_init(tf, 58, (2, 2, 3)))
    ya, yb = layer(a), layer(b)
    loss = tf.reduce_sum(ya - yb)
    return {
        "fetches": [ya, yb] + tf.gradients(loss, [layer.kernel, layer.bias, b]),
        "feeds": {a: _arr(59, (2, 5, 2)), b: _arr(60, (2, 5, 2))},
        "names": [
            ("name, scope", [layer.name, layer.scope_name]),
            ("variables", _names(tf.global_variables())),
            (
                "kernel_size, strides, dilation",
                [list(layer.kernel_size), list(layer.strides), list(layer.dilation_rate)],
            ),
            ("first output", ya),
        ],
    }


# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------


@_program
def max_pooling1d_functional_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 7, 2], name="x")
    y = tf.layers.max_pooling1d(x, 3, 2)
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y * y), [x]),
        "feeds": {x: _arr(61, (2, 7, 2))},
        "names": [("output", y), ("shape", y.shape)],
    }


@_program
def average_pooling1d_functional_same(tf):
    x = tf.placeholder(tf.float32, [None, 7, 3], name="x")
    y = tf.layers.average_pooling1d(x, 3, 2, padding="same")
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(tf.sin(y)), [x]),
        "feeds": {x: _arr(62, (2, 7, 3), dtype=np.float32)},
        "names": [("output", y), ("shape", y.shape)],
    }


@_program
def max_pooling1d_channels_first(tf):
    x = tf.placeholder(tf.float32, [None, 3, 8], name="x")
    y = tf.layers.max_pooling1d(x, 2, 2, data_format="channels_first")
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y * y), [x]),
        "feeds": {x: _arr(63, (2, 3, 8), dtype=np.float32)},
        "names": [("shape", y.shape)],
    }


@_program
def average_pooling1d_channels_first_same(tf):
    x = tf.placeholder(tf.float32, [None, 2, 5], name="x")
    y = tf.layers.average_pooling1d(x, 2, 1, padding="same", data_format="channels_first")
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(tf.exp(y)), [x]),
        "feeds": {x: _arr(64, (3, 2, 5), dtype=np.float32)},
        "names": [("shape", y.shape)],
    }


@_program
def pooling1d_classes_called_twice(tf):
    x = tf.placeholder(tf.float64, [None, 6, 2], name="x")
    pool = tf.layers.MaxPooling1D(2, 2)
    mean = tf.layers.AveragePooling1D(2, 1, padding="same")
    first, second = pool(x), pool(2.0 * x)
    averaged = mean(first)
    return {
        "fetches": [first, second, averaged] + tf.gradients(tf.reduce_sum(averaged * second), [x]),
        "feeds": {x: _arr(65, (2, 6, 2))},
        "names": [
            ("names", [pool.name, mean.name]),
            ("scope names", [pool.scope_name, mean.scope_name]),
            ("outputs", [first, second, averaged]),
            (
                "attributes",
                [list(pool.pool_size), list(pool.strides), mean.padding, mean.data_format],
            ),
        ],
    }


@_program
def max_pooling2d_channels_first_and_gradients(tf):
    x = tf.placeholder(tf.float32, [None, 2, 5, 5], name="x")
    y = tf.layers.max_pooling2d(x, 2, 2, padding="same", data_format="channels_first")
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(y * y), [x]),
        "feeds": {x: _arr(66, (2, 2, 5, 5), dtype=np.float32)},
        "names": [("shape", y.shape)],
    }


@_program
def average_pooling2d_channels_first(tf):
    x = tf.placeholder(tf.float32, [None, 3, 4, 6], name="x")
    y = tf.layers.average_pooling2d(x, (2, 3), (2, 3), data_format="channels_first")
    return {
        "fetches": [y] + tf.gradients(tf.reduce_sum(tf.sin(y)), [x]),
        "feeds": {x: _arr(67, (2, 3, 4, 6), dtype=np.float32)},
        "names": [("shape", y.shape)],
    }


@_program
def pooling2d_classes_called_twice(tf):
    x = tf.placeholder(tf.float32, [None, 4, 4, 2], name="x")
    pool = tf.layers.MaxPooling2D(2, 2)
    mean = tf.layers.AveragePooling2D(2, 2, data_format="channels_first")
    first, second = pool(x), pool(x * x)
    averaged = mean(x)
    return {
        "fetches": [first, second, averaged] + tf.gradients(tf.reduce_sum(first * second), [x]),
        "feeds": {x: _arr(68, (2, 4, 4, 2), dtype=np.float32)},
        "names": [
            ("names", [pool.name, mean.name]),
            ("outputs", [first, second]),
            ("attributes", [list(pool.pool_size), list(pool.strides), pool.padding]),
            ("shape", averaged.shape),
        ],
    }


# ---------------------------------------------------------------------------
# Flatten, Dropout
# ---------------------------------------------------------------------------


@_program
def flatten_class_called_twice(tf):
    x = tf.placeholder(tf.float64, [None, 2, 3, 2], name="x")
    layer = tf.layers.Flatten()
    first, second = layer(x), layer(x + 1.0)
    return {
        "fetches": [first, second] + tf.gradients(tf.reduce_sum(first * second), [x]),
        "feeds": {x: _arr(69, (2, 2, 3, 2))},
        "names": [("name, scope", [layer.name, layer.scope_name]), ("outputs", [first, second])],
    }


@_program
def flatten_channels_first(tf):
    x = tf.placeholder(tf.float64, [None, 2, 3, 4], name="x")
    functional = tf.layers.flatten(x, data_format="channels_first")
    layer = tf.layers.Flatten(data_format="channels_first")
    y = layer(x)
    z = tf.layers.Flatten(data_format="channels_first")(
        tf.placeholder_with_default(x[:, :, 0, :], [None, 2, 4])
    )
    return {
        "fetches": [functional, y, z] + tf.gradients(tf.reduce_sum(y * _arr(70, (1, 24))), [x]),
        "feeds": {x: _arr(71, (2, 2, 3, 4))},
        "names": [("shapes", [functional.shape, y.shape, z.shape])],
    }


@_program
def dropout_class_inference_and_placeholder(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    training = tf.placeholder(tf.bool, [], name="training")
    layer = tf.layers.Dropout(0.4, seed=1)
    off = layer(x)
    fed = layer(x, training=training)
    kept = tf.layers.Dropout(0.0)(x, training=True)
    return {
        "fetches": [off, fed, kept] + tf.gradients(tf.reduce_sum(off * fed), [x]),
        "feeds": {x: _arr(72, (2, 3)), training: False},
        "names": [
            ("name, scope", [layer.name, layer.scope_name]),
            ("rate, seed", [layer.rate, layer.seed]),
            ("inference output", off),
        ],
    }


# ---------------------------------------------------------------------------
# BatchNormalization
# ---------------------------------------------------------------------------


@_program
def batch_norm_class_training_updates(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    layer = tf.layers.BatchNormalization(momentum=0.9)
    y = layer(x, training=True)
    loss = tf.reduce_sum(tf.square(y) * _arr(73, (5, 3)))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x, layer.gamma, layer.beta]) + layer.variables,
        "feeds": {x: _arr(74, (5, 3), -2.0, 3.0)},
        "before": [tf.group(*layer.updates)] * 2,
        "names": [
            ("name, scope", [layer.name, layer.scope_name]),
            ("variables", _names(layer.variables)),
            ("trainable", _names(layer.trainable_variables)),
            ("non-trainable", _names(layer.non_trainable_variables)),
            ("attributes", [layer.gamma, layer.beta, layer.moving_mean, layer.moving_variance]),
            ("updates", [len(layer.updates), len(tf.get_collection(tf.GraphKeys.UPDATE_OPS))]),
        ],
    }


@_program
def batch_norm_class_training_then_inference(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")
    layer = tf.layers.BatchNormalization(momentum=0.5, epsilon=0.01)
    train = layer(x, training=True)
    infer = layer(x)
    return {
        "fetches": [train, infer] + tf.gradients(tf.reduce_sum(infer * infer), [x]),
        "feeds": {x: _arr(75, (4, 2), 0.0, 4.0)},
        "before": [tf.group(*layer.updates)] * 3,
        "names": [
            ("variables", _names(tf.global_variables())),
            ("updates", len(layer.updates)),
            ("first output shape", train.shape),
        ],
    }


@_program
def batch_norm_class_axis1_4d(tf):
    x = tf.placeholder(tf.float32, [None, 2, 3, 3], name="x")
    layer = tf.layers.BatchNormalization(axis=1, center=False, momentum=0.8)
    y = layer(x, training=True)
    return {
        "fetches": [y]
        + tf.gradients(tf.reduce_sum(y * _arr(76, (2, 2, 3, 3))), [x])
        + layer.variables,
        "feeds": {x: _arr(77, (2, 2, 3, 3), dtype=np.float32)},
        "before": [tf.group(*layer.updates)],
        "names": [
            ("variables", _names(layer.variables)),
            ("beta", layer.beta),
            ("gamma shape", layer.gamma.shape),
        ],
    }


@_program
def batch_norm_class_placeholder_training(tf):
    x = tf.placeholder(tf.float64, [None, 3], name="x")
    training = tf.placeholder(tf.bool, [], name="training")
    layer = tf.layers.BatchNormalization(scale=False, momentum=0.7)
    y = layer(x, training=training)
    return {
        "fetches": [y] + layer.variables,
        "feeds": {x: _arr(78, (4, 3)), training: True},
        "before": [tf.group(*layer.updates)],
        "names": [("variables", _names(layer.variables)), ("updates", len(layer.updates))],
    }


# ---------------------------------------------------------------------------
# Layer, subclassed
# ---------------------------------------------------------------------------


@_program
def layer_subclass_builds_once(tf):
    class Scale(tf.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(
                "w", [input_shape[-1]], initializer=tf.constant_initializer([0.5, -1.0, 2.0])
            )
            self.b = self.add_weight("b", [], initializer=tf.ones_initializer(), trainable=False)
            super().build(input_shape)

        def call(self, inputs):
            return inputs * self.w + self.b

    x = tf.placeholder(tf.float64, [None, 3], name="x")
    layer = Scale()
    first, second = layer(x), layer(x * x)
    return {
        "fetches": [first, second] + tf.gradients(tf.reduce_sum(first * second), [x, layer.w]),
        "feeds": {x: _arr(79, (2, 3))},
        "names": [
            ("name, scope", [layer.name, layer.scope_name]),
            ("variables", _names(layer.variables)),
            ("trainable", _names(layer.trainable_variables)),
            ("global", _names(tf.global_variables())),
            ("outputs", [first, second]),
            ("built", layer.built),
        ],
    }


# ---------------------------------------------------------------------------
# The orthogonal initializer (values that do not depend on the draw, and statistics)
# ---------------------------------------------------------------------------


def _gram(tf, w, rows_first):
    matrix = tf.reshape(w, [-1, int(w.shape[-1])])
    return tf.matmul(matrix, matrix, transpose_a=rows_first, transpose_b=not rows_first)


@_program
def orthogonal_square_and_tall(tf):
    square = tf.get_variable("square", [5, 5], tf.float64, tf.orthogonal_initializer(seed=1))
    tall = tf.get_variable("tall", [7, 3], tf.float64, tf.orthogonal_initializer(gain=2.0, seed=2))
    return {
        "fetches": [_gram(tf, square, True), _gram(tf, square, False), _gram(tf, tall, True)],
        "feeds": {},
        "names": [("shapes", [square.shape, tall.shape]), ("variables", [square, tall])],
        "rtol": 1e-9,
    }


@_program
def orthogonal_wide_has_orthonormal_rows(tf):
    wide = tf.get_variable("wide", [3, 8], tf.float64, tf.initializers.orthogonal(gain=0.5, seed=3))
    return {
        "fetches": [_gram(tf, wide, False), tf.reduce_sum(tf.square(wide))],
        "feeds": {},
        "names": [("shape", wide.shape)],
        "rtol": 1e-9,
    }


@_program
def orthogonal_conv_kernel_float32(tf):
    kernel = tf.get_variable("kernel", [3, 3, 4, 8], initializer=tf.orthogonal_initializer(seed=4))
    return {
        "fetches": [_gram(tf, kernel, True), tf.reduce_sum(tf.square(kernel))],
        "feeds": {},
        "names": [("shape, dtype", [kernel.shape, kernel.dtype.base_dtype.name])],
        "rtol": 1e-5,
    }


@_program
def orthogonal_dense_kernel(tf):
    x = tf.placeholder(tf.float64, [None, 6], name="x")
    layer = tf.layers.Dense(4, kernel_initializer=tf.orthogonal_initializer(gain=1.5, seed=5))
    y = layer(x)
    # [6, 4]: at least as many rows as columns, so the columns are orthonormal (times gain).
    return {
        "fetches": [_gram(tf, layer.kernel, True), tf.shape(y)],
        "feeds": {x: _arr(80, (2, 6))},
        "names": [("kernel", layer.kernel), ("kernel shape", layer.kernel.shape)],
        "rtol": 1e-9,
    }


@_program
def orthogonal_statistics_of_a_large_matrix(tf):
    w = tf.get_variable("w", [400, 400], tf.float64, tf.orthogonal_initializer(seed=6))
    mean_abs = tf.reduce_mean(tf.abs(w))
    largest = tf.reduce_max(tf.abs(w))
    return {
        # A Haar-distributed orthogonal matrix: entries about N(0, 1/n), so the mean absolute
        # entry is about sqrt(2 / (pi n)) whatever the draw; rows and columns of length 1.
        "fetches": [
            mean_abs,
            tf.reduce_sum(tf.square(w)),
            tf.reduce_sum(tf.square(w), 0)[:3],
            tf.reduce_sum(tf.square(w), 1)[:3],
            tf.cast(largest < 0.3, tf.float64),
        ],
        "feeds": {},
        "rtol": 3e-2,
    }


# ---------------------------------------------------------------------------
# FtrlOptimizer: every argument, several steps
# ---------------------------------------------------------------------------


def _ftrl_program(tf, dtype=None, steps=4, learning_rate=0.2, **kwargs):
    dtype = dtype or tf.float32
    w = tf.Variable(_arr(81, (2, 3), -1.5, 1.5), dtype=dtype, name="w")
    b = tf.Variable(_arr(82, (3,)), dtype=dtype, name="b")
    x = tf.constant(_arr(83, (4, 2)), dtype=dtype)
    target = tf.constant(_arr(84, (4, 3)), dtype=dtype)
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - target))
    optimizer = tf.train.FtrlOptimizer(learning_rate, **kwargs)
    step = optimizer.minimize(loss)
    slots = [optimizer.get_slot(v, name) for v in (w, b) for name in ("accum", "linear")]
    return {
        "fetches": [loss, w, b] + slots,
        "feeds": {},
        "before": [step] * steps,
        "names": [
            ("variables", _names(tf.global_variables())),
            ("slot names", optimizer.get_slot_names()),
            ("train op", step),
        ],
    }


@_program
def ftrl_defaults(tf):
    return _ftrl_program(tf)


@_program
def ftrl_l1(tf):
    return _ftrl_program(tf, l1_regularization_strength=0.05)


@_program
def ftrl_l2(tf):
    return _ftrl_program(tf, l2_regularization_strength=0.3)


@_program
def ftrl_l1_l2_float64(tf):
    return _ftrl_program(
        tf, tf.float64, 5, l1_regularization_strength=0.02, l2_regularization_strength=0.1
    )


@_program
def ftrl_learning_rate_power(tf):
    return _ftrl_program(tf, learning_rate_power=-0.8, l1_regularization_strength=0.01)


@_program
def ftrl_fixed_learning_rate_power_zero(tf):
    return _ftrl_program(tf, tf.float64, learning_rate_power=0.0, learning_rate=0.05)


@_program
def ftrl_initial_accumulator(tf):
    return _ftrl_program(tf, initial_accumulator_value=1.5, l2_regularization_strength=0.05)


@_program
def ftrl_initial_accumulator_zero(tf):
    return _ftrl_program(tf, tf.float64, initial_accumulator_value=0.0)


@_program
def ftrl_l2_shrinkage(tf):
    return _ftrl_program(tf, l2_shrinkage_regularization_strength=0.2)


@_program
def ftrl_l2_shrinkage_with_everything(tf):
    return _ftrl_program(
        tf,
        tf.float64,
        6,
        learning_rate_power=-0.6,
        initial_accumulator_value=0.3,
        l1_regularization_strength=0.03,
        l2_regularization_strength=0.2,
        l2_shrinkage_regularization_strength=0.1,
    )


@_program
def ftrl_beta(tf):
    return _ftrl_program(tf, beta=0.4, l2_regularization_strength=0.1)


@_program
def ftrl_slot_names_and_name(tf):
    return _ftrl_program(
        tf, name="MyFtrl", accum_name="acc", linear_name="lin", use_locking=True, steps=2
    )


@_program
def ftrl_learning_rate_tensor(tf):
    rate = tf.placeholder(tf.float32, [], name="rate")
    spec = _ftrl_program(tf, learning_rate=rate, beta=0.2)
    spec["feeds"] = {rate: 0.3}
    return spec


@_program
def ftrl_sparse_rows(tf):
    table = tf.Variable(_arr(85, (5, 2)), name="table")
    ids = tf.constant([3, 0, 3])
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids) - 0.5))
    optimizer = tf.train.FtrlOptimizer(
        0.3, l1_regularization_strength=0.05, l2_shrinkage_regularization_strength=0.1
    )
    step = optimizer.minimize(loss)
    return {
        "fetches": [
            loss,
            table,
            optimizer.get_slot(table, "accum"),
            optimizer.get_slot(table, "linear"),
        ],
        "feeds": {},
        "before": [step] * 3,
    }


@_program
def ftrl_two_optimizers_and_a_layer(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    layer = tf.layers.Dense(2, kernel_initializer=_init(tf, 86, (3, 2)))
    loss = tf.reduce_mean(tf.square(layer(x)))
    first = tf.train.FtrlOptimizer(0.1).minimize(loss)
    with tf.variable_scope("second"):
        second = tf.train.FtrlOptimizer(0.05, l1_regularization_strength=0.01).minimize(loss)
    return {
        "fetches": [loss] + tf.global_variables(),
        "feeds": {x: _arr(87, (4, 3), dtype=np.float32)},
        "before": [first, second, first],
        "names": [("variables", _names(tf.global_variables())), ("train ops", [first, second])],
    }
