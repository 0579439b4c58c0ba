"""The op registry and the ops, one module per family.

Below them all: ``registry`` (the OpDef table), ``functions`` (the SymPy nodes),
``array_nodes`` (the IR's array nodes: NumPy's array functions, indexing, arrays made from
literals) and ``base`` (what every family shares: ``_op``, arguments read as ints, axes and
shapes, ``constant_value``). Each family imports only the ones before it:
sources → broadcasting → elementwise → checks (the run-time checks) → reductions,
shape_queries, reshaping → gathering (gather, where) → slicing → joining (concat, stack,
split, tile, broadcast_to) → padding → creation (zeros, fill, one_hot, linspace, ...) →
segments, cumulative, diagonals → state → linalg → nn_ops → conv_ops → resize_ops;
random_ops, sorting and control build on them. TF1's library code built from ops (scopes,
initializers, losses, metrics, ...), which defines no op, is :mod:`symgrad.tf1`, above this
package.
"""

from . import (  # noqa: F401  (registers the ops)
    broadcasting,
    checks,
    conv_ops,
    creation,
    cumulative,
    diagonals,
    elementwise,
    gathering,
    joining,
    linalg,
    nn_ops,
    padding,
    reductions,
    reshaping,
    resize_ops,
    segments,
    shape_queries,
    slicing,
    sources,
    state,
)
from .registry import REGISTRY, OpDef

__all__ = ["REGISTRY", "OpDef"]
