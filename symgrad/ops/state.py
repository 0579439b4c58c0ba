"""State: variables, their assignments and initializers, and groups of ops.

An ``Assign`` op computes the variable's new value (it lowers to its value,
so compile() treats it as an identity); a :class:`symgrad.Session` that runs
it then stores that value. A ``NoOp`` groups ops through control inputs, as
``train_op`` and ``global_variables_initializer()`` do.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import (
    DTypeError,
    FailedPreconditionError,
    GraphMismatchError,
    InvalidArgumentError,
    ShapeError,
)
from ..graph import Operation, Tensor, get_default_graph, get_default_session
from ..shapes import format_shape, is_fully_defined, shapes_compatible
from .elementwise import _lower, _no_gradient, cast, identity, make_elementwise
from .registry import OpDef, register
from .sources import constant, convert_to_tensor

register(OpDef("Assign", lower=_lower, gradient=_no_gradient, elementwise=True, effectful=True))
register(OpDef("NoOp", lower=None, gradient=None))
# Values of a session's state: a Session feeds them (SESSION_STATE_OPS); computed, as in a
# Session where nothing is initialized yet, they are the variable's initial value and False.
register(
    OpDef(
        "InitializedValue",
        lower=_lower,
        gradient=lambda op, grad: [grad],
        elementwise=True,
    )
)
register(OpDef("IsVariableInitialized", lower=_lower, gradient=_no_gradient, elementwise=True))
SESSION_STATE_OPS = ("InitializedValue", "IsVariableInitialized")
# A variable is an input of the generated function (the tracer makes it one).
register(OpDef("VariableV2", lower=None, gradient=None))


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
        self,
        initial_value: Any,
        name: str | None = None,
        dtype: Any = None,
        trainable: bool = True,
        collections: Any = None,
        validate_shape: bool = True,
    ) -> None:
        graph = get_default_graph()
        target = _dtypes.as_dtype(dtype) if dtype is not None else None
        if isinstance(initial_value, Tensor):
            initial = initial_value
            if target is not None and target != initial.dtype:
                initial = cast(initial, target)
        else:
            # Outside any control_dependencies block, as TF1's init_scope does: a slot that an
            # optimizer creates under control_dependencies(UPDATE_OPS) must not make
            # global_variables_initializer run those updates too.
            with graph.control_dependencies(None):
                initial = constant(
                    initial_value, dtype=target, name=f"{name or 'Variable'}/initial_value"
                )
        # validate_shape=False (TF1): the variable's shape is unknown, and an assignment with
        # validate_shape=False may give it a value of another shape.
        shape = initial.shape if validate_shape else None
        if validate_shape and not is_fully_defined(initial.shape):
            raise ShapeError(
                f"symgrad: Variable: the initial value '{initial.name}' has shape "
                f"{format_shape(initial.shape)}; a variable needs a fully defined shape "
                f"(or validate_shape=False)"
            )
        # Outside control_dependencies too (TF1's init_scope): reading a variable made inside
        # a block runs nothing else (fetching an optimizer's slot ran the batch norm updates).
        with graph.control_dependencies(None):
            op = graph.create_op(
                "VariableV2", [], {}, [(shape, initial.dtype)], name=name or "Variable"
            )
        op.auto_named = name is None
        super().__init__(op, 0, shape, initial.dtype)
        op.outputs = (self,)
        self.initial_value = initial
        self.trainable = trainable
        # Set by a Session that stores a value other than the initial one (a training
        # step, an assign, load, restore): a compiled module then warns before it
        # falls back on the initial value.
        self.changed_in_session = False
        self._initializer: Any | None = None
        self._initialized_value: Tensor | None = None
        self._read: Tensor | None = None
        graph.make_on_demand(f"{op.name}/read", lambda: self.value().op)
        graph.make_on_demand(f"{op.name}/Assign", lambda: self.initializer)
        # TF1: the collections default to the global variables; a trainable variable is
        # also in the trainable ones, whatever collections say.
        keys = ["variables"] if collections is None else list(collections)
        if trainable and "trainable_variables" not in keys:
            keys.append("trainable_variables")
        for key in keys:
            graph.add_to_collection(key, self)

    def value(self) -> Tensor:
        """The variable's value as TF1 reads it: the tensor ``<name>/read:0``."""
        if self._read is None:
            with self.graph.control_dependencies(None), self.graph.name_scope(""):
                self._read = identity(self, name=f"{self.op.name}/read")
        return self._read

    def replace_initial_value(self, value: Tensor) -> None:
        """Make ``value`` this variable's initial value (what ``train.init_from_checkpoint``
        does): the initializer made from now on assigns it; one made before (and the
        ``global_variables_initializer`` holding it) still assigns the old one, as in TF1."""
        if value.graph is not self.graph:
            raise GraphMismatchError(
                f"symgrad: Variable '{self.name}': its new initial value '{value.name}' belongs "
                f"to another graph"
            )
        self.initial_value = value
        self._initializer = None
        self._initialized_value = None

    @property
    def initializer(self) -> Any:
        """The op that sets this variable to its initial value."""
        if self._initializer is None:
            # Outside control_dependencies (TF1's init_scope): initializing runs nothing else.
            with self.graph.control_dependencies(None):
                self._initializer = assign(
                    self, self.initial_value, name=f"{self.op.name}/Assign"
                ).op
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
        (session or get_default_session()).load_variable(self, value)

    def initialized_value(self) -> Tensor:
        """The variable's value once it is initialized, else its initial value (TF1's
        ``initialized_value``: what another variable's initial value should read).

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     a = sg.Variable(2.0, name="a")
        ...     b = sg.Variable(a.initialized_value() * 3.0, name="b")
        ...     with sg.Session() as sess:
        ...         _ = sess.run([a.initializer, b.initializer])
        ...         first = sess.run(b)
        ...         _ = sess.run(sg.assign(a, 10.0))
        ...         _ = sess.run(b.initializer)  # a is initialized now: its value counts
        ...         print(first, sess.run(b))
        6.0 30.0
        """
        if self._initialized_value is None:
            # Outside control_dependencies (TF1's init_scope): reading it runs nothing else.
            with self.graph.control_dependencies(None):
                self._initialized_value = make_elementwise(
                    "InitializedValue",
                    lambda a: a,
                    [self.initial_value],
                    f"{self.op.name}/initialized_value",
                    allowed="any",
                )
            self._initialized_value.op.attrs["variable"] = self
        return self._initialized_value

    def assign(
        self,
        value: Any,
        use_locking: bool | None = None,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        """A tensor holding ``value`` that stores it in this variable when run (with
        ``read_value=False``, the op that does).

        ``use_locking`` is accepted for TF1's sake: a Session applies every run's updates
        of a variable one after the other, as TF1 does with ``use_locking=True``.
        """
        return _read_or_op(assign(self, value, use_locking=use_locking, name=name), read_value)

    def assign_add(
        self,
        delta: Any,
        use_locking: bool | None = None,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return _read_or_op(assign_add(self, delta, use_locking, name), read_value)

    def assign_sub(
        self,
        delta: Any,
        use_locking: bool | None = None,
        name: str | None = None,
        read_value: bool = True,
    ) -> Any:
        return _read_or_op(assign_sub(self, delta, use_locking, name), read_value)

    def read_value(self) -> Tensor:
        return identity(self)

    def __repr__(self) -> str:
        return (
            f"<symgrad.Variable '{self.name}' shape={format_shape(self.shape)} "
            f"dtype={self.dtype.name}>"
        )


def global_variables(scope: str | None = None) -> list:
    """Every variable of the default graph, in creation order (with ``scope``, those whose
    name matches it from the start, as TF1 matches a regular expression)."""
    return get_default_graph().get_collection("variables", scope)


def local_variables(scope: str | None = None) -> list:
    """The variables in ``GraphKeys.LOCAL_VARIABLES`` (a streaming metric's counters), which
    ``global_variables_initializer`` leaves alone."""
    return get_default_graph().get_collection("local_variables", scope)


def trainable_variables(scope: str | None = None) -> list:
    """The variables created with ``trainable=True`` (``scope`` as in :func:`global_variables`)."""
    return get_default_graph().get_collection("trainable_variables", scope)


def model_variables(scope: str | None = None) -> list:
    """The variables in ``GraphKeys.MODEL_VARIABLES`` (TF1's ``tf.model_variables``)."""
    return get_default_graph().get_collection("model_variables", scope)


def _read_or_op(assigned: Tensor, read_value: bool) -> Any:
    """TF1's ``read_value``: the assigned value, or (False) the op that assigns it."""
    return assigned if read_value else assigned.op


def assign(
    ref: Variable,
    value: Any,
    validate_shape: bool | None = None,
    use_locking: bool | None = None,
    name: str | None = None,
) -> Tensor:
    """A tensor holding ``value``; running it stores that value in ``ref``.

    ``use_locking`` is accepted as in TF1 and needs no lock of its own: a Session applies
    the updates of one variable by concurrent runs one after the other. A variable keeps
    the shape it was made with unless it was made with ``validate_shape=False`` (its shape
    is then unknown, and any value fits); another shape is a clear ``ShapeError``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     counter = sg.Variable(0, name="counter")
    ...     increment = sg.assign(counter, counter + 1)
    ...     with sg.Session() as sess:
    ...         _ = sess.run(sg.global_variables_initializer())
    ...         print(sess.run(increment), sess.run(increment), sess.run(counter))
    1 2 2
    """
    if not isinstance(ref, Variable):
        raise InvalidArgumentError(
            f"symgrad: Assign: the target must be a Variable, got "
            f"{type(ref).__name__} {getattr(ref, 'name', ref)!r:.60}"
        )
    if isinstance(value, Tensor):
        if value.dtype != ref.dtype:
            raise DTypeError(
                f"symgrad: Assign: value '{value.name}' has dtype {value.dtype.name}, "
                f"variable '{ref.name}' has {ref.dtype.name}"
            )
    else:
        try:
            value = convert_to_tensor(value, dtype=ref.dtype)
        except (DTypeError, ShapeError) as error:
            raise DTypeError(
                f"symgrad: Assign: cannot assign {value!r:.60} to variable '{ref.name}' "
                f"({ref.dtype.name}{format_shape(ref.shape)}): {error}"
            ) from None
    if ref.shape is not None and (
        value.shape is None or not shapes_compatible(value.shape, ref.shape)
    ):
        kept = (
            " (validate_shape=False changes the shape only of a variable made with "
            "validate_shape=False)"
            if validate_shape is False
            else ""
        )
        raise ShapeError(
            f"symgrad: Assign: value '{value.name}' has shape {format_shape(value.shape)}, "
            f"variable '{ref.name}' has shape {format_shape(ref.shape)}{kept}"
        )
    out = make_elementwise(
        "Assign", lambda a: a, [value], name or f"{ref.op.name}/Assign", allowed="any"
    )
    out.op.attrs["variable"] = ref
    return out


def assign_add(
    ref: Variable, value: Any, use_locking: bool | None = None, name: str | None = None
) -> Tensor:
    """``ref + value``, stored in ``ref`` when run (``use_locking`` as in :func:`assign`)."""
    return assign(ref, ref + value, name=name or f"{ref.op.name}/AssignAdd")


def assign_sub(
    ref: Variable, value: Any, use_locking: bool | None = None, name: str | None = None
) -> Tensor:
    """``ref - value``, stored in ``ref`` when run (``use_locking`` as in :func:`assign`)."""
    return assign(ref, ref - value, name=name or f"{ref.op.name}/AssignSub")


def group(*inputs: Any, name: str | None = None) -> Operation:
    """One op that runs all ``inputs`` (ops or tensors) and outputs nothing."""
    items: list[Any] = []
    for item in inputs:
        items.extend(item if isinstance(item, (list, tuple)) else [item])
    control = [x.op if isinstance(x, Tensor) else x for x in items]
    for op in control:
        if not isinstance(op, Operation):
            raise InvalidArgumentError(
                f"symgrad: group: expected ops or tensors, got {type(op).__name__}"
            )
    graph = control[0].graph if control else get_default_graph()
    return graph.create_op("NoOp", [], {"control": control}, [], name=name or "NoOp")


def is_variable_initialized(variable: Variable, name: str | None = None) -> Tensor:
    """A bool tensor: whether ``variable`` holds a value in the session that runs it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     v = sg.Variable(1.0, name="v")
    ...     with sg.Session() as sess:
    ...         before = sess.run(sg.is_variable_initialized(v))
    ...         _ = sess.run(v.initializer)
    ...         print(before, sess.run(sg.is_variable_initialized(v)))
    False True
    """
    if not isinstance(variable, Variable):
        raise InvalidArgumentError(
            f"symgrad: is_variable_initialized: expected a Variable, got "
            f"{type(variable).__name__} {getattr(variable, 'name', variable)!r:.60}"
        )
    with variable.graph.control_dependencies(None):
        flag = make_elementwise(
            "IsVariableInitialized",
            lambda a: a,
            [constant(False)],
            name or f"{variable.op.name}/IsVariableInitialized",
            allowed="any",
        )
    flag.op.attrs["variable"] = variable
    return flag


class _VariablesCheck:
    """A fetch that reads whether each of some variables is initialized in the session that
    runs it (one ``is_variable_initialized`` flag each) and makes one result of the flags."""

    def __init__(self, var_list: Iterable[Variable] | None, what: str) -> None:
        variables = list(global_variables() + local_variables() if var_list is None else var_list)
        self.variables = variables
        self.name = what
        self._flags = [is_variable_initialized(v) for v in variables]

    def _symgrad_fetches(self) -> list[Tensor]:
        return self._flags

    def _uninitialized(self, values: list[Any]) -> list[str]:
        return [v.op.name for v, done in zip(self.variables, values, strict=True) if not done]


class UninitializedVariables(_VariablesCheck):
    """What ``report_uninitialized_variables`` gives; running it gives the names."""

    def _symgrad_combine(self, values: list[Any]) -> np.ndarray:
        names = [name.encode() for name in self._uninitialized(values)]
        return np.array(names, dtype=object).reshape(len(names))

    def __repr__(self) -> str:
        return f"<symgrad report_uninitialized_variables of {len(self.variables)} variables>"


class VariablesInitializedCheck(_VariablesCheck):
    """What ``assert_variables_initialized`` gives; running it checks, and gives the
    variables' ranks as TF1 does (one rank for one variable)."""

    def _symgrad_combine(self, values: list[Any]) -> Any:
        missing = self._uninitialized(values)
        if missing:
            raise FailedPreconditionError(
                f"symgrad: {self.name}: attempting to use uninitialized variables "
                f"{', '.join(missing)}"
            )
        ranks = [np.int32(-1 if v.shape is None else len(v.shape)) for v in self.variables]
        return ranks[0] if len(ranks) == 1 else np.array(ranks, dtype=np.int32)

    def __repr__(self) -> str:
        return f"<symgrad assert_variables_initialized of {len(self.variables)} variables>"


def report_uninitialized_variables(
    var_list: Iterable[Variable] | None = None, name: str = "report_uninitialized_variables"
) -> UninitializedVariables:
    """The names of the variables of ``var_list`` (default: every global and local variable)
    that are not initialized in the session that runs it, as TF1's 1-D array of bytes.

    TF1 gives a string tensor; here it is a fetch for ``Session.run`` (alone or among other
    fetches) that cannot go into other ops.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     a, b = sg.Variable(1.0, name="a"), sg.Variable(2.0, name="b")
    ...     with sg.Session() as sess:
    ...         _ = sess.run(a.initializer)
    ...         print(sess.run(sg.report_uninitialized_variables()))
    [b'b']
    """
    return UninitializedVariables(var_list, name)


def assert_variables_initialized(
    var_list: Iterable[Variable] | None = None,
) -> VariablesInitializedCheck:
    """A fetch whose run raises ``FailedPreconditionError`` naming the variables of
    ``var_list`` (default: every global and local one) not yet initialized (TF1's
    ``assert_variables_initialized``); when all are, it gives their ranks, as TF1 does
    (-1 for a variable made with ``validate_shape=False``)."""
    return VariablesInitializedCheck(var_list, "assert_variables_initialized")


def variables_initializer(var_list: Iterable[Variable], name: str = "init") -> Operation:
    """An op that sets every variable of ``var_list`` to its initial value."""
    return group([v.initializer for v in var_list], name=name)


def global_variables_initializer() -> Operation:
    """An op that initializes every variable of the default graph."""
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer


def local_variables_initializer() -> Operation:
    """An op that initializes every local variable of the default graph (TF1 runs it besides
    ``global_variables_initializer`` before streaming metrics are updated).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     count = sg.Variable(0.0, trainable=False, collections=[sg.GraphKeys.LOCAL_VARIABLES])
    ...     with sg.Session() as sess:
    ...         sess.run(sg.local_variables_initializer())
    ...         print(sess.run(count.assign_add(1.0)))
    1.0
    """
    return variables_initializer(local_variables(), name="init")


__all__ = [
    "assign",
    "assign_add",
    "assign_sub",
    "assert_variables_initialized",
    "group",
    "is_variable_initialized",
    "report_uninitialized_variables",
    "variables_initializer",
    "global_variables_initializer",
    "initialize_all_variables",
    "local_variables",
    "local_variables_initializer",
    "model_variables",
]
