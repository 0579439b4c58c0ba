"""Real models: an MNIST-sized MLP against hand-written backprop, the digits examples, golden files."""

from __future__ import annotations

import ast
import runpy
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"


def _mlp(rng: np.random.Generator) -> dict:
    x = sg.placeholder(sg.float64, [None, 784], name="images")
    y = sg.placeholder(sg.float64, [None, 10], name="labels")
    sizes = [784, 256, 256, 10]
    params, h = [], x
    for layer, (n_in, n_out) in enumerate(zip(sizes, sizes[1:], strict=False), start=1):
        w = sg.Variable(rng.standard_normal((n_in, n_out)) * 0.05, name=f"W{layer}")
        b = sg.Variable(rng.standard_normal(n_out) * 0.1, name=f"b{layer}")
        params += [w, b]
        h = h @ w + b
        if layer < 3:
            h = sg.tanh(h)
    loss = sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))
    return {"x": x, "y": y, "params": params, "loss": loss}


def _backprop(x: np.ndarray, y: np.ndarray, params: list) -> tuple:
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -np.mean(np.sum(y * log_p, axis=1))
    d_logits = (np.exp(log_p) - y) / len(x)
    d_h2 = (d_logits @ w3.T) * (1 - h2**2)
    d_h1 = (d_h2 @ w2.T) * (1 - h1**2)
    return loss, [
        x.T @ d_h1,
        d_h1.sum(0),
        h1.T @ d_h2,
        d_h2.sum(0),
        h2.T @ d_logits,
        d_logits.sum(0),
    ]


def test_mlp_gradients_match_handwritten_backprop(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    with sg.Graph().as_default():
        model = _mlp(rng)
        compiled = sg.compile(
            [model["loss"]] + sg.gradients(model["loss"], model["params"]),
            name="mlp",
            path=tmp_path / "mlp.py",
        )
        values = [np.array(p.initial_value.op.attrs["value"]) for p in model["params"]]
    x = rng.standard_normal((32, 784))
    y = np.eye(10)[rng.integers(0, 10, 32)]
    loss, *grads = compiled(x, y, *values)
    expected_loss, expected = _backprop(x, y, values)
    assert abs(loss - expected_loss) <= 1e-10 * abs(expected_loss)
    for got, want in zip(grads, expected, strict=False):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-10 * np.abs(want).max())
    # Weight matrices stay arrays: no per-element code, a handful of statements.
    body = compiled.source.split("# Statements: ")[1]
    function = next(
        node
        for node in ast.parse(compiled.source).body
        if isinstance(node, ast.FunctionDef) and node.name == "mlp"
    )
    assert "W1[" not in body and len(function.body) < 50


def test_cross_entropy_of_huge_logits_is_finite() -> None:
    with sg.Graph().as_default():
        logits = sg.constant([[1000.0, 0.0, -1000.0]], dtype=sg.float64)
        labels = sg.constant([[0.2, 0.3, 0.5]], dtype=sg.float64)
        loss = sg.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
        value, d_logits, d_labels = sg.compile([loss] + sg.gradients(loss, [logits, labels]))()
    assert value.tolist() == [1300.0]
    assert d_logits.tolist() == [[0.8, -0.3, -0.5]]  # TF's softmax - labels
    assert d_labels.tolist() == [[0.0, 1000.0, 2000.0]]  # -log_softmax


@pytest.fixture(scope="module")
def digits_example() -> dict:
    pytest.importorskip(
        "sklearn", reason="the digits examples need scikit-learn (in the test extra)"
    )
    return runpy.run_path(str(ROOT / "examples" / "digits_models.py"), run_name="digits_example")


@pytest.mark.parametrize(
    "name, hidden, threshold", [("logistic_regression", (), 0.95), ("mlp", (64, 64), 0.97)]
)
def test_digits_examples_reach_their_accuracy(
    digits_example: dict, name: str, hidden: tuple, threshold: float
) -> None:
    assert digits_example["train"](name, hidden=hidden, epochs=30) >= threshold


@pytest.mark.parametrize("name, hidden", [("logistic_regression", ()), ("mlp", (64, 64))])
def test_digits_models_match_their_golden_modules(
    symgrad_snapshot,
    tmp_path: Path,
    name: str,  # type: ignore[no-untyped-def]
    hidden: tuple,
) -> None:
    example = runpy.run_path(str(ROOT / "examples" / "digits_models.py"), run_name="digits_example")
    with sg.Graph().as_default():
        model = example["build"](hidden)
        compiled = sg.compile(
            [model["loss"]] + sg.gradients(model["loss"], model["params"]),
            name=name,
            path=tmp_path / f"{name}.py",
        )
    symgrad_snapshot(compiled, GOLDEN / f"{name}.py")
