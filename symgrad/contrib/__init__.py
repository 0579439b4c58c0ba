"""``symgrad.contrib``: the few ``tf.contrib`` names TF1 programs use most (``contrib.layers``)."""

from . import layers

__all__ = ["layers"]
