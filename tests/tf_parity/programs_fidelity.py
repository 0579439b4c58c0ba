"""Regression corpus for TF1 fidelity (issue 13's listed defects and issue 14's item 3).

Same conventions as ``programs.py``: every program is a plain function
``fn(tf)`` taking the graph-API module (``tensorflow.compat.v1`` when
recording, ``symgrad`` when testing), building a graph in the current default
graph and returning ``{"fetches": [...], "feeds": {...}}``. One addition:
an optional ``"before"`` list of ops (optimizer steps) that the recorder and
the test run, in order, in the same session before evaluating the fetches, so
that a program can fetch a variable after some training steps.

Each program's comment names the issue item it pins down and, where it comes
from one, the TensorFlow test it follows. Every fetched value is compared with
TensorFlow's including its dtype.

``PROGRAMS`` lists all programs in definition order; the fixture file
``tf_fixtures_fidelity.json`` is keyed by function ``__name__``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-2.0, high=2.0, dtype=np.float64):
    """Deterministic uniform random array."""
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _wsum(tf, y, shape, seed, dtype=np.float64):
    """Scalar ``reduce_sum(y * W)`` with a fixed random weight ``W`` of ``shape``."""
    return tf.reduce_sum(y * tf.constant(_arr(seed, shape, -1.0, 1.0, dtype)))


# ---------------------------------------------------------------------------
# Item 1: a float32 and a float64 computation of equal expressions in one run
# ---------------------------------------------------------------------------


@_program
def mixed_precision_equal_expressions(tf):
    # issue 13 item 1: value numbering must not merge float32 and float64 values.
    a = tf.constant(2.0, tf.float32) / 3.0
    b = tf.constant(2.0, tf.float64) / 3.0
    x32 = tf.placeholder(tf.float32, [3], name="x32")
    x64 = tf.placeholder(tf.float64, [3], name="x64")
    y32, y64 = tf.exp(x32) / 3.0, tf.exp(x64) / 3.0
    xv = np.array([0.1, 1.3, -2.2])
    return {
        "fetches": [a, b, y32, y64, tf.gradients(y32, x32), tf.gradients(y64, x64)],
        "feeds": {x32: xv.astype(np.float32), x64: xv},
    }


# ---------------------------------------------------------------------------
# Item 2 (and issue 14 item 3): the dtype of default grad_ys seeds
# ---------------------------------------------------------------------------


@_program
def matmul_gradient_float32(tf):
    # issue 13 item 2; after math_grad_test's matmul gradient checks.
    a = tf.constant(_arr(1, (2, 3), dtype=np.float32))
    b = tf.constant(_arr(2, (3, 4), dtype=np.float32))
    return {"fetches": [tf.gradients(tf.matmul(a, b), [a, b])], "feeds": {}}


@_program
def unshaped_placeholder_gradient_float32(tf):
    # issue 14 item 3: TF1's default placeholder(tf.float32) without a shape.
    x = tf.placeholder(tf.float32, name="x")
    y = tf.reduce_sum(x * x + 2.0 * x)
    return {
        "fetches": [y, tf.gradients(y, x)],
        "feeds": {x: np.array([1.0, -0.5, 3.25], np.float32)},
    }


@_program
def broadcast_gradient_float32(tf):
    # issue 14 item 3: _sum_to_shape of a float32 broadcast seeded with ones.
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    b = tf.constant(np.array([0.5, -1.0, 2.0], np.float32))
    y = x * b + b
    return {
        "fetches": [tf.gradients(y, [x, b])],
        "feeds": {x: _arr(3, (2, 3), dtype=np.float32)},
    }


# ---------------------------------------------------------------------------
# Items 3 and 10: optimizer hyperparameters as TF1 rounds them; slot names
# ---------------------------------------------------------------------------


def _optimizer_program(tf, make, steps, dtype=np.float64, slots=()):
    v = tf.Variable(np.array([1.0, 2.0], dtype), name="v")
    opt = make(tf)
    step = opt.apply_gradients([(tf.constant(np.array([0.1, 0.1], dtype)), v)])
    return {
        "fetches": [v] + [opt.get_slot(v, name) for name in slots],
        "feeds": {},
        "before": [step] * steps,
    }


@_program
def momentum_float64_two_steps(tf):
    # issue 13 items 3 and 10: momentum 0.9 on float64 is float32(0.9); slot "momentum".
    return _optimizer_program(
        tf, lambda tf: tf.train.MomentumOptimizer(2.0, 0.9), 2, slots=["momentum"]
    )


@_program
def nesterov_float64_four_steps(tf):
    # issue 13 item 3 (Nesterov), after momentum_test.py's testNesterovMomentum.
    return _optimizer_program(
        tf,
        lambda tf: tf.train.MomentumOptimizer(2.0, 0.9, use_nesterov=True),
        4,
        slots=["momentum"],
    )


@_program
def momentum_float32_three_steps(tf):
    # issue 13 item 3, float32 variable, after momentum_test.py's testBasic.
    return _optimizer_program(
        tf, lambda tf: tf.train.MomentumOptimizer(2.0, 0.9), 3, np.float32, ["momentum"]
    )


@_program
def adam_float64_three_steps(tf):
    # issue 13 items 3 and 10: beta1/beta2/epsilon through float32; slots "m" and "v".
    return _optimizer_program(
        tf, lambda tf: tf.train.AdamOptimizer(0.5, 0.9, 0.999, 1e-3), 3, slots=["m", "v"]
    )


@_program
def gradient_descent_float64_two_steps(tf):
    # issue 13 item 3: learning rate 0.1 is float32(0.1) on a float64 variable.
    return _optimizer_program(tf, lambda tf: tf.train.GradientDescentOptimizer(0.1), 2)


# ---------------------------------------------------------------------------
# Item 4: zero-size constants keep their dimensions
# ---------------------------------------------------------------------------


@_program
def zero_size_constant_concat(tf):
    # issue 13 item 4, after concat_op_test.py's testZeroSize.
    empty = tf.constant(np.zeros((2, 0, 5), np.float32))
    full = tf.placeholder(tf.float32, [2, 3, 5], name="full")
    c = tf.concat([empty, full, empty], 1)
    return {
        "fetches": [empty, c, tf.gradients(tf.reduce_sum(c * c), full)],
        "feeds": {full: _arr(4, (2, 3, 5), dtype=np.float32)},
    }


# ---------------------------------------------------------------------------
# Item 5: tf.cast(x, "float") is float32, "double" float64
# ---------------------------------------------------------------------------


@_program
def cast_to_float_name_accuracy(tf):
    # issue 13 item 5: the everyday accuracy line.
    logits = tf.placeholder(tf.float32, [None, 3], name="logits")
    labels = tf.placeholder(tf.float32, [None, 3], name="labels")
    correct = tf.equal(tf.round(logits), labels)
    accuracy = tf.reduce_mean(tf.cast(correct, "float"))
    as_double = tf.cast(logits, "double")
    return {
        "fetches": [accuracy, as_double],
        "feeds": {
            logits: _arr(5, (4, 3), dtype=np.float32),
            labels: np.array([[0, 1, 1], [0, 0, 0], [-1, 1, 0], [2, 1, 1]], np.float32),
        },
    }


# ---------------------------------------------------------------------------
# Item 6: NaN semantics that symbolic simplification must keep
# ---------------------------------------------------------------------------


@_program
def pow_zero_exponent_gradient(tf):
    # issue 13 item 6: d/dx pow(x, 0.) is 0 * x**-1, NaN at x = 0 (math_grad.py _PowGrad).
    x = tf.placeholder(tf.float32, [4], name="x")
    y = tf.pow(x, 0.0)
    return {
        "fetches": [y, tf.gradients(y, x)],
        "feeds": {x: np.array([0.0, 1.5, -2.0, 3.0], np.float32)},
    }


@_program
def sqrt_of_square_of_centred_scalar(tf):
    # issue 13 item 6: d/dx sqrt(square(x - reduce_mean(x))) for a scalar x is NaN in TF.
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.sqrt(tf.square(x - tf.reduce_mean(x)))
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: np.float32(2.0)}}


@_program
def cancelled_difference_of_inf(tf):
    # issue 13 item 6, other direction: (x - x) * 3 is NaN where x is inf; its gradient 0.
    x = tf.placeholder(tf.float64, [3], name="x")
    y = (x - tf.identity(x)) * 3.0
    return {
        "fetches": [y, tf.gradients(y, x)],
        "feeds": {x: np.array([1.0, np.inf, -2.0])},
    }


@_program
def sqrt_at_zero_gradient(tf):
    # issue 13 item 6: sqrt'(0) is inf, simplification must not hide it.
    x = tf.placeholder(tf.float64, [3], name="x")
    y = tf.sqrt(x) * 2.0
    return {
        "fetches": [y, tf.gradients(y, x)],
        "feeds": {x: np.array([0.0, 1.0, 4.0])},
    }


# ---------------------------------------------------------------------------
# Item 7: a zero upstream gradient through sqrt/rsqrt/reciprocal (and others)
# ---------------------------------------------------------------------------


def _safe(tf, fn, values, dtype=np.float64):
    a = tf.placeholder(tf.as_dtype(dtype), [len(values)], name="a")
    y = tf.where(a > 0, fn(a), tf.zeros_like(a))
    return {
        "fetches": [y, tf.gradients(y, a)],
        "feeds": {a: np.array(values, dtype)},
    }


@_program
def safe_sqrt_via_where(tf):
    # issue 13 item 7: TF's SqrtGrad gives 0 where the incoming gradient is 0.
    return _safe(tf, tf.sqrt, [0.0, 4.0])


@_program
def safe_sqrt_via_where_float32(tf):
    # issue 13 item 7, float32.
    return _safe(tf, tf.sqrt, [0.0, 4.0, -1.0], np.float32)


@_program
def safe_rsqrt_via_where(tf):
    # issue 13 item 7: RsqrtGrad has the same rule.
    return _safe(tf, tf.rsqrt, [0.0, 4.0])


@_program
def safe_reciprocal_via_where(tf):
    # issue 13 item 7: ReciprocalGrad has the same rule.
    return _safe(tf, tf.reciprocal, [0.0, 4.0])


@_program
def safe_log_via_where(tf):
    # issue 13 item 7: log's gradient is grad * reciprocal(x), 0 * inf = NaN in TF.
    return _safe(tf, tf.log, [0.0, 4.0])


@_program
def safe_pow_via_where(tf):
    # issue 13 item 7: pow's gradient is grad * y * x**(y - 1), NaN at 0 for y = 0.5.
    return _safe(tf, lambda a: tf.pow(a, 0.5), [0.0, 4.0])


@_program
def safe_div_via_where(tf):
    # issue 13 item 7: RealDiv's gradient is grad / y, 0 / 0 = NaN in TF.
    return _safe(tf, lambda a: 1.0 / a, [0.0, 4.0])


@_program
def sqrt_gradient_with_constant_cotangents(tf):
    # issue 13 item 7: the rule folds away where the incoming gradient is a constant;
    # comparisons of constants stay comparisons.
    a = tf.constant(np.array([0.0, 4.0]))
    same = tf.equal(tf.constant(1.0), 1.0)
    return {
        "fetches": [
            tf.gradients(tf.sqrt(a), a),
            tf.gradients(tf.sqrt(a), a, grad_ys=tf.constant(np.array([0.0, 2.0]))),
            same,
            tf.where(same, 2.0, 3.0),
        ],
        "feeds": {},
    }


@_program
def safe_norm_via_where(tf):
    # issue 13 item 7: the "safe norm" idiom.
    x = tf.placeholder(tf.float64, [2, 3], name="x")
    sq = tf.reduce_sum(tf.square(x), axis=1)
    norm = tf.where(sq > 0, tf.sqrt(sq), tf.zeros_like(sq))
    return {
        "fetches": [norm, tf.gradients(tf.reduce_sum(norm), x)],
        "feeds": {x: np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])},
    }


# ---------------------------------------------------------------------------
# Item 8: second derivatives through masks (connectivity as in TF)
# ---------------------------------------------------------------------------


def _second(tf, fn, values):
    x = tf.placeholder(tf.float64, [len(values)], name="x")
    g = tf.gradients(fn(x), x)[0]
    return {"fetches": [g, tf.gradients(g, x)], "feeds": {x: np.array(values)}}


@_program
def maximum_second_derivative(tf):
    # issue 13 item 8: TF's gradient of maximum depends on x only through a mask: None.
    return _second(tf, lambda x: tf.maximum(x, 0.5), [0.2, 0.7])


@_program
def minimum_second_derivative(tf):
    # issue 13 item 8: as maximum.
    return _second(tf, lambda x: tf.minimum(x, 0.5), [0.2, 0.7])


@_program
def maximum_of_two_second_derivative(tf):
    # issue 13 item 8: maximum(x, x*x) keeps a path through x*x.
    return _second(tf, lambda x: tf.maximum(x, x * x), [0.2, 1.7])


@_program
def relu_second_derivative(tf):
    # issue 13 item 8: ReluGrad's gradient with respect to the features is zeros, not None.
    return _second(tf, tf.nn.relu, [-0.2, 0.7])


@_program
def abs_second_derivative(tf):
    # issue 13 item 8: abs' is sign, whose gradient is zeros.
    return _second(tf, tf.abs, [-0.2, 0.7])


@_program
def relu_times_x_second_derivative(tf):
    # issue 13 item 8: x * relu(x) has a path through x.
    return _second(tf, lambda x: x * tf.nn.relu(x), [-0.2, 0.7])


@_program
def reduce_max_second_derivative(tf):
    # issue 13 item 8: _MaxGrad's mask of the argmax (math_grad.py) is a comparison.
    return _second(tf, lambda x: tf.reduce_max(x) * x, [0.2, 0.7, -1.0])


@_program
def where_square_second_derivative(tf):
    # issue 13 item 8: where's condition carries no gradient; its branches do.
    return _second(tf, lambda x: tf.where(x > 0, x * x, -x), [-0.2, 0.7])


@_program
def smooth_second_derivatives(tf):
    # issue 13 item 8: sigmoid, softplus, tanh and square connect to second order.
    x = tf.placeholder(tf.float64, [2], name="x")
    fetches = []
    for fn in (tf.sigmoid, tf.nn.softplus, tf.tanh, tf.square, tf.sqrt):
        g = tf.gradients(fn(x), x)[0]
        fetches += [g, tf.gradients(g, x)]
    return {"fetches": fetches, "feeds": {x: np.array([0.3, 1.7])}}


# ---------------------------------------------------------------------------
# Item 9: float32 pow gradient accuracy
# ---------------------------------------------------------------------------


@_program
def pow_gradient_float32_accuracy(tf):
    # issue 13 item 9, after cwise_ops_test.py's pow gradient checks.
    x = tf.placeholder(tf.float32, [3, 5], name="x")
    y = tf.placeholder(tf.float32, [3, 5], name="y")
    z = tf.pow(x, y)
    ct = _arr(7, (3, 5), 0.5, 2.0, np.float32)
    loss = tf.reduce_sum(1.1 * z * tf.constant(ct))
    return {
        "fetches": [z, tf.gradients(loss, [x, y])],
        "feeds": {
            x: _arr(8, (3, 5), 0.5, 3.0, np.float32),
            y: _arr(9, (3, 5), -3.0, 6.0, np.float32),
        },
    }


# ---------------------------------------------------------------------------
# Errors where TF1 works
# ---------------------------------------------------------------------------


@_program
def gradients_of_empty_xs(tf):
    # issue 13 errors: tf.gradients(y, []) is [] (gradients_test.py).
    x = tf.constant(2.0)
    y = x * 3.0
    return {"fetches": [y, tf.gradients(y, [])], "feeds": {}}


@_program
def gradients_with_empty_stop_gradients(tf):
    # issue 13 errors: stop_gradients=[] stops nothing.
    x = tf.constant(2.0)
    return {"fetches": [tf.gradients(x * 3.0, [x], stop_gradients=[])], "feeds": {}}


@_program
def gather_batch_dims_1(tf):
    # issue 13 errors: gather with batch_dims=1 (array_ops_test.py / gather_op_test.py).
    params = tf.placeholder(tf.float64, [3, 4], name="params")
    out = tf.gather(params, tf.constant([[0, 1], [2, 3], [1, 1]]), batch_dims=1)
    return {
        "fetches": [out, tf.gradients(_wsum(tf, out, (3, 2), 10), params)],
        "feeds": {params: _arr(11, (3, 4))},
    }


@_program
def gather_batch_dims_2(tf):
    # issue 13 errors: gather with batch_dims=2 and axis=2.
    params = tf.placeholder(tf.float64, [2, 3, 4], name="params")
    idx = tf.constant(np.array([[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 1], [2, 2]]], np.int32))
    out = tf.gather(params, idx, batch_dims=2)
    return {
        "fetches": [out, tf.gradients(_wsum(tf, out, (2, 3, 2), 12), params)],
        "feeds": {params: _arr(13, (2, 3, 4))},
    }


@_program
def broadcast_to_tensor_shape(tf):
    # issue 13 errors: a constant shape tensor where TF1 takes a shape.
    x = tf.placeholder(tf.float64, [3], name="x")
    y = tf.broadcast_to(x, tf.constant([2, 3]))
    return {
        "fetches": [y, tf.gradients(_wsum(tf, y, (2, 3), 14), x)],
        "feeds": {x: np.array([1.0, 2.0, 3.0])},
    }


@_program
def reshape_to_own_shape(tf):
    # issue 13 errors: reshape(t, tf.shape(t)).
    t = tf.placeholder(tf.float64, [2, 3], name="t")
    y = tf.reshape(t * 2.0, tf.shape(t))
    return {
        "fetches": [y, tf.gradients(_wsum(tf, y, (2, 3), 15), t)],
        "feeds": {t: _arr(16, (2, 3))},
    }


@_program
def index_with_int64_tensor(tf):
    # issue 13 errors: a[tf.constant(1, tf.int64)].
    a = tf.placeholder(tf.float64, [3, 2], name="a")
    y = a[tf.constant(1, tf.int64)]
    return {
        "fetches": [y, tf.gradients(_wsum(tf, y, (2,), 17), a)],
        "feeds": {a: _arr(18, (3, 2))},
    }


@_program
def boolean_mask_indexing(tf):
    # issue 13 errors: x[mask] with a boolean tensor (TF's boolean_mask).
    x = tf.placeholder(tf.float64, [4, 2], name="x")
    mask = tf.constant([True, False, True, True])
    y = x[mask]
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)],
        "feeds": {x: _arr(19, (4, 2))},
    }


@_program
def concat_unknown_rank(tf):
    # issue 13 errors: concat of unknown-rank placeholders.
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.concat([a, b], 0)
    return {
        "fetches": [c, tf.gradients(tf.reduce_sum(c * c), [a, b])],
        "feeds": {
            a: _arr(20, (2, 3), dtype=np.float32),
            b: _arr(21, (1, 3), dtype=np.float32),
        },
    }


@_program
def softmax_xent_v2_unshaped(tf):
    # issue 13 errors: xent_op_test.py's label-broadcast test, unshaped placeholders.
    labels = tf.placeholder(tf.float32, name="labels")
    logits = tf.placeholder(tf.float32, name="logits")
    loss = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return {
        "fetches": [loss, tf.gradients(tf.reduce_sum(loss), [labels, logits])],
        "feeds": {
            labels: np.array([[0.0, 1.0, 0.0], [0.25, 0.25, 0.5]], np.float32),
            logits: _arr(22, (2, 3), dtype=np.float32),
        },
    }


@_program
def variable_initialized_from_ones_like(tf):
    # issue 13 errors: variables_test.py's initializer from ones_like of a slice.
    other = tf.Variable(_arr(23, (8, 4, 4), dtype=np.float32), name="other")
    v = tf.Variable(tf.ones_like(other[2:6:2, 1:3, 1:3]), name="v")
    w = tf.Variable(tf.zeros_like(other[0]) + 2.0, name="w")
    return {"fetches": [v, w], "feeds": {}}


@_program
def einsum_ellipsis(tf):
    # issue 13 errors: einsum with '...' (einsum_op_test.py).
    a = tf.placeholder(tf.float64, [2, 2, 3], name="a")
    b = tf.placeholder(tf.float64, [3, 2], name="b")
    y = tf.einsum("...ij,jk->...ik", a, b)
    return {
        "fetches": [y, tf.gradients(_wsum(tf, y, (2, 2, 2), 24), [a, b])],
        "feeds": {a: _arr(25, (2, 2, 3)), b: _arr(26, (3, 2))},
    }


@_program
def einsum_ellipsis_broadcast(tf):
    # issue 13 errors: '...' broadcast between operands.
    a = tf.placeholder(tf.float64, [2, 1, 3], name="a")
    b = tf.placeholder(tf.float64, [4, 3], name="b")
    y = tf.einsum("...j,...j->...", a, b)
    return {
        "fetches": [y, tf.gradients(_wsum(tf, y, (2, 4), 27), [a, b])],
        "feeds": {a: _arr(28, (2, 1, 3)), b: _arr(29, (4, 3))},
    }


@_program
def einsum_repeated_index(tf):
    # issue 13 errors: an index repeated inside one operand (einsum_op_test.py).
    a = tf.placeholder(tf.float64, [2, 3, 4], name="a")
    b = tf.placeholder(tf.float64, [5, 3, 2], name="b")
    c = tf.placeholder(tf.float64, [5, 5, 2], name="c")
    y = tf.einsum("ijk,lji,lli->lki", a, b, c)
    return {
        "fetches": [y, tf.gradients(_wsum(tf, y, (5, 4, 2), 30), [a, b, c])],
        "feeds": {a: _arr(31, (2, 3, 4)), b: _arr(32, (5, 3, 2)), c: _arr(33, (5, 5, 2))},
    }


@_program
def einsum_diagonal_and_trace(tf):
    # issue 13 errors: 'ii->i' (diagonal) and 'ii->' (trace).
    x = tf.placeholder(tf.float64, [3, 3], name="x")
    d = tf.einsum("ii->i", x)
    t = tf.einsum("ii->", x)
    return {
        "fetches": [d, t, tf.gradients(_wsum(tf, d, (3,), 34) + 2.0 * t, x)],
        "feeds": {x: _arr(35, (3, 3))},
    }


@_program
def trace_function(tf):
    # issue 13 errors: tf.trace is the matrix trace (linalg_ops_test.py), batched too.
    x = tf.placeholder(tf.float64, [2, 3, 3], name="x")
    t = tf.trace(x)
    return {
        "fetches": [t, tf.gradients(_wsum(tf, t, (2,), 36), x)],
        "feeds": {x: _arr(37, (2, 3, 3))},
    }
