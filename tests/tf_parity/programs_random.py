"""Corpus of TF1 programs with random ops and initializers (TensorFlow parity tests).

Same conventions as ``programs.py``. symgrad's numbers come from NumPy and cannot equal
TensorFlow's, so these programs fetch what both must agree on: statistics of large draws
(compared with the ``rtol`` each program gives, some ten standard errors wide: a wrong
distribution, scale or bound is off by far more), and exact identities (dropout's kept
values and its gradient). ``tf_fixtures_random.json`` is written by
``record_tf.py programs_random``.
"""

import numpy as np

PROGRAMS = []
N = 100_000


def _program(fn):
    """Register ``fn`` in PROGRAMS (definition order, unique names)."""
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _moments(tf, t):
    """[mean, standard deviation, max |t|] of a tensor, in float64."""
    t = tf.cast(t, tf.float64)
    mean = tf.reduce_mean(t)
    std = tf.sqrt(tf.reduce_mean(tf.square(t - mean)))
    return [mean, std, tf.reduce_max(tf.abs(t))]


@_program
def random_normal_moments(tf):
    t = tf.random_normal([N], mean=1.5, stddev=2.0, seed=1)
    mean, std, _ = _moments(tf, t)
    return {"fetches": [mean, std], "feeds": {}, "rtol": 0.02}


@_program
def truncated_normal_moments(tf):
    t = tf.truncated_normal([N], mean=0.0, stddev=0.5, seed=2)
    _, std, largest = _moments(tf, t)
    return {"fetches": [std, largest], "feeds": {}, "rtol": 0.01}


@_program
def random_uniform_bounds(tf):
    t = tf.random_uniform([N], minval=-2.0, maxval=3.0, seed=3)
    mean, std, _ = _moments(tf, t)
    return {
        "fetches": [tf.reduce_min(t), tf.reduce_max(t), mean, std],
        "feeds": {},
        "rtol": 0.02,
    }


@_program
def random_uniform_int_bounds(tf):
    t = tf.random_uniform([N], minval=1, maxval=7, dtype=tf.int32, seed=4)
    mean, _, _ = _moments(tf, t)
    return {"fetches": [tf.reduce_min(t), tf.reduce_max(t), mean], "feeds": {}, "rtol": 0.01}


@_program
def glorot_uniform_conv_kernel(tf):
    w = tf.Variable(tf.glorot_uniform_initializer(seed=5)([5, 5, 16, 32]))
    _, std, largest = _moments(tf, w)
    return {"fetches": [std, largest], "feeds": {}, "rtol": 0.01}


@_program
def glorot_normal_matrix(tf):
    w = tf.Variable(tf.glorot_normal_initializer(seed=6)([400, 300]))
    _, std, largest = _moments(tf, w)
    return {"fetches": [std, largest], "feeds": {}, "rtol": 0.02}


@_program
def variance_scaling_fan_in_normal(tf):
    init = tf.variance_scaling_initializer(2.0, mode="fan_in", distribution="normal", seed=7)
    w = tf.Variable(init([3, 3, 64, 128]))
    _, std, largest = _moments(tf, w)
    return {"fetches": [std, largest], "feeds": {}, "rtol": 0.02}


@_program
def variance_scaling_fan_out_untruncated(tf):
    init = tf.variance_scaling_initializer(
        0.5, mode="fan_out", distribution="untruncated_normal", seed=8
    )
    w = tf.Variable(init([500, 200]))
    _, std, _ = _moments(tf, w)
    return {"fetches": [std], "feeds": {}, "rtol": 0.02}


@_program
def variance_scaling_fan_avg_uniform(tf):
    init = tf.variance_scaling_initializer(3.0, mode="fan_avg", distribution="uniform", seed=9)
    w = tf.Variable(init([300, 500]))
    _, std, largest = _moments(tf, w)
    return {"fetches": [std, largest], "feeds": {}, "rtol": 0.01}


@_program
def random_initializers(tf):
    normal = tf.random_normal_initializer(mean=0.5, stddev=0.1, seed=10)([N])
    uniform = tf.random_uniform_initializer(-0.3, 0.2, seed=11)([N])
    truncated = tf.truncated_normal_initializer(mean=1.0, stddev=0.2, seed=12)([N])
    fetches = _moments(tf, normal)[:2] + [tf.reduce_min(uniform), tf.reduce_max(uniform)]
    fetches += _moments(tf, truncated)[:2] + [tf.reduce_max(truncated)]
    return {"fetches": fetches, "feeds": {}, "rtol": 0.02}


@_program
def constant_initializers(tf):
    return {
        "fetches": [
            tf.zeros_initializer()([2, 3]),
            tf.ones_initializer(dtype=tf.float64)([2]),
            tf.constant_initializer(0.25)([3]),
            tf.constant_initializer([1.0, 2.0, 3.0])([2, 3]),
        ],
        "feeds": {},
    }


@_program
def dropout_keeps_and_scales(tf):
    x = tf.placeholder(tf.float32, [None, 500], name="x")
    h = tf.nn.dropout(x, keep_prob=0.7, seed=13)
    kept = tf.cast(tf.not_equal(h, 0.0), tf.float64)
    return {
        "fetches": [tf.reduce_mean(kept), tf.reduce_max(h)],
        "feeds": {x: np.ones((200, 500), np.float32)},
        "rtol": 0.01,
    }


@_program
def dropout_gradient_is_mask_times_scale(tf):
    x = tf.placeholder(tf.float32, [None, 50], name="x")
    h = tf.nn.dropout(x, rate=0.4, seed=14)
    (grad,) = tf.gradients(tf.reduce_sum(h * 3.0), x)
    # with x = 1, h is the mask times the scale, and the gradient 3 times that
    return {
        "fetches": [tf.reduce_max(tf.abs(grad - 3.0 * h)), tf.reduce_max(grad)],
        "feeds": {x: np.ones((40, 50), np.float32)},
        "rtol": 1e-6,
    }


@_program
def dropout_keep_prob_fed_as_one(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    keep = tf.placeholder(tf.float32, name="keep_prob")
    h = tf.nn.dropout(x, keep, seed=15)
    (grad,) = tf.gradients(tf.reduce_sum(h * h), x)
    data = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0
    return {"fetches": [h, grad], "feeds": {x: data, keep: np.float32(1.0)}}


@_program
def dropout_noise_shape_rows(tf):
    x = tf.placeholder(tf.float32, [100, 30], name="x")
    h = tf.nn.dropout(x, keep_prob=0.5, noise_shape=[100, 1], seed=16)
    per_row = tf.reduce_max(h, axis=1) - tf.reduce_min(h, axis=1)
    return {
        "fetches": [tf.reduce_max(per_row)],
        "feeds": {x: np.ones((100, 30), np.float32)},
    }


@_program
def multinomial_frequencies(tf):
    logits = tf.constant(np.log([[0.2, 0.3, 0.5]]), dtype=tf.float32)
    draws = tf.multinomial(logits, N, seed=17)
    frequencies = [tf.reduce_mean(tf.cast(tf.equal(draws, k), tf.float64)) for k in range(3)]
    return {"fetches": frequencies, "feeds": {}, "rtol": 0.03}


@_program
def random_shuffle_keeps_the_rows(tf):
    rows = tf.constant(np.arange(40, dtype=np.float32).reshape(20, 2))
    shuffled = tf.random_shuffle(rows, seed=18)
    return {
        "fetches": [
            tf.reduce_sum(shuffled, axis=0),
            tf.reduce_sum(shuffled[:, 1] - shuffled[:, 0]),
        ],
        "feeds": {},
    }


def _sampled_model(tf):
    rng = np.random.RandomState(0)
    weights = tf.Variable(rng.uniform(-1, 1, (30, 4)).astype(np.float32), name="weights")
    biases = tf.Variable(rng.uniform(-1, 1, 30).astype(np.float32), name="biases")
    inputs = tf.placeholder(tf.float32, [None, 4], name="inputs")
    labels = tf.placeholder(tf.int64, [None, 2], name="labels")
    # given samples (one of them, 7, is also a true class of the first example)
    sampled = (
        tf.constant([3, 7, 11, 0, 25], dtype=tf.int64),
        tf.constant([[0.5, 0.25], [0.125, 0.75], [0.3, 0.2]], dtype=tf.float32),
        tf.constant([0.2, 0.4, 0.1, 0.9, 0.05], dtype=tf.float32),
    )
    feeds = {
        inputs: rng.uniform(-1, 1, (3, 4)).astype(np.float32),
        labels: np.array([[7, 1], [2, 29], [5, 5]], np.int64),
    }
    return weights, biases, inputs, labels, sampled, feeds


def _with_gradients(tf, loss, variables):
    grads = tf.gradients(tf.reduce_sum(loss), variables)
    return [loss] + [tf.convert_to_tensor(g) for g in grads]


@_program
def nce_loss_given_samples(tf):
    weights, biases, inputs, labels, sampled, feeds = _sampled_model(tf)
    loss = tf.nn.nce_loss(
        weights, biases, labels, inputs, 5, 30, num_true=2, sampled_values=sampled
    )
    return {"fetches": _with_gradients(tf, loss, [weights, biases, inputs]), "feeds": feeds}


@_program
def nce_loss_removing_accidental_hits(tf):
    weights, biases, inputs, labels, sampled, feeds = _sampled_model(tf)
    loss = tf.nn.nce_loss(
        weights,
        biases,
        labels,
        inputs,
        5,
        30,
        num_true=2,
        sampled_values=sampled,
        remove_accidental_hits=True,
    )
    return {"fetches": _with_gradients(tf, loss, [weights, biases, inputs]), "feeds": feeds}


@_program
def sampled_softmax_loss_given_samples(tf):
    weights, biases, inputs, labels, sampled, feeds = _sampled_model(tf)
    loss = tf.nn.sampled_softmax_loss(
        weights, biases, labels, inputs, 5, 30, num_true=2, sampled_values=sampled
    )
    return {"fetches": _with_gradients(tf, loss, [weights, biases, inputs]), "feeds": feeds}


@_program
def log_uniform_sampler_expected_counts(tf):
    labels = tf.constant([[0, 1], [9, 99], [500, 999]], dtype=tf.int64)
    _, true_count, _ = tf.nn.log_uniform_candidate_sampler(labels, 2, 64, False, 1000, seed=19)
    # without unique, an expected count is num_sampled times the class's probability
    return {"fetches": [true_count], "feeds": {}, "rtol": 1e-6}


@_program
def log_uniform_sampler_frequencies(tf):
    labels = tf.constant([[0]], dtype=tf.int64)
    sampled, _, _ = tf.nn.log_uniform_candidate_sampler(labels, 1, N, False, 1000, seed=20)
    as_float = tf.cast(sampled, tf.float64)
    return {
        "fetches": [
            tf.reduce_mean(tf.cast(tf.equal(sampled, 0), tf.float64)),
            tf.reduce_mean(tf.cast(tf.less(sampled, 10), tf.float64)),
            tf.reduce_mean(tf.math.log1p(as_float)),
            tf.reduce_min(sampled),
            tf.reduce_max(sampled),
        ],
        "feeds": {},
        "rtol": 0.02,
    }


@_program
def log_uniform_sampler_unique(tf):
    labels = tf.constant([[3]], dtype=tf.int64)
    sampled, true_count, _ = tf.nn.log_uniform_candidate_sampler(labels, 1, 40, True, 50, seed=21)
    # equal pairs: only each class with itself when the 40 are distinct
    pairs = tf.reduce_sum(
        tf.cast(tf.equal(tf.expand_dims(sampled, 0), tf.expand_dims(sampled, 1)), tf.int32)
    )
    # 40 distinct classes of 50 take many draws: class 3's expected count is close to 1
    return {"fetches": [pairs, true_count], "feeds": {}, "rtol": 0.02}


# nce_loss as word2vec uses it. TF's accidental-hit kernel (ComputeAccidentalHitsOp in
# tensorflow/core/kernels/candidate_sampler_ops.cc) keeps, for each sampled class, the last
# position that holds it: a class sampled twice is removed from the noise at that position only.
def _repeated_samples(tf):
    rng = np.random.RandomState(3)
    weights = tf.Variable(rng.normal(0, 1, (10, 3)).astype(np.float32), name="weights")
    biases = tf.Variable(rng.normal(0, 0.1, 10).astype(np.float32), name="biases")
    inputs = tf.placeholder(tf.float32, [None, 3], name="inputs")
    labels = tf.placeholder(tf.int64, [None, 2], name="labels")
    # classes 7 and 3 are each sampled twice (a sampler with unique=False); expected counts
    # above 1 (num_sampled * p) make log(Q) positive
    sampled = (
        tf.constant([7, 3, 7, 3, 1], dtype=tf.int64),
        tf.constant([[1.5, 1.5], [0.25, 1.25], [1.25, 0.75]], dtype=tf.float32),
        tf.constant([1.5, 1.25, 1.5, 1.25, 0.5], dtype=tf.float32),
    )
    feeds = {
        inputs: rng.normal(0, 1, (3, 3)).astype(np.float32),
        # the first example lists class 7 twice
        labels: np.array([[7, 7], [2, 3], [3, 5]], np.int64),
    }
    return weights, biases, inputs, labels, sampled, feeds


@_program
def nce_loss_repeated_samples_removing_accidental_hits(tf):
    weights, biases, inputs, labels, sampled, feeds = _repeated_samples(tf)
    loss = tf.nn.nce_loss(
        weights,
        biases,
        labels,
        inputs,
        5,
        10,
        num_true=2,
        sampled_values=sampled,
        remove_accidental_hits=True,
    )
    return {"fetches": _with_gradients(tf, loss, [weights, biases, inputs]), "feeds": feeds}


@_program
def sampled_softmax_loss_repeated_samples(tf):
    weights, biases, inputs, labels, sampled, feeds = _repeated_samples(tf)
    loss = tf.nn.sampled_softmax_loss(
        weights, biases, labels, inputs, 5, 10, num_true=2, sampled_values=sampled
    )
    return {"fetches": _with_gradients(tf, loss, [weights, biases, inputs]), "feeds": feeds}


@_program
def nce_loss_word2vec_given_samples(tf):
    """word2vec_basic's model at its first step, with the sampler's outputs given: 64
    distinct classes of 300 that took 118 draws, with the expected counts TF's kernel gives
    them (1 - (1 - p)^118 in float32); per-example losses and their gradients."""
    vocabulary, dim, batch, num_sampled, tries = 300, 16, 16, 64, 118
    rng = np.random.RandomState(11)
    embeddings = tf.Variable(rng.uniform(-1, 1, (vocabulary, dim)).astype(np.float32))
    nce_weights = tf.Variable(
        (rng.normal(0, 1, (vocabulary, dim)) / np.sqrt(dim)).astype(np.float32)
    )
    nce_biases = tf.Variable(np.zeros(vocabulary, np.float32))
    ids = tf.placeholder(tf.int32, [batch], name="ids")
    labels = tf.placeholder(tf.int32, [batch, 1], name="labels")

    def expected(classes):
        p = (np.log((classes + 2.0) / (classes + 1.0)) / np.log(vocabulary + 1)).astype(np.float32)
        return -np.expm1(np.float32(tries) * np.log1p(-p))

    drawn = np.exp(rng.uniform(0, np.log(vocabulary + 1), 4 * num_sampled)).astype(np.int64) - 1
    sampled_ids = np.array(list(dict.fromkeys(drawn.tolist()))[:num_sampled], np.int64)
    label_ids = rng.randint(0, 40, (batch, 1))
    sampled = (
        tf.constant(sampled_ids),
        tf.constant(expected(label_ids).astype(np.float32)),
        tf.constant(expected(sampled_ids).astype(np.float32)),
    )
    embed = tf.nn.embedding_lookup(embeddings, ids)
    loss = tf.nn.nce_loss(
        weights=nce_weights,
        biases=nce_biases,
        labels=labels,
        inputs=embed,
        num_sampled=num_sampled,
        num_classes=vocabulary,
        sampled_values=sampled,
    )
    d_embed, d_weights, d_biases = tf.gradients(
        tf.reduce_mean(loss), [embed, nce_weights, nce_biases]
    )
    # the rows of the weights' gradient that the samples and the labels touch
    touched = np.concatenate([sampled_ids, label_ids[:, 0]])
    d_weights, d_biases = tf.convert_to_tensor(d_weights), tf.convert_to_tensor(d_biases)
    fetches = [loss, tf.convert_to_tensor(d_embed), tf.gather(d_weights, touched), d_biases]
    feeds = {
        ids: rng.randint(0, vocabulary, batch).astype(np.int32),
        labels: label_ids.astype(np.int32),
    }
    return {"fetches": fetches, "feeds": feeds}


@_program
def log_uniform_sampler_unique_counts_use_the_draws_taken(tf):
    """With unique=True, each expected count is 1 - (1 - p)^tries for the one number of draws
    the distinct classes took (more than num_sampled: 64 classes of 1000 repeat some), not
    num_sampled * p: the tries read back from each true class's count agree, are whole and
    exceed 64."""
    classes = tf.constant([[400, 700], [850, 999]], dtype=tf.int64)
    _, true_count, _ = tf.nn.log_uniform_candidate_sampler(classes, 2, 64, True, 1000, seed=23)
    c = tf.cast(classes, tf.float64)
    p = tf.math.log((c + 2.0) / (c + 1.0)) / np.log(1001.0)
    tries = tf.math.log1p(-tf.cast(true_count, tf.float64)) / tf.math.log1p(-p)
    whole = tf.round(tries)
    return {
        "fetches": [
            tf.reduce_max(tf.abs(tries / whole - 1.0)) < 1e-4,
            tf.reduce_max(whole) - tf.reduce_min(whole),
            tf.reduce_min(whole) > 64.0,
        ],
        "feeds": {},
    }


# --- uniform_candidate_sampler and fixed_unigram_candidate_sampler -----------------------------
# TF's UniformSampler and FixedUnigramSampler (tensorflow/core/kernels/range_sampler.cc): each
# class's probability in float32 (1 / range_max; unigrams[c] ** distortion over their float
# total, reserved ids 0), the expected counts from the same ExpectedCountHelper as log-uniform.

# 5 counts after one reserved id; distortion 0.75: probabilities 0, .439, 0, .131, .299, .131
_UNIGRAMS = [5.0, 0.0, 1.0, 3.0, 1.0]
_ZIPF = [1000.0 / (k + 1) for k in range(50)]


def _unigram_table(unigrams, distortion, reserved=0):
    # pow in double, kept as a float (TF's kernel)
    powered = np.power(np.float32(unigrams).astype(np.float64), float(np.float32(distortion)))
    weights = np.concatenate([np.zeros(reserved, np.float32), powered.astype(np.float32)])
    total = np.float32(0.0)
    for w in weights:
        total = np.float32(total + w)
    return (weights / total).astype(np.float32)


def _unique_count_checks(tf, sampled, sampled_count, p_sampled, num_sampled):
    """With unique=True: the classes are distinct (pairs), and every expected count is
    1 - (1 - p)^tries for the one whole number of tries (above num_sampled) read back from
    the count of the least likely sampled class, to float32 precision."""
    pairs = tf.reduce_sum(
        tf.cast(tf.equal(tf.expand_dims(sampled, 0), tf.expand_dims(sampled, 1)), tf.int32)
    )
    count = tf.cast(sampled_count, tf.float64)
    p = tf.cast(p_sampled, tf.float64)
    rarest = tf.argmin(p)
    tries = tf.math.log1p(-tf.gather(count, rarest)) / tf.math.log1p(-tf.gather(p, rarest))
    whole = tf.round(tries)
    again = -tf.math.expm1(whole * tf.math.log1p(-p))
    return [
        pairs,
        tf.abs(tries / whole - 1.0) < 1e-3,
        whole > float(num_sampled),
        tf.reduce_max(tf.abs(again / count - 1.0)) < 1e-5,
    ]


@_program
def uniform_sampler_expected_counts(tf):
    labels = tf.constant([[0, 1], [7, 999]], dtype=tf.int64)
    sampled, true_count, sampled_count = tf.nn.uniform_candidate_sampler(
        labels, 2, 64, False, 1000, seed=24
    )
    # without unique, every expected count is num_sampled / range_max, in float32
    return {"fetches": [true_count, sampled_count, tf.shape(sampled)], "feeds": {}, "rtol": 0}


@_program
def uniform_sampler_frequencies(tf):
    labels = tf.constant([[0]], dtype=tf.int64)
    sampled, _, _ = tf.nn.uniform_candidate_sampler(labels, 1, N, False, 1000, seed=25)
    return {
        "fetches": [
            tf.reduce_mean(tf.cast(sampled, tf.float64)),
            tf.reduce_mean(tf.cast(tf.less(sampled, 500), tf.float64)),
            tf.reduce_mean(tf.cast(tf.less(sampled, 100), tf.float64)),
            tf.reduce_min(sampled),
            tf.reduce_max(sampled),
        ],
        "feeds": {},
        "rtol": 0.1,
    }


@_program
def uniform_sampler_unique(tf):
    labels = tf.constant([[3], [49]], dtype=tf.int64)
    sampled, _, sampled_count = tf.nn.uniform_candidate_sampler(labels, 1, 40, True, 50, seed=26)
    p = tf.fill(tf.shape(sampled), 1.0 / 50)
    checks = _unique_count_checks(tf, sampled, sampled_count, p, 40)
    return {"fetches": checks, "feeds": {}}


@_program
def fixed_unigram_sampler_expected_counts(tf):
    labels = tf.constant([[0, 1], [3, 5], [2, 4]], dtype=tf.int64)
    sampled, true_count, sampled_count = tf.nn.fixed_unigram_candidate_sampler(
        labels, 2, 64, False, 6, distortion=0.75, num_reserved_ids=1, unigrams=_UNIGRAMS, seed=27
    )
    table = tf.constant(_unigram_table(_UNIGRAMS, 0.75, 1))
    # without unique, each expected count is num_sampled * P(c) in float32, exactly
    exact = tf.reduce_max(tf.abs(sampled_count - 64.0 * tf.gather(table, sampled)))
    never = tf.reduce_sum(tf.cast(tf.equal(sampled, 0), tf.int32)) + tf.reduce_sum(
        tf.cast(tf.equal(sampled, 2), tf.int32)
    )
    return {"fetches": [true_count, exact, never], "feeds": {}, "rtol": 0}


@_program
def fixed_unigram_sampler_frequencies(tf):
    labels = tf.constant([[1]], dtype=tf.int64)
    sampled, _, _ = tf.nn.fixed_unigram_candidate_sampler(
        labels, 1, N, False, 6, distortion=0.75, num_reserved_ids=1, unigrams=_UNIGRAMS, seed=28
    )
    frequencies = tf.reduce_mean(tf.one_hot(sampled, 6, dtype=tf.float64), axis=0)
    # the rarest drawn class has p = 0.131: ten standard errors of the two runs' difference
    # are 0.115 of it
    return {"fetches": [frequencies], "feeds": {}, "rtol": 0.12}


@_program
def fixed_unigram_sampler_unique(tf):
    labels = tf.constant([[0], [49]], dtype=tf.int64)
    sampled, _, sampled_count = tf.nn.fixed_unigram_candidate_sampler(
        labels, 1, 40, True, 50, unigrams=_ZIPF, seed=29
    )
    table = tf.constant(_unigram_table(_ZIPF, 1.0))
    checks = _unique_count_checks(tf, sampled, sampled_count, tf.gather(table, sampled), 40)
    return {"fetches": checks, "feeds": {}}
