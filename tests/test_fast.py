"""The fast form (symgrad/backends/numpy/planner.py): each rewrite gives the readable form's results.

Every test compiles one graph twice, fast (the default) and readable
(``optimize=False``), checks what the fast source does (a dot product, an
in-place update, a reused array, or deliberately not), and compares the two
forms' results, and that no input array was written into.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence

import numpy as np
import pytest

import symgrad as sg
from symgrad import passes

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
        for fed, copy in zip(feeds, copies, strict=False):
            np.testing.assert_array_equal(fed, copy, err_msg="the call wrote into an input")
        results.append((compiled.source, values))
    (source, fast), (readable_source, readable) = results
    assert "out=" not in readable_source and " += " not in readable_source
    for got, want in zip(fast, readable, strict=False):
        assert np.asarray(got).dtype == np.asarray(want).dtype
        # the fast form may sum and multiply in another order: a few roundings apart
        rtol = 1e-12 if np.asarray(want).dtype == np.float64 else 1e-5
        np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-300)
    return source, fast, readable


def body(source: str) -> list[str]:
    return [line.strip() for line in source.split("# Statements: ")[1].splitlines()[1:]]


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
    assert any(line.replace(" ", "") == "mean=(sub_y@sub_y)/1000" for line in lines), lines
    assert "np.sum(sub_y**2)" not in source and "np.mean" not in source
    # the residual's gradient, -sub_y/500, is only ever summed: the scalar goes outside the sums
    assert "d_mean_d_weight = -(sub_y @ x) / 500" in lines, lines
    assert "d_mean_d_bias = -sub_y.sum() / 500" in lines, lines
    assert not any("d_mean_d_sub_y" in line for line in lines), lines


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
    computed = [
        line
        for line in lines
        if line.startswith("g = ")
        or line.startswith("g *= ")
        or "out=g" in line
        or line.startswith("g /=")
    ]
    if reads == "sums":
        assert not computed and not any(line.startswith("g") for line in lines), lines
        assert "sum_ = (r @ x) / 4" in lines and "sum_1 = r.sum() / 4" in lines, lines
    else:  # tanh(g) needs g's values: it stays
        assert computed, lines


def test_a_chains_scalar_weights_move_to_the_sums_that_read_its_gradients() -> None:
    """``d_pre_k = w_k1*(1 - z_k**2)*d_pre_k1``: the weights multiply scalars, not arrays."""
    layers = 20
    feeds = [rng.standard_normal(300)] + [0.8, 0.05] * layers
    source, _, _ = both_forms(chain(layers, 300), feeds)
    lines = body(source)
    unscaled = [line for line in lines if re.match(r"d_sum_d_z_b\d+_unscaled = ", line)]
    # by weights, in place: only where DEFERRAL_LIMIT products in a row deferred theirs
    scaled_in_place = [line for line in lines if re.match(r"d_sum_d_z_b\d+ \*= .*\bw\d+", line)]
    materialized = (layers - 1) // (passes.DEFERRAL_LIMIT + 1)
    assert len(scaled_in_place) == materialized, scaled_in_place
    assert len(unscaled) == layers - 1 - materialized, lines
    assert "d_sum_d_w18 = w19 * (d_sum_d_z_b18_unscaled @ layer17)" in lines, lines
    assert "d_sum_d_z_b17_scale = w18 * w19" in lines, lines


@pytest.mark.parametrize("dtype", [sg.float32, sg.float64])
def test_a_returned_product_takes_the_scalars_of_the_product_it_reads(dtype) -> None:  # type: ignore[no-untyped-def]
    """``g = w*tanh(x)*x`` is read by a sum and by ``h = v*g*cos(x)``, which is returned:
    ``g`` is computed without ``w``, and ``h`` multiplies by ``v*w``."""

    def build() -> tuple:
        x = sg.placeholder(dtype, [None], name="x")
        w = sg.Variable(1.5, dtype=dtype, name="w")
        v = sg.Variable(-0.5, dtype=dtype, name="v")
        g = sg.identity(w * sg.tanh(x) * x, name="g")
        h = sg.identity(v * g * sg.cos(x), name="h")
        return [h, sg.reduce_sum(g * x)], [x, w, v]

    x = rng.standard_normal(400).astype(dtype.name)
    source, fast, _ = both_forms(build, [x, 1.5, -0.5])
    lines = body(source)
    assert any(line.startswith("g_unscaled = ") for line in lines), lines
    assert not any(line.startswith("g ") or line.startswith("g = ") for line in lines), lines
    assert "sum_ = w * (g_unscaled @ x)" in lines, lines
    assert fast[0].dtype == np.dtype(dtype.name)


def saturated_float32_chain(layers: int) -> Callable[[], tuple]:
    """z = tanh(8*z - 5.77) in float32 near its fixed point z = 0.949, where each layer's
    1 - z**2 is 0.099 but its gradient factor 8*(1 - z**2) is 0.79."""

    def build() -> tuple:
        x = sg.placeholder(sg.float32, [None], name="x")
        z, params = x, []
        for k in range(layers):
            w = sg.Variable(8.0, dtype=sg.float32, name=f"w{k}")
            b = sg.Variable(-5.77, dtype=sg.float32, name=f"b{k}")
            z = sg.tanh(z * w + b)
            params += [w, b]
        loss = sg.reduce_sum(z)
        return [loss, *sg.gradients(loss, params)], [x, *params]

    return build


def test_deferred_scales_are_bounded_so_float32_gradients_keep_their_range(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Left unscaled over all 60 layers, the array would underflow (0.099**59) while its scale
    overflows (8**59): NaN gradients. DEFERRAL_LIMIT keeps both in range."""
    layers = 60
    x = (0.95 + 0.001 * rng.standard_normal(100)).astype(np.float32)
    feeds = [x] + [np.float32(8.0), np.float32(-5.77)] * layers
    _, fast, readable = both_forms(saturated_float32_chain(layers), feeds)
    assert np.isfinite(fast).all() and np.abs(fast).min() > 1e-6
    monkeypatch.setattr(passes, "DEFERRAL_LIMIT", 10 * layers)
    with np.errstate(over="ignore", invalid="ignore"), pytest.raises(AssertionError):
        both_forms(saturated_float32_chain(layers), feeds)


def test_float32_arrays_scaled_in_float64_keep_their_results() -> None:
    def build() -> tuple:
        x = sg.placeholder(sg.float32, [200], name="x")
        scale = sg.placeholder(sg.float64, [], name="scale")
        g = sg.cast(x, sg.float64) * scale
        return [sg.reduce_sum(g), sg.reduce_sum(g * sg.cast(x, sg.float64))], [x, scale]

    x = rng.standard_normal(200).astype(np.float32)
    both_forms(build, [x, 3.0])


def chain(
    layers: int, length: int | None = 500, also_return: int | None = None
) -> Callable[[], tuple]:
    """A tanh chain's loss and gradients; ``also_return``: a layer's activation as one more output."""

    def build() -> tuple:
        x = sg.placeholder(sg.float64, [length], name="x")
        z, params, activations = x, [], []
        for k in range(layers):
            w = sg.Variable(0.9, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.1, dtype=sg.float64, name=f"b{k}")
            z = sg.tanh(z * w + b, name=f"layer{k}")
            params.append(w)
            params.append(b)
            activations.append(z)
        loss = sg.reduce_sum(z)
        extra = [] if also_return is None else [activations[also_return]]
        return [loss, *sg.gradients(loss, params), *extra], [x, *params]

    return build


def test_backward_pass_of_a_chain_allocates_no_array() -> None:
    source, _, _ = both_forms(chain(4), [rng.standard_normal(500)] + [0.8, 0.05] * 4)
    gradient_part = source.split("# Gradients")[1].split("return")[0]
    # every array statement of the backward pass writes into an array that died
    for line in gradient_part.splitlines()[1:-1]:
        words = line.split()
        if "@" in line or ".sum()" in line or words[0] == "del" or ".append(" in line:
            continue
        if words[0].endswith("_scale"):
            continue  # a product of scalar weights (fold-scalar-factors)
        assert "out=" in line or words[1] in ("+=", "-=", "*=", "/="), line


@pytest.mark.parametrize("length", [10000, None])
def test_a_deep_chains_activations_come_from_one_pool_allocated_once(length: int | None) -> None:
    feeds = [rng.standard_normal(10000)] + [0.8, 0.05] * 20
    source, _, _ = both_forms(chain(20, length), feeds)
    lines = body(source)
    size = "10000" if length else "x.shape[0]"
    assert f'_float64_rows = _take_rows("_float64_rows", 20, ({size},), np.float64)' in lines
    assert sum("out=_float64_rows.pop()" in line for line in lines) == 20, lines
    # an array goes back to the pool after its last read, and the whole pool to the next call
    assert sum(".append(" in line for line in lines) == 20, lines
    returned = lines.index("return (")
    assert lines[returned - 1] == '_give_rows("_float64_rows", _float64_rows)', lines
    assert "np.empty((20" not in source  # the block is made by the first call, not at import


@pytest.mark.parametrize("layers, length", [(4, 10000), (20, 500)])
def test_few_or_small_arrays_need_no_pool(layers: int, length: int) -> None:
    source, _, _ = both_forms(
        chain(layers, length), [rng.standard_normal(length)] + [0.8, 0.05] * layers
    )
    assert "_rows" not in source


def test_a_returned_activation_is_never_a_pool_array() -> None:
    feeds = [rng.standard_normal(10000)] + [0.8, 0.05] * 20
    source, first, _ = both_forms(chain(20, 10000, also_return=2), feeds)
    lines = body(source)
    assert any(line.startswith("layer2 = ") and "pop()" not in line for line in lines), lines
    # its gradient, which cannot take over its memory, comes from the pool instead
    assert "d_sum_d_z_b2_unscaled = np.square(layer2, out=_float64_rows.pop())" in lines, lines
    with sg.Graph().as_default():
        outputs, inputs = chain(20, 10000, also_return=2)()
        compiled = sg.compile(outputs, inputs=inputs, name="graph")
    second = compiled(*feeds)
    third = compiled(*[f * 1.5 if isinstance(f, np.ndarray) else f for f in feeds])
    np.testing.assert_array_equal(second[-1], first[-1])  # a later call did not write into it
    assert not np.shares_memory(third[-1], second[-1])


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

    source, fast, _ = both_forms(
        build, [rng.standard_normal(100).astype(np.float32), np.float64(0.3)]
    )
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
    assert "np.mean(sub_y**2)" in readable.replace(" ", "") or "np.mean((" in readable


def outer_product() -> tuple:
    x = sg.placeholder(sg.float64, [40], name="x")
    w = sg.Variable(np.linspace(-1.0, 1.0, 30), name="w")
    scale = sg.Variable(np.full((1, 30), 0.5), name="scale")
    z = sg.reshape(x, [40, 1]) * sg.reshape(w, [1, 30])
    loss = sg.reduce_sum(sg.tanh(z) * scale)
    return [loss, *sg.gradients(loss, [w, x, scale])], [x, w, scale]


def test_a_sum_over_the_broadcast_axis_of_a_product_is_a_matrix_product() -> None:
    source, _, _ = both_forms(
        outer_product,
        [rng.standard_normal(40), rng.standard_normal(30), rng.uniform(0.5, 1.5, (1, 30))],
    )
    lines = body(source)
    # d/dw sums over the rows, where x varies and w is broadcast: reshape.T @ g
    assert any(".T @ " in line and line.startswith("d_sum_d_w =") for line in lines), lines
    assert any(" @ reshape_w.T" in line and line.startswith("d_sum_d_x =") for line in lines), lines
    # d/dscale sums two full matrices over the rows: no matrix product there
    assert any(line.startswith("d_sum_d_scale = tanh_w.sum(") for line in lines), lines


def _unary_calls_in_place(source: str) -> list[str]:
    """Statements like ``np.tanh(t, out=t)``: ``t`` held the function's argument until then."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and len(node.value.args) == 1
            and any(k.arg == "out" for k in node.value.keywords)
        ):
            found.append(ast.unparse(node))
    return found


def test_fast_names_hold_only_the_value_they_name() -> None:
    def build() -> tuple:
        weights = np.random.default_rng(3)  # both forms get the same initial values
        images = sg.placeholder(sg.float64, shape=[None, 6], name="images")
        w1 = sg.Variable(weights.standard_normal((6, 5)), name="W1")
        b1 = sg.Variable(weights.standard_normal(5), name="b1")
        w2 = sg.Variable(weights.standard_normal((5, 3)), name="W2")
        hidden = sg.tanh(images @ w1 + b1)
        loss = sg.reduce_mean(sg.exp(hidden @ w2 - 1.0))
        return [loss, *sg.gradients(loss, [w1, b1, w2])], [images, w1, b1, w2]

    source, _, _ = both_forms(build, [rng.standard_normal((4, 6))])
    lines = body(source)
    assert _unary_calls_in_place(source) == []
    assert "tanh_b1 = np.tanh(tanh_b1_arg, out=tanh_b1_arg)" in lines
    assert lines.index("tanh_b1_arg = images @ W1") < lines.index("tanh_b1_arg += b1")
    # The alias would keep the array alive past tanh_b1's last read.
    assert "del tanh_b1_arg" in lines


@pytest.mark.parametrize("function", [sg.tan, sg.asinh, sg.ceil])
def test_tf1_unary_ufuncs_compute_in_place(function) -> None:  # type: ignore[no-untyped-def]
    """The elementwise functions TF1 programs use write into their argument's dying array."""

    def build() -> tuple:
        weights = np.random.default_rng(3)
        images = sg.placeholder(sg.float64, shape=[None, 6], name="images")
        w1 = sg.Variable(weights.standard_normal((6, 5)) / 4, name="W1")
        b1 = sg.Variable(weights.standard_normal(5) / 4, name="b1")
        w2 = sg.Variable(weights.standard_normal((5, 3)), name="W2")
        loss = sg.reduce_mean(sg.exp(function(images @ w1 + b1) @ w2 - 1.0))
        return [loss, *sg.gradients(loss, [w2])], [images, w1, b1, w2]

    source, _, _ = both_forms(build, [rng.standard_normal((4, 6)) / 4])
    ufunc = {sg.tan: "tan", sg.asinh: "arcsinh", sg.ceil: "ceil"}[function]
    assert any(f"np.{ufunc}(" in line and "out=" in line for line in body(source)), source


def test_a_matrix_product_by_a_reciprocal_keeps_its_parentheses() -> None:
    """A sum over a broadcast axis turned matrix product (``u.T @ (1/s)``), where ``1/s`` is a
    division: without parentheses Python reads ``(u.T @ 1)/s``."""

    def build() -> tuple:
        x = sg.placeholder(sg.float64, [None, 1], name="x")
        twice = sg.nn.log_softmax(sg.nn.log_softmax(x, axis=1), axis=0)
        return [sg.reduce_max(twice, axis=-2)], [x]

    source, fast, _ = both_forms(build, [np.array([[1.28]])])
    assert re.search(r"@ \(1 ?/ ?max__t", source), source
    np.testing.assert_array_equal(fast[0], [0.0])


def test_a_quotient_is_one_division_into_the_denominators_array() -> None:
    # Adam's step m / (sqrt(v) + eps) * lr: the denominator's array takes the quotient
    # (np.divide(m, d, out=d)), not its reciprocal times m: one pass and one rounding less
    # (bit for bit NumPy's quotient, then the product by lr).
    def adam_step() -> tuple:
        m = sg.placeholder(sg.float32, [None, 300], name="m")
        v = sg.placeholder(sg.float32, [None, 300], name="v")
        w = sg.placeholder(sg.float32, [None, 300], name="w")
        lr = sg.placeholder(sg.float32, [], name="lr")
        return w - lr * m / (sg.sqrt(v) + 1e-8), [m, v, w, lr]

    feeds = [
        rng.standard_normal((7, 300)).astype(np.float32),
        np.abs(rng.standard_normal((7, 300))).astype(np.float32),
        rng.standard_normal((7, 300)).astype(np.float32),
        np.float32(1e-3),
    ]
    source, fast, readable = both_forms(adam_step, feeds)
    same_shapes = source.split("def _graph_same_shapes")[1]
    assert "sub = np.divide(m, sub_arg, out=sub_arg)" in same_shapes, same_shapes
    assert "reciprocal" not in same_shapes
    m, v, w, lr = feeds
    np.testing.assert_array_equal(fast, w - m / (np.sqrt(v) + np.float32(1e-8)) * lr)
