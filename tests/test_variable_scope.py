"""Variables the TF1 way: variable_scope, get_variable, collections, regularizers.

The names and messages expected here are TensorFlow 2.21's (``tf.compat.v1``), taken from
running the same statements under it; the values are checked against the recorded corpus
in ``tf_parity/programs_scopes.py`` (``tests/test_tf_parity_scopes.py``).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import SymgradError
from symgrad.tf1.variable_scope import VariableScopeError


def _ones(shape, dtype=None, partition_info=None):  # type: ignore[no-untyped-def]
    return np.ones(shape)


def test_names_follow_variable_scopes_not_name_scopes() -> None:
    # TF 2.21: layer1/W:0 layer1/b:0 layer1/c:0 layer1/ns/mul:0
    with sg.Graph().as_default():
        with sg.variable_scope("layer1"):
            w = sg.get_variable("W", [2, 3])
            b = sg.get_variable("b", initializer=[1.0, 2.0, 3.0])
            with sg.name_scope("ns"):
                c = sg.get_variable("c", [3])
                d = sg.multiply(w, 2.0, name="mul")
        assert [w.name, b.name, c.name, d.name] == [
            "layer1/W:0",
            "layer1/b:0",
            "layer1/c:0",
            "layer1/ns/mul:0",
        ]
        with sg.name_scope("ns2"), sg.variable_scope("vs"):
            # TF 2.21: vs/k:0 ns2/vs/Const:0
            assert sg.get_variable("k", [1]).name == "vs/k:0"
            assert sg.constant(1.0).name == "ns2/vs/Const:0"
        with sg.variable_scope("a/b"):
            assert sg.get_variable("k", [1]).name == "a/b/k:0"
            assert sg.constant(1.0).name == "a/b/Const:0"


def test_reuse_and_reentering() -> None:
    with sg.Graph().as_default():
        with sg.variable_scope("layer1") as scope:
            w = sg.get_variable("W", [2, 3])
        with sg.variable_scope("layer1", reuse=True):
            assert sg.get_variable("W") is w
            # TF 2.21: layer1_1/Const:0; reuse=False cannot switch reuse off inside.
            assert sg.constant(1.0).name == "layer1_1/Const:0"
            with sg.variable_scope("inner", reuse=False):
                assert sg.get_variable_scope().reuse is True
        with sg.variable_scope(scope):
            # TF 2.21: layer1_2/Const:0 layer1, then layer1_2/sub/Const:0 layer1/sub
            assert sg.constant(1.0).name == "layer1_2/Const:0"
            assert sg.get_variable_scope().name == "layer1"
            with sg.variable_scope("sub"):
                assert sg.constant(1.0).name == "layer1_2/sub/Const:0"
                assert sg.get_variable_scope().name == "layer1/sub"
        assert scope.original_name_scope == "layer1/"
        with sg.variable_scope(scope, reuse=True):
            assert sg.get_variable("W", [2, 3]) is w
        with sg.variable_scope("layer1") as again:
            again.reuse_variables()
            assert sg.get_variable("W") is w
        with sg.variable_scope("auto", reuse=sg.AUTO_REUSE):
            first = sg.get_variable("v", [1])
            assert sg.get_variable("v", [1]) is first
        assert sg.get_variable_scope().name == ""


def test_default_names_are_made_unique_per_parent() -> None:
    with sg.Graph().as_default():
        names = []
        for _ in range(2):
            with sg.variable_scope(None, default_name="dense"):
                names.append((sg.get_variable("k", [1]).name, sg.constant(1.0).name))
        # TF 2.21: dense/k:0 dense/Const:0, dense_1/k:0 dense_1/Const:0
        assert names == [("dense/k:0", "dense/Const:0"), ("dense_1/k:0", "dense_1/Const:0")]
        inner = []
        for _ in range(2):
            with (
                sg.variable_scope("outer", reuse=sg.AUTO_REUSE),
                sg.variable_scope(None, default_name="dense"),
            ):
                inner.append(sg.get_variable("k", [1]).name)
        # Leaving "outer" forgets its default names, so a second pass finds the same ones.
        assert inner == ["outer/dense/k:0", "outer/dense/k:0"]


@pytest.mark.parametrize(
    "build, message",
    [
        # TF 2.21's first lines of each message.
        (
            lambda: sg.get_variable("W", [2, 3]),
            "Variable layer1/W already exists, disallowed. Did you mean to set reuse=True or "
            "reuse=tf.AUTO_REUSE in VarScope?",
        ),
        (
            lambda: sg.get_variable("Q", [2, 3]),
            "Variable layer1/Q does not exist, or was not created with tf.get_variable(). "
            "Did you mean to set reuse=tf.AUTO_REUSE in VarScope?",
        ),
        (
            lambda: sg.get_variable("W", [2, 4]),
            "Trying to share variable layer1/W, but specified shape (2, 4) and found shape (2, 3).",
        ),
    ],
    ids=["exists", "does_not_exist", "shape"],
)
def test_errors_are_tf1s(build, message: str) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        with sg.variable_scope("layer1"):
            sg.get_variable("W", [2, 3])
        reuse = None if "already exists" in message else True
        with sg.variable_scope("layer1", reuse=reuse), pytest.raises(ValueError) as caught:
            build()
        assert isinstance(caught.value, SymgradError)
        assert message in str(caught.value)


def test_errors_of_a_new_variable() -> None:
    with sg.Graph().as_default():
        with pytest.raises(ValueError, match="If initializer is a constant, do not specify shape"):
            sg.get_variable("x", [2], initializer=[1.0, 2.0])
        with pytest.raises(ValueError, match=r"must be fully defined, but instead was \(None, 2\)"):
            sg.get_variable("y", [None, 2])
        without_name = "reuse=True cannot be used without a name_or_scope"
        with (
            pytest.raises(ValueError, match=without_name),
            sg.variable_scope(None, default_name="d", reuse=True),
        ):
            pass
        with pytest.raises(TypeError), sg.variable_scope(1):  # type: ignore[arg-type]
            pass
        sg.get_variable("i", [2], dtype=sg.float64)
        with sg.variable_scope("", reuse=True), pytest.raises(TypeError, match="specified dtype"):
            sg.get_variable("i", [2], dtype=sg.float32)
    assert issubclass(VariableScopeError, SymgradError)


def test_initializers_values_and_dtypes() -> None:
    seen = {}

    def init(shape, dtype=None, partition_info=None):  # type: ignore[no-untyped-def]
        seen.update(shape=shape, dtype=dtype, partition_info=partition_info)
        return np.arange(np.prod(shape)).reshape(shape)

    with sg.Graph().as_default():
        a = sg.get_variable("a", [2, 3], initializer=init)
        assert seen == {"shape": [2, 3], "dtype": sg.float32, "partition_info": None}
        b = sg.get_variable("b", initializer=sg.constant([1, 2], dtype=sg.int32))
        c = sg.get_variable("c", initializer=np.array([1.5, 2.5]))
        d = sg.get_variable("d", [2], dtype=sg.float64, initializer=lambda shape, dtype: [7, 8])
        with sg.variable_scope("s", initializer=_ones, dtype=sg.float64):
            e = sg.get_variable("e", [2])
        f = sg.get_variable("f", [3], dtype=sg.int32)  # TF1's default: zeros for integers
        g = sg.get_variable("g", [40, 60])  # TF1's default for floats: Glorot uniform
        assert (b.dtype, c.dtype, d.dtype, e.dtype, f.dtype) == (
            sg.int32,
            sg.float64,
            sg.float64,
            sg.float64,
            sg.int32,
        )
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            values = sess.run([a, b, c, d, e, f, g])
            assert sess.run(g).tolist() == values[6].tolist()
    np.testing.assert_array_equal(values[0], np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(values[1], [1, 2])
    np.testing.assert_array_equal(values[2], [1.5, 2.5])
    np.testing.assert_array_equal(values[3], [7.0, 8.0])
    np.testing.assert_array_equal(values[4], [1.0, 1.0])
    np.testing.assert_array_equal(values[5], [0, 0, 0])
    limit = np.sqrt(6.0 / 100)
    assert np.abs(values[6]).max() <= limit
    assert np.abs(values[6]).max() > 0.9 * limit  # uniform over the whole range
    assert abs(values[6].mean()) < 0.02


def test_collections() -> None:
    with sg.Graph().as_default():
        with sg.variable_scope("layer1"):
            w = sg.get_variable("W", [2])
            h = sg.get_variable("h", [2], trainable=False)
        with sg.variable_scope("a/b"):
            k = sg.get_variable("k", [1])
        mine = sg.get_variable("m", [1], collections=["mine"])
        keys = sg.GraphKeys
        # Explicit collections replace the global one; a trainable variable is in the
        # trainable ones whatever they say (TF 2.21 compat.v1 gives the same lists).
        assert sg.get_collection(keys.TRAINABLE_VARIABLES) == [w, k, mine]
        assert sg.get_collection(keys.GLOBAL_VARIABLES) == [w, h, k]
        assert sg.get_collection(keys.TRAINABLE_VARIABLES, "layer1") == [w]
        assert sg.get_collection(keys.GLOBAL_VARIABLES, "a") == [k]
        assert sg.get_collection("mine") == [mine]
        assert sg.trainable_variables() == [w, k, mine] and sg.global_variables() == [w, h, k]
        sg.add_to_collection(keys.UPDATE_OPS, w)
        sg.get_collection(keys.UPDATE_OPS).append(k)  # a copy
        sg.get_collection_ref(keys.LOSSES).append(k)  # the collection itself
        sg.add_to_collections([keys.SUMMARIES, "x"], h)
        assert sg.get_collection(keys.UPDATE_OPS) == [w]
        assert sg.get_collection(keys.LOSSES) == [k]
        assert sg.get_collection("x") == [h] == sg.get_collection(keys.SUMMARIES)
        assert keys.REGULARIZATION_LOSSES == "regularization_losses"
    with sg.Graph().as_default():
        assert sg.get_collection(sg.GraphKeys.UPDATE_OPS) == []


def test_regularizers() -> None:
    l2 = sg.contrib.layers.l2_regularizer(0.1)
    with sg.Graph().as_default():
        w = sg.get_variable("w", initializer=[1.0, 2.0], regularizer=l2)
        with sg.variable_scope("s", regularizer=sg.contrib.layers.l1_regularizer(0.5)):
            v = sg.get_variable("v", initializer=[-1.0, 3.0])
        sg.get_variable("z", [2], regularizer=sg.contrib.layers.l2_regularizer(0.0))
        losses = sg.losses.get_regularization_losses()
        assert [t.op.name for t in losses] == [
            "w/Regularizer/l2_regularizer",
            "s/v/Regularizer/l1_regularizer",
        ]
        total = sg.losses.get_regularization_loss()
        loss = sg.reduce_sum(w * v) + total
        grads = sg.gradients(loss, [w, v])
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            got = sess.run([losses, total, grads])
    assert np.allclose(got[0], [0.25, 2.0]) and np.isclose(got[1], 2.25)
    np.testing.assert_allclose(got[2][0], [-1.0 + 0.1, 3.0 + 0.2], rtol=1e-6)
    np.testing.assert_allclose(got[2][1], [1.0 - 0.5, 2.0 + 0.5], rtol=1e-6)
    with sg.Graph().as_default():
        assert sg.losses.get_regularization_loss().dtype == sg.float32
    with pytest.raises(ValueError, match="less than 0"):
        sg.contrib.layers.l2_regularizer(-1.0)


def test_generated_names_follow_scopes_for_variables_and_slots() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 2], name="x")
        hidden = x
        for name in ("layer1", "layer2"):
            with sg.variable_scope(name):
                w = sg.get_variable("W", [2, 2])
                hidden = sg.tanh(sg.matmul(hidden, w))
        loss = sg.reduce_mean(hidden, name="loss")
        opt = sg.train.AdamOptimizer(0.1)
        train_op = opt.minimize(loss)
        compiled = sg.compile([loss, *sg.gradients(loss, sg.trainable_variables())], name="f")
        source = compiled.source
        assert "def f(layer1_W, layer2_W, x):" in source or "def f(x, layer1_W, layer2_W)" in source
        assert "d_loss_d_layer1_W" in source and "d_loss_d_layer2_W" in source
        slots = [opt.get_slot(v, "m").op.name for v in sg.trainable_variables()]
        assert slots == ["layer1/W/Adam", "layer2/W/Adam"]
        updates = [op.outputs[0] for op in train_op.attrs["control"] if op.outputs]
        step = sg.compile(updates, name="step").source
        for expected in ("layer1_W_Adam", "layer2_W_Adam_1", "new_layer1_W"):
            assert expected in step


def test_contrib_flatten_and_pickling_of_scopes() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 2, 3, 4])
        flat = sg.contrib.layers.flatten(x)
        assert flat.shape == (None, 24)
        value = np.arange(48, dtype=np.float32).reshape(2, 2, 3, 4)
        with sg.Session() as sess:
            np.testing.assert_array_equal(sess.run(flat, {x: value}), value.reshape(2, 24))
        with pytest.raises(ValueError, match="flatten"):
            sg.contrib.layers.flatten(sg.placeholder(sg.float32, [None]))
    assert pickle.loads(pickle.dumps(sg.GraphKeys.UPDATE_OPS)) == "update_ops"
    assert pickle.loads(pickle.dumps(sg.AUTO_REUSE)) is sg.AUTO_REUSE


def test_loss_collections_and_combined_regularizers() -> None:
    layers = sg.contrib.layers
    with sg.Graph().as_default():
        w = sg.get_variable(
            "w", initializer=[1.0, -2.0], regularizer=layers.l1_l2_regularizer(0.5, 0.1)
        )
        v = sg.get_variable("v", initializer=[3.0])
        data = sg.reduce_sum(w * w)
        sg.losses.add_loss(data)
        assert sg.losses.get_losses() == [data]
        applied = layers.apply_regularization(layers.l2_regularizer(1.0), [v])
        total = sg.losses.get_total_loss()
        assert total.op.name == "total_loss"
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            got = sess.run([sg.losses.get_regularization_losses(), applied, total])
    # l1: 0.5 * 3, l2: 0.1 * 5 / 2; v: 9 / 2; data: 5
    np.testing.assert_allclose(got[0], [1.75, 4.5], rtol=1e-6)
    np.testing.assert_allclose([got[1], got[2]], [4.5, 5.0 + 1.75 + 4.5], rtol=1e-6)
    assert layers.sum_regularizer([layers.l2_regularizer(0.0)])(sg.constant(1.0)) is None
    with sg.Graph().as_default(), pytest.raises(ValueError, match="no losses"):
        sg.losses.get_total_loss()
