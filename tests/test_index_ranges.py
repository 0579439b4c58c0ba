"""Indices fed at run time outside ``[0, n)`` are errors, as in TF's kernels.

NumPy's indexing wraps a negative index round to the end (``np.take(x, -1)`` is the last
entry) and a batched gather's flat index past its row reads the next batch entry's row: both
gave a number where TF raises ``InvalidArgumentError``. Checked in the fast, readable and
portable forms; the values TF refuses were confirmed under TF 2.21 (``compat.v1``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import ExecutionIndexError, ShapeError


def _compiled(build: Callable[[], tuple[Any, list[Any]]], form: str) -> Any:
    with sg.Graph().as_default():
        output, inputs = build()
        if form == "portable":
            return sg.compile(output, inputs, backend="array_api")
        return sg.compile(output, inputs, optimize=form == "fast")


def _gather() -> tuple[Any, list[Any]]:
    table = sg.placeholder(sg.float64, [3, 2], name="table")
    ids = sg.placeholder(sg.int32, [None], name="ids")
    return sg.nn.embedding_lookup(table, ids), [table, ids]


def _batch_gather() -> tuple[Any, list[Any]]:
    rows = sg.placeholder(sg.float64, [2, 3], name="rows")
    ids = sg.placeholder(sg.int32, [2, 1], name="ids")
    return sg.gather(rows, ids, batch_dims=1), [rows, ids]


def _labels() -> tuple[Any, list[Any]]:
    labels = sg.placeholder(sg.int32, [None], name="labels")
    logits = sg.placeholder(sg.float64, [None, 3], name="logits")
    loss = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return loss, [labels, logits]


CASES = {
    # name: (graph, good feed, its result, bad feeds)
    "gather": (
        _gather,
        (np.arange(6.0).reshape(3, 2), np.array([2, 0], np.int32)),
        np.array([[4.0, 5.0], [0.0, 1.0]]),
        [(np.arange(6.0).reshape(3, 2), np.array([-1, 0], np.int32)), "GatherV2: index -1"],
    ),
    "batch_gather": (
        _batch_gather,
        (np.arange(6.0).reshape(2, 3), np.array([[2], [0]], np.int32)),
        np.array([[2.0], [3.0]]),
        [(np.arange(6.0).reshape(2, 3), np.array([[4], [0]], np.int32)), "GatherV2: index 4"],
    ),
    "sparse_labels": (
        _labels,
        (np.array([1, 2], np.int32), np.zeros((2, 3))),
        np.full(2, np.log(3.0)),
        [(np.array([-1, 0], np.int32), np.zeros((2, 3))), "CrossEntropy.*: index -1"],
    ),
}


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_an_index_outside_its_axis_is_an_error_not_a_wrapped_value(name: str, form: str) -> None:
    build, good, expected, (bad, words) = CASES[name]
    compiled = _compiled(build, form)
    if form == "portable":
        xps = pytest.importorskip("array_api_strict")
        good, bad = tuple(xps.asarray(v) for v in good), tuple(xps.asarray(v) for v in bad)
    np.testing.assert_allclose(np.asarray(compiled(*good)), expected, rtol=1e-12)
    with pytest.raises(ExecutionIndexError, match=words + r" is not in \[0, 3\)"):
        compiled(*bad)


def test_an_empty_batch_of_indices_is_no_error() -> None:
    compiled = _compiled(_gather, "fast")
    assert compiled(np.ones((3, 2)), np.zeros(0, np.int32)).shape == (0, 2)


@pytest.mark.parametrize("shape", [[3], [None]])
def test_a_constant_negative_index_is_refused_when_the_graph_is_built(shape: list[Any]) -> None:
    """NumPy would read ``gather(x, [-1])`` as the last row; TF's kernel refuses it."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape, name="x")
        with pytest.raises(ShapeError, match=r"GatherV2: indices \[-1\] are out of range"):
            sg.gather(x, [-1])


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
def test_a_constant_index_on_an_axis_of_unknown_size_is_checked_when_run(form: str) -> None:
    def build() -> tuple[Any, list[Any]]:
        x = sg.placeholder(sg.float64, [None], name="x")
        return sg.gather(x, [2, 0]), [x]

    compiled = _compiled(build, form)
    good, bad = np.arange(4.0), np.arange(2.0)
    if form == "portable":
        xps = pytest.importorskip("array_api_strict")
        good, bad = xps.asarray(good), xps.asarray(bad)
    np.testing.assert_array_equal(np.asarray(compiled(good)), [2.0, 0.0])
    with pytest.raises(ExecutionIndexError, match=r"GatherV2: index 2 is not in \[0, 2\)"):
        compiled(bad)
