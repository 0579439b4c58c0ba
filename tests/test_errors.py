"""The catalogue of bad inputs: one case per way of misusing symgrad.

The error contract (``symgrad/errors.py``): every error symgrad raises is a
:class:`symgrad.SymgradError` *and* the builtin a Python user would expect
(``ValueError`` for bad values and shapes, ``TypeError`` for bad types,
``RuntimeError`` for a bad session state), and its message names the op, the
tensor(s) and the shapes or dtypes involved. No SymPy, NumPy or Jinja
exception (or traceback ending inside those libraries) reaches the user. The
one exception is the *generated module*, which imports only NumPy: it raises a
plain ``ValueError`` naming the input.

Each case is a small trigger run in a fresh graph, the exception classes it
must raise, and the words its message must contain (the names and shapes a
user needs, not whole sentences). A word given as a tuple accepts any of its
alternatives. Cases where symgrad is wrong are kept and marked
``xfail(strict=True)`` through ``KNOWN_BUGS``.
"""

from __future__ import annotations

import builtins
import os
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import numpy as np
import pytest
import sympy

import symgrad as sg

# --- known defects ------------------------------------------------------------------------------------

# case id -> the defect (what symgrad does today). Each is kept as a strict xfail.
_NOT_SYMGRAD = "raises a plain {} (not a SymgradError): {}"
KNOWN_BUGS: dict[str, str] = {}  # case id -> defect; none known today


# --- the catalogue ------------------------------------------------------------------------------------

Word = str | tuple[str, ...]


@dataclass(frozen=True)
class Bad:
    """A trigger, the exception it must raise, and the words of its message.

    ``error`` is the symgrad class the exception must be an instance of (it is
    always checked against ``sg.SymgradError`` too); ``None`` means the plain
    ``ValueError`` of a generated module, which must *not* be a SymgradError.
    ``builtin`` is the builtin exception class it must also be (a tuple: any of them).
    """

    trigger: Callable[[], Any]
    error: type | None
    builtin: type | tuple[type, ...]
    words: tuple[Word, ...]


CASES: dict[str, Bad] = {}


def bad(
    case_id: str, error: type | None, builtin: Any, *words: Word
) -> Callable[[Callable[[], Any]], Any]:
    """Register the decorated trigger as the case ``case_id``."""

    def register(trigger: Callable[[], Any]) -> Callable[[], Any]:
        add_case(case_id, trigger, error, builtin, *words)
        return trigger

    return register


def add_case(
    case_id: str, trigger: Callable[[], Any], error: type | None, builtin: Any, *words: Word
) -> None:
    assert case_id not in CASES, f"duplicate case id {case_id}"
    CASES[case_id] = Bad(trigger, error, builtin, tuple(words))


# Small builders: every trigger runs in a fresh graph, so names are stable.


def _x() -> sg.Tensor:
    return sg.placeholder(sg.float32, shape=[2, 3], name="x")


def _y() -> sg.Tensor:
    return sg.placeholder(sg.float32, shape=[4], name="y")


def _other_graph_tensor() -> sg.Tensor:
    with sg.Graph().as_default():
        return sg.placeholder(sg.float32, shape=[2, 3], name="foreign")


# --- 1. broadcasting shape mismatch ---------------------------------------------------------------------

_BROADCASTING = [
    ("add", "Add", lambda x, y: sg.add(x, y)),
    ("add-operator", "Add", lambda x, y: x + y),
    ("subtract", "Sub", lambda x, y: sg.subtract(x, y)),
    ("multiply", "Mul", lambda x, y: sg.multiply(x, y)),
    ("multiply-operator", "Mul", lambda x, y: x * y),
    ("truediv", "RealDiv", lambda x, y: x / y),
    ("pow", "Pow", lambda x, y: sg.pow(x, y)),
    ("maximum", "Maximum", lambda x, y: sg.maximum(x, y)),
    ("minimum", "Minimum", lambda x, y: sg.minimum(x, y)),
    ("squared_difference", "SquaredDifference", lambda x, y: sg.squared_difference(x, y)),
    ("greater", "Greater", lambda x, y: sg.greater(x, y)),
    (
        "where",
        "Select",
        lambda x, y: sg.where(sg.placeholder(sg.bool, shape=[2, 3], name="cond"), x, y),
    ),
]
for _id, _op, _build in _BROADCASTING:
    add_case(
        f"broadcast-{_id}",
        lambda build=_build: build(_x(), _y()),
        sg.ShapeError,
        ValueError,
        _op,
        "'x:0'",
        "(2, 3)",
        "'y:0'",
        "(4,)",
    )


@bad("broadcast-where-condition", sg.ShapeError, ValueError, "Select", "'cond:0'", "(4,)", "(2, 3)")
def _() -> Any:
    return sg.where(sg.placeholder(sg.bool, shape=[4], name="cond"), _x(), _x())


@bad("broadcast-array-operand", sg.ShapeError, ValueError, "Add", "'x:0'", "(2, 3)", "(4,)")
def _() -> Any:
    return _x() + np.ones(4, np.float32)


@bad(
    "broadcast-to-incompatible",
    sg.ShapeError,
    ValueError,
    "BroadcastTo",
    "'x:0'",
    "(2, 3)",
    "(4, 4)",
)
def _() -> Any:
    return sg.broadcast_to(_x(), [4, 4])


@bad(
    "build-op-across-graphs",
    sg.GraphMismatchError,
    ValueError,
    "Add",
    "'foreign:0'",
    "another graph",
)
def _() -> Any:
    return _x() + _other_graph_tensor()


# --- 2. invalid axes --------------------------------------------------------------------------------------

_AXIS_OUT_OF_RANGE = [
    ("reduce_sum", "Sum", lambda x: sg.reduce_sum(x, axis=2), "axis 2"),
    ("reduce_sum-negative", "Sum", lambda x: sg.reduce_sum(x, axis=-3), "axis -3"),
    ("reduce_sum-list", "Sum", lambda x: sg.reduce_sum(x, axis=[0, 2]), "axis 2"),
    ("reduce_mean", "Mean", lambda x: sg.reduce_mean(x, axis=2), "axis 2"),
    ("reduce_max", "Max", lambda x: sg.reduce_max(x, axis=2), "axis 2"),
    ("reduce_min", "Min", lambda x: sg.reduce_min(x, axis=2), "axis 2"),
    ("reduce_prod", "Prod", lambda x: sg.reduce_prod(x, axis=2), "axis 2"),
    ("reduce_logsumexp", "Max", lambda x: sg.reduce_logsumexp(x, axis=2), "axis 2"),
    ("expand_dims", "ExpandDims", lambda x: sg.expand_dims(x, 3), "axis 3"),
    ("expand_dims-negative", "ExpandDims", lambda x: sg.expand_dims(x, -4), "axis -4"),
    ("concat", "ConcatV2", lambda x: sg.concat([x, x], axis=2), "axis 2"),
    ("gather", "GatherV2", lambda x: sg.gather(x, [0], axis=2), "axis 2"),
    ("softmax", "Softmax", lambda x: sg.nn.softmax(x, axis=2), "axis 2"),
    ("log_softmax", "LogSoftmax", lambda x: sg.nn.log_softmax(x, axis=-3), "axis -3"),
    ("unstack", "Unpack", lambda x: sg.unstack(x, axis=2), "axis 2"),
    ("split", "Split", lambda x: sg.split(x, 2, axis=2), "axis 2"),
]
for _id, _op, _build, _axis in _AXIS_OUT_OF_RANGE:
    add_case(
        f"axis-{_id}",
        lambda build=_build: build(_x()),
        sg.ShapeError,
        ValueError,
        _op,
        _axis,
        "'x:0'",
        "rank 2",
    )


# Ops that add an axis: the valid axes are -3..2 for a rank-2 input, so the message
# must still describe the input ('x:0' of rank 2 / shape (2, 3)) correctly.
@bad("axis-stack", sg.ShapeError, ValueError, "Pack", "axis 4", "'x:0'", ("rank 2", "(2, 3)"))
def _() -> Any:
    x = _x()
    return sg.stack([x, x], axis=4)


@bad("axis-one_hot", sg.ShapeError, ValueError, "OneHot", "axis 3", "'idx:0'", ("rank 2", "(2, 3)"))
def _() -> Any:
    return sg.one_hot(sg.placeholder(sg.int32, shape=[2, 3], name="idx"), 4, axis=3)


@bad(
    "axis-squeeze-out-of-range",
    sg.ShapeError,
    ValueError,
    "Squeeze",
    "axis 2",
    "'z:0'",
    ("rank 2", "(1, 3)"),
)
def _() -> Any:
    # Axis 2 does not exist: it must not wrap around to axis 0 (which has size 1).
    return sg.squeeze(sg.placeholder(sg.float32, shape=[1, 3], name="z"), axis=2)


@bad("axis-transpose-perm-out-of-range", sg.ShapeError, ValueError, "Transpose", "'x:0'", "[1, 2]")
def _() -> Any:
    # perm [1, 2] names axis 2 of a rank-2 tensor: it must not wrap around to [1, 0].
    return sg.transpose(_x(), perm=[1, 2])


@bad("axis-transpose-not-a-permutation", sg.ShapeError, ValueError, "Transpose", "'x:0'", "[0, 0]")
def _() -> Any:
    return sg.transpose(_x(), perm=[0, 0])


@bad("axis-reduce-repeated", sg.ShapeError, ValueError, "Sum", "'x:0'", "[1, -1]")
def _() -> Any:
    return sg.reduce_sum(_x(), axis=[1, -1])


@bad("axis-reduce-float", sg.ShapeError, ValueError, "Sum", "'x:0'", "1.5")
def _() -> Any:
    return sg.reduce_sum(_x(), axis=1.5)


@bad(
    "axis-reduce-unknown-rank-mixed-axes",
    sg.ShapeError,
    ValueError,
    "Sum",
    "'u:0'",
    "[0, -1]",
    "counted from the start and from the end",
)
def _() -> Any:
    # Axes of one sign name the same axes at any rank; 0 and -1 are one axis at rank 1.
    return sg.reduce_sum(sg.placeholder(sg.float32, name="u"), axis=[0, -1])


# --- 3. reshape, squeeze, split, tile, concat, stack ----------------------------------------------------------


@bad("reshape-size", sg.ShapeError, ValueError, "Reshape", "'x:0'", "(2, 3)", "(4, 2)")
def _() -> Any:
    return sg.reshape(_x(), [4, 2])


@bad(
    "reshape-size-with-minus-one",
    sg.ShapeError,
    ValueError,
    "Reshape",
    "'x:0'",
    "(2, 3)",
    "(-1, 4)",
)
def _() -> Any:
    return sg.reshape(_x(), [-1, 4])


@bad("reshape-two-minus-ones", sg.ShapeError, ValueError, "Reshape", "'x:0'", "(-1, -1)")
def _() -> Any:
    return sg.reshape(_x(), [-1, -1])


@bad("reshape-shape-tensor", sg.InvalidArgumentError, ValueError, "Reshape", "'x:0'")
def _() -> Any:
    # a constant shape tensor is fine (TF1 folds it); one computed at run time is not
    return sg.reshape(_x(), sg.placeholder(sg.int32, [2], name="s"))


@bad(
    "squeeze-non-1-axis",
    sg.ShapeError,
    ValueError,
    "Squeeze",
    "axis 1",
    "'x:0'",
    "(2, 3)",
    "size 3",
)
def _() -> Any:
    return sg.squeeze(_x(), axis=1)


@bad("split-unequal", sg.ShapeError, ValueError, "Split", "'x:0'", "size 3", "2 equal parts")
def _() -> Any:
    return sg.split(_x(), 2, axis=1)


@bad("split-sizes-do-not-add-up", sg.ShapeError, ValueError, "Split", "'x:0'", "[1, 1]", "3")
def _() -> Any:
    return sg.split(_x(), [1, 1], axis=1)


@bad("split-no-parts", sg.ShapeError, ValueError, "Split", "'p:0'", "size None", "0 equal parts")
def _() -> Any:
    return sg.split(sg.placeholder(sg.float32, shape=[None, 3], name="p"), 0, axis=0)


@bad("tile-wrong-length", sg.ShapeError, ValueError, "Tile", "'x:0'", "(2, 3)", "1 multiples")
def _() -> Any:
    return sg.tile(_x(), [2])


@bad("tile-too-long", sg.ShapeError, ValueError, "Tile", "'x:0'", "(2, 3)", "3 multiples")
def _() -> Any:
    return sg.tile(_x(), [1, 2, 3])


@bad(
    "concat-shapes-differ",
    sg.ShapeError,
    ValueError,
    "ConcatV2",
    "'x:0'",
    "(2, 3)",
    "'b:0'",
    "(2, 4)",
)
def _() -> Any:
    return sg.concat([_x(), sg.placeholder(sg.float32, shape=[2, 4], name="b")], axis=0)


@bad(
    "concat-dtypes-differ",
    sg.DTypeError,
    TypeError,
    "ConcatV2",
    "'x:0'",
    "float32",
    "'b:0'",
    "float64",
)
def _() -> Any:
    return sg.concat([_x(), sg.placeholder(sg.float64, shape=[2, 3], name="b")], axis=0)


@bad("concat-empty", sg.InvalidArgumentError, ValueError, "ConcatV2")
def _() -> Any:
    return sg.concat([], axis=0)


@bad("stack-shapes-differ", sg.ShapeError, ValueError, "Pack", "'x:0'", "(2, 3)", "'b:0'", "(3, 2)")
def _() -> Any:
    return sg.stack([_x(), sg.placeholder(sg.float32, shape=[3, 2], name="b")])


# --- 4. matmul -------------------------------------------------------------------------------------------


def _a() -> sg.Tensor:
    return sg.placeholder(sg.float32, shape=[2, 3], name="a")


def _b(*shape: int, dtype: Any = sg.float32) -> sg.Tensor:
    return sg.placeholder(dtype, shape=list(shape), name="b")


@bad("matmul-inner", sg.ShapeError, ValueError, "MatMul", "'a:0'", "(2, 3)", "'b:0'", "(4, 5)")
def _() -> Any:
    return sg.matmul(_a(), _b(4, 5))


@bad(
    "matmul-inner-operator",
    sg.ShapeError,
    ValueError,
    "MatMul",
    "'a:0'",
    "(2, 3)",
    "'b:0'",
    "(4, 5)",
)
def _() -> Any:
    return _a() @ _b(4, 5)


@bad(
    "matmul-inner-transpose_a",
    sg.ShapeError,
    ValueError,
    "MatMul",
    "'a:0'",
    "(2, 3)",
    "transposed",
    "'b:0'",
    "(3, 5)",
)
def _() -> Any:
    return sg.matmul(_a(), _b(3, 5), transpose_a=True)


@bad(
    "matmul-inner-transpose_b",
    sg.ShapeError,
    ValueError,
    "MatMul",
    "'a:0'",
    "(2, 3)",
    "'b:0'",
    "(3, 5)",
    "transposed",
)
def _() -> Any:
    return sg.matmul(_a(), _b(3, 5), transpose_b=True)


@bad(
    "matmul-inner-transpose-both",
    sg.ShapeError,
    ValueError,
    "MatMul",
    "'a:0'",
    "(2, 3)",
    "'b:0'",
    "(2, 5)",
    "transposed",
)
def _() -> Any:
    return sg.matmul(_a(), _b(2, 5), transpose_a=True, transpose_b=True)


@bad("matmul-rank-1-left", sg.ShapeError, ValueError, "MatMul", "'v:0'", "(3,)", "rank 2")
def _() -> Any:
    return sg.matmul(sg.placeholder(sg.float32, shape=[3], name="v"), _b(3, 5))


@bad("matmul-rank-1-right", sg.ShapeError, ValueError, "MatMul", "'v:0'", "(3,)", "rank 2")
def _() -> Any:
    return sg.matmul(_a(), sg.placeholder(sg.float32, shape=[3], name="v"))


@bad("matmul-scalar", sg.ShapeError, ValueError, "MatMul", "'s:0'", "()", "rank 2")
def _() -> Any:
    return sg.matmul(sg.placeholder(sg.float32, shape=[], name="s"), _a())


@bad(
    "matmul-batch-dims",
    sg.ShapeError,
    ValueError,
    "MatMul",
    "batch",
    "'a:0'",
    "(2, 2, 3)",
    "'b:0'",
    "(3, 3, 4)",
)
def _() -> Any:
    return sg.matmul(sg.placeholder(sg.float32, shape=[2, 2, 3], name="a"), _b(3, 3, 4))


@bad("matmul-dtypes", sg.DTypeError, TypeError, "MatMul", "'a:0'", "float32", "'b:0'", "float64")
def _() -> Any:
    return sg.matmul(_a(), _b(3, 4, dtype=sg.float64))


@bad("matmul-bool", sg.DTypeError, TypeError, "MatMul", "'p:0'", "bool")
def _() -> Any:
    p = sg.placeholder(sg.bool, shape=[2, 2], name="p")
    return sg.matmul(p, p)


# --- 5. dtypes and non-numeric values -------------------------------------------------------------------------


@bad("constant-str", sg.DTypeError, TypeError, "constant", "'a'", "float32")
def _() -> Any:
    return sg.constant("a", dtype=sg.float32)  # sg.constant("a") is a tf.string constant


@bad("constant-mixed-list", sg.DTypeError, TypeError, "constant", "[1, 'a']")
def _() -> Any:
    return sg.constant([1, "a"])


@bad("constant-none", sg.DTypeError, TypeError, "constant", "None")
def _() -> Any:
    return sg.constant(None)


@bad("constant-object", sg.DTypeError, TypeError, "constant", "object")
def _() -> Any:
    return sg.constant(object())


@bad("constant-str-with-dtype", sg.DTypeError, TypeError, "constant", "float32", "'a'")
def _() -> Any:
    return sg.constant("a", dtype=sg.float32)


@bad("constant-ragged-list", sg.SymgradError, ValueError, "constant", "[[1.0, 2.0], [3.0]]")
def _() -> Any:
    return sg.constant([[1.0, 2.0], [3.0]])


@bad("constant-numpy-str-array", sg.DTypeError, TypeError, "constant", "int32")
def _() -> Any:
    return sg.constant(np.array(["a", "b"]), dtype=sg.int32)


@bad("constant-float-to-int", sg.DTypeError, TypeError, "constant", "1.5", "int32")
def _() -> Any:
    return sg.constant(1.5, dtype=sg.int32)


@bad("constant-int-to-bool", sg.DTypeError, TypeError, "constant", "bool")
def _() -> Any:
    return sg.constant(1, dtype=sg.bool)


@bad("constant-cannot-fill-shape", sg.ShapeError, ValueError, "constant", "(3,)", "(2, 2)")
def _() -> Any:
    return sg.constant([1.0, 2.0, 3.0], shape=[2, 2])


@bad("constant-of-a-tensor", sg.SymgradError, TypeError, "constant", "'x:0'")
def _() -> Any:
    return sg.constant(_x())


@bad("placeholder-bad-dtype", sg.DTypeError, TypeError, ("placeholder", "Placeholder"), "complex64")
def _() -> Any:
    return sg.placeholder("complex64", shape=[2], name="p")


@bad(
    "placeholder-negative-dim", sg.ShapeError, ValueError, ("placeholder", "Placeholder"), "(2, -3)"
)
def _() -> Any:
    return sg.placeholder(sg.float32, shape=[2, -3], name="p")


def _i() -> sg.Tensor:
    return sg.placeholder(sg.int32, shape=[2], name="i")


@bad("python-float-into-int-add", sg.DTypeError, TypeError, "Add", "'i:0'", "1.5", "int32")
def _() -> Any:
    return _i() + 1.5


@bad("python-float-into-int-multiply", sg.DTypeError, TypeError, "Mul", "'i:0'", "0.5", "int32")
def _() -> Any:
    return sg.multiply(_i(), 0.5)


@bad("python-float-into-int-maximum", sg.DTypeError, TypeError, "Maximum", "'i:0'", "2.5", "int32")
def _() -> Any:
    return sg.maximum(_i(), 2.5)


def _flag() -> sg.Tensor:
    return sg.placeholder(sg.bool, shape=[2], name="flag")


@bad("bool-add-number", sg.DTypeError, TypeError, "Add", "'flag:0'", "bool")
def _() -> Any:
    return _flag() + 1


@bad("bool-add-bool", sg.DTypeError, TypeError, "Add", "'flag:0'", "bool")
def _() -> Any:
    flag = _flag()
    return flag + flag


@bad("bool-multiply", sg.DTypeError, TypeError, "Mul", "'flag:0'", "bool")
def _() -> Any:
    flag = _flag()
    return sg.multiply(flag, flag)


@bad("bool-negative", sg.DTypeError, TypeError, "Neg", "'flag:0'", "bool")
def _() -> Any:
    return -_flag()


@bad("bool-tanh", sg.DTypeError, TypeError, "Tanh", "'flag:0'", "bool")
def _() -> Any:
    return sg.tanh(_flag())


@bad("bool-reduce_sum", sg.DTypeError, TypeError, "Sum", "'flag:0'", "bool")
def _() -> Any:
    return sg.reduce_sum(_flag())


@bad("int-tanh", sg.DTypeError, TypeError, "Tanh", "'i:0'", "int32")
def _() -> Any:
    return sg.tanh(_i())


@bad("dtype-mismatch-add", sg.DTypeError, TypeError, "Add", "'x:0'", "float32", "'z:0'", "float64")
def _() -> Any:
    return _x() + sg.placeholder(sg.float64, shape=[2, 3], name="z")


@bad(
    "dtype-mismatch-float-int",
    sg.DTypeError,
    TypeError,
    "Mul",
    "'x:0'",
    "float32",
    "'k:0'",
    "int32",
)
def _() -> Any:
    return _x() * sg.placeholder(sg.int32, shape=[2, 3], name="k")


@bad(
    "dtype-mismatch-where",
    sg.DTypeError,
    TypeError,
    "Select",
    "'x:0'",
    "float32",
    "'z:0'",
    "float64",
)
def _() -> Any:
    return sg.where(
        sg.placeholder(sg.bool, shape=[2, 3], name="cond"),
        _x(),
        sg.placeholder(sg.float64, shape=[2, 3], name="z"),
    )


@bad("where-condition-not-bool", sg.DTypeError, TypeError, "Select", "'x:0'", "float32", "bool")
def _() -> Any:
    x = _x()
    return sg.where(x, x, x)


@bad("where-one-argument", sg.SymgradError, ValueError, "where")
def _() -> Any:
    # TF1's one-argument form (indices of true elements), which symgrad does not support.
    return sg.where(sg.placeholder(sg.bool, shape=[2], name="cond"))


@bad("where-x-and-y-none", sg.SymgradError, ValueError, "where")
def _() -> Any:
    return sg.where(sg.placeholder(sg.bool, shape=[2], name="cond"), None, None)


@bad("convert_to_tensor-dtype", sg.DTypeError, TypeError, "'x:0'", "float32", "float64")
def _() -> Any:
    return sg.convert_to_tensor(_x(), dtype=sg.float64)


@bad("tensor-truth-value", sg.SymgradError, TypeError, "truth value")
def _() -> Any:
    return bool(_x())


@bad("tensor-iteration", sg.SymgradError, TypeError, "'x:0'", "not iterable")
def _() -> Any:
    return list(_x())


# --- 6. gradients ----------------------------------------------------------------------------------------


def _loss() -> tuple[sg.Tensor, sg.Tensor]:
    x = _x()
    return sg.reduce_sum(x * x, name="loss"), x


@bad("gradients-ys-not-a-tensor", sg.DTypeError, TypeError, "gradients", "ys", "float")
def _() -> Any:
    return sg.gradients(3.0, _x())


@bad("gradients-xs-not-a-tensor", sg.DTypeError, TypeError, "gradients", "xs", "str", "'w'")
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, [x, "w"])


@bad("gradients-xs-none", sg.DTypeError, TypeError, "gradients", "xs", "NoneType")
def _() -> Any:
    loss, _unused = _loss()
    return sg.gradients(loss, None)


@bad(
    "gradients-stop_gradients-not-a-tensor",
    sg.DTypeError,
    TypeError,
    "gradients",
    "stop_gradients",
    "float",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, x, stop_gradients=[1.0])


@bad("gradients-ys-empty", sg.InvalidArgumentError, ValueError, "gradients", "ys")
def _() -> Any:
    return sg.gradients([], _x())


@bad(
    "gradients-ys-other-graph",
    sg.GraphMismatchError,
    ValueError,
    "gradients",
    "'foreign:0'",
    "another graph",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients([loss, _other_graph_tensor()], x)


@bad(
    "gradients-xs-other-graph",
    sg.GraphMismatchError,
    ValueError,
    "gradients",
    "'foreign:0'",
    "another graph",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, [x, _other_graph_tensor()])


@bad(
    "gradients-stop_gradients-other-graph",
    sg.GraphMismatchError,
    ValueError,
    "gradients",
    "'foreign:0'",
    "another graph",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, x, stop_gradients=[_other_graph_tensor()])


@bad(
    "gradients-grad_ys-too-few",
    sg.InvalidArgumentError,
    ValueError,
    "gradients",
    "grad_ys",
    "1",
    "2",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients([loss, x], x, grad_ys=[sg.constant(1.0)])


@bad(
    "gradients-grad_ys-too-many",
    sg.InvalidArgumentError,
    ValueError,
    "gradients",
    "grad_ys",
    "2",
    "1",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, x, grad_ys=[1.0, 1.0])


@bad(
    "gradients-grad_ys-shape",
    sg.ShapeError,
    ValueError,
    "gradients",
    "grad_ys[0]",
    "(4,)",
    "'x:0'",
    "(2, 3)",
)
def _() -> Any:
    x = _x()
    return sg.gradients(x, x, grad_ys=[np.ones(4, np.float32)])


@bad(
    "gradients-grad_ys-dtype",
    sg.DTypeError,
    TypeError,
    "gradients",
    "grad_ys",
    "'g:0'",
    "float64",
    "float32",
)
def _() -> Any:
    x = _x()
    return sg.gradients(x, x, grad_ys=[sg.placeholder(sg.float64, shape=[2, 3], name="g")])


@bad(
    "gradients-unconnected_gradients",
    sg.InvalidArgumentError,
    ValueError,
    "gradients",
    "unconnected_gradients",
    "'bogus'",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, x, unconnected_gradients="bogus")


@bad(
    "gradients-aggregation_method",
    sg.InvalidArgumentError,
    ValueError,
    "gradients",
    "aggregation_method",
    "7",
)
def _() -> Any:
    loss, x = _loss()
    return sg.gradients(loss, x, aggregation_method=7)


# --- 7. hessians ---------------------------------------------------------------------------------------


@bad("hessians-of-x-itself", sg.InvalidArgumentError, ValueError, "hessians", "'h:0'")
def _() -> Any:
    h = sg.placeholder(sg.float64, shape=[3], name="h")
    return sg.hessians(h, h)


@bad("hessians-unknown-dim", sg.ShapeError, ValueError, "hessians", "'h:0'", "(None,)")
def _() -> Any:
    h = sg.placeholder(sg.float64, shape=[None], name="h")
    return sg.hessians(sg.reduce_sum(h**3), h)


@bad("hessians-unknown-rank", sg.ShapeError, ValueError, "hessians", "'h:0'", "<unknown>")
def _() -> Any:
    h = sg.placeholder(sg.float64, name="h")
    return sg.hessians(sg.reduce_sum(h**3), h)


@bad("hessians-unconnected", sg.InvalidArgumentError, ValueError, "hessians", "'h:0'")
def _() -> Any:
    h = sg.placeholder(sg.float64, shape=[3], name="h")
    return sg.hessians(sg.reduce_sum(_x() ** 2), h)


@bad("hessians-too-large", sg.InvalidArgumentError, ValueError, "hessians", "'h:0'", "4160")
def _() -> Any:
    h = sg.placeholder(sg.float64, shape=[65, 64], name="h")
    return sg.hessians(sg.reduce_sum(h**3), h)


@bad("hessians-xs-not-a-tensor", sg.DTypeError, TypeError, "hessians", "xs", "str")
def _() -> Any:
    return sg.hessians(sg.reduce_sum(_x() ** 2), "x")


# --- 8. Session --------------------------------------------------------------------------------------------


def _session_graph() -> dict[str, Any]:
    xs = sg.placeholder(sg.float32, shape=[2], name="xs")
    w = sg.Variable(np.zeros(3, np.float32), name="w")
    return {
        "xs": xs,
        "w": w,
        "out": sg.reduce_sum(xs * 2.0, name="out"),
        "read": sg.reduce_sum(w, name="read"),
    }


def _run(
    fetch: Callable[[dict[str, Any]], Any],
    feed: Callable[[dict[str, Any]], Any] = lambda t: None,
    initialize: bool = True,
) -> Any:
    t = _session_graph()
    with sg.Session() as sess:
        if initialize:
            sess.run(sg.global_variables_initializer())
        return sess.run(fetch(t), feed_dict=feed(t))


@bad("session-feed-wrong-shape", sg.InvalidArgumentError, ValueError, "'xs:0'", "(2,)", "(3,)")
def _() -> Any:
    return _run(lambda t: t["out"], lambda t: {t["xs"]: [1.0, 2.0, 3.0]})


@bad("session-feed-wrong-rank", sg.InvalidArgumentError, ValueError, "'xs:0'", "(2,)", "(2, 2)")
def _() -> Any:
    return _run(lambda t: t["out"], lambda t: {t["xs"]: np.ones((2, 2))})


@bad("session-feed-string", sg.InvalidArgumentError, ValueError, "'xs:0'", "float32", "str")
def _() -> Any:
    return _run(lambda t: t["out"], lambda t: {t["xs"]: "ab"})


@bad("session-feed-list-of-strings", sg.InvalidArgumentError, ValueError, "'xs:0'", "float32")
def _() -> Any:
    return _run(lambda t: t["out"], lambda t: {t["xs"]: ["a", "b"]})


@bad("session-feed-none", sg.InvalidArgumentError, ValueError, "'xs:0'", "float32", "NoneType")
def _() -> Any:
    return _run(lambda t: t["out"], lambda t: {t["xs"]: None})


@bad("session-feed-ragged", sg.InvalidArgumentError, ValueError, "'xs:0'")
def _() -> Any:
    return _run(lambda t: t["out"], lambda t: {t["xs"]: [[1.0], [2.0, 3.0]]})


@bad("session-missing-feed", sg.InvalidArgumentError, ValueError, "placeholder", "'xs:0'")
def _() -> Any:
    return _run(lambda t: t["out"])


# Variables and intermediate tensors can be fed (TF1), with their static shapes.
@bad(
    "session-feed-variable-wrong-shape",
    sg.InvalidArgumentError,
    ValueError,
    "'w:0'",
    "(3,)",
    "(2,)",
)
def _() -> Any:
    return _run(lambda t: t["read"], lambda t: {t["w"]: np.ones(2, np.float32)})


@bad(
    "session-feed-intermediate-wrong-shape",
    sg.InvalidArgumentError,
    ValueError,
    "'out:0'",
    "()",
    "(2,)",
)
def _() -> Any:
    return _run(lambda t: t["out"] * 2.0, lambda t: {t["out"]: [1.0, 2.0]})


@bad("session-feed-key-not-a-tensor", sg.InvalidArgumentError, ValueError, "feed_dict", "3")
def _() -> Any:
    return _run(lambda t: t["read"], lambda t: {3: 1.0})


@bad("session-feed-key-other-graph", sg.InvalidArgumentError, ValueError, "feed_dict", "foreign:0")
def _() -> Any:
    return _run(lambda t: t["read"], lambda t: {_other_graph_tensor(): np.ones((2, 3))})


@bad("session-feed-unknown-name", sg.SymgradError, (KeyError, ValueError), "nope")
def _() -> Any:
    return _run(lambda t: t["read"], lambda t: {"nope:0": 1.0})


@bad(
    "session-uninitialized-variable",
    sg.FailedPreconditionError,
    RuntimeError,
    "uninitialized",
    "'w:0'",
)
def _() -> Any:
    return _run(lambda t: t["read"], initialize=False)


@bad("session-closed", sg.SessionClosedError, RuntimeError, "closed Session")
def _() -> Any:
    t = _session_graph()
    sess = sg.Session()
    sess.close()
    return sess.run(t["read"])


@bad("session-closed-by-with", sg.SessionClosedError, RuntimeError, "closed Session")
def _() -> Any:
    t = _session_graph()
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
    return sess.run(t["read"])


@bad("session-fetch-float", sg.InvalidArgumentError, ValueError, "fetch", "float", "3.0")
def _() -> Any:
    return _run(lambda t: 3.0)


@bad("session-fetch-none-in-list", sg.InvalidArgumentError, ValueError, "fetch", "NoneType")
def _() -> Any:
    return _run(lambda t: [t["read"], None])


@bad("session-fetch-other-graph", sg.InvalidArgumentError, ValueError, "'foreign:0'", "graph")
def _() -> Any:
    return _run(lambda t: _other_graph_tensor())


@bad("session-fetch-unknown-name", sg.SymgradError, (KeyError, ValueError), "nope")
def _() -> Any:
    return _run(lambda t: "nope:0")


@bad("session-no-default-session", sg.InvalidArgumentError, ValueError, "default session")
def _() -> Any:
    return sg.constant(1.0).eval()


@bad("session-assign-twice", sg.InvalidArgumentError, ValueError, "'w:0'", "twice")
def _() -> Any:
    return _run(
        lambda t: [t["w"].assign(np.ones(3, np.float32)), t["w"].assign(np.zeros(3, np.float32))]
    )


@bad("session-assign-runtime-shape", sg.InvalidArgumentError, ValueError, "'v:0'", "(4,)", "(3,)")
def _() -> Any:
    v = sg.Variable(np.zeros(3), name="v")
    p = sg.placeholder(sg.float64, shape=[None], name="p")
    with sg.Session() as sess:
        sess.run(sg.global_variables_initializer())
        return sess.run(v.assign(p), {p: np.ones(4)})


def _v() -> sg.Variable:
    return sg.Variable(np.zeros(3, np.float32), name="v")


@bad("assign-wrong-shape", sg.ShapeError, ValueError, "Assign", "'v:0'", "(3,)", "(4,)")
def _() -> Any:
    return _v().assign(np.ones(4, np.float32))


@bad(
    "assign-wrong-shape-tensor",
    sg.ShapeError,
    ValueError,
    "Assign",
    "'v:0'",
    "(3,)",
    "'q:0'",
    "(2, 3)",
)
def _() -> Any:
    return sg.assign(_v(), sg.placeholder(sg.float32, shape=[2, 3], name="q"))


@bad(
    "assign-unknown-rank",
    sg.ShapeError,
    ValueError,
    "Assign",
    "'v:0'",
    "(3,)",
    "'q:0'",
    "<unknown>",
)
def _() -> Any:
    return sg.assign(_v(), sg.placeholder(sg.float32, name="q"))


@bad("assign-wrong-dtype", sg.DTypeError, TypeError, "Assign", "'v:0'", "float32", "'k:0'", "int32")
def _() -> Any:
    return _v().assign(sg.placeholder(sg.int32, shape=[3], name="k"))


@bad("assign-non-numeric-value", sg.DTypeError, TypeError, "Assign", "'v:0'", "'a'")
def _() -> Any:
    return _v().assign("a")


@bad("assign-to-non-variable", sg.InvalidArgumentError, ValueError, "Assign", "'x:0'")
def _() -> Any:
    return sg.assign(_x(), 1.0)


@bad("variable-unknown-shape", sg.ShapeError, ValueError, "Variable", "'p:0'", "(None,)")
def _() -> Any:
    return sg.Variable(sg.placeholder(sg.float32, shape=[None], name="p"))


# --- 9. compile ---------------------------------------------------------------------------------------------


def _model() -> dict[str, Any]:
    xs = sg.placeholder(sg.float32, shape=[2], name="xs")
    w = sg.Variable(1.5, name="weight")
    hidden = sg.multiply(xs, w, name="hidden")
    return {"xs": xs, "w": w, "hidden": hidden, "out": sg.reduce_sum(hidden + 1.0, name="out")}


@bad("compile-output-float", sg.InvalidArgumentError, ValueError, "compile", "outputs", "float")
def _() -> Any:
    return sg.compile(3.0)


@bad(
    "compile-output-str-in-list",
    sg.InvalidArgumentError,
    ValueError,
    "compile",
    "outputs",
    "str",
    "'a'",
)
def _() -> Any:
    return sg.compile([_model()["out"], "a"])


@bad("compile-output-in-dict", sg.InvalidArgumentError, ValueError, "compile", "outputs", "int")
def _() -> Any:
    return sg.compile({"out": _model()["out"], "bad": 1})


@bad("compile-only-none-outputs", sg.InvalidArgumentError, ValueError, "compile", "outputs")
def _() -> Any:
    return sg.compile([None])


@bad(
    "compile-missing-placeholder", sg.NotCompilableError, ValueError, "compile", "'xs:0'", "inputs"
)
def _() -> Any:
    m = _model()
    return sg.compile(m["out"], inputs=[m["w"]])


@bad("compile-missing-variable", sg.NotCompilableError, ValueError, "compile", "weight:0", "inputs")
def _() -> Any:
    m = _model()
    return sg.compile(m["out"], inputs=[m["xs"]])


@bad("compile-input-twice", sg.InvalidArgumentError, ValueError, "compile", "twice", "'xs:0'")
def _() -> Any:
    m = _model()
    return sg.compile(m["out"], inputs=[m["xs"], m["w"], m["xs"]])


@bad("compile-input-not-a-tensor", sg.InvalidArgumentError, ValueError, "compile", "inputs", "str")
def _() -> Any:
    m = _model()
    return sg.compile(m["out"], inputs=[m["xs"], m["w"], "xs"])


@bad(
    "compile-outputs-across-graphs",
    sg.GraphMismatchError,
    ValueError,
    "compile",
    "'foreign:0'",
    "graph",
)
def _() -> Any:
    return sg.compile([_model()["out"], _other_graph_tensor()])


@bad(
    "compile-input-other-graph",
    sg.GraphMismatchError,
    ValueError,
    "compile",
    "'foreign:0'",
    "graph",
)
def _() -> Any:
    m = _model()
    return sg.compile(m["out"], inputs=[m["xs"], m["w"], _other_graph_tensor()])


# --- 10. the generated function -------------------------------------------------------------------------------


def _compiled() -> sg.CompiledModule:
    m = _model()
    return sg.compile(
        {"out": m["out"], "grad": sg.gradients(m["out"], m["w"])[0]}, name="bad_inputs"
    )


_GENERATED = [
    ("wrong-shape", lambda call: call([1.0, 2.0, 3.0], 1.0), ["'xs'", "(2,)", "(3,)"]),
    ("wrong-rank", lambda call: call([[1.0, 2.0]], 1.0), ["'xs'", "(2,)", "(1, 2)"]),
    ("variable-wrong-shape", lambda call: call([1.0, 2.0], [1.0, 2.0]), ["'weight'", "()", "(2,)"]),
    ("string", lambda call: call("ab", 1.0), ["'xs'", "float32", "str"]),
    ("list-of-strings", lambda call: call(["1", "2"], 1.0), ["'xs'", "float32"]),
    ("mixed-list", lambda call: call([1.0, "a"], 1.0), ["'xs'", "float32"]),
    ("none", lambda call: call(None, 1.0), ["'xs'", "float32", "NoneType"]),
    ("object", lambda call: call([1.0, 2.0], object()), ["'weight'", "float32", "object"]),
    ("ragged", lambda call: call([[1.0], [2.0, 3.0]], 1.0), ["'xs'"]),
]
# compile()'s wrapper turns the module's own ValueError into a symgrad one (still a ValueError);
# the standalone function, which imports nothing of symgrad, raises the plain ValueError.
_SHAPES = {"wrong-shape", "wrong-rank", "variable-wrong-shape"}
for _id, _call, _words in _GENERATED:
    add_case(
        f"generated-wrapper-{_id}",
        lambda call=_call: call(_compiled()),
        sg.ShapeError if _id in _SHAPES else sg.InvalidArgumentError,
        ValueError,
        "bad_inputs",
        *_words,
    )
    add_case(
        f"generated-function-{_id}",
        lambda call=_call: call(_compiled().function),
        None,
        ValueError,
        *_words,
    )


@bad("generated-wrapper-by-name-wrong-shape", sg.ShapeError, ValueError, "'xs'", "(2,)", "(4,)")
def _() -> Any:
    return _compiled()(xs=np.ones(4), weight=1.0)


@bad("generated-wrapper-missing-input", sg.SymgradError, TypeError, "bad_inputs", "xs")
def _() -> Any:
    return _compiled()(weight=1.0)


@bad("generated-wrapper-unknown-input", sg.SymgradError, TypeError, "bad_inputs", "'nope'")
def _() -> Any:
    return _compiled()([1.0, 2.0], nope=1.0)


@bad("generated-wrapper-too-many-inputs", sg.SymgradError, TypeError, "bad_inputs", "2", "3")
def _() -> Any:
    return _compiled()([1.0, 2.0], 1.0, 3.0)


# --- 11. indexing, gather, one_hot ---------------------------------------------------------------------------


@bad(
    "index-with-a-vector-tensor",
    sg.InvalidArgumentError,
    ValueError,
    "StridedSlice",
    "'x:0'",
    "'t:0'",
    "gather",
)
def _() -> Any:
    # A scalar index computed at run time takes a row (x[t] in a loop); a vector does not.
    return _x()[sg.placeholder(sg.int32, [2], name="t")]


@bad("index-too-many", sg.ShapeError, ValueError, "StridedSlice", "'x:0'", "(2, 3)")
def _() -> Any:
    return _x()[0, 1, 2]


@bad("index-float", sg.InvalidArgumentError, ValueError, "StridedSlice", "'x:0'", "1.5")
def _() -> Any:
    return _x()[1.5]


@bad("index-float-slice-bound", sg.InvalidArgumentError, ValueError, "StridedSlice", "'x:0'", "0.5")
def _() -> Any:
    return _x()[0.5:]


@bad("index-str", sg.InvalidArgumentError, ValueError, "StridedSlice", "'x:0'", "'a'")
def _() -> Any:
    return _x()["a"]


@bad("index-out-of-bounds", sg.ShapeError, ValueError, "StridedSlice", "'x:0'", "index 5", "size 2")
def _() -> Any:
    return _x()[5]


@bad("index-two-ellipses", sg.InvalidArgumentError, ValueError, "StridedSlice", "'x:0'", "...")
def _() -> Any:
    return _x()[..., 0, ...]


@bad("index-zero-step", sg.InvalidArgumentError, ValueError, "StridedSlice", "'x:0'", "step 0")
def _() -> Any:
    return _x()[::0]


@bad("index-unknown-rank-two-ellipses", sg.InvalidArgumentError, ValueError, "StridedSlice")
def _() -> Any:
    return sg.placeholder(sg.float32, name="u")[..., 0, ...]


@bad("gather-float-indices", sg.DTypeError, TypeError, "GatherV2", "'idx:0'", "float32")
def _() -> Any:
    return sg.gather(_x(), sg.constant([0.0, 1.0], name="idx"))


@bad("gather-float-list-indices", sg.DTypeError, TypeError, "GatherV2", "indices", "float32")
def _() -> Any:
    return sg.gather(_x(), [0.5, 1.0])


@bad(
    "gather-constant-index-out-of-range",
    sg.SymgradError,
    (ValueError, IndexError),
    "GatherV2",
    "'x:0'",
    "5",
)
def _() -> Any:
    # A constant index past the end of axis 0 (size 2) is known to be wrong before run time.
    f = sg.compile(sg.gather(_x(), [5]))
    return f(np.zeros((2, 3), np.float32))


@bad("one_hot-float-indices", sg.DTypeError, TypeError, "OneHot", "'idx:0'", "float32")
def _() -> Any:
    return sg.one_hot(sg.constant([0.0, 1.0], name="idx"), 3)


@bad("one_hot-negative-depth", sg.SymgradError, ValueError, "OneHot", "'idx:0'", "-1")
def _() -> Any:
    return sg.one_hot(sg.constant([0, 1], name="idx"), -1)


# --- 12. optimizers ------------------------------------------------------------------------------------------------


@bad(
    "minimize-no-gradient",
    sg.InvalidArgumentError,
    ValueError,
    "GradientDescent",
    "no gradients",
    "w:0",
    "'loss:0'",
)
def _() -> Any:
    w = sg.Variable(1.0, name="w")
    loss = sg.identity(sg.stop_gradient(w) * 2.0, name="loss")
    return sg.train.GradientDescentOptimizer(0.1).minimize(loss)


@bad(
    "minimize-int-variable-only", sg.InvalidArgumentError, ValueError, "Adam", "no gradients", "n:0"
)
def _() -> Any:
    n = sg.Variable(3, name="n")
    return sg.train.AdamOptimizer().minimize(sg.cast(n, sg.float32) * 2.0)


@bad(
    "minimize-no-variables", sg.InvalidArgumentError, ValueError, "GradientDescent", "no variables"
)
def _() -> Any:
    return sg.train.GradientDescentOptimizer(0.1).minimize(sg.reduce_sum(_x()))


@bad(
    "minimize-loss-not-a-tensor",
    sg.InvalidArgumentError,
    ValueError,
    "GradientDescent",
    "loss",
    "float",
)
def _() -> Any:
    sg.Variable(1.0, name="w")
    return sg.train.GradientDescentOptimizer(0.1).minimize(3.0)


@bad(
    "compute_gradients-placeholder-in-var_list",
    sg.InvalidArgumentError,
    ValueError,
    "GradientDescent",
    "var_list",
    "'x:0'",
)
def _() -> Any:
    w = sg.Variable(1.0, name="w")
    x = _x()
    return sg.train.GradientDescentOptimizer(0.1).compute_gradients(
        sg.reduce_sum(x * w), var_list=[w, x]
    )


@bad(
    "compute_gradients-str-in-var_list",
    sg.InvalidArgumentError,
    ValueError,
    "Momentum",
    "var_list",
    "str",
)
def _() -> Any:
    w = sg.Variable(1.0, name="w")
    return sg.train.MomentumOptimizer(0.1, 0.9).compute_gradients(w * 2.0, var_list=[w, "w"])


@bad(
    "apply_gradients-all-none",
    sg.InvalidArgumentError,
    ValueError,
    "GradientDescent",
    "no gradients",
    "w:0",
)
def _() -> Any:
    w = sg.Variable(1.0, name="w")
    return sg.train.GradientDescentOptimizer(0.1).apply_gradients([(None, w)])


# --- other ops -----------------------------------------------------------------------------------------------------


@bad("softmax-int", sg.DTypeError, TypeError, "Softmax", "'i:0'", "int32")
def _() -> Any:
    return sg.nn.softmax(_i())


@bad(
    "cross-entropy-shapes",
    sg.ShapeError,
    ValueError,
    "SoftmaxCrossEntropyWithLogits",
    "'labels:0'",
    "(2, 4)",
    "'x:0'",
    "(2, 3)",
)
def _() -> Any:
    return sg.nn.softmax_cross_entropy_with_logits_v2(
        labels=sg.placeholder(sg.float32, shape=[2, 4], name="labels"), logits=_x()
    )


@bad(
    "sparse-cross-entropy-float-labels",
    sg.DTypeError,
    TypeError,
    "SparseSoftmaxCrossEntropyWithLogits",
    "'labels:0'",
    "float32",
)
def _() -> Any:
    return sg.nn.sparse_softmax_cross_entropy_with_logits(
        labels=sg.placeholder(sg.float32, shape=[2], name="labels"), logits=_x()
    )


@bad(
    "bias_add-wrong-size",
    sg.ShapeError,
    ValueError,
    "BiasAdd",
    "'bias:0'",
    "(4,)",
    "'x:0'",
    "(2, 3)",
)
def _() -> Any:
    return sg.nn.bias_add(_x(), sg.placeholder(sg.float32, shape=[4], name="bias"))


@bad("einsum-operand-count", sg.InvalidArgumentError, ValueError, "Einsum", "'ij,jk->ik'")
def _() -> Any:
    return sg.einsum("ij,jk->ik", _x())


# --- 13. checkpoints, loading and exporting values, summaries -------------------------------------------------


def _saved(checkpoint_format: str | None = None, **variables: Any) -> str:
    """A checkpoint of ``variables`` (name -> initial value) written from a graph of its own."""
    folder = tempfile.mkdtemp(prefix="symgrad-errors-")
    with sg.Graph().as_default():
        for name, value in variables.items():
            sg.Variable(value, name=name)
        with sg.Session() as sess:
            sess.run(sg.global_variables_initializer())
            saver = sg.train.Saver(checkpoint_format=checkpoint_format)
            return saver.save(sess, os.path.join(folder, "model.ckpt"))


def _restore_into(prefix: str, **variables: Any) -> Any:
    for name, value in variables.items():
        sg.Variable(value, name=name)
    with sg.Session() as sess:
        return sg.train.Saver().restore(sess, prefix)


@bad(
    "restore-missing-checkpoint", sg.errors.CheckpointError, ValueError, "no checkpoint", "nowhere"
)
def _() -> Any:
    return _restore_into("/nonexistent/nowhere/model.ckpt", w=np.zeros(3))


@bad("restore-missing-variable", sg.errors.CheckpointError, ValueError, "'v:0'", "w")
def _() -> Any:
    return _restore_into(_saved(w=np.zeros(3)), w=np.zeros(3), v=np.zeros(2))


@bad("restore-wrong-shape", sg.ShapeError, ValueError, "'w:0'", "(4,)", "(3,)")
def _() -> Any:
    return _restore_into(_saved(w=np.zeros(3)), w=np.zeros(4))


@bad("restore-wrong-dtype", sg.DTypeError, TypeError, "'w:0'", "float32", "float64")
def _() -> Any:
    return _restore_into(_saved(w=np.zeros(3)), w=np.zeros(3, np.float32))


@bad(
    "restore-truncated",
    sg.errors.CheckpointError,
    ValueError,
    "truncated",
    "model.ckpt.data-00000-of-00001",
    "'w'",
)
def _() -> Any:
    prefix = _saved(w=np.zeros(1000))
    with open(prefix + ".data-00000-of-00001", "r+b") as handle:
        handle.truncate(100)
    return _restore_into(prefix, w=np.zeros(1000))


@bad("restore-truncated-npz", sg.errors.CheckpointError, ValueError, "truncated", "model.ckpt.npz")
def _() -> Any:
    prefix = _saved(checkpoint_format="npz", w=np.zeros(1000))
    with open(prefix + ".npz", "r+b") as handle:
        handle.truncate(100)
    return _restore_into(prefix, w=np.zeros(1000))


@bad(
    "restore-none", sg.errors.CheckpointError, ValueError, "save_path is None", "latest_checkpoint"
)
def _() -> Any:
    return _restore_into(None, w=np.zeros(3))  # type: ignore[arg-type]


@bad("save-folder-is-a-file", sg.errors.FileAccessError, OSError, "a file is in the way")
def _() -> Any:
    # A missing folder is made, as TF1 makes it; a file where it should be is an error.
    in_the_way = tempfile.mkdtemp(prefix="symgrad-errors-") + "/folder"
    Path(in_the_way).write_text("not a folder")
    w = sg.Variable(1.0, name="w")
    with sg.Session() as sess:
        sess.run(w.initializer)
        return sg.train.Saver().save(sess, in_the_way + "/model.ckpt")


@bad("saver-no-variables", sg.InvalidArgumentError, ValueError, "Saver", "no variables")
def _() -> Any:
    return sg.train.Saver()


@bad("saver-var-list-not-variables", sg.InvalidArgumentError, ValueError, "Saver", "Tensor")
def _() -> Any:
    return sg.train.Saver([sg.constant(1.0) * 2.0])


@bad("variable-load-wrong-shape", sg.ShapeError, ValueError, "load", "'w:0'", "(2,)", "(3,)")
def _() -> Any:
    w = sg.Variable(np.zeros(3), name="w")
    with sg.Session() as sess:
        w.load([1.0, 2.0], sess)


@bad("variable-load-wrong-dtype", sg.DTypeError, TypeError, "load", "'w:0'", "float32", "complex")
def _() -> Any:
    w = sg.Variable(np.zeros(3, np.float32), name="w")
    with sg.Session() as sess:
        w.load(np.ones(3, np.complex64), sess)


@bad("compile-values-missing-variable", sg.InvalidArgumentError, ValueError, "values=", "'b:0'")
def _() -> Any:
    x = sg.placeholder(sg.float32, name="x")
    w, b = sg.Variable(1.0, name="w"), sg.Variable(1.0, name="b")
    return sg.compile(x * w + b, values={w: 2.0})


@bad("compile-values-wrong-shape", sg.ShapeError, ValueError, "values", "'w:0'", "(2,)", "()")
def _() -> Any:
    x = sg.placeholder(sg.float32, name="x")
    w = sg.Variable(1.0, name="w")
    return sg.compile(x * w, values={"w": [1.0, 2.0]})


@bad(
    "compile-values-not-a-session", sg.InvalidArgumentError, ValueError, "values=", "Session", "int"
)
def _() -> Any:
    x = sg.placeholder(sg.float32, name="x")
    return sg.compile(x * sg.Variable(1.0, name="w"), values=3)


@bad(
    "summary-without-tensorboardx", sg.errors.MissingExtraError, ImportError, "symgrad[tensorboard]"
)
def _() -> Any:
    # as if tensorboardX were not installed: a None entry in sys.modules fails its import
    sg.summary._library.cache_clear()
    saved = {m: sys.modules.pop(m) for m in list(sys.modules) if m.startswith("tensorboardX")}
    sys.modules["tensorboardX"] = None  # type: ignore[assignment]
    try:
        return sg.summary.scalar("loss", sg.constant(1.0))
    finally:
        del sys.modules["tensorboardX"]
        sys.modules.update(saved)
        sg.summary._library.cache_clear()


@bad("summary-scalar-of-a-vector", sg.InvalidArgumentError, ValueError, "scalar", "'v:0'", "(3,)")
def _() -> Any:
    return sg.summary.scalar("loss", sg.constant([1.0, 2.0, 3.0], name="v"))


@bad(
    "summary-image-wrong-rank", sg.InvalidArgumentError, ValueError, "image", "'img:0'", "channels"
)
def _() -> Any:
    return sg.summary.image("picture", sg.constant(np.zeros((2, 2)), name="img"))


@bad("summary-merge-not-summaries", sg.InvalidArgumentError, ValueError, "merge", "Tensor")
def _() -> Any:
    return sg.summary.merge([sg.constant(1.0)])


# --- 11. files: folders that cannot be written, paths of the wrong kind ----------------------------------
# /sys refuses new entries even to root, so these need no mocking and no particular user.

_UNWRITABLE = "/sys/symgrad-cannot-write-here"


def _tiny() -> sg.Tensor:
    return sg.placeholder(sg.float32, shape=[2], name="x") * 2.0


@bad("codegen-dir-unwritable", sg.FileAccessError, PermissionError, _UNWRITABLE)
def _codegen_dir_unwritable() -> None:
    x = sg.placeholder(sg.float32, shape=[2], name="x")
    with sg.Session(codegen_dir=_UNWRITABLE) as sess:
        sess.run(x * 2.0, {x: [1.0, 2.0]})


@bad("compile-folder-unwritable", sg.FileAccessError, PermissionError, "/sys/f.py")
def _compile_folder_unwritable() -> None:
    sg.compile(_tiny(), path="/sys/f.py")


@bad("cache-dir-unwritable", sg.FileAccessError, PermissionError, _UNWRITABLE)
def _cache_dir_unwritable() -> None:
    saved = os.environ.get("SYMGRAD_CACHE_DIR")
    os.environ["SYMGRAD_CACHE_DIR"] = _UNWRITABLE
    try:
        sg.compile(_tiny())
    finally:
        if saved is None:
            del os.environ["SYMGRAD_CACHE_DIR"]
        else:
            os.environ["SYMGRAD_CACHE_DIR"] = saved


@bad("compile-path-is-a-folder", sg.FileAccessError, IsADirectoryError, "f.py", "folder")
def _compile_path_is_a_folder() -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "f.py").mkdir()
        sg.compile(_tiny(), path=Path(folder) / "f.py")


@bad("codegen-dir-is-a-file", sg.FileAccessError, FileExistsError, "generated", "file")
def _codegen_dir_is_a_file() -> None:
    x = sg.placeholder(sg.float32, shape=[2], name="x")
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "generated").write_text("not a folder")
        with sg.Session(codegen_dir=Path(folder) / "generated") as sess:
            sess.run(x * 2.0, {x: [1.0, 2.0]})


# --- 12. run-time shape and index errors in Session.run: the op and tensor that failed ---------------------


def _run_fed(fetch: Callable[..., sg.Tensor], *fed: tuple[list, Any]) -> None:
    """Run ``fetch(p, q, ...)`` on float32 placeholders of the given static shapes, fed arrays."""
    holders = [
        sg.placeholder(sg.float32, shape, name=n) for (shape, _), n in zip(fed, "pq", strict=False)
    ]
    with sg.Session() as sess:
        sess.run(fetch(*holders), {h: value for h, (_, value) in zip(holders, fed, strict=True)})


_RUN_TIME = [
    ("reshape", lambda p: sg.reshape(p, [2, 3], name="reshaped"), [([None], np.ones(5))],
     ValueError, ["Reshape", "reshaped:0", "size 5", "p: float32[5]"]),
    ("matmul", lambda p, q: sg.matmul(p, q, name="product"),
     [([None, None], np.ones((2, 3))), ([None, None], np.ones((2, 3)))],
     ValueError, ["MatMul", "product:0", "float32[2, 3]"]),
    ("broadcast", lambda p, q: sg.add(p, q, name="total"),
     [([None], np.ones(2)), ([None], np.ones(3))],
     ValueError, ["Add", "total:0", "p: float32[2]", "q: float32[3]"]),
    ("concat", lambda p, q: sg.concat([p, q], 0, name="joined"),
     [([None, None], np.ones((2, 2))), ([None, None], np.ones((2, 3)))],
     ValueError, ["ConcatV2", "joined:0", "float32[2, 2]", "float32[2, 3]"]),
    ("gather", lambda p: sg.gather(p, [7], name="picked"), [([None], np.ones(5))],
     IndexError, ["GatherV2", "picked:0", "index 7", "p: float32[5]"]),
    ("slice", lambda p: sg.identity(p[7], name="element"), [([None], np.ones(5))],
     IndexError, ["element:0", "index 7", "p: float32[5]"]),
]  # fmt: skip
for _id, _fetch, _fed, _builtin, _words in _RUN_TIME:
    add_case(
        f"run-time-{_id}",
        lambda fetch=_fetch, fed=_fed: _run_fed(fetch, *fed),
        sg.ExecutionError,
        _builtin,
        "failed at run time",
        *_words,
    )


@bad("run-time-compiled-call", sg.ExecutionError, ValueError, "Reshape", "size 5")
def _run_time_in_compiled_call() -> None:
    x = sg.placeholder(sg.float32, name="x")
    sg.compile(sg.reshape(x, [2, 3]), name="reshape_call")(np.ones(5))


# --- 13. more misuse: integer powers, shapes that are not ints, feeds that are not dicts ------------------


@bad("pow-int-negative-exponent", sg.InvalidArgumentError, ValueError, "Pow", "'n:0'", "negative")
def _pow_int_negative() -> None:
    sg.pow(sg.placeholder(sg.int32, name="n"), -1)


@bad("pow-int-negative-constant", sg.InvalidArgumentError, ValueError, "Pow", "negative")
def _pow_int_negative_constant() -> None:
    sg.placeholder(sg.int32, name="n") ** sg.constant([1, -2])


@bad("reshape-shape-of-strings", sg.DTypeError, TypeError, "Reshape", "'x:0'", "str", "'a'")
def _reshape_strings() -> None:
    sg.reshape(_x(), ["a"])


@bad("tile-multiples-of-strings", sg.DTypeError, TypeError, "Tile", "'x:0'", "str", "'a'")
def _tile_strings() -> None:
    sg.tile(_x(), ["a", 1])


@bad("run-feed-dict-is-a-list", sg.ArgumentTypeError, TypeError, "feed_dict", "list")
def _feed_list() -> None:
    x = _x()
    with sg.Session() as sess:
        sess.run(x * 2.0, [(x, np.ones((2, 3)))])


# --- the test -----------------------------------------------------------------------------------------------------

_LIBRARIES = ("sympy", "numpy", "jinja2")
_LIBRARY_DIRS = tuple(os.path.dirname(module.__file__) + os.sep for module in (sympy, np, jinja2))


def _assert_no_library_exception(error: BaseException) -> None:
    """Neither the exception nor anything in its displayed chain is, or was raised inside, SymPy/NumPy/Jinja."""
    shown: BaseException | None = error
    while shown is not None:
        module = type(shown).__module__
        assert module == "builtins" or module.startswith("symgrad"), (
            f"{type(shown).__qualname__} from {module} leaks: {shown!r}"
        )
        assert not module.startswith(_LIBRARIES)
        frames = traceback.extract_tb(shown.__traceback__)
        if frames:
            assert not frames[-1].filename.startswith(_LIBRARY_DIRS), (
                f"raised inside a library: {frames[-1].filename}:{frames[-1].lineno}: {shown!r}"
            )
        if isinstance(shown, sg.ExecutionError):
            break  # it explains the NumPy error it chains, which was raised inside NumPy on purpose
        shown = shown.__cause__ or (None if shown.__suppress_context__ else shown.__context__)


def _params() -> list[Any]:
    return [
        pytest.param(
            case,
            id=case_id,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[case_id])]
            if case_id in KNOWN_BUGS
            else [],
        )
        for case_id, case in CASES.items()
    ]


@pytest.mark.parametrize("case", _params())
def test_bad_input(case: Bad) -> None:
    with sg.Graph().as_default(), pytest.raises(Exception) as info:
        case.trigger()
    error = info.value
    _assert_no_library_exception(error)
    expected = case.builtin if isinstance(case.builtin, tuple) else (case.builtin,)
    assert all(b.__module__ == builtins.__name__ and issubclass(b, Exception) for b in expected)
    assert isinstance(error, expected), (
        f"{type(error).__qualname__} is not a {' or '.join(b.__name__ for b in expected)}: {error}"
    )
    if case.error is None:  # the generated module: a plain ValueError, not a symgrad class
        assert type(error) is ValueError, f"{type(error).__qualname__}: {error}"
    else:
        assert isinstance(error, sg.SymgradError), (
            f"{type(error).__qualname__} is not a SymgradError: {error}"
        )
        assert isinstance(error, case.error), (
            f"{type(error).__qualname__} is not a {case.error.__name__}: {error}"
        )
    message = str(error)
    for word in case.words:
        options = word if isinstance(word, tuple) else (word,)
        assert any(option in message for option in options), f"{word!r} not in {message!r}"


def test_known_bugs_name_existing_cases() -> None:
    """Every id in KNOWN_BUGS is a case (a typo would silently un-mark it)."""
    assert sorted(set(KNOWN_BUGS) - set(CASES)) == []


def test_symgrad_errors_derive_from_the_matching_builtin() -> None:
    expected = {
        sg.ShapeError: ValueError,
        sg.DTypeError: TypeError,
        sg.InvalidArgumentError: ValueError,
        sg.GraphMismatchError: ValueError,
        sg.NotCompilableError: ValueError,
        sg.FailedPreconditionError: RuntimeError,
        sg.SessionClosedError: RuntimeError,
        sg.errors.CheckpointError: ValueError,
        sg.errors.MissingExtraError: ImportError,
        sg.ArgumentTypeError: TypeError,
        sg.FileAccessError: OSError,
        sg.errors.FilePermissionError: PermissionError,
        sg.errors.PathIsADirectoryError: IsADirectoryError,
        sg.errors.PathNotADirectoryError: NotADirectoryError,
        sg.errors.PathExistsError: FileExistsError,
        sg.errors.ExecutionValueError: ValueError,
        sg.errors.ExecutionIndexError: IndexError,
        sg.errors.ExecutionArithmeticError: ArithmeticError,
    }
    for error, builtin in expected.items():
        assert issubclass(error, sg.SymgradError) and issubclass(error, builtin), error
