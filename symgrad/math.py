"""``symgrad.math``: the math ops under their ``tf.math`` names."""

from .ops.elementwise import (abs, add, cast, cos, divide, equal, exp, expm1, floor, greater,
                              greater_equal, less, less_equal, log, log1p, maximum, minimum,
                              multiply, negative, not_equal, pow, reciprocal, round, rsqrt,
                              sigmoid, sign, sin, softplus, sqrt, square, squared_difference,
                              subtract, tanh, truediv)
from .ops.elementwise import is_finite
from .ops.reductions import (reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
                             reduce_sum)

__all__ = ["abs", "add", "cast", "cos", "divide", "equal", "exp", "expm1", "floor", "greater",
           "greater_equal", "less", "less_equal", "log", "log1p", "maximum", "minimum", "multiply",
           "negative", "not_equal", "pow", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
           "softplus", "sqrt", "square", "squared_difference", "subtract", "tanh", "truediv",
           "reduce_mean", "reduce_sum", "is_finite", "reduce_logsumexp", "reduce_max", "reduce_min",
           "reduce_prod"]
