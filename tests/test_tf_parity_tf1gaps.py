"""The TF1 names of issue 15's last round against TensorFlow 1: erf/erfc, top_k, the tf.losses
cross-entropies, streaming metrics with local variables, ExponentialMovingAverage and sharded
embedding_lookup. The corpus is tf_parity/programs_tf1gaps.py, recorded by
tf_parity/record_tf.py into tf_parity/tf_fixtures_tf1gaps.json and compared as in
tests/test_tf_parity.py; programs with ``"before"`` ops (metric updates, averaging steps) run
in a Session, the others in the fast and the readable form.

Profiles (``SYMGRAD_TF1GAPS_PROFILE``): ``ci`` (default) runs the corpus in the fast form;
``full`` also in the readable form::

    SYMGRAD_TF1GAPS_PROFILE=full python -m pytest tests/test_tf_parity_shapeless.py tests/test_tf_parity_tf1gaps.py
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import (
    _non_finite,
    assert_matches_tensorflow,
    compare_fetches,
    corpus_params,
    load_fixtures,
)
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity.programs_tf1gaps import PROGRAMS

PROFILE = os.environ.get("SYMGRAD_TF1GAPS_PROFILE", "ci")
# The readable form of the corpus runs in the full profile (the CI budget is nearly spent).
FORMS = pytest.mark.parametrize(
    "optimize",
    [
        True,
        pytest.param(False, marks=pytest.mark.skipif(PROFILE != "full", reason="profile full")),
    ],
    ids=["fast", "readable"],
)
FIXTURES = load_fixtures("tf_fixtures_tf1gaps.json")

# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad).
KNOWN_BUGS: dict[str, str] = {}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    expected = FIXTURES[program.__name__]["fetches"]
    with sg.Graph().as_default():
        stateful = "before" in program(sg)
    if not stateful:
        assert_matches_tensorflow(program, expected, optimize)
        return
    if not optimize:
        pytest.skip("a Session runs the fast form only")
    with warnings.catch_warnings():
        if not any(w is not None and _non_finite(w["value"]) for w in expected):
            warnings.simplefilter("error", RuntimeWarning)
        actual, built = _run_in_session(program)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))


def _ulps(actual: np.ndarray, reference: np.ndarray) -> np.ndarray:
    spacing = np.spacing(np.abs(reference).astype(actual.dtype))
    return np.abs(actual.astype(np.float64) - reference) / spacing


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_erf_and_erfc_are_within_one_ulp_of_the_c_library(dtype: type) -> None:
    """NumPy has no erf: the generated code's, over the whole range (tails, subnormal inputs,
    the region where erfc underflows), against Python's math.erf/erfc rounded to the dtype."""
    x = np.concatenate(
        [np.linspace(-7.0, 28.0, 20001), np.geomspace(1e-300, 1.0, 300), [-0.0, 0.0, np.inf]]
    ).astype(dtype)
    with sg.Graph().as_default():
        t = sg.placeholder(dtype, [None])
        erf, erfc = sg.compile([sg.erf(t), sg.erfc(t)])(x)
    for actual, reference in ((erf, math.erf), (erfc, math.erfc)):
        expected = np.array([reference(float(v)) for v in x]).astype(dtype)
        assert actual.dtype == dtype
        finite = expected != 0
        assert np.max(_ulps(actual[finite], expected[finite])) <= 1
        assert np.all(actual[~finite] == 0)


def test_ema_names_are_tensorflows() -> None:
    """TF 2.21's names: the shadow of 'layer/w' is 'layer/w/ExponentialMovingAverage', the update
    op is named after the object, and variables_to_restore maps shadow names to variables."""
    with sg.Graph().as_default():
        with sg.variable_scope("layer"):
            w = sg.get_variable("w", initializer=np.array([1.0, 2.0], np.float32))
        step = sg.Variable(0, trainable=False, name="global_step")
        ema = sg.train.ExponentialMovingAverage(0.99, name="avg")
        update = ema.apply([w])
        assert update.name == "avg"
        assert ema.average(w).op.name == ema.average_name(w) == "layer/w/avg"
        assert ema.average(step) is None
        assert ema.variables_to_restore() == {"layer/w/avg": w, "global_step": step}
        assert sg.moving_average_variables() == [w]
        assert ema.average(w) in sg.global_variables()
        assert ema.average(w) not in sg.trainable_variables()


def test_metric_variables_are_local_and_named_as_in_tensorflow() -> None:
    with sg.Graph().as_default():
        accuracy, _ = sg.metrics.accuracy(sg.constant([1]), sg.constant([1]))
        second, _ = sg.metrics.accuracy(sg.constant([1]), sg.constant([1]))
        names = [v.op.name for v in sg.local_variables()]
        assert names == ["accuracy/total", "accuracy/count", "accuracy_1/total", "accuracy_1/count"]
        assert sg.global_variables() == [] and sg.trainable_variables() == []
        assert sg.get_collection(sg.GraphKeys.LOCAL_VARIABLES) == sg.local_variables()
        assert accuracy.op.name == "accuracy/value" and second.op.name == "accuracy_1/value"
        with sg.Session() as sess, pytest.raises(sg.errors.FailedPreconditionError):
            sess.run(sg.global_variables_initializer())
            sess.run(accuracy)  # global_variables_initializer leaves local variables alone
