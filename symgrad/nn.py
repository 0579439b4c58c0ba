"""``symgrad.nn``: the neural-network ops of ``tf.nn``."""

from .ops.elementwise import relu, sigmoid, softplus, tanh

__all__ = ["relu", "sigmoid", "softplus", "tanh"]
