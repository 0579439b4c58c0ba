"""The fast form (symgrad/fast.py): each rewrite gives the readable form's results.

Every test compiles one graph twice, fast (the default) and readable
(``optimize=False``), checks what the fast source does (a dot product, an
in-place update, a reused array, or deliberately not), and compares the two
forms' results, and that no input array was written into.
"""

from __future__ import annotations

from typing import Callable, List, Sequence

import numpy as np
import pytest

import symgrad as sg

rng = np.random.default_rng(7)


def both_forms(build: Callable[[], tuple], feeds: Sequence[np.ndarray]) -> tuple:
    """(fast source, fast results, readable results) of the graph ``build`` makes."""
    results = []
    for optimize in (True, False):
        with sg.Graph().as_default():
            outputs, inputs = build()
            compiled = sg.compile(outputs, inputs=inputs, name="graph", optimize=optimize)
        copies = [np.array(f, copy=True) for f in feeds]
        values = compiled(*feeds)
        for fed, copy in zip(feeds, copies):
            np.testing.assert_array_equal(fed, copy, err_msg="the call wrote into an input")
        results.append((compiled.source, values))
    (source, fast), (readable_source, readable) = results
    assert "out=" not in readable_source and " += " not in readable_source
    for got, want in zip(fast, readable):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        # the fast form may sum and multiply in another order: a few roundings apart
        rtol = 1e-12 if np.asarray(want).dtype == np.float64 else 1e-5
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300)
    return source, fast, readable


def body(source: str) -> List[str]:
    return [line.strip() for line in source.split("# Total ops")[1].splitlines()[1:]]


def linear_regression() -> tuple:
    x = sg.placeholder(sg.float64, [1000], name="x")
    y = sg.placeholder(sg.float64, [1000], name="y")
    w = sg.Variable(2.0, dtype=sg.float64, name="weight")
    b = sg.Variable(1.0, dtype=sg.float64, name="bias")
    loss = sg.reduce_mean(sg.square(y - (x * w + b)))
    return [loss, *sg.gradients(loss, [w, b])], [x, y, w, b]


def test_sums_of_products_are_dot_products_and_the_residual_is_computed_in_place() -> None:
    x, y = rng.standard_normal(1000), rng.standard_normal(1000)
    source, _, _ = both_forms(linear_regression, [x, y, 0.5, -0.25])
    lines = body(source)
    assert any(line.replace(" ", "") == "mean=(sub@sub)/1000" for line in lines), lines
    assert "np.sum(sub**2)" not in source and "np.mean" not in source
    # the residual's gradient, -sub/500, is only ever summed: the scalar goes outside the sums
    assert "d_mean_d_weight = -(sub @ x) / 500" in lines, lines
    assert "d_mean_d_bias = -np.sum(sub) / 500" in lines, lines
    assert not any("_grad" in line for line in lines), lines


def scaled_residual(reads: str) -> Callable[[], tuple]:
    """g = r / 4 for r = y - x*w, read by sums only ("sums"), or also elementwise ("elementwise")."""
    def build() -> tuple:
        x = sg.placeholder(sg.float64, [300], name="x")
        y = sg.placeholder(sg.float64, [300], name="y")
        w = sg.Variable(2.0, dtype=sg.float64, name="w")
        r = sg.identity(y - x * w, name="r")
        g = sg.identity(r / 4.0, name="g")
        outputs = [sg.reduce_sum(g * x), sg.reduce_sum(g, axis=0), sg.reduce_max(r)]
        if reads == "elementwise":
            outputs.append(sg.tanh(g))
        return outputs, [x, y, w]
    return build


@pytest.mark.parametrize("reads", ["sums", "elementwise"])
def test_a_scaled_array_read_only_by_sums_is_not_computed(reads: str) -> None:
    x, y = rng.standard_normal(300), rng.standard_normal(300)
    source, _, _ = both_forms(scaled_residual(reads), [x, y, 0.7])
    lines = body(source)
    computed = [line for line in lines if line.startswith("g = ") or line.startswith("g *= ")
                or "out=g" in line or line.startswith("g /=")]
    if reads == "sums":
        assert not computed and not any(line.startswith("g") for line in lines), lines
        assert "sum_ = (r @ x) / 4" in lines and "sum_1 = np.sum(r) / 4" in lines, lines
    else:  # tanh(g) needs g's values: it stays
        assert computed, lines


def test_float32_arrays_scaled_in_float64_keep_their_results() -> None:
    def build() -> tuple:
        x = sg.placeholder(sg.float32, [200], name="x")
        scale = sg.placeholder(sg.float64, [], name="scale")
        g = sg.cast(x, sg.float64) * scale
        return [sg.reduce_sum(g), sg.reduce_sum(g * sg.cast(x, sg.float64))], [x, scale]
    x = rng.standard_normal(200).astype(np.float32)
    both_forms(build, [x, 3.0])


def chain(layers: int) -> Callable[[], tuple]:
    def build() -> tuple:
        x = sg.placeholder(sg.float64, [500], name="x")
        z, params = x, []
        for k in range(layers):
            w = sg.Variable(0.9, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.1, dtype=sg.float64, name=f"b{k}")
            z = sg.tanh(z * w + b)
            params += [w, b]
        loss = sg.reduce_sum(z)
        return [loss, *sg.gradients(loss, params)], [x, *params]
    return build


def test_backward_pass_of_a_chain_allocates_no_array() -> None:
    source, _, _ = both_forms(chain(4), [rng.standard_normal(500)] + [0.8, 0.05] * 4)
    gradient_part = source.split("# Gradients")[1].split("return")[0]
    # every array statement of the backward pass writes into an array that died
    for line in gradient_part.splitlines()[1:-1]:
        words = line.split()
        if "@" in line or "np.sum" in line or words[0] == "del":
            continue
        assert "out=" in line or words[1] in ("+=", "-=", "*=", "/="), line


def test_outputs_and_values_read_later_are_never_overwritten() -> None:
    def build() -> tuple:
        x = sg.placeholder(sg.float64, [50], name="x")
        w = sg.Variable(0.7, dtype=sg.float64, name="w")
        hidden = sg.tanh(x * w)
        loss = sg.reduce_sum(hidden * hidden * x)
        return [hidden, loss, sg.gradients(loss, w)[0], hidden * 3.0], [x, w]

    both_forms(build, [rng.standard_normal(50), 0.3])


def test_views_keep_their_array_alive() -> None:
    def build() -> tuple:
        x = sg.placeholder(sg.float64, [6], name="x")
        w = sg.Variable(0.5, dtype=sg.float64, name="w")
        t = sg.exp(x * w)
        view = sg.reshape(t, [2, 3])  # shares t's memory
        later = sg.tanh(x + w) * 2.0  # same shape as t: t's memory must not be reused here
        total = sg.reduce_sum(view * sg.reshape(later, [2, 3])) + sg.reduce_sum(sg.transpose(view))
        return [total, *sg.gradients(total, [x, w])], [x, w]

    both_forms(build, [rng.standard_normal(6), 0.9])


def test_a_float64_scalar_on_float32_arrays_is_not_computed_in_place() -> None:
    """NumPy computes float32 + float64-scalar in float64; in place would round after each step."""
    def build() -> tuple:
        x = sg.placeholder(sg.float32, [100], name="x")
        scale = sg.placeholder(sg.float64, [], name="scale")
        y = sg.cast(sg.tanh(sg.cast(x, sg.float64) * scale + 1.0), sg.float32) * x
        return [y], [x, scale]

    source, fast, _ = both_forms(build, [rng.standard_normal(100).astype(np.float32), np.float64(0.3)])
    assert fast[0].dtype == np.float32


def test_broadcast_without_an_operand_of_the_result_shape_stays_one_expression() -> None:
    def build() -> tuple:
        column = sg.placeholder(sg.float64, [5, 1], name="column")
        row = sg.placeholder(sg.float64, [1, 4], name="row")
        table = sg.tanh(column + row) * 2.0
        return [table, *sg.gradients(sg.reduce_sum(table), [column, row])], [column, row]

    source, fast, _ = both_forms(build, [rng.standard_normal((5, 1)), rng.standard_normal((1, 4))])
    assert fast[0].shape == (5, 4)
    assert "column + row" in source


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
def test_unknown_batch_sizes_and_both_float_dtypes(dtype) -> None:  # type: ignore[no-untyped-def]
    numpy_dtype = np.dtype(dtype.name)

    def build() -> tuple:
        x = sg.placeholder(dtype, [None, 3], name="x")
        w = sg.Variable(np.ones((3, 2), dtype=numpy_dtype) * 0.3, name="w")
        b = sg.Variable(np.zeros(2, dtype=numpy_dtype), name="b")
        h = sg.nn.sigmoid(sg.matmul(x, w) + b)
        loss = sg.reduce_mean(sg.square(h - 0.5)) + 0.01 * sg.reduce_sum(w * w)
        return [loss, *sg.gradients(loss, [w, b])], [x, w, b]

    x = rng.standard_normal((7, 3)).astype(numpy_dtype)
    w = (rng.standard_normal((3, 2)) * 0.3).astype(numpy_dtype)
    b = rng.standard_normal(2).astype(numpy_dtype)
    source, _, _ = both_forms(build, [x, w, b])
    assert "np.vdot(w, w)" in source  # a 2-D sum of squares


def test_the_readable_form_is_one_expression_per_statement() -> None:
    with sg.Graph().as_default():
        outputs, inputs = linear_regression()
        readable = sg.compile(outputs, inputs=inputs, optimize=False).source
    assert "np.mean(sub**2)" in readable.replace(" ", "") or "np.mean((" in readable
