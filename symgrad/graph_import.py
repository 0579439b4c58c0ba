"""TensorFlow's graphs brought into symgrad: ``import_graph_def`` (TF1's ``tf.import_graph_def``)
builds the ops of a ``GraphDef`` (a frozen ``.pb``, a ``.pbtxt``, the graph of a ``.meta`` or of
a SavedModel) into the default graph, each TF op type through the symgrad op that computes
the same thing. Gradients of an imported graph are symgrad's own (``tf.gradients`` works on
it), and ``compile`` turns it into a standalone module.

A ``tf.cond`` (``Switch`` and ``Merge``) comes in with both branches computed and the
``Merge`` selecting the taken branch's value; an assignment in a branch assigns only where
its branch is taken. While loops are not imported.

Each op type is declared once, in ``BUILDERS``: a function from the node, its input tensors
and its attributes to its output tensors. A graph holding op types that are not there is
refused with one :class:`~symgrad.errors.ModelFileError` listing all of them (and a node of
each), before any op is built.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .checkpoint import Saver
from .compiler import compile
from .errors import ModelFileError, SymgradError
from .gradients import gradients
from .graph import Operation, Tensor, ancestors, get_default_graph
from .ops import conv_ops as C
from .ops import creation, gathering, joining, reshaping, shape_queries, slicing
from .ops import elementwise as E
from .ops import nn_ops as N
from .ops import random_ops as RO
from .ops import reductions as R
from .ops.base import constant_value
from .ops.control import placeholder_with_default
from .ops.linalg import matmul
from .ops.padding import pad
from .ops.registry import opdef_of
from .ops.sorting import top_k
from .ops.sources import constant, convert_to_tensor, placeholder
from .ops.state import Variable, group
from .ops.state import assign as S_assign
from .ops.state import assign_add as S_assign_add
from .ops.state import assign_sub as S_assign_sub
from .tf_files import bundle as tf_bundle
from .tf_files import graph_files
from .tf_files._libraries import require_libraries

logger = logging.getLogger(__name__)


# Ops with nothing to compute in an imported graph (a saver's file operations, asserts): left
# out, with every node that reads them or runs after them.
SKIPPED = frozenset(
    {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "Assert", "ShardedFilename", "StringJoin"}
)

# A tensor computed inside a branch of TF1's ``tf.cond``: its predicate, and the branch
# (True: the ``Switch``'s output 1, taken when the predicate holds).
Guard = tuple[Tensor, bool]


@dataclass
class Node:
    """A ``NodeDef`` as the builders see it: its name, op type and attributes (decoded)."""

    name: str
    op: str
    attrs: Mapping[str, Any]
    inputs: list[Tensor]
    # The node's full name with a "/" after it: the ``name=`` of the op that gives its first
    # output, so that op is named exactly as the node (TF's rule for a name ending in "/").
    scope: str
    # For each input that is a shape TF computes from shapes (``Shape``, ``Slice`` of it,
    # ``ConcatV2``, ``Pack``): its sizes, ints where static, scalar tensors where not.
    input_sizes: list[list[Any] | None] = field(default_factory=list)
    # For each input computed in a branch of a ``tf.cond``: the branch (see ``Guard``).
    input_guards: list[Guard | None] = field(default_factory=list)

    def attr(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)

    def static(self, position: int, what: str) -> Any:
        """The value of input ``position`` when the graph fixes it (an axis, a shape, a
        permutation), as TF's kernels require of these inputs."""
        value = _fixed_value(self.inputs[position])
        if value is None:
            raise ModelFileError(
                f"symgrad: import_graph_def: node '{self.name}' ({self.op}): its {what} "
                f"('{self.inputs[position].name}') is computed at run time; symgrad needs it fixed"
            )
        return value

    def sizes(self, position: int, what: str) -> Any:
        """Input ``position`` as a shape argument: its value when fixed, else the sizes it
        is made of (``concat([expand_dims(shape(x)[0], 0), [16]], 0)`` is
        ``[shape(x)[0], 16]``) or ``shape(x)`` itself, as symgrad's ``zeros``/``fill`` take
        sizes known at run time."""
        tensor = self.inputs[position]
        if tensor.op.type == "Shape":
            return tensor
        sizes = self.input_sizes[position] if position < len(self.input_sizes) else None
        if sizes is not None:
            return sizes
        return [int(d) for d in np.atleast_1d(self.static(position, what))]


def _fixed_value(tensor: Tensor) -> np.ndarray | None:
    """The value of ``tensor`` when nothing run-time goes into it: a constant, or arithmetic on
    constants and static shapes (TF's graphs compute the axes of a reshape from ``Rank``),
    evaluated once here."""
    value = constant_value(tensor)
    if value is not None:
        return value
    ops = ancestors([tensor.op])
    if any(op.type in ("Placeholder", "VariableV2") or not opdef_of(op).pure for op in ops):
        return None
    return np.asarray(compile(tensor, [])())


Builder = Callable[[Node], "Tensor | Sequence[Tensor] | Operation"]
BUILDERS: dict[str, Builder] = {}


def _builds(*op_types: str) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        for op_type in op_types:
            BUILDERS[op_type] = builder
        return builder

    return register


def _unary(op_type: str, function: Callable[..., Tensor]) -> None:
    BUILDERS[op_type] = lambda node: function(node.inputs[0], name=node.scope)


def _binary(op_type: str, function: Callable[..., Tensor]) -> None:
    BUILDERS[op_type] = lambda node: function(node.inputs[0], node.inputs[1], name=node.scope)


_UNARY: dict[str, Callable[..., Tensor]] = {
    "Relu": E.relu,
    "Relu6": E.relu6,
    "Elu": E.elu,
    "Selu": E.selu,
    "Sigmoid": E.sigmoid,
    "Tanh": E.tanh,
    "Softplus": E.softplus,
    "Softsign": E.softsign,
    "Neg": E.negative,
    "Abs": E.abs,
    "Sign": E.sign,
    "Square": E.square,
    "Sqrt": E.sqrt,
    "Rsqrt": E.rsqrt,
    "Reciprocal": E.reciprocal,
    "Exp": E.exp,
    "Expm1": E.expm1,
    "Log": E.log,
    "Log1p": E.log1p,
    "Sin": E.sin,
    "Cos": E.cos,
    "Floor": E.floor,
    "Ceil": E.ceil,
    "Round": E.round,
    "Erf": E.erf,
    "Identity": E.identity,
    "StopGradient": E.stop_gradient,
    "PreventGradient": E.identity,
    "Snapshot": E.identity,
    "LogicalNot": E.logical_not,
    "ZerosLike": E.zeros_like,
    "OnesLike": E.ones_like,
    "Softmax": N.softmax,
    "LogSoftmax": N.log_softmax,
}
for _type, _function in _UNARY.items():
    _unary(_type, _function)

for _type, _function in {
    "Add": E.add,
    "AddV2": E.add,
    "Sub": E.subtract,
    "Mul": E.multiply,
    "RealDiv": E.truediv,
    "Div": E.div,
    "FloorDiv": E.floordiv,
    "FloorMod": E.floormod,
    "Maximum": E.maximum,
    "Minimum": E.minimum,
    "SquaredDifference": E.squared_difference,
    "Pow": E.pow,
    "Atan2": E.atan2,
    "Equal": E.equal,
    "NotEqual": E.not_equal,
    "Less": E.less,
    "LessEqual": E.less_equal,
    "Greater": E.greater,
    "GreaterEqual": E.greater_equal,
    "LogicalAnd": E.logical_and,
    "LogicalOr": E.logical_or,
}.items():
    _binary(_type, _function)


@_builds("Const")
def _const(node: Node) -> Tensor:
    return constant(node.attr("value"), dtype=node.attr("dtype"), name=node.scope)


@_builds("Placeholder")
def _placeholder(node: Node) -> Tensor:
    return placeholder(node.attr("dtype"), node.attr("shape"), name=node.scope)


@_builds("PlaceholderWithDefault")
def _placeholder_with_default(node: Node) -> Tensor:
    return placeholder_with_default(node.inputs[0], node.attr("shape"), name=node.scope)


@_builds("Cast")
def _cast(node: Node) -> Tensor:
    return E.cast(node.inputs[0], node.attr("DstT"), name=node.scope)


@_builds("LeakyRelu")
def _leaky_relu(node: Node) -> Tensor:
    return E.leaky_relu(node.inputs[0], alpha=node.attr("alpha", 0.2), name=node.scope)


@_builds("AddN")
def _add_n(node: Node) -> Tensor:
    return E.add_n(node.inputs, name=node.scope)


@_builds("Select", "SelectV2")
def _select(node: Node) -> Tensor:
    return E.where(node.inputs[0], node.inputs[1], node.inputs[2], name=node.scope)


@_builds("MatMul")
def _matmul(node: Node) -> Tensor:
    return matmul(
        node.inputs[0],
        node.inputs[1],
        transpose_a=node.attr("transpose_a", False),
        transpose_b=node.attr("transpose_b", False),
        name=node.scope,
    )


@_builds("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def _batch_matmul(node: Node) -> Tensor:
    return matmul(
        node.inputs[0],
        node.inputs[1],
        transpose_a=node.attr("adj_x", False),
        transpose_b=node.attr("adj_y", False),
        name=node.scope,
    )


@_builds("BiasAdd", "BiasAddV1")
def _bias_add(node: Node) -> Tensor:
    return N.bias_add(
        node.inputs[0], node.inputs[1], data_format=node.attr("data_format"), name=node.scope
    )


@_builds("Conv2D")
def _conv2d(node: Node) -> Tensor:
    return C.conv2d(
        node.inputs[0],
        node.inputs[1],
        strides=node.attr("strides"),
        padding=node.attr("padding"),
        data_format=node.attr("data_format", "NHWC"),
        dilations=node.attr("dilations", (1, 1, 1, 1)),
        name=node.scope,
    )


@_builds("MaxPool", "AvgPool")
def _pool(node: Node) -> Tensor:
    pool = C.max_pool if node.op == "MaxPool" else C.avg_pool
    return pool(
        node.inputs[0],
        ksize=node.attr("ksize"),
        strides=node.attr("strides"),
        padding=node.attr("padding"),
        data_format=node.attr("data_format", "NHWC"),
        name=node.scope,
    )


@_builds("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _fused_batch_norm(node: Node) -> list[Tensor]:
    x, scale, offset, mean, variance = node.inputs[:5]
    epsilon = float(node.attr("epsilon", 1e-4))
    channels_first = node.attr("data_format", "NHWC") == "NCHW"
    if node.attr("is_training", True):
        axes = [0, 2, 3] if channels_first else [0, 1, 2]
        mean, variance = N.moments(x, axes)
    if channels_first:  # per channel on axis 1: broadcast the [C] parameters as [C, 1, 1]
        scale, offset, mean, variance = (
            reshaping.reshape(t, [-1, 1, 1]) for t in (scale, offset, mean, variance)
        )
    y = N.batch_normalization(x, mean, variance, offset, scale, epsilon, name=node.scope)
    return [y, mean, variance, mean, variance, mean]


@_builds("Reshape")
def _reshape(node: Node) -> Tensor:
    sizes = node.sizes(1, "shape")
    if isinstance(sizes, Tensor):  # reshape(x, tf.shape(y))
        return reshaping.reshape(node.inputs[0], sizes, name=node.scope)
    unknown = [i for i, d in enumerate(sizes) if not isinstance(d, int)]
    if len(unknown) == 1 and -1 not in sizes:
        # One size known only at run time (the batch): the one a -1 infers, as TF computes it.
        sizes = [-1 if i == unknown[0] else d for i, d in enumerate(sizes)]
    elif unknown:
        node.static(1, "shape")  # the error saying so
    return reshaping.reshape(node.inputs[0], sizes, name=node.scope)


@_builds("Squeeze")
def _squeeze(node: Node) -> Tensor:
    axes = list(node.attr("squeeze_dims", []))
    return reshaping.squeeze(node.inputs[0], axis=axes or None, name=node.scope)


@_builds("ExpandDims")
def _expand_dims(node: Node) -> Tensor:
    return reshaping.expand_dims(node.inputs[0], int(node.static(1, "axis")), name=node.scope)


@_builds("ConcatV2")
def _concat(node: Node) -> Tensor:
    axis = int(node.static(len(node.inputs) - 1, "axis"))
    return joining.concat(node.inputs[:-1], axis, name=node.scope)


@_builds("Pack")
def _pack(node: Node) -> Tensor:
    return joining.stack(node.inputs, axis=node.attr("axis", 0), name=node.scope)


@_builds("Unpack")
def _unpack(node: Node) -> list[Tensor]:
    return joining.unstack(node.inputs[0], num=node.attr("num"), axis=node.attr("axis", 0))


@_builds("Split")
def _split(node: Node) -> list[Tensor]:
    return joining.split(node.inputs[1], node.attr("num_split"), axis=int(node.static(0, "axis")))


@_builds("SplitV")
def _split_v(node: Node) -> list[Tensor]:
    sizes = [int(s) for s in node.static(1, "size_splits")]
    return joining.split(node.inputs[0], sizes, axis=int(node.static(2, "axis")))


@_builds("Transpose")
def _transpose(node: Node) -> Tensor:
    return reshaping.transpose(
        node.inputs[0], [int(p) for p in node.static(1, "perm")], name=node.scope
    )


@_builds("StridedSlice")
def _strided_slice(node: Node) -> Tensor:
    return slicing.strided_slice(
        node.inputs[0],
        [int(v) for v in node.static(1, "begin")],
        [int(v) for v in node.static(2, "end")],
        [int(v) for v in node.static(3, "strides")],
        begin_mask=node.attr("begin_mask", 0),
        end_mask=node.attr("end_mask", 0),
        ellipsis_mask=node.attr("ellipsis_mask", 0),
        new_axis_mask=node.attr("new_axis_mask", 0),
        shrink_axis_mask=node.attr("shrink_axis_mask", 0),
        name=node.scope,
    )


@_builds("Slice")
def _slice(node: Node) -> Tensor:
    return slicing.slice(
        node.inputs[0], node.static(1, "begin"), node.static(2, "size"), name=node.scope
    )


@_builds("Pad", "PadV2", "MirrorPad")
def _pad(node: Node) -> Tensor:
    mode = node.attr("mode", "CONSTANT") if node.op == "MirrorPad" else "CONSTANT"
    value = node.inputs[2] if node.op == "PadV2" else 0
    paddings = node.static(1, "paddings").tolist()
    return pad(node.inputs[0], paddings, mode, name=node.scope, constant_values=value)


@_builds("Tile")
def _tile(node: Node) -> Tensor:
    return joining.tile(
        node.inputs[0], [int(m) for m in node.static(1, "multiples")], name=node.scope
    )


@_builds("GatherV2", "Gather")
def _gather(node: Node) -> Tensor:
    axis = int(node.static(2, "axis")) if node.op == "GatherV2" else 0
    batch_dims = node.attr("batch_dims", 0)
    params, indices = node.inputs[0], node.inputs[1]
    if (
        batch_dims == 1
        and axis == 1
        and params.shape is not None
        and len(params.shape) == 2
        and params.shape[1] is not None
        and indices.shape is not None
        and len(indices.shape) == 1
    ):
        # params[i, indices[i]] (TF's sparse cross-entropy picks each row's label this way),
        # batch sizes known only at run time: the entry a one-hot row selects.
        picked = E.multiply(params, creation.one_hot(indices, params.shape[1], dtype=params.dtype))
        return R.reduce_sum(picked, axis=[1], name=node.scope)
    return gathering.gather(
        node.inputs[0], node.inputs[1], axis=axis, name=node.scope, batch_dims=batch_dims
    )


@_builds("BroadcastTo")
def _broadcast_to(node: Node) -> Tensor:
    shape = node.sizes(1, "shape")
    if isinstance(shape, Tensor):  # tf.shape(t): t's run-time shape
        zeros = E.zeros_like(shape.op.inputs[0], dtype=node.inputs[0].dtype)
        return E.add(zeros, node.inputs[0], name=node.scope)
    if all(isinstance(d, int) for d in shape):
        return joining.broadcast_to(node.inputs[0], shape, name=node.scope)
    return E.add(creation.zeros(shape, dtype=node.inputs[0].dtype), node.inputs[0], name=node.scope)


@_builds("Fill")
def _fill(node: Node) -> Tensor:
    return creation.fill(node.sizes(0, "dims"), node.inputs[1], name=node.scope)


@_builds("Range")
def _range(node: Node) -> Tensor:
    start, limit, delta = (
        node.static(i, what) for i, what in enumerate(("start", "limit", "delta"))
    )
    return creation.range(
        start.item(), limit.item(), delta.item(), dtype=node.attr("Tidx"), name=node.scope
    )


@_builds("Shape")
def _shape_of(node: Node) -> Tensor:
    return shape_queries.shape(
        node.inputs[0], name=node.scope, out_type=node.attr("out_type", _dtypes.int32)
    )


@_builds("Size")
def _size(node: Node) -> Tensor:
    return shape_queries.size(
        node.inputs[0], name=node.scope, out_type=node.attr("out_type", _dtypes.int32)
    )


@_builds("Rank")
def _rank(node: Node) -> Tensor:
    return shape_queries.rank(node.inputs[0], name=node.scope)


@_builds("OneHot")
def _one_hot(node: Node) -> Tensor:
    return creation.one_hot(
        node.inputs[0],
        int(node.static(1, "depth")),
        on_value=node.inputs[2],
        off_value=node.inputs[3],
        axis=node.attr("axis", -1),
        name=node.scope,
    )


def _reduction(function: Callable[..., Tensor]) -> Builder:
    def build(node: Node) -> Tensor:
        axes = node.static(1, "reduction indices")
        axis = [int(a) for a in np.atleast_1d(axes)]
        keepdims = node.attr("keep_dims", False)
        return function(node.inputs[0], axis=axis, keepdims=keepdims, name=node.scope)

    return build


for _type, _function in {
    "Sum": R.reduce_sum,
    "Mean": R.reduce_mean,
    "Max": R.reduce_max,
    "Min": R.reduce_min,
    "Prod": R.reduce_prod,
    "Any": R.reduce_any,
    "All": R.reduce_all,
}.items():
    BUILDERS[_type] = _reduction(_function)


@_builds("ArgMax", "ArgMin")
def _arg(node: Node) -> Tensor:
    function = R.argmax if node.op == "ArgMax" else R.argmin
    return function(
        node.inputs[0],
        axis=int(node.static(1, "dimension")),
        name=node.scope,
        output_type=node.attr("output_type", _dtypes.int64),
    )


@_builds("TopKV2")
def _top_k(node: Node) -> list[Tensor]:
    result = top_k(node.inputs[0], k=int(node.static(1, "k")), sorted=node.attr("sorted", True))
    return [result.values, result.indices]


@_builds("SoftmaxCrossEntropyWithLogits")
def _softmax_xent(node: Node) -> list[Tensor]:
    logits, labels = node.inputs
    loss = N.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    return [loss, N.softmax(logits) - labels]


@_builds("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent(node: Node) -> list[Tensor]:
    logits, labels = node.inputs
    loss = N.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    depth = logits.shape[-1] if logits.shape is not None else None
    if depth is None:
        return [loss]
    return [loss, N.softmax(logits) - creation.one_hot(labels, depth, dtype=logits.dtype)]


@_builds("LRN")
def _lrn(node: Node) -> Tensor:
    return N.local_response_normalization(
        node.inputs[0],
        depth_radius=node.attr("depth_radius", 5),
        bias=node.attr("bias", 1.0),
        alpha=node.attr("alpha", 1.0),
        beta=node.attr("beta", 0.5),
        name=node.scope,
    )


def _seed(node: Node) -> int | None:
    """TF's op-level seed of a random node (``seed2``), None when the graph set none."""
    seed, seed2 = node.attr("seed", 0), node.attr("seed2", 0)
    return int(seed2) if seed or seed2 else None


@_builds("RandomStandardNormal", "TruncatedNormal", "RandomUniform")
def _random(node: Node) -> Tensor:
    shape = node.sizes(0, "shape")
    draw = {
        "RandomStandardNormal": RO.random_normal,
        "TruncatedNormal": RO.truncated_normal,
        "RandomUniform": RO.random_uniform,
    }[node.op]
    return draw(shape, dtype=node.attr("dtype"), seed=_seed(node), name=node.scope)


# --- variables (meta graphs, SavedModels) -------------------------------------------------------


@_builds("VariableV2")
def _variable(node: Node) -> Tensor:
    initial = node.attr("_initial_value")
    if initial is None:  # no initializer in the file: the value comes from a checkpoint
        sizes = [0 if d is None else d for d in node.attr("shape") or ()]
        initial = constant(np.zeros(sizes, node.attr("dtype").numpy))
    # Named as the node: made in the node's parent scope, under the node's last name.
    parent, _, own = node.scope[:-1].rpartition("/")
    with get_default_graph().name_scope(f"{parent}/" if parent else ""):
        return Variable(initial, trainable=node.attr("_trainable", False), name=own)


def _assigned_variable(node: Node) -> Variable:
    variable = node.inputs[0]
    if not isinstance(variable, Variable):
        raise ModelFileError(
            f"symgrad: import_graph_def: node '{node.name}' ({node.op}) assigns to "
            f"'{variable.name}', which is no variable"
        )
    return variable


def _taken(guard: Guard) -> Tensor:
    """True where the branch of ``guard`` runs."""
    predicate, branch = guard
    return predicate if branch else E.logical_not(predicate)


@_builds("Assign", "AssignAdd", "AssignSub")
def _assign(node: Node) -> Tensor | Operation:
    variable = _assigned_variable(node)
    if node.attr("_initializer"):
        return variable.initializer
    value = node.inputs[1]
    # An assignment in a branch of a tf.cond: both branches are computed here, so it assigns
    # what it would, where its branch runs, and leaves the variable as it is elsewhere.
    guard = node.input_guards[0] if node.input_guards else None
    if node.op == "Assign":
        if guard is not None:
            value = E.where(_taken(guard), value, variable.value())
        return S_assign(variable, value, name=node.scope)
    if guard is not None:
        value = E.where(_taken(guard), value, E.zeros_like(value))
    update = S_assign_add if node.op == "AssignAdd" else S_assign_sub
    return update(variable, value, name=node.scope)


@_builds("NoOp")
def _no_op(node: Node) -> Operation:
    # Its control inputs are the control dependencies it is built under (_build_node).
    return group(name=node.scope)


@_builds("Switch", "RefSwitch")
def _switch(node: Node) -> list[Tensor]:
    # Both outputs carry the data; which branch each feeds is its guard (_build_node).
    return [node.inputs[0], node.inputs[0]]


@_builds("Merge")
def _merge(node: Node) -> list[Tensor]:
    """The value of the branch that ran: ``where(predicate, true branch, false branch)``,
    both computed (exact for branches without side effects other than guarded assigns;
    a value the other branch makes NaN is selected away, its gradient is not)."""
    branches: dict[bool, tuple[int, Tensor]] = {}
    predicate = None
    for position, (tensor, guard) in enumerate(zip(node.inputs, node.input_guards, strict=False)):
        if guard is None or (predicate is not None and guard[0] is not predicate):
            break
        predicate = guard[0]
        branches[guard[1]] = (position, tensor)
    if predicate is None or set(branches) != {True, False} or len(node.inputs) != 2:
        raise ModelFileError(
            f"symgrad: import_graph_def: node '{node.name}' (Merge) does not join the two "
            f"branches of one tf.cond (a while loop?); control flow beyond tf.cond is not imported"
        )
    (true_index, true_value), (false_index, false_value) = branches[True], branches[False]
    value = E.where(predicate, true_value, false_value, name=node.scope)
    index = E.where(predicate, np.int32(true_index), np.int32(false_index))
    return [value, index]


# --- shape arithmetic ----------------------------------------------------------------------------


_SIZE_ARITHMETIC: dict[str, Callable[..., Any]] = {
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "FloorDiv": np.floor_divide,
}


def _all_ints(sizes: Sequence[Any] | None) -> bool:
    return sizes is not None and all(isinstance(d, int) for d in sizes)


def _shape_sizes(
    op: str,
    output: Tensor,
    inputs: Sequence[Tensor],
    input_sizes: Sequence[list[Any] | None],
    attrs: Mapping[str, Any],
) -> list[Any] | None:
    """What an int node of TF's shape arithmetic holds, size by size: ints where the graph
    fixes them, scalar tensors where they are known only at run time (a batch size). TF's
    graphs reshape, fill and draw with shapes computed so (``concat([shape(x)[:1], [16]])``);
    following them keeps every static size static."""
    if not output.dtype.is_integer or output.shape is None or len(output.shape) > 1:
        return None
    value = constant_value(output)
    if value is not None:
        return [int(d) for d in np.atleast_1d(value)]
    if op == "Shape":
        x = inputs[0]
        if x.shape is None:
            return None
        run_time = shape_queries.shape(x)
        return [d if d is not None else run_time[i] for i, d in enumerate(x.shape)]
    known = input_sizes[0] if input_sizes else None
    if op in ("Identity", "Cast") and known is not None:
        return list(known)
    if op == "ExpandDims" and known is not None and len(known) == 1:
        return list(known)
    if op == "Pack" and all(sizes is not None and len(sizes) == 1 for sizes in input_sizes):
        return [sizes[0] for sizes in input_sizes if sizes is not None]
    if op == "ConcatV2" and all(sizes is not None for sizes in input_sizes[:-1]):
        return [d for sizes in input_sizes[:-1] if sizes is not None for d in sizes]
    if op in _SIZE_ARITHMETIC and all(_all_ints(sizes) for sizes in input_sizes):
        operands = [np.asarray(sizes, dtype=np.int64) for sizes in input_sizes]
        return [int(d) for d in np.atleast_1d(_SIZE_ARITHMETIC[op](*operands))]
    if op in ("Slice", "StridedSlice") and known is not None:
        begin = input_sizes[1] if len(input_sizes) > 1 else None
        if not _all_ints(begin) or len(begin or ()) != 1:
            return None
        assert begin is not None
        start = int(begin[0])
        if op == "Slice":
            size = input_sizes[2] if len(input_sizes) > 2 else None
            if not _all_ints(size) or len(size or ()) != 1:
                return None
            assert size is not None
            stop = len(known) if int(size[0]) == -1 else start + int(size[0])
            return list(known[start:stop])
        if attrs.get("shrink_axis_mask", 0) == 1 and not attrs.get("ellipsis_mask", 0):
            return [known[start]]
    return None


# --- decoding NodeDefs ---------------------------------------------------------------------------


def _dtype(number: int, where: str) -> _dtypes.DType:
    """A TF DataType (a ``_REF`` one too: a variable's) as symgrad's dtype."""
    base = number % 100
    dtype = tf_bundle.NUMPY_DTYPES.get(base)
    if dtype is None or dtype.kind in "cO":
        enum = require_libraries().types_pb2.DataType
        label = enum.Name(number) if number in enum.values() else f"DataType {number}"
        raise ModelFileError(
            f"symgrad: import_graph_def: {where}: dtype {label} is not one symgrad has"
        )
    return _dtypes.as_dtype(dtype)


def _shape(proto: Any) -> tuple[int | None, ...] | None:
    if proto.unknown_rank:
        return None
    return tuple(None if d.size < 0 else int(d.size) for d in proto.dim)


def _attr_value(value: Any, where: str) -> Any:
    """An ``AttrValue`` as the builders read it: ints, floats, bools, strings, dtypes,
    shapes, arrays, or lists of one of those."""
    kind = value.WhichOneof("value")
    if kind == "list":
        items = value.list
        if len(items.s):
            return [entry.decode(errors="replace") for entry in items.s]
        if len(items.type):
            return [_dtype(entry, where) for entry in items.type]
        if len(items.shape):
            return [_shape(entry) for entry in items.shape]
        if len(items.tensor):
            return [graph_files.tensor_to_array(entry, where) for entry in items.tensor]
        for field in ("i", "f", "b"):
            if len(getattr(items, field)):
                return list(getattr(items, field))
        return []
    if kind == "s":
        return value.s.decode(errors="replace")
    if kind == "type":
        return _dtype(value.type, where)
    if kind == "shape":
        return _shape(value.shape)
    if kind == "tensor":
        return graph_files.tensor_to_array(value.tensor, where)
    if kind in ("i", "f", "b"):
        return getattr(value, kind)
    return None  # a function or a placeholder attr: no op symgrad builds reads those


def _input_names(node: Any) -> list[str]:
    return [text.lstrip("^").split(":")[0] for text in node.input]


def _data_input_names(node: Any) -> list[str]:
    return [text.split(":")[0] for text in node.input if not text.startswith("^")]


def _ordered(nodes: Mapping[str, Any], after: Mapping[str, Sequence[str]]) -> list[Any]:
    """The nodes in an order where every input (and each name ``after`` lists for a node)
    comes first, a GraphDef listing them in any order; a cycle (TF's while loops) is an
    error naming a node on it."""
    order: list[Any] = []
    state: dict[str, int] = {}  # 1: being visited, 2: done

    def predecessors(name: str) -> Iterator[str]:
        return iter([*_input_names(nodes[name]), *after.get(name, ())])

    for root in nodes:
        if state.get(root):
            continue
        stack: list[tuple[str, Iterator[str]]] = [(root, predecessors(root))]
        state[root] = 1
        while stack:
            name, pending = stack[-1]
            following = next(pending, None)
            if following is None:
                stack.pop()
                state[name] = 2
                order.append(nodes[name])
                continue
            if following not in nodes:
                raise ModelFileError(
                    f"symgrad: import_graph_def: node '{name}' reads '{following}', which the "
                    f"graph does not have"
                )
            mark = state.get(following)
            if mark == 1:
                raise ModelFileError(
                    f"symgrad: import_graph_def: the graph has a cycle through '{following}' "
                    f"(TF's while loops); control flow is not imported"
                )
            if not mark:
                state[following] = 1
                stack.append((following, predecessors(following)))
    return order


def _tensor_key(text: str) -> tuple[str, int]:
    name, _, index = text.partition(":")
    return name, int(index) if index else 0


@dataclass
class Imported:
    """What an import built: each node's output tensors and op, by the node's name in the
    file; the nodes left out (a meta graph's training and saving ops), by op type."""

    outputs: dict[str, list[Tensor]]
    ops: dict[str, Operation]
    left_out: dict[str, list[str]]
    variables: dict[str, Variable]
    # Why a node of a supported type was left out (a string constant, a shape symgrad
    # cannot follow), by node name.
    problems: dict[str, str] = field(default_factory=dict)
    # The sizes each int node of shape arithmetic holds (see ``Node.input_sizes``); a scalar's
    # is a list of one.
    sizes: dict[str, list[Any]] = field(default_factory=dict)
    # The branch of a tf.cond each tensor (``"name:0"``) is computed in, if any.
    guards: dict[str, Guard] = field(default_factory=dict)


def import_graph_def(
    graph_def: Any,
    input_map: Mapping[str, Any] | None = None,
    return_elements: Sequence[str] | None = None,
    name: str | None = None,
    op_dict: Any = None,
    producer_op_list: Any = None,
) -> list[Any] | None:
    """Build the ops of ``graph_def`` (a ``GraphDef`` message) into the default graph (TF1's
    ``tf.import_graph_def``): under the scope ``name`` (``"import"`` when None; ``""``
    keeps the names as they are), inputs replaced from ``input_map`` (``{"x:0": tensor}``);
    returns the ``return_elements`` (``"name:0"`` a tensor, ``"name"`` an operation).

    Every TF op type is built from symgrad's op computing the same (``MatMul`` is
    ``tf.matmul``, ``Conv2D`` is ``tf.nn.conv2d`` ...), with its attributes; a graph with
    op types symgrad has not is refused, all of them named in one error.

    >>> import numpy as np, symgrad as sg
    >>> from symgrad.tf_files import graph_files
    >>> graph_def = graph_files.graph_def_class()()
    >>> x = graph_def.node.add(name="x", op="Placeholder")
    >>> x.attr["dtype"].type = 1  # DT_FLOAT
    >>> y = graph_def.node.add(name="y", op="Relu", input=["x"])
    >>> y.attr["T"].type = 1
    >>> with sg.Graph().as_default():
    ...     inputs, relu = sg.import_graph_def(graph_def, return_elements=["x:0", "y:0"])
    ...     print(relu.name, sg.compile(relu, [inputs])(np.float32([-1.0, 2.0])))
    import/y:0 [0. 2.]
    """
    del op_dict, producer_op_list  # TF1 ignores them too
    imported = build_graph_def(
        graph_def, input_map=input_map, prefix="import" if name is None else name
    )
    if return_elements is None:
        return None
    return [_element(imported, str(element)) for element in return_elements]


def _element(imported: Imported, element: str) -> Tensor | Operation:
    node_name, colon, index = element.partition(":")
    if colon:
        outputs = imported.outputs.get(node_name)
        if outputs is None or not index.isdigit() or int(index) >= len(outputs):
            raise ModelFileError(f"symgrad: import_graph_def: no tensor {element!r} in the graph")
        return outputs[int(index)]
    if node_name not in imported.ops:
        raise ModelFileError(f"symgrad: import_graph_def: no operation {element!r} in the graph")
    return imported.ops[node_name]


@dataclass(frozen=True)
class VariableInfo:
    """What a meta graph says of a variable (its ``VariableDef``)."""

    initializer: str  # the Assign node's name
    initial_value: str  # the tensor it assigns
    trainable: bool


def build_graph_def(
    graph_def: Any,
    *,
    input_map: Mapping[str, Any] | None = None,
    prefix: str = "import",
    variables: Mapping[str, VariableInfo] | None = None,
    leave_out_unsupported: bool = False,
) -> Imported:
    """Build ``graph_def`` into the default graph (see :func:`import_graph_def`).

    ``variables`` (a meta graph's) says which Assign initializes each variable, with what,
    and whether it is trainable. ``leave_out_unsupported`` leaves out the nodes of op types
    symgrad has not and every node that reads one (a meta graph's gradients, optimizer
    updates and saver), where a plain import refuses them.
    """
    nodes = {node.name: node for node in graph_def.node}
    if len(nodes) != len(graph_def.node):
        raise ModelFileError("symgrad: import_graph_def: two nodes of the graph have one name")
    variables = dict(variables or {})
    unsupported = {
        node.name: node.op
        for node in graph_def.node
        if node.op not in BUILDERS and node.op not in SKIPPED
    }
    if unsupported and not leave_out_unsupported:
        examples: dict[str, str] = {}
        for node_name, op in unsupported.items():
            examples.setdefault(op, node_name)
        listing = ", ".join(f"{op} (e.g. '{example}')" for op, example in sorted(examples.items()))
        raise ModelFileError(
            f"symgrad: import_graph_def: the graph holds {len(examples)} op type(s) symgrad "
            f"does not import: {listing}"
        )
    # A variable is made from its initial value: build that first.
    after = {
        name: [_tensor_key(info.initial_value)[0]]
        for name, info in variables.items()
        if _tensor_key(info.initial_value)[0] in nodes
    }
    order = _ordered(nodes, after)
    left_out = {n.name for n in graph_def.node if n.name in unsupported or n.op in SKIPPED}
    for node in order:  # inputs come first: one pass marks every node after one left out
        if node.name not in left_out and any(i in left_out for i in _input_names(node)):
            left_out.add(node.name)
    mapped = {(k if ":" in k else f"{k}:0"): v for k, v in (input_map or {}).items()}
    graph = get_default_graph()
    imported = Imported({}, {}, {}, {})
    for name in sorted(left_out):
        imported.left_out.setdefault(nodes[name].op, []).append(name)
    scope = graph.name_scope(prefix) if prefix else contextlib.nullcontext("")
    with scope as prefix_scope:
        for node in order:
            if node.name in left_out:
                continue
            if leave_out_unsupported and any(i in left_out for i in _input_names(node)):
                left_out.add(node.name)  # it comes after a node that could not be built
                imported.left_out.setdefault(node.op, []).append(node.name)
                continue
            try:
                _build_node(node, imported, mapped, prefix_scope, variables)
            except ModelFileError as error:
                if not leave_out_unsupported:
                    raise
                left_out.add(node.name)
                imported.left_out.setdefault(node.op, []).append(node.name)
                imported.problems[node.name] = str(error)
    return imported


def _build_node(
    node: Any,
    imported: Imported,
    mapped: Mapping[str, Any],
    prefix_scope: str,
    variables: Mapping[str, VariableInfo],
) -> None:
    where = f"node '{node.name}' ({node.op})"
    attrs = {key: _attr_value(value, where) for key, value in sorted(node.attr.items())}
    inputs: list[Tensor] = []
    input_sizes: list[list[Any] | None] = []
    input_guards: list[Guard | None] = []
    control: list[Operation] = []
    guard: Guard | None = None
    for text in node.input:
        source, index = _tensor_key(text.lstrip("^"))
        key = f"{source}:{index}"
        source_guard = imported.guards.get(key)
        guard = guard or source_guard
        if text.startswith("^"):
            if source in imported.ops:
                control.append(imported.ops[source])
            continue
        input_sizes.append(imported.sizes.get(source) if index == 0 and key not in mapped else None)
        input_guards.append(source_guard)
        if key in mapped:
            inputs.append(convert_to_tensor(mapped[key]))
            continue
        outputs = imported.outputs.get(source)
        if outputs is None or index >= len(outputs):
            raise ModelFileError(
                f"symgrad: import_graph_def: {where} reads '{text}', which is no value"
            )
        inputs.append(outputs[index])
    info = variables.get(node.name)
    if node.op == "VariableV2" and info is not None:
        source, index = _tensor_key(info.initial_value)
        initial = imported.outputs.get(source)
        attrs["_initial_value"] = initial[index] if initial else None
        attrs["_trainable"] = info.trainable
    if node.op == "Assign" and any(i.initializer == node.name for i in variables.values()):
        attrs["_initializer"] = True
    graph = get_default_graph()
    described = Node(node.name, node.op, attrs, inputs, "", input_sizes, input_guards)
    try:
        with (
            graph.control_dependencies(control),
            graph.name_scope(f"{prefix_scope}{node.name}/") as own_scope,
        ):
            described.scope = own_scope
            built = BUILDERS[node.op](described)
    except ModelFileError:
        raise
    except (SymgradError, ValueError, TypeError) as error:
        raise ModelFileError(f"symgrad: import_graph_def: {where}: {error}") from error
    if isinstance(built, Operation):
        imported.ops[node.name] = built
        imported.outputs[node.name] = list(built.outputs)
        tensors = list(built.outputs)
    else:
        tensors = [built] if isinstance(built, Tensor) else list(built)
        imported.outputs[node.name] = tensors
        if tensors:
            imported.ops[node.name] = tensors[0].op
            sizes = _shape_sizes(node.op, tensors[0], inputs, input_sizes, attrs)
            if sizes is not None:
                imported.sizes[node.name] = sizes
        if isinstance(built, Variable):
            imported.variables[node.name] = built
    # Which branch of a tf.cond each output belongs to: a Switch's output 1 feeds the branch
    # taken when its predicate holds, output 0 the other; a Merge joins them again; any other
    # op is in the branch of its inputs.
    if node.op in ("Switch", "RefSwitch"):
        imported.guards[f"{node.name}:0"] = (inputs[1], False)
        imported.guards[f"{node.name}:1"] = (inputs[1], True)
    elif node.op != "Merge" and guard is not None:
        for position in range(max(len(tensors), 1)):
            imported.guards[f"{node.name}:{position}"] = guard


# --- training ops of meta graphs -------------------------------------------------------------


@dataclass
class AppliedUpdate:
    """One optimizer update of a meta graph (an ``ApplyAdam`` ... node): its inputs by the
    names TF's kernel gives them, as imported tensors, and the variables among them (seen
    through the casts and reads TF puts in between)."""

    op: str
    name: str
    inputs: dict[str, Tensor | None]
    variables: dict[str, Variable]
    attrs: Mapping[str, Any]

    def hyper(self, key: str) -> Any:
        """A hyperparameter: a float where the graph fixes it, else its tensor (a decayed
        learning rate computed from the global step)."""
        tensor = self.inputs.get(key)
        if tensor is None:
            raise ModelFileError(
                f"symgrad: import_meta_graph: the {key} of '{self.name}' ({self.op}) was left out"
            )
        value = constant_value(tensor)
        return float(value) if value is not None and value.ndim == 0 else tensor


@dataclass(frozen=True)
class TrainingOp:
    """How a TF optimizer update op type is rebuilt: its inputs' names in order, and a
    function making the optimizer of a train op's updates, their slots and state adopted."""

    inputs: tuple[str, ...]
    optimizer: Callable[[Sequence[AppliedUpdate]], Any]


# Filled by symgrad.train, where the optimizers are (``register_training_op``).
TRAINING_OPS: dict[str, TrainingOp] = {}


def register_training_op(
    op_type: str, inputs: Sequence[str], optimizer: Callable[[Sequence[AppliedUpdate]], Any]
) -> None:
    """Declare how the train ops of a meta graph made of ``op_type`` updates are rebuilt."""
    TRAINING_OPS[op_type] = TrainingOp(tuple(inputs), optimizer)


def _variable_behind(name: str, nodes: Mapping[str, Any], imported: Imported) -> Variable | None:
    """The imported variable that ``name`` reads, through TF's Identity/Cast/read nodes."""
    for _ in range(8):
        node_name = _tensor_key(name)[0]
        variable = imported.variables.get(node_name)
        if variable is not None:
            return variable
        node = nodes.get(node_name)
        if node is None or node.op not in ("Identity", "Cast", "Snapshot") or not node.input:
            return None
        name = node.input[0]
    return None


def _gradient_ys(grad_name: str, nodes: Mapping[str, Any]) -> tuple[str, str] | None:
    """The loss whose gradient ``grad_name`` is part of, and the ``gradients`` scope. TF's
    ``gradients`` scope starts from ``<scope>/grad_ys_0`` (the ones it fills), which the
    gradient of the loss's own op reads: ``<scope>/<loss op>_grad/...``."""
    parts = _tensor_key(grad_name)[0].split("/")
    for end in range(len(parts), 0, -1):
        if not re.fullmatch(r"gradients(_\d+)?", parts[end - 1]):
            continue
        scope = "/".join(parts[:end])
        seeds = {f"{scope}/grad_ys_0", f"{scope}/Fill"}
        for node in nodes.values():
            if not any(_tensor_key(i)[0] in seeds for i in node.input):
                continue
            match = re.fullmatch(re.escape(scope) + r"/(.+)_grad/.*", node.name)
            if match and match.group(1) in nodes:
                return f"{match.group(1)}:0", scope
    return None


def _rebuild_train_ops(graph_def: Any, imported: Imported, prefix: str) -> None:
    """Make again, with symgrad's optimizers and gradients, each train op of a meta graph
    whose updates were left out (TF's ``gradients/...`` ops and ``Apply*`` kernels): the same
    optimizer with the same hyperparameters, its slots and state the imported variables, the
    same loss and global step, under the same name; so training goes on as in TF."""
    nodes = {node.name: node for node in graph_def.node}
    groups: dict[str, list[Any]] = {}
    for node in graph_def.node:
        if node.op in TRAINING_OPS:
            match = re.fullmatch(r"(.*)/update_.*", node.name)
            groups.setdefault(match.group(1) if match else node.name, []).append(node)
    graph = get_default_graph()
    for train_name, update_nodes in sorted(groups.items()):
        try:
            _rebuild_train_op(train_name, update_nodes, nodes, imported, prefix)
        except (ModelFileError, SymgradError) as error:
            imported.problems[train_name] = str(error)
            logger.warning(
                "symgrad: import_meta_graph: train op %r not rebuilt: %s", train_name, error
            )
    del graph


def _control_inputs_of(
    nodes: Mapping[str, Any], imported: Imported, scopes: Sequence[str]
) -> list[Operation]:
    """The imported ops that the nodes under ``scopes`` (TF's gradients and train op) have as
    control inputs, from outside those scopes."""
    prefixes = tuple(f"{scope}/" for scope in scopes)

    def inside(name: str) -> bool:
        return name in scopes or name.startswith(prefixes)

    found: list[Operation] = []
    for node in nodes.values():
        if not inside(node.name):
            continue
        for text in node.input:
            source = text[1:].split(":")[0] if text.startswith("^") else None
            op = imported.ops.get(source) if source and not inside(source) else None
            if op is not None and op not in found:
                found.append(op)
    return found


def _rebuild_train_op(
    train_name: str,
    update_nodes: Sequence[Any],
    nodes: Mapping[str, Any],
    imported: Imported,
    prefix: str,
) -> None:
    kinds = {node.op for node in update_nodes}
    if len(kinds) != 1:
        raise ModelFileError(f"it mixes the updates {sorted(kinds)}")
    training = TRAINING_OPS[update_nodes[0].op]
    updates: list[AppliedUpdate] = []
    losses: set[str] = set()
    scopes: set[str] = set()
    for node in update_nodes:
        names = list(node.input)
        if len(names) < len(training.inputs):
            raise ModelFileError(
                f"'{node.name}' has {len(names)} inputs, {node.op} takes {len(training.inputs)}"
            )
        inputs: dict[str, Tensor | None] = {}
        variables: dict[str, Variable] = {}
        for key, text in zip(training.inputs, names, strict=False):
            source, index = _tensor_key(text)
            outputs = imported.outputs.get(source)
            inputs[key] = outputs[index] if outputs and index < len(outputs) else None
            variable = _variable_behind(text, nodes, imported)
            if variable is not None:
                variables[key] = variable
        if "var" not in variables:
            raise ModelFileError(f"'{node.name}' updates no variable symgrad imported")
        found = _gradient_ys(names[training.inputs.index("grad")], nodes)
        if found is None:
            raise ModelFileError(f"the loss of '{node.name}' is not found from its gradient")
        losses.add(found[0])
        scopes.add(found[1])
        where = f"node '{node.name}' ({node.op})"
        attrs = {key: _attr_value(value, where) for key, value in sorted(node.attr.items())}
        updates.append(AppliedUpdate(node.op, node.name, inputs, variables, attrs))
    if len(losses) != 1:
        raise ModelFileError(f"its updates follow the gradients of {sorted(losses)}")
    (loss_name,) = losses
    source, index = _tensor_key(loss_name)
    loss_outputs = imported.outputs.get(source)
    if not loss_outputs:
        raise ModelFileError(f"its loss '{loss_name}' was left out")
    loss = loss_outputs[index]
    step_node = nodes.get(train_name)
    global_step = None
    if step_node is not None and step_node.op == "AssignAdd":
        global_step = _variable_behind(step_node.input[0], nodes, imported)
    optimizer = training.optimizer(updates)
    updated = [update.variables["var"] for update in updates]
    graph = get_default_graph()
    scope = graph.name_scope(prefix) if prefix else contextlib.nullcontext("")
    # What TF's gradients and updates ran after (a batch norm's UPDATE_OPS under
    # control_dependencies), so does the train op made again.
    with graph.control_dependencies(_control_inputs_of(nodes, imported, (*scopes, train_name))):
        grads = gradients(loss, updated)
        with scope:
            train_op = optimizer.apply_gradients(
                list(zip(grads, updated, strict=True)), global_step=global_step, name=train_name
            )
    imported.ops[train_name] = train_op
    imported.outputs[train_name] = list(train_op.outputs)


# --- meta graphs and SavedModels -------------------------------------------------------------


def _variable_collections(meta: Any) -> dict[str, list[Any]]:
    """The ``VariableDef``s of each of a meta graph's variable collections."""
    libraries = require_libraries()
    collections: dict[str, list[Any]] = {}
    for key in sorted(meta.collection_def):
        collection = meta.collection_def[key]
        if collection.WhichOneof("kind") != "bytes_list" or "variables" not in key:
            continue
        for data in collection.bytes_list.value:
            definition = libraries.variable_pb2.VariableDef()
            try:
                definition.ParseFromString(data)
            except libraries.protobuf_message.DecodeError as error:
                raise ModelFileError(
                    f"symgrad: a VariableDef of the collection {key!r} does not parse: {error}"
                ) from None
            collections.setdefault(key, []).append(definition)
    return collections


def _variable_infos(collections: Mapping[str, list[Any]]) -> dict[str, VariableInfo]:
    """What the ``VariableDef``s say of each variable, by its op name in the file."""
    trainable = {
        _tensor_key(d.variable_name)[0]
        for key, definitions in collections.items()
        for d in definitions
        if key == "trainable_variables" or d.trainable
    }
    return {
        _tensor_key(d.variable_name)[0]: VariableInfo(
            d.initializer_name, d.initial_value_name, _tensor_key(d.variable_name)[0] in trainable
        )
        for definitions in collections.values()
        for d in definitions
    }


def import_meta_graph_def(meta: Any, import_scope: str = "") -> Imported:
    """Build a ``MetaGraphDef`` into the default graph: its variables (from their
    ``VariableDef``s, trainable as the file says), every op that computes a value, and its
    collections of tensors, ops and variables. Ops symgrad does not import (the gradients,
    optimizer updates and saver that TF keeps in the same graph) are left out, with a
    warning listing their types; ``Imported.left_out`` has them."""
    collections = _variable_collections(meta)
    imported = build_graph_def(
        meta.graph_def,
        prefix=import_scope,
        variables=_variable_infos(collections),
        leave_out_unsupported=True,
    )
    _rebuild_train_ops(meta.graph_def, imported, import_scope)
    if imported.left_out:
        logger.info(
            "symgrad: import_meta_graph left out %d ops of the types %s (TF's gradients, "
            "updates and saver); the forward graph, its variables and its train ops are "
            "symgrad's",
            sum(len(names) for names in imported.left_out.values()),
            ", ".join(sorted(imported.left_out)),
        )
    graph = get_default_graph()
    for key in sorted(meta.collection_def):
        collection = meta.collection_def[key]
        items: list[Any] = []
        if collection.WhichOneof("kind") == "node_list":
            for entry in collection.node_list.value:
                node_name, colon, _ = entry.partition(":")
                if node_name in imported.ops:
                    items.append(_element(imported, entry) if colon else imported.ops[node_name])
        elif key in collections:
            for definition in collections[key]:
                variable = imported.variables.get(_tensor_key(definition.variable_name)[0])
                if variable is not None:
                    items.append(variable)
        present = graph.get_collection(key)
        for item in items:
            if item not in present:  # a variable is in its collections already
                graph.add_to_collection(key, item)
    return imported


def import_meta_graph(
    meta_graph_or_file: Any,
    clear_devices: bool = False,
    import_scope: str | None = None,
    **kwargs: Any,
) -> Any:
    """Build the graph of a ``.meta`` file (or ``MetaGraphDef``) into the default graph, and
    return a ``Saver`` of its variables under their names in the file, which restores a
    checkpoint TF wrote (TF1's ``tf.train.import_meta_graph``).

    The forward graph, the variables (trainable as the file says) and the collections come
    in; TF's training and saving ops are left out (see :func:`import_meta_graph_def`), so
    a train op of the file cannot run: build one again with ``tf.train.*Optimizer``."""
    del clear_devices, kwargs
    if isinstance(meta_graph_or_file, (str, os.PathLike)):
        meta = graph_files.read_meta_graph_def(meta_graph_or_file)
    else:
        meta = meta_graph_or_file
    imported = import_meta_graph_def(meta, import_scope or "")
    if not imported.variables:
        return None
    return Saver(var_list=dict(imported.variables))


def load_saved_model(
    sess: Any,
    tags: Sequence[str],
    export_dir: str | os.PathLike[str],
    import_scope: str | None = None,
) -> Any:
    """Import the meta graph of a SavedModel that has ``tags`` into the default graph and
    restore its variables into ``sess`` from ``variables/variables``; return the
    ``MetaGraphDef`` (its ``signature_def`` names the inputs and outputs). TF1's
    ``tf.saved_model.loader.load``."""
    saved = graph_files.read_saved_model(export_dir)
    wanted = set(tags)
    for meta in saved.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            break
    else:
        available = [sorted(m.meta_info_def.tags) for m in saved.meta_graphs]
        raise ModelFileError(
            f"symgrad: SavedModel '{export_dir}' has no meta graph tagged {sorted(wanted)}; "
            f"it has {available}"
        )
    imported = import_meta_graph_def(meta, import_scope or "")
    if imported.variables:
        saver = Saver(var_list=dict(imported.variables), checkpoint_format="tf")
        saver.restore(sess, graph_files.saved_model_variables_prefix(export_dir))
    return meta


class GraphDefFactory:
    """TF1's ``tf.GraphDef``: ``tf.GraphDef()`` is an empty ``GraphDef`` message (TF's own
    class, from the ``tensorboard`` package) to ``ParseFromString`` a ``.pb`` into, and
    ``tf.GraphDef.FromString(data)`` parses one; the class is loaded on first use."""

    def __call__(self) -> Any:
        return graph_files.graph_def_class()()

    @staticmethod
    def FromString(data: bytes) -> Any:
        return graph_files.parse_graph_def(data)


GraphDef = GraphDefFactory()
