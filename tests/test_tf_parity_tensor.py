"""symgrad against TensorFlow 1 for the tensor ops: the corpus in tf_parity/programs_tensor.py,
recorded by tf_parity/record_tf.py into tf_parity/tf_fixtures_tensor.json.

The comparison is exactly that of tests/test_tf_parity.py.  Programs on which symgrad is
known to disagree with TensorFlow are listed in KNOWN_BUGS and marked ``xfail(strict=True)``,
so a fix makes the test fail until the entry is removed.
"""

from __future__ import annotations

import pytest

from tests.test_tf_parity import FORMS, assert_matches_tensorflow, corpus_params, load_fixtures
from tests.test_tf_parity_structops import _run_portable
from tests.tf_parity.programs_tensor import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_tensor.json")

# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad).
KNOWN_BUGS: dict[str, str] = {}


def test_known_bugs_are_programs() -> None:
    assert set(KNOWN_BUGS) <= {p.__name__ for p in PROGRAMS}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


# The portable form of multiply_no_nan and reduce_euclidean_norm, on array_api_strict.
PORTABLE = [p for p in PROGRAMS if p.__name__.startswith(("multiply_no_nan_", "reduce_euclidean_"))]


@pytest.mark.parametrize("program", PORTABLE, ids=[p.__name__ for p in PORTABLE])
def test_portable_form_matches_tensorflow_on_array_api_strict(program) -> None:  # type: ignore[no-untyped-def]
    assert len(PORTABLE) == 4
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], runner=_run_portable)
