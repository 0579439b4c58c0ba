"""Corpus of TF1's remaining ``tf.losses`` and ``tf.norm``: absolute_difference, huber_loss,
log_loss, hinge_loss, cosine_distance, sigmoid_cross_entropy, mean_squared_error with tensor
weights, mean_pairwise_squared_error, the weights' broadcasting rules, the vector and matrix
norms with their gradients (ties of max, zero vectors, p-norms), and ``nn.log_poisson_loss``
(with and without its Stirling term).

Same conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds": {...}}``).
``PROGRAMS`` lists all programs in definition order; ``tf_fixtures_losses.json`` (written by
``record_tf.py programs_losses``) is keyed by function ``__name__``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-1.0, high=1.0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _every_reduction(tf, loss_fn, wrt):
    """The loss under every reduction, each with its gradient with respect to ``wrt``."""
    fetches = []
    for reduction in [
        tf.losses.Reduction.NONE,
        tf.losses.Reduction.SUM,
        tf.losses.Reduction.MEAN,
        tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
        tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
    ]:
        loss = loss_fn(reduction)
        fetches += [loss, tf.gradients(tf.reduce_sum(loss), wrt)]
    return fetches


# --- regression losses -----------------------------------------------------------------------


@_program
def absolute_difference_ties_and_weights(tf):
    predictions = tf.Variable(np.array([[0.5, 1.0, -2.0], [3.0, 0.0, 0.25]], np.float32))
    labels = tf.placeholder(tf.float32, [None, 3], name="labels")
    weights = tf.constant([[1.0], [0.0]])
    plain = tf.losses.absolute_difference(labels, predictions)
    weighted = tf.losses.absolute_difference(labels, predictions, weights=weights)
    return {
        "fetches": [plain, weighted, tf.gradients(plain + 2.0 * weighted, predictions)],
        "feeds": {labels: np.array([[0.5, 0.0, -1.0], [1.0, 0.0, 1.0]], np.float32)},
    }


@_program
def absolute_difference_every_reduction(tf):
    predictions = tf.Variable(_arr(1, (4, 2)), name="predictions")
    labels = tf.constant(_arr(2, (4, 2)))
    weights = tf.constant([[0.0, 1.0], [2.0, 0.5], [0.0, 0.0], [1.0, 3.0]])
    return {
        "fetches": _every_reduction(
            tf,
            lambda r: tf.losses.absolute_difference(
                labels, predictions, weights=weights, reduction=r
            ),
            predictions,
        ),
        "feeds": {},
    }


@_program
def huber_loss_at_and_around_delta(tf):
    # |error| below, at and above delta, for delta 1 and 0.5: the gradient at the tie is the
    # quadratic part's only.
    labels = tf.constant(np.zeros(7, np.float32))
    predictions = tf.Variable(np.array([-2.0, -1.0, -0.5, 0.0, 0.3, 1.0, 4.0], np.float32))
    one = tf.losses.huber_loss(labels, predictions)
    half = tf.losses.huber_loss(labels, predictions, delta=0.5, reduction=tf.losses.Reduction.NONE)
    return {
        "fetches": [one, half, tf.gradients(one, predictions), tf.gradients(half, predictions)],
        "feeds": {},
    }


@_program
def huber_loss_weighted_float64_inputs(tf):
    labels = tf.placeholder(tf.float64, [None, 2], name="labels")
    predictions = tf.Variable(_arr(3, (3, 2), -3, 3, np.float64), name="predictions")
    loss = tf.losses.huber_loss(labels, predictions, weights=[[2.0, 0.0]], delta=1.5)
    return {
        "fetches": [loss, tf.gradients(loss, [predictions, labels])],
        "feeds": {labels: _arr(4, (3, 2), -1, 1, np.float64)},
    }


@_program
def log_loss_with_epsilon(tf):
    labels = tf.constant([[1.0], [0.0], [1.0], [0.0], [0.3]])
    predictions = tf.Variable(np.array([[0.9], [0.2], [0.0], [1.0], [0.5]], np.float32))
    default = tf.losses.log_loss(labels, predictions)
    wide = tf.losses.log_loss(
        labels, predictions, epsilon=1e-3, weights=tf.constant([[1.0], [2.0], [0.0], [1.0], [1.0]])
    )
    return {
        "fetches": [
            default,
            wide,
            tf.gradients(default, predictions),
            tf.gradients(wide, predictions),
        ],
        "feeds": {},
    }


@_program
def mean_squared_error_tensor_weights_every_reduction(tf):
    predictions = tf.Variable(_arr(5, (3, 4)), name="predictions")
    labels = tf.placeholder(tf.float32, [None, 4], name="labels")
    weights = tf.constant([[1.0, 0.0, 2.0, 0.5]])
    return {
        "fetches": _every_reduction(
            tf,
            lambda r: tf.losses.mean_squared_error(
                labels, predictions, weights=weights, reduction=r
            ),
            predictions,
        )
        + [tf.add_n([tf.reduce_sum(each) for each in tf.losses.get_losses()])],
        "feeds": {labels: _arr(6, (3, 4))},
    }


@_program
def mean_squared_error_shapeless_labels(tf):
    predictions = tf.Variable(_arr(7, (5,)), name="predictions")
    labels = tf.placeholder(tf.float32, name="labels")
    loss = tf.losses.mean_squared_error(labels, predictions, weights=0.5)
    return {
        "fetches": [loss, tf.gradients(loss, predictions), tf.losses.get_total_loss()],
        "feeds": {labels: _arr(8, (5,))},
    }


# --- classification losses -------------------------------------------------------------------


@_program
def hinge_loss_margins(tf):
    labels = tf.constant([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    logits = tf.Variable(np.array([[2.0, -1.0, 1.0], [0.5, 0.25, -3.0]], np.float32))
    loss = tf.losses.hinge_loss(labels, logits)
    per_entry = tf.losses.hinge_loss(labels, logits, reduction=tf.losses.Reduction.NONE)
    return {
        "fetches": [loss, per_entry, tf.gradients(loss, logits)],
        "feeds": {},
    }


@_program
def sigmoid_cross_entropy_smoothing_and_weights(tf):
    logits = tf.Variable(_arr(9, (4, 3), -4, 4), name="logits")
    labels = tf.placeholder(tf.int32, [None, 3], name="labels")
    plain = tf.losses.sigmoid_cross_entropy(labels, logits)
    smooth = tf.losses.sigmoid_cross_entropy(
        labels, logits, weights=[[1.0], [0.0], [2.0], [1.0]], label_smoothing=0.2
    )
    return {
        "fetches": [plain, smooth, tf.gradients(plain + smooth, logits)],
        "feeds": {labels: np.array([[1, 0, 1], [0, 0, 0], [1, 1, 1], [0, 1, 0]], np.int32)},
    }


@_program
def sigmoid_cross_entropy_float64_every_reduction(tf):
    logits = tf.Variable(_arr(10, (2, 3), -30, 30, np.float64), name="logits")
    labels = tf.constant([[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]], tf.float64)
    weights = tf.constant([[0.0, 1.0, 2.0], [1.0, 1.0, 0.0]], tf.float64)
    return {
        "fetches": _every_reduction(
            tf,
            lambda r: tf.losses.sigmoid_cross_entropy(labels, logits, weights=weights, reduction=r),
            logits,
        ),
        "feeds": {},
        # TF1's compute_weighted_loss sums float64 losses in float32; PyTorch, JAX and Dask
        # add the six float32 terms in other orders than NumPy and TF (one ulp: 8e-8).
        "rtol": 1e-6,
    }


@_program
def cosine_distance_of_unit_vectors(tf):
    labels = tf.nn.l2_normalize(tf.constant(_arr(11, (3, 4))), axis=1)
    raw = tf.Variable(_arr(12, (3, 4)), name="raw")
    predictions = tf.nn.l2_normalize(raw, axis=1)
    loss = tf.losses.cosine_distance(labels, predictions, axis=1)
    per_example = tf.losses.cosine_distance(
        labels,
        predictions,
        axis=1,
        weights=[[1.0], [0.0], [2.0]],
        reduction=tf.losses.Reduction.NONE,
    )
    return {
        "fetches": [loss, per_example, tf.gradients(loss, raw), tf.gradients(per_example, raw)],
        "feeds": {},
    }


@_program
def cosine_distance_old_dim_argument(tf):
    labels = tf.constant([[1.0, 0.0], [0.0, 1.0]])
    predictions = tf.Variable(np.array([[0.6, 0.8], [0.6, 0.8]], np.float32))
    loss = tf.losses.cosine_distance(labels, predictions, dim=0)
    return {"fetches": [loss, tf.gradients(loss, predictions)], "feeds": {}}


@_program
def mean_pairwise_squared_error_batches(tf):
    labels = tf.constant(_arr(13, (3, 4)))
    predictions = tf.Variable(_arr(14, (3, 4)), name="predictions")
    plain = tf.losses.mean_pairwise_squared_error(labels, predictions)
    weighted = tf.losses.mean_pairwise_squared_error(
        labels, predictions, weights=[[1.0], [0.0], [2.5]]
    )
    return {
        "fetches": [plain, weighted, tf.gradients(plain + weighted, predictions)],
        "feeds": {},
    }


@_program
def mean_pairwise_squared_error_rank3_one_entry(tf):
    labels = tf.placeholder(tf.float32, [None, 2, 3], name="labels")
    predictions = tf.Variable(_arr(15, (2, 2, 3)), name="predictions")
    loss = tf.losses.mean_pairwise_squared_error(labels, predictions, weights=2.0)
    single = tf.losses.mean_pairwise_squared_error(labels[:, :1, :1], predictions[:, :1, :1])
    return {
        "fetches": [loss, single, tf.gradients(loss + single, predictions)],
        "feeds": {labels: _arr(16, (2, 2, 3))},
    }


# --- norms -----------------------------------------------------------------------------------


@_program
def norm_vector_orders(tf):
    x = tf.Variable(np.array([[3.0, -4.0, 0.0], [1.0, -1.0, 1.0]]), name="x")
    fetches = []
    for ord_, axis in [
        ("euclidean", None),
        ("euclidean", 1),
        (2, 0),
        (1, 1),
        (1, None),
        (np.inf, 1),
        (np.inf, None),
        (3, 1),
        (0.5, 0),
    ]:
        value = tf.norm(x, ord=ord_, axis=axis)
        fetches += [value, tf.gradients(tf.reduce_sum(value * value), x)]
    return {"fetches": fetches, "feeds": {}}


@_program
def norm_matrix_orders_keepdims(tf):
    x = tf.Variable(_arr(17, (2, 3, 4), -2, 2, np.float64), name="x")
    fetches = []
    for ord_, axis in [("fro", [1, 2]), ("euclidean", (-2, -1)), (1, [1, 2]), (np.inf, [2, 1])]:
        value = tf.norm(x, ord=ord_, axis=axis)
        kept = tf.norm(x, ord=ord_, axis=axis, keepdims=True)
        fetches += [value, kept, tf.gradients(tf.reduce_sum(tf.sin(value)), x)]
    return {"fetches": fetches, "feeds": {}}


@_program
def norm_zero_vector_gradient(tf):
    x = tf.Variable(np.array([[0.0, 0.0], [3.0, 4.0]], np.float32), name="x")
    value = tf.linalg.norm(x, axis=-1, keep_dims=True)
    return {"fetches": [value, tf.gradients(value, x)], "feeds": {}}


@_program
def norm_of_placeholder_of_unknown_batch(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(_arr(18, (3, 2)), name="w")
    y = tf.matmul(x, w)
    loss = tf.reduce_mean(tf.norm(y, axis=1)) + 0.1 * tf.norm(w)
    return {"fetches": [loss, tf.gradients(loss, w)], "feeds": {x: _arr(19, (5, 3))}}


# --- second order where a first-order cotangent is 0 -----------------------------------------


@_program
def second_order_by_a_cotangent_that_is_zero(tf):
    # Sqrt, Rsqrt and Reciprocal give 0 where their incoming gradient is 0; the derivative of
    # that gradient by the incoming one is still f'(x) there (TF's SqrtGradGrad and kin).
    x = tf.placeholder(tf.float64, [None], name="x")
    w = tf.placeholder(tf.float64, [None], name="w")
    fetches = []
    for f in (tf.sqrt, tf.math.rsqrt, tf.math.reciprocal):
        (d_x,) = tf.gradients(tf.reduce_sum(w * f(x)), x)
        fetches += [d_x, tf.gradients(tf.reduce_sum(d_x), w)]
    return {
        "fetches": fetches,
        "feeds": {x: np.array([4.0, 4.0, 0.25]), w: np.array([1.0, 0.0, 0.0])},
    }


@_program
def norm_gradient_weighted_by_zero_differentiated(tf):
    # The guard's stand-in value is 1: rows of norm 1 would hide a wrong second derivative.
    d = tf.placeholder(tf.float64, [None, 3], name="d")
    w = tf.placeholder(tf.float64, [None], name="w")
    (d_d,) = tf.gradients(tf.reduce_sum(tf.norm(d, axis=1) * w), d)
    direction = tf.constant([[1.0, 0.0, 2.0], [1.0, -1.0, 0.5]], tf.float64)
    return {
        "fetches": [d_d, tf.gradients(tf.reduce_sum(d_d * direction), [w, d])],
        "feeds": {d: np.array([[1.0, 2.0, 2.0], [3.0, 0.0, 4.0]]), w: np.array([1.0, 0.0])},
    }


@_program
def norm_float32_scalars_of_a_batch(tf):
    # A norm over every axis is squeezed to a scalar: its gradient stays float32.
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    fetches = []
    for ord_, axis in [("fro", (0, 1)), (1, (0, 1)), (np.inf, (0, 1)), ("euclidean", None)]:
        value = tf.norm(x, ord=ord_, axis=axis)
        fetches += [value, tf.gradients(value, x)]
    squeezed = tf.squeeze(tf.reduce_max(x, keepdims=True))
    fetches += [squeezed, tf.gradients(squeezed, x)]
    return {
        "fetches": fetches,
        "feeds": {x: np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -6.0]], np.float32)},
    }


@_program
def sparse_softmax_cross_entropy_squeezes_column_labels_and_weights(tf):
    # TF1 drops the last, size-1 axis of [batch, 1] labels and of per-example [batch, 1]
    # weights (_remove_squeezable_dimensions) where the ranks are known when built.
    logits = tf.placeholder(tf.float32, [None, 3], name="logits")
    labels = tf.placeholder(tf.int64, [None, 1], name="labels")
    weights = tf.placeholder(tf.float32, [None, 1], name="weights")
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=weights)
    plain = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    feeds = {
        logits: np.array([[2.0, -1.0, 0.0], [3.0, 3.0, 3.0], [-5.0, -1.0, 4.0]], np.float32),
        labels: np.array([[1], [2], [0]]),
        weights: np.array([[1.0], [0.0], [2.0]], np.float32),
    }
    return {"fetches": [loss, plain, tf.gradients(loss, logits)], "feeds": feeds, "rtol": 1e-5}


@_program
def log_poisson_loss_with_and_without_stirling(tf):
    # Targets in [0, 1] (0 and 1 included) take no Stirling term; the others do.
    targets = tf.placeholder(tf.float64, [2, 4], name="targets")
    log_input = tf.placeholder(tf.float64, [2, 4], name="log_input")
    fetches = []
    for full in (False, True):
        loss = tf.nn.log_poisson_loss(targets, log_input, compute_full_loss=full)
        fetches += [loss, tf.gradients(tf.reduce_sum(loss * loss), [targets, log_input])]
    feeds = {
        targets: np.array([[0.0, 0.5, 1.0, 2.0], [3.5, 7.0, 1.25, 0.75]]),
        log_input: np.array([[-1.0, 0.3, 2.0, -0.5], [1.2, 2.1, 0.0, -3.0]]),
    }
    return {"fetches": fetches, "feeds": feeds}


@_program
def log_poisson_loss_full_f32(tf):
    targets = tf.placeholder(tf.float32, [None, 3], name="targets")
    log_input = tf.placeholder(tf.float32, [None, 3], name="log_input")
    loss = tf.nn.log_poisson_loss(targets, log_input, compute_full_loss=True)
    feeds = {
        targets: np.array([[0.0, 4.0, 12.0], [1.0, 0.25, 2.5]], np.float32),
        log_input: _arr(60, (2, 3)),
    }
    grads = tf.gradients(tf.reduce_sum(tf.sin(loss)), [targets, log_input])
    return {"fetches": [loss, grads], "feeds": feeds, "rtol": 1e-5}


# --- every loss at the edges: ±1000 logits, the kink at 0, labels 0/1, a weight of 0 ---------


@_program
def every_loss_at_the_edges(tf):
    logits = tf.placeholder(tf.float32, [None, 3], name="logits")
    labels = tf.placeholder(tf.float32, [None, 3], name="labels")
    weights = tf.constant([[1.0], [0.0], [2.0]])
    rows = [1.0, 0.0, 2.0]
    losses = [
        tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits),
        tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits),
        tf.nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits, pos_weight=2.0),
        tf.nn.l2_loss(logits - labels),
        tf.losses.sigmoid_cross_entropy(labels, logits, weights=weights),
        tf.losses.sigmoid_cross_entropy(labels, logits, label_smoothing=0.1),
        tf.losses.softmax_cross_entropy(labels, logits, weights=rows),
        tf.losses.sparse_softmax_cross_entropy(tf.constant([0, 2, 1]), logits, weights=rows),
        tf.losses.hinge_loss(labels, logits, weights=weights),
        tf.losses.huber_loss(labels, logits, weights=weights),
        tf.losses.mean_squared_error(labels, logits, weights=weights),
        tf.losses.absolute_difference(labels, logits, weights=weights),
        tf.losses.log_loss(labels, tf.sigmoid(logits), weights=weights),
        tf.losses.cosine_distance(
            tf.nn.l2_normalize(labels, 1), tf.nn.l2_normalize(logits, 1), axis=1, weights=weights
        ),
        tf.losses.mean_pairwise_squared_error(labels, logits, weights=weights),
    ]
    return {
        "fetches": [losses, [tf.gradients(tf.reduce_sum(loss), logits)[0] for loss in losses]],
        "feeds": {
            logits: np.array(
                [[1000.0, -1000.0, 0.0], [-1000.0, 0.0, 1000.0], [0.5, -2.0, 20.0]], np.float32
            ),
            labels: np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]], np.float32),
        },
    }


# --- tf.contrib.seq2seq.sequence_loss and tf.contrib.legacy_seq2seq ---------------------------
# TensorFlow 2 has no tf.contrib: there the losses are TF 1.15's own algorithm
# (contrib/seq2seq/python/ops/loss.py, contrib/legacy_seq2seq/python/ops/seq2seq.py) built
# from the core TF ops they call; symgrad's tf.contrib is used where it exists.


def _tf1_sequence_loss(
    tf,
    logits,
    targets,
    weights,
    avg_t=True,
    avg_b=True,
    sum_t=False,
    sum_b=False,
    softmax_loss_function=None,
):
    flat = tf.reshape(logits, [-1, tf.shape(logits)[2]])
    labels = tf.reshape(targets, [-1])
    if softmax_loss_function is None:
        crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=flat)
    else:
        crossent = softmax_loss_function(labels=labels, logits=flat)
    crossent *= tf.reshape(weights, [-1])
    if avg_t and avg_b:
        return tf.div_no_nan(tf.reduce_sum(crossent), tf.reduce_sum(weights))
    if sum_t and sum_b:
        count = tf.cast(tf.count_nonzero(weights), crossent.dtype)
        return tf.div_no_nan(tf.reduce_sum(crossent), count)
    crossent = tf.reshape(crossent, tf.shape(logits)[0:2])
    if avg_t or avg_b:
        axis = [0] if avg_b else [1]
        return tf.div_no_nan(tf.reduce_sum(crossent, axis=axis), tf.reduce_sum(weights, axis=axis))
    if sum_t or sum_b:
        axis = [0] if sum_b else [1]
        count = tf.cast(tf.count_nonzero(weights, axis=axis), crossent.dtype)
        return tf.div_no_nan(tf.reduce_sum(crossent, axis=axis), count)
    return crossent


def _sequence_loss(
    tf,
    logits,
    targets,
    weights,
    avg_t=True,
    avg_b=True,
    sum_t=False,
    sum_b=False,
    softmax_loss_function=None,
):
    options = dict(
        average_across_timesteps=avg_t,
        average_across_batch=avg_b,
        sum_over_timesteps=sum_t,
        sum_over_batch=sum_b,
        softmax_loss_function=softmax_loss_function,
    )
    if hasattr(tf, "contrib"):
        return tf.contrib.seq2seq.sequence_loss(logits, targets, weights, **options)
    return _tf1_sequence_loss(
        tf, logits, targets, weights, avg_t, avg_b, sum_t, sum_b, softmax_loss_function
    )


def _legacy_by_example(tf, logits, targets, weights, avg_t=True):
    if hasattr(tf, "contrib"):
        return tf.contrib.legacy_seq2seq.sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=avg_t
        )
    steps = [
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(t, [-1]), logits=x) * w
        for x, t, w in zip(logits, targets, weights, strict=True)
    ]
    total = tf.add_n(steps)
    if avg_t:
        total /= tf.add_n(weights) + 1e-12
    return total


def _legacy_sequence_loss(tf, logits, targets, weights, avg_t=True, avg_b=True):
    if hasattr(tf, "contrib"):
        return tf.contrib.legacy_seq2seq.sequence_loss(
            logits, targets, weights, average_across_timesteps=avg_t, average_across_batch=avg_b
        )
    cost = tf.reduce_sum(_legacy_by_example(tf, logits, targets, weights, avg_t))
    if avg_b:
        return cost / tf.cast(tf.shape(targets[0])[0], cost.dtype)
    return cost


_SEQ_WEIGHTS = np.array([[1.0, 1.0, 0.5, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])


@_program
def seq2seq_sequence_loss_every_reduction(tf):
    logits = tf.placeholder(tf.float32, [None, 4, 5], name="logits")
    targets = tf.placeholder(tf.int32, [None, 4], name="targets")
    weights = tf.placeholder(tf.float32, [None, 4], name="weights")
    fetches = []
    for avg_t, avg_b, sum_t, sum_b in [
        (True, True, False, False),
        (True, False, False, False),
        (False, True, False, False),
        (False, False, False, False),
        (False, False, True, True),
        (False, False, True, False),
        (False, False, False, True),
        (True, False, False, True),
        (False, True, True, False),
    ]:
        loss = _sequence_loss(tf, logits, targets, weights, avg_t, avg_b, sum_t, sum_b)
        fetches += [loss, tf.gradients(tf.reduce_sum(tf.sin(loss)), [logits, weights])]
    feeds = {
        logits: _arr(70, (3, 4, 5), -3.0, 3.0),
        targets: np.array([[0, 4, 2, 1], [3, 3, 0, 4], [1, 2, 3, 0]], np.int32),
        weights: _SEQ_WEIGHTS.astype(np.float32),
    }
    return {"fetches": fetches, "feeds": feeds, "rtol": 1e-5}


@_program
def seq2seq_sequence_loss_float64_custom_softmax(tf):
    logits = tf.placeholder(tf.float64, [2, 3, 4], name="logits")
    targets = tf.constant([[0, 1, 3], [2, 2, 1]], tf.int64)
    weights = tf.constant([[1.0, 0.25, 0.0], [1.0, 1.0, 3.0]], tf.float64)

    def smoothed(labels, logits):
        return tf.losses.softmax_cross_entropy(
            tf.one_hot(labels, 4, dtype=logits.dtype),
            logits,
            label_smoothing=0.1,
            reduction=tf.losses.Reduction.NONE,
        )

    losses = [
        _sequence_loss(tf, logits, targets, weights),
        _sequence_loss(tf, logits, targets, weights, False, True),
        _sequence_loss(tf, logits, targets, weights, softmax_loss_function=smoothed),
    ]
    feeds = {logits: _arr(71, (2, 3, 4), -2.0, 2.0, np.float64)}
    return {
        "fetches": [losses, [tf.gradients(tf.reduce_sum(x * x), logits)[0] for x in losses]],
        "feeds": feeds,
    }


@_program
def legacy_seq2seq_sequence_losses(tf):
    steps = 3
    logits = [tf.placeholder(tf.float32, [None, 5], name=f"logit{i}") for i in range(steps)]
    targets = [tf.placeholder(tf.int32, [None], name=f"target{i}") for i in range(steps)]
    weights = [tf.placeholder(tf.float32, [None], name=f"weight{i}") for i in range(steps)]
    losses = [
        _legacy_by_example(tf, logits, targets, weights),
        _legacy_by_example(tf, logits, targets, weights, avg_t=False),
        _legacy_sequence_loss(tf, logits, targets, weights),
        _legacy_sequence_loss(tf, logits, targets, weights, avg_t=False),
        _legacy_sequence_loss(tf, logits, targets, weights, avg_b=False),
    ]
    grads = [tf.gradients(tf.reduce_sum(tf.sin(x)), logits + weights) for x in losses]
    feeds = {}
    table = _arr(72, (steps, 4, 5), -3.0, 3.0)
    labels = np.array([[0, 4, 2, 1], [3, 3, 0, 4], [1, 2, 3, 0]], np.int32)
    # the last example's weights are all 0: TF1's 1e-12 keeps its loss 0 (0 / 1e-12)
    w = np.array([[1.0, 0.5, 2.0, 0.0], [1.0, 0.0, 0.25, 0.0], [0.0, 1.0, 1.0, 0.0]], np.float32)
    for i in range(steps):
        feeds[logits[i]] = table[i]
        feeds[targets[i]] = labels[i]
        feeds[weights[i]] = w[i]
    return {"fetches": [losses, grads], "feeds": feeds, "rtol": 1e-5}
