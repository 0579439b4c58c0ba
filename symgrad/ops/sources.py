"""Source ops: constants, placeholders and variables, and value → tensor conversion."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, ShapeError
from ..graph import Tensor, get_default_graph
from ..shapes import as_shape, format_shape, is_fully_defined
from .registry import OpDef, register

# Sources have no SymPy rule of their own: the tracer turns them into inputs
# (placeholders, variables) or baked-in values (constants).
register(OpDef("Const", lower=None, gradient=None))
register(OpDef("Placeholder", lower=None, gradient=None))
register(OpDef("VariableV2", lower=None, gradient=None))


def _as_array(value: Any, dtype: _dtypes.DType | None, op: str) -> np.ndarray:
    if isinstance(value, Tensor):
        raise DTypeError(
            f"symgrad: {op}: expected a Python or NumPy value, got Tensor '{value.name}'"
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
    array = _as_array(value, target, "constant")
    if shape is not None:
        wanted = as_shape(shape)
        if not is_fully_defined(wanted):
            raise ShapeError(
                f"symgrad: constant: shape {format_shape(wanted)} must be fully defined"
            )
        if array.size == 1:
            array = np.full(wanted, array.reshape(()), dtype=array.dtype)  # type: ignore[arg-type]
        elif array.size == int(np.prod(wanted)):  # type: ignore[arg-type]
            array = array.reshape(wanted)  # type: ignore[arg-type]
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
        [(tuple(array.shape), _dtypes.as_dtype(array.dtype))],
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


def convert_to_tensor(value: Any, dtype: Any = None, name: str | None = None) -> Tensor:
    """A tensor as is (checking ``dtype``), or a new constant for a Python/NumPy value."""
    if isinstance(value, Tensor):
        if dtype is not None and _dtypes.as_dtype(dtype) != value.dtype:
            raise DTypeError(
                f"symgrad: tensor '{value.name}' has dtype {value.dtype.name}, "
                f"expected {_dtypes.as_dtype(dtype).name}"
            )
        return value
    return constant(value, dtype=dtype, name=name)


class Variable(Tensor):
    """A trainable value, a parameter of the generated function.

    Its initial value is kept for :class:`symgrad.Session` and as the default
    argument when a compiled function is called without it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable(2.0, name="weight")
    >>> w
    <symgrad.Variable 'weight:0' shape=() dtype=float32>
    """

    def __init__(
        self, initial_value: Any, name: str | None = None, dtype: Any = None, trainable: bool = True
    ) -> None:
        graph = get_default_graph()
        target = _dtypes.as_dtype(dtype) if dtype is not None else None
        if isinstance(initial_value, Tensor):
            initial = initial_value
            if target is not None and target != initial.dtype:
                from .elementwise import cast

                initial = cast(initial, target)
        else:
            initial = constant(
                initial_value, dtype=target, name=f"{name or 'Variable'}/initial_value"
            )
        if not is_fully_defined(initial.shape):
            raise ShapeError(
                f"symgrad: Variable: the initial value '{initial.name}' has shape "
                f"{format_shape(initial.shape)}; a variable needs a fully defined shape"
            )
        op = graph.create_op(
            "VariableV2", [], {}, [(initial.shape, initial.dtype)], name=name or "Variable"
        )
        op.auto_named = name is None
        super().__init__(op, 0, initial.shape, initial.dtype)
        op.outputs = (self,)
        self.initial_value = initial
        self.trainable = trainable
        # Set by a Session that stores a value other than the initial one (a training
        # step, an assign, load, restore): a compiled module then warns before it
        # falls back on the initial value.
        self.changed_in_session = False
        self._initializer: Any | None = None
        graph.add_to_collection("variables", self)
        if trainable:
            graph.add_to_collection("trainable_variables", self)

    def value(self) -> Tensor:
        return self

    @property
    def initializer(self) -> Any:
        """The op that sets this variable to its initial value."""
        if self._initializer is None:
            from .state import assign

            self._initializer = assign(self, self.initial_value, name=f"{self.op.name}/Assign").op
        return self._initializer

    def load(self, value: Any, session: Any = None) -> None:
        """Store ``value`` in this variable in ``session`` (default: the default session),
        without adding ops to the graph (TF1's ``Variable.load``).

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     w = sg.Variable([1.0, 2.0], name="w")
        ...     with sg.Session() as sess:
        ...         w.load([3.0, 4.0], sess)
        ...         print(sess.run(w))
        [3. 4.]
        """
        from ..session import get_default_session  # the session layer sits above the ops

        (session or get_default_session()).load_variable(self, value)

    def initialized_value(self) -> Tensor:
        return self.initial_value

    def assign(self, value: Any, name: str | None = None) -> Tensor:
        """A tensor holding ``value`` that stores it in this variable when run."""
        from .state import assign

        return assign(self, value, name)

    def assign_add(self, delta: Any, name: str | None = None) -> Tensor:
        from .state import assign_add

        return assign_add(self, delta, name)

    def assign_sub(self, delta: Any, name: str | None = None) -> Tensor:
        from .state import assign_sub

        return assign_sub(self, delta, name)

    def read_value(self) -> Tensor:
        from .elementwise import identity

        return identity(self)

    def __repr__(self) -> str:
        return (
            f"<symgrad.Variable '{self.name}' shape={format_shape(self.shape)} "
            f"dtype={self.dtype.name}>"
        )


def global_variables() -> list:
    """Every variable of the default graph, in creation order."""
    return get_default_graph().get_collection("variables")


def trainable_variables() -> list:
    """The variables created with ``trainable=True``."""
    return get_default_graph().get_collection("trainable_variables")
