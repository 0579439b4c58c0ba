"""Convolutions and pooling beyond the TF parity corpus (``tf_parity/programs_conv.py``):
finite differences, one module fed with two batch sizes, shape errors, and the goldens of a
small conv-pool-dense module in both forms."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import compare_fetches, load_fixtures

GOLDEN = Path(__file__).resolve().parent / "golden"
FIXTURES = load_fixtures("tf_fixtures_conv.json")


# --- finite differences ----------------------------------------------------------------------


def _directional_check(build, shapes, seed: int, step: float = 1e-6) -> None:  # type: ignore[no-untyped-def]
    """The gradient of ``sum(build(*xs) * W)`` along a random direction, against central
    differences of the compiled value."""
    rng = np.random.default_rng(seed)
    with sg.Graph().as_default():
        xs = [sg.placeholder(sg.float64, shape, name=f"x{i}") for i, shape in enumerate(shapes)]
        y = build(*xs)
        weight = rng.standard_normal(y.shape)
        loss = sg.reduce_sum(y * weight)
        f = sg.compile([loss, *sg.gradients(loss, xs)], name="checked")
    values = [rng.standard_normal(shape) for shape in shapes]
    direction = [rng.standard_normal(shape) for shape in shapes]
    _, *grads = f(*values)
    analytic = sum(float(np.vdot(g, d)) for g, d in zip(grads, direction, strict=True))
    plus = f(*[v + step * d for v, d in zip(values, direction, strict=True)])[0]
    minus = f(*[v - step * d for v, d in zip(values, direction, strict=True)])[0]
    numeric = (plus - minus) / (2 * step)
    assert numeric == pytest.approx(analytic, rel=1e-6, abs=1e-6)


CASES = {
    "conv_same_stride2": (
        lambda x, w: sg.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"),
        [(2, 7, 6, 3), (3, 4, 3, 2)],
    ),
    "conv_valid_dilated": (
        lambda x, w: sg.nn.conv2d(x, w, 1, "VALID", dilations=[1, 2, 3, 1]),
        [(1, 8, 9, 2), (2, 3, 2, 2)],
    ),
    "conv_transpose_same_stride2": (
        lambda v, w: sg.nn.conv2d_transpose(v, w, [1, 7, 6, 2], [1, 2, 2, 1], "SAME"),
        [(3, 4, 3, 3), (3, 3, 2, 3)],
    ),
    # random values: no ties, and a step far smaller than the gaps between them
    "max_pool_same_overlap": (
        lambda x: sg.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 1, 1], "SAME"),
        [(2, 5, 6, 2)],
    ),
    "avg_pool_same_edges": (
        lambda x: sg.nn.avg_pool(x, [1, 3, 2, 1], [1, 2, 2, 1], "SAME"),
        [(2, 5, 7, 2)],
    ),
    "conv_pool_chain": (
        lambda x, w: sg.nn.avg_pool(
            sg.nn.max_pool(sg.tanh(sg.nn.conv2d(x, w, 1, "SAME")), 2, 2, "SAME"), 2, 1, "VALID"
        ),
        [(2, 7, 7, 1), (3, 3, 1, 4)],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_finite_differences(case: str) -> None:
    build, shapes = CASES[case]
    _directional_check(build, shapes, seed=sorted(CASES).index(case))


def test_second_derivative_of_conv_matches_finite_differences() -> None:
    """d/dw of (d sum(conv(x, w)**3) / dx) . v: through both backprop ops' own gradients."""
    rng = np.random.default_rng(7)
    xv, wv, v = rng.standard_normal((1, 5, 5, 2)), rng.standard_normal((3, 3, 2, 2)), None
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, xv.shape, name="x")
        w = sg.placeholder(sg.float64, wv.shape, name="w")
        v = rng.standard_normal(xv.shape)
        inner = sg.reduce_sum(sg.nn.conv2d(x, w, [1, 2, 2, 1], "SAME") ** 3)
        outer = sg.reduce_sum(sg.gradients(inner, x)[0] * v)
        f = sg.compile([outer, *sg.gradients(outer, [x, w])], name="second")
    _, gx, gw = f(xv, wv)
    step = 1e-6
    dx, dw = rng.standard_normal(xv.shape), rng.standard_normal(wv.shape)
    numeric = (f(xv + step * dx, wv + step * dw)[0] - f(xv - step * dx, wv - step * dw)[0]) / (
        2 * step
    )
    assert numeric == pytest.approx(np.vdot(gx, dx) + np.vdot(gw, dw), rel=1e-6)


# --- a [None, h, w, c] placeholder, one module, two batch sizes -----------------------------


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
def test_one_module_takes_two_batch_sizes(optimize: bool) -> None:
    from tests.tf_parity.programs_conv import conv_none_batch_2, conv_none_batch_5

    with sg.Graph().as_default():
        built = conv_none_batch_2(sg)
        x = next(iter(built["feeds"]))
        y, loss, grads = built["fetches"]
        f = sg.compile([y, loss, *grads], name="batched", optimize=optimize)
    # the other program's feed, of batch 5, goes into the module compiled for batch 2's graph
    with sg.Graph().as_default():
        other = next(iter(conv_none_batch_5(sg)["feeds"].values()))
    for feed, program in ((built["feeds"][x], "conv_none_batch_2"), (other, "conv_none_batch_5")):
        compare_fetches(program, list(f(feed)), FIXTURES[program]["fetches"])


def test_conv2d_transpose_takes_a_run_time_batch_size_in_its_output_shape() -> None:
    """TF1's decoder idiom: ``output_shape=tf.stack([tf.shape(x)[0], h, w, c])`` (or a list
    holding ``tf.shape(x)[0]``) gives what the static output shape gives, at every batch size;
    a height computed at run time is refused."""
    rng = np.random.default_rng(3)
    kernel = rng.standard_normal((3, 3, 1, 4)).astype(np.float32)
    outputs = {}
    for form in ("stack", "list", "static"):
        for batch in (2, 5):
            with sg.Graph().as_default():
                x = sg.placeholder(sg.float32, [None, 8, 8, 1], name="x")
                w = sg.Variable(kernel, name="w")
                code = sg.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
                n = sg.shape(x)[0]
                shape = {
                    "stack": sg.stack([n, 8, 8, 1]),
                    "list": [n, 8, 8, 1],
                    "static": [batch, 8, 8, 1],
                }[form]
                y = sg.nn.conv2d_transpose(code, w, shape, [1, 2, 2, 1], "SAME")
                assert y.shape.as_list() == [None, 8, 8, 1]
                loss = sg.reduce_sum(sg.square(y - x))
                (grad,) = sg.gradients(loss, [w])
                with sg.Session() as sess:
                    sess.run(sg.global_variables_initializer())
                    feed = np.random.default_rng(batch).standard_normal((batch, 8, 8, 1))
                    outputs[form, batch] = sess.run([y, grad], {x: feed.astype(np.float32)})
    for batch in (2, 5):
        for form in ("stack", "list"):
            for got, want in zip(outputs[form, batch], outputs["static", batch], strict=True):
                np.testing.assert_allclose(got, want, rtol=1e-6)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, None, 8, 1])
        w = sg.zeros([3, 3, 1, 1])
        with pytest.raises(sg.InvalidArgumentError, match="static height, width and channels"):
            sg.nn.conv2d_transpose(x, w, sg.stack([1, sg.shape(x)[1], 8, 1]), 1, "SAME")


def test_an_empty_batch_gives_empty_values_and_gradients() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 6, 6, 1], name="x")
        w = sg.constant(np.ones((3, 3, 1, 2), np.float32))
        y = sg.nn.max_pool(sg.nn.conv2d(x, w, 1, "SAME"), 2, 2, "VALID")
        f = sg.compile([y, sg.gradients(sg.reduce_sum(y), x)[0]], name="empty")
    value, grad = f(np.zeros((0, 6, 6, 1), np.float32))
    assert value.shape == (0, 3, 3, 2) and value.dtype == np.float32
    assert grad.shape == (0, 6, 6, 1) and grad.dtype == np.float32


def test_static_shapes() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 28, 28, 1])
        h = sg.nn.conv2d(x, sg.zeros([5, 5, 1, 32]), [1, 1, 1, 1], "SAME")
        assert h.shape == (None, 28, 28, 32)
        p = sg.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        assert p.shape == (None, 14, 14, 32)
        assert sg.nn.conv2d(p, sg.zeros([5, 5, 32, 64]), 2, "VALID").shape == (None, 5, 5, 64)
        assert sg.nn.avg_pool(p, 3, 2, "SAME").shape == (None, 7, 7, 32)
        assert sg.nn.bias_add(h, sg.zeros([32])).shape == (None, 28, 28, 32)
        unknown = sg.placeholder(sg.float32, [None, None, None, 3])
        assert sg.nn.conv2d(unknown, sg.zeros([3, 3, 3, 8]), 2, "SAME").shape == (
            None,
            None,
            None,
            8,
        )


# --- errors ------------------------------------------------------------------------------------


def _error(build) -> str:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default(), pytest.raises(sg.SymgradError) as failure:
        build()
    return str(failure.value)


def test_mismatched_channels_name_the_op_tensors_and_shapes() -> None:
    def build() -> None:
        x = sg.placeholder(sg.float32, [None, 28, 28, 1], name="images")
        sg.nn.conv2d(x, sg.zeros([5, 5, 3, 32], name="kernel"), 1, "SAME")

    message = _error(build)
    assert "Conv2D" in message and "images" in message and "kernel" in message
    assert "(None, 28, 28, 1)" in message and "(5, 5, 3, 32)" in message


def test_shape_errors_are_value_errors() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4, 4, 2], name="small")
        w = sg.zeros([5, 5, 2, 1])
        with pytest.raises(sg.ShapeError, match=r"Conv2D.*'VALID'.*small.*\(None, 4, 4, 2\)"):
            sg.nn.conv2d(x, w, 1, "VALID")
        with pytest.raises(ValueError, match="MaxPool.*'VALID'.*window"):
            sg.nn.max_pool(x, 5, 1, "VALID")
        with pytest.raises(sg.ShapeError, match="4-D"):
            sg.nn.conv2d(sg.placeholder(sg.float32, [None, 4, 4]), w, 1, "SAME")
        with pytest.raises(sg.ShapeError, match="filter"):
            sg.nn.conv2d(x, sg.zeros([5, 2, 1]), 1, "SAME")


@pytest.mark.parametrize(
    "strides, match",
    [
        ([2, 1, 1, 1], "batch and channel"),
        ([1, 0, 1, 1], "positive"),
        ([1, 2, 2], "positive int or a list of 1, 2 or 4"),
        ("2", "ints"),
    ],
)
def test_bad_strides(strides: object, match: str) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 8, 8, 1])
        with pytest.raises(sg.InvalidArgumentError, match=match):
            sg.nn.conv2d(x, sg.zeros([3, 3, 1, 1]), strides, "SAME")
        with pytest.raises(sg.InvalidArgumentError, match=match):
            sg.nn.max_pool(x, 2, strides, "SAME")


def test_other_argument_errors() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 8, 8, 1])
        w = sg.zeros([3, 3, 1, 1])
        with pytest.raises(sg.InvalidArgumentError, match="padding"):
            sg.nn.conv2d(x, w, 1, "FULL")
        with pytest.raises(sg.InvalidArgumentError, match="NHWC"):
            sg.nn.conv2d(x, w, 1, "SAME", data_format="NCHW")
        with pytest.raises(sg.InvalidArgumentError, match="cannot both"):
            sg.nn.conv2d(x, w, 2, "SAME", dilations=2)
        with pytest.raises(sg.DTypeError, match="floating"):
            sg.nn.max_pool(sg.placeholder(sg.int32, [1, 4, 4, 1]), 2, 2, "SAME")
        with pytest.raises(sg.ShapeError, match="conv2d_transpose.*gives"):
            sg.nn.conv2d_transpose(sg.zeros([1, 3, 3, 1]), w, [1, 8, 8, 1], 2, "SAME")


# --- goldens: a small conv-pool-dense module ---------------------------------------------------


def _conv_pool_dense():  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(0)
    images = sg.placeholder(sg.float32, [None, 8, 8, 1], name="images")
    labels = sg.placeholder(sg.float32, [None, 3], name="labels")
    kernel = sg.Variable(rng.standard_normal((3, 3, 1, 4)).astype(np.float32), name="kernel")
    bias = sg.Variable(np.zeros(4, np.float32), name="bias")
    dense = sg.Variable(rng.standard_normal((4 * 4 * 4, 3)).astype(np.float32), name="dense")
    hidden = sg.nn.relu(sg.nn.bias_add(sg.nn.conv2d(images, kernel, 1, "SAME"), bias))
    pooled = sg.nn.max_pool(hidden, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    logits = sg.matmul(sg.reshape(pooled, [-1, 4 * 4 * 4]), dense)
    loss = sg.reduce_mean(
        sg.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits), name="loss"
    )
    return [loss, *sg.gradients(loss, [kernel, bias, dense])]


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
def test_conv_pool_dense_module_matches_its_snapshot(symgrad_snapshot, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        compiled = sg.compile(_conv_pool_dense(), name="conv_pool_dense", optimize=optimize)
    form = "fast" if optimize else "readable"
    symgrad_snapshot(compiled, GOLDEN / f"conv_pool_dense_{form}.py")
    rng = np.random.default_rng(1)
    images = rng.uniform(0, 1, (5, 8, 8, 1)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1]]
    loss, *grads = compiled(images, labels)
    assert loss.dtype == np.float32 and np.isfinite(loss)
    assert [g.shape for g in grads] == [(3, 3, 1, 4), (4,), (64, 3)]


# --- large batches: the helpers work a few images at a time ----------------------------------


def test_a_large_batch_gives_what_its_images_give_one_by_one() -> None:
    """A batch whose im2col rows exceed the helpers' budget (16M elements) is computed a few
    images at a time; the values and gradients are those of each image alone (one slice)."""
    rng = np.random.default_rng(7)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 96, 96, 16], name="x")
        w = sg.placeholder(sg.float32, [7, 7, 16, 4], name="w")
        y = sg.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        loss = sg.reduce_sum(y * rng.standard_normal((96, 96, 4)).astype(np.float32))
        f = sg.compile([y, *sg.gradients(loss, [x, w])], name="large_batch")
    images = rng.standard_normal((3, 96, 96, 16)).astype(np.float32)
    filters = rng.standard_normal((7, 7, 16, 4)).astype(np.float32)
    slices = runpy.run_path(str(f.path))["_image_chunks"](images, 7 * 7 * 16)
    assert len(slices) == 2  # 7.2M rows an image: two images, then one
    y_all, dx_all, dw_all = f(images, filters)
    alone = [f(images[i : i + 1], filters) for i in range(3)]
    np.testing.assert_allclose(y_all, np.concatenate([a[0] for a in alone]), rtol=1e-6)
    np.testing.assert_allclose(dx_all, np.concatenate([a[1] for a in alone]), rtol=1e-6)
    np.testing.assert_allclose(dw_all, sum(a[2] for a in alone), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize(
    "shape, ksize, strides, padding, rewritten, sized",
    [
        ((2, 6, 8, 3), 2, 2, "SAME", True, True),
        ((2, 5, 7, 3), 2, 2, "SAME", True, True),  # SAME pads the last row and column
        ((2, 5, 7, 3), 2, 2, "VALID", True, True),  # VALID leaves them unread
        ((2, 7, 7, 3), 3, 3, "SAME", True, True),  # SAME pads a row above and one below
        ((2, 6, 8, 3), 2, 2, "SAME", True, False),  # height and width known only when fed
        ((2, 7, 7, 2), 3, 2, "SAME", False, True),  # overlapping windows: as they were
    ],
)
def test_pool_gradients_of_the_fast_form_are_the_readable_forms_bit_for_bit(
    shape: tuple[int, ...],
    ksize: int,
    strides: int,
    padding: str,
    rewritten: bool,
    sized: bool,
) -> None:
    """The fast form's pool passes, where windows do not overlap: relu's gradient mask after
    a max-pool is taken on the pooled array (``masked-pool-gradients``), and each window's
    first-maximum tap is found right after the forward pool (``pool-first-taps``, with the
    height and width known), so the relu's output is not kept for the gradient. Bit for bit
    the readable form's values, with ties at 0 (relu), -0.0, inf and NaN in the incoming
    gradient."""
    rng = np.random.default_rng(21)
    with sg.Graph().as_default():
        sizes = shape[1:3] if sized else (None, None)
        x = sg.placeholder(sg.float32, [None, *sizes, shape[3]], name="x")
        pooled = sg.nn.max_pool(
            sg.nn.relu(x), [1, ksize, ksize, 1], [1, strides, strides, 1], padding
        )
        upstream = sg.placeholder(sg.float32, pooled.shape, name="upstream")
        (grad,) = sg.gradients(pooled, [x], grad_ys=upstream)
        fast = sg.compile([pooled, grad], optimize=True)  # the pooled value a statement
        readable = sg.compile([pooled, grad], optimize=False)
    body = fast.source.split("# Statements:")[1]
    assert ("* np.greater(relu_x, 0)" not in body) == rewritten
    gradients = body.split("# Gradients")[1]
    assert ("_max_pool_first_taps(relu_x" in body) == (rewritten and sized)
    assert ("relu_x" not in gradients) == (rewritten and sized)
    values = np.round(rng.standard_normal(shape), 1).astype(np.float32)  # ties
    values[0, 0, :2] = -0.0
    pooled_sizes = [
        -(-n // strides) if padding == "SAME" else (n - ksize) // strides + 1 for n in shape[1:3]
    ]
    dy = rng.standard_normal((shape[0], *pooled_sizes, shape[3])).astype(np.float32)
    dy.reshape(-1)[:4] = [np.inf, -np.inf, np.nan, -0.0]
    got, expected = fast(values, dy)[1], readable(values, dy)[1]
    np.testing.assert_array_equal(got, expected)
    assert (np.signbit(got) == np.signbit(expected)).all()


def test_a_bias_gradient_through_a_pool_sums_the_pooled_gradient() -> None:
    """The fast form's ``pooled-bias-sums`` pass: the gradient of the bias added before a
    relu and a 2x2 max-pool sums the pooled gradient (each of its values lands once in the
    full one, the rest are zeros), a quarter of the elements; the same sums in another
    order."""
    rng = np.random.default_rng(22)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 6, 6, 2], name="x")
        w = sg.constant(rng.standard_normal((3, 3, 2, 4)), name="w")
        b = sg.placeholder(sg.float64, [4], name="b")
        conv = sg.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        pooled = sg.nn.max_pool(sg.nn.relu(conv + b), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        loss = sg.reduce_sum(pooled * sg.constant(rng.standard_normal((1, 3, 3, 4))))
        (grad,) = sg.gradients(loss, [b])
        fast = sg.compile([loss, grad], inputs=[x, b], optimize=True)
        readable = sg.compile([loss, grad], inputs=[x, b], optimize=False)
    body = fast.source.split("# Statements:")[-1]
    assert "_max_pool_grad" not in body and "_taps" not in body, body  # nothing full-size
    values, bias = rng.standard_normal((5, 6, 6, 2)), rng.standard_normal(4)
    np.testing.assert_allclose(fast(values, bias)[1], readable(values, bias)[1], rtol=1e-13)


@pytest.mark.parametrize("relu", [False, True])
def test_a_convolution_and_its_bias_are_one_call_of_the_fast_form(relu: bool) -> None:
    """The fast form's ``conv-biases`` pass: ``conv2d(x, w) + b`` (b one value per output
    channel) is one ``_conv2d_bias`` call, bit for bit the readable form's values; a
    full-shape addend stays an addition, and so does a convolution read elsewhere too."""
    rng = np.random.default_rng(23)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 8, 8, 16], name="x")
        w = sg.placeholder(sg.float32, [3, 3, 16, 4], name="w")
        v = sg.placeholder(sg.float32, [3, 3, 16, 4], name="v")
        b = sg.placeholder(sg.float32, [4], name="b")
        other = sg.placeholder(sg.float32, [None, 8, 8, 4], name="other")
        biased = sg.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b
        shared = sg.nn.conv2d(x, v, [1, 1, 1, 1], "SAME")
        outputs = [sg.nn.relu(biased) if relu else biased, shared + other, shared + b]
        fast = sg.compile(outputs, inputs=[x, w, v, b, other], optimize=True)
        readable = sg.compile(outputs, inputs=[x, w, v, b, other], optimize=False)
    body = fast.source.split("# Statements:")[-1]
    assert body.count("_conv2d_bias(") == 1 and "_conv2d_bias(x, w, b, " in body, body
    shapes = [(3, 8, 8, 16), (3, 3, 16, 4), (3, 3, 16, 4), (4,), (3, 8, 8, 4)]
    feeds = [rng.standard_normal(shape).astype(np.float32) for shape in shapes]
    for got, expected in zip(fast(*feeds), readable(*feeds), strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("wrt", ["w_b", "x_w_b", "none", "relu_too"])
def test_a_first_layers_convolution_relu_and_pool_are_one_call_of_the_fast_form(wrt: str) -> None:
    """The fast form's ``pooled-convolutions`` pass: relu(conv2d(x, w) + b) read only by a
    max-pool whose windows do not overlap (and its taps) is one ``_conv2d_relu_max_pool``
    call, the pooled values bit for bit the readable form's; the filter's gradient through
    the pool is ``_conv2d_backprop_filter_at_taps``, from the rows the forward kept, equal
    within rounding. An input gradient needs the full gradient before the pool (the filter's
    is then left as it was); a relu output read elsewhere is computed as it was (the
    filter's gradient then makes its rows); a pool whose gradient nobody takes needs no
    taps (``_conv2d_relu_max_pool_values``)."""
    rng = np.random.default_rng(24)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 12, 12, 1], name="x")
        w = sg.placeholder(sg.float32, [5, 5, 1, 8], name="w")
        b = sg.placeholder(sg.float32, [8], name="b")
        relu = sg.nn.relu(sg.nn.conv2d(x, w, [1, 1, 1, 1], "SAME") + b)
        pooled = sg.nn.max_pool(relu, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
        loss = sg.reduce_sum(pooled * rng.standard_normal((6, 6, 8)).astype(np.float32))
        wanted = {"w_b": [w, b], "x_w_b": [x, w, b], "none": [], "relu_too": [w, b]}[wrt]
        outputs = [pooled, *sg.gradients(loss, wanted)] + ([relu] if wrt == "relu_too" else [])
        fast = sg.compile(outputs, inputs=[x, w, b], optimize=True)
        readable = sg.compile(outputs, inputs=[x, w, b], optimize=False)
    body = fast.source.split("# Statements:")[-1]
    fused = wrt in ("w_b", "x_w_b")
    assert ("_conv2d_relu_max_pool(" in body) == fused, body
    assert ("_conv2d_relu_max_pool_values(" in body) == (wrt == "none"), body
    from_taps = wrt in ("w_b", "relu_too")
    assert ("_conv2d_backprop_filter_at_taps(" in body) == from_taps, body
    if wrt == "w_b":  # the rows the forward made serve the filter's gradient
        assert "max_pool_rows = max_pool_and_taps[2]" in body, body
        assert '"SAME", (2, 2), "SAME", True\n' in body, body
    elif fused:
        assert '"SAME", (2, 2), "SAME", False\n' in body, body
    feeds = [
        np.round(rng.standard_normal((3, 12, 12, 1)), 1).astype(np.float32),  # ties
        rng.standard_normal((5, 5, 1, 8)).astype(np.float32),
        rng.standard_normal(8).astype(np.float32),
    ]
    got, expected = fast(*feeds), readable(*feeds)
    np.testing.assert_array_equal(got[0], expected[0])
    for value, reference in zip(got[1:], expected[1:], strict=True):
        np.testing.assert_allclose(value, reference, rtol=1e-5, atol=1e-5)


def test_the_biases_of_convolutions_nested_in_one_expression_are_each_one_call() -> None:
    """An inference CNN is one expression (each value read once): the second conv's input
    holds the first conv and its bias. Each bias joins its conv's call (the first layer's,
    pooled, one ``_conv2d_relu_max_pool_values`` call): a pass's rewrite of the outer sum
    used to keep the inner one as it was."""
    rng = np.random.default_rng(25)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 8, 8, 1], name="x")
        w1, b1 = (
            sg.constant(rng.standard_normal((3, 3, 1, 4)).astype(np.float32)),
            sg.constant(rng.standard_normal(4).astype(np.float32)),
        )
        w2, b2 = (
            sg.constant(rng.standard_normal((3, 3, 4, 8)).astype(np.float32)),
            sg.constant(rng.standard_normal(8).astype(np.float32)),
        )
        h = sg.nn.max_pool(sg.nn.relu(sg.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1), 2, 2, "SAME")
        y = sg.nn.relu(sg.nn.conv2d(h, w2, [1, 1, 1, 1], "SAME") + b2)
        fast = sg.compile(y, inputs=[x], optimize=True)
        readable = sg.compile(y, inputs=[x], optimize=False)
    body = fast.source.split("# Statements:")[-1]
    assert body.count("_conv2d_bias(") == 1 and "_conv2d(" not in body, body
    assert body.count("_conv2d_relu_max_pool_values(") == 1, body
    images = rng.standard_normal((3, 8, 8, 1)).astype(np.float32)
    np.testing.assert_array_equal(fast(images), readable(images))


@pytest.mark.parametrize("channels", [1, 16])  # im2col grouped by taps; kernel row by row
def test_an_inference_cnns_conv_relu_and_pool_are_one_call_each(channels: int) -> None:
    """A forward pass alone (no gradient: a prediction, an evaluation) nests each layer's
    ``max_pool(relu(conv2d(x, w) + b))`` in one expression; the fast form computes each as
    one ``_conv2d_relu_max_pool_values`` call (no taps, no relu output before the pool),
    the values bit for bit the readable form's, NaN and ties included. A relu that is also
    read elsewhere in the expression keeps its own computation (the conv is not made
    twice)."""
    rng = np.random.default_rng(26)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 12, 12, channels], name="images")
        w1 = sg.constant(np.round(rng.standard_normal((5, 5, channels, 8)), 1).astype(np.float32))
        w2 = sg.constant(np.round(rng.standard_normal((3, 3, 8, 16)), 1).astype(np.float32))
        b1, b2 = (sg.constant(rng.standard_normal(n).astype(np.float32)) for n in (8, 16))
        h1 = sg.nn.max_pool(
            sg.nn.relu(sg.nn.conv2d(x, w1, [1, 1, 1, 1], "SAME") + b1), 2, 2, "SAME"
        )
        relu2 = sg.nn.relu(sg.nn.conv2d(h1, w2, [1, 1, 1, 1], "SAME") + b2)
        h2 = sg.nn.max_pool(relu2, 2, 2, "VALID")
        logits = sg.reduce_sum(h2, axis=[1, 2])
        shared = logits + sg.reduce_mean(relu2, axis=[1, 2])  # relu2 read twice
        fast = sg.compile(logits, inputs=[x], optimize=True)
        readable = sg.compile(logits, inputs=[x], optimize=False)
        fast_shared = sg.compile(shared, inputs=[x], optimize=True)
        readable_shared = sg.compile(shared, inputs=[x], optimize=False)
    body = fast.source.split("# Statements:")[-1]
    assert body.count("_conv2d_relu_max_pool_values(") == 2, body
    assert "_max_pool(" not in body and "np.maximum(" not in body, body
    shared_body = fast_shared.source.split("# Statements:")[-1]
    assert shared_body.count("_conv2d_relu_max_pool_values(") == 1, shared_body
    assert shared_body.count("_conv2d_bias(") == 1, shared_body
    images = np.round(rng.standard_normal((5, 12, 12, channels)), 1).astype(np.float32)
    images[0, :3, :3] = np.nan
    np.testing.assert_array_equal(fast(images), readable(images))
    np.testing.assert_array_equal(fast_shared(images), readable_shared(images))
