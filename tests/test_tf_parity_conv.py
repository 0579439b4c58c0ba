"""symgrad against TensorFlow 1 for convolutions and pooling: the corpus in tf_parity/programs_conv.py,
recorded by tf_parity/record_tf.py into tf_parity/tf_fixtures_conv.json.

The comparison is exactly that of tests/test_tf_parity.py.  Programs on which symgrad is
known to disagree with TensorFlow are listed in KNOWN_BUGS and marked ``xfail(strict=True)``,
so a fix makes the test fail until the entry is removed.
"""

from __future__ import annotations

import pytest

from tests.test_tf_parity import FORMS, assert_matches_tensorflow, corpus_params, load_fixtures
from tests.tf_parity.programs_conv import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_conv.json")

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
