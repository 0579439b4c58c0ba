"""The op registry and the ops, one module per family."""

from . import array_ops, elementwise, linalg, nn_ops, reductions, sources, state  # noqa: F401  (registers the ops)
from .registry import REGISTRY, OpDef

__all__ = ["REGISTRY", "OpDef"]
