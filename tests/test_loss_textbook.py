"""Every loss of ``tf.nn`` and ``tf.losses`` in ``explain()`` as a textbook writes it, its
gradient as a person derives it (``sigmoid(z) - y``, ``softmax(z) - y``, ``sign(z - y)``),
with golden files of the text and LaTeX (``tests/golden/whiteboard/losses/``; update with
``--update-snapshots``). The values at the edges are TF's: ``every_loss_at_the_edges`` in
``tests/tf_parity/programs_losses.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg

Loss = Callable[[sg.Tensor, sg.Tensor], sg.Tensor]


LOSSES: dict[str, tuple[Loss, list[str]]] = {
    "nn_sigmoid_cross_entropy": (
        lambda y, z: sg.reduce_sum(sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z)),
        ["loss = sum(softplus(z) - y * z)", "dz = sigmoid(z) - y"],
    ),
    "nn_softmax_cross_entropy": (
        lambda y, z: sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=z)),
        ["dz = (softmax(z) - y) / N"],
    ),
    "nn_weighted_cross_entropy": (
        lambda y, z: sg.reduce_sum(
            sg.nn.weighted_cross_entropy_with_logits(labels=y, logits=z, pos_weight=2.0)
        ),
        [
            "loss = sum(2 * y * softplus(-z) + (1 - y) * softplus(z))",
            "dz = (1 + y) * sigmoid(z) - 2 * y",
        ],
    ),
    "nn_l2_loss": (lambda y, z: sg.nn.l2_loss(z - y), ["dz = z - y"]),
    "sigmoid_cross_entropy": (
        lambda y, z: sg.losses.sigmoid_cross_entropy(y, z),
        ["loss = sum(softplus(z) - y * z) / (3 * N)", "dz = (sigmoid(z) - y) / (3 * N)"],
    ),
    "softmax_cross_entropy": (
        lambda y, z: sg.losses.softmax_cross_entropy(y, z),
        ["dz = (softmax(z) - y) / N"],
    ),
    "mean_squared_error": (
        lambda y, z: sg.losses.mean_squared_error(y, z),
        ["loss = sum((z - y) ** 2) / (3 * N)", "dz = 2 * (z - y) / (3 * N)"],
    ),
    "absolute_difference": (
        lambda y, z: sg.losses.absolute_difference(y, z),
        ["loss = sum(abs(z - y)) / (3 * N)", "dz = sign(z - y) / (3 * N)"],
    ),
    "nn_sparse_softmax_cross_entropy": (
        lambda y, z: sg.reduce_mean(
            sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=z)
        ),
        ["dz = (softmax(z) - onehot(y)) / N"],
    ),
    "sparse_softmax_cross_entropy": (
        lambda y, z: sg.losses.sparse_softmax_cross_entropy(y, z),
        ["dz = (softmax(z) - onehot(y)) / N"],
    ),
    "mean_pairwise_squared_error": (
        lambda y, z: sg.losses.mean_pairwise_squared_error(y, z),
        [],
    ),
    "huber_loss": (
        lambda y, z: sg.losses.huber_loss(y, z),
        ["dz = clip(z - y, -1, 1) / (3 * N)"],
    ),
    "hinge_loss": (lambda y, z: sg.losses.hinge_loss(y, z), []),
    "log_loss": (lambda y, z: sg.losses.log_loss(y, sg.sigmoid(z)), []),
    "cosine_distance": (
        lambda y, z: sg.losses.cosine_distance(y, z, axis=1),
        ["dz = -y / N"],
    ),
}


def _compile(loss: Loss, name: str) -> Any:
    z = sg.placeholder(sg.float32, [None, 3], name="z")
    if "sparse" in name:  # class indices
        y = sg.placeholder(sg.int32, [None], name="y")
    else:
        y = sg.placeholder(sg.float32, [None, 3], name="y")
    value = loss(y, z)
    return sg.compile({"loss": value, "dz": sg.gradients(value, z)[0]}, name=name)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_every_loss_reads_as_a_textbook_writes_it(name: str, symgrad_snapshot: Any) -> None:
    loss, expected = LOSSES[name]
    with sg.Graph().as_default():
        module = _compile(loss, name)
    board = module.whiteboard()
    assert board is not None, name
    text = module.explain()
    lines = [line.split("  #")[0].rstrip() for line in text.splitlines()]
    for line in expected:
        assert line in lines
    # The plumbing of the fast form stays out of the display.
    for word in ("DivNoNan", "_loss(", "_grad(", "float32(", ">= 0", "_sum_to_shape"):
        assert word not in text
    symgrad_snapshot(
        f"{text}\n\n{module.explain(latex=True)}\n", f"tests/golden/whiteboard/losses/{name}.txt"
    )


def test_shape_comments_align_within_100_columns() -> None:
    # Aligned after the longest formula for which every aligned line still fits in 100
    # columns; a formula longer than that takes its comment right after it.
    with sg.Graph().as_default():
        module = _compile(LOSSES["log_loss"][0], "log_loss")
    lines = module.explain().splitlines()
    assert any(len(line) > 100 for line in lines)  # too long to align: the comment follows
    formulas = [line.split("  # ")[0] for line in lines]
    column = min(len(f) for f in formulas if not f.endswith(" ")) if formulas else 0
    for formula in formulas:
        assert len(formula) == column or not formula.endswith(" ")
    with sg.Graph().as_default():
        short = _compile(LOSSES["mean_squared_error"][0], "mse").explain().splitlines()
    assert len({line.index("  # ") for line in short}) == 1


def test_the_logistic_regression_module_is_what_a_person_writes() -> None:
    """Cost and both gradients in a handful of statements, no ``np.errstate``; the values
    those of the closed forms, the tiny loss of a confident right prediction kept."""
    with sg.Graph().as_default():
        feats = sg.placeholder(sg.float64, [None, 4], name="feats")
        t = sg.placeholder(sg.float64, [None, 1], name="t")
        theta = sg.Variable(np.zeros((4, 1)), name="theta")
        c = sg.Variable(0.0, dtype=sg.float64, name="c")
        cost = sg.reduce_sum(
            sg.nn.sigmoid_cross_entropy_with_logits(labels=t, logits=sg.matmul(feats, theta) + c)
        )
        module = sg.compile([cost, *sg.gradients(cost, [theta, c])])
    source = module.source
    # The body reads as a person writes it; the sigmoid kernel keeps exp's expected overflow
    # to itself.
    assert "errstate" not in source.split("# Statements:")[1]
    for summary in [line for line in source.splitlines() if "# Statements:" in line]:
        assert int(summary.split("Statements:")[1].split(",")[0]) <= 8
    assert module.explain().splitlines()[2].startswith("d_sum_d_theta = feats.T @ (sigmoid(z) - t)")
    rng = np.random.default_rng(0)
    x, labels = rng.standard_normal((9, 4)), (rng.random((9, 1)) < 0.5).astype(float)
    w, b = rng.standard_normal((4, 1)) * 30, 0.5
    logits = x @ w + b
    value, d_theta, d_c = module(x, labels, w, b)
    p = 1 / (1 + np.exp(-logits))
    expected = np.sum(np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits))))
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    np.testing.assert_allclose(d_theta, x.T @ (p - labels), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d_c, np.sum(p - labels), rtol=1e-10, atol=1e-12)
