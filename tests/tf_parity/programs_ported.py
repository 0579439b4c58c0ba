"""Corpus of TF1 graph programs ported from other projects' gradient tests.

Every case here comes from a test that nobody on this project wrote: TensorFlow's
``tensorflow/python/ops/{gradients,math_grad,nn_grad,array_grad}_test.py`` and
kernel tests (``tensorflow/python/kernel_tests/...``), HIPS/autograd's
``tests/test_numpy.py`` and ``tests/test_systematic.py``, and google/tangent's
``tests/functions.py``.  Only the *case* is ported (the inputs, the op, what is
differentiated); the program is written anew as a TF1 graph in this project's
corpus format, and TensorFlow 2.21 ``compat.v1`` records the expected values
(``record_tf.py programs_ported``), so the oracle is TensorFlow, not the peer
test's own assertion.

Same conventions as ``programs.py``: every program is a function ``fn(tf)``
of the graph-API module (``tensorflow.compat.v1`` when recording, ``symgrad``
when testing) returning ``{"fetches": [...], "feeds": {...}}``.  Each program
is registered with :func:`_ported`, whose argument names the source test
(``PROGRAMS[i].source``); where one peer test becomes several programs (one
per dtype, shape or axis), each says so in its name.

Where the peer test checks a gradient numerically, the program fetches the
value, the gradient of ``reduce_sum(y * W)`` for a fixed random ``W`` (so
every output element gets its own weight), and, where the peer test does,
second derivatives.  Inputs use the peer test's shapes and value ranges,
with placeholders of the shapes users write (``[None]``, no shape) next to
static constants, and values at the special points (0, ties, large logits).
"""

import numpy as np

PROGRAMS = []

_TF_OPS = "tensorflow/python/ops/"
_TF_KT = "tensorflow/python/kernel_tests/"
_AG_SYS = "HIPS/autograd tests/test_systematic.py "
_AG_NP = "HIPS/autograd tests/test_numpy.py "
_TANGENT = "google/tangent tests/functions.py "


def _ported(source, name=None):
    """Register a program ported from ``source`` (file and test name), under ``name``."""

    def register(fn):
        if name is not None:
            fn.__name__ = fn.__qualname__ = name
        if any(p.__name__ == fn.__name__ for p in PROGRAMS):
            raise ValueError(f"duplicate program name: {fn.__name__}")
        fn.source = source
        PROGRAMS.append(fn)
        return fn

    return register


def _arr(seed, shape, low=-2.0, high=2.0, dtype="float64"):
    """Deterministic uniform random array."""
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _randn(seed, shape, dtype="float64"):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def _loss(tf, y, shape, seed, dtype="float64"):
    """``reduce_sum(y * W)`` with a fixed random ``W`` of ``shape``: each output element weighs differently."""
    return tf.reduce_sum(y * tf.constant(_arr(seed, shape, -1.0, 1.0, dtype)))


def _vg(tf, y, shape, xs, seed=7, dtype="float64", feeds=None):
    """Fetch the value ``y``, the weighted loss and its gradients w.r.t. ``xs``."""
    loss = _loss(tf, y, shape, seed, dtype)
    return {"fetches": [y, loss, _dense(tf, tf.gradients(loss, xs))], "feeds": feeds or {}}


def _dense(tf, grads):
    """TF gives ``gather``'s gradient as IndexedSlices: fetch it as a dense tensor."""
    return [None if g is None else tf.convert_to_tensor(g) for g in grads]


# ---------------------------------------------------------------------------
# autograd test_systematic.py: unary ufuncs (unary_ufunc_check), each as a
# float64 constant [2, 3] and as a float32 placeholder [None] fed 5 values.
# ---------------------------------------------------------------------------

_UNARY = [
    # (autograd test, symgrad/TF op, value range the peer test draws from)
    ("test_sin", "sin", (-2.0, 2.0)),
    ("test_cos", "cos", (-2.0, 2.0)),
    ("test_abs", "abs", (0.1, 4.0)),
    ("test_exp", "exp", (-2.0, 2.0)),
    ("test_expm1", "expm1", (-2.0, 2.0)),
    ("test_floor", "floor", (-1.5, 1.5)),
    ("test_log", "log", (0.2, 2.0)),
    ("test_log1p", "log1p", (0.2, 2.0)),
    ("test_sign", "sign", (-2.0, 2.0)),
    ("test_sqrt", "sqrt", (1.0, 3.0)),
    ("test_square", "square", (-2.0, 2.0)),
    ("test_tanh", "tanh", (-2.0, 2.0)),
]


def _unary_const(op, lims, seed):
    def build(tf):
        x = tf.constant(_arr(seed, (2, 3), *lims))
        return _vg(tf, getattr(tf, op)(x), (2, 3), [x], seed + 1)

    return build


def _unary_none_f32(op, lims, seed):
    def build(tf):
        x = tf.placeholder(tf.float32, shape=[None])
        xv = _arr(seed, (5,), *lims, dtype="float32")
        return _vg(tf, getattr(tf, op)(x), (5,), [x], seed + 1, "float32", {x: xv})

    return build


for _i, (_test, _op, _lims) in enumerate(_UNARY):
    _ported(_AG_SYS + _test, name=f"ag_unary_{_op}_f64")(_unary_const(_op, _lims, 100 + _i))
    _ported(_AG_SYS + _test, name=f"ag_unary_{_op}_f32_none")(_unary_none_f32(_op, _lims, 200 + _i))


# ---------------------------------------------------------------------------
# autograd test_systematic.py: binary ufuncs (binary_ufunc_check) over the
# shape pairs it combines, [1]/[3,4], [1,4]/[3,4], [3,4]/[3,4]; gradients to both.
# ---------------------------------------------------------------------------

_BINARY = [
    # (autograd test, op, range of a, range of b)
    ("test_add", "add", (-2.0, 2.0), (-2.0, 2.0)),
    ("test_op_sub", "subtract", (-2.0, 2.0), (-2.0, 2.0)),
    ("test_op_mul", "multiply", (-2.0, 2.0), (-2.0, 2.0)),
    ("test_true_divide", "truediv", (-2.0, 2.0), (0.3, 2.0)),
    ("test_true_divide_neg", "divide", (-2.0, 2.0), (-2.0, -0.3)),
    ("test_op_pow", "pow", (0.7, 2.0), (-2.0, 2.0)),
    ("test_maximum", "maximum", (-2.0, 2.0), (-2.0, 2.0)),
    ("test_minimum", "minimum", (-2.0, 2.0), (-2.0, 2.0)),
]
_BINARY_SHAPES = [("s1_34", (1,), (3, 4)), ("s14_34", (1, 4), (3, 4)), ("s34_34", (3, 4), (3, 4))]


def _binary(op, lims_a, lims_b, shape_a, shape_b, seed):
    def build(tf):
        a = tf.constant(_arr(seed, shape_a, *lims_a))
        b = tf.constant(_arr(seed + 1, shape_b, *lims_b))
        out_shape = np.broadcast_shapes(shape_a, shape_b)
        return _vg(tf, getattr(tf, op)(a, b), out_shape, [a, b], seed + 2)

    return build


for _i, (_test, _op, _la, _lb) in enumerate(_BINARY):
    for _j, (_tag, _sa, _sb) in enumerate(_BINARY_SHAPES):
        _ported(_AG_SYS + _test, name=f"ag_binary_{_op}_{_tag}")(
            _binary(_op, _la, _lb, _sa, _sb, 300 + 10 * _i + 3 * _j)
        )


# ---------------------------------------------------------------------------
# autograd test_systematic.py: array statistics (stat_check) over axis None,
# 0, 1 with keepdims, and -1, of a [3, 4] float64 constant.
# ---------------------------------------------------------------------------

_STATS = [
    ("test_sum", "reduce_sum", np.sum),
    ("test_mean", "reduce_mean", np.mean),
    ("test_max", "reduce_max", np.max),
    ("test_min", "reduce_min", np.min),
    ("test_prod", "reduce_prod", np.prod),
]
_STAT_AXES = [
    ("all", None, False),
    ("axis0", 0, False),
    ("axis1_keep", 1, True),
    ("axisneg1", -1, False),
]


def _stat(op, np_fn, axis, keepdims, seed):
    def build(tf):
        xv = _arr(seed, (3, 4), 0.5, 2.0) * np.where(_arr(seed + 5, (3, 4)) > 0, 1.0, -1.0)
        x = tf.constant(xv)
        y = getattr(tf, op)(x, axis=axis, keepdims=keepdims)
        return _vg(tf, y, np.shape(np_fn(xv, axis=axis, keepdims=keepdims)), [x], seed + 1)

    return build


for _i, (_test, _op, _np_fn) in enumerate(_STATS):
    for _j, (_tag, _axis, _keep) in enumerate(_STAT_AXES):
        _ported(_AG_SYS + _test, name=f"ag_stat_{_op}_{_tag}")(
            _stat(_op, _np_fn, _axis, _keep, 400 + 10 * _i + 2 * _j)
        )


# ---------------------------------------------------------------------------
# autograd test_systematic.py: transpose, dot, tensordot, einsum
# ---------------------------------------------------------------------------

_PERMS = [[0, 1, 2], [0, 2, 1], [2, 0, 1], [2, 1, 0], [1, 0, 2], [1, 2, 0]]


def _transpose(perm, seed):
    def build(tf):
        xv = _randn(seed, (2, 3, 4))
        x = tf.constant(xv)
        return _vg(tf, tf.transpose(x, perm), np.transpose(xv, perm).shape, [x], seed + 1)

    return build


for _i, _perm in enumerate(_PERMS):
    _ported(_AG_SYS + "test_transpose", name="ag_transpose_" + "".join(map(str, _perm)))(
        _transpose(_perm, 500 + _i)
    )


@_ported(_AG_SYS + "test_transpose (axes=None: reversed axes)")
def ag_transpose_default_perm(tf):
    x = tf.constant(_randn(510, (2, 3, 4)))
    return _vg(tf, tf.transpose(x), (4, 3, 2), [x], 511)


def _tensordot(shape_a, shape_b, axes, seed):
    def build(tf):
        av, bv = _randn(seed, shape_a), _randn(seed + 1, shape_b)
        a, b = tf.constant(av), tf.constant(bv)
        out = np.tensordot(av, bv, axes=axes).shape
        return _vg(tf, tf.tensordot(a, b, axes), out, [a, b], seed + 2)

    return build


for _name, _test, _sa, _sb, _axes in [
    ("ag_tensordot_1", "test_tensordot_1", (2, 3, 2), (3, 4, 2), [[1], [0]]),
    ("ag_tensordot_2", "test_tensordot_2", (3, 4, 2), (2, 3, 2), [[0], [1]]),
    ("ag_tensordot_3", "test_tensordot_3", (2, 3, 4), (2, 2, 3, 4), [[0, 1], [1, 2]]),
    ("ag_tensordot_3_swapped", "test_tensordot_3", (2, 3, 4), (2, 2, 3, 4), [[1, 0], [2, 1]]),
    ("ag_tensordot_4_axes1", "test_tensordot_4", (4, 2, 2), (2, 2, 4), 1),
    ("ag_tensordot_4_axes2", "test_tensordot_4", (4, 2, 2), (2, 2, 4), 2),
]:
    _ported(_AG_SYS + _test, name=_name)(_tensordot(_sa, _sb, _axes, 520 + len(PROGRAMS)))


@_ported(_AG_SYS + "test_dot (R(2, 3) . R(3, 4))")
def ag_dot_matrix_matrix(tf):
    a, b = tf.constant(_randn(530, (2, 3))), tf.constant(_randn(531, (3, 4)))
    return _vg(tf, tf.matmul(a, b), (2, 4), [a, b], 532)


@_ported(_AG_SYS + "test_dot (R(2, 3) . R(3))")
def ag_dot_matrix_vector(tf):
    a, b = tf.constant(_randn(533, (2, 3))), tf.constant(_randn(534, (3,)))
    return _vg(tf, tf.linalg.matvec(a, b), (2,), [a, b], 535)


@_ported(_AG_SYS + "test_dot (R(3) . R(3))")
def ag_dot_vector_vector(tf):
    a, b = tf.constant(_randn(536, (3,))), tf.constant(_randn(537, (3,)))
    return _vg(tf, tf.tensordot(a, b, 1), (), [a, b], 538)


@_ported(_AG_SYS + "test_dot (1.5 . R(3, 4))")
def ag_dot_scalar_matrix(tf):
    a, b = tf.constant(1.5, tf.float64), tf.constant(_randn(539, (3, 4)))
    return _vg(tf, tf.tensordot(a, b, 0), (3, 4), [a, b], 540)


@_ported(_AG_SYS + "test_einsum_transpose")
def ag_einsum_transpose(tf):
    x = tf.constant(_randn(541, (3, 4)))
    return _vg(tf, tf.einsum("ij->ji", x), (4, 3), [x], 542)


@_ported(_AG_SYS + "test_einsum_matmult")
def ag_einsum_matmult(tf):
    a, b = tf.constant(_randn(543, (2, 3))), tf.constant(_randn(544, (3, 4)))
    return _vg(tf, tf.einsum("ij,jk->ik", a, b), (2, 4), [a, b], 545)


@_ported(_AG_SYS + "test_einsum_covsum")
def ag_einsum_covsum(tf):
    a, b = tf.constant(_randn(546, (3, 4, 4))), tf.constant(_randn(547, (4, 4, 3)))
    return _vg(tf, tf.einsum("ijk,lji->lki", a, b), (4, 4, 3), [a, b], 548)


@_ported(_AG_SYS + "test_einsum_three_args")
def ag_einsum_three_args(tf):
    a = tf.constant(_randn(549, (3, 4, 4)))
    b = tf.constant(_randn(550, (4, 4, 3)))
    c = tf.constant(_randn(551, (4, 4, 3)))
    return _vg(tf, tf.einsum("ijk,lji,lli->lki", a, b, c), (4, 4, 3), [a, b, c], 552)


@_ported(_AG_SYS + "test_einsum_ellipses ('...jk,...lj->...lk')")
def ag_einsum_ellipses(tf):
    a, b = tf.constant(_randn(553, (3, 4, 4))), tf.constant(_randn(554, (3, 4, 4)))
    return _vg(tf, tf.einsum("...jk,...lj->...lk", a, b), (3, 4, 4), [a, b], 555)


# ---------------------------------------------------------------------------
# autograd test_numpy.py
# ---------------------------------------------------------------------------


@_ported(_AG_NP + "test_max_equal_values")
def ag_max_equal_values(tf):
    # max([x, x]) with ties: TF splits the gradient equally between the copies
    x = tf.constant(1.0, tf.float64)
    y = tf.reduce_max(tf.stack([x, x]))
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_AG_NP + "test_max_equal_values_2d")
def ag_max_equal_values_2d(tf):
    x = tf.constant(1.0, tf.float64)
    m = tf.stack([tf.stack([x, x, x]), tf.stack([x, 2.0 * x, x])])
    y0 = tf.reduce_max(m, axis=0)
    y1 = tf.reduce_max(m, axis=1)
    return {
        "fetches": [y0, y1, tf.gradients(tf.reduce_sum(y0), x), tf.gradients(tf.reduce_sum(y1), x)],
        "feeds": {},
    }


@_ported(_AG_NP + "test_min_3_way_equality")
def ag_min_3_way_equality(tf):
    x = tf.constant(1.0, tf.float64)
    y = tf.reduce_min(tf.stack([x, x, x]))
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_AG_NP + "test_maximum_equal_values")
def ag_maximum_equal_values(tf):
    # maximum(x, x): TF sends the whole gradient to the first argument
    a = tf.constant([1.0, -2.0, 3.0], tf.float64)
    b = tf.constant([1.0, -2.0, 4.0], tf.float64)
    y = tf.maximum(a, b)
    return {"fetches": [y, tf.gradients(y, [a, b]), tf.gradients(tf.maximum(a, a), a)], "feeds": {}}


@_ported(_AG_NP + "test_minimum_equal_values")
def ag_minimum_equal_values(tf):
    a = tf.constant([1.0, -2.0, 3.0], tf.float64)
    b = tf.constant([1.0, -3.0, 3.0], tf.float64)
    y = tf.minimum(a, b)
    return {"fetches": [y, tf.gradients(y, [a, b])], "feeds": {}}


@_ported(_AG_NP + "test_outer")
def ag_outer(tf):
    a, b = tf.constant(_randn(600, (3,))), tf.constant(_randn(601, (4,)))
    return _vg(tf, tf.tensordot(a, b, 0), (3, 4), [a, b], 602)


@_ported(_AG_NP + "test_sum_3 (axis 0 of [10, 11, 7])")
def ag_sum_3(tf):
    x = tf.constant(_randn(603, (10, 11, 7)))
    return _vg(tf, tf.reduce_sum(x, axis=0), (11, 7), [x], 604)


@_ported(_AG_NP + "test_mean_3 (axis 0, keepdims)")
def ag_mean_3_keepdims(tf):
    x = tf.constant(_randn(605, (10, 11, 7)))
    return _vg(tf, tf.reduce_mean(x, axis=0, keepdims=True), (1, 11, 7), [x], 606)


@_ported(_AG_NP + "test_prod_4 (with a zero)")
def ag_prod_with_zero(tf):
    xv = _randn(607, (3, 4))
    xv[1, 2] = 0.0
    x = tf.constant(xv)
    return _vg(tf, tf.reduce_prod(x, axis=1), (3,), [x], 608)


@_ported(_AG_NP + "test_index_ints")
def ag_index_ints(tf):
    x = tf.constant(_randn(609, (5, 6, 4)))
    return _vg(tf, x[3, 0, 1], (), [x], 610)


@_ported(_AG_NP + "test_index_slice")
def ag_index_slice(tf):
    x = tf.constant(_randn(611, (5, 6, 4)))
    return _vg(tf, x[::-1, 2:4, :], (5, 2, 4), [x], 612)


@_ported(_AG_NP + "test_index_lists (as gather)")
def ag_index_lists(tf):
    x = tf.constant(_randn(613, (5, 6, 4)))
    return _vg(tf, tf.gather(x, [0, 1, 0]), (3, 6, 4), [x], 614)


@_ported(_AG_NP + "test_index_mixed")
def ag_index_mixed(tf):
    x = tf.constant(_randn(615, (5, 6, 4)))
    return _vg(tf, x[3, 2:, 0], (4,), [x], 616)


@_ported(_AG_NP + "test_vector_slice")
def ag_vector_slice(tf):
    x = tf.constant(_randn(617, (5,)))
    return _vg(tf, x[2:4], (2,), [x], 618)


@_ported(_AG_NP + "test_index_slice_fanout")
def ag_index_slice_fanout(tf):
    x = tf.constant(_randn(619, (5, 6, 4)))
    y = x[::-1, 2:4, :]
    z = x[::-1, 3:5, :]
    return _vg(tf, y + z, (5, 2, 4), [x], 620)


@_ported(_AG_NP + "test_index_multiple_slices")
def ag_index_multiple_slices(tf):
    x = tf.constant(_randn(621, (7,)))
    y = x[2:6][1:3]
    return _vg(tf, y, (2,), [x], 622)


@_ported(_AG_NP + "test_reshape_call")
def ag_reshape_call(tf):
    x = tf.constant(_randn(623, (5, 6, 4)))
    return _vg(tf, tf.reshape(x, [5 * 4, 6]), (20, 6), [x], 624)


@_ported(_AG_NP + "test_ravel")
def ag_ravel(tf):
    x = tf.constant(_randn(625, (5, 6, 4)))
    return _vg(tf, tf.reshape(x, [-1]), (120,), [x], 626)


@_ported(_AG_NP + "test_simple_concatenate")
def ag_simple_concatenate(tf):
    a, b = tf.constant(_randn(627, (3,))), tf.constant(_randn(628, (2,)))
    return _vg(tf, tf.concat([a, b], 0), (5,), [a, b], 629)


@_ported(_AG_NP + "test_concatenate_axis_0")
def ag_concatenate_axis_0(tf):
    a, b = tf.constant(_randn(630, (5, 6, 4))), tf.constant(_randn(631, (5, 6, 4)))
    return _vg(tf, tf.concat([a, b, a], 0), (15, 6, 4), [a, b], 632)


@_ported(_AG_NP + "test_concatenate_axis_1")
def ag_concatenate_axis_1(tf):
    a, b = tf.constant(_randn(633, (5, 6, 4))), tf.constant(_randn(634, (5, 6, 4)))
    return _vg(tf, tf.concat([a, b, a], 1), (5, 18, 4), [a, b], 635)


@_ported(_AG_NP + "test_tile")
def ag_tile(tf):
    x = tf.constant(_randn(636, (1, 2)))
    return _vg(tf, tf.tile(x, [3, 2]), (3, 4), [x], 637)


@_ported(_AG_NP + "test_var_ddof (variance as mean of squared deviations)")
def ag_var(tf):
    x = tf.constant(_randn(638, (4, 5)))
    y = tf.reduce_mean(tf.square(x - tf.reduce_mean(x, axis=1, keepdims=True)), axis=1)
    return _vg(tf, y, (4,), [x], 639)


@_ported(_AG_NP + "test_std (sqrt of the variance)")
def ag_std(tf):
    x = tf.constant(_randn(640, (4, 5)))
    y = tf.sqrt(tf.reduce_mean(tf.square(x - tf.reduce_mean(x, axis=0)), axis=0))
    return _vg(tf, y, (5,), [x], 641)


@_ported(_AG_NP + "test_cast_to_int")
def ag_cast_to_int(tf):
    # an integer cast cuts the gradient: TF gives None
    x = tf.constant([1.5, 2.5, -0.5], tf.float64)
    y = tf.cast(tf.cast(x, tf.int32), tf.float64) * x
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y), x)], "feeds": {}}


@_ported(_AG_NP + "test_clip (as minimum(maximum(x, lo), hi))")
def ag_clip(tf):
    x = tf.constant([-3.0, -1.0, 0.0, 0.5, 1.0, 2.5], tf.float64)
    y = tf.minimum(tf.maximum(x, -1.0), 1.0)
    return _vg(tf, y, (6,), [x], 642)


@_ported(_AG_NP + "test_dot_with_floats")
def ag_dot_with_floats(tf):
    a = tf.constant(_randn(643, (3, 4)))
    b = tf.constant(2.5, tf.float64)
    return _vg(tf, a * b, (3, 4), [a, b], 644)


@_ported(_AG_NP + "test_expand_dims / test_squeeze")
def ag_expand_squeeze(tf):
    x = tf.constant(_randn(645, (2, 1, 3)))
    y = tf.expand_dims(tf.squeeze(x, 1), -1)
    return _vg(tf, y, (2, 3, 1), [x], 646)


@_ported(_AG_NP + "test_abs at 0 (abs'(0) = 0 in TF)")
def ag_abs_at_zero(tf):
    x = tf.constant([-1.0, 0.0, 2.0], tf.float64)
    return _vg(tf, tf.abs(x), (3,), [x], 647)


# ---------------------------------------------------------------------------
# TensorFlow math_grad_test.py
# ---------------------------------------------------------------------------


@_ported(_TF_OPS + "math_grad_test.py SquaredDifferenceOpTest.testGrad ([1,2,3,2] vs [3,2])")
def tf_squared_difference_bcast_left(tf):
    a, b = tf.constant(_randn(700, (1, 2, 3, 2))), tf.constant(_randn(701, (3, 2)))
    return _vg(tf, tf.squared_difference(a, b), (1, 2, 3, 2), [a, b], 702)


@_ported(_TF_OPS + "math_grad_test.py SquaredDifferenceOpTest.testGrad ([2,4] vs [3,2,4])")
def tf_squared_difference_bcast_right(tf):
    a, b = tf.constant(_randn(703, (2, 4))), tf.constant(_randn(704, (3, 2, 4)))
    return _vg(tf, tf.squared_difference(a, b), (3, 2, 4), [a, b], 705)


@_ported(_TF_OPS + "math_grad_test.py AbsOpTest.testComplexAbs (float32, biased from 0)")
def tf_abs_biased_f32(tf):
    v = _randn(706, (3, 3))
    x = tf.constant((v + np.sign(v) * 0.1).astype(np.float32))
    return _vg(tf, tf.abs(x), (3, 3), [x], 707, "float32")


@_ported(_TF_OPS + "math_grad_test.py AbsOpTest.testComplexAbs (float32, near the pole at 0)")
def tf_abs_near_zero_f32(tf):
    x = tf.constant((_randn(708, (3, 3)) * 0.1).astype(np.float32))
    return _vg(tf, tf.abs(x), (3, 3), [x], 709, "float32")


@_ported(_TF_OPS + "math_grad_test.py MinOrMaxGradientTest.testMinGradient")
def tf_min_gradient_concat_ties(tf):
    inputs = tf.constant([1.0], dtype=tf.float32)
    y = tf.reduce_min(tf.concat([inputs, inputs], 0))
    return {"fetches": [y, tf.gradients(y, inputs)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py MinOrMaxGradientTest.testMaxGradient")
def tf_max_gradient_concat_ties(tf):
    inputs = tf.constant([1.0], dtype=tf.float32)
    y = tf.reduce_max(tf.concat([inputs, inputs], 0))
    return {"fetches": [y, tf.gradients(y, inputs)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py MaximumOrMinimumGradientTest.testMaximumGradient")
def tf_maximum_gradient_tie(tf):
    # 3.0 ties with the scalar: the gradient goes to the first argument
    inputs = tf.constant([1.0, 2.0, 3.0, 4.0], dtype=tf.float32)
    y = tf.maximum(inputs, 3.0)
    return _vg(tf, y, (4,), [inputs], 710, "float32")


@_ported(_TF_OPS + "math_grad_test.py MaximumOrMinimumGradientTest.testMinimumGradient")
def tf_minimum_gradient_tie(tf):
    inputs = tf.constant([1.0, 2.0, 3.0, 4.0], dtype=tf.float32)
    y = tf.minimum(inputs, 2.0)
    return _vg(tf, y, (4,), [inputs], 711, "float32")


@_ported(_TF_OPS + "math_grad_test.py ProdGradientTest.testProdGradient")
def tf_prod_gradient(tf):
    inputs = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    y = tf.reduce_prod(inputs)
    return {"fetches": [y, tf.gradients(y, inputs)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py ProdGradientTest.testProdGradientForNegativeAxis")
def tf_prod_gradient_negative_axis(tf):
    inputs = tf.constant([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    return _vg(tf, tf.reduce_prod(inputs, -1), (2,), [inputs], 712, "float32")


def _euclidean_norm(tf, x, axis=None):
    # reduce_euclidean_norm is not in symgrad: the same function, written out
    return tf.sqrt(tf.reduce_sum(tf.square(x), axis=axis))


_NORM_CASES = [
    ("testBasic", "basic", [3.0], None),
    ("testNegative", "negative", [-3.0], None),
    ("testTwoElements", "two_elements", [3.0, -4.0], None),
    ("test2D_1", "2d_all", [[-3.0, 5.0], [7.0, 11.0]], None),
    ("test2D_2", "2d_axis0", [[-3.0, 5.0], [7.0, 11.0]], 0),
    ("test2D_3", "2d_axis1", [[-3.0, 5.0], [7.0, 11.0]], 1),
    ("test2D_4", "2d_column_axis1", [[3.0], [4.0]], 1),
    ("test3D_3", "3d_axis1", [[[-3.0, 5.0], [7.0, 11.0]], [[13.0, 17.0], [19.0, 23.0]]], 1),
]


def _norm(values, axis, dtype, seed):
    def build(tf):
        xv = np.array(values, dtype=dtype)
        x = tf.constant(xv)
        y = _euclidean_norm(tf, x, axis)
        shape = np.sum(xv, axis=axis).shape
        return _vg(tf, y, shape, [x], seed, dtype)

    return build


for _i, (_test, _tag, _vals, _axis) in enumerate(_NORM_CASES):
    for _dt in ("float32", "float64"):
        _ported(
            _TF_OPS + "math_grad_test.py EuclideanNormGradientTest." + _test,
            name=f"tf_euclidean_norm_{_tag}_{_dt}",
        )(_norm(_vals, _axis, _dt, 720 + _i))


@_ported(_TF_OPS + "math_grad_test.py EuclideanNormGradientTest.testZeros (0/0 = NaN)")
def tf_euclidean_norm_zeros(tf):
    x = tf.constant([0.0, -0.0], tf.float64)
    y = _euclidean_norm(tf, x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py EuclideanNormGradientTest.testNegativeZero")
def tf_euclidean_norm_negative_zero(tf):
    x = tf.constant([1.0, -0.0], tf.float32)
    y = _euclidean_norm(tf, x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py EuclideanNormGradientTest.testGradientChain")
def tf_euclidean_norm_chain(tf):
    x = tf.constant([3.0], tf.float64)
    y = _euclidean_norm(tf, x) * 5
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py PowGradTest.test_zero_grad_tf_gradients")
def tf_pow_zero_grad(tf):
    x = tf.constant([-1.0, 0.0, 1.0])
    y = tf.pow(x, 2)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py PowGradTest (exponent gradient at x <= 0)")
def tf_pow_exponent_grad_nonpositive_base(tf):
    x = tf.constant([-1.0, 0.0, 1.0, 2.0], tf.float64)
    p = tf.constant(2.0, tf.float64)
    y = tf.pow(x, p)
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y), [x, p])], "feeds": {}}


@_ported(_TF_OPS + "math_grad_test.py DivNoNanGradientTest.testBasicGradient (as x / (1 + |x|))")
def tf_div_basic_gradient(tf):
    x = tf.constant(np.arange(-3, 3), dtype=tf.float32)
    y = x / (1 + tf.abs(x))
    return _vg(tf, y, (6,), [x], 730, "float32")


# ---------------------------------------------------------------------------
# TensorFlow gradients_test.py
# ---------------------------------------------------------------------------


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testGradients")
def tf_gradients_matmul_bias_add(tf):
    inp = tf.constant(_arr(740, (32, 100), dtype="float32"))
    w = tf.constant(_arr(741, (100, 10), dtype="float32"))
    b = tf.constant(_arr(742, (10,), dtype="float32"))
    h = tf.nn.bias_add(tf.matmul(inp, w), b)
    return {"fetches": [tf.gradients(h, [w, b, inp])], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testUnusedOutput")
def tf_unused_output_split(tf):
    w = tf.constant(_arr(743, (2, 2)))
    x = tf.constant(_arr(744, (2, 2)))
    split_wx = tf.split(tf.matmul(w, x), 2, 0)
    c = tf.reduce_sum(split_wx[1])
    return {"fetches": [c, tf.gradients(c, [w, x])], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testBoundaryStop")
def tf_boundary_stop(tf):
    c = tf.constant(1.0)
    x = tf.identity(c)
    y = x + 1.0
    z = y + 1
    return {"fetches": [tf.gradients(z, [x])], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testBoundaryContinue")
def tf_boundary_continue(tf):
    x = tf.constant(1.0)
    y = x * 2.0
    z = y * 3.0
    return {"fetches": [tf.gradients(z, [x, y])], "feeds": {}}


def _aggregation(method):
    def build(tf):
        x = tf.constant(1.0)
        y = x * 2.0
        z = y + y + y + y + y + y + y + y + y + y
        grads = tf.gradients(z, [x, y], aggregation_method=getattr(tf.AggregationMethod, method))
        return {"fetches": [grads], "feeds": {}}

    return build


for _test, _method in [
    ("testAggregationMethodAccumulateN", "EXPERIMENTAL_ACCUMULATE_N"),
    ("testAggregationMethodAddN", "ADD_N"),
    ("testAggregationMethodTree", "EXPERIMENTAL_TREE"),
]:
    _ported(_TF_OPS + "gradients_test.py GradientsTest." + _test, name=f"tf_{_test[2:].lower()}")(
        _aggregation(_method)
    )


@_ported(_TF_OPS + "gradients_test.py FunctionGradientsTest.testFunctionGradientsBasic")
def tf_function_gradients_basic(tf):
    two = tf.constant([2.0], name="two")
    y = two * two + 1.0
    return {"fetches": [y, tf.gradients(y, two)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py FunctionGradientsTest.testFunctionGradientsComposition")
def tf_function_gradients_composition(tf):
    two = tf.constant([2.0], name="two")
    f1 = two * two + 1.0
    y = f1 * f1 + 1.0
    return {"fetches": [y, tf.gradients(y, two)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py StopGradientTest.testStopGradient")
def tf_stop_gradient(tf):
    inp = tf.constant(_arr(745, (100, 32), dtype="float32"))
    out = tf.stop_gradient(inp)
    return {"fetches": [tf.gradients(out, inp), tf.gradients(out + inp, inp)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py HessianVectorProductTest.testHessianVectorProduct")
def tf_hessian_vector_product(tf):
    m = 4
    rng = np.random.RandomState([1, 2, 3])
    mat = tf.constant(rng.randn(m, m).astype("float32"))
    v = tf.constant(rng.randn(m, 1).astype("float32"))
    x = tf.constant(rng.randn(m, 1).astype("float32"))
    x_mat_x = tf.matmul(tf.transpose(x), tf.matmul(mat, x))
    grad = tf.gradients(x_mat_x, x)[0]
    hess_v = tf.gradients(grad * tf.stop_gradient(v), x)
    return {"fetches": [x_mat_x, grad, hess_v], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py HessianTest.testHessian1D")
def tf_hessian_1d(tf):
    m = 4
    rng = np.random.RandomState([1, 2, 3])
    mat = tf.constant(rng.randn(m, m).astype("float32"))
    x = tf.constant(rng.randn(m).astype("float32"))
    x_mat_x = tf.reduce_sum(x[:, None] * mat * x[None, :])
    return {"fetches": [x_mat_x, tf.hessians(x_mat_x, x)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py HessianTest.testHessian1D_multi")
def tf_hessian_1d_multi(tf):
    m = 4
    rng = np.random.RandomState([1, 2, 3])
    mats = [tf.constant(rng.randn(m, m).astype("float64")) for _ in range(3)]
    xs = [tf.constant(rng.randn(m).astype("float64")) for _ in range(3)]
    ys = [tf.reduce_sum(x[:, None] * a * x[None, :]) for a, x in zip(mats, xs, strict=True)]
    return {"fetches": [tf.hessians(ys, xs)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py HessianTest.testHessian2D_square_matrix")
def tf_hessian_2d_square(tf):
    x = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]], np.float64))
    y = 0.5 * tf.reduce_sum(x**2)
    return {"fetches": [tf.hessians(y, x)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py HessianTest.testHessian2D_non_square_matrix")
def tf_hessian_2d_non_square(tf):
    x = tf.constant(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32))
    y = tf.reduce_sum(tf.sin(x) * x[::-1, :])
    return {"fetches": [tf.hessians(y, x)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testPartialDerivatives")
def tf_partial_derivatives(tf):
    x = tf.constant(1.0)
    y = 2 * x
    z = x + y
    total = tf.gradients(z, [x, y])
    partial = tf.gradients(z, [x, y], stop_gradients=[x, y])
    return {"fetches": [total, partial], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testStopGradients (a chain of k x k matmuls)")
def tf_stop_gradients_matmul_chain(tf):
    rng = np.random.RandomState(0)

    def function_of(xs, k=3):
        total = tf.constant(rng.rand(k, k))
        for x in xs:
            total = total + tf.matmul(tf.constant(rng.rand(k, k)), x)
        return total

    a = function_of([])
    b = function_of([a])
    c = function_of([a, b])
    d = function_of([b, c])
    fetches = []
    for stops in ([], [a], [b], [a, b], [c]):
        fetches.append(tf.gradients(d, [a, b, c], stop_gradients=stops or None))
    return {"fetches": fetches, "feeds": {}}


@_ported(
    _TF_OPS + "gradients_test.py GradientsTest.testUnconnectedGradientsZerosUnconnectedGradients"
)
def tf_unconnected_gradients_zero(tf):
    x = tf.constant(1.0, shape=[2, 2])
    y = tf.constant(3.0, shape=[3, 1])
    grad = tf.gradients([y], [x], unconnected_gradients="zero")
    return {"fetches": [grad], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testUnconnectedGradientsZeroConnectedGradients")
def tf_unconnected_gradients_zero_connected(tf):
    x = tf.constant(1.0)
    y = x * 3.0
    grad = tf.gradients(y, [x], unconnected_gradients="zero")
    return {"fetches": [grad], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testDependentYs")
def tf_dependent_ys(tf):
    x = tf.constant(3.0)
    y = tf.square(x)
    y1 = tf.square(y)
    y2 = tf.square(y1)
    return {
        "fetches": [tf.gradients([y, y1, y2], x), tf.gradients([y, y2, y1], x)],
        "feeds": {},
    }


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testGradientsWithGradYs (grad_ys)")
def tf_grad_ys(tf):
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    y = x * x
    gy = tf.constant([0.5, -1.0, 2.0], tf.float64)
    return {
        "fetches": [tf.gradients(y, x, grad_ys=gy), tf.gradients(y, x, grad_ys=[gy])],
        "feeds": {},
    }


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testIntegerIdentityGradient (integer ys)")
def tf_integer_inputs_no_gradient(tf):
    k = tf.constant([1, 2, 3], tf.int32)
    x = tf.constant([0.5, 1.5, 2.5], tf.float32)
    y = x * tf.cast(k, tf.float32)
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y), [x, k])], "feeds": {}}


# ---------------------------------------------------------------------------
# TensorFlow nn_grad_test.py
# ---------------------------------------------------------------------------

_NN_INPUTS = [[-2.0, -1.0, 1.0, 3.0], [5.0, 7.0, 8.0, 9.0]]
_NN_DUMMY = [[3.0, 1.0, -1.0, -2.0], [9.0, 8.0, 7.0, 6.0]]


@_ported(_TF_OPS + "nn_grad_test.py SoftmaxOpTest.testSoftmaxGradGradExtendType")
def tf_softmax_grad_grad_f32(tf):
    x = tf.constant(np.array(_NN_INPUTS, np.float32))
    y = tf.nn.softmax(x)
    g = tf.gradients(_loss(tf, y, (2, 4), 750, "float32"), x)[0]
    return {"fetches": [y, g, tf.gradients(_loss(tf, g, (2, 4), 751, "float32"), x)], "feeds": {}}


@_ported(
    _TF_OPS + "nn_grad_test.py Relu6OpTest.testRelu6GradGrad (with relu: relu6 is not in symgrad)"
)
def tf_relu_grad_grad(tf):
    x = tf.constant(np.array([[-3.5, -1.5, 2.0, 4.0], [4.5, 7.5, 8.5, 11.0]], np.float32))
    r = tf.nn.relu(x)
    g = tf.gradients(r, x)[0]
    return {"fetches": [r, g, tf.gradients(g, x)], "feeds": {}}


@_ported(_TF_OPS + "nn_grad_test.py EluGradOpTest.testEluGradGradWRTgrad_ys (with softplus)")
def tf_softplus_grad_grad_wrt_grad_ys(tf):
    x = tf.constant(np.array(_NN_INPUTS, np.float32))
    dummy = tf.constant(np.array(_NN_DUMMY, np.float32))
    g = tf.gradients(tf.nn.softplus(x), x, grad_ys=dummy)[0]
    return {
        "fetches": [g, tf.gradients(_loss(tf, g, (2, 4), 752, "float32"), [dummy, x])],
        "feeds": {},
    }


@_ported(_TF_OPS + "nn_grad_test.py EluGradOpTest.testEluGradGradWRTinputs (with sigmoid)")
def tf_sigmoid_grad_grad_wrt_inputs(tf):
    x = tf.constant(np.array(_NN_INPUTS, np.float32))
    dummy = tf.constant(np.array(_NN_DUMMY, np.float32))
    g = tf.gradients(tf.sigmoid(x), x, grad_ys=dummy)[0]
    return {
        "fetches": [g, tf.gradients(_loss(tf, g, (2, 4), 753, "float32"), [dummy, x])],
        "feeds": {},
    }


@_ported(_TF_OPS + "nn_grad_test.py SeluGradOpTest.testSeluGradGradWRTinputs (with tanh)")
def tf_tanh_grad_grad_wrt_inputs(tf):
    x = tf.constant(np.array(_NN_INPUTS, np.float32) / 4)
    dummy = tf.constant(np.array(_NN_DUMMY, np.float32))
    g = tf.gradients(tf.tanh(x), x, grad_ys=dummy)[0]
    return {
        "fetches": [g, tf.gradients(_loss(tf, g, (2, 4), 754, "float32"), [dummy, x])],
        "feeds": {},
    }


@_ported(_TF_OPS + "nn_grad_test.py SwishGradOpTest.testSwishGrad (x * sigmoid(beta * x))")
def tf_swish_grad(tf):
    features = tf.constant([[-2.0, -1.0, 1.0, 3.0]], dtype=tf.float32)
    beta = tf.constant(0.25, dtype=tf.float32)
    y = features * tf.sigmoid(beta * features)
    return _vg(tf, y, (1, 4), [features, beta], 755, "float32")


# ---------------------------------------------------------------------------
# TensorFlow array_grad_test.py
# ---------------------------------------------------------------------------


@_ported(_TF_OPS + "array_grad_test.py ArrayGradTest.testGatherGradient")
def tf_gather_gradient(tf):
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    indices = tf.constant([1, 2], tf.int32)
    return _vg(tf, tf.gather(x, indices), (2,), [x], 760)


@_ported(
    _TF_OPS + "array_grad_test.py ArrayGradTest.testGatherV2Gradient (axis 1, repeated indices)"
)
def tf_gather_v2_axis1(tf):
    x = tf.constant(_randn(761, (3, 4)))
    return _vg(tf, tf.gather(x, [0, 2, 2, 3], axis=1), (3, 4), [x], 762)


@_ported(_TF_OPS + "array_grad_test.py ArrayGradTest.testGatherV2Gradient (int64 indices)")
def tf_gather_int64_indices_f32(tf):
    x = tf.constant(_randn(763, (4, 2), "float32"))
    idx = tf.constant(np.array([3, 0, 3], np.int64))
    return _vg(tf, tf.gather(x, idx), (3, 2), [x], 764, "float32")


@_ported(_TF_OPS + "array_grad_test.py ArrayGradTest.testBroadcastToGradient")
def tf_broadcast_to_gradient(tf):
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    return _vg(tf, tf.broadcast_to(x, [2, 3]), (2, 3), [x], 765)


@_ported(_TF_OPS + "array_grad_test.py ArrayGradTest.testBroadcastToGradient (size-1 axis)")
def tf_broadcast_to_size1_axis(tf):
    x = tf.constant(_randn(766, (3, 1)))
    return _vg(tf, tf.broadcast_to(x, [2, 3, 4]), (2, 3, 4), [x], 767)


@_ported(_TF_OPS + "array_grad_test.py StridedSliceGradTest (begin/end/stride/new axis/shrink)")
def tf_strided_slice_mixed(tf):
    x = tf.constant(_randn(768, (4, 5, 6)))
    return _vg(tf, x[1:3, ::2, None, -1], (2, 3, 1), [x], 769)


@_ported(_TF_OPS + "array_grad_test.py StridedSliceGradTest (negative strides)")
def tf_strided_slice_negative_stride(tf):
    x = tf.constant(_randn(770, (4, 5)))
    return _vg(tf, x[::-2, 3:0:-1], (2, 3), [x], 771)


@_ported(_TF_OPS + "array_grad_test.py StridedSliceGradTest (ellipsis)")
def tf_strided_slice_ellipsis_f32(tf):
    x = tf.constant(_randn(772, (2, 3, 4), "float32"))
    return _vg(tf, x[..., 1:3], (2, 3, 2), [x], 773, "float32")


# ---------------------------------------------------------------------------
# TensorFlow kernel tests
# ---------------------------------------------------------------------------


@_ported(_TF_KT + "nn_ops/softmax_op_test.py SoftmaxTest.testGradient")
def kt_softmax_gradient(tf):
    x = tf.constant(_arr(800, (3, 5)))
    return _vg(tf, tf.nn.softmax(x), (3, 5), [x], 801)


@_ported(_TF_KT + "nn_ops/softmax_op_test.py SoftmaxTest.testLargeDims / large logits")
def kt_softmax_large_logits_f32(tf):
    x = tf.constant(np.array([[1000.0, 0.0, -1000.0], [-1000.0, -1000.0, -1000.0]], np.float32))
    return _vg(tf, tf.nn.softmax(x), (2, 3), [x], 802, "float32")


@_ported(_TF_KT + "nn_ops/softmax_op_test.py SoftmaxTest.testShapeMismatch / axis")
def kt_softmax_axis0(tf):
    x = tf.constant(_arr(803, (3, 4)))
    return _vg(tf, tf.nn.softmax(x, axis=0), (3, 4), [x], 804)


@_ported(_TF_KT + "nn_ops/softmax_op_test.py SoftmaxTest.testFloat16 (log_softmax)")
def kt_log_softmax_f16(tf):
    x = tf.constant(_arr(805, (2, 4), dtype="float16"))
    return _vg(tf, tf.nn.log_softmax(x), (2, 4), [x], 806, "float16")


@_ported(_TF_KT + "nn_ops/softmax_op_test.py SoftmaxTest.testDouble (log_softmax, large)")
def kt_log_softmax_large_f64(tf):
    x = tf.constant(np.array([[1000.0, 1.0, -1000.0], [0.0, 0.0, 0.0]], np.float64))
    return _vg(tf, tf.nn.log_softmax(x), (2, 3), [x], 807)


@_ported(_TF_KT + "nn_ops/xent_op_test.py XentTest.testGradient")
def kt_xent_gradient(tf):
    labels = tf.constant(
        np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4]], np.float64)
    )
    logits = tf.constant(
        np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.9, 1.6], [0.1, 0.8, 2.7, 6.4]])
    )
    xent = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, xent, (3,), [logits, labels], 810)


@_ported(_TF_KT + "nn_ops/xent_op_test.py XentTest.testGradientLabelWithV2")
def kt_xent_v2_label_gradient(tf):
    labels = tf.constant(
        np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4]], np.float64)
    )
    logits = tf.constant(
        np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.9, 1.6], [0.1, 0.8, 2.7, 6.4]])
    )
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return _vg(tf, xent, (3,), [logits, labels], 811)


@_ported(_TF_KT + "nn_ops/xent_op_test.py XentTest.testSecondGradient")
def kt_xent_second_gradient(tf):
    labels = tf.constant(
        np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.5, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4]], np.float32)
    )
    logits = tf.constant(
        np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.9, 1.6], [0.1, 0.8, 2.7, 6.4]], np.float32)
    )
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    g = tf.gradients(xent, logits)[0]
    return {"fetches": [g, tf.gradients(_loss(tf, g, (3, 4), 812, "float32"), logits)], "feeds": {}}


@_ported(_TF_KT + "nn_ops/xent_op_test.py XentTest.testNotMatrix / large logits (float16)")
def kt_xent_large_logits_f16(tf):
    labels = tf.constant(np.array([[0.0, 1.0, 0.0], [0.5, 0.5, 0.0]], np.float16))
    logits = tf.constant(np.array([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 1000.0]], np.float16))
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return {"fetches": [xent, tf.gradients(xent, logits)], "feeds": {}}


@_ported(_TF_KT + "nn_ops/xent_op_test.py XentTest (placeholders [None, 4])")
def kt_xent_placeholders_none_batch_f32(tf):
    labels = tf.placeholder(tf.float32, shape=[None, 4])
    logits = tf.placeholder(tf.float32, shape=[None, 4])
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    feeds = {
        labels: np.array([[0.0, 0.0, 0.0, 1.0], [0.25, 0.25, 0.25, 0.25]], np.float32),
        logits: np.array([[1.0, 2.0, 3.0, 4.0], [-50.0, 0.0, 50.0, 100.0]], np.float32),
    }
    return {"fetches": [xent, tf.gradients(tf.reduce_mean(xent), [logits, labels])], "feeds": feeds}


@_ported(_TF_KT + "nn_ops/sparse_xent_op_test.py SparseXentTest.testGradient")
def kt_sparse_xent_gradient(tf):
    labels = tf.constant([3, 0, 1], tf.int32)
    logits = tf.constant(
        np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.9, 1.6], [0.1, 0.8, 2.7, 6.4]])
    )
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, xent, (3,), [logits], 813)


@_ported(_TF_KT + "nn_ops/sparse_xent_op_test.py SparseXentTest.testSecondGradient")
def kt_sparse_xent_second_gradient(tf):
    labels = tf.constant([3, 0, 1], tf.int64)
    logits = tf.constant(
        np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.9, 1.6], [0.1, 0.8, 2.7, 6.4]], np.float32)
    )
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    g = tf.gradients(xent, logits)[0]
    return {
        "fetches": [xent, g, tf.gradients(_loss(tf, g, (3, 4), 814, "float32"), logits)],
        "feeds": {},
    }


@_ported(_TF_KT + "nn_ops/sparse_xent_op_test.py SparseXentTest.testLargeLogits (int64 labels)")
def kt_sparse_xent_large_logits_f64(tf):
    labels = tf.constant(np.array([0, 2], np.int64))
    logits = tf.constant(np.array([[1000.0, -1000.0, 0.0], [1000.0, 1000.0, -1000.0]]))
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return {"fetches": [xent, tf.gradients(xent, logits)], "feeds": {}}


_SIG_XENT_LOGITS = [[-100.0, -2.0, -2.0, 0.0, 2.0, 2.0, 2.0, 100.0]]
_SIG_XENT_TARGETS = [[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.5, 1.0]]


@_ported(_TF_OPS + "nn_xent_test.py SigmoidCrossEntropyWithLogitsTest.testLogisticOutput")
def kt_sigmoid_xent_logistic_output(tf):
    logits = tf.constant(np.array(_SIG_XENT_LOGITS, np.float64))
    targets = tf.constant(np.array(_SIG_XENT_TARGETS, np.float64))
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return _vg(tf, loss, (1, 8), [logits, targets], 815)


@_ported(
    _TF_OPS + "nn_xent_test.py SigmoidCrossEntropyWithLogitsTest.testLogisticOutputMultiDim (f32)"
)
def kt_sigmoid_xent_multidim_f32(tf):
    logits = tf.constant(_arr(816, (2, 3, 4), -5.0, 5.0, "float32"))
    targets = tf.constant(_arr(817, (2, 3, 4), 0.0, 1.0, "float32"))
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return _vg(tf, loss, (2, 3, 4), [logits, targets], 818, "float32")


@_ported(_TF_OPS + "nn_xent_test.py SigmoidCrossEntropyWithLogitsTest.testGradientAtZero")
def kt_sigmoid_xent_gradient_at_zero(tf):
    logits = tf.constant([0.0, 0.0], tf.float64)
    targets = tf.constant([0.0, 1.0], tf.float64)
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return {"fetches": [loss, tf.gradients(tf.reduce_sum(loss), logits)], "feeds": {}}


@_ported(_TF_KT + "nn_ops/xent_op_test.py / nn_test.py L2LossTest.testGradient")
def kt_l2_loss_gradient(tf):
    x = tf.constant(_randn(820, (2, 3, 4)))
    y = tf.nn.l2_loss(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_OPS + "nn_test.py L2LossTest.testL2Loss (float16 / float32)")
def kt_l2_loss_f16_f32(tf):
    x16 = tf.constant(np.array([1.0, 0.0, 3.0, 2.0], np.float16))
    x32 = tf.constant(np.array([1.0, 0.0, 3.0, 2.0], np.float32))
    return {
        "fetches": [tf.nn.l2_loss(x16), tf.nn.l2_loss(x32), tf.gradients(tf.nn.l2_loss(x32), x32)],
        "feeds": {},
    }


@_ported(_TF_KT + "nn_ops/bias_op_test.py BiasAddTest.testGradientTensor2D")
def kt_bias_add_gradient_2d(tf):
    x = tf.constant(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    b = tf.constant(np.array([1.3, 2.4, 3.1]))
    return _vg(tf, tf.nn.bias_add(x, b), (2, 3), [x, b], 821)


@_ported(_TF_KT + "nn_ops/bias_op_test.py BiasAddTest.testGradientTensor4D (float32)")
def kt_bias_add_gradient_4d_f32(tf):
    x = tf.constant(_arr(822, (2, 3, 4, 2), dtype="float32"))
    b = tf.constant(np.array([1.3, 2.4], np.float32))
    return _vg(tf, tf.nn.bias_add(x, b), (2, 3, 4, 2), [x, b], 823, "float32")


@_ported(_TF_KT + "nn_ops/bias_op_test.py BiasAddTest.testGradientTensor (placeholder [None, 3])")
def kt_bias_add_placeholder_none(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3])
    b = tf.constant(np.array([1.3, 2.4, 3.1]))
    y = tf.nn.bias_add(x, b)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), [x, b])],
        "feeds": {x: _randn(824, (5, 3))},
    }


@_ported(_TF_KT + "nn_ops/relu_op_test.py ReluTest.testGradientFloat32 (values at 0)")
def kt_relu_gradient_at_zero_f32(tf):
    x = tf.constant(
        np.array([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.0]], np.float32)
    )
    return _vg(tf, tf.nn.relu(x), (2, 5), [x], 825, "float32")


@_ported(_TF_KT + "nn_ops/relu_op_test.py ReluTest.testGradGradFloat32")
def kt_relu_grad_grad_f32(tf):
    x = tf.constant(
        np.array([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]], np.float32)
    )
    r = tf.nn.relu(x)
    g = tf.gradients(r, x)[0]
    return {"fetches": [g, tf.gradients(tf.reduce_sum(g * x), x)], "feeds": {}}


@_ported(_TF_KT + "nn_ops/relu_op_test.py ReluTest.testGradientFloat16")
def kt_relu_gradient_f16(tf):
    x = tf.constant(
        np.array([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 0.5, 0.7, 0.9]], np.float16)
    )
    return _vg(tf, tf.nn.relu(x), (2, 5), [x], 826, "float16")


@_ported(_TF_KT + "nn_ops/softplus_op_test.py SoftplusTest.testGradient (and large values)")
def kt_softplus_gradient(tf):
    x = tf.constant(np.array([[-0.9, -0.7, -0.5, -0.3, -0.1], [0.1, 0.3, 50.0, -50.0, 0.9]]))
    return _vg(tf, tf.nn.softplus(x), (2, 5), [x], 827)


@_ported(_TF_KT + "math_ops/cwise_ops_unary_test.py UnaryOpTest.testFloatBasic (sigmoid, large)")
def kt_sigmoid_large_f32(tf):
    x = tf.constant(np.array([-100.0, -20.0, 0.0, 20.0, 100.0], np.float32))
    return _vg(tf, tf.sigmoid(x), (5,), [x], 828, "float32")


@_ported(_TF_KT + "math_ops/cwise_ops_unary_test.py UnaryOpTest.testFloatBasic (rsqrt, reciprocal)")
def kt_rsqrt_reciprocal_f32(tf):
    x = tf.constant(np.array([0.25, 1.0, 2.0, 9.0], np.float32))
    return _vg(tf, tf.rsqrt(x) + tf.reciprocal(x), (4,), [x], 829, "float32")


@_ported(_TF_KT + "math_ops/cwise_ops_unary_test.py UnaryOpTest.testFloatTanhEdge")
def kt_tanh_edge_f32(tf):
    x = tf.constant(np.array([-30.0, -5.0, 0.0, 5.0, 30.0], np.float32))
    return _vg(tf, tf.tanh(x), (5,), [x], 830, "float32")


@_ported(_TF_KT + "math_ops/cwise_ops_unary_test.py UnaryOpTest.testHalfBasic (exp, log, sqrt)")
def kt_half_basic(tf):
    x = tf.constant(np.array([0.5, 1.0, 2.0, 3.0], np.float16))
    y = tf.exp(x) + tf.log(x) + tf.sqrt(x)
    return _vg(tf, y, (4,), [x], 831, "float16")


@_ported(
    _TF_KT + "math_ops/cwise_ops_unary_test.py UnaryOpTest.testDoubleBasic (log at 0, sqrt at 0)"
)
def kt_log_sqrt_at_zero(tf):
    x = tf.constant([0.0, 1.0], tf.float64)
    return {
        "fetches": [tf.log(x), tf.gradients(tf.log(x), x), tf.sqrt(x), tf.gradients(tf.sqrt(x), x)],
        "feeds": {},
    }


@_ported(
    _TF_KT
    + "math_ops/cwise_ops_unary_test.py UnaryOpTest.testFloatBasic (round, floor: no gradient)"
)
def kt_round_floor_no_gradient(tf):
    x = tf.constant(np.array([-1.5, -0.5, 0.5, 1.5, 2.5], np.float32))
    y = tf.round(x) + tf.floor(x)
    return {"fetches": [tf.round(x), tf.floor(x), tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testFloatBasic (broadcast grads)")
def kt_binary_float_basic_f32(tf):
    x = tf.constant(np.linspace(-5, 5, 6).reshape(1, 3, 2).astype(np.float32))
    y = tf.constant(np.linspace(20, -20, 6).reshape(1, 3, 2).astype(np.float32))
    out = x + y - x * y + x / (y + 0.1) + tf.squared_difference(x, y)
    return _vg(tf, out, (1, 3, 2), [x, y], 832, "float32")


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testInt32Basic")
def kt_int32_basic(tf):
    x = tf.constant(np.arange(1, 7).reshape(1, 3, 2).astype(np.int32))
    y = tf.constant(np.arange(1, 7).reshape(1, 3, 2).astype(np.int32))
    return {"fetches": [x + y, x - y, x * y, tf.maximum(x, y * 2 - 5), tf.abs(x - 4)], "feeds": {}}


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testInt64Basic (reductions)")
def kt_int64_reductions(tf):
    x = tf.constant(np.arange(-3, 9).reshape(3, 4).astype(np.int64))
    return {
        "fetches": [
            tf.reduce_sum(x),
            tf.reduce_max(x, axis=0),
            tf.reduce_min(x, axis=1),
            tf.reduce_prod(x[:, 1:3]),
        ],
        "feeds": {},
    }


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testPowNegativeExponent (float)")
def kt_pow_float_exponents(tf):
    x = tf.constant(np.array([1.0, 2.0, 3.0, 4.0]))
    y = tf.constant(np.array([-2.0, -0.5, 0.5, 3.0]))
    return _vg(tf, tf.pow(x, y), (4,), [x, y], 833)


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testFloatDifferentShapes")
def kt_float_different_shapes(tf):
    x = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    y = tf.constant(np.array([[1.0], [2.0]], np.float32))
    return _vg(tf, x * y + y / x, (2, 2), [x, y], 834, "float32")


@_ported(_TF_KT + "math_ops/cwise_ops_test.py ComparisonOpTest.testBCast / SelectOpTest.testBasic")
def kt_select_comparisons(tf):
    x = tf.constant(_randn(835, (2, 3)))
    y = tf.constant(_randn(836, (2, 3)))
    c = tf.greater_equal(x, y)
    z = tf.where(c, x * 2.0, y * y)
    return {
        "fetches": [
            tf.less(x, y),
            tf.equal(x, x),
            tf.not_equal(x, y),
            z,
            tf.gradients(tf.reduce_sum(z), [x, y]),
        ],
        "feeds": {},
    }


@_ported(_TF_KT + "math_ops/cwise_ops_test.py SelectOpTest.testGradient (placeholder [None])")
def kt_select_gradient_placeholder(tf):
    c = tf.placeholder(tf.bool, shape=[None])
    x = tf.placeholder(tf.float32, shape=[None])
    y = tf.placeholder(tf.float32, shape=[None])
    z = tf.where(c, x, y)
    feeds = {
        c: np.array([True, False, True, False]),
        x: np.array([1.0, 2.0, 3.0, 4.0], np.float32),
        y: np.array([-1.0, -2.0, -3.0, -4.0], np.float32),
    }
    return {"fetches": [z, tf.gradients(tf.reduce_sum(z * z), [x, y])], "feeds": feeds}


@_ported(_TF_KT + "math_ops/cwise_ops_test.py MaxMinTest.testGradients (broadcast)")
def kt_maxmin_gradients_broadcast(tf):
    x = tf.constant(_randn(837, (1, 3, 2)))
    y = tf.constant(_randn(838, (2,)))
    z = tf.maximum(x, y) - tf.minimum(x, y)
    return _vg(tf, z, (1, 3, 2), [x, y], 839)


@_ported(
    _TF_KT + "math_ops/reduction_ops_test.py SumReductionTest.testGradient (placeholder, no shape)"
)
def kt_sum_gradient_unshaped_placeholder(tf):
    x = tf.placeholder(tf.float64)
    y = tf.reduce_sum(x * x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: _randn(840, (2, 3, 4))}}


@_ported(_TF_KT + "math_ops/reduction_ops_test.py MeanReductionTest.testGradient (axis [0, 2])")
def kt_mean_gradient_axes(tf):
    x = tf.constant(_randn(841, (2, 3, 4, 2)))
    return _vg(tf, tf.reduce_mean(x, axis=[0, 2]), (3, 2), [x], 842)


@_ported(_TF_KT + "math_ops/reduction_ops_test.py MeanReductionTest.testFloat16")
def kt_mean_f16(tf):
    x = tf.constant(_arr(843, (4, 5), 0.0, 10.0, "float16"))
    return _vg(tf, tf.reduce_mean(x, axis=1), (4,), [x], 844, "float16")


@_ported(_TF_KT + "math_ops/reduction_ops_test.py SumReductionTest.testInt32 (keepdims)")
def kt_sum_int32_keepdims(tf):
    x = tf.constant(np.arange(24).reshape(2, 3, 4).astype(np.int32))
    return {
        "fetches": [tf.reduce_sum(x, axis=[0, 2], keepdims=True), tf.reduce_mean(x, axis=1)],
        "feeds": {},
    }


@_ported(_TF_KT + "math_ops/reduction_ops_test.py MaxReductionTest.testGradient4 (ties)")
def kt_max_gradient_ties(tf):
    x = tf.constant(np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0], [0.0, 0.0, 0.0]]))
    return _vg(tf, tf.reduce_max(x, axis=1), (3,), [x], 845)


@_ported(_TF_KT + "math_ops/reduction_ops_test.py MinReductionTest.testGradient3 (ties, keepdims)")
def kt_min_gradient_ties_keepdims(tf):
    x = tf.constant(np.array([[1.0, 3.0, 1.0], [2.0, 0.0, 0.0]], np.float32))
    return _vg(tf, tf.reduce_min(x, axis=0, keepdims=True), (1, 3), [x], 846, "float32")


@_ported(_TF_KT + "math_ops/reduction_ops_test.py ProdReductionTest.testGradientWithZeros")
def kt_prod_gradient_with_zeros(tf):
    x = tf.constant(np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 3.0]]))
    return _vg(tf, tf.reduce_prod(x, axis=1), (3,), [x], 847)


@_ported(
    _TF_KT + "math_ops/reduction_ops_test.py ProdReductionTest.testGradientWithZeros (axis None)"
)
def kt_prod_gradient_with_zero_all(tf):
    x = tf.constant(np.array([[0.5, 2.0, 3.0], [0.0, -1.0, 4.0]]))
    y = tf.reduce_prod(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_KT + "math_ops/reduction_ops_test.py LogSumExpTest.testGradient / testInfinity")
def kt_logsumexp_gradient_large(tf):
    x = tf.constant(np.array([[1000.0, 1000.0, -1000.0], [0.0, -1.0, 1.0]]))
    return _vg(tf, tf.reduce_logsumexp(x, axis=1), (2,), [x], 848)


@_ported(_TF_KT + "math_ops/matmul_op_test.py MatMulGradientTest (transpose_a x transpose_b)")
def kt_matmul_gradient_transposes(tf):
    fetches = []
    for ta in (False, True):
        for tb in (False, True):
            a = tf.constant(_randn(850, (3, 2) if ta else (2, 3)))
            b = tf.constant(_randn(851, (4, 3) if tb else (3, 4)))
            y = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
            fetches.append(tf.gradients(_loss(tf, y, (2, 4), 852), [a, b]))
    return {"fetches": fetches, "feeds": {}}


@_ported(_TF_KT + "math_ops/batch_matmul_op_test.py BatchMatmulGradientTest (broadcast batch)")
def kt_batch_matmul_broadcast(tf):
    a = tf.constant(_randn(853, (2, 1, 2, 3)))
    b = tf.constant(_randn(854, (3, 3, 4)))
    return _vg(tf, tf.matmul(a, b), (2, 3, 2, 4), [a, b], 855)


@_ported(_TF_KT + "math_ops/matmul_op_test.py MatMulTest (float16)")
def kt_matmul_f16(tf):
    a = tf.constant(_arr(856, (2, 3), dtype="float16"))
    b = tf.constant(_arr(857, (3, 2), dtype="float16"))
    return _vg(tf, tf.matmul(a, b), (2, 2), [a, b], 858, "float16")


@_ported(_TF_KT + "math_ops/matmul_op_test.py MatMulTest (placeholder [None, 3])")
def kt_matmul_placeholder_none_f32(tf):
    a = tf.placeholder(tf.float32, shape=[None, 3])
    w = tf.constant(_arr(859, (3, 2), dtype="float32"))
    y = tf.matmul(a, w)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), [a, w])],
        "feeds": {a: _arr(860, (4, 3), dtype="float32")},
    }


@_ported(_TF_KT + "linalg/einsum_op_test.py EinsumGradTest.testBatchMatmul / testReduce")
def kt_einsum_batch_and_reduce(tf):
    a = tf.constant(_randn(861, (2, 3, 4)))
    b = tf.constant(_randn(862, (2, 4, 5)))
    y = tf.einsum("bij,bjk->bik", a, b)
    r = tf.einsum("ij->i", a[0])
    return {
        "fetches": [y, r, tf.gradients(_loss(tf, y, (2, 3, 5), 863) + tf.reduce_sum(r), [a, b])],
        "feeds": {},
    }


@_ported(_TF_KT + "linalg/einsum_op_test.py EinsumGradTest.testBroadcasting (outer product)")
def kt_einsum_outer(tf):
    a = tf.constant(_randn(864, (3,)))
    b = tf.constant(_randn(865, (4,)))
    return _vg(tf, tf.einsum("i,j->ij", a, b), (3, 4), [a, b], 866)


@_ported(_TF_KT + "array_ops/concat_op_test.py ConcatOpTest.testGradientsSimple")
def kt_concat_gradients_simple(tf):
    inp = [tf.constant(_randn(870 + i, (10, 2 + i, 5))) for i in range(3)]
    return _vg(tf, tf.concat(inp, 1), (10, 9, 5), inp, 873)


@_ported(_TF_KT + "array_ops/concat_op_test.py ConcatOpTest.testGradientsNegativeAxis")
def kt_concat_gradients_negative_axis(tf):
    inp = [tf.constant(_randn(874 + i, (2, 3))) for i in range(2)]
    return _vg(tf, tf.concat(inp, -1), (2, 6), inp, 876)


@_ported(_TF_KT + "array_ops/concat_op_test.py ConcatOpTest.testGradientWithUnknownInputDim")
def kt_concat_unknown_input_dim(tf):
    x = tf.placeholder(tf.float32, shape=[None, 3])
    y = tf.placeholder(tf.float32, shape=[None, 3])
    c = tf.concat([x, y], 0)
    feeds = {x: _arr(877, (2, 3), dtype="float32"), y: _arr(878, (1, 3), dtype="float32")}
    return {"fetches": [c, tf.gradients(tf.reduce_sum(c * c), [x, y])], "feeds": feeds}


@_ported(_TF_KT + "array_ops/split_op_test.py SplitOpTest.testGradientsAll / testSplitCols")
def kt_split_gradients(tf):
    x = tf.constant(_randn(880, (4, 6)))
    parts = tf.split(x, 3, axis=1)
    total = parts[0] * 1.0 + parts[1] * 2.0 + parts[2] * parts[2]
    return _vg(tf, total, (4, 2), [x], 881)


@_ported(_TF_KT + "array_ops/split_op_test.py SplitOpTest.testSpecialCasesVariable (size splits)")
def kt_split_sizes(tf):
    x = tf.constant(_randn(882, (7, 2)))
    a, b, c = tf.split(x, [1, 4, 2], axis=0)
    return {
        "fetches": [a, b, c, tf.gradients(tf.reduce_sum(b) + 3.0 * tf.reduce_sum(c), x)],
        "feeds": {},
    }


@_ported(_TF_KT + "array_ops/split_op_test.py SplitOpTest (unused output gets zero gradient)")
def kt_split_unused_output(tf):
    x = tf.constant(_randn(883, (6,)))
    parts = tf.split(x, 3)
    return {"fetches": [tf.gradients(parts[1], x)], "feeds": {}}


@_ported(_TF_KT + "array_ops/stack_op_test.py StackOpTest.testGradientsAxis0 / unstack")
def kt_stack_unstack_gradients(tf):
    xs = [tf.constant(_randn(884 + i, (2, 3))) for i in range(3)]
    s = tf.stack(xs, axis=1)
    u = tf.unstack(s, axis=2)
    y = u[0] * u[2]
    return _vg(tf, y, (2, 3), xs, 887)


@_ported(_TF_KT + "array_ops/gather_op_test.py GatherTest.testHigherRank (2-D indices)")
def kt_gather_higher_rank_indices(tf):
    params = tf.constant(_randn(888, (4, 3)))
    indices = tf.constant([[0, 3], [3, 1], [2, 2]])
    return _vg(tf, tf.gather(params, indices), (3, 2, 3), [params], 889)


@_ported(
    _TF_KT
    + "array_ops/gather_op_test.py GatherTest.testString -> negative axis, placeholder indices"
)
def kt_gather_placeholder_indices(tf):
    params = tf.constant(_randn(890, (2, 5)))
    idx = tf.placeholder(tf.int64, shape=[None])
    y = tf.gather(params, idx, axis=-1)
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y * y), params)],
        "feeds": {idx: np.array([4, 0, 4], np.int64)},
    }


@_ported(_TF_KT + "array_ops/reshape_op_test.py ReshapeTest.testFloatReshapeGradThreeDimensions")
def kt_reshape_grad_3d_f32(tf):
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(1, 24))
    return _vg(tf, tf.reshape(x, [2, 3, 4]), (2, 3, 4), [x], 891, "float32")


@_ported(
    _TF_KT
    + "array_ops/reshape_op_test.py ReshapeTest.testErrors -> reshape of a [None, 4] placeholder"
)
def kt_reshape_placeholder_none(tf):
    x = tf.placeholder(tf.float64, shape=[None, 4])
    y = tf.reshape(x, [-1, 2])
    return {
        "fetches": [y, tf.gradients(tf.reduce_sum(y[:, 0] * 3.0), x)],
        "feeds": {x: _randn(892, (3, 4))},
    }


@_ported(_TF_KT + "array_ops/transpose_op_test.py TransposeTest.testDouble / _compareCpu gradient")
def kt_transpose_4d(tf):
    x = tf.constant(_randn(893, (2, 3, 4, 5)))
    return _vg(tf, tf.transpose(x, [3, 1, 0, 2]), (5, 3, 2, 4), [x], 894)


@_ported(_TF_KT + "array_ops/slice_op_test.py SliceTest.testGradientsAll (begin/size as a slice)")
def kt_slice_gradients_all(tf):
    x = tf.constant(_randn(895, (4, 4)))
    return _vg(tf, x[1:3, 0:2], (2, 2), [x], 896)


@_ported(_TF_KT + "array_ops/array_ops_test.py StridedSliceGradTest (shrink + new axis, f32)")
def kt_strided_slice_shrink_newaxis_f32(tf):
    x = tf.constant(_arr(897, (3, 4, 5), dtype="float32"))
    return _vg(tf, x[None, 2, 1:, ::-1], (1, 3, 5), [x], 898, "float32")


@_ported(_TF_KT + "array_ops/array_ops_test.py TileTest.testGradientSimpleReduction")
def kt_tile_gradient_reduction(tf):
    x = tf.constant(_randn(899, (4, 1)))
    return _vg(tf, tf.tile(x, [1, 3]), (4, 3), [x], 900)


@_ported(_TF_KT + "array_ops/array_ops_test.py TileTest.testGradientStridedReduction")
def kt_tile_gradient_strided(tf):
    x = tf.constant(_randn(901, (4, 2)))
    return _vg(tf, tf.tile(x, [3, 2]), (12, 4), [x], 902)


@_ported(_TF_KT + "array_ops/array_ops_test.py ExpandDimsTest / SqueezeTest (gradients)")
def kt_expand_squeeze_gradients(tf):
    x = tf.constant(_randn(903, (3, 1, 2)))
    y = tf.squeeze(tf.expand_dims(x, 0))
    return _vg(tf, y, (3, 2), [x], 904)


@_ported(_TF_KT + "array_ops/one_hot_op_test.py OneHotTest.testFloatBasic (as labels of a loss)")
def kt_one_hot_in_loss(tf):
    idx = tf.constant([0, 2, -1, 1], tf.int64)
    logits = tf.constant(_randn(905, (4, 3)))
    labels = tf.one_hot(idx, 3, dtype=tf.float64)
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return {"fetches": [labels, xent, tf.gradients(tf.reduce_sum(xent), logits)], "feeds": {}}


@_ported(_TF_KT + "array_ops/cast_op_test.py CastOpTest.testGradients")
def kt_cast_gradients(tf):
    x = tf.constant(np.array([1.5, -2.25, 3.0], np.float32))
    y64 = tf.cast(x, tf.float64)
    y16 = tf.cast(x, tf.float16)
    loss = tf.reduce_sum(y64 * y64) + tf.cast(tf.reduce_sum(y16), tf.float64)
    return {"fetches": [y64, y16, loss, tf.gradients(loss, x)], "feeds": {}}


@_ported(_TF_KT + "array_ops/cast_op_test.py CastOpTest.testIntToFloatBoundary / float to int")
def kt_cast_float_to_int(tf):
    x = tf.constant(np.array([1.7, -1.7, 0.5, -0.5, 2.5], np.float32))
    return {
        "fetches": [
            tf.cast(x, tf.int32),
            tf.cast(x, tf.int64),
            tf.cast(tf.cast(x, tf.int32), tf.float32),
        ],
        "feeds": {},
    }


@_ported(_TF_KT + "math_ops/cwise_ops_test.py TruncateDivTest / int truediv to float64")
def kt_int_truediv(tf):
    x = tf.constant(np.array([1, 2, 3, -7], np.int32))
    y = tf.constant(np.array([2, 4, 3, 2], np.int32))
    return {"fetches": [x / y, tf.truediv(x, y)], "feeds": {}}


@_ported(_TF_KT + "variables/variables_test.py VariablesTestCase (gradient to a Variable)")
def kt_variable_gradient(tf):
    w = tf.Variable(np.array([[1.0, -2.0], [0.5, 3.0]], np.float32), name="w")
    x = tf.constant(np.array([[1.0], [2.0]], np.float32))
    y = tf.reduce_sum(tf.tanh(tf.matmul(w, x)))
    return {"fetches": [y, tf.gradients(y, w)], "feeds": {}}


# ---------------------------------------------------------------------------
# tangent tests/functions.py (scalar a, b, c; vector x)
# ---------------------------------------------------------------------------

_A, _B, _C = 1.5, -0.75, 2.25


def _scalar_fn(fn, argc, seed, dtype="float64"):
    def build(tf):
        args = [tf.constant(v, getattr(tf, dtype)) for v in (_A, _B, _C)[:argc]]
        y = fn(tf, *args)
        g = tf.gradients(y, args)
        gg = tf.gradients(g[0], args[0]) if g[0] is not None else [None]
        return {"fetches": [y, g, gg], "feeds": {}}

    return build


_TANGENT_SCALAR = [
    ("id_", 1, lambda tf, a: tf.identity(a)),
    ("unary_sub", 1, lambda tf, a: -a),
    ("tanh", 1, lambda tf, a: tf.tanh(a)),
    ("increment", 1, lambda tf, a: a + 1),
    ("saxpy", 3, lambda tf, a, b, c: a * b + c),
    ("mul", 2, lambda tf, a, b: a * b),
    ("add", 2, lambda tf, a, b: a + b),
    ("gradname_aliasing", 1, lambda tf, a: a * a),
    ("test_binop_mul1", 1, lambda tf, a: a * 3.0),
    ("test_binop_mul2", 1, lambda tf, a: 3.0 * a),
    ("test_binop_div1", 1, lambda tf, a: a / 3.0),
    ("test_binop_div2", 1, lambda tf, a: 3.0 / a),
    ("test_binop_div3", 1, lambda tf, a: a / a),
    ("test_binop_sub2", 1, lambda tf, a: 3.0 - a),
    ("test_binop_sub3", 1, lambda tf, a: a - a),
    ("test_binop_add3", 1, lambda tf, a: a + a),
    ("third_pow", 1, lambda tf, a: a * a * a),
    ("direct_third_pow", 1, lambda tf, a: a**3),
    ("gradgrad_pow", 2, lambda tf, a, b: a**b),
    ("gradgrad_pow_twice", 1, lambda tf, a: (a * a) * (a * a)),
    ("numpy_exp2", 1, lambda tf, a: tf.exp(tf.exp(a))),
    ("fn_multiply", 1, lambda tf, a: tf.multiply(a, 3.0)),
]

for _i, (_fname, _argc, _fn) in enumerate(_TANGENT_SCALAR):
    _ported(_TANGENT + _fname, name=f"tangent_{_fname.strip('_')}")(
        _scalar_fn(_fn, _argc, 1000 + _i)
    )


@_ported(_TANGENT + "gradgrad_chain_of_mults (float32)")
def tangent_gradgrad_chain_of_mults_f32(tf):
    a = tf.constant(1.25, tf.float32)
    b = a * a
    c = b * b
    d = c * c
    g = tf.gradients(d, a)[0]
    return {"fetches": [d, g, tf.gradients(g, a)], "feeds": {}}


@_ported(_TANGENT + "multivar_if (both branches, as where)")
def tangent_multivar_if(tf):
    a = tf.constant([2.0, -1.0], tf.float64)
    b = tf.constant([1.0, 3.0], tf.float64)
    y = tf.where(a > b, a * a, a * b)
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y), [a, b])], "feeds": {}}


@_ported(_TANGENT + "overwrite_ifelse (three branches, as nested where, at 0)")
def tangent_overwrite_ifelse(tf):
    a = tf.constant([2.0, -1.0, 0.0], tf.float64)
    # `0 > a` as tangent writes it: a number on the left of a comparison (reflected operator)
    y = tf.where(a > 0, a * 3.0, tf.where(0 > a, a * 2.0, 1.0 * a))  # noqa: SIM300
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y), a)], "feeds": {}}


@_ported(_TANGENT + "sum_ / numpy_sum / numpy_mean (placeholder [None])")
def tangent_numpy_sum_mean(tf):
    x = tf.placeholder(tf.float64, shape=[None])
    s, m = tf.reduce_sum(x), tf.reduce_mean(x)
    return {
        "fetches": [s, m, tf.gradients(s, x), tf.gradients(m, x)],
        "feeds": {x: _randn(1100, (5,))},
    }


@_ported(_TANGENT + "overwrite_call (x = sum(x); x * x)")
def tangent_overwrite_call(tf):
    x = tf.constant(_randn(1101, (4,)))
    s = tf.reduce_sum(x)
    y = s * s
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TANGENT + "numpy_sqrt (placeholder, no shape)")
def tangent_numpy_sqrt_unshaped(tf):
    x = tf.placeholder(tf.float32)
    y = tf.sqrt(x)
    return {
        "fetches": [y, tf.gradients(y, x)],
        "feeds": {x: np.array([[0.5, 4.0], [9.0, 2.0]], np.float32)},
    }


@_ported(_TANGENT + "logistic_regression")
def tangent_logistic_regression(tf):
    inp = tf.constant(_randn(1102, (3, 4)))
    label = tf.constant(np.array([[1.0], [0.0], [1.0]]))
    w = tf.constant(_randn(1103, (4, 1)))
    b = tf.constant(np.array([0.1]))
    h1 = tf.matmul(inp, w) + b
    prediction = 0.5 * (tf.tanh(h1) + 1)
    probs = prediction * label + (1 - prediction) * (1 - label)
    loss = -tf.reduce_sum(tf.log(probs))
    return {"fetches": [loss, tf.gradients(loss, [inp, w, b])], "feeds": {}}


@_ported(_TANGENT + "bilinear")
def tangent_bilinear(tf):
    x = tf.constant(_randn(1104, (2, 3)))
    h = tf.constant(_randn(1105, (2, 4)))
    u = tf.constant(_randn(1106, (4, 5)))
    w = tf.constant(_randn(1107, (3, 5)))
    b = tf.constant(_randn(1108, (5,)))
    y = tf.reduce_sum(tf.tanh(tf.matmul(x, w) + tf.matmul(h, u) + b))
    return {"fetches": [y, tf.gradients(y, [x, h, u, w, b])], "feeds": {}}


@_ported(_TANGENT + "rnn (h[t + 1] = inputs[t] . W + h[t])")
def tangent_rnn(tf):
    inputs = tf.constant(_randn(1109, (3, 2)))
    w = tf.constant(_randn(1110, (2, 3)))
    h = [tf.zeros([3], tf.float64)]
    for t in range(3):
        h.append(tf.linalg.matvec(tf.transpose(w), inputs[t]) + h[t])
    y = tf.reduce_sum(tf.stack(h[1:]))
    return {"fetches": [y, tf.gradients(y, [inputs, w])], "feeds": {}}


@_ported(_TANGENT + "slicing (sum(x[1:]))")
def tangent_slicing(tf):
    x = tf.placeholder(tf.float64, shape=[None])
    y = tf.reduce_sum(x[1:])
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: _randn(1111, (4,))}}


@_ported(_TANGENT + "extended_slice (sum(x[::2, np.newaxis]))")
def tangent_extended_slice(tf):
    x = tf.constant(_randn(1112, (5, 3)))
    y = tf.reduce_sum(x[::2, None])
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TANGENT + "test_subscript1 (x[0] * x[1])")
def tangent_subscript1(tf):
    x = tf.constant(_randn(1113, (3,)))
    y = x[0] * x[1]
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TANGENT + "test_deep_anf_list (sum([1, x[0]*x[1]*x[2], 3]))")
def tangent_deep_anf_list(tf):
    x = tf.constant(_randn(1114, (3,)))
    y = tf.reduce_sum(
        tf.stack([tf.constant(1.0, tf.float64), x[0] * x[1] * x[2], tf.constant(3.0, tf.float64)])
    )
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TANGENT + "cart2polar (r)")
def tangent_cart2polar(tf):
    a = tf.constant([3.0, 0.0, -1.0], tf.float64)
    b = tf.constant([4.0, 2.0, 0.0], tf.float64)
    r = tf.sqrt(a**2.0 + b**2.0)
    return {"fetches": [r, tf.gradients(tf.reduce_sum(r), [a, b])], "feeds": {}}


@_ported(_TANGENT + "augassign (x = a * a; x *= x)")
def tangent_augassign(tf):
    a = tf.constant(-1.5, tf.float32)
    x = a * a
    x *= x
    return {"fetches": [x, tf.gradients(x, a)], "feeds": {}}


@_ported(_TANGENT + "tfe_reduce_sum / tfe_reduce_sum_axis (keepdims)")
def tangent_tfe_reduce_sum(tf):
    t = tf.constant(_randn(1115, (2, 3, 4, 2)))
    a = tf.reduce_sum(t, None, True)
    b = tf.reduce_sum(t, [0, 1, 2], True)
    return {"fetches": [a, b, tf.gradients(_loss(tf, b, (1, 1, 1, 2), 1116) + a, t)], "feeds": {}}


@_ported(_TANGENT + "tfe_reduce_mean_axis")
def tangent_tfe_reduce_mean_axis(tf):
    t = tf.constant(_randn(1117, (2, 3, 4, 2), "float32"))
    y = tf.reduce_mean(t, [0, 1, 2], False)
    return _vg(tf, y, (2,), [t], 1118, "float32")


@_ported(_TANGENT + "tfe_reduce_max_axis")
def tangent_tfe_reduce_max_axis(tf):
    t = tf.constant(_randn(1119, (2, 3, 4, 2)))
    y = tf.reduce_max(t, [0, 1, 2], True)
    return _vg(tf, y, (1, 1, 1, 2), [t], 1120)


@_ported(_TANGENT + "tfe_add_bcast (scalar + tensor)")
def tangent_tfe_add_bcast(tf):
    s = tf.constant(0.5, tf.float32)
    t = tf.constant(_randn(1121, (2, 3), "float32"))
    return _vg(tf, tf.add(s, t), (2, 3), [s, t], 1122, "float32")


@_ported(_TANGENT + "tfe_divide / tfe_multiply / tfe_subtract")
def tangent_tfe_divide_multiply(tf):
    t1 = tf.constant(_randn(1123, (2, 3)))
    t2 = tf.constant(_arr(1124, (2, 3), 0.5, 2.0))
    y = tf.divide(t1, t2) + tf.multiply(t1, t2) - tf.subtract(t2, t1)
    return _vg(tf, y, (2, 3), [t1, t2], 1125)


@_ported(_TANGENT + "tfe_maximum (placeholders [None])")
def tangent_tfe_maximum_placeholders(tf):
    t1 = tf.placeholder(tf.float32, shape=[None])
    t2 = tf.placeholder(tf.float32, shape=[None])
    y = tf.maximum(t1, t2)
    feeds = {t1: np.array([1.0, 2.0, 3.0], np.float32), t2: np.array([3.0, 2.0, 1.0], np.float32)}
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y * y), [t1, t2])], "feeds": feeds}


@_ported(_TANGENT + "tfe_matmul_highdim (transpose_a, transpose_b)")
def tangent_tfe_matmul_highdim(tf):
    a = tf.constant(_randn(1126, (2, 3, 4)))
    b = tf.constant(_randn(1127, (2, 5, 3)))
    y = tf.matmul(a, b, transpose_a=True, transpose_b=True)
    return _vg(tf, y, (2, 4, 5), [a, b], 1128)


@_ported(_TANGENT + "tfe_rsqrt / tfe_exp / tfe_log (float64)")
def tangent_tfe_rsqrt_exp_log(tf):
    t = tf.constant(_arr(1129, (2, 3), 0.5, 3.0))
    y = tf.rsqrt(t) * tf.exp(t) - tf.log(t)
    return _vg(tf, y, (2, 3), [t], 1130)


@_ported(_TANGENT + "tfe_expand_dims_before / tfe_squeeze_before")
def tangent_tfe_expand_squeeze(tf):
    t = tf.constant(_randn(1131, (2, 3)))
    y = tf.squeeze(tf.expand_dims(t, 1), 1) * tf.expand_dims(t, 0)
    return _vg(tf, y, (1, 2, 3), [t], 1132)


@_ported(_TANGENT + "tfe_reshape_flat")
def tangent_tfe_reshape_flat(tf):
    t = tf.constant(_randn(1133, (2, 3, 2)))
    return _vg(tf, tf.reshape(t, (-1,)), (12,), [t], 1134)


@_ported(_TANGENT + "tfe_reshape_noop (reshape to tf.shape(t))")
def tangent_tfe_reshape_noop(tf):
    t = tf.constant(_randn(1135, (2, 3)))
    y = tf.reshape(tf.reshape(t, (-1,)), tf.shape(t))
    return _vg(tf, y, (2, 3), [t], 1136)


@_ported(_TANGENT + "tfe_squared_difference (float16)")
def tangent_tfe_squared_difference_f16(tf):
    t1 = tf.constant(_arr(1137, (2, 3), dtype="float16"))
    t2 = tf.constant(_arr(1138, (2, 3), dtype="float16"))
    return _vg(tf, tf.squared_difference(t1, t2), (2, 3), [t1, t2], 1139, "float16")


# ---------------------------------------------------------------------------
# Second derivatives: autograd's check_grads checks every case above to order
# 2 (its default), so the unary, binary and statistics cases are ported again
# with a second gradient, of the weighted first gradient, through every op.
# ---------------------------------------------------------------------------


def _second(tf, loss, xs, shapes, seed, dtype="float64"):
    """First gradients of ``loss`` w.r.t. ``xs`` and the gradient of their weighted sum."""
    grads = _dense(tf, tf.gradients(loss, xs))
    live = [(g, s) for g, s in zip(grads, shapes, strict=True) if g is not None]
    total = None
    for i, (g, shape) in enumerate(live):
        term = _loss(tf, g, shape, seed + 31 * i, dtype)
        total = term if total is None else total + term
    second = [None] * len(xs) if total is None else _dense(tf, tf.gradients(total, xs))
    return [grads, second]


def _unary_second(op, lims, seed):
    def build(tf):
        x = tf.constant(_arr(seed, (2, 3), *lims))
        y = getattr(tf, op)(x)
        return {
            "fetches": _second(tf, _loss(tf, y, (2, 3), seed + 1), [x], [(2, 3)], seed + 2),
            "feeds": {},
        }

    return build


for _i, (_test, _op, _lims) in enumerate(_UNARY):
    _ported(_AG_SYS + _test + " (check_grads to order 2)", name=f"ag_unary_{_op}_grad2")(
        _unary_second(_op, _lims, 1200 + _i)
    )


def _binary_second(op, lims_a, lims_b, seed):
    def build(tf):
        a = tf.constant(_arr(seed, (1, 4), *lims_a))
        b = tf.constant(_arr(seed + 1, (3, 4), *lims_b))
        loss = _loss(tf, getattr(tf, op)(a, b), (3, 4), seed + 2)
        return {"fetches": _second(tf, loss, [a, b], [(1, 4), (3, 4)], seed + 3), "feeds": {}}

    return build


for _i, (_test, _op, _la, _lb) in enumerate(_BINARY):
    _ported(_AG_SYS + _test + " (check_grads to order 2)", name=f"ag_binary_{_op}_grad2")(
        _binary_second(_op, _la, _lb, 1300 + 10 * _i)
    )


def _stat_second(op, np_fn, axis, seed):
    def build(tf):
        xv = _arr(seed, (3, 4), 0.5, 2.0) * np.where(_arr(seed + 5, (3, 4)) > 0, 1.0, -1.0)
        x = tf.constant(xv)
        y = getattr(tf, op)(x, axis=axis)
        loss = _loss(tf, y, np.shape(np_fn(xv, axis=axis)), seed + 1)
        return {"fetches": _second(tf, loss, [x], [(3, 4)], seed + 2), "feeds": {}}

    return build


for _i, (_test, _op, _np_fn) in enumerate(_STATS):
    _ported(_AG_SYS + _test + " (check_grads to order 2)", name=f"ag_stat_{_op}_axis1_grad2")(
        _stat_second(_op, _np_fn, 1, 1400 + 10 * _i)
    )


# ---------------------------------------------------------------------------
# The unary cases again on a placeholder without a shape (``tf.placeholder(dtype)``),
# the way TF1 tutorials declare inputs, fed a [2, 2] float64 array.
# ---------------------------------------------------------------------------


def _unary_unshaped(op, lims, seed):
    def build(tf):
        x = tf.placeholder(tf.float64)
        y = getattr(tf, op)(x)
        return {
            "fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)],
            "feeds": {x: _arr(seed, (2, 2), *lims)},
        }

    return build


for _i, (_test, _op, _lims) in enumerate(_UNARY):
    _ported(_AG_SYS + _test + " (unshaped placeholder)", name=f"ag_unary_{_op}_unshaped")(
        _unary_unshaped(_op, _lims, 1500 + _i)
    )


# ---------------------------------------------------------------------------
# The binary cases in float32 and float16, a placeholder of shape [None] (fed
# 4 values) against a [3, 4] constant: broadcasting with a batch size
# unknown when the graph is built, and TF's dtype for every result.
# ---------------------------------------------------------------------------


def _binary_none(op, lims_a, lims_b, dtype, seed):
    def build(tf):
        a = tf.placeholder(getattr(tf, dtype), shape=[None])
        b = tf.constant(_arr(seed + 1, (3, 4), *lims_b, dtype=dtype))
        feeds = {a: _arr(seed, (4,), *lims_a, dtype=dtype)}
        return _vg(tf, getattr(tf, op)(a, b), (3, 4), [a, b], seed + 2, dtype, feeds)

    return build


for _i, (_test, _op, _la, _lb) in enumerate(_BINARY):
    for _dt, _tag in (("float32", "f32"), ("float16", "f16")):
        _ported(
            _AG_SYS + _test + f" ({_dt}, placeholder [None])", name=f"ag_binary_{_op}_{_tag}_none"
        )(_binary_none(_op, _la, _lb, _dt, 1600 + 10 * _i))


def _stat_none(op, np_fn, seed):
    def build(tf):
        x = tf.placeholder(tf.float32, shape=[None, 4])
        xv = (
            _arr(seed, (3, 4), 0.5, 2.0) * np.where(_arr(seed + 5, (3, 4)) > 0, 1.0, -1.0)
        ).astype(np.float32)
        y = getattr(tf, op)(x, axis=0)
        return _vg(tf, y, (4,), [x], seed + 1, "float32", {x: xv})

    return build


for _i, (_test, _op, _np_fn) in enumerate(_STATS):
    _ported(
        _AG_SYS + _test + " (float32, placeholder [None, 4], axis 0)",
        name=f"ag_stat_{_op}_f32_none_axis0",
    )(_stat_none(_op, _np_fn, 1700 + 10 * _i))


# ---------------------------------------------------------------------------
# More kernel-test cases: integer arithmetic, batch select, broadcast labels,
# high-rank cross-entropy, out-of-bounds slices, empty batches.
# ---------------------------------------------------------------------------


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testInt32Basic (pow)")
def kt_int32_pow(tf):
    x = tf.constant(np.array([2, 3, -2, 5], np.int32))
    y = tf.constant(np.array([3, 2, 3, 0], np.int32))
    return {"fetches": [tf.pow(x, y), x**2, tf.square(x), -x], "feeds": {}}


@_ported(_TF_KT + "math_ops/cwise_ops_binary_test.py BinaryOpTest.testInt64Basic (pow, sign, abs)")
def kt_int64_pow_sign_abs(tf):
    x = tf.constant(np.array([-4, 0, 3], np.int64))
    return {
        "fetches": [tf.pow(x, 3), tf.sign(x), tf.abs(x), tf.maximum(x, 0), tf.minimum(x, 1)],
        "feeds": {},
    }


@_ported(_TF_KT + "math_ops/cwise_ops_test.py SelectOpTest.testBatchSelect (vector condition)")
def kt_batch_select_vector_condition(tf):
    c = tf.constant([True, False, True])
    x = tf.constant(_randn(1800, (3, 4)))
    y = tf.constant(_randn(1801, (3, 4)))
    z = tf.where(c, x, y)
    return _vg(tf, z, (3, 4), [x, y], 1802)


@_ported(_TF_KT + "math_ops/cwise_ops_test.py SelectOpTest.testScalar (scalar condition)")
def kt_select_scalar_condition(tf):
    c = tf.constant(False)
    x = tf.constant(_randn(1803, (2, 3)))
    y = tf.constant(_randn(1804, (2, 3)))
    return _vg(tf, tf.where(c, x, y), (2, 3), [x, y], 1805)


@_ported(
    _TF_KT + "nn_ops/xent_op_test.py XentTest.testShapeBroadcast (labels [1, 4], logits [3, 4])"
)
def kt_xent_label_broadcast_static(tf):
    labels = tf.constant(np.array([[0.0, 0.0, 0.0, 1.0]], np.float64))
    logits = tf.constant(_randn(1806, (3, 4)))
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    # values only: TF 2.21's gradient of this op fails its own shape check on broadcast labels
    return {"fetches": [xent], "feeds": {}}


@_ported(
    _TF_KT + "nn_ops/xent_op_test.py XentTest.testDim / softmax over axis 1 of a rank-3 tensor"
)
def kt_xent_rank3_axis1(tf):
    labels = tf.constant(np.abs(_randn(1808, (2, 4, 3))))
    logits = tf.constant(_randn(1809, (2, 4, 3)))
    xent = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=1)
    return _vg(tf, xent, (2, 3), [logits, labels], 1810)


@_ported(_TF_KT + "nn_ops/sparse_xent_op_test.py SparseXentTest.testHighDim")
def kt_sparse_xent_high_dim(tf):
    labels = tf.constant(np.array([[3, 0], [1, 2]], np.int32))
    logits = tf.constant(_randn(1811, (2, 2, 4), "float32"))
    xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, xent, (2, 2), [logits], 1812, "float32")


@_ported(_TF_KT + "nn_ops/softmax_op_test.py SoftmaxTest.testFloat (rank 3, axis 1)")
def kt_softmax_rank3_axis1_f32(tf):
    x = tf.constant(_randn(1813, (2, 3, 4), "float32"))
    return _vg(tf, tf.nn.softmax(x, axis=1), (2, 3, 4), [x], 1814, "float32")


@_ported(_TF_OPS + "nn_xent_test.py SigmoidCrossEntropyWithLogitsTest.testLogisticOutput (float16)")
def kt_sigmoid_xent_f16(tf):
    logits = tf.constant(np.array([-30.0, -2.0, 0.0, 2.0, 30.0], np.float16))
    targets = tf.constant(np.array([0.0, 1.0, 0.5, 0.0, 1.0], np.float16))
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return _vg(tf, loss, (5,), [logits, targets], 1815, "float16")


@_ported(
    _TF_KT + "array_ops/slice_op_test.py / autograd test_index_slice (out-of-bounds bounds clamp)"
)
def kt_slice_out_of_bounds(tf):
    x = tf.constant(_randn(1816, (5, 3)))
    y = x[3:100, -100:2]
    return _vg(tf, y, (2, 2), [x], 1817)


@_ported(_TF_KT + "array_ops/array_ops_test.py StridedSliceTest (negative index shrink)")
def kt_slice_negative_index(tf):
    x = tf.constant(_randn(1818, (4, 3)))
    return _vg(tf, x[-1] * 2.0 + x[1:, -2], (3,), [x], 1819)


@_ported(_TF_KT + "math_ops/reduction_ops_test.py SumReductionTest.testEmptyGradients (batch of 0)")
def kt_sum_empty_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3])
    y = tf.reduce_sum(x, axis=0)
    return {"fetches": [y, tf.gradients(tf.reduce_sum(y * y), x)], "feeds": {x: np.zeros((0, 3))}}


@_ported(
    _TF_KT + "math_ops/reduction_ops_test.py MeanReductionTest.testEmptyGradients (batch of 0)"
)
def kt_mean_empty_batch(tf):
    x = tf.placeholder(tf.float32, shape=[None])
    y = tf.reduce_mean(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: np.zeros((0,), np.float32)}}


@_ported(_TF_KT + "math_ops/reduction_ops_test.py MaxReductionTest.testInt64Reduce3D (ties)")
def kt_max_int64_3d(tf):
    x = tf.constant(np.array([[[1, 5], [5, 2]], [[0, 0], [-1, 7]]], np.int64))
    return {
        "fetches": [tf.reduce_max(x, axis=[0, 2]), tf.reduce_min(x), tf.reduce_prod(x, axis=2)],
        "feeds": {},
    }


@_ported(_TF_KT + "nn_ops/relu_op_test.py ReluTest.testInt32 / testNumbersWithZero")
def kt_relu_int32(tf):
    x = tf.constant(np.array([[-9, 7, -5, 3, -1], [1, -3, 5, 0, 9]], np.int32))
    return {"fetches": [tf.nn.relu(x)], "feeds": {}}


@_ported(_TF_OPS + "nn_test.py L2LossTest.testGradient (scalar)")
def kt_l2_loss_scalar(tf):
    x = tf.constant(-3.0, tf.float64)
    y = tf.nn.l2_loss(x)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testGradientsWithGradYs (float16)")
def tf_grad_ys_f16(tf):
    x = tf.constant(np.array([0.5, 1.0, 2.0], np.float16))
    y = tf.sin(x) * x
    gy = tf.constant(np.array([1.0, -2.0, 0.5], np.float16))
    return {"fetches": [y, tf.gradients(y, x, grad_ys=gy)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py HessianTest.testHessian1D (with a stop_gradient term)")
def tf_hessian_with_stop_gradient(tf):
    x = tf.constant(np.array([1.0, -2.0, 0.5], np.float32))
    y = tf.reduce_sum(x * x * tf.stop_gradient(x)) + tf.reduce_sum(tf.exp(x))
    return {"fetches": [y, tf.hessians(y, x)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testVariableReadValueGradient")
def tf_variable_read_value_gradient(tf):
    v = tf.Variable(np.array([1.0, 2.0], np.float64), name="v")
    y = tf.reduce_sum(v.read_value() ** 3)
    return {"fetches": [y, tf.gradients(y, v)], "feeds": {}}


@_ported(_TF_OPS + "gradients_test.py GradientsTest.testIdentity (gradients(y, y))")
def tf_gradients_of_self(tf):
    x = tf.constant(_randn(1820, (2, 3), "float32"))
    k = tf.constant(np.array([1, 2], np.int32))
    return {"fetches": [tf.gradients(x, x), tf.gradients(k, k)], "feeds": {}}


@_ported(
    _TF_KT + "array_ops/concat_op_test.py ConcatOpTest.testConcatTuple (one input) / split num 1"
)
def kt_concat_one_split_one(tf):
    x = tf.constant(_randn(1821, (2, 3)))
    y = tf.split(tf.concat([x], 0), 1, axis=1)[0]
    return _vg(tf, y, (2, 3), [x], 1822)


@_ported(_TF_KT + "array_ops/stack_op_test.py StackOpTest.testSimple (scalars)")
def kt_stack_scalars(tf):
    a = tf.constant(1.5, tf.float32)
    b = tf.constant(-2.0, tf.float32)
    s = tf.stack([a, b, a * b])
    return _vg(tf, s, (3,), [a, b], 1823, "float32")


@_ported(_TF_KT + "array_ops/array_ops_test.py ExpandDimsTest (scalar, axis -1)")
def kt_expand_dims_scalar(tf):
    x = tf.constant(2.5, tf.float64)
    y = tf.expand_dims(tf.expand_dims(x, -1), 0)
    return _vg(tf, y, (1, 1), [x], 1824)


@_ported(
    _TF_KT + "math_ops/cwise_ops_test.py SelectOpTest.testBatchSelect (square: rows, not columns)"
)
def kt_batch_select_square(tf):
    # TF1's where with a vector condition picks rows of x and y, also when
    # the condition's length equals the last dimension too
    c = tf.constant([True, False, False])
    x = tf.constant(_randn(1825, (3, 3)))
    y = tf.constant(_randn(1826, (3, 3)))
    return _vg(tf, tf.where(c, x, y), (3, 3), [x, y], 1827)
