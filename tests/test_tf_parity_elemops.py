"""TF1's everyday elementwise, reduction and activation ops against TensorFlow 1 (issue 15,
item 5): the corpus in tf_parity/programs_elemops.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_elemops.json, compared exactly as in tests/test_tf_parity.py (values,
None-ness, shapes and dtypes of every fetch, in the fast and the readable form).
"""

from __future__ import annotations

import pytest

from tests.test_tf_parity import FORMS, assert_matches_tensorflow, corpus_params, load_fixtures
from tests.tf_parity.programs_elemops import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_elemops.json")

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
