"""The remaining op gaps of the TF1-compatibility issue against TensorFlow 1: ``arg_min`` and
``arg_max``, ``int16``/``uint8``, ``trace`` of non-square and batched matrices, ``x[mask]``,
``gather`` with ``axis > batch_dims``, ``pow``'s exponent gradient at 0, the dtypes of the
gradients of ``div_no_nan``/``relu6``/``clip_by_value``, ``squeeze`` of unknown dims, lists
of tensors, and integer labels of ``softmax_cross_entropy_with_logits_v2``. The corpus is
tf_parity/programs_opgaps.py, recorded by tf_parity/record_tf.py into
tf_parity/tf_fixtures_opgaps.json and compared as in tests/test_tf_parity.py (the portable
form runs it in tests/test_array_api.py, which reads every corpus of ``CORPORA``).

Profiles (``SYMGRAD_OPGAPS_PROFILE``): ``ci`` (default) runs the corpus in the fast form;
``full`` also in the readable form::

    SYMGRAD_OPGAPS_PROFILE=full python -m pytest tests/test_tf_parity_opgaps.py

The errors where TF, too, refuses a program are checked below: the symgrad error is also
the builtin TF raises.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import DTypeError, InvalidArgumentError, ShapeError, SymgradError
from tests.test_tf_parity import assert_matches_tensorflow, corpus_params, load_fixtures
from tests.tf_parity.programs_opgaps import PROGRAMS

PROFILE = os.environ.get("SYMGRAD_OPGAPS_PROFILE", "ci")
FORMS = pytest.mark.parametrize(
    "optimize",
    [
        True,
        pytest.param(False, marks=pytest.mark.skipif(PROFILE != "full", reason="profile full")),
    ],
    ids=["fast", "readable"],
)
FIXTURES = load_fixtures("tf_fixtures_opgaps.json")

# program name -> what goes wrong (TensorFlow 2.21 compat.v1 vs symgrad).
KNOWN_BUGS: dict[str, str] = {}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", corpus_params(PROGRAMS, KNOWN_BUGS))
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


def test_session_feeds_and_fetches_small_ints() -> None:
    """A Session converts feeds to the placeholders' int16/uint8 and fetches those dtypes."""
    with sg.Graph().as_default():
        u = sg.placeholder(sg.uint8, [None])
        s = sg.placeholder(sg.int16)
        with sg.Session() as sess:
            got_u, got_s, ratio = sess.run(
                [u + 1, s * 2, u / 2], {u: [254, 3], s: np.array([[-300]], np.int64)}
            )
    assert got_u.dtype == np.uint8 and got_u.tolist() == [255, 4]
    assert got_s.dtype == np.int16 and got_s.tolist() == [[-600]]
    assert ratio.dtype == np.float32 and ratio.tolist() == [127.0, 1.5]


def test_trace_shapes() -> None:
    with sg.Graph().as_default():
        assert sg.trace(sg.zeros([2, 3])).shape == ()
        assert sg.linalg.trace(sg.zeros([5, 2, 3, 4])).shape == (5, 2)
        assert sg.trace(sg.placeholder(sg.float32, [None, 2, None])).shape == (None,)
        assert sg.trace(sg.placeholder(sg.float32)).shape is None


def test_trace_of_a_vector_is_refused() -> None:
    with sg.Graph().as_default():
        x = sg.constant([1.0, 2.0], name="v")
        with pytest.raises(ShapeError, match=r"Trace: 'v:0' \(2,\) needs at least two axes"):
            sg.trace(x)


def test_getitem_bool_mask_errors_are_tensorflows() -> None:
    """TF refuses a scalar mask (ValueError), a list of bools and a mask that is one part of
    the index (TypeError)."""
    with sg.Graph().as_default():
        x = sg.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], name="x")
        with pytest.raises(ShapeError, match=r"BooleanMask: .*'x:0' \(2, 3\).*cannot be scalar"):
            x[True]
        with pytest.raises(ShapeError, match=r"BooleanMask: .*cannot be scalar"):
            x[sg.constant(False)]
        with pytest.raises(DTypeError, match=r"StridedSlice: indexing 'x:0' \(2, 3\) with \[Tr"):
            x[[True, False]]
        with pytest.raises(DTypeError, match=r"StridedSlice: .*'x:0'.*whole index"):
            x[:, np.array([True, False, True])]
        with pytest.raises(DTypeError, match=r"StridedSlice: .*'x:0'.*whole index"):
            x[0, sg.constant([True, False, True])]
        with pytest.raises(ShapeError, match=r"BooleanMask: mask .* \(3,\) does not match"):
            x[np.array([True, False, True])]
    for error in (ShapeError, DTypeError):
        assert issubclass(error, SymgradError)
    assert issubclass(ShapeError, ValueError) and issubclass(DTypeError, TypeError)


def test_gather_batch_dims_errors() -> None:
    """As in TF, batch_dims may not exceed axis or the rank of indices; symgrad also needs the
    batch axes' sizes (and the gathered axis') to be static, and says so."""
    with sg.Graph().as_default():
        p = sg.constant(np.zeros((2, 3, 4), np.float32), name="p")
        i = sg.constant(np.zeros((2, 2), np.int32), name="i")
        with pytest.raises(InvalidArgumentError, match=r"GatherV2: batch_dims=1 with axis=0"):
            sg.gather(p, i, axis=0, batch_dims=1)
        with pytest.raises(InvalidArgumentError, match=r"GatherV2: batch_dims=3 with axis=2"):
            sg.gather(p, i, axis=2, batch_dims=3)
        fed = sg.placeholder(sg.float32, [None, 3, 4], name="fed")
        with pytest.raises(
            ShapeError,
            match=r"GatherV2: batch_dims=1 needs equal static batch axes.*'fed:0' "
            r"\(None, 3, 4\) with indices 'i:0' \(2, 2\)",
        ):
            sg.gather(fed, i, axis=2, batch_dims=1)
        shapeless = sg.placeholder(sg.float32, name="shapeless")
        with pytest.raises(ShapeError, match=r"GatherV2: batch_dims needs known ranks.*"):
            sg.gather(shapeless, i, axis=2, batch_dims=1)


def test_gather_past_batch_dims_shape() -> None:
    with sg.Graph().as_default():
        p = sg.zeros([2, 3, 4, 5])
        i = sg.zeros([2, 7, 6], sg.int32)
        assert sg.gather(p, i, axis=2, batch_dims=1).shape == (2, 3, 7, 6, 5)
        assert sg.gather(p, i, axis=-1, batch_dims=1).shape == (2, 3, 4, 7, 6)


def test_lists_of_tensors_of_two_dtypes_are_refused_without_a_dtype() -> None:
    """TF packs a list of tensors of one dtype; of two it raises TypeError unless a dtype is
    asked for (then it casts them)."""
    with sg.Graph().as_default():
        a = sg.constant(1, name="a")
        b = sg.constant(2, sg.int64, name="b")
        with pytest.raises(DTypeError, match=r"packing a list of tensors: 'b:0' has dtype int64"):
            sg.reduce_sum([a, b])
        assert sg.convert_to_tensor([a, b], dtype=sg.int64).dtype == sg.int64
