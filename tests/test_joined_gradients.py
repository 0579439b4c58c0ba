"""Whole-program forms of gradients that TF1 builds op by op.

- The cotangents of slices along one axis of a tensor (the parts of ``split``, the rows of
  ``unstack``, the gates of an LSTM cell) are joined into one ``concatenate``/``stack``, as
  TF's own split and unstack gradients are, instead of one zero-filled array per slice
  added up.
- A column or row slice of a matrix product is computed as the product with the sliced
  factor (the ``sliced-products`` pass): the recurrent part of ``concat([x, h]) @ W``'s
  input gradient multiplies only the rows of ``W`` that ``h`` meets.

Values are checked against central differences and against the per-slice form they
replace; the shapes are the ones users write (``[None, n]``, a batch known only at run
time).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import symgrad as sg


def _module(build: Callable[[sg.Tensor], sg.Tensor], width: int) -> tuple[sg.Module, str]:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, width], name="x")
        loss = build(x)
        module = sg.compile([loss, *sg.gradients(loss, [x])])
    return module, module.source


def _numeric_gradient(f: Callable[[np.ndarray], float], x: np.ndarray) -> np.ndarray:
    grad = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        step = np.zeros_like(x)
        step[index] = 1e-6
        grad[index] = (f(x + step) - f(x - step)) / 2e-6
    return grad


def _check(module: sg.Module, x: np.ndarray) -> None:
    _, grad = module(x)
    expected = _numeric_gradient(lambda v: float(module(v)[0]), x)
    np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-8)


def _gates(x: sg.Tensor) -> sg.Tensor:
    i, j, f, o = sg.split(x, 4, axis=1)
    c = sg.sigmoid(i) * sg.tanh(j) + sg.sigmoid(f + 1.0)
    return sg.reduce_sum(sg.sigmoid(o) * sg.tanh(c))


def test_split_gradient_is_one_concatenate() -> None:
    module, source = _module(_gates, 8)
    body = source.split("# Statements:")[1]
    assert "_scatter(" not in body and body.count("np.concatenate(") == 1
    _check(module, np.random.default_rng(0).standard_normal((3, 8)))


def test_unstack_gradient_is_one_stack() -> None:
    def rows(x: sg.Tensor) -> sg.Tensor:
        parts = sg.unstack(x, axis=1)
        return sg.reduce_sum(sum(sg.tanh(p) * (k + 1) for k, p in enumerate(parts)))

    module, source = _module(rows, 5)
    body = source.split("# Statements:")[1]
    assert "_scatter(" not in body and "np.stack(" in body
    _check(module, np.random.default_rng(1).standard_normal((4, 5)))


def test_gaps_between_slices_are_zeros() -> None:
    def sparse(x: sg.Tensor) -> sg.Tensor:
        return sg.reduce_sum(sg.tanh(x[:, 1:3]) * 2.0 + sg.exp(x[:, 5:6]) + x[:, 3:4] ** 2)

    module, source = _module(sparse, 7)
    assert source.split("# Statements:")[1].count("np.concatenate(") == 1
    x = np.random.default_rng(2).standard_normal((3, 7))
    _check(module, x)
    _, grad = module(x)
    assert not grad[:, [0, 4, 6]].any()


def test_overlapping_slices_and_few_rows_keep_one_term_per_slice() -> None:
    def overlapping(x: sg.Tensor) -> sg.Tensor:
        return sg.reduce_sum(sg.tanh(x[:, 0:3]) + sg.sin(x[:, 2:5]))

    module, source = _module(overlapping, 5)
    assert "np.concatenate(" not in source.split("# Statements:")[1]
    _check(module, np.random.default_rng(3).standard_normal((2, 5)))

    def two_of_six(x: sg.Tensor) -> sg.Tensor:
        return sg.reduce_sum(sg.tanh(x[:, 1]) * sg.sin(x[:, 4]))

    module, source = _module(two_of_six, 6)
    assert "np.stack(" not in source.split("# Statements:")[1]
    _check(module, np.random.default_rng(4).standard_normal((2, 6)))


def test_lstm_gradients_match_central_differences() -> None:
    """A three-step LSTM (its gates a split, its steps an unstack): the gradients of the
    input and of the kernel equal central differences."""
    rng = np.random.default_rng(5)
    with sg.Graph().as_default():
        sg.set_random_seed(7)
        x = sg.placeholder(sg.float64, [None, 3, 2], name="x")
        cell = sg.nn.rnn_cell.BasicLSTMCell(4)
        outputs, _ = sg.nn.static_rnn(cell, sg.unstack(x, 3, 1), dtype=sg.float64)
        loss = sg.reduce_sum(outputs[-1] ** 2 + outputs[0])
        kernel = sg.trainable_variables()[0]
        d_x, d_kernel = sg.gradients(loss, [x, kernel])
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            value = rng.standard_normal((2, 3, 2))
            got_x, got_kernel = sess.run([d_x, d_kernel], {x: value})
            expected_x = _numeric_gradient(lambda v: float(sess.run(loss, {x: v})), value)
            weights = sess.run(kernel)

            def at(w: np.ndarray) -> float:
                kernel.load(w, sess)
                return float(sess.run(loss, {x: value}))

            expected_kernel = _numeric_gradient(at, weights)
    np.testing.assert_allclose(got_x, expected_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(got_kernel, expected_kernel, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("transpose_b", [False, True])
def test_a_sliced_product_multiplies_the_sliced_factor(transpose_b: bool) -> None:
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((5, 7))
    for key, factor, expected in (
        ((slice(None), slice(2, 6)), "b[2:6].T" if transpose_b else "b[:, 2:6]", (a @ b)[:, 2:6]),
        ((slice(1, 3),), "a[1:3] @", (a @ b)[1:3]),
    ):
        with sg.Graph().as_default():
            pa = sg.placeholder(sg.float64, [None, 5], name="a")
            pb = sg.placeholder(sg.float64, [7, 5] if transpose_b else [5, 7], name="b")
            module = sg.compile(sg.matmul(pa, pb, transpose_b=transpose_b)[key])
        assert factor in module.source.split("# Statements:")[1]
        np.testing.assert_allclose(module(a, b.T if transpose_b else b), expected, rtol=1e-12)


def test_a_product_read_whole_elsewhere_is_computed_once() -> None:
    with sg.Graph().as_default():
        a = sg.placeholder(sg.float64, [None, 5], name="a")
        b = sg.placeholder(sg.float64, [5, 7], name="b")
        product = sg.matmul(a, b)
        module = sg.compile([product[:, 2:6], sg.reduce_sum(product)])
    assert module.source.split("# Statements:")[1].count("@") == 1
