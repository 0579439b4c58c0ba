"""``hessians`` as one vectorised block (forward over reverse) through unknown batch axes and
every op with a tangent rule: the size of the generated code, closed forms, finite differences
of the gradient, and TF's method (one gradient per element) as references.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np
import pytest

import symgrad as sg

GRADIENTS = importlib.import_module("symgrad.gradients")


@pytest.fixture
def no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if a Hessian falls back to one gradient per element."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("hessians fell back to one gradient per element")

    monkeypatch.setattr(GRADIENTS, "_jacobian_by_rows", refuse)


def body_lines(source: str) -> int:
    """Non-blank lines of ``compiled`` and ``_compiled_same_shapes`` (not the kernel helpers)."""
    total, counting = 0, False
    for line in source.splitlines():
        if line.startswith("def "):
            counting = line.startswith(("def compiled(", "def _compiled_same_shapes("))
        elif line and not line.startswith(" "):
            counting = False
        elif counting and line.strip():
            total += 1
    return total


def ridge(weights: int) -> tuple[sg.Tensor, sg.Tensor, list[sg.Tensor]]:
    x = sg.placeholder(sg.float64, [None, weights], name="X")
    y = sg.placeholder(sg.float64, [None], name="y")
    w = sg.placeholder(sg.float64, [weights], name="w")
    loss = sg.reduce_mean(sg.square(sg.linalg.matvec(x, w) - y)) + 0.5 * sg.reduce_sum(w * w)
    return loss, w, [x, y, w]


def logistic(weights: int) -> tuple[sg.Tensor, sg.Tensor, list[sg.Tensor]]:
    x = sg.placeholder(sg.float64, [None, weights], name="X")
    y = sg.placeholder(sg.float64, [None], name="y")
    theta = sg.placeholder(sg.float64, [weights, 1], name="theta")
    logits = sg.matmul(x, theta)
    labels = sg.reshape(y, [-1, 1])
    loss = sg.reduce_mean(sg.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    return loss, theta, [x, y, theta]


def _data(weights: int, rows: int = 7) -> tuple[np.ndarray, np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(weights)
    return rng.standard_normal((rows, weights)), (rng.uniform(size=rows) > 0.5) * 1.0, rng


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("weights", [3, 300, 3000])
def test_ridge_is_small_and_exact(weights: int) -> None:
    with sg.Graph().as_default():
        loss, w, inputs = ridge(weights)
        f = sg.compile(sg.hessians(loss, w)[0], inputs=inputs)
    assert body_lines(f.source) <= 60
    assert "np.eye" not in f.source.replace(f"np.eye({weights}, {weights}", "")
    x, y, rng = _data(weights)
    got = f(x, y, rng.standard_normal(weights))
    expected = 2 * x.T @ x / len(x) + np.eye(weights)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    # Other batch sizes of X and y (the body for unequal sizes): y broadcast against X @ w.
    np.testing.assert_allclose(f(x, y[:1], np.zeros(weights)), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.usefixtures("no_fallback")
@pytest.mark.parametrize("weights", [3, 300, 3000])
def test_logistic_is_small_and_exact(weights: int) -> None:
    with sg.Graph().as_default():
        loss, theta, inputs = logistic(weights)
        f = sg.compile(sg.hessians(loss, theta)[0], inputs=inputs)
    assert body_lines(f.source) <= 60
    assert "np.eye" not in f.source  # the seed identity became X itself
    x, y, rng = _data(weights)
    t = 0.3 * rng.standard_normal((weights, 1))
    s = 1 / (1 + np.exp(-(x @ t)[:, 0]))
    expected = (x.T @ ((s * (1 - s))[:, None] * x) / len(x)).reshape(weights, 1, weights, 1)
    np.testing.assert_allclose(f(x, y, t), expected, rtol=1e-10, atol=1e-14)


@pytest.mark.usefixtures("no_fallback")
def test_several_xs_give_each_block() -> None:
    rng = np.random.default_rng(0)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3], name="x")
        w = sg.placeholder(sg.float64, [3, 2], name="w")
        b = sg.placeholder(sg.float64, [2], name="b")
        loss = sg.reduce_sum(sg.tanh(sg.matmul(x, w) + b) ** 2)
        blocks = sg.hessians(loss, [w, b])
        grads = sg.gradients(loss, [w, b])
        f = sg.compile([*blocks, *grads], inputs=[x, w, b])
    values = rng.standard_normal((5, 3)), rng.standard_normal((3, 2)), rng.standard_normal(2)
    h_w, h_b, _, _ = f(*values)
    assert h_w.shape == (3, 2, 3, 2) and h_b.shape == (2, 2)
    for position, block in ((1, h_w), (2, h_b)):

        def gradient(v: np.ndarray, position: int = position) -> np.ndarray:
            args = list(values)
            args[position] = v
            return np.asarray(f(*args)[position + 1])

        expected = _numeric_jacobian(gradient, values[position])
        np.testing.assert_allclose(block, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.usefixtures("no_fallback")
def test_unknown_feature_axis_with_a_fixed_weight() -> None:
    """``[None, None]`` features: only the weight's shape is known."""
    rng = np.random.default_rng(1)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, None], name="x")
        w = sg.placeholder(sg.float64, [4], name="w")
        z = sg.reshape(x, [-1, 4]) * w
        loss = sg.reduce_mean(sg.reduce_sum(sg.exp(0.1 * z), axis=1) ** 2)
        f = sg.compile(sg.hessians(loss, w)[0], inputs=[x, w])
        g = sg.compile(sg.gradients(loss, w)[0], inputs=[x, w])
    xv, wv = rng.standard_normal((3, 4)), rng.standard_normal(4)
    expected = _numeric_jacobian(lambda v: g(xv, v), wv)
    np.testing.assert_allclose(f(xv, wv), expected, rtol=1e-6, atol=1e-8)


def _numeric_jacobian(fn: Callable[[np.ndarray], np.ndarray], point: np.ndarray) -> np.ndarray:
    """Central differences of ``fn`` at ``point``: shape ``fn(point).shape + point.shape``."""
    point = np.asarray(point, dtype=np.float64)
    columns = []
    for i in range(point.size):
        step = np.zeros(point.size)
        step[i] = 1e-5
        up = np.asarray(fn(point + step.reshape(point.shape)), dtype=np.float64)
        down = np.asarray(fn(point - step.reshape(point.shape)), dtype=np.float64)
        columns.append((up - down) / 2e-5)
    stacked = np.stack(columns, axis=-1)
    return stacked.reshape(stacked.shape[:-1] + point.shape)


def _loss_slicing(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    v = sg.reshape(x, [-1])
    return sg.reduce_sum(sg.sin(v[1:]) * v[:-1]) + sg.reduce_sum(sg.exp(x[:, ::2] * 0.5))


def _loss_reshaping(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    t = sg.transpose(sg.expand_dims(x, 0), [2, 0, 1])
    s = sg.squeeze(t, [1])
    return sg.reduce_sum(sg.tanh(sg.identity(s) * sg.reduce_mean(data, axis=0)[:, None]) ** 2)


def _loss_joining(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    joined = sg.concat([x, sg.sin(x), sg.ones_like(x)], axis=0)
    stacked = sg.stack([x, x * x], axis=1)
    parts = sg.unstack(x, axis=1)
    return (
        sg.reduce_sum(joined**3)
        + sg.reduce_sum(sg.cos(stacked))
        + sg.reduce_sum(parts[0] * parts[2] ** 2)
    )


def _loss_tile_gather(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    tiled = sg.tile(x, [2, 1])
    gathered = sg.gather(x, sg.constant([1, 0, 1]), axis=0)
    return sg.reduce_sum(sg.sin(tiled) * tiled) + sg.reduce_sum(gathered**3)


def _loss_batch_matmul(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    batch = sg.reshape(data, [2, -1, 3])
    h = sg.tanh(sg.matmul(batch, x))  # [2, None, 3] @ [3, 3]
    return sg.reduce_sum(sg.matmul(h, h, transpose_a=True) ** 2)


def _loss_softmax(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    logits = sg.matmul(data, x)
    probabilities = sg.nn.softmax(logits)
    return sg.reduce_sum(probabilities**2) - sg.reduce_mean(sg.nn.log_softmax(logits, axis=0))


def _loss_cross_entropy(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    logits = sg.matmul(data, x)
    labels = sg.nn.softmax(sg.sin(data))
    return sg.reduce_mean(
        sg.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    ) + sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits(labels=labels, logits=2 * logits))


def _loss_extrema_cast_select(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    low = sg.cast(sg.cast(x, sg.float32), x.dtype)
    chosen = sg.where(x > 0.0, x * x, sg.sin(x))
    return (
        sg.reduce_sum(sg.reduce_max(x * data[:3], axis=1) ** 2)
        + sg.reduce_sum(sg.reduce_min(x, axis=0, keepdims=True) ** 3)
        + sg.reduce_sum(chosen * low)
    )


def _loss_broadcasting(x: sg.Tensor, data: sg.Tensor) -> sg.Tensor:
    spread = sg.broadcast_to(x[0], [4, 3])
    return sg.reduce_sum(
        sg.reduce_mean(data[:, :3] * spread[:1] * x[1], axis=0, keepdims=True) ** 2
    )


RULES = [
    _loss_slicing,
    _loss_reshaping,
    _loss_joining,
    _loss_tile_gather,
    _loss_batch_matmul,
    _loss_softmax,
    _loss_cross_entropy,
    _loss_extrema_cast_select,
    _loss_broadcasting,
]


@pytest.mark.parametrize("build", RULES, ids=[r.__name__[6:] for r in RULES])
def test_tangent_rules_match_rows_and_finite_differences(
    build: Callable[[sg.Tensor, sg.Tensor], sg.Tensor], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(7)
    with sg.Graph().as_default():
        data = sg.placeholder(sg.float64, [None, 3], name="data")
        x = sg.placeholder(sg.float64, [3, 3], name="x")
        loss = build(x, data)
        grad = sg.gradients(loss, x)[0]
        rows = sg.reshape(GRADIENTS._jacobian_by_rows(grad, x, 9, "rows", None), [3, 3, 3, 3])
        reference = sg.compile([rows, grad], inputs=[data, x])
        monkeypatch.setattr(GRADIENTS, "_jacobian_by_rows", None)  # no fallback from here on
        f = sg.compile(sg.hessians(loss, x)[0], inputs=[data, x])
    dv, xv = rng.standard_normal((6, 3)), rng.standard_normal((3, 3))
    got = f(dv, xv)
    by_rows, _ = reference(dv, xv)
    np.testing.assert_allclose(got, np.transpose(by_rows, [2, 3, 0, 1]), rtol=1e-10, atol=1e-10)
    numeric = _numeric_jacobian(lambda v: reference(dv, v)[1], xv)
    loose = build is _loss_extrema_cast_select  # a float32 cast: differences of rounded values
    np.testing.assert_allclose(got, numeric, rtol=3e-3 if loose else 1e-5, atol=1e-6)


def test_cross_entropy_with_labels_depending_on_x_and_a_batch_axis() -> None:
    # TF takes the labels' derivative inside the cross-entropy's own gradient as 0, so this
    # Hessian is not symmetric: row i is d grad_i / dx, as TF's (programs_hessians records it).
    rng = np.random.default_rng(7)
    with sg.Graph().as_default():
        data = sg.placeholder(sg.float64, [None, 3], name="data")
        x = sg.placeholder(sg.float64, [3, 3], name="x")
        logits = sg.matmul(data, x)
        labels = sg.nn.softmax(sg.sin(logits))
        loss = sg.reduce_mean(
            sg.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
        )
        grad = sg.gradients(loss, x)[0]
        rows = sg.reshape(GRADIENTS._jacobian_by_rows(grad, x, 9, "rows", None), [3, 3, 3, 3])
        f = sg.compile([sg.hessians(loss, x)[0], rows], inputs=[data, x])
    got, by_rows = f(rng.standard_normal((6, 3)), rng.standard_normal((3, 3)))
    np.testing.assert_allclose(got, by_rows, rtol=1e-10, atol=1e-10)
    assert not np.allclose(got, np.transpose(got, [2, 3, 0, 1]))


@pytest.mark.usefixtures("no_fallback")
def test_float32() -> None:
    rng = np.random.default_rng(2)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4], name="x")
        w = sg.placeholder(sg.float32, [4, 1], name="w")
        logits = sg.matmul(x, w)
        loss = sg.reduce_mean(sg.nn.softplus(logits) - 0.5 * logits) + 0.1 * sg.reduce_sum(w**2)
        hessian = sg.hessians(loss, w)[0]
        assert hessian.dtype == sg.float32
        f = sg.compile(hessian, inputs=[x, w])
    xv = rng.standard_normal((6, 4)).astype(np.float32)
    wv = rng.standard_normal((4, 1)).astype(np.float32)
    got = f(xv, wv)
    assert got.dtype == np.float32
    s = 1 / (1 + np.exp(-(xv.astype(np.float64) @ wv)[:, 0]))
    expected = xv.T.astype(np.float64) @ ((s * (1 - s))[:, None] * xv) / 6 + 0.2 * np.eye(4)
    np.testing.assert_allclose(got, expected.reshape(4, 1, 4, 1), rtol=1e-5, atol=1e-6)


@pytest.mark.usefixtures("no_fallback")
def test_mlp_with_a_batch_axis_known_at_run_time() -> None:
    rng = np.random.default_rng(4)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3], name="x")
        labels = sg.placeholder(sg.float64, [None, 2], name="labels")
        w = sg.placeholder(sg.float64, [3, 2], name="w")
        hidden = sg.tanh(sg.matmul(x, w))
        logits = sg.matmul(hidden, sg.constant(rng.standard_normal((2, 2))))
        loss = sg.reduce_mean(
            sg.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
        )
        f = sg.compile(sg.hessians(loss, w)[0], inputs=[x, labels, w])
        g = sg.compile(sg.gradients(loss, w)[0], inputs=[x, labels, w])
    xv = rng.standard_normal((5, 3))
    lv = np.eye(2)[rng.integers(0, 2, 5)]
    wv = rng.standard_normal((3, 2))
    expected = _numeric_jacobian(lambda v: g(xv, lv, v), wv)
    np.testing.assert_allclose(f(xv, lv, wv), expected, rtol=1e-6, atol=1e-8)


def test_ops_without_a_tangent_rule_still_fall_back() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [3], name="x")
        f = sg.compile(sg.hessians(sg.reduce_prod(x * x), x)[0])
    v = np.array([1.0, 2.0, 3.0])
    expected = np.array([[2 * 36.0, 4 * 2 * 9, 4 * 3 * 4], [0, 2 * 9, 4 * 6], [0, 0, 2 * 4]])
    expected = expected + np.triu(expected, 1).T
    np.testing.assert_allclose(f(v), expected, rtol=1e-12)


@pytest.mark.usefixtures("no_fallback")
def test_the_hessian_of_a_python_function_is_the_same_block() -> None:
    # sg.function traces on call, with the arrays' shapes: the Hessian written inside it is
    # the vectorised block too, and its module does not grow with the weights.
    def ridge_hessian(x: sg.Tensor, y: sg.Tensor, w: sg.Tensor) -> sg.Tensor:
        loss = sg.reduce_mean(sg.square(sg.linalg.matvec(x, w) - y)) + 0.5 * sg.reduce_sum(w * w)
        return sg.hessians(loss, w)[0]

    traced = sg.function(ridge_hessian)
    for weights in (3, 300):
        x, y, rng = _data(weights)
        got = traced(x, y, rng.standard_normal(weights))
        np.testing.assert_allclose(got, 2 * x.T @ x / len(x) + np.eye(weights), rtol=1e-10)
        assert body_lines(traced.source) <= 60
