"""``symgrad.nn``: the neural-network ops of ``tf.nn``."""

from typing import TYPE_CHECKING, Any

# convolutions and pooling
from .ops.conv_ops import (
    atrous_conv2d,
    avg_pool,
    avg_pool2d,
    conv2d,
    conv2d_transpose,
    depthwise_conv2d,
    depthwise_conv2d_native,
    depthwise_conv2d_native_backprop_filter,
    depthwise_conv2d_native_backprop_input,
    max_pool,
    max_pool2d,
    separable_conv2d,
)
from .ops.elementwise import relu, sigmoid, softplus, tanh
from .ops.nn_ops import (
    bias_add,
    l2_loss,
    local_response_normalization,
    log_softmax,
    lrn,
    sigmoid_cross_entropy_with_logits,
    softmax,
    softmax_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits,
)
from .ops.random_ops import dropout
from .ops.segments import embedding_lookup
from .tf1.candidate_sampling import (
    fixed_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    nce_loss,
    sampled_softmax_loss,
    uniform_candidate_sampler,
)
from .tf1_names import missing_attribute

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
    "fixed_unigram_candidate_sampler",
    "uniform_candidate_sampler",
    "nce_loss",
    "sampled_softmax_loss",
    # convolutions and pooling
    "atrous_conv2d",
    "avg_pool",
    "avg_pool2d",
    "conv2d",
    "conv2d_transpose",
    "depthwise_conv2d",
    "depthwise_conv2d_backprop_filter",
    "depthwise_conv2d_backprop_input",
    "depthwise_conv2d_native",
    "depthwise_conv2d_native_backprop_filter",
    "depthwise_conv2d_native_backprop_input",
    "max_pool",
    "max_pool2d",
    "separable_conv2d",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "nn", name)


# The everyday elementwise, reduction and activation ops.
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
    log_poisson_loss,
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
    "log_poisson_loss",
    "moments",
    "weighted_cross_entropy_with_logits",
    "xw_plus_b",
    "embedding_lookup",
    "local_response_normalization",
    "lrn",
]


# top_k (issue 15).
from .ops.sorting import top_k  # noqa: E402

__all__ += ["top_k"]

# Recurrent nets: the cells and the unrolling functions.
from . import rnn_cell  # noqa: E402
from .rnn import bidirectional_dynamic_rnn, dynamic_rnn, static_rnn  # noqa: E402

__all__ += ["rnn_cell", "bidirectional_dynamic_rnn", "dynamic_rnn", "static_rnn"]


# TF1's other names of the depthwise backprops.
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter
depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
