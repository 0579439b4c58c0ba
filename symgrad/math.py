"""``symgrad.math``: the math ops under their ``tf.math`` names."""

from typing import TYPE_CHECKING, Any

from .ops.cumulative import cumprod, cumsum
from .ops.elementwise import (
    abs,
    add,
    cast,
    cos,
    divide,
    equal,
    exp,
    expm1,
    floor,
    greater,
    greater_equal,
    is_finite,
    less,
    less_equal,
    log,
    log1p,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    softplus,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
)
from .ops.reductions import (
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from .ops.segments import (
    segment_max,
    segment_mean,
    segment_min,
    segment_prod,
    segment_sum,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_prod,
    unsorted_segment_sum,
)
from .tf1_names import missing_attribute

__all__ = [
    "abs",
    "add",
    "cast",
    "cos",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "softplus",
    "sqrt",
    "square",
    "squared_difference",
    "subtract",
    "tanh",
    "truediv",
    "reduce_mean",
    "reduce_sum",
    "is_finite",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "cumprod",
    "cumsum",
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sum",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "math", name)


# The everyday elementwise, reduction and activation ops.
from .ops.elementwise import (
    accumulate_n,
    acos,
    acosh,
    add_n,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    cosh,
    div_no_nan,
    floordiv,
    floormod,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    mod,
    multiply_no_nan,
    sinh,
    softsign,
    tan,
    truncatediv,
    truncatemod,
    xdivy,
    xlogy,
)
from .ops.nn_ops import (
    in_top_k,
    l2_normalize,
)
from .ops.reductions import (
    argmax,
    argmin,
    count_nonzero,
    reduce_all,
    reduce_any,
    reduce_euclidean_norm,
)

__all__ += [
    "in_top_k",
    "acos",
    "acosh",
    "add_n",
    "accumulate_n",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "cosh",
    "div_no_nan",
    "divide_no_nan",
    "floordiv",
    "floormod",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "mod",
    "multiply_no_nan",
    "sinh",
    "softsign",
    "tan",
    "truncatediv",
    "truncatemod",
    "xdivy",
    "xlogy",
    "argmax",
    "argmin",
    "count_nonzero",
    "reduce_all",
    "reduce_any",
    "reduce_euclidean_norm",
    "l2_normalize",
]

divide_no_nan = div_no_nan


# The error function and top_k (issue 15).
from .ops.elementwise import erf, erfc  # noqa: E402
from .ops.sorting import top_k  # noqa: E402

__all__ += ["erf", "erfc", "top_k"]
