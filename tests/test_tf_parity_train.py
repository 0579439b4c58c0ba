"""symgrad against TensorFlow 1 on optimizers, learning-rate schedules and variable scopes:
tf_parity/programs_train.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_train.json.

Programs with ``"before"`` ops (training steps) run in a ``Session``, which runs them in order
and then the fetches, as the recorder does; the others compile their fetches (fast and
readable forms). The comparison is that of tests/test_tf_parity.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import (
    FORMS,
    _non_finite,
    assert_matches_tensorflow,
    compare_fetches,
    load_fixtures,
)
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity.programs_train import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_train.json")


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
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


# TensorFlow 2.21's slot names and slot variable names (tf.compat.v1.train).
@pytest.mark.parametrize(
    "make, names, variables",
    [
        (lambda: sg.train.RMSPropOptimizer(0.1), ["momentum", "rms"], ["RMSProp_1", "RMSProp"]),
        (
            lambda: sg.train.RMSPropOptimizer(0.1, centered=True),
            ["mg", "momentum", "rms"],
            ["RMSProp_1", "RMSProp_2", "RMSProp"],
        ),
        (lambda: sg.train.AdagradOptimizer(0.1), ["accumulator"], ["Adagrad"]),
        (
            lambda: sg.train.AdadeltaOptimizer(0.1),
            ["accum", "accum_update"],
            ["Adadelta", "Adadelta_1"],
        ),
    ],
)
def test_slot_names_are_tensorflows(make, names: list[str], variables: list[str]) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        with sg.variable_scope("layer"):
            w = sg.get_variable("w", initializer=np.array([1.0, 2.0]))
        opt = make()
        opt.minimize(sg.reduce_sum(w * w))
        assert opt.get_slot_names() == names
        assert [opt.get_slot(w, n).op.name for n in names] == [f"layer/w/{v}" for v in variables]


def test_schedules_check_their_arguments() -> None:
    with sg.Graph().as_default():
        step = sg.train.get_or_create_global_step()
        with pytest.raises(ValueError, match="global_step is required"):
            sg.train.exponential_decay(0.1, None, 10, 0.5)
        with pytest.raises(ValueError, match="1 less than the length of values"):
            sg.train.piecewise_constant(step, [1, 2], [0.1, 0.2])
        with pytest.raises(TypeError, match="same dtype"):
            sg.train.piecewise_constant(step, [1], [0.1, np.float64(0.2)])
        with pytest.raises(ValueError, match="must be positive"):
            sg.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
