"""``symgrad.losses``: TF1's ``tf.losses`` (scalar weights)."""

from .ops.nn_ops import mean_squared_error

__all__ = ["mean_squared_error"]
