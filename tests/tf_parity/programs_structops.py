"""Corpus of TF1 graph programs for the everyday structural ops (TensorFlow parity tests).

Same conventions as ``programs_tensor.py``: every program is a function ``fn(tf)`` taking
the graph-API module (``tensorflow.compat.v1`` when recording, ``symgrad`` when testing)
and returning ``{"fetches": [...], "feeds": {...}}``. Fixtures: ``tf_fixtures_structops.json``
(written by ``record_tf.py programs_structops``).

Covered: ``pad`` in its three modes (and mode spelling), ``slice`` (size -1),
``strided_slice`` with begin/end/ellipsis/new_axis/shrink masks and negative strides,
``newaxis``, ``boolean_mask`` (constant and fed masks, ``axis``), ``linspace``,
``cumsum``/``cumprod`` (exclusive, reverse), ``reverse``, ``roll``, ``diag``/``diag_part``,
``linalg.diag``/``diag_part`` (square and not), ``trace``, ``matrix_band_part``,
``segment_sum``/``unsorted_segment_sum``/``segment_mean``/``segment_max``/``unsorted_segment_max``,
``segment_min``/``segment_prod`` and ``unsorted_segment_min``/``_prod``/``_mean`` (empty
segments, dropped ids, ties, zeros in a product, fed ids),
``nn.embedding_lookup`` (repeated ids, ids of rank 2, ``max_norm``), ``nn.lrn``,
``custom_gradient``, ``placeholder_with_default``, ``tuple``, ``control_dependencies`` with
``no_op``, ``[None]`` placeholders, and second derivatives where TF has them.

Each program fetches the op's value, a nonlinear scalar loss of it, and the loss'
gradients with respect to the float inputs.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-2.0, high=2.0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _loss(tf, y):
    """A nonlinear scalar of ``y``, so that gradients depend on the values."""
    return tf.reduce_sum(y * y * 0.5 + tf.sin(y))


def _vg(tf, y, xs, feeds=None, second=False):
    loss = _loss(tf, y)
    # TF gives a gather's gradient as IndexedSlices: made dense to be fetched and squared.
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(loss, xs)]
    fetches = [y, loss, grads]
    if second:
        # d/dx of sum(grad * grad): a second derivative through the op
        second_grads = tf.gradients(tf.reduce_sum(grads[0] * grads[0]), xs[0])
        fetches.append([tf.convert_to_tensor(g) for g in second_grads])
    return {"fetches": fetches, "feeds": feeds or {}}


_X34 = _arr(1, (3, 4))
_X2345 = _arr(2, (2, 3, 4, 5))


# --- pad -----------------------------------------------------------------------------------


@_program
def pad_constant(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.pad(x, [[1, 2], [0, 3]]), [x], second=True)


@_program
def pad_constant_values_f32(tf):
    x = tf.constant(_X34.astype(np.float32))
    return _vg(tf, tf.pad(x, [[0, 0], [2, 1]], constant_values=1.5), [x])


@_program
def pad_reflect(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.pad(x, [[2, 2], [3, 1]], "REFLECT"), [x], second=True)


@_program
def pad_symmetric_lower_case(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.pad(x, [[3, 1], [4, 4]], mode="symmetric"), [x], second=True)


@_program
def pad_reflect_rank3_zero_pads(tf):
    x = tf.constant(_X2345[0])
    return _vg(tf, tf.pad(x, tf.constant([[0, 0], [1, 2], [0, 4]]), "REFLECT"), [x])


@_program
def pad_symmetric_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 4])
    y = tf.pad(x, [[1, 1], [2, 0]], "SYMMETRIC")
    return _vg(tf, y, [x], feeds={x: _arr(3, (5, 4))})


@_program
def pad_constant_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 4])
    y = tf.pad(x, [[0, 2], [1, 1]])
    return _vg(tf, y, [x], feeds={x: _arr(4, (2, 4))})


# --- slice, strided_slice, newaxis, reverse -----------------------------------------------------


@_program
def slice_size_minus_one(tf):
    x = tf.constant(_X2345)
    return _vg(tf, tf.slice(x, [1, 0, 2, 1], [-1, 2, -1, 3]), [x])


@_program
def slice_empty_size(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.slice(x, [1, 4], [2, 0]), [x])


@_program
def slice_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 4])
    return _vg(tf, tf.slice(x, [1, 1], [-1, 2]), [x], feeds={x: _arr(5, (4, 4))})


@_program
def strided_slice_begin_end_masks(tf):
    x = tf.constant(_X2345)
    y = tf.strided_slice(x, [1, 0, 3, 0], [0, 2, 0, 5], [1, 1, -1, 2], begin_mask=1, end_mask=5)
    return _vg(tf, y, [x])


@_program
def strided_slice_ellipsis_newaxis_shrink(tf):
    x = tf.constant(_X2345)
    y = tf.strided_slice(
        x,
        [1, 0, 0, 2],
        [2, 0, 0, 4],
        [1, 1, 1, 1],
        ellipsis_mask=2,
        new_axis_mask=4,
        shrink_axis_mask=1,
    )
    return _vg(tf, y, [x])


@_program
def strided_slice_negative_stride_shrink_last(tf):
    x = tf.constant(_X34)
    y = tf.strided_slice(x, [-1, -1], [-4, 0], [-1, 1], shrink_axis_mask=2)
    return _vg(tf, y, [x])


@_program
def getitem_newaxis(tf):
    x = tf.constant(_X34)
    return _vg(tf, x[tf.newaxis, :, 1:3, tf.newaxis], [x])


@_program
def roll_two_axes(tf):
    x = tf.placeholder(tf.float64, [3, 4, 2], name="x")
    feeds = {x: _arr(37, (3, 4, 2))}
    return _vg(tf, tf.roll(x, [1, -3], [0, 2]), [x], feeds=feeds, second=True)


@_program
def roll_one_axis_twice_and_negative_axis(tf):
    x = tf.placeholder(tf.float64, [2, 5], name="x")
    # axis 1 named twice (as -1 and 1): moved by 2 + 4
    return _vg(tf, tf.roll(x, [2, 4], [-1, 1]), [x], feeds={x: _arr(38, (2, 5))})


@_program
def roll_fed_none_batch_int32(tf):
    x = tf.placeholder(tf.int32, [None, 3], name="x")
    return {
        "fetches": [tf.roll(x, 4, 0), tf.roll(x, -1, 1)],
        "feeds": {x: np.arange(12, dtype=np.int32).reshape(4, 3)},
    }


@_program
def reverse_two_axes(tf):
    x = tf.constant(_X2345)
    return _vg(tf, tf.reverse(x, [0, -1]), [x])


@_program
def reverse_v2_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 4])
    return _vg(tf, tf.reverse_v2(x, [0]), [x], feeds={x: _arr(6, (3, 4))})


# --- boolean_mask ------------------------------------------------------------------------------


@_program
def boolean_mask_constant_mask(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.boolean_mask(x, [True, False, True]), [x])


@_program
def boolean_mask_computed_mask(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.boolean_mask(x, x > 0.5), [x], second=True)


@_program
def boolean_mask_axis1_fed(tf):
    x = tf.constant(_X2345)
    m = tf.placeholder(tf.bool, shape=[3, 4])
    mask = np.array([[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1]], dtype=bool)
    return _vg(tf, tf.boolean_mask(x, m, axis=1), [x], feeds={m: mask})


@_program
def boolean_mask_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 3])
    m = tf.placeholder(tf.bool, shape=[None])
    y = tf.boolean_mask(x, m)
    feeds = {x: _arr(7, (5, 3)), m: np.array([True, False, False, True, True])}
    return _vg(tf, y, [x], feeds=feeds)


# --- linspace, cumsum, cumprod --------------------------------------------------------------


@_program
def linspace_gradients(tf):
    a = tf.constant(-1.5, tf.float64)
    b = tf.constant(2.25, tf.float64)
    return _vg(tf, tf.linspace(a, b, 7), [a, b])


@_program
def lin_space_f32(tf):
    return {"fetches": [tf.lin_space(0.0, 1.0, 11), tf.linspace(3.0, 3.0, 1)], "feeds": {}}


@_program
def cumsum_default(tf):
    x = tf.constant(_X34)
    return _vg(tf, tf.cumsum(x), [x], second=True)


@_program
def cumsum_exclusive_reverse(tf):
    x = tf.constant(_X2345)
    return _vg(tf, tf.cumsum(x, axis=2, exclusive=True, reverse=True), [x])


@_program
def cumsum_int(tf):
    return {
        "fetches": [tf.cumsum(tf.constant([[1, 2, 3], [4, 5, 6]]), axis=1, exclusive=True)],
        "feeds": {},
    }


@_program
def cumprod_axis1(tf):
    x = tf.constant(_arr(8, (3, 4), 0.5, 1.5))
    return _vg(tf, tf.cumprod(x, axis=1), [x])


@_program
def cumprod_exclusive_reverse(tf):
    x = tf.constant(_arr(9, (3, 4), 0.5, 1.5))
    return _vg(tf, tf.cumprod(x, axis=-1, exclusive=True, reverse=True), [x])


# --- diagonals, trace, band_part ------------------------------------------------------------


@_program
def diag_vector(tf):
    x = tf.constant(_arr(10, (4,)))
    return _vg(tf, tf.diag(x), [x], second=True)


@_program
def diag_rank2(tf):
    x = tf.constant(_arr(11, (2, 3)))
    return _vg(tf, tf.diag(x), [x])


@_program
def diag_part_rank4(tf):
    x = tf.constant(_arr(12, (2, 3, 2, 3)))
    return _vg(tf, tf.diag_part(x), [x])


@_program
def linalg_diag_batch(tf):
    x = tf.constant(_arr(13, (2, 3)))
    return _vg(tf, tf.linalg.diag(x), [x])


@_program
def linalg_diag_part_square(tf):
    x = tf.constant(_arr(14, (2, 3, 3)))
    return _vg(tf, tf.linalg.diag_part(x), [x])


@_program
def linalg_diag_part_wide(tf):
    x = tf.constant(_arr(15, (2, 3, 5)))
    return _vg(tf, tf.linalg.diag_part(x), [x], second=True)


@_program
def matrix_diag_part_none_batch(tf):
    x = tf.placeholder(tf.float64, shape=[None, 4, 3])
    return _vg(tf, tf.matrix_diag_part(x), [x], feeds={x: _arr(16, (2, 4, 3))})


@_program
def trace_batch(tf):
    x = tf.constant(_arr(17, (2, 3, 3)))
    return _vg(tf, tf.trace(x), [x])


@_program
def band_part_lower_upper(tf):
    x = tf.constant(_arr(18, (2, 4, 5)))
    return _vg(tf, tf.linalg.band_part(x, 1, 2), [x])


@_program
def matrix_band_part_triangles(tf):
    x = tf.constant(_arr(19, (4, 4)))
    lower = tf.matrix_band_part(x, -1, 0)
    upper = tf.matrix_band_part(x, 0, -1)
    return _vg(tf, lower * 2.0 + upper, [x])


# --- segment sums ------------------------------------------------------------------------------


@_program
def segment_sum_empty_segment(tf):
    x = tf.constant(_arr(20, (5, 3)))
    return _vg(tf, tf.segment_sum(x, [0, 0, 2, 2, 4]), [x], second=True)


@_program
def segment_sum_fed_ids(tf):
    x = tf.constant(_arr(21, (5, 2)))
    ids = tf.placeholder(tf.int32, shape=[None])
    return _vg(tf, tf.segment_sum(x, ids), [x], feeds={ids: np.array([0, 1, 1, 3, 3])})


@_program
def unsorted_segment_sum_dropped_ids(tf):
    x = tf.constant(_arr(22, (6, 2)))
    y = tf.unsorted_segment_sum(x, tf.constant([3, -1, 0, 3, 3, -1]), 5)
    return _vg(tf, y, [x], second=True)


@_program
def unsorted_segment_sum_rank2_ids(tf):
    x = tf.constant(_arr(23, (2, 3, 4)))
    y = tf.math.unsorted_segment_sum(x, [[0, 2, 0], [1, 2, 2]], 4)
    return _vg(tf, y, [x])


@_program
def unsorted_segment_max_ties_empty_dropped(tf):
    rows = _arr(34, (6, 3))
    rows[3] = rows[0]  # a tie within segment 2
    x = tf.constant(rows)
    y = tf.unsorted_segment_max(x, [2, 0, -1, 2, 0, 2], 4)
    # the empty segment 1 holds float64's lowest value: fetched as it is, kept out of the loss
    loss = _loss(tf, tf.gather(y, [0, 2, 3]) * tf.constant([[1.0], [1.0], [0.0]], tf.float64))
    return {"fetches": [y, loss, tf.gradients(loss, [x])], "feeds": {}}


@_program
def segment_max_ties_empty_segment(tf):
    rows = _arr(35, (6, 3))
    rows[1] = rows[0]  # a tie within segment 0
    x = tf.placeholder(tf.float64, [6, 3], name="x")
    # sorted ids skipping 1 and 3: those segments hold 0 (TF's SegmentMax)
    return _vg(tf, tf.segment_max(x, [0, 0, 2, 2, 2, 4]), [x], feeds={x: rows})


@_program
def segment_max_fed_ids_float32(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    feeds = {x: _arr(36, (5, 2), dtype=np.float32), ids: np.array([0, 0, 1, 3, 3], np.int32)}
    return _vg(tf, tf.math.segment_max(x, ids), [x], feeds=feeds)


@_program
def segment_mean_empty_segment(tf):
    x = tf.constant(_arr(24, (5, 3)))
    return _vg(tf, tf.segment_mean(x, [0, 0, 0, 3, 3]), [x])


# --- segment_min / segment_prod / unsorted_segment_min, _prod, _mean ---------------------------


@_program
def segment_min_ties_empty_segment(tf):
    rows = _arr(37, (6, 3))
    rows[1] = rows[0]  # a tie within segment 0
    rows[4, 2] = rows[2, 2]  # a tie within segment 2, in one column
    x = tf.placeholder(tf.float64, [6, 3], name="x")
    # sorted ids skipping 1 and 3: those segments hold 0 (TF's SegmentMin)
    return _vg(tf, tf.math.segment_min(x, [0, 0, 2, 2, 2, 4]), [x], feeds={x: rows})


@_program
def segment_min_fed_ids_float32(tf):
    rows = _arr(38, (5, 2), dtype=np.float32)
    rows[4] = rows[3]  # a tie within segment 3
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    feeds = {x: rows, ids: np.array([0, 0, 1, 3, 3], np.int32)}
    return _vg(tf, tf.segment_min(x, ids), [x], feeds=feeds)


def _with_zeros(seed, dtype=np.float64):
    rows = _arr(seed, (7, 2), dtype=dtype)
    rows[1, 0] = 0.0  # segment 0, column 0: one zero
    rows[0, 1] = rows[2, 1] = 0.0  # segment 0, column 1: two zeros
    rows[6, 0] = 0.0  # the last segment, column 0: one zero
    return rows


@_program
def segment_prod_zeros_empty_segment(tf):
    x = tf.placeholder(tf.float64, [7, 2], name="x")
    # ids skipping 1: that segment is 1 (TF's SegmentProd)
    y = tf.math.segment_prod(x, [0, 0, 0, 2, 2, 3, 3])
    return _vg(tf, y, [x], feeds={x: _with_zeros(39)}, second=True)


@_program
def segment_prod_fed_ids_float32(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    ids = tf.placeholder(tf.int64, [None], name="ids")
    feeds = {x: _with_zeros(40, np.float32), ids: np.array([0, 0, 0, 1, 1, 4, 4])}
    return _vg(tf, tf.segment_prod(x, ids), [x], feeds=feeds)


@_program
def unsorted_segment_min_ties_empty_dropped(tf):
    rows = _arr(41, (6, 3))
    rows[3] = rows[0]  # a tie within segment 2
    x = tf.placeholder(tf.float64, [6, 3], name="x")
    y = tf.math.unsorted_segment_min(x, [2, 0, -1, 2, 0, 2], 4)
    # the empty segments 1 and 3 hold float64's largest value: fetched, kept out of the loss
    loss = _loss(tf, tf.gather(y, [0, 2]))
    return {"fetches": [y, loss, tf.gradients(loss, [x])], "feeds": {x: rows}}


@_program
def unsorted_segment_min_fed_ids_float32(tf):
    rows = _arr(42, (5, 2), dtype=np.float32)
    rows[2, 1] = rows[0, 1]  # a tie within segment 1, in one column
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    ids = tf.placeholder(tf.int32, [None], name="ids")
    y = tf.unsorted_segment_min(x, ids, 3)
    loss = _loss(tf, y[:2])  # segment 2 is empty: float32's largest value
    feeds = {x: rows, ids: np.array([1, 0, 1, -1, 0], np.int32)}
    return {"fetches": [y, loss, tf.gradients(loss, [x])], "feeds": feeds}


@_program
def unsorted_segment_prod_zeros_empty_dropped(tf):
    x = tf.placeholder(tf.float64, [7, 2], name="x")
    # rows 0-2 (two zeros in column 1, one in column 0) in segment 3, row 6 dropped,
    # segment 1 empty (1)
    y = tf.math.unsorted_segment_prod(x, [3, 3, 3, 0, 2, 0, -1], 4)
    return _vg(tf, y, [x], feeds={x: _with_zeros(43)})


@_program
def second_derivative_of_unsorted_segment_prod_with_zeros(tf):
    # TF's _UnsortedSegmentProdGrad divides by the rows themselves and gathers at the ids
    # clipped to 0: the second derivative is NaN through every segment with a zero, and
    # through segment 0 where a dropped row is 0. (Not in the portable form: its dense
    # segment sums spread a NaN to every segment.)
    x = tf.placeholder(tf.float64, [7, 2], name="x")
    y = tf.math.unsorted_segment_prod(x, [3, 3, 3, 0, 2, 0, -1], 4)
    return _vg(tf, y, [x], feeds={x: _with_zeros(43)}, second=True)


@_program
def unsorted_segment_prod_fed_ids_float32(tf):
    x = tf.placeholder(tf.float32, [7, 2], name="x")
    ids = tf.placeholder(tf.int32, [7], name="ids")
    feeds = {x: _with_zeros(44, np.float32), ids: np.array([1, 1, 1, 0, -1, 0, 1], np.int32)}
    return _vg(tf, tf.unsorted_segment_prod(x, ids, 3), [x], feeds=feeds)


@_program
def unsorted_segment_mean_empty_dropped(tf):
    x = tf.placeholder(tf.float64, [6, 3], name="x")
    y = tf.math.unsorted_segment_mean(x, [2, 0, -1, 2, 2, 0], 4)
    return _vg(tf, y, [x], feeds={x: _arr(45, (6, 3))}, second=True)


@_program
def unsorted_segment_mean_rank2_fed_ids_float32(tf):
    x = tf.placeholder(tf.float32, [2, 3, 2], name="x")
    ids = tf.placeholder(tf.int64, [2, 3], name="ids")
    feeds = {x: _arr(46, (2, 3, 2), dtype=np.float32), ids: np.array([[0, 2, 0], [-1, 2, 2]])}
    return _vg(tf, tf.unsorted_segment_mean(x, ids, 4), [x], feeds=feeds)


# --- embedding_lookup ------------------------------------------------------------------------


@_program
def embedding_lookup_repeated_ids(tf):
    table = tf.constant(_arr(25, (6, 4)))
    ids = tf.constant([[1, 3, 1], [5, 1, 0]])
    return _vg(tf, tf.nn.embedding_lookup(table, ids), [table], second=True)


@_program
def embedding_lookup_list_fed_ids(tf):
    table = tf.constant(_arr(26, (5, 3)))
    ids = tf.placeholder(tf.int64, shape=[None])
    y = tf.nn.embedding_lookup([table], ids)
    return _vg(tf, y, [table], feeds={ids: np.array([4, 4, 0, 2, 4])})


@_program
def embedding_lookup_max_norm(tf):
    rows = _arr(27, (5, 3))
    rows[2] = 0.0  # an all-zero row: no division by zero
    table = tf.constant(rows)
    y = tf.nn.embedding_lookup(table, [0, 2, 1, 0], max_norm=1.5)
    return _vg(tf, y, [table])


@_program
def embedding_variable_sgd_step(tf):
    table = tf.Variable(_arr(28, (6, 3)), name="table")
    ids = tf.constant([[0, 2], [2, 5], [2, 0]])
    loss = _loss(tf, tf.reduce_mean(tf.nn.embedding_lookup(table, ids), axis=1))
    step = tf.train.GradientDescentOptimizer(0.3).minimize(loss)
    return {"fetches": [table, loss], "before": [step, step], "feeds": {}}


# --- lrn -------------------------------------------------------------------------------------------


@_program
def lrn_defaults(tf):
    x = tf.constant(_arr(29, (2, 2, 3, 7), 0.0, 1.0, np.float32))
    return _vg(tf, tf.nn.lrn(x), [x])


@_program
def local_response_normalization_params_f32(tf):
    x = tf.constant(_arr(30, (1, 3, 2, 6)).astype(np.float32))
    y = tf.nn.local_response_normalization(x, depth_radius=2, bias=2.0, alpha=0.3, beta=0.75)
    return _vg(tf, y, [x])


# --- custom_gradient and graph plumbing ----------------------------------------------------------


@_program
def custom_gradient_clip(tf):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.log(1 + e), grad

    x = tf.constant(_arr(31, (5,)))
    y = log1pexp(x) * 3.0
    g = tf.gradients(tf.reduce_sum(y), x)
    return {"fetches": [y, g, tf.gradients(tf.reduce_sum(g[0] * g[0]), x)], "feeds": {}}


@_program
def placeholder_with_default_fed_and_not(tf):
    x = tf.constant(_X34)
    p = tf.placeholder_with_default(x, shape=[None, 4])
    y = p * 2.0
    return _vg(tf, y, [x])


@_program
def placeholder_with_default_fed(tf):
    x = tf.constant(_X34)
    p = tf.placeholder_with_default(x, shape=[None, 4])
    # "before" (empty) runs it in a Session, which feeds any tensor as TF1 does.
    return {"fetches": [p * 2.0], "feeds": {p: _arr(32, (2, 4))}, "before": []}


@_program
def control_dependencies_update_ops(tf):
    w = tf.Variable(_arr(33, (3,)), name="w")
    count = tf.Variable(0.0, dtype=tf.float64, name="count")
    update = tf.assign_add(count, tf.constant(1.0, tf.float64))
    loss = _loss(tf, w)
    with tf.control_dependencies([update]):
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    with tf.device("/cpu:0"):
        a, b = tf.tuple([w * 1.0, count * 1.0])
    return {"fetches": [w, count, a, b], "before": [train, train, tf.no_op()], "feeds": {}}


@_program
def one_hot_dtype_from_on_off_values(tf):
    # Without dtype=, TF's one_hot takes the dtype of on_value/off_value (Python ints: int32).
    i = tf.placeholder(tf.int32, [None], name="i")
    fetches = [
        tf.one_hot(i, 3, on_value=2, off_value=0),
        tf.one_hot(i, 3, off_value=-1),
        tf.one_hot(i, 3, on_value=np.float64(2.5)),
        tf.one_hot(i, 3, on_value=True, off_value=False),
        tf.one_hot(i, 3, on_value=2, dtype=tf.float64),
    ]
    return {"fetches": fetches, "feeds": {i: np.array([0, 2, 1], np.int32)}}
