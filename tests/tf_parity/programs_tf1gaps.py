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


# --- small TF1 gaps: packed lists, arg_max/arg_min, integer one-hot labels, squeeze, nested feeds


@_program
def list_of_tensors_packed_with_gradients(tf):
    a = tf.Variable(_arr(30, (2, 3)), name="a")
    b = tf.Variable(_arr(31, (2, 3)), name="b")
    packed = tf.convert_to_tensor([a, b * 2.0])
    mixed = tf.convert_to_tensor([[a[0], [1.0, 2.0, 3.0]], [b[1], a[1]]])
    summed = tf.reduce_sum([a, tf.square(b)], axis=0)
    held = tf.stop_gradient([a])
    y = tf.reduce_sum(packed * packed) + tf.reduce_sum(mixed * 3.0) + tf.reduce_sum(summed * a)
    y = y + tf.reduce_sum(held * a)
    return {
        "fetches": [packed, mixed, summed, held, y, tf.gradients(y, [a, b])],
        "feeds": {},
    }


@_program
def list_of_tensors_packed_scalars_float32(tf):
    s = tf.placeholder(tf.float32, [], name="s")
    t = tf.placeholder(tf.float32, [], name="t")
    v = tf.convert_to_tensor([s, t * t, 0.5])
    y = tf.reduce_prod(v) + tf.reduce_max([s, t])
    return {
        "fetches": [v, y, tf.gradients(y, [s, t])],
        "feeds": {s: np.float32(1.5), t: np.float32(-2.0)},
    }


@_program
def arg_max_arg_min_old_spellings(tf):
    x = tf.placeholder(tf.float32, [3, 4], name="x")
    return {
        "fetches": [
            tf.arg_max(x, dimension=1),
            tf.arg_max(x, 0),
            tf.arg_min(x, dimension=0),
            tf.arg_min(x, 1, output_type=tf.int32),
        ],
        "feeds": {x: _arr(32, (3, 4), dtype=np.float32)},
    }


@_program
def softmax_cross_entropy_integer_one_hot_labels(tf):
    logits = tf.Variable(_arr(33, (3, 4), dtype=np.float32), name="logits")
    labels = tf.one_hot([2, 0, 3], 4, dtype=tf.int32)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    v1 = tf.nn.softmax_cross_entropy_with_logits(
        labels=tf.constant([[0, 1, 0, 0]] * 3), logits=logits
    )
    loss = tf.reduce_mean(v2) + tf.reduce_sum(v1)
    return {"fetches": [v2, v1, loss, tf.gradients(loss, logits)], "feeds": {}}


@_program
def softmax_cross_entropy_float64_labels_float32_logits(tf):
    logits = tf.placeholder(tf.float32, [2, 3], name="logits")
    labels = tf.constant([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], tf.float64)
    loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
    return {
        "fetches": [loss, tf.gradients(loss, logits)],
        "feeds": {logits: _arr(34, (2, 3), dtype=np.float32)},
    }


@_program
def squeeze_all_axes_of_unknown_sizes(tf):
    x = tf.placeholder(tf.float64, [None, 1, None], name="x")
    w = tf.Variable(_arr(35, (4,)), name="w")
    squeezed = tf.squeeze(x)
    y = tf.reduce_sum(squeezed * w)
    return {
        "fetches": [squeezed, tf.shape(squeezed), y, tf.gradients(y, [x, w])],
        "feeds": {x: _arr(36, (3, 1, 4))},
    }


@_program
def squeeze_unknown_sizes_drops_run_time_ones(tf):
    x = tf.placeholder(tf.float32, [None, 3, None], name="x")
    squeezed = tf.squeeze(x)
    y = tf.reduce_sum(tf.sin(squeezed))
    return {
        "fetches": [squeezed, tf.rank(squeezed), y, tf.gradients(y, x)],
        "feeds": {x: _arr(37, (1, 3, 1), dtype=np.float32)},
    }


def _lstm_step(tf, inputs, state, weights):
    """One LSTM step written out (the cells' variables would be initialized at random)."""
    c, h = state
    gates = tf.matmul(tf.concat([inputs, h], 1), weights)
    i, j, f, o = tf.split(gates, 4, axis=1)
    new_c = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
    new_h = tf.tanh(new_c) * tf.sigmoid(o)
    return tf.nn.rnn_cell.LSTMStateTuple(new_c, new_h)


@_program
def nested_feed_of_lstm_state_tuples(tf):
    """The PTB model's loop: the final state fetched is fed back as the initial state, here a
    MultiRNNCell-like tuple of LSTMStateTuples fed as one key (run in a Session)."""
    inputs = tf.placeholder(tf.float32, [2, 3], name="inputs")
    layers = []
    for layer in range(2):
        c = tf.placeholder(tf.float32, [2, 2], name=f"c{layer}")
        h = tf.placeholder(tf.float32, [2, 2], name=f"h{layer}")
        layers.append(tf.nn.rnn_cell.LSTMStateTuple(c, h))
    initial = tuple(layers)
    w0 = tf.Variable(_arr(38, (5, 8), dtype=np.float32), name="w0")
    w1 = tf.Variable(_arr(39, (4, 8), dtype=np.float32), name="w1")
    first = _lstm_step(tf, inputs, initial[0], w0)
    second = _lstm_step(tf, first.h, initial[1], w1)
    final = (first, second)
    loss = tf.reduce_sum(second.h)
    state = (
        tf.nn.rnn_cell.LSTMStateTuple(
            _arr(40, (2, 2), dtype=np.float32), np.zeros((2, 2), np.float32)
        ),
        [np.ones((2, 2), np.float32), _arr(41, (2, 2), dtype=np.float32)],
    )
    return {
        "fetches": [final, loss, tf.gradients(loss, [w0, w1])],
        "feeds": {inputs: _arr(42, (2, 3), dtype=np.float32), initial: state},
        "before": [],
    }


@_program
def nested_feed_of_one_lstm_state_tuple(tf):
    c = tf.placeholder(tf.float64, [None, 3], name="c")
    h = tf.placeholder(tf.float64, [None, 3], name="h")
    state = tf.nn.rnn_cell.LSTMStateTuple(c, h)
    w = tf.Variable(_arr(43, (3, 3)), name="w")
    out = tf.matmul(tf.tanh(state.c) + state.h, w)
    loss = tf.reduce_sum(out * out)
    return {
        "fetches": [out, loss, tf.gradients(loss, w)],
        "feeds": {state: (_arr(44, (2, 3)), _arr(45, (2, 3)))},
        "before": [],
    }
