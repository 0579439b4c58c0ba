"""``symgrad.nn``: the neural-network ops of ``tf.nn``."""

# convolutions and pooling
from .ops.conv_ops import (
    atrous_conv2d,
    avg_pool,
    avg_pool2d,
    conv2d,
    conv2d_transpose,
    max_pool,
    max_pool2d,
)
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
    # convolutions and pooling
    "atrous_conv2d",
    "avg_pool",
    "avg_pool2d",
    "conv2d",
    "conv2d_transpose",
    "max_pool",
    "max_pool2d",
]
