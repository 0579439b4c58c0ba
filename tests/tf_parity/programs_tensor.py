"""Corpus of TF1 graph programs for the tensor ops (TensorFlow parity tests).

Same conventions as ``programs.py``: every program is a plain function
``fn(tf)`` taking the graph-API module (``tensorflow.compat.v1`` when
recording, ``symgrad`` when testing), building a graph in the current default
graph and returning ``{"fetches": [...], "feeds": {...}}`` (optionally
``"rtol"``).  Fetch entries may be nested lists; they are flattened with
:func:`programs.flatten_fetches`.  Programs never create sessions.

Covered here: reductions (``reduce_sum/mean/max/min/prod/logsumexp``),
``matmul``/``tensordot``/``einsum``/``linalg.matvec``, shape ops (reshape,
transpose, expand_dims, squeeze, concat, stack, unstack, split, tile,
broadcast_to, gather, ``__getitem__``), tensors made from shapes (zeros, ones,
fill, range, one_hot, eye, ...), ``tf.nn`` softmax and losses,
``tf.losses.mean_squared_error``, numerically extreme logits, ``tf.hessians``
and gradients of gradients, placeholders with a ``None`` batch dimension,
``math.multiply_no_nan`` (inf/NaN where y is 0) and ``math.reduce_euclidean_norm`` (a zero
row).

Almost every program fetches the op's value(s), a scalar loss made from the
op's output times a fixed random weight array, and ``tf.gradients`` of that
loss with respect to every float input.

``PROGRAMS`` lists all programs in definition order; the fixture file
``tf_fixtures_tensor.json`` (written by ``record_tf_tensor.py``) is keyed by
function ``__name__``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _rs(seed):
    return np.random.RandomState(seed)


def _arr(seed, shape, low=-2.0, high=2.0, dtype=np.float64):
    """Deterministic uniform random array."""
    return _rs(seed).uniform(low, high, size=shape).astype(dtype)


def _wsum(tf, y, shape, seed, dtype=np.float64):
    """Scalar ``reduce_sum(y * W)`` with a fixed random weight ``W`` of ``shape``."""
    w = _arr(seed, shape, -1.0, 1.0, dtype)
    return tf.reduce_sum(y * tf.constant(w))


def _loss_of(tf, outputs, seed, dtype=np.float64):
    """Sum of ``_wsum`` over ``[(tensor, shape), ...]`` with distinct weights."""
    total = None
    for i, (y, shape) in enumerate(outputs):
        term = _wsum(tf, y, shape, seed + 17 * i, dtype)
        total = term if total is None else total + term
    return total


def _vg(tf, y, shape, xs, seed, dtype=np.float64, feeds=None):
    """Fetch the value ``y``, the weighted loss and its gradients w.r.t. ``xs``."""
    loss = _wsum(tf, y, shape, seed, dtype)
    return {"fetches": [y, loss, tf.gradients(loss, xs)], "feeds": feeds or {}}


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------

_R234 = _arr(1, (2, 3, 4))


def _reduce(tf, name, axis, keepdims=None, values=None, dtype=np.float64, seed=11, np_fn=np.sum):
    xv = _R234 if values is None else np.asarray(values)
    xv = xv.astype(dtype)
    x = tf.constant(xv)
    kwargs = {}
    if axis is not None:
        kwargs["axis"] = axis
    if keepdims is not None:
        kwargs["keepdims"] = keepdims
    y = getattr(tf, name)(x, **kwargs)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    shape = np.shape(np_fn(xv, axis=np_axis, keepdims=bool(keepdims)))
    return _vg(tf, y, shape, [x], seed, dtype)


@_program
def reduce_sum_axis_none(tf):
    return _reduce(tf, "reduce_sum", None)


@_program
def reduce_sum_axis1_keepdims(tf):
    return _reduce(tf, "reduce_sum", 1, keepdims=True)


@_program
def reduce_sum_axis_list_f32(tf):
    return _reduce(tf, "reduce_sum", [0, 2], dtype=np.float32)


@_program
def reduce_sum_negative_axis(tf):
    return _reduce(tf, "reduce_sum", -2)


@_program
def reduce_mean_axis_none_keepdims(tf):
    return _reduce(tf, "reduce_mean", None, keepdims=True)


@_program
def reduce_mean_negative_axis(tf):
    return _reduce(tf, "reduce_mean", -1)


@_program
def reduce_mean_axis_list_keepdims_f32(tf):
    return _reduce(tf, "reduce_mean", [-1, 0], keepdims=True, dtype=np.float32)


@_program
def reduce_max_axis_none(tf):
    return _reduce(tf, "reduce_max", None, np_fn=np.max)


@_program
def reduce_max_axis_list(tf):
    return _reduce(tf, "reduce_max", [1, 2], np_fn=np.max)


_TIES = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [-1.0, 5.0, 4.0, 5.0]])


@_program
def reduce_max_ties_axis1(tf):
    # ties in rows: gradient split equally between the tied maxima
    return _reduce(tf, "reduce_max", 1, values=_TIES, np_fn=np.max)


@_program
def reduce_max_ties_axis_none(tf):
    # the global maximum 5.0 appears twice
    return _reduce(tf, "reduce_max", None, values=_TIES, np_fn=np.max)


@_program
def reduce_max_ties_axis0_keepdims_f32(tf):
    vals = np.array([[1.0, 2.0, 3.0], [1.0, 0.5, 3.0], [1.0, 2.0, -3.0]])
    return _reduce(tf, "reduce_max", 0, keepdims=True, values=vals, dtype=np.float32, np_fn=np.max)


@_program
def reduce_min_ties_axis0_keepdims(tf):
    return _reduce(tf, "reduce_min", 0, keepdims=True, values=_TIES, np_fn=np.min)


@_program
def reduce_min_negative_axis_f32(tf):
    return _reduce(tf, "reduce_min", -1, dtype=np.float32, np_fn=np.min)


@_program
def reduce_min_ties_axis_none(tf):
    vals = np.array([[0.5, -2.0, 1.0], [-2.0, 3.0, -2.0]])
    return _reduce(tf, "reduce_min", None, values=vals, np_fn=np.min)


_PROD = _rs(2).uniform(0.5, 1.5, size=(2, 3, 4)) * np.where(
    _rs(3).uniform(size=(2, 3, 4)) > 0.5, 1.0, -1.0
)


@_program
def reduce_prod_axis_none(tf):
    return _reduce(tf, "reduce_prod", None, values=_PROD, np_fn=np.prod)


@_program
def reduce_prod_axis1_keepdims(tf):
    return _reduce(tf, "reduce_prod", 1, keepdims=True, values=_PROD, np_fn=np.prod)


@_program
def reduce_prod_axis_list_f32(tf):
    return _reduce(tf, "reduce_prod", [0, -1], values=_PROD, dtype=np.float32, np_fn=np.prod)


_PROD_ZEROS = np.array(
    [
        [1.5, 0.0, 2.0, -1.0],  # one zero
        [0.0, 3.0, 0.0, 2.0],  # two zeros
        [0.5, 2.0, -1.5, 1.0],
    ]
)  # no zero


@_program
def reduce_prod_zeros_axis1(tf):
    return _reduce(tf, "reduce_prod", 1, values=_PROD_ZEROS, np_fn=np.prod)


@_program
def reduce_prod_one_zero_axis_none(tf):
    vals = np.array([[1.5, -2.0, 0.5], [0.0, 3.0, 1.25]])
    return _reduce(tf, "reduce_prod", None, values=vals, np_fn=np.prod)


@_program
def reduce_prod_two_zeros_axis_none(tf):
    vals = np.array([[1.5, 0.0, 0.5], [0.0, 3.0, 1.25]])
    return _reduce(tf, "reduce_prod", None, values=vals, np_fn=np.prod)


def _np_logsumexp(x, axis=None, keepdims=False):
    return np.sum(x, axis=axis, keepdims=keepdims)  # shape only


@_program
def reduce_logsumexp_axis_none(tf):
    return _reduce(tf, "reduce_logsumexp", None, np_fn=_np_logsumexp)


@_program
def reduce_logsumexp_axis1_keepdims(tf):
    return _reduce(tf, "reduce_logsumexp", 1, keepdims=True, np_fn=_np_logsumexp)


@_program
def reduce_logsumexp_axis_list_f32(tf):
    return _reduce(tf, "reduce_logsumexp", [0, 2], dtype=np.float32, np_fn=_np_logsumexp)


_LARGE = np.array([[1000.0, 999.0, -1000.0], [-1000.0, -1000.0, -999.0]])


@_program
def reduce_logsumexp_large_axis_neg1(tf):
    return _reduce(tf, "reduce_logsumexp", -1, values=_LARGE, np_fn=_np_logsumexp)


@_program
def reduce_logsumexp_large_axis_none(tf):
    return _reduce(tf, "reduce_logsumexp", None, values=_LARGE, np_fn=_np_logsumexp)


@_program
def reduce_legacy_keep_dims_reduction_indices(tf):
    # TF1's deprecated argument names
    x = tf.constant(_R234)
    y1 = tf.reduce_sum(x, reduction_indices=[1], keep_dims=True)
    y2 = tf.reduce_mean(x, reduction_indices=2)
    y3 = tf.reduce_max(x, 0, keep_dims=True)
    loss = _loss_of(tf, [(y1, (2, 1, 4)), (y2, (2, 3)), (y3, (1, 3, 4))], 12)
    return {"fetches": [y1, y2, y3, loss, tf.gradients(loss, x)], "feeds": {}}


_NEG_INF_ROWS = np.array([[-np.inf, -np.inf, -np.inf], [0.5, -np.inf, 1.5]])


@_program
def reduce_logsumexp_neg_inf_constant(tf):
    # an all -inf row gives -inf (and nan gradients); -inf entries of a finite
    # row get a zero gradient
    x = tf.constant(_NEG_INF_ROWS)
    y = tf.reduce_logsumexp(x, axis=1)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {}}


@_program
def reduce_logsumexp_neg_inf_fed(tf):
    x = tf.placeholder(tf.float64, shape=[2, 3])
    y = tf.reduce_logsumexp(x, axis=1)
    return {"fetches": [y, tf.gradients(y, x)], "feeds": {x: _NEG_INF_ROWS}}


@_program
def reduce_mean_none_batch_axis0(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3])
    y1 = tf.reduce_mean(x, axis=0)
    y2 = tf.reduce_mean(x)
    y3 = tf.reduce_max(x, axis=0, keepdims=True)
    loss = _loss_of(tf, [(y1, (3,)), (y2, ()), (y3, (1, 3))], 13)
    return {"fetches": [y1, y2, y3, loss, tf.gradients(loss, x)], "feeds": {x: _arr(14, (4, 3))}}


@_program
def reduce_logsumexp_large_axis0_f32(tf):
    return _reduce(tf, "reduce_logsumexp", 0, values=_LARGE, dtype=np.float32, np_fn=_np_logsumexp)


# ---------------------------------------------------------------------------
# matmul, tensordot, einsum, matvec
# ---------------------------------------------------------------------------


def _matmul(tf, a_shape, b_shape, out_shape, seed, dtype=np.float64, **kw):
    a = tf.constant(_arr(seed, a_shape, dtype=dtype))
    b = tf.constant(_arr(seed + 1, b_shape, dtype=dtype))
    y = tf.matmul(a, b, **kw)
    return _vg(tf, y, out_shape, [a, b], seed + 2, dtype)


@_program
def matmul_2d(tf):
    return _matmul(tf, (2, 3), (3, 4), (2, 4), 20)


@_program
def matmul_2d_transpose_a(tf):
    return _matmul(tf, (3, 2), (3, 4), (2, 4), 21, transpose_a=True)


@_program
def matmul_2d_transpose_b(tf):
    return _matmul(tf, (2, 3), (4, 3), (2, 4), 22, transpose_b=True)


@_program
def matmul_2d_transpose_both(tf):
    return _matmul(tf, (3, 2), (4, 3), (2, 4), 23, transpose_a=True, transpose_b=True)


@_program
def matmul_2d_f32(tf):
    return _matmul(tf, (2, 3), (3, 2), (2, 2), 24, dtype=np.float32)


@_program
def matmul_batched_rank3(tf):
    return _matmul(tf, (2, 2, 3), (2, 3, 4), (2, 2, 4), 25)


@_program
def matmul_batched_rank3_transpose_b(tf):
    return _matmul(tf, (2, 2, 3), (2, 4, 3), (2, 2, 4), 26, transpose_b=True)


@_program
def matmul_batched_rank3_rank2_broadcast(tf):
    return _matmul(tf, (2, 2, 3), (3, 4), (2, 2, 4), 27)


@_program
def matmul_batched_rank2_rank3_broadcast_f32(tf):
    return _matmul(tf, (2, 3), (2, 3, 4), (2, 2, 4), 28, dtype=np.float32)


@_program
def matmul_batched_transpose_a_broadcast(tf):
    return _matmul(tf, (2, 3, 2), (3, 4), (2, 2, 4), 32, transpose_a=True)


@_program
def linalg_matmul_alias_f32(tf):
    a = tf.constant(_arr(33, (2, 3), dtype=np.float32))
    b = tf.constant(_arr(34, (2, 3), dtype=np.float32))
    y = tf.linalg.matmul(a, b, transpose_b=True)
    return _vg(tf, y, (2, 2), [a, b], 35, np.float32)


@_program
def matmul_placeholders_none_batch(tf):
    a = tf.placeholder(tf.float64, shape=[None, 3])
    b = tf.placeholder(tf.float64, shape=[3, 2])
    y = tf.matmul(a, b)
    return _vg(tf, y, (4, 2), [a, b], 29, feeds={a: _arr(30, (4, 3)), b: _arr(31, (3, 2))})


def _tensordot(tf, a_shape, b_shape, axes, out_shape, seed, dtype=np.float64):
    a = tf.constant(_arr(seed, a_shape, dtype=dtype))
    b = tf.constant(_arr(seed + 1, b_shape, dtype=dtype))
    y = tf.tensordot(a, b, axes)
    return _vg(tf, y, out_shape, [a, b], seed + 2, dtype)


@_program
def tensordot_int_axes_1(tf):
    return _tensordot(tf, (2, 3, 4), (4, 3), 1, (2, 3, 3), 40)


@_program
def tensordot_int_axes_2(tf):
    return _tensordot(tf, (2, 3, 4), (3, 4, 2), 2, (2, 2), 41)


@_program
def tensordot_int_axes_0_outer(tf):
    return _tensordot(tf, (2,), (3,), 0, (2, 3), 42)


@_program
def tensordot_list_axes(tf):
    return _tensordot(tf, (2, 3, 4), (4, 3, 5), [[1, 2], [1, 0]], (2, 5), 43)


@_program
def tensordot_list_axes_single_f32(tf):
    return _tensordot(tf, (3, 2), (3, 4), [[0], [0]], (2, 4), 44, dtype=np.float32)


def _einsum(tf, equation, shapes, out_shape, seed, dtype=np.float64):
    xs = [tf.constant(_arr(seed + i, s, dtype=dtype)) for i, s in enumerate(shapes)]
    y = tf.einsum(equation, *xs)
    return _vg(tf, y, out_shape, xs, seed + 10, dtype)


@_program
def einsum_matmul(tf):
    return _einsum(tf, "ij,jk->ik", [(2, 3), (3, 4)], (2, 4), 50)


@_program
def einsum_batch_matmul(tf):
    return _einsum(tf, "bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], (2, 2, 2), 51)


@_program
def einsum_column_sum(tf):
    return _einsum(tf, "ij->j", [(3, 4)], (4,), 52)


@_program
def einsum_dot_f32(tf):
    return _einsum(tf, "i,i->", [(5,), (5,)], (), 53, dtype=np.float32)


@_program
def einsum_matvec(tf):
    return _einsum(tf, "ij,j->i", [(3, 4), (4,)], (3,), 54)


@_program
def einsum_transposed_output(tf):
    return _einsum(tf, "ij,kj->ki", [(2, 3), (4, 3)], (4, 2), 55)


@_program
def einsum_ellipsis_f32(tf):
    return _einsum(tf, "...ij,jk->...ik", [(2, 2, 3), (3, 2)], (2, 2, 2), 56, dtype=np.float32)


@_program
def linalg_matvec(tf):
    a = tf.constant(_arr(60, (3, 4)))
    b = tf.constant(_arr(61, (4,)))
    y = tf.linalg.matvec(a, b)
    return _vg(tf, y, (3,), [a, b], 62)


@_program
def linalg_matvec_transpose_a(tf):
    a = tf.constant(_arr(63, (4, 3)))
    b = tf.constant(_arr(64, (4,)))
    y = tf.linalg.matvec(a, b, transpose_a=True)
    return _vg(tf, y, (3,), [a, b], 65)


@_program
def linalg_matvec_batched_f32(tf):
    a = tf.constant(_arr(66, (2, 3, 4), dtype=np.float32))
    b = tf.constant(_arr(67, (2, 4), dtype=np.float32))
    y = tf.linalg.matvec(a, b)
    return _vg(tf, y, (2, 3), [a, b], 68, np.float32)


# ---------------------------------------------------------------------------
# Shape ops
# ---------------------------------------------------------------------------

_S23 = _arr(70, (2, 3))
_S234 = _arr(71, (2, 3, 4))
_S46 = _arr(72, (4, 6))


@_program
def reshape_minus_one(tf):
    x = tf.constant(_S234)
    y = tf.reshape(x, [-1, 6])
    z = tf.reshape(y, [3, -1, 2])
    loss = _loss_of(tf, [(y, (4, 6)), (z, (3, 4, 2))], 73)
    return {"fetches": [y, z, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def reshape_to_vector_f32(tf):
    x = tf.placeholder(tf.float32, shape=[2, 3])
    y = tf.reshape(tf.sin(x), [-1])
    return _vg(tf, y, (6,), [x], 74, np.float32, feeds={x: _S23.astype(np.float32)})


@_program
def transpose_default(tf):
    x = tf.constant(_S234)
    y = tf.transpose(x)
    return _vg(tf, y, (4, 3, 2), [x], 75)


@_program
def transpose_perm(tf):
    x = tf.constant(_S234)
    y = tf.transpose(x, perm=[1, 2, 0])
    return _vg(tf, y, (3, 4, 2), [x], 76)


@_program
def transpose_2d_f32(tf):
    x = tf.constant(_S23.astype(np.float32))
    y = tf.transpose(x) * 2.0
    return _vg(tf, y, (3, 2), [x], 77, np.float32)


@_program
def expand_dims_axes(tf):
    x = tf.constant(_S23)
    y0 = tf.expand_dims(x, 0)
    y1 = tf.expand_dims(x, -1)
    y2 = tf.expand_dims(x, 1)
    loss = _loss_of(tf, [(y0, (1, 2, 3)), (y1, (2, 3, 1)), (y2, (2, 1, 3))], 78)
    return {"fetches": [y0, y1, y2, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def squeeze_axis(tf):
    x = tf.constant(_arr(79, (1, 3, 1, 2)))
    y0 = tf.squeeze(x, axis=[0, 2])
    y1 = tf.squeeze(x, axis=2)
    y2 = tf.squeeze(x)
    loss = _loss_of(tf, [(y0, (3, 2)), (y1, (1, 3, 2)), (y2, (3, 2))], 80)
    return {"fetches": [y0, y1, y2, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def squeeze_negative_axis_f32(tf):
    x = tf.constant(_arr(81, (3, 1), dtype=np.float32))
    y = tf.squeeze(x, axis=-1)
    return _vg(tf, y, (3,), [x], 82, np.float32)


@_program
def concat_axis0(tf):
    a = tf.constant(_arr(83, (2, 3)))
    b = tf.constant(_arr(84, (1, 3)))
    y = tf.concat([a, b], 0)
    return _vg(tf, y, (3, 3), [a, b], 85)


@_program
def concat_negative_axis_three(tf):
    a = tf.constant(_arr(86, (2, 1)))
    b = tf.constant(_arr(87, (2, 3)))
    c = tf.placeholder(tf.float64, shape=[2, 2])
    y = tf.concat([a, b, c], axis=-1)
    return _vg(tf, y, (2, 6), [a, b, c], 88, feeds={c: _arr(89, (2, 2))})


@_program
def concat_same_tensor_twice_f32(tf):
    a = tf.constant(_arr(90, (2, 2), dtype=np.float32))
    y = tf.concat([a, a * 3.0], axis=1)
    return _vg(tf, y, (2, 4), [a], 91, np.float32)


@_program
def stack_axis0(tf):
    a = tf.constant(_arr(92, (3,)))
    b = tf.constant(_arr(93, (3,)))
    y = tf.stack([a, b])
    return _vg(tf, y, (2, 3), [a, b], 94)


@_program
def stack_axis1(tf):
    a = tf.constant(_arr(95, (2, 3)))
    b = tf.constant(_arr(96, (2, 3)))
    c = tf.constant(_arr(97, (2, 3)))
    y = tf.stack([a, b, c], axis=1)
    return _vg(tf, y, (2, 3, 3), [a, b, c], 98)


@_program
def unstack_axis0(tf):
    x = tf.constant(_arr(99, (3, 2)))
    parts = tf.unstack(x)
    loss = _loss_of(tf, [(p, (2,)) for p in parts], 100)
    return {"fetches": [parts, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def unstack_axis1_partial_use(tf):
    x = tf.constant(_arr(101, (2, 3)))
    parts = tf.unstack(x, axis=1)
    loss = _loss_of(tf, [(parts[0], (2,)), (parts[2], (2,))], 102)
    return {"fetches": [parts, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def split_int(tf):
    x = tf.constant(_S46)
    parts = tf.split(x, 3, axis=1)
    loss = _loss_of(tf, [(p, (4, 2)) for p in parts], 103)
    return {"fetches": [parts, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def split_size_list(tf):
    x = tf.constant(_S46)
    parts = tf.split(x, [1, 3, 2], axis=1)
    loss = _loss_of(tf, [(parts[0], (4, 1)), (parts[1], (4, 3)), (parts[2], (4, 2))], 104)
    return {"fetches": [parts, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def split_size_list_minus_one_partial_use_f32(tf):
    x = tf.constant(_S46.astype(np.float32))
    parts = tf.split(x, [1, -1], 0)
    loss = _loss_of(tf, [(parts[1], (3, 6))], 105, np.float32)
    return {"fetches": [parts, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def tile_2d(tf):
    x = tf.constant(_S23)
    y = tf.tile(x, [2, 3])
    return _vg(tf, y, (4, 9), [x], 106)


@_program
def tile_3d_ones(tf):
    x = tf.constant(_arr(107, (1, 2, 2)))
    y = tf.tile(x, [3, 1, 2])
    return _vg(tf, y, (3, 2, 4), [x], 108)


@_program
def broadcast_to_vector(tf):
    x = tf.constant(_arr(109, (3,)))
    y = tf.broadcast_to(x, [2, 3])
    return _vg(tf, y, (2, 3), [x], 110)


@_program
def broadcast_to_rank3_f32(tf):
    x = tf.constant(_arr(111, (2, 1), dtype=np.float32))
    y = tf.broadcast_to(x, [4, 2, 3])
    return _vg(tf, y, (4, 2, 3), [x], 112, np.float32)


@_program
def gather_axis0_repeated(tf):
    # the gradient w.r.t. params is IndexedSlices in TensorFlow: densify it
    x = tf.constant(_arr(113, (4, 3)))
    idx = tf.constant(np.array([2, 0, 2, 3, 2], np.int32))
    y = tf.gather(x, idx)
    loss = _wsum(tf, y, (5, 3), 114)
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(loss, [x])]
    return {"fetches": [y, loss, grads], "feeds": {}}


@_program
def gather_axis0_through_tanh(tf):
    x = tf.constant(_arr(115, (5,)))
    y = tf.gather(tf.tanh(x), np.array([4, 1, 1, 0], np.int64))
    return _vg(tf, y, (4,), [x], 116)


@_program
def gather_axis1_repeated(tf):
    x = tf.constant(_arr(117, (2, 4)))
    y = tf.gather(x, [3, 3, 0, 1, 3], axis=1)
    return _vg(tf, y, (2, 5), [x], 118)


@_program
def gather_axis1_matrix_indices_f32(tf):
    x = tf.constant(_arr(119, (3, 4), dtype=np.float32))
    idx = np.array([[0, 1], [1, 1], [3, 0]], np.int32)
    y = tf.gather(x, idx, axis=1)
    return _vg(tf, y, (3, 3, 2), [x], 120, np.float32)


@_program
def gather_negative_axis_placeholder_indices(tf):
    x = tf.constant(_arr(145, (2, 3)))
    idx = tf.placeholder(tf.int32, shape=[None])
    y = tf.gather(x, idx, axis=-1)
    return _vg(tf, y, (2, 4), [x], 146, feeds={idx: np.array([2, 0, 2, 2], np.int32)})


_G45 = _arr(121, (4, 5))


@_program
def getitem_range(tf):
    x = tf.constant(_G45)
    y = x[1:3]
    return _vg(tf, y, (2, 5), [x], 122)


@_program
def getitem_step(tf):
    x = tf.constant(_G45)
    y = x[:, ::2]
    return _vg(tf, y, (4, 3), [x], 123)


@_program
def getitem_negative_index(tf):
    x = tf.constant(_G45)
    y = x[-1]
    return _vg(tf, y, (5,), [x], 124)


@_program
def getitem_ellipsis(tf):
    x = tf.constant(_arr(125, (2, 3, 4)))
    y = x[..., 0]
    return _vg(tf, y, (2, 3), [x], 126)


@_program
def getitem_newaxis(tf):
    x = tf.constant(_G45)
    y = x[:, None, 1:]
    return _vg(tf, y, (4, 1, 4), [x], 127)


@_program
def getitem_reverse(tf):
    x = tf.constant(_G45)
    y = x[::-1]
    return _vg(tf, y, (4, 5), [x], 128)


@_program
def getitem_negative_step_range(tf):
    x = tf.constant(_G45)
    y = x[3:0:-2, -1:1:-1]
    return _vg(tf, y, (2, 3), [x], 147)


@_program
def getitem_scalar_element(tf):
    x = tf.constant(_G45)
    y = x[1, 2] * x[-1, -1]
    return _vg(tf, y, (), [x], 148)


@_program
def getitem_scalar_through_tanh_f32(tf):
    # minimal: d tanh(x)[0] / dx for float32 x
    x = tf.placeholder(tf.float32, shape=[3])
    y = tf.tanh(x)[0]
    return {
        "fetches": [y, tf.gradients(y, x)],
        "feeds": {x: np.array([0.5, -1.0, 2.0], np.float32)},
    }


@_program
def getitem_mixed_f32(tf):
    x = tf.placeholder(tf.float32, shape=[4, 5])
    y = x[1:, -2] * x[:3, 0]
    return _vg(tf, y, (3,), [x], 129, np.float32, feeds={x: _G45.astype(np.float32)})


@_program
def dynamic_batch_shape_ops(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3])
    y1 = tf.concat([x, x * 2.0], axis=1)
    y2 = tf.reshape(x, [-1])
    y3 = tf.transpose(x)
    y4 = x[:, 1:]
    y5 = tf.expand_dims(x, 1)
    y6 = tf.stack([x, tf.sin(x)], axis=-1)
    parts = tf.split(x, [2, 1], axis=1)
    loss = _loss_of(
        tf,
        [
            (y1, (4, 6)),
            (y2, (12,)),
            (y3, (3, 4)),
            (y4, (4, 2)),
            (y5, (4, 1, 3)),
            (y6, (4, 3, 2)),
            (parts[1], (4, 1)),
        ],
        149,
    )
    return {
        "fetches": [y1, y2, y3, y4, y5, y6, parts, loss, tf.gradients(loss, x)],
        "feeds": {x: _arr(249, (4, 3))},
    }


# ---------------------------------------------------------------------------
# Tensors made from shapes, inside differentiable expressions
# ---------------------------------------------------------------------------


@_program
def creation_zeros_ones(tf):
    x = tf.constant(_S23)
    y = (x + tf.zeros([2, 3], dtype=tf.float64)) * tf.ones([3], dtype=tf.float64) + tf.ones(
        [2, 1], tf.float64
    ) * x * x
    return _vg(tf, y, (2, 3), [x], 130)


@_program
def creation_zeros_ones_default_f32(tf):
    x = tf.constant(_S23.astype(np.float32))
    y = tf.concat([x, tf.zeros([2, 1])], axis=1) + tf.ones([2, 4])
    return _vg(tf, y, (2, 4), [x], 131, np.float32)


@_program
def creation_zeros_like_ones_like(tf):
    x = tf.constant(_S23)
    y = x * tf.ones_like(x) + tf.zeros_like(x) + tf.sin(x) * tf.ones_like(x)
    return _vg(tf, y, (2, 3), [x], 132)


@_program
def creation_fill_f32(tf):
    x = tf.constant(_S23.astype(np.float32))
    y = x * tf.fill([2, 3], 2.5) - tf.fill([3], -1.0)
    return _vg(tf, y, (2, 3), [x], 133, np.float32)


@_program
def creation_range(tf):
    x = tf.constant(_arr(134, (4,)))
    r1 = tf.range(4, dtype=tf.float64)
    r2 = tf.cast(tf.range(1, 9, 2), tf.float64)
    r3 = tf.range(0.5, 2.5, 0.5, dtype=tf.float64)
    y = x * r1 + r2 * x * x + r3
    return {"fetches": [r1, r2, r3, y, _vg(tf, y, (4,), [x], 135)["fetches"]], "feeds": {}}


@_program
def creation_one_hot(tf):
    x = tf.constant(_arr(136, (3, 4)))
    oh = tf.one_hot([0, 3, 3], 4, dtype=tf.float64)
    y = tf.reduce_sum(x * oh, axis=1)
    return {"fetches": [oh, _vg(tf, y, (3,), [x], 137)["fetches"]], "feeds": {}}


@_program
def creation_one_hot_on_off_axis0_f32(tf):
    x = tf.constant(_arr(138, (3, 2), dtype=np.float32))
    oh = tf.one_hot(np.array([2, 0], np.int32), 3, on_value=2.0, off_value=-0.5, axis=0)
    y = x * oh
    return {"fetches": [oh, _vg(tf, y, (3, 2), [x], 139, np.float32)["fetches"]], "feeds": {}}


@_program
def creation_eye(tf):
    x = tf.constant(_arr(140, (3, 3)))
    i3 = tf.eye(3, dtype=tf.float64)
    y = tf.matmul(x, i3 + x) + tf.eye(3, 3, dtype=tf.float64) * 2.0
    return {"fetches": [i3, _vg(tf, y, (3, 3), [x], 141)["fetches"]], "feeds": {}}


@_program
def creation_eye_rectangular_f32(tf):
    x = tf.constant(_arr(142, (2, 3), dtype=np.float32))
    e = tf.eye(2, num_columns=3)
    y1 = x * e
    y2 = tf.matmul(e, tf.transpose(x))
    loss = _loss_of(tf, [(y1, (2, 3)), (y2, (2, 2))], 143, np.float32)
    return {"fetches": [e, y1, y2, loss, tf.gradients(loss, x)], "feeds": {}}


# ---------------------------------------------------------------------------
# tf.nn: softmax, log_softmax, cross-entropies, l2_loss, bias_add; tf.losses
# ---------------------------------------------------------------------------

_LOGITS = _arr(150, (3, 4), -3.0, 3.0)
_SOFT_LABELS = _rs(151).dirichlet(np.ones(4), size=3)


@_program
def nn_softmax_last_axis(tf):
    x = tf.constant(_LOGITS)
    y = tf.nn.softmax(x)
    return _vg(tf, y, (3, 4), [x], 152)


@_program
def nn_softmax_axis0(tf):
    x = tf.constant(_LOGITS)
    y = tf.nn.softmax(x, axis=0)
    return _vg(tf, y, (3, 4), [x], 153)


@_program
def nn_softmax_f32_placeholder_none_batch(tf):
    x = tf.placeholder(tf.float32, shape=[None, 4])
    y = tf.nn.softmax(x)
    return _vg(tf, y, (3, 4), [x], 154, np.float32, feeds={x: _LOGITS.astype(np.float32)})


@_program
def nn_log_softmax_last_axis(tf):
    x = tf.constant(_LOGITS)
    y = tf.nn.log_softmax(x, axis=-1)
    return _vg(tf, y, (3, 4), [x], 155)


@_program
def nn_log_softmax_axis0_f32(tf):
    x = tf.constant(_LOGITS.astype(np.float32))
    y = tf.nn.log_softmax(x, axis=0)
    return _vg(tf, y, (3, 4), [x], 156, np.float32)


@_program
def nn_softmax_ce_v2(tf):
    labels = tf.constant(_SOFT_LABELS)
    logits = tf.constant(_LOGITS)
    y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return _vg(tf, y, (3,), [labels, logits], 157)


@_program
def nn_softmax_ce_v2_f32_placeholders(tf):
    labels = tf.placeholder(tf.float32, shape=[None, 4])
    logits = tf.placeholder(tf.float32, shape=[None, 4])
    y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return _vg(
        tf,
        y,
        (3,),
        [labels, logits],
        158,
        np.float32,
        feeds={labels: _SOFT_LABELS.astype(np.float32), logits: _LOGITS.astype(np.float32)},
    )


@_program
def nn_softmax_ce_v1_labels_none(tf):
    labels = tf.constant(_SOFT_LABELS)
    logits = tf.constant(_LOGITS)
    y = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, y, (3,), [labels, logits], 159)


@_program
def nn_sparse_softmax_ce(tf):
    labels = tf.constant(np.array([0, 3, 1], np.int32))
    logits = tf.constant(_LOGITS)
    y = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, y, (3,), [logits], 160)


@_program
def nn_sparse_softmax_ce_int64_placeholder_f32(tf):
    labels = tf.placeholder(tf.int64, shape=[None])
    logits = tf.placeholder(tf.float32, shape=[None, 4])
    y = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(
        tf,
        y,
        (3,),
        [logits],
        161,
        np.float32,
        feeds={labels: np.array([2, 2, 0], np.int64), logits: _LOGITS.astype(np.float32)},
    )


@_program
def nn_sigmoid_ce(tf):
    labels = tf.constant(_rs(162).uniform(0.0, 1.0, size=(3, 4)))
    logits = tf.constant(_LOGITS)
    y = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, y, (3, 4), [labels, logits], 163)


@_program
def nn_l2_loss(tf):
    x = tf.constant(_S23)
    y = tf.nn.l2_loss(x)
    return {"fetches": [y, tf.gradients(y, x), tf.gradients(y * 3.0, x)], "feeds": {}}


@_program
def nn_l2_loss_f32(tf):
    x = tf.constant(_S234.astype(np.float32))
    y = tf.nn.l2_loss(x)
    return _vg(tf, y, (), [x], 164, np.float32)


@_program
def nn_bias_add(tf):
    v = tf.constant(_arr(165, (2, 3, 4)))
    b = tf.constant(_arr(166, (4,)))
    y = tf.nn.bias_add(v, b)
    return _vg(tf, y, (2, 3, 4), [v, b], 167)


@_program
def nn_bias_add_f32_none_batch(tf):
    v = tf.placeholder(tf.float32, shape=[None, 3])
    b = tf.Variable(np.array([0.5, -1.0, 2.0], np.float32), name="b")
    y = tf.nn.bias_add(v, b)
    return _vg(tf, y, (2, 3), [v, b], 168, np.float32, feeds={v: _S23.astype(np.float32)})


_MSE_LABELS = _arr(170, (3, 2))
_MSE_PRED = _arr(171, (3, 2))


@_program
def losses_mse_default_weight_f32(tf):
    labels = tf.constant(_MSE_LABELS.astype(np.float32))
    pred = tf.constant(_MSE_PRED.astype(np.float32))
    y = tf.losses.mean_squared_error(labels, pred)
    return {"fetches": [y, tf.gradients(y, [labels, pred])], "feeds": {}}


@_program
def losses_mse_scalar_weight_f32(tf):
    labels = tf.constant(_MSE_LABELS.astype(np.float32))
    pred = tf.constant(_MSE_PRED.astype(np.float32))
    y = tf.losses.mean_squared_error(labels=labels, predictions=pred, weights=0.5)
    return {"fetches": [y, tf.gradients(y * 3.0, [labels, pred])], "feeds": {}}


@_program
def losses_mse_float64_inputs(tf):
    # TF1 casts labels and predictions to float32 inside the loss
    labels = tf.constant(_MSE_LABELS)
    pred = tf.constant(_MSE_PRED)
    y = tf.losses.mean_squared_error(labels, pred, weights=2.0)
    # The float64 gradients went through float32 arithmetic: compare at float32 precision.
    return {"fetches": [y, tf.gradients(y, [labels, pred])], "feeds": {}, "rtol": 1e-6}


@_program
def losses_mse_zero_weight_f32(tf):
    labels = tf.constant(_MSE_LABELS.astype(np.float32))
    pred = tf.constant(_MSE_PRED.astype(np.float32))
    y = tf.losses.mean_squared_error(labels, pred, weights=0.0)
    return {"fetches": [y, tf.gradients(y, [labels, pred])], "feeds": {}}


# ---------------------------------------------------------------------------
# Numerical stability: logits [[1000, 0, -1000]]
# ---------------------------------------------------------------------------

_EXTREME = np.array([[1000.0, 0.0, -1000.0]])
_EXTREME_LABELS = np.array([[0.2, 0.3, 0.5]])


@_program
def stable_softmax_ce_v2_exact(tf):
    labels = tf.constant(_EXTREME_LABELS)
    logits = tf.constant(_EXTREME)
    y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    loss = _wsum(tf, y, (1,), 180)
    return {
        "fetches": [
            y,
            tf.gradients(y, [labels, logits]),
            loss,
            tf.gradients(loss, [labels, logits]),
        ],
        "feeds": {},
    }


@_program
def stable_softmax_ce_v2_f32(tf):
    labels = tf.constant(_EXTREME_LABELS.astype(np.float32))
    logits = tf.constant(_EXTREME.astype(np.float32))
    y = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return {"fetches": [y, tf.gradients(y, [labels, logits])], "feeds": {}}


@_program
def stable_softmax_ce_v1(tf):
    labels = tf.constant(_EXTREME_LABELS)
    logits = tf.constant(_EXTREME)
    y = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return {"fetches": [y, tf.gradients(y, [labels, logits])], "feeds": {}}


@_program
def stable_sparse_softmax_ce(tf):
    logits = tf.constant(np.concatenate([_EXTREME, _EXTREME[:, ::-1]]))
    y = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=np.array([2, 1], np.int32), logits=logits
    )
    return _vg(tf, y, (2,), [logits], 181)


@_program
def stable_softmax(tf):
    x = tf.constant(_EXTREME)
    y = tf.nn.softmax(x)
    return _vg(tf, y, (1, 3), [x], 182)


@_program
def stable_softmax_f32(tf):
    x = tf.constant(_EXTREME.astype(np.float32))
    y = tf.nn.softmax(x)
    return _vg(tf, y, (1, 3), [x], 183, np.float32)


@_program
def stable_log_softmax(tf):
    x = tf.constant(_EXTREME)
    y = tf.nn.log_softmax(x)
    return _vg(tf, y, (1, 3), [x], 184)


@_program
def stable_log_softmax_f32(tf):
    x = tf.constant(_EXTREME.astype(np.float32))
    y = tf.nn.log_softmax(x)
    return _vg(tf, y, (1, 3), [x], 185, np.float32)


@_program
def stable_sigmoid_ce(tf):
    labels = tf.constant(_EXTREME_LABELS)
    logits = tf.constant(_EXTREME)
    y = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, y, (1, 3), [labels, logits], 186)


@_program
def stable_sigmoid_ce_f32(tf):
    labels = tf.constant(_EXTREME_LABELS.astype(np.float32))
    logits = tf.constant(_EXTREME.astype(np.float32))
    y = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return _vg(tf, y, (1, 3), [labels, logits], 187, np.float32)


@_program
def stable_reduce_logsumexp(tf):
    x = tf.constant(_EXTREME)
    y1 = tf.reduce_logsumexp(x)
    y2 = tf.reduce_logsumexp(x, axis=1)
    y3 = tf.reduce_logsumexp(x, axis=0)
    loss = _loss_of(tf, [(y1, ()), (y2, (1,)), (y3, (3,))], 188)
    return {"fetches": [y1, y2, y3, loss, tf.gradients(loss, x)], "feeds": {}}


@_program
def stable_softplus(tf):
    x = tf.constant(_EXTREME)
    y = tf.nn.softplus(x)
    return _vg(tf, y, (1, 3), [x], 189)


@_program
def stable_softplus_f32(tf):
    x = tf.constant(_EXTREME.astype(np.float32))
    y = tf.nn.softplus(x)
    return _vg(tf, y, (1, 3), [x], 190, np.float32)


@_program
def stable_sigmoid(tf):
    x = tf.constant(_EXTREME)
    y = tf.sigmoid(x)
    return _vg(tf, y, (1, 3), [x], 191)


@_program
def stable_sigmoid_f32(tf):
    x = tf.constant(_EXTREME.astype(np.float32))
    y = tf.sigmoid(x)
    return _vg(tf, y, (1, 3), [x], 192, np.float32)


# ---------------------------------------------------------------------------
# tf.hessians and gradients of gradients
# ---------------------------------------------------------------------------


@_program
def hessians_vec3_polynomial(tf):
    x = tf.constant(np.array([0.5, -1.0, 2.0]))
    y = tf.reduce_sum(x * x * x) + x[0] * x[1] * x[2] + tf.reduce_sum(x) ** 2
    return {"fetches": [y, tf.hessians(y, x)], "feeds": {}}


@_program
def hessians_vec3_reduce_prod(tf):
    x = tf.constant(np.array([0.5, -1.0, 2.0]))
    y = tf.reduce_prod(x)
    return {"fetches": [y, tf.hessians(y, x)], "feeds": {}}


@_program
def hessians_vec3_matmul_tanh(tf):
    x = tf.placeholder(tf.float64, shape=[3])
    a = tf.constant(_arr(200, (2, 3), -1.0, 1.0))
    h = tf.tanh(tf.matmul(a, tf.reshape(x, [3, 1])))
    y = _wsum(tf, h, (2, 1), 201)
    return {"fetches": [y, tf.hessians(y, x)], "feeds": {x: np.array([0.3, -0.7, 1.1])}}


@_program
def hessians_2x2_matmul_tanh(tf):
    x = tf.constant(_arr(202, (2, 2), -1.0, 1.0))
    a = tf.constant(_arr(203, (2, 3), -1.0, 1.0))
    y = _wsum(tf, tf.tanh(tf.matmul(x, a)), (2, 3), 204) + _wsum(tf, tf.matmul(x, x), (2, 2), 205)
    return {"fetches": [y, tf.hessians(y, x)], "feeds": {}}


@_program
def hessians_two_xs_f32(tf):
    x = tf.constant(np.array([0.5, -1.0, 2.0], np.float32))
    m = tf.constant(np.array([[0.5, 1.5], [-0.5, 1.0]], np.float32))
    y = tf.reduce_sum(tf.tanh(x) * tf.reduce_sum(m)) + tf.reduce_sum(
        tf.matmul(m, m)
    ) * tf.reduce_sum(x)
    return {"fetches": [y, tf.hessians(y, [x, m])], "feeds": {}}


@_program
def hessians_2x2_logsumexp(tf):
    x = tf.constant(np.array([[0.5, -1.0], [2.0, 0.25]]))
    y = tf.reduce_logsumexp(x)
    return {"fetches": [y, tf.hessians(y, x)], "feeds": {}}


@_program
def hvp_through_matmul(tf):
    x = tf.constant(_arr(210, (4, 3)))
    w = tf.Variable(_arr(211, (3, 2), -1.0, 1.0), name="w")
    v = tf.constant(_arr(212, (3, 2)))
    loss = _wsum(tf, tf.tanh(tf.matmul(x, w)), (4, 2), 213) + tf.reduce_sum(
        tf.square(tf.matmul(x, w))
    )
    g = tf.gradients(loss, w)[0]
    hv = tf.gradients(tf.reduce_sum(g * v), w)
    return {"fetches": [loss, g, hv], "feeds": {}}


@_program
def hvp_through_matmul_f32(tf):
    x = tf.constant(_arr(214, (4, 3), dtype=np.float32))
    w = tf.Variable(_arr(215, (3, 2), -1.0, 1.0, np.float32), name="w")
    v = tf.constant(_arr(216, (3, 2), dtype=np.float32))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - 1.0))
    g = tf.gradients(loss, w)[0]
    hv = tf.gradients(tf.reduce_sum(g * v), [w, x])
    return {"fetches": [loss, g, hv], "feeds": {}}


@_program
def grad_of_grad_softmax(tf):
    x = tf.constant(_LOGITS)
    loss = _wsum(tf, tf.nn.softmax(x), (3, 4), 220)
    g = tf.gradients(loss, x)[0]
    v = tf.constant(_arr(221, (3, 4)))
    return {"fetches": [loss, g, tf.gradients(tf.reduce_sum(g * v), x)], "feeds": {}}


def _grad_of_grad_ce(tf, wrt_labels):
    labels = tf.constant(_SOFT_LABELS)
    x = tf.constant(_LOGITS)
    loss = _wsum(tf, tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=x), (3,), 222)
    g = tf.gradients(loss, x)[0]
    v = tf.constant(_arr(223, (3, 4)))
    return {
        "fetches": [loss, g, tf.gradients(tf.reduce_sum(g * v), labels if wrt_labels else x)],
        "feeds": {},
    }


@_program
def grad_of_grad_softmax_ce_v2_logits(tf):
    return _grad_of_grad_ce(tf, wrt_labels=False)


@_program
def grad_of_grad_softmax_ce_v2_labels(tf):
    # d/dlabels of <d loss/d logits, v>: TF's gradient function for the fused
    # op ignores the second-order term for labels
    return _grad_of_grad_ce(tf, wrt_labels=True)


@_program
def grad_of_grad_reduce_max(tf):
    x = tf.constant(_TIES)
    m = tf.reduce_max(x, axis=1)
    loss = tf.reduce_sum(m * m * tf.constant(np.array([1.0, -2.0, 0.5])))
    g = tf.gradients(loss, x)[0]
    v = tf.constant(_arr(224, (3, 4)))
    return {"fetches": [loss, g, tf.gradients(tf.reduce_sum(g * v), x)], "feeds": {}}


# ---------------------------------------------------------------------------
# Placeholders with a None batch dimension: tiny MLPs
# ---------------------------------------------------------------------------

_MLP_X = _arr(230, (4, 3))
_MLP_Y = np.eye(2)[[0, 1, 1, 0]]


@_program
def mlp_softmax_ce_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3], name="x")
    t = tf.placeholder(tf.float64, shape=[None, 2], name="t")
    w1 = tf.Variable(_arr(231, (3, 5), -1.0, 1.0), name="w1")
    b1 = tf.Variable(np.zeros(5) + 0.1, name="b1")
    w2 = tf.Variable(_arr(232, (5, 2), -1.0, 1.0), name="w2")
    b2 = tf.Variable(np.array([0.2, -0.2]), name="b2")
    h = tf.tanh(tf.matmul(x, w1) + b1)
    logits = tf.nn.bias_add(tf.matmul(h, w2), b2)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=t, logits=logits))
    probs = tf.nn.softmax(logits)
    return {
        "fetches": [loss, probs, tf.gradients(loss, [w1, b1, w2, b2, x])],
        "feeds": {x: _MLP_X, t: _MLP_Y},
    }


@_program
def mlp_sparse_ce_relu_none_batch_f32(tf):
    x = tf.placeholder(tf.float32, shape=[None, 3], name="x")
    t = tf.placeholder(tf.int32, shape=[None], name="t")
    w1 = tf.Variable(_arr(233, (3, 4), -1.0, 1.0, np.float32), name="w1")
    b1 = tf.Variable(np.full(4, 0.05, np.float32), name="b1")
    w2 = tf.Variable(_arr(234, (4, 3), -1.0, 1.0, np.float32), name="w2")
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(h, w2)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=t, logits=logits)
    ) + 0.01 * tf.nn.l2_loss(w1)
    return {
        "fetches": [loss, tf.gradients(loss, [w1, b1, w2])],
        "feeds": {x: _MLP_X.astype(np.float32), t: np.array([0, 2, 1, 2], np.int32)},
    }


@_program
def mlp_mse_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3], name="x")
    t = tf.placeholder(tf.float64, shape=[None, 1], name="t")
    w = tf.Variable(_arr(235, (3, 1), -1.0, 1.0), name="w")
    b = tf.Variable(np.array([0.3]), name="b")
    pred = tf.sigmoid(tf.matmul(x, w) + b)
    loss = tf.reduce_mean(tf.squared_difference(pred, t)) + tf.reduce_sum(
        tf.reduce_max(tf.abs(w), axis=0)
    )
    return {
        "fetches": [loss, pred, tf.gradients(loss, [w, b])],
        "feeds": {x: _MLP_X, t: _arr(236, (4, 1), 0.0, 1.0)},
    }


@_program
def equal_of_bool_tensors(tf):
    # TF compares bools for (in)equality (an accuracy of bool predictions and labels).
    predicted = tf.placeholder(tf.bool, [None], name="predicted")
    labels = tf.placeholder(tf.bool, [None], name="labels")
    same = tf.equal(predicted, labels)
    accuracy = tf.reduce_mean(tf.cast(same, tf.float32))
    feeds = {predicted: np.array([True, False, True, False]), labels: np.array([True] * 4)}
    return {"fetches": [same, tf.not_equal(predicted, True), accuracy], "feeds": feeds}


# ---------------------------------------------------------------------------
# multiply_no_nan and reduce_euclidean_norm
# ---------------------------------------------------------------------------


@_program
def multiply_no_nan_inf_nan_where_y_is_zero(tf):
    # y == 0 gives 0 even where x is inf or NaN; the gradients are TF's _MulNoNanGrad:
    # mul_no_nan(grad, y) for x and mul_no_nan(x, grad) for y (0 where the cotangent is 0).
    x = tf.placeholder(tf.float64, [2, 4], name="x")
    y = tf.placeholder(tf.float64, [2, 4], name="y")
    z = tf.math.multiply_no_nan(x, y)
    weights = tf.constant([[1.0, 0.0, 2.0, -1.0], [0.5, 1.0, 0.0, 3.0]], tf.float64)
    loss = tf.reduce_sum(z * weights)
    feeds = {
        x: np.array([[np.inf, np.nan, 1.5, -2.0], [-np.inf, 3.0, np.nan, 0.25]]),
        y: np.array([[0.0, 0.0, 0.0, 4.0], [0.0, -0.5, 0.0, 2.0]]),
    }
    return {"fetches": [z, loss, tf.gradients(loss, [x, y])], "feeds": feeds}


@_program
def multiply_no_nan_broadcast_f32(tf):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    y = tf.placeholder(tf.float32, [4], name="y")
    feeds = {
        x: _arr(240, (3, 4), dtype=np.float32),
        y: np.array([0.0, 1.5, -2.0, 0.0], np.float32),
    }
    z = tf.math.multiply_no_nan(x, y)
    return _vg(tf, z, (3, 4), [x, y], 241, dtype=np.float32, feeds=feeds)


@_program
def reduce_euclidean_norm_axes_zero_row(tf):
    # a zero row: its norm is 0 and its gradient NaN (TF's x / norm * grad)
    x = tf.placeholder(tf.float64, [3, 4], name="x")
    values = _arr(242, (3, 4))
    values[1] = 0.0
    rows = tf.math.reduce_euclidean_norm(x, 1)
    kept = tf.math.reduce_euclidean_norm(x, [1], keepdims=True)
    total = tf.math.reduce_euclidean_norm(x)
    loss = _wsum(tf, rows, (3,), 243) + _wsum(tf, kept, (3, 1), 244) + total
    return {"fetches": [rows, kept, total, loss, tf.gradients(loss, x)], "feeds": {x: values}}


@_program
def reduce_euclidean_norm_f32_axis0(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.math.reduce_euclidean_norm(x, axis=0)
    feeds = {x: _arr(245, (4, 3), dtype=np.float32)}
    return _vg(tf, y, (3,), [x], 246, dtype=np.float32, feeds=feeds)
