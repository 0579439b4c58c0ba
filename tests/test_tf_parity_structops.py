"""symgrad against TensorFlow 1 for the everyday structural ops (pad, slice, strided_slice,
boolean_mask, cumsum, diagonals, segment sums, embedding_lookup, lrn, custom_gradient,
control_dependencies, ...): the corpus in tf_parity/programs_structops.py, recorded by
tf_parity/record_tf.py into tf_parity/tf_fixtures_structops.json.

The comparison is that of tests/test_tf_parity.py. Programs with ``"before"`` ops
(optimizer steps) run in a ``Session``, as in tests/test_tf_parity_fidelity.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import (
    FORMS,
    assert_matches_tensorflow,
    compare_fetches,
    flatten_fetches,
    load_fixtures,
)
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity.programs_structops import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_structops.json")


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
    actual, built = _run_in_session(program)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))


# The portable form of the ops added with the backend-neutral IR, on array_api_strict (the
# standard and nothing more): roll prints the standard's keyword-only axis, segment_max,
# segment_min and segment_prod (sorted or not) are kernels of each backend, and
# unsorted_segment_mean is made of segment sums. (second_derivative_of_unsorted_segment_prod_
# with_zeros is not among them: TF's NaN there reaches every segment in the portable form,
# whose segment sums are dense products.)
PORTABLE = [
    p
    for p in PROGRAMS
    if p.__name__.startswith(
        (
            "roll_",
            "segment_max_",
            "segment_min_",
            "segment_prod_",
            "unsorted_segment_min_",
            "unsorted_segment_prod_",
            "unsorted_segment_mean_",
        )
    )
]


def _run_portable(program, optimize: bool = True):  # type: ignore[no-untyped-def]
    xps = pytest.importorskip("array_api_strict")
    with sg.Graph().as_default():
        built = program(sg)
        fetches = flatten_fetches(built["fetches"])
        compiled = sg.compile(fetches, name=program.__name__, backend="array_api")
        by_name = {t.name: value for t, value in built["feeds"].items()}
        arguments = {
            i.name: xps.asarray(by_name[i.tensor_name])
            for i in compiled.program.inputs
            if i.tensor_name in by_name
        }
        values = compiled(**arguments)
        assert all(type(v).__module__.startswith("array_api_strict") for v in values)
        return [np.asarray(v) for v in values], built


@pytest.mark.parametrize("program", PORTABLE, ids=[p.__name__ for p in PORTABLE])
def test_portable_form_matches_tensorflow_on_array_api_strict(program) -> None:  # type: ignore[no-untyped-def]
    assert len(PORTABLE) == 15
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], runner=_run_portable)
