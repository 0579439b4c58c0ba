"""symgrad against TensorFlow 1 on the fidelity corpus (issue 13's listed defects, issue 14's
item 3): tf_parity/programs_fidelity.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_fidelity.json.

The comparison is that of tests/test_tf_parity.py (None-ness, dtype, shape and value of every
fetch). Programs with ``"before"`` ops (optimizer steps) run in a ``Session``, which runs those
ops in order and then the fetches, as the recorder does.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import FORMS, _non_finite, assert_matches_tensorflow, compare_fetches
from tests.tf_parity.programs import flatten_fetches
from tests.tf_parity.programs_fidelity import PROGRAMS

FIXTURES = json.loads(
    (Path(__file__).parent / "tf_parity" / "tf_fixtures_fidelity.json").read_text()
)["programs"]


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


def _run_in_session(program) -> tuple[list, dict]:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        built = program(sg)
        fetches = flatten_fetches(built["fetches"])
        live = [f for f in fetches if f is not None]
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            for op in built["before"]:
                sess.run(op, feed_dict=built["feeds"])
            values = iter(sess.run(live, feed_dict=built["feeds"]) if live else [])
        return [None if f is None else next(values) for f in fetches], built


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


# TensorFlow 2.21's answers (tf.compat.v1.train), which the fixtures cannot hold as values.
@pytest.mark.parametrize(
    "make, names",
    [
        (lambda: sg.train.MomentumOptimizer(0.1, 0.9), ["momentum"]),
        (lambda: sg.train.AdamOptimizer(0.1), ["m", "v"]),
        (lambda: sg.train.GradientDescentOptimizer(0.1), []),
    ],
)
def test_slot_names_are_tensorflows(make, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    # issue 13 item 10
    with sg.Graph().as_default():
        v = sg.Variable(np.array([1.0, 2.0]), name="v")
        opt = make()
        opt.minimize(sg.reduce_sum(v * v))
        assert opt.get_slot_names() == names
        assert [opt.get_slot(v, n).name for n in names] == [
            {"momentum": "v/Momentum:0", "m": "v/Adam:0", "v": "v/Adam_1:0"}[n] for n in names
        ]
        assert opt.get_slot(v, "Momentum") is None


def test_trace_is_the_matrix_trace_and_no_public_name_is_a_submodule() -> None:
    # issue 13: sg.trace resolved to the internal module symgrad.trace (now symgrad.lowering).
    assert callable(sg.trace) and not isinstance(sg.trace, type(sg))
    # TF1's own namespaces
    modules = {"math", "nn", "train", "linalg", "losses", "summary", "contrib"}
    modules |= {"initializers", "layers", "random"}
    modules |= {"metrics"}
    modules |= {"saved_model", "graph_util", "data", "image", "io"}  # modules in TF1 too
    for name in sg.__all__:
        if name not in modules:
            assert not isinstance(getattr(sg, name), type(sg)), name
