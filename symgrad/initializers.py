"""``symgrad.initializers``: TF1's ``tf.initializers`` namespace.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     w = sg.Variable(sg.initializers.glorot_uniform(seed=1)([3, 2]), name="w")
...     with sg.Session() as sess:
...         _ = sess.run(sg.initializers.global_variables())
...         sess.run(w).shape
(3, 2)
"""

from .ops.state import global_variables_initializer as global_variables
from .ops.state import variables_initializer as variables
from .tf1.init_ops import Constant as constant
from .tf1.init_ops import GlorotNormal as glorot_normal
from .tf1.init_ops import GlorotUniform as glorot_uniform
from .tf1.init_ops import Ones as ones
from .tf1.init_ops import Orthogonal as orthogonal
from .tf1.init_ops import RandomNormal as random_normal
from .tf1.init_ops import RandomUniform as random_uniform
from .tf1.init_ops import TruncatedNormal as truncated_normal
from .tf1.init_ops import UniformUnitScaling as uniform_unit_scaling
from .tf1.init_ops import VarianceScaling as variance_scaling
from .tf1.init_ops import Zeros as zeros
from .tf1.init_ops import he_normal, he_uniform, lecun_normal, lecun_uniform

__all__ = [
    "constant",
    "global_variables",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "lecun_normal",
    "lecun_uniform",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "uniform_unit_scaling",
    "variance_scaling",
    "variables",
    "zeros",
]
