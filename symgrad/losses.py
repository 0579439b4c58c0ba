"""``symgrad.losses``: TF1's ``tf.losses`` (scalar weights)."""

from .ops.nn_ops import mean_squared_error
from .ops.variable_scope import get_regularization_loss, get_regularization_losses

__all__ = ["mean_squared_error", "get_regularization_loss", "get_regularization_losses"]
