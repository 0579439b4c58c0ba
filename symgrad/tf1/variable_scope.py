"""Variables the TF1 way: ``variable_scope``, ``get_variable``, collections, regularizers.

TF1's rules (``tensorflow/python/ops/variable_scope.py``), kept here:

* a variable scope names variables: ``get_variable("W")`` inside
  ``variable_scope("layer1")`` is ``layer1/W``, whatever ``name_scope`` is open;
* entering a scope by its name also opens a name scope for ops, uniquified as
  name scopes are (``layer1_1/`` the second time) while the variable names stay;
  entering a scope *object* re-enters its original name scope;
* ``reuse`` is inherited by nested scopes and cannot be switched off inside them;
  ``reuse=True`` only finds existing variables, ``reuse=AUTO_REUSE`` finds or creates,
  otherwise a name may be created once;
* ``default_name`` is uniquified (``dense``, ``dense_1``...) when no name is given.

The store of variables and the stack of scopes live in the graph's collections, under
private keys, as TF1 keeps them, so a new graph starts afresh.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Graph, Tensor, get_default_graph
from ..ops.elementwise import abs as _abs
from ..ops.elementwise import cast, identity, multiply
from ..ops.nn_ops import l2_loss
from ..ops.reductions import reduce_sum
from ..ops.sources import constant
from ..ops.state import Variable
from ..shapes import as_shape, format_shape, is_fully_defined, shapes_compatible
from .init_ops import GlorotUniform


class VariableScopeError(InvalidArgumentError):
    """A ``get_variable`` that breaks the scope's reuse rule (TF1 raises ``ValueError``)."""


class GraphKeys:
    """TF1's standard collection names (the same strings as TF1's)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SUMMARIES = "summaries"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    METRIC_VARIABLES = "metric_variables"
    # The others TF1 defines: symgrad fills none of them, but programs name them.
    ACTIVATIONS = "activations"
    ASSET_FILEPATHS = "asset_filepaths"
    BIASES = "biases"
    CONCATENATED_VARIABLES = "concatenated_variables"
    COND_CONTEXT = "cond_context"
    EVAL_STEP = "eval_step"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    LOCAL_RESOURCES = "local_resources"
    QUEUE_RUNNERS = "queue_runners"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    READY_OP = "ready_op"
    RESOURCES = "resources"
    SAVEABLE_OBJECTS = "saveable_objects"
    SAVERS = "savers"
    SUMMARY_OP = "summary_op"
    TABLE_INITIALIZERS = "table_initializer"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    WEIGHTS = "weights"
    WHILE_CONTEXT = "while_context"


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE
"""``reuse=AUTO_REUSE``: create a variable if it does not exist, else return it."""

# Private collection keys (tuples cannot clash with a user's string keys).
_STORE_KEY = ("__variable_store",)
_SCOPE_KEY = ("__varscope",)
_COUNT_KEY = ("__varscope_counts",)


# --- collections ------------------------------------------------------------------------------


def add_to_collection(name: Any, value: Any) -> None:
    """Append ``value`` to the default graph's collection ``name``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.add_to_collection("mine", 1)
    ...     sg.add_to_collection("mine", 2)
    ...     sg.get_collection("mine")
    [1, 2]
    """
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names: Any, value: Any) -> None:
    """Append ``value`` to each collection of ``names`` (a name or a list of names)."""
    for name in [names] if isinstance(names, (str, tuple)) else names:
        add_to_collection(name, value)


def get_collection(key: Any, scope: str | None = None) -> list:
    """A copy of the default graph's collection ``key``; with ``scope``, only the items
    whose ``name`` starts with it (TF1 matches the scope as a regular expression from
    the start of the name).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     with sg.variable_scope("a"):
    ...         w = sg.get_variable("w", [2], initializer=lambda shape, dtype: np.zeros(shape))
    ...     v = sg.get_variable("v", [], initializer=lambda shape, dtype: np.zeros(shape))
    ...     [t.op.name for t in sg.get_collection(sg.GraphKeys.TRAINABLE_VARIABLES, "a")]
    ['a/w']
    """
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: Any) -> list:
    """The default graph's collection ``key`` itself (a list one may change in place)."""
    return get_default_graph().get_collection_ref(key)


# --- scopes -----------------------------------------------------------------------------------


class VariableScope:
    """A variable scope: its name and the defaults of the variables created in it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     with sg.variable_scope("layer1") as scope:
    ...         w = sg.get_variable("W", [2, 3])
    ...         scope.reuse_variables()
    ...         again = sg.get_variable("W")
    >>> scope.name, w.op.name, again is w
    ('layer1', 'layer1/W', True)
    """

    def __init__(
        self,
        reuse: Any,
        name: str = "",
        initializer: Any = None,
        regularizer: Any = None,
        dtype: Any = None,
        name_scope: str = "",
    ) -> None:
        self._reuse = reuse
        self._name = name
        self.initializer = initializer
        self.regularizer = regularizer
        self.dtype = _dtypes.as_dtype(dtype) if dtype is not None else _dtypes.float32
        self._name_scope = name_scope

    @property
    def name(self) -> str:
        return self._name

    @property
    def original_name_scope(self) -> str:
        """The name scope (with its ``/``) opened when this scope was first entered."""
        return self._name_scope

    @property
    def reuse(self) -> Any:
        return self._reuse

    def reuse_variables(self) -> None:
        """From now on, ``get_variable`` in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self.initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        self.regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        self.dtype = _dtypes.as_dtype(dtype)

    def get_variable(self, name: str, *args: Any, **kwargs: Any) -> Variable:
        """``get_variable`` inside this scope."""
        with variable_scope(self):
            return get_variable(name, *args, **kwargs)

    def __repr__(self) -> str:
        return f"<symgrad.VariableScope {self._name!r} reuse={self._reuse}>"


def _scope_stack(graph: Graph) -> list[VariableScope]:
    stack = graph.get_collection_ref(_SCOPE_KEY)
    if not stack:
        stack.append(VariableScope(False))
    return stack


def _store(graph: Graph) -> dict[str, Variable]:
    ref = graph.get_collection_ref(_STORE_KEY)
    if not ref:
        ref.append({})
    return ref[0]


def get_variable_scope() -> VariableScope:
    """The innermost variable scope of the default graph (the root one has name ``""``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     with sg.variable_scope("outer"):
    ...         with sg.variable_scope("inner"):
    ...             print(sg.get_variable_scope().name)
    outer/inner
    """
    return _scope_stack(get_default_graph())[-1]


def _scope_counts(graph: Graph) -> dict[str, int]:
    """How often each variable scope name is open, TF1's ``variable_scopes_count``."""
    ref = graph.get_collection_ref(_COUNT_KEY)
    if not ref:
        ref.append({})
    return ref[0]


def _unique_default_name(graph: Graph, parent: str, default_name: str) -> str:
    """``default_name``, else ``default_name_1``...: the first name not used in ``parent``
    since ``parent`` was entered (TF1's ``_get_unique_variable_scope``)."""
    counts = _scope_counts(graph)
    base = f"{parent}/{default_name}" if parent else default_name
    if counts.get(base, 0) == 0:
        return default_name
    index = 1
    while counts.get(f"{base}_{index}", 0) > 0:
        index += 1
    return f"{default_name}_{index}"


@contextlib.contextmanager
def variable_scope(
    name_or_scope: str | VariableScope | None,
    default_name: str | None = None,
    values: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    reuse: Any = None,
    dtype: Any = None,
    auxiliary_name_scope: bool = True,
    **_ignored: Any,
) -> Iterator[VariableScope]:
    """Open a variable scope: it prefixes ``get_variable`` names and sets their defaults.

    ``name_or_scope`` is a name (relative to the current scope), a :class:`VariableScope`
    to re-enter, or ``None`` with a ``default_name`` made unique (``dense``, ``dense_1``).
    ``reuse`` is ``True``, ``AUTO_REUSE`` or ``None``/``False`` (inherit the parent's).
    Ops created inside get a name scope named after the scope's last part, made unique
    as name scopes are (``layer1_1/`` the second time), as in TF1.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     def layer(x):
    ...         with sg.variable_scope("dense", reuse=sg.AUTO_REUSE):
    ...             w = sg.get_variable("w", [3, 2])
    ...             return sg.matmul(x, w)
    ...     x = sg.placeholder(sg.float32, [None, 3])
    ...     a, b = layer(x), layer(x)
    ...     [v.op.name for v in sg.trainable_variables()]
    ['dense/w']
    """
    del values  # TF1 uses them only to pick the graph
    if name_or_scope is None and default_name is None:
        raise InvalidArgumentError(
            "symgrad: variable_scope: give a name_or_scope or a default_name"
        )
    if name_or_scope is None and reuse:
        raise InvalidArgumentError(
            "symgrad: variable_scope: reuse=True cannot be used without a name_or_scope"
        )
    if name_or_scope is not None and not isinstance(name_or_scope, (str, VariableScope)):
        raise DTypeError(
            "symgrad: variable_scope: name_or_scope must be a string or a VariableScope, "
            f"got {type(name_or_scope).__name__}"
        )
    graph = get_default_graph()
    stack = _scope_stack(graph)
    parent = stack[-1]
    counts = _scope_counts(graph)
    with contextlib.ExitStack() as exits:
        if not auxiliary_name_scope:
            current = graph.get_name_scope()
            op_scope = exits.enter_context(graph.name_scope(current + "/" if current else ""))
        if isinstance(name_or_scope, VariableScope):
            base = name_or_scope
            new_name = base.name
            leaf = new_name.rpartition("/")[2]
            if auxiliary_name_scope and leaf:
                exits.enter_context(graph.name_scope(leaf))
            op_scope = base.original_name_scope
            # A scope object keeps its own reuse (not the parent's), as in TF1.
            new_reuse = reuse if reuse else base.reuse
        else:
            base = parent
            if name_or_scope is None:
                assert default_name is not None
                if auxiliary_name_scope:
                    op_scope = exits.enter_context(graph.name_scope(default_name))
                relative = _unique_default_name(graph, parent.name, default_name)
            else:
                relative = name_or_scope
                if auxiliary_name_scope:
                    op_scope = exits.enter_context(graph.name_scope(relative))
            new_name = f"{parent.name}/{relative}" if parent.name else relative
            # Reuse is inherited: a nested scope cannot switch it off.
            new_reuse = reuse or parent.reuse
        scope = VariableScope(
            new_reuse,
            name=new_name,
            initializer=initializer if initializer is not None else base.initializer,
            regularizer=regularizer if regularizer is not None else base.regularizer,
            dtype=dtype if dtype is not None else base.dtype,
            name_scope=op_scope,
        )
        counts[new_name] = counts.get(new_name, 0) + 1
        saved_counts = dict(counts) if isinstance(name_or_scope, VariableScope) else None
        stack.append(scope)
        try:
            yield scope
        finally:
            stack.pop()
            if saved_counts is not None:
                counts.clear()
                counts.update(saved_counts)
            else:
                # Leaving a scope forgets the default names used inside it, so entering
                # it again gives the same names (how layers find their variables again).
                prefix = new_name + "/"
                for key in counts:
                    if key.startswith(prefix):
                        counts[key] = 0


# --- slots ------------------------------------------------------------------------------------


def slot_variable(primary: Tensor, value: Any, name: str) -> Variable:
    """A variable that keeps state for ``primary`` (an optimizer's accumulator, a moving
    average), named as TF1's ``slot_creator`` names it: ``<variable scope>/<primary's
    name>/<name>``, then ``<name>_1``, ``<name>_2``... for the next slots of that name (Adam's
    ``w/Adam`` and ``w/Adam_1``, a second Adam's ``w/Adam_2``); not trainable, and made
    outside any control dependency (TF1's ``init_scope``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable([1.0], name="w")
    ...     with sg.variable_scope("train"):
    ...         first, second = slot_variable(w, [0.0], "Adam"), slot_variable(w, [0.0], "Adam")
    ...     first.op.name, second.op.name
    ('train/w/Adam', 'train/w/Adam_1')
    """
    graph = primary.graph
    with (
        graph.as_default(),
        graph.control_dependencies(None),
        variable_scope(None, f"{primary.op.name}/{name}", auxiliary_name_scope=False) as scope,
    ):
        if scope.reuse is True:
            raise VariableScopeError(
                f"symgrad: Variable {scope.name} does not exist, or was not created with "
                f"get_variable(): a slot of '{primary.name}' is made in a scope with "
                f"reuse=True; create the optimizer outside it, or use reuse=AUTO_REUSE"
            )
        with graph.name_scope(""):
            return Variable(value, name=scope.name, trainable=False)


# --- get_variable -----------------------------------------------------------------------------


def _default_initializer(shape: tuple[int, ...], dtype: _dtypes.DType) -> Any:
    """TF1's default initializer: ``glorot_uniform_initializer()`` for floating variables
    (a random op, so ``set_random_seed`` decides its numbers), zeros otherwise."""
    if not dtype.is_floating:
        return np.zeros(shape, dtype=dtype.numpy)
    return GlorotUniform()(list(shape), dtype=dtype)


def _is_value(initializer: Any) -> bool:
    """A Tensor or a NumPy/Python value: the variable's initial value itself."""
    return isinstance(initializer, (Tensor, np.ndarray, np.generic, list, tuple, int, float))


def _call_initializer(initializer: Any, shape: tuple[int, ...], dtype: _dtypes.DType) -> Any:
    """``init(shape, dtype=..., partition_info=None)``, without ``partition_info`` for an
    initializer that does not take it (TF1 passes it only then)."""
    if inspect.isclass(initializer):
        initializer = initializer()
    try:
        parameters = list(inspect.signature(initializer).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        parameters = []
    takes_partition = any(
        p.name == "partition_info" or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters
    )
    if takes_partition:
        return initializer(list(shape), dtype=dtype, partition_info=None)
    return initializer(list(shape), dtype=dtype)


def get_variable(
    name: str,
    shape: Any = None,
    dtype: Any = None,
    initializer: Any = None,
    regularizer: Any = None,
    trainable: bool | None = None,
    collections: Any = None,
    caching_device: Any = None,
    partitioner: Any = None,
    validate_shape: bool = True,
    use_resource: Any = None,
    custom_getter: Any = None,
    constraint: Any = None,
    **_ignored: Any,
) -> Variable:
    """The variable ``<scope>/name``: created, or found when the scope reuses variables.

    ``initializer`` is an initializer (called as ``init(shape, dtype=...)``), a Tensor or a
    NumPy/Python value (then ``shape`` comes from it and must not be given), or ``None``:
    the scope's initializer, else TF1's default (Glorot uniform for floats, zeros
    otherwise). ``regularizer(variable)`` (or the scope's) adds its loss to
    ``GraphKeys.REGULARIZATION_LOSSES``. Raises ``ValueError`` (a :class:`VariableScopeError`)
    as TF1 does: creating an existing name without reuse, or reusing one that does not exist.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     with sg.variable_scope("layer1"):
    ...         w = sg.get_variable("W", [2, 2], initializer=lambda shape, dtype: np.zeros(shape))
    ...     try:
    ...         with sg.variable_scope("layer1"):
    ...             sg.get_variable("W", [2, 2])
    ...     except ValueError as error:
    ...         print(str(error)[:55])
    symgrad: Variable layer1/W already exists, disallowed.
    """
    del caching_device, partitioner, use_resource, constraint, validate_shape
    graph = get_default_graph()
    scope = _scope_stack(graph)[-1]
    if custom_getter is not None:
        raise InvalidArgumentError("symgrad: get_variable: custom_getter is not supported")
    full_name = f"{scope.name}/{name}" if scope.name else str(name)
    store = _store(graph)
    wanted_shape = as_shape(shape) if shape is not None else None
    wanted_dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    reuse = scope.reuse
    if full_name in store:
        if reuse is not True and reuse is not AUTO_REUSE:
            raise VariableScopeError(
                f"symgrad: Variable {full_name} already exists, disallowed. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
        found = store[full_name]
        if wanted_shape is not None and not shapes_compatible(wanted_shape, found.shape):
            raise ShapeError(
                f"symgrad: Trying to share variable {full_name}, but specified shape "
                f"{format_shape(wanted_shape)} and found shape {format_shape(found.shape)}."
            )
        if wanted_dtype is not None and wanted_dtype != found.dtype:
            raise DTypeError(
                f"symgrad: Trying to share variable {full_name}, but specified dtype "
                f"{wanted_dtype.name} and found dtype {found.dtype.name}."
            )
        return found
    if reuse is True:
        raise VariableScopeError(
            f"symgrad: Variable {full_name} does not exist, or was not created with "
            "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?"
        )
    if initializer is None:
        initializer = scope.initializer
    var_dtype = wanted_dtype or scope.dtype
    from_value = initializer is not None and _is_value(initializer)
    if from_value and shape is not None:
        raise InvalidArgumentError(
            f"symgrad: get_variable {full_name}: If initializer is a constant, do not specify shape."
        )
    if not from_value and not is_fully_defined(wanted_shape):
        raise ShapeError(
            f"symgrad: get_variable: Shape of a new variable ({full_name}) must be fully "
            f"defined, but instead was {format_shape(wanted_shape)}."
        )
    # The variable and its initial value are named from the variable scope alone: a
    # name_scope open around get_variable changes op names, not variable names (TF1).
    # Outside any control_dependencies block, as TF1's init_scope makes variables: a layer
    # built under control_dependencies(UPDATE_OPS) must not make its initializer run them.
    with graph.control_dependencies(None), graph.name_scope(""):
        with graph.name_scope(f"{full_name}/Initializer/"):
            if from_value:
                if isinstance(initializer, Tensor):
                    initial = (
                        initializer
                        if wanted_dtype is None or initializer.dtype == wanted_dtype
                        else cast(initializer, wanted_dtype)
                    )
                else:
                    initial = constant(initializer, dtype=wanted_dtype)
            else:
                assert is_fully_defined(wanted_shape)
                if initializer is None:
                    value = _default_initializer(wanted_shape, var_dtype)
                else:
                    value = _call_initializer(initializer, wanted_shape, var_dtype)
                initial = value if isinstance(value, Tensor) else constant(value, dtype=var_dtype)
                if initial.dtype != var_dtype:
                    initial = cast(initial, var_dtype)
        if trainable is None:
            trainable = True
        # TF1: explicit collections replace the global one, and a trainable variable is
        # in the trainable ones whatever they say (Variable's rule).
        variable = Variable(
            initial,
            name=full_name,
            trainable=trainable,
            collections=None if collections is None else list(collections),
        )
    store[full_name] = variable
    regularizer = regularizer if regularizer is not None else scope.regularizer
    if regularizer is not None:
        with graph.name_scope(""), graph.name_scope(f"{full_name}/Regularizer/"):
            loss = regularizer(variable)
        if loss is not None:
            graph.add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return variable


# --- regularizers -----------------------------------------------------------------------------


def _check_scale(scale: Any, kind: str) -> float:
    if isinstance(scale, (int, float, np.number)) and not isinstance(scale, bool):
        if scale < 0.0:
            raise InvalidArgumentError(
                f"symgrad: {kind}: setting a scale less than 0 on a regularizer: {scale}"
            )
        return float(scale)
    raise InvalidArgumentError(f"symgrad: {kind}: scale must be a number, got {scale!r}")


def l2_regularizer(scale: float, scope: str | None = None) -> Callable[[Tensor], Tensor | None]:
    """TF1's ``contrib.layers.l2_regularizer``: ``scale · sum(w²) / 2`` (``None`` for scale 0).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.get_variable("w", initializer=[1.0, 2.0],
    ...                         regularizer=sg.contrib.layers.l2_regularizer(0.1))
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         print(round(float(sess.run(sg.losses.get_regularization_loss())), 4))
    0.25
    """
    scale = _check_scale(scale, "l2_regularizer")

    def l2(weights: Tensor) -> Tensor | None:
        if scale == 0.0:
            return None
        # TF1's op: scale * l2_loss(w), l2_loss = sum(w**2) / 2.
        factor = constant(scale, dtype=weights.dtype, name="scale")
        return multiply(factor, l2_loss(weights), name="l2_regularizer")

    return l2


def l1_regularizer(scale: float, scope: str | None = None) -> Callable[[Tensor], Tensor | None]:
    """TF1's ``contrib.layers.l1_regularizer``: ``scale · sum(|w|)`` (``None`` for scale 0)."""
    scale = _check_scale(scale, "l1_regularizer")

    def l1(weights: Tensor) -> Tensor | None:
        if scale == 0.0:
            return None
        factor = constant(scale, dtype=weights.dtype, name="scale")
        return multiply(factor, reduce_sum(_abs(weights)), name="l1_regularizer")

    return l1


def l1_l2_regularizer(
    scale_l1: float = 1.0, scale_l2: float = 1.0, scope: str | None = None
) -> Callable[[Tensor], Tensor | None]:
    """TF1's ``contrib.layers.l1_l2_regularizer``: the sum of both (``None`` if both are 0)."""
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)])


def sum_regularizer(
    regularizer_list: list[Any], scope: str | None = None
) -> Callable[[Tensor], Tensor | None]:
    """TF1's ``contrib.layers.sum_regularizer``: the sum of the regularizers' losses."""
    regularizers = [r for r in regularizer_list if r is not None]

    def total(weights: Tensor) -> Tensor | None:
        losses = [loss for r in regularizers if (loss := r(weights)) is not None]
        if not losses:
            return None
        result = losses[0]
        for loss in losses[1:]:
            result = result + loss
        return result

    return total


def apply_regularization(regularizer: Any, weights_list: list[Any] | None = None) -> Tensor:
    """TF1's ``contrib.layers.apply_regularization``: ``regularizer`` summed over
    ``weights_list`` (default: the trainable variables), also added to
    ``GraphKeys.REGULARIZATION_LOSSES``."""
    weights = (
        list(weights_list)
        if weights_list is not None
        else get_collection(GraphKeys.TRAINABLE_VARIABLES)
    )
    if not weights:
        raise InvalidArgumentError("symgrad: apply_regularization: no weights to regularize")
    losses = [loss for w in weights if (loss := regularizer(w)) is not None]
    if not losses:
        return constant(0.0, dtype=weights[0].dtype)
    total = losses[0]
    for loss in losses[1:]:
        total = total + loss
    add_to_collection(GraphKeys.REGULARIZATION_LOSSES, total)
    return total


def add_loss(loss: Tensor, loss_collection: Any = GraphKeys.LOSSES) -> None:
    """TF1's ``losses.add_loss``: put ``loss`` in ``loss_collection``."""
    if loss_collection is not None:
        add_to_collection(loss_collection, loss)


def get_losses(scope: str | None = None, loss_collection: Any = GraphKeys.LOSSES) -> list:
    """TF1's ``losses.get_losses``: the losses in ``loss_collection``."""
    return get_collection(loss_collection, scope)


def get_total_loss(
    add_regularization_losses: bool = True, name: str = "total_loss", scope: str | None = None
) -> Tensor:
    """TF1's ``losses.get_total_loss``: the sum of ``GraphKeys.LOSSES`` and (by default) of
    the regularization losses; a ValueError when there are none."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope)
    if not losses:
        raise InvalidArgumentError("symgrad: get_total_loss: no losses to add")
    total = losses[0]
    for loss in losses[1:]:
        total = total + loss
    return identity(total, name=name)


def get_regularization_losses(scope: str | None = None) -> list:
    """The losses in ``GraphKeys.REGULARIZATION_LOSSES`` (under ``scope`` if given)."""
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(
    scope: str | None = None, name: str = "total_regularization_loss"
) -> Tensor:
    """The sum of the regularization losses, or a float32 zero when there are none (TF1)."""
    losses = get_regularization_losses(scope)
    if not losses:
        return constant(0.0, dtype=_dtypes.float32, name=name)
    total = losses[0]
    for loss in losses[1:]:
        total = total + loss
    return total


__all__ = [
    "AUTO_REUSE",
    "GraphKeys",
    "VariableScope",
    "VariableScopeError",
    "add_to_collection",
    "add_to_collections",
    "get_collection",
    "get_collection_ref",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_variable",
    "get_variable_scope",
    "add_loss",
    "apply_regularization",
    "get_losses",
    "get_total_loss",
    "l1_l2_regularizer",
    "l1_regularizer",
    "l2_regularizer",
    "slot_variable",
    "sum_regularizer",
    "variable_scope",
]
