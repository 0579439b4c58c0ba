"""``symgrad.nn``: the neural-network ops of ``tf.nn``."""

from .ops.elementwise import relu, sigmoid, softplus, tanh
from .ops.nn_ops import (
    bias_add,
    l2_loss,
    log_softmax,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
)
from .ops.structural import embedding_lookup, local_response_normalization, lrn

__all__ = [
    "relu",
    "sigmoid",
    "softplus",
    "tanh",
    "bias_add",
    "l2_loss",
    "log_softmax",
    "sigmoid_cross_entropy_with_logits",
    "softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
    "embedding_lookup",
    "local_response_normalization",
    "lrn",
]
