"""Corpus of TF1's everyday elementwise, reduction and activation ops (issue 15, item 5).

Same conventions as ``programs.py``: every program is a function ``fn(tf)`` of the
graph-API module (``tensorflow.compat.v1`` when recording, ``symgrad`` when testing)
returning ``{"fetches": [...], "feeds": {...}}``; ``record_tf.py programs_elemops``
records TensorFlow 2.21's results into ``tf_fixtures_elemops.json``.

Each op is fed through ``[None]`` placeholders at its special points (0, the ends of
its domain, ties at clipping bounds and between maxima, a zero divisor, negative
operands of integer division); a program fetches the value, the gradient of
``reduce_sum(y * W)`` for a fixed ``W`` (every element weighs differently) and, where
TF has one, the second derivative (the gradient of the sum of that gradient).
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _weights(n, seed=7, dtype="float64"):
    return np.random.RandomState(seed).uniform(0.5, 1.5, size=n).astype(dtype)


def _unary(tf, op, values, dtype="float64", second=True):
    """Value, weighted gradient and second derivative of ``op`` on a ``[None]`` placeholder."""
    values = np.asarray(values, dtype=dtype)
    x = tf.placeholder(getattr(tf, dtype), shape=[None], name="x")
    y = op(x)
    loss = tf.reduce_sum(y * tf.constant(_weights(values.size, dtype=dtype)))
    (grad,) = tf.gradients(loss, x)
    fetches = [y, grad]
    if second and grad is not None:
        fetches.append(tf.gradients(tf.reduce_sum(grad), x)[0])
    return {"fetches": fetches, "feeds": {x: values}}


def _binary(tf, op, a, b, dtype="float64", second=True):
    """Value, gradients to both operands and second derivatives of ``op(a, b)``."""
    a, b = np.asarray(a, dtype=dtype), np.asarray(b, dtype=dtype)
    x = tf.placeholder(getattr(tf, dtype), shape=[None], name="x")
    y = tf.placeholder(getattr(tf, dtype), shape=[None], name="y")
    z = op(x, y)
    loss = tf.reduce_sum(z * tf.constant(_weights(a.size, dtype=dtype)))
    grads = tf.gradients(loss, [x, y])
    fetches = [z, grads]
    if second:
        for g in grads:
            fetches.append([None, None] if g is None else tf.gradients(tf.reduce_sum(g), [x, y]))
    return {"fetches": fetches, "feeds": {x: a, y: b}}


def _unary_program(name, op, values, dtype="float64", second=True):
    def build(tf):
        return _unary(tf, lambda x: op(tf, x), values, dtype, second)

    build.__name__ = build.__qualname__ = name
    return _program(build)


def _binary_program(name, op, a, b, dtype="float64", second=True):
    def build(tf):
        return _binary(tf, lambda x, y: op(tf, x, y), a, b, dtype, second)

    build.__name__ = build.__qualname__ = name
    return _program(build)


# --- unary math --------------------------------------------------------------------------

_SPREAD = [-2.0, -0.5, 0.0, 0.5, 3.0]
_UNIT = [-1.0, -0.5, 0.0, 0.5, 1.0]  # asin/acos/atanh: the ends of the domain
_UNARY = [
    ("tan", lambda tf, x: tf.tan(x), [-1.2, -0.5, 0.0, 0.5, 1.2]),
    ("sinh", lambda tf, x: tf.sinh(x), _SPREAD),
    ("cosh", lambda tf, x: tf.cosh(x), _SPREAD),
    ("asin", lambda tf, x: tf.asin(x), _UNIT),
    ("acos", lambda tf, x: tf.acos(x), _UNIT),
    ("atan", lambda tf, x: tf.atan(x), [-3.0, -1.0, 0.0, 1.0, 3.0]),
    ("asinh", lambda tf, x: tf.asinh(x), [-3.0, -1.0, 0.0, 1.0, 3.0]),
    ("acosh", lambda tf, x: tf.acosh(x), [1.0, 1.5, 3.0]),
    ("atanh", lambda tf, x: tf.atanh(x), [-0.9, 0.0, 0.5, 0.9]),
    ("atanh_ends", lambda tf, x: tf.atanh(x), [-1.0, 1.0]),
    ("ceil", lambda tf, x: tf.ceil(x), [-1.5, -1.0, 0.0, 0.5, 1.0]),
    ("math_ceil", lambda tf, x: tf.math.ceil(x), [-1.5, 0.5]),
    ("relu6", lambda tf, x: tf.nn.relu6(x), [-1.0, 0.0, 3.0, 6.0, 7.0]),
    ("elu", lambda tf, x: tf.nn.elu(x), [-2.0, -0.5, 0.0, 0.5, 2.0, 800.0]),
    ("selu", lambda tf, x: tf.nn.selu(x), [-2.0, -0.5, 0.0, 0.5, 2.0, 800.0]),
    ("softsign", lambda tf, x: tf.nn.softsign(x), [-2.0, 0.0, 2.0]),
    ("leaky_relu", lambda tf, x: tf.nn.leaky_relu(x), [-2.0, 0.0, 2.0]),
    ("leaky_relu_alpha", lambda tf, x: tf.nn.leaky_relu(x, alpha=0.1), [-2.0, 0.0, 2.0]),
]
_NO_SECOND_DERIVATIVE = {"softsign"}  # TF registers no gradient for SoftsignGrad
for _name, _op, _values in _UNARY:
    _unary_program(f"{_name}_f64", _op, _values, second=_name not in _NO_SECOND_DERIVATIVE)
for _name, _op, _values in _UNARY[:1] + _UNARY[13:16]:
    _unary_program(f"{_name}_f32", _op, _values, dtype="float32", second=False)


# --- binary math -------------------------------------------------------------------------

_binary_program(
    "atan2_quadrants",
    lambda tf, y, x: tf.atan2(y, x),
    [0.0, 1.0, -1.0, 1.0, -2.0],
    [-1.0, 0.0, -1.0, 1.0, 0.5],
)
_binary_program("atan2_origin", lambda tf, y, x: tf.atan2(y, x), [0.0], [0.0], second=False)
_binary_program(
    "div_float",
    lambda tf, x, y: tf.div(x, y),
    [-7.0, 7.0, 1.0, 0.0],
    [2.0, -2.0, 3.0, 4.0],
)
_binary_program(
    "divide_float",
    lambda tf, x, y: tf.divide(x, y),
    [-7.0, 7.0],
    [2.0, -2.0],
)
_binary_program(
    "floordiv_float",
    lambda tf, x, y: tf.floordiv(x, y),
    [-7.0, 7.0, -7.5, 7.5],
    [2.0, -2.0, 2.0, 2.0],
)
_binary_program(
    "floormod_float",
    lambda tf, x, y: tf.floormod(x, y),
    [-7.0, 7.0, -7.5, 7.5, 6.0],
    [2.0, -2.0, 2.0, 2.0, 3.0],
)
_binary_program(
    "mod_float32",
    lambda tf, x, y: tf.mod(x, y),
    [-7.0, 7.0, 1.5],
    [3.0, -3.0, 0.5],
    dtype="float32",
    second=False,
)
_binary_program(
    "div_no_nan",
    lambda tf, x, y: tf.div_no_nan(x, y),
    [1.0, -2.0, 0.0, 3.0, 5.0],
    [0.0, 4.0, 0.0, -2.0, 0.5],
)
_binary_program(
    "xlogy",
    lambda tf, x, y: tf.math.xlogy(x, y),
    [0.0, 0.0, 1.0, 2.0, -1.5],
    [0.0, 2.0, 1.0, 0.5, 3.0],
)
_binary_program(
    "xdivy",
    lambda tf, x, y: tf.math.xdivy(x, y),
    [0.0, 0.0, 1.0, 2.0, -1.5],
    [0.0, 2.0, 1.0, 0.5, 3.0],
)


def _integer_program(name, op, a, b, dtype="int32"):
    def build(tf):
        x = tf.placeholder(getattr(tf, dtype), shape=[None], name="x")
        y = tf.placeholder(getattr(tf, dtype), shape=[None], name="y")
        return {
            "fetches": [op(tf, x, y)],
            "feeds": {x: np.asarray(a, dtype=dtype), y: np.asarray(b, dtype=dtype)},
        }

    build.__name__ = build.__qualname__ = name
    return _program(build)


_INT_A, _INT_B = [-7, 7, -7, 7, 6, 0], [2, 2, -2, -2, 3, 5]
_integer_program("div_int32", lambda tf, x, y: tf.div(x, y), _INT_A, _INT_B)
_integer_program("div_int64", lambda tf, x, y: tf.div(x, y), _INT_A, _INT_B, "int64")
_integer_program("floordiv_int32", lambda tf, x, y: tf.floordiv(x, y), _INT_A, _INT_B)
_integer_program("floormod_int32", lambda tf, x, y: tf.floormod(x, y), _INT_A, _INT_B)
_integer_program("mod_int64", lambda tf, x, y: tf.mod(x, y), _INT_A, _INT_B, "int64")
_integer_program("truncatediv_int32", lambda tf, x, y: tf.truncatediv(x, y), _INT_A, _INT_B)
_integer_program("truncatemod_int32", lambda tf, x, y: tf.truncatemod(x, y), _INT_A, _INT_B)
_integer_program("truediv_int32", lambda tf, x, y: tf.truediv(x, y), _INT_A, _INT_B)


@_program
def div_python_numbers(tf):
    x = tf.placeholder(tf.int32, shape=[None], name="x")
    f = tf.placeholder(tf.float32, shape=[None], name="f")
    return {
        "fetches": [tf.div(x, 2), tf.div(f, 2), tf.mod(x, -3), tf.floordiv(f, 0.5)],
        "feeds": {x: np.array([-7, 7, 0], np.int32), f: np.array([-7.0, 7.0, 0.25], np.float32)},
    }


# --- clipping, add_n ---------------------------------------------------------------------


@_program
def clip_by_value_ties(tf):
    """Values at the bounds: TF's minimum/maximum send the gradient to ``t`` on ties."""
    return _unary(
        tf, lambda x: tf.clip_by_value(x, -1.0, 1.0), [-2.0, -1.0, 0.0, 1.0, 2.0], second=True
    )


@_program
def clip_by_value_tensor_bounds(tf):
    x = tf.placeholder(tf.float64, shape=[None], name="x")
    low = tf.placeholder(tf.float64, shape=[None], name="low")
    high = tf.placeholder(tf.float64, shape=[None], name="high")
    y = tf.clip_by_value(x, low, high)
    loss = tf.reduce_sum(y * tf.constant(_weights(5)))
    return {
        "fetches": [y, tf.gradients(loss, [x, low, high])],
        "feeds": {
            x: np.array([-2.0, -1.0, 0.0, 1.0, 2.0]),
            low: np.array([-1.0, -1.0, -1.0, -1.0, -1.0]),
            high: np.array([1.0, 1.0, 1.0, 1.0, 1.0]),
        },
    }


@_program
def clip_by_value_scalar_bounds_f32(tf):
    x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
    low = tf.constant(0.0)
    high = tf.constant(0.5)
    y = tf.clip_by_value(x, low, high)
    loss = tf.reduce_sum(y)
    return {
        "fetches": [y, tf.gradients(loss, [x, low, high])],
        "feeds": {x: np.array([[-1.0, 0.0], [0.25, 0.5], [0.75, 2.0]], np.float32)},
    }


@_program
def add_n_three(tf):
    a = tf.placeholder(tf.float64, shape=[None], name="a")
    b = tf.placeholder(tf.float64, shape=[None], name="b")
    c = tf.constant([0.5, -1.0, 2.0], dtype=tf.float64)
    y = tf.add_n([a, b * a, c])
    loss = tf.reduce_sum(y * tf.constant(_weights(3)))
    grads = tf.gradients(loss, [a, b])
    return {
        "fetches": [y, tf.math.add_n([a, a]), tf.accumulate_n([a, b]), grads],
        "feeds": {a: np.array([1.0, -2.0, 3.0]), b: np.array([0.0, 4.0, -1.0])},
    }


def _vector_gradients(tf, y, xs, n, seed=7):
    loss = tf.reduce_sum(y * tf.constant(_weights(n, seed), dtype=y.dtype))
    return tf.gradients(loss, xs)


@_program
def clip_by_norm_rows(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3], name="x")
    y = tf.clip_by_norm(x, 2.0, axes=[1])
    grads = _vector_gradients(tf, tf.reshape(y, [-1]), x, 9)
    feeds = {x: np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [0.5, -0.5, 1.0]])}
    second = tf.gradients(tf.reduce_sum(grads[0]), x)
    return {"fetches": [y, grads, second], "feeds": feeds}


@_program
def clip_by_norm_all_f32(tf):
    x = tf.placeholder(tf.float32, shape=[None], name="x")
    y = tf.clip_by_norm(x, 1.0)
    zero = tf.clip_by_norm(x * 0.0, 1.0)
    grads = _vector_gradients(tf, y, x, 3) + tf.gradients(tf.reduce_sum(zero), x)
    return {"fetches": [y, zero, grads], "feeds": {x: np.array([3.0, -4.0, 0.0], np.float32)}}


@_program
def clip_by_global_norm_list(tf):
    a = tf.placeholder(tf.float64, shape=[None], name="a")
    b = tf.placeholder(tf.float64, shape=[None, 2], name="b")
    clipped, norm = tf.clip_by_global_norm([a, None, b], 2.5)
    total = tf.reduce_sum(clipped[0] * clipped[0]) + tf.reduce_sum(clipped[2])
    return {
        "fetches": [clipped, norm, tf.global_norm([a, b]), tf.gradients(total, [a, b])],
        "feeds": {a: np.array([3.0, 0.0, -1.0]), b: np.array([[1.0, 2.0], [0.5, -2.0]])},
    }


@_program
def clip_by_global_norm_small_and_use_norm(tf):
    a = tf.placeholder(tf.float32, shape=[None], name="a")
    clipped, norm = tf.clip_by_global_norm([a], 10.0)
    forced, used = tf.clip_by_global_norm([a], 1.0, use_norm=tf.constant(4.0))
    return {
        "fetches": [clipped, norm, forced, used, tf.gradients(tf.reduce_sum(clipped[0]), a)],
        "feeds": {a: np.array([0.5, -1.0], np.float32)},
    }


# --- logical ops, reduce_any/all, count_nonzero, casts --------------------------------------


@_program
def logical_ops(tf):
    p = tf.placeholder(tf.bool, shape=[None], name="p")
    q = tf.placeholder(tf.bool, shape=[None], name="q")
    m = tf.reshape(tf.logical_xor(p, q), [2, 2])
    return {
        "fetches": [
            tf.logical_and(p, q),
            tf.logical_or(p, q),
            tf.logical_not(p),
            tf.logical_xor(p, q),
            tf.math.logical_and(p, True),
            tf.reduce_any(m),
            tf.reduce_all(m),
            tf.reduce_any(m, axis=1),
            tf.reduce_all(m, axis=0, keepdims=True),
            tf.math.reduce_any(m, 0, keep_dims=True),
        ],
        "feeds": {
            p: np.array([True, True, False, False]),
            q: np.array([True, False, True, False]),
        },
    }


@_program
def count_nonzero_forms(tf):
    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    b = tf.placeholder(tf.bool, shape=[None], name="b")
    return {
        "fetches": [
            tf.count_nonzero(x),
            tf.count_nonzero(x, axis=1),
            tf.count_nonzero(x, 0, keepdims=True),
            tf.count_nonzero(x, axis=[0, 1], keep_dims=True, dtype=tf.int32),
            tf.math.count_nonzero(b),
        ],
        "feeds": {
            x: np.array([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]], np.float32),
            b: np.array([True, False, True]),
        },
    }


@_program
def casts(tf):
    x = tf.placeholder(tf.float64, shape=[None], name="x")
    i = tf.placeholder(tf.int32, shape=[None], name="i")
    f = tf.to_float(x)
    return {
        "fetches": [
            f,
            tf.to_double(i),
            tf.to_int32(x),
            tf.to_int64(x),
            tf.gradients(tf.reduce_sum(f * f), x),
        ],
        "feeds": {x: np.array([-1.7, 0.0, 2.5]), i: np.array([-3, 0, 4], np.int32)},
    }


# --- argmax / argmin ----------------------------------------------------------------------


@_program
def argmax_ties_and_axes(tf):
    x = tf.placeholder(tf.float32, shape=[None, 4], name="x")
    v = tf.placeholder(tf.float32, shape=[None], name="v")
    return {
        "fetches": [
            tf.argmax(x, 1),
            tf.argmax(x, 0),
            tf.argmax(x),
            tf.argmin(x, axis=1),
            tf.argmax(x, dimension=1),
            tf.argmin(x, -1, output_type=tf.int32),
            tf.math.argmax(v),
            tf.math.argmin(v, output_type=tf.int64),
            tf.gradients(tf.reduce_sum(tf.cast(tf.argmax(x, 1), tf.float32)) + tf.reduce_sum(x), x),
        ],
        "feeds": {
            x: np.array(
                [[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, -5.0, -5.0, 4.0]], np.float32
            ),
            v: np.array([0.5, -2.0, 7.0, 7.0, -2.0], np.float32),
        },
    }


@_program
def argmax_int_input(tf):
    x = tf.placeholder(tf.int32, shape=[None, 3], name="x")
    return {
        "fetches": [tf.argmax(x, 1), tf.argmin(x, 0)],
        "feeds": {x: np.array([[1, 5, 5], [-2, -7, 0]], np.int32)},
    }


@_program
def accuracy_idiom(tf):
    y = tf.placeholder(tf.float32, shape=[None, 10], name="y")
    y_ = tf.placeholder(tf.float32, shape=[None, 10], name="y_")
    correct = tf.equal(tf.argmax(y, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    rng = np.random.RandomState(3)
    predictions = rng.uniform(size=(8, 10)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[[0, 1, 2, 3, 4, 5, 6, 7]]
    labels[:4] = np.eye(10, dtype=np.float32)[np.argmax(predictions[:4], 1)]
    return {"fetches": [correct, accuracy], "feeds": {y: predictions, y_: labels}}


# --- nn: normalizations, weighted cross-entropy, xw_plus_b ------------------------------------


@_program
def l2_normalize_rows(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3], name="x")
    y = tf.nn.l2_normalize(x, axis=1)
    grads = _vector_gradients(tf, tf.reshape(y, [-1]), x, 9)
    return {
        "fetches": [
            y,
            tf.nn.l2_normalize(x, dim=0),
            tf.math.l2_normalize(x),
            grads,
            tf.gradients(tf.reduce_sum(grads[0]), x),
        ],
        "feeds": {x: np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0], [1.0, -2.0, 2.0]])},
    }


@_program
def moments_axes(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3], name="x")
    mean, variance = tf.nn.moments(x, axes=[0])
    mean_k, variance_k = tf.nn.moments(x, [0, 1], keep_dims=True)
    loss = tf.reduce_sum(mean * tf.constant([1.0, 2.0, 3.0], tf.float64)) + tf.reduce_sum(
        variance * tf.constant([0.5, -1.0, 2.0], tf.float64)
    )
    return {
        "fetches": [mean, variance, mean_k, variance_k, tf.gradients(loss, x)],
        "feeds": {x: np.array([[1.0, 2.0, 0.0], [3.0, -2.0, 0.0], [2.0, 6.0, 0.0]])},
    }


@_program
def batch_normalization_train(tf):
    x = tf.placeholder(tf.float32, shape=[None, 2], name="x")
    scale = tf.Variable(np.array([1.5, 0.5], np.float32), name="scale")
    offset = tf.Variable(np.array([0.1, -0.2], np.float32), name="offset")
    mean, variance = tf.nn.moments(x, [0])
    y = tf.nn.batch_normalization(x, mean, variance, offset, scale, 1e-3)
    plain = tf.nn.batch_normalization(x, mean, variance, None, None, 1e-3)
    loss = tf.reduce_sum(y * tf.constant([[1.0, 2.0], [-1.0, 0.5], [0.3, 0.7]], tf.float32))
    return {
        "fetches": [y, plain, tf.gradients(loss, [x, scale, offset])],
        "feeds": {x: np.array([[1.0, 2.0], [3.0, -2.0], [2.0, 5.0]], np.float32)},
    }


@_program
def weighted_cross_entropy(tf):
    logits = tf.placeholder(tf.float64, shape=[None], name="logits")
    labels = tf.placeholder(tf.float64, shape=[None], name="labels")
    y = tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits, pos_weight=3.0)
    old = tf.nn.weighted_cross_entropy_with_logits(targets=labels, logits=logits, pos_weight=0.5)
    grads = _vector_gradients(tf, y, [logits, labels], 6)
    return {
        "fetches": [y, old, grads, tf.gradients(tf.reduce_sum(grads[0]), [logits, labels])],
        "feeds": {
            logits: np.array([-1000.0, -2.0, 0.0, 0.5, 3.0, 1000.0]),
            labels: np.array([1.0, 0.0, 1.0, 0.3, 1.0, 0.0]),
        },
    }


@_program
def xw_plus_b_layer(tf):
    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2) / 5.0, name="w")
    b = tf.Variable(np.array([0.5, -0.5], np.float32), name="b")
    y = tf.nn.xw_plus_b(x, w, b)
    loss = tf.reduce_sum(tf.nn.leaky_relu(y) ** 2)
    return {
        "fetches": [y, tf.gradients(loss, [x, w, b])],
        "feeds": {x: np.array([[1.0, 2.0, 3.0], [-1.0, 0.0, 0.5]], np.float32)},
    }


@_program
def in_top_k_ties_and_non_finite(tf):
    p = tf.placeholder(tf.float32, shape=[None, 4], name="p")
    t = tf.placeholder(tf.int32, shape=[None], name="t")
    scores = np.array(
        [[1, 3, 3, 0], [1, 2, 3, 4], [np.inf, 1, 2, 3], [5, 5, 5, 5], [0, 1, np.nan, 2]],
        np.float32,
    )
    return {
        "fetches": [tf.nn.in_top_k(p, t, 1), tf.nn.in_top_k(p, t, 2), tf.nn.in_top_k(p, t, 4)],
        "feeds": {p: scores, t: np.array([0, 1, 1, 2, 3], np.int32)},
    }
