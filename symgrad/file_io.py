"""TF1's ``tf.io`` namespace: the file-reading ops symgrad has (see :mod:`symgrad.string_ops`).

``tf.io.read_file``, ``tf.io.decode_csv`` and the image decoders (``tf.io.decode_png``...)
are the same functions as ``tf.read_file``, ``tf.decode_csv`` and ``tf.image.decode_png``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .image_decoding import decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png
from .string_ops import decode_csv, read_file
from .tf1_names import missing_attribute

__all__ = [
    "decode_bmp",
    "decode_csv",
    "decode_gif",
    "decode_image",
    "decode_jpeg",
    "decode_png",
    "read_file",
]

# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "io", name)
