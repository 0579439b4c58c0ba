"""symgrad against TensorFlow 1 on the layer classes (``tf.layers.Dense``, ``Conv2D``, ...),
``tf.layers.conv1d``/``max_pooling1d``/``average_pooling1d``, ``data_format="channels_first"``,
``tf.orthogonal_initializer`` and ``tf.train.FtrlOptimizer``: tf_parity/programs_layer_classes.py,
recorded by tf_parity/record_tf.py into tf_parity/tf_fixtures_layer_classes.json.

Values and gradients are compared as in tests/test_tf_parity.py; the ``"names"`` a program
returns (layer, scope, variable, op and slot names, shapes, counts) must be TensorFlow's. Then
what the corpus cannot hold: errors that name the layer and the shapes, the names symgrad
gives where TF1's differ (documented in symgrad/layer_classes.py), and the orthogonal
initializer's algorithm, pinned against NumPy on the normal matrix it draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import DTypeError, InvalidArgumentError, ShapeError
from tests.test_tf_parity import FORMS, assert_matches_tensorflow, compare_fetches, load_fixtures
from tests.test_tf_parity_fidelity import _run_in_session
from tests.tf_parity.programs_layer_classes import PROGRAMS
from tests.tf_parity.record_tf import plain_names

FIXTURES = load_fixtures("tf_fixtures_layer_classes.json")
BY_NAME = {p.__name__: p for p in PROGRAMS}


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == set(BY_NAME)
    assert len(PROGRAMS) >= 40


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    expected = FIXTURES[program.__name__]["fetches"]
    with sg.Graph().as_default():
        stateful = "before" in program(sg)
    if not stateful:
        assert_matches_tensorflow(program, expected, optimize)
        return
    if not optimize:
        pytest.skip("a Session runs the fast form only")
    actual, built = _run_in_session(program)
    compare_fetches(program.__name__, actual, expected, built.get("rtol"))


NAMED = [p for p in PROGRAMS if "names" in FIXTURES[p.__name__]]


@pytest.mark.parametrize("program", NAMED, ids=[p.__name__ for p in NAMED])
def test_names_match_tensorflow(program) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        got = [[label, plain_names(value)] for label, value in program(sg)["names"]]
    want = FIXTURES[program.__name__]["names"]
    assert [label for label, _ in got] == [label for label, _ in want]
    differences = [
        f"{label}: symgrad {g!r}, TensorFlow {w!r}"
        for (label, w), (_, g) in zip(want, got, strict=True)
        if g != w
    ]
    assert not differences, "\n".join(differences)


def test_channels_first_layers_equal_their_channels_last_twins() -> None:
    # The corpus holds TF's values for both; they must agree with each other as well.
    for name, outputs in (
        ("conv2d_class_channels_first_equals_channels_last", 5),
        ("conv1d_class_channels_first_equals_channels_last", 5),
    ):
        fetches = FIXTURES[name]["fetches"]
        first, last = fetches[0], fetches[1]
        np.testing.assert_allclose(first["value"], last["value"], rtol=1e-5, atol=1e-6)
        for a, b in zip(fetches[2:outputs], fetches[outputs:], strict=True):
            np.testing.assert_allclose(a["value"], b["value"], rtol=1e-5, atol=1e-5)


# --- names TF1 gives that symgrad gives otherwise (documented) -------------------------------


def test_later_calls_of_a_variable_layer_build_one_scope_deeper() -> None:
    # TF1 re-enters 'dense/' (dense/MatMul_1); symgrad's dense() opens its own name scope, so a
    # later call builds under 'dense/dense/'. The variables are shared either way, and a later
    # layer's ops keep TF1's names (dense_1/...).
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3])
        layer = sg.layers.Dense(2)
        first, second, third = layer(x), layer(x), layer(x)
        other = sg.layers.Dense(2)(x)
        assert [t.op.name for t in (first, second, third, other)] == [
            "dense/BiasAdd",
            "dense/dense/BiasAdd",
            "dense/dense_1/BiasAdd",
            "dense_1/BiasAdd",
        ]
        assert [v.op.name for v in sg.trainable_variables()] == [
            "dense/kernel",
            "dense/bias",
            "dense_1/kernel",
            "dense_1/bias",
        ]


def test_object_names_count_layer_objects_only() -> None:
    # TF1 also counts the objects its functions make (tf.layers.dense(x, 2) makes a Dense):
    # there the Dense made after one is 'dense_2'. Its variable scope is TF1's either way.
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3])
        sg.layers.dense(x, 2)
        layer = sg.layers.Dense(2)
        layer(x)
        assert (layer.name, layer.scope_name) == ("dense_1", "dense_1")
    with sg.Graph().as_default():  # a new graph counts afresh
        assert sg.layers.Dense(2).name == "dense_1"
        assert sg.layers.Dense(2, name="mine").name == "mine"


def test_layer_attributes_before_and_after_the_first_call() -> None:
    with sg.Graph().as_default():
        layer = sg.layers.Conv2D(4, (3, 5), strides=2, padding="SAME")
        assert (layer.kernel_size, layer.strides, layer.padding) == ((3, 5), (2, 2), "same")
        assert not layer.built and layer.variables == [] and layer.dtype is None
        with pytest.raises(InvalidArgumentError, match="has not been used yet"):
            layer.scope_name  # noqa: B018
        with pytest.raises(AttributeError):
            layer.kernel  # noqa: B018
        layer(sg.placeholder(sg.float32, [None, 8, 8, 3]))
        assert (
            layer.built and layer.dtype == "float32" and layer.count_params() == 3 * 5 * 3 * 4 + 4
        )
        assert sg.layers.Dense(3, dtype=sg.float64).dtype == "float64"
        assert isinstance(sg.layers.Dense(2), sg.layers.Layer)
        assert "Dense" in sg.layers.__all__ and "conv1d" in sg.layers.__all__


def test_batch_norm_updates_are_those_of_its_training_calls() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4])
        layer = sg.layers.BatchNormalization()
        layer(x, training=True)
        layer(x)  # inference: no update
        layer(x, training=True)
        assert len(layer.updates) == 4
        assert layer.updates == sg.get_collection(sg.GraphKeys.UPDATE_OPS)
        assert len(sg.global_variables()) == 4


# --- clear errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: sg.layers.Dense(-1), r"layers\.Dense: units must be a non-negative integer"),
        (lambda: sg.layers.Dense(2, activation="nope"), r"layers\.Dense.*unknown activation"),
        (lambda: sg.layers.Conv2D(0, 3), r"layers\.Conv2D: filters must be a positive integer"),
        (lambda: sg.layers.Conv2D(2, (1, 2, 3)), r"layers\.Conv2D: kernel_size must be"),
        (lambda: sg.layers.Conv2D(2, 3, padding="full"), r"layers\.Conv2D: padding must be"),
        (lambda: sg.layers.Conv2D(2, 3, padding="causal"), r"layers\.Conv2D: padding must be"),
        (lambda: sg.layers.Conv1D(2, 0), r"layers\.Conv1D: kernel_size must be positive"),
        (lambda: sg.layers.Conv1D(2, 3, data_format="nchw"), r"layers\.Conv1D: data_format"),
        (lambda: sg.layers.MaxPooling2D(0, 2), r"layers\.MaxPooling2D: pool_size must be"),
        (lambda: sg.layers.MaxPooling1D(2, None), r"layers\.MaxPooling1D: strides must not"),
        (lambda: sg.layers.Dropout(1.5), r"layers\.Dropout: invalid value 1\.5.*between 0 and 1"),
        (lambda: sg.layers.BatchNormalization(axis="x"), r"layers\.BatchNormalization: axis"),
        (lambda: sg.layers.Dense(2, nonsense=1), r"layers\.Dense: unknown keyword arguments"),
    ],
)
def test_bad_arguments_are_refused_when_the_layer_is_made(make, message: str) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default(), pytest.raises(InvalidArgumentError, match=message):
        make()


def _shape_error(layer: Any, x: Any) -> str:
    with pytest.raises(ShapeError) as caught:
        layer(x)
    return str(caught.value)


def test_inputs_a_layer_cannot_take_name_the_layer_and_the_shapes() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4], name="x")
        text = _shape_error(sg.layers.Conv2D(2, 3), x)
        assert "layers.Conv2D 'conv2d_1'" in text and "'x:0'" in text and "(None, 4)" in text
        assert "rank 4" in text
        assert "rank 3" in _shape_error(sg.layers.MaxPooling1D(2, 2), x)
        assert "at least rank 2" in _shape_error(
            sg.layers.Dense(2), sg.placeholder(sg.float32, [4])
        )
        assert "known last dimension" in _shape_error(
            sg.layers.Dense(2), sg.placeholder(sg.float32, [None, None])
        )
        dense = sg.layers.Dense(3, name="fc")
        dense(x)
        text = _shape_error(dense, sg.placeholder(sg.float32, [None, 5], name="wide"))
        assert "layers.Dense 'fc'" in text and "(None, 5)" in text and "axis -1 of size 4" in text
        conv = sg.layers.Conv2D(2, 1, data_format="channels_first")
        conv(sg.placeholder(sg.float32, [None, 3, 6, 6]))
        text = _shape_error(conv, sg.placeholder(sg.float32, [None, 4, 6, 6]))
        assert "(None, 4, 6, 6)" in text and "axis 1 of size 3" in text
        text = _shape_error(sg.layers.BatchNormalization(axis=5), x)
        assert "layers.BatchNormalization" in text and "axis 5" in text
        with pytest.raises(DTypeError, match=r"layers\.Dense 'dense_\d+'.*int32"):
            sg.layers.Dense(2)(sg.placeholder(sg.int32, [None, 4]))


def test_functional_conv1d_and_pooling1d_check_their_inputs() -> None:
    with sg.Graph().as_default():
        flat = sg.placeholder(sg.float32, [None, 4], name="flat")
        with pytest.raises(
            ShapeError, match=r"layers\.conv1d.*\(None, 4\).*\[batch, width, channels\]"
        ):
            sg.layers.conv1d(flat, 2, 3)
        with pytest.raises(
            ShapeError, match=r"layers\.max_pooling1d.*\(None, 4\).*\[batch, channels, width\]"
        ):
            sg.layers.max_pooling1d(flat, 2, 2, data_format="channels_first")
        with pytest.raises(InvalidArgumentError, match=r"layers\.conv1d: strides must be"):
            sg.layers.conv1d(sg.placeholder(sg.float32, [None, 5, 2]), 2, 3, strides=(1, 1))
        with pytest.raises(InvalidArgumentError, match="'channels_last' or 'channels_first'"):
            sg.layers.average_pooling2d(
                sg.placeholder(sg.float32, [None, 4, 4, 1]), 2, 2, data_format="NHWC"
            )


def test_a_layer_belongs_to_one_graph() -> None:
    layer = sg.layers.Dense(2)
    with sg.Graph().as_default():
        layer(sg.placeholder(sg.float32, [None, 3]))
    with (
        sg.Graph().as_default(),
        pytest.raises(sg.errors.GraphMismatchError, match="another graph"),
    ):
        layer(sg.placeholder(sg.float32, [None, 3]))


# --- FtrlOptimizer's arguments ------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, message",
    [
        (
            {"initial_accumulator_value": -0.1},
            "initial_accumulator_value -0.100000 needs to be positive or zero",
        ),
        ({"learning_rate_power": 0.5}, "learning_rate_power 0.500000 needs to be negative or zero"),
        ({"l1_regularization_strength": -1.0}, "l1_regularization_strength -1.000000 needs"),
        ({"l2_regularization_strength": -1.0}, "l2_regularization_strength -1.000000 needs"),
        ({"l2_shrinkage_regularization_strength": -1.0}, "l2_shrinkage_regularization_strength"),
    ],
)
def test_ftrl_refuses_what_tf1_refuses(arguments: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sg.train.FtrlOptimizer(0.1, **arguments)


def test_ftrl_is_no_longer_a_missing_name() -> None:
    from symgrad.tf1_names import SUBSTITUTES

    assert "train.FtrlOptimizer" not in SUBSTITUTES
    assert sg.train.FtrlOptimizer is not None and "FtrlOptimizer" in sg.train.__all__


# --- the orthogonal initializer -----------------------------------------------------------------


def _draw(
    shape: list[int], gain: float, seed: int | None, dtype: Any = sg.float64
) -> tuple[np.ndarray, np.ndarray]:
    """(the initial value, the normal matrix its initializer drew) in one run."""
    with sg.Graph().as_default() as graph:
        sg.set_random_seed(7)
        w = sg.get_variable("w", shape, dtype, sg.orthogonal_initializer(gain, seed=seed))
        drawn = next(op for op in graph.get_operations() if op.type == "RandomStandardNormal")
        with sg.Session() as sess:
            value, normal = sess.run([w.initial_value, drawn.outputs[0]])
    return value, normal


@pytest.mark.parametrize("shape", [[6, 4], [4, 6], [5, 5], [3, 3, 2, 4], [2, 9]])
def test_orthogonal_is_tf1s_algorithm_on_the_matrix_it_draws(shape: list[int]) -> None:
    value, normal = _draw(shape, 1.5, seed=3)
    rows, columns = int(np.prod(shape[:-1])), shape[-1]
    assert normal.shape == ((columns, rows) if rows < columns else (rows, columns))
    q, r = np.linalg.qr(normal)
    q = q * np.sign(np.diag(r))
    expected = (q.T if rows < columns else q).reshape(shape) * 1.5
    np.testing.assert_allclose(value, expected, rtol=1e-10, atol=1e-12)
    matrix = value.reshape(rows, columns)
    gram = matrix.T @ matrix if rows >= columns else matrix @ matrix.T
    np.testing.assert_allclose(gram, 2.25 * np.eye(min(rows, columns)), atol=1e-12)


def test_orthogonal_is_deterministic_with_a_seed_and_differs_without() -> None:
    a, _ = _draw([5, 3], 1.0, seed=11)
    b, _ = _draw([5, 3], 1.0, seed=11)
    c, _ = _draw([5, 3], 1.0, seed=12)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_orthogonal_is_uniform_over_the_sign_of_each_column() -> None:
    # Without TF1's sign correction, Householder QR makes Q[0, 0] negative every time.
    signs = [np.sign(_draw([4, 4], 1.0, seed=s)[0][0, 0]) for s in range(40)]
    assert 8 < signs.count(1.0) < 32


def test_orthogonal_refuses_what_tf1_refuses() -> None:
    with sg.Graph().as_default():
        with pytest.raises(ShapeError, match="at least two dimensions"):
            sg.orthogonal_initializer()([5])
        with pytest.raises(DTypeError, match="floating"):
            sg.orthogonal_initializer(dtype=sg.int32)
    assert sg.initializers.orthogonal is sg.orthogonal_initializer
    assert sg.orthogonal_initializer(2.0, seed=1).get_config() == {
        "gain": 2.0,
        "seed": 1,
        "dtype": "float32",
    }


def test_orthogonal_float16_is_computed_in_float32() -> None:
    with sg.Graph().as_default():
        w = sg.get_variable("w", [6, 3], sg.float16, sg.orthogonal_initializer(seed=2))
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            value = sess.run(w)
    assert value.dtype == np.float16
    np.testing.assert_allclose(
        value.astype(np.float32).T @ value.astype(np.float32), np.eye(3), atol=3e-3
    )
