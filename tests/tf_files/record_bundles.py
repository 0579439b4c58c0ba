"""Record TensorFlow checkpoints ("tensor bundles") for ``tests/test_tf_bundle.py``.

Run by hand from the repository root, with a Python that has TensorFlow 2.x::

    TF_CPP_MIN_LOG_LEVEL=3 /work/tfenv/bin/python tests/tf_files/record_bundles.py

It writes, with TensorFlow, into ``tests/tf_files/bundles/``:

* ``dtypes``: every dtype symgrad reads and writes, scalars, empty arrays and strings
  (``tf.raw_ops.SaveV2``, names in sorted order);
* ``multiblock``: 300 names of 1000 bytes, whose index needs two data blocks (stored
  gzip-compressed as ``multiblock.index.gz``: it is 300 KB of repetitive names);
* ``bfloat16``: a bfloat16 tensor, which NumPy has no dtype for, beside a float32 one;
* ``saver``: variables saved by ``tf.compat.v1.train.Saver`` in graph mode;
* ``sharded``: variables on two CPU devices saved by ``Saver(sharded=True)``: two data files;
* ``partitioned``: a variable partitioned in two (sliced entries) and a plain one.

Then it has symgrad write the ``dtypes``, ``multiblock`` and ``saver`` arrays (running this
script again with the project's Python: ``--symgrad-write FOLDER``), reads those bundles
with ``tf.train.load_checkpoint`` (and the saver one with ``Saver.restore``), and records
whether TensorFlow read back exactly the arrays written and whether symgrad's files are
byte-identical to TensorFlow's. Everything goes into ``expected.json``; TensorFlow's own
reading of its bundles gives the expected values. TensorFlow is imported only inside
``main()``, so that pytest can collect this folder without it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any

import numpy as np

try:
    from tests.tf_files import cases
except ImportError:  # run as a script: this folder is on sys.path
    import cases  # type: ignore[no-redef]

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUNDLES = os.path.join(HERE, "bundles")
EXPECTED = os.path.join(HERE, "expected.json")
# The project's Python, which has symgrad (and no TensorFlow).
SYMGRAD_PYTHON = os.environ.get("SYMGRAD_PYTHON", os.path.join(ROOT, ".venv", "bin", "python"))


def describe(array: np.ndarray, dtype_name: str) -> dict[str, Any]:
    """An array as the fixture keeps it: dtype, shape and its exact little-endian bytes (the
    strings' bytes, for a string tensor)."""
    record: dict[str, Any] = {"dtype": dtype_name, "shape": list(array.shape)}
    if array.dtype == object:
        record["strings_hex"] = [bytes(value).hex() for value in array.reshape(-1).tolist()]
    else:
        little = array.dtype.newbyteorder("<") if array.dtype.itemsize > 1 else array.dtype
        record["hex"] = np.ascontiguousarray(array, little).tobytes().hex()
    return record


def blank(array: np.ndarray) -> np.ndarray:
    """An array of the shape and dtype of ``array``, all zeros (empty strings)."""
    if array.dtype == object:
        return np.full(array.shape, b"", dtype=object)
    return np.zeros_like(array)


def symgrad_write(folder: str) -> None:
    """Run by the project's Python: write the arrays of the cases with symgrad."""
    sys.path.insert(0, ROOT)
    from symgrad.tf_files import write_bundle

    write_bundle(os.path.join(folder, "dtypes"), cases.dtype_arrays())
    write_bundle(os.path.join(folder, "multiblock"), cases.multiblock_arrays())
    write_bundle(os.path.join(folder, "saver"), cases.saver_values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symgrad-write", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.symgrad_write:
        symgrad_write(args.symgrad_write)
        return

    import tensorflow as tf

    tf1 = tf.compat.v1
    tf1.disable_eager_execution()

    def constant(array: np.ndarray) -> Any:
        if array.dtype == object:
            flat = tf.constant(array.reshape(-1).tolist(), dtype=tf.string, shape=[array.size])
            return tf.reshape(flat, array.shape)
        return tf.constant(array)

    def save_v2(prefix: str, arrays: dict[str, Any]) -> None:
        names = sorted(arrays, key=lambda name: name.encode())
        with tf.Graph().as_default(), tf1.Session() as session:
            tensors = [
                arrays[name] if isinstance(arrays[name], tf.Tensor) else constant(arrays[name])
                for name in names
            ]
            session.run(
                tf.raw_ops.SaveV2(
                    prefix=prefix,
                    tensor_names=names,
                    shape_and_slices=[""] * len(names),
                    tensors=tensors,
                )
            )

    def save_variables(prefix: str, build: Any, sharded: bool = False, cpus: int = 1) -> None:
        config = tf1.ConfigProto(device_count={"CPU": cpus})
        with tf.Graph().as_default(), tf1.Session(config=config) as session:
            after_init = build()
            saver = tf1.train.Saver(sharded=sharded)
            session.run(tf1.global_variables_initializer())
            if after_init is not None:
                session.run(after_init)
            saver.save(session, prefix, write_meta_graph=False, write_state=False)

    shutil.rmtree(BUNDLES, ignore_errors=True)
    os.makedirs(BUNDLES)
    prefix = {name: os.path.join(BUNDLES, name) for name in cases.BUNDLE_NAMES}

    save_v2(prefix["dtypes"], cases.dtype_arrays())
    save_v2(prefix["multiblock"], cases.multiblock_arrays())
    # NumPy has no bfloat16: the graph casts to it.
    with tf.Graph().as_default(), tf1.Session() as session:
        session.run(
            tf.raw_ops.SaveV2(
                prefix=prefix["bfloat16"],
                tensor_names=["bf16/vector", "float32/scalar"],
                shape_and_slices=["", ""],
                tensors=[
                    tf.cast(tf.constant([1.0, -2.5, 3.140625]), tf.bfloat16),
                    tf.constant(np.float32(1.0)),
                ],
            )
        )

    def saver_variables() -> None:
        for name, value in cases.saver_values().items():
            tf1.Variable(constant(value), name=name)

    save_variables(prefix["saver"], saver_variables)

    def sharded_variables() -> None:
        for name, (device, value) in cases.sharded_values().items():
            with tf.device(f"/cpu:{device}"):
                tf1.Variable(constant(value), name=name)

    save_variables(prefix["sharded"], sharded_variables, sharded=True, cpus=2)

    def partitioned_variables() -> Any:
        value = cases.partitioned_value()
        part = tf1.get_variable(
            "part",
            shape=value.shape,
            initializer=tf1.zeros_initializer(),
            partitioner=tf1.fixed_size_partitioner(2),
        )
        tf1.Variable(np.arange(5, dtype=np.int32), name="u")
        return [piece.assign(value[2 * i : 2 * i + 2]) for i, piece in enumerate(part)]

    save_variables(prefix["partitioned"], partitioned_variables)

    expected: dict[str, Any] = {"tensorflow_version": tf.__version__, "bundles": {}}
    for name, path in prefix.items():
        reader = tf.train.load_checkpoint(path)
        dtypes = reader.get_variable_to_dtype_map()
        tensors = {}
        for tensor in sorted(dtypes, key=lambda key: key.encode()):
            value = np.asarray(reader.get_tensor(tensor))
            if dtypes[tensor] == tf.string:
                value = np.array(value, dtype=object)
            tensors[tensor] = describe(value, dtypes[tensor].name)
        record: dict[str, Any] = {
            "files": sorted(f for f in os.listdir(BUNDLES) if f.startswith(name + ".")),
        }
        if name == "multiblock":
            # 300 names of 1000 bytes are kept out of the JSON: their values in name order.
            order = sorted(tensors, key=lambda key: key.encode())
            record["names_sha256"] = hashlib.sha256("\n".join(order).encode()).hexdigest()
            record["values"] = [
                int(np.frombuffer(bytes.fromhex(tensors[key]["hex"]), "<i4")[0]) for key in order
            ]
        else:
            record["tensors"] = tensors
        expected["bundles"][name] = record

    # symgrad's writer, read back by TensorFlow and compared with TensorFlow's files.
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([SYMGRAD_PYTHON, __file__, "--symgrad-write", folder], check=True)
        written = {
            "dtypes": cases.dtype_arrays(),
            "multiblock": cases.multiblock_arrays(),
            "saver": cases.saver_values(),
        }
        comparison: dict[str, Any] = {}
        for name, arrays in written.items():
            ours = os.path.join(folder, name)
            reader = tf.train.load_checkpoint(ours)
            dtypes = reader.get_variable_to_dtype_map()
            equal = set(dtypes) == set(arrays)
            for tensor, array in arrays.items():
                value = np.asarray(reader.get_tensor(tensor))
                if dtypes[tensor] == tf.string:
                    value = np.array(value, dtype=object)
                    want = np.array(array, dtype=object)
                else:
                    want = np.asarray(array)
                equal = equal and describe(value, "") == describe(want, "")
            same_files = {}
            for suffix in (".index", ".data-00000-of-00001"):
                with open(ours + suffix, "rb") as mine, open(prefix[name] + suffix, "rb") as theirs:
                    same_files[suffix] = mine.read() == theirs.read()
            comparison[name] = {
                "tf_reads_symgrad_equal": bool(equal),
                "index_identical": same_files[".index"],
                "data_identical": same_files[".data-00000-of-00001"],
            }
        # Saver.restore of symgrad's bundle into graph-mode variables.
        with tf.Graph().as_default(), tf1.Session() as session:
            variables = {
                name: tf1.Variable(constant(blank(value)), name=name)
                for name, value in cases.saver_values().items()
            }
            tf1.train.Saver().restore(session, os.path.join(folder, "saver"))
            restored = session.run(variables)
        comparison["saver"]["saver_restore_equal"] = all(
            describe(np.array(restored[name], dtype=value.dtype), "") == describe(value, "")
            for name, value in cases.saver_values().items()
        )
        expected["symgrad_written"] = comparison

    # The multi-block index is 300 KB of repeated names: kept compressed.
    index = prefix["multiblock"] + ".index"
    with open(index, "rb") as source, gzip.GzipFile(index + ".gz", "wb", mtime=0) as target:
        target.write(source.read())
    os.remove(index)
    expected["bundles"]["multiblock"]["files"] = sorted(
        f for f in os.listdir(BUNDLES) if f.startswith("multiblock.")
    )
    with open(EXPECTED, "w", encoding="utf-8") as file:
        json.dump(expected, file, indent=1, sort_keys=True)
        file.write("\n")
    print(json.dumps(expected["symgrad_written"], indent=1))


if __name__ == "__main__":
    main()
