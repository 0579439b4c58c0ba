"""``symgrad.linalg``: matrix ops under their ``tf.linalg`` names."""

from .ops.linalg import einsum, matmul, matvec, tensordot, trace

__all__ = ["einsum", "matmul", "matvec", "tensordot", "trace"]
