"""symgrad against TensorFlow 1 on cases ported from other projects' gradient tests: the corpus
in tf_parity/programs_ported.py (TensorFlow's own gradient and kernel tests, HIPS/autograd's,
google/tangent's), recorded by tf_parity/record_tf.py into tf_parity/tf_fixtures_ported.json.

The comparison is exactly that of tests/test_tf_parity.py (values, shapes and the dtype of every
fetch, in the fast and the readable form).  Programs on which symgrad is known to disagree with
TensorFlow are listed in KNOWN_BUGS, marked ``xfail(strict=True)``, and listed in docs/development.md.
"""

from __future__ import annotations

import pytest

from tests.test_tf_parity import FORMS, assert_matches_tensorflow, corpus_params, load_fixtures
from tests.tf_parity.programs_ported import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_ported.json")

# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad).
KNOWN_BUGS: dict[str, str] = {}


def test_known_bugs_are_programs() -> None:
    assert set(KNOWN_BUGS) <= {p.__name__ for p in PROGRAMS}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


def test_every_program_names_its_source() -> None:
    peers = ("tensorflow/python/", "HIPS/autograd tests/", "google/tangent tests/")
    assert all(p.source.startswith(peers) for p in PROGRAMS)


@FORMS
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)
