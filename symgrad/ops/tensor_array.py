"""TF1's ``tf.TensorArray``: a list of equally shaped tensors written and read one row at
a time, the way TF1 programs collect a ``while_loop``'s per-step values.

Its value (its *flow*) is one array whose rows are the elements: ``read(i)`` is a gather,
``stack()`` the array itself, ``unstack(x)`` makes ``x`` the array, and ``write(i, v)`` a
``TensorArrayWrite`` op giving a copy with row i set (``_array_write``). Before the first
write the flow is a 0-d stand-in, and the write gives the rows their shape; an array of
``dynamic_size`` grows as rows past its end are written. A TensorArray passes through
``while_loop`` and ``cond`` as its flow (:mod:`symgrad.control_flow`), and the gradient flows
through writes and reads like through any other op.

Each write copies the array (NumPy's arrays are values here, not buffers a loop owns), so
writing n rows one by one costs n copies of up to n rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, get_default_graph
from ..shapes import Shape, as_shape, format_shape, is_fully_defined, shapes_compatible
from .base import _op, constant_value
from .creation import zeros
from .elementwise import cast, identity
from .functions import helper
from .gathering import gather
from .reductions import reduce_max
from .registry import OpDef, register
from .reshaping import reshape
from .shape_queries import shape as shape_of
from .sources import convert_to_tensor


def _write_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    flow, index, value = op.inputs
    before = _op("TensorArrayWriteGrad", [grad, flow, index], {}, flow.shape, grad.dtype, None)
    row = gather(grad, index)
    if value.shape is not None:  # the row has the value's shape (the flow's rank may be unknown)
        row.set_shape(value.shape)
    return [before, None, row]


def _no_second_derivative(op: Operation, grad: Tensor) -> list[Tensor | None]:
    raise InvalidArgumentError(
        f"symgrad: gradients: '{op.name}' is the gradient of a TensorArray write; a second "
        f"derivative through TensorArray.write is not supported"
    )


register(
    OpDef(
        "TensorArrayWrite",
        lower=lambda op, xs: helper("_array_write", xs[0], xs[1], xs[2], op.attrs["size"]),
        gradient=_write_gradient,
    )
)
register(
    OpDef(
        "SequenceMask",
        lower=lambda op, xs: helper("_sequence_mask", xs[0], xs[1], dtype="bool"),
        gradient=lambda op, grad: [None, None],
    )
)
register(
    OpDef(
        "TensorArrayWriteGrad",
        lower=lambda op, xs: helper("_array_write_grad", xs[0], xs[1], xs[2]),
        gradient=_no_second_derivative,
    )
)


def sequence_mask(
    lengths: Any, maxlen: Any = None, dtype: Any = _dtypes.bool_, name: str | None = None
) -> Tensor:
    """``[..., maxlen]`` of ``dtype``: position j of a sequence of length ``lengths[...]`` is
    ``j < length`` (TF1's ``sequence_mask``); ``maxlen`` defaults to the longest length and may
    be computed at run time.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.sequence_mask([1, 3], 4, dtype=sg.int32))())
    [[1 0 0 0]
     [1 1 1 0]]
    """
    lengths = convert_to_tensor(lengths)
    if not lengths.dtype.is_integer:
        raise DTypeError(
            f"symgrad: sequence_mask: lengths '{lengths.name}' must be integers, got "
            f"{lengths.dtype.name}"
        )
    if maxlen is None:
        maxlen = reduce_max(lengths)
    limit = convert_to_tensor(maxlen)
    fixed = constant_value(limit)
    static = None if fixed is None else int(fixed)
    shape = None if lengths.shape is None else (*lengths.shape, static)
    mask = _op("SequenceMask", [lengths, limit], {}, shape, _dtypes.bool_, name or "SequenceMask")
    target = _dtypes.as_dtype(dtype)
    return mask if target == _dtypes.bool_ else cast(mask, target)


class TensorArray:
    """TF1's ``tf.TensorArray(dtype, size, dynamic_size, ..., element_shape)``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None], name="x")
    ...     squares = sg.TensorArray(sg.float64, size=0, dynamic_size=True)
    ...     n = sg.shape(x)[0]
    ...     _, squares = sg.while_loop(
    ...         lambda i, acc: i < n, lambda i, acc: (i + 1, acc.write(i, x[i] * x[i])), [0, squares]
    ...     )
    ...     f = sg.compile(squares.stack())
    >>> f([1.0, 2.0, 3.0]).tolist()
    [1.0, 4.0, 9.0]
    """

    def __init__(
        self,
        dtype: Any,
        size: Any = None,
        dynamic_size: bool | None = None,
        clear_after_read: bool | None = None,
        tensor_array_name: str | None = None,
        handle: Any = None,
        flow: Any = None,
        infer_shape: bool = True,
        element_shape: Any = None,
        colocate_with_first_write_call: bool = True,
        name: str | None = None,
    ) -> None:
        del clear_after_read, tensor_array_name, colocate_with_first_write_call
        if handle is not None:
            raise InvalidArgumentError("symgrad: TensorArray: handle= is not supported")
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape: Shape = as_shape(element_shape) if element_shape is not None else None
        fixed = constant_value(size) if isinstance(size, Tensor) else size
        if size is None and flow is None:
            raise InvalidArgumentError("symgrad: TensorArray: give a size")
        # A size computed at run time lets the array grow as it is written (TF1 would fix it
        # when the array is made; the rows written are the same).
        self._size = -1 if self._dynamic or fixed is None else int(np.asarray(fixed))
        self._name = name or "TensorArray"
        if flow is not None:
            self._flow = convert_to_tensor(flow)
            return
        graph = get_default_graph()
        if (
            self._size >= 0
            and self._element_shape is not None
            and is_fully_defined(self._element_shape)
        ):
            self._flow = zeros([self._size, *self._element_shape], dtype=self._dtype)
        else:
            # The 0-d stand-in: its static shape is unknown, as the rows' shape is until the
            # first write.
            value = np.zeros((), dtype=self._dtype.numpy)
            self._flow = graph.create_op(
                "Const", [], {"value": value}, [(None, self._dtype)], name=f"{self._name}/flow"
            ).outputs[0]

    # -- what it is ------------------------------------------------------------------------
    @property
    def dtype(self) -> _dtypes.DType:
        return self._dtype

    @property
    def flow(self) -> Tensor:
        """The array of the rows written so far (a 0-d stand-in before the first write)."""
        return self._flow

    @property
    def element_shape(self) -> Shape:
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic

    def with_flow(self, flow: Tensor) -> TensorArray:
        """This array with another flow (what ``while_loop`` gives back for it)."""
        made = object.__new__(TensorArray)
        made.__dict__.update(self.__dict__)
        made._flow = flow
        return made

    # -- TF1's methods ---------------------------------------------------------------------
    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """A new TensorArray with row ``index`` set to ``value``."""
        value = convert_to_tensor(value)
        if value.dtype != self._dtype:
            raise DTypeError(
                f"symgrad: TensorArray.write: the array holds {self._dtype.name}, but "
                f"'{value.name}' is {value.dtype.name}"
            )
        shape = self._merged_shape(value.shape, "write", value)
        index = cast(convert_to_tensor(index), _dtypes.int32)
        rows = self._size if self._size >= 0 else None
        written = _op(
            "TensorArrayWrite",
            [self._flow, index, value],
            {"size": self._size},
            None if shape is None else (rows, *shape),
            self._dtype,
            name or "TensorArrayWrite",
        )
        made = self.with_flow(written)
        made._element_shape = shape
        return made

    def read(self, index: Any, name: str | None = None) -> Tensor:
        """Row ``index``."""
        row = gather(self._flow, cast(convert_to_tensor(index), _dtypes.int32), name=name)
        if self._element_shape is not None:
            row.set_shape(self._element_shape)
        return row

    def stack(self, name: str | None = None) -> Tensor:
        """The rows as one tensor ``[size, *element_shape]``."""
        stacked = identity(self._flow, name=name or "TensorArrayStack")
        if self._element_shape is not None:
            rows = self._size if self._size >= 0 else None
            stacked.set_shape([rows, *self._element_shape])
        return stacked

    def gather(self, indices: Any, element_shape: Any = None, name: str | None = None) -> Tensor:
        """The rows at ``indices``, stacked."""
        return gather(self._flow, cast(convert_to_tensor(indices), _dtypes.int32), name=name)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """A TensorArray whose rows are ``value``'s along its first axis."""
        value = convert_to_tensor(value)
        if value.dtype != self._dtype:
            raise DTypeError(
                f"symgrad: TensorArray.unstack: the array holds {self._dtype.name}, but "
                f"'{value.name}' is {value.dtype.name}"
            )
        if value.shape is not None and len(value.shape) == 0:
            raise ShapeError(f"symgrad: TensorArray.unstack: '{value.name}' is a scalar")
        made = self.with_flow(identity(value, name=name or "TensorArrayUnstack"))
        if value.shape is not None:
            made._element_shape = self._merged_shape(tuple(value.shape)[1:], "unstack", value)
        return made

    def concat(self, name: str | None = None) -> Tensor:
        """The rows joined along their first axis."""
        if self._element_shape is None or len(self._element_shape) == 0:
            raise ShapeError(
                "symgrad: TensorArray.concat: the rows need a known rank of at least 1"
            )
        return reshape(
            self._flow, [-1, *(-1 if d is None else d for d in self._element_shape[1:])], name=name
        )

    def size(self, name: str | None = None) -> Tensor:
        """The number of rows (the size given, or the rows written so far)."""
        if self._size >= 0:
            return convert_to_tensor(np.int32(self._size))
        return shape_of(self._flow, name=name)[0]

    def identity(self) -> TensorArray:
        return self

    def close(self, name: str | None = None) -> Any:
        """Nothing to release."""
        return None

    def _merged_shape(self, shape: Shape, method: str, value: Tensor) -> Shape:
        known = self._element_shape
        if known is None or shape is None:
            return known if shape is None or not self._infer_shape else shape
        if not shapes_compatible(known, shape):
            raise ShapeError(
                f"symgrad: TensorArray.{method}: '{value.name}' has shape "
                f"{format_shape(shape)}, but the array's rows are {format_shape(known)}"
            )
        return tuple(k if k is not None else s for k, s in zip(known, shape, strict=True))


__all__ = ["TensorArray", "sequence_mask"]
