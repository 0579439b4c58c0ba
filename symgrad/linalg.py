"""``symgrad.linalg``: matrix ops under their ``tf.linalg`` names."""

from typing import TYPE_CHECKING, Any

from .ops.diagonals import matrix_band_part as band_part
from .ops.diagonals import matrix_diag as diag
from .ops.diagonals import matrix_diag_part as diag_part
from .ops.linalg import einsum, matmul, matvec, norm, tensordot, trace
from .tf1_names import missing_attribute

__all__ = ["einsum", "matmul", "matvec", "norm", "tensordot", "trace"]
__all__ += ["band_part", "diag", "diag_part"]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "linalg", name)
