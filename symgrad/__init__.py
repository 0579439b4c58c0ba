"""symgrad: TF1-style graphs in, readable NumPy code for values and exact gradients out.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float64, name="x")
...     y = sg.tanh(x)
...     f = sg.compile([y, sg.gradients(y, x)[0]], name="tanh_and_grad")
>>> [f"{v:.6f}" for v in f(0.5)]
['0.462117', '0.786448']
"""

from .version import __version__  # noqa: I001  (first: codegen reads it)

from . import operators as _operators  # noqa: F401  (attaches + - * / ... to Tensor)
from . import linalg, losses, math, nn, train
from .compiler import CompiledModule, compile
from .dtypes import DType, as_dtype, bool_ as bool, float16, float32, float64, int32, int64
from .errors import (DTypeError, FailedPreconditionError, GraphMismatchError, InvalidArgumentError,
                     NotCompilableError, SessionClosedError, ShapeError, SymgradError)
from .explain import explain_gradients
from .gradients import AggregationMethod, UnconnectedGradients, gradients, hessians
from .graph import (Graph, Operation, Tensor, get_default_graph, name_scope,
                    reset_default_graph)
from .ops.elementwise import (abs, add, cast, cos, divide, equal, exp, expm1, floor, greater,
                              greater_equal, identity, less, less_equal, log, log1p, maximum,
                              minimum, multiply, negative, not_equal, ones_like, pow, reciprocal,
                              round, rsqrt, sigmoid, sign, sin, softplus, sqrt, square,
                              squared_difference, stop_gradient, subtract, tanh, truediv, where,
                              zeros_like)
from .ops.array_ops import (broadcast_to, concat, expand_dims, eye, fill, gather, one_hot, ones,
                             range, rank, reshape, shape, size, split, squeeze, stack, strided_slice,
                             tile, transpose, unstack, zeros)
from .ops.linalg import einsum, matmul, tensordot
from .ops.elementwise import is_finite
from .ops.reductions import (reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod,
                             reduce_sum)
from .ops.sources import (Variable, constant, convert_to_tensor, global_variables, placeholder,
                          trainable_variables)
from .ops.state import (assign, assign_add, assign_sub, global_variables_initializer, group,
                        initialize_all_variables, variables_initializer)
from .session import InteractiveSession, Session, get_default_session
from .tracing import TensorSpec, TracedFunction, function, value_and_grad

__all__ = [
    "__version__", "math", "nn", "CompiledModule", "compile", "DType", "as_dtype", "bool",
    "float16", "float32", "float64", "int32", "int64", "DTypeError", "GraphMismatchError",
    "InvalidArgumentError", "NotCompilableError", "ShapeError", "SymgradError",
    "AggregationMethod", "UnconnectedGradients", "gradients", "Graph", "Operation", "Tensor",
    "get_default_graph", "name_scope", "reset_default_graph", "abs", "add", "cast", "cos",
    "divide", "equal", "exp", "expm1", "floor", "greater", "greater_equal", "identity", "less",
    "less_equal", "log", "log1p", "maximum", "minimum", "multiply", "negative", "not_equal",
    "ones_like", "pow", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin", "softplus",
    "sqrt", "square", "squared_difference", "stop_gradient", "subtract", "tanh", "truediv",
    "where", "zeros_like", "matmul", "reduce_mean", "reduce_sum", "Variable", "constant",
    "convert_to_tensor", "global_variables", "placeholder", "trainable_variables", "train",
    "FailedPreconditionError", "SessionClosedError", "assign", "assign_add", "assign_sub",
    "global_variables_initializer", "group", "initialize_all_variables", "variables_initializer",
    "InteractiveSession", "Session", "get_default_session", "linalg", "losses", "hessians",
    "broadcast_to", "concat", "expand_dims", "eye", "fill", "gather", "one_hot", "ones", "range",
    "rank", "reshape", "shape", "size", "split", "squeeze", "stack", "strided_slice", "tile",
    "transpose", "unstack", "zeros", "einsum", "tensordot", "is_finite", "reduce_logsumexp",
    "reduce_max", "reduce_min", "reduce_prod", "explain_gradients", "TensorSpec", "TracedFunction",
    "function", "value_and_grad",
]
