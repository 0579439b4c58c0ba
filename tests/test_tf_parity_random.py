"""symgrad against TensorFlow 1 on random ops, initializers and dropout: the corpus in
tf_parity/programs_random.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_random.json. The numbers differ; the statistics each program fetches
(within its ``rtol``) and its exact identities do not."""

from __future__ import annotations

import pytest

from tests.test_tf_parity import FORMS, assert_matches_tensorflow, load_fixtures
from tests.tf_parity.programs_random import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_random.json")


def test_every_program_has_a_fixture() -> None:
    assert sorted(FIXTURES) == sorted(p.__name__ for p in PROGRAMS)


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)
