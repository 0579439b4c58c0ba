"""Corpus of TF1 programs for ``tf.layers.conv2d_transpose`` / ``tf.layers.Conv2DTranspose``
and ``tf.image`` (flips, ``per_image_standardization``, ``central_crop``).

Same conventions as ``programs.py`` (``fn(tf)`` returning fetches and feeds). Initializers are
constants so that the numbers do not depend on a random generator. Recording needs the legacy
Keras that ``tf.layers`` is built on in TensorFlow 2.21: ``pip install tf-keras==2.21.0`` and
``TF_USE_LEGACY_KERAS=1``.

Covered: ``layers.conv2d_transpose`` with "valid" and "same" padding, strides that differ per
axis, kernels smaller and larger than the strides, a ``None`` batch, an activation, no bias,
its gradients in the input, kernel and bias; ``layers.Conv2DTranspose`` called twice (one set
of variables); ``image.flip_left_right``/``flip_up_down`` of 3-D and 4-D images;
``image.per_image_standardization`` of float64, int32 and uniform images (float32 results);
``image.central_crop`` at fractions whose offsets round down; gradients through all of them.
"""

import numpy as np

PROGRAMS = []


def _program(fn):
    if any(p.__name__ == fn.__name__ for p in PROGRAMS):
        raise ValueError(f"duplicate program name: {fn.__name__}")
    PROGRAMS.append(fn)
    return fn


def _arr(seed, shape, low=-1.0, high=1.0, dtype=np.float64):
    return np.random.RandomState(seed).uniform(low, high, size=shape).astype(dtype)


def _weights(seed, shape, dtype=np.float64):
    """Fixed weights for a weighted sum, so that each output element has its own gradient."""
    return _arr(seed, shape, 0.5, 2.0, dtype)


@_program
def conv2d_transpose_valid_strided_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 3, 4, 2], name="x")
    y = tf.layers.conv2d_transpose(
        x,
        3,
        (3, 2),
        strides=(2, 3),
        activation=tf.nn.relu,
        kernel_initializer=tf.constant_initializer(_arr(1, (3, 2, 3, 2))),
        bias_initializer=tf.constant_initializer(0.1),
    )
    loss = tf.reduce_sum(y * _weights(2, (2, 7, 12, 3)))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(3, (2, 3, 4, 2))},
    }


@_program
def conv2d_transpose_same_no_bias(tf):
    x = tf.placeholder(tf.float32, [None, 3, 3, 2], name="x")
    y = tf.layers.conv2d_transpose(
        x,
        2,
        3,
        strides=2,
        padding="same",
        use_bias=False,
        kernel_initializer=tf.constant_initializer(_arr(4, (3, 3, 2, 2))),
    )
    loss = tf.reduce_sum(tf.tanh(y))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(5, (1, 3, 3, 2), dtype=np.float32)},
        "rtol": 1e-5,
    }


@_program
def conv2d_transpose_kernel_smaller_than_stride(tf):
    x = tf.placeholder(tf.float64, [None, 2, 3, 1], name="x")
    y = tf.layers.conv2d_transpose(
        x,
        2,
        (1, 2),
        strides=(3, 3),
        padding="valid",
        kernel_initializer=tf.constant_initializer(_arr(6, (1, 2, 2, 1))),
        bias_initializer=tf.constant_initializer(-0.5),
    )
    same = tf.layers.conv2d_transpose(
        x,
        1,
        (4, 2),
        strides=(3, 1),
        padding="same",
        kernel_initializer=tf.constant_initializer(_arr(7, (4, 2, 1, 1))),
    )
    loss = tf.reduce_sum(tf.square(y)) + tf.reduce_sum(same * _weights(8, (3, 6, 3, 1)))
    return {
        "fetches": [y, same, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(9, (3, 2, 3, 1))},
    }


@_program
def conv2d_transpose_class_called_twice(tf):
    x = tf.placeholder(tf.float64, [None, 2, 2, 2], name="x")
    layer = tf.layers.Conv2DTranspose(
        2,
        2,
        strides=2,
        activation=tf.tanh,
        kernel_initializer=tf.constant_initializer(_arr(10, (2, 2, 2, 2))),
        bias_initializer=tf.constant_initializer(0.2),
    )
    a = layer(x)
    b = layer(x * 2.0)
    loss = tf.reduce_sum(a * b)
    return {
        "fetches": [a, b, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(11, (2, 2, 2, 2))},
    }


@_program
def flips_of_3d_and_4d_images_and_gradients(tf):
    image = tf.placeholder(tf.float64, [3, 4, 2], name="image")
    batch = tf.placeholder(tf.float32, [None, 3, 2, 3], name="batch")
    flips = [
        tf.image.flip_left_right(image),
        tf.image.flip_up_down(image),
        tf.image.flip_left_right(batch),
        tf.image.flip_up_down(batch),
    ]
    loss = tf.reduce_sum(flips[0] * _weights(12, (3, 4, 2))) + tf.reduce_sum(
        flips[1] * _weights(13, (3, 4, 2))
    )
    batch_loss = tf.reduce_sum(flips[2] * _weights(14, (2, 3, 2, 3), np.float32)) + tf.reduce_sum(
        tf.square(flips[3])
    )
    return {
        "fetches": flips + tf.gradients(loss, [image]) + tf.gradients(batch_loss, [batch]),
        "feeds": {image: _arr(15, (3, 4, 2)), batch: _arr(16, (2, 3, 2, 3), dtype=np.float32)},
    }


@_program
def per_image_standardization_and_gradients(tf):
    image = tf.placeholder(tf.float64, [4, 3, 2], name="image")
    batch = tf.placeholder(tf.float32, [None, 2, 3, 2], name="batch")
    one = tf.image.per_image_standardization(image)
    many = tf.image.per_image_standardization(batch)
    loss = tf.reduce_sum(one * _weights(17, (4, 3, 2), np.float32))
    batch_loss = tf.reduce_sum(many * _weights(18, (3, 2, 3, 2), np.float32))
    return {
        "fetches": [one, many] + tf.gradients(loss, [image]) + tf.gradients(batch_loss, [batch]),
        "feeds": {
            image: _arr(19, (4, 3, 2), 0.0, 255.0),
            batch: _arr(20, (3, 2, 3, 2), dtype=np.float32),
        },
        "rtol": 1e-3,  # float32 sums; gradients of weighted sums cancel to ~1e-6
    }


@_program
def per_image_standardization_of_ints_and_uniform_images(tf):
    pixels = tf.placeholder(tf.int32, [None, 2, 2, 3], name="pixels")
    uniform = tf.fill([2, 3, 1], 7.0)
    return {
        "fetches": [
            tf.image.per_image_standardization(pixels),
            tf.image.per_image_standardization(uniform),
        ],
        "feeds": {
            pixels: np.random.RandomState(21).randint(0, 256, size=(2, 2, 2, 3)).astype(np.int32)
        },
        "rtol": 1e-5,
    }


@_program
def central_crop_offsets_and_gradients(tf):
    image = tf.placeholder(tf.float64, [7, 5, 2], name="image")
    batch = tf.placeholder(tf.float64, [None, 6, 9, 1], name="batch")
    crops = [
        tf.image.central_crop(image, 0.5),
        tf.image.central_crop(image, 0.3),
        tf.image.central_crop(image, 1.0),
        tf.image.central_crop(batch, 0.77),
        tf.image.central_crop(batch, 0.1),
    ]
    loss = sum(tf.reduce_sum(c * c) for c in crops[:3])
    batch_loss = tf.reduce_sum(crops[3] * 3.0) + tf.reduce_sum(tf.exp(crops[4]))
    return {
        "fetches": crops + tf.gradients(loss, [image]) + tf.gradients(batch_loss, [batch]),
        "feeds": {image: _arr(22, (7, 5, 2)), batch: _arr(23, (2, 6, 9, 1))},
    }
