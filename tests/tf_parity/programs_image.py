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


# ---------------------------------------------------------------------------
# layers.separable_conv2d / layers.SeparableConv2D
# ---------------------------------------------------------------------------


@_program
def separable_conv2d_layer_same_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 6, 5, 3], name="x")
    y = tf.layers.separable_conv2d(
        x,
        4,
        3,
        padding="same",
        depth_multiplier=2,
        activation=tf.nn.relu,
        depthwise_initializer=tf.constant_initializer(_arr(11, (3, 3, 3, 2))),
        pointwise_initializer=tf.constant_initializer(_arr(12, (1, 1, 6, 4))),
        bias_initializer=tf.constant_initializer(0.1),
    )
    loss = tf.reduce_sum(y * _weights(13, (2, 6, 5, 4)))
    return {
        "fetches": [y, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(14, (2, 6, 5, 3))},
    }


@_program
def separable_conv2d_layer_strided_dilated_no_bias(tf):
    x = tf.placeholder(tf.float32, [None, 7, 7, 2], name="x")
    strided = tf.layers.separable_conv2d(
        x,
        3,
        (3, 2),
        strides=2,
        use_bias=False,
        depthwise_initializer=tf.constant_initializer(_arr(15, (3, 2, 2, 1))),
        pointwise_initializer=tf.constant_initializer(_arr(16, (1, 1, 2, 3))),
    )
    dilated = tf.layers.separable_conv2d(
        x,
        2,
        2,
        padding="same",
        dilation_rate=2,
        depthwise_initializer=tf.constant_initializer(_arr(17, (2, 2, 2, 1))),
        pointwise_initializer=tf.constant_initializer(_arr(18, (1, 1, 2, 2))),
    )
    loss = tf.reduce_sum(strided * _weights(19, (1, 3, 3, 3), np.float32)) + tf.reduce_sum(
        dilated * _weights(20, (1, 7, 7, 2), np.float32)
    )
    return {
        "fetches": [strided, dilated, loss] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(21, (1, 7, 7, 2), dtype=np.float32)},
        "rtol": 1e-5,
    }


@_program
def separable_conv2d_class_called_twice(tf):
    layer = tf.layers.SeparableConv2D(
        2,
        2,
        depthwise_initializer=tf.constant_initializer(_arr(22, (2, 2, 2, 1))),
        pointwise_initializer=tf.constant_initializer(_arr(23, (1, 1, 2, 2))),
        bias_initializer=tf.constant_initializer(-0.2),
    )
    x = tf.placeholder(tf.float64, [None, 4, 4, 2], name="x")
    y1, y2 = layer(x), layer(x * 2.0)
    loss = tf.reduce_sum(tf.tanh(y1) + y2)
    return {
        "fetches": [y1, y2] + tf.gradients(loss, [x] + tf.trainable_variables()),
        "feeds": {x: _arr(24, (2, 4, 4, 2))},
    }


# ---------------------------------------------------------------------------
# image: random flips and crops (the draws differ from TF's: statistics, and what every
# draw gives exactly), and the deterministic functions on batches and single images
# ---------------------------------------------------------------------------


def _either(tf, y, x, flipped):
    """0 exactly where ``y`` is ``x`` or ``flipped`` (every element of one of them)."""
    return tf.minimum(tf.reduce_sum(tf.abs(y - x)), tf.reduce_sum(tf.abs(y - flipped)))


@_program
def random_flip_left_right_batch_statistics(tf):
    tf.set_random_seed(11)
    n = 20000
    # each image [[0, 1]]: its first element is 1 where it was flipped
    x = tf.constant(np.tile(np.array([0.0, 1.0]).reshape(1, 1, 2, 1), (n, 1, 1, 1)))
    y = tf.image.random_flip_left_right(x, seed=5)
    flipped = tf.reduce_mean(y[:, 0, 0, 0])
    (grad,) = tf.gradients(tf.reduce_sum(y), x)
    # 10 standard errors of the fraction flipped (0.5 / sqrt(n) each) are 0.035, 7% of 0.5
    return {"fetches": [flipped, tf.reduce_sum(y), grad, tf.shape(y)], "feeds": {}, "rtol": 0.07}


@_program
def random_flip_up_down_batch_statistics(tf):
    tf.set_random_seed(12)
    n = 20000
    x = tf.constant(np.tile(np.array([0.0, 1.0]).reshape(1, 2, 1, 1), (n, 1, 1, 1)))
    y = tf.image.random_flip_up_down(x)
    flipped = tf.reduce_mean(y[:, 0, 0, 0])
    return {"fetches": [flipped, tf.reduce_sum(y)], "feeds": {}, "rtol": 0.07}


@_program
def random_flips_are_flips(tf):
    image = _arr(25, (4, 5, 3))
    batch = tf.placeholder(tf.float64, [None, 4, 5, 3], name="batch")
    single = tf.constant(image)
    lr = tf.image.random_flip_left_right(single, seed=1)
    ud = tf.image.random_flip_up_down(single, seed=2)
    lr_batch = tf.image.random_flip_left_right(batch, seed=3)
    ud_batch = tf.image.random_flip_up_down(batch, seed=4)
    # each image of the batch alone: either as given or flipped
    lr_each = [
        _either(tf, lr_batch[i], batch[i], tf.image.flip_left_right(batch[i])) for i in range(3)
    ]
    ud_each = [
        _either(tf, ud_batch[i], batch[i], tf.image.flip_up_down(batch[i])) for i in range(3)
    ]
    return {
        "fetches": [
            _either(tf, lr, single, tf.image.flip_left_right(single)),
            _either(tf, ud, single, tf.image.flip_up_down(single)),
            tf.stack(lr_each),
            tf.stack(ud_each),
            tf.shape(lr_batch),
            tf.reduce_sum(ud_batch),
            tf.gradients(tf.reduce_sum(lr * 2.0), single)[0],
        ],
        "feeds": {batch: _arr(26, (3, 4, 5, 3))},
    }


@_program
def random_flip_uint8_image(tf):
    image = tf.constant(np.arange(12, dtype=np.uint8).reshape(2, 2, 3))
    y = tf.image.random_flip_left_right(image, seed=7)
    return {"fetches": [tf.reduce_sum(tf.cast(y, tf.int32)), tf.shape(y)], "feeds": {}}


@_program
def random_crop_is_a_crop(tf):
    # x[i, j, k] = 21 i + 3 j + k: a crop less its first element is the same at any offset
    x = tf.constant(np.arange(6 * 7 * 3, dtype=np.float64).reshape(6, 7, 3))
    y = tf.image.random_crop(x, [3, 4, 3], seed=9)
    (grad,) = tf.gradients(tf.reduce_sum(y), x)
    batch = tf.placeholder(tf.float64, [None, 5, 5, 2], name="batch")
    crops = tf.random_crop(batch, [2, 3, 4, 2], seed=10)
    return {
        "fetches": [
            y - y[0, 0, 0],
            tf.reduce_sum(grad),
            tf.reduce_max(grad),
            tf.shape(crops),
            tf.reduce_sum(tf.abs(crops[:, :, :, 1] - crops[:, :, :, 0] - 1.0)),
        ],
        "feeds": {batch: np.tile(np.arange(2.0).reshape(1, 1, 1, 2), (4, 5, 5, 1))},
    }


@_program
def random_crop_offsets_statistics(tf):
    tf.set_random_seed(13)
    x = tf.constant(np.arange(5.0))
    # 100 crops of one element: its offset is uniform on 0..4 (mean 2, sd 1.41): 10 standard
    # errors of the mean are 1.41, 71% of 2
    starts = tf.stack([tf.image.random_crop(x, [1])[0] for _ in range(100)])
    return {"fetches": [tf.reduce_mean(starts), tf.shape(starts)], "feeds": {}, "rtol": 0.71}


@_program
def image_functions_on_batches_and_single_images(tf):
    batch = tf.placeholder(tf.float32, [None, 5, 6, 3], name="batch")
    values = _arr(27, (2, 5, 6, 3), dtype=np.float32)
    single = tf.constant(values[1])
    fetches = []
    for image in (batch, single):
        fetches += [
            tf.image.flip_left_right(image),
            tf.image.flip_up_down(image),
            tf.image.per_image_standardization(image),
            tf.image.central_crop(image, 0.6),
        ]
    loss = tf.reduce_sum(tf.image.per_image_standardization(batch) * _weights(28, (2, 5, 6, 3)))
    fetches += tf.gradients(loss, [batch])
    return {"fetches": fetches, "feeds": {batch: values}, "rtol": 1e-5}


# --- resizing: TF1's legacy ResizeBilinear and ResizeNearestNeighbor kernels ---------------

_RESIZE_FLAGS = [(False, False), (True, False), (False, True)]


@_program
def resize_bilinear_flags_sizes_and_gradients(tf):
    # float32 batches of unknown size, up and down, odd sizes, each align/half-pixel rule
    x = tf.placeholder(tf.float32, [None, 3, 5, 2], name="x")
    fetches, loss = [], 0.0
    for index, (corners, half) in enumerate(_RESIZE_FLAGS):
        for size in ([7, 8], [2, 3], [3, 9], [1, 1]):
            y = tf.image.resize_bilinear(x, size, align_corners=corners, half_pixel_centers=half)
            fetches.append(y)
            loss += tf.reduce_sum(y * _weights(40 + index, (2, size[0], size[1], 2)))
    fetches += [loss] + tf.gradients(loss, [x])
    return {
        "fetches": fetches,
        "feeds": {x: _arr(41, (2, 3, 5, 2), dtype=np.float32)},
        "rtol": 1e-5,
    }


@_program
def resize_bilinear_float64_and_integer_images(tf):
    # float32 results for every dtype; a float64 image's gradient is float64
    x = tf.placeholder(tf.float64, [None, 6, 4, 1], name="x")
    ints = tf.constant(np.arange(40, dtype=np.int32).reshape(1, 5, 8, 1) * 7 % 23)
    bytes_ = tf.constant((np.arange(30) * 37 % 256).astype(np.uint8).reshape(1, 5, 6, 1))
    y = tf.image.resize_bilinear(x, [4, 7], half_pixel_centers=True)
    loss = tf.reduce_sum(y * _weights(42, (2, 4, 7, 1), dtype=np.float32))
    fetches = [
        y,
        tf.image.resize_bilinear(ints, [3, 11]),
        tf.image.resize_bilinear(ints, [9, 3], align_corners=True),
        tf.image.resize_bilinear(bytes_, [7, 4], half_pixel_centers=True),
        loss,
    ] + tf.gradients(loss, [x])
    return {"fetches": fetches, "feeds": {x: _arr(43, (2, 6, 4, 1))}, "rtol": 1e-6}


@_program
def resize_nearest_flags_sizes_and_gradients(tf):
    x = tf.placeholder(tf.float64, [None, 5, 3, 2], name="x")
    ints = tf.constant(np.arange(30, dtype=np.int32).reshape(1, 5, 3, 2))
    fetches, loss = [], 0.0
    for index, (corners, half) in enumerate(_RESIZE_FLAGS):
        for size in ([7, 8], [3, 2], [4, 5], [2, 7]):
            flags = {"align_corners": corners, "half_pixel_centers": half}
            y = tf.image.resize_nearest_neighbor(x, size, **flags)
            fetches += [y, tf.image.resize_nearest_neighbor(ints, size, **flags)]
            loss += tf.reduce_sum(y * _weights(44 + index, (2, size[0], size[1], 2)))
    fetches += [loss] + tf.gradients(loss, [x])
    return {"fetches": fetches, "feeds": {x: _arr(45, (2, 5, 3, 2))}}


@_program
def resize_images_methods_sizes_and_single_images(tf):
    image = tf.placeholder(tf.float64, [4, 6, 3], name="image")
    batch = tf.placeholder(tf.float32, [None, 4, 6, 3], name="batch")
    ints = tf.constant(np.arange(48, dtype=np.int32).reshape(4, 4, 3) % 11)
    method = tf.image.ResizeMethod
    size = tf.constant([3, 9], dtype=tf.int32)
    bilinear = tf.image.resize_images(image, size)
    nearest = tf.image.resize_images(image, [7, 5], method=method.NEAREST_NEIGHBOR)
    cornered = tf.image.resize_images(batch, [5, 5], align_corners=True)
    fetches = [
        bilinear,
        nearest,
        cornered,
        tf.image.resize_images(batch, [2, 2], method.NEAREST_NEIGHBOR, align_corners=True),
        tf.image.resize_images(ints, [6, 2]),
        tf.image.resize_images(ints, [6, 2], method=method.NEAREST_NEIGHBOR),
        tf.image.resize_images(ints, [4, 4]),  # the same size: the images themselves (int32)
        tf.image.resize_images(image, [8, 8], preserve_aspect_ratio=True),
        tf.image.resize_images(batch, [3, 20], preserve_aspect_ratio=True),
        tf.image.resize(batch, [7, 3], method=method.NEAREST_NEIGHBOR),
    ]
    loss = tf.reduce_sum(tf.cast(bilinear, tf.float64) * _weights(46, (3, 9, 3))) + tf.reduce_sum(
        nearest * _weights(47, (7, 5, 3))
    )
    fetches += [loss] + tf.gradients(loss, [image])
    fetches += tf.gradients(tf.reduce_sum(tf.square(cornered)), [batch])
    feeds = {image: _arr(48, (4, 6, 3)), batch: _arr(49, (2, 4, 6, 3), dtype=np.float32)}
    return {"fetches": fetches, "feeds": feeds, "rtol": 1e-5}


@_program
def resize_image_with_crop_or_pad_and_gradients(tf):
    image = tf.placeholder(tf.float64, [5, 4, 2], name="image")
    batch = tf.placeholder(tf.float64, [None, 5, 4, 1], name="batch")
    fetches = [
        tf.image.resize_image_with_crop_or_pad(image, 3, 7),
        tf.image.resize_image_with_crop_or_pad(image, 8, 1),
        tf.image.resize_image_with_crop_or_pad(image, 5, 4),
        tf.image.resize_with_crop_or_pad(batch, 2, 6),
    ]
    loss = tf.reduce_sum(fetches[0] * _weights(50, (3, 7, 2))) + tf.reduce_sum(
        tf.square(fetches[3])
    )
    fetches += [loss] + tf.gradients(loss, [image, batch])
    feeds = {image: _arr(51, (5, 4, 2)), batch: _arr(52, (3, 5, 4, 1))}
    return {"fetches": fetches, "feeds": feeds}


@_program
def convert_image_dtype_between_ints_and_floats(tf):
    pixels = tf.placeholder(tf.uint8, [None, 3], name="pixels")
    unit = tf.placeholder(tf.float32, [None], name="unit")
    wide = tf.placeholder(tf.int16, [4], name="wide")
    out_of_range = tf.placeholder(tf.float64, [5], name="out_of_range")
    as_float = tf.image.convert_image_dtype(pixels, tf.float32)
    fetches = [
        as_float,
        tf.image.convert_image_dtype(pixels, tf.float64),
        tf.image.convert_image_dtype(pixels, tf.int32),
        tf.image.convert_image_dtype(pixels, tf.uint16),
        tf.image.convert_image_dtype(pixels, tf.uint8),
        tf.image.convert_image_dtype(unit, tf.uint8),
        tf.image.convert_image_dtype(unit, tf.int16),
        tf.image.convert_image_dtype(unit, tf.float64),
        tf.image.convert_image_dtype(wide, tf.uint8),
        tf.image.convert_image_dtype(wide, tf.int8, saturate=True),
        tf.image.convert_image_dtype(wide, tf.float32),
        tf.image.convert_image_dtype(out_of_range, tf.uint8, saturate=True),
        tf.saturate_cast(out_of_range * 300.0, tf.uint8),
        tf.saturate_cast(wide, tf.int8),
        tf.saturate_cast(wide, tf.float32),
    ]
    # The gradient flows through the float-to-float conversions only (a cast to an integer
    # dtype stops it, as in TF).
    fetches += tf.gradients(
        tf.reduce_sum(tf.image.convert_image_dtype(unit, tf.float64) ** 2), [unit]
    )
    feeds = {
        pixels: np.array([[0, 1, 51], [127, 128, 255]], np.uint8),
        unit: np.array([0.0, 0.2, 0.5, 0.999, 1.0, 0.0001], np.float32),
        wide: np.array([0, 1000, 32767, 255], np.int16),
        out_of_range: np.array([-0.5, 0.0, 0.4, 1.0, 1.7]),
    }
    return {"fetches": fetches, "feeds": feeds}
