"""The structural ops against NumPy and finite differences: values, gradients in a random
direction, second derivatives, ``[None]`` placeholders fed with several sizes, both forms;
then control_dependencies, custom_gradient and the errors users can hit.

TensorFlow's own values and gradients for these ops are in test_tf_parity_structops.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg

Build = Callable[[Any], Any]

X34 = np.random.default_rng(0).uniform(-2, 2, (3, 4))
POSITIVE = np.random.default_rng(1).uniform(0.5, 1.5, (3, 4))

# id, the op on a float64 tensor, its input, NumPy's value (None: checked by parity only)
CASES: list[tuple[str, Build, np.ndarray, Callable[[np.ndarray], np.ndarray] | None]] = [
    ("pad_constant", lambda x: sg.pad(x, [[1, 2], [0, 1]], constant_values=3.0), X34,
     lambda v: np.pad(v, [[1, 2], [0, 1]], constant_values=3.0)),
    ("pad_reflect", lambda x: sg.pad(x, [[2, 1], [3, 2]], "reflect"), X34,
     lambda v: np.pad(v, [[2, 1], [3, 2]], mode="reflect")),
    ("pad_symmetric", lambda x: sg.pad(x, [[3, 1], [4, 2]], "SYMMETRIC"), X34,
     lambda v: np.pad(v, [[3, 1], [4, 2]], mode="symmetric")),
    ("slice", lambda x: sg.slice(x, [1, 0], [-1, 3]), X34, lambda v: v[1:, 0:3]),
    ("strided_slice_masks",
     lambda x: sg.strided_slice(x, [0, 3], [0, 0], [1, -2], begin_mask=1, end_mask=3), X34,
     lambda v: v[:, 3::-2]),
    ("newaxis", lambda x: x[sg.newaxis, 1, :, sg.newaxis], X34, lambda v: v[None, 1, :, None]),
    ("reverse", lambda x: sg.reverse(x, [0, -1]), X34, lambda v: v[::-1, ::-1]),
    ("cumsum_exclusive_reverse", lambda x: sg.cumsum(x, 1, exclusive=True, reverse=True), X34,
     lambda v: np.cumsum(v[:, ::-1], 1)[:, ::-1] - v),
    ("cumprod", lambda x: sg.cumprod(x, 1), POSITIVE, lambda v: np.cumprod(v, 1)),
    ("cumprod_exclusive", lambda x: sg.cumprod(x, 0, exclusive=True), POSITIVE,
     lambda v: np.cumprod(v, 0) / v),
    ("diag", lambda x: sg.diag(x), X34,
     lambda v: np.diag(v.ravel()).reshape(3, 4, 3, 4)),
    ("diag_part", lambda x: sg.diag_part(sg.reshape(sg.tile(x, [4, 3]), [3, 4, 3, 4])), X34,
     lambda v: np.diag(np.tile(v, [4, 3]).reshape(12, 12)).reshape(3, 4)),
    ("linalg_diag", lambda x: sg.linalg.diag(x), X34,
     lambda v: np.stack([np.diag(r) for r in v])),
    ("linalg_diag_part_wide", lambda x: sg.linalg.diag_part(x), X34, np.diagonal),
    ("band_part", lambda x: sg.linalg.band_part(x, 1, 0), X34,
     lambda v: np.tril(np.triu(v, -1))),
    ("boolean_mask_computed", lambda x: sg.boolean_mask(x, x > 0.5), X34, lambda v: v[v > 0.5]),
    ("boolean_mask_axis",
     lambda x: sg.boolean_mask(x, sg.constant([True, False, True, True]), axis=1), X34,
     lambda v: v[:, [0, 2, 3]]),
    ("unsorted_segment_sum", lambda x: sg.unsorted_segment_sum(x, [2, -1, 2], 4), X34,
     lambda v: np.stack([0 * v[0], 0 * v[0], v[0] + v[2], 0 * v[0]])),
    ("segment_sum", lambda x: sg.segment_sum(x, [0, 0, 2]), X34,
     lambda v: np.stack([v[0] + v[1], 0 * v[0], v[2]])),
    ("unsorted_segment_max", lambda x: sg.unsorted_segment_max(x, [1, 0, 1], 2), X34,
     lambda v: np.stack([v[1], np.maximum(v[0], v[2])])),
    ("segment_mean", lambda x: sg.segment_mean(x, [0, 0, 2]), X34,
     lambda v: np.stack([(v[0] + v[1]) / 2, 0 * v[0], v[2]])),
    ("segment_min", lambda x: sg.segment_min(x, [0, 0, 2]), X34,
     lambda v: np.stack([np.minimum(v[0], v[1]), 0 * v[0], v[2]])),
    ("unsorted_segment_min", lambda x: sg.unsorted_segment_min(x, [1, 0, -1], 2), X34,
     lambda v: np.stack([v[1], v[0]])),
    ("segment_prod", lambda x: sg.segment_prod(x, [0, 0, 2]), X34,
     lambda v: np.stack([v[0] * v[1], 0 * v[0] + 1, v[2]])),
    ("unsorted_segment_prod", lambda x: sg.unsorted_segment_prod(x, [1, -1, 1], 3), X34,
     lambda v: np.stack([0 * v[0] + 1, v[0] * v[2], 0 * v[0] + 1])),
    ("unsorted_segment_mean", lambda x: sg.unsorted_segment_mean(x, [2, -1, 2], 3), X34,
     lambda v: np.stack([0 * v[0], 0 * v[0], (v[0] + v[2]) / 2])),
    ("embedding_lookup", lambda x: sg.nn.embedding_lookup(x, [[0, 2, 0], [1, 1, 1]]), X34,
     lambda v: v[[[0, 2, 0], [1, 1, 1]]]),
    ("embedding_lookup_max_norm", lambda x: sg.nn.embedding_lookup([x], [0, 2], max_norm=1.0),
     X34, lambda v: v[[0, 2]] / np.maximum(np.linalg.norm(v[[0, 2]], axis=1, keepdims=True), 1)),
    ("lrn", lambda x: sg.nn.lrn(sg.reshape(x, [1, 1, 3, 4]), 1, 1.0, 0.5, 0.75), X34, None),
    ("linspace", lambda x: sg.linspace(x[0, 0], x[1, 1], 5), X34,
     lambda v: np.linspace(v[0, 0], v[1, 1], 5)),
]  # fmt: skip


def _loss(y: Any) -> Any:
    return sg.reduce_sum(y * y * 0.5 + sg.sin(y))


def _compiled(build: Build, value: np.ndarray, optimize: bool = True) -> Any:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, value.shape, name="x")
        y = build(x)
        (grad,) = sg.gradients(_loss(y), x)
        (second,) = sg.gradients(sg.reduce_sum(grad * grad), x)
        return sg.compile([y, _loss(y), grad, second], inputs=[x], optimize=optimize)


def _directional(f: Callable[[np.ndarray], Any], value: np.ndarray, direction: np.ndarray) -> Any:
    h = 1e-6
    return (np.asarray(f(value + h * direction)) - np.asarray(f(value - h * direction))) / (2 * h)


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
@pytest.mark.parametrize(
    ("case_id", "build", "value", "reference"), CASES, ids=[c[0] for c in CASES]
)
def test_values_gradients_and_second_derivatives(
    case_id: str, build: Build, value: np.ndarray, reference: Any, optimize: bool
) -> None:
    compiled = _compiled(build, value, optimize)
    y, loss, grad, second = compiled(value)
    if reference is not None:
        np.testing.assert_allclose(y, reference(value), rtol=1e-12, atol=1e-12)
    direction = np.random.default_rng(7).standard_normal(value.shape)
    # d loss in a random direction, and d (sum grad**2) in it
    np.testing.assert_allclose(
        np.vdot(grad, direction), _directional(lambda v: compiled(v)[1], value, direction),
        rtol=1e-6, atol=1e-7,
    )  # fmt: skip
    np.testing.assert_allclose(
        np.vdot(second, direction),
        _directional(lambda v: np.sum(compiled(v)[2] ** 2), value, direction),
        rtol=1e-5, atol=1e-6,
    )  # fmt: skip


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
@pytest.mark.parametrize(
    "build",
    [
        lambda x: sg.pad(x, [[1, 2], [2, 0]], "REFLECT"),
        lambda x: sg.pad(x, [[1, 0], [0, 1]]),
        lambda x: sg.slice(x, [1, 1], [-1, 2]),
        lambda x: sg.cumsum(x, 0, reverse=True),
        lambda x: sg.boolean_mask(x, x > 0.0),
        lambda x: sg.reverse(x, [0]),
        lambda x: sg.linalg.band_part(sg.reshape(x, [-1, 2, 2]), 0, -1),
        lambda x: sg.linalg.diag_part(sg.reshape(x, [-1, 2, 2])),
        lambda x: sg.unsorted_segment_sum(x, sg.placeholder(sg.int32, [None], name="ids"), 3),
    ],
    ids=["pad_reflect", "pad", "slice", "cumsum", "boolean_mask", "reverse", "band", "diag_part",
         "segments"],
)  # fmt: skip
def test_none_batch(build: Build, optimize: bool) -> None:
    """A ``[None, 4]`` placeholder: one compiled module serves every batch size."""
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float64, [None, 4], name="x")
        y = build(x)
        (grad,) = sg.gradients(_loss(y), x)
        ids = [t for t in graph.get_operations() if t.name == "ids"]
        inputs = [x] + [op.outputs[0] for op in ids]
        compiled = sg.compile([_loss(y), grad], inputs=inputs, optimize=optimize)
    rng = np.random.default_rng(3)
    for rows in (3, 5):
        value = rng.standard_normal((rows, 4))
        extra = [rng.integers(-1, 3, rows)] if ids else []
        loss, g = compiled(value, *extra)
        direction = rng.standard_normal(value.shape)
        numeric = _directional(lambda v: compiled(v, *extra)[0], value, direction)
        np.testing.assert_allclose(np.vdot(g, direction), numeric, rtol=1e-6, atol=1e-7)


def test_embedding_gradient_adds_repeated_ids() -> None:
    with sg.Graph().as_default():
        table = sg.constant(np.zeros((4, 2)))
        ids = sg.placeholder(sg.int64, [None])
        (grad,) = sg.gradients(sg.reduce_sum(sg.nn.embedding_lookup(table, ids)), table)
        f = sg.compile(grad, inputs=[ids])
    np.testing.assert_array_equal(f([3, 3, 0, 3]), [[1, 1], [0, 0], [0, 0], [3, 3]])


def test_control_dependencies_run_the_update_ops_with_the_train_op() -> None:
    """The batch-norm idiom: ``with control_dependencies(update_ops): train_op = ...``."""
    with sg.Graph().as_default():
        w = sg.Variable(np.array([1.0, 2.0]), name="w")
        steps = sg.Variable(0.0, dtype=sg.float64, name="steps")
        update = sg.assign_add(steps, 1.0)
        loss = sg.reduce_sum(w * w)
        with sg.control_dependencies([update]):
            train = sg.train.GradientDescentOptimizer(0.25).minimize(loss)
            gated = sg.identity(w)
        with sg.control_dependencies(None):
            free = sg.identity(w)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.25, 0.5])
            assert sess.run(steps) == 2.0
            sess.run(gated)
            assert sess.run(steps) == 3.0
            sess.run(free)
            assert sess.run(steps) == 3.0


def test_slots_created_under_control_dependencies_initialize_alone() -> None:
    """Adam's slots are created inside the block: initializing them must not run the update
    (TF1 builds a variable's initial value in an init scope, outside the block)."""
    with sg.Graph().as_default():
        w = sg.Variable(np.array([1.0, 2.0]), name="w")
        steps = sg.Variable(0.0, dtype=sg.float64, name="steps")
        update = sg.assign_add(steps, 1.0)
        with sg.control_dependencies([update]):
            train = sg.train.AdamOptimizer(0.1).minimize(sg.reduce_sum(w * w))
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            assert sess.run(steps) == 0.0
            sess.run(train)
            assert sess.run(steps) == 1.0


def test_custom_gradient_replaces_the_derived_one() -> None:
    @sg.custom_gradient
    def straight_through_round(x):  # type: ignore[no-untyped-def]
        return sg.round(x), lambda dy: dy

    with sg.Graph().as_default():
        x = sg.constant([0.4, 1.6])
        y = straight_through_round(x) * 3.0
        (grad,) = sg.gradients(y, x)
        value, g = sg.compile([y, grad])()
    np.testing.assert_array_equal(value, [0.0, 6.0])
    np.testing.assert_array_equal(g, [3.0, 3.0])


def test_plumbing() -> None:
    with sg.Graph().as_default(), sg.device("/gpu:0"):
        a, none, b = sg.tuple([sg.constant(1.0), None, sg.constant(2.0)])
        assert none is None
        assert sg.no_op().type == "NoOp"
        assert sg.print("x").type == "NoOp"
        p = sg.Print(a, [a], "a = ")
        assert [float(v) for v in sg.compile([p, b])()] == [1.0, 2.0]


@pytest.mark.parametrize(
    ("build", "error", "text"),
    [
        (lambda x: sg.pad(x, [[1, 1]]), sg.ShapeError, "must be 2 pairs"),
        (lambda x: sg.pad(x, [[3, 0], [0, 0]], "REFLECT"), sg.InvalidArgumentError, "too large"),
        (lambda x: sg.pad(x, [[0, 0], [0, 0]], "WRAP"), sg.InvalidArgumentError, "CONSTANT"),
        (lambda x: sg.slice(x, [0, 3], [1, 2]), sg.InvalidArgumentError, "out of range"),
        (lambda x: sg.boolean_mask(x, [True, False]), sg.ShapeError, "does not match"),
        (lambda x: sg.segment_sum(x, [1, 0, 0]), sg.InvalidArgumentError, "sorted"),
        (lambda x: sg.unsorted_segment_sum(x, [0.5], 2), sg.DTypeError, "int32 or int64"),
        (lambda x: sg.nn.embedding_lookup([x, x], [0], partition_strategy="rows"),
         sg.InvalidArgumentError, "partition_strategy"),
        (lambda x: sg.nn.lrn(x), sg.ShapeError, "rank 4"),
        (lambda x: sg.linalg.band_part(x, sg.placeholder(sg.int32, []), 0),
         sg.InvalidArgumentError, "run time"),
    ],
)  # fmt: skip
def test_errors_name_the_op_and_tensor(build: Build, error: type, text: str) -> None:
    with sg.Graph().as_default():
        x = sg.constant(X34, name="table")
        with pytest.raises(error, match=text) as raised:
            build(x)
    assert "symgrad: " in str(raised.value)
    assert isinstance(raised.value, (ValueError, TypeError))
