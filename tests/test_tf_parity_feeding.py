"""symgrad against TensorFlow 1 when variables, constants and intermediate tensors are fed: the
corpus in tf_parity/programs_feeding.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_feeding.json.

The comparison is that of tests/test_tf_parity.py. The fast form runs each program through a
Session with its feed_dict, as TensorFlow did; the readable form compiles the fetches with the
fed tensors as inputs (``compile(outputs, inputs=[fed tensors, ...])``), the same semantics
without a Session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import symgrad as sg
from symgrad.graph import sources_of
from tests.test_tf_parity import FORMS, assert_matches_tensorflow
from tests.tf_parity.programs import flatten_fetches
from tests.tf_parity.programs_feeding import PROGRAMS

FIXTURES = json.loads(
    (Path(__file__).parent / "tf_parity" / "tf_fixtures_feeding.json").read_text()
)["programs"]


# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad); strict xfails.
KNOWN_BUGS: dict[str, str] = {}


def _params():  # type: ignore[no-untyped-def]
    for program in PROGRAMS:
        marks = ()
        if program.__name__ in KNOWN_BUGS:
            marks = (pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[program.__name__]),)
        yield pytest.param(program, id=program.__name__, marks=marks)


def run_fed(program, optimize: bool = True):  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        built = program(sg)
        fetches = flatten_fetches(built["fetches"])
        tensors = [t for t in fetches if t is not None]
        feeds = built["feeds"]
        if optimize:
            with sg.Session() as sess:
                sess.run(sg.global_variables_initializer())
                values = iter(sess.run(tensors, feed_dict=feeds))
        else:
            inputs = sources_of(tensors, fed=list(feeds))
            compiled = sg.compile(tensors, inputs=inputs, name=program.__name__, optimize=False)
            by_tensor = {t.name: v for t, v in feeds.items()}
            arguments = {
                i.name: by_tensor[i.tensor_name]
                for i in compiled.program.inputs
                if i.tensor_name in by_tensor
            }
            values = iter(compiled(**arguments))
        return [None if t is None else next(values) for t in fetches], built


def test_known_bugs_are_programs() -> None:
    assert set(KNOWN_BUGS) <= {p.__name__ for p in PROGRAMS}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", list(_params()))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(
        program, FIXTURES[program.__name__]["fetches"], optimize, runner=run_fed
    )
