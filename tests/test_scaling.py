"""The portable form on PyTorch, JAX and Dask arrays; ``Session(backend=...)``; GPUs.

Corpus sample: programs of the TF parity corpora (``tests/tf_parity/programs*.py``) are
compiled once each in the portable form (``compile(..., backend="array_api")``) and run on
PyTorch CPU tensors, JAX arrays (eagerly and under ``jax.jit``, 64-bit enabled) and Dask
arrays (every axis cut into two chunks, so reductions become tree reductions); results go
to NumPy for the comparison only, with the tolerances of ``tests/test_tf_parity.py``. The
sample is stratified: every ``STRIDE``-th program of each corpus, so every corpus and the op
families along it are drawn. A program the portable form does not pass on NumPy arrays
itself (``tests/test_array_api.py`` covers that) is skipped here: these tests are about
what differs between namespaces.

Profiles (``SYMGRAD_BACKENDS_PROFILE``, shared with ``tests/test_array_api.py``): CI runs
every ``CI_STRIDE``-th program (a few dozen runs); ``full`` runs every ``FULL_STRIDE``-th,
over a hundred programs on each namespace::

    SYMGRAD_BACKENDS_PROFILE=full python -m pytest tests/test_scaling.py -q

Each namespace skips when its package is missing (``pip install 'symgrad[torch]'``, ...);
CuPy and PyTorch-on-CUDA tests skip without a GPU.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import warnings
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.backends.namespaces import to_numpy
from symgrad.errors import (
    BackendError,
)
from tests.test_tf_parity import _non_finite, compare_fetches, load_fixtures
from tests.tf_parity.programs import flatten_fetches

FULL = os.environ.get("SYMGRAD_BACKENDS_PROFILE") == "full"
CI_STRIDE, FULL_STRIDE = 37, 8
STRIDE = FULL_STRIDE if FULL else CI_STRIDE
# Offset from tests/test_array_api.py's sample (every 9th from 0): other programs get drawn.
OFFSET = 3

# corpus module -> its fixture file (tests/tf_parity/record_tf.py's CORPORA).
CORPORA = {
    "programs": "tf_fixtures.json",
    "programs_tensor": "tf_fixtures_tensor.json",
    "programs_fidelity": "tf_fixtures_fidelity.json",
    "programs_ported": "tf_fixtures_ported.json",
    "programs_hessians": "tf_fixtures_hessians.json",
    "programs_random": "tf_fixtures_random.json",
    "programs_layers": "tf_fixtures_layers.json",
    "programs_conv": "tf_fixtures_conv.json",
    "programs_elemops": "tf_fixtures_elemops.json",
    "programs_structops": "tf_fixtures_structops.json",
}


def _sample() -> list[Any]:
    cases = []
    for module_name, fixture_file in CORPORA.items():
        programs = importlib.import_module(f"tests.tf_parity.{module_name}").PROGRAMS
        fixtures = load_fixtures(fixture_file)
        for index, program in enumerate(programs):
            if index % STRIDE == OFFSET % STRIDE:
                expected = fixtures[program.__name__]["fetches"]
                cases.append((f"{module_name}.{program.__name__}", program, expected))
    return cases


SAMPLE = _sample()


def _halves(value: np.ndarray) -> tuple[int, ...]:
    return tuple(max(1, (n + 1) // 2) for n in value.shape)


def _torch() -> Any:
    return pytest.importorskip("torch")


def _jax() -> Any:
    return pytest.importorskip("jax")


def _dask_array() -> Any:
    return pytest.importorskip("dask.array")


# namespace id -> (what to import to know it is there, numpy array -> namespace array)
def _to_torch(value: np.ndarray) -> Any:
    return _torch().asarray(value)


def _to_jax(value: np.ndarray) -> Any:
    return _jax().numpy.asarray(value)


def _to_dask(value: np.ndarray) -> Any:
    return _dask_array().from_array(value, chunks=_halves(value))


NAMESPACES = {"torch": _to_torch, "jax": _to_jax, "jax.jit": _to_jax, "dask": _to_dask}


@functools.cache
def _compiled(case_id: str) -> Any:
    """(compiled portable module, its NumPy arguments, fetches, built) for one program; a
    pytest skip where the portable form cannot run it on NumPy arrays."""
    _, program, expected = next(c for c in SAMPLE if c[0] == case_id)
    with sg.Graph().as_default():
        built = program(sg)
        if "before" in built:
            return "trains through a Session (the Session tests below run training)"
        fetches = flatten_fetches(built["fetches"])
        tensors = [t for t in fetches if t is not None]
        if not tensors:
            return "fetches nothing"
        try:
            compiled = sg.compile(tensors, name=program.__name__, backend="array_api")
        except BackendError as error:
            return f"no portable form: {error}"
        by_tensor_name = {t.name: value for t, value in built["feeds"].items()}
        arguments = [
            np.asarray(
                by_tensor_name[i.tensor_name]
                if i.tensor_name in by_tensor_name
                else compiled._initial_value(i.name)
            )
            for i in compiled.program.inputs
        ]
    try:
        baseline = _run(compiled, arguments, fetches, np.asarray, jit=False)
        compare_fetches(program.__name__, baseline, expected, built.get("rtol"))
    except Exception as error:  # any failure on NumPy is the portable form's own
        return f"the portable form fails on NumPy arrays too: {type(error).__name__}"
    return compiled, arguments, fetches, built


def _run(compiled: Any, arguments: list, fetches: list, to_array: Any, jit: bool) -> list:
    values = [to_array(a) for a in arguments]
    if jit:
        jax = _jax()
        single = len(compiled.program.outputs) == 1
        outputs = jax.jit(compiled.function)(*values)
        outputs = [outputs] if single else list(outputs)
    else:
        outputs = list(compiled(*values))
    results = iter(outputs)
    return [None if t is None else np.asarray(to_numpy(next(results))) for t in fetches]


@pytest.mark.parametrize("namespace", list(NAMESPACES))
@pytest.mark.parametrize("case_id", [c[0] for c in SAMPLE])
def test_corpus_sample_on_namespace(case_id: str, namespace: str) -> None:
    found = _compiled(case_id)
    if isinstance(found, str):
        pytest.skip(found)
    compiled, arguments, fetches, built = found
    _, program, expected = next(c for c in SAMPLE if c[0] == case_id)
    jit = namespace == "jax.jit"
    if jit and compiled.program.random_streams:
        pytest.skip("draws random numbers with NumPy generators: not traceable by jax.jit")
    context = _jax().enable_x64(True) if namespace.startswith("jax") else contextlib.nullcontext()
    with context, warnings.catch_warnings():
        if not any(w is not None and _non_finite(w["value"]) for w in expected):
            warnings.simplefilter("error", RuntimeWarning)
        actual = _run(compiled, arguments, fetches, NAMESPACES[namespace], jit)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))
