"""TF1's remaining ``tf.losses`` and ``tf.norm`` against TensorFlow 1. The corpus is
tf_parity/programs_losses.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_losses.json and compared as in tests/test_tf_parity.py, in the fast and
the readable form; below it, the errors TF1 raises when the graph is built.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import assert_matches_tensorflow, corpus_params, load_fixtures
from tests.test_tf_parity_structops import _run_portable
from tests.tf_parity.programs_losses import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_losses.json")

# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad).
KNOWN_BUGS: dict[str, str] = {}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


LOSSES_OF_PREDICTIONS = [
    sg.losses.absolute_difference,
    sg.losses.huber_loss,
    sg.losses.log_loss,
    sg.losses.mean_squared_error,
    sg.losses.hinge_loss,
    sg.losses.sigmoid_cross_entropy,
    sg.losses.mean_pairwise_squared_error,
]


@pytest.mark.parametrize("loss", LOSSES_OF_PREDICTIONS, ids=lambda f: f.__name__)
def test_labels_and_predictions_of_different_shapes_are_refused(loss) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        labels = sg.placeholder(sg.float32, [None, 3], name="labels")
        predictions = sg.placeholder(sg.float32, [None, 1], name="predictions")
        with pytest.raises(sg.errors.ShapeError) as caught:
            loss(labels, predictions)
    assert isinstance(caught.value, ValueError)
    assert "'labels" in str(caught.value) and "(None, 1)" in str(caught.value)


@pytest.mark.parametrize("weights_shape", [[3], [2, 3, 1], [1, 2]])
def test_weights_that_do_not_broadcast_as_in_tf1_are_refused(weights_shape: list[int]) -> None:
    # NumPy would broadcast a [3] vector against [4, 3] losses; TF1 refuses any rank but 0 or
    # the losses' own.
    with sg.Graph().as_default():
        labels = sg.placeholder(sg.float32, [4, 3])
        weights = sg.ones(weights_shape, name="weights")
        with pytest.raises(sg.errors.ShapeError, match=r"weights 'weights.*\(4, 3\)"):
            sg.losses.absolute_difference(labels, labels, weights=weights)


def test_losses_go_to_the_losses_collection() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None])
        losses = [
            sg.losses.mean_squared_error(x, x),
            sg.losses.huber_loss(x, x, loss_collection=None),
            sg.losses.mean_pairwise_squared_error(sg.reshape(x, [1, -1]), sg.reshape(x, [1, -1])),
        ]
        assert sg.losses.get_losses() == [losses[0], losses[2]]


def test_cosine_distance_needs_an_axis() -> None:
    with sg.Graph().as_default(), pytest.raises(sg.errors.InvalidArgumentError, match="axis"):
        sg.losses.cosine_distance([[1.0]], [[1.0]])


def test_mean_pairwise_squared_error_needs_a_rank() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, name="x")
        with pytest.raises(sg.errors.ShapeError, match="'x"):
            sg.losses.mean_pairwise_squared_error(x, x)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ord": 2, "axis": [0, 1]}, "singular values"),
        ({"ord": "fro", "axis": 0}, "not a vector norm"),
        ({"ord": -1}, "not a vector norm"),
        ({"ord": 0}, "not a vector norm"),
        ({"ord": 3, "axis": [0, 1]}, "not a matrix norm"),
        ({"axis": [0, 0]}, "the same"),
        ({"axis": [0, 1, 2]}, "must be None"),
        ({"keepdims": True, "keep_dims": True}, "not both"),
    ],
)
def test_norm_refuses_what_tf1_refuses(kwargs: dict, message: str) -> None:
    with sg.Graph().as_default(), pytest.raises(sg.errors.InvalidArgumentError, match=message):
        sg.norm(sg.ones([2, 2, 2]), **kwargs)


@pytest.mark.parametrize("shape", [None, [None, None]], ids=["shape-less", "unknown-sizes"])
def test_norm_of_values_whose_shape_is_known_when_run(shape: list | None) -> None:
    value = np.array([[3.0, -4.0], [1.0, 2.0]])
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape, name="x")
        fetches = [sg.norm(x), sg.norm(x, ord=1, axis=1), sg.norm(x, ord=np.inf, axis=[0, 1])]
        fetches.append(sg.gradients(sg.reduce_sum(fetches[1]) + fetches[0], x)[0])
        total, rows, matrix, grad = sg.compile(fetches)(value)
    assert np.isclose(total, np.sqrt(30.0))
    np.testing.assert_allclose(rows, [7.0, 3.0])
    assert matrix == 7.0
    np.testing.assert_allclose(grad, np.sign(value) + value / np.sqrt(30.0))


def test_a_scalar_norms_gradient_in_the_portable_form_keeps_float32() -> None:
    """The gradient's seed, reshaped to the norm's kept axes, is an array of the tensor's dtype
    (it was NumPy's int64, which the array API refuses to reshape)."""
    xps = pytest.importorskip("array_api_strict")
    value = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -6.0]], np.float32)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        (grad,) = sg.gradients(sg.norm(x, ord=1, axis=(0, 1)), x)
        compiled = sg.compile(grad, [x], backend="array_api")
    got = compiled(xps.asarray(value))
    assert got.dtype == xps.float32
    np.testing.assert_array_equal(np.asarray(got), [[0, 0, 1], [0, 0, -1]])  # column 2 is largest


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
def test_weights_known_only_when_run_are_checked_as_tf1_checks_them(form: str) -> None:
    """TF 2.21 refuses weights [3], [1] and [1, 1, 3] against [4, 3] losses when run
    (``assert_broadcastable``); NumPy would broadcast all three."""
    rng = np.random.default_rng(4)
    labels, predictions = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    with sg.Graph().as_default():
        y = sg.placeholder(sg.float32, [None, 3], name="y")
        p = sg.placeholder(sg.float32, [None, 3], name="p")
        w = sg.placeholder(sg.float32, name="w")
        loss = sg.losses.mean_squared_error(y, p, weights=w)
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile(loss, [y, p, w], backend="array_api")

            def run(weights: np.ndarray) -> float:
                arrays = (labels, predictions, weights)
                return float(compiled(*(xps.asarray(np.float32(a)) for a in arrays)))
        else:
            compiled = sg.compile(loss, [y, p, w], optimize=form == "fast")

            def run(weights: np.ndarray) -> float:
                return float(compiled(labels, predictions, np.float32(weights)))

    squared = (predictions - labels) ** 2
    for weights in [
        np.array(2.0),
        np.full((4, 1), 2.0),
        np.full((1, 3), 2.0),
        np.full((4, 3), 2.0),
    ]:
        np.testing.assert_allclose(run(weights), 2.0 * squared.mean(), rtol=1e-5)
    for weights in [np.ones(3), np.ones(1), np.ones((1, 1, 3))]:
        with pytest.raises(sg.errors.SymgradError, match="can not be broadcast") as caught:
            run(weights)
        assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
def test_column_labels_and_weights_of_unknown_rank_are_squeezed_when_run(form: str) -> None:
    """TF1 drops the last axis of [batch, 1] labels and weights by the ranks fed when the
    placeholders have no shape; the value is TF 2.21's (the recorded program
    sparse_softmax_cross_entropy_squeezes_column_labels_and_weights, shape-less here)."""
    with sg.Graph().as_default():
        logits = sg.placeholder(sg.float32, name="logits")
        labels = sg.placeholder(sg.int64, name="labels")
        weights = sg.placeholder(sg.float32, name="weights")
        loss = sg.losses.sparse_softmax_cross_entropy(labels, logits, weights=weights)
        feeds = [
            np.array([[1], [2], [0]]),
            np.array([[2.0, -1.0, 0.0], [3.0, 3.0, 3.0], [-5.0, -1.0, 4.0]], np.float32),
            np.array([[1.0], [0.0], [2.0]], np.float32),
        ]
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile(loss, [labels, logits, weights], backend="array_api")
            feeds = [xps.asarray(f) for f in feeds]
        else:
            compiled = sg.compile(loss, [labels, logits, weights], optimize=form == "fast")
        value = float(np.asarray(compiled(*feeds)))
        flat = float(np.asarray(compiled(feeds[0][:, 0], feeds[1], feeds[2][:, 0])))
    assert value == pytest.approx(10.591761, rel=1e-6) and flat == pytest.approx(value)


# The portable form of log_poisson_loss, on array_api_strict.
PORTABLE = [p for p in PROGRAMS if p.__name__.startswith("log_poisson_loss_")]


@pytest.mark.parametrize("program", PORTABLE, ids=[p.__name__ for p in PORTABLE])
def test_portable_form_matches_tensorflow_on_array_api_strict(program) -> None:  # type: ignore[no-untyped-def]
    assert len(PORTABLE) == 2
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], runner=_run_portable)


def test_sequence_loss_refuses_what_tf1_refuses() -> None:
    with sg.Graph().as_default():
        logits = sg.placeholder(sg.float32, [2, 3, 4])
        targets = sg.zeros([2, 3], sg.int32)
        weights = sg.ones([2, 3])
        with pytest.raises(sg.errors.ShapeError, match="logits must be a"):
            sg.contrib.seq2seq.sequence_loss(logits[0], targets, weights)
        with pytest.raises(sg.errors.ShapeError, match="weights must be a"):
            sg.contrib.seq2seq.sequence_loss(logits, targets, weights[0])
        with pytest.raises(ValueError, match="sum_over_timesteps cannot"):
            sg.contrib.seq2seq.sequence_loss(logits, targets, weights, sum_over_timesteps=True)
        with pytest.raises(ValueError, match="sum_over_batch cannot"):
            sg.contrib.seq2seq.sequence_loss(logits, targets, weights, sum_over_batch=True)
        with pytest.raises(ValueError, match="must be the same 3, 3, 2"):
            sg.contrib.legacy_seq2seq.sequence_loss_by_example(
                [logits[:, i] for i in range(3)], [targets[:, 0]] * 2, [weights[:, 0]] * 3
            )


def test_legacy_sequence_loss_of_all_zero_weights_is_zero() -> None:
    # 0 / (0 + 1e-12), as in TF1; its gradient is finite.
    with sg.Graph().as_default():
        logits = [sg.constant(np.full((2, 3), 5.0, np.float32))] * 2
        loss = sg.contrib.legacy_seq2seq.sequence_loss(
            logits, [sg.zeros([2], sg.int32)] * 2, [sg.zeros([2])] * 2
        )
        value, grad = sg.compile([loss, sg.gradients(loss, logits[0])[0]])()
    assert value == 0.0 and np.all(np.isfinite(grad))
