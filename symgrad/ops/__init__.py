"""The op registry and the ops, one module per family.

Each family imports only the ones before it: sources → broadcasting → elementwise →
reductions → array_ops → state → linalg → nn_ops → conv_ops (``functions`` holds the SymPy nodes
and ``registry`` the OpDef table, below them all).
"""

from . import (  # noqa: F401  (registers the ops)
    array_ops,
    broadcasting,
    conv_ops,
    elementwise,
    linalg,
    nn_ops,
    reductions,
    sources,
    state,
)
from .registry import REGISTRY, OpDef

__all__ = ["REGISTRY", "OpDef"]
