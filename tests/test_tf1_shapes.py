"""Shapes and dtypes as TF1 has them (issue 15, item 6): TensorShape, dtype names, tensors as
shape, axis and index arguments. Values are TensorFlow 2.21's (``tf.compat.v1``), from running
the same statements; the tensor-argument ops are in the recorded corpus
(``tf_parity/programs_train.py``)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import SymgradError


def test_tensor_shape_api_is_tf1s() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 28, 28])
        s = x.get_shape()
    # TF 2.21: [None, 28, 28] 3 28 None False True [5, 28, 28] 784 [None, 28, 28, 3]
    assert isinstance(s, sg.TensorShape) and x.shape is s
    assert s.as_list() == [None, 28, 28] and s.ndims == 3 and s.rank == 3
    assert s[1].value == 28 and s[0] is None and not s.is_fully_defined()
    assert s == [None, 28, 28] and s == (None, 28, 28) and s != [None, 28, 27]
    assert s.merge_with([5, None, 28]).as_list() == [5, 28, 28]
    assert s[1:].num_elements() == 784 and s[1:].is_fully_defined()
    assert s.concatenate([3]).as_list() == [None, 28, 28, 3]
    assert [d if d is None else d.value for d in s] == [None, 28, 28]
    assert s.dims[2].value == 28 and int(s[2]) * 2 == 56
    assert repr(s) == "(None, 28, 28)" and hash(s) == hash((None, 28, 28))
    with pytest.raises(ValueError, match="incompatible"):
        s.merge_with([5, 27, 28])
    with pytest.raises(ValueError, match="must have rank 2"):
        s.with_rank(2)
    assert sg.TensorShape([2, 3]).is_fully_defined()
    with sg.Graph().as_default():
        assert sg.placeholder(sg.float32).get_shape() is None  # unknown rank


def test_dtype_names() -> None:
    with sg.Graph().as_default():
        c = sg.constant([1, 2])
        assert sg.cast(c, "float").dtype == sg.float32  # TF 2.21: float32
        assert sg.cast(c, "double").dtype == sg.float64  # TF 2.21: float64
        assert sg.as_dtype("string") is sg.string
        text = sg.placeholder(sg.string, [None], name="text")  # host-side (tests/test_strings.py)
        assert text.dtype == sg.string
        with pytest.raises(TypeError, match="cannot compute a string tensor") as caught:
            sg.cast(c, sg.string)
        assert isinstance(caught.value, SymgradError)


def test_run_time_tensors_as_static_arguments_are_clear_errors() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        n = sg.placeholder(sg.int32, [], name="n")
        with pytest.raises(ValueError, match=r"Reshape: .*not tensor 'strided_slice.*run time"):
            sg.reshape(x, [sg.shape(x)[0], -1])
        with pytest.raises(TypeError, match="tensor 'n:0' is used as an int.*run time"):
            sg.expand_dims(x, n)
        with pytest.raises(TypeError, match="run time"):
            sg.reduce_sum(x, n)
        with pytest.raises(ValueError, match="computed at run time"):
            sg.zeros(sg.placeholder(sg.int32, [2], name="dims"))  # not a list of sizes
        scale = sg.placeholder(sg.float32, [], name="scale")
        with pytest.raises(ValueError, match=r"Zeros: a size .* not 'scale:0' float32"):
            sg.zeros([scale, 2])
        with pytest.raises(ValueError, match=r"Ones: a size .* not 'Shape.*int32\(2,\)"):
            sg.ones([sg.shape(x), 2])


def test_sizes_computed_at_run_time_among_ints_make_arrays_of_that_shape() -> None:
    """``tf.zeros([tf.shape(x)[0], 4])`` (an RNN's zero state): TF takes a list, or a stack,
    of sizes some of which are scalar int tensors; so do zeros, ones and fill."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        n = sg.placeholder(sg.int32, [], name="n")
        made = [sg.zeros([sg.shape(x)[0], 4]), sg.ones(sg.stack([n, 2]), sg.int32)]
        made.append(sg.fill([2, n], 7.0))
        assert [t.shape for t in made] == [(None, 4), (None, 2), (2, None)]
        with sg.Session() as sess:
            values = sess.run(made, {x: np.zeros((3, 3), np.float32), n: 5})
    assert [v.shape for v in values] == [(3, 4), (5, 2), (2, 5)]
    assert [v.dtype for v in values] == [np.float32, np.int32, np.float32]


def test_run_time_shapes_work_dynamically() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 2], name="x")
        made = [sg.zeros(sg.shape(x)), sg.ones(sg.shape(x), sg.int32), sg.fill(sg.shape(x), 3.0)]
        made.append(sg.broadcast_to(sg.constant([1.0, 2.0]), sg.shape(x)))
        assert [t.shape for t in made] == [(None, 2)] * 4
        with sg.Session() as sess:
            values = sess.run(made, {x: np.zeros((3, 2), np.float32)})
    assert [v.shape for v in values] == [(3, 2)] * 4
    assert values[1].dtype == np.int32 and values[2].tolist() == [[3.0, 3.0]] * 3
    assert values[3].tolist() == [[1.0, 2.0]] * 3


@pytest.mark.parametrize("optimize", [True, False])
def test_broadcast_to_a_run_time_shape_gives_exactly_that_shape(optimize: bool) -> None:
    """``broadcast_to(x, shape(y))`` is computed as ``x + zeros_like(y)``, which would also
    spread ``y``'s size-1 axes over ``x``'s; TF's kernel refuses that (shapes confirmed under
    TF 2.21: [2, 1] to [1, 3] raises, to [2, 3] gives [2, 3])."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 1], name="x")
        y = sg.placeholder(sg.float64, [None, 3], name="y")
        spread = sg.broadcast_to(x, sg.shape(y))
        (grad,) = sg.gradients(sg.reduce_sum(spread * spread), [x])
        compiled = sg.compile([spread, grad], [x, y], optimize=optimize)
        column = np.array([[1.0], [2.0]])
        out, d_x = compiled(column, np.zeros((2, 3)))
        np.testing.assert_array_equal(out, np.repeat(column, 3, 1))
        np.testing.assert_array_equal(d_x, 6 * column)
        with pytest.raises(SymgradError, match=r"BroadcastTo: 2 entries along axis 0"):
            compiled(column, np.zeros((1, 3)))
        with pytest.raises(SymgradError, match="BroadcastTo: cannot broadcast 'x:0'"):
            sg.broadcast_to(x, sg.shape(sg.placeholder(sg.float64, [None])))
        z = sg.placeholder(sg.float64, [1, None], name="z")
        with pytest.raises(
            SymgradError,
            match=r"BroadcastTo: cannot broadcast 'Const:0' of shape \(2, 1\) to the shape of 'z:0'",
        ):
            sg.broadcast_to(sg.constant(np.ones((2, 1))), sg.shape(z))
        shapeless = sg.broadcast_to(sg.placeholder(sg.float64, name="w"), sg.shape(y))
        assert shapeless.shape == (None, 3)


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
def test_fill_writes_infinities_as_code_that_runs(form: str) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 2], name="x")
        made = [sg.fill([2, 2], -np.inf), sg.fill([sg.shape(x)[0], 2], np.nan)]
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            low, missing = sg.compile(made, [x], backend="array_api")(xps.asarray(np.ones((3, 2))))
        else:
            low, missing = sg.compile(made, [x], optimize=form == "fast")(np.ones((3, 2)))
    assert np.all(np.asarray(low) == -np.inf) and np.all(np.isnan(np.asarray(missing)))
    assert np.asarray(missing).shape == (3, 2)


def test_fill_of_sizes_known_when_run_takes_a_scalar_value_only() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        with pytest.raises(sg.ShapeError, match=r"Fill: value 'strided_slice.* must be a scalar"):
            sg.fill([sg.shape(x)[0], 3], x[0])


def test_a_vector_condition_picks_rows_as_in_tf1() -> None:
    """TF1's where (Select) of a vector picks rows, whatever the static sizes say, and the
    vector must be as long as the first axis (TF 2.21 raises otherwise)."""
    with sg.Graph().as_default():
        keep = sg.placeholder(sg.bool, [None], name="keep")
        square = sg.placeholder(sg.float64, [2, 2], name="square")
        picked = sg.where(keep, square, sg.zeros_like(square))
        compiled = sg.compile(picked, [keep, square])
        np.testing.assert_array_equal(
            compiled(np.array([True, False]), np.array([[1.0, 2.0], [3.0, 4.0]])),
            [[1.0, 2.0], [0.0, 0.0]],
        )
        with pytest.raises(ValueError, match="Select: 3 entries along axis 0"):
            compiled(np.array([True, False, True]), np.ones((2, 2)))
        with pytest.raises(sg.ShapeError, match="Select: the condition .* must have 2 entries"):
            sg.where(sg.constant([True, False, True]), square, square)


def test_one_hot_takes_constant_tensors_as_on_and_off_values() -> None:
    with sg.Graph().as_default():
        on = sg.constant(2.0, sg.float16)
        made = sg.one_hot([0, 2], 3, on_value=on, off_value=sg.constant(0.0, sg.float16))
        assert made.dtype == sg.float16
        np.testing.assert_array_equal(sg.compile(made)(), [[2.0, 0.0, 0.0], [0.0, 0.0, 2.0]])
        fed = sg.placeholder(sg.float32, [], name="fed")
        with pytest.raises(sg.InvalidArgumentError, match="on_value must be a number or a"):
            sg.one_hot([0], 3, on_value=fed)


def test_constant_int_tensors_serve_as_perms_sizes_and_axes() -> None:
    """Shapes confirmed under TF 2.21: (2, 3, 2), (2, 2, 1), (2, 3)."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 2, 3], name="x")
        made = [
            sg.transpose(x, sg.constant([0, 2, 1])),
            sg.split(x, sg.constant([1, 2]), axis=2)[0],
            sg.reduce_sum(x, sg.constant([1])),
        ]
        with sg.Session() as sess:
            values = sess.run(made, {x: np.ones((2, 2, 3))})
    assert [v.shape for v in values] == [(2, 3, 2), (2, 2, 1), (2, 3)]
