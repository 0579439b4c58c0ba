"""``Session``, variables and optimizers: TF1's runtime semantics."""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
import symgrad.session as session_module


@pytest.fixture(autouse=True)
def fresh_graph():  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        yield graph


def _regression():  # type: ignore[no-untyped-def]
    x = sg.placeholder(sg.float32, name="x_input")
    y = sg.placeholder(sg.float32, name="y_input")
    w = sg.Variable(2.0, name="weight")
    b = sg.Variable(1.0, name="biases")
    loss = sg.reduce_sum(sg.pow(y - (x * w + b), 2)) / (2 * 32)
    return x, y, w, b, loss


def test_fetches_see_the_values_from_the_start_of_the_run() -> None:
    x, y, w, b, loss = _regression()
    train = sg.train.GradientDescentOptimizer(0.5).minimize(loss)
    grad_w = sg.gradients(loss, w)
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        _, grads, before = sess.run([train, grad_w, loss], feed_dict={x: 3.0, y: 11.0})
        residual = 11.0 - (3.0 * 2.0 + 1.0)
        assert before == np.float32(residual**2 / 64)
        assert grads == [np.float32(-3.0 * residual / 32)]
        new_w, new_b = sess.run([w, b])
        assert new_w == np.float32(2.0 - 0.5 * (-3.0 * residual / 32))
        assert new_b == np.float32(1.0 - 0.5 * (-residual / 32))
        assert isinstance(before, np.float32)


def test_assign_fetch_gives_the_new_value_and_stores_it() -> None:
    v = sg.Variable(np.array([1.0, 2.0]), name="v")
    doubled = v.assign(v * 2)
    added = sg.assign_add(v, [1.0, 1.0])
    subtracted = v.assign_sub(np.array([0.5, 0.5]))
    with sg.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(doubled), [2.0, 4.0])
        old, new = sess.run([v, added])  # snapshot: v is read before the assignment
        np.testing.assert_array_equal(old, [2.0, 4.0])
        np.testing.assert_array_equal(new, [3.0, 5.0])
        np.testing.assert_array_equal(sess.run(subtracted), [2.5, 4.5])
        np.testing.assert_array_equal(sess.run(v.read_value()), [2.5, 4.5])


def test_a_new_value_only_stored_is_not_copied_and_a_fetched_one_is_the_callers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    v = sg.Variable(np.arange(4.0), name="v")
    total = sg.reduce_sum(v)
    step = v.assign(v * 2)
    made_own: list[list[object]] = []
    owned = session_module.owned

    def recording(values, kept):  # type: ignore[no-untyped-def]
        made_own.append(list(values))
        return owned(values, kept)

    monkeypatch.setattr(session_module, "owned", recording)
    with sg.Session() as sess:
        sess.run(v.initializer)
        made_own.clear()
        assert sess.run([step.op, total]) == [None, 6.0]  # the sum reads v before
        # Only the fetched sum is made the caller's: v's new value, only stored, is not
        # looked at (nor copied, as every weight was at each optimizer step).
        assert [[np.ndim(value) for value in values] for values in made_own] == [[0]]
        fetched = sess.run(step)  # fetched and stored: the caller's own array
        fetched[0] = -1.0
        np.testing.assert_array_equal(sess.run(v), [0.0, 4.0, 8.0, 12.0])


def test_fetch_structures_ops_and_names() -> None:
    x, y, w, b, loss = _regression()
    Pair = collections.namedtuple("Pair", "first second")
    with sg.Session() as sess:
        assert sess.run(sg.global_variables_initializer()) is None
        result = sess.run(
            {"loss": loss, "params": (w, [b]), "pair": Pair(w, b)},
            feed_dict={"x_input:0": 1.0, "y_input": 3.0},
        )
        assert result["loss"] == 0.0
        assert result["params"] == (np.float32(2.0), [np.float32(1.0)])
        assert result["pair"] == Pair(np.float32(2.0), np.float32(1.0))
        assert sess.run("weight:0") == 2.0


def test_each_signature_is_compiled_once(tmp_path: Path) -> None:
    x, y, w, b, loss = _regression()
    train = sg.train.GradientDescentOptimizer(0.01).minimize(loss)
    with sg.Session(codegen_dir=tmp_path) as sess:
        sess.run(sg.global_variables_initializer())
        for value in range(5):
            sess.run([train, loss], feed_dict={x: float(value), y: 1.0})
        assert len(sess.generated_files) == 2  # the initializer and the training step
        assert all(path.parent == tmp_path and path.is_file() for path in sess.generated_files)
        assert "new_weight" in sess.generated_files[1].read_text()


def test_default_session_eval_and_run() -> None:
    c = sg.Variable(3.0, name="c")
    with sg.Session():
        sg.global_variables_initializer().run()
        assert c.eval() == 3.0
        assert (c * 2).eval() == 6.0
    with pytest.raises(ValueError, match="no default session"):
        c.eval()


def test_variable_collections_and_initializers() -> None:
    a = sg.Variable(1.0, name="a")
    b = sg.Variable(2.0, name="b", trainable=False)
    assert sg.global_variables() == [a, b] and sg.trainable_variables() == [a]
    with sg.Session() as sess:
        sess.run(sg.variables_initializer([a]))
        assert sess.run(a) == 1.0
        with pytest.raises(sg.FailedPreconditionError, match="uninitialized value b"):
            sess.run(b)


def _f32(value: float) -> float:
    """A Python hyperparameter as TF1 applies it: a float32 tensor cast to the variable's dtype."""
    return float(np.float32(value))


def test_gradient_descent_three_steps_match_the_formula() -> None:
    _check_optimizer(sg.train.GradientDescentOptimizer(0.1), lambda w, g, state: w - _f32(0.1) * g)


def test_momentum_three_steps_match_the_formula() -> None:
    def step(w, g, state):  # type: ignore[no-untyped-def]
        state["accum"] = state.get("accum", 0.0) * _f32(0.9) + g
        return w - state["accum"] * _f32(0.1)

    _check_optimizer(sg.train.MomentumOptimizer(0.1, 0.9), step)


def test_nesterov_momentum_three_steps_match_the_formula() -> None:
    def step(w, g, state):  # type: ignore[no-untyped-def]
        state["accum"] = state.get("accum", 0.0) * _f32(0.9) + g
        return w - (g * _f32(0.1) + state["accum"] * _f32(0.9) * _f32(0.1))

    _check_optimizer(sg.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True), step)


def test_adam_three_steps_match_the_formula() -> None:
    def step(w, g, state):  # type: ignore[no-untyped-def]
        # The beta powers are float32 variables in TF1, whatever the variable's dtype.
        p1 = state["p1"] = state.get("p1", np.float32(1.0)) * np.float32(0.9)
        p2 = state["p2"] = state.get("p2", np.float32(1.0)) * np.float32(0.999)
        m, v = state.get("m", 0.0), state.get("v", 0.0)
        state["m"] = m + (g - m) * (1 - _f32(0.9))
        state["v"] = v + (g * g - v) * (1 - _f32(0.999))
        lr_t = _f32(0.05) * np.sqrt(1 - float(p2)) / (1 - float(p1))
        return w - state["m"] * lr_t / (np.sqrt(state["v"]) + _f32(1e-8))

    _check_optimizer(sg.train.AdamOptimizer(0.05), step)


def _check_optimizer(optimizer, formula) -> None:  # type: ignore[no-untyped-def]
    start = np.array([0.5, -1.5, 2.0])
    target = np.array([1.0, 2.0, -1.0])
    w = sg.Variable(start, name="w")
    loss = sg.reduce_sum(sg.square(w - target) * np.array([1.0, 2.0, 3.0]))
    step = sg.train.get_or_create_global_step()
    train = optimizer.minimize(loss, global_step=step)
    expected, state = start.copy(), {}
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        for _ in range(3):
            grad = 2 * (expected - target) * np.array([1.0, 2.0, 3.0])
            expected = formula(expected, grad, state)
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), expected, rtol=1e-12)
        assert sess.run(step) == 3 and sg.train.global_step(sess, step) == 3


@pytest.mark.parametrize(
    "run, error, message",
    [
        (
            lambda sess, t: sess.run(t["loss"]),
            sg.InvalidArgumentError,
            r"You must feed a value for placeholder 'x_input:0', 'y_input:0'",
        ),
        (
            lambda sess, t: sess.run(t["loss"], {t["x"]: [[1.0, 2.0]], t["y"]: 1.0}),
            ValueError,
            None,
        ),
        (
            lambda sess, t: sess.run(t["xw"], {t["xs"]: [1.0, 2.0, 3.0]}),
            sg.InvalidArgumentError,
            r"cannot feed placeholder 'xs:0': expected shape \(2,\), got \(3,\)",
        ),
        (
            lambda sess, t: sess.run(t["xw"], {t["xs"]: ["a", "b"]}),
            sg.InvalidArgumentError,
            r"cannot feed placeholder 'xs:0': expected numbers convertible to float32",
        ),
        (
            lambda sess, t: sess.run(t["loss"], {t["x"]: 1.0, t["y"]: 1.0, t["w"]: [1.0, 2.0]}),
            sg.InvalidArgumentError,
            r"cannot feed variable 'weight:0': expected shape \(\), got \(2,\)",
        ),
        (lambda sess, t: sess.run(3.0), sg.InvalidArgumentError, r"cannot fetch float"),
        (
            lambda sess, t: sess.run([t["w"].assign(1.0), t["w"].assign(2.0)]),
            sg.InvalidArgumentError,
            r"assigns variable 'weight:0' twice in one run",
        ),
    ],
)
def test_run_errors(run, error, message) -> None:  # type: ignore[no-untyped-def]
    x, y, w, b, loss = _regression()
    xs = sg.placeholder(sg.float32, shape=[2], name="xs")
    tensors = {"x": x, "y": y, "w": w, "loss": loss, "xs": xs, "xw": xs * w}
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        if message is None:  # a (1, 2) x broadcasts: not an error
            assert np.shape(run(sess, tensors)) == ()
            return
        with pytest.raises(error, match=message):
            run(sess, tensors)


def test_closed_session_and_uninitialized_reads() -> None:
    x, y, w, b, loss = _regression()
    sess = sg.Session()
    with pytest.raises(sg.FailedPreconditionError, match="uninitialized value weight"):
        sess.run(loss, {x: 1.0, y: 2.0})
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(w)


def test_minimize_without_any_gradient_is_a_value_error() -> None:
    w = sg.Variable(1.0, name="w")
    unrelated = sg.Variable(2.0, name="unrelated")
    with pytest.raises(ValueError, match="no gradients provided for any variable"):
        sg.train.GradientDescentOptimizer(0.1).minimize(
            unrelated * 0 + sg.stop_gradient(w), var_list=[w]
        )
    with pytest.raises(ValueError, match="no gradients provided"):
        opt = sg.train.GradientDescentOptimizer(0.1)
        opt.apply_gradients([(None, w)])


def test_compute_and_apply_gradients() -> None:
    w = sg.Variable(np.array([1.0, 2.0]), name="w")
    frozen = sg.Variable(5.0, name="frozen", trainable=False, dtype=sg.float64)
    loss = sg.reduce_sum(w * w) * frozen
    optimizer = sg.train.GradientDescentOptimizer(0.1)
    pairs = optimizer.compute_gradients(loss)
    assert [v for _, v in pairs] == [w]
    train = optimizer.apply_gradients([(g * 0.5, v) for g, v in pairs])
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0 - 0.1 * 5.0, 2.0 - 0.1 * 10.0])


def test_repeated_runs_look_up_their_fetches_and_feeds_and_read_new_values() -> None:
    x, y, w, b, loss = _regression()
    gradients = sg.gradients(loss, [w, b])
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        first = sess.run([loss, (gradients[0], [gradients[1]])], feed_dict={x: 1.0, y: 3.0})
        again = sess.run([loss, (gradients[0], [gradients[1]])], feed_dict={x: 1.0, y: 3.0})
        other = sess.run([loss, (gradients[0], [gradients[1]])], feed_dict={x: 2.0, y: 3.0})
        flat = sess.run([loss, b], feed_dict={"x_input": 2.0, y: 3.0})
        assert (
            isinstance(first, list)
            and isinstance(first[1], tuple)
            and isinstance(first[1][1], list)
        )
        assert first == again and other != first
        assert flat[0] == other[0] and flat[1] == np.float32(1.0)
        # A fed variable replaces its stored value for that run only (TF1).
        fed = sess.run([loss], feed_dict={x: 1.0, y: 3.0, w: 5.0})
        assert fed != flat[:1] and sess.run(w) == np.float32(2.0)
        with pytest.raises(sg.errors.InvalidArgumentError, match="cannot fetch"):
            sess.run([loss, 3])


def test_a_cached_fetch_structure_is_rebuilt_the_same_on_every_run() -> None:
    x, y, w, b, loss = _regression()
    Pair = collections.namedtuple("Pair", "first second")
    fetches = [loss, (w, [b, Pair(w, b)]), {"loss": loss, "pair": Pair(b, w)}]
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        runs = [sess.run(fetches, feed_dict={x: 1.0, y: 4.0}) for _ in range(3)]
    expected = [
        np.float32(1 / 64),
        (np.float32(2.0), [np.float32(1.0), Pair(np.float32(2.0), np.float32(1.0))]),
        {"loss": np.float32(1 / 64), "pair": Pair(np.float32(1.0), np.float32(2.0))},
    ]
    assert runs == [expected] * 3
    assert all(type(run[1][1][1]) is Pair and type(run[2]) is dict for run in runs)


def test_an_assigned_value_of_the_wrong_run_time_shape_is_refused_and_not_stored() -> None:
    v = sg.Variable(np.zeros(3), name="v")
    values = sg.placeholder(sg.float64, [None], name="values")
    take = v.assign(values)
    with sg.Session() as sess:
        sess.run(v.initializer)
        fed = np.array([1.0, 2.0, 3.0])
        sess.run(take, {values: fed})
        fed[0] = 7.0  # the variable keeps an array of its own
        with pytest.raises(
            sg.InvalidArgumentError,
            match=r"assigning a value of shape \(2,\) to variable 'v:0' of shape \(3,\)",
        ):
            sess.run(take, {values: [4.0, 5.0]})
        assert sess.run(v).tolist() == [1.0, 2.0, 3.0]


# --- make_callable: TF1's Session.make_callable (session_test.py's cases, ported) -------------


def test_make_callable_runs_the_step_as_run_does() -> None:
    x, y, w, b, loss = _regression()
    train = sg.train.GradientDescentOptimizer(0.5).minimize(loss)
    with sg.Session() as by_run, sg.Session() as by_callable:
        for sess in (by_run, by_callable):
            sess.run(sg.global_variables_initializer())
        step = by_callable.make_callable([train, loss], feed_list=[x, "y_input:0"])
        for value in (1.0, 2.0, 3.0):
            expected = by_run.run([train, loss], feed_dict={x: value, y: 2 * value})
            assert step(value, 2 * value) == expected
        assert by_callable.run([w, b]) == by_run.run([w, b])


def test_make_callable_feeds_and_fetches_back_an_array() -> None:
    feed = sg.placeholder(sg.float32, shape=[2, 3], name="feed")
    out = sg.identity(feed)
    with sg.Session() as sess:
        runner = sess.make_callable([out, feed], [feed])
        array = np.arange(6, dtype=np.float32).reshape(2, 3)
        out_value, feed_value = runner(array)
        np.testing.assert_array_equal(out_value, array)
        np.testing.assert_array_equal(feed_value, array)
        assert not np.shares_memory(feed_value, array)


def test_make_callable_with_options_and_on_an_op() -> None:
    a = sg.Variable(42.0, name="a")
    bump = sg.assign_add(a, 1.0)
    ph = sg.placeholder(sg.float32, name="ph")
    with sg.Session() as sess:
        sess.run(a.initializer)
        assert sess.make_callable(a, accept_options=True)(options=None, run_metadata=None) == 42.0
        assert sess.make_callable(bump.op)() is None
        assert sess.run(a) == 43.0
        plus_one = sess.make_callable(ph + 1.0, feed_list=[ph.name], accept_options=True)
        assert plus_one(41.0, options=None, run_metadata=None) == 42.0
        with pytest.raises(TypeError, match="options"):
            sess.make_callable(a)(options=None)


def test_make_callable_errors() -> None:
    ph = sg.placeholder(sg.float32, name="ph")
    other = sg.placeholder(sg.float32, name="other")
    total = ph + other
    sess = sg.Session()
    step = sess.make_callable(total, [ph, other])
    with pytest.raises(
        sg.errors.ArgumentTypeError, match=r"takes 2 value\(s\).*'ph:0', 'other:0'.*got 1"
    ):
        step(1.0)
    with pytest.raises(sg.InvalidArgumentError, match="You must feed a value for placeholder"):
        sess.make_callable(total, [ph])(1.0)
    with pytest.raises(sg.InvalidArgumentError, match="not a tensor of this session's graph"):
        sess.make_callable(total, [3])
    with pytest.raises(sg.errors.ArgumentTypeError, match="feed_list holds tensors"):
        sess.make_callable(total, [[ph]])
    with pytest.raises(sg.errors.ExecutionValueError, match=r"op 'add'.*\(2,2\) \(3,\)"):
        step([1.0, 2.0, 3.0], np.ones((2, 2)))
    assert step(1.0, 2.0) == 3.0
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        step(1.0, 2.0)
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.make_callable(total, [ph, other])
