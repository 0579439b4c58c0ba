"""Convolutions and pooling (NHWC): conv2d, its two backprops (conv2d_transpose is the input
one), max_pool and avg_pool, with TF's gradients and second derivatives.

Each op lowers to a call of a helper of the generated module (``_conv2d``, ``_max_pool``,
... in ``templates/numpy/module.py.jinja``). The helpers work on whole arrays: the windows
of the padded input are a strided view (``sliding_window_view``), a convolution contracts
them with the filter in one ``tensordot``, and a gradient adds each filter tap's share back
with one strided slice per tap (never a loop over pixels).

TF's rules followed here (``tensorflow/python/ops/nn_ops.py``, ``nn_grad.py``):

* ``SAME`` pads ``max((ceil(n/s) - 1)*s + k - n, 0)`` elements along an axis, the odd one
  after (bottom/right); ``VALID`` pads none and needs ``n >= k``.
* A max-pool gradient goes, in each window, to the *first* maximum in row-major order;
  overlapping windows add up (recorded from TF 2.21, ``tests/tf_parity/programs_conv.py``).
* An ``avg_pool`` window at a ``SAME`` edge averages over its elements inside the input.
* The backprops are linear in each operand, so their gradients are conv2d and the other
  backprop (TF's ``_Conv2DBackpropInputGrad``/``_Conv2DBackpropFilterGrad``); max-pool's
  second derivative gathers at the same maxima (``MaxPoolGradGrad``) and is 0 in ``x``.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, get_default_graph
from ..shapes import Shape, format_shape, is_fully_defined, signature
from .array_nodes import shape_argument
from .base import constant_value
from .elementwise import zeros_like
from .functions import Literal, helper, literal
from .registry import OpDef, register
from .sources import convert_to_tensor

_PADDINGS = ("SAME", "VALID")


# --- attributes ---------------------------------------------------------------------------


def _pair(value: Any, op: str, what: str, default: int | None = None) -> tuple[int, int]:
    """TF's spellings of a 2-D window attribute as (height, width): an int, [h, w] or
    [1, h, w, 1] (NHWC; the batch and channel entries must be 1)."""
    if value is None and default is not None:
        return default, default
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    try:
        numbers = [operator.index(v) for v in items]
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"symgrad: {op}: {what} must be ints, got {value!r:.60}"
        ) from None
    if len(numbers) == 4:
        if numbers[0] != 1 or numbers[3] != 1:
            raise InvalidArgumentError(
                f"symgrad: {op}: {what} {numbers} must be 1 in the batch and channel "
                f"dimensions (NHWC)"
            )
        numbers = numbers[1:3]
    elif len(numbers) == 1:
        numbers = numbers * 2
    if len(numbers) != 2 or any(n < 1 for n in numbers):
        raise InvalidArgumentError(
            f"symgrad: {op}: {what} {value!r:.60} must be a positive int or a list of 1, 2 "
            f"or 4 positive ints"
        )
    return numbers[0], numbers[1]


def _padding(padding: Any, op: str) -> str:
    text = padding.upper() if isinstance(padding, str) else padding
    if text not in _PADDINGS:
        raise InvalidArgumentError(
            f"symgrad: {op}: padding must be 'SAME' or 'VALID', got {padding!r:.60}"
        )
    return str(text)


def _nhwc(data_format: Any, op: str) -> None:
    if data_format not in (None, "NHWC"):
        raise InvalidArgumentError(
            f"symgrad: {op}: data_format {data_format!r:.20} is not supported; symgrad "
            f"computes NHWC only (transpose NCHW input with tf.transpose(x, [0, 2, 3, 1]))"
        )


def _image(value: Any, op: str, what: str) -> Tensor:
    """``value`` as a 4-D floating tensor (unknown dims allowed, the rank must be known)."""
    x = convert_to_tensor(value)
    if not x.dtype.is_floating:
        raise DTypeError(
            f"symgrad: {op}: {what} '{x.name}' must be floating point, got {x.dtype.name}"
        )
    if x.shape is None or len(x.shape) != 4:
        raise ShapeError(
            f"symgrad: {op}: {what} '{x.name}' must be 4-D [batch, height, width, channels] "
            f"(NHWC), got shape {format_shape(x.shape)}"
        )
    return x


def _output_size(
    size: int | None, extent: int, stride: int, padding: str, op: str, of: str, axis: str
) -> int | None:
    """TF's output length along one spatial axis (``extent`` is the dilated window's)."""
    if size is None:
        return None
    if padding == "SAME":
        return -(-size // stride)
    if size < extent:
        raise ShapeError(
            f"symgrad: {op}: with padding 'VALID' the {axis} of {of} is {size}, smaller than "
            f"the window ({extent})"
        )
    return (size - extent) // stride + 1


def _spatial(
    x: Tensor,
    window: tuple[int, int],
    strides: tuple[int, int],
    dilations: tuple[int, int],
    padding: str,
    op: str,
) -> tuple[int | None, int | None]:
    assert x.shape is not None  # _image checked the rank
    return _output_hw(x.shape, window, strides, dilations, padding, op, f"'{x.name}'")


def _output_hw(
    shape: Sequence[int | None],
    window: tuple[int, int],
    strides: tuple[int, int],
    dilations: tuple[int, int],
    padding: str,
    op: str,
    of: str,
) -> tuple[int | None, int | None]:
    extents = [(k - 1) * d + 1 for k, d in zip(window, dilations, strict=True)]
    of = f"{of} {format_shape(tuple(shape))}"
    return (
        _output_size(shape[1], extents[0], strides[0], padding, op, of, "height"),
        _output_size(shape[2], extents[1], strides[1], padding, op, of, "width"),
    )


def _op(op_type: str, inputs: Sequence[Tensor], attrs: dict, shape: Shape, name: Any) -> Tensor:
    graph = inputs[0].graph
    dtype = inputs[0].dtype
    return graph.create_op(op_type, inputs, attrs, [(shape, dtype)], name=name).outputs[0]


def _text(value: str) -> Literal:
    """A string attribute as Python source (``'SAME'``)."""
    return Literal(repr(value))


def _batch_first(op: Operation, batch_of: Any) -> Any:
    """The output's shape signature: the batch dim of ``batch_of``, the rest static or fresh."""
    fresh = signature(op.outputs[0].shape, op.name)
    assert isinstance(fresh, tuple)  # every op here is 4-D
    return (batch_of[0],) + fresh[1:] if isinstance(batch_of, tuple) else fresh


# --- conv2d --------------------------------------------------------------------------------


def conv2d(
    input: Any,
    filter: Any = None,
    strides: Any = None,
    padding: Any = None,
    use_cudnn_on_gpu: bool = True,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
    filters: Any = None,
) -> Tensor:
    """TF1's ``nn.conv2d``: an NHWC ``input`` correlated with an HWIO ``filter``.

    ``strides`` and ``dilations`` are an int, ``[h, w]`` or ``[1, h, w, 1]``; ``padding`` is
    ``"SAME"`` (output ``ceil(n / stride)``, the odd padding element after) or ``"VALID"``.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 4, 4, 1])
    ...     y = sg.nn.conv2d(x, np.ones((2, 2, 1, 1), np.float32), [1, 2, 2, 1], "VALID")
    ...     print(y.shape, sg.compile(y)(np.ones((1, 4, 4, 1)))[0, :, :, 0].tolist())
    (None, 2, 2, 1) [[4.0, 4.0], [4.0, 4.0]]
    """
    op_name = "Conv2D"
    if filter is not None and filters is not None:
        raise InvalidArgumentError(f"symgrad: {op_name}: pass filter= or filters=, not both")
    _nhwc(data_format, op_name)
    x = _image(input, op_name, "input")
    w = convert_to_tensor(filters if filter is None else filter, dtype=x.dtype)
    kernel = w.shape[:2] if w.shape is not None and len(w.shape) == 4 else None
    if not is_fully_defined(kernel):
        raise ShapeError(
            f"symgrad: {op_name}: filter '{w.name}' must be 4-D [height, width, in_channels, "
            f"out_channels] with a static height and width, got shape {format_shape(w.shape)}"
        )
    assert w.shape is not None  # its kernel size is static
    assert x.shape is not None  # _image checked the rank
    if None not in (x.shape[3], w.shape[2]) and x.shape[3] != w.shape[2]:
        raise ShapeError(
            f"symgrad: {op_name}: input '{x.name}' {format_shape(x.shape)} has {x.shape[3]} "
            f"channels but filter '{w.name}' {format_shape(w.shape)} expects {w.shape[2]}"
        )
    if strides is None or padding is None:
        raise InvalidArgumentError(f"symgrad: {op_name}: strides and padding are required")
    stride = _pair(strides, op_name, "strides")
    dilation = _pair(dilations, op_name, "dilations")
    if stride != (1, 1) and dilation != (1, 1):
        # TF's kernels refuse the combination too.
        raise InvalidArgumentError(
            f"symgrad: {op_name}: strides {list(stride)} and dilations {list(dilation)} "
            f"cannot both be greater than 1"
        )
    pad = _padding(padding, op_name)
    height, width = _spatial(x, (kernel[0], kernel[1]), stride, dilation, pad, op_name)
    attrs = {"strides": stride, "dilations": dilation, "padding": pad}
    return _op(op_name, [x, w], attrs, (x.shape[0], height, width, w.shape[3]), name)


def atrous_conv2d(
    value: Any, filters: Any, rate: int, padding: str, name: str | None = None
) -> Tensor:
    """TF1's ``nn.atrous_conv2d``: ``conv2d`` with stride 1 and dilation ``rate``.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.nn.atrous_conv2d(np.ones((1, 5, 5, 1)), np.ones((2, 2, 1, 1)), 2, "VALID")
    ...     y.shape
    (1, 3, 3, 1)
    """
    return conv2d(value, filters, 1, padding, dilations=rate, name=name)


def _window_arguments(op: Operation) -> tuple[Any, ...]:
    return (
        literal(op.attrs["strides"]),
        literal(op.attrs["dilations"]),
        _text(op.attrs["padding"]),
    )


def _conv2d_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, w = op.inputs
    return [
        _backprop_input(grad, w, x, op.attrs),
        _backprop_filter(x, grad, w, op.attrs),
    ]


def _backprop_input(
    dy: Tensor, w: Tensor, like: Tensor | None, attrs: dict, **extra: Any
) -> Tensor:
    """The input gradient of conv2d: ``like`` (or the static ``shape`` in ``extra``) gives the
    input's shape, which the output's alone does not fix (SAME with stride 2: 2n or 2n - 1)."""
    shape = like.shape if like is not None else extra["shape"]
    assert shape is not None and w.shape is not None
    out = (dy.shape[0] if dy.shape is not None else None, shape[1], shape[2], w.shape[2])
    inputs = [dy, w] if like is None else [dy, w, like]
    return _op(
        "Conv2DBackpropInput",
        inputs,
        {**attrs, "shape": None if like is not None else tuple(shape)},
        out,
        extra.get("name"),
    )


def _backprop_filter(x: Tensor, dy: Tensor, w: Tensor, attrs: dict) -> Tensor:
    return _op("Conv2DBackpropFilter", [x, dy], {**attrs, "filter_shape": w.shape}, w.shape, None)


def _lower_backprop_input(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    if len(op.inputs) == 3:
        shape: Any = shape_argument(op.inputs[2], operands[2])
    else:
        shape = literal(op.attrs["shape"])
    return helper("_conv2d_backprop_input", operands[0], operands[1], shape, *_window_arguments(op))


def _lower_backprop_filter(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    kernel = literal(tuple(op.attrs["filter_shape"][:2]))
    return helper(
        "_conv2d_backprop_filter", operands[0], operands[1], kernel, *_window_arguments(op)
    )


def _backprop_input_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    dy, w = op.inputs[0], op.inputs[1]
    conv_attrs = {k: op.attrs[k] for k in ("strides", "dilations", "padding")}
    d_dy = _op("Conv2D", [grad, w], conv_attrs, dy.shape, None)
    d_w = _backprop_filter(grad, dy, w, conv_attrs)
    return [d_dy, d_w] + ([None] if len(op.inputs) == 3 else [])


def _backprop_filter_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, dy = op.inputs
    conv_attrs = {k: op.attrs[k] for k in ("strides", "dilations", "padding")}
    return [
        _backprop_input(dy, grad, x, conv_attrs),
        _op("Conv2D", [x, grad], conv_attrs, dy.shape, None),
    ]


def _has_like(op: Operation) -> tuple[int, ...]:
    return (2,) if len(op.inputs) == 3 and not is_fully_defined(op.inputs[2].shape) else ()


register(
    OpDef(
        "Conv2D",
        lower=lambda op, xs: helper("_conv2d", xs[0], xs[1], *_window_arguments(op)),
        gradient=_conv2d_gradient,
        signature=lambda op, sigs: _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "Conv2DBackpropInput",
        lower=_lower_backprop_input,
        gradient=_backprop_input_gradient,
        materialized_inputs=_has_like,
        shape_only_inputs=(2,),
        signature=lambda op, sigs: sigs[2] if len(sigs) == 3 else _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "Conv2DBackpropFilter",
        lower=_lower_backprop_filter,
        gradient=_backprop_filter_gradient,
        signature=lambda op, sigs: signature(op.outputs[0].shape, op.name),
    )
)


def _transpose_output_shape(output_shape: Any, dy: Tensor, op_name: str) -> Any:
    """``output_shape`` as a list whose height, width and channels the graph fixes. Its batch
    size may be computed at run time (TF1's ``tf.stack([tf.shape(x)[0], h, w, c])``, or such
    a list): the batch follows ``value`` (``dy``) at run time, so it is left None."""
    if isinstance(output_shape, Tensor):
        fixed = constant_value(output_shape)
        if fixed is not None:
            return fixed.tolist()
        op = output_shape.op
        if op.type == "Pack" and op.attrs["axis"] == 0 and len(op.inputs) == 4:
            items: list[Any] = list(op.inputs)
        else:
            items = []
    elif isinstance(output_shape, (list, tuple)) and any(
        isinstance(d, Tensor) for d in output_shape
    ):
        items = list(output_shape)
    else:
        return output_shape
    sizes: list[Any] = []
    for i, item in enumerate(items):
        fixed = constant_value(item) if isinstance(item, Tensor) else np.asarray(item)
        if fixed is None and i == 0 and item.shape == () and item.dtype.is_integer:
            sizes.append(None)  # the run-time batch size: value's
        elif fixed is not None and fixed.ndim == 0:
            sizes.append(fixed.item())
        else:
            sizes = []
            break
    if len(sizes) != 4:
        name = getattr(output_shape, "name", output_shape)
        raise InvalidArgumentError(
            f"symgrad: {op_name}: output_shape {name!r:.80} must be a list or a constant (its "
            f"batch size may be computed at run time, e.g. tf.shape(x)[0]: it is taken from "
            f"'{dy.name}'), with a static height, width and channels"
        )
    return sizes


def conv2d_transpose(
    value: Any = None,
    filter: Any = None,
    output_shape: Any = None,
    strides: Any = None,
    padding: str = "SAME",
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
    filters: Any = None,
    dilations: Any = None,
) -> Tensor:
    """TF1's ``nn.conv2d_transpose``: the gradient of ``conv2d`` in its input, applied to
    ``value``; ``output_shape`` is the shape of that conv2d's input (the batch follows
    ``value``). ``filter`` is [height, width, output_channels, in_channels].

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.nn.conv2d_transpose(
    ...         np.ones((1, 2, 2, 1), np.float32), np.ones((2, 2, 1, 1), np.float32),
    ...         [1, 4, 4, 1], [1, 2, 2, 1], "VALID")
    ...     print(sg.compile(y)()[0, :, :, 0].tolist()[0])
    [1.0, 1.0, 1.0, 1.0]
    """
    op_name = "conv2d_transpose"
    _nhwc(data_format, op_name)
    dy = _image(value if input is None else input, op_name, "value")
    w = convert_to_tensor(filters if filter is None else filter, dtype=dy.dtype)
    assert dy.shape is not None  # _image checked the rank
    if w.shape is None or len(w.shape) != 4 or not is_fully_defined(w.shape):
        raise ShapeError(
            f"symgrad: {op_name}: filter '{w.name}' must be 4-D [height, width, "
            f"output_channels, in_channels] and static, got shape {format_shape(w.shape)}"
        )
    output_shape = _transpose_output_shape(output_shape, dy, op_name)
    if output_shape is None or len(list(output_shape)) != 4:
        raise ShapeError(
            f"symgrad: {op_name}: output_shape {output_shape!r:.60} must have 4 entries (NHWC)"
        )
    shape = tuple(None if d is None else int(d) for d in output_shape)
    if shape[1] is None or shape[2] is None or shape[3] != w.shape[2]:
        raise ShapeError(
            f"symgrad: {op_name}: output_shape {list(output_shape)} must give a static height "
            f"and width and the filter '{w.name}' {format_shape(w.shape)}'s {w.shape[2]} "
            f"output channels"
        )
    if dy.shape[3] is not None and dy.shape[3] != w.shape[3]:
        raise ShapeError(
            f"symgrad: {op_name}: value '{dy.name}' {format_shape(dy.shape)} has {dy.shape[3]} "
            f"channels but filter '{w.name}' {format_shape(w.shape)} expects {w.shape[3]}"
        )
    stride = _pair(strides, op_name, "strides")
    dilation = _pair(dilations, op_name, "dilations", default=1)
    pad = _padding(padding, op_name)
    window = (w.shape[0], w.shape[1])
    expected = _output_hw(shape, window, stride, dilation, pad, op_name, "output_shape")
    if dy.shape[1:3] != expected and None not in dy.shape[1:3]:
        raise ShapeError(
            f"symgrad: {op_name}: value '{dy.name}' {format_shape(dy.shape)} has height and "
            f"width {tuple(dy.shape[1:3])}, but a conv2d of an input of shape "
            f"{tuple(shape)} gives {expected}"
        )
    attrs = {"strides": stride, "dilations": dilation, "padding": pad}
    return _backprop_input(dy, w, None, attrs, shape=shape, name=name)


# --- depthwise and separable convolutions -------------------------------------------------


def _depthwise_filter(value: Any, x: Tensor, op: str) -> Tensor:
    """``value`` as a depthwise filter [height, width, in_channels, channel_multiplier] of
    ``x``'s dtype, its height and width static, its channels ``x``'s."""
    w = convert_to_tensor(value, dtype=x.dtype)
    if w.shape is None or len(w.shape) != 4 or not is_fully_defined(w.shape[:2]):
        raise ShapeError(
            f"symgrad: {op}: filter '{w.name}' must be 4-D [height, width, in_channels, "
            f"channel_multiplier] with a static height and width, got shape "
            f"{format_shape(w.shape)}"
        )
    assert x.shape is not None  # _image checked the rank
    if None not in (x.shape[3], w.shape[2]) and x.shape[3] != w.shape[2]:
        raise ShapeError(
            f"symgrad: {op}: input '{x.name}' {format_shape(x.shape)} has {x.shape[3]} "
            f"channels but filter '{w.name}' {format_shape(w.shape)} expects {w.shape[2]}"
        )
    return w


def _depthwise_channels(w: Tensor) -> int | None:
    assert w.shape is not None
    c, m = w.shape[2], w.shape[3]
    return None if c is None or m is None else c * m


def depthwise_conv2d_native(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    """TF1's ``nn.depthwise_conv2d_native``: each channel ``c`` of the NHWC ``input``
    correlated with its own filters ``filter[:, :, c, :]`` ([height, width, in_channels,
    channel_multiplier]); output channel ``c * channel_multiplier + m`` is the ``m``-th.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = np.ones((1, 3, 3, 2), np.float32)
    ...     w = np.stack([np.ones((2, 2)), 2 * np.ones((2, 2))], -1)[..., None]
    ...     y = sg.nn.depthwise_conv2d_native(x, w.astype(np.float32), 1, "VALID")
    ...     print(y.shape, sg.compile(y)()[0, 0, 0].tolist())
    (1, 2, 2, 2) [4.0, 8.0]
    """
    op_name = "DepthwiseConv2dNative"
    _nhwc(data_format, op_name)
    x = _image(input, op_name, "input")
    w = _depthwise_filter(filter, x, op_name)
    assert x.shape is not None and w.shape is not None
    if strides is None or padding is None:
        raise InvalidArgumentError(f"symgrad: {op_name}: strides and padding are required")
    stride = _pair(strides, op_name, "strides")
    dilation = _pair(dilations, op_name, "dilations", default=1)
    if stride != (1, 1) and dilation != (1, 1):
        raise InvalidArgumentError(
            f"symgrad: {op_name}: strides {list(stride)} and dilations {list(dilation)} "
            f"cannot both be greater than 1"
        )
    if stride[0] != stride[1]:
        # TF's kernels refuse it at run time.
        raise InvalidArgumentError(
            f"symgrad: {op_name}: strides {list(stride)} differ; TF's depthwise convolution "
            f"supports equal strides in the row and column dimensions only"
        )
    pad = _padding(padding, op_name)
    height, width = _spatial(x, (w.shape[0], w.shape[1]), stride, dilation, pad, op_name)
    attrs = {"strides": stride, "dilations": dilation, "padding": pad}
    shape = (x.shape[0], height, width, _depthwise_channels(w))
    return _op(op_name, [x, w], attrs, shape, name)


def depthwise_conv2d(
    input: Any,
    filter: Any,
    strides: Any,
    padding: Any,
    rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    """TF1's ``nn.depthwise_conv2d``: ``depthwise_conv2d_native`` with the dilation ``rate``
    (or ``dilations``, its other name); a rate above 1 needs strides of 1, as TF's.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 7, 7, 3])
    ...     sg.nn.depthwise_conv2d(x, np.ones((3, 3, 3, 2)), [1, 1, 1, 1], "SAME", rate=2).shape
    (None, 7, 7, 6)
    """
    op_name = "depthwise_conv2d"
    if rate is not None and dilations is not None:
        raise InvalidArgumentError(f"symgrad: {op_name}: pass rate= or dilations=, not both")
    dilation = _pair(rate if dilations is None else dilations, op_name, "rate", default=1)
    stride = _pair(strides, op_name, "strides")
    if dilation != (1, 1) and stride != (1, 1):
        raise InvalidArgumentError(
            f"symgrad: {op_name}: strides > 1 not supported in conjunction with rate > 1 "
            f"(strides {list(stride)}, rate {list(dilation)})"
        )
    return depthwise_conv2d_native(
        input, filter, stride, padding, data_format or "NHWC", dilation, name or "depthwise"
    )


def separable_conv2d(
    input: Any,
    depthwise_filter: Any,
    pointwise_filter: Any,
    strides: Any,
    padding: Any,
    rate: Any = None,
    name: str | None = None,
    data_format: str | None = None,
    dilations: Any = None,
) -> Tensor:
    """TF1's ``nn.separable_conv2d``: ``depthwise_conv2d`` (with ``strides`` and ``rate``),
    then a 1x1 ``conv2d`` with ``pointwise_filter`` [1, 1, in_channels * channel_multiplier,
    out_channels] mixing the channels.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 8, 8, 3])
    ...     y = sg.nn.separable_conv2d(
    ...         x, np.ones((3, 3, 3, 2)), np.ones((1, 1, 6, 4)), [1, 2, 2, 1], "SAME")
    ...     y.shape
    (None, 4, 4, 4)
    """
    op_name = "separable_conv2d"
    graph = get_default_graph()
    with graph.name_scope(name or op_name):
        x = _image(input, op_name, "input")
        depthwise = _depthwise_filter(depthwise_filter, x, op_name)
        pointwise = convert_to_tensor(pointwise_filter, dtype=x.dtype)
        shape = pointwise.shape
        if shape is None or len(shape) != 4 or tuple(shape[:2]) != (1, 1):
            raise ShapeError(
                f"symgrad: {op_name}: pointwise_filter '{pointwise.name}' must be [1, 1, "
                f"in_channels * channel_multiplier, out_channels], got shape "
                f"{format_shape(shape)}"
            )
        channels = _depthwise_channels(depthwise)
        if None not in (channels, shape[2]) and channels != shape[2]:
            raise ShapeError(
                f"symgrad: {op_name}: pointwise_filter '{pointwise.name}' "
                f"{format_shape(shape)} expects {shape[2]} channels but the depthwise "
                f"filter '{depthwise.name}' {format_shape(depthwise.shape)} makes {channels}"
            )
        y = depthwise_conv2d(x, depthwise, strides, padding, rate, None, data_format, dilations)
        return conv2d(y, pointwise, [1, 1, 1, 1], "VALID", name="Conv2D")


def depthwise_conv2d_native_backprop_input(
    input_sizes: Any,
    filter: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    """TF1's ``nn.depthwise_conv2d_native_backprop_input``: the gradient of
    ``depthwise_conv2d_native`` in its input, of shape ``input_sizes`` (static)."""
    op_name = "DepthwiseConv2dNativeBackpropInput"
    _nhwc(data_format, op_name)
    dy = _image(out_backprop, op_name, "out_backprop")
    sizes = constant_value(input_sizes) if isinstance(input_sizes, Tensor) else input_sizes
    if sizes is None or len(list(sizes)) != 4:
        raise InvalidArgumentError(
            f"symgrad: {op_name}: input_sizes must be 4 static ints, got {input_sizes!r:.60}"
        )
    shape = tuple(int(d) for d in list(sizes))
    like = _image(np.zeros(shape, dy.dtype.as_numpy_dtype), op_name, "input")
    w = _depthwise_filter(filter, like, op_name)
    attrs = _depthwise_attrs(w, strides, dilations, padding, op_name)
    return _depthwise_backprop_input(dy, w, None, attrs, shape=shape, name=name)


def depthwise_conv2d_native_backprop_filter(
    input: Any,
    filter_sizes: Any,
    out_backprop: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    dilations: Any = (1, 1, 1, 1),
    name: str | None = None,
) -> Tensor:
    """TF1's ``nn.depthwise_conv2d_native_backprop_filter``: the gradient of
    ``depthwise_conv2d_native`` in its filter, of shape ``filter_sizes`` (static)."""
    op_name = "DepthwiseConv2dNativeBackpropFilter"
    _nhwc(data_format, op_name)
    x = _image(input, op_name, "input")
    dy = _image(out_backprop, op_name, "out_backprop")
    sizes = constant_value(filter_sizes) if isinstance(filter_sizes, Tensor) else filter_sizes
    if sizes is None or len(list(sizes)) != 4:
        raise InvalidArgumentError(
            f"symgrad: {op_name}: filter_sizes must be 4 static ints, got {filter_sizes!r:.60}"
        )
    w = _depthwise_filter(
        np.zeros(tuple(int(d) for d in list(sizes)), x.dtype.as_numpy_dtype), x, op_name
    )
    attrs = _depthwise_attrs(w, strides, dilations, padding, op_name)
    return _op(
        "DepthwiseConv2dNativeBackpropFilter",
        [x, dy],
        {**attrs, "filter_shape": w.shape},
        w.shape,
        name,
    )


def _depthwise_attrs(w: Tensor, strides: Any, dilations: Any, padding: Any, op: str) -> dict:
    return {
        "strides": _pair(strides, op, "strides"),
        "dilations": _pair(dilations, op, "dilations", default=1),
        "padding": _padding(padding, op),
    }


def _depthwise_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, w = op.inputs
    return [
        _depthwise_backprop_input(grad, w, x, op.attrs),
        _depthwise_backprop_filter(x, grad, w, op.attrs),
    ]


def _depthwise_backprop_input(
    dy: Tensor, w: Tensor, like: Tensor | None, attrs: dict, **extra: Any
) -> Tensor:
    """The input gradient of depthwise_conv2d_native: ``like`` (or the static ``shape`` in
    ``extra``) gives the input's shape."""
    shape = like.shape if like is not None else extra["shape"]
    assert shape is not None and w.shape is not None
    out = (dy.shape[0] if dy.shape is not None else None, shape[1], shape[2], w.shape[2])
    inputs = [dy, w] if like is None else [dy, w, like]
    return _op(
        "DepthwiseConv2dNativeBackpropInput",
        inputs,
        {**_window_attrs(attrs), "shape": None if like is not None else tuple(shape)},
        out,
        extra.get("name"),
    )


def _depthwise_backprop_filter(x: Tensor, dy: Tensor, w: Tensor, attrs: dict) -> Tensor:
    return _op(
        "DepthwiseConv2dNativeBackpropFilter",
        [x, dy],
        {**_window_attrs(attrs), "filter_shape": w.shape},
        w.shape,
        None,
    )


def _window_attrs(attrs: dict) -> dict:
    return {k: attrs[k] for k in ("strides", "dilations", "padding")}


def _lower_depthwise_backprop_input(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    if len(op.inputs) == 3:
        shape: Any = shape_argument(op.inputs[2], operands[2])
    else:
        shape = literal(op.attrs["shape"])
    return helper(
        "_depthwise_conv2d_backprop_input",
        operands[0],
        operands[1],
        shape,
        *_window_arguments(op),
    )


def _lower_depthwise_backprop_filter(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    kernel = literal(tuple(op.attrs["filter_shape"][:2]))
    return helper(
        "_depthwise_conv2d_backprop_filter",
        operands[0],
        operands[1],
        kernel,
        *_window_arguments(op),
    )


def _depthwise_backprop_input_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _DepthwiseConv2dNativeBackpropInputGrad: linear in dy and in the filter.
    dy, w = op.inputs[0], op.inputs[1]
    attrs = _window_attrs(op.attrs)
    d_dy = _op("DepthwiseConv2dNative", [grad, w], attrs, dy.shape, None)
    d_w = _depthwise_backprop_filter(grad, dy, w, attrs)
    return [d_dy, d_w] + ([None] if len(op.inputs) == 3 else [])


def _depthwise_backprop_filter_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _DepthwiseConv2dNativeBackpropFilterGrad.
    x, dy = op.inputs
    attrs = _window_attrs(op.attrs)
    return [
        _depthwise_backprop_input(dy, grad, x, attrs),
        _op("DepthwiseConv2dNative", [x, grad], attrs, dy.shape, None),
    ]


register(
    OpDef(
        "DepthwiseConv2dNative",
        lower=lambda op, xs: helper("_depthwise_conv2d", xs[0], xs[1], *_window_arguments(op)),
        gradient=_depthwise_gradient,
        signature=lambda op, sigs: _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "DepthwiseConv2dNativeBackpropInput",
        lower=_lower_depthwise_backprop_input,
        gradient=_depthwise_backprop_input_gradient,
        materialized_inputs=_has_like,
        shape_only_inputs=(2,),
        signature=lambda op, sigs: sigs[2] if len(sigs) == 3 else _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "DepthwiseConv2dNativeBackpropFilter",
        lower=_lower_depthwise_backprop_filter,
        gradient=_depthwise_backprop_filter_gradient,
        signature=lambda op, sigs: signature(op.outputs[0].shape, op.name),
    )
)


# --- pooling -------------------------------------------------------------------------------


def _pool(
    op_type: str,
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: Any,
    name: str | None,
) -> Tensor:
    _nhwc(data_format, op_type)
    x = _image(value, op_type, "value")
    assert x.shape is not None  # _image checked the rank
    if ksize is None or strides is None or padding is None:
        raise InvalidArgumentError(f"symgrad: {op_type}: ksize, strides and padding are required")
    window = _pair(ksize, op_type, "ksize")
    stride = _pair(strides, op_type, "strides")
    pad = _padding(padding, op_type)
    height, width = _spatial(x, window, stride, (1, 1), pad, op_type)
    attrs = {"ksize": window, "strides": stride, "padding": pad}
    return _op(op_type, [x], attrs, (x.shape[0], height, width, x.shape[3]), name)


def max_pool(
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    """TF1's ``nn.max_pool``: the maximum of each ``ksize`` window (NHWC).

    Its gradient goes, in each window, to the first maximum in row-major order, as TF's.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant(np.arange(16.0).reshape(1, 4, 4, 1))
    ...     y = sg.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    ...     print(sg.compile(y)()[0, :, :, 0].tolist())
    [[5.0, 7.0], [13.0, 15.0]]
    """
    return _pool(
        "MaxPool", value if input is None else input, ksize, strides, padding, data_format, name
    )


def avg_pool(
    value: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
    input: Any = None,
) -> Tensor:
    """TF1's ``nn.avg_pool``: the mean of each ``ksize`` window (NHWC); a ``SAME`` window at
    an edge averages over its elements inside the input only, as TF's.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant(np.arange(4.0).reshape(1, 2, 2, 1))
    ...     y = sg.nn.avg_pool(x, 2, 1, "SAME")
    ...     print(sg.compile(y)()[0, :, :, 0].tolist())
    [[1.5, 2.0], [2.5, 3.0]]
    """
    return _pool(
        "AvgPool", value if input is None else input, ksize, strides, padding, data_format, name
    )


def max_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """TF's ``nn.max_pool2d`` (``max_pool`` with ``input`` first)."""
    return max_pool(input, ksize, strides, padding, data_format, name)


def avg_pool2d(
    input: Any,
    ksize: Any,
    strides: Any,
    padding: Any,
    data_format: str = "NHWC",
    name: str | None = None,
) -> Tensor:
    """TF's ``nn.avg_pool2d`` (``avg_pool`` with ``input`` first)."""
    return avg_pool(input, ksize, strides, padding, data_format, name)


def _pool_arguments(op: Operation) -> tuple[Any, ...]:
    return (literal(op.attrs["ksize"]), literal(op.attrs["strides"]), _text(op.attrs["padding"]))


def _pool_attrs(op: Operation) -> dict:
    return {k: op.attrs[k] for k in ("ksize", "strides", "padding")}


def _max_pool_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's MaxPoolGrad takes the forward's output too: the kernel compares the windows
    # with it instead of finding their maxima again.
    x = op.inputs[0]
    return [_op("MaxPoolGrad", [x, op.outputs[0], grad], _pool_attrs(op), x.shape, None)]


def _max_pool_grad_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _MaxPoolGradGrad: the routing is piecewise constant in x, so x (and the pooled
    # y, a function of x) get zeros.
    x, y, dy = op.inputs
    routed = _op("MaxPoolGradGrad", [x, y, grad], _pool_attrs(op), dy.shape, None)
    return [zeros_like(x), zeros_like(y), routed]


def _max_pool_grad_grad_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, y = op.inputs[0], op.inputs[1]
    routed = _op("MaxPoolGrad", [x, y, grad], _pool_attrs(op), x.shape, None)
    return [zeros_like(x), zeros_like(y), routed]


def _avg_pool_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    return [_op("AvgPoolGrad", [grad, x], _pool_attrs(op), x.shape, None)]


def _avg_pool_grad_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    dy = op.inputs[0]
    return [_op("AvgPool", [grad], _pool_attrs(op), dy.shape, None), None]


def _static_like(op: Operation) -> tuple[int, ...]:
    return () if is_fully_defined(op.inputs[1].shape) else (1,)


register(
    OpDef(
        "MaxPool",
        lower=lambda op, xs: helper("_max_pool", xs[0], *_pool_arguments(op)),
        gradient=_max_pool_gradient,
        signature=lambda op, sigs: _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "MaxPoolGrad",
        lower=lambda op, xs: helper("_max_pool_grad", *xs, *_pool_arguments(op)),
        gradient=_max_pool_grad_gradient,
        signature=lambda op, sigs: sigs[0],
    )
)
register(
    OpDef(
        "MaxPoolGradGrad",
        lower=lambda op, xs: helper("_max_pool_grad_grad", *xs, *_pool_arguments(op)),
        gradient=_max_pool_grad_grad_gradient,
        signature=lambda op, sigs: sigs[1],  # the pooled y's shape
    )
)
register(
    OpDef(
        "AvgPool",
        lower=lambda op, xs: helper("_avg_pool", xs[0], *_pool_arguments(op)),
        gradient=_avg_pool_gradient,
        signature=lambda op, sigs: _batch_first(op, sigs[0]),
    )
)
register(
    OpDef(
        "AvgPoolGrad",
        lower=lambda op, xs: helper(
            "_avg_pool_grad", xs[0], shape_argument(op.inputs[1], xs[1]), *_pool_arguments(op)
        ),
        gradient=_avg_pool_grad_gradient,
        materialized_inputs=_static_like,
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[1],
    )
)

__all__ = [
    "atrous_conv2d",
    "conv2d",
    "conv2d_transpose",
    "depthwise_conv2d",
    "depthwise_conv2d_native",
    "depthwise_conv2d_native_backprop_filter",
    "depthwise_conv2d_native_backprop_input",
    "separable_conv2d",
    "max_pool",
    "avg_pool",
    "max_pool2d",
    "avg_pool2d",
]
