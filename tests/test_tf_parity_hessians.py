"""``hessians`` against TensorFlow 1: the corpus in tf_parity/programs_hessians.py, recorded by
tf_parity/record_tf.py into tf_parity/tf_fixtures_hessians.json, compared exactly as in
tests/test_tf_parity.py; and the size of the generated code, which must not grow with x.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad.gradients import _jacobian_by_rows
from tests.test_tf_parity import FORMS, assert_matches_tensorflow
from tests.tf_parity.programs_hessians import PROGRAMS, least_squares_l2

FIXTURES = json.loads(
    (Path(__file__).parent / "tf_parity" / "tf_fixtures_hessians.json").read_text()
)["programs"]


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


@pytest.mark.parametrize("weights", [30, 300, 3000])
def test_generated_module_does_not_grow_with_the_weights(weights: int) -> None:
    with sg.Graph().as_default():
        built = least_squares_l2(sg, weights, rows=8)
        compiled = sg.compile(built["fetches"][1], name=f"hessian_{weights}")
    assert len(compiled.source.splitlines()) < 200
    assert "np.stack" not in compiled.source  # not one gradient per row


def test_vectorised_block_equals_one_gradient_per_row() -> None:
    """The forward-over-reverse Jacobian against TF's method, on every op it has a rule for."""
    rng = np.random.default_rng(3)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[4, 3], name="x")
        w = sg.Variable(rng.standard_normal((3, 2)), name="w")
        b = sg.Variable(rng.standard_normal(2), name="b")
        h = sg.tanh(sg.matmul(x, w) + b)
        z = sg.matmul(h, w, transpose_b=True) * sg.reduce_mean(w)
        loss = sg.reduce_sum(sg.sigmoid(z) ** 2) + sg.reduce_mean(sg.softplus(h), axis=None)
        grad = sg.gradients(loss, w)[0]
        vectorised = sg.hessians(loss, w)[0]
        rows = sg.reshape(_jacobian_by_rows(grad, w, 6, "rows", None), [3, 2, 3, 2])
        f = sg.compile([vectorised, rows], inputs=[x, w, b])
        alone = sg.compile(vectorised, inputs=[x, w, b])
    got, expected = f(
        rng.standard_normal((4, 3)), rng.standard_normal((3, 2)), rng.standard_normal(2)
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert "np.stack" not in alone.source  # every op here has a forward rule: no fallback


def test_ops_without_a_forward_rule_fall_back_to_rows() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[3], name="x")
        f = sg.compile(sg.hessians(sg.reduce_sum(sg.abs(x) * x * x[1]), x)[0])
    got = f(np.array([1.0, -2.0, 3.0]))
    np.testing.assert_allclose(
        got, _numeric_hessian(lambda v: np.sum(np.abs(v) * v) * v[1], [1.0, -2.0, 3.0]), atol=1e-5
    )


def _numeric_hessian(fn, point, step=1e-4):  # type: ignore[no-untyped-def]
    point = np.asarray(point, dtype=np.float64)
    n = point.size
    result = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            ei, ej = np.eye(n)[i] * step, np.eye(n)[j] * step
            result[i, j] = (
                fn(point + ei + ej)
                - fn(point + ei - ej)
                - fn(point - ei + ej)
                + fn(point - ei - ej)
            ) / (4 * step * step)
    return result
