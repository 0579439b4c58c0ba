"""``gradients()``: argument handling and errors (the numbers are in test_tf_parity.py)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg


@pytest.fixture(autouse=True)
def fresh_graph():  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        yield graph


def test_returns_a_list_for_a_single_x_and_accepts_variables() -> None:
    w = sg.Variable(2.0, name="weight")
    grads = sg.gradients(w * 3.0, w)
    assert isinstance(grads, list) and len(grads) == 1
    assert grads[0].name == "gradients/d_mul_d_weight:0"
    assert float(sg.compile(grads[0])()) == 3.0


@pytest.mark.parametrize("mode", [sg.UnconnectedGradients.ZERO, "zero"])
def test_unconnected_zero_gives_zeros_of_x(mode: object) -> None:
    x = sg.placeholder(sg.float64, shape=[3], name="x")
    y = sg.placeholder(sg.float64, shape=[3], name="y")
    assert sg.gradients(y * 2, x) == [None]
    grad = sg.gradients(y * 2, x, unconnected_gradients=mode)[0]
    assert grad.shape == (3,) and grad.dtype == sg.float64
    np.testing.assert_array_equal(sg.compile(grad, inputs=[x])(np.ones(3)), np.zeros(3))


def test_aggregation_methods_are_accepted_and_equal() -> None:
    a = sg.constant(1.5)
    y = a * a + a
    values = []
    for method in (
        None,
        sg.AggregationMethod.ADD_N,
        sg.AggregationMethod.EXPERIMENTAL_TREE,
        sg.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
    ):
        grad = sg.gradients(
            y,
            a,
            aggregation_method=method,
            gate_gradients=True,
            colocate_gradients_with_ops=True,
            name="my_gradients",
        )[0]
        values.append(float(sg.compile(grad)()))
    assert values == [4.0] * 4


def test_gradient_of_a_gradient_of_a_linear_function_is_none() -> None:
    x = sg.placeholder(sg.float32, name="x")
    first = sg.gradients(3 * x, x)[0]
    assert sg.gradients(first, x) == [None]  # as TF: grad_ys depends on x only through its shape


@pytest.mark.parametrize(
    "build, error, message",
    [
        (
            lambda x, y: sg.gradients(y, [x, 3.0]),
            TypeError,
            r"every entry of xs must be a Tensor, got float",
        ),
        (
            lambda x, y: sg.gradients("y", x),
            TypeError,
            r"every entry of ys must be a Tensor, got str",
        ),
        (
            lambda x, y: sg.gradients(y, x, grad_ys=[1.0, 2.0]),
            ValueError,
            r"got 2 grad_ys for 1 ys",
        ),
        (
            lambda x, y: sg.gradients(y, x, grad_ys=np.ones(2)),
            ValueError,
            r"grad_ys\[0\] 'gradients/Const:0' has shape \(2,\) but y 'mul:0' has shape \(3,\)",
        ),
        (
            lambda x, y: sg.gradients(y, x, unconnected_gradients="maybe"),
            ValueError,
            r"unknown unconnected_gradients value 'maybe'",
        ),
        (
            lambda x, y: sg.gradients(y, x, aggregation_method=7),
            ValueError,
            r"invalid aggregation_method 7",
        ),
        (
            lambda x, y: sg.gradients(y, x, stop_gradients=[1.0]),
            TypeError,
            r"every entry of stop_gradients must be a Tensor",
        ),
    ],
)
def test_bad_arguments(build, error, message) -> None:  # type: ignore[no-untyped-def]
    x = sg.placeholder(sg.float32, shape=[3], name="x")
    y = sg.multiply(x, 2.0, name="mul")
    with pytest.raises(error, match=message) as raised:
        build(x, y)
    assert isinstance(raised.value, sg.SymgradError)


def test_grad_ys_scale_the_result() -> None:
    x = sg.placeholder(sg.float64, shape=[2], name="x")
    y = x * x
    grad = sg.gradients(y, x, grad_ys=np.array([1.0, -2.0]))[0]
    np.testing.assert_array_equal(sg.compile(grad)(np.array([3.0, 4.0])), [6.0, -16.0])
