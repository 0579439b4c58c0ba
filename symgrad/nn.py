"""``symgrad.nn``: the neural-network ops of ``tf.nn``."""

from .ops.candidate_sampling import log_uniform_candidate_sampler, nce_loss, sampled_softmax_loss
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
from .ops.random_ops import dropout

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
    # randomness
    "dropout",
    "log_uniform_candidate_sampler",
    "nce_loss",
    "sampled_softmax_loss",
]
