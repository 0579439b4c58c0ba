"""Ops on values whose rank is known only at run time (``tf.placeholder(tf.float32)``).

TF1 builds these graphs: its kernels read axes, perms and keys against the rank that
arrives. Each case is built twice, once on a placeholder with the fed value's static shape
and once on a shape-less one, and the two must give the same values and the same gradient
of ``sum(out**2)`` in the fast, readable and portable forms. (The parity corpora in
``test_relaxed_shapes.py`` compare shape-less programs with TensorFlow's recorded numbers;
these cases cover the ops those programs do not.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import ShapeError, SymgradError

Build = Callable[[Any], Any]

VALUE = np.random.default_rng(7).standard_normal((2, 3, 4))
BIAS = np.array([1.0, -2.0, 0.5, 3.0])

# name -> the graph on placeholder p (float64, fed VALUE)
CASES: dict[str, Build] = {
    "reduce_sum_axis_1": lambda p: sg.reduce_sum(p * p, 1),
    "reduce_mean_axes_0_2_keepdims": lambda p: sg.reduce_mean(p, [0, 2], keepdims=True),
    "reduce_max_axes_from_end": lambda p: sg.reduce_max(p, [-2, -1]),
    "reduce_sum_numpy_axes": lambda p: sg.reduce_sum(p, np.array([0, 2])),
    "reduce_min_axis_0": lambda p: sg.reduce_min(p, 0),
    "reduce_prod_axis_2": lambda p: sg.reduce_prod(p, 2),
    "reduce_logsumexp_axis_1": lambda p: sg.reduce_logsumexp(p, 1),
    "argmax_times_value": lambda p: sg.cast(sg.argmax(p, 2), sg.float64) * p[:, :, 0],
    "argmin_from_end": lambda p: sg.cast(sg.argmin(p, -2), sg.float64) * p[:, 0],
    "one_hot_of_argmax": lambda p: sg.one_hot(sg.argmax(p, 2), 4, dtype=sg.float64) * p,
    "one_hot_axis_0": lambda p: (
        sg.one_hot(sg.argmax(p, 2), 4, axis=0, dtype=sg.float64) * p[:, :, 0]
    ),
    "shape_entry": lambda p: sg.cast(sg.shape(p)[2], sg.float64) * p,
    "rank": lambda p: sg.cast(sg.rank(p), sg.float64) * p,
    "transpose_reversed": lambda p: sg.transpose(p) * 2.0,
    "transpose_perm": lambda p: sg.transpose(p, [1, 0, 2]),
    "expand_dims_last": lambda p: sg.expand_dims(p, -1) * p[..., None, :1],
    "expand_dims_1": lambda p: sg.expand_dims(p, 1),
    "squeeze_all": lambda p: sg.squeeze(sg.expand_dims(p, 1)),
    "squeeze_named": lambda p: sg.squeeze(sg.expand_dims(p, -1), [-1]),
    "slice_index": lambda p: p[:, 1],
    "slice_ellipsis": lambda p: p[..., 1:3],
    "slice_ellipsis_middle": lambda p: p[..., 1, :],
    "slice_new_axis": lambda p: p[None, 0, ::2],
    "slice_trailing_colons": lambda p: p[1, :, :],
    "slice_op": lambda p: sg.slice(p, [0, 1, 0], [-1, 2, 3]),
    "stack_from_end": lambda p: sg.stack([p, 2.0 * p, p * p], -2),
    "stack_1": lambda p: sg.stack([p, p * p], 1),
    "unstack_from_end": lambda p: sg.unstack(p, num=3, axis=-2)[2],
    "split_sizes": lambda p: sg.split(p, [1, 3], -1)[1],
    "split_rest": lambda p: sg.split(p, [1, -1], 1)[1],
    "split_equal_from_end": lambda p: sg.split(p, 2, -1)[1] * 3.0,
    "split_equal_axis_0_both_parts": lambda p: sg.split(p, 2, 0)[0] * sg.split(p, 2, 0)[1],
    "boolean_mask_axis_1": lambda p: sg.boolean_mask(p, sg.constant([True, False, True]), axis=1),
    "boolean_mask_fed_axis_2": lambda p: sg.boolean_mask(
        p, sg.placeholder_with_default(np.array([True, False, False, True]), [4]), axis=2
    ),
    "concat_from_end": lambda p: sg.concat([p, 2.0 * p], -1),
    "concat_minus_2": lambda p: sg.concat([p * p, p, p], -2),
    "gather_axis_1": lambda p: sg.gather(p, [[1, 0], [1, 1]], axis=1),
    "reverse_from_end": lambda p: sg.reverse(p, [-1, -2]),
    "cumsum_from_end": lambda p: sg.cumsum(p, -1, exclusive=True, reverse=True),
    "cumprod_1": lambda p: sg.cumprod(p, 1, exclusive=True),
    "tile": lambda p: sg.tile(p, [1, 2, 1]),
    "pad_reflect": lambda p: sg.pad(p, [[0, 0], [1, 2], [0, 1]], "REFLECT"),
    "bias_add": lambda p: sg.nn.bias_add(p, sg.constant(BIAS)),
    "broadcast_to": lambda p: sg.broadcast_to(p[0], [5, 3, 4]),
    "softmax_axis_1": lambda p: sg.nn.softmax(p, axis=1) * p,
    "log_softmax_axis_0": lambda p: sg.nn.log_softmax(p, axis=0) * p,
    "top_k_values": lambda p: sg.nn.top_k(p, 2).values * p[..., :2],
    "sigmoid_xent_known_labels": lambda p: sg.nn.sigmoid_cross_entropy_with_logits(
        labels=sg.ones([2, 3, 4], sg.float64), logits=p
    ),
    "sigmoid_xent_labels_of_unknown_rank_too": lambda p: sg.nn.sigmoid_cross_entropy_with_logits(
        labels=sg.sigmoid(p), logits=p
    ),
}


def _run(build: Build, shape: Any, form: str) -> list[np.ndarray]:
    with sg.Graph().as_default():
        p = sg.placeholder(sg.float64, shape, name="p")
        out = build(p)
        outputs = [out]
        if out.dtype.is_floating:
            outputs += sg.gradients(sg.reduce_sum(out * out), [p])
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile(outputs, [p], backend="array_api")
            return [np.asarray(v) for v in compiled(xps.asarray(VALUE))]
        compiled = sg.compile(outputs, [p], optimize=form == "fast")
        return [np.asarray(v) for v in compiled(VALUE)]


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_shape_less_build_matches_the_static_one(name: str, form: str) -> None:
    build = CASES[name]
    expected = _run(build, VALUE.shape, "fast")
    actual = _run(build, None, form)
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_a_tf1_accuracy_and_one_hot_loss_on_shape_less_labels() -> None:
    """The usual TF1 program with labels declared without a shape: ``argmax(y_, 1)`` for
    accuracy, ``one_hot`` of int labels for the loss, ``shape(x)[0]`` for the batch size."""
    rng = np.random.default_rng(3)
    images, labels = rng.standard_normal((6, 5)), rng.integers(0, 3, 6)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, name="x")
        y = sg.placeholder(sg.int32, name="y")
        weights = sg.Variable(rng.standard_normal((5, 3)), name="weights")
        logits = sg.matmul(x, weights)
        targets = sg.one_hot(y, 3, dtype=sg.float64)
        batch = sg.cast(sg.shape(x)[0], sg.float64)
        loss = -sg.reduce_sum(targets * sg.nn.log_softmax(logits)) / batch
        correct = sg.equal(sg.argmax(logits, 1), sg.argmax(targets, 1))
        accuracy = sg.reduce_mean(sg.cast(correct, sg.float64))
        (grad,) = sg.gradients(loss, [weights])
        with sg.Session() as session:
            session.run(sg.global_variables_initializer())
            got = session.run([loss, accuracy, grad], {x: images, y: labels})
            w = session.run(weights)
    z = images @ w
    log_p = z - z.max(1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(1, keepdims=True))
    onehot = np.eye(3)[labels]
    np.testing.assert_allclose(got[0], -(onehot * log_p).sum() / 6, rtol=1e-12)
    assert got[1] == np.mean(z.argmax(1) == labels)
    np.testing.assert_allclose(got[2], images.T @ (np.exp(log_p) - onehot) / 6, rtol=1e-10)


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda p: sg.reduce_sum(p, [0, -1]), "mixes axes counted from the start and from the end"),
        (lambda p: sg.reduce_sum(p, [1, 1]), "repeats an axis"),
        (lambda p: sg.one_hot(sg.cast(p, sg.int32), 3, axis=-2), "axis -2 for indices"),
        (lambda p: sg.gather(p, [0], axis=-1), "axis counted from the start"),
        (lambda p: sg.unstack(p, axis=1), "pass num="),
        (lambda p: sg.boolean_mask(p, sg.constant([True]), axis=-1), "axis counted from the start"),
    ],
)
def test_what_a_rank_known_only_at_run_time_cannot_name_is_a_clear_error(
    build: Build, words: str
) -> None:
    with sg.Graph().as_default():
        p = sg.placeholder(sg.float64, name="p")
        with pytest.raises(ShapeError, match=words):
            build(p)


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize(
    ("build", "feed", "words"),
    [
        (lambda p: sg.transpose(p, [1, 0]), np.ones((2, 3, 4)), "Transpose|EnsureShape|shape"),
        (lambda p: sg.nn.bias_add(p, sg.constant(BIAS)), np.ones((2, 1)), "BiasAdd"),
        (lambda p: sg.nn.bias_add(p, sg.constant(BIAS)), np.float64(1.0), "BiasAdd"),
        (lambda p: sg.squeeze(p, [1]), np.ones((2, 3)), "Squeeze"),
        (lambda p: sg.reduce_sum(p, 2), np.ones((2, 3)), "Sum"),
        (lambda p: sg.argmax(p, 1), np.ones(3), "ArgMax"),
        (lambda p: sg.tile(p, [2, 2]), np.ones(3), "Tile|EnsureShape|shape"),
        (lambda p: sg.broadcast_to(p, [2, 3]), np.ones(4), "BroadcastTo"),
        (lambda p: sg.nn.top_k(p, 2).values, np.float64(1.0), "TopK.*rank 1 or more"),
        # NumPy reduces a 0-d value over axis 0 or -1, and takes its argmax; TF refuses it.
        (lambda p: sg.reduce_sum(p, 0), np.float64(2.0), "Sum.*no axis 0"),
        (lambda p: sg.reduce_max(p, [-2, -1]), np.ones(3), "Max.*no axis -2"),
        (lambda p: sg.argmax(p, 0), np.float64(2.0), "ArgMax.*no axis 0"),
        (lambda p: sg.nn.softmax(p), np.float64(2.0), "Softmax.*no axis -1"),
        (
            lambda p: sg.nn.softmax_cross_entropy_with_logits_v2(labels=p, logits=p),
            np.float64(2.0),
            "SoftmaxCrossEntropyWithLogits.*no axis -1",
        ),
        # NumPy would read axis 2 of a matrix as axis 0.
        (lambda p: sg.cumsum(p, 2), np.ones((2, 3)), "out of range"),
        (lambda p: sg.cumprod(p, -3), np.ones((2, 3)), "out of range"),
        # NumPy would hand back the parts that fit; TF's kernels check them.
        (lambda p: sg.split(p, [1, 2], -1)[0], np.ones((2, 5)), "SplitV.*3 entries"),
        (lambda p: sg.split(p, [4, -1], 0)[0], np.ones((3, 2)), "SplitV.*at least 4"),
        (lambda p: sg.unstack(p, num=3, axis=1)[0], np.ones((2, 2)), "Unpack.*3 entries"),
        (lambda p: sg.slice(p, [0, 1], [-1, 3]), np.ones((2, 3)), "Slice.*at least 4"),
        (lambda p: sg.split(p, 3, -1)[0], np.ones((2, 4)), "Split.*3 equal parts"),
        (lambda p: sg.split(p, 2, 2)[1], np.ones((2, 4)), "Split.*no axis 2"),
        (
            lambda p: sg.boolean_mask(p, sg.constant([True, False, True]), axis=1),
            np.ones((2, 2)),
            "BooleanMask.*boolean index",
        ),
        # TF's kernel refuses to concatenate scalars, whatever the axis.
        (lambda p: sg.concat([p, p], -1), np.float64(2.0), "ConcatV2|concatenat"),
        # A trailing full slice asks for an axis, which NumPy checks the value has.
        (lambda p: p[0, :], np.ones(3), "index|StridedSlice"),
    ],
)
def test_a_feed_of_the_wrong_rank_or_size_fails_naming_the_op(
    build: Build, feed: Any, words: str, form: str
) -> None:
    """Where TF's kernel refuses the fed value, so does the generated code (NumPy alone would
    broadcast a size-1 bias axis or a scalar silently)."""
    with sg.Graph().as_default():
        p = sg.placeholder(sg.float64, name="p")
        out = build(p)
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile(out, [p], backend="array_api")
            feed = xps.asarray(feed)
        else:
            compiled = sg.compile(out, [p], optimize=form == "fast")
    with pytest.raises(SymgradError, match=words):
        compiled(feed)


@pytest.mark.parametrize("shape", [[2, 3], [None, 3]])
def test_unstack_num_other_than_the_known_size_is_a_build_error(shape: list[Any]) -> None:
    with sg.Graph().as_default():
        p = sg.placeholder(sg.float64, shape, name="p")
        with pytest.raises(ShapeError, match="Unpack: num=2 for axis 1 of 'p:0'"):
            sg.unstack(p, num=2, axis=1)


def test_stack_takes_the_known_shape_and_checks_the_others_when_run() -> None:
    """TF merges the static shapes of the values it stacks: a shape-less one takes the shape of
    those that know theirs (each dim from whichever knows it), and np.stack checks the values."""
    with sg.Graph().as_default():
        a = sg.placeholder(sg.float64, [None, 3], name="a")
        b = sg.placeholder(sg.float64, [4, None], name="b")
        c = sg.placeholder(sg.float64, name="c")
        stacked = sg.stack([a, b, c], 1)
        assert stacked.shape == (4, 3, 3)
        compiled = sg.compile([stacked, *sg.gradients(sg.reduce_sum(stacked**2), [a, b, c])])
    value = np.arange(12.0).reshape(4, 3)
    out, *grads = compiled(value, value, value)
    np.testing.assert_array_equal(out, np.stack([value] * 3, 1))
    for grad in grads:
        np.testing.assert_array_equal(grad, 2 * value)
    with pytest.raises(SymgradError, match="stack"):
        compiled(value, value, np.ones((4, 2)))


@pytest.mark.parametrize("form", ["fast", "readable"])
def test_sigmoid_cross_entropy_of_two_shape_less_values_broadcasts_as_in_tf(form: str) -> None:
    """TF 2.21 builds it (only static shapes are compared) and broadcasts what arrives: labels
    (4,) against logits (4, 1) give a (4, 4) loss, scalar labels a (4, 1) one."""
    logits = np.array([[-2.0], [0.0], [0.5], [3.0]])
    with sg.Graph().as_default():
        y = sg.placeholder(sg.float64, name="y")
        z = sg.placeholder(sg.float64, name="z")
        loss = sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=z)
        d_z, d_y = sg.gradients(sg.reduce_sum(loss), [z, y])
        compiled = sg.compile([loss, d_z, d_y], [y, z], optimize=form == "fast")
    for labels, shape in [(np.array([1.0, 0.0, 0.5, 1.0]), (4, 4)), (np.float64(1.0), (4, 1))]:
        value, grad_z, grad_y = compiled(labels, logits)
        expected = np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))
        assert (
            value.shape == shape and grad_z.shape == (4, 1) and np.shape(grad_y) == np.shape(labels)
        )
        np.testing.assert_allclose(value, expected, rtol=1e-12)
        sigmoid = 1 / (1 + np.exp(-logits))
        expected_d_z = np.sum((sigmoid - labels) * np.ones(shape), axis=1, keepdims=True)
        np.testing.assert_allclose(grad_z, expected_d_z, rtol=1e-12)
        # d/dlabels of every entry is -logits; each label meets every logit row once.
        np.testing.assert_allclose(grad_y, np.full(np.shape(labels), -logits.sum()), rtol=1e-12)


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize("shape", [None, [None, None], [2, None]])
def test_equal_split_of_an_axis_of_unknown_size_and_its_second_derivative(
    shape: Any, form: str
) -> None:
    """TF1's tower pattern, tf.split(batch, n) of a [None, ...] batch: the parts' size is
    known when run. Values, gradient and a Hessian-vector product match the static build."""
    value = np.random.default_rng(5).standard_normal((2, 6))
    direction = np.random.default_rng(6).standard_normal((2, 6))

    def run(static_shape: Any, run_form: str) -> list[np.ndarray]:
        with sg.Graph().as_default():
            p = sg.placeholder(sg.float64, static_shape, name="p")
            first, second, third = sg.split(p, 3, axis=1)
            loss = sg.reduce_sum(first * second * third + sg.sin(first))
            (grad,) = sg.gradients(loss, p)
            (hvp,) = sg.gradients(sg.reduce_sum(grad * direction), p)
            outputs = [second, grad, hvp]
            if run_form == "portable":
                xps = pytest.importorskip("array_api_strict")
                compiled = sg.compile(outputs, [p], backend="array_api")
                return [np.asarray(v) for v in compiled(xps.asarray(value))]
            return compiled_values(sg.compile(outputs, [p], optimize=run_form == "fast"), value)

    for got, want in zip(run(shape, form), run([2, 6], "fast"), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def compiled_values(compiled: Any, value: np.ndarray) -> list[np.ndarray]:
    return [np.asarray(v) for v in compiled(value)]


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize("value_shape", [None, [None, None]])
@pytest.mark.parametrize("bias_shape", [None, [None], [3]])
def test_bias_add_checks_the_bias_against_the_last_axis_when_run(
    value_shape: Any, bias_shape: Any, form: str
) -> None:
    """TF's BiasAdd kernel refuses a bias that is not a vector the size of the value's last
    axis; NumPy would broadcast a last axis of size 1 (or a bias of size 1) silently."""
    with sg.Graph().as_default():
        value = sg.placeholder(sg.float64, value_shape, name="value")
        bias = sg.placeholder(sg.float64, bias_shape, name="bias")
        out = sg.nn.bias_add(value, bias)
        (grad,) = sg.gradients(sg.reduce_sum(out * out), bias)
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile([out, grad], [value, bias], backend="array_api")
            convert: Callable[[Any], Any] = xps.asarray
        else:
            compiled = sg.compile([out, grad], [value, bias], optimize=form == "fast")
            convert = np.asarray
    fed, b = np.arange(6.0).reshape(2, 3), np.array([1.0, -2.0, 0.5])
    got, d_b = (np.asarray(v) for v in compiled(convert(fed), convert(b)))
    np.testing.assert_allclose(got, fed + b)
    np.testing.assert_allclose(d_b, 2 * (fed + b).sum(axis=0))
    bad = [(np.ones((2, 1)), b)]
    if bias_shape != [3]:
        bad += [(fed, np.ones(1)), (fed, np.ones((1, 3)))]
    for bad_value, bad_bias in bad:
        with pytest.raises(SymgradError, match="BiasAdd|EnsureShape|shape"):
            compiled(convert(bad_value), convert(bad_bias))


@pytest.mark.parametrize("form", ["readable", "portable"])
@pytest.mark.parametrize("axis", [0, -1])
def test_concat_of_shape_less_values_differentiated_twice(axis: int, form: str) -> None:
    """The gradient of a part of a concatenation along an axis of unknown size is itself
    differentiable (the part's gradient placed among zeros), in every form alike."""
    a_value = np.random.default_rng(1).standard_normal((2, 3))
    b_value = np.random.default_rng(2).standard_normal((2, 3))

    def run(run_form: str) -> list[np.ndarray]:
        with sg.Graph().as_default():
            a = sg.placeholder(sg.float64, name="a")
            b = sg.placeholder(sg.float64, name="b")
            joined = sg.concat([a, b * b], axis)
            (d_b,) = sg.gradients(sg.reduce_sum(sg.sin(joined)), b)
            outputs = [d_b, *sg.gradients(sg.reduce_sum(d_b * d_b), [a, b])]
            if run_form == "portable":
                xps = pytest.importorskip("array_api_strict")
                compiled = sg.compile(outputs, [a, b], backend="array_api")
                return [np.asarray(v) for v in compiled(xps.asarray(a_value), xps.asarray(b_value))]
            compiled = sg.compile(outputs, [a, b], optimize=run_form == "fast")
            return [np.asarray(v) for v in compiled(a_value, b_value)]

    expected_d_b = np.cos(b_value * b_value) * 2 * b_value
    fast = run("fast")
    np.testing.assert_allclose(fast[0], expected_d_b, rtol=1e-12)
    np.testing.assert_array_equal(fast[1], np.zeros_like(a_value))  # a is another part
    for got, want in zip(run(form), fast, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
