"""Corpus of TF1 programs about names, scopes and collections, as TF1 makes them.

Every program is ``fn(tf)`` taking the graph-API module (``tensorflow.compat.v1`` with TF1's
ref variables when recording, ``symgrad`` when testing); it builds a graph and returns a list
of ``(label, value)`` pairs: names of variables, ops and tensors, the contents of
collections, static shapes and dtypes, and, where a program says so, a value a Session
computes. ``describe`` runs a program the same way under both and turns what it returns into
JSON (an error while building is recorded as the name of its class). Recorded by
``record_tf.py programs_names`` into ``tf_fixtures_names.json``; checked, label by label, by
``tests/test_tf_parity_names.py``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _plain(value):
    """What a program returns, as JSON: names, lists, numbers, shapes and dtypes."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "as_list"):  # a TensorShape
        try:
            return value.as_list()
        except ValueError:  # an unknown rank
            return None
    if hasattr(value, "is_floating") and hasattr(value, "name"):  # a DType
        return value.name
    return getattr(value, "name", repr(value))


def describe(tf, fn):
    """Build ``fn``'s graph; its labelled results as JSON, or the error it raised."""
    graph = tf.Graph()
    with graph.as_default():
        try:
            pairs = fn(tf)
        except Exception as error:
            return {"error": _error_names(error)}
    return {"results": [[label, _plain(value)] for label, value in pairs]}


def _error_names(error):
    """The error's class and the builtin classes it is (symgrad's errors subclass those)."""
    builtin = [c.__name__ for c in type(error).__mro__ if c.__module__ == "builtins"]
    return [type(error).__name__, builtin[0] if builtin else None]


def _names(items):
    return [getattr(item, "name", item) for item in items]


def _collection(tf, key, scope=None):
    return _names(tf.get_collection(key, scope))


def _run(tf, fetches, feeds=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return sess.run(fetches, feeds or {})


# ---------------------------------------------------------------------------
# Variables under scopes
# ---------------------------------------------------------------------------


@_program
def variables_in_nested_scopes(tf):
    a = tf.Variable(1.0, name="a")
    with tf.variable_scope("outer"):
        b = tf.get_variable("b", [2])
        with tf.variable_scope("inner"):
            c = tf.get_variable("c", [], initializer=tf.zeros_initializer())
            d = tf.Variable(2.0, name="d")
        with tf.name_scope("named"):
            e = tf.get_variable("e", [1])
            f = tf.Variable(3.0, name="f")
    with tf.variable_scope("outer", reuse=True):
        again = tf.get_variable("b", [2])
    g = tf.Variable(4.0)
    h = tf.Variable(5.0)
    return [
        ("names", _names([a, b, c, d, e, f, g, h])),
        ("reused is the same", again is b),
        ("global", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES)),
        ("trainable", _collection(tf, tf.GraphKeys.TRAINABLE_VARIABLES)),
        ("global under outer", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES, "outer")),
        ("trainable under outer/inner", _names(tf.trainable_variables(scope="outer/inner"))),
    ]


@_program
def variables_with_collections_and_trainability(tf):
    v = tf.get_variable("v", [1], collections=[tf.GraphKeys.GLOBAL_VARIABLES])
    w = tf.get_variable("w", [1], trainable=False)
    x = tf.Variable(1.0, name="x", collections=[tf.GraphKeys.LOCAL_VARIABLES])
    y = tf.Variable(1.0, name="y", trainable=False)
    z = tf.get_variable("z", [1], collections=["mine"])
    return [
        ("global", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES)),
        ("trainable", _collection(tf, tf.GraphKeys.TRAINABLE_VARIABLES)),
        ("local", _collection(tf, tf.GraphKeys.LOCAL_VARIABLES)),
        ("mine", _collection(tf, "mine")),
        ("names", _names([v, w, x, y, z])),
    ]


@_program
def trainable_flag_of_get_variable_collections(tf):
    v = tf.get_variable("v", [1], collections=[tf.GraphKeys.GLOBAL_VARIABLES])
    loss = tf.reduce_sum(tf.square(v - 3.0))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        after = sess.run(v)
    return [
        ("trainable", _collection(tf, tf.GraphKeys.TRAINABLE_VARIABLES)),
        ("after a step", after),
    ]


@_program
def variable_read_and_assign_names(tf):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.variable_scope("layer"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
    graph = tf.get_default_graph()
    return [
        ("value", v.value().name),
        ("initializer", v.initializer.name),
        ("read by name", graph.get_tensor_by_name("v/read:0").name),
        ("w read by name", graph.get_tensor_by_name("layer/w/read:0").name),
        ("assign op", graph.get_operation_by_name("v/Assign").type),
        ("w initializer", w.initializer.name),
        ("initial value", v.initial_value.name),
        ("read value", _run(tf, graph.get_tensor_by_name("layer/w/read:0"))),
    ]


# ---------------------------------------------------------------------------
# Names of ops made by operators and functions
# ---------------------------------------------------------------------------


@_program
def op_names_of_operators(tf):
    a = tf.constant(2.0)
    b = tf.constant(3.0)
    ints = tf.constant([7, 8])
    made = [
        a + b,
        a + b,
        a * b,
        a - b,
        a / b,
        a**b,
        -a,
        abs(a),
        ints // 2,
        ints % 3,
        a < b,
        a >= b,
    ]
    return [("names", _names(made))]


@_program
def op_names_of_functions(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    made = [
        tf.add(a, a),
        tf.multiply(a, a),
        tf.subtract(a, a),
        tf.div(a, a),
        tf.matmul(a, a),
        tf.reduce_sum(a),
        tf.reduce_mean(a, axis=0),
        tf.zeros([2]),
        tf.ones([2]),
        tf.fill([2], 1.0),
        tf.one_hot([0, 1], 2),
        tf.reshape(a, [4]),
        tf.transpose(a),
        tf.concat([a, a], 0),
        tf.stack([a, a]),
        tf.nn.relu(a),
        tf.nn.softmax(a),
        tf.sigmoid(a),
        tf.tanh(a),
        tf.exp(a),
        tf.square(a),
        tf.sqrt(a),
        tf.identity(a),
        tf.cast(a, tf.int32),
        tf.argmax(a, 1),
        tf.equal(a, a),
        tf.shape(a),
        a[0],
        a[:, 1],
    ]
    parts = tf.unstack(a)
    return [("names", _names(made)), ("unstack", _names(parts))]


@_program
def op_names_of_reflected_and_logical_operators(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    t = tf.constant([True, False])
    ints = tf.constant([7, 8])
    made = [
        2.0 + a,
        2.0 - a,
        2.0 * a,
        2.0 / a,
        2.0**a,
        a @ a,
        ints / 2,
        9 // ints,
        9 % ints,
        t & t,
        t | t,
        t ^ t,
        ~t,
        a > 1.0,
        a <= 1.0,
        a[1:],
        a[:, ::-1],
        a[..., 0],
    ]
    return [("names", _names(made))]


@_program
def op_names_of_more_functions(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ints = tf.constant([7, 8])
    made = [
        tf.divide(a, a),
        tf.truediv(a, a),
        tf.div(ints, 2),
        tf.floordiv(ints, 2),
        tf.mod(ints, 3),
        tf.zeros_like(a),
        tf.ones_like(a),
        tf.zeros([2, 2], tf.int32),
        tf.ones([3]),
        tf.one_hot(ints - 7, 2),
        tf.transpose(a, [1, 0]),
        tf.slice(a, [0, 0], [1, 2]),
        tf.clip_by_value(a, 0.0, 1.0),
        tf.size(a),
        tf.rank(a),
        tf.shape(a),
        tf.maximum(a, a),
        tf.negative(a),
        tf.square(a),
        tf.reduce_max(a),
        tf.argmin(a, 0),
        tf.expand_dims(a, 0),
        tf.squeeze(tf.reshape(a, [1, 4])),
        tf.tile(a, [1, 2]),
        tf.gather(a, [1]),
        tf.stop_gradient(a),
        tf.logical_not(tf.equal(a, a)),
        tf.nn.bias_add(a, [1.0, 2.0]),
        tf.nn.leaky_relu(a),
    ]
    return [("names", _names(made))]


@_program
def named_functions_and_operators_count_together(tf):
    a = tf.constant([1.0, 2.0], name="a")
    made = [
        tf.add(a, a, name="add"),
        a + a,
        tf.identity(a, name="truediv"),
        a / a,
        a / a,
        tf.zeros([1], name="zeros_1"),
        tf.zeros([1]),
        tf.zeros([1]),
    ]
    with tf.name_scope("add"):
        made.append(a + a)
    return [("names", _names(made))]


@_program
def op_names_under_name_scopes(tf):
    a = tf.constant(1.0, name="a")
    with tf.name_scope("block"):
        b = a * 2.0
        c = tf.add(a, b, name="sum")
        with tf.name_scope("inner"):
            d = tf.identity(c)
    with tf.name_scope("block"):
        e = a + 1.0
    with tf.name_scope(None, "Default", [a]) as scope:
        f = tf.identity(a)
    return [("names", _names([a, b, c, d, e, f])), ("scope", scope)]


@_program
def invalid_names_are_refused(tf):
    results = []
    for name in ["a b", "-a", "w:0", "ok.name", "ok-name", "ok/name", "9ok"]:
        try:
            tf.Variable(1.0, name=name)
            results.append((name, "accepted"))
        except ValueError:
            results.append((name, "ValueError"))
    return results


# ---------------------------------------------------------------------------
# Optimizers: slots, non-slot variables, train ops
# ---------------------------------------------------------------------------


def _net(tf):
    with tf.variable_scope("net"):
        w = tf.get_variable("w", [2], initializer=tf.ones_initializer())
        b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
    return w, b, tf.reduce_sum(tf.square(w)) + b


_OPTIMIZERS = {
    "sgd": lambda tf: tf.train.GradientDescentOptimizer(0.1),
    "momentum": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
    "adam": lambda tf: tf.train.AdamOptimizer(0.1),
    "rmsprop": lambda tf: tf.train.RMSPropOptimizer(0.1),
    "adagrad": lambda tf: tf.train.AdagradOptimizer(0.1),
    "adadelta": lambda tf: tf.train.AdadeltaOptimizer(0.1),
}


def _optimizer_names(kind, where):
    def program(tf):
        w, b, loss = _net(tf)
        optimizer = _OPTIMIZERS[kind](tf)
        if where == "variable_scope":
            with tf.variable_scope("train"):
                train = optimizer.minimize(loss)
        elif where == "name_scope":
            with tf.name_scope("train"):
                train = optimizer.minimize(loss)
        else:
            train = optimizer.minimize(loss)
        slots = [
            optimizer.get_slot(v, name).name for v in (w, b) for name in optimizer.get_slot_names()
        ]
        return [
            ("train op", train.name),
            ("slot names", sorted(optimizer.get_slot_names())),
            ("slots", slots),
            ("global", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES)),
            ("train ops", _collection(tf, tf.GraphKeys.TRAIN_OP)),
        ]

    program.__name__ = f"optimizer_names_{kind}_{where}"
    return program


for _kind in _OPTIMIZERS:
    for _where in ("top", "variable_scope", "name_scope"):
        _program(_optimizer_names(_kind, _where))


@_program
def two_optimizers_on_one_variable(tf):
    w, b, loss = _net(tf)
    first = tf.train.AdamOptimizer(0.1)
    second = tf.train.AdamOptimizer(0.1)
    third = tf.train.MomentumOptimizer(0.1, 0.9)
    trains = [first.minimize(loss), second.minimize(loss), third.minimize(loss)]
    return [
        ("train ops", _names(trains)),
        ("global", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES)),
        ("second slots", [second.get_slot(w, "m").name, second.get_slot(w, "v").name]),
    ]


@_program
def minimize_under_reuse_is_refused(tf):
    w, b, loss = _net(tf)
    with tf.variable_scope("train", reuse=True):
        tf.train.AdamOptimizer(0.1).minimize(loss)
    return [("built", True)]


@_program
def global_steps_and_their_names(tf):
    with tf.variable_scope("s"):
        step = tf.train.get_or_create_global_step()
    found = tf.train.get_global_step()
    return [
        ("name", step.name),
        ("found", found.name),
        ("collection", _collection(tf, tf.GraphKeys.GLOBAL_STEP)),
        ("dtype", step.dtype),
        ("trainable", _collection(tf, tf.GraphKeys.TRAINABLE_VARIABLES)),
    ]


@_program
def global_step_made_by_hand(tf):
    step = tf.Variable(0, name="global_step", trainable=False)
    return [("found", tf.train.get_global_step().name), ("name", step.name)]


@_program
def moving_averages_in_a_scope(tf):
    w, b, loss = _net(tf)
    with tf.variable_scope("ema_scope"):
        ema = tf.train.ExponentialMovingAverage(0.9)
        update = ema.apply([w, b])
    return [
        ("averages", [ema.average(w).name, ema.average(b).name]),
        ("average names", [ema.average_name(w), ema.average_name(b)]),
        ("update", update.name),
        ("moving average variables", _collection(tf, tf.GraphKeys.MOVING_AVERAGE_VARIABLES)),
    ]


# ---------------------------------------------------------------------------
# Layers: variable names, update ops, regularization, shapes
# ---------------------------------------------------------------------------


@_program
def layer_variable_names(tf):
    x = tf.placeholder(tf.float32, [None, 4, 4, 3], name="x")
    h = tf.layers.conv2d(x, 2, 3)
    h = tf.layers.conv2d(h, 2, 1, name="second")
    h = tf.layers.max_pooling2d(h, 2, 2)
    flat = tf.layers.flatten(h)
    d1 = tf.layers.dense(flat, 3)
    d2 = tf.layers.dense(d1, 3)
    with tf.variable_scope("head"):
        d3 = tf.layers.dense(d2, 1, name="out")
    return [
        ("global", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES)),
        ("outputs", _names([h, flat, d1, d2, d3])),
        ("shapes", [h.shape, flat.shape, d3.shape]),
    ]


@_program
def batch_norm_update_ops(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.variable_scope("a"):
        y = tf.layers.batch_normalization(x, training=True)
    z = tf.layers.batch_normalization(y, training=True, name="second")
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    return [
        ("update ops", _names(updates)),
        ("update kinds", [type(u).__name__ for u in updates]),
        ("global", _collection(tf, tf.GraphKeys.GLOBAL_VARIABLES)),
        ("trainable", _collection(tf, tf.GraphKeys.TRAINABLE_VARIABLES)),
        ("output", z.name),
    ]


@_program
def batch_norm_over_two_axes(tf):
    x = tf.placeholder(tf.float32, [None, 3, 4, 2], name="x")
    y = tf.layers.batch_normalization(x, axis=[1, 2], training=False)
    gamma = [v for v in tf.global_variables() if "gamma" in v.name][0]
    return [("gamma shape", gamma.shape), ("output shape", y.shape)]


@_program
def activity_regularizer_divides_by_the_batch(tf):
    x = tf.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2))
    tf.layers.dense(
        x,
        2,
        kernel_initializer=tf.ones_initializer(),
        activity_regularizer=lambda t: tf.reduce_sum(t),
    )
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    return [("losses", _names(losses)), ("value", _run(tf, losses))]


@_program
def dense_on_int32_is_refused(tf):
    x = tf.placeholder(tf.int32, [None, 2], name="x")
    tf.layers.dense(x, 2)
    return [("built", True)]


@_program
def flatten_of_unknown_dims(tf):
    x = tf.placeholder(tf.float32, [None, None, 3], name="x")
    y = tf.layers.flatten(x)
    return [("shape", y.shape), ("value", _run(tf, y, {x: np.ones((2, 4, 3), np.float32)}))]


@_program
def dense_with_a_string_activation(tf):
    x = tf.constant([[-1.0, 2.0]])
    y = tf.layers.dense(x, 2, activation="relu", kernel_initializer=tf.ones_initializer())
    return [("value", _run(tf, y))]


# ---------------------------------------------------------------------------
# Static shape information and graph queries
# ---------------------------------------------------------------------------


@_program
def set_shape_and_static_information(tf):
    x = tf.placeholder(tf.float32, name="x")
    x.set_shape([None, 3])
    y = x * 2.0
    z = tf.placeholder(tf.float32, [None, None], name="z")
    z.set_shape([4, None])
    return [
        ("x", x.shape),
        ("y", y.shape),
        ("z", z.shape),
        ("dtype base", x.dtype.base_dtype),
        ("ndims", y.shape.ndims),
    ]


@_program
def consumers_and_attributes(tf):
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.identity(a, name="b")
    c = tf.add(a, b, name="c")
    return [
        ("consumers of a", sorted(op.name for op in a.consumers())),
        ("consumers of c", _names(c.consumers())),
        ("dtype attr", b.op.get_attr("T")),
        ("inputs", _names(c.op.inputs)),
    ]


@_program
def graph_def_node_names(tf):
    a = tf.constant([1.0, 2.0], name="a")
    tf.identity(a, name="b")
    return [("node names", [n.name for n in tf.get_default_graph().as_graph_def().node])]


@_program
def model_variables_and_graph_keys(tf):
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    tf.layers.dense(x, 2)
    keys = [
        "ACTIVATIONS",
        "ASSET_FILEPATHS",
        "BIASES",
        "CONCATENATED_VARIABLES",
        "COND_CONTEXT",
        "EVAL_STEP",
        "INIT_OP",
        "LOCAL_INIT_OP",
        "LOCAL_RESOURCES",
        "QUEUE_RUNNERS",
        "READY_FOR_LOCAL_INIT_OP",
        "READY_OP",
        "RESOURCES",
        "SAVEABLE_OBJECTS",
        "SAVERS",
        "SUMMARY_OP",
        "TABLE_INITIALIZERS",
        "TRAINABLE_RESOURCE_VARIABLES",
        "WEIGHTS",
        "WHILE_CONTEXT",
    ]
    return [
        ("model variables", _names(tf.model_variables())),
        ("keys", [getattr(tf.GraphKeys, k) for k in keys]),
    ]
