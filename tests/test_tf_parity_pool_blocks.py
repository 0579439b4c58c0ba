"""symgrad against TensorFlow 1 for max-pooling with windows that do not overlap: the corpus in
tf_parity/programs_pool_blocks.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_pool_blocks.json.

The comparison is exactly that of tests/test_tf_parity.py.
"""

from __future__ import annotations

import pytest

from tests.test_tf_parity import FORMS, assert_matches_tensorflow, corpus_params, load_fixtures
from tests.tf_parity.programs_pool_blocks import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_pool_blocks.json")


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, {}))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)
