"""``symgrad.contrib.layers``: TF1's ``tf.contrib.layers`` regularizers and ``flatten``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import ShapeError
from ..graph import Tensor
from ..ops.reshaping import reshape
from ..ops.sources import convert_to_tensor
from ..shapes import format_shape, is_fully_defined
from ..tf1.init_ops import contrib_variance_scaling_initializer as variance_scaling_initializer
from ..tf1.init_ops import xavier_initializer, xavier_initializer_conv2d
from ..tf1.variable_scope import (
    apply_regularization,
    l1_l2_regularizer,
    l1_regularizer,
    l2_regularizer,
    sum_regularizer,
)
from ..tf1_names import missing_attribute


def flatten(inputs: Any, outputs_collections: Any = None, scope: str | None = None) -> Tensor:
    """``inputs`` reshaped to ``[batch, -1]``: every axis but the first folded into one.

    The dims after the first must be known when the graph is built (they are in the
    programs this serves: images of a known size).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 7, 7, 64])
    ...     sg.contrib.layers.flatten(x).shape
    (None, 3136)
    """
    x = convert_to_tensor(inputs)
    rest = x.shape[1:] if x.shape is not None and len(x.shape) >= 2 else None
    if not is_fully_defined(rest):
        raise ShapeError(
            f"symgrad: flatten: '{x.name}' has shape {format_shape(x.shape)}; it needs rank "
            "2 or more and known dims after the first"
        )
    return reshape(x, [-1, int(np.prod(rest))], name=scope)


__all__ = [
    "apply_regularization",
    "flatten",
    "variance_scaling_initializer",
    "xavier_initializer",
    "xavier_initializer_conv2d",
    "l1_l2_regularizer",
    "l1_regularizer",
    "l2_regularizer",
    "sum_regularizer",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "contrib.layers", name)
