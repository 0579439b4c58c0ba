"""State and order as TF1 defines them, against TensorFlow: the corpus in
``tf_parity/programs_state.py``, recorded with TF1's ref variables by ``record_tf.py``.

Each program is several runs in one Session (a new one where it says so); every run's values,
or the class of the error TensorFlow raised, must be symgrad's, in the NumPy fast form and in
the portable form (``Session(backend="array_api")``). Integer results must be equal, floating
ones equal to the corpus tolerances.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import TOLERANCES, _decode, load_fixtures
from tests.tf_parity.programs_state import PROGRAMS, run_steps

FIXTURES = load_fixtures("tf_fixtures_state.json")
BACKENDS = ["numpy", "array_api"]


def _encode(value: object) -> dict:
    array = np.array(value)  # a copy: the program may change the fetched array afterwards
    return {"dtype": array.dtype.name, "shape": list(array.shape), "value": array}


def _compare(name: str, index: int, got: dict, want: dict) -> None:
    where = f"{name} step {index}"
    assert set(got) == set(want), f"{where}: symgrad gives {got}, TensorFlow {want}"
    if "error" in want:
        assert got["error"] == want["error"], where
        return
    for key in ("values", "feeds"):
        for position, (g, w) in enumerate(zip(got.get(key, []), want.get(key, []), strict=True)):
            at = f"{where} {key} {position}"
            if w is None:
                assert g is None, f"{at}: TensorFlow gives None, symgrad {g}"
                continue
            assert g is not None, f"{at}: TensorFlow gives {w}, symgrad None"
            assert g["dtype"] == w["dtype"], f"{at}: dtype {g['dtype']} != {w['dtype']}"
            assert g["shape"] == w["shape"], f"{at}: shape {g['shape']} != {w['shape']}"
            expected = np.array(_decode(w["value"]), dtype=w["dtype"]).reshape(w["shape"])
            rtol, atol = TOLERANCES.get(w["dtype"], (0, 0))
            np.testing.assert_allclose(g["value"], expected, rtol=rtol, atol=atol, err_msg=at)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_state_program_matches_tensorflow(program, backend: str) -> None:  # type: ignore[no-untyped-def]
    expected = FIXTURES[program.__name__]["steps"]
    actual = run_steps(sg, program, _encode, lambda graph: sg.Session(graph=graph, backend=backend))
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        _compare(program.__name__, index, got, want)


def test_the_corpus_is_large_and_recorded() -> None:
    assert len(PROGRAMS) >= 150
    assert sorted(FIXTURES) == sorted(p.__name__ for p in PROGRAMS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_fetched_feed_is_a_copy(backend: str) -> None:
    """Fetching a fed tensor itself, TF1 hands back the very array that was fed (changing the
    result changes the caller's array; TF 2.21 compat.v1). symgrad's results are the caller's
    own, never a fed array, as docs/guarantees.md says."""
    with sg.Graph().as_default():
        p = sg.placeholder(sg.float32, [2], name="p")
        fed = np.array([1.0, 2.0], np.float32)
        with sg.Session(backend=backend) as sess:
            first, second = sess.run([p, p], {p: fed})
            assert first is not fed and second is not first
            np.asarray(first)[...] += 100
            assert fed.tolist() == [1.0, 2.0] and np.asarray(second).tolist() == [1.0, 2.0]
