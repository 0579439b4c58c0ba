"""Neural-network ops: softmax, log-softmax, cross-entropies, local response normalization,
and small helpers.

Softmax, log-softmax and the softmax cross-entropy are ops of their own, with
TF's gradient rules, and print in the max-shifted forms that stay finite for
logits of ±1000. Local response normalization is a windowed channel sum (an op of
its own) and elementwise ops. The rest are compositions of other ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, default_names
from ..shapes import (
    Shape,
    broadcast_shapes,
    format_shape,
    is_fully_defined,
    shapes_compatible,
    signature,
)
from . import functions as F
from .base import _op, _static_ints
from .checks import ensure_axis, ensure_in_range, ensure_same_dims, ensure_shape
from .creation import one_hot_like, one_hot_of_labels
from .creation import range as _range
from .elementwise import (
    add,
    add_n,
    cast,
    equal,
    exp,
    greater,
    greater_equal,
    identity,
    is_finite,
    less,
    less_equal,
    log,
    logical_and,
    logistic_loss,
    maximum,
    minimum,
    multiply,
    ones_like,
    rsqrt,
    sqrt,
    square,
    squared_difference,
    stop_gradient,
    weighted_logistic_loss,
    where,
    zero_gradient,
    zeros_like,
)
from .elementwise import clip_by_value as _clip_values
from .functions import helper
from .gathering import from_slices, gathered_slices
from .joining import broadcast_to, stack
from .linalg import matmul
from .reductions import broadcast_gradient, reduce_all, reduce_max, reduce_mean, reduce_sum
from .registry import OpDef, register
from .reshaping import expand_dims, squeeze
from .sources import convert_to_tensor


def _class_axis(logits: Tensor, axis: int, op: str, any_axis: bool = False) -> int:
    """``axis`` of ``logits``, from 0; of a rank known only at run time, as given: -1 (the last
    axis of whatever rank arrives) or, with ``any_axis`` (softmax, whose reductions NumPy reads
    at run time), any axis."""
    if logits.shape is None:
        if axis == -1 or any_axis:
            return int(axis)
        raise ShapeError(
            f"symgrad: {op}: logits '{logits.name}' of unknown rank take only axis -1, got {axis}"
        )
    rank = len(logits.shape)
    if not -rank <= axis < rank:
        raise ShapeError(
            f"symgrad: {op}: axis {axis} is out of range for '{logits.name}' of rank {rank}"
        )
    return axis % rank


def _floating(tensor: Tensor, op: str) -> None:
    if not tensor.dtype.is_floating:
        raise DTypeError(
            f"symgrad: {op}: '{tensor.name}' must be floating point, got {tensor.dtype.name}"
        )


def _shifted(logits: sp.Expr, axis: int) -> sp.Expr:
    """``logits - max(logits)`` along ``axis``: every exp of it is at most 1."""
    return logits - F.ReduceMax(logits, F.axes_tuple((axis,)), sp.Integer(1))


def _log_softmax_expr(logits: sp.Expr, axis: int) -> sp.Expr:
    shifted = _shifted(logits, axis)
    return shifted - sp.log(F.ReduceSum(sp.exp(shifted), F.axes_tuple((axis,)), sp.Integer(1)))


def _softmax_expr(logits: sp.Expr, axis: int) -> sp.Expr:
    exponentials = sp.exp(_shifted(logits, axis))
    return exponentials / F.ReduceSum(exponentials, F.axes_tuple((axis,)), sp.Integer(1))


def _unary_op(
    op_type: str, logits: Any, axis: int, name: str | None, checked: bool = False
) -> Tensor:
    """``op_type`` of ``logits``; ``checked``: a gradient's, of logits its forward op checked."""
    logits = convert_to_tensor(logits)
    _floating(logits, op_type)
    position = _class_axis(logits, axis, op_type, any_axis=True)
    if logits.shape is None and not checked:  # NumPy would take a 0-d value; TF refuses it
        logits = ensure_axis(logits, position, op_type=op_type)
    op = logits.graph.create_op(
        op_type, [logits], {"axis": position}, [(logits.shape, logits.dtype)], name=name
    )
    return op.outputs[0]


def softmax(logits: Any, axis: int = -1, name: str | None = None, dim: int | None = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis``, computed without overflow.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     f = sg.compile(sg.nn.softmax(sg.constant([[1000.0, 0.0, -1000.0]])))
    >>> f().tolist()
    [[1.0, 0.0, 0.0]]
    """
    return _unary_op("Softmax", logits, axis if dim is None else dim, name)


def log_softmax(
    logits: Any, axis: int = -1, name: str | None = None, dim: int | None = None
) -> Tensor:
    """``x - log(sum(exp(x)))`` along ``axis``, computed without overflow."""
    return _unary_op("LogSoftmax", logits, axis if dim is None else dim, name)


def _softmax_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    y, axis = op.outputs[0], op.attrs["axis"]
    return [(grad - reduce_sum(grad * y, axis, keepdims=True)) * y]


def _log_softmax_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    y, axis = op.outputs[0], op.attrs["axis"]
    return [grad - exp(y) * reduce_sum(grad, axis, keepdims=True)]


register(
    OpDef(
        "Softmax",
        lower=lambda op, xs: _softmax_expr(xs[0], op.attrs["axis"]),
        gradient=_softmax_gradient,
        signature=lambda op, sigs: sigs[0],
    )
)
register(
    OpDef(
        "LogSoftmax",
        lower=lambda op, xs: _log_softmax_expr(xs[0], op.attrs["axis"]),
        gradient=_log_softmax_gradient,
        signature=lambda op, sigs: sigs[0],
    )
)


# --- cross-entropies ------------------------------------------------------------------------


def _cross_entropy(
    labels: Any, logits: Any, axis: int, labels_gradient: bool, name: str | None, op_name: str
) -> Tensor:
    logits = convert_to_tensor(logits)
    _floating(logits, op_name)
    labels = (
        convert_to_tensor(labels, dtype=logits.dtype) if not isinstance(labels, Tensor) else labels
    )
    if labels.dtype != logits.dtype:
        # TF casts the labels to the logits' dtype (integer one-hot labels, float64 labels of
        # float32 logits); no gradient reaches labels that are not floats.
        labels = cast(labels, logits.dtype)
    # Labels of unknown rank take the logits' shape, checked when run (TF's shape function
    # merges the two); a size-1 batch still broadcasts, as in TF's kernel. The gradient of the
    # logits then has their shape, which an optimizer's update of a variable needs.
    if labels.shape is None and logits.shape is not None:
        labels = ensure_shape(labels, logits.shape)
    # Logits of unknown rank are checked against the labels when the graph runs; the class
    # axis is then the last one, whatever the rank at run time.
    if labels.shape is not None and logits.shape is not None:
        if _broadcasts_to(labels.shape, logits.shape):
            # TF's kernel broadcasts labels against logits (its label-broadcast test: [1, 4]
            # labels for [3, 4] logits); the gradient of broadcast_to sums the labels' gradient
            # back.
            labels = broadcast_to(labels, logits.shape)
        if labels.shape is None or not shapes_compatible(labels.shape, logits.shape):
            raise ShapeError(
                f"symgrad: {op_name}: labels '{labels.name}' {format_shape(labels.shape)} and "
                f"logits '{logits.name}' {format_shape(logits.shape)} must have the same shape"
            )
    position = _class_axis(logits, axis, op_name)
    if logits.shape is None:  # NumPy would take 0-d logits; TF's kernel refuses them
        logits = ensure_axis(logits, position, op_type=op_name)
    shape = (
        None
        if logits.shape is None
        else tuple(d for i, d in enumerate(logits.shape) if i != position)
    )
    op = logits.graph.create_op(
        "SoftmaxCrossEntropyWithLogits",
        [labels, logits],
        {"axis": position, "labels_gradient": labels_gradient},
        [(shape, logits.dtype)],
        name=name,
    )
    return op.outputs[0]


def _broadcasts_to(shape: Shape, target: Shape) -> bool:
    """A static ``shape`` that broadcasts to the fully defined ``target`` without being it."""
    if shape is None or target is None or not is_fully_defined(target) or shape == target:
        return False
    try:
        return broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def softmax_cross_entropy_with_logits_v2(
    labels: Any = None,
    logits: Any = None,
    axis: int = -1,
    name: str | None = None,
    dim: int | None = None,
) -> Tensor:
    """``-sum(labels * log_softmax(logits))`` along ``axis``; gradients reach labels too."""
    return _cross_entropy(
        labels, logits, axis if dim is None else dim, True, name, "SoftmaxCrossEntropyWithLogits"
    )


def _by_name(sentinel: Any, function: str) -> None:
    """TF1's ``_sentinel`` first argument: labels and logits are passed by name only."""
    if sentinel is not None:
        raise InvalidArgumentError(f"symgrad: {function}: pass labels= and logits= by name")


def softmax_cross_entropy_with_logits(
    _sentinel: Any = None,
    labels: Any = None,
    logits: Any = None,
    dim: int = -1,
    name: str | None = None,
    axis: int | None = None,
) -> Tensor:
    """As ``_v2``, but no gradient flows into ``labels`` (TF1's v1)."""
    _by_name(_sentinel, "softmax_cross_entropy_with_logits")
    return _cross_entropy(
        labels, logits, dim if axis is None else axis, False, name, "SoftmaxCrossEntropyWithLogits"
    )


def sparse_softmax_cross_entropy_with_logits(
    _sentinel: Any = None, labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """Cross-entropy against integer class ``labels`` (the last axis of ``logits`` is the class)."""
    _by_name(_sentinel, "sparse_softmax_cross_entropy_with_logits")
    logits = convert_to_tensor(logits)
    labels = convert_to_tensor(labels)
    if not labels.dtype.is_integer:
        raise DTypeError(
            f"symgrad: SparseSoftmaxCrossEntropyWithLogits: labels '{labels.name}' must be "
            f"int32 or int64, got {labels.dtype.name}"
        )
    if labels.shape is None and logits.shape is not None and len(logits.shape) >= 1:
        # TF1 programs declare labels without a shape: they are logits' shape without its
        # last axis (TF's shape function says so too), checked when the graph runs.
        labels = ensure_shape(labels, logits.shape[:-1])
    if (
        labels.shape is not None
        and logits.shape is not None
        and (
            len(labels.shape) != len(logits.shape) - 1
            or not shapes_compatible(labels.shape, logits.shape[:-1])
        )
    ):
        raise ShapeError(
            f"symgrad: SparseSoftmaxCrossEntropyWithLogits: labels '{labels.name}' "
            f"{format_shape(labels.shape)} must have the shape of logits '{logits.name}' "
            f"{format_shape(logits.shape)} without its last axis"
        )
    if labels.shape is not None and logits.shape is not None:
        # TF requires equal batch sizes; NumPy would broadcast one label over the batch.
        batch_axes = range(len(labels.shape))
        labels = ensure_same_dims(
            labels, logits, batch_axes, batch_axes, "SparseSoftmaxCrossEntropyWithLogits"
        )
    # A label outside [0, classes) is an error in TF's kernel; NumPy would wrap -1 round.
    labels = ensure_in_range(labels, logits, -1, "SparseSoftmaxCrossEntropyWithLogits")
    if logits.shape is None or logits.shape[-1] is None:
        # The number of classes is known at run time only.
        dense = one_hot_like(labels, logits)
    else:
        dense = one_hot_of_labels(labels, logits.shape[-1], dtype=logits.dtype)
    return _cross_entropy(dense, logits, -1, False, name, "SparseSoftmaxCrossEntropyWithLogits")


def _lower_cross_entropy(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    labels, logits = operands
    axis = op.attrs["axis"]
    return -F.ReduceSum(
        labels * _log_softmax_expr(logits, axis), F.axes_tuple((axis,)), sp.Integer(0)
    )


def _cross_entropy_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    logits = sigs[1]
    if isinstance(logits, frozenset):  # logits of unknown rank: so is the loss
        return signature(None, op.name)
    return tuple(d for i, d in enumerate(logits) if i != op.attrs["axis"])


def _cross_entropy_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    labels, logits = op.inputs
    axis = op.attrs["axis"]
    spread = broadcast_gradient(grad, logits, (axis,), False, mean=False)
    # TF's rule, softmax - labels; like TF, its own derivative in the labels is taken as 0.
    # The forward op checked the logits' class axis; the gradient's softmax needs no second check.
    probabilities = _unary_op("Softmax", logits, axis, None, checked=True)
    d_logits = spread * (probabilities - zero_gradient(labels))
    d_labels = (
        spread * -_unary_op("LogSoftmax", logits, axis, None, checked=True)
        if op.attrs["labels_gradient"]
        else None
    )
    return [d_labels, d_logits]


register(
    OpDef(
        "SoftmaxCrossEntropyWithLogits",
        lower=_lower_cross_entropy,
        gradient=_cross_entropy_gradient,
        signature=_cross_entropy_signature,
    )
)


def sigmoid_cross_entropy_with_logits(
    _sentinel: Any = None, labels: Any = None, logits: Any = None, name: str | None = None
) -> Tensor:
    """``softplus(x) - x*z`` for logits x and labels z, evaluated as TF evaluates it
    (``max(x, 0) - x*z + log(1 + exp(-|x|))``: finite for any logits); its gradient in x is
    ``sigmoid(x) - z``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[1000.0, 0.0])
    ...     print(sg.compile(loss)().round(4))
    [0.     0.6931]
    """
    _by_name(_sentinel, "sigmoid_cross_entropy_with_logits")
    logits = convert_to_tensor(logits)
    labels = (
        convert_to_tensor(labels, dtype=logits.dtype) if not isinstance(labels, Tensor) else labels
    )
    # TF requires the same shape but checks only the static shapes; its elementwise ops then
    # broadcast whatever arrives. One side of unknown rank takes the other's shape, checked
    # when run (so labels [n] never meet logits [n, 1] as an [n, n] loss); with both unknown,
    # nothing is known to check against, and the values broadcast as in TF.
    if labels.shape is None and logits.shape is not None:
        labels = ensure_shape(labels, logits.shape)
    elif logits.shape is None and labels.shape is not None:
        logits = ensure_shape(logits, labels.shape)
    if (
        labels.shape is not None
        and logits.shape is not None
        and not shapes_compatible(labels.shape, logits.shape)
    ):
        raise ShapeError(
            f"symgrad: logistic_loss: labels '{labels.name}' {format_shape(labels.shape)} and "
            f"logits '{logits.name}' {format_shape(logits.shape)} must have the same shape"
        )
    # One function whose derivative is the textbook's sigmoid(x) - z (TF's where() form has
    # the same value at the kink, 0.5 - z); the printers evaluate it in TF's stable form.
    return logistic_loss(logits, labels, name=name or "logistic_loss")


def l2_loss(t: Any, name: str | None = None) -> Tensor:
    """``sum(t**2) / 2``."""
    return reduce_sum(square(t), name=name) / 2


def bias_add(
    value: Any, bias: Any, data_format: str | None = None, name: str | None = None
) -> Tensor:
    """``value + bias`` with a 1-D ``bias`` matching the last axis of ``value``."""
    value = convert_to_tensor(value)
    bias = convert_to_tensor(bias, dtype=value.dtype) if not isinstance(bias, Tensor) else bias
    if data_format not in (None, "NHWC", "N...C"):
        raise InvalidArgumentError(
            f"symgrad: BiasAdd: data_format {data_format!r} is not supported"
        )
    if bias.shape is None:  # a vector, as TF's kernel checks when run
        bias = ensure_shape(bias, [None])
    if (
        bias.shape is None
        or len(bias.shape) != 1
        or (value.shape is not None and not value.shape)
        or (value.shape is not None and not shapes_compatible((value.shape[-1],), bias.shape))
    ):
        raise ShapeError(
            f"symgrad: BiasAdd: bias '{bias.name}' {format_shape(bias.shape)} must be a vector "
            f"the size of the last axis of '{value.name}' {format_shape(value.shape)}"
        )
    if value.shape is None or value.shape[-1] is None or bias.shape[0] is None:
        # The value's last axis or the bias' size arrives at run time; TF's kernel checks one
        # against the other there, where NumPy would broadcast a size 1 silently.
        bias = ensure_same_dims(bias, value, [0], [-1], "BiasAdd")
    with default_names([value, bias], {"Add": "BiasAdd"}):  # TF's name, as TF names it
        return add(value, bias, name=name)


__all__ = [
    "softmax",
    "log_softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits",
    "l2_loss",
    "bias_add",
    "local_response_normalization",
    "lrn",
]


# --- normalizations, weighted cross-entropy, clipping by norm ------------
# Each is written as TensorFlow writes it (nn_impl.py, clip_ops.py), so that its value and
# its gradient at special points (zero norms, ties of maximum/minimum) are TF's.


def _same_dtype(value: Any, like: Tensor) -> Tensor:
    return convert_to_tensor(value, dtype=like.dtype) if not isinstance(value, Tensor) else value


def l2_normalize(
    x: Any,
    axis: Any = None,
    epsilon: float = 1e-12,
    name: str | None = None,
    dim: Any = None,
) -> Tensor:
    """``x / sqrt(max(sum(x**2, axis), epsilon))``; ``dim`` is TF1's old name of ``axis``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.nn.l2_normalize(sg.constant([3.0, 4.0]), 0))())
    [0.6 0.8]
    """
    x = convert_to_tensor(x)
    axis = dim if axis is None else axis
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return multiply(x, rsqrt(maximum(square_sum, epsilon)), name=name)


def moments(
    x: Any,
    axes: Any,
    shift: Any = None,
    name: str | None = None,
    keep_dims: bool | None = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, Tensor]:
    """Mean and variance of ``x`` over ``axes``; the variance's gradient does not flow through
    the mean (TF's ``stop_gradient``), float16 is computed in float32.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     mean, variance = sg.nn.moments(sg.constant([1.0, 2.0, 3.0, 6.0]), axes=[0])
    ...     print(sg.compile([mean, variance])())
    [np.float32(3.0), np.float32(3.5)]
    """
    x = convert_to_tensor(x)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    y = cast(x, "float32") if x.dtype.name == "float16" else x
    mean = reduce_mean(y, axes, keepdims=True, name="mean")
    variance = reduce_mean(
        squared_difference(y, stop_gradient(mean)), axes, keepdims=True, name="variance"
    )
    if not keep:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    if x.dtype.name == "float16":
        mean, variance = cast(mean, x.dtype), cast(variance, x.dtype)
    return mean, variance


def batch_normalization(
    x: Any,
    mean: Any,
    variance: Any,
    offset: Any,
    scale: Any,
    variance_epsilon: float,
    name: str | None = None,
) -> Tensor:
    """``scale * (x - mean) / sqrt(variance + epsilon) + offset``, arranged as TF computes it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.nn.batch_normalization(sg.constant([1.0, 3.0]), 2.0, 1.0, None, None, 0.0)
    ...     print(sg.compile(y)())
    [-1.  1.]
    """
    x = convert_to_tensor(x)
    # TF1's names: ``name`` (or "batchnorm") is a scope, the output its 'add_1'.
    with x.graph.name_scope(name or "batchnorm"):
        mean, variance = _same_dtype(mean, x), _same_dtype(variance, x)
        inv = rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * _same_dtype(scale, x)
        shift = -mean * inv if offset is None else _same_dtype(offset, x) - mean * inv
        return x * inv + shift


def weighted_cross_entropy_with_logits(
    labels: Any = None,
    logits: Any = None,
    pos_weight: Any = None,
    name: str | None = None,
    targets: Any = None,
) -> Tensor:
    """Sigmoid cross-entropy with positive examples weighted by ``pos_weight``, finite for any
    logits (TF's ``(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + relu(-x))``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.nn.weighted_cross_entropy_with_logits([1.0], [0.0], pos_weight=2.0)
    ...     print(round(float(sg.compile(loss)()[0]), 4))
    1.3863
    """
    labels = targets if labels is None else labels
    if labels is None or logits is None or pos_weight is None:
        raise InvalidArgumentError(
            "symgrad: weighted_cross_entropy_with_logits: needs labels (or targets), logits "
            "and pos_weight"
        )
    logits = convert_to_tensor(logits)
    _floating(logits, "weighted_cross_entropy_with_logits")
    labels = _same_dtype(labels, logits)
    # A number stays a number (printed in the formula); an array becomes a constant.
    weight = (
        pos_weight
        if isinstance(pos_weight, Tensor) or np.ndim(pos_weight) == 0
        else _same_dtype(pos_weight, logits)
    )
    return weighted_logistic_loss(logits, labels, weight, name=name)


def log_poisson_loss(
    targets: Any, log_input: Any, compute_full_loss: bool = False, name: str | None = None
) -> Tensor:
    """The Poisson negative log-likelihood ``exp(log_input) - log_input * targets``, with
    ``compute_full_loss`` plus TF's Stirling term ``t * log(t) - t + 0.5 * log(2 * pi * t)``
    where the target is not in [0, 1] (TF's ``nn_impl.log_poisson_loss``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     loss = sg.nn.log_poisson_loss(sg.constant([2.0]), sg.constant([0.0]))
    ...     print(sg.compile(loss)())
    [1.]
    """
    log_input = convert_to_tensor(log_input)
    _floating(log_input, "log_poisson_loss")
    targets = _same_dtype(targets, log_input)
    if (
        targets.shape is not None
        and log_input.shape is not None
        and not shapes_compatible(targets.shape, log_input.shape)
    ):
        raise ShapeError(
            f"symgrad: log_poisson_loss: log_input '{log_input.name}' "
            f"{format_shape(log_input.shape)} and targets '{targets.name}' "
            f"{format_shape(targets.shape)} must have the same shape"
        )
    result = exp(log_input) - log_input * targets
    if not compute_full_loss:
        return identity(result, name=name) if name is not None else result
    dtype = targets.dtype.numpy
    point_five = np.asarray(0.5, dtype=dtype)
    two_pi = np.asarray(2 * np.pi, dtype=dtype)
    stirling = targets * log(targets) - targets + point_five * log(two_pi * targets)
    zeros = zeros_like(targets)
    ones = ones_like(targets)
    inside = logical_and(greater_equal(targets, zeros), less_equal(targets, ones))
    return add(result, where(inside, zeros, stirling), name=name)


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> Tensor:
    """``matmul(x, weights) + biases`` (TF1's ``nn.xw_plus_b``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.nn.xw_plus_b(sg.constant([[1.0, 2.0]]), sg.constant([[1.0], [1.0]]), [0.5])
    ...     print(sg.compile(y)())
    [[3.5]]
    """
    return bias_add(matmul(x, weights), biases, name=name)


def global_norm(t_list: Sequence[Any], name: str | None = None) -> Tensor:
    """``sqrt(sum of squares of every element of every tensor)``; None entries are skipped.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.global_norm([sg.constant([3.0]), sg.constant([[4.0]])]))())
    5.0
    """
    values = [convert_to_tensor(t) for t in t_list if t is not None]
    if not values:
        raise InvalidArgumentError("symgrad: global_norm: t_list has no tensors")
    half_squared_norm = reduce_sum(stack([_half_squared_norm(v) for v in values]))
    return sqrt(half_squared_norm * 2, name=name or "global_norm")


def _half_squared_norm(value: Tensor) -> Tensor:
    """``l2_loss(value)``; of the slices' values where ``value`` is a gathered variable's
    gradient, as TF1 takes the norm of ``IndexedSlices``: a row gathered twice counts as two
    rows, not as their sum."""
    slices = gathered_slices(value)
    if slices is None:
        return l2_loss(value)
    parts = [l2_loss(part.values) for part in slices]
    return parts[0] if len(parts) == 1 else add_n(parts)


def clip_by_global_norm(
    t_list: Sequence[Any], clip_norm: Any, use_norm: Any = None, name: str | None = None
) -> tuple[list[Tensor | None], Tensor]:
    """Scale every tensor of ``t_list`` by ``clip_norm / max(global_norm, clip_norm)``.

    Returns the scaled list (None stays None) and the global norm; an infinite norm gives NaN
    tensors, as in TF.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     (clipped,), norm = sg.clip_by_global_norm([sg.constant([3.0, 4.0])], 1.0)
    ...     print(sg.compile([clipped, norm])())
    [array([0.6, 0.8], dtype=float32), np.float32(5.0)]
    """
    values = list(t_list)
    if use_norm is None:
        use_norm = global_norm(values)
    use_norm = convert_to_tensor(use_norm)
    clip = _same_dtype(clip_norm, use_norm)
    scale_for_finite = clip * minimum(1.0 / use_norm, 1.0 / clip)
    scale = scale_for_finite + (use_norm - use_norm)  # NaN if the norm is not finite
    clipped: list[Tensor | None] = []
    for v in values:
        if v is None:
            clipped.append(None)
            continue
        v = convert_to_tensor(v)
        factor = scale if v.dtype == scale.dtype else cast(scale, v.dtype)
        slices = gathered_slices(v)
        if slices is not None:  # TF1 scales IndexedSlices' values: the gradient stays sparse
            v = from_slices(slices, [part.values * factor for part in slices])
            clipped.append(identity(v))
        else:
            clipped.append(identity(v * factor))
    return clipped, use_norm


def clip_by_norm(t: Any, clip_norm: Any, axes: Any = None, name: str | None = None) -> Tensor:
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``; a zero ``t`` stays zero, as in TF.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.clip_by_norm(sg.constant([3.0, 4.0]), 1.0))())
    [0.6 0.8]
    """
    t = convert_to_tensor(t)
    slices = gathered_slices(t)
    if slices is not None and (axes is None or 0 not in _axis_list(axes)):
        # TF1 clips IndexedSlices' values: one norm over all slices (rows gathered twice
        # count twice), or one per row when the axes leave out the first.
        if axes is None:
            total = add_n([reduce_sum(part.values * part.values) for part in slices])
            norm = _safe_norm(total)
            clip = _same_dtype(clip_norm, t)
            values = [part.values * clip / maximum(norm, clip) for part in slices]
        else:
            values = [clip_by_norm(part.values, clip_norm, axes) for part in slices]
        return identity(from_slices(slices, values), name=name)
    clip = _same_dtype(clip_norm, t)
    l2norm = _safe_norm(reduce_sum(t * t, axes, keepdims=True))
    return identity(t * clip / maximum(l2norm, clip), name=name)


def _axis_list(axes: Any) -> list[int]:
    return [int(a) for a in (axes if isinstance(axes, (list, tuple)) else [axes])]


def _safe_norm(l2sum: Tensor) -> Tensor:
    """``sqrt(l2sum)`` of positive sums only (TF's "safe sqrt"): its gradient at 0 would be
    inf * 0."""
    positive = greater(l2sum, 0)
    return where(positive, sqrt(where(positive, l2sum, ones_like(l2sum))), l2sum)


def clip_by_value(
    t: Any, clip_value_min: Any, clip_value_max: Any, name: str | None = None
) -> Tensor:
    """``t`` clipped into ``[clip_value_min, clip_value_max]``, as TF computes it,
    ``maximum(minimum(t, max), min)``: at a bound the gradient goes to ``t``.

    A gathered variable's gradient (TF1's ``IndexedSlices``) is clipped slice by slice, rows
    gathered twice each on its own, and stays sparse for the optimizers, as in TF1.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.clip_by_value(sg.constant([-2.0, 0.5, 2.0]), -1.0, 1.0))())
    [-1.   0.5  1. ]
    """
    if isinstance(t, Tensor):
        slices = gathered_slices(t)
        if slices is not None:
            values = [_clip_values(part.values, clip_value_min, clip_value_max) for part in slices]
            return identity(from_slices(slices, values), name=name)
    return _clip_values(t, clip_value_min, clip_value_max, name)


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Tensor:
    """Whether each row's target class is among its ``k`` largest predictions (TF's InTopK).

    Ties with the k-th largest count as in; a row with a non-finite prediction, or a target
    outside ``[0, classes)``, is False, as in TF's kernel.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     scores = sg.constant([[0.1, 0.5, 0.4], [0.3, 0.3, 0.3]])
    ...     print(sg.compile(sg.nn.in_top_k(scores, [2, 0], 1))())
    [False  True]
    """
    predictions = convert_to_tensor(predictions)
    targets = convert_to_tensor(targets)
    _floating(predictions, "InTopK")
    if not targets.dtype.is_integer:
        raise DTypeError(f"symgrad: InTopK: targets '{targets.name}' must be int32 or int64")
    if predictions.shape is None or len(predictions.shape) != 2 or predictions.shape[1] is None:
        raise ShapeError(
            f"symgrad: InTopK: predictions '{predictions.name}' must be [batch, classes] with a "
            f"known number of classes, got {format_shape(predictions.shape)}"
        )
    if targets.shape is None:
        # Targets declared without a shape (``y = tf.placeholder(tf.int32, shape=(None))``):
        # TF's shape function makes them [batch], checked when the graph runs.
        targets = ensure_shape(targets, predictions.shape[:1])
    if len(targets.shape) != 1 or not shapes_compatible(targets.shape, predictions.shape[:1]):
        raise ShapeError(
            f"symgrad: InTopK: targets '{targets.name}' must be [batch] for predictions "
            f"'{predictions.name}' of shape {format_shape(predictions.shape)}, got "
            f"{format_shape(targets.shape)}"
        )
    targets = ensure_same_dims(targets, predictions, [0], [0], "InTopK")
    classes = _range(predictions.shape[1], dtype=targets.dtype)
    chosen = equal(expand_dims(classes, 0), expand_dims(targets, 1))
    target = reduce_max(where(chosen, predictions, float("-inf")), axis=1, keepdims=True)
    above = reduce_sum(cast(greater(predictions, target), "int32"), axis=1)
    finite = logical_and(is_finite(squeeze(target, [1])), reduce_all(is_finite(predictions), 1))
    return logical_and(less(above, k), finite, name=name)


# --- local response normalization ----------------------------------------------------------------


def local_response_normalization(
    input: Any,
    depth_radius: int = 5,
    bias: float = 1.0,
    alpha: float = 1.0,
    beta: float = 0.5,
    name: str | None = None,
) -> Tensor:
    """TF's ``nn.lrn``: ``input / (bias + alpha * sqr_sum) ** beta`` where ``sqr_sum`` sums the
    squares over the ``2 * depth_radius + 1`` nearest channels (the last axis, rank 4).

    Built from a windowed channel sum (a symmetric band, so its gradient is itself) and
    elementwise ops: the gradient is TF's ``LRNGrad``, and second derivatives exist too.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[[[1.0, 2.0]]]])
    ...     print(sg.compile(sg.nn.lrn(x, depth_radius=1, bias=0.0, alpha=1.0, beta=0.5))())
    [[[[0.4472136 0.8944272]]]]
    """
    x = convert_to_tensor(input)
    if x.shape is None or len(x.shape) != 4:
        raise ShapeError(
            f"symgrad: LRN: '{x.name}' must have rank 4 (NHWC), got {format_shape(x.shape)}"
        )
    if not x.dtype.is_floating:
        raise DTypeError(f"symgrad: LRN: '{x.name}' must be floating point, got {x.dtype.name}")
    (radius,) = _static_ints(depth_radius, "LRN", "depth_radius", x)
    dtype = x.dtype.numpy
    window = _op("DepthWindowSum", [x * x], {"radius": radius}, x.shape, x.dtype, None)
    scale = np.asarray(bias, dtype=dtype) + np.asarray(alpha, dtype=dtype) * window
    return identity(x * scale ** np.asarray(-beta, dtype=dtype), name=name)


register(
    OpDef(
        "DepthWindowSum",
        lower=lambda op, xs: helper("_depth_window_sum", xs[0], op.attrs["radius"]),
        gradient=lambda op, g: [_op("DepthWindowSum", [g], dict(op.attrs), g.shape, g.dtype, None)],
        signature=lambda op, sigs: sigs[0],
    )
)
lrn = local_response_normalization
