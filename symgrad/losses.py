"""``symgrad.losses``: TF1's ``tf.losses``."""

from typing import TYPE_CHECKING, Any

from .tf1.loss_ops import (
    Reduction,
    absolute_difference,
    compute_weighted_loss,
    cosine_distance,
    hinge_loss,
    huber_loss,
    log_loss,
    mean_pairwise_squared_error,
    mean_squared_error,
    sigmoid_cross_entropy,
    softmax_cross_entropy,
    sparse_softmax_cross_entropy,
)
from .tf1.variable_scope import (
    add_loss,
    get_losses,
    get_regularization_loss,
    get_regularization_losses,
    get_total_loss,
)
from .tf1_names import missing_attribute

__all__ = [
    "absolute_difference",
    "cosine_distance",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_pairwise_squared_error",
    "mean_squared_error",
    "sigmoid_cross_entropy",
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
