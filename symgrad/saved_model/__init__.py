"""TF1's ``tf.saved_model``: load a SavedModel TensorFlow wrote (its meta graph tagged
``serve``, its variables restored) into a symgrad graph and session.

    with tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], folder)
        signature = meta.signature_def["serving_default"]

``simple_save(sess, export_dir, inputs, outputs)`` writes one that TensorFlow loads (the
graph the outputs need, their signature, the variables in TF's checkpoint format); the
``builder`` API is not there.
"""

from __future__ import annotations

from typing import Any

from ..graph_export import simple_save
from ..tf1_names import missing_attribute
from . import loader, signature_constants, tag_constants
from .loader import load

__all__ = ["load", "loader", "signature_constants", "simple_save", "tag_constants"]


def __getattr__(name: str) -> Any:
    raise missing_attribute(__name__, "saved_model", name)
