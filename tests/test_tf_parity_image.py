"""symgrad against TensorFlow 1 on ``tf.layers.conv2d_transpose``/``Conv2DTranspose`` and
``tf.image`` (flips, per_image_standardization, central_crop): tf_parity/programs_image.py,
recorded by tf_parity/record_tf.py into tf_parity/tf_fixtures_image.json. The comparison is
that of tests/test_tf_parity.py; the static shapes, names and errors below are TensorFlow
2.21's (tf.compat.v1 with tf-keras), written down by hand.
"""

from __future__ import annotations

import pytest

import symgrad as sg
from symgrad.errors import MissingTF1NameError
from tests.test_tf_parity import FORMS, assert_matches_tensorflow, load_fixtures
from tests.tf_parity.programs_image import PROGRAMS

FIXTURES = load_fixtures("tf_fixtures_image.json")


def test_fixtures_cover_corpus() -> None:
    assert set(FIXTURES) == {p.__name__ for p in PROGRAMS}


@FORMS
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_matches_tensorflow(program, optimize: bool) -> None:  # type: ignore[no-untyped-def]
    assert_matches_tensorflow(program, FIXTURES[program.__name__]["fetches"], optimize)


def test_conv2d_transpose_shapes_and_variables_follow_tf1() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 5, 7, 3])
        valid = sg.layers.conv2d_transpose(x, 4, (2, 5), strides=(3, 2))
        same = sg.layers.conv2d_transpose(x, 4, 3, strides=2, padding="same")
        z = sg.placeholder(sg.float32, [None, 3, 5, 7])
        first = sg.layers.conv2d_transpose(z, 4, 3, strides=2, data_format="channels_first")
        variables = [(v.op.name, list(v.shape)) for v in sg.global_variables()]
    assert tuple(valid.shape) == (None, 15, 17, 4)
    assert tuple(same.shape) == (None, 10, 14, 4)
    assert tuple(first.shape) == (None, 4, 11, 15)
    assert variables == [
        ("conv2d_transpose/kernel", [2, 5, 4, 3]),
        ("conv2d_transpose/bias", [4]),
        ("conv2d_transpose_1/kernel", [3, 3, 4, 3]),
        ("conv2d_transpose_1/bias", [4]),
        ("conv2d_transpose_2/kernel", [3, 3, 4, 3]),
        ("conv2d_transpose_2/bias", [4]),
    ]


def test_conv2d_transpose_reuses_by_name() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 2, 2, 1])
        sg.layers.conv2d_transpose(x, 2, 2, name="up")
        sg.layers.conv2d_transpose(x, 2, 2, name="up", reuse=True)
        assert [v.op.name for v in sg.trainable_variables()] == ["up/kernel", "up/bias"]


def test_conv2d_transpose_class_shares_its_variables() -> None:
    with sg.Graph().as_default():
        layer = sg.layers.Conv2DTranspose(4, 3, strides=2, activation="relu")
        x = sg.placeholder(sg.float32, [None, 5, 5, 2])
        y, y2 = layer(x), layer(x)
        assert layer.name == "conv2d_transpose_1"  # Keras' object name, as TF1's
        assert [v.op.name for v in sg.global_variables()] == [
            "conv2d_transpose/kernel",
            "conv2d_transpose/bias",
        ]
        assert tuple(layer.kernel.shape) == (3, 3, 4, 2) and layer.bias is not None
        assert tuple(y.shape) == tuple(y2.shape) == (None, 11, 11, 4)
        assert layer.strides == (2, 2) and layer.padding == "valid"
        with pytest.raises(sg.ShapeError, match="expected axis -1 of size 2"):
            layer(sg.placeholder(sg.float32, [None, 5, 5, 3]))
    # TF1's positional order: the sixth argument is the activation (no dilation_rate).
    assert sg.layers.Conv2DTranspose(1, 1, 1, "same", "channels_last", "tanh").activation == "tanh"


def test_conv2d_transpose_checks_its_arguments() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 4, 4, 3])
        with pytest.raises(sg.InvalidArgumentError, match="padding must be 'same' or 'valid'"):
            sg.layers.conv2d_transpose(x, 4, 3, padding="full")
        with pytest.raises(sg.InvalidArgumentError, match="kernel_size must be a positive int"):
            sg.layers.conv2d_transpose(x, 4, 0)
        with pytest.raises(sg.InvalidArgumentError, match="'channels_last' or 'channels_first'"):
            sg.layers.conv2d_transpose(x, 4, 3, data_format="NHWC")
        with pytest.raises(sg.ShapeError, match=r"conv2d_transpose.*\[batch, height, width"):
            sg.layers.conv2d_transpose(sg.placeholder(sg.float32, [None, 4]), 4, 3)
        with pytest.raises(sg.ShapeError, match="known height, width and channels"):
            sg.layers.conv2d_transpose(sg.placeholder(sg.float32, [None, None, 4, 3]), 4, 3)
        with pytest.raises(sg.InvalidArgumentError, match="not supported"):
            sg.layers.conv2d_transpose(x, 4, 3, kernel_constraint=lambda w: w)
        with pytest.raises(sg.InvalidArgumentError, match="padding must be one of"):
            sg.layers.Conv2DTranspose(4, 3, padding="full")


def test_image_shapes_follow_tf1() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 5, 7, 3])
        assert tuple(sg.image.central_crop(x, 0.5).shape) == (None, 3, 5, 3)
        assert tuple(sg.image.per_image_standardization(x).shape) == (None, 5, 7, 3)
        assert tuple(sg.image.flip_left_right(x).shape) == (None, 5, 7, 3)
        assert tuple(sg.image.flip_up_down(x).shape) == (None, 5, 7, 3)
        image = sg.placeholder(sg.float32, [9, 4, 1])
        assert tuple(sg.image.central_crop(image, 0.3).shape) == (3, 2, 1)
        assert sg.image.per_image_standardization(sg.zeros([2, 2, 1], sg.int32)).dtype == sg.float32


def test_image_functions_check_their_arguments() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 5, 7, 3])
        with pytest.raises(sg.ShapeError, match="must be at least three-dimensional"):
            sg.image.flip_left_right(sg.zeros([2, 3]))
        with pytest.raises(sg.ShapeError, match="must have either 3 or 4 dimensions"):
            sg.image.flip_up_down(sg.zeros([1, 2, 3, 4, 5]))
        with pytest.raises(sg.ShapeError, match="must be at least three-dimensional"):
            sg.image.per_image_standardization(sg.zeros([3, 3]))
        with pytest.raises(sg.ShapeError, match="no known rank"):
            sg.image.flip_left_right(sg.placeholder(sg.float32))
        for fraction in (0.0, 1.5, -0.2):
            with pytest.raises(sg.InvalidArgumentError, match=r"within \(0, 1\]"):
                sg.image.central_crop(x, fraction)
        with pytest.raises(sg.InvalidArgumentError, match="must be a Python number"):
            sg.image.central_crop(x, sg.constant(0.5))
        with pytest.raises(sg.ShapeError, match="static height and width"):
            sg.image.central_crop(sg.placeholder(sg.float32, [None, None, 4, 1]), 0.5)


def test_other_image_names_point_to_the_readme() -> None:
    with pytest.raises(MissingTF1NameError, match=r"tf\.image\.rot90 is a TF1 name.*Coming from"):
        sg.image.rot90  # noqa: B018
    with pytest.raises(MissingTF1NameError, match="resize_bilinear"):
        sg.image.resize_area  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        sg.image.no_such_name  # noqa: B018
