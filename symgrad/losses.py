"""``symgrad.losses``: TF1's ``tf.losses`` (scalar weights)."""

from typing import TYPE_CHECKING, Any

from .ops.loss_ops import (
    Reduction,
    compute_weighted_loss,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from .ops.nn_ops import mean_squared_error
from .ops.variable_scope import (
    add_loss,
    get_losses,
    get_regularization_loss,
    get_regularization_losses,
    get_total_loss,
)
from .tf1_names import missing_attribute

__all__ = [
    "mean_squared_error",
    "add_loss",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "Reduction",
    "compute_weighted_loss",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "losses", name)
