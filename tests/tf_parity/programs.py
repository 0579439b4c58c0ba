"""Corpus of small TF1 graph programs for TensorFlow parity tests.

Every program is a plain function ``fn(tf)`` taking the graph-API module
(``tensorflow.compat.v1`` when recording, ``symgrad`` when testing).  It builds
a graph in the *current default graph* and returns a dict:

* ``"fetches"``: a list whose entries are tensors or ``None`` (``tf.gradients``
  results may contain ``None``).  Entries may themselves be (nested) lists,
  e.g. ``[loss, tf.gradients(loss, [w, b])]``; use :func:`flatten_fetches` to
  flatten them in order.
* ``"feeds"``: dict placeholder tensor -> Python/NumPy value.
* optionally ``"rtol"``: a relative tolerance suggested for the comparison.

Programs never create sessions; the recorder / test harness does that (after
running ``tf.global_variables_initializer()``).

Only a small, documented subset of the TF1 API is used (see the brief in
``record_tf.py``).  ``PROGRAMS`` lists all programs in definition order; the
fixture file ``tf_fixtures.json`` is keyed by function ``__name__``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def flatten_fetches(fetches):
    """Flatten nested lists/tuples of fetches (tensors or None), in order."""
    out = []
    for f in fetches:
        if isinstance(f, (list, tuple)):
            out.extend(flatten_fetches(f))
        else:
            out.append(f)
    return out


def _rs(seed):
    return np.random.RandomState(seed)


# Shared small inputs.
_X3 = np.array([-1.5, 0.25, 2.0])  # generic points (any sign)
_XPOS = np.array([0.25, 1.0, 3.5])  # strictly positive points


# ---------------------------------------------------------------------------
# Seed tutorial programs
# ---------------------------------------------------------------------------


@_program
def rule3_intermediate_xs(tf):
    # expected [3.0, 1.0]
    a = tf.constant(0.0)
    b = 2 * a
    c = a + b
    return {"fetches": tf.gradients(c, [a, b]), "feeds": {}}


@_program
def seed_stop_gradient_variable(tf):
    # expected [None, 6.0]
    w1 = tf.Variable(2.0, name="w1")
    w2 = tf.Variable(2.0, name="w2")
    a = tf.multiply(w1, 3.0)
    b = tf.multiply(tf.stop_gradient(a), w2)
    return {"fetches": tf.gradients(b, xs=[w1, w2]), "feeds": {}}


@_program
def seed_stop_gradient_sum(tf):
    # expected [1.0, 1.0]
    a = tf.Variable(1.0)
    b = tf.Variable(1.0)
    c = tf.add(a, b)
    e = tf.add(tf.stop_gradient(c), tf.add(a, b))
    return {"fetches": tf.gradients(e, [a, b]), "feeds": {}}


def _linreg_data():
    rs = _rs(0)
    x = np.linspace(0.0, 1.0, 32).astype(np.float32)
    y = (3.0 * x + 2.0 + 0.1 * rs.randn(32)).astype(np.float32)
    return x, y


@_program
def seed_linreg_scalar_feeds(tf):
    x_input = tf.placeholder(tf.float32, name="x_input")
    y_input = tf.placeholder(tf.float32, name="y_input")
    w = tf.Variable(0.5, name="w")
    b = tf.Variable(0.1, name="b")
    loss = tf.reduce_sum(tf.pow(y_input - (x_input * w + b), 2)) / (2 * 32)
    return {"fetches": [loss, tf.gradients(loss, [w, b])], "feeds": {x_input: 1.5, y_input: 4.0}}


@_program
def seed_linreg_vector_feeds(tf):
    x_input = tf.placeholder(tf.float32, shape=[None], name="x_input")
    y_input = tf.placeholder(tf.float32, shape=[None], name="y_input")
    w = tf.Variable(0.5, name="w")
    b = tf.Variable(0.1, name="b")
    loss = tf.reduce_sum(tf.pow(y_input - (x_input * w + b), 2)) / (2 * 32)
    x, y = _linreg_data()
    return {"fetches": [loss, tf.gradients(loss, [w, b])], "feeds": {x_input: x, y_input: y}}


@_program
def seed_linreg_vector_feeds_unknown_shape(tf):
    x_input = tf.placeholder(tf.float32, name="x_input")
    y_input = tf.placeholder(tf.float32, name="y_input")
    w = tf.Variable(-1.0, name="w")
    b = tf.Variable(0.75, name="b")
    loss = tf.reduce_sum(tf.pow(y_input - (x_input * w + b), 2)) / (2 * 32)
    x, y = _linreg_data()
    return {"fetches": [loss, tf.gradients(loss, [w, b])], "feeds": {x_input: x, y_input: y}}


# ---------------------------------------------------------------------------
# Rule 1: ys / xs as tensor or list; result is a list; sum over ys
# ---------------------------------------------------------------------------


@_program
def r1_tensor_ys_tensor_xs(tf):
    x = tf.constant(1.5, dtype=tf.float64)
    y = x * x * x
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r1_list_ys_tensor_xs_sum(tf):
    x = tf.constant(2.0, dtype=tf.float64)
    y1 = x * x
    y2 = tf.sin(x)
    y3 = 5.0 * x
    return {"fetches": tf.gradients([y1, y2, y3], x), "feeds": {}}


@_program
def r1_list_ys_list_xs(tf):
    x = tf.placeholder(tf.float64, shape=[3])
    z = tf.Variable(np.array([0.5, -1.0, 2.0]), dtype=tf.float64)
    y1 = tf.reduce_sum(x * z)
    y2 = x * x + z
    return {"fetches": tf.gradients([y1, y2], [x, z]), "feeds": {x: np.array([1.0, 2.0, -3.0])}}


@_program
def r1_nonscalar_y_sums(tf):
    x = tf.constant(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = x * np.array([2.0, -1.0, 0.5], dtype=np.float32)
    return {"fetches": [y, tf.gradients(y, [x])], "feeds": {}}


@_program
def r1_same_x_twice(tf):
    x = tf.constant(0.5, dtype=tf.float64)
    y = tf.exp(x) * x
    return {"fetches": tf.gradients(y, [x, x]), "feeds": {}}


@_program
def r1_scalar_x_tensor_y_broadcast(tf):
    x = tf.placeholder(tf.float32, shape=[])
    y = x * tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: 0.5}}


# ---------------------------------------------------------------------------
# Rule 2: grad_ys
# ---------------------------------------------------------------------------


@_program
def r2_grad_ys_scalar(tf):
    x = tf.constant(3.0, dtype=tf.float64)
    y = x * x
    g = tf.constant(0.5, dtype=tf.float64)
    return {"fetches": tf.gradients(y, x, grad_ys=g), "feeds": {}}


@_program
def r2_grad_ys_scalar_list(tf):
    x = tf.constant(3.0)
    y = tf.square(x)
    return {"fetches": tf.gradients([y], [x], grad_ys=[tf.constant(-2.0)]), "feeds": {}}


@_program
def r2_grad_ys_tensor(tf):
    x = tf.constant(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    y = tf.sin(x) * 2.0
    g = tf.constant(np.array([[1.0, 0.0, -1.0], [0.5, 2.0, 3.0]]))
    return {"fetches": tf.gradients(y, [x], grad_ys=g), "feeds": {}}


@_program
def r2_grad_ys_placeholder(tf):
    x = tf.placeholder(tf.float32, shape=[3])
    gy = tf.placeholder(tf.float32, shape=[3])
    y = tf.exp(x)
    return {
        "fetches": tf.gradients(y, x, grad_ys=gy),
        "feeds": {
            x: np.array([0.0, 1.0, -1.0], np.float32),
            gy: np.array([2.0, 3.0, 4.0], np.float32),
        },
    }


@_program
def r2_grad_ys_multiple_ys(tf):
    x = tf.constant(np.array([1.0, 2.0]))
    y1 = x * x
    y2 = tf.reduce_sum(x) * 3.0
    g1 = tf.constant(np.array([10.0, 100.0]))
    g2 = tf.constant(2.0, dtype=tf.float64)
    return {"fetches": tf.gradients([y1, y2], x, grad_ys=[g1, g2]), "feeds": {}}


@_program
def r2_grad_ys_none_entry_defaults_to_ones(tf):
    x = tf.constant(np.array([1.0, 2.0]))
    y1 = x * x
    y2 = x * 3.0
    g2 = tf.constant(np.array([-1.0, 5.0]))
    return {"fetches": tf.gradients([y1, y2], x, grad_ys=[None, g2]), "feeds": {}}


@_program
def r2_grad_ys_default_equals_ones(tf):
    x = tf.constant(np.array([0.5, 1.5, 2.5]))
    y = tf.log(x) * x
    ones = tf.constant(np.ones(3))
    return {"fetches": [tf.gradients(y, x), tf.gradients(y, x, grad_ys=ones)], "feeds": {}}


# ---------------------------------------------------------------------------
# Rule 3: intermediate xs; total derivatives; gradients(y, y)
# ---------------------------------------------------------------------------


@_program
def r3_path_through_other_xs(tf):
    a = tf.constant(1.5, dtype=tf.float64)
    b = a * a
    c = tf.sin(b) + 3.0 * a
    # dc/da is total (through b); dc/db is cos(b)
    return {"fetches": tf.gradients(c, [a, b]), "feeds": {}}


@_program
def r3_chain_of_xs(tf):
    x = tf.constant(0.5)
    h1 = tf.exp(x)
    h2 = h1 * h1
    y = h2 + h1 + x
    return {"fetches": tf.gradients(y, [x, h1, h2]), "feeds": {}}


@_program
def r3_gradients_y_wrt_y_scalar(tf):
    x = tf.constant(2.0)
    y = x * 4.0
    return {"fetches": tf.gradients(y, y), "feeds": {}}


@_program
def r3_gradients_y_wrt_y_tensor(tf):
    x = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    y = tf.sqrt(x)
    return {"fetches": tf.gradients(y, [y, x]), "feeds": {}}


@_program
def r3_x_is_y_plus_other_ys(tf):
    x = tf.constant(2.0, dtype=tf.float64)
    y = x * x
    return {"fetches": tf.gradients([y, y * 3.0], [y, x]), "feeds": {}}


# ---------------------------------------------------------------------------
# Rule 4: stop_gradients argument
# ---------------------------------------------------------------------------


@_program
def r4_stop_gradients_seed(tf):
    # expected [1.0, 1.0]
    a = tf.constant(0.0)
    b = 2 * a
    return {"fetches": tf.gradients(a + b, [a, b], stop_gradients=[a, b]), "feeds": {}}


@_program
def r4_stop_gradients_partial(tf):
    a = tf.constant(0.0)
    b = 2 * a
    return {"fetches": tf.gradients(a + b, [a, b], stop_gradients=[b]), "feeds": {}}


@_program
def r4_stop_gradients_intermediate_not_in_xs(tf):
    x = tf.constant(2.0, dtype=tf.float64)
    h = x * x
    y = 3.0 * h + tf.sin(x)
    return {"fetches": tf.gradients(y, x, stop_gradients=[h]), "feeds": {}}


@_program
def r4_stop_gradients_single_tensor(tf):
    x = tf.constant(np.array([1.0, 2.0]))
    h = tf.exp(x)
    y = h * x
    return {"fetches": tf.gradients(y, [x, h], stop_gradients=h), "feeds": {}}


@_program
def r4_stop_gradients_blocks_all_paths(tf):
    x = tf.constant(1.0)
    h = x * 2.0
    y = h * h
    return {"fetches": tf.gradients(y, [x, h], stop_gradients=[h]), "feeds": {}}


# ---------------------------------------------------------------------------
# Rule 5: tf.stop_gradient op
# ---------------------------------------------------------------------------


@_program
def r5_stop_gradient_op_none(tf):
    x = tf.constant(3.0)
    y = tf.stop_gradient(x)
    return {"fetches": tf.gradients(y, [x]), "feeds": {}}


@_program
def r5_stop_gradient_op_partial(tf):
    x = tf.constant(np.array([1.0, -2.0, 3.0]))
    y = x * tf.stop_gradient(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r5_stop_gradient_op_zero(tf):
    x = tf.constant(np.array([1.0, 2.0], dtype=np.float32))
    y = tf.stop_gradient(x * 2.0)
    return {"fetches": tf.gradients(y, x, unconnected_gradients="zero"), "feeds": {}}


# ---------------------------------------------------------------------------
# Rule 6: unconnected xs
# ---------------------------------------------------------------------------


@_program
def r6_unconnected_default_none(tf):
    x = tf.constant(1.0)
    z = tf.constant(2.0)
    y = x * 3.0
    return {"fetches": tf.gradients(y, [x, z]), "feeds": {}}


@_program
def r6_unconnected_none_enum(tf):
    x = tf.constant(1.0)
    z = tf.constant(2.0)
    y = x * 3.0
    return {
        "fetches": tf.gradients(y, [x, z], unconnected_gradients=tf.UnconnectedGradients.NONE),
        "feeds": {},
    }


@_program
def r6_unconnected_none_string(tf):
    x = tf.constant(1.0)
    z = tf.constant(2.0)
    y = x * 3.0
    return {"fetches": tf.gradients(y, [x, z], unconnected_gradients="none"), "feeds": {}}


@_program
def r6_unconnected_zero_enum(tf):
    x = tf.constant(1.0)
    z = tf.constant(np.arange(6.0).reshape(2, 3))  # float64 [2, 3]
    y = x * 3.0
    return {
        "fetches": tf.gradients(y, [x, z], unconnected_gradients=tf.UnconnectedGradients.ZERO),
        "feeds": {},
    }


@_program
def r6_unconnected_zero_string(tf):
    x = tf.constant(1.0)
    z = tf.constant(np.ones((3, 1), dtype=np.float32))
    y = x * 3.0
    return {"fetches": tf.gradients(y, [x, z], unconnected_gradients="zero"), "feeds": {}}


@_program
def r6_unconnected_zero_variable_and_placeholder(tf):
    x = tf.constant(1.0)
    v = tf.Variable(np.array([1.0, 2.0, 3.0]), name="v")
    p = tf.placeholder(tf.float32, shape=[None])
    y = x * 3.0
    return {
        "fetches": tf.gradients(y, [v, p], unconnected_gradients="zero"),
        "feeds": {p: np.array([1.0, 2.0, 3.0, 4.0], np.float32)},
    }


@_program
def r6_unconnected_zero_int(tf):
    x = tf.constant(1.0)
    n = tf.constant(np.array([1, 2], dtype=np.int32))
    y = x * 3.0
    return {"fetches": tf.gradients(y, [n], unconnected_gradients="zero"), "feeds": {}}


@_program
def r6_unconnected_separate_branch(tf):
    a = tf.constant(1.0)
    b = a * 2.0
    c = a * 5.0
    # c is built from a but does not feed y
    return {"fetches": tf.gradients(b, [a, c]), "feeds": {}}


# ---------------------------------------------------------------------------
# Rule 7: integer tensors cut gradients
# ---------------------------------------------------------------------------


@_program
def r7_int_cast_cuts_gradient(tf):
    x = tf.constant(2.7)
    y = tf.cast(tf.cast(x, tf.int32), tf.float32) * 2.0
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r7_int_cast_cuts_gradient_zero(tf):
    x = tf.constant(np.array([2.7, -1.2]))
    y = tf.cast(tf.cast(x, tf.int64), tf.float64) * 2.0
    return {"fetches": [y, tf.gradients(y, x, unconnected_gradients="zero")], "feeds": {}}


@_program
def r7_int_and_float_paths(tf):
    x = tf.constant(2.5, dtype=tf.float64)
    y = x * x + tf.cast(tf.cast(x, tf.int32), tf.float64)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r7_int_y_is_x(tf):
    n = tf.constant(3, dtype=tf.int32)
    return {"fetches": tf.gradients(n, n), "feeds": {}}


@_program
def r7_int64_y_is_x_tensor(tf):
    n = tf.constant(np.array([1, 2, 3], dtype=np.int64))
    return {"fetches": tf.gradients(n, [n]), "feeds": {}}


@_program
def r7_int_x_through_int_op(tf):
    n = tf.constant(3, dtype=tf.int32)
    m = n * 2
    return {"fetches": [m, tf.gradients(m, n)], "feeds": {}}


@_program
def r7_float_y_cast_to_int(tf):
    x = tf.constant(np.array([1.5, 2.5], dtype=np.float32))
    n = tf.cast(x, tf.int32)
    return {"fetches": [n, tf.gradients(n, x)], "feeds": {}}


@_program
def r7_bool_cuts_gradient(tf):
    x = tf.constant(np.array([-1.0, 2.0]))
    y = tf.cast(x > 0.0, tf.float64) * x
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r7_float_cast_passes_gradient(tf):
    x = tf.constant(np.array([1.5, -0.5], dtype=np.float32))
    y = tf.cast(x, tf.float64) * tf.constant(np.array([2.0, 3.0]))
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


# ---------------------------------------------------------------------------
# Rule 8: aggregation methods
# ---------------------------------------------------------------------------


def _fanout(tf):
    x = tf.constant(np.array([0.5, -1.0, 2.0]))
    y = x * x + tf.sin(x) + x * 3.0 + tf.exp(x) * x
    return x, y


@_program
def r8_aggregation_default(tf):
    x, y = _fanout(tf)
    return {"fetches": tf.gradients(y, x), "feeds": {}}


@_program
def r8_aggregation_add_n(tf):
    x, y = _fanout(tf)
    return {
        "fetches": tf.gradients(y, x, aggregation_method=tf.AggregationMethod.ADD_N),
        "feeds": {},
    }


@_program
def r8_aggregation_tree(tf):
    x, y = _fanout(tf)
    return {
        "fetches": tf.gradients(y, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE),
        "feeds": {},
    }


@_program
def r8_aggregation_accumulate_n(tf):
    x, y = _fanout(tf)
    return {
        "fetches": tf.gradients(
            y, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N
        ),
        "feeds": {},
    }


@_program
def r8_aggregation_tree_multi_ys_broadcast(tf):
    a = tf.constant(np.array([[1.0], [2.0], [3.0]]))
    b = tf.constant(np.array([[0.5, -1.0, 2.0, 4.0]]))
    ys = [a * b, a + b, a * a, tf.reduce_sum(a * b)]
    return {
        "fetches": tf.gradients(
            ys, [a, b], aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE
        ),
        "feeds": {},
    }


@_program
def r8_aggregation_accumulate_n_multi_ys(tf):
    x = tf.placeholder(tf.float32, shape=[4])
    ys = [x * 2.0, tf.square(x), tf.sin(x), x]
    return {
        "fetches": tf.gradients(
            ys, x, aggregation_method=tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N
        ),
        "feeds": {x: np.array([0.0, 1.0, -2.0, 0.5], np.float32)},
    }


# ---------------------------------------------------------------------------
# Rule 9: special points
# ---------------------------------------------------------------------------


@_program
def r9_abs_at_zero(tf):
    x = tf.constant(np.array([-2.0, 0.0, 3.0]))
    y = tf.abs(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r9_relu_at_zero(tf):
    x = tf.constant(np.array([-2.0, 0.0, 3.0], dtype=np.float32))
    y = tf.nn.relu(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r9_maximum_tie_goes_to_first(tf):
    a = tf.constant(np.array([1.0, 2.0, 3.0]))
    b = tf.constant(np.array([1.0, 5.0, 3.0]))
    y = tf.maximum(a, b)
    return {"fetches": [y, tf.gradients(y, [a, b])], "feeds": {}}


@_program
def r9_minimum_tie_goes_to_first(tf):
    a = tf.constant(np.array([1.0, 2.0, 3.0]))
    b = tf.constant(np.array([1.0, 5.0, 0.0]))
    y = tf.minimum(a, b)
    return {"fetches": [y, tf.gradients(y, [a, b])], "feeds": {}}


@_program
def r9_maximum_scalar_tie(tf):
    a = tf.constant(2.0)
    b = tf.constant(2.0)
    y = tf.maximum(a, b) + tf.minimum(b, a)
    return {"fetches": tf.gradients(y, [a, b]), "feeds": {}}


@_program
def r9_pow_x0_y2(tf):
    x = tf.constant(0.0, dtype=tf.float64)
    p = tf.constant(2.0, dtype=tf.float64)
    y = tf.pow(x, p)
    return {"fetches": [y, tf.gradients(y, [x, p])], "feeds": {}}


@_program
def r9_pow_x0_y1(tf):
    x = tf.constant(0.0, dtype=tf.float64)
    p = tf.constant(1.0, dtype=tf.float64)
    y = tf.pow(x, p)
    return {"fetches": [y, tf.gradients(y, [x, p])], "feeds": {}}


@_program
def r9_pow_dy_nonpositive_base(tf):
    x = tf.constant(np.array([-2.0, 0.0, -0.5]))
    p = tf.constant(np.array([3.0, 2.0, 2.0]))
    y = tf.pow(x, p)
    return {"fetches": [y, tf.gradients(y, [x, p])], "feeds": {}}


@_program
def r9_pow_dy_positive_base(tf):
    x = tf.constant(np.array([0.5, 1.0, 2.0]))
    p = tf.constant(np.array([3.0, 2.0, -1.5]))
    y = tf.pow(x, p)
    return {"fetches": [y, tf.gradients(y, [x, p])], "feeds": {}}


@_program
def r9_sqrt_at_zero_inf(tf):
    x = tf.constant(np.array([0.0, 4.0]))
    y = tf.sqrt(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def r9_where_gradients(tf):
    x = tf.constant(np.array([1.0, -2.0, 3.0, -4.0]))
    a = tf.constant(np.array([10.0, 20.0, 30.0, 40.0]))
    b = tf.constant(np.array([-1.0, -2.0, -3.0, -4.0]))
    cond = tf.greater(x, 0.0)
    y = tf.where(cond, a * x, b * x * x)
    return {"fetches": [y, tf.gradients(y, [x, a, b, cond])], "feeds": {}}


@_program
def r9_where_placeholder_cond(tf):
    c = tf.placeholder(tf.bool, shape=[3])
    x = tf.constant(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    y = tf.constant(np.array([4.0, 5.0, 6.0], dtype=np.float32))
    z = tf.where(c, tf.square(x), tf.sin(y))
    return {"fetches": [z, tf.gradients(z, [x, y])], "feeds": {c: np.array([True, False, True])}}


@_program
def r9_comparisons_gradients_none(tf):
    x = tf.constant(np.array([1.0, 2.0, 3.0]))
    z = tf.constant(np.array([2.0, 2.0, 2.0]))
    cmps = [
        tf.greater(x, z),
        tf.less(x, z),
        tf.greater_equal(x, z),
        tf.less_equal(x, z),
        tf.equal(x, z),
        tf.not_equal(x, z),
    ]
    fetches = list(cmps)
    for c in cmps:
        fetches.extend(tf.gradients(c, [x, z]))
    return {"fetches": fetches, "feeds": {}}


@_program
def r9_comparison_operators(tf):
    x = tf.constant(np.array([1.0, 2.0, 3.0], dtype=np.float32))
    cmps = [x > 2.0, x < 2.0, x >= 2.0, x <= 2.0, x > 2.0, x <= 1.5]
    return {"fetches": [cmps, tf.gradients(cmps[0], x)], "feeds": {}}


@_program
def r9_floor_round_gradients_none(tf):
    x = tf.constant(np.array([-1.5, -0.5, 0.5, 1.5, 2.4, 2.6]))
    f = tf.floor(x)
    r = tf.round(x)
    return {
        "fetches": [f, r, tf.gradients(f, x), tf.gradients(r, x), tf.gradients(f * x, x)],
        "feeds": {},
    }


@_program
def r9_floor_round_zero(tf):
    x = tf.constant(np.array([-1.5, 0.5, 2.6], dtype=np.float32))
    y = tf.floor(x) + tf.round(x)
    return {"fetches": tf.gradients(y, x, unconnected_gradients="zero"), "feeds": {}}


@_program
def r9_sign_gradient(tf):
    x = tf.constant(np.array([-2.0, 0.0, 3.0]))
    y = tf.sign(x)
    return {"fetches": [y, tf.gradients(y, x), tf.gradients(y * x, x)], "feeds": {}}


# ---------------------------------------------------------------------------
# Unary elementwise ops: value and gradient at 2-3 points
# ---------------------------------------------------------------------------


def _unary(tf, fn, values, dtype=None, placeholder=False):
    if dtype is None:
        dtype = tf.float64
    if placeholder:
        x = tf.placeholder(dtype, shape=[len(values)])
        feeds = {x: np.asarray(values)}
    else:
        x = tf.constant(np.asarray(values), dtype=dtype)
        feeds = {}
    y = fn(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": feeds}


@_program
def unary_negative_f64(tf):
    return _unary(tf, tf.negative, _X3)


@_program
def unary_neg_operator_f32(tf):
    return _unary(tf, lambda x: -x, _X3, tf.float32)


@_program
def unary_square_f64(tf):
    return _unary(tf, tf.square, _X3)


@_program
def unary_square_f32(tf):
    return _unary(tf, tf.square, _X3, tf.float32, placeholder=True)


@_program
def unary_sqrt_f64(tf):
    return _unary(tf, tf.sqrt, _XPOS)


@_program
def unary_sqrt_f32(tf):
    return _unary(tf, tf.sqrt, _XPOS, tf.float32)


@_program
def unary_rsqrt_f64(tf):
    return _unary(tf, tf.rsqrt, _XPOS)


@_program
def unary_reciprocal_f64(tf):
    return _unary(tf, tf.reciprocal, [-2.0, 0.5, 4.0])


@_program
def unary_exp_f64(tf):
    return _unary(tf, tf.exp, _X3)


@_program
def unary_exp_f32(tf):
    return _unary(tf, tf.exp, _X3, tf.float32, placeholder=True)


@_program
def unary_expm1_f64(tf):
    return _unary(tf, tf.math.expm1, [-1.0, 1e-3, 2.0])


@_program
def unary_log_f64(tf):
    return _unary(tf, tf.log, _XPOS)


@_program
def unary_log_f32(tf):
    return _unary(tf, tf.log, _XPOS, tf.float32)


@_program
def unary_log1p_f64(tf):
    return _unary(tf, tf.log1p, [-0.5, 1e-3, 3.0])


@_program
def unary_sin_f64(tf):
    return _unary(tf, tf.sin, _X3)


@_program
def unary_cos_f64(tf):
    return _unary(tf, tf.cos, _X3)


@_program
def unary_cos_f32(tf):
    return _unary(tf, tf.cos, _X3, tf.float32)


@_program
def unary_tanh_f64(tf):
    return _unary(tf, tf.tanh, _X3)


@_program
def unary_nn_tanh_f32(tf):
    return _unary(tf, tf.nn.tanh, _X3, tf.float32)


@_program
def unary_sigmoid_f64(tf):
    return _unary(tf, tf.sigmoid, [-3.0, 0.0, 1.5])


@_program
def unary_nn_sigmoid_f32(tf):
    return _unary(tf, tf.nn.sigmoid, [-3.0, 0.0, 1.5], tf.float32)


@_program
def unary_abs_f64(tf):
    return _unary(tf, tf.abs, _X3)


@_program
def unary_sign_f32(tf):
    return _unary(tf, tf.sign, _X3, tf.float32)


@_program
def unary_relu_f64(tf):
    return _unary(tf, tf.nn.relu, _X3)


@_program
def unary_softplus_f64(tf):
    return _unary(tf, tf.nn.softplus, [-2.0, 0.0, 3.0])


@_program
def unary_softplus_f32(tf):
    return _unary(tf, tf.nn.softplus, [-2.0, 0.0, 3.0], tf.float32)


@_program
def unary_identity_f64(tf):
    return _unary(tf, tf.identity, _X3, placeholder=True)


@_program
def unary_floor_f64(tf):
    return _unary(tf, tf.floor, [-1.5, 0.25, 2.0])


@_program
def unary_round_f32(tf):
    return _unary(tf, tf.round, [-1.5, 0.5, 1.5, 2.5, 0.7], tf.float32)


@_program
def unary_reduce_sum_mean(tf):
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    s = tf.reduce_sum(x * x)
    m = tf.reduce_mean(x * x)
    return {"fetches": [s, m, tf.gradients(s, x), tf.gradients(m, x)], "feeds": {}}


@_program
def unary_reduce_mean_f32_placeholder(tf):
    x = tf.placeholder(tf.float32, shape=[None, 2])
    m = tf.reduce_mean(tf.sin(x))
    return {
        "fetches": [m, tf.gradients(m, x)],
        "feeds": {x: np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]], np.float32)},
    }


@_program
def unary_float16(tf):
    x = tf.constant(np.array([0.5, 1.0, 1.5]), dtype=tf.float16)
    y = tf.square(x) * 3.0 + x
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}, "rtol": 1e-3}


# ---------------------------------------------------------------------------
# Binary elementwise ops with broadcasting
# ---------------------------------------------------------------------------

_BINARY_OPS = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "truediv",
    "pow",
    "maximum",
    "minimum",
    "squared_difference",
]


def _binary_big(tf, name, seed):
    """[2,3,5] with [3,1], float64, non-uniform grad_ys."""
    rs = _rs(seed)
    a = tf.constant(rs.uniform(0.5, 2.0, size=(2, 3, 5)))
    b = tf.constant(rs.uniform(0.5, 2.0, size=(3, 1)))
    g = tf.constant(rs.uniform(-1.0, 1.0, size=(2, 3, 5)))
    y = getattr(tf, name)(a, b)
    return {"fetches": [y, tf.gradients(y, [a, b], grad_ys=g)], "feeds": {}}


def _binary_scalar_tensor(tf, name, seed):
    """float32 scalar placeholder with [4] tensor (scalar first)."""
    rs = _rs(seed)
    s = tf.placeholder(tf.float32, shape=[])
    t = tf.constant(rs.uniform(0.5, 2.0, size=(4,)).astype(np.float32))
    y = getattr(tf, name)(s, t)
    return {"fetches": [y, tf.gradients(y, [s, t])], "feeds": {s: 1.25}}


def _binary_tensor_scalar(tf, name, seed):
    """float64 [2,2] variable with scalar variable (scalar second)."""
    rs = _rs(seed)
    t = tf.Variable(rs.uniform(0.5, 2.0, size=(2, 2)), name="t")
    s = tf.Variable(np.float64(0.8), name="s")
    y = getattr(tf, name)(t, s)
    return {"fetches": [y, tf.gradients(y, [t, s])], "feeds": {}}


def _binary_outer(tf, name, seed):
    """[3,1] with [1,4], float64 placeholders."""
    rs = _rs(seed)
    a = tf.placeholder(tf.float64, shape=[3, 1])
    b = tf.placeholder(tf.float64, shape=[1, 4])
    y = getattr(tf, name)(a, b)
    return {
        "fetches": [y, tf.gradients(y, [a, b])],
        "feeds": {a: rs.uniform(0.5, 2.0, size=(3, 1)), b: rs.uniform(0.5, 2.0, size=(1, 4))},
    }


@_program
def binary_add_2x3x5_3x1(tf):
    return _binary_big(tf, "add", 101)


@_program
def binary_subtract_2x3x5_3x1(tf):
    return _binary_big(tf, "subtract", 102)


@_program
def binary_multiply_2x3x5_3x1(tf):
    return _binary_big(tf, "multiply", 103)


@_program
def binary_divide_2x3x5_3x1(tf):
    return _binary_big(tf, "divide", 104)


@_program
def binary_truediv_2x3x5_3x1(tf):
    return _binary_big(tf, "truediv", 105)


@_program
def binary_pow_2x3x5_3x1(tf):
    return _binary_big(tf, "pow", 106)


@_program
def binary_maximum_2x3x5_3x1(tf):
    return _binary_big(tf, "maximum", 107)


@_program
def binary_minimum_2x3x5_3x1(tf):
    return _binary_big(tf, "minimum", 108)


@_program
def binary_squared_difference_2x3x5_3x1(tf):
    return _binary_big(tf, "squared_difference", 109)


@_program
def binary_add_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "add", 201)


@_program
def binary_subtract_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "subtract", 202)


@_program
def binary_multiply_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "multiply", 203)


@_program
def binary_divide_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "divide", 204)


@_program
def binary_pow_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "pow", 205)


@_program
def binary_maximum_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "maximum", 206)


@_program
def binary_squared_difference_scalar_tensor_f32(tf):
    return _binary_scalar_tensor(tf, "squared_difference", 207)


@_program
def binary_subtract_tensor_scalar_var(tf):
    return _binary_tensor_scalar(tf, "subtract", 301)


@_program
def binary_truediv_tensor_scalar_var(tf):
    return _binary_tensor_scalar(tf, "truediv", 302)


@_program
def binary_pow_tensor_scalar_var(tf):
    return _binary_tensor_scalar(tf, "pow", 303)


@_program
def binary_minimum_tensor_scalar_var(tf):
    return _binary_tensor_scalar(tf, "minimum", 304)


@_program
def binary_add_3x1_1x4(tf):
    return _binary_outer(tf, "add", 401)


@_program
def binary_subtract_3x1_1x4(tf):
    return _binary_outer(tf, "subtract", 402)


@_program
def binary_multiply_3x1_1x4(tf):
    return _binary_outer(tf, "multiply", 403)


@_program
def binary_divide_3x1_1x4(tf):
    return _binary_outer(tf, "divide", 404)


@_program
def binary_truediv_3x1_1x4(tf):
    return _binary_outer(tf, "truediv", 405)


@_program
def binary_pow_3x1_1x4(tf):
    return _binary_outer(tf, "pow", 406)


@_program
def binary_maximum_3x1_1x4(tf):
    return _binary_outer(tf, "maximum", 407)


@_program
def binary_minimum_3x1_1x4(tf):
    return _binary_outer(tf, "minimum", 408)


@_program
def binary_squared_difference_3x1_1x4(tf):
    return _binary_outer(tf, "squared_difference", 409)


# ---------------------------------------------------------------------------
# Python operators with Python numbers and numpy arrays on either side
# ---------------------------------------------------------------------------


@_program
def operators_python_numbers_f64(tf):
    x = tf.placeholder(tf.float64, shape=[3])
    ys = [
        x + 1.5,
        1.5 + x,
        x - 2.0,
        2.0 - x,
        3.0 * x,
        x * 3,
        x / 4.0,
        4.0 / x,
        x**2,
        2.0**x,
        x**0.5,
        -x,
    ]
    return {
        "fetches": [ys, tf.gradients(ys, x), [tf.gradients(y, x)[0] for y in ys]],
        "feeds": {x: np.array([0.5, 1.0, 2.5])},
    }


@_program
def operators_numpy_arrays_f32(tf):
    x = tf.placeholder(tf.float32, shape=[3])
    c = np.array([1.5, 2.0, 0.5], dtype=np.float32)
    ys = [x + c, c + x, x - c, c - x, c * x, x * c, x / c, c / x, x**c, c**x]
    return {
        "fetches": [ys, [tf.gradients(y, x)[0] for y in ys]],
        "feeds": {x: np.array([0.5, 1.0, 2.5], np.float32)},
    }


@_program
def operators_int_python_constant(tf):
    x = tf.constant(2.0)
    y = 2 * x + x * 3 - 1 - (1 - x) + x / 2 + 2 / x
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


# ---------------------------------------------------------------------------
# Dtypes: float32/float64 graphs; Python constants default to float32
# ---------------------------------------------------------------------------


@_program
def dtype_python_float_constant_is_float32(tf):
    a = tf.constant(2.0)
    b = a * 3.0 + tf.sin(a)
    return {"fetches": [a, b, tf.gradients(b, a)], "feeds": {}}


@_program
def dtype_python_int_constant_is_int32(tf):
    a = tf.constant(7)
    b = a * 3 - 2
    return {"fetches": [a, b], "feeds": {}}


@_program
def dtype_variable_python_float_is_float32(tf):
    v = tf.Variable(1.5)
    y = v * v
    return {"fetches": [v, y, tf.gradients(y, v)], "feeds": {}}


@_program
def dtype_variable_numpy_float64(tf):
    v = tf.Variable(np.array([1.0, 2.0]), name="v64")
    y = tf.reduce_sum(tf.exp(v))
    return {"fetches": [v, y, tf.gradients(y, v)], "feeds": {}}


@_program
def dtype_variable_explicit_dtype(tf):
    v = tf.Variable(2, name="v", dtype=tf.float64)
    u = tf.Variable(0.5, name="u", dtype=tf.float32, trainable=False)
    y = v * v * 3.0
    z = u * 4.0
    return {"fetches": [y, z, tf.gradients(y, v), tf.gradients(z, u)], "feeds": {}}


@_program
def dtype_float64_placeholder_python_constant(tf):
    x = tf.placeholder(tf.float64)
    y = x * 0.1 + 1.0 / 3.0
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: 2.0}}


@_program
def dtype_constant_with_shape(tf):
    x = tf.constant(1.5, shape=[2, 3])
    y = tf.reduce_sum(x * x)
    return {"fetches": [x, y, tf.gradients(y, x)], "feeds": {}}


@_program
def dtype_constant_explicit_float64(tf):
    x = tf.constant([1, 2, 3], dtype=tf.float64)
    y = tf.reduce_mean(tf.log(x))
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def dtype_int_truediv_forward(tf):
    a = tf.constant(np.array([7, -7, 3], dtype=np.int32))
    b = tf.constant(np.array([2, 2, 4], dtype=np.int32))
    return {"fetches": [tf.divide(a, b), tf.truediv(a, b), a / b, a + b, a * b, a - b], "feeds": {}}


@_program
def dtype_cast_bool_and_ints(tf):
    x = tf.constant(np.array([-1.7, 0.0, 2.3]))
    return {
        "fetches": [
            tf.cast(x, tf.int32),
            tf.cast(x, tf.int64),
            tf.cast(x, tf.bool),
            tf.cast(x, tf.float32),
            tf.cast(tf.cast(x, tf.bool), tf.float64),
        ],
        "feeds": {},
    }


@_program
def dtype_int_placeholder_feed(tf):
    n = tf.placeholder(tf.int32, shape=[None])
    x = tf.placeholder(tf.float32, shape=[None])
    y = x * tf.cast(n, tf.float32)
    return {"fetches": [y, tf.gradients(y, [x, n])], "feeds": {n: [1, 2, 3], x: [0.5, 0.25, 2.0]}}


# ---------------------------------------------------------------------------
# Second derivatives and gradients used in further ops
# ---------------------------------------------------------------------------


def _second(tf, fn, values, dtype=None):
    if dtype is None:
        dtype = tf.float64
    x = tf.constant(np.asarray(values), dtype=dtype)
    y = fn(x)
    g = tf.gradients(y, x)[0]
    return {"fetches": [y, g, tf.gradients(g, x)], "feeds": {}}


@_program
def second_sin(tf):
    return _second(tf, tf.sin, _X3)


@_program
def second_exp_f32(tf):
    return _second(tf, tf.exp, _X3, tf.float32)


@_program
def second_tanh(tf):
    return _second(tf, tf.tanh, _X3)


@_program
def second_sigmoid(tf):
    return _second(tf, tf.sigmoid, [-1.0, 0.0, 2.0])


@_program
def second_log(tf):
    return _second(tf, tf.log, _XPOS)


@_program
def second_sqrt(tf):
    return _second(tf, tf.sqrt, _XPOS)


@_program
def second_rsqrt(tf):
    return _second(tf, tf.rsqrt, _XPOS)


@_program
def second_reciprocal(tf):
    return _second(tf, tf.reciprocal, [-2.0, 0.5, 4.0])


@_program
def second_softplus(tf):
    return _second(tf, tf.nn.softplus, [-2.0, 0.0, 3.0])


@_program
def second_cube_pow(tf):
    return _second(tf, lambda x: tf.pow(x, 3.0), _X3)


@_program
def second_square(tf):
    return _second(tf, tf.square, _X3)


@_program
def second_relu(tf):
    return _second(tf, tf.nn.relu, _X3)


@_program
def second_abs(tf):
    return _second(tf, tf.abs, _X3)


@_program
def second_linear_is_none(tf):
    return _second(tf, lambda x: x * 3.0, _X3)


@_program
def second_mixed_partial(tf):
    x = tf.constant(1.5, dtype=tf.float64)
    z = tf.constant(-0.5, dtype=tf.float64)
    y = tf.sin(x * z) + x * x * z
    gx = tf.gradients(y, x)[0]
    return {"fetches": [gx, tf.gradients(gx, [x, z])], "feeds": {}}


@_program
def second_derivative_broadcast(tf):
    a = tf.constant(np.array([[0.5], [1.0], [2.0]]))
    b = tf.constant(np.array([[1.0, 2.0, 3.0, 0.5]]))
    y = tf.reduce_sum(a * a * b)
    ga = tf.gradients(y, a)[0]
    return {"fetches": [ga, tf.gradients(ga, [a, b])], "feeds": {}}


@_program
def gradient_used_in_further_ops(tf):
    x = tf.placeholder(tf.float64, shape=[3])
    y = tf.sin(x) * x
    g = tf.gradients(y, x)[0]
    z = tf.reduce_sum(g * g + x)
    return {"fetches": [g, z, tf.gradients(z, x)], "feeds": {x: np.array([0.3, -1.2, 2.0])}}


@_program
def gradient_as_loss_penalty_f32(tf):
    w = tf.Variable(np.array([0.5, -1.0], dtype=np.float32), name="w")
    x = tf.constant(np.array([1.0, 2.0], dtype=np.float32))
    loss = tf.reduce_sum(tf.square(w * x - 1.0))
    gw = tf.gradients(loss, w)[0]
    total = loss + 0.1 * tf.reduce_sum(tf.square(gw))
    return {"fetches": [loss, gw, total, tf.gradients(total, [w, x])], "feeds": {}}


@_program
def third_derivative_sin(tf):
    x = tf.constant(0.7, dtype=tf.float64)
    y = tf.sin(x)
    g1 = tf.gradients(y, x)[0]
    g2 = tf.gradients(g1, x)[0]
    g3 = tf.gradients(g2, x)[0]
    return {"fetches": [g1, g2, g3], "feeds": {}}


# ---------------------------------------------------------------------------
# Composite graphs
# ---------------------------------------------------------------------------


@_program
def composite_logistic_loss(tf):
    x = tf.placeholder(tf.float64, shape=[None])
    t = tf.placeholder(tf.float64, shape=[None])
    w = tf.Variable(0.3, dtype=tf.float64, name="w")
    b = tf.Variable(-0.2, dtype=tf.float64, name="b")
    p = tf.sigmoid(x * w + b)
    loss = -tf.reduce_mean(t * tf.log(p) + (1.0 - t) * tf.log(1.0 - p))
    return {
        "fetches": [loss, tf.gradients(loss, [w, b])],
        "feeds": {x: np.linspace(-2.0, 2.0, 8), t: np.array([0, 0, 1, 0, 1, 1, 0, 1], np.float64)},
    }


@_program
def composite_mixed_ops_f32(tf):
    rs = _rs(7)
    x = tf.constant(rs.uniform(0.2, 1.5, size=(2, 3)).astype(np.float32))
    u = tf.constant(rs.uniform(0.2, 1.5, size=(3,)).astype(np.float32))
    h = tf.nn.softplus(x - u) * tf.cos(x) + tf.squared_difference(x, u)
    y = tf.reduce_mean(tf.sqrt(h + 1.0) / (1.0 + tf.exp(-u)))
    return {"fetches": [y, tf.gradients(y, [x, u])], "feeds": {}}


@_program
def composite_identity_and_stop(tf):
    x = tf.constant(np.array([1.0, 2.0]))
    i = tf.identity(x)
    s = tf.stop_gradient(i * 2.0)
    y = i * s + tf.identity(i * i)
    return {"fetches": [y, tf.gradients(y, [x, i, s])], "feeds": {}}
