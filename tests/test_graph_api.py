"""The TF1 graph API: graphs, names, dtypes, shape inference, and its errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg


@pytest.fixture(autouse=True)
def fresh_graph():  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        yield graph


def test_default_graph_and_reset() -> None:
    outer = sg.get_default_graph()
    inner = sg.Graph()
    with inner.as_default():
        assert sg.get_default_graph() is inner
        t = sg.constant(1.0)
    assert t.graph is inner and sg.get_default_graph() is outer
    with pytest.raises(AssertionError, match="inside a Graph.as_default"):
        sg.reset_default_graph()


def test_unique_names_and_scopes() -> None:
    a, b = sg.constant(1.0), sg.constant(2.0)
    assert (a.name, b.name) == ("Const:0", "Const_1:0")
    with sg.name_scope("layer1"):
        w = sg.Variable(1.0, name="weights")
    assert w.name == "layer1/weights:0"
    assert sg.get_default_graph().get_tensor_by_name("layer1/weights:0") is w
    assert sg.placeholder(sg.float32, name="x").name == "x:0"
    assert sg.placeholder(sg.float32, name="x").name == "x_1:0"


def test_dtypes_follow_tensorflow() -> None:
    assert sg.constant(1.5).dtype == sg.float32
    assert sg.constant(7).dtype == sg.int32
    assert sg.constant(np.array([1.0])).dtype == sg.float64
    assert sg.constant(True).dtype == sg.bool
    assert (sg.constant(np.array([1.0])) * 2.5).dtype == sg.float64
    assert (sg.constant(3) / sg.constant(2)).dtype == sg.float64  # integer truediv
    assert sg.greater(sg.constant(1.0), 0.0).dtype == sg.bool


def test_static_shapes_broadcast() -> None:
    x = sg.placeholder(sg.float32, shape=[None, 3])
    assert (x + sg.constant(np.zeros((2, 1, 3), np.float32))).shape == (2, None, 3)
    assert (x * 2).shape == (None, 3)
    assert sg.reduce_sum(x).shape == ()
    assert sg.reduce_mean(x, axis=0, keepdims=True).shape == (1, 3)
    assert (sg.placeholder(sg.float32) + x).shape is None
    assert (x @ sg.constant(np.ones((3, 4), np.float32))).shape == (None, 4)


def test_shape_mismatch_names_op_tensors_and_shapes() -> None:
    x = sg.placeholder(sg.float32, shape=[2, 3], name="x")
    y = sg.placeholder(sg.float32, shape=[4], name="y")
    with pytest.raises(
        sg.ShapeError, match=r"Add: cannot broadcast shapes of 'x:0' \(2, 3\) and 'y:0' \(4,\)"
    ):
        x + y
    with pytest.raises(ValueError, match=r"MatMul: inner dimensions differ: 'x:0' \(2, 3\)"):
        sg.matmul(x, sg.placeholder(sg.float32, shape=[4, 2]))
    with pytest.raises(ValueError, match=r"Sum: axis 2 is out of range for tensor 'x:0' of rank 2"):
        sg.reduce_sum(x, axis=2)


def test_dtype_errors() -> None:
    x = sg.placeholder(sg.float32, shape=[2], name="x")
    n = sg.placeholder(sg.int32, shape=[2], name="n")
    with pytest.raises(
        sg.DTypeError,
        match=r"Add: operands must have the same dtype, got 'x:0' float32, "
        r"'n:0' int32",
    ):
        x + n
    with pytest.raises(TypeError, match="not exactly representable as int32"):
        n * 2.5
    with pytest.raises(TypeError, match="Tanh: needs a floating-point tensor"):
        sg.tanh(n)
    with pytest.raises(TypeError, match="non-numeric"):
        sg.constant("text", dtype=sg.float32)  # without a dtype: a tf.string constant
    with pytest.raises(TypeError, match="is not a dtype"):
        sg.placeholder("no such dtype")


def test_mixing_graphs_is_an_error() -> None:
    other = sg.Graph()
    with other.as_default():
        foreign = sg.constant(1.0, name="foreign")
    here = sg.constant(2.0, name="here")
    with pytest.raises(sg.GraphMismatchError, match="'foreign:0' belongs to another graph"):
        here + foreign
    with pytest.raises(sg.GraphMismatchError, match="'foreign:0' belongs to another graph"):
        sg.gradients(here, foreign)


def test_tensors_have_no_truth_value() -> None:
    x = sg.placeholder(sg.float32)
    with pytest.raises(TypeError, match="no truth value"):
        bool(x > 0)
    with pytest.raises(TypeError, match="not iterable"):
        list(x)


def test_operators_with_numbers_and_arrays_on_either_side() -> None:
    x = sg.placeholder(sg.float64, shape=[3], name="x")
    outputs = [
        x + 1,
        1 + x,
        x - 1,
        1 - x,
        2 * x,
        x * 2,
        x / 2,
        2 / x,
        x**2,
        2**x,
        -x,
        abs(x),
        np.array([1.0, 2.0, 3.0]) * x,
        x > 1,
        x <= 1,
    ]
    compiled = sg.compile(outputs)
    v = np.array([0.5, 1.0, 2.0])
    expected = [
        v + 1,
        1 + v,
        v - 1,
        1 - v,
        2 * v,
        v * 2,
        v / 2,
        2 / v,
        v**2,
        2**v,
        -v,
        np.abs(v),
        np.array([1.0, 2.0, 3.0]) * v,
        v > 1,
        v <= 1,
    ]
    for got, want in zip(compiled(v), expected, strict=False):
        np.testing.assert_array_equal(got, want)


def test_matmul_operator_and_gradients() -> None:
    a = sg.placeholder(sg.float64, shape=[2, 3], name="a")
    b = sg.placeholder(sg.float64, shape=[3, 4], name="b")
    loss = sg.reduce_sum(a @ b)
    compiled = sg.compile([a @ b] + sg.gradients(loss, [a, b]))
    av, bv = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    product, d_a, d_b = compiled(av, bv)
    np.testing.assert_array_equal(product, av @ bv)
    np.testing.assert_array_equal(d_a, np.ones((2, 4)) @ bv.T)
    np.testing.assert_array_equal(d_b, av.T @ np.ones((2, 4)))
