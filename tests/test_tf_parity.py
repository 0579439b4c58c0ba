"""symgrad against TensorFlow 1: the corpus in tf_parity/programs.py, recorded by record_tf.py."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from tests.tf_parity.programs import PROGRAMS, flatten_fetches

FIXTURES = json.loads((Path(__file__).parent / "tf_parity" / "tf_fixtures.json").read_text())[
    "programs"
]
TOLERANCES = {"float16": (2e-3, 1e-3), "float32": (2e-6, 1e-6), "float64": (1e-10, 1e-12)}


def _decode(value: object) -> object:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return {"inf": np.inf, "-inf": -np.inf, "nan": np.nan}.get(value, value)  # type: ignore[call-overload]


FORMS = pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])


def run_program(program, optimize: bool = True, scalars: bool = False):  # type: ignore[no-untyped-def]
    """Build ``program`` with symgrad, compile its fetches (fast or readable form), run them on its feeds.

    With ``scalars``, the inputs declared without a shape that are fed 0-d values are
    compiled as ``scalar_inputs``, as a ``Session`` compiles them.
    """
    with sg.Graph().as_default():
        built = program(sg)
        fetches = flatten_fetches(built["fetches"])
        tensors = [t for t in fetches if t is not None]
        if not tensors:
            return fetches, built
        needed = set(sg.graph.sources_of(tensors)) if scalars else set()
        scalar_inputs = [
            t
            for t, v in built["feeds"].items()
            if t in needed and t.shape is None and np.ndim(v) == 0
        ]
        compiled = sg.compile(
            tensors, name=program.__name__, optimize=optimize, scalar_inputs=scalar_inputs
        )
        by_tensor_name = {t.name: value for t, value in built["feeds"].items()}
        arguments = {
            i.name: by_tensor_name[i.tensor_name]
            for i in compiled.program.inputs
            if i.tensor_name in by_tensor_name
        }
        values = iter(compiled(**arguments))
        return [None if t is None else next(values) for t in fetches], built


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


def _non_finite(value: object) -> bool:
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return value in ("inf", "-inf", "nan")


def assert_matches_tensorflow(program, expected: list, optimize: bool = True, runner=None) -> None:  # type: ignore[no-untyped-def]
    """Run ``program`` under symgrad and compare each fetch with TensorFlow's recorded one.

    Where TensorFlow's results are all finite, the generated code must not warn
    either (no overflow or division by zero in a branch that ``where`` discards).
    """
    with warnings.catch_warnings():
        if not any(w is not None and _non_finite(w["value"]) for w in expected):
            warnings.simplefilter("error", RuntimeWarning)
        actual, built = (runner or run_program)(program, optimize)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))


def compare_fetches(name: str, actual: list, expected: list, rtol: float | None = None) -> None:
    """Each fetch against TensorFlow's recorded one: None-ness, dtype, shape, then values."""
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected, strict=False)):
        where = f"{name} fetch {index}"
        if want is None:
            assert got is None, f"{where}: TensorFlow gives None, symgrad {got!r}"
            continue
        assert got is not None, f"{where}: TensorFlow gives a value, symgrad None"
        got = np.asarray(got)
        assert got.dtype.name == want["dtype"], f"{where}: dtype {got.dtype} != {want['dtype']}"
        assert list(got.shape) == want["shape"], f"{where}: shape {got.shape} != {want['shape']}"
        default_rtol, atol = TOLERANCES.get(want["dtype"], (0, 0))
        np.testing.assert_allclose(
            got,
            # reshape: a zero-size value's nested lists do not hold its trailing dims
            np.array(_decode(want["value"]), dtype=got.dtype).reshape(want["shape"]),
            rtol=default_rtol if rtol is None else rtol,
            atol=atol,
            err_msg=where,
        )


def load_fixtures(filename: str) -> dict:
    """The recorded TensorFlow results of one corpus (``tf_parity/<filename>``), by program name."""
    return json.loads((Path(__file__).parent / "tf_parity" / filename).read_text())["programs"]


def corpus_params(programs: list, known_bugs: dict[str, str]) -> list:  # type: ignore[type-arg]
    """One pytest param per program; those in ``known_bugs`` are ``xfail(strict=True)``, so a fix
    makes the test fail until its entry is removed."""
    params = []
    for program in programs:
        marks = ()
        if program.__name__ in known_bugs:
            marks = (pytest.mark.xfail(strict=True, reason=known_bugs[program.__name__]),)
        params.append(pytest.param(program, id=program.__name__, marks=marks))
    return params
