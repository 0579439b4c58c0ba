"""Corpus of TF1 programs for optimizers, learning-rate schedules and variable scopes.

Same conventions as ``programs.py``: every program is ``fn(tf)`` taking the graph-API module
(``tensorflow.compat.v1`` when recording, ``symgrad`` when testing) and returning
``{"fetches": [...], "feeds": {...}, "before": [ops run in order first]}``. The recorder
(``record_tf.py``) and ``tests/test_tf_parity_train.py`` run the ``"before"`` ops (training
steps) in a Session, then the fetches.

Covered: ``RMSPropOptimizer`` (plain, momentum, centered), ``AdagradOptimizer``,
``AdadeltaOptimizer`` on float32 and float64 variables over a few steps with their slots;
``exponential_decay`` (smooth and staircase), ``piecewise_constant``, ``polynomial_decay``
(power, cycle), ``inverse_time_decay``, ``natural_exp_decay`` driven by a global step that
``minimize(..., global_step=...)`` increments and used as an optimizer's learning rate; a
two-layer model built with ``variable_scope``/``get_variable`` (shared weights through
``reuse``, L2 regularization losses) trained a few steps.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-1.0, high=1.0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


# ---------------------------------------------------------------------------
# Optimizers: a few steps on a small least-squares problem
# ---------------------------------------------------------------------------


def _optimizer_program(tf, make, steps, dtype=np.float64, slots=()):
    x = tf.constant(_arr(1, (6, 3), dtype=dtype))
    y = tf.constant(_arr(2, (6, 1), dtype=dtype))
    w = tf.Variable(_arr(3, (3, 1), dtype=dtype), name="w")
    b = tf.Variable(np.array([0.5], dtype), name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    opt = make(tf)
    step = opt.minimize(loss)
    return {
        "fetches": [loss, w, b] + [opt.get_slot(v, name) for v in (w, b) for name in slots],
        "feeds": {},
        "before": [step] * steps,
    }


@_program
def rmsprop_float32_four_steps(tf):
    return _optimizer_program(
        tf, lambda tf: tf.train.RMSPropOptimizer(0.05), 4, np.float32, ["rms", "momentum"]
    )


@_program
def rmsprop_momentum_float64_four_steps(tf):
    return _optimizer_program(
        tf,
        lambda tf: tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.7, epsilon=1e-6),
        4,
        slots=["rms", "momentum"],
    )


@_program
def rmsprop_centered_float32_four_steps(tf):
    return _optimizer_program(
        tf,
        lambda tf: tf.train.RMSPropOptimizer(0.05, momentum=0.5, centered=True),
        4,
        np.float32,
        ["rms", "mg", "momentum"],
    )


@_program
def rmsprop_centered_float64_three_steps(tf):
    return _optimizer_program(
        tf,
        lambda tf: tf.train.RMSPropOptimizer(0.01, decay=0.95, centered=True),
        3,
        slots=["rms", "mg", "momentum"],
    )


@_program
def adagrad_float32_four_steps(tf):
    return _optimizer_program(
        tf, lambda tf: tf.train.AdagradOptimizer(0.3), 4, np.float32, ["accumulator"]
    )


@_program
def adagrad_initial_accumulator_float64_three_steps(tf):
    return _optimizer_program(
        tf,
        lambda tf: tf.train.AdagradOptimizer(0.3, initial_accumulator_value=0.7),
        3,
        slots=["accumulator"],
    )


@_program
def adadelta_float32_four_steps(tf):
    return _optimizer_program(
        tf, lambda tf: tf.train.AdadeltaOptimizer(1.0), 4, np.float32, ["accum", "accum_update"]
    )


@_program
def adadelta_float64_three_steps(tf):
    return _optimizer_program(
        tf,
        lambda tf: tf.train.AdadeltaOptimizer(0.5, rho=0.9, epsilon=1e-4),
        3,
        slots=["accum", "accum_update"],
    )


# ---------------------------------------------------------------------------
# Schedules: the rate after some steps, and as an optimizer's learning rate
# ---------------------------------------------------------------------------


def _schedule_program(tf, make_rate, steps, dtype=np.float32):
    step = tf.train.get_or_create_global_step()
    rate = make_rate(tf, step)
    w = tf.Variable(np.array([1.0, -2.0, 3.0], dtype), name="w")
    loss = tf.reduce_sum(tf.square(w))
    train_op = tf.train.GradientDescentOptimizer(rate).minimize(loss, global_step=step)
    return {"fetches": [rate, step, w], "feeds": {}, "before": [train_op] * steps}


@_program
def exponential_decay_seven_steps(tf):
    return _schedule_program(tf, lambda tf, step: tf.train.exponential_decay(0.1, step, 3, 0.7), 7)


@_program
def exponential_decay_staircase_seven_steps(tf):
    return _schedule_program(
        tf, lambda tf, step: tf.train.exponential_decay(0.1, step, 3, 0.7, staircase=True), 7
    )


@_program
def exponential_decay_float64_rate_five_steps(tf):
    return _schedule_program(
        tf,
        lambda tf, step: tf.train.exponential_decay(np.float64(0.1), step, 2, 0.9),
        5,
        np.float64,
    )


@_program
def piecewise_constant_at_boundary(tf):
    return _schedule_program(
        tf, lambda tf, step: tf.train.piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01]), 4
    )


@_program
def piecewise_constant_past_boundaries(tf):
    return _schedule_program(
        tf, lambda tf, step: tf.train.piecewise_constant(step, [2, 4], [0.1, 0.05, 0.01]), 6
    )


@_program
def polynomial_decay_power_two(tf):
    return _schedule_program(
        tf,
        lambda tf, step: tf.train.polynomial_decay(0.1, step, 8, end_learning_rate=0.01, power=2.0),
        5,
    )


@_program
def polynomial_decay_past_the_end(tf):
    return _schedule_program(
        tf, lambda tf, step: tf.train.polynomial_decay(0.1, step, 3, end_learning_rate=0.02), 5
    )


@_program
def polynomial_decay_cycle(tf):
    return _schedule_program(
        tf,
        lambda tf, step: tf.train.polynomial_decay(
            0.1, step, 3, end_learning_rate=0.02, power=0.5, cycle=True
        ),
        5,
    )


@_program
def polynomial_decay_cycle_at_zero(tf):
    return _schedule_program(
        tf,
        lambda tf, step: tf.train.polynomial_decay(0.1, step, 3, cycle=True),
        0,
    )


@_program
def inverse_time_decay_six_steps(tf):
    return _schedule_program(tf, lambda tf, step: tf.train.inverse_time_decay(0.1, step, 2, 0.5), 6)


@_program
def inverse_time_decay_staircase(tf):
    return _schedule_program(
        tf, lambda tf, step: tf.train.inverse_time_decay(0.1, step, 2, 0.5, staircase=True), 5
    )


@_program
def natural_exp_decay_five_steps(tf):
    return _schedule_program(tf, lambda tf, step: tf.train.natural_exp_decay(0.1, step, 2, 0.3), 5)


@_program
def adam_with_exponential_decay(tf):
    step = tf.train.get_or_create_global_step()
    rate = tf.train.exponential_decay(0.2, step, 2, 0.5, staircase=True)
    w = tf.Variable(np.array([1.0, -2.0], np.float32), name="w")
    loss = tf.reduce_sum(tf.square(w - 0.5))
    train_op = tf.train.AdamOptimizer(rate).minimize(loss, global_step=step)
    return {"fetches": [rate, step, w, loss], "feeds": {}, "before": [train_op] * 5}


# ---------------------------------------------------------------------------
# variable_scope / get_variable models
# ---------------------------------------------------------------------------


def _dense(tf, x, units, name, reuse=None):
    # A fixed initial value through an initializer callable (TF1's signature).
    value = _arr(7 + units, (int(x.shape[1]), units), dtype=np.float32)
    with tf.variable_scope(name, reuse=reuse):
        w = tf.get_variable(
            "W",
            [int(x.shape[1]), units],
            initializer=lambda shape, dtype=None, partition_info=None: tf.constant(value),
            regularizer=lambda v: tf.multiply(0.01, tf.nn.l2_loss(v)),
        )
        b = tf.get_variable("b", initializer=np.zeros(units, np.float32))
        return tf.matmul(x, w) + b


@_program
def scoped_model_with_shared_layer_and_l2(tf):
    # The recorder runs "before" ops without feeds: the data are constants.
    x = tf.constant(_arr(11, (5, 4), dtype=np.float32), name="x")
    y = tf.constant(_arr(12, (5, 1), dtype=np.float32), name="y")
    hidden = tf.tanh(_dense(tf, x, 3, "layer1"))
    # The same layer applied to a second input shares its variables.
    other = tf.tanh(_dense(tf, x * 0.5, 3, "layer1", reuse=True))
    out = _dense(tf, hidden + other, 1, "layer2")
    data = tf.reduce_mean(tf.square(out - y))
    regularization = tf.losses.get_regularization_loss()
    loss = data + regularization
    step = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    variables = tf.trainable_variables()
    return {
        "fetches": [loss, regularization, tf.get_collection("regularization_losses"), variables],
        "feeds": {},
        "before": [step] * 3,
    }


@_program
def scoped_model_gradients_of_regularized_loss(tf):
    x = tf.placeholder(tf.float64, [None, 2], name="x")

    def init(shape, dtype=None, partition_info=None):
        return tf.constant(_arr(21, shape), dtype=dtype)

    with tf.variable_scope("model", initializer=init, dtype=tf.float64):
        with tf.variable_scope("inner"):
            w = tf.get_variable("w", [2, 2], regularizer=lambda v: tf.reduce_sum(tf.abs(v)) * 0.5)
        v = tf.get_variable("v", [2])
    (regularization,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    loss = tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * v) + regularization
    return {
        "fetches": [loss, tf.gradients(loss, [w, v])],
        "feeds": {x: _arr(22, (3, 2))},
    }


# ---------------------------------------------------------------------------
# Tensors as shape, axis and index arguments; TF1's dtype names
# ---------------------------------------------------------------------------


@_program
def tensors_as_static_shapes_and_indices(tf):
    c = tf.constant(_arr(31, (2, 3), dtype=np.float32))
    return {
        "fetches": [
            tf.reshape(c, tf.shape(tf.zeros([3, 2]))),
            tf.broadcast_to(tf.constant(1.5), tf.constant([2, 3])),
            c[tf.constant(1)],
            c[tf.constant(0) : tf.constant(1)],
            tf.zeros(tf.shape(c)),
            tf.fill(tf.shape(c), 7.0),
            tf.reduce_sum(c, tf.constant(1)),
            tf.expand_dims(c, tf.constant(0)),
            tf.tile(c, tf.constant([2, 1])),
            tf.reshape(c, [tf.shape(c)[1], -1]),
            tf.reshape(c, tf.stack([tf.shape(c)[1], 2])),
            tf.cast(c, "double"),
            tf.cast(tf.cast(c * 10.0, tf.int32), "float"),
        ],
        "feeds": {},
    }


@_program
def run_time_shapes_follow_the_fed_batch(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.constant(_arr(32, (3,), dtype=np.float32))
    y = tf.fill(tf.shape(x), 2.0) * x + tf.broadcast_to(w, tf.shape(x)) + tf.ones(tf.shape(x))
    loss = tf.reduce_sum(y * y) + tf.reduce_sum(tf.zeros(tf.shape(x)))
    return {
        "fetches": [y, loss, tf.gradients(loss, [x, w])],
        "feeds": {x: _arr(33, (4, 3), dtype=np.float32)},
    }


# --- sparse updates: a variable read only through gather/embedding_lookup ------------------
#
# TF1's gradient of such a variable is IndexedSlices, and Momentum, RMSProp and Adadelta
# apply it with their sparse kernels: rows not gathered in a step keep their slots and do not
# move. The ids of each step come from the global step, so that steps gather different rows
# (and one gathers a row twice).


def _sparse_program(tf, make, dense_too=False, clip=False, transform=None):
    table = tf.Variable(_arr(40, (4, 2)).astype(np.float32), name="table")
    step = tf.train.get_or_create_global_step()
    schedule = tf.constant(np.array([[0, 1], [0, 0], [1, 2], [3, 3]], np.int32))
    ids = tf.gather(schedule, tf.minimum(step, 3))
    loss = tf.reduce_sum(tf.square(tf.nn.embedding_lookup(table, ids) - 0.5))
    loss += tf.reduce_sum(tf.gather(table, ids[:1]))  # a second gather of the table
    if dense_too:
        loss += 0.1 * tf.reduce_sum(table)  # a dense read: TF's gradient is dense then
    optimizer = make()
    grads_and_vars = optimizer.compute_gradients(loss)
    norms = []
    if transform is not None:  # what users do to gradients: TF keeps some of them sparse
        grads_and_vars = [(transform(g), v) for g, v in grads_and_vars]
    if clip:
        # TF takes the norm of the slices: a row gathered twice counts twice, not summed.
        grads, norm = tf.clip_by_global_norm([g for g, _ in grads_and_vars], 1.0)
        grads_and_vars = list(zip(grads, [v for _, v in grads_and_vars], strict=True))
        norms = [norm, tf.global_norm([g for g, _ in grads_and_vars])]
    train = optimizer.apply_gradients(grads_and_vars, global_step=step)
    slots = [optimizer.get_slot(table, name) for name in optimizer.get_slot_names()]
    return {"fetches": [table, loss] + slots + norms, "feeds": {}, "before": [train] * 4}


@_program
def sparse_momentum(tf):
    return _sparse_program(tf, lambda: tf.train.MomentumOptimizer(0.1, 0.9))


@_program
def sparse_momentum_nesterov(tf):
    return _sparse_program(tf, lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True))


@_program
def sparse_momentum_clipped_by_global_norm(tf):
    return _sparse_program(tf, lambda: tf.train.MomentumOptimizer(0.1, 0.9), clip=True)


@_program
def sparse_and_dense_momentum(tf):
    return _sparse_program(tf, lambda: tf.train.MomentumOptimizer(0.1, 0.9), dense_too=True)


@_program
def sparse_rmsprop(tf):
    return _sparse_program(tf, lambda: tf.train.RMSPropOptimizer(0.1))


@_program
def sparse_rmsprop_centered_momentum(tf):
    return _sparse_program(tf, lambda: tf.train.RMSPropOptimizer(0.05, momentum=0.5, centered=True))


@_program
def sparse_adadelta(tf):
    return _sparse_program(tf, lambda: tf.train.AdadeltaOptimizer(1.0))


@_program
def sparse_adagrad(tf):
    return _sparse_program(tf, lambda: tf.train.AdagradOptimizer(0.1))


@_program
def sparse_adam(tf):
    return _sparse_program(tf, lambda: tf.train.AdamOptimizer(0.1))


@_program
def sparse_gradient_descent(tf):
    return _sparse_program(tf, lambda: tf.train.GradientDescentOptimizer(0.1))


@_program
def sparse_momentum_clipped_by_value(tf):
    # TF1 clips IndexedSlices slice by slice (a row gathered twice is clipped twice) and keeps
    # them sparse.
    return _sparse_program(
        tf,
        lambda: tf.train.MomentumOptimizer(0.1, 0.9),
        transform=lambda g: tf.clip_by_value(g, -0.6, 0.6),
    )


@_program
def sparse_gradient_descent_clipped_by_norm(tf):
    return _sparse_program(
        tf,
        lambda: tf.train.GradientDescentOptimizer(0.1),
        transform=lambda g: tf.clip_by_norm(g, 1.0),
    )


@_program
def sparse_momentum_scaled_by_a_tensor_is_dense(tf):
    # A product with a tensor turns TF1's IndexedSlices into a dense gradient.
    return _sparse_program(
        tf,
        lambda: tf.train.MomentumOptimizer(0.1, 0.9),
        transform=lambda g: tf.multiply(g, tf.constant(0.5, tf.float32)),
    )
