"""Corpus of TF1 programs about state and order: reads ordered after writes, feeds that meet
state, fetched arrays that are mutated, the small integer dtypes, ``initialized_value``.

Unlike the other corpora, a program here is a sequence of runs in one Session (and sometimes
a second one), and what is recorded is every run's result: the fetched values, or the name of
the error TensorFlow raised. Every program is ``fn(tf)`` taking the graph-API module
(``tensorflow.compat.v1`` with TF1's ref variables when recording, ``symgrad`` when testing)
and returning ``{"steps": [step, ...]}``, a step being one of

- ``{"run": fetches, "feeds": {...}}``: ``sess.run(fetches, feeds)``; records the values (in
  the order ``flatten_fetches`` gives) or ``{"error": "InvalidArgumentError"}``;
- ``{"run": ..., "mutate": True}``: the same, then every fetched array is changed in place
  (``+= 100``), as a user may do with a result; later runs must not see it;
- ``{"run": ..., "feeds": {...}, "record_feeds": True}``: the fed arrays after the run are
  recorded too, and must be as they were fed;
- ``{"session": "new"}``: the Session is closed and a new one opened (nothing initialized);
- ``{"init": "global" | "local"}``: runs ``global_variables_initializer()`` (or the local one).

Programs avoid what TF1 leaves undefined (two unordered writes of one variable, a read not
ordered against a write of the same run); ``run_steps`` runs a program the same way under
TensorFlow and under symgrad. Recorded by ``record_tf.py programs_state`` into
``tf_fixtures_state.json``; checked by ``tests/test_tf_parity_state.py``.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _flatten(values):
    out = []
    for v in values if isinstance(values, (list, tuple)) else [values]:
        if isinstance(v, (list, tuple)):
            out.extend(_flatten(v))
        else:
            out.append(v)
    return out


def _mutate(value):
    if isinstance(value, np.ndarray) and value.flags.writeable and value.size:
        if value.dtype == bool:
            value[...] = ~value
        else:
            value += np.asarray(100).astype(value.dtype)


def run_steps(tf, fn, encode, make_session=None):
    """Build ``fn``'s graph, run its steps; one result per step (``encode`` turns a fetched
    array into what is recorded). ``make_session(graph)`` makes each Session."""
    make_session = make_session or (lambda graph: tf.Session(graph=graph))
    graph = tf.Graph()
    results = []
    with graph.as_default():
        spec = fn(tf)
        sess = make_session(graph)
        try:
            for step in spec["steps"]:
                if step.get("session") == "new":
                    sess.close()
                    sess = make_session(graph)
                    results.append({"session": "new"})
                    continue
                if "init" in step:
                    init = {
                        "global": tf.global_variables_initializer,
                        "local": tf.local_variables_initializer,
                    }[step["init"]]
                    sess.run(init())
                    results.append({"init": step["init"]})
                    continue
                feeds = step.get("feeds", {})
                try:
                    values = sess.run(step["run"], feed_dict=feeds)
                except Exception as error:  # the error's class is what is recorded
                    results.append({"error": _error_name(tf, error)})
                    continue
                flat = _flatten(values)
                result = {"values": [None if v is None else encode(v) for v in flat]}
                if step.get("mutate"):
                    for value in flat:
                        _mutate(value)
                if step.get("record_feeds"):
                    result["feeds"] = [encode(v) for v in feeds.values()]
                results.append(result)
        finally:
            sess.close()
    return results


def _error_name(tf, error):
    """The name of the TF1 error class ``error`` is (symgrad's errors subclass theirs by name)."""
    for cls in type(error).__mro__:
        if cls.__name__ in _TF_ERRORS:
            return cls.__name__
    return type(error).__name__


_TF_ERRORS = (
    "InvalidArgumentError",
    "FailedPreconditionError",
    "NotFoundError",
    "OutOfRangeError",
    "UnimplementedError",
    "ResourceExhaustedError",
)


def _run(fetches, feeds=None, **options):
    return {"run": fetches, "feeds": feeds or {}, **options}


INIT = {"init": "global"}
LOCAL_INIT = {"init": "local"}
NEW_SESSION = {"session": "new"}

_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64}
_SHAPES = {"scalar": (), "vector": (3,), "matrix": (2, 2)}


def _value(shape, dtype, start):
    return (np.arange(np.prod(shape, dtype=int)) + start).reshape(shape).astype(dtype)


# ---------------------------------------------------------------------------
# 1. Reads ordered after writes (control dependencies, groups, chains)
# ---------------------------------------------------------------------------

# How a read under ``control_dependencies([assign])`` is written: each gives x's value (+ 1).
_READS = {
    "identity": lambda tf, x, one: tf.identity(x) + one,
    "mul": lambda tf, x, one: x * one + one,
    "read_value": lambda tf, x, one: x.read_value() + one,
    "stack_sum": lambda tf, x, one: tf.reduce_sum(tf.stack([x, x]), axis=0) + one - x + x,
    "add_n": lambda tf, x, one: tf.add_n([x, one]),
    "square": lambda tf, x, one: tf.square(x) + one,
}


def _read_after_assign(read, dtype, shape):
    def program(tf):
        x = tf.Variable(_value(shape, dtype, 1), name="x")
        one = tf.constant(np.ones(shape, dtype))
        assign = tf.assign(x, _value(shape, dtype, 10))
        with tf.control_dependencies([assign]):
            y = _READS[read](tf, x, one)
        return {"steps": [INIT, _run(y), _run(x), _run(y)]}

    program.__name__ = f"read_{read}_after_assign_{dtype.__name__}_{_shape_name(shape)}"
    return program


def _shape_name(shape):
    return next(name for name, s in _SHAPES.items() if s == shape)


for _read in _READS:
    for _dtype in _DTYPES.values():
        for _shape in _SHAPES.values():
            _program(_read_after_assign(_read, _dtype, _shape))


def _nested_dependencies(dtype):
    def program(tf):
        x = tf.Variable(np.array(1, dtype), name="x")
        first = tf.assign(x, np.array(10, dtype))
        with tf.control_dependencies([first]), tf.control_dependencies(None):
            unordered = tf.constant(np.array(5, dtype))
        with tf.control_dependencies([first]), tf.control_dependencies([tf.no_op()]):
            y = tf.identity(x) + np.array(1, dtype)
        return {"steps": [INIT, _run(y), _run([x, unordered])]}

    program.__name__ = f"nested_control_dependencies_{dtype.__name__}"
    return program


def _group_dependency(dtype):
    def program(tf):
        x = tf.Variable(np.array(1, dtype), name="x")
        z = tf.Variable(np.array(2, dtype), name="z")
        both = tf.group(tf.assign(x, np.array(10, dtype)), tf.assign(z, np.array(20, dtype)))
        with tf.control_dependencies([both]):
            y = x + z
        return {"steps": [INIT, _run(y), _run([x, z])]}

    program.__name__ = f"group_dependency_{dtype.__name__}"
    return program


def _tuple_gate(dtype):
    def program(tf):
        x = tf.Variable(np.array(1, dtype), name="x")
        (gated,) = tf.tuple([tf.assign(x, np.array(7, dtype))])
        with tf.control_dependencies([gated]):
            y = tf.identity(x) * np.array(2, dtype)
        return {"steps": [INIT, _run([gated, y]), _run(x)]}

    program.__name__ = f"tuple_gate_{dtype.__name__}"
    return program


def _assign_from_assigned(dtype):
    def program(tf):
        a = tf.Variable(np.array(1, dtype), name="a")
        b = tf.Variable(np.array(2, dtype), name="b")
        aa = tf.assign(a, np.array(4, dtype))
        with tf.control_dependencies([aa]):
            bb = tf.assign(b, a * np.array(2, dtype))
        return {"steps": [INIT, _run(bb), _run([a, b]), _run(bb), _run(b)]}

    program.__name__ = f"assign_from_assigned_{dtype.__name__}"
    return program


def _assign_chain(dtype):
    def program(tf):
        a = tf.Variable(np.array(0, dtype), name="a")
        b = tf.Variable(np.array(0, dtype), name="b")
        c = tf.Variable(np.array(0, dtype), name="c")
        one = np.array(1, dtype)
        set_a = tf.assign(a, np.array(2, dtype))
        with tf.control_dependencies([set_a]):
            set_b = tf.assign(b, tf.identity(a) + one)
        with tf.control_dependencies([set_b]):
            set_c = tf.assign(c, tf.identity(b) + one)
        return {"steps": [INIT, _run(set_c), _run([a, b, c])]}

    program.__name__ = f"assign_chain_{dtype.__name__}"
    return program


def _assign_after_increment(dtype):
    def program(tf):
        x = tf.Variable(np.array(2, dtype), name="x")
        y = tf.Variable(np.array(0, dtype), name="y")
        inc = tf.assign_add(x, np.array(1, dtype))
        with tf.control_dependencies([inc]):
            copy = tf.assign(y, x)
        return {"steps": [INIT, _run(copy), _run([x, y]), _run(copy), _run(y)]}

    program.__name__ = f"assign_after_increment_{dtype.__name__}"
    return program


def _decrement_then_read(dtype):
    def program(tf):
        x = tf.Variable(np.array([5, 6], dtype), name="x")
        dec = tf.assign_sub(x, np.array([1, 2], dtype))
        with tf.control_dependencies([dec]):
            total = tf.reduce_sum(x)
        return {"steps": [INIT, _run(total), _run(total), _run(x)]}

    program.__name__ = f"decrement_then_read_{dtype.__name__}"
    return program


for _dtype in _DTYPES.values():
    _program(_nested_dependencies(_dtype))
    _program(_group_dependency(_dtype))
    _program(_tuple_gate(_dtype))
    _program(_assign_from_assigned(_dtype))
    _program(_assign_chain(_dtype))
    _program(_assign_after_increment(_dtype))
    _program(_decrement_then_read(_dtype))


def _global_step_after_train(optimizer):
    def program(tf):
        w = tf.Variable(np.array([1.0, -2.0]), name="w")
        gs = tf.Variable(0, dtype=tf.int64, name="global_step", trainable=False)
        loss = tf.reduce_sum(tf.square(w))
        make = {
            "sgd": lambda: tf.train.GradientDescentOptimizer(0.1),
            "adam": lambda: tf.train.AdamOptimizer(0.1),
            "momentum": lambda: tf.train.MomentumOptimizer(0.1, 0.9),
        }[optimizer]
        train = make().minimize(loss, global_step=gs)
        with tf.control_dependencies([train]):
            after = tf.identity(gs)
            w_after = tf.identity(w)
        return {"steps": [INIT, _run(after), _run(after), _run([w_after, after]), _run([w, gs])]}

    program.__name__ = f"global_step_after_train_{optimizer}"
    return program


for _optimizer in ("sgd", "adam", "momentum"):
    _program(_global_step_after_train(_optimizer))


@_program
def moving_average_after_apply(tf):
    v = tf.Variable(5.0, name="v")
    ema = tf.train.ExponentialMovingAverage(0.5)
    update = ema.apply([v])
    with tf.control_dependencies([update]):
        average = tf.identity(ema.average(v))
    return {"steps": [INIT, _run(average), _run(tf.assign(v, 9.0)), _run(average)]}


@_program
def gradient_under_control_dependencies(tf):
    x = tf.Variable(2.0, name="x")
    with tf.control_dependencies([tf.assign(x, 3.0)]):
        gradient = tf.gradients(x * x, x)[0]
    return {"steps": [INIT, _run(gradient), _run(x)]}


@_program
def read_of_assign_result(tf):
    x = tf.Variable([1.0, 2.0], name="x")
    doubled = tf.assign(x, [10.0, 20.0]) * 2.0
    return {"steps": [INIT, _run(doubled), _run(x)]}


@_program
def unrelated_variable_under_dependency(tf):
    x = tf.Variable(1.0, name="x")
    other = tf.Variable(4.0, name="other")
    with tf.control_dependencies([tf.assign(x, 10.0)]):
        y = other + 1.0
    return {"steps": [INIT, _run(y), _run([x, other])]}


@_program
def dependency_through_identity_of_assign(tf):
    x = tf.Variable(1.0, name="x")
    marker = tf.identity(tf.assign(x, 8.0))
    with tf.control_dependencies([marker]):
        y = x + 1.0
    return {"steps": [INIT, _run(y), _run(x)]}


@_program
def dependency_through_computed_value(tf):
    x = tf.Variable(1.0, name="x")
    z = tf.Variable(3.0, name="z")
    with tf.control_dependencies([tf.assign(x, 5.0)]):
        scaled = z * 2.0
    doubled = scaled + x  # after the assign through ``scaled``: reads the new x
    return {"steps": [INIT, _run(doubled), _run(x)]}


@_program
def train_step_then_evaluate_in_two_runs(tf):
    w = tf.Variable([0.5, -0.5], name="w")
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    loss = tf.reduce_mean(tf.square(tf.reduce_sum(x * w, axis=1) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    feeds = {x: np.array([[1.0, 2.0], [3.0, -1.0]], np.float32)}
    with tf.control_dependencies([train]):
        loss_after = tf.reduce_mean(tf.square(tf.reduce_sum(x * w, axis=1) - 1.0))
    return {
        "steps": [INIT, _run(loss_after, feeds), _run([loss, w], feeds), _run(loss_after, feeds)]
    }


# ---------------------------------------------------------------------------
# 2. Feeds override reads and never write state
# ---------------------------------------------------------------------------


@_program
def feed_of_an_assigned_variable_is_refused(tf):
    v = tf.Variable(1.0, name="v")
    return {"steps": [INIT, _run(tf.assign_add(v, 1.0), {v: 10.0}), _run(v)]}


@_program
def feed_of_a_variable_read_only(tf):
    v = tf.Variable(1.0, name="v")
    return {"steps": [INIT, _run(v * 2.0, {v: 10.0}), _run(v), _run(v * 2.0)]}


@_program
def feed_of_a_trained_weight_is_refused(tf):
    w = tf.Variable([1.0, 2.0], name="w")
    train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(tf.square(w)))
    return {
        "steps": [INIT, _run(train, {w: np.array([5.0, 5.0], np.float32)}), _run(w), _run(train)]
    }


@_program
def feed_of_a_metric_total_is_refused(tf):
    values = tf.constant([1.0, 2.0, 3.0])
    mean, update = tf.metrics.mean(values)
    total = [v for v in tf.local_variables() if "total" in v.name][0]
    return {
        "steps": [
            INIT,
            LOCAL_INIT,
            _run(update, {total: 100.0}),
            _run(update),
            _run(mean),
        ]
    }


@_program
def feed_of_an_intermediate_tensor(tf):
    x = tf.Variable(3.0, name="x")
    y = x * 2.0
    z = y + 1.0
    return {"steps": [INIT, _run(z, {y: 5.0}), _run(z)]}


@_program
def feed_of_a_variable_another_assignment_reads(tf):
    v = tf.Variable(1.0, name="v")
    w = tf.Variable(0.0, name="w")
    copy = tf.assign(w, v * 2.0)
    return {"steps": [INIT, _run(copy, {v: 10.0}), _run([v, w])]}


@_program
def feed_of_a_placeholder_with_default(tf):
    x = tf.Variable(2.0, name="x")
    p = tf.placeholder_with_default(x * 3.0, [], name="p")
    return {"steps": [INIT, _run(p + 1.0), _run(p + 1.0, {p: 10.0}), _run(p + 1.0)]}


@_program
def feed_of_an_assign_input(tf):
    x = tf.Variable(1.0, name="x")
    delta = tf.constant(2.0)
    inc = tf.assign_add(x, delta)
    return {"steps": [INIT, _run(inc, {delta: 5.0}), _run(x), _run(inc), _run(x)]}


@_program
def feed_overrides_only_one_run(tf):
    x = tf.Variable([1.0, 2.0], name="x")
    y = tf.reduce_sum(x)
    return {
        "steps": [
            INIT,
            _run(y, {x: np.array([10.0, 20.0], np.float32)}),
            _run(y),
            _run([x, y]),
        ]
    }


# ---------------------------------------------------------------------------
# 3. Fetched arrays are the caller's own
# ---------------------------------------------------------------------------


def _mutated_fetch(kind, dtype):
    def program(tf):
        x = tf.Variable(_value((2,), dtype, 1), name="x")
        c = tf.constant(_value((2,), dtype, 5))
        fetch = {
            "constant": c,
            "variable": x,
            "variable_identity": tf.identity(x),
            "sum_of_constants": c + c,
            "assign_result": tf.assign(x, _value((2,), dtype, 3)),
        }[kind]
        return {"steps": [INIT, _run(fetch, mutate=True), _run(fetch), _run([x, c])]}

    program.__name__ = f"mutated_fetch_{kind}_{dtype.__name__}"
    return program


for _kind in ("constant", "variable", "variable_identity", "sum_of_constants", "assign_result"):
    for _dtype in (np.float32, np.int32):
        _program(_mutated_fetch(_kind, _dtype))


@_program
def mutated_fetch_of_a_fed_placeholder(tf):
    # (Fetching the fed tensor itself, TF1 hands back the fed array; symgrad a copy:
    # tests/test_tf_parity_state.py::test_a_fetched_feed_is_a_copy.)
    p = tf.placeholder(tf.float32, [2], name="p")
    fed = np.array([1.0, 2.0], np.float32)
    return {
        "steps": [
            _run(tf.identity(p), {p: fed}, mutate=True, record_feeds=True),
            _run(tf.reshape(p, [2, 1]), {p: fed}, mutate=True, record_feeds=True),
            _run(p * 1.0, {p: fed}, mutate=True, record_feeds=True),
        ]
    }


@_program
def variable_assigned_from_a_fed_array(tf):
    p = tf.placeholder(tf.float32, [2], name="p")
    x = tf.Variable([0.0, 0.0], name="x")
    fed = np.array([4.0, 5.0], np.float32)
    return {
        "steps": [
            INIT,
            _run(tf.assign(x, p), {p: fed}, mutate=True, record_feeds=True),
            _run(x, mutate=True),
            _run(x),
        ]
    }


@_program
def mutated_scalar_fetches(tf):
    x = tf.Variable(3.0, name="x")
    c = tf.constant(7, tf.int32)
    return {"steps": [INIT, _run([x, c], mutate=True), _run([x, c])]}


# ---------------------------------------------------------------------------
# 4. Every TF1 integer dtype keeps its width and wraps round as TF does
# ---------------------------------------------------------------------------

_SMALL = {
    "int8": (np.int8, 120, 10),
    "uint8": (np.uint8, 250, 10),
    "int16": (np.int16, 32000, 1000),
    "uint16": (np.uint16, 65000, 1000),
    "uint32": (np.uint32, 4294967290, 10),
    "uint64": (np.uint64, 18446744073709551610, 10),
}


def _small_variable_wraps(name):
    numpy_type, start, step = _SMALL[name]

    def program(tf):
        v = tf.Variable(numpy_type(start), name="v")
        inc = tf.assign_add(v, numpy_type(step))
        return {"steps": [INIT, _run(v), _run(inc), _run(v), _run(tf.assign_sub(v, numpy_type(1)))]}

    program.__name__ = f"small_int_variable_wraps_{name}"
    return program


def _small_arithmetic(name):
    numpy_type, start, step = _SMALL[name]

    def program(tf):
        dtype = getattr(tf, name)
        x = tf.placeholder(dtype, [3], name="x")
        fed = np.array([start, 3, 1], numpy_type)
        small = tf.constant(np.array([step, 5, 3], numpy_type))
        return {
            "steps": [
                _run(
                    [x + small, x - small, x * small, tf.maximum(x, small), tf.minimum(x, small)],
                    {x: fed},
                ),
                _run([tf.cast(x, tf.float64), x > small, tf.equal(x, small)], {x: fed}),
            ]
        }

    program.__name__ = f"small_int_arithmetic_{name}"
    return program


def _small_reductions(name):
    numpy_type, start, _ = _SMALL[name]

    def program(tf):
        dtype = getattr(tf, name)
        x = tf.constant(np.array([[start, 7], [start, 9]], numpy_type))
        return {
            "steps": [
                _run(
                    [
                        tf.reduce_sum(x),
                        tf.reduce_sum(x, axis=0),
                        tf.reduce_max(x),
                        tf.reduce_min(x, axis=1),
                        tf.cast(tf.constant([1.5, 200.0]), dtype),
                    ]
                )
            ]
        }

    program.__name__ = f"small_int_reductions_{name}"
    return program


def _small_division(name):
    numpy_type, start, _ = _SMALL[name]

    def program(tf):
        x = tf.constant(np.array([start, 7, 9], numpy_type))
        y = tf.constant(np.array([3, 2, 4], numpy_type))
        return {"steps": [_run([tf.floordiv(x, y), tf.floormod(x, y), x // y])]}

    program.__name__ = f"small_int_division_{name}"
    return program


for _name in _SMALL:
    _program(_small_variable_wraps(_name))
    _program(_small_arithmetic(_name))
    _program(_small_reductions(_name))
    _program(_small_division(_name))


@_program
def int16_square_wraps(tf):
    x = tf.constant(np.int16(300))
    return {"steps": [_run([x * x, tf.square(x)])]}


@_program
def int8_negative_and_abs(tf):
    x = tf.constant(np.array([-128, -5, 7], np.int8))
    return {"steps": [_run([-x, tf.abs(x), tf.sign(x)])]}


@_program
def uint8_image_mean(tf):
    image = tf.placeholder(tf.uint8, [2, 2, 3], name="image")
    pixels = np.arange(12, dtype=np.uint8).reshape(2, 2, 3) * 20
    floats = tf.cast(image, tf.float32) / 255.0
    return {"steps": [_run([image, tf.reduce_mean(floats), floats], {image: pixels})]}


@_program
def small_int_dtypes_of_constants_and_variables(tf):
    values = [
        tf.constant(np.int8(-3)),
        tf.constant(np.uint16(60000)),
        tf.constant([1, 2], dtype=tf.uint8),
        tf.constant([1, 2], dtype=tf.int16),
        tf.Variable(np.uint32(7), name="u32").initialized_value(),
        tf.Variable(np.array([1, 2], np.uint64), name="u64").initialized_value(),
    ]
    return {"steps": [INIT, _run(values)]}


# ---------------------------------------------------------------------------
# 5. initialized_value is the variable's value once it is initialized
# ---------------------------------------------------------------------------


@_program
def initialized_value_after_assign(tf):
    a = tf.Variable(2.0, name="a")
    b = tf.Variable(a.initialized_value() * 3.0, name="b")
    return {"steps": [INIT, _run(b), _run(tf.assign(a, 10.0)), _run(b.initializer), _run(b)]}


@_program
def initialized_value_across_sessions(tf):
    a = tf.Variable(2.0, name="a")
    b = tf.Variable(a.initialized_value() * 3.0, name="b")
    return {
        "steps": [
            INIT,
            _run(tf.assign(a, 10.0)),
            _run(b.initializer),
            _run(b),
            NEW_SESSION,
            _run(b.initializer),
            _run(b),
            _run(a.initializer),
            _run(tf.assign(a, 4.0)),
            _run(b.initializer),
            _run([a, b]),
        ]
    }


@_program
def initialized_value_after_training(tf):
    a = tf.Variable([1.0, -1.0], name="a")
    train = tf.train.GradientDescentOptimizer(0.25).minimize(tf.reduce_sum(tf.square(a)))
    b = tf.Variable(a.initialized_value() + 1.0, name="b")
    return {"steps": [INIT, _run(train), _run(train), _run(b.initializer), _run([a, b])]}


@_program
def initialized_value_in_an_expression(tf):
    a = tf.Variable(5.0, name="a")
    c = a.initialized_value() + 1.0
    return {
        "steps": [
            _run(c),
            _run(a.initializer),
            _run(tf.assign(a, 7.0)),
            _run(c),
            NEW_SESSION,
            _run(c),
        ]
    }


@_program
def initialized_value_chain(tf):
    a = tf.Variable(1.0, name="a")
    b = tf.Variable(a.initialized_value() + 1.0, name="b")
    c = tf.Variable(b.initialized_value() * 2.0, name="c")
    return {
        "steps": [
            INIT,
            _run([a, b, c]),
            _run(tf.assign(a, 5.0)),
            _run(b.initializer),
            _run(c.initializer),
            _run([a, b, c]),
        ]
    }


# ---------------------------------------------------------------------------
# Combinations
# ---------------------------------------------------------------------------


@_program
def ordered_read_of_a_fed_variable_is_refused(tf):
    x = tf.Variable(1.0, name="x")
    with tf.control_dependencies([tf.assign(x, 3.0)]):
        y = tf.identity(x)
    return {"steps": [INIT, _run(y, {x: 9.0}), _run(x), _run(y, mutate=True), _run(y)]}


@_program
def small_int_counter_after_dependency(tf):
    count = tf.Variable(np.uint8(254), name="count")
    inc = tf.assign_add(count, np.uint8(1))
    with tf.control_dependencies([inc]):
        seen = tf.identity(count)
    return {"steps": [INIT, _run(seen, mutate=True), _run(seen), _run(count)]}


@_program
def initialized_value_under_dependency(tf):
    # A variable made under control_dependencies: its initializer runs nothing else (the
    # initial value itself is made outside, or running it would run set_a too).
    a = tf.Variable(2.0, name="a")
    set_a = tf.assign(a, 6.0)
    from_a = a.initialized_value() + 1.0
    with tf.control_dependencies([set_a]):
        b = tf.Variable(from_a, name="b")
    return {"steps": [INIT, _run(set_a), _run(b.initializer), _run([a, b])]}


@_program
def moving_mean_update_then_read_as_a_layer_does(tf):
    mean = tf.Variable([0.0, 0.0], name="moving_mean", trainable=False)
    batch = tf.placeholder(tf.float32, [None, 2], name="batch")
    update = tf.assign_sub(mean, (mean - tf.reduce_mean(batch, axis=0)) * 0.5)
    with tf.control_dependencies([update]):
        normalized = batch - mean
    feeds = {batch: np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)}
    return {"steps": [INIT, _run(normalized, feeds), _run(mean), _run(normalized, feeds)]}


# ---------------------------------------------------------------------------
# 6. Streaming metrics whose state is counts of outcomes
# ---------------------------------------------------------------------------

_LABELS = np.array([0, 0, 1, 1, 1, 0, 1], bool)
_SCORES = np.array([0.1, 0.4, 0.35, 0.8, 0.55, 0.7, 0.2], np.float32)
_WEIGHTS = np.array([1, 2, 1, 0.5, 1, 1, 3], np.float32)


def _streaming(make):
    def program(tf):
        y = tf.placeholder(tf.bool, [None], name="y")
        p = tf.placeholder(tf.float32, [None], name="p")
        w = tf.placeholder(tf.float32, [None], name="w")
        metrics = make(tf, y, p, w)
        updates = [update for _, update in metrics]
        values = [value for value, _ in metrics]
        batches = [
            {y: _LABELS[part], p: _SCORES[part], w: _WEIGHTS[part]}
            for part in (slice(0, 4), slice(4, 7))
        ]
        return {
            "steps": [LOCAL_INIT, _run(values), *(_run(updates, b) for b in batches), _run(values)]
        }

    return program


@_program
def streaming_auc_every_curve_and_summation(tf):
    return _streaming(
        lambda tf, y, p, w: [
            tf.metrics.auc(y, p),
            tf.metrics.auc(y, p, curve="PR"),
            tf.metrics.auc(y, p, summation_method="minoring", num_thresholds=10),
            tf.metrics.auc(y, p, summation_method="majoring", thresholds=[0.3, 0.5, 0.7]),
            tf.metrics.auc(y, p, curve="PR", summation_method="careful_interpolation"),
        ]
    )(tf)


@_program
def streaming_auc_weighted(tf):
    return _streaming(
        lambda tf, y, p, w: [
            tf.metrics.auc(y, p, weights=w),
            tf.metrics.auc(y, p, weights=w, curve="PR", summation_method="careful_interpolation"),
        ]
    )(tf)


@_program
def streaming_precision_and_recall(tf):
    return _streaming(
        lambda tf, y, p, w: [
            tf.metrics.precision(y, p > 0.5),
            tf.metrics.recall(y, p > 0.5),
            tf.metrics.precision(y, p > 0.3, weights=w),
            tf.metrics.recall(y, p > 0.3, weights=w),
        ]
    )(tf)


@_program
def streaming_outcome_counts(tf):
    return _streaming(
        lambda tf, y, p, w: [
            tf.metrics.true_positives(y, p > 0.5),
            tf.metrics.false_positives(y, p > 0.5),
            tf.metrics.true_negatives(y, p > 0.5, weights=w),
            tf.metrics.false_negatives(y, p > 0.5, weights=w),
        ]
    )(tf)


# ---------------------------------------------------------------------------
# 7. A variable whose shape changes (validate_shape=False)
# ---------------------------------------------------------------------------


@_program
def variable_of_changing_shape(tf):
    v = tf.Variable([1.0, 2.0], validate_shape=False, name="v")
    grow = tf.assign(v, tf.concat([v, v * 10.0], 0), validate_shape=False)
    shrink = tf.assign(v, v[:1], validate_shape=False)
    return {
        "steps": [
            INIT,
            _run(v),
            _run(grow),
            _run([v, tf.shape(v), tf.reduce_sum(v)]),
            _run(grow),
            _run(shrink),
            _run([v, tf.size(v)]),
            _run(v.initializer),
            _run(v),
        ]
    }


# ---------------------------------------------------------------------------
# 8. Variables made under control_dependencies run nothing else (TF1's init_scope)
# ---------------------------------------------------------------------------


@_program
def variables_made_under_control_dependencies(tf):
    # The batch-norm idiom of TF1 CNN tutorials: the optimizer's slots, a layer and the global
    # step are made under control_dependencies(UPDATE_OPS); initializing or reading them must
    # not run the moving-average updates (which need the placeholder).
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    y = tf.layers.batch_normalization(x, training=True)
    loss = tf.reduce_mean(tf.square(y))
    optimizer = tf.train.AdamOptimizer(0.1)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = optimizer.minimize(loss)
        dense = tf.layers.dense(x, 3, kernel_initializer=tf.ones_initializer())
        step = tf.train.get_or_create_global_step()
    gamma = [v for v in tf.global_variables() if v.name.endswith("gamma:0")][0]
    mean = [v for v in tf.global_variables() if v.name.endswith("moving_mean:0")][0]
    feeds = {x: np.array([[1.0, 2.0], [3.0, 5.0]], np.float32)}
    return {
        "steps": [
            INIT,
            _run([mean, optimizer.get_slot(gamma, "m"), step]),
            _run(train, feeds),
            _run([mean, optimizer.get_slot(gamma, "m"), gamma]),
            _run(dense, feeds),
            _run(mean),
        ]
    }
