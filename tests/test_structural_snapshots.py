"""Golden copies of generated modules for the structural ops: one module that uses each of
them (forward, gradients, second order), and a small word-embedding model
(embedding_lookup -> reduce_mean -> dense -> softmax cross-entropy) that must stay
readable and fast.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import symgrad as sg
from symgrad.ops.linalg import qr_q

GOLDEN = Path(__file__).resolve().parent / "golden"
# The op types of symgrad/ops/padding.py, cumulative.py, diagonals.py and segments.py, of
# slicing.py's reverse and boolean_mask, nn_ops.py's lrn (DepthWindowSum) and control.py:
# build_structural_ops uses them all (tests/test_snapshots.py counts them as covered).
STRUCTURAL_OPS = frozenset(
    {
        "Pad",
        "MirrorPadGrad",
        "EnsureSegmentIds",
        "ReverseV2",
        "Cumsum",
        "Cumprod",
        "Diag",
        "DiagPart",
        "MatrixDiag",
        "MatrixDiagPart",
        "MatrixSetDiagZeros",
        "MatrixBandPart",
        "BooleanMask",
        "BooleanMaskGrad",
        "SegmentSum",
        "UnsortedSegmentSum",
        "UnsortedSegmentMax",
        "SegmentGather",
        "DepthWindowSum",
        "PlaceholderWithDefault",
        "CustomGradient",
        "Rank",
        "QrQ",
    }
)


def build_structural_ops():  # type: ignore[no-untyped-def]
    """One graph that uses every structural op, its gradient and (where it has one) its
    second derivative."""
    rng = np.random.default_rng(0)
    x = sg.placeholder(sg.float64, [None, 4], name="x")
    ids = sg.placeholder(sg.int32, [None], name="ids")
    w = sg.Variable(rng.standard_normal((4, 4)), name="weights")

    @sg.custom_gradient
    def scaled_gradient(t):  # type: ignore[no-untyped-def]
        return sg.identity(t), lambda dy: dy * 0.5

    h = scaled_gradient(sg.tanh(x @ w))
    padded = sg.pad(h, [[1, 1], [2, 1]], "REFLECT") + sg.pad(h, [[1, 1], [1, 2]])
    flipped = sg.reverse(padded, [1])[:, :4]
    running = sg.cumsum(flipped, axis=1, exclusive=True) + sg.cumprod(flipped, axis=1)
    squares = sg.diag_part(sg.diag(w)) + sg.linalg.diag_part(sg.linalg.diag(w))
    band = sg.linalg.band_part(w, 1, 0) + sg.reduce_sum(sg.linalg.diag_part(w[:3]))
    masked = sg.boolean_mask(running, running > 0.0)
    segments = (
        sg.unsorted_segment_sum(h, ids, 3)
        + sg.segment_sum(h[:3], [0, 1, 2])
        + sg.unsorted_segment_max(h, [0, 1, 2, 2, 0], 3)
    )
    normalized = sg.nn.lrn(sg.reshape(h, [1, 1, -1, 4]), depth_radius=1)
    fed = sg.placeholder_with_default(w, [4, 4])
    any_rank = sg.placeholder_with_default(w, None)  # a rank known only at run time
    loss = (
        sg.cast(sg.rank(any_rank), sg.float64)
        + sg.reduce_sum(sg.square(masked))
        + sg.reduce_sum(squares * band * fed)
        + sg.reduce_sum(segments**2)
        + sg.reduce_sum(normalized**2)
    )
    (grad,) = sg.gradients(loss, [w])
    (second,) = sg.gradients(sg.reduce_sum(grad * grad), [w])
    orthonormal = qr_q(w)  # no gradient: the orthogonal initializer's Q
    return [loss, grad, second, orthonormal], [x, ids, w]


def test_structural_ops_module_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        outputs, inputs = build_structural_ops()
        used = {op.type for op in graph.get_operations()}
        compiled = sg.compile(outputs, inputs=inputs, name="structural_ops", path=tmp_path / "s.py")
    assert used >= STRUCTURAL_OPS, sorted(STRUCTURAL_OPS - used)
    symgrad_snapshot(compiled, GOLDEN / "structural_ops.py")
    rng = np.random.default_rng(1)
    values = compiled(rng.standard_normal((5, 4)), np.array([0, 2, 2, -1, 0]), np.eye(4))
    assert all(np.all(np.isfinite(v)) for v in values)


# Structural ops added after structural_ops.py was first recorded: a module of their own, so
# that the older golden keeps its text. The later math ops (multiply_no_nan,
# reduce_euclidean_norm) are here too, so that the all-ops goldens keep theirs.
LATER_STRUCTURAL_OPS = frozenset(
    {
        "Roll",
        "SegmentMax",
        "SegmentMin",
        "UnsortedSegmentMin",
        "SegmentProd",
        "UnsortedSegmentProd",
        "MulNoNan",
        "EuclideanNorm",
    }
)


def build_later_structural_ops():  # type: ignore[no-untyped-def]
    """tf.roll, the sorted tf.math.segment_max/min/prod, unsorted_segment_min/prod,
    multiply_no_nan and reduce_euclidean_norm, their gradients and second derivatives."""
    x = sg.placeholder(sg.float32, [None, 3], name="x")
    ids = sg.placeholder(sg.int32, [None], name="ids")
    rolled = sg.roll(x, [1, -1], [0, 1])
    maxima = sg.math.segment_max(sg.tanh(rolled), ids)
    minima = sg.math.segment_min(sg.tanh(rolled), ids)
    products = sg.math.segment_prod(sg.cos(rolled), ids)
    # ids fed as [0, 0, 2, 2]: segments 1 and 3 are empty (float32's largest value, 1)
    unsorted = sg.math.unsorted_segment_min(rolled, ids, 4) + sg.math.unsorted_segment_prod(
        rolled, ids, 4
    )
    product = sg.math.multiply_no_nan(rolled, x)
    norms = sg.math.reduce_euclidean_norm(rolled + 1.0, 1)
    loss = (
        sg.reduce_sum(maxima * maxima)
        + sg.reduce_sum(sg.sin(rolled))
        + sg.reduce_sum(minima * products)
        + sg.reduce_sum(sg.sin(unsorted))
        + sg.reduce_sum(product)
        + sg.reduce_sum(norms)
    )
    (grad,) = sg.gradients(loss, [x])
    (second,) = sg.gradients(sg.reduce_sum(grad * grad), [x])
    return [loss, grad, second], [x, ids]


def test_later_structural_ops_module_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        outputs, inputs = build_later_structural_ops()
        used = {op.type for op in graph.get_operations()}
        compiled = sg.compile(outputs, inputs=inputs, name="roll_segment_max", path=tmp_path)
    assert used >= LATER_STRUCTURAL_OPS
    symgrad_snapshot(compiled, GOLDEN / "roll_segment_max.py")
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    loss, grad, _ = compiled(x, np.array([0, 0, 2, 2], np.int32))
    assert grad.shape == (4, 3) and np.isfinite(loss)


VOCABULARY, WIDTH, CLASSES = 5000, 128, 4


def build_embedding_model():  # type: ignore[no-untyped-def]
    """The bag-of-words classifier of the TF1 tutorials: mean of the word vectors, a dense
    layer, softmax cross-entropy; loss and the gradients of the three parameters."""
    rng = np.random.default_rng(0)
    words = sg.placeholder(sg.int32, [None, 20], name="words")
    labels = sg.placeholder(sg.int32, [None], name="labels")
    embeddings = sg.Variable(
        rng.uniform(-1, 1, (VOCABULARY, WIDTH)).astype(np.float32), name="embeddings"
    )
    weights = sg.Variable(rng.normal(0, 0.1, (WIDTH, CLASSES)).astype(np.float32), name="weights")
    bias = sg.Variable(np.zeros(CLASSES, np.float32), name="bias")
    averaged = sg.reduce_mean(sg.nn.embedding_lookup(embeddings, words), axis=1)
    logits = averaged @ weights + bias
    loss = sg.reduce_mean(
        sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )
    grads = sg.gradients(loss, [embeddings, weights, bias])
    return [loss, *grads], [words, labels, embeddings, weights, bias]


def test_embedding_model_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        outputs, inputs = build_embedding_model()
        compiled = sg.compile(
            outputs, inputs=inputs, name="embedding_model", path=tmp_path / "embedding_model.py"
        )
    symgrad_snapshot(compiled, GOLDEN / "embedding_model.py")
    rng = np.random.default_rng(2)
    words = rng.integers(0, VOCABULARY, (500, 20))  # 10,000 ids, many repeated
    labels = rng.integers(0, CLASSES, 500)
    table = rng.uniform(-1, 1, (VOCABULARY, WIDTH)).astype(np.float32)
    weights = rng.normal(0, 0.1, (WIDTH, CLASSES)).astype(np.float32)
    bias = np.zeros(CLASSES, np.float32)
    loss, d_table, d_weights, d_bias = compiled(words, labels, table, weights, bias)
    expected = _by_hand(words, labels, table, weights, bias)
    np.testing.assert_allclose(loss, expected[0], rtol=1e-5)
    np.testing.assert_allclose(d_table, expected[1], rtol=1e-4, atol=1e-8)
    np.testing.assert_allclose(d_weights, expected[2], rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(d_bias, expected[3], rtol=1e-4, atol=1e-7)
    # How fast, against the same NumPy by hand: benchmarks/embedding.py (not a test).


def _by_hand(words, labels, table, weights, bias):  # type: ignore[no-untyped-def]
    """The model's loss and gradients as written by hand in NumPy."""
    averaged = table[words].mean(axis=1)
    logits = averaged @ weights + bias
    shifted = logits - logits.max(1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    loss = -log_probs[np.arange(len(labels)), labels].mean()
    d_logits = np.exp(log_probs)
    d_logits[np.arange(len(labels)), labels] -= 1
    d_logits /= len(labels)
    d_table = np.zeros_like(table)
    d_rows = np.broadcast_to(
        (d_logits @ weights.T)[:, None, :] / words.shape[1], words.shape + (WIDTH,)
    )
    np.add.at(d_table, words, d_rows)
    return loss, d_table, averaged.T @ d_logits, d_logits.sum(0)
