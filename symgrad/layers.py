"""``symgrad.layers``: TF1's ``tf.layers`` functions.

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float32, [None, 3], name="x")
...     y = sg.layers.dropout(x, rate=0.5, training=False)
...     with sg.Session() as sess:
...         print(sess.run(y, {x: np.ones((1, 3))}))
[[1. 1. 1.]]
"""

from __future__ import annotations

from typing import Any

from .graph import Tensor
from .ops.array_ops import where
from .ops.elementwise import identity
from .ops.random_ops import dropout as _nn_dropout
from .ops.sources import convert_to_tensor


# --- dropout (randomness) ----------------------------------------------------------------------------
def dropout(
    inputs: Any,
    rate: Any = 0.5,
    noise_shape: Any = None,
    seed: int | None = None,
    training: Any = False,
    name: str | None = None,
) -> Tensor:
    """``tf.layers.dropout``: :func:`symgrad.nn.dropout` with ``rate`` when ``training``,
    else ``inputs`` unchanged; ``training`` may be a bool placeholder fed per run."""
    x = convert_to_tensor(inputs)
    if isinstance(training, Tensor):
        dropped = _nn_dropout(x, noise_shape=noise_shape, seed=seed, name=name, rate=rate)
        return where(training, dropped, x)
    if not training:
        return identity(x, name=name)
    return _nn_dropout(x, noise_shape=noise_shape, seed=seed, name=name, rate=rate)


__all__ = ["dropout"]
