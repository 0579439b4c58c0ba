"""Record TensorFlow's results for ``tests/test_strings.py`` (string tensors, file readers,
image decoders).

Run by hand from the repository root with TensorFlow and Pillow installed::

    python tests/strings/record_tf_strings.py

It writes the test files (``files/``: small PNG, JPEG, GIF and BMP images and two CSV files,
made deterministically by ``programs_strings.make_files``), decodes every case of
``programs_strings.DECODES`` with TF's decoders under ``tensorflow.compat.v1``, reads the CSV
lines with TF's ``TextLineReader``, trains ``programs_strings.csv_logistic`` for three seeds,
runs the ``tf.data`` programs over the files (``image_dataset``, ``csv_dataset``,
``text_lines_dataset``, ``string_elements``, ``missing_file_in_map``), and writes ``tf_strings.json`` next to this script (sorted keys, fixed indent). TensorFlow is
imported only in ``main()``.
"""

import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _HERE)

import programs_strings as programs  # noqa: E402

SEEDS = (0, 1, 2)


def main():
    import tensorflow.compat.v1 as tf

    tf.disable_eager_execution()
    programs.make_files()
    decodes = {}
    for file_name, decoder, channels in programs.DECODES:
        with tf.Graph().as_default():
            image = programs.decode(tf, file_name, decoder, channels)
        key = f"{file_name}:{decoder}:{channels}"
        # The pixels as hex of their bytes (uint8, C order): compact and exact.
        decodes[key] = {
            "shape": list(image.shape),
            "dtype": str(image.dtype),
            "hex": image.tobytes().hex(),
        }
    # TF's accurate DCT, which symgrad's decoder (libjpeg through Pillow) uses.
    accurate = {}
    for file_name, decoder, channels in programs.DECODES:
        if decoder != "decode_jpeg":
            continue
        with tf.Graph().as_default():
            image = programs.decode(tf, file_name, decoder, channels, dct_method="INTEGER_ACCURATE")
        accurate[f"{file_name}:{decoder}:{channels}"] = image.tobytes().hex()
    with tf.Graph().as_default():
        lines = programs.read_lines(tf)
    runs = {}
    for seed in SEEDS:
        with tf.Graph().as_default():
            runs[str(seed)] = programs.csv_logistic(tf, seed)
    errors = {}
    with tf.Graph().as_default():
        try:
            with tf.Session() as sess:
                sess.run(tf.read_file(os.path.join(programs.FILES, "no_such_file.png")))
        except tf.errors.OpError as error:
            errors["missing_file"] = type(error).__name__
    with tf.Graph().as_default():
        try:
            with tf.Session() as sess:
                sess.run(tf.image.decode_png(tf.constant(b"\x89PNG\r\n\x1a\nnot really")))
        except tf.errors.OpError as error:
            errors["corrupt_png"] = type(error).__name__
    with tf.Graph().as_default():
        try:
            with tf.Session() as sess:
                sess.run(tf.decode_csv(tf.constant(["1,2"]), record_defaults=[[0], [0], [0]]))
        except tf.errors.OpError as error:
            errors["csv_fields"] = type(error).__name__
    # tf.data over files: string elements, map functions reading files, TextLineDataset.
    datasets = {}
    for key, program in (
        ("images", lambda: programs.image_dataset(tf, False)),
        ("images_fed", lambda: programs.image_dataset(tf, True)),
        ("csv", lambda: programs.csv_dataset(tf)),
        ("text_lines", lambda: programs.text_lines_dataset(tf)),
        ("string_elements", lambda: programs.string_elements(tf)),
        ("missing_file_in_map", lambda: programs.missing_file_in_map(tf)),
    ):
        with tf.Graph().as_default():
            datasets[key] = programs.as_json(program())
    record = {
        "tensorflow_version": tf.__version__,
        "datasets": datasets,
        "decodes": decodes,
        "jpeg_accurate": accurate,
        "text_lines": lines,
        "csv_logistic": runs,
        "errors": errors,
    }
    with open(os.path.join(_HERE, "tf_strings.json"), "w") as handle:
        json.dump(record, handle, sort_keys=True, indent=1)
        handle.write("\n")


if __name__ == "__main__":
    main()
