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

import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
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
    if isinstance(output_shape, Tensor):
        fixed = constant_value(output_shape)
        if fixed is None:
            raise InvalidArgumentError(
                f"symgrad: {op_name}: output_shape '{output_shape.name}' must be a list or a "
                f"constant; the batch size is taken from '{dy.name}' at run time, so pass "
                f"[1, height, width, channels]"
            )
        output_shape = fixed.tolist()
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
    x = op.inputs[0]
    return [_op("MaxPoolGrad", [x, grad], _pool_attrs(op), x.shape, None)]


def _max_pool_grad_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _MaxPoolGradGrad: the routing is piecewise constant in x, so x gets zeros.
    x, dy = op.inputs
    return [zeros_like(x), _op("MaxPoolGradGrad", [x, grad], _pool_attrs(op), dy.shape, None)]


def _max_pool_grad_grad_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x = op.inputs[0]
    return [zeros_like(x), _op("MaxPoolGrad", [x, grad], _pool_attrs(op), x.shape, None)]


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
        lower=lambda op, xs: helper("_max_pool_grad", xs[0], xs[1], *_pool_arguments(op)),
        gradient=_max_pool_grad_gradient,
        signature=lambda op, sigs: sigs[0],
    )
)
register(
    OpDef(
        "MaxPoolGradGrad",
        lower=lambda op, xs: helper("_max_pool_grad_grad", xs[0], xs[1], *_pool_arguments(op)),
        gradient=_max_pool_grad_grad_gradient,
        signature=lambda op, sigs: sigs[1],
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
    "max_pool",
    "avg_pool",
    "max_pool2d",
    "avg_pool2d",
]
