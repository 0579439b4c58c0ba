"""TF1-style dtypes backed by NumPy dtypes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import DTypeError


@dataclass(frozen=True)
class DType:
    """A tensor element type, e.g. ``symgrad.float32``.

    >>> import symgrad as sg
    >>> sg.float32.is_floating, sg.int32.is_integer
    (True, True)
    """

    name: str

    @property
    def numpy(self) -> np.dtype:
        # tf.string's values are Python bytes, held in NumPy object arrays (as TF1 returns them).
        return np.dtype(object) if self.name in ("string", "variant") else np.dtype(self.name)

    @property
    def is_string(self) -> bool:
        """Whether this is ``tf.string`` (values: ``bytes``; see :mod:`symgrad.string_ops`)."""
        return self.name == "string"

    @property
    def is_floating(self) -> bool:
        return self.name.startswith("float")

    @property
    def is_integer(self) -> bool:
        return self.name.startswith(("int", "uint"))

    @property
    def is_unsigned(self) -> bool:
        return self.name.startswith("uint") or self.name == "bool"

    @property
    def base_dtype(self) -> DType:
        """The dtype itself (TF1's ref dtypes have a base; symgrad's dtypes are all bases)."""
        return self

    @property
    def min(self) -> Any:
        """The least value of the dtype (TF1's ``DType.min``)."""
        return self._limits().min

    @property
    def max(self) -> Any:
        """The greatest value of the dtype (TF1's ``DType.max``).

        >>> import symgrad as sg
        >>> sg.uint8.max, sg.int8.min
        (255, -128)
        """
        return self._limits().max

    def _limits(self) -> Any:
        if self.is_bool:
            return _BoolLimits()
        return np.finfo(self.numpy) if self.is_floating else np.iinfo(self.numpy)

    @property
    def is_bool(self) -> bool:
        return self.name == "bool"

    @property
    def as_numpy_dtype(self) -> type:
        return self.numpy.type

    def __repr__(self) -> str:
        return f"symgrad.{self.name}"


class _BoolLimits:
    min, max = False, True


float16 = DType("float16")
float32 = DType("float32")
float64 = DType("float64")
int8 = DType("int8")
int16 = DType("int16")
int32 = DType("int32")
int64 = DType("int64")
uint8 = DType("uint8")
uint16 = DType("uint16")
uint32 = DType("uint32")
uint64 = DType("uint64")
bool_ = DType("bool")

# Every integer dtype keeps its width and wraps round on overflow, as TF's kernels do (and
# NumPy's arithmetic on arrays of that dtype).
ALL_DTYPES = (
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
    bool_,
)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
# TF1's ``tf.string``: values are Python ``bytes`` (NumPy object arrays of them). String
# tensors live on the host: the Session computes them in Python around the compiled module
# (symgrad.string_ops); no compiled op takes or gives one (Graph.create_op says so).
string = DType("string")
# What a loop saves for its gradient (a list of the values of each step): a Python object
# that generated code passes from the loop to its gradient, never an array.
variant = DType("variant")
# TF1's own spellings: NumPy reads "float" as float64, TF1 (``tf.as_dtype``) as float32.
_TF_ALIASES = {"float": float32, "double": float64, "half": float16}


def as_dtype(value: Any) -> DType:
    """Convert a DType, a NumPy dtype/type or a name like ``'float32'``.

    TF1's names win over NumPy's: ``"float"`` is float32 and ``"double"`` float64.

    >>> as_dtype("float"), as_dtype("double"), as_dtype(np.float64)
    (symgrad.float32, symgrad.float64, symgrad.float64)
    """
    if isinstance(value, DType):
        return value
    if value is bool:
        return bool_
    if value is float:
        return float32
    if value is int:
        return int32
    if isinstance(value, str) and value in _TF_ALIASES:
        return _TF_ALIASES[value]
    if (isinstance(value, str) and value == "string") or getattr(value, "name", None) == "string":
        return string
    name = getattr(value, "name", None)
    if isinstance(name, str) and name in _BY_NAME:  # e.g. a tf.DType
        return _BY_NAME[name]
    try:
        name = np.dtype(value).name
    except TypeError:
        raise DTypeError(
            f"symgrad: {value!r} is not a dtype; use one of {', '.join(d.name for d in ALL_DTYPES)}"
        ) from None
    if name not in _BY_NAME:
        raise DTypeError(
            f"symgrad: dtype {name} is not supported; use one of "
            f"{', '.join(d.name for d in ALL_DTYPES)}"
        )
    return _BY_NAME[name]


def infer_dtype(value: Any, op: str = "constant") -> DType:
    """The dtype TF would give a Python or NumPy value: floats are float32."""
    if isinstance(value, (np.ndarray, np.generic)):
        if value.dtype.kind not in "biuf":
            raise DTypeError(
                f"symgrad: {op}: cannot make a tensor of NumPy dtype {value.dtype.name} "
                f"(value {value!r:.60}): it is non-numeric"
            )
        if value.dtype.kind == "f" and value.dtype != np.float16:
            return as_dtype(value.dtype)
        if value.dtype.kind in "iub":
            return as_dtype(value.dtype)
        return as_dtype(value.dtype)
    try:
        array = np.asarray(value)
    except ValueError:
        raise DTypeError(
            f"symgrad: {op}: {value!r:.60} is not a rectangular array (ragged nested lists)"
        ) from None
    if array.dtype.kind == "b":
        return bool_
    if array.dtype.kind in "iu":
        return int32
    if array.dtype.kind == "f":
        return float32
    raise DTypeError(
        f"symgrad: {op}: cannot make a tensor of {type(value).__name__} "
        f"value {value!r:.60}: it is non-numeric"
    )


def holds_text(value: Any) -> bool:
    """Whether ``value`` is text: ``str``/``bytes``, a NumPy string or object array, or a
    (nested) list or tuple whose first leaf is ``str`` or ``bytes``."""
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SUO"
    return isinstance(value, (str, bytes, np.str_, np.bytes_))


def _as_bytes(item: Any, op: str) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode()
    raise DTypeError(
        f"symgrad: {op}: a tf.string value holds str or bytes, got "
        f"{type(item).__name__} {item!r:.60}"
    )


def string_array(value: Any, op: str) -> np.ndarray:
    """``value`` (``str``/``bytes``, nested lists of them, NumPy string or object arrays) as a
    NumPy object array of ``bytes``, the form of symgrad's ``tf.string`` values (``str`` is
    encoded as UTF-8, as TF1 does)."""
    try:
        raw = np.asarray(value, dtype=object)
    except ValueError:
        raise DTypeError(
            f"symgrad: {op}: {value!r:.60} is not a rectangular array (ragged nested lists)"
        ) from None
    array = np.empty(raw.shape, dtype=object)
    for index, item in np.ndenumerate(raw):
        array[index] = _as_bytes(item, op)
    return array
