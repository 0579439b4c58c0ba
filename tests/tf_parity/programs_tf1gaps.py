"""Corpus of the TF1 names the tutorials use that landed with issue 15 (TensorFlow parity tests):
``erf``/``erfc``, ``nn.top_k``, ``losses.sparse_softmax_cross_entropy``/``softmax_cross_entropy``,
``metrics.accuracy``/``mean`` with ``local_variables_initializer``,
``train.ExponentialMovingAverage`` and sharded ``nn.embedding_lookup``.

Same conventions as ``programs.py`` (``fn(tf)`` returns ``{"fetches": [...], "feeds": {...}}``);
programs with ``"before"`` ops run them in a Session in order (the recorder after
``global_variables_initializer``), then the fetches. Gradients of an embedding lookup are
converted to dense tensors (TF gives ``IndexedSlices``).

``PROGRAMS`` lists all programs in definition order; ``tf_fixtures_tf1gaps.json`` (written by
``record_tf.py programs_tf1gaps``) is keyed by function ``__name__``.
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


_ERF_POINTS = [-6.0, -4.0, -2.5, -1.0, -0.5, -1e-3, 0.0, 1e-8, 0.3, 0.5, 1.0, 1.5, 2.5, 4.0, 6.0]


# --- erf, erfc -------------------------------------------------------------------------------


@_program
def erf_erfc_float64_with_second_derivatives(tf):
    x = tf.Variable(np.array(_ERF_POINTS), name="x")
    y = tf.reduce_sum(tf.erf(x) * 2.0 + tf.math.erfc(x))
    (grad,) = tf.gradients(y, x)
    return {
        "fetches": [tf.erf(x), tf.erfc(x), grad, tf.gradients(tf.reduce_sum(grad), x)],
        "feeds": {},
    }


@_program
def erf_float32_placeholder(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    y = tf.reduce_sum(tf.math.erf(x * 0.7) ** 2)
    return {
        "fetches": [tf.erf(x), tf.math.erfc(x), y, tf.gradients(y, x)],
        "feeds": {x: np.array(_ERF_POINTS, np.float32)},
    }


# --- top_k -----------------------------------------------------------------------------------


@_program
def top_k_ties_and_gradient(tf):
    x = tf.Variable(np.array([[1.0, 3.0, 3.0, 2.0, 3.0], [0.5, -1.0, 0.5, 0.5, 7.0]]), name="x")
    values, indices = tf.nn.top_k(x, k=3)
    weights = tf.constant([1.0, 2.0, 3.0], tf.float64)
    y = tf.reduce_sum(values * values * weights)
    (grad,) = tf.gradients(y, x)
    return {
        "fetches": [values, indices, y, grad, tf.gradients(tf.reduce_sum(grad * x), x)],
        "feeds": {},
    }


@_program
def top_k_math_rank3_float32_k1(tf):
    x = tf.placeholder(tf.float32, [2, 2, 4], name="x")
    result = tf.math.top_k(x, 1)
    y = tf.reduce_sum(tf.sin(result.values))
    return {
        "fetches": [result.values, result.indices, tf.gradients(y, x)],
        "feeds": {x: _arr(1, (2, 2, 4), dtype=np.float32)},
    }


@_program
def top_k_int32_whole_row(tf):
    values, indices = tf.nn.top_k(tf.constant([[4, 1, 4, 7], [0, 0, -2, 0]]), k=4)
    return {"fetches": [values, indices], "feeds": {}}


# --- losses ----------------------------------------------------------------------------------


@_program
def losses_sparse_softmax_default(tf):
    logits = tf.Variable(_arr(2, (4, 3), -2, 2, np.float32), name="logits")
    labels = tf.placeholder(tf.int32, [None], name="labels")
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    return {
        "fetches": [loss, tf.gradients(loss, logits), tf.add_n(tf.losses.get_losses())],
        "feeds": {labels: np.array([0, 2, 1, 2], np.int32)},
    }


@_program
def losses_sparse_softmax_weights_with_zeros(tf):
    logits = tf.Variable(_arr(3, (4, 3), -2, 2, np.float32), name="logits")
    labels = tf.constant([1, 0, 2, 2], tf.int64)
    weights = tf.constant([1.0, 0.0, 2.0, 0.5])
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits, weights=weights)
    return {"fetches": [loss, tf.gradients(loss, logits)], "feeds": {}}


@_program
def losses_sparse_softmax_every_reduction(tf):
    logits = tf.Variable(_arr(4, (4, 3), -2, 2, np.float32), name="logits")
    labels = tf.constant([1, 0, 2, 2])
    weights = tf.constant([[0.0], [1.0], [3.0], [0.0]])
    fetches = []
    for reduction in [
        tf.losses.Reduction.NONE,
        tf.losses.Reduction.SUM,
        tf.losses.Reduction.MEAN,
        tf.losses.Reduction.SUM_OVER_BATCH_SIZE,
        tf.losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
    ]:
        loss = tf.losses.sparse_softmax_cross_entropy(
            labels, logits, weights=tf.reshape(weights, [4]), reduction=reduction
        )
        fetches += [loss, tf.gradients(tf.reduce_sum(loss), logits)]
    return {"fetches": fetches, "feeds": {}}


@_program
def losses_sparse_softmax_all_weights_zero(tf):
    logits = tf.Variable(_arr(5, (2, 3), dtype=np.float32), name="logits")
    loss = tf.losses.sparse_softmax_cross_entropy([0, 1], logits, weights=0.0)
    return {"fetches": [loss, tf.gradients(loss, logits)], "feeds": {}}


@_program
def losses_softmax_cross_entropy_smoothing(tf):
    logits = tf.Variable(_arr(6, (3, 4), -2, 2, np.float32), name="logits")
    labels = tf.placeholder(tf.float32, [None, 4], name="labels")
    plain = tf.losses.softmax_cross_entropy(labels, logits)
    smooth = tf.losses.softmax_cross_entropy(
        labels, logits, weights=[1.0, 2.0, 0.0], label_smoothing=0.1
    )
    return {
        "fetches": [plain, smooth, tf.gradients(plain + smooth, [logits, labels])],
        "feeds": {labels: np.eye(4, dtype=np.float32)[[3, 0, 1]]},
    }


# --- streaming metrics -----------------------------------------------------------------------


@_program
def metrics_accuracy_streams_over_batches(tf):
    labels = tf.constant([1, 2, 3, 4], tf.int64)
    predictions = tf.Variable(np.array([1, 2, 0, 0], np.int64), name="predictions")
    accuracy, update = tf.metrics.accuracy(labels=labels, predictions=predictions)
    return {
        "before": [
            tf.local_variables_initializer(),
            update,
            predictions.assign(np.array([1, 2, 3, 0], np.int64)),
            update,
        ],
        "fetches": [accuracy, tf.local_variables()],
        "feeds": {},
    }


@_program
def metrics_accuracy_update_gives_the_new_value(tf):
    labels = tf.constant([1, 2, 3, 4], tf.int64)
    predictions = tf.Variable(np.array([1, 2, 0, 0], np.int64), name="predictions")
    _, update = tf.metrics.accuracy(labels=labels, predictions=predictions)
    return {
        "before": [
            tf.local_variables_initializer(),
            update,
            predictions.assign(np.array([1, 2, 3, 3], np.int64)),
        ],
        "fetches": [update],
        "feeds": {},
    }


@_program
def metrics_accuracy_argmax_weighted(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.placeholder(tf.int32, [None], name="y")
    weights = tf.placeholder(tf.float32, [None], name="weights")
    accuracy, update = tf.metrics.accuracy(y, tf.argmax(x, 1), weights=weights, name="acc")
    return {
        "before": [tf.local_variables_initializer(), update, update],
        "fetches": [accuracy],
        "feeds": {
            x: _arr(7, (5, 3), dtype=np.float32),
            y: np.array([0, 1, 2, 2, 1], np.int32),
            weights: np.array([1.0, 0.5, 0.0, 2.0, 1.0], np.float32),
        },
    }


@_program
def metrics_accuracy_before_any_update(tf):
    accuracy, _ = tf.metrics.accuracy(tf.constant([1, 0]), tf.constant([1, 1]))
    return {"before": [tf.local_variables_initializer()], "fetches": [accuracy], "feeds": {}}


@_program
def metrics_mean_streams(tf):
    values = tf.Variable(np.array([1.0, 2.0, 6.0], np.float32), name="values")
    mean, update = tf.metrics.mean(values)
    return {
        "before": [tf.local_variables_initializer(), update, values.assign([0.5, 0.5, 0.5])],
        "fetches": [update],
        "feeds": {},
    }


# --- exponential moving averages -------------------------------------------------------------


@_program
def ema_follows_variables(tf):
    w = tf.Variable(np.array([1.0, -2.0], np.float32), name="w")
    b = tf.Variable(0.5, dtype=tf.float64, name="b")
    ema = tf.train.ExponentialMovingAverage(0.9)
    update = ema.apply([w, b])
    return {
        "before": [
            w.assign([3.0, 4.0]),
            update,
            b.assign(tf.constant(10.0, tf.float64)),
            update,
        ],
        "fetches": [ema.average(w), ema.average(b), w, b],
        "feeds": {},
    }


@_program
def ema_num_updates_caps_the_decay(tf):
    w = tf.Variable(1.0, name="w")
    step = tf.Variable(0, trainable=False, name="step")
    ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step)
    update = ema.apply()
    return {
        "before": [
            w.assign(5.0),
            update,
            step.assign(30),
            w.assign(-3.0),
            update,
        ],
        "fetches": [ema.average(w), ema.variables_to_restore()["w/ExponentialMovingAverage"]],
        "feeds": {},
    }


@_program
def ema_trained_variable(tf):
    x = tf.constant(_arr(8, (6, 2), dtype=np.float32))
    w = tf.Variable(np.array([[0.5], [-0.5]], np.float32), name="w")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    ema = tf.train.ExponentialMovingAverage(0.5)
    with tf.control_dependencies([train]):
        train_and_average = ema.apply([w])
    return {
        "before": [train_and_average, train_and_average, train_and_average],
        "fetches": [w, ema.average(w)],
        "feeds": {},
    }


# --- sharded embedding_lookup ----------------------------------------------------------------


def _sharded(tf, sizes, strategy, ids):
    shards = [
        tf.Variable(_arr(10 + i, (n, 2)) + 10 * i, name=f"shard{i}") for i, n in enumerate(sizes)
    ]
    rows = tf.nn.embedding_lookup(shards, ids, partition_strategy=strategy)
    loss = tf.reduce_sum(rows * rows * tf.constant([1.0, 3.0], tf.float64))
    grads = [tf.convert_to_tensor(g) for g in tf.gradients(loss, shards)]
    return {"fetches": [rows, grads], "feeds": {}}


@_program
def embedding_sharded_mod_repeated_ids(tf):
    return _sharded(tf, [3, 2, 2], "mod", tf.constant([[0, 6, 3], [5, 5, 1]]))


@_program
def embedding_sharded_div_repeated_ids(tf):
    return _sharded(tf, [3, 2, 2], "div", tf.constant([[0, 6, 3], [5, 5, 1]]))


@_program
def embedding_sharded_div_two_shards_fed_ids(tf):
    ids = tf.placeholder(tf.int32, [None], name="ids")
    built = _sharded(tf, [4, 3], "div", ids)
    built["feeds"] = {ids: np.array([6, 0, 4, 3, 3], np.int32)}
    return built


@_program
def embedding_sharded_mod_two_shards_float32(tf):
    shards = [
        tf.Variable(_arr(20, (3, 4), dtype=np.float32), name="a"),
        tf.Variable(_arr(21, (2, 4), dtype=np.float32), name="b"),
    ]
    rows = tf.nn.embedding_lookup(shards, [4, 1, 2, 1])
    loss = tf.reduce_sum(tf.tanh(rows))
    return {
        "fetches": [rows, [tf.convert_to_tensor(g) for g in tf.gradients(loss, shards)]],
        "feeds": {},
    }
