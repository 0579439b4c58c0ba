"""TF1's everyday elementwise, reduction and activation ops (issue 15, item 5): the idioms
TF1 programs write with them, their dtypes and their errors. Values and gradients against
TensorFlow are in tests/test_tf_parity_elemops.py, finite differences in
tests/test_elementwise_gradients.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad as sg

LABELS = np.eye(10, dtype=np.float32)[[3, 1, 4, 1, 5]]
PREDICTIONS = np.eye(10, dtype=np.float32)[[3, 1, 4, 0, 0]] * 0.9 + 0.01


def _accuracy_graph(form: str):  # type: ignore[no-untyped-def]
    y = sg.placeholder(sg.float32, [None, 10], name="y")
    y_ = sg.placeholder(sg.float32, [None, 10], name="y_")
    if form == "one_line":
        accuracy = sg.reduce_mean(sg.cast(sg.equal(sg.argmax(y, 1), sg.argmax(y_, 1)), sg.float32))
    else:
        correct_prediction = sg.equal(sg.argmax(y, 1), sg.argmax(y_, 1))
        accuracy = sg.reduce_mean(sg.cast(correct_prediction, "float"))
    return y, y_, accuracy


@pytest.mark.parametrize("form", ["one_line", "two_lines"])
def test_accuracy_idiom_with_session_run_and_eval(form: str) -> None:
    with sg.Graph().as_default():
        y, y_, accuracy = _accuracy_graph(form)
        with sg.Session() as sess:
            by_run = sess.run(accuracy, feed_dict={y: PREDICTIONS, y_: LABELS})
            by_eval = accuracy.eval(feed_dict={y: PREDICTIONS, y_: LABELS})
            twice = sess.run(accuracy, {y: PREDICTIONS[:2], y_: LABELS[:2]})  # another batch size
    assert by_run == pytest.approx(0.6) and by_eval == pytest.approx(0.6)
    assert np.asarray(by_run).dtype == np.float32
    assert twice == pytest.approx(1.0)


def test_in_top_k_takes_targets_declared_without_a_shape() -> None:
    """``y = tf.placeholder(tf.int32, shape=(None))`` declares no shape at all: in_top_k takes
    the targets as [batch], as TF's shape function does, and checks that when it runs."""
    scores = PREDICTIONS[:4]
    with sg.Graph().as_default():
        logits = sg.placeholder(sg.float32, [None, 10], name="logits")
        y = sg.placeholder(sg.int32, shape=(None), name="y")
        accuracy = sg.reduce_mean(sg.cast(sg.nn.in_top_k(logits, y, 1), sg.float32))
        with sg.Session() as sess:
            assert sess.run(accuracy, {logits: scores, y: [3, 1, 4, 9]}) == pytest.approx(0.75)
            with pytest.raises(sg.errors.ExecutionValueError, match="y"):
                sess.run(accuracy, {logits: scores, y: [[3], [1], [4], [9]]})
        with pytest.raises(sg.ShapeError, match="InTopK.*'matrix:0' .*must be \\[batch\\]"):
            sg.nn.in_top_k(logits, sg.placeholder(sg.int32, [None, 1], name="matrix"), 1)


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
def test_one_label_for_a_batch_is_refused_as_by_tensorflow(form: str) -> None:
    """TF's sparse cross-entropy and in_top_k require as many labels as rows of logits;
    NumPy would broadcast a single label over the batch and give a number."""
    options = {"fast": {}, "readable": {"optimize": False}, "portable": {"backend": "array_api"}}
    logits_value = np.random.default_rng(0).standard_normal((5, 10)).astype(np.float32)
    with sg.Graph().as_default():
        logits = sg.placeholder(sg.float32, [None, 10], name="logits")
        labels = sg.placeholder(sg.int32, [None], name="labels")
        loss = sg.reduce_mean(
            sg.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
        hits = sg.nn.in_top_k(logits, labels, 1)
        for output, op_type in ((loss, "SparseSoftmaxCrossEntropyWithLogits"), (hits, "InTopK")):
            compiled = sg.compile(output, [logits, labels], **options[form])  # type: ignore[arg-type]
            assert np.shape(compiled(logits_value, np.arange(5, dtype=np.int32))) in ((), (5,))
            with pytest.raises(sg.errors.ExecutionValueError, match=f"{op_type}: 1 entries"):
                compiled(logits_value, np.array([3], np.int32))
        with pytest.raises(sg.ShapeError, match=r"InTopK.*'known:0' must be \[batch\]"):
            sg.nn.in_top_k(
                sg.placeholder(sg.float32, [5, 10]), sg.placeholder(sg.int32, [4], name="known"), 1
            )


def test_argmax_dtype_shape_and_no_gradient() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4], name="x")
        index = sg.argmax(x, axis=1)
        assert index.dtype == sg.int64 and index.shape == (None,)
        assert sg.argmin(x, 1, output_type=sg.int32).dtype == sg.int32
        assert sg.argmax(x).shape == (4,)  # TF1: axis None is 0
        assert sg.gradients(sg.reduce_sum(sg.cast(index, sg.float32)), x) == [None]


def test_argmax_errors_name_the_op_and_tensor() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4], name="scores")
        with pytest.raises(sg.ShapeError, match="ArgMax.*axis 2.*scores"):
            sg.argmax(x, 2)
        with pytest.raises(sg.InvalidArgumentError, match="ArgMax.*not both"):
            sg.argmax(x, 1, dimension=1)
        with pytest.raises(sg.InvalidArgumentError, match="ArgMax.*scalar"):
            sg.argmax(sg.constant(1.0, name="one"), 0)
        # A rank known only at run time: the axis is read then, as by TF's kernel.
        assert sg.argmax(sg.placeholder(sg.float32, name="unknown"), 1).shape is None


def test_logical_and_integer_ops_check_dtypes() -> None:
    with sg.Graph().as_default():
        f = sg.constant([1.0, 2.0], name="f")
        with pytest.raises(sg.DTypeError, match="LogicalAnd.*'f:0'.*float32"):
            sg.logical_and(f, f)
        with pytest.raises(sg.DTypeError, match="TruncateDiv.*float32"):
            sg.truncatediv(f, f)
        with pytest.raises(sg.DTypeError, match="Any.*float32"):
            sg.reduce_any(f)
        with pytest.raises(sg.DTypeError, match="Atan2.*floating"):
            sg.atan2(sg.constant([1, 2]), sg.constant([1, 2]))
        with pytest.raises(sg.ShapeError, match="AddN.*one shape"):
            sg.add_n([f, sg.constant([1.0, 2.0, 3.0])])
        assert isinstance(sg.DTypeError("x"), TypeError)


def test_div_is_python_2_division() -> None:
    with sg.Graph().as_default():
        ints = sg.div(sg.constant([-7, 7]), 2)
        floats = sg.div(sg.constant([-7.0, 7.0]), 2)
        assert ints.dtype == sg.int32 and floats.dtype == sg.float32
        values = sg.compile([ints, floats])()
    np.testing.assert_array_equal(values[0], [-4, 3])
    np.testing.assert_array_equal(values[1], [-3.5, 3.5])


def test_float_scaled_mask_keeps_float32() -> None:
    """``0.2 * mask`` in a float32 gradient (leaky_relu, where) must not make it float64."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None], name="x")
        for y in (sg.nn.leaky_relu(x), sg.where(x > 0, x, 0.2 * x)):
            grad = sg.gradients(sg.reduce_sum(y * y), x)[0]
            for optimize in (True, False):
                value = sg.compile(grad, optimize=optimize)(np.array([1.0, -1.0], np.float32))
                assert value.dtype == np.float32


def test_numeric_root_keeps_float32() -> None:
    """sqrt(2 * x) is sqrt(2) * sqrt(x) to SymPy: sqrt(2) must be a Python number, not float64."""
    with sg.Graph().as_default():
        a = sg.placeholder(sg.float32, [None], name="a")
        norm = sg.global_norm([a])
        value = sg.compile(norm)(np.array([3.0, 4.0], np.float32))
    assert value.dtype == np.float32 and value == pytest.approx(5.0)


def test_moments_and_batch_normalization_train_a_layer() -> None:
    """A batch-normalized layer trained with a TF1 optimizer: the loss falls."""
    rng = np.random.default_rng(0)
    data = rng.normal(size=(32, 3)).astype(np.float32)
    target = (data @ np.array([1.0, -2.0, 0.5], np.float32) > 0).astype(np.float32)
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        t = sg.placeholder(sg.float32, [None], name="t")
        w = sg.Variable(np.full((3, 1), 0.1, np.float32), name="w")
        h = sg.nn.xw_plus_b(x, w, sg.constant([0.0]))
        mean, variance = sg.nn.moments(h, [0])
        z = sg.reshape(sg.nn.batch_normalization(h, mean, variance, None, 1.0, 1e-3), [-1])
        loss = sg.reduce_mean(sg.nn.weighted_cross_entropy_with_logits(t, z, 1.0))
        step = sg.train.GradientDescentOptimizer(0.5).minimize(loss)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            first = sess.run(loss, {x: data, t: target})
            for _ in range(30):
                sess.run(step, {x: data, t: target})
            last = sess.run(loss, {x: data, t: target})
    assert last < 0.5 * first
