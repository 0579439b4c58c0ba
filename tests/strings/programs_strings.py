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
