"""``symgrad.layers``: TF1's ``tf.layers`` functions.

Each layer makes its variables with :func:`symgrad.get_variable` inside a variable scope
named after the layer (``dense``, ``dense_1``, ... or the ``name`` given), so that
variables are named as in TF1 (``dense/kernel``, ``batch_normalization/moving_mean``)
and ``reuse=True`` shares them.

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float32, [None, 3], name="x")
...     y = sg.layers.dropout(x, rate=0.5, training=False)
...     h = sg.layers.dense(x, 2, activation=sg.nn.relu, kernel_initializer=sg.ones_initializer())
...     with sg.Session() as sess:
...         sess.run(sg.global_variables_initializer())
...         print(sess.run(y, {x: np.ones((1, 3))}), sess.run(h, {x: np.ones((1, 3))}))
...     print([v.op.name for v in sg.trainable_variables()])
[[1. 1. 1.]] [[3. 3.]]
['dense/kernel', 'dense/bias']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dtypes
from .errors import DTypeError, InvalidArgumentError, ShapeError
from .graph import Operation, Tensor, default_names, name_scope
from .ops.conv_ops import avg_pool, max_pool
from .ops.conv_ops import conv2d as _nn_conv2d
from .ops.conv_ops import conv2d_transpose as _nn_conv2d_transpose
from .ops.conv_ops import separable_conv2d as _nn_separable_conv2d
from .ops.elementwise import (
    add,
    cast,
    elu,
    identity,
    maximum,
    multiply,
    relu,
    relu6,
    rsqrt,
    selu,
    sigmoid,
    softplus,
    softsign,
    subtract,
    tanh,
    truediv,
)
from .ops.gathering import where
from .ops.linalg import matmul, tensordot
from .ops.nn_ops import bias_add, softmax
from .ops.padding import pad
from .ops.random_ops import dropout as _nn_dropout
from .ops.reductions import reduce_mean
from .ops.reshaping import expand_dims, reshape, squeeze, transpose
from .ops.shape_queries import shape as shape_of
from .ops.shape_queries import size
from .ops.sources import convert_to_tensor
from .ops.state import Variable, assign_sub
from .shapes import format_shape
from .tf1.init_ops import ones_initializer, zeros_initializer
from .tf1.variable_scope import GraphKeys, add_to_collection, get_variable, variable_scope
from .tf1_names import missing_attribute


# --- dropout (randomness) ----------------------------------------------------------------------------
def dropout(
    inputs: Any,
    rate: Any = 0.5,
    noise_shape: Any = None,
    seed: int | None = None,
    training: Any = False,
    name: str | None = None,
) -> Tensor:
    """``tf.layers.dropout``: :func:`symgrad.nn.dropout` with ``rate`` when ``training``,
    else ``inputs`` unchanged; ``training`` may be a bool placeholder fed per run."""
    x = convert_to_tensor(inputs)
    if isinstance(training, Tensor):
        dropped = _nn_dropout(x, noise_shape=noise_shape, seed=seed, name=name, rate=rate)
        return where(training, dropped, x)
    if not training:
        return identity(x, name=name)
    return _nn_dropout(x, noise_shape=noise_shape, seed=seed, name=name, rate=rate)


# --- dense, flatten --------------------------------------------------------------------------------
def _known_rank(x: Tensor, layer: str) -> tuple[int | None, ...]:
    """The static shape of ``x``; a layer must know its input's rank (TF1 says so too)."""
    shape: Any = x.shape
    dims = getattr(shape, "dims", shape)  # a TensorShape's dimensions, or a plain tuple
    if dims is None:
        raise ShapeError(
            f"layers.{layer}: the input {x.name!r} has no known rank; give its placeholder a "
            "shape such as [None, 784]"
        )
    sizes = [getattr(d, "value", d) for d in dims]
    return tuple(None if d is None else int(d) for d in sizes)


# The names TF1's layers give the arithmetic they build with Python operators.
_ARITHMETIC_NAMES = {"Add": "add", "Sub": "sub", "Mul": "mul", "RealDiv": "truediv"}


def _unsupported_constraints(layer: str, kernel_constraint: Any, bias_constraint: Any) -> None:
    if kernel_constraint is not None or bias_constraint is not None:
        raise InvalidArgumentError(
            f"layers.{layer}: kernel_constraint/bias_constraint are not supported"
        )


def _kernel(
    x: Tensor, shape: list[Any], initializer: Any, regularizer: Any, trainable: bool
) -> Variable:
    return get_variable(
        "kernel",
        shape,
        dtype=x.dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
    )


def _add_bias(
    y: Tensor, units: int, use_bias: bool, initializer: Any, regularizer: Any, trainable: bool
) -> Tensor:
    """``y + bias``, a ``[units]`` variable of zeros unless ``initializer`` says otherwise."""
    if not use_bias:
        return y
    bias = get_variable(
        "bias",
        [units],
        dtype=y.dtype,
        initializer=zeros_initializer() if initializer is None else initializer,
        regularizer=regularizer,
        trainable=trainable,
    )
    return bias_add(y, bias)


def _activate(
    y: Tensor,
    activation: Callable[[Tensor], Tensor] | None,
    activity_regularizer: Callable[[Tensor], Any] | None,
) -> Tensor:
    """``activation(y)`` (a function, or its name: ``"relu"``), with the loss of
    ``activity_regularizer`` on it collected, divided by the batch size as TF1's layers do."""
    activation = _activation_function(activation)
    output = y if activation is None else activation(y)
    if activity_regularizer is not None:
        with name_scope("ActivityRegularizer"):
            loss = activity_regularizer(output)
            if loss is not None:
                loss = convert_to_tensor(loss)
                batch = cast(shape_of(output)[0], loss.dtype)
                add_to_collection(GraphKeys.REGULARIZATION_LOSSES, truediv(loss, batch))
    return output


# The activations a layer takes by name, as Keras' ``activations.get`` (which TF1's layers use).
_ACTIVATIONS: dict[str, Callable[[Tensor], Tensor]] = {
    "relu": relu,
    "relu6": relu6,
    "elu": elu,
    "selu": selu,
    "sigmoid": sigmoid,
    "tanh": tanh,
    "softplus": softplus,
    "softsign": softsign,
    "softmax": softmax,
    "linear": identity,
}


def _activation_function(activation: Any) -> Callable[[Tensor], Tensor] | None:
    if activation is None or callable(activation):
        return activation
    if isinstance(activation, str) and activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise InvalidArgumentError(
        f"symgrad: layers: unknown activation {activation!r}; give a function or one of "
        f"{', '.join(sorted(_ACTIVATIONS))}"
    )


def dense(
    inputs: Any,
    units: int,
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Tensor:
    """``tf.layers.dense``: ``activation(inputs @ kernel + bias)``, TF1's names and defaults.

    The variables are ``<name>/kernel`` (``[in, units]``, Glorot uniform unless
    ``kernel_initializer`` says otherwise) and ``<name>/bias`` (zeros); ``name`` defaults
    to ``dense``, made unique (``dense_1``, ...). Inputs of rank above 2 are multiplied
    along their last axis, as TF1 does.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 4])
    ...     y = sg.layers.dense(x, 3, name="hidden")
    ...     [v.op.name for v in sg.global_variables()]
    ['hidden/kernel', 'hidden/bias']
    """
    _unsupported_constraints("dense", kernel_constraint, bias_constraint)
    x = convert_to_tensor(inputs)
    if not x.dtype.is_floating:
        # TF1's layer makes its kernel in the input's dtype, which must be floating.
        raise DTypeError(
            f"symgrad: layers.dense: the input {x.name!r} has dtype {x.dtype.name}; a layer "
            f"needs a floating-point input (tf.cast it to float32)"
        )
    shape = _known_rank(x, "dense")
    if len(shape) < 2 or shape[-1] is None:
        raise ShapeError(
            f"layers.dense: the input {x.name!r} of shape {format_shape(shape)} needs rank 2 or "
            "more and a known last dimension"
        )
    with variable_scope(name, default_name="dense", reuse=reuse):
        kernel = _kernel(
            x, [shape[-1], int(units)], kernel_initializer, kernel_regularizer, trainable
        )
        y = matmul(x, kernel) if len(shape) == 2 else tensordot(x, kernel, [[len(shape) - 1], [0]])
        y = _add_bias(y, int(units), use_bias, bias_initializer, bias_regularizer, trainable)
        return _activate(y, activation, activity_regularizer)


def flatten(inputs: Any, name: str | None = None, data_format: str = "channels_last") -> Tensor:
    """``tf.layers.flatten``: ``[batch, d1, d2, ...]`` to ``[batch, d1 * d2 * ...]``.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 7, 7, 64])
    ...     with sg.Session() as sess:
    ...         sess.run(sg.layers.flatten(x), {x: np.zeros((2, 7, 7, 64))}).shape
    (2, 3136)
    """
    first = _channels_first(data_format, "flatten")
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, "flatten")
    with name_scope(name or "flatten"):
        if len(shape) <= 1:
            return reshape(x, [-1, 1])
        if first and len(shape) >= 3:
            # TF1 puts the channels last first, so the flat order is that of NHWC.
            x = transpose(x, [0, *range(2, len(shape)), 1])
        rest = shape[1:]
        if any(d is None for d in rest):
            raise ShapeError(
                f"layers.flatten: the input {x.name!r} of shape {format_shape(shape)} needs "
                "known sizes after the batch axis"
            )
        size = 1
        for d in rest:
            size *= int(d)  # type: ignore[arg-type]  # None excluded just above
        return reshape(x, [-1, size])


# --- convolution and pooling ------------------------------------------------------------------------
def _pair(value: Any, what: str, layer: str) -> tuple[int, int]:
    """TF1's ``normalize_tuple``: an int or a pair of ints."""
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or not all(isinstance(v, int) and v > 0 for v in pair):
        raise InvalidArgumentError(
            f"layers.{layer}: {what} must be a positive int or a pair of them, not {value!r}"
        )
    return int(pair[0]), int(pair[1])


def _padding(padding: str, layer: str) -> str:
    mode = str(padding).upper()
    if mode not in ("SAME", "VALID"):
        raise InvalidArgumentError(
            f"layers.{layer}: padding must be 'same' or 'valid', not {padding!r}"
        )
    return mode


def _channels_first(data_format: str | None, layer: str) -> bool:
    """Whether ``data_format`` is ``"channels_first"`` (NCHW); ``"channels_last"`` (NHWC) is
    TF1's default (None too). Channels-first inputs are transposed to channels-last and the
    results back, as TF's CPU kernels do."""
    if data_format is None:
        return False
    if data_format not in ("channels_last", "channels_first"):
        raise InvalidArgumentError(
            f"layers.{layer}: data_format must be 'channels_last' or 'channels_first', "
            f"not {data_format!r}"
        )
    return data_format == "channels_first"


def _single(value: Any, what: str, layer: str) -> int:
    """TF1's ``normalize_tuple`` for one spatial axis: an int or a tuple of one int."""
    number = (int, np.integer)
    items = (value,) if isinstance(value, number) else tuple(value) if value is not None else ()
    if len(items) != 1 or not isinstance(items[0], number) or isinstance(items[0], bool):
        raise InvalidArgumentError(
            f"layers.{layer}: {what} must be a positive int or a tuple of one, not {value!r}"
        )
    if items[0] <= 0:
        raise InvalidArgumentError(f"layers.{layer}: {what} must be positive, not {value!r}")
    return int(items[0])


# The input layouts the convolution and pooling layers take, by rank and data_format.
_LAYOUTS = {
    (3, False): "[batch, width, channels]",
    (3, True): "[batch, channels, width]",
    (4, False): "[batch, height, width, channels]",
    (4, True): "[batch, channels, height, width]",
}


def _spatial_input(inputs: Any, rank: int, first: bool, layer: str) -> Tensor:
    """``inputs`` of the layer's rank, checked, with its channels moved last if ``first``."""
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, layer)
    if len(shape) != rank:
        raise ShapeError(
            f"layers.{layer}: the input {x.name!r} of shape {format_shape(shape)} must be "
            f"{_LAYOUTS[rank, first]} (rank {rank})"
        )
    return transpose(x, [0, *range(2, rank), 1]) if first else x


def _channels_back(y: Tensor, first: bool) -> Tensor:
    """A channels-last result of rank 3 or 4 back to channels-first when ``first``."""
    if not first:
        return y
    rank = len(_known_rank(y, "conv"))
    return transpose(y, [0, rank - 1, *range(1, rank - 1)])


def conv2d(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: Any = (1, 1),
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Tensor:
    """``tf.layers.conv2d``: ``activation(nn.conv2d(inputs, kernel) + bias)``.

    The variables are ``<name>/kernel`` (``[kh, kw, in_channels, filters]``, Glorot uniform
    unless ``kernel_initializer`` says otherwise) and ``<name>/bias`` (zeros); ``name``
    defaults to ``conv2d``, made unique. ``padding`` is ``"valid"`` (TF1's default) or
    ``"same"``. The input is NHWC, or NCHW with ``data_format="channels_first"`` (transposed
    to NHWC and the result back, as TF's CPU kernels do).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 28, 28, 1])
    ...     y = sg.layers.conv2d(x, 32, 5, padding="same", activation=sg.nn.relu)
    ...     [v.op.name for v in sg.global_variables()], tuple(y.shape)
    (['conv2d/kernel', 'conv2d/bias'], (None, 28, 28, 32))
    """
    _unsupported_constraints("conv2d", kernel_constraint, bias_constraint)
    first = _channels_first(data_format, "conv2d")
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, "conv2d")
    if len(shape) != 4 or shape[1 if first else -1] is None:
        raise ShapeError(
            f"layers.conv2d: the input {x.name!r} of shape {format_shape(shape)} must be "
            f"{_LAYOUTS[4, first]} with known channels"
        )
    kh, kw = _pair(kernel_size, "kernel_size", "conv2d")
    sh, sw = _pair(strides, "strides", "conv2d")
    dh, dw = _pair(dilation_rate, "dilation_rate", "conv2d")
    with variable_scope(name, default_name="conv2d", reuse=reuse):
        x = _spatial_input(x, 4, first, "conv2d")
        channels = shape[1 if first else -1]
        kernel = _kernel(
            x, [kh, kw, channels, int(filters)], kernel_initializer, kernel_regularizer, trainable
        )
        y = _nn_conv2d(
            x, kernel, [1, sh, sw, 1], _padding(padding, "conv2d"), dilations=[1, dh, dw, 1]
        )
        y = _add_bias(y, int(filters), use_bias, bias_initializer, bias_regularizer, trainable)
        return _channels_back(_activate(y, activation, activity_regularizer), first)


def _transposed_length(length: int, window: int, stride: int, padding: str) -> int:
    """The output length of a transposed convolution along one axis, as TF computes it."""
    if padding == "VALID":
        return length * stride + max(window - stride, 0)
    return length * stride


def conv2d_transpose(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Tensor:
    """``tf.layers.conv2d_transpose``: ``activation(nn.conv2d_transpose(inputs, kernel) +
    bias)``, the layer that upsamples (a "deconvolution").

    The variables are ``<name>/kernel`` (``[kh, kw, filters, in_channels]``, Glorot uniform
    unless ``kernel_initializer`` says otherwise) and ``<name>/bias`` (zeros); ``name``
    defaults to ``conv2d_transpose``, made unique. The output's height is
    ``height * stride`` with ``padding="same"`` and ``height * stride + max(kh - stride, 0)``
    with ``"valid"`` (TF1's default), the width likewise; both must be known statically.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 7, 7, 16])
    ...     y = sg.layers.conv2d_transpose(x, 8, 3, strides=2, padding="same")
    ...     [tuple(v.shape) for v in sg.global_variables()], tuple(y.shape)
    ([(3, 3, 8, 16), (8,)], (None, 14, 14, 8))
    """
    layer = "conv2d_transpose"
    _unsupported_constraints(layer, kernel_constraint, bias_constraint)
    first = _channels_first(data_format, layer)
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, layer)
    if len(shape) != 4 or None in shape[1:]:
        raise ShapeError(
            f"layers.{layer}: the input {x.name!r} of shape {format_shape(shape)} must be "
            f"{_LAYOUTS[4, first]} with known height, width and channels"
        )
    kh, kw = _pair(kernel_size, "kernel_size", layer)
    sh, sw = _pair(strides, "strides", layer)
    mode = _padding(padding, layer)
    if first:
        channels, height, width = shape[1], shape[2], shape[3]
    else:
        height, width, channels = shape[1], shape[2], shape[3]
    with variable_scope(name, default_name=layer, reuse=reuse):
        x = _spatial_input(x, 4, first, layer)
        kernel = _kernel(
            x, [kh, kw, int(filters), channels], kernel_initializer, kernel_regularizer, trainable
        )
        assert height is not None and width is not None and channels is not None
        output_shape = [
            None,
            _transposed_length(height, kh, sh, mode),
            _transposed_length(width, kw, sw, mode),
            int(filters),
        ]
        y = _nn_conv2d_transpose(x, kernel, output_shape, [1, sh, sw, 1], mode)
        y = _add_bias(y, int(filters), use_bias, bias_initializer, bias_regularizer, trainable)
        return _channels_back(_activate(y, activation, activity_regularizer), first)


def separable_conv2d(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = (1, 1),
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: Any = (1, 1),
    depth_multiplier: int = 1,
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    depthwise_initializer: Any = None,
    pointwise_initializer: Any = None,
    bias_initializer: Any = None,
    depthwise_regularizer: Any = None,
    pointwise_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    depthwise_constraint: Any = None,
    pointwise_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Tensor:
    """``tf.layers.separable_conv2d``: ``activation(nn.separable_conv2d(inputs,
    depthwise_kernel, pointwise_kernel) + bias)``.

    The variables are ``<name>/depthwise_kernel`` (``[kh, kw, in_channels,
    depth_multiplier]``), ``<name>/pointwise_kernel`` (``[1, 1, in_channels *
    depth_multiplier, filters]``), both Glorot uniform unless their initializers say
    otherwise, and ``<name>/bias`` (zeros); ``name`` defaults to ``separable_conv2d``, made
    unique. Strides must be equal, and above 1 only with a ``dilation_rate`` of 1 (TF's).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 8, 8, 3])
    ...     y = sg.layers.separable_conv2d(x, 4, 3, padding="same", depth_multiplier=2)
    ...     [(v.op.name, tuple(v.shape)) for v in sg.global_variables()], tuple(y.shape)
    ... # doctest: +NORMALIZE_WHITESPACE
    ([('separable_conv2d/depthwise_kernel', (3, 3, 3, 2)),
      ('separable_conv2d/pointwise_kernel', (1, 1, 6, 4)),
      ('separable_conv2d/bias', (4,))], (None, 8, 8, 4))
    """
    layer = "separable_conv2d"
    if depthwise_constraint is not None or pointwise_constraint is not None:
        raise InvalidArgumentError(
            f"layers.{layer}: depthwise_constraint/pointwise_constraint are not supported"
        )
    _unsupported_constraints(layer, None, bias_constraint)
    first = _channels_first(data_format, layer)
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, layer)
    if len(shape) != 4 or shape[1 if first else -1] is None:
        raise ShapeError(
            f"layers.{layer}: the input {x.name!r} of shape {format_shape(shape)} must be "
            f"{_LAYOUTS[4, first]} with known channels"
        )
    kh, kw = _pair(kernel_size, "kernel_size", layer)
    sh, sw = _pair(strides, "strides", layer)
    dh, dw = _pair(dilation_rate, "dilation_rate", layer)
    multiplier = _single(depth_multiplier, "depth_multiplier", layer)
    with variable_scope(name, default_name=layer, reuse=reuse):
        x = _spatial_input(x, 4, first, layer)
        channels = shape[1 if first else -1]
        assert channels is not None  # checked above
        depthwise = get_variable(
            "depthwise_kernel",
            [kh, kw, channels, multiplier],
            dtype=x.dtype,
            initializer=depthwise_initializer,
            regularizer=depthwise_regularizer,
            trainable=trainable,
        )
        pointwise = get_variable(
            "pointwise_kernel",
            [1, 1, channels * multiplier, int(filters)],
            dtype=x.dtype,
            initializer=pointwise_initializer,
            regularizer=pointwise_regularizer,
            trainable=trainable,
        )
        y = _nn_separable_conv2d(
            x,
            depthwise,
            pointwise,
            [1, sh, sw, 1],
            _padding(padding, layer),
            rate=[dh, dw],
        )
        y = _add_bias(y, int(filters), use_bias, bias_initializer, bias_regularizer, trainable)
        return _channels_back(_activate(y, activation, activity_regularizer), first)


def _pooling2d(
    pool: Callable[..., Tensor],
    layer: str,
    inputs: Any,
    pool_size: Any,
    strides: Any,
    padding: str,
    data_format: str,
    name: str | None,
) -> Tensor:
    first = _channels_first(data_format, layer)
    ph, pw = _pair(pool_size, "pool_size", layer)
    sh, sw = _pair(strides, "strides", layer)
    with name_scope(name or layer):
        x = _spatial_input(inputs, 4, first, layer) if first else inputs
        y = pool(x, [1, ph, pw, 1], [1, sh, sw, 1], _padding(padding, layer))
        return _channels_back(y, first)


def max_pooling2d(
    inputs: Any,
    pool_size: Any,
    strides: Any,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """``tf.layers.max_pooling2d``: :func:`symgrad.nn.max_pool` with TF1's layer arguments.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 28, 28, 32])
    ...     tuple(sg.layers.max_pooling2d(x, 2, 2).shape)
    (None, 14, 14, 32)
    """
    return _pooling2d(
        max_pool, "max_pooling2d", inputs, pool_size, strides, padding, data_format, name
    )


def average_pooling2d(
    inputs: Any,
    pool_size: Any,
    strides: Any,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """``tf.layers.average_pooling2d``: :func:`symgrad.nn.avg_pool` with TF1's layer arguments.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 5, 5, 3])
    ...     tuple(sg.layers.average_pooling2d(x, 2, 2, padding="same").shape)
    (None, 3, 3, 3)
    """
    return _pooling2d(
        avg_pool, "average_pooling2d", inputs, pool_size, strides, padding, data_format, name
    )


def conv1d(
    inputs: Any,
    filters: int,
    kernel_size: Any,
    strides: Any = 1,
    padding: str = "valid",
    data_format: str = "channels_last",
    dilation_rate: Any = 1,
    activation: Callable[[Tensor], Tensor] | None = None,
    use_bias: bool = True,
    kernel_initializer: Any = None,
    bias_initializer: Any = None,
    kernel_regularizer: Any = None,
    bias_regularizer: Any = None,
    activity_regularizer: Any = None,
    kernel_constraint: Any = None,
    bias_constraint: Any = None,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
) -> Tensor:
    """``tf.layers.conv1d``: ``activation(conv1d(inputs, kernel) + bias)`` over the width of
    ``[batch, width, channels]`` inputs (``[batch, channels, width]`` with
    ``data_format="channels_first"``).

    As TF1 computes it: the input gets a height of 1 and the kernel ``<name>/kernel``
    (``[width, in_channels, filters]``) a leading 1, a 2-D convolution runs, and the height
    is squeezed away; ``<name>/bias`` is ``[filters]``. ``padding`` is ``"valid"``,
    ``"same"`` or ``"causal"`` (zeros before the sequence only, so an output never sees a
    later step).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 10, 3])
    ...     y = sg.layers.conv1d(x, 4, 3, strides=2, padding="same")
    ...     [(v.op.name, tuple(v.shape)) for v in sg.global_variables()], tuple(y.shape)
    ([('conv1d/kernel', (3, 3, 4)), ('conv1d/bias', (4,))], (None, 5, 4))
    """
    _unsupported_constraints("conv1d", kernel_constraint, bias_constraint)
    first = _channels_first(data_format, "conv1d")
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, "conv1d")
    if len(shape) != 3 or shape[1 if first else -1] is None:
        raise ShapeError(
            f"layers.conv1d: the input {x.name!r} of shape {format_shape(shape)} must be "
            f"{_LAYOUTS[3, first]} with known channels"
        )
    width = _single(kernel_size, "kernel_size", "conv1d")
    stride = _single(strides, "strides", "conv1d")
    dilation = _single(dilation_rate, "dilation_rate", "conv1d")
    causal = str(padding).lower() == "causal"
    mode = "VALID" if causal else _padding(padding, "conv1d")
    with variable_scope(name, default_name="conv1d", reuse=reuse):
        x = _spatial_input(x, 3, first, "conv1d")
        channels = shape[1 if first else -1]
        kernel = _kernel(
            x, [width, channels, int(filters)], kernel_initializer, kernel_regularizer, trainable
        )
        if causal:
            x = pad(x, [[0, 0], [dilation * (width - 1), 0], [0, 0]])
        # TF1's nn.conv1d, named as it names it: "<layer>/Conv1D" is the 2-D convolution.
        with name_scope("Conv1D") as scope:
            y = _nn_conv2d(
                expand_dims(x, 1),
                expand_dims(kernel, 0),
                [1, 1, stride, 1],
                mode,
                dilations=[1, 1, dilation, 1],
                name=scope,
            )
            y = squeeze(y, [1])
        y = _add_bias(y, int(filters), use_bias, bias_initializer, bias_regularizer, trainable)
        return _channels_back(_activate(y, activation, activity_regularizer), first)


def _pooling1d(
    pool: Callable[..., Tensor],
    layer: str,
    inputs: Any,
    pool_size: Any,
    strides: Any,
    padding: str,
    data_format: str,
    name: str | None,
) -> Tensor:
    """TF1's 1-D pooling: the 2-D pool of the input with a width-1 axis added, then removed."""
    first = _channels_first(data_format, layer)
    size_ = _single(pool_size, "pool_size", layer)
    stride = _single(strides, "strides", layer)
    mode = _padding(padding, layer)
    with name_scope(name or layer):
        x = _spatial_input(inputs, 3, first, layer)
        y = pool(expand_dims(x, 2), [1, size_, 1, 1], [1, stride, 1, 1], mode)
        return _channels_back(squeeze(y, [2]), first)


def max_pooling1d(
    inputs: Any,
    pool_size: Any,
    strides: Any,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """``tf.layers.max_pooling1d``: the maximum of each ``pool_size`` window along the width
    of ``[batch, width, channels]`` inputs (``[batch, channels, width]`` with
    ``data_format="channels_first"``).

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 4, 1])
    ...     y = sg.layers.max_pooling1d(x, 2, 2)
    ...     sg.compile(y)(np.array([[[1.0], [3.0], [2.0], [0.0]]]))[0, :, 0].tolist()
    [3.0, 2.0]
    """
    return _pooling1d(
        max_pool, "max_pooling1d", inputs, pool_size, strides, padding, data_format, name
    )


def average_pooling1d(
    inputs: Any,
    pool_size: Any,
    strides: Any,
    padding: str = "valid",
    data_format: str = "channels_last",
    name: str | None = None,
) -> Tensor:
    """``tf.layers.average_pooling1d``: the mean of each ``pool_size`` window along the width
    (a ``"same"`` window at an edge averages over the steps inside the input only).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 3, 7])
    ...     tuple(sg.layers.average_pooling1d(x, 2, 2, data_format="channels_first").shape)
    (None, 3, 3)
    """
    return _pooling1d(
        avg_pool, "average_pooling1d", inputs, pool_size, strides, padding, data_format, name
    )


# --- batch normalization ---------------------------------------------------------------------------
def _moving_average_update(variable: Variable, value: Tensor, momentum: float) -> Operation:
    """TF1's update of a moving statistic: ``variable -= (variable - value) * (1 - momentum)``,
    the op ``AssignMovingAvg`` of the layer's name scope that ``UPDATE_OPS`` holds."""
    # TF1 converts the Python ``1 - momentum`` to a float32 tensor before casting it.
    decay = cast(np.float32(1.0 - momentum), variable.dtype)
    return assign_sub(
        variable, multiply(subtract(variable, value), decay), name="AssignMovingAvg"
    ).op


def _fused_kernel(fused: Any, rank: int, axes: list[int], dtype: _dtypes.DType) -> bool:
    """Whether TF1's layer runs its fused kernel: 4-D input, channels on axis 3 or 1, a float
    type other than float64, unless ``fused=False``."""
    return (
        fused is not False
        and rank == 4
        and axes in ([3], [1])
        and dtype in (_dtypes.float16, _dtypes.float32)
    )


def batch_normalization(
    inputs: Any,
    axis: int | Sequence[int] = -1,
    momentum: float = 0.99,
    epsilon: float = 1e-3,
    center: bool = True,
    scale: bool = True,
    beta_initializer: Any = None,
    gamma_initializer: Any = None,
    moving_mean_initializer: Any = None,
    moving_variance_initializer: Any = None,
    beta_regularizer: Any = None,
    gamma_regularizer: Any = None,
    beta_constraint: Any = None,
    gamma_constraint: Any = None,
    training: Any = False,
    trainable: bool = True,
    name: str | None = None,
    reuse: Any = None,
    renorm: bool = False,
    renorm_clipping: Any = None,
    renorm_momentum: float = 0.99,
    fused: Any = None,
    virtual_batch_size: Any = None,
    adjustment: Any = None,
) -> Tensor:
    """``tf.layers.batch_normalization``: TF1's layer, in training and inference modes.

    ``training=True`` normalizes with the batch's mean and variance and puts the updates of
    ``moving_mean`` and ``moving_variance`` into ``GraphKeys.UPDATE_OPS`` (run them with
    the train step, as TF1 programs do); ``training=False`` normalizes with the moving
    statistics; a boolean placeholder chooses per run. The moving variance moves toward the
    batch's biased variance, except where TF1 runs its fused kernel (``fused`` not False, a
    4-D float16/float32 input with channels on axis 3 or 1): there toward the unbiased one,
    ``n / (n - 1)`` times it, as that kernel does. The output is normalized with the biased
    variance either way.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None, 2])
    ...     y = sg.layers.batch_normalization(x, training=True)
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         out = sess.run(y, {x: np.array([[0.0, 1.0], [2.0, 3.0]])})
    ...     np.round(out, 3).tolist(), len(sg.get_collection(sg.GraphKeys.UPDATE_OPS))
    ([[-1.0, -1.0], [1.0, 1.0]], 2)
    """
    unsupported = {
        "renorm": renorm,
        "virtual_batch_size": virtual_batch_size,
        "adjustment": adjustment,
        "beta_constraint": beta_constraint,
        "gamma_constraint": gamma_constraint,
    }
    for option, value in unsupported.items():
        if value:
            raise InvalidArgumentError(f"layers.batch_normalization: {option}= is not supported")
    x = convert_to_tensor(inputs)
    shape = _known_rank(x, "batch_normalization")
    rank = len(shape)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if not axes or any(not -rank <= a < rank for a in axes):
        raise ShapeError(
            f"layers.batch_normalization: axis={axis} is out of range for the input {x.name!r} "
            f"of shape {format_shape(shape)}"
        )
    axes = sorted({a % rank for a in axes})
    if any(shape[a] is None for a in axes):
        raise ShapeError(
            f"layers.batch_normalization: the input {x.name!r} of shape {format_shape(shape)} "
            f"needs a known size along axis {axis}"
        )
    reduction_axes = [a for a in range(rank) if a not in axes]
    # How the parameters broadcast against the input (TF1 reshapes them the same way).
    broadcast_shape = [int(shape[a]) if a in axes else 1 for a in range(rank)]  # type: ignore[arg-type]
    # One axis: a vector of parameters; several: TF1 keeps them in the broadcast shape.
    param_shape = [int(shape[a]) for a in axes] if len(axes) == 1 else broadcast_shape  # type: ignore[arg-type]
    dtype = x.dtype if x.dtype != _dtypes.float16 else _dtypes.float32
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        gamma = (
            get_variable(
                "gamma",
                param_shape,
                dtype=dtype,
                initializer=ones_initializer() if gamma_initializer is None else gamma_initializer,
                regularizer=gamma_regularizer,
                trainable=trainable,
            )
            if scale
            else None
        )
        beta = (
            get_variable(
                "beta",
                param_shape,
                dtype=dtype,
                initializer=zeros_initializer() if beta_initializer is None else beta_initializer,
                regularizer=beta_regularizer,
                trainable=trainable,
            )
            if center
            else None
        )
        moving_mean = get_variable(
            "moving_mean",
            param_shape,
            dtype=dtype,
            initializer=zeros_initializer()
            if moving_mean_initializer is None
            else moving_mean_initializer,
            trainable=False,
        )
        moving_variance = get_variable(
            "moving_variance",
            param_shape,
            dtype=dtype,
            initializer=ones_initializer()
            if moving_variance_initializer is None
            else moving_variance_initializer,
            trainable=False,
        )

        def normalize(mean: Tensor, variance: Tensor) -> Tensor:
            # Named as TF1's layer names it: the output is 'batchnorm/add_1'.
            with name_scope("batchnorm"), default_names([x], _ARITHMETIC_NAMES):
                return _normalized(mean, variance)

        def _normalized(mean: Tensor, variance: Tensor) -> Tensor:
            inv = rsqrt(add(variance, cast(epsilon, dtype)))
            if gamma is not None:
                inv = multiply(inv, gamma)
            inv = reshape(inv, broadcast_shape)
            offset = multiply(reshape(mean, broadcast_shape), inv)
            if beta is not None:
                offset = subtract(reshape(beta, broadcast_shape), offset)
            else:
                offset = subtract(cast(0.0, dtype), offset)
            return add(multiply(x, inv), offset)

        if training is None or (isinstance(training, bool) and not training):
            return normalize(moving_mean, moving_variance)
        batch_mean = reduce_mean(x, axis=reduction_axes)
        centered = subtract(x, reshape(batch_mean, broadcast_shape))
        batch_variance = reduce_mean(multiply(centered, centered), axis=reduction_axes)
        update_variance = batch_variance
        if _fused_kernel(fused, rank, axes, x.dtype):
            # TF1's fused kernel moves the moving variance toward the unbiased batch variance
            # (n / (n - 1) times the biased one, n the values per channel; 1 for n = 1).
            values = cast(size(x), dtype) / float(np.prod(param_shape))
            update_variance = multiply(batch_variance, values / maximum(values - 1.0, 1.0))
        if isinstance(training, Tensor):
            mean_used = where(training, batch_mean, moving_mean)
            variance_used = where(training, batch_variance, moving_variance)
            new_mean = where(training, batch_mean, moving_mean)
            new_variance = where(training, update_variance, moving_variance)
        else:
            mean_used, variance_used = batch_mean, batch_variance
            new_mean, new_variance = batch_mean, update_variance
        add_to_collection(
            GraphKeys.UPDATE_OPS, _moving_average_update(moving_mean, new_mean, momentum)
        )
        add_to_collection(
            GraphKeys.UPDATE_OPS, _moving_average_update(moving_variance, new_variance, momentum)
        )
        return normalize(mean_used, variance_used)


__all__ = [
    "average_pooling1d",
    "average_pooling2d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "separable_conv2d",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
]


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "layers", name)
