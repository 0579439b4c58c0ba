"""symgrad graphs written as TensorFlow's: ``Graph.as_graph_def()``, ``train.write_graph``,
``train.export_meta_graph`` (and the ``.meta`` beside a checkpoint), ``graph_util``'s freezing
and ``saved_model.simple_save``, so that TensorFlow (``tf.import_graph_def``,
``import_meta_graph``, ``saved_model.loader.load``) runs, and trains on, what symgrad built.

Each symgrad op becomes the NodeDefs of TensorFlow's op computing the same thing, named as the
op (``dense/MatMul``), its axes, shapes and permutations as ``Const`` inputs as TF's kernels
take them. Elementwise ops are written from their SymPy formula, one TF node per operation of
it (``a0 + 1`` is ``AddV2(x, Const)``; ``Relu(a0)`` is ``Relu``), the last named as the op;
symgrad's gradient ops as TF's gradient code computes them. Each assignment waits for the
reads that precede it in symgrad's order, so a training step computes in TF what it computes
in symgrad. Op types the writer has no TF counterpart for are refused, all of their types
named in one :class:`~symgrad.errors.ModelFileError`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp

from . import dtypes as _dtypes
from .errors import ModelFileError
from .graph import Graph, Operation, Tensor, ancestors
from .graph import get_default_graph as _default_graph
from .ops import functions as F
from .ops.registry import arg_symbols
from .ops.state import Variable
from .tf_files import bundle as tf_bundle
from .tf_files import graph_files
from .tf_files._libraries import require_libraries

_REF = 100  # TF's "_REF" dtypes: a variable's output
# The TF release whose graphs these are written as (its op set and GraphDef version), for
# TF's loaders, which read it to tell which defaults and ops to expect.
WRITTEN_AS_TF_VERSION = "1.15.0"


def _data_type(dtype: _dtypes.DType, where: str) -> int:
    """symgrad's dtype as TF's DataType number (the table of :mod:`symgrad.tf_files.bundle`)."""
    numpy_dtype = np.dtype(dtype.numpy)
    number = tf_bundle.TF_DTYPES.get((numpy_dtype.kind, numpy_dtype.itemsize))
    if number is None:
        raise ModelFileError(
            f"symgrad: as_graph_def: {where}: dtype {dtype.name} has no TF DataType"
        )
    return number


class _Writer:
    """Appends NodeDefs to a GraphDef; knows the name each symgrad tensor is written under."""

    def __init__(self) -> None:
        libraries = require_libraries()
        self.graph_def = libraries.graph_pb2.GraphDef()
        self.graph_def.versions.producer = 27  # the GraphDef version TF 1.15 writes
        self.tensor_util = libraries.tensor_util
        self.names: dict[Tensor, str] = {}

    def ref(self, tensor: Tensor) -> str:
        return self.names.get(tensor) or (
            tensor.op.name if tensor.value_index == 0 else f"{tensor.op.name}:{tensor.value_index}"
        )

    def node(self, name: str, op: str, inputs: Sequence[str] = (), **attrs: Any) -> Any:
        node = self.graph_def.node.add(name=name, op=op, input=list(inputs))
        for key, value in attrs.items():
            _set_attr(node.attr[key], value, self)
        return node

    def const(self, name: str, value: Any, dtype: _dtypes.DType) -> str:
        array = np.asarray(value, dtype=dtype.numpy)
        self.node(name, "Const", dtype=_Type(dtype), value=array)
        return name


class _Type:
    """An attribute holding a DataType (``T``, ``dtype``), told apart from an int."""

    def __init__(self, dtype: _dtypes.DType, ref: bool = False) -> None:
        self.dtype, self.ref = dtype, ref


class _Shape:
    """An attribute holding a TensorShapeProto."""

    def __init__(self, shape: Sequence[int | None] | None) -> None:
        self.shape = shape


def _set_attr(attr: Any, value: Any, writer: _Writer) -> None:
    if isinstance(value, _Type):
        attr.type = _data_type(value.dtype, "attr") + (_REF if value.ref else 0)
    elif isinstance(value, _Shape):
        if value.shape is None:
            attr.shape.unknown_rank = True
        else:
            attr.shape.SetInParent()
            for size in value.shape:
                attr.shape.dim.add(size=-1 if size is None else int(size))
    elif isinstance(value, np.ndarray):
        attr.tensor.CopyFrom(writer.tensor_util.make_tensor_proto(value))
    elif isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        attr.i = value
    elif isinstance(value, float):
        attr.f = value
    elif isinstance(value, str):
        attr.s = value.encode()
    elif isinstance(value, (list, tuple)):
        attr.list.SetInParent()
        for item in value:
            attr.list.i.append(int(item))
    else:  # pragma: no cover - every exporter passes one of the above
        raise TypeError(f"attr value {value!r}")


# --- elementwise ops: their SymPy formula, one TF node per operation -----------------------------

# SymPy and symgrad functions -> TF's op of the same arity and meaning.
_FUNCTIONS: dict[type, str] = {
    sp.exp: "Exp",
    sp.log: "Log",
    sp.tanh: "Tanh",
    sp.sin: "Sin",
    sp.cos: "Cos",
    sp.tan: "Tan",
    sp.asin: "Asin",
    sp.acos: "Acos",
    sp.atan: "Atan",
    sp.sinh: "Sinh",
    sp.cosh: "Cosh",
    sp.asinh: "Asinh",
    sp.acosh: "Acosh",
    sp.atanh: "Atanh",
    sp.Abs: "Abs",
    sp.floor: "Floor",
    sp.ceiling: "Ceil",
    sp.atan2: "Atan2",
}
_FUNCTION_NAMES = {
    "Relu": "Relu",
    "Sigmoid": "Sigmoid",
    "Elu": "Elu",
    "Relu6": "Relu6",
    "Selu": "Selu",
    "Softplus": "Softplus",
    "Erf": "Erf",
    "Erfc": "Erfc",
    "Sign": "Sign",
    "Abs": "Abs",
    "Floor": "Floor",
    "Ceil": "Ceil",
    "Round": "Round",
    "IsFinite": "IsFinite",
    "LogicalNot": "LogicalNot",
    "LogicalAnd": "LogicalAnd",
    "LogicalOr": "LogicalOr",
    "Equal": "Equal",
    "NotEqual": "NotEqual",
    "Greater": "Greater",
    "ReluMask": "Greater",
    "GreaterEqual": "GreaterEqual",
    "Less": "Less",
    "LessEqual": "LessEqual",
    "Maximum": "Maximum",
    "Minimum": "Minimum",
    "FloorDiv": "FloorDiv",
    "FloorMod": "FloorMod",
    "Where": "SelectV2",
    "log1p": "Log1p",
    "Log1p": "Log1p",
    "expm1": "Expm1",
    "Expm1": "Expm1",
}
_COMPARISONS = {"Equal", "NotEqual", "Greater", "GreaterEqual", "Less", "LessEqual"}
_BOOLEAN = {"LogicalNot", "LogicalAnd", "LogicalOr", "IsFinite"} | _COMPARISONS


class _Formula:
    """Writes one elementwise op's formula: ``write(expr)`` returns (name, dtype)."""

    def __init__(self, op: Operation, writer: _Writer) -> None:
        self.op, self.writer, self.count = op, writer, 0
        self.symbols = dict(zip(arg_symbols(len(op.inputs)), op.inputs, strict=True))

    def fresh(self, kind: str) -> str:
        self.count += 1
        return (
            f"{self.op.name}/{kind}"
            if self.count == 1
            else f"{self.op.name}/{kind}_{self.count - 1}"
        )

    def write(
        self, expr: sp.Expr, name: str | None, context: _dtypes.DType
    ) -> tuple[str, _dtypes.DType]:
        if expr in self.symbols:
            tensor = self.symbols[expr]
            if name is None:
                return self.writer.ref(tensor), tensor.dtype
            kind = self.op.type if self.op.type in ("Identity", "StopGradient") else "Identity"
            self.writer.node(name, kind, [self.writer.ref(tensor)], T=_Type(tensor.dtype))
            return name, tensor.dtype
        if isinstance(expr, (sp.Number, sp.logic.boolalg.BooleanAtom)):
            dtype = _dtypes.bool_ if isinstance(expr, sp.logic.boolalg.BooleanAtom) else context
            value = bool(expr) if dtype.is_bool else complex(expr).real
            return self.writer.const(name or self.fresh("Const"), value, dtype), dtype
        if isinstance(expr, F.Cast):
            source, source_dtype = self.write(expr.args[0], None, context)
            target = _dtypes.as_dtype(str(expr.args[1]))
            node_name = name or self.fresh("Cast")
            self.writer.node(
                node_name,
                "Cast",
                [source],
                SrcT=_Type(source_dtype),
                DstT=_Type(target),
                Truncate=False,
            )
            return node_name, target
        if isinstance(expr, sp.Add):
            return self._chain("AddV2", "add", expr.args, name, context)
        if isinstance(expr, sp.Mul):
            factors = list(expr.args)
            if factors[0] == -1:
                operand, dtype = self._operand(sp.Mul(*factors[1:]), context)
                node_name = name or self.fresh("Neg")
                self.writer.node(node_name, "Neg", [operand], T=_Type(dtype))
                return node_name, dtype
            return self._chain("Mul", "mul", factors, name, context)
        if isinstance(expr, sp.Pow):
            base, exponent = expr.args
            unary = {
                2: "Square",
                sp.Rational(1, 2): "Sqrt",
                sp.Rational(-1, 2): "Rsqrt",
                -1: "Reciprocal",
            }
            if exponent in unary:
                operand, dtype = self._operand(base, context)
                node_name = name or self.fresh(unary[exponent])
                self.writer.node(node_name, unary[exponent], [operand], T=_Type(dtype))
                return node_name, dtype
            return self._call("Pow", "pow", [base, exponent], name, context)
        if isinstance(expr, F.TextbookForm):  # TF has no such op: its graph holds TF's formula
            return self.write(expr.stable(), name, context)
        if type(expr).__name__ == "OneWhere":  # where(cond, 1, x)
            return self._call(
                "SelectV2", "select", [expr.args[0], sp.Integer(1), expr.args[1]], name, context
            )
        kind = _FUNCTIONS.get(type(expr)) or _FUNCTION_NAMES.get(type(expr).__name__) or ""
        if not kind:
            raise ModelFileError(
                f"symgrad: as_graph_def: op '{self.op.name}' ({self.op.type}) computes "
                f"{type(expr).__name__}, which has no TF op"
            )
        return self._call(kind, kind.lower(), list(expr.args), name, context)

    def _operand(self, expr: sp.Expr, context: _dtypes.DType) -> tuple[str, _dtypes.DType]:
        """An operand of arithmetic: a comparison in it (relu's mask ``x > 0``) is 0 or 1 of
        the arithmetic's dtype, as NumPy and SymPy read it; TF needs the ``Cast``."""
        name, dtype = self.write(expr, None, context)
        if dtype.is_bool and not context.is_bool:
            cast = self.fresh("Cast")
            self.writer.node(
                cast, "Cast", [name], SrcT=_Type(dtype), DstT=_Type(context), Truncate=False
            )
            return cast, context
        return name, dtype

    def _call(
        self,
        kind: str,
        short: str,
        args: Sequence[sp.Expr],
        name: str | None,
        context: _dtypes.DType,
    ) -> tuple[str, _dtypes.DType]:
        # Numbers take the dtype of the tensors beside them (a comparison's operands, not bool).
        tensors = [a for a in args if not isinstance(a, sp.Number)]
        operand_context = context
        if tensors and kind != "SelectV2":
            operand_context = self._dtype_of(tensors[0], context)
        elif kind == "SelectV2":
            operand_context = (
                self._dtype_of(args[1], context)
                if not isinstance(args[1], sp.Number)
                else (self._dtype_of(args[2], context))
            )
        names, dtypes = [], []
        for position, arg in enumerate(args):
            wanted = _dtypes.bool_ if kind == "SelectV2" and position == 0 else operand_context
            logical = kind in ("LogicalNot", "LogicalAnd", "LogicalOr") or wanted.is_bool
            if logical:
                operand, dtype = self.write(arg, None, wanted)
            else:
                operand, dtype = self._operand(arg, wanted)
            names.append(operand)
            dtypes.append(dtype)
        node_name = name or self.fresh(short)
        value_dtype = dtypes[1] if kind == "SelectV2" else dtypes[0]
        attrs: dict[str, Any] = (
            {} if kind in ("LogicalNot", "LogicalAnd", "LogicalOr") else {"T": _Type(value_dtype)}
        )
        self.writer.node(node_name, kind, names, **attrs)
        return node_name, _dtypes.bool_ if kind in _BOOLEAN else value_dtype

    def _chain(
        self,
        kind: str,
        short: str,
        args: Sequence[sp.Expr],
        name: str | None,
        context: _dtypes.DType,
    ) -> tuple[str, _dtypes.DType]:
        tensors = [a for a in args if not isinstance(a, sp.Number)]
        operand_context = self._dtype_of(tensors[0], context) if tensors else context
        ordered = sorted(args, key=lambda a: isinstance(a, sp.Number))  # tensors first: x + 1
        current, dtype = self._operand(ordered[0], operand_context)
        for position, arg in enumerate(ordered[1:], 1):
            operand, _ = self._operand(arg, operand_context)
            last = position == len(ordered) - 1
            node_name = name if last and name else self.fresh(short)
            self.writer.node(node_name, kind, [current, operand], T=_Type(dtype))
            current = node_name
        return current, dtype

    def _dtype_of(self, expr: sp.Expr, context: _dtypes.DType) -> _dtypes.DType:
        for symbol in sorted(expr.free_symbols, key=str):
            if symbol in self.symbols:
                return self.symbols[symbol].dtype
        return context


def _elementwise(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    expr = op.attrs["expr"]
    if op.inputs and not expr.free_symbols:  # ones_like, zeros_like: a value of the input's shape
        like = op.inputs[0]
        if expr == 0 and like.dtype == output.dtype:
            writer.node(op.name, "ZerosLike", [writer.ref(like)], T=_Type(like.dtype))
        elif expr == 1 and like.dtype == output.dtype:
            writer.node(op.name, "OnesLike", [writer.ref(like)], T=_Type(like.dtype))
        else:
            shape = _shape_of(like, f"{op.name}/shape", writer)
            value = writer.const(f"{op.name}/value", complex(expr).real, output.dtype)
            writer.node(
                op.name,
                "Fill",
                [shape, value],
                T=_Type(output.dtype),
                index_type=_Type(_dtypes.int32),
            )
        return
    _Formula(op, writer).write(expr, op.name, output.dtype)


# --- structural ops -------------------------------------------------------------------------------

Exporter = Callable[[Operation, _Writer], None]
EXPORTERS: dict[str, Exporter] = {}


def _exports(*op_types: str) -> Callable[[Exporter], Exporter]:
    def register(exporter: Exporter) -> Exporter:
        for op_type in op_types:
            EXPORTERS[op_type] = exporter
        return exporter

    return register


def _inputs(op: Operation, writer: _Writer) -> list[str]:
    return [writer.ref(t) for t in op.inputs] + [f"^{c.name}" for c in op.attrs.get("control", ())]


def _t(op: Operation) -> _Type:
    return _Type(op.inputs[0].dtype)


@_exports("Placeholder")
def _placeholder(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    writer.node(op.name, "Placeholder", dtype=_Type(output.dtype), shape=_Shape(output.shape))


@_exports("PlaceholderWithDefault")
def _placeholder_with_default(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    writer.node(
        op.name,
        "PlaceholderWithDefault",
        _inputs(op, writer),
        dtype=_Type(output.dtype),
        shape=_Shape(output.shape),
    )


@_exports("Const")
def _const(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    value = np.asarray(op.attrs["value"], dtype=output.dtype.numpy)
    writer.node(op.name, "Const", _inputs(op, writer), dtype=_Type(output.dtype), value=value)


@_exports("Zeros", "Ones")
def _filled(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    if output.shape is None or any(d is None for d in output.shape):
        raise ModelFileError(f"symgrad: as_graph_def: '{op.name}' ({op.type}) of a run-time shape")
    value = (np.zeros if op.type == "Zeros" else np.ones)(output.shape, output.dtype.numpy)
    writer.node(op.name, "Const", _inputs(op, writer), dtype=_Type(output.dtype), value=value)


@_exports("VariableV2")
def _variable(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    writer.node(
        op.name,
        "VariableV2",
        dtype=_Type(output.dtype),
        shape=_Shape(output.shape),
        container="",
        shared_name="",
    )


@_exports("Assign")
def _assign(op: Operation, writer: _Writer) -> None:
    variable = op.attrs["variable"]
    writer.node(
        op.name,
        "Assign",
        [writer.ref(variable), *_inputs(op, writer)],
        T=_Type(variable.dtype),
        validate_shape=True,
        use_locking=True,
    )


@_exports("NoOp")
def _no_op(op: Operation, writer: _Writer) -> None:
    writer.node(op.name, "NoOp", _inputs(op, writer))


@_exports("MatMul")
def _matmul(op: Operation, writer: _Writer) -> None:
    ranks = {len(t.shape) if t.shape is not None else None for t in op.inputs}
    kind = "MatMul" if ranks == {2} else "BatchMatMulV2"
    flags = ("transpose_a", "transpose_b") if kind == "MatMul" else ("adj_x", "adj_y")
    writer.node(
        op.name,
        kind,
        _inputs(op, writer),
        T=_t(op),
        **{flags[0]: bool(op.attrs["transpose_a"]), flags[1]: bool(op.attrs["transpose_b"])},
    )


def _four(pair: Sequence[int]) -> list[int]:
    """(h, w) as NHWC's [1, h, w, 1]."""
    return [1, int(pair[0]), int(pair[1]), 1]


@_exports("Conv2D")
def _conv2d(op: Operation, writer: _Writer) -> None:
    writer.node(
        op.name,
        "Conv2D",
        _inputs(op, writer),
        T=_t(op),
        strides=_four(op.attrs["strides"]),
        padding=str(op.attrs["padding"]),
        dilations=_four(op.attrs["dilations"]),
        data_format="NHWC",
        use_cudnn_on_gpu=True,
        explicit_paddings=[],
    )


@_exports("MaxPool", "AvgPool")
def _pool(op: Operation, writer: _Writer) -> None:
    writer.node(
        op.name,
        op.type,
        _inputs(op, writer),
        T=_t(op),
        ksize=_four(op.attrs["ksize"]),
        strides=_four(op.attrs["strides"]),
        padding=str(op.attrs["padding"]),
        data_format="NHWC",
    )


@_exports("Reshape")
def _reshape(op: Operation, writer: _Writer) -> None:
    shape = writer.const(f"{op.name}/shape", list(op.attrs["shape"]), _dtypes.int32)
    writer.node(
        op.name, "Reshape", [*_inputs(op, writer)[:1], shape], T=_t(op), Tshape=_Type(_dtypes.int32)
    )


@_exports("Softmax", "LogSoftmax")
def _softmax(op: Operation, writer: _Writer) -> None:
    shape = op.inputs[0].shape
    axis = int(op.attrs["axis"])
    if shape is None or axis not in (-1, len(shape) - 1):
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' ({op.type}) over axis {axis}, not the last"
        )
    writer.node(op.name, op.type, _inputs(op, writer), T=_t(op))


@_exports("Sum", "Mean", "Max", "Min", "Prod", "Any", "All")
def _reduction(op: Operation, writer: _Writer) -> None:
    axes = op.attrs["axes"]
    rank = len(op.inputs[0].shape) if op.inputs[0].shape is not None else None
    if axes is None:
        if rank is None:
            raise ModelFileError(
                f"symgrad: as_graph_def: '{op.name}' ({op.type}) over every axis of a rank known only at run time"
            )
        axes = tuple(range(rank))
    indices = writer.const(f"{op.name}/reduction_indices", list(axes), _dtypes.int32)
    attrs: dict[str, Any] = {"keep_dims": bool(op.attrs["keepdims"]), "Tidx": _Type(_dtypes.int32)}
    if op.type not in ("Any", "All"):
        attrs["T"] = _t(op)
    writer.node(op.name, op.type, [writer.ref(op.inputs[0]), indices], **attrs)


@_exports("ArgMax", "ArgMin")
def _arg(op: Operation, writer: _Writer) -> None:
    axes = op.attrs["axes"]
    axis = axes[0] if isinstance(axes, (tuple, list)) else axes
    dimension = writer.const(f"{op.name}/dimension", int(axis), _dtypes.int32)
    writer.node(
        op.name,
        op.type,
        [writer.ref(op.inputs[0]), dimension],
        T=_t(op),
        Tidx=_Type(_dtypes.int32),
        output_type=_Type(op.outputs[0].dtype),
    )


@_exports("ConcatV2")
def _concat(op: Operation, writer: _Writer) -> None:
    axis = writer.const(f"{op.name}/axis", int(op.attrs["axis"]), _dtypes.int32)
    writer.node(
        op.name,
        "ConcatV2",
        [*(writer.ref(t) for t in op.inputs), axis],
        T=_t(op),
        N=len(op.inputs),
        Tidx=_Type(_dtypes.int32),
    )


@_exports("Pack")
def _pack(op: Operation, writer: _Writer) -> None:
    writer.node(
        op.name, "Pack", _inputs(op, writer), T=_t(op), N=len(op.inputs), axis=int(op.attrs["axis"])
    )


@_exports("Transpose")
def _transpose(op: Operation, writer: _Writer) -> None:
    if op.attrs["perm"] is None:
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' (Transpose) of a rank known only at run time"
        )
    perm = writer.const(f"{op.name}/perm", list(op.attrs["perm"]), _dtypes.int32)
    writer.node(
        op.name, "Transpose", [writer.ref(op.inputs[0]), perm], T=_t(op), Tperm=_Type(_dtypes.int32)
    )


@_exports("Shape")
def _shape(op: Operation, writer: _Writer) -> None:
    writer.node(
        op.name, "Shape", _inputs(op, writer), T=_t(op), out_type=_Type(op.outputs[0].dtype)
    )


@_exports("StridedSlice")
def _strided_slice(op: Operation, writer: _Writer) -> None:
    key = op.attrs["key"]
    key = key if isinstance(key, tuple) else (key,)
    begin, end, strides = [], [], []
    masks = {
        "begin_mask": 0,
        "end_mask": 0,
        "ellipsis_mask": 0,
        "new_axis_mask": 0,
        "shrink_axis_mask": 0,
    }
    for position, item in enumerate(key):
        bit = 1 << position
        if item is Ellipsis or item is None:
            masks["ellipsis_mask" if item is Ellipsis else "new_axis_mask"] |= bit
            begin.append(0)
            end.append(0)
            strides.append(1)
        elif isinstance(item, slice):
            if not all(
                v is None or isinstance(v, (int, np.integer))
                for v in (item.start, item.stop, item.step)
            ):
                raise ModelFileError(
                    f"symgrad: as_graph_def: '{op.name}' (StridedSlice) with bounds known only at run time"
                )
            begin.append(0 if item.start is None else int(item.start))
            end.append(0 if item.stop is None else int(item.stop))
            strides.append(1 if item.step is None else int(item.step))
            if item.start is None:
                masks["begin_mask"] |= bit
            if item.stop is None:
                masks["end_mask"] |= bit
        elif isinstance(item, (int, np.integer)):
            masks["shrink_axis_mask"] |= bit
            begin.append(int(item))
            end.append(int(item) + 1)
            strides.append(1)
        else:
            raise ModelFileError(
                f"symgrad: as_graph_def: '{op.name}' (StridedSlice) with a key {item!r}"
            )
    names = [
        writer.const(f"{op.name}/{label}", values, _dtypes.int32)
        for label, values in (("stack", begin), ("stack_1", end), ("stack_2", strides))
    ]
    writer.node(
        op.name,
        "StridedSlice",
        [writer.ref(op.inputs[0]), *names],
        T=_t(op),
        Index=_Type(_dtypes.int32),
        **masks,
    )


@_exports("FillSizes")
def _fill_sizes(op: Operation, writer: _Writer) -> None:
    """Sizes some of which arrive at run time (an RNN's zero state): TF's ``Fill`` of a
    ``Pack`` of them."""
    output = op.outputs[0]
    run_time = iter(op.inputs)
    sizes = []
    for position, size in enumerate(op.attrs["sizes"]):
        if size is None:
            sizes.append(writer.ref(next(run_time)))
        else:
            sizes.append(writer.const(f"{op.name}/size_{position}", int(size), _dtypes.int32))
    dims = f"{op.name}/dims"
    writer.node(dims, "Pack", sizes, T=_Type(_dtypes.int32), N=len(sizes), axis=0)
    value = writer.const(f"{op.name}/value", op.attrs["value"], output.dtype)
    writer.node(
        op.name, "Fill", [dims, value], T=_Type(output.dtype), index_type=_Type(_dtypes.int32)
    )


@_exports("RandomUniform", "RandomStandardNormal", "TruncatedNormal")
def _random(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    if op.attrs.get("like"):  # the shape of its input, at run time (dropout's mask)
        shape = f"{op.name}/shape"
        writer.node(
            shape, "Shape", [writer.ref(op.inputs[0])], T=_t(op), out_type=_Type(_dtypes.int32)
        )
    elif output.shape is None or any(d is None for d in output.shape):
        raise ModelFileError(f"symgrad: as_graph_def: '{op.name}' ({op.type}) of a run-time shape")
    else:
        shape = writer.const(f"{op.name}/shape", list(output.shape), _dtypes.int32)
    graph_seed, op_seed = op.attrs.get("seed", (None, None))
    writer.node(
        op.name,
        op.type,
        [shape, *[f"^{c.name}" for c in op.attrs.get("control", ())]],
        T=_Type(_dtypes.int32),
        dtype=_Type(output.dtype),
        seed=int(graph_seed or 0),
        seed2=int(op_seed or 0),
    )


@_exports("OneHot")
def _one_hot(op: Operation, writer: _Writer) -> None:
    output = op.outputs[0]
    depth = writer.const(f"{op.name}/depth", int(op.attrs["depth"]), _dtypes.int32)
    on = writer.const(f"{op.name}/on_value", op.attrs["on"], output.dtype)
    off = writer.const(f"{op.name}/off_value", op.attrs["off"], output.dtype)
    writer.node(
        op.name,
        "OneHot",
        [writer.ref(op.inputs[0]), depth, on, off],
        T=_Type(output.dtype),
        TI=_t(op),
        axis=int(op.attrs["axis"]),
    )


# --- the ops of gradients, as TF's gradient code computes them -------------------------------------


def _shape_of(tensor: Tensor, name: str, writer: _Writer) -> str:
    """``tensor``'s shape as an int32 vector: a Const where static, else a ``Shape`` node."""
    if tensor.shape is not None and all(d is not None for d in tensor.shape):
        return writer.const(name, list(tensor.shape), _dtypes.int32)
    writer.node(
        name, "Shape", [writer.ref(tensor)], T=_Type(tensor.dtype), out_type=_Type(_dtypes.int32)
    )
    return name


@_exports(
    "EnsureShape",
    "EnsureSameDims",
    "EnsureInRange",
    "EnsureAxis",
    "EnsureBroadcastable",
    "EnsureSegmentIds",
)
def _check(op: Operation, writer: _Writer) -> None:
    """A run-time check of symgrad's passes its input through: TF's kernels check for themselves."""
    writer.node(op.name, "Identity", [writer.ref(op.inputs[0])], T=_t(op))


@_exports("ReshapeLike")
def _reshape_like(op: Operation, writer: _Writer) -> None:
    shape = _shape_of(op.inputs[1], f"{op.name}/shape", writer)
    writer.node(
        op.name, "Reshape", [writer.ref(op.inputs[0]), shape], T=_t(op), Tshape=_Type(_dtypes.int32)
    )


@_exports("SumToShape")
def _sum_to_shape(op: Operation, writer: _Writer) -> None:
    """A broadcast operand's cotangent, as TF's gradients compute it: summed over the axes
    ``BroadcastGradientArgs`` finds, reshaped to the operand's shape."""
    grad, like = op.inputs
    grad_shape = _shape_of(grad, f"{op.name}/Shape", writer)
    like_shape = _shape_of(like, f"{op.name}/Shape_1", writer)
    axes = f"{op.name}/BroadcastGradientArgs"
    writer.node(axes, "BroadcastGradientArgs", [grad_shape, like_shape], T=_Type(_dtypes.int32))
    total = f"{op.name}/Sum"
    writer.node(
        total,
        "Sum",
        [writer.ref(grad), f"{axes}:1"],
        T=_t(op),
        Tidx=_Type(_dtypes.int32),
        keep_dims=False,
    )
    writer.node(op.name, "Reshape", [total, like_shape], T=_t(op), Tshape=_Type(_dtypes.int32))


@_exports("BroadcastGrad")
def _broadcast_grad(op: Operation, writer: _Writer) -> None:
    """A reduction's cotangent spread back over the reduced axes (and divided by their count
    for a mean)."""
    grad, like = op.inputs
    axes, keepdims = op.attrs["axes"], op.attrs["keepdims"]
    if like.shape is None:
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' (BroadcastGrad) of a rank known only at run time"
        )
    rank = len(like.shape)
    reduced = tuple(range(rank)) if axes is None else tuple(a % max(rank, 1) for a in axes)
    current = writer.ref(grad)
    if not keepdims and grad.shape is not None and len(grad.shape) < rank:
        for position, axis in enumerate(sorted(reduced)):
            dim = writer.const(f"{op.name}/dim_{position}", axis, _dtypes.int32)
            expanded = f"{op.name}/ExpandDims_{position}" if position else f"{op.name}/ExpandDims"
            writer.node(expanded, "ExpandDims", [current, dim], T=_t(op), Tdim=_Type(_dtypes.int32))
            current = expanded
    shape = _shape_of(like, f"{op.name}/shape", writer)
    spread = op.name if not op.attrs["mean"] else f"{op.name}/BroadcastTo"
    writer.node(spread, "BroadcastTo", [current, shape], T=_t(op), Tidx=_Type(_dtypes.int32))
    if not op.attrs["mean"]:
        return
    sizes = [like.shape[a] for a in reduced]
    if all(size is not None for size in sizes):
        count = writer.const(f"{op.name}/count", float(np.prod(sizes)), grad.dtype)
    else:
        indices = writer.const(f"{op.name}/axes", list(reduced), _dtypes.int32)
        gather_axis = writer.const(f"{op.name}/gather_axis", 0, _dtypes.int32)
        gathered = f"{op.name}/GatherV2"
        writer.node(
            gathered,
            "GatherV2",
            [shape, indices, gather_axis],
            Tparams=_Type(_dtypes.int32),
            Tindices=_Type(_dtypes.int32),
            Taxis=_Type(_dtypes.int32),
            batch_dims=0,
        )
        zero = writer.const(f"{op.name}/prod_axis", [0], _dtypes.int32)
        product = f"{op.name}/Prod"
        writer.node(
            product,
            "Prod",
            [gathered, zero],
            T=_Type(_dtypes.int32),
            Tidx=_Type(_dtypes.int32),
            keep_dims=False,
        )
        count = f"{op.name}/count"
        writer.node(
            count,
            "Cast",
            [product],
            SrcT=_Type(_dtypes.int32),
            DstT=_Type(grad.dtype),
            Truncate=False,
        )
    writer.node(op.name, "RealDiv", [spread, count], T=_t(op))


@_exports("SliceGrad")
def _slice_grad(op: Operation, writer: _Writer) -> None:
    """A slice's cotangent: zeros around it, which TF's gradient makes with ``Pad``."""
    grad, like = op.inputs
    key = op.attrs["key"]
    key = key if isinstance(key, tuple) else (key,)
    if like.shape is None:
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' (SliceGrad) of a rank known only at run time"
        )
    paddings, current = [], writer.ref(grad)
    for axis, item in enumerate(key):
        size = like.shape[axis]
        if isinstance(item, slice) and item == slice(None):
            paddings.append([0, 0])
            continue
        if (
            size is None
            or not isinstance(item, (slice, int, np.integer))
            or (isinstance(item, slice) and item.step not in (None, 1))
        ):
            raise ModelFileError(
                f"symgrad: as_graph_def: '{op.name}' (SliceGrad) of {item!r} on an axis of size {size}"
            )
        if isinstance(item, slice):
            start, stop, _ = item.indices(size)
            paddings.append([start, size - max(stop, start)])
        else:
            index = int(item) % size
            paddings.append([index, size - index - 1])
            dim = writer.const(f"{op.name}/dim_{axis}", axis, _dtypes.int32)
            expanded = f"{op.name}/ExpandDims_{axis}"
            writer.node(expanded, "ExpandDims", [current, dim], T=_t(op), Tdim=_Type(_dtypes.int32))
            current = expanded
    paddings += [[0, 0]] * (len(like.shape) - len(key))
    padding = writer.const(f"{op.name}/paddings", paddings, _dtypes.int32)
    writer.node(op.name, "Pad", [current, padding], T=_t(op), Tpaddings=_Type(_dtypes.int32))


@_exports("MaxPoolGrad")
def _max_pool_grad(op: Operation, writer: _Writer) -> None:
    original, pooled, grad = op.inputs
    attrs = dict(
        ksize=_four(op.attrs["ksize"]),
        strides=_four(op.attrs["strides"]),
        padding=str(op.attrs["padding"]),
        data_format="NHWC",
    )
    inputs = [writer.ref(original), writer.ref(pooled), writer.ref(grad)]
    writer.node(op.name, "MaxPoolGrad", inputs, T=_t(op), **attrs)


def _conv_attrs(op: Operation) -> dict[str, Any]:
    return dict(
        strides=_four(op.attrs["strides"]),
        padding=str(op.attrs["padding"]),
        dilations=_four(op.attrs["dilations"]),
        data_format="NHWC",
        use_cudnn_on_gpu=True,
        explicit_paddings=[],
    )


@_exports("Conv2DBackpropInput")
def _conv2d_backprop_input(op: Operation, writer: _Writer) -> None:
    grad, kernel = op.inputs[0], op.inputs[1]
    if len(op.inputs) > 2:
        sizes = _shape_of(op.inputs[2], f"{op.name}/input_sizes", writer)
    elif op.attrs.get("shape") is not None and all(d is not None for d in op.attrs["shape"]):
        sizes = writer.const(f"{op.name}/input_sizes", list(op.attrs["shape"]), _dtypes.int32)
    else:
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' (Conv2DBackpropInput) of a run-time input shape"
        )
    writer.node(
        op.name,
        "Conv2DBackpropInput",
        [sizes, writer.ref(kernel), writer.ref(grad)],
        T=_Type(grad.dtype),
        **_conv_attrs(op),
    )


@_exports("Conv2DBackpropFilter")
def _conv2d_backprop_filter(op: Operation, writer: _Writer) -> None:
    source, grad = op.inputs
    sizes = writer.const(f"{op.name}/filter_sizes", list(op.attrs["filter_shape"]), _dtypes.int32)
    writer.node(
        op.name,
        "Conv2DBackpropFilter",
        [writer.ref(source), sizes, writer.ref(grad)],
        T=_t(op),
        **_conv_attrs(op),
    )


def _depthwise_attrs(op: Operation) -> dict[str, Any]:
    if tuple(op.attrs["dilations"]) != (1, 1):
        # TF's nn.depthwise_conv2d writes a rate as SpaceToBatchND around an undilated op;
        # its kernels refuse a DepthwiseConv2dNative* with dilations
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' ({op.type}) has dilations "
            f"{list(op.attrs['dilations'])}, which TF's depthwise kernels do not run; "
            f"only undilated depthwise convolutions are written"
        )
    # TF 1.15's DepthwiseConv2dNative* ops have no explicit_paddings attribute
    return dict(
        strides=_four(op.attrs["strides"]),
        padding=str(op.attrs["padding"]),
        dilations=_four(op.attrs["dilations"]),
        data_format="NHWC",
    )


@_exports("DepthwiseConv2dNative")
def _depthwise_conv2d(op: Operation, writer: _Writer) -> None:
    writer.node(
        op.name, "DepthwiseConv2dNative", _inputs(op, writer), T=_t(op), **_depthwise_attrs(op)
    )


@_exports("DepthwiseConv2dNativeBackpropInput")
def _depthwise_backprop_input(op: Operation, writer: _Writer) -> None:
    grad, kernel = op.inputs[0], op.inputs[1]
    if len(op.inputs) > 2:
        sizes = _shape_of(op.inputs[2], f"{op.name}/input_sizes", writer)
    else:
        sizes = writer.const(f"{op.name}/input_sizes", list(op.attrs["shape"]), _dtypes.int32)
    writer.node(
        op.name,
        "DepthwiseConv2dNativeBackpropInput",
        [sizes, writer.ref(kernel), writer.ref(grad)],
        T=_Type(grad.dtype),
        **_depthwise_attrs(op),
    )


@_exports("DepthwiseConv2dNativeBackpropFilter")
def _depthwise_backprop_filter(op: Operation, writer: _Writer) -> None:
    source, grad = op.inputs
    sizes = writer.const(f"{op.name}/filter_sizes", list(op.attrs["filter_shape"]), _dtypes.int32)
    writer.node(
        op.name,
        "DepthwiseConv2dNativeBackpropFilter",
        [writer.ref(source), sizes, writer.ref(grad)],
        T=_t(op),
        **_depthwise_attrs(op),
    )


def _resize_flags(op: Operation) -> dict[str, Any]:
    return dict(
        align_corners=bool(op.attrs["align_corners"]),
        half_pixel_centers=bool(op.attrs["half_pixel_centers"]),
    )


@_exports("ResizeBilinear", "ResizeNearestNeighbor")
def _resize(op: Operation, writer: _Writer) -> None:
    size = writer.const(f"{op.name}/size", list(op.attrs["size"]), _dtypes.int32)
    writer.node(op.name, op.type, [writer.ref(op.inputs[0]), size], T=_t(op), **_resize_flags(op))


@_exports("ResizeBilinearGrad")
def _resize_bilinear_grad(op: Operation, writer: _Writer) -> None:
    """TF's ``ResizeBilinearGrad(grads, original_image)`` takes float32 ``grads`` whatever
    the image's dtype (symgrad's cotangent is in the image's dtype: cast back)."""
    grad, image = op.inputs
    grads = writer.ref(grad)
    if grad.dtype != _dtypes.float32:
        grads = f"{op.name}/grads"
        writer.node(
            grads,
            "Cast",
            [writer.ref(grad)],
            SrcT=_Type(grad.dtype),
            DstT=_Type(_dtypes.float32),
            Truncate=False,
        )
    writer.node(
        op.name,
        "ResizeBilinearGrad",
        [grads, writer.ref(image)],
        T=_Type(image.dtype),
        **_resize_flags(op),
    )


@_exports("ResizeNearestNeighborGrad")
def _resize_nearest_grad(op: Operation, writer: _Writer) -> None:
    """TF's ``ResizeNearestNeighborGrad(grads, size)``: ``size`` the image's height and
    width (a Const where static, else a slice of its ``Shape``)."""
    grad, image = op.inputs
    shape = image.shape
    if shape is not None and shape[1] is not None and shape[2] is not None:
        size = writer.const(f"{op.name}/size", [shape[1], shape[2]], _dtypes.int32)
    else:
        full = _shape_of(image, f"{op.name}/shape", writer)
        size = f"{op.name}/size"
        bounds = [
            writer.const(f"{size}/{k}", [v], _dtypes.int32)
            for k, v in (("begin", 1), ("end", 3), ("strides", 1))
        ]
        writer.node(
            size,
            "StridedSlice",
            [full, *bounds],
            T=_Type(_dtypes.int32),
            Index=_Type(_dtypes.int32),
            begin_mask=0,
            end_mask=0,
            ellipsis_mask=0,
            new_axis_mask=0,
            shrink_axis_mask=0,
        )
    writer.node(
        op.name,
        "ResizeNearestNeighborGrad",
        [writer.ref(grad), size],
        T=_Type(grad.dtype),
        **_resize_flags(op),
    )


@_exports("SoftmaxCrossEntropyWithLogits")
def _softmax_cross_entropy(op: Operation, writer: _Writer) -> None:
    labels, logits = op.inputs
    if logits.shape is None or op.attrs["axis"] != len(logits.shape) - 1 or len(logits.shape) != 2:
        raise ModelFileError(
            f"symgrad: as_graph_def: '{op.name}' over other than the last axis of a matrix"
        )
    writer.node(
        op.name,
        "SoftmaxCrossEntropyWithLogits",
        [writer.ref(logits), writer.ref(labels)],
        T=_Type(logits.dtype),
    )


# --- graphs ------------------------------------------------------------------------------------


def graph_def_of(graph: Graph, ops: Sequence[Operation] | None = None) -> Any:
    """The ``GraphDef`` of ``ops`` (default: every op of ``graph``), in graph order; op types
    TF has no counterpart for are refused, all of them named in one error."""
    chosen = list(graph.get_operations() if ops is None else ops)
    missing: dict[str, str] = {}
    for op in chosen:
        if op.type not in EXPORTERS and "expr" not in op.attrs:
            missing.setdefault(op.type, op.name)
    if missing:
        listing = ", ".join(f"{kind} (e.g. '{name}')" for kind, name in sorted(missing.items()))
        raise ModelFileError(
            f"symgrad: as_graph_def: {len(missing)} op type(s) have no TensorFlow counterpart "
            f"symgrad writes: {listing}; write the graph of the outputs you need "
            f"(graph_util.convert_variables_to_constants, saved_model.simple_save)"
        )
    writer = _Writer()
    ordered = sorted(chosen, key=lambda o: o.index)
    for op in ordered:
        exporter = EXPORTERS.get(op.type)
        if exporter is not None:
            exporter(op, writer)
        else:
            _elementwise(op, writer)
            if op.attrs.get("control"):
                node = writer.graph_def.node[-1]
                node.input.extend(f"^{c.name}" for c in op.attrs["control"])
    _order_writes_after_reads(ordered, writer.graph_def)
    return writer.graph_def


def _order_writes_after_reads(ops: Sequence[Operation], graph_def: Any) -> None:
    """symgrad's order within a run (:mod:`symgrad.ordering`): a read of a variable that does
    not come after an assignment of it sees the value the run started with. TF runs reads and
    writes of a ref variable in any order, so each assignment is made to wait (a control
    input) for those reads: the graph then computes in TF what it computes in symgrad (the
    gradients from the weights before the step, as TF's own optimizers ensure)."""
    consumers: dict[Operation, list[Operation]] = {}
    for op in ops:
        for tensor in op.inputs:
            consumers.setdefault(tensor.op, []).append(op)
        for control in op.attrs.get("control", ()):
            consumers.setdefault(control, []).append(op)
    nodes = {node.name: node for node in graph_def.node}
    for write in ops:
        if write.type != "Assign":
            continue
        variable = write.attrs["variable"]
        after: set[Operation] = set()
        stack = [write]
        while stack:
            for consumer in consumers.get(stack.pop(), ()):
                if consumer not in after:
                    after.add(consumer)
                    stack.append(consumer)
        readers = [
            op.name
            for op in ops
            if op is not write and op not in after and any(t is variable for t in op.inputs)
        ]
        node = nodes.get(write.name)
        if node is not None:
            present = set(node.input)
            node.input.extend(f"^{name}" for name in readers if f"^{name}" not in present)


def graph_def_for(outputs: Sequence[Tensor | Operation]) -> Any:
    """The ``GraphDef`` of what ``outputs`` need (their ancestors, control inputs too)."""
    roots = [o.op if isinstance(o, Tensor) else o for o in outputs]
    if not roots:
        raise ModelFileError("symgrad: as_graph_def: no outputs to write")
    return graph_def_of(roots[0].graph, ancestors(roots, control=True))


def write_graph(
    graph_or_graph_def: Any, logdir: str | os.PathLike[str], name: str, as_text: bool = True
) -> str:
    """Write a graph (or a ``GraphDef``) into ``logdir/name`` as TF1's ``tf.train.write_graph``
    does (text by default), atomically; the path."""
    graph_def = (
        graph_def_of(graph_or_graph_def)
        if isinstance(graph_or_graph_def, Graph)
        else graph_or_graph_def
    )
    path = Path(logdir) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return graph_files.write_graph_def(graph_def, path, as_text=as_text)


def _as_graph_def(graph: Graph, from_version: Any = None, add_shapes: bool = False) -> Any:
    """The graph as TensorFlow's ``GraphDef`` (TF1's ``Graph.as_graph_def``): every op as
    TF's op computing the same thing; op types TF has no counterpart for (gradient and
    check ops) are refused, named in one error.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default() as graph:
    ...     a = sg.constant([1.0, 2.0], name="a")
    ...     b = sg.identity(a * 2.0, name="b")
    >>> [(node.name, node.op) for node in graph.as_graph_def().node]
    [('a', 'Const'), ('mul/Const', 'Const'), ('mul', 'Mul'), ('b', 'Identity')]
    """
    del from_version, add_shapes
    return graph_def_of(graph)


Graph.as_graph_def = _as_graph_def  # type: ignore[method-assign,assignment]  # declared on Graph


# --- freezing ------------------------------------------------------------------------------------


def extract_sub_graph(graph_def: Any, dest_nodes: Sequence[str]) -> Any:
    """The part of ``graph_def`` that ``dest_nodes`` need (TF1's
    ``graph_util.extract_sub_graph``), in the original order."""
    nodes = {node.name: node for node in graph_def.node}
    needed: set[str] = set()
    stack = [str(name).split(":")[0] for name in dest_nodes]
    while stack:
        name = stack.pop()
        if name in needed:
            continue
        if name not in nodes:
            raise ModelFileError(f"symgrad: extract_sub_graph: no node '{name}' in the graph")
        needed.add(name)
        stack.extend(text.lstrip("^").split(":")[0] for text in nodes[name].input)
    result = type(graph_def)()
    result.versions.CopyFrom(graph_def.versions)
    for node in graph_def.node:
        if node.name in needed:
            result.node.add().CopyFrom(node)
    return result


def convert_variables_to_constants(
    sess: Any,
    input_graph_def: Any,
    output_node_names: Sequence[str],
    variable_names_whitelist: Sequence[str] | None = None,
    variable_names_blacklist: Sequence[str] | None = None,
) -> Any:
    """A frozen ``GraphDef`` (TF1's ``graph_util.convert_variables_to_constants``): the part
    ``output_node_names`` need, each variable a ``Const`` of its value in ``sess`` and its
    reads (``Identity``) kept."""
    needed = extract_sub_graph(input_graph_def, output_node_names)
    variables = {v.op.name: v for v in sess.graph.get_collection("variables")}
    variables.update({v.op.name: v for v in sess.graph.get_collection("local_variables")})
    frozen = type(needed)()
    frozen.versions.CopyFrom(needed.versions)
    chosen = []
    for node in needed.node:
        if node.op not in ("VariableV2", "Variable"):
            continue
        if variable_names_whitelist is not None and node.name not in variable_names_whitelist:
            continue
        if variable_names_blacklist is not None and node.name in variable_names_blacklist:
            continue
        if node.name not in variables:
            raise ModelFileError(
                f"symgrad: convert_variables_to_constants: no variable '{node.name}' in the session's graph"
            )
        chosen.append(node.name)
    values = (
        dict(zip(chosen, sess.run([variables[n] for n in chosen]), strict=True)) if chosen else {}
    )
    writer = _Writer()
    for node in needed.node:
        if node.name in values:
            value = np.asarray(values[node.name])
            frozen_node = frozen.node.add(name=node.name, op="Const")
            frozen_node.attr["dtype"].type = node.attr["dtype"].type % _REF
            frozen_node.attr["value"].tensor.CopyFrom(writer.tensor_util.make_tensor_proto(value))
        else:
            frozen.node.add().CopyFrom(node)
    return frozen


def remove_training_nodes(input_graph: Any, protected_nodes: Sequence[str] | None = None) -> Any:
    """TF1's ``graph_util.remove_training_nodes``: ``Identity`` and ``CheckNumerics`` nodes
    not in ``protected_nodes`` bypassed, their readers reading their input instead."""
    protected = set(protected_nodes or ())
    bypass = {
        node.name: node.input[0]
        for node in input_graph.node
        if node.op in ("Identity", "CheckNumerics")
        and node.name not in protected
        and node.input
        and not any(i.startswith("^") for i in node.input)
    }

    def resolve(text: str) -> str:
        control = text.startswith("^")
        name = text.lstrip("^")
        seen = 0
        while name.split(":")[0] in bypass and ":" not in name and seen < len(bypass):
            name = bypass[name]
            seen += 1
        return f"^{name.split(':')[0]}" if control else name

    result = type(input_graph)()
    result.versions.CopyFrom(input_graph.versions)
    for node in input_graph.node:
        if node.name in bypass:
            continue
        copy = result.node.add()
        copy.CopyFrom(node)
        del copy.input[:]
        copy.input.extend(resolve(text) for text in node.input)
    return result


# --- SavedModel ------------------------------------------------------------------------------------


def simple_save(
    session: Any,
    export_dir: str | os.PathLike[str],
    inputs: Mapping[str, Tensor],
    outputs: Mapping[str, Tensor],
    legacy_init_op: Any = None,
) -> None:
    """Write a SavedModel (TF1's ``saved_model.simple_save``): the meta graph of what
    ``outputs`` need, tagged ``serve``, with the signature ``serving_default`` naming
    ``inputs`` and ``outputs``, and the variables' values in ``variables/`` (TF's checkpoint
    format). TensorFlow's ``saved_model.loader.load`` reads it."""
    del legacy_init_op
    folder = Path(export_dir)
    if folder.exists() and any(folder.iterdir()):
        raise ModelFileError(
            f"symgrad: simple_save: the export folder '{folder}' already holds files"
        )
    libraries = require_libraries()
    needed = ancestors([t.op for t in outputs.values()], control=True)
    variables = [v for v in session.graph.get_collection("variables") if v.op in needed]
    # Each variable with its initializer and its read, which TF's VariableDef names.
    extra = [v.initializer for v in variables] + [v.value().op for v in variables]
    graph_def = graph_def_for([*outputs.values(), *extra])
    meta = libraries.meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.tags.append("serve")
    meta.meta_info_def.tensorflow_version = WRITTEN_AS_TF_VERSION
    meta.graph_def.CopyFrom(graph_def)
    signature = meta.signature_def["serving_default"]
    signature.method_name = "tensorflow/serving/predict"
    for key, tensors in (("inputs", inputs), ("outputs", outputs)):
        infos = getattr(signature, key)
        for label, tensor in tensors.items():
            info = infos[label]
            info.name = tensor.name
            info.dtype = _data_type(tensor.dtype, label)
            _set_attr_shape(info.tensor_shape, tensor.shape)
    _add_variable_collections(meta, variables, libraries)
    saved = graph_files.saved_model_class()()
    saved.saved_model_schema_version = 1
    saved.meta_graphs.add().CopyFrom(meta)
    (folder / graph_files.VARIABLES_FOLDER).mkdir(parents=True, exist_ok=True)
    if variables:
        values = session.run(variables)
        arrays = {v.op.name: np.asarray(value) for v, value in zip(variables, values, strict=True)}
        tf_bundle.write_bundle(graph_files.saved_model_variables_prefix(folder), arrays)
    graph_files.write_graph_def(saved, folder / graph_files.SAVED_MODEL_FILE)


def _set_attr_shape(proto: Any, shape: Sequence[int | None] | None) -> None:
    if shape is None:
        proto.unknown_rank = True
        return
    for size in shape:
        proto.dim.add(size=-1 if size is None else int(size))


def _add_variable_collections(meta: Any, variables: Sequence[Variable], libraries: Any) -> None:
    for key in ("variables", "trainable_variables"):
        chosen = [v for v in variables if key == "variables" or v.trainable]
        if not chosen:
            continue
        collection = meta.collection_def[key]
        for variable in chosen:
            collection.bytes_list.value.append(
                _variable_def(variable, libraries).SerializeToString()
            )


# --- meta graphs -------------------------------------------------------------------------------------


def meta_graph_def_of(graph: Graph, tags: Sequence[str] = ()) -> Any:
    """The ``MetaGraphDef`` of ``graph`` (TF1's ``export_meta_graph``): its ``GraphDef``, each
    variable's ``VariableDef`` in the variable collections, and every collection of tensors
    and ops by name, so that TF's ``import_meta_graph`` finds the train op, the losses and
    the update ops again."""
    libraries = require_libraries()
    variables = list(graph.get_collection("variables")) + [
        v
        for v in graph.get_collection("local_variables")
        if v not in graph.get_collection("variables")
    ]
    for variable in variables:  # made on demand: the VariableDefs name them
        _ = variable.initializer, variable.value()
    meta = libraries.meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.tensorflow_version = WRITTEN_AS_TF_VERSION
    meta.meta_info_def.tags.extend(tags)
    meta.graph_def.CopyFrom(graph_def_of(graph))
    present = {node.name for node in meta.graph_def.node}
    for key in sorted(k for k in graph.get_all_collection_keys() if isinstance(k, str)):
        items = graph.get_collection(key)
        if items and all(isinstance(item, Variable) for item in items):
            collection = meta.collection_def[key]
            for variable in items:
                collection.bytes_list.value.append(
                    _variable_def(variable, libraries).SerializeToString()
                )
            continue
        names = [
            item.name
            for item in items
            if isinstance(item, (Tensor, Operation)) and item.name.split(":")[0] in present
        ]
        if names:
            meta.collection_def[key].node_list.value.extend(names)
    return meta


def _variable_def(variable: Variable, libraries: Any) -> Any:
    return libraries.variable_pb2.VariableDef(
        variable_name=variable.name,
        initial_value_name=variable.initial_value.name,
        initializer_name=variable.initializer.name,
        snapshot_name=variable.value().name,
        trainable=variable.trainable,
    )


def export_meta_graph(
    filename: str | os.PathLike[str] | None = None,
    graph: Graph | None = None,
    as_text: bool = False,
    **kwargs: Any,
) -> Any:
    """Write (when ``filename`` is given) and return the ``MetaGraphDef`` of ``graph`` (the
    default graph), as TF1's ``tf.train.export_meta_graph``."""
    del kwargs
    chosen = graph if graph is not None else _default_graph()
    meta = meta_graph_def_of(chosen)
    if filename is not None:
        graph_files.write_graph_def(meta, Path(filename), as_text=as_text)
    return meta
