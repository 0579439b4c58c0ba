"""Source ops: constants and placeholders, and value → tensor conversion.

Variables, which are sources too, live in :mod:`symgrad.ops.state` beside their
assignments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, ShapeError
from ..graph import Tensor, get_default_graph
from ..shapes import as_shape, format_shape, is_fully_defined
from .registry import OpDef, register

# Sources have no SymPy rule of their own: the tracer turns them into inputs
# (placeholders) or baked-in values (constants).
register(OpDef("Const", lower=None, gradient=None))
register(OpDef("Placeholder", lower=None, gradient=None))


def _as_array(value: Any, dtype: _dtypes.DType | None, op: str) -> np.ndarray:
    if isinstance(value, Tensor):
        raise DTypeError(
            f"symgrad: {op}: expected a Python or NumPy value, got Tensor '{value.name}'"
        )
    if holds_tensor(value):
        # As TF's constant: a tensor is not a value; convert_to_tensor and stack pack them.
        raise DTypeError(
            f"symgrad: {op}: expected a Python or NumPy value, got a list holding Tensor "
            f"'{_first_tensor(value).name}'; use symgrad.stack or symgrad.convert_to_tensor"
        )
    try:
        raw = np.asarray(value)
    except ValueError:
        raise ShapeError(
            f"symgrad: {op}: {value!r:.60} is not a rectangular array (ragged nested lists)"
        ) from None
    target = dtype or _dtypes.infer_dtype(value, op)
    if raw.dtype.kind not in "biuf":
        raise DTypeError(
            f"symgrad: {op}: cannot make a {target.name} tensor from non-numeric "
            f"value {value!r:.60} (NumPy dtype {raw.dtype})"
        )
    if (
        target.is_integer
        and raw.dtype.kind == "f"
        and not np.all(np.isfinite(raw) & (raw == np.round(raw)))
    ):
        raise DTypeError(
            f"symgrad: {op}: value {value!r:.60} is not exactly representable as {target.name}"
        )
    if target.is_bool and raw.dtype.kind != "b":
        raise DTypeError(
            f"symgrad: {op}: cannot make a bool tensor from {raw.dtype} value {value!r:.60}"
        )
    return raw.astype(target.numpy)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Tensor:
    """A constant tensor, baked into the generated code.

    Python floats give float32 and Python ints int32, as in TensorFlow.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     c = sg.constant([1.0, 2.0], name="c")
    >>> c.shape, c.dtype
    ((2,), symgrad.float32)
    """
    target = _dtypes.as_dtype(dtype) if dtype is not None else None
    if target == _dtypes.string or (target is None and _dtypes.holds_text(value)):
        array = _dtypes.string_array(value, "constant")
    else:
        array = _as_array(value, target, "constant")
    if shape is not None:
        wanted = as_shape(shape)
        if not is_fully_defined(wanted):
            raise ShapeError(
                f"symgrad: constant: shape {format_shape(wanted)} must be fully defined"
            )
        if array.size == 1:
            array = np.full(wanted, array.reshape(()), dtype=array.dtype)
        elif array.size == int(np.prod(wanted)):
            array = array.reshape(wanted)
        else:
            raise ShapeError(
                f"symgrad: constant: a value of shape {format_shape(array.shape)} "
                f"cannot fill shape {format_shape(wanted)}"
            )
    array.setflags(write=False)
    graph = get_default_graph()
    op = graph.create_op(
        "Const",
        [],
        {"value": array},
        [
            (
                tuple(array.shape),
                _dtypes.string if array.dtype == object else _dtypes.as_dtype(array.dtype),
            )
        ],
        name=name,
    )
    return op.outputs[0]


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> Tensor:
    """An input fed at run time; ``None`` dims (or ``shape=None``) accept any size.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 784], name="images")
    >>> x
    <symgrad.Tensor 'images:0' shape=(None, 784) dtype=float32>
    """
    try:
        dtype, shape = _dtypes.as_dtype(dtype), as_shape(shape)
    except (DTypeError, ShapeError) as error:
        detail = str(error).replace("symgrad: ", "", 1)
        raise type(error)(f"symgrad: Placeholder '{name or 'Placeholder'}': {detail}") from None
    op = get_default_graph().create_op("Placeholder", [], {}, [(shape, dtype)], name=name)
    return op.outputs[0]


def holds_tensor(value: Any) -> bool:
    """Whether ``value`` is a list or tuple holding a tensor, at any depth."""
    if not isinstance(value, (list, tuple)):
        return False
    return any(isinstance(item, Tensor) or holds_tensor(item) for item in value)


def _first_tensor(value: Any) -> Tensor:
    """The first tensor of a nested list or tuple that holds one (depth first)."""
    for item in value:
        if isinstance(item, Tensor):
            return item
        if holds_tensor(item):
            return _first_tensor(item)
    raise AssertionError("no tensor")  # callers check holds_tensor first


# ``stack``, installed by symgrad.ops.joining when it is imported: the ops convert their
# inputs with this module, so this module cannot import it (the ops package imports both).
PACKER: dict[str, Callable[..., Tensor]] = {}


def _pack(value: Any, dtype: _dtypes.DType, name: str | None, cast: bool = False) -> Tensor:
    """A nested list or tuple of tensors and values, packed (``stack``) level by level; with
    ``cast`` (a dtype the caller asked for), tensors of another dtype are cast to it, as TF
    casts them."""
    stack = PACKER["stack"]
    parts = []
    for item in value:
        if isinstance(item, Tensor):
            if item.dtype != dtype and not cast:
                raise DTypeError(
                    f"symgrad: packing a list of tensors: '{item.name}' has dtype "
                    f"{item.dtype.name}, the list's first tensor {dtype.name}; use symgrad.cast"
                )
            parts.append(item if item.dtype == dtype else PACKER["cast"](item, dtype))
        elif holds_tensor(item):
            parts.append(_pack(item, dtype, None, cast))
        else:
            parts.append(constant(item, dtype=dtype))
    if not parts:
        raise ShapeError("symgrad: packing a list of tensors: an empty list inside it")
    return stack(parts, name=name or "packed")


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """A tensor as is (checking ``dtype``), or a new constant for a Python/NumPy value.

    A list or tuple that holds tensors (nested ones too) is packed into one tensor along a new
    first axis (``stack``, named ``packed`` as in TF); its other values become constants of the
    first tensor's dtype (or of ``dtype``, to which its tensors are then cast, as in TF), and
    gradients flow through to each tensor. So ``reduce_sum([a, b])`` and ``stop_gradient([y])``
    take lists where TF does.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     a = sg.constant([1.0, 2.0])
    ...     packed = sg.convert_to_tensor([a, [3.0, 4.0]])
    ...     print(packed.shape, sg.compile(sg.reduce_sum(packed, axis=1))())
    (2, 2) [3. 7.]
    """
    if isinstance(value, Tensor):
        if dtype is not None and _dtypes.as_dtype(dtype) != value.dtype:
            raise DTypeError(
                f"symgrad: tensor '{value.name}' has dtype {value.dtype.name}, "
                f"expected {_dtypes.as_dtype(dtype).name}"
            )
        return value
    if holds_tensor(value):
        if dtype is not None:  # TF casts the list's tensors to the dtype asked for
            return _pack(value, _dtypes.as_dtype(dtype), name, cast=True)
        return _pack(value, _first_tensor(value).dtype, name)
    return constant(value, dtype=dtype, name=name)
