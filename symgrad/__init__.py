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

from typing import TYPE_CHECKING, Any

from . import operators as _operators  # noqa: F401  (attaches + - * / ... to Tensor)
from . import linalg, losses, math, nn, summary, train
from .compiler import CompiledModule, compile
from .dtypes import (
    DType,
    as_dtype,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .dtypes import bool_ as bool
from .errors import (
    ArgumentTypeError,
    DTypeError,
    ExecutionError,
    FailedPreconditionError,
    FileAccessError,
    GraphMismatchError,
    InvalidArgumentError,
    NotCompilableError,
    SessionClosedError,
    ShapeError,
    SymgradError,
)
from .control_flow import case, cond, foldl, foldr, map_fn, scan, while_loop
from .ops.tensor_array import TensorArray, sequence_mask
from .explain import explain_gradients
from .gradients import AggregationMethod, UnconnectedGradients, gradients, hessians
from .graph import (
    Graph,
    Operation,
    Tensor,
    get_default_graph,
    get_default_session,
    name_scope,
    reset_default_graph,
)
from .ops.elementwise import (
    abs,
    add,
    cast,
    saturate_cast,
    cos,
    divide,
    equal,
    exp,
    expm1,
    floor,
    greater,
    greater_equal,
    identity,
    less,
    less_equal,
    log,
    log1p,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    ones_like,
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
    stop_gradient,
    subtract,
    tanh,
    truediv,
    zeros_like,
)
from .ops.creation import eye, fill, one_hot, ones, range, zeros
from .ops.gathering import gather, where
from .ops.joining import broadcast_to, concat, split, stack, tile, unstack
from .ops.reshaping import expand_dims, reshape, squeeze, transpose
from .ops.shape_queries import rank, shape, size
from .ops.slicing import strided_slice

# ``trace`` is TF1's matrix trace (Graph -> Program is the internal module ``symgrad.lowering``).
from .ops.linalg import einsum, matmul, norm, tensordot, trace
from .ops.elementwise import is_finite
from .ops.reductions import (
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
)
from .ops.sources import constant, convert_to_tensor, placeholder
from .ops.state import (
    Variable,
    assert_variables_initialized,
    assign,
    assign_add,
    assign_sub,
    global_variables,
    global_variables_initializer,
    group,
    initialize_all_variables,
    is_variable_initialized,
    model_variables,
    report_uninitialized_variables,
    trainable_variables,
    variables_initializer,
)

# Randomness: random ops, seeds, initializers (tf.random, tf.initializers)
from . import initializers, layers, random
from . import layer_classes as _layer_classes  # noqa: F401  (adds tf.layers' classes to layers)
from .tf1.init_ops import (
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    ones_initializer,
    orthogonal_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    uniform_unit_scaling_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
from .ops.random_ops import (
    multinomial,
    random_normal,
    random_shuffle,
    random_uniform,
    set_random_seed,
    truncated_normal,
)
from .config import ConfigProto, GPUOptions, RunMetadata, RunOptions
from .session import InteractiveSession, Session
from .python_functions import Function, TensorSpec, TracedFunction, function, grad, value_and_grad

# Variables the TF1 way: variable scopes, get_variable, collections.
from . import contrib
from .tf1.variable_scope import (
    AUTO_REUSE,
    GraphKeys,
    VariableScope,
    add_to_collection,
    add_to_collections,
    get_collection,
    get_collection_ref,
    get_variable,
    get_variable_scope,
    variable_scope,
)
from .tf1_names import missing_attribute
from .shapes import Dimension, TensorShape
from .dtypes import string

# The everyday structural ops and graph plumbing (pad, slice, segment sums, control, ...).
from .ops.control import (
    Print,
    control_dependencies,
    custom_gradient,
    device,
    no_op,
    placeholder_with_default,
    print_ as print,
    tuple,
)
from .ops.creation import lin_space, linspace
from .ops.cumulative import cumprod, cumsum
from .ops.diagonals import diag, diag_part, matrix_band_part, matrix_diag, matrix_diag_part
from .ops.padding import pad
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
from .ops.slicing import boolean_mask, reverse, reverse_v2, roll, slice

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
    div,
    div_no_nan,
    floordiv,
    floormod,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    mod,
    sinh,
    tan,
    to_double,
    to_float,
    to_int32,
    to_int64,
    truncatediv,
    truncatemod,
)
from .ops.nn_ops import (
    clip_by_global_norm,
    clip_by_norm,
    clip_by_value,
    global_norm,
)
from .ops.reductions import (
    arg_max,
    arg_min,
    argmax,
    argmin,
    count_nonzero,
    reduce_all,
    reduce_any,
)

# ``x[tf.newaxis]`` adds an axis, as NumPy's None does.
newaxis = None

__all__ = [
    "TensorArray",
    "case",
    "cond",
    "foldl",
    "foldr",
    "map_fn",
    "scan",
    "sequence_mask",
    "while_loop",
    "__version__",
    "math",
    "nn",
    "CompiledModule",
    "compile",
    "DType",
    "as_dtype",
    "bool",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "ArgumentTypeError",
    "DTypeError",
    "ExecutionError",
    "FileAccessError",
    "GraphMismatchError",
    "InvalidArgumentError",
    "NotCompilableError",
    "ShapeError",
    "SymgradError",
    "AggregationMethod",
    "UnconnectedGradients",
    "gradients",
    "Graph",
    "Operation",
    "Tensor",
    "get_default_graph",
    "name_scope",
    "reset_default_graph",
    "abs",
    "add",
    "cast",
    "saturate_cast",
    "cos",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "greater",
    "greater_equal",
    "identity",
    "less",
    "less_equal",
    "log",
    "log1p",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "ones_like",
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
    "stop_gradient",
    "subtract",
    "tanh",
    "truediv",
    "where",
    "zeros_like",
    "matmul",
    "reduce_mean",
    "reduce_sum",
    "Variable",
    "constant",
    "convert_to_tensor",
    "global_variables",
    "placeholder",
    "trainable_variables",
    "train",
    "summary",
    "FailedPreconditionError",
    "SessionClosedError",
    "assign",
    "assign_add",
    "assign_sub",
    "global_variables_initializer",
    "is_variable_initialized",
    "report_uninitialized_variables",
    "assert_variables_initialized",
    "model_variables",
    "group",
    "initialize_all_variables",
    "variables_initializer",
    "InteractiveSession",
    "Session",
    "ConfigProto",
    "GPUOptions",
    "RunMetadata",
    "RunOptions",
    "get_default_session",
    "linalg",
    "losses",
    "hessians",
    "broadcast_to",
    "concat",
    "expand_dims",
    "eye",
    "fill",
    "gather",
    "one_hot",
    "ones",
    "range",
    "rank",
    "reshape",
    "shape",
    "size",
    "split",
    "squeeze",
    "stack",
    "strided_slice",
    "tile",
    "transpose",
    "unstack",
    "zeros",
    "einsum",
    "tensordot",
    "trace",
    "norm",
    "is_finite",
    "reduce_logsumexp",
    "reduce_max",
    "reduce_min",
    "reduce_prod",
    "explain_gradients",
    "TensorSpec",
    "TracedFunction",
    "Function",
    "function",
    "grad",
    "value_and_grad",
    # randomness
    "initializers",
    "layers",
    "random",
    "constant_initializer",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "ones_initializer",
    "orthogonal_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "uniform_unit_scaling_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
    "multinomial",
    "random_normal",
    "random_shuffle",
    "random_uniform",
    "set_random_seed",
    "truncated_normal",
    # Variables the TF1 way.
    "contrib",
    "AUTO_REUSE",
    "GraphKeys",
    "VariableScope",
    "add_to_collection",
    "add_to_collections",
    "get_collection",
    "get_collection_ref",
    "get_variable",
    "get_variable_scope",
    "variable_scope",
    "Dimension",
    "TensorShape",
    "string",
]


__all__ += [
    "acos",
    "acosh",
    "accumulate_n",
    "add_n",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "clip_by_value",
    "cosh",
    "div",
    "div_no_nan",
    "floordiv",
    "floormod",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "mod",
    "sinh",
    "tan",
    "to_double",
    "to_float",
    "to_int32",
    "to_int64",
    "truncatediv",
    "truncatemod",
    "arg_max",
    "arg_min",
    "argmax",
    "argmin",
    "count_nonzero",
    "reduce_all",
    "reduce_any",
    "clip_by_global_norm",
    "clip_by_norm",
    "global_norm",
    # structural ops and graph plumbing
    "Print",
    "control_dependencies",
    "custom_gradient",
    "device",
    "no_op",
    "placeholder_with_default",
    "print",
    "tuple",
    "boolean_mask",
    "cumprod",
    "cumsum",
    "diag",
    "diag_part",
    "lin_space",
    "linspace",
    "matrix_band_part",
    "matrix_diag",
    "matrix_diag_part",
    "pad",
    "reverse",
    "reverse_v2",
    "roll",
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "slice",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sum",
    "newaxis",
]


# A TF1 name symgrad lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "", name)


# Shape-less feeds, the error function, local variables and streaming metrics (issue 15).
from . import metrics  # noqa: E402
from .ops.checks import ensure_shape  # noqa: E402
from .ops.elementwise import erf, erfc  # noqa: E402
from .ops.state import local_variables, local_variables_initializer  # noqa: E402
from .tf1.moving_averages import moving_average_variables  # noqa: E402

__all__ += [
    "metrics",
    "ensure_shape",
    "erf",
    "erfc",
    "moving_average_variables",
    "local_variables",
    "local_variables_initializer",
]

# TensorFlow's own files, in and out (symgrad.tf_files, the tf-files extra); graph_util also
# installs Graph.as_graph_def.
from . import graph_util, saved_model  # noqa: E402
from .graph_import import GraphDef, import_graph_def  # noqa: E402
from .model_export import export_model  # noqa: E402

__all__ += ["saved_model", "graph_util", "GraphDef", "import_graph_def", "export_model"]

# Input pipelines: tf.data's datasets and iterators, run by the Session in Python.
from . import data  # noqa: E402

__all__ += ["data"]

# TF1's queues (tf.train.slice_input_producer, tf.train.batch... live in symgrad.train).
from .queues import FIFOQueue, QueueBase, RandomShuffleQueue  # noqa: E402

__all__ += ["FIFOQueue", "QueueBase", "RandomShuffleQueue"]

# Image operations built from symgrad's ops (tf.image: flips, standardization, cropping).
from . import image  # noqa: E402
from .image import random_crop  # noqa: E402  (TF1's tf.random_crop)

__all__ += ["image", "random_crop"]

# String tensors and the ops that read files, run by the Session on the host
# (symgrad.string_ops; the image decoders need the images extra, Pillow).
from . import file_io as io  # noqa: E402
from .string_ops import (  # noqa: E402
    ReaderBase,
    TextLineReader,
    WholeFileReader,
    decode_csv,
    read_file,
)

__all__ += ["io", "ReaderBase", "TextLineReader", "WholeFileReader", "decode_csv", "read_file"]
