"""Names, scopes and collections as TF1 makes them, against TensorFlow: the corpus in
``tf_parity/programs_names.py``, recorded with TF1's ref variables by ``record_tf.py``.

Each program's labelled results (names of variables, ops and tensors, collections, static
shapes, a few values) must be TensorFlow's, label by label; a program TensorFlow refuses must
raise an error of the same builtin class. Documented differences: TF1's ref variables have
``int64_ref``-style dtypes, symgrad's variables the plain dtype (``REF_SUFFIX``); programs
listed in ``KNOWN`` still differ, each for the reason given (strict: a fix must remove it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import load_fixtures
from tests.tf_parity.programs_names import PROGRAMS, describe

FIXTURES = load_fixtures("tf_fixtures_names.json")
REF_SUFFIX = "_ref"

# Programs that still differ from TF1, with the reason (xfail, strict).
KNOWN: dict[str, str] = {
    "op_names_of_functions": "tf.unstack is one op in TF1 (unstack:0, unstack:1), a slice per "
    "part in symgrad (unstack:0, unstack_1:0)",
    "flatten_of_unknown_dims": "reshape to a size computed at run time is not supported",
}


def _same(got: Any, want: Any) -> bool:
    if isinstance(want, str) and isinstance(got, str):
        return got == want or (want.endswith(REF_SUFFIX) and got == want[: -len(REF_SUFFIX)])
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, float) or isinstance(got, float):
        return bool(np.isclose(got, want, rtol=1e-6, atol=1e-7))
    return bool(got == want)


def _params() -> list[Any]:
    return [
        pytest.param(
            program,
            id=program.__name__,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN[program.__name__])]
            if program.__name__ in KNOWN
            else [],
        )
        for program in PROGRAMS
    ]


@pytest.mark.parametrize("program", _params())
def test_names_match_tensorflow(program) -> None:  # type: ignore[no-untyped-def]
    want = FIXTURES[program.__name__]
    got = describe(sg, program)
    if "error" in want:
        assert "error" in got, f"TensorFlow raises {want['error'][0]}, symgrad builds it"
        assert got["error"][1] == want["error"][1], f"{got['error']} != {want['error']}"
        return
    assert "results" in got, f"symgrad raises {got['error']}, TensorFlow builds it"
    differences = [
        f"{label}: symgrad {g!r}, TensorFlow {w!r}"
        for (label, w), (_, g) in zip(want["results"], got["results"], strict=True)
        if not _same(g, w)
    ]
    assert not differences, "\n".join(differences)


def test_the_corpus_has_over_300_cases_and_is_recorded() -> None:
    assert sorted(FIXTURES) == sorted(p.__name__ for p in PROGRAMS)
    cases = 0
    for recorded in FIXTURES.values():
        for _, value in recorded.get("results", [[None, None]]):
            cases += len(value) if isinstance(value, list) and value else 1
    assert cases >= 300
