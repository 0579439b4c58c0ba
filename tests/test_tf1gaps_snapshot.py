"""Golden copy of a generated module that uses each op of issue 15's last round: matmul, the
sparse cross-entropy and where of shape-less placeholders (EnsureShape, OneHotLike,
SelectCondition), erf/erfc and top_k (forward, gradients, second order).
tests/test_snapshots.py counts these ops as covered.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import symgrad as sg

GOLDEN = Path(__file__).resolve().parent / "golden"
TF1GAPS_OPS = frozenset(
    {
        "EnsureShape",
        "OneHotLike",
        "SelectCondition",
        "Erf",
        "Erfc",
        "TopKIndices",
        "TopKValues",
        "TopKScatter",
        "FillSizes",
        "SqueezeLastByRank",
    }
)


def build_tf1gaps_ops():  # type: ignore[no-untyped-def]
    x = sg.placeholder(sg.float64, name="x")  # no shape, as TF1 programs write it
    labels = sg.placeholder(sg.int64, name="labels")
    keep = sg.placeholder(sg.bool, name="keep")
    w = sg.Variable(np.linspace(-1.0, 1.0, 12).reshape(4, 3), name="w")
    v = sg.Variable(np.linspace(0.5, -0.5, 6).reshape(3, 2), name="v")
    hidden = sg.matmul(x, w)  # rank unknown until run time
    known = sg.erf(sg.ones([5, 3], dtype=sg.float64) * w[0]) + sg.erfc(w[1])
    chosen = sg.where(keep, known, known * 0.5)  # SelectCondition keeps (5, 3)
    top = sg.nn.top_k(chosen, k=2).values
    fixed = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=chosen)
    free = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=hidden @ v)
    free += sg.zeros([sg.shape(labels)[0]], sg.float64)  # FillSizes: a size known when run
    static = sg.reduce_sum(fixed) + sg.reduce_sum(top**2)
    # SqueezeLastByRank: TF1's losses drop a [batch, 1] label's last axis by the fed rank.
    loss = static + sg.reduce_sum(free) + sg.losses.sparse_softmax_cross_entropy(labels, chosen)
    (grad,) = sg.gradients(loss, w)
    # Second order of the ops of static rank (a reduction over the class axis of logits of
    # unknown rank, as the cross-entropy's second derivative needs, wants a known rank).
    (first,) = sg.gradients(static, w)
    (second,) = sg.gradients(sg.reduce_sum(first * w), w)
    return [loss, grad, second], [x, labels, keep, w, v]


def test_tf1gaps_ops_module_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        outputs, inputs = build_tf1gaps_ops()
        used = {op.type for op in graph.get_operations()}
        compiled = sg.compile(outputs, inputs=inputs, name="tf1gaps_ops", path=tmp_path / "t.py")
    assert used >= TF1GAPS_OPS, sorted(TF1GAPS_OPS - used)
    symgrad_snapshot(compiled, GOLDEN / "tf1gaps_ops.py")
    rng = np.random.default_rng(1)
    # labels within both cross-entropies' classes (3 and 2): a label outside is an error
    values = compiled(rng.standard_normal((5, 4)), np.array([0, 1, 1, 1, 0]), False)
    assert all(np.all(np.isfinite(v)) for v in values)
