"""Control flow (issue 35): the generated loops and branches, their gradients against
finite differences, what they refuse, and how they read. TF-recorded parity is in
tests/test_tf_parity_control.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import DTypeError, InvalidArgumentError, ShapeError

GOLDEN = Path(__file__).resolve().parent / "golden"
# The ops of this page, whose generated code has a golden of its own (control_flow.py).
CONTROL_OPS = {
    "Cond",
    "While",
    "Scan",
    "Parameter",
    "TensorArrayWrite",
    "TensorArrayWriteGrad",
    "SequenceMask",
}


def _finite_difference(function, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:  # type: ignore[no-untyped-def]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (function(up) - function(down)) / (2 * eps)
    return grad


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
@pytest.mark.parametrize("seed", range(4))
def test_while_loop_gradient_matches_finite_differences(backend: str, seed: int) -> None:
    """A data-dependent trip count (iterate while the norm is below a bound), a matrix read
    from outside, an unknown batch size."""
    rng = np.random.default_rng(seed)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3], name="x")
        w = sg.placeholder(sg.float64, [3, 3], name="w")
        _, h = sg.while_loop(
            lambda k, h: sg.logical_and(k < 6, sg.reduce_sum(h * h) < 50.0),
            lambda k, h: (k + 1, sg.tanh(h @ w) * 2.0 + h),
            [0, x],
        )
        loss = sg.reduce_sum(sg.sin(h))
        f = sg.compile([loss, *sg.gradients(loss, [x, w])], backend=backend)
    xv, wv = rng.normal(size=(2, 3)), rng.normal(size=(3, 3)) * 0.5
    _, dx, dw = f(xv, wv)
    np.testing.assert_allclose(dx, _finite_difference(lambda v: float(f(v, wv)[0]), xv), atol=1e-6)
    np.testing.assert_allclose(dw, _finite_difference(lambda v: float(f(xv, v)[0]), wv), atol=1e-6)


def test_generated_module_reads_as_loops_named_after_the_user() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [], name="x")
        _, power = sg.while_loop(
            lambda i, power: i < 3, lambda i, power: (i + 1, power * x), [0, 1.0 + 0 * x]
        )
        source = sg.compile([power, sg.gradients(power, x)[0]], name="cube").source
    assert "def while_body(i, power, x):" in source
    assert "while while_cond(i, power, x):" in source
    assert "trace.append((i, power))" in source
    assert "for step in reversed(range(len(trace))):" in source
    assert "d_power, d_x = while_grad_body(d_power, d_x, *trace[step], x)" in source
    assert "d_power_d_x = " in source


def test_forward_only_loop_saves_nothing() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        total = sg.foldl(lambda a, v: a + v * v, x)
        source = sg.compile(total).source
    assert "trace" not in source
    assert "for step in range(" in source


def test_generated_code_is_deterministic() -> None:
    def build() -> str:
        with sg.Graph().as_default():
            x = sg.placeholder(sg.float32, [None, None, 2], name="x")
            cell = sg.nn.rnn_cell.GRUCell(3)
            out, _ = sg.nn.dynamic_rnn(cell, x, dtype=sg.float32)
            loss = sg.reduce_sum(out)
            return sg.compile([loss, *sg.gradients(loss, sg.trainable_variables())]).source

    assert build() == build()


def test_cond_runs_one_branch() -> None:
    """The branch not taken is not run: its division by zero never happens."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        n = sg.placeholder(sg.float64, [], name="n")
        y = sg.cond(n > 0, lambda: x / n, lambda: x * 0.0)
        f = sg.compile(y)
    with np.errstate(all="raise"):
        assert f([1.0, 2.0], 0.0).tolist() == [0.0, 0.0]
        assert f([1.0, 2.0], 2.0).tolist() == [0.5, 1.0]


def test_cond_with_a_python_bool_builds_one_branch() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [], name="x")
        y = sg.cond(True, lambda: x * 2.0, lambda: sg.sqrt(x))
        assert not any(
            op.type in ("Cond", "Sqrt") for op in sg.get_default_graph().get_operations()
        )
        assert float(sg.compile(y)(3.0)) == 6.0


def test_back_prop_false_gives_no_gradient() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [], name="x")
        _, y = sg.while_loop(
            lambda i, y: i < 2, lambda i, y: (i + 1, y * x), [0, x], back_prop=False
        )
        assert sg.gradients(y, x) == [None]


def test_second_derivative_through_a_loop_is_refused_as_in_tf1() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        y = sg.reduce_sum(sg.scan(lambda a, v: a * v, x))
        (grad,) = sg.gradients(y, x)
        with pytest.raises(InvalidArgumentError, match="Second-order gradient for while loops"):
            sg.gradients(sg.reduce_sum(grad), x)


def test_errors_name_the_loop_the_tensor_and_the_shapes() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [2], name="x")
        with pytest.raises(
            ShapeError, match=r"enters the loop with shape \(2,\).*\(4,\).*shape_invariants"
        ):
            sg.while_loop(lambda v: sg.reduce_sum(v) < 10.0, lambda v: sg.concat([v, v], 0), [x])
        with pytest.raises(DTypeError, match="loop variable 'x:0' enters the loop as float64"):
            sg.while_loop(lambda v: True, lambda v: sg.cast(v, sg.float32), [x])
        with pytest.raises(DTypeError, match="pred 'x:0' must be a boolean scalar"):
            sg.cond(x, lambda: x, lambda: x)
        with pytest.raises(InvalidArgumentError, match="same structure"):
            sg.cond(x[0] > 0, lambda: (x, x), lambda: x)
        with pytest.raises(DTypeError, match="result 0 is float64 in the true branch"):
            sg.cond(x[0] > 0, lambda: x, lambda: sg.cast(x, sg.float32))
        inside = []
        sg.while_loop(lambda v: False, lambda v: inside.append(v * 2.0) or v, [x])
        with pytest.raises(InvalidArgumentError, match="was made inside the body of while_loop"):
            _ = inside[0] + 1.0
        with pytest.raises(InvalidArgumentError, match="draws random numbers .* inside the body"):
            sg.while_loop(
                lambda v: False,
                lambda v: sg.cond(
                    v[0] > 0, lambda: v + sg.random_normal([2], dtype=sg.float64), lambda: v
                ),
                [x],
            )


def test_variables_made_in_a_body_are_made_once_at_the_top() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, None, 2], name="x")
        cell = sg.nn.rnn_cell.BasicRNNCell(3)
        sg.nn.dynamic_rnn(cell, x, dtype=sg.float32)
        names = [v.name for v in sg.global_variables()]
        assert names == ["rnn/basic_rnn_cell/kernel:0", "rnn/basic_rnn_cell/bias:0"]
        assert all(v.op.subgraph is None for v in sg.global_variables())


def test_dynamic_rnn_over_unknown_time_trains_in_a_session() -> None:
    rng = np.random.default_rng(3)
    with sg.Graph().as_default():
        sg.set_random_seed(5)
        x = sg.placeholder(sg.float32, [None, None, 2], name="x")
        lengths = sg.placeholder(sg.int32, [None], name="lengths")
        target = sg.placeholder(sg.float32, [None, 4], name="target")
        _, state = sg.nn.dynamic_rnn(
            sg.nn.rnn_cell.LSTMCell(4), x, sequence_length=lengths, dtype=sg.float32
        )
        loss = sg.reduce_mean(sg.square(state.h - target))
        train = sg.train.AdamOptimizer(0.05).minimize(loss)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            losses = []
            for step in range(60):
                steps = 3 + step % 4  # batches of another length each step
                feed = {
                    x: rng.normal(size=(5, steps, 2)).astype(np.float32),
                    lengths: rng.integers(1, steps + 1, size=5).astype(np.int32),
                    target: np.full((5, 4), 0.3, np.float32),
                }
                losses.append(sess.run([loss, train], feed)[0])
    assert losses[-1] < 0.1 * losses[0]


def test_portable_loop_runs_on_jax_and_refuses_jit_clearly() -> None:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None], name="x")
        _, y = sg.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * x), [0, x])
        compiled = sg.compile([y, sg.gradients(sg.reduce_sum(y), x)[0]], backend="array_api")
    values = compiled.function(jnp.asarray([1.0, 2.0], dtype=jnp.float32))
    assert np.asarray(values[0]).tolist() == [1.0, 16.0]
    assert np.asarray(values[1]).tolist() == [4.0, 32.0]
    with pytest.raises(TypeError, match="while_loop: its condition is a value jax.jit traces"):
        jax.jit(compiled.function)(jnp.asarray([1.0, 2.0], dtype=jnp.float32))


def test_control_flow_module_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A cond, a while_loop and a dynamic_rnn over unknown time, with their gradients: the
    functions of the generated module, reviewed as a diff (--update-snapshots)."""
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float32, [None, None, 2], name="x")
        scale = sg.placeholder(sg.float32, [], name="scale")
        with sg.variable_scope("model", initializer=sg.constant_initializer(0.1)):
            outputs, state = sg.nn.dynamic_rnn(sg.nn.rnn_cell.BasicRNNCell(3), x, dtype=sg.float32)
        total = sg.reduce_sum(outputs)
        _, powered = sg.while_loop(
            lambda k, value: value < 100.0, lambda k, value: (k + 1, value * scale), [0, total]
        )
        loss = sg.cond(powered > 200.0, lambda: sg.log(powered), lambda: powered * 0.5)
        # A TensorArray written by a loop, and a mask of the steps each sequence has.
        lengths = sg.placeholder(sg.int32, [None], name="lengths")
        steps = sg.shape(x)[1]
        squares = sg.TensorArray(sg.float32, size=0, dynamic_size=True)
        _, squares = sg.while_loop(
            lambda t, squares: t < steps,
            lambda t, squares: (t + 1, squares.write(t, outputs[:, t] * outputs[:, t])),
            [0, squares],
        )
        mask = sg.transpose(sg.sequence_mask(lengths, steps, dtype=sg.float32))
        loss += sg.reduce_sum(squares.stack() * sg.expand_dims(mask, -1))
        variables = sg.trainable_variables()
        grads = sg.gradients(loss, [scale, *variables])
        assert {op.type for op in graph.get_operations()} >= CONTROL_OPS
        compiled = sg.compile(
            [loss, *grads],
            inputs=[x, scale, lengths, *variables],
            name="control_flow",
            path=tmp_path / "control_flow.py",
        )
    symgrad_snapshot(compiled, GOLDEN / "control_flow.py")


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
def test_random_draws_in_bodies_are_seen_again_by_the_gradient(backend: str) -> None:
    """Dropout in a branch and in every step of a loop: each step draws its own mask, and
    the gradient uses the masks drawn (finite differences with the same rng agree)."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3], name="x")
        w = sg.placeholder(sg.float64, [3, 3], name="w")
        flag = sg.placeholder(sg.bool, [], name="flag")
        _, h = sg.while_loop(
            lambda k, h: k < 4,
            lambda k, h: (k + 1, sg.tanh(sg.nn.dropout(h, keep_prob=0.6) @ w)),
            [0, x],
        )
        y = sg.cond(flag, lambda: sg.nn.dropout(h, keep_prob=0.5) * 2.0, lambda: h)
        loss = sg.reduce_sum(sg.sin(y))
        f = sg.compile([loss, sg.gradients(loss, w)[0]], backend=backend)
    rng = np.random.default_rng(1)
    xv, wv = rng.normal(size=(2, 3)), rng.normal(size=(3, 3))
    for taken in (True, False):
        _, dw = f(xv, wv, taken, rng=11)
        numeric = _finite_difference(lambda v: float(f(xv, v, taken, rng=11)[0]), wv)
        np.testing.assert_allclose(dw, numeric, atol=1e-6)
    # Unseeded calls draw other masks.
    assert len({float(f(xv, wv, True)[0]) for _ in range(4)}) > 1


def test_multi_rnn_cell_with_a_flat_state() -> None:
    """state_is_tuple=False: one [batch, sum of sizes] state, equal to the tuple form's."""
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(2, 5, 3)).astype(np.float32)
    results = []
    for flat in (False, True):
        with sg.Graph().as_default():
            x = sg.placeholder(sg.float32, [None, None, 3], name="x")
            with sg.variable_scope("m", initializer=sg.constant_initializer(0.2)):
                cell = sg.nn.rnn_cell.MultiRNNCell(
                    [sg.nn.rnn_cell.GRUCell(4), sg.nn.rnn_cell.GRUCell(2)], state_is_tuple=not flat
                )
                out, state = sg.nn.dynamic_rnn(cell, x, dtype=sg.float32)
            assert cell.state_size == (6 if flat else (4, 2))
            with sg.Session() as sess:
                sess.run(sg.global_variables_initializer())
                o, s = sess.run([out, state], {x: xv})
            results.append((o, s if flat else np.concatenate(s, 1)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_assignments_in_a_branch_run_only_when_it_does() -> None:
    """The batch-norm idiom: ema.apply inside the training branch of a cond, the averages at
    inference; a run stores what the branch that ran assigned, and reads ordered after the
    cond see it (TF1's order), reads not ordered see the run's snapshot."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 2], name="x")
        training = sg.placeholder(sg.bool, [], name="training")
        counter = sg.Variable(0.0, name="counter")
        mean = sg.reduce_mean(x, 0)
        ema = sg.train.ExponentialMovingAverage(decay=0.5)

        def update() -> sg.Tensor:
            with sg.control_dependencies([ema.apply([mean]), sg.assign_add(counter, 1.0)]):
                return sg.identity(mean)

        used = sg.cond(training, update, lambda: ema.average(mean))
        after = used + counter  # ordered after the cond: sees the counter it assigned
        average = ema.average(mean)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            batch = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
            value, later, snapshot = sess.run([used, after, average], {x: batch, training: True})
            assert value.tolist() == [2.0, 4.0] and later.tolist() == [3.0, 5.0]
            assert snapshot.tolist() == [0.0, 0.0]
            assert sess.run(average).tolist() == [1.0, 2.0]
            assert sess.run(counter) == 1.0
            inferred = sess.run(used, {x: batch * 10, training: False})
            assert inferred.tolist() == [1.0, 2.0]
            assert sess.run(average).tolist() == [1.0, 2.0] and sess.run(counter) == 1.0


def test_explain_shows_the_recurrence_and_its_backward_loop() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [], name="x")
        _, power = sg.while_loop(
            lambda i, power: i < 3, lambda i, power: (i + 1, power * x), [0, 1.0 + 0 * x]
        )
        text = sg.compile([power, sg.gradients(power, x)[0]]).explain()
    assert "while_loop: while Less(i[k - 1], 3):" in text
    assert "    power[k] = power[k - 1]*x" in text
    assert "while_grad: for each row t of trace, backwards:" in text
    assert "    d_power[t] = d_power[t + 1]*x" in text
    assert "    d_x[t] = d_power[t + 1]*power[t - 1] + d_x[t + 1]" in text
    with sg.Graph().as_default():
        steps = sg.placeholder(sg.float32, [None, None, 2], name="steps")
        _, state = sg.nn.dynamic_rnn(sg.nn.rnn_cell.BasicRNNCell(3), steps, dtype=sg.float32)
        text = sg.compile(state).explain()
    assert "state[t] = tanh(rnn_basic_rnn_cell_bias + concatenate([transpose_steps[t], " in text
    assert "state[t - 1]], 1) @ rnn_basic_rnn_cell_kernel)" in text


@pytest.mark.parametrize("backend", ["numpy", "array_api"])
def test_a_carried_size_that_changes_is_an_error_unless_invariants_allow_it(backend: str) -> None:
    """A [None] loop variable keeps its run-time size from step to step (the generated code
    relies on it): a body that changes it is a clear error; shape_invariants lets it."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        grow = lambda i, v: (i + 1, sg.concat([v, v[:1]], 0))  # noqa: E731
        _, fixed = sg.while_loop(lambda i, v: i < 2, grow, [0, x])
        _, free = sg.while_loop(
            lambda i, v: i < 2, grow, [0, x], shape_invariants=[sg.TensorShape([]), [None]]
        )
        kept = sg.compile(fixed, backend=backend)
        grown = sg.compile(free, backend=backend)
    with pytest.raises(
        ValueError,
        match="loop variable 'v' began with shape \\(3,\\) and left a step with shape \\(4,\\)",
    ):
        kept([1.0, 2.0, 3.0])
    assert np.asarray(grown([1.0, 2.0, 3.0])).tolist() == [1.0, 2.0, 3.0, 1.0, 1.0]
