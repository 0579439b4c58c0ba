"""``symgrad.random``: the ``tf.random`` names TF1 programs use.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     sg.random.set_random_seed(0)
...     sg.random.normal([2, 3]).shape
(2, 3)
"""

from .ops.random_ops import categorical, multinomial, set_random_seed, truncated_normal
from .ops.random_ops import random_normal as normal
from .ops.random_ops import random_shuffle as shuffle
from .ops.random_ops import random_uniform as uniform

# TF 2's name for the graph-level seed, also in TF 1.14+ as tf.random.set_seed.
set_seed = set_random_seed

__all__ = [
    "categorical",
    "multinomial",
    "normal",
    "set_random_seed",
    "set_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
]
