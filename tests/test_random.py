"""Random ops, TF1's seeding rules and the initializers.

The numbers cannot equal TensorFlow's; what is checked is what TF1 promises: the
distributions (with tolerances that a wrong distribution fails), the seeding rules
(``tensorflow/python/framework/random_seed.py``) and the initializers' scales
(``tensorflow/python/ops/init_ops.py``).
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad.ops.random_ops import DEFAULT_GRAPH_SEED, get_seed
from symgrad.ops.registry import REGISTRY
from symgrad.tf1.init_ops import compute_fans, xavier_initializer

GOLDEN = Path(__file__).resolve().parent / "golden"
N = 200_000  # samples: the standard error of a mean of unit variance is 0.0022


def _draw(tensor: sg.Tensor) -> np.ndarray:
    with sg.Session(graph=tensor.graph) as sess:
        return sess.run(tensor)


# --- distributions ------------------------------------------------------------------------------


def test_random_normal_has_its_mean_and_stddev() -> None:
    with sg.Graph().as_default():
        value = _draw(sg.random_normal([N], mean=1.5, stddev=2.0, seed=1))
    assert value.dtype == np.float32 and value.shape == (N,)
    assert abs(value.mean() - 1.5) < 0.02
    assert abs(value.std() - 2.0) < 0.02
    # a normal, not a uniform of that mean and spread: its 4th standardized moment is 3
    assert abs((((value - 1.5) / 2.0) ** 4).mean() - 3.0) < 0.1


def test_random_uniform_float_bounds_mean_and_spread() -> None:
    with sg.Graph().as_default():
        value = _draw(sg.random_uniform([N], minval=-2.0, maxval=3.0, dtype=sg.float64, seed=2))
    assert value.dtype == np.float64
    assert value.min() >= -2.0 and value.max() < 3.0
    assert value.min() < -1.99 and value.max() > 2.99
    assert abs(value.mean() - 0.5) < 0.02
    assert abs(value.std() - 5.0 / np.sqrt(12.0)) < 0.01


def test_random_uniform_defaults_to_the_unit_interval() -> None:
    with sg.Graph().as_default():
        value = _draw(sg.random_uniform([1000], seed=3))
    assert value.dtype == np.float32 and value.min() >= 0.0 and value.max() < 1.0


def test_random_uniform_int_covers_minval_to_maxval_exclusive() -> None:
    with sg.Graph().as_default():
        value = _draw(sg.random_uniform([60_000], minval=-3, maxval=3, dtype=sg.int32, seed=4))
    assert value.dtype == np.int32
    counts = np.bincount(value + 3)
    assert len(counts) == 6 and counts.min() > 9_000 and counts.max() < 11_000


def test_random_uniform_int_needs_maxval() -> None:
    with sg.Graph().as_default(), pytest.raises(sg.InvalidArgumentError, match="maxval"):
        sg.random_uniform([3], dtype=sg.int32)


def test_truncated_normal_redraws_beyond_two_stddev() -> None:
    with sg.Graph().as_default():
        value = _draw(sg.truncated_normal([N], mean=1.0, stddev=0.5, seed=5))
    assert value.min() >= 0.0 and value.max() <= 2.0
    # redrawn, not clipped: no mass piles up at the bounds
    assert np.mean(np.abs(value - 1.0) > 0.999) < 0.001
    # the standard deviation of a unit normal truncated to [-2, 2] is 0.87962566
    assert abs(value.std() - 0.5 * 0.87962566) < 0.004
    assert abs(value.mean() - 1.0) < 0.005


def test_random_shuffle_permutes_rows() -> None:
    rows = np.arange(20, dtype=np.float32).reshape(10, 2)
    with sg.Graph().as_default():
        value = _draw(sg.random_shuffle(rows, seed=6))
    assert not np.array_equal(value, rows)
    assert sorted(map(tuple, value.tolist())) == sorted(map(tuple, rows.tolist()))


def test_multinomial_frequencies_follow_the_softmax_of_the_logits() -> None:
    logits = np.log(np.array([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]]))
    with sg.Graph().as_default():
        draws = sg.multinomial(logits, 20_000, seed=7)
        categorical = sg.random.categorical(logits, 5, dtype=sg.int32, seed=7)
        value = _draw(draws)
        assert categorical.dtype == sg.int32 and categorical.shape == (2, 5)
    assert value.dtype == np.int64 and value.shape == (2, 20_000)
    for row, probabilities in zip(value, np.exp(logits), strict=True):
        frequencies = np.bincount(row, minlength=3) / row.size
        np.testing.assert_allclose(frequencies, probabilities, atol=0.015)


def test_random_ops_take_a_tensor_shape() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3])
        noise = sg.random_normal(sg.shape(x), seed=1)
        fixed = sg.random_uniform(sg.constant([2, 2]), seed=1)
        assert noise.shape == (None, 3) and fixed.shape == (2, 2)
        with sg.Session() as sess:
            assert sess.run(noise, {x: np.zeros((5, 3))}).shape == (5, 3)
        with pytest.raises(sg.ShapeError, match="unknown dim"):
            sg.random_normal([None, 3])


# --- seeding rules -----------------------------------------------------------------------------------


def test_get_seed_follows_tf1_rules() -> None:
    with sg.Graph().as_default() as graph:
        assert get_seed(None) == (None, None)
        assert get_seed(5) == (DEFAULT_GRAPH_SEED, 5)
        sg.set_random_seed(10)
        sg.constant(1.0)
        sg.constant(2.0)
        assert get_seed(None) == (10, 2)  # the op counter: two ops made so far
        assert get_seed(5) == (10, 5)
        graph.seed = 0
        assert get_seed(0) == (0, 2**31 - 1)


def _program(graph_seed: int | None, op_seed: int | None) -> list[np.ndarray]:
    with sg.Graph().as_default():
        if graph_seed is not None:
            sg.set_random_seed(graph_seed)
        a = sg.random_normal([4], seed=op_seed)
        b = sg.random_uniform([4], seed=op_seed)
        with sg.Session() as sess:
            return sess.run([a, b])


def test_same_seeds_give_the_same_numbers() -> None:
    for seeds in [(1, 2), (1, None), (None, 2)]:
        first, second = _program(*seeds), _program(*seeds)
        np.testing.assert_array_equal(first[0], second[0])
        np.testing.assert_array_equal(first[1], second[1])


def test_other_seeds_give_other_numbers() -> None:
    assert not np.array_equal(_program(1, 2)[0], _program(1, 3)[0])
    assert not np.array_equal(_program(1, None)[0], _program(2, None)[0])
    # no seed at all: numbers from the operating system
    assert not np.array_equal(_program(None, None)[0], _program(None, None)[0])


def test_graph_seed_alone_gives_two_ops_different_numbers() -> None:
    with sg.Graph().as_default():
        sg.set_random_seed(3)
        a, b = sg.random_normal([5]), sg.random_normal([5])
        with sg.Session() as sess:
            first, second = sess.run([a, b])
    assert not np.array_equal(first, second)


def test_two_ops_with_the_same_seeds_draw_the_same_numbers() -> None:
    with sg.Graph().as_default():
        a, b = sg.random_normal([5], seed=9), sg.random_normal([5], seed=9)
        with sg.Session() as sess:
            first, second = sess.run([a, b])
    np.testing.assert_array_equal(first, second)


def test_each_run_draws_new_numbers_and_a_new_session_starts_over() -> None:
    with sg.Graph().as_default():
        sg.set_random_seed(4)
        noise = sg.random_normal([3])
        with sg.Session() as sess:
            runs = [sess.run(noise) for _ in range(3)]
        with sg.Session() as sess:
            again = [sess.run(noise) for _ in range(3)]
    assert not np.array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[1], runs[2])
    for first, second in zip(runs, again, strict=True):
        np.testing.assert_array_equal(first, second)


def test_initial_values_are_reproducible_in_a_new_session() -> None:
    with sg.Graph().as_default():
        sg.set_random_seed(5)
        w = sg.Variable(sg.random_normal([784, 10]), name="w")
        b = sg.Variable(sg.glorot_uniform_initializer()([10, 3]), name="b")
        values = []
        for _ in range(2):
            with sg.Session() as sess:
                sess.run(sg.global_variables_initializer())
                values.append(sess.run([w, b]))
    np.testing.assert_array_equal(values[0][0], values[1][0])
    np.testing.assert_array_equal(values[0][1], values[1][1])
    assert values[0][0].shape == (784, 10) and abs(values[0][0].std() - 1.0) < 0.03
    # initializing one variable alone gives it the same value: each op has its own stream
    with sg.Session(graph=w.graph) as sess:
        sess.run(w.initializer)
        np.testing.assert_array_equal(sess.run(w), values[0][0])


_SCRIPT = textwrap.dedent(
    """
    import symgrad as sg
    {seed_line}
    a = sg.random_normal([3], seed={op_seed})
    b = sg.truncated_normal([3], seed={op_seed})
    with sg.Session() as sess:
        print(sess.run([a, b]))
    """
)


def _in_fresh_process(seed_line: str, op_seed: int | None, hash_seed: str) -> str:
    script = _SCRIPT.format(seed_line=seed_line, op_seed=op_seed)
    environment = dict(os.environ, PYTHONHASHSEED=hash_seed)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environment
    ).stdout


@pytest.mark.parametrize(
    ("seed_line", "op_seed"),
    [("sg.set_random_seed(1)", None), ("", 7), ("sg.set_random_seed(1)", 7)],
    ids=["graph-seed", "op-seed", "both"],
)
def test_seeded_programs_draw_the_same_numbers_in_every_process(
    seed_line: str, op_seed: int | None
) -> None:
    first = _in_fresh_process(seed_line, op_seed, "1")
    assert first == _in_fresh_process(seed_line, op_seed, "2")


def test_unseeded_programs_draw_other_numbers_in_every_process() -> None:
    assert _in_fresh_process("", None, "1") != _in_fresh_process("", None, "1")


# --- initializers ------------------------------------------------------------------------------------


def test_compute_fans_as_tf() -> None:
    assert compute_fans([]) == (1, 1)
    assert compute_fans([7]) == (7, 7)
    assert compute_fans([784, 10]) == (784, 10)
    assert compute_fans([5, 5, 3, 32]) == (75, 800)


def _initial(initializer: object, shape: list[int]) -> np.ndarray:
    with sg.Graph().as_default():
        w = sg.Variable(initializer(shape), name="w")  # type: ignore[operator]
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            return sess.run(w)


def test_constant_initializers() -> None:
    assert _initial(sg.zeros_initializer(), [2, 3]).tolist() == [[0.0] * 3] * 2
    assert _initial(sg.ones_initializer(), [2]).tolist() == [1.0, 1.0]
    assert _initial(sg.constant_initializer(0.5), [2]).tolist() == [0.5, 0.5]
    assert _initial(sg.constant_initializer([1, 2, 3]), [5]).tolist() == [1, 2, 3, 3, 3]
    with sg.Graph().as_default(), pytest.raises(sg.ShapeError):
        sg.constant_initializer([1, 2, 3])([2])
    with sg.Graph().as_default():
        assert sg.zeros_initializer(dtype=sg.int32)([2]).dtype == sg.int32
        assert sg.ones_initializer()([2], dtype=sg.float64).dtype == sg.float64


def test_random_initializers_have_their_parameters() -> None:
    normal = _initial(sg.random_normal_initializer(mean=1.0, stddev=0.1, seed=1), [400, 500])
    assert abs(normal.mean() - 1.0) < 0.001 and abs(normal.std() - 0.1) < 0.001
    uniform = _initial(sg.random_uniform_initializer(-0.2, 0.2, seed=1), [400, 500])
    assert uniform.min() >= -0.2 and uniform.max() < 0.2 and uniform.max() > 0.199
    truncated = _initial(sg.truncated_normal_initializer(stddev=0.1, seed=1), [400, 500])
    assert abs(truncated).max() <= 0.2 and abs(truncated.std() - 0.087962566) < 0.001


@pytest.mark.parametrize("shape", [[300, 200], [5, 5, 16, 32]])
def test_glorot_uniform_limits_come_from_the_fans(shape: list[int]) -> None:
    fan_in, fan_out = compute_fans(shape)
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    value = _initial(sg.glorot_uniform_initializer(seed=2), shape)
    assert abs(value).max() <= limit and abs(value).max() > 0.99 * limit
    assert abs(value.std() - limit / np.sqrt(3.0)) < 0.01 * limit


def test_glorot_normal_is_a_corrected_truncated_normal() -> None:
    shape = [300, 200]
    stddev = np.sqrt(2.0 / 500)
    value = _initial(sg.glorot_normal_initializer(seed=3), shape)
    # truncated at 2 of the uncorrected stddev; standard deviation the wanted one
    assert abs(value).max() <= 2 * stddev / 0.87962566 + 1e-6
    assert abs(value.std() - stddev) < 0.01 * stddev


@pytest.mark.parametrize(
    ("mode", "n"), [("fan_in", 5 * 5 * 16), ("fan_out", 5 * 5 * 32), ("fan_avg", 5 * 5 * 24)]
)
def test_variance_scaling_modes(mode: str, n: int) -> None:
    shape = [5, 5, 16, 32]
    uniform = _initial(sg.variance_scaling_initializer(2.0, mode, "uniform", seed=4), shape)
    assert abs(uniform).max() <= np.sqrt(6.0 / n) and abs(uniform).max() > 0.99 * np.sqrt(6.0 / n)
    for distribution in ("normal", "truncated_normal", "untruncated_normal"):
        init = sg.variance_scaling_initializer(2.0, mode, distribution, seed=4)
        value = _initial(init, shape)
        assert abs(value.std() - np.sqrt(2.0 / n)) < 0.02 * np.sqrt(2.0 / n), distribution


def test_variance_scaling_rejects_bad_arguments() -> None:
    with pytest.raises(sg.InvalidArgumentError, match="mode"):
        sg.variance_scaling_initializer(mode="fan_median")
    with pytest.raises(sg.InvalidArgumentError, match="distribution"):
        sg.variance_scaling_initializer(distribution="cauchy")
    with pytest.raises(sg.InvalidArgumentError, match="scale"):
        sg.variance_scaling_initializer(scale=0.0)


def test_xavier_initializer_is_contribs_variant() -> None:
    shape = [5, 5, 16, 32]
    n = (5 * 5 * 16 + 5 * 5 * 32) / 2
    uniform = _initial(xavier_initializer(seed=5), shape)
    assert abs(uniform).max() <= np.sqrt(3.0 / n) and abs(uniform).max() > 0.99 * np.sqrt(3.0 / n)
    normal = _initial(xavier_initializer(uniform=False, seed=5), shape)
    # contrib's normal form: truncated normal of stddev sqrt(1.3 / n), without the correction
    assert abs(normal.std() - np.sqrt(1.3 / n) * 0.87962566) < 0.02 * np.sqrt(1.3 / n)


def test_uniform_unit_scaling_takes_its_scale_from_every_dim_but_the_last() -> None:
    # TF 2.21 compat.v1, shape [300, 2, 400], factor 1.5: max |w| 0.10606544 against the bound
    # 1.5 * sqrt(3 / 600) = 0.10606602, standard deviation 0.06116 (bound / sqrt(3): 0.06124)
    bound = 1.5 * np.sqrt(3.0 / 600)
    value = _initial(sg.uniform_unit_scaling_initializer(1.5, seed=2), [300, 2, 400])
    assert bound * 0.999 < abs(value).max() <= bound
    assert abs(value.std() - bound / np.sqrt(3.0)) < 0.01 * bound
    assert sg.initializers.uniform_unit_scaling(seed=1).get_config()["factor"] == 1.0


def test_initializers_follow_the_tf1_call_protocol() -> None:
    with sg.Graph().as_default():
        init = sg.glorot_uniform_initializer()
        w = init([3, 4], dtype=sg.float64, partition_info=None)
        assert isinstance(w, sg.Tensor) and w.shape == (3, 4) and w.dtype == sg.float64
        assert sg.initializers.glorot_uniform is sg.glorot_uniform_initializer
        assert sg.initializers.variance_scaling(seed=1).get_config()["mode"] == "fan_in"
        with pytest.raises(sg.DTypeError):
            sg.random_normal_initializer()([2], dtype=sg.int32)


def test_tf_random_namespace() -> None:
    with sg.Graph().as_default() as graph:
        sg.random.set_random_seed(11)
        assert graph.seed == 11
        for make in (sg.random.normal, sg.random.uniform, sg.random.truncated_normal):
            assert make([2, 3]).shape == (2, 3)
        assert sg.random.shuffle(sg.constant([1, 2, 3])).shape == (3,)


# --- dropout: random ops inside a computed graph -----------------------------------------------------


def test_dropout_keeps_keep_prob_of_the_elements_scaled_by_its_inverse() -> None:
    ones = np.ones((200, 500), dtype=np.float32)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 500], name="x")
        by_keep = sg.nn.dropout(x, keep_prob=0.7, seed=1)
        by_rate = sg.nn.dropout(x, rate=0.3, seed=2)
        with sg.Session() as sess:
            for value in sess.run([by_keep, by_rate], {x: ones}):
                kept = value != 0
                assert abs(kept.mean() - 0.7) < 0.005
                np.testing.assert_allclose(value[kept], 1 / 0.7, rtol=1e-6)
                # rows are independent: no row is all kept or all dropped
                assert kept.mean(axis=1).min() > 0.6 and kept.mean(axis=1).max() < 0.8


def test_dropout_with_keep_prob_fed_as_one_is_the_identity() -> None:
    data = np.random.default_rng(0).standard_normal((6, 4)).astype(np.float32)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4], name="x")
        keep = sg.placeholder(sg.float32, [], name="keep_prob")
        h = sg.nn.dropout(x, keep, seed=3)
        grad = sg.gradients(sg.reduce_sum(h * h), x)[0]
        with sg.Session() as sess:
            value, gradient = sess.run([h, grad], {x: data, keep: 1.0})
            np.testing.assert_array_equal(value, data)
            np.testing.assert_array_equal(gradient, 2 * data)
            dropped = sess.run(h, {x: data, keep: 0.5})
            assert (dropped == 0).any() and not (dropped == 0).all()
        assert sg.nn.dropout(x, rate=0.0) is x


def test_a_random_op_where_two_unknown_batch_sizes_meet_runs_in_both_bodies() -> None:
    """Two ``[None, 4]`` placeholders give the fast form a body for equal batch sizes; it
    draws from the same ``rng`` as the general body (it once named ``rng`` without taking it)."""
    rng = np.random.default_rng(0)
    data, labels = rng.standard_normal((6, 4)), rng.standard_normal((6, 4))
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 4], name="x")
        y = sg.placeholder(sg.float64, [None, 4], name="y")
        loss = sg.reduce_sum(sg.square(sg.nn.dropout(x, keep_prob=0.5, seed=4) - y))
        outputs = [loss, sg.gradients(loss, x)[0]]
        fast = sg.compile(outputs, inputs=[x, y], name="dropped")
        readable = sg.compile(outputs, inputs=[x, y], name="dropped", optimize=False)
        assert "_dropped_same_shapes" in fast.source
        for feeds in ([data, labels], [data, labels[:1]]):  # equal batches; one broadcasts
            for compiled in (fast, readable):
                value, gradient = compiled(*feeds, rng=np.random.default_rng(5))
                mask = np.random.default_rng(5).random(data.shape) >= 0.5
                kept = np.where(mask, data / 0.5, 0.0)
                np.testing.assert_allclose(value, np.sum((kept - feeds[1]) ** 2))
                np.testing.assert_allclose(gradient, np.where(mask, 2 * (kept - feeds[1]) / 0.5, 0))
        with sg.Session() as sess:
            assert np.isfinite(sess.run(loss, {x: data, y: labels}))


def test_dropout_checks_its_arguments() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4])
        with pytest.raises(sg.InvalidArgumentError, match="not both"):
            sg.nn.dropout(x, keep_prob=0.5, rate=0.5)
        with pytest.raises(sg.InvalidArgumentError, match="keep_prob or rate"):
            sg.nn.dropout(x)
        with pytest.raises(sg.InvalidArgumentError, match="keep_prob"):
            sg.nn.dropout(x, keep_prob=0.0)
        with pytest.raises(sg.InvalidArgumentError, match="rate"):
            sg.nn.dropout(x, rate=1.0)
        with pytest.raises(sg.DTypeError, match="floating"):
            sg.nn.dropout(sg.constant([1, 2]), keep_prob=0.5)


def test_dropout_noise_shape_broadcasts_one_decision() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [8, 50], name="x")
        rows = sg.nn.dropout(x, keep_prob=0.5, noise_shape=[8, 1], seed=4)
        columns = sg.nn.dropout(x, keep_prob=0.5, noise_shape=[1, None], seed=5)
        with sg.Session() as sess:
            by_row, by_column = sess.run([rows, columns], {x: np.ones((8, 50))})
    assert all(len(set(row)) == 1 for row in by_row.tolist())
    assert all(len(set(column)) == 1 for column in by_column.T.tolist())
    assert set(by_row.ravel()) == {0.0, 2.0}


def _dropout_model(optimize: bool = True):  # type: ignore[no-untyped-def]
    x = sg.placeholder(sg.float64, [None, 5], name="x")
    keep = sg.placeholder(sg.float64, [], name="keep_prob")
    w = sg.Variable(np.linspace(-1.0, 1.0, 15).reshape(5, 3), name="w")
    h = sg.nn.dropout(sg.tanh(x @ w), keep_prob=keep, seed=7)
    loss = sg.reduce_sum(h * h * np.array([1.0, 2.0, 3.0]))
    grads = sg.gradients(loss, [x, w])
    compiled = sg.compile(
        [loss, *grads], inputs=[x, keep, w], name="dropout_mlp", optimize=optimize
    )
    return compiled, h


def test_dropout_gradient_is_exact_with_the_mask_fixed() -> None:
    data = np.random.default_rng(1).standard_normal((4, 5))
    weights = np.linspace(-1.0, 1.0, 15).reshape(5, 3)
    with sg.Graph().as_default():
        fast, _ = _dropout_model(optimize=True)
        readable, _ = _dropout_model(optimize=False)
    for compiled in (fast, readable):
        loss, d_x, d_w = compiled(data, 0.6, weights, rng=11)
        # the same rng gives the same mask: finite differences see a smooth function
        epsilon = 1e-6
        direction = np.random.default_rng(2).standard_normal(data.shape)
        plus = compiled(data + epsilon * direction, 0.6, weights, rng=11)[0]
        minus = compiled(data - epsilon * direction, 0.6, weights, rng=11)[0]
        numeric = (plus - minus) / (2 * epsilon)
        assert abs(numeric - np.sum(d_x * direction)) < 1e-6 * max(1.0, abs(numeric))
        direction_w = np.random.default_rng(3).standard_normal(weights.shape)
        plus = compiled(data, 0.6, weights + epsilon * direction_w, rng=11)[0]
        minus = compiled(data, 0.6, weights - epsilon * direction_w, rng=11)[0]
        numeric = (plus - minus) / (2 * epsilon)
        assert abs(numeric - np.sum(d_w * direction_w)) < 1e-6 * max(1.0, abs(numeric))
    # both forms draw the same mask from the same rng
    for a, b in zip(
        fast(data, 0.6, weights, rng=5), readable(data, 0.6, weights, rng=5), strict=True
    ):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_dropout_value_and_gradient_of_one_run_share_the_mask() -> None:
    data = np.random.default_rng(4).standard_normal((50, 5))
    with sg.Graph().as_default():
        _, h = _dropout_model()
        x = sg.get_default_graph().get_tensor_by_name("x:0")
        keep = sg.get_default_graph().get_tensor_by_name("keep_prob:0")
        (d_x,) = sg.gradients(sg.reduce_sum(h), x)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            value, gradient = sess.run([h, d_x], {x: data, keep: 0.5})
            again, _ = sess.run([h, d_x], {x: data, keep: 0.5})
    weights = np.linspace(-1.0, 1.0, 15).reshape(5, 3)
    mask = value != 0
    # d/dx sum(tanh(x @ w) * mask * 2) = (mask * 2 * (1 - tanh^2)) @ w.T
    expected = (mask * 2.0 * (1 - np.tanh(data @ weights) ** 2)) @ weights.T
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)
    assert not np.array_equal(mask, again != 0)  # the next run draws a new mask


def test_the_generated_function_takes_its_random_source_explicitly() -> None:
    with sg.Graph().as_default():
        compiled, _ = _dropout_model()
        x = sg.placeholder(sg.float32, [3], name="plain")
        plain = sg.compile(x * 2.0, name="doubled")
    assert list(inspect.signature(compiled.function).parameters) == ["x", "keep_prob", "w", "rng"]
    assert list(inspect.signature(plain.function).parameters) == ["plain"]
    assert compiled.program.random_streams == ["dropout/random_uniform"]
    data, weights = np.ones((3, 5)), np.ones((5, 3))
    by_seed = compiled.function(data, 0.5, weights, 3)
    by_generator = compiled.function(data, 0.5, weights, np.random.default_rng(3))
    by_list = compiled.function(data, 0.5, weights, [np.random.default_rng(3)])
    for a, b, c in zip(by_seed, by_generator, by_list, strict=True):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    with pytest.raises(ValueError, match="rng"):
        compiled.function(data, 0.5, weights, [np.random.default_rng(3)] * 2)
    # without rng, a CompiledModule draws from the ops' seeds (seed=7): call after call alike
    np.testing.assert_array_equal(compiled(data, 0.5, weights)[0], compiled(data, 0.5, weights)[0])


def test_layers_dropout_applies_only_when_training() -> None:
    data = np.ones((20, 30), dtype=np.float32)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 30], name="x")
        training = sg.placeholder(sg.bool, [], name="training")
        off = sg.layers.dropout(x, rate=0.4)
        on = sg.layers.dropout(x, rate=0.4, training=True, seed=1)
        fed = sg.layers.dropout(x, rate=0.4, training=training, seed=2)
        with sg.Session() as sess:
            np.testing.assert_array_equal(sess.run(off, {x: data}), data)
            assert set(sess.run(on, {x: data}).ravel()) == {0.0, np.float32(1 / 0.6)}
            np.testing.assert_array_equal(sess.run(fed, {x: data, training: False}), data)
            assert set(sess.run(fed, {x: data, training: True}).ravel()) == {
                0.0,
                np.float32(1 / 0.6),
            }


def test_an_mlp_with_dropout_trains() -> None:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((256, 4)).astype(np.float32)
    labels = (data[:, 0] + data[:, 1] > 0).astype(np.int32)
    with sg.Graph().as_default():
        sg.set_random_seed(1)
        x = sg.placeholder(sg.float32, [None, 4], name="x")
        y = sg.placeholder(sg.int32, [None], name="y")
        keep = sg.placeholder(sg.float32, name="keep_prob")
        w1 = sg.Variable(sg.truncated_normal([4, 32], stddev=0.5), name="w1")
        b1 = sg.Variable(sg.zeros([32]), name="b1")
        w2 = sg.Variable(sg.glorot_uniform_initializer()([32, 2]), name="w2")
        hidden = sg.nn.dropout(sg.nn.relu(x @ w1 + b1), keep)
        logits = hidden @ w2
        loss = sg.reduce_mean(
            sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        )
        train = sg.train.GradientDescentOptimizer(0.5).minimize(loss)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            before = sess.run(loss, {x: data, y: labels, keep: 1.0})
            for _ in range(150):
                sess.run(train, {x: data, y: labels, keep: 0.8})
            after, predictions = sess.run([loss, logits], {x: data, y: labels, keep: 1.0})
    assert after < 0.5 * before
    assert (predictions.argmax(axis=1) == labels).mean() > 0.9


# --- generated code -----------------------------------------------------------------------------------


def test_dropout_module_matches_its_snapshots(symgrad_snapshot) -> None:  # type: ignore[no-untyped-def]
    for optimize, golden in ((True, "dropout_mlp.py"), (False, "dropout_mlp_readable.py")):
        with sg.Graph().as_default():
            compiled, _ = _dropout_model(optimize)
        symgrad_snapshot(compiled, GOLDEN / golden)


def test_random_ops_module_matches_its_snapshot(symgrad_snapshot) -> None:  # type: ignore[no-untyped-def]
    """Every random op in one module (the all-ops module has none: it takes no ``rng``)."""
    with sg.Graph().as_default() as graph:
        sg.set_random_seed(1)
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        drawn = [
            sg.random_normal([2, 3], mean=1.0, stddev=2.0, name="normal"),
            sg.random_uniform(sg.shape(x), name="uniform"),
            sg.random_uniform([4], 0, 10, dtype=sg.int32, name="integers"),
            sg.truncated_normal([3], stddev=0.1, name="truncated"),
            sg.random_shuffle(x, name="shuffled"),
            sg.multinomial(x, 2, name="samples"),
            sg.random.categorical(x, 1, dtype=sg.int32, name="sampled"),
            sg.nn.log_uniform_candidate_sampler(
                sg.constant([[1]], dtype=sg.int64), 1, 3, True, 10, name="candidates"
            )[0],
            sg.nn.uniform_candidate_sampler(
                sg.constant([[1]], dtype=sg.int64), 1, 3, True, 10, name="uniform_candidates"
            )[0],
            sg.nn.fixed_unigram_candidate_sampler(
                sg.constant([[1]], dtype=sg.int64),
                1,
                2,
                False,
                4,
                unigrams=[1.0, 2.0, 0.0, 3.0],
                name="unigram_candidates",
            )[0],
        ]
        used = {op.type for op in graph.get_operations()}
        compiled = sg.compile(drawn, inputs=[x], name="random_ops")
    random_types = {name for name, opdef in REGISTRY.items() if opdef.random}
    assert random_types <= used
    symgrad_snapshot(compiled, GOLDEN / "random_ops.py")
    values = compiled(np.arange(6, dtype=np.float32).reshape(2, 3), rng=0)
    shapes = [(2, 3), (2, 3), (4,), (3,), (2, 3), (2, 2), (2, 1), (3,), (3,), (2,)]
    assert [v.shape for v in values] == shapes
    assert values[2].dtype == np.int32 and values[5].dtype == np.int64


def test_symgrad_check_holds_the_mask_fixed(tmp_path: Path) -> None:
    program = tmp_path / "dropout_program.py"
    program.write_text(
        textwrap.dedent(
            """
            import numpy as np
            import symgrad as sg

            x = sg.placeholder(sg.float64, [4, 5], name="x")
            w = sg.Variable(np.linspace(-1.0, 1.0, 15).reshape(5, 3), name="w")
            h = sg.nn.dropout(sg.tanh(x @ w), keep_prob=0.5)
            loss = sg.reduce_sum(h * h)
            compiled = sg.compile([loss, *sg.gradients(loss, [x, w])], name="step")
            """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "symgrad", "check", str(program)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "symgrad check: PASS" in result.stdout


# --- sampled losses -------------------------------------------------------------------------------------


def test_log_uniform_sampler_expected_counts_follow_the_draws_it_took() -> None:
    with sg.Graph().as_default():
        labels = sg.constant([[2], [30]], dtype=sg.int64)
        sampled, true_count, sampled_count = sg.nn.log_uniform_candidate_sampler(
            labels, 1, 20, True, 40, seed=1
        )
        draws = sg.get_default_graph().get_operation_by_name("log_uniform_candidate_sampler")
        ids, tries, true_value, sampled_value = sg.compile(
            [sampled, draws.outputs[0][20], true_count, sampled_count]
        )()
    assert len(set(ids.tolist())) == 20 and ids.min() >= 0 and ids.max() < 40
    assert tries > 20  # distinct classes out of 40 took redraws

    def expected(classes: np.ndarray) -> np.ndarray:
        p = np.log((classes + 2.0) / (classes + 1.0)) / np.log(41.0)
        return -np.expm1(tries * np.log1p(-p))

    np.testing.assert_allclose(true_value, expected(np.array([[2.0], [30.0]])), rtol=1e-6)
    np.testing.assert_allclose(sampled_value, expected(ids.astype(np.float64)), rtol=1e-6)
    with sg.Graph().as_default(), pytest.raises(sg.InvalidArgumentError, match="distinct"):
        sg.nn.log_uniform_candidate_sampler(labels_of_one(), 1, 11, True, 10)


def test_fixed_unigram_sampler_refuses_what_it_cannot_do() -> None:
    with sg.Graph().as_default():
        labels = labels_of_one()
        with pytest.raises(sg.InvalidArgumentError, match="vocab_file is not supported"):
            sg.nn.fixed_unigram_candidate_sampler(labels, 1, 2, False, 3, vocab_file="v.txt")
        with pytest.raises(sg.InvalidArgumentError, match="sharding is not supported"):
            sg.nn.fixed_unigram_candidate_sampler(
                labels, 1, 2, False, 3, num_shards=2, unigrams=[1, 2, 3]
            )
        with pytest.raises(sg.InvalidArgumentError, match=r"range_max \(4\) must equal"):
            sg.nn.fixed_unigram_candidate_sampler(
                labels, 1, 2, False, 4, num_reserved_ids=2, unigrams=[1, 2, 3]
            )
        with pytest.raises(sg.InvalidArgumentError, match="distinct"):
            sg.nn.uniform_candidate_sampler(labels, 1, 11, True, 10)
    with pytest.raises(sg.errors.MissingTF1NameError, match="fixed_unigram_candidate_sampler"):
        sg.nn.learned_unigram_candidate_sampler  # noqa: B018


def labels_of_one() -> sg.Tensor:
    return sg.constant([[0]], dtype=sg.int64)


def test_word2vec_with_nce_loss_trains() -> None:
    """Skip-gram pairs of a tiny corpus: each word's context is the next word in a cycle."""
    vocabulary, dim = 40, 8
    centers = np.arange(vocabulary)
    contexts = (centers + 1) % vocabulary
    with sg.Graph().as_default():
        sg.set_random_seed(2)
        x = sg.placeholder(sg.int32, [None], name="x")
        y = sg.placeholder(sg.int64, [None, 1], name="y")
        embeddings = sg.Variable(sg.random_uniform([vocabulary, dim], -1.0, 1.0), name="emb")
        nce_w = sg.Variable(sg.truncated_normal([vocabulary, dim], stddev=0.3), name="nce_w")
        nce_b = sg.Variable(sg.zeros([vocabulary]), name="nce_b")
        embedded = sg.gather(embeddings, x)
        loss = sg.reduce_mean(sg.nn.nce_loss(nce_w, nce_b, y, embedded, 8, vocabulary))
        train = sg.train.GradientDescentOptimizer(1.0).minimize(loss)
        scores = embedded @ sg.transpose(nce_w) + nce_b
        feed = {x: centers, y: contexts[:, None]}
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            before = np.mean([sess.run(loss, feed) for _ in range(5)])
            for _ in range(300):
                sess.run(train, feed)
            after = np.mean([sess.run(loss, feed) for _ in range(5)])
            predicted = sess.run(scores, feed).argmax(axis=1)
    assert after < 0.5 * before
    assert (predicted == contexts).mean() > 0.8
