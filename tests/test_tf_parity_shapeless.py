"""Shape-less placeholders into matmul, the sparse softmax cross-entropy and where, against
TensorFlow 1 (issue 15): the corpus in tf_parity/programs_shapeless.py, recorded by
tf_parity/record_tf.py into tf_parity/tf_fixtures_shapeless.json, compared as in
tests/test_tf_parity.py (fast and readable forms). Feeds of the wrong shape fail when the
graph runs with an error that names the op, the tensor and the shapes.

Profiles (``SYMGRAD_TF1GAPS_PROFILE``): ``ci`` (default) runs the corpus in the fast form;
``full`` also in the readable form::

    SYMGRAD_TF1GAPS_PROFILE=full python -m pytest tests/test_tf_parity_shapeless.py tests/test_tf_parity_tf1gaps.py
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import ExecutionValueError
from tests.test_tf_parity import assert_matches_tensorflow, corpus_params, load_fixtures
from tests.tf_parity.programs_shapeless import PROGRAMS

PROFILE = os.environ.get("SYMGRAD_TF1GAPS_PROFILE", "ci")
# The readable form of the corpus runs in the full profile (the CI budget is nearly spent).
FORMS = pytest.mark.parametrize(
    "optimize",
    [
        True,
        pytest.param(False, marks=pytest.mark.skipif(PROFILE != "full", reason="profile full")),
    ],
    ids=["fast", "readable"],
)
FIXTURES = load_fixtures("tf_fixtures_shapeless.json")

# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad).
KNOWN_BUGS: dict[str, str] = {}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


def test_static_shapes_are_tensorflows() -> None:
    """TF 2.21's shape functions: matmul of an unknown rank knows nothing, the labels take
    the logits' batch shape, and Select keeps the branches' shape."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32)
        assert sg.matmul(x, sg.ones([3, 4])).shape is None
        labels = sg.placeholder(sg.int32)
        logits = sg.placeholder(sg.float32, [None, 5])
        xent = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        assert xent.shape == (None,)
        chosen = sg.where(sg.placeholder(sg.bool), sg.ones([2, 3]), sg.zeros([2, 3]))
        assert chosen.shape == (2, 3)
        # A Python number as a branch takes the other branch's dtype.
        x = sg.placeholder(sg.float64, [None, 2])
        either = sg.where(sg.placeholder(sg.bool), x, 0.0)
        assert (either.shape, either.dtype) == ((None, 2), sg.float64)


@FORMS
@pytest.mark.parametrize(
    ("build", "feeds", "op", "shapes"),
    [
        pytest.param(
            lambda x: sg.matmul(x, sg.ones([3, 4], dtype=sg.float64)),
            [np.ones(3)],
            "MatMul",
            "(3,)",
            id="matmul-of-a-vector",
        ),
        pytest.param(
            lambda x: sg.matmul(x, sg.ones([3, 4], dtype=sg.float64)),
            [np.ones((2, 5))],
            "MatMul",
            "x:float64[2,5]",
            id="matmul-inner-dims",
        ),
        pytest.param(
            lambda x: sg.where(sg.cast(x, sg.bool), sg.ones([2, 3]), sg.zeros([2, 3])),
            [np.ones(3)],
            "Select",
            "x:float64[3]",
            id="where-condition-rows",
        ),
    ],
)
def test_wrong_feed_names_op_and_shapes(build, feeds, op: str, shapes: str, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, name="x")
        compiled = sg.compile(build(x), optimize=optimize)
        with pytest.raises(ExecutionValueError) as raised:
            compiled(*feeds)
    message = str(raised.value).replace(" ", "")
    assert op in message and shapes in message, message


@pytest.mark.parametrize(
    ("labels", "shape"), [(np.array([[1], [2]]), "[2, 1]"), (np.array([1, 2, 3]), "(shape [3])")]
)
def test_wrong_labels_feed_names_op_and_shapes(labels: np.ndarray, shape: str) -> None:
    with sg.Graph().as_default():
        y = sg.placeholder(sg.int64, name="y")
        logits = sg.placeholder(sg.float64, [None, 4], name="logits")
        xent = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        with (
            sg.Session() as sess,
            pytest.raises(ExecutionValueError, match=r"op '\w+'.*tensor '") as raised,
        ):
            sess.run(xent, {y: labels, logits: np.zeros((2, 4))})
    assert shape in str(raised.value)


@pytest.mark.parametrize("label", [4, -1])
def test_a_label_outside_the_classes_is_an_error_not_a_zero_row(label: int) -> None:
    """With logits of unknown rank the class count is the fed value's: a label outside it
    raises, as TF's kernel does, instead of giving that example a loss of 0."""
    with sg.Graph().as_default():
        y = sg.placeholder(sg.int64, name="y")
        logits = sg.placeholder(sg.float64, name="logits")
        xent = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
        with (
            sg.Session() as sess,
            pytest.raises(IndexError, match=rf"CrossEntropy.*: index {label} is not in \[0, 4\)"),
        ):
            sess.run(xent, {y: np.array([1, label]), logits: np.zeros((2, 4))})
