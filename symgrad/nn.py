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
]

# issue 15, item 5: the everyday elementwise, reduction and activation ops
from .ops.elementwise import (
    elu,
    leaky_relu,
    relu6,
    selu,
    softsign,
)
from .ops.nn_ops import (
    batch_normalization,
    in_top_k,
    l2_normalize,
    moments,
    weighted_cross_entropy_with_logits,
    xw_plus_b,
)

__all__ += [
    "elu",
    "leaky_relu",
    "relu6",
    "selu",
    "softsign",
    "batch_normalization",
    "in_top_k",
    "l2_normalize",
    "moments",
    "weighted_cross_entropy_with_logits",
    "xw_plus_b",
]
