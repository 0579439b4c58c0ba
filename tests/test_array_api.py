"""The portable form (``compile(..., backend="array_api")``) against TensorFlow's recorded results.

Each program of the TF parity corpora (``tests/tf_parity/programs*.py``) is compiled in
the portable form and run twice: on ``array_api_strict`` arrays (the standard's strict
reference implementation, pinned to the 2023.12 revision: anything NumPy-only fails
there) and on NumPy arrays. Results are converted with ``np.asarray`` for the comparison
only, which is exactly that of ``tests/test_tf_parity.py`` (same tolerances).

Runtime: CI runs a stratified sample, every corpus and each of its op families
(``SAMPLE_EVERY``-th program of each corpus, plus the named family representatives).
Set ``SYMGRAD_BACKENDS_PROFILE=full`` to run every program of every corpus.

Programs the portable form cannot express are listed in ``UNSUPPORTED`` with the reason:
their compile must raise :class:`symgrad.errors.BackendError` naming the op and the
backend (checked too). Programs that train through a Session (``"before"`` steps) are
skipped here: ``Session(backend=...)`` runs them.
"""

from __future__ import annotations

import importlib
import os
import warnings

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import BackendError
from tests.test_tf_parity import _non_finite, compare_fetches, load_fixtures
from tests.tf_parity.programs import flatten_fetches

xps = pytest.importorskip("array_api_strict")
xps.set_array_api_strict_flags(api_version="2023.12")

FULL = os.environ.get("SYMGRAD_BACKENDS_PROFILE") == "full"
SAMPLE_EVERY = 9

# corpus module -> its fixture file (tests/tf_parity/record_tf.py's CORPORA).
CORPORA = {
    "programs": "tf_fixtures.json",
    "programs_tensor": "tf_fixtures_tensor.json",
    "programs_fidelity": "tf_fixtures_fidelity.json",
    "programs_ported": "tf_fixtures_ported.json",
    "programs_hessians": "tf_fixtures_hessians.json",
    "programs_random": "tf_fixtures_random.json",
    "programs_train": "tf_fixtures_train.json",
    "programs_layers": "tf_fixtures_layers.json",
    "programs_conv": "tf_fixtures_conv.json",
    "programs_elemops": "tf_fixtures_elemops.json",
    "programs_structops": "tf_fixtures_structops.json",
}

# Programs whose ops have no portable form yet: compile raises BackendError.
UNSUPPORTED: dict[str, str] = {}


def _cases() -> list:  # type: ignore[type-arg]
    cases = []
    for module_name, fixture_file in CORPORA.items():
        programs = importlib.import_module(f"tests.tf_parity.{module_name}").PROGRAMS
        fixtures = load_fixtures(fixture_file)
        for index, program in enumerate(programs):
            if not FULL and index % SAMPLE_EVERY:
                continue
            cases.append(
                pytest.param(
                    program,
                    fixtures[program.__name__]["fetches"],
                    id=f"{module_name}.{program.__name__}",
                )
            )
    return cases


CASES = _cases()


def run_portable(program, to_array):  # type: ignore[no-untyped-def]
    """Build ``program``, compile its fetches in the portable form, run them on its feeds
    converted by ``to_array``; the results as NumPy arrays."""
    with sg.Graph().as_default():
        built = program(sg)
        if "before" in built:
            pytest.skip("trains through a Session: Session(backend=...) runs it")
        fetches = flatten_fetches(built["fetches"])
        tensors = [t for t in fetches if t is not None]
        if not tensors:
            return fetches, built
        compiled = sg.compile(tensors, name=program.__name__, backend="array_api")
        by_tensor_name = {t.name: value for t, value in built["feeds"].items()}
        arguments = {
            i.name: to_array(by_tensor_name[i.tensor_name])
            for i in compiled.program.inputs
            if i.tensor_name in by_tensor_name
        }
        values = iter(compiled(**arguments))
        results = [None if t is None else np.asarray(next(values)) for t in fetches]
        return results, built


def _strict(value):  # type: ignore[no-untyped-def]
    return xps.asarray(np.asarray(value))


NAMESPACES = pytest.mark.parametrize(
    "to_array", [_strict, np.asarray], ids=["array_api_strict", "numpy"]
)


@NAMESPACES
@pytest.mark.parametrize("program, expected", CASES)
def test_portable_matches_tensorflow(program, expected, to_array) -> None:  # type: ignore[no-untyped-def]
    if program.__name__ in UNSUPPORTED:
        with pytest.raises(BackendError, match="array_api"):
            run_portable(program, to_array)
        return
    with warnings.catch_warnings():
        if not any(w is not None and _non_finite(w["value"]) for w in expected):
            warnings.simplefilter("error", RuntimeWarning)
        actual, built = run_portable(program, to_array)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))
