"""``symgrad.linalg``: matrix ops under their ``tf.linalg`` names."""

from .ops.linalg import einsum, matmul, matvec, tensordot, trace
from .ops.structural import matrix_band_part as band_part
from .ops.structural import matrix_diag as diag
from .ops.structural import matrix_diag_part as diag_part

__all__ = ["einsum", "matmul", "matvec", "tensordot", "trace"]
__all__ += ["band_part", "diag", "diag_part"]
