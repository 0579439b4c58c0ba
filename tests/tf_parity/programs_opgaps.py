"""Corpus of the remaining op gaps of the TF1-compatibility issue (TensorFlow parity tests):
``arg_min``/``arg_max``, ``int16``/``uint8`` end to end, ``trace`` of non-square and batched
matrices, ``x[mask]`` with a bool mask, ``gather`` with ``axis > batch_dims``, the gradient of
``pow`` at ``x = 0``, the dtypes of the gradients of ``div_no_nan``/``relu6``/``clip_by_value``,
``squeeze`` of unknown dims, lists of tensors where a tensor is expected, and
``softmax_cross_entropy_with_logits_v2`` with integer labels.

Same conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds": {...}}``).

``PROGRAMS`` lists all programs in definition order; ``tf_fixtures_opgaps.json`` (written by
``record_tf.py programs_opgaps``) is keyed by function ``__name__``.
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


# --- arg_min / arg_max (TF1's old names, with dimension=) -----------------------------------


@_program
def arg_min_arg_max_dimension(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    return {
        "fetches": [
            tf.arg_min(x, dimension=1),
            tf.arg_max(x, 0),
            tf.arg_max(x, dimension=0, output_type=tf.int32),
            tf.arg_min(x, -1, output_type=tf.int32),
        ],
        "feeds": {x: np.array([[3.0, 1.0, 2.0], [0.0, 5.0, -1.0]], np.float32)},
    }


@_program
def arg_max_int16_uint8(tf):
    a = tf.constant(np.array([[3, -7, 2], [9, 5, 9]], np.int16))
    b = tf.constant(np.array([200, 3, 255, 0], np.uint8))
    return {
        "fetches": [tf.arg_max(a, dimension=1), tf.arg_min(a, 0), tf.arg_max(b, 0)],
        "feeds": {},
    }


# --- int16 and uint8 ------------------------------------------------------------------------


def _small_int_program(tf, dtype):
    d = getattr(tf, dtype)
    p = tf.placeholder(d, [None], name="p")
    q = tf.placeholder(d, name="q")
    c = tf.constant([1, 2, 3], d)
    fetches = [
        p + c,
        p - c,
        p * c,
        p // c,
        p % c,
        p / c,
        p / 4,
        p * 2,
        p + tf.reduce_min(q),
        tf.maximum(p, c),
        tf.minimum(p, 50),
        tf.square(p),
        p < c,
        p > 3,
        tf.equal(p, c),
        tf.not_equal(p, 7),
        tf.reduce_sum(p),
        tf.reduce_max(p),
        tf.reduce_min(p, keepdims=True),
        tf.reduce_prod(p),
        tf.reduce_mean(p),
        tf.reduce_sum(q, axis=0),
        tf.argmax(p),
        tf.cast(p, tf.float32),
        tf.cast(p, tf.bool),
        tf.cast(tf.constant([1.7, 300.0, -2.0]), d),
        tf.zeros_like(p),
        tf.ones([2], d),
        tf.constant(3, d) + 1,
    ]
    return fetches, p, q


@_program
def int16_end_to_end(tf):
    fetches, p, q = _small_int_program(tf, "int16")
    fetches += [-p, tf.abs(p), tf.sign(p), tf.cast(p, tf.uint8), tf.truncatediv(p, 3)]
    return {
        "fetches": fetches,
        "feeds": {p: np.array([200, -100, 7], np.int16), q: np.array([[1, 2], [3, -4]], np.int16)},
    }


@_program
def uint8_end_to_end(tf):
    fetches, p, q = _small_int_program(tf, "uint8")
    fetches += [tf.cast(p, tf.int16), tf.cast(p, tf.int32) - 300]
    return {
        "fetches": fetches,
        # fed as Python lists and int64 arrays: converted to the placeholder's dtype
        "feeds": {p: [200, 100, 7], q: np.array([[1, 2], [3, 4]], np.int64)},
    }


@_program
def small_int_casts_and_gradients(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    u = tf.cast(x, tf.uint8)
    s = tf.cast(x, tf.int16)
    y = tf.cast(u, tf.float32) * x + tf.cast(s, tf.float32) * x
    v = tf.Variable(np.array([3, 4], np.int16), name="v")
    return {
        "fetches": [u, s, y, tf.gradients(tf.reduce_sum(y), x), v + 1, v * v],
        "feeds": {x: np.array([1.5, 250.0, 3.0], np.float32)},
    }


@_program
def small_int_shapeless_placeholders(tf):
    u = tf.placeholder(tf.uint8, name="u")
    s = tf.placeholder(tf.int16, name="s")
    return {
        "fetches": [u * 2, tf.reduce_sum(u, axis=1), s - 1, tf.reduce_max(s), u > 3, s / 2],
        "feeds": {
            u: np.array([[1, 2, 3], [250, 5, 6]], np.uint8),
            s: np.array([[-3, 2], [7, 1000]], np.int16),
        },
    }


# --- trace ----------------------------------------------------------------------------------


@_program
def trace_non_square_and_batched(tf):
    x = tf.Variable(np.arange(6.0).reshape(2, 3), name="x")
    b = tf.Variable(_arr(1, (2, 3, 4), dtype=np.float32), name="b")
    w = tf.Variable(_arr(2, (3, 2), dtype=np.float32), name="w")
    batch = tf.linalg.trace(b)
    y = tf.reduce_sum(batch * [1.0, 2.0]) + tf.trace(w) ** 2
    return {
        "fetches": [tf.trace(x), batch, tf.trace(w), tf.gradients(tf.trace(x), x)]
        + [tf.gradients(y, [b, w])],
        "feeds": {},
    }


@_program
def trace_square_still_einsum(tf):
    x = tf.Variable(_arr(3, (2, 3, 3)), name="x")
    y = tf.reduce_sum(tf.trace(x) ** 2)
    return {"fetches": [tf.trace(x), tf.gradients(y, x)], "feeds": {}}


@_program
def trace_none_dims(tf):
    x = tf.placeholder(tf.float32, [None, 2, None], name="x")
    y = tf.reduce_sum(tf.trace(x) * tf.trace(x))
    return {
        "fetches": [tf.trace(x), tf.gradients(y, x)],
        "feeds": {x: _arr(4, (2, 2, 3), dtype=np.float32)},
    }


@_program
def trace_shapeless(tf):
    x = tf.placeholder(tf.float64, name="x")
    y = tf.reduce_sum(tf.linalg.trace(x) * 3.0)
    return {"fetches": [tf.linalg.trace(x), tf.gradients(y, x)], "feeds": {x: _arr(5, (2, 4, 3))}}


# --- x[mask] --------------------------------------------------------------------------------


@_program
def getitem_bool_numpy_mask(tf):
    x = tf.Variable(_arr(6, (3, 2), dtype=np.float32), name="x")
    rows = x[np.array([True, False, True])]
    cells = x[np.array([[True, False], [False, True], [True, True]])]
    y = tf.reduce_sum(rows * rows) + tf.reduce_sum(cells)
    return {"fetches": [rows, cells, tf.gradients(y, x)], "feeds": {}}


@_program
def getitem_bool_tensor_mask_fed(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    m = tf.placeholder(tf.bool, [None], name="m")
    y = x[m]
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)],
        "feeds": {x: _arr(7, (3, 2), dtype=np.float32), m: np.array([True, False, True])},
    }


@_program
def getitem_bool_computed_mask(tf):
    x = tf.placeholder(tf.float64, [None], name="x")
    y = x[x > 0]
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(tf.exp(y)), x)],
        "feeds": {x: np.array([0.5, -1.0, 2.0, 0.0])},
    }


@_program
def getitem_bool_constant_mask_shapeless(tf):
    x = tf.placeholder(tf.float32, name="x")
    y = x[tf.constant([False, True])]
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * 3.0), x)],
        "feeds": {x: _arr(8, (2, 3), dtype=np.float32)},
    }


# --- gather with axis > batch_dims ----------------------------------------------------------

_GATHER_PARAMS = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5) / 10
_GATHER_INDICES = np.array([[2, 0, 1], [1, 1, 3]], np.int32)


@_program
def gather_axis_past_batch_dims(tf):
    p = tf.Variable(_GATHER_PARAMS, name="p")
    i = tf.constant(_GATHER_INDICES)
    fetches = []
    for axis, batch_dims in [(2, 1), (-1, 1), (3, 1), (2, -1), (-2, -1), (3, -1)]:
        y = tf.gather(p, i, axis=axis, batch_dims=batch_dims)
        fetches += [y, tf.gradients(tf.reduce_sum(y * y), p)]
    return {"fetches": fetches, "feeds": {}}


@_program
def gather_axis_past_two_batch_dims(tf):
    p = tf.Variable(_arr(9, (2, 3, 4, 5)), name="p")
    i = tf.constant(np.array([[[4, 0], [1, 1], [3, 2]], [[0, 0], [2, 4], [1, 3]]], np.int64))
    y = tf.gather(p, i, axis=3, batch_dims=2)
    z = tf.gather(p, i, axis=-1, batch_dims=-1)
    return {
        "fetches": [y, z, tf.gradients(tf.reduce_sum(tf.sin(y)), p)],
        "feeds": {},
    }


@_program
def gather_batch_dims_fed_values(tf):
    p = tf.placeholder(tf.float64, [2, 3, 4], name="p")
    i = tf.placeholder(tf.int32, [2, 2], name="i")
    y = tf.gather(p, i, axis=2, batch_dims=1)
    w = tf.gather(p, i, axis=1, batch_dims=-2)  # batch_dims 0: a plain gather
    return {
        "fetches": [y, w, tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(w), p)],
        "feeds": {p: _arr(10, (2, 3, 4)), i: np.array([[2, 0], [1, 2]], np.int32)},
    }


# --- pow: gradient with respect to the exponent at x = 0 and x < 0 ---------------------------


def _pow_program(tf, dtype):
    d = getattr(tf, dtype)
    x = tf.placeholder(d, [None], name="x")
    y = tf.placeholder(d, [None], name="y")
    z = tf.pow(x, y)
    gy = tf.gradients(tf.reduce_sum(z), y)[0]
    return {
        "fetches": [z, tf.gradients(tf.reduce_sum(z), [x, y]), tf.gradients(tf.reduce_sum(gy), y)],
        "feeds": {
            x: np.array([0.0, 0.0, 0.0, -2.0, -2.0, 2.0, 0.0, 3.0], dtype),
            y: np.array([2.0, 0.0, -1.0, 2.0, 0.5, 3.0, 0.5, 1.5], dtype),
        },
    }


@_program
def pow_exponent_gradient_at_zero_float32(tf):
    return _pow_program(tf, "float32")


@_program
def pow_exponent_gradient_at_zero_float64(tf):
    return _pow_program(tf, "float64")


@_program
def pow_scalar_base_zero(tf):
    y = tf.placeholder(tf.float32, [None], name="y")
    z = tf.pow(tf.constant(0.0), y) + 0.0**y
    return {
        "fetches": [z, tf.gradients(tf.reduce_sum(z), y)],
        "feeds": {y: np.array([1.0, 2.0, 0.0, -1.0], np.float32)},
    }


# --- gradients of div_no_nan, relu6, clip_by_value keep the dtype ---------------------------


def _keeps_dtype_program(tf, dtype):
    d = getattr(tf, dtype)
    x = tf.placeholder(d, [None], name="x")
    y = tf.placeholder(d, [None], name="y")
    a = tf.div_no_nan(x, y)
    b = tf.nn.relu6(x * 4.0)
    c = tf.clip_by_value(x, -0.5, 0.5)
    e = tf.clip_by_value(x, y - 1.0, y)
    f = tf.div_no_nan(x, 2.0) + tf.math.divide_no_nan(3.0, y)
    return {
        "fetches": [
            a,
            b,
            c,
            e,
            f,
            tf.gradients(tf.reduce_sum(a), [x, y]),
            tf.gradients(tf.reduce_sum(b), x),
            tf.gradients(tf.reduce_sum(c), x),
            tf.gradients(tf.reduce_sum(e), [x, y]),
            tf.gradients(tf.reduce_sum(f), [x, y]),
        ],
        "feeds": {
            x: np.array([1.0, -1.0, 0.3, 2.0, 0.0, 7.0], dtype),
            y: np.array([0.0, 2.0, 0.5, 4.0, 0.0, -1.0], dtype),
        },
    }


@_program
def gradients_keep_dtype_float32(tf):
    return _keeps_dtype_program(tf, "float32")


@_program
def gradients_keep_dtype_float16(tf):
    return _keeps_dtype_program(tf, "float16")


@_program
def gradients_keep_dtype_float32_scalars(tf):
    x = tf.placeholder(tf.float32, name="x")
    a = tf.div_no_nan(x, 4.0) + tf.nn.relu6(x) + tf.clip_by_value(x, 0.0, 1.0)
    return {"fetches": [a, tf.gradients(a, x)], "feeds": {x: np.float32(0.5)}}


# --- squeeze of unknown dims ----------------------------------------------------------------


@_program
def squeeze_unknown_dims(tf):
    x = tf.placeholder(tf.float32, [None, 1, None], name="x")
    y = tf.squeeze(x)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)],
        "feeds": {x: _arr(11, (3, 1, 1), dtype=np.float32)},
    }


@_program
def squeeze_shapeless(tf):
    x = tf.placeholder(tf.float64, name="x")
    y = tf.squeeze(x)
    return {
        "fetches": [y, tf.shape(y), tf.gradients(tf.reduce_sum(y * y), x)],
        "feeds": {x: _arr(12, (1, 3, 1))},
    }


@_program
def squeeze_none_batch_of_one(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.squeeze(x)
    return {
        "fetches": [y, tf.shape(y), tf.gradients(tf.reduce_sum(y), x)],
        "feeds": {x: _arr(13, (1, 2), dtype=np.float32)},
    }


# --- lists of tensors -----------------------------------------------------------------------


@_program
def lists_of_tensors_are_packed(tf):
    y = tf.constant(2.0)
    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    x = tf.placeholder(tf.float32, [None], name="x")
    s = tf.reduce_sum([a, x])
    return {
        "fetches": [
            tf.stop_gradient([y]),
            tf.convert_to_tensor([a, b]),
            tf.reduce_sum([a, b]),
            tf.reduce_sum([a, b], axis=0),
            s,
            tf.gradients(s, [x, a]),
            tf.convert_to_tensor([y, 3.0]),
            tf.identity([y, 2.0]),
            tf.reduce_mean([a * 2.0, b]),
            tf.square([a, b]),
            tf.reduce_sum([[tf.constant(1.0), 2.0], [3.0, tf.constant(4.0)]], axis=1),
            tf.gradients(tf.reduce_sum(tf.convert_to_tensor([x, a * x]) ** 2), x),
        ],
        "feeds": {x: np.array([5.0, 6.0], np.float32)},
    }


@_program
def lists_of_tensors_cast_to_dtype(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    i = tf.constant(1)
    packed = tf.convert_to_tensor([x, x * 2.0], dtype=tf.float64)
    return {
        "fetches": [
            tf.convert_to_tensor([tf.constant(1.0), 2.0], dtype=tf.float64),
            tf.convert_to_tensor([i, 2], dtype=tf.float32),
            tf.convert_to_tensor([tf.constant(1, tf.int64), 2], dtype=tf.int32),
            tf.convert_to_tensor([[i], [2]], dtype=tf.int64),
            packed,
            tf.gradients(tf.reduce_sum(packed), x),
        ],
        "feeds": {x: np.array([5.0, 6.0], np.float32)},
    }


# --- softmax_cross_entropy_with_logits_v2 with integer labels -------------------------------


@_program
def softmax_xent_v2_integer_labels(tf):
    logits = tf.placeholder(tf.float32, [None, 3], name="logits")
    int32_labels = tf.constant([[0, 1, 0], [1, 0, 0]], tf.int32)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=int32_labels, logits=logits)
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=int32_labels, logits=logits)
    return {
        "fetches": [loss, v1, tf.gradients(tf.reduce_sum(loss), logits)],
        "feeds": {logits: np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32)},
    }


@_program
def softmax_xent_v2_int64_uint8_labels(tf):
    logits = tf.Variable(_arr(14, (2, 3), -2, 2), name="logits")
    one_hot = tf.one_hot([1, 0], 3, dtype=tf.int64)
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=one_hot, logits=logits)
    by_column = tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.constant([[0, 1, 0], [1, 0, 1]], tf.uint8), logits=logits, axis=0
    )
    return {
        "fetches": [loss, by_column, tf.gradients(tf.reduce_sum(loss + 2.0 * loss), logits)],
        "feeds": {},
    }


# --- math of constants: folded, in the graph's dtype -----------------------------------------


@_program
def constant_math_keeps_the_graphs_float_dtype(tf):
    # exp(2), sqrt(2), log(0.001) of float32 constants meet a float32 value: float32 results,
    # as TF computes them (a float64 scalar would widen the array).
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.exp(tf.constant(2.0)) + x
    z = tf.sqrt(tf.constant(2.0)) * x - tf.log(tf.constant(0.001)) * x
    return {
        "fetches": [y, z, tf.gradients(tf.reduce_sum(y * z), x)],
        "feeds": {x: np.array([0.5, -1.0, 3.0], np.float32)},
    }


@_program
def constant_math_of_negative_constants_is_nan(tf):
    # log(-1) and sqrt(-2) of constants: NaN, as TF's real kernels give (not a complex number).
    x = tf.placeholder(tf.float64, [None], name="x")
    return {
        "fetches": [
            tf.log(tf.constant(-1.0, tf.float64)) + x,
            tf.sqrt(tf.constant(-2.0, tf.float64)) * x,
        ],
        "feeds": {x: np.array([1.0, 2.0])},
    }
