"""TF1 programs that read files, run the same way under TensorFlow (``record_tf_strings.py``)
and under symgrad (``tests/test_strings.py``): ``tf`` is the module, ``tensorflow.compat.v1``
or ``symgrad``.

The files live in ``files/`` next to this module (``record_tf_strings.py`` writes them,
deterministically, with NumPy and Pillow).
"""

import os

import numpy as np

FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")

# (file, decoder, channels): what the recorder decodes with TF and the test with symgrad.
DECODES = [
    ("rgb.png", "decode_png", 0),
    ("rgb.png", "decode_png", 1),
    ("rgb.png", "decode_png", 3),
    ("rgb.png", "decode_png", 4),
    ("rgba.png", "decode_png", 0),
    ("rgba.png", "decode_png", 1),
    ("rgba.png", "decode_png", 3),
    ("gray.png", "decode_png", 0),
    ("gray.png", "decode_png", 3),
    ("gray.png", "decode_png", 4),
    ("gray_alpha.png", "decode_png", 0),
    ("palette.png", "decode_png", 0),
    ("palette.png", "decode_png", 1),
    ("palette_alpha.png", "decode_png", 0),
    ("rgb444.jpg", "decode_jpeg", 0),
    ("rgb444.jpg", "decode_jpeg", 1),
    ("rgb420.jpg", "decode_jpeg", 3),
    ("gray.jpg", "decode_jpeg", 0),
    ("gray.jpg", "decode_jpeg", 3),
    ("rgb.png", "decode_image", 0),
    ("rgb444.jpg", "decode_image", 3),
    ("anim.gif", "decode_image", 0),
    ("anim.gif", "decode_gif", None),
    ("rgb.bmp", "decode_bmp", 0),
    ("rgb.bmp", "decode_image", 0),
]

CSV_FILES = ["train_a.csv", "train_b.csv"]
CSV_ROWS = 240
TRAIN_STEPS = 120
BATCH = 24


def make_files(directory=FILES):
    """Write the test images and CSV files (deterministic: the same bytes at every run)."""
    from PIL import Image

    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(7)
    rows, columns = np.mgrid[0:16, 0:20]
    red = (rows * 15 + rng.integers(0, 9, rows.shape)).astype(np.uint8)
    green = (columns * 12).astype(np.uint8)
    blue = ((rows * columns * 7) % 256).astype(np.uint8)
    rgb = np.stack([red, green, blue], axis=-1)
    alpha = ((rows + columns) * 8).astype(np.uint8)

    def save(image, name, **options):
        image.save(os.path.join(directory, name), **options)

    save(Image.fromarray(rgb, "RGB"), "rgb.png", optimize=False)
    save(Image.fromarray(np.dstack([rgb, alpha]), "RGBA"), "rgba.png")
    save(Image.fromarray(red, "L"), "gray.png")
    save(Image.fromarray(np.dstack([green, alpha]), "LA"), "gray_alpha.png")
    palette = Image.fromarray(rgb, "RGB").quantize(colors=16, dither=Image.Dither.NONE)
    save(palette, "palette.png")
    save(palette, "palette_alpha.png", transparency=3)
    save(Image.fromarray(rgb, "RGB"), "rgb444.jpg", quality=90, subsampling=0)
    save(Image.fromarray(rgb, "RGB"), "rgb420.jpg", quality=75, subsampling=2)
    save(Image.fromarray(red, "L"), "gray.jpg", quality=90)
    frames = [Image.fromarray(rgb[:, :, ::-1].copy(), "RGB"), Image.fromarray(rgb, "RGB")]
    frames = [f.quantize(colors=32, dither=Image.Dither.NONE) for f in frames]
    save(frames[0], "anim.gif", save_all=True, append_images=frames[1:], duration=50, loop=0)
    save(Image.fromarray(rgb, "RGB"), "rgb.bmp")
    # Two features, a label from a noisy linear rule; a header line in each file.
    features = rng.normal(size=(CSV_ROWS, 2))
    noise = rng.normal(scale=0.5, size=CSV_ROWS)
    labels = (features[:, 0] - 2.0 * features[:, 1] + 0.3 + noise > 0).astype(int)
    half = CSV_ROWS // 2
    for name, part in zip(CSV_FILES, (slice(0, half), slice(half, None)), strict=True):
        lines = ["x1,x2,label"] + [
            f"{a:.4f},{b:.4f},{c}" for (a, b), c in zip(features[part], labels[part], strict=True)
        ]
        with open(os.path.join(directory, name), "w", newline="\n") as handle:
            handle.write("\n".join(lines) + "\n")


def decode(tf, file_name, decoder, channels, **options):
    """The decoded image of one of DECODES, as a NumPy array."""
    contents = tf.read_file(os.path.join(FILES, file_name))
    function = getattr(tf.image, decoder)
    if channels is not None:
        options["channels"] = channels
    image = function(contents, **options)
    with tf.Session() as sess:
        return np.asarray(sess.run(image))


def read_lines(tf):
    """(key, line) of every line TextLineReader reads from the CSV files, in order."""
    paths = [os.path.join(FILES, name) for name in CSV_FILES]
    queue = tf.train.string_input_producer(paths, num_epochs=1, shuffle=False)
    key, value = tf.TextLineReader(skip_header_lines=1).read(queue)
    records = []
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        try:
            while True:
                k, v = sess.run([key, value])
                records.append((os.path.basename(k.decode()), v.decode()))
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
        coord.join(threads)
    return records


def csv_logistic(tf, seed):
    """TF1's "Reading data" pipeline: file names -> TextLineReader -> decode_csv ->
    shuffle_batch -> a logistic regression trained by gradient descent. Returns the final
    loss and accuracy on all the rows (read once more with decode_csv of the lines)."""
    tf.set_random_seed(seed)
    paths = [os.path.join(FILES, name) for name in CSV_FILES]
    filename_queue = tf.train.string_input_producer(paths, shuffle=True, seed=seed)
    reader = tf.TextLineReader(skip_header_lines=1)
    _, line = reader.read(filename_queue)
    x1, x2, label = tf.decode_csv(line, record_defaults=[[0.0], [0.0], [0]])
    features = tf.stack([x1, x2])
    feature_batch, label_batch = tf.train.shuffle_batch(
        [features, label], batch_size=BATCH, capacity=200, min_after_dequeue=100, seed=seed
    )
    weights = tf.Variable(tf.zeros([2, 1]), name="weights")
    bias = tf.Variable(tf.zeros([1]), name="bias")

    def loss_of(x, y):
        logits = tf.squeeze(tf.matmul(x, weights) + bias, axis=1)
        labels = tf.cast(y, tf.float32)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
        correct = tf.equal(tf.cast(logits > 0.0, tf.float32), labels)
        return loss, tf.reduce_mean(tf.cast(correct, tf.float32))

    loss, _ = loss_of(feature_batch, label_batch)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    all_lines = tf.placeholder(tf.string, [None])
    c1, c2, call = tf.decode_csv(all_lines, record_defaults=[[0.0], [0.0], [0]])
    full_loss, full_accuracy = loss_of(tf.stack([c1, c2], axis=1), call)
    lines = []
    for path in paths:
        with open(path) as handle:
            lines += handle.read().splitlines()[1:]
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        for _ in range(TRAIN_STEPS):
            sess.run(train)
        coord.request_stop()
        coord.join(threads)
        final = sess.run([full_loss, full_accuracy], {all_lines: lines})
    return [float(final[0]), float(final[1])]


# -- tf.data over files (TF >= 1.4): the element values per step, then the end of the epoch ----

IMAGE_FILES = ["rgb.png", "gray.png", "rgba.png", "palette.png", "gray.png"]
IMAGE_LABELS = [0, 1, 2, 3, 1]


def _steps(tf, sess, fetches, convert):
    """``convert`` of each run of ``fetches`` until the end of the epoch, and the name of
    the error that ended it."""
    steps = []
    while True:
        try:
            steps.append(convert(sess.run(fetches)))
        except (
            tf.errors.OutOfRangeError,
            tf.errors.NotFoundError,
            tf.errors.InvalidArgumentError,
        ) as error:
            return steps, type(error).__name__


def image_dataset(tf, feed_names):
    """File names and labels -> read_file -> decode_png (one channel) -> convert_image_dtype
    -> resize_images -> batch: the images and labels of each batch. With ``feed_names`` the
    names are a ``[None]`` string placeholder fed when the initializable iterator starts."""
    paths = [os.path.join(FILES, name) for name in IMAGE_FILES]
    names = tf.placeholder(tf.string, [None]) if feed_names else paths

    def load(filename, label):
        image = tf.image.decode_png(tf.read_file(filename), channels=1)
        image = tf.image.convert_image_dtype(image, tf.float32)
        return tf.image.resize_images(image, [8, 6]), label

    dataset = tf.data.Dataset.from_tensor_slices((names, IMAGE_LABELS)).map(load).batch(2)
    with tf.Session() as sess:
        if feed_names:
            iterator = dataset.make_initializable_iterator()
            sess.run(iterator.initializer, {names: paths})
        else:
            iterator = dataset.make_one_shot_iterator()
        images, labels = iterator.get_next()
        return _steps(
            tf,
            sess,
            [images, labels],
            lambda v: [np.asarray(v[0]).astype(float).tolist(), np.asarray(v[1]).tolist()],
        )


def csv_dataset(tf):
    """TF's "Importing Data" CSV pipeline: TextLineDataset(file).skip(1) -> decode_csv ->
    batch: the columns of each batch."""
    path = os.path.join(FILES, CSV_FILES[0])
    dataset = tf.data.TextLineDataset(path).skip(1)
    dataset = dataset.map(lambda line: tf.decode_csv(line, [[0.0], [0.0], [0]])).batch(BATCH * 2)
    x1, x2, label = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _steps(
            tf,
            sess,
            [x1, x2, label],
            lambda v: [np.asarray(c).astype(float).tolist() for c in v],
        )


def text_lines_dataset(tf):
    """Every line of TextLineDataset over both CSV files (one after the other), batched by
    100 and fetched as strings; then decode_csv of all of them, which meets the second
    file's header."""
    paths = [os.path.join(FILES, name) for name in CSV_FILES]
    lines = tf.data.TextLineDataset(paths, compression_type=None, buffer_size=None).batch(100)
    batch = lines.make_one_shot_iterator().get_next()
    decoded = (
        tf.data.TextLineDataset(paths)
        .skip(1)
        .map(lambda line: tf.decode_csv(line, [[0.0], [0.0], [0]]))
    )
    column = decoded.make_one_shot_iterator().get_next()[0]
    with tf.Session() as sess:
        steps, end = _steps(tf, sess, batch, lambda v: [line.decode() for line in v])
        rows, decode_end = _steps(tf, sess, column, float)
    return {"batches": steps, "end": end, "decoded_rows": len(rows), "decode_end": decode_end}


def string_elements(tf):
    """String components through from_generator (output_types tf.string), zip with range,
    from_tensors, a map that passes them on, and batch: the batches fetched."""

    def names():
        yield from (b"alpha", "beta", b"gamma")

    generated = tf.data.Dataset.from_generator(names, tf.string, tf.TensorShape([]))
    pairs = tf.data.Dataset.zip((generated, tf.data.Dataset.range(10, 20)))
    pairs = pairs.map(lambda name, n: (name, n * 2)).batch(2)
    both = tf.data.Dataset.from_tensors((["x", "y"], 1.5)).repeat(2)
    a, b = pairs.make_one_shot_iterator().get_next()
    c, d = both.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        first = _steps(tf, sess, [a, b], lambda v: [[s.decode() for s in v[0]], v[1].tolist()])
        second = _steps(tf, sess, [c, d], lambda v: [[s.decode() for s in v[0]], float(v[1])])
    return {"pairs": first, "from_tensors": second}


def missing_file_in_map(tf):
    """The name of the error a missing file read in a map function raises, after the
    elements before it."""
    paths = [os.path.join(FILES, "gray.png"), os.path.join(FILES, "no_such_file.png")]
    dataset = tf.data.Dataset.from_tensor_slices(paths)
    dataset = dataset.map(lambda name: tf.image.decode_png(tf.read_file(name)))
    image = dataset.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return _steps(tf, sess, image, lambda v: list(np.shape(v)))


def as_json(value):
    """A program's result as JSON holds it: tuples become lists."""
    if isinstance(value, dict):
        return {key: as_json(part) for key, part in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_json(part) for part in value]
    return value
