"""``explain_gradients`` (why is my gradient None?) and ``CompiledModule.explain`` (formulas)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg


@pytest.fixture(autouse=True)
def fresh_graph():  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        yield graph


def test_seed_experiment_one_explains_the_none() -> None:
    w1, w2 = sg.Variable(2.0, name="w1"), sg.Variable(2.0, name="w2")
    a = sg.multiply(w1, 3.0, name="a")
    b = sg.multiply(sg.stop_gradient(a, name="a_stoped"), w2, name="b")
    text = sg.explain_gradients(b, [w1, w2])
    assert text.splitlines()[0] == "w1:0: None — no path from it to the ys carries a gradient:"
    assert "w1:0 → a:0 → a_stoped:0 → b:0 is cut: 'a_stoped:0' is stop_gradient" in text
    assert "w2:0: gets a gradient, along 1 path:\n  w2:0 → b:0" in text
    assert sg.gradients(b, [w1, w2])[0] is None


def test_seed_experiment_two_explains_the_ones() -> None:
    a, b = sg.Variable(1.0, name="a"), sg.Variable(1.0, name="b")
    c_stoped = sg.stop_gradient(sg.add(a, b, name="c"), name="c_stoped")
    e = sg.add(c_stoped, sg.add(a, b, name="d"), name="e")
    text = sg.explain_gradients(e, [a, b])
    assert "a:0: gets a gradient, along 1 path:\n  a:0 → d:0 → e:0" in text
    assert "(cut: a:0 → c:0 → c_stoped:0 → e:0: 'c_stoped:0' is stop_gradient)" in text
    assert "b:0: gets a gradient" in text


def test_integer_cast_cuts_the_path() -> None:
    x = sg.placeholder(sg.float32, name="x")
    rounded = sg.cast(sg.cast(x, sg.int32, name="as_int"), sg.float32, name="back")
    text = sg.explain_gradients(rounded, x)
    assert text.startswith("x:0: None")
    assert "'as_int:0' is an integer tensor (int32): no gradient flows through it" in text
    assert sg.gradients(rounded, x) == [None]


def test_stop_gradients_and_unconnected() -> None:
    a = sg.constant(0.0, name="a")
    b = sg.multiply(2.0, a, name="b")
    text = sg.explain_gradients(a + b, [a, b], stop_gradients=[a, b])
    assert "(cut: a:0 → b:0 → add:0: it is in stop_gradients ('b:0'))" in text.replace("Add", "add")
    unrelated = sg.placeholder(sg.float32, name="unrelated")
    assert sg.explain_gradients(a + b, unrelated) == (
        "unrelated:0: None — the ys do not depend on it (zeros with unconnected_gradients='zero')"
    )


def test_explain_shows_the_seed_regression_formulas() -> None:
    x_input = sg.placeholder(sg.float32, name="x_input")
    y_input = sg.placeholder(sg.float32, name="y_input")
    w, b = sg.Variable(2.0, name="weight"), sg.Variable(1.0, name="biases")
    loss = sg.reduce_sum(sg.pow(y_input - sg.add(sg.multiply(x_input, w), b), 2)) / (2 * 32)
    grad_w, grad_b = sg.gradients(loss, [w, b])
    compiled = sg.compile({"loss": loss, "d_loss_d_weight": grad_w, "d_loss_d_biases": grad_b})
    assert compiled.explain().splitlines() == [
        "loss = sum((y_input - biases - weight*x_input)**2)/64",
        "d_loss_d_weight = sum(x_input*(biases + weight*x_input - y_input)/32)",
        "d_loss_d_biases = sum((biases + weight*x_input - y_input)/32)",
    ]
    assert (
        compiled.explain(expand=False).splitlines()[1]
        == "d_loss_d_weight = sum(d_loss_d_z_biases*x_input)"
    )
    assert r"\operatorname{sum}" in compiled.explain(latex=True)
    formula = compiled.formulas["d_loss_d_weight"]
    assert {s.name for s in formula.free_symbols} == {"d_loss_d_z_biases", "x_input"}
    assert np.isclose(compiled(3.0, 11.0, 2.0, 1.0)["d_loss_d_weight"], -3.0 * 4.0 / 32)


def _chain(depth: int) -> tuple[sg.Tensor, sg.Tensor, list[sg.Tensor]]:
    """``z = tanh(z * w_k + b_k)``, its loss and its parameters."""
    x = sg.placeholder(sg.float64, shape=[None], name="x")
    z, params = x, []
    for k in range(depth):
        w = sg.Variable(1.0, dtype=sg.float64, name=f"w{k}")
        b = sg.Variable(0.0, dtype=sg.float64, name=f"b{k}")
        params += [w, b]
        z = sg.tanh(z * w + b)
    return x, sg.reduce_sum(z), params


def _timed(work: Callable[[], Any], budget: float) -> tuple[Any, float]:
    """Run ``work`` in a thread; fail once ``budget`` * 10 seconds pass (a regression to the old
    exponential search would otherwise hang the suite)."""
    result: list[Any] = []
    start = time.perf_counter()
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(timeout=budget * 10)
    if thread.is_alive():
        pytest.fail(f"did not answer within {budget * 10:.0f} s")
    return result[0], time.perf_counter() - start


def test_explain_gradients_is_linear_on_a_deep_chain_with_gradient_ops() -> None:
    """3,000 layers with the gradient ops of all 6,000 parameters in the graph (the old path
    search took 212 s at 300 layers); benchmarks/explain_scale.py records 10,000 layers."""
    x, loss, params = _chain(3000)
    sg.gradients(loss, params)
    text, seconds = _timed(lambda: sg.explain_gradients(loss, [x, params[0], params[-2]]), 5.0)
    assert seconds < 5.0
    lines = text.splitlines()
    assert lines[0] == "x:0: gets a gradient, along 1 path:"
    assert lines[1].startswith("  x:0 → mul:0 → add:0 → Tanh:0 → ") and "more …" in lines[1]
    assert "w0:0: gets a gradient, along 1 path:" in lines
    assert lines[-1].endswith("Tanh_2999:0 → Sum:0")


def test_paths_are_counted_not_followed() -> None:
    """A ladder of 60 diamonds has 2**60 paths: counted exactly, five of them shown."""
    x = sg.placeholder(sg.float64, name="x")
    z = x
    for _ in range(60):
        z = sg.sin(z) + sg.cos(z)
    text = sg.explain_gradients(z, x)
    assert text.splitlines()[0] == f"x:0: gets a gradient, along {2**60} paths:"
    assert f"  ... and {2**60 - 5} more" in text


def test_explain_on_a_deep_chain() -> None:
    x = sg.placeholder(sg.float64, shape=[None], name="x")
    h = x
    for _ in range(300):
        h = sg.tanh(h * 0.5)
    y = sg.reduce_sum(h)
    compiled = sg.compile([y, sg.gradients(y, x)[0]], name="deep")
    text, seconds = _timed(compiled.explain, 10.0)  # the old level-by-level expansion: 81 s
    assert seconds < 10.0 and text.startswith("sum_ = sum(tanh")
