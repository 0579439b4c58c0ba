"""The parity corpora with ``[None]`` and shape-less placeholders, against TensorFlow's results.

TF1 programs rarely give placeholders static sizes. Here every placeholder of every corpus
program is declared again with each dim ``None`` (``[None]`` variant: rank kept) or with no
shape at all (shape-less variant); the values TensorFlow recorded for the static program are
still the answer. The fast form then runs the body that assumes equal sizes (the feeds are
the recorded ones); ``tf_parity/programs_shapes.py`` adds TF-recorded feeds where the sizes
differ and one operand broadcasts, which take the general body.

Profiles (``SYMGRAD_SHAPES_PROFILE``): ``ci`` (default) runs the ``[None]`` variant of every
corpus and the shape-less one of the seed corpus, in the fast form; ``full`` runs both
variants of every corpus in both forms (about 1,300 programs)::

    SYMGRAD_SHAPES_PROFILE=full python -m pytest tests/test_relaxed_shapes.py -q

The random-program property runs ``SYMGRAD_SHAPES_EXAMPLES`` examples (default 40).

A program whose graph cannot be built without static shapes (an op needs a known rank or
size at graph time, in TF as here) is skipped with the error it raised.
"""

from __future__ import annotations

import os
import threading
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import symgrad as sg
from symgrad.errors import SymgradError
from symgrad.shapes import as_shape
from tests.test_properties import _COMMON, inputs_of, interpret
from tests.test_properties import programs as random_programs
from tests.test_tf_parity import FORMS, assert_matches_tensorflow, load_fixtures, run_program
from tests.test_tf_parity_feeding import run_fed
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity import (
    programs,
    programs_feeding,
    programs_fidelity,
    programs_hessians,
    programs_ported,
    programs_shapes,
    programs_tensor,
)

PROFILE = os.environ.get("SYMGRAD_SHAPES_PROFILE", "ci")

CORPORA = {
    "programs": (programs.PROGRAMS, "tf_fixtures.json", run_program),
    "tensor": (programs_tensor.PROGRAMS, "tf_fixtures_tensor.json", run_program),
    "fidelity": (programs_fidelity.PROGRAMS, "tf_fixtures_fidelity.json", run_program),
    "ported": (programs_ported.PROGRAMS, "tf_fixtures_ported.json", run_program),
    "feeding": (programs_feeding.PROGRAMS, "tf_fixtures_feeding.json", run_fed),
    "hessians": (programs_hessians.PROGRAMS, "tf_fixtures_hessians.json", run_program),
}
FIXTURES = {corpus: load_fixtures(file) for corpus, (_, file, _) in CORPORA.items()}
SHAPES_FIXTURES = load_fixtures("tf_fixtures_shapes.json")

# (corpus, program, variant) -> what goes wrong; strict xfails in both forms, so a fix makes
# the test fail until its entry is removed.
KNOWN_BUGS = {
    ("fidelity", "einsum_ellipsis_broadcast", "none"): (
        "the gradient of an einsum whose '...' broadcasts a dim of unknown size is not summed "
        "back to the operand's shape (general code, both forms)"
    ),
}


class Relaxed:
    """The ``symgrad`` module, except that ``placeholder`` forgets static sizes (``[None]``
    variant) or the whole shape (``shapeless``)."""

    def __init__(self, variant: str) -> None:
        self.variant = variant

    def __getattr__(self, name: str) -> Any:
        return getattr(sg, name)

    def placeholder(self, dtype: Any, shape: Any = None, name: str | None = None) -> sg.Tensor:
        static = as_shape(shape)
        if self.variant == "shapeless" or static is None:
            return sg.placeholder(dtype, shape=None, name=name)
        return sg.placeholder(dtype, shape=[None] * len(static), name=name)


class BuildError(Exception):
    """The relaxed graph could not be built (it needs static shapes)."""


def relaxed(program: Any, variant: str) -> Any:
    """``program`` building its graph with relaxed placeholders."""

    def build(tf: Any) -> Any:
        try:
            return program(Relaxed(variant))
        except (SymgradError, ValueError, TypeError) as error:
            raise BuildError(f"{type(error).__name__}: {error}") from error

    build.__name__ = program.__name__
    return build


def _params() -> list[Any]:
    params = []
    for corpus, (corpus_programs, _, _) in CORPORA.items():
        for variant in ("none", "shapeless"):
            for optimize in (True, False):
                ci = optimize and (variant == "none" or corpus == "programs")
                marks: tuple[Any, ...] = ()
                if not ci and PROFILE != "full":
                    marks = (pytest.mark.skip(reason="profile full"),)
                form = "fast" if optimize else "readable"
                for program in corpus_programs:
                    bug = KNOWN_BUGS.get((corpus, program.__name__, variant))
                    known = (pytest.mark.xfail(strict=True, reason=bug),) if bug else ()
                    params.append(
                        pytest.param(
                            corpus,
                            program,
                            variant,
                            optimize,
                            id=f"{corpus}-{program.__name__}-{variant}-{form}",
                            marks=marks + known,
                        )
                    )
    return params


@pytest.mark.parametrize(("corpus", "program", "variant", "optimize"), _params())
def test_relaxed_program_matches_tensorflow(
    corpus: str, program: Any, variant: str, optimize: bool
) -> None:
    _, _, runner = CORPORA[corpus]
    expected = FIXTURES[corpus][program.__name__]["fetches"]

    def run(built: Any, optimize: bool) -> Any:
        with sg.Graph().as_default():
            stateful = "before" in built(sg)
        if not stateful:
            return runner(built, optimize)
        if not optimize:
            pytest.skip("a Session runs the fast form only")
        return _run_in_session(built)

    try:
        assert_matches_tensorflow(relaxed(program, variant), expected, optimize, run)
    except BuildError as error:
        pytest.skip(f"needs static shapes to build: {error}")


def test_shapes_fixtures_cover_corpus() -> None:
    assert set(SHAPES_FIXTURES) == {p.__name__ for p in programs_shapes.PROGRAMS}


@FORMS
@pytest.mark.parametrize(
    "program", programs_shapes.PROGRAMS, ids=[p.__name__ for p in programs_shapes.PROGRAMS]
)
def test_broadcasting_feeds_match_tensorflow(program: Any, optimize: bool) -> None:
    assert_matches_tensorflow(program, SHAPES_FIXTURES[program.__name__]["fetches"], optimize)


# --- property: random programs with relaxed placeholders -----------------------------------------


def _build_relaxed(program: Any, variant: str) -> list[Any]:
    """The tensors of a property-test program, its placeholders declared as ``variant`` says."""
    namespace: dict[str, Any] = {"sg": sg}
    tensors = []
    for i, v in enumerate(program.values):
        if v.kind == "placeholder":
            shape = v.static if variant == "static" else None
            if variant == "none":
                shape = (None,) * len(v.static)
            tensor = sg.placeholder(sg.float64, shape=shape, name=v.name)
        else:
            tensor = eval(program.expr(i), namespace)  # the printed program text is what runs
        namespace[v.name] = tensor
        tensors.append(tensor)
    return tensors


def _value_and_gradients(program: Any, variant: str, optimize: bool, feeds: dict) -> list[Any]:
    """``out`` and the gradients of ``sum(out * R)`` (R fixed random weights) to the placeholders."""
    with sg.Graph().as_default():
        try:
            tensors = _build_relaxed(program, variant)
            out = tensors[program.out]
            shape = np.shape(feeds["out"])
            weights = np.random.default_rng(program.seed + 1).uniform(0.5, 1.5, shape)
            loss = sg.reduce_sum(out * sg.constant(weights))
            placeholders = [tensors[i] for i in program.placeholders]
            grads = sg.gradients(loss, placeholders)
        except SymgradError as error:  # an op that needs a static rank or size, as in TF
            raise BuildError(str(error)) from error
        fetches = [out] + [g for g in grads if g is not None]
        compiled = sg.compile(fetches, inputs=placeholders, name="relaxed", optimize=optimize)
    return [np.asarray(v) for v in compiled(*(feeds[i] for i in program.placeholders))]


@settings(max_examples=int(os.environ.get("SYMGRAD_SHAPES_EXAMPLES", "40")), **_COMMON)
@given(
    program=random_programs(max_ops=5),
    variant=st.sampled_from(["none", "shapeless"]),
    optimize=st.booleans(),
)
def test_relaxed_random_programs_equal_the_static_ones(
    program: Any, variant: str, optimize: bool
) -> None:
    """Random programs of the property tests (placeholders with some sizes 1 that broadcast):
    relaxed placeholders, in either form, give what the static program's readable form gives."""
    feeds: dict[Any, Any] = dict(inputs_of(program))
    expected, _ = interpret(program, feeds)
    assume(all(np.all(np.isfinite(v)) for v in expected))
    feeds["out"] = expected[program.out]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # where-branches, as the static code
        want = _value_and_gradients(program, "static", False, feeds)
        try:
            got = _value_and_gradients(program, variant, optimize, feeds)
        except BuildError:
            assume(False)
            raise
    assert len(got) == len(want)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.shape == w.shape, f"fetch {index}: shape {g.shape} != {w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12, err_msg=f"fetch {index}")


# --- threads ---------------------------------------------------------------------------------------


def test_one_compiled_function_called_from_threads_at_once() -> None:
    """The fast form's arrays are per call (pools included), so threads may share a function."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        y = sg.placeholder(sg.float64, [None], name="y")
        w = sg.Variable(np.ones(40), name="w")
        h = x
        for layer in range(40):  # enough arrays of one shape for a pool
            h = sg.tanh(h * w[layer] + y)
        loss = sg.reduce_mean(h)
        compiled = sg.compile([loss, *sg.gradients(loss, [x, y, w])], name="chain")
    assert "_float64_rows" in compiled.source and "x.shape[0] == y.shape[0]" in compiled.source
    rng = np.random.default_rng(0)
    cases = [(rng.standard_normal(n), rng.standard_normal(n)) for n in (1000, 1000, 3000, 1)]
    cases.append((rng.standard_normal(1), rng.standard_normal(500)))  # the general body
    expected = [compiled(a, b, np.ones(40)) for a, b in cases]
    failures: list[str] = []
    start = threading.Barrier(8)

    def work(worker: int) -> None:
        start.wait()
        for round_ in range(30):
            index = (worker + round_) % len(cases)
            got = compiled(*cases[index], np.ones(40))
            if not all(np.array_equal(g, h) for g, h in zip(got, expected[index], strict=True)):
                failures.append(f"worker {worker}, round {round_}, case {index}")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, failures


def test_an_error_in_the_equal_sizes_body_names_its_op() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None], name="x")
        i = sg.placeholder(sg.int32, [None], name="i")
        w = sg.Variable(np.ones(3), name="w")
        y = sg.reduce_sum(sg.gather(w, i) * x)
        compiled = sg.compile([y, sg.gradients(y, w)[0]], name="gathered")
    assert "_gathered_same_shapes" in compiled.source
    with pytest.raises(sg.errors.ExecutionIndexError, match="index 7 is out of bounds"):
        compiled(np.ones(2), np.array([0, 7], np.int32))
