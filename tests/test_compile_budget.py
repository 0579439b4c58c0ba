"""No graph makes compile() hang: nasty graphs compile within a generous bound, and right."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad import optimize


def _compile_and_time(outputs, tmp_path: Path):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    compiled = sg.compile(outputs, path=tmp_path / "nasty.py")
    return compiled, time.perf_counter() - start


def test_deep_products_of_sums(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        y = x
        for k in range(40):
            y = y * (x + k / 40) + 1  # a polynomial of degree 41 if expanded
        loss = sg.reduce_sum(y)
        compiled, seconds = _compile_and_time([loss, sg.gradients(loss, x)[0]], tmp_path)
    assert seconds < 60
    v = np.linspace(-0.5, 0.5, 5)
    expected = v.copy()
    derivative = np.ones_like(v)
    for k in range(40):
        derivative = derivative * (v + k / 40) + expected
        expected = expected * (v + k / 40) + 1
    value, grad = compiled(v)
    np.testing.assert_allclose(value, expected.sum(), rtol=1e-12)
    np.testing.assert_allclose(grad, derivative, rtol=1e-10)


def test_fifty_nested_powers(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [3], name="x")
        y = x
        for _ in range(50):
            y = sg.pow(y, 1.01) + 0.01
        loss = sg.reduce_sum(y)
        compiled, seconds = _compile_and_time([loss, sg.gradients(loss, x)[0]], tmp_path)
    assert seconds < 60
    v = np.array([0.5, 1.0, 1.5])
    value, grad = compiled(v)
    reference, derivative = v.copy(), np.ones(3)
    for _ in range(50):
        derivative = derivative * 1.01 * reference**0.01
        reference = reference**1.01 + 0.01
    np.testing.assert_allclose(value, reference.sum(), rtol=1e-12)
    np.testing.assert_allclose(grad, derivative, rtol=1e-10)


def test_simplification_stops_at_its_time_budget(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(optimize, "SIMPLIFY_SECONDS", 0.0)
    monkeypatch.setattr(optimize.simplify_statements, "__defaults__", (0.0,))
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [2], name="x")
        y = sg.reduce_sum(sg.log(1 + sg.exp(x)) * (x + 1) ** 2)
        compiled = sg.compile([y, sg.gradients(y, x)[0]], path=tmp_path / "unsimplified.py")
    v = np.array([0.3, -0.7])
    value, grad = compiled(v)
    np.testing.assert_allclose(value, np.sum(np.log1p(np.exp(v)) * (v + 1) ** 2), rtol=1e-13)
    sigmoid = 1 / (1 + np.exp(-v))
    np.testing.assert_allclose(
        grad, sigmoid * (v + 1) ** 2 + 2 * np.log1p(np.exp(v)) * (v + 1), rtol=1e-12
    )


def test_wide_sum_of_three_thousand_terms(tmp_path: Path) -> None:
    """A Python ``sum`` over 3,000 variables (a left-deep chain of adds) and its 3,000 gradients.

    The old layout engine re-parsed each statement with ``ast`` and failed with
    RecursionError from about 600 terms; the module is now formatted by ruff.
    """
    size = 3000
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        variables = [sg.Variable(float(i % 7), dtype=sg.float64, name=f"v{i}") for i in range(size)]
        y = sg.reduce_sum(sum(v * x for v in variables))
        compiled, seconds = _compile_and_time([y, *sg.gradients(y, variables)], tmp_path)
    assert seconds < 120
    value, *grads = compiled(x=[1.0, 2.0])
    assert value == 3.0 * sum(float(i % 7) for i in range(size))
    assert all(g == 3.0 for g in grads)
