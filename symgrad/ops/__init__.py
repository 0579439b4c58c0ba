"""The op registry and the ops, one module per family."""

from . import elementwise, linalg, reductions, sources, state  # noqa: F401  (registers the ops)
from .registry import REGISTRY, OpDef

__all__ = ["REGISTRY", "OpDef"]
