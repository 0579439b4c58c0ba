"""TensorFlow's file formats, read and written without TensorFlow: the V2 checkpoint
("tensor bundle", :mod:`~symgrad.tf_files.bundle`) and the sorted string table its index
is (:mod:`~symgrad.tf_files.table`).

Pure file I/O over NumPy arrays; it needs the ``tf-files`` extra (protobuf, tensorboard's
compiled TensorFlow messages, google-crc32c), loaded on first use.

>>> import tempfile
>>> import numpy as np
>>> with tempfile.TemporaryDirectory() as folder:
...     write_bundle(f"{folder}/model.ckpt", {"w": np.arange(4, dtype=np.float32)})
...     read_bundle(f"{folder}/model.ckpt")
{'w': array([0., 1., 2., 3.], dtype=float32)}
"""

from .bundle import (
    BundleEntry,
    bundle_exists,
    data_path,
    index_path,
    read_bundle,
    read_bundle_index,
    read_tensor,
    write_bundle,
)

__all__ = [
    "BundleEntry",
    "bundle_exists",
    "data_path",
    "index_path",
    "read_bundle",
    "read_bundle_index",
    "read_tensor",
    "write_bundle",
]
