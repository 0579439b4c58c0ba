"""Arguments TF's kernels refuse when run are refused by every form, not computed anyway.

Each case's values were confirmed under TF 2.21 (``compat.v1``): the good feed gives the
expected result there, the bad feed an ``InvalidArgumentError``. NumPy would take the bad
feeds: ``np.pad`` mirrors a short axis again and again, a segment sum adds a row to the
segment its id names whether the ids are sorted, negative or past ``num_segments``, and
``[batch, 1]`` labels against logits of unknown rank broadcast into a ``[batch, batch]`` loss.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import ExecutionError, InvalidArgumentError

Build = Callable[[], tuple[Any, list[Any]]]


def _mirror_pad(mode: str) -> Build:
    def build() -> tuple[Any, list[Any]]:
        x = sg.placeholder(sg.float64, [None, 2], name="x")
        return sg.pad(x, [[1, 2], [0, 0]], mode=mode), [x]

    return build


def _segments(op: Callable[..., Any], *count: int) -> Build:
    def build() -> tuple[Any, list[Any]]:
        data = sg.placeholder(sg.float64, [None, 2], name="data")
        ids = sg.placeholder(sg.int32, [None], name="ids")
        return op(data, ids, *count), [data, ids]

    return build


def _sparse_cross_entropy() -> tuple[Any, list[Any]]:
    labels = sg.placeholder(sg.int32, name="labels")  # no shapes: checked when run
    logits = sg.placeholder(sg.float64, name="logits")
    loss = sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return loss, [labels, logits]


_ROWS = np.arange(6.0).reshape(3, 2)
_IDS = np.array

CASES: dict[str, tuple[Build, tuple[Any, ...], Any, list[tuple[tuple[Any, ...], str]]]] = {
    # name: (graph, good feed, its result, [(bad feed, words of the error)])
    "pad_reflect": (
        _mirror_pad("REFLECT"),
        (_ROWS,),
        [[2, 3], [0, 1], [2, 3], [4, 5], [2, 3], [0, 1]],
        [((_ROWS[:2],), "MirrorPad: axis 0 of shape \\[2, 2\\] must have at least 3 entries")],
    ),
    "pad_symmetric": (
        _mirror_pad("SYMMETRIC"),
        (_ROWS[:2],),
        [[0, 1], [0, 1], [2, 3], [2, 3], [0, 1]],
        [((_ROWS[:1],), "MirrorPad: axis 0 of shape \\[1, 2\\] must have at least 2 entries")],
    ),
    "sparse_cross_entropy": (
        _sparse_cross_entropy,
        (_IDS([1, 2, 0], np.int32), np.zeros((3, 3))),
        np.full(3, np.log(3.0)),
        [
            (
                (_IDS([[1], [2], [0]], np.int32), np.zeros((3, 3))),
                "labels of shape \\[3, 1\\] must have the shape of the logits \\[3, 3\\]",
            )
        ],
    ),
    "segment_sum": (
        _segments(sg.segment_sum),
        (_ROWS, _IDS([0, 0, 2], np.int32)),
        [[2, 4], [0, 0], [4, 5]],
        [
            ((_ROWS, _IDS([1, 0, 1], np.int32)), "SegmentSum: segment ids are not sorted"),
            ((_ROWS, _IDS([-1, 0, 1], np.int32)), "SegmentSum: segment id -1 is negative"),
        ],
    ),
    "segment_mean": (
        _segments(sg.segment_mean),
        (_ROWS, _IDS([0, 0, 1], np.int32)),
        [[1, 2], [4, 5]],
        [((_ROWS, _IDS([1, 1, 0], np.int32)), "SegmentMean: segment ids are not sorted")],
    ),
    "unsorted_segment_sum": (
        _segments(sg.unsorted_segment_sum, 3),
        (_ROWS, _IDS([2, -1, 2], np.int32)),
        [[0, 0], [0, 0], [4, 6]],
        [((_ROWS, _IDS([0, 3, 1], np.int32)), "UnsortedSegmentSum: segment id 3 is not in")],
    ),
    "unsorted_segment_max": (
        _segments(sg.unsorted_segment_max, 2),
        (_ROWS, _IDS([1, 1, 0], np.int32)),
        [[4, 5], [2, 3]],
        [((_ROWS, _IDS([0, 2, 1], np.int32)), "UnsortedSegmentMax: segment id 2 is not in")],
    ),
}


def _run(build: Build, form: str) -> Callable[..., Any]:
    graph = sg.Graph()
    with graph.as_default():
        output, inputs = build()
        if form == "session":
            session = sg.Session(graph=graph)
            return lambda *values: session.run(output, dict(zip(inputs, values, strict=True)))
        if form == "portable":
            return sg.compile(output, inputs, backend="array_api")
        return sg.compile(output, inputs, optimize=form == "fast")


@pytest.mark.parametrize("form", ["fast", "readable", "portable", "session"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_feed_tf_refuses_is_an_error_in_every_form(name: str, form: str) -> None:
    build, good, expected, bad_feeds = CASES[name]
    run = _run(build, form)
    convert: Callable[[Any], Any] = lambda value: value  # noqa: E731
    if form == "portable":
        convert = pytest.importorskip("array_api_strict").asarray
    np.testing.assert_allclose(np.asarray(run(*map(convert, good))), expected, rtol=1e-12)
    for bad, words in bad_feeds:
        with pytest.raises(ExecutionError, match=words) as caught:
            run(*map(convert, bad))
        assert isinstance(caught.value, (ValueError, IndexError))


def test_constant_segment_ids_past_num_segments_are_refused_when_built() -> None:
    words = "segment id 3 of .* is not in \\[0, 3\\)"
    with sg.Graph().as_default(), pytest.raises(InvalidArgumentError, match=words):
        sg.unsorted_segment_sum(sg.constant(_ROWS), [0, 3, 1], 3)
