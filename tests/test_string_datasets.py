"""tf.data over files: string components in dataset elements, ``map`` functions that read and
decode files, and ``tf.data.TextLineDataset`` (symgrad.data with symgrad.string_ops).

The programs of ``strings/programs_strings.py`` (``image_dataset``, ``csv_dataset``,
``text_lines_dataset``, ``string_elements``, ``missing_file_in_map``) ran under TensorFlow
2.21's ``compat.v1`` (``strings/record_tf_strings.py`` wrote their results under
``"datasets"`` in ``strings/tf_strings.json``); here they run under symgrad, which must give
the same element values at every step and the same error at the end.
"""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import symgrad as tf
from symgrad.errors import BackendError, DTypeError, InvalidArgumentError, MissingTF1NameError

from .strings import programs_strings as programs
from .test_strings import FILES, FIXTURE

RECORDED = FIXTURE["datasets"]


def _same_steps(got: Any, want: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Two programs' (steps, end) alike: each step's values close, the same end error."""
    got_steps, got_end = got
    want_steps, want_end = want
    assert got_end == want_end
    assert len(got_steps) == len(want_steps)
    for got_step, want_step in zip(got_steps, want_steps, strict=True):
        for a, b in zip(got_step, want_step, strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


# -- the programs, against TensorFlow's results --------------------------------------------------


@pytest.mark.parametrize("feed_names", [False, True], ids=["list", "fed_placeholder"])
def test_file_names_mapped_to_decoded_images_as_tensorflow(feed_names: bool) -> None:
    """from_tensor_slices((filenames, labels)).map(read_file -> decode_png ->
    convert_image_dtype -> resize_images).batch(2), the names a Python list or a ``[None]``
    string placeholder fed to the initializer."""
    with tf.Graph().as_default():
        got = programs.as_json(programs.image_dataset(tf, feed_names))
    want = RECORDED["images_fed" if feed_names else "images"]
    assert [len(step[1]) for step in got[0]] == [2, 2, 1]
    _same_steps(got, want)


def test_text_line_dataset_csv_pipeline_as_tensorflow() -> None:
    """TextLineDataset(file).skip(1).map(decode_csv).batch(48): TF's "Importing Data" CSV."""
    with tf.Graph().as_default():
        got = programs.as_json(programs.csv_dataset(tf))
    assert [len(step[0]) for step in got[0]] == [48, 48, 24]
    _same_steps(got, RECORDED["csv"], rtol=0, atol=0)


def test_text_line_dataset_lines_files_in_turn_as_tensorflow() -> None:
    """Both files' lines, one file after the other, fetched as string batches; decode_csv
    then meets the second file's header: InvalidArgumentError after 120 rows, as in TF."""
    with tf.Graph().as_default():
        got = programs.as_json(programs.text_lines_dataset(tf))
    assert got == RECORDED["text_lines"]
    assert got["decode_end"] == "InvalidArgumentError" and got["decoded_rows"] == 120


def test_string_components_through_generator_zip_map_batch_as_tensorflow() -> None:
    with tf.Graph().as_default():
        got = programs.as_json(programs.string_elements(tf))
    assert got == RECORDED["string_elements"]


def test_a_missing_file_in_a_map_is_not_found_as_in_tensorflow() -> None:
    with tf.Graph().as_default():
        got = programs.as_json(programs.missing_file_in_map(tf))
    assert got == RECORDED["missing_file_in_map"] == [[[16, 20, 1]], "NotFoundError"]
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices(["no_such_file.png"])
        nxt = dataset.map(tf.read_file).make_one_shot_iterator().get_next()
        with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="no_such_file"):
            sess.run(nxt)


# -- string elements -----------------------------------------------------------------------------


def test_string_datasets_types_shapes_and_fetched_batches() -> None:
    names = np.array(["a.png", "b.png", "c.png"])
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices((names, [1, 2, 3]))
        assert dataset.output_types == (tf.string, tf.int32)
        assert dataset.output_shapes == ((), ())
        scalar_name, _ = dataset.make_one_shot_iterator().get_next()
        batch, labels = dataset.batch(2).make_one_shot_iterator().get_next()
        const = tf.data.Dataset.from_tensor_slices(tf.constant([b"x", b"y"]))
        from_const = const.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(scalar_name) == b"a.png"
            first, first_labels = sess.run([batch, labels])
            second = sess.run(batch)
            assert sess.run(from_const) == b"x"
    assert first.dtype == object and first.tolist() == [b"a.png", b"b.png"]
    assert first_labels.tolist() == [1, 2] and second.tolist() == [b"c.png"]


def test_a_fed_name_placeholder_restarts_the_epoch_with_new_files() -> None:
    paths = [str(FILES / name) for name in ("rgb.png", "gray.png", "rgba.png")]
    with tf.Graph().as_default():
        names = tf.placeholder(tf.string, [None])
        dataset = tf.data.Dataset.from_tensor_slices(names)
        dataset = dataset.map(lambda f: tf.shape(tf.image.decode_png(tf.read_file(f))))
        iterator = dataset.make_initializable_iterator()
        shape = iterator.get_next()
        with tf.Session() as sess:
            sess.run(iterator.initializer, {names: paths})
            shapes = [sess.run(shape).tolist() for _ in paths]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(shape)
            sess.run(iterator.initializer, {names: paths[1:2]})
            again = sess.run(shape).tolist()
    assert shapes == [[16, 20, 3], [16, 20, 1], [16, 20, 4]] and again == [16, 20, 1]


def test_shuffled_lines_with_a_seed_are_the_same_run_to_run() -> None:
    paths = [str(FILES / name) for name in programs.CSV_FILES]

    def order() -> list[bytes]:
        with tf.Graph().as_default():
            lines = tf.data.TextLineDataset(paths).shuffle(64, seed=5).batch(1000)
            with tf.Session() as sess:
                return sess.run(lines.make_one_shot_iterator().get_next()).tolist()

    first, second = order(), order()
    recorded = [line for batch in RECORDED["text_lines"]["batches"] for line in batch]
    assert first == second and first != [line.encode() for line in recorded]
    assert sorted(first) == sorted(line.encode() for line in recorded)


def test_padded_batch_of_strings_pads_with_empty_strings() -> None:
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_generator(
            lambda: iter([["a"], ["b", "c"]]), tf.string, tf.TensorShape([None])
        )
        default = dataset.padded_batch(2, [None]).make_one_shot_iterator().get_next()
        given = dataset.padded_batch(2, [3], "-").make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(default).tolist() == [[b"a", b""], [b"b", b"c"]]
            assert sess.run(given).tolist() == [[b"a", b"-", b"-"], [b"b", b"c", b"-"]]
        with pytest.raises(DTypeError, match="padding value"):
            dataset.padded_batch(2, [None], 0)


def test_from_generator_string_elements_are_checked() -> None:
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_generator(lambda: iter([b"ok", 3]), tf.string)
        nxt = dataset.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert sess.run(nxt) == b"ok"
            with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was string"):
                sess.run(nxt)


# -- TextLineDataset -----------------------------------------------------------------------------


def test_text_line_dataset_line_endings_compression_and_name_tensors(tmp_path: Path) -> None:
    plain = tmp_path / "crlf.txt"
    plain.write_bytes(b"one\r\ntwo\n\nlast")  # CRLF, an empty line, no final newline
    packed = tmp_path / "lines.gz"
    packed.write_bytes(gzip.compress(b"g1\ng2\n"))
    deflated = tmp_path / "lines.z"
    deflated.write_bytes(zlib.compress(b"z1\n"))
    with tf.Graph().as_default():
        name = tf.placeholder(tf.string, [])
        datasets = {
            "plain": tf.data.TextLineDataset(str(plain)),
            "gzip": tf.data.TextLineDataset([str(packed)], compression_type="GZIP"),
            "zlib": tf.data.TextLineDataset(np.array([str(deflated)]), "ZLIB", buffer_size=8),
        }
        assert datasets["plain"].output_types == tf.string
        assert datasets["plain"].output_shapes == ()
        fed = tf.data.TextLineDataset(name).make_initializable_iterator()
        batches = {
            key: d.batch(10).make_one_shot_iterator().get_next() for key, d in datasets.items()
        }
        line = fed.get_next()
        with tf.Session() as sess:
            got = {key: sess.run(batch).tolist() for key, batch in batches.items()}
            sess.run(fed.initializer, {name: str(plain)})
            first = sess.run(line)
    assert got == {"plain": [b"one", b"two", b"", b"last"], "gzip": [b"g1", b"g2"], "zlib": [b"z1"]}
    assert first == b"one"


def test_text_line_dataset_errors_are_clear(tmp_path: Path) -> None:
    with tf.Graph().as_default():
        with pytest.raises(DTypeError, match="tf.string"):
            tf.data.TextLineDataset(tf.constant([1, 2]))
        with pytest.raises(InvalidArgumentError, match="compression_type"):
            tf.data.TextLineDataset("a.txt", compression_type="BZIP2")
        with pytest.raises(InvalidArgumentError, match="scalar or a vector"):
            tf.data.TextLineDataset([["a.txt"]])
        missing = tf.data.TextLineDataset(str(tmp_path / "missing.csv"))
        not_gzip = tf.data.TextLineDataset(str(FILES / "train_a.csv"), compression_type="GZIP")
        with tf.Session() as sess:
            with pytest.raises(tf.errors.NotFoundError, match="missing.csv"):
                sess.run(missing.make_one_shot_iterator().get_next())
            with pytest.raises(tf.errors.InvalidArgumentError, match="decompress"):
                sess.run(not_gzip.make_one_shot_iterator().get_next())


def test_text_line_dataset_is_no_longer_a_missing_name() -> None:
    from symgrad.tf1_names import SUBSTITUTES

    assert "data.TextLineDataset" not in SUBSTITUTES
    assert tf.data.TextLineDataset is not None and "TextLineDataset" in tf.data.__all__
    with pytest.raises(MissingTF1NameError, match="from_generator"):
        tf.data.TFRecordDataset  # noqa: B018


# -- the portable backend ------------------------------------------------------------------------


def test_the_portable_backend_decodes_but_does_not_fetch_strings() -> None:
    """Session(backend="array_api") runs a file pipeline (its host ops fetch strings on the
    host) and gives the decoded numbers, but refuses to fetch a string component."""
    paths = [str(FILES / name) for name in programs.IMAGE_FILES[:2]]
    with tf.Graph().as_default():
        dataset = tf.data.Dataset.from_tensor_slices((paths, [0, 1]))
        decoded = dataset.map(lambda f, y: (f, tf.image.decode_png(tf.read_file(f), channels=1), y))
        name, image, label = decoded.make_one_shot_iterator().get_next()
        expected = [tf.image.decode_png(tf.read_file(path), channels=1) for path in paths]
        with tf.Session() as sess:
            want = sess.run(expected)
        with tf.Session(backend="array_api") as sess:
            assert sess.backend != "numpy"
            first = sess.run([image, label])
            with pytest.raises(BackendError, match="cannot fetch string tensor"):
                sess.run(name)
            second = sess.run(image)
    # The refused run took no element: the next run gets the second image.
    np.testing.assert_array_equal(np.asarray(first[0]), want[0])
    np.testing.assert_array_equal(np.asarray(second), want[1])
    assert int(first[1]) == 0
