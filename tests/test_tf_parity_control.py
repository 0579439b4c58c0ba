"""Control flow against TensorFlow 1 (issue 35): ``cond``, ``case``, ``while_loop``,
``map_fn``, ``scan``, ``foldl``/``foldr`` and ``dynamic_rnn`` over an unknown number of steps,
with their gradients (and second derivatives through ``cond``). The corpus is
tf_parity/programs_control.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_control.json; each program runs through the NumPy fast form, the
readable form and the portable (array API) form.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from tests.test_tf_parity import (
    assert_matches_tensorflow,
    corpus_params,
    flatten_fetches,
    load_fixtures,
)
from tests.tf_parity.programs_control import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_control.json")
KNOWN_BUGS: dict[str, str] = {}
# (program, form) -> what goes wrong there alone.
KNOWN_FORM_BUGS: dict[tuple[str, str], str] = {}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


def _run(program, backend: str, optimize: bool):  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        built = program(sg)
        fetches = flatten_fetches(built["fetches"])
        tensors = [t for t in fetches if t is not None]
        compiled = sg.compile(tensors, name=program.__name__, optimize=optimize, backend=backend)
        by_name = {t.name: value for t, value in built["feeds"].items()}
        arguments = {
            i.name: by_name[i.tensor_name]
            for i in compiled.program.inputs
            if i.tensor_name in by_name
        }
        values = iter(compiled(**arguments))
        return [None if t is None else np.asarray(next(values)) for t in fetches], built


@pytest.mark.parametrize(
    ("backend", "optimize"),
    [("numpy", True), ("numpy", False), ("array_api", True)],
    ids=["fast", "readable", "portable"],
)
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, backend: str, optimize: bool, request) -> None:  # type: ignore[no-untyped-def]
    form = request.node.callspec.id.split("-")[-1]
    if (program.__name__, form) in KNOWN_FORM_BUGS:
        request.applymarker(
            pytest.mark.xfail(strict=True, reason=KNOWN_FORM_BUGS[program.__name__, form])
        )
    assert_matches_tensorflow(
        program,
        FIXTURES[program.__name__]["fetches"],
        optimize,
        runner=lambda p, o: _run(p, backend, o),
    )


@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_session_matches_tensorflow(program) -> None:  # type: ignore[no-untyped-def]
    """Through ``Session.run``, as TF1 programs fetch them."""

    def run(p, optimize):  # type: ignore[no-untyped-def]
        with sg.Graph().as_default():
            built = p(sg)
            fetches = flatten_fetches(built["fetches"])
            with sg.Session() as sess:
                sess.run(sg.global_variables_initializer())
                values = sess.run([t for t in fetches if t is not None], built["feeds"])
            it = iter(values)
            return [None if t is None else next(it) for t in fetches], built

    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], runner=run)
