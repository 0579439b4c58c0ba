"""TF1's layer classes: ``tf.layers.Dense``, ``Conv1D``, ``Conv2D``, the pooling layers,
``Flatten``, ``Dropout``, ``BatchNormalization`` and their base ``Layer``.

A layer object takes its arguments when it is made and builds when it is first called,
through the functions of :mod:`symgrad.layers` (``dense``, ``conv2d``, ...), in a variable
scope it keeps: a second call shares the variables of the first, as in TF1. Names follow
TF1: an object made without a name is named ``dense_1``, ``dense_2``... (Keras' counter,
per graph and per class), while its variables live in the variable scope its first call
opens, ``dense``, ``dense_1``... made unique like ``tf.layers.dense``'s (so the first
``Dense()`` of a graph is named ``dense_1`` and makes ``dense/kernel``). A named object
opens a scope of its name, made unique (``Dense(3, name="out")`` twice: ``out`` and
``out_1``).

Where symgrad's names differ from TF1's (tests/test_tf_parity_layer_classes.py checks both):

* the second and later calls of a layer with variables (``Dense``, ``Conv1D``, ``Conv2D``,
  ``BatchNormalization``) build their ops one name scope deeper than TF1's, because the
  function they call opens its own: ``dense/dense/MatMul`` where TF1 has
  ``dense/MatMul_1`` (the variables are the first call's either way, and the ops of later
  layers keep TF1's names); the pooling layers, ``Flatten``, ``Dropout`` and subclasses of
  ``Layer`` re-enter their scope exactly as TF1 does;
* the counter behind ``dense_1``, ``dense_2``... counts layer objects only: TF1 also counts
  the object that each ``tf.layers.dense(...)`` call makes without a name;
* ``losses`` lists the regularization losses in the order they were made (TF1 lists the
  activity regularizers' first and makes the weights' anew each time it is read).

The classes join the functions in ``symgrad.layers`` (``tf.layers``) when symgrad is
imported: that module cannot import this one, which builds on it.

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float32, [None, 3], name="x")
...     layer = sg.layers.Dense(2, kernel_initializer=sg.ones_initializer())
...     y, again = layer(x), layer(2.0 * x)
...     with sg.Session() as sess:
...         sess.run(sg.global_variables_initializer())
...         print(sess.run([y, again], {x: np.ones((1, 3))}))
...     print(layer.name, [v.op.name for v in layer.trainable_variables])
[array([[3., 3.]], dtype=float32), array([[6., 6.]], dtype=float32)]
dense_1 ['dense/kernel', 'dense/bias']
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import layers as _layers
from .errors import DTypeError, GraphMismatchError, InvalidArgumentError, ShapeError
from .graph import Graph, Operation, Tensor, get_default_graph, name_scope
from .ops.sources import convert_to_tensor
from .ops.state import Variable
from .shapes import format_shape
from .tf1.variable_scope import GraphKeys, VariableScope, get_variable, variable_scope

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Dense",
    "Dropout",
    "Flatten",
    "Layer",
    "MaxPooling1D",
    "MaxPooling2D",
    "SeparableConv2D",
]

# Private graph collection: the number of unnamed layer objects made so far, per base name.
_NAMES_KEY = ("__layer_object_names",)


def _snake_case(name: str) -> str:
    """A class name as TF1 names its objects: ``MaxPooling2D`` is ``max_pooling2d``.

    >>> [_snake_case(n) for n in ("Dense", "Conv2D", "BatchNormalization", "MyLayer")]
    ['dense', 'conv2d', 'batch_normalization', 'my_layer']
    """
    words = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    snake = re.sub(r"([a-z])([A-Z])", r"\1_\2", words).lower()
    return snake if not snake.startswith("_") else "private" + snake


def _unique_object_name(graph: Graph, base: str) -> str:
    """``base_1``, ``base_2``...: Keras' names of a graph's layer objects made without one."""
    ref = graph.get_collection_ref(_NAMES_KEY)
    if not ref:
        ref.append({})
    counts: dict[str, int] = ref[0]
    counts[base] = counts.get(base, 0) + 1
    return f"{base}_{counts[base]}"


def _static_shape(x: Tensor) -> tuple[int | None, ...] | None:
    """``x``'s static shape as a tuple of ints and None, or None for an unknown rank."""
    dims = getattr(x.shape, "dims", x.shape)
    if dims is None:
        return None
    return tuple(
        None if getattr(d, "value", d) is None else int(getattr(d, "value", d)) for d in dims
    )


def _sizes(variable: Variable) -> tuple[int, ...]:
    """A variable's shape (always fully defined) as ints."""
    return tuple(int(d) for d in _static_shape(variable) or ())  # type: ignore[arg-type]


class Layer:
    """TF1's ``tf.layers.Layer``: a callable object that makes its variables on its first
    call and reuses them on the next ones.

    A subclass defines ``build(input_shape)`` (making its variables with
    :meth:`add_weight`) and ``call(inputs)``, as in TF1; ``__call__`` opens the layer's
    variable scope (made on the first call, ``my_layer``, ``my_layer_1``...) and re-enters
    its name scope on every call, so the ops of a second call are ``my_layer/MatMul_1``.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> class Scale(sg.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight("w", [input_shape[-1]], initializer=sg.ones_initializer())
    ...         super().build(input_shape)
    ...     def call(self, inputs):
    ...         return inputs * self.w
    >>> with sg.Graph().as_default():
    ...     layer = Scale()
    ...     y = layer(sg.constant([[1.0, 2.0]]))
    ...     print(layer.name, layer.scope_name, [v.op.name for v in layer.variables], y.op.name)
    scale_1 scale ['scale/w'] scale/mul
    """

    # Keyword arguments TF1's layers accept besides their own (``_scope``/``_reuse`` are the
    # functional layers'; the others configure Keras models, which symgrad leaves out).
    _ALLOWED = frozenset({"_scope", "_reuse", "input_shape", "batch_input_shape", "batch_size"})

    def __init__(
        self, trainable: bool = True, name: str | None = None, dtype: Any = None, **kwargs: Any
    ) -> None:
        unknown = sorted(set(kwargs) - self._ALLOWED - {"activity_regularizer"})
        if unknown:
            raise InvalidArgumentError(
                f"symgrad: layers.{type(self).__name__}: unknown keyword arguments {unknown}"
            )
        self.trainable = bool(trainable)
        self.activity_regularizer = kwargs.get("activity_regularizer")
        self._dtype = dtype
        self._reuse = kwargs.get("_reuse")
        scope = kwargs.get("_scope")
        self._base_name = _snake_case(type(self).__name__) if name is None else str(name)
        self._name = (
            _unique_object_name(get_default_graph(), self._base_name) if name is None else name
        )
        self._scope: VariableScope | None = None
        self._fixed_scope: str | VariableScope | None = scope
        self._graph: Graph | None = None
        self._trainable_weights: list[Variable] = []
        self._non_trainable_weights: list[Variable] = []
        self._losses: list[Tensor] = []
        self._updates: list[Operation] = []
        self.built = False

    # --- what TF1 programs read ------------------------------------------------------------
    @property
    def name(self) -> str:
        """The object's name: the one given, else ``<class in snake case>_<n>``."""
        return self._name

    @property
    def scope_name(self) -> str:
        """The name of the variable scope of the layer's variables (after its first call)."""
        if self._scope is None:
            raise InvalidArgumentError(
                f'symgrad: no name available for layer scope because the layer "{self._name}" '
                "has not been used yet; the scope name is determined the first time the layer "
                "instance is called"
            )
        return self._scope.name

    @property
    def dtype(self) -> str | None:
        """The dtype's name the layer computes in (its inputs' after the first call)."""
        return None if self._dtype is None else getattr(self._dtype, "name", str(self._dtype))

    @property
    def graph(self) -> Graph | None:
        """The graph of the layer's first call (None before it)."""
        return self._graph

    @property
    def trainable_weights(self) -> list[Variable]:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list[Variable]:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self) -> list[Variable]:
        """The layer's variables: the trainable ones, then the others (TF1's order)."""
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def losses(self) -> list[Tensor]:
        """The regularization losses the layer's variables and outputs added (they are in
        ``GraphKeys.REGULARIZATION_LOSSES`` too)."""
        return list(self._losses)

    @property
    def updates(self) -> list[Operation]:
        """The update ops the layer's calls added (a batch norm's moving averages; they are
        in ``GraphKeys.UPDATE_OPS`` too)."""
        return list(self._updates)

    def count_params(self) -> int:
        """The number of scalars in the layer's variables."""
        return sum(int(np.prod(_sizes(v))) for v in self.weights)

    # --- building ---------------------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        """Make the layer's variables (with :meth:`add_weight`); called by the first call."""
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        """The layer's computation; the base layer returns its inputs."""
        return inputs

    def add_weight(
        self,
        name: str,
        shape: Any,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
        **kwargs: Any,
    ) -> Variable:
        """A variable of the layer, ``<layer scope>/<name>`` (``get_variable`` in the layer's
        variable scope): trainable unless ``trainable=False`` or the layer is not."""
        if constraint is not None:
            raise InvalidArgumentError(
                f"symgrad: layers.{type(self).__name__}: add_weight's constraint is not supported"
            )
        trainable = self.trainable if trainable is None else bool(trainable) and self.trainable
        variable = get_variable(
            name,
            shape,
            dtype=dtype if dtype is not None else self._dtype,
            initializer=initializer,
            regularizer=regularizer,
            trainable=trainable,
        )
        self._track([variable])
        return variable

    def _track(self, variables: Sequence[Variable]) -> None:
        for variable in variables:
            known = self._trainable_weights + self._non_trainable_weights
            if any(variable is v for v in known):
                continue
            if variable.trainable:
                self._trainable_weights.append(variable)
            else:
                self._non_trainable_weights.append(variable)

    # --- calling ----------------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        """Build on the first call (variables, in the layer's scope), then compute."""
        graph = get_default_graph()
        if self._graph is None:
            self._graph = graph
        elif graph is not self._graph:
            raise GraphMismatchError(
                f"symgrad: layers.{type(self).__name__} {self._name!r} was first called in "
                "another graph; a layer's variables belong to one graph"
            )
        x = inputs if isinstance(inputs, Tensor) else convert_to_tensor(inputs)
        if self._dtype is None:
            self._dtype = x.dtype
        self._check_input(x)
        losses_before = len(graph.get_collection(GraphKeys.REGULARIZATION_LOSSES))
        updates_before = len(graph.get_collection(GraphKeys.UPDATE_OPS))
        outputs = self._call_in_scope(graph, x, *args, **kwargs)
        self._losses.extend(graph.get_collection(GraphKeys.REGULARIZATION_LOSSES)[losses_before:])
        self._updates.extend(graph.get_collection(GraphKeys.UPDATE_OPS)[updates_before:])
        self.built = True
        return outputs

    apply = __call__

    def _call_in_scope(self, graph: Graph, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        """TF1's protocol: capture the variable scope on the first call (it opens the
        layer's name scope), then re-enter both on every call."""
        if self._scope is None:
            reuse = self._reuse
            name = self._fixed_scope
            if reuse:
                with variable_scope(name if name is not None else self._base_name) as scope:
                    self._scope = scope
            else:
                with variable_scope(name, default_name=self._base_name) as scope:
                    self._scope = scope
        reuse = True if self.built else self._reuse
        with (
            variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False),
            name_scope(self._scope.original_name_scope),
        ):
            if not self.built:
                self.build(_static_shape(x))
                self.built = True
            if "training" in kwargs and not self._takes_training():
                kwargs.pop("training")
            return self.call(x, *args, **kwargs)

    def _takes_training(self) -> bool:
        parameters = inspect.signature(self.call).parameters
        return "training" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
        )

    def _check_input(self, x: Tensor) -> None:
        """Raise a clear error for an input the layer cannot take (TF1's ``InputSpec``)."""

    def _input_error(self, x: Tensor, expected: str) -> ShapeError:
        return ShapeError(
            f"symgrad: layers.{type(self).__name__} {self._name!r}: the input {x.name!r} of "
            f"shape {format_shape(_static_shape(x))} is incompatible with the layer: "
            f"expected {expected}"
        )

    def _check_rank(self, x: Tensor, rank: int, at_least: bool = False) -> tuple[int | None, ...]:
        shape = _static_shape(x)
        if shape is None or (len(shape) < rank if at_least else len(shape) != rank):
            raise self._input_error(x, f"{'at least ' if at_least else ''}rank {rank}")
        return shape

    def __repr__(self) -> str:
        return f"<symgrad.layers.{type(self).__name__} {self._name!r}>"


class _FunctionalLayer(Layer):
    """A layer whose variables a function of :mod:`symgrad.layers` makes (``dense``,
    ``conv2d``, ``batch_normalization``): the function gets the layer's variable scope
    (``reuse`` after the first call) and names the ops under it as TF1 does on the first
    call. Later calls build inside the first call's name scope, one scope deeper than
    TF1's (``dense/dense/MatMul`` where TF1 names ``dense/MatMul_1``), so the names of
    the ops of later layers stay TF1's."""

    _WEIGHTS: tuple[str, ...] = ()
    _op_scope = ""

    def _function(self, x: Tensor, scope: VariableScope, reuse: Any, **kwargs: Any) -> Tensor:
        raise NotImplementedError

    def _call_in_scope(self, graph: Graph, x: Tensor, *args: Any, **kwargs: Any) -> Any:
        if args:
            raise InvalidArgumentError(
                f"symgrad: layers.{type(self).__name__}: call it with the inputs only "
                f"(and training=), not {len(args)} more positional arguments"
            )
        if "training" in kwargs and not self._takes_training():
            kwargs.pop("training")
        if self._scope is None:
            # Capture the scope without opening a name scope: the function opens it, as TF1.
            with variable_scope(
                self._fixed_scope, default_name=self._base_name, auxiliary_name_scope=False
            ) as scope:
                self._scope = scope
            caller = graph.get_name_scope()
            outputs = self._function(x, self._scope, self._reuse, **kwargs)
            self._op_scope = self._opened_scope(outputs, caller)
            self._track_weights(graph)
            return outputs
        with name_scope(self._op_scope):
            return self._function(x, self._scope, True, **kwargs)

    def _opened_scope(self, outputs: Tensor, caller: str) -> str:
        """The name scope the first call opened: the output op's, below the caller's."""
        prefix = caller + "/" if caller else ""
        name = outputs.op.name
        if name.startswith(prefix) and "/" in name[len(prefix) :]:
            return prefix + name[len(prefix) :].split("/")[0] + "/"
        assert self._scope is not None
        return self._scope.name + "/"

    def _track_weights(self, graph: Graph) -> None:
        assert self._scope is not None
        wanted = [f"{self._scope.name}/{w}" for w in self._WEIGHTS]
        found = {
            v.op.name: v
            for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES)
            for v in graph.get_collection(key)
            if isinstance(v, Variable)
        }
        self._track([found[name] for name in wanted if name in found])
        for short, full in zip(self._WEIGHTS, wanted, strict=True):
            setattr(self, short, found.get(full))

    def _takes_training(self) -> bool:
        return False


def _checked_activation(layer: str, activation: Any) -> Any:
    """TF1 checks an activation named by a string when the layer is made."""
    try:
        _layers._activation_function(activation)
    except InvalidArgumentError as error:
        raise InvalidArgumentError(f"symgrad: layers.{layer}: {error}") from None
    return activation


def _positive_int(value: Any, what: str, layer: str, zero: bool = False) -> int:
    """An int argument (TF1 takes ``3.0`` as 3), positive, or not negative with ``zero``."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = -1
    if isinstance(value, bool) or number != value or number < (0 if zero else 1):
        bound = "a non-negative" if zero else "a positive"
        raise InvalidArgumentError(
            f"symgrad: layers.{layer}: {what} must be {bound} integer, not {value!r}"
        )
    return number


def _padding_name(padding: Any, layer: str, causal: bool = False) -> str:
    mode = str(padding).lower()
    allowed = ("valid", "same", "causal") if causal else ("valid", "same")
    if mode not in allowed:
        raise InvalidArgumentError(
            f"symgrad: layers.{layer}: padding must be one of {', '.join(map(repr, allowed))}, "
            f"not {padding!r}"
        )
    return mode


def _data_format(data_format: Any, layer: str) -> str:
    """``"channels_last"`` (also for None, TF1's default) or ``"channels_first"``."""
    text = "channels_last" if data_format is None else str(data_format)
    _layers._channels_first(text, layer)
    return text


class Dense(_FunctionalLayer):
    """``tf.layers.Dense``: ``activation(inputs @ kernel + bias)``, through
    :func:`symgrad.layers.dense`; ``kernel`` (``[in, units]``) and ``bias`` are the layer's
    variables once it is called.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 4])
    ...     layer = sg.layers.Dense(3, activation=sg.nn.relu, name="hidden")
    ...     y = layer(x)
    ...     layer.kernel.op.name, tuple(layer.kernel.shape), layer.units, y.op.name
    ('hidden/kernel', (4, 3), 3, 'hidden/Relu')
    """

    _WEIGHTS = ("kernel", "bias")
    kernel: Variable
    bias: Variable | None

    def __init__(
        self,
        units: int,
        activation: Callable[[Tensor], Tensor] | str | None = None,
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
        **kwargs: Any,
    ) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        # TF1 takes units=0 (an empty output), not a negative number.
        self.units = _positive_int(units, "units", "Dense", zero=True)
        self.activation = _checked_activation("Dense", activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.activity_regularizer = activity_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint

    def _check_input(self, x: Tensor) -> None:
        if not x.dtype.is_floating:
            raise DTypeError(
                f"symgrad: layers.Dense {self._name!r}: the input {x.name!r} has dtype "
                f"{x.dtype.name}; a layer needs a floating-point input (tf.cast it to float32)"
            )
        shape = self._check_rank(x, 2, at_least=True)
        if shape[-1] is None:
            raise self._input_error(x, "a known last dimension")
        inputs = _sizes(self.kernel)[0] if self.built else None
        if inputs is not None and shape[-1] != inputs:
            raise self._input_error(x, f"axis -1 of size {inputs}")

    def _function(self, x: Tensor, scope: VariableScope, reuse: Any, **kwargs: Any) -> Tensor:
        return _layers.dense(
            x,
            self.units,
            activation=self.activation,
            use_bias=self.use_bias,
            kernel_initializer=self.kernel_initializer,
            bias_initializer=self.bias_initializer,
            kernel_regularizer=self.kernel_regularizer,
            bias_regularizer=self.bias_regularizer,
            activity_regularizer=self.activity_regularizer,
            kernel_constraint=self.kernel_constraint,
            bias_constraint=self.bias_constraint,
            trainable=self.trainable,
            name=scope,  # type: ignore[arg-type]  # a scope object is re-entered
            reuse=reuse,
        )


class _Conv(_FunctionalLayer):
    """TF1's convolution layers: arguments checked and kept as TF1 keeps them (tuples,
    lower-case padding)."""

    _WEIGHTS: tuple[str, ...] = ("kernel", "bias")
    _RANK = 2
    kernel: Variable
    bias: Variable | None

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = 1,
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = 1,
        activation: Callable[[Tensor], Tensor] | str | None = None,
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
        **kwargs: Any,
    ) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        layer = type(self).__name__
        self.filters = _positive_int(filters, "filters", layer)
        self.kernel_size = self._tuple(kernel_size, "kernel_size")
        self.strides = self._tuple(strides, "strides")
        self.padding = _padding_name(padding, layer, causal=self._RANK == 1)
        self.data_format = _data_format(data_format, layer)
        self.dilation_rate = self._tuple(dilation_rate, "dilation_rate")
        self.activation = _checked_activation(layer, activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.activity_regularizer = activity_regularizer
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint

    def _tuple(self, value: Any, what: str) -> tuple[int, ...]:
        layer = type(self).__name__
        if self._RANK == 1:
            return (_layers._single(value, what, layer),)
        return _layers._pair(value, what, layer)

    def _check_input(self, x: Tensor) -> None:
        shape = self._check_rank(x, self._RANK + 2)
        axis = 1 if self.data_format == "channels_first" else -1
        if shape[axis] is None:
            raise self._input_error(x, f"a known number of channels (axis {axis})")
        channels = self._in_channels() if self.built else None
        if channels is not None and shape[axis] != channels:
            raise self._input_error(x, f"axis {axis} of size {channels}")

    def _in_channels(self) -> int:
        """The input channels the kernel was made for."""
        return _sizes(self.kernel)[-2]

    def _arguments(self, scope: VariableScope, reuse: Any) -> dict[str, Any]:
        return {
            "padding": self.padding,
            "data_format": self.data_format,
            "activation": self.activation,
            "use_bias": self.use_bias,
            "kernel_initializer": self.kernel_initializer,
            "bias_initializer": self.bias_initializer,
            "kernel_regularizer": self.kernel_regularizer,
            "bias_regularizer": self.bias_regularizer,
            "activity_regularizer": self.activity_regularizer,
            "kernel_constraint": self.kernel_constraint,
            "bias_constraint": self.bias_constraint,
            "trainable": self.trainable,
            "name": scope,  # a scope object is re-entered
            "reuse": reuse,
        }


class Conv1D(_Conv):
    """``tf.layers.Conv1D``: :func:`symgrad.layers.conv1d` as an object; ``kernel`` is
    ``[width, in_channels, filters]``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.Conv1D(4, 3, padding="causal")
    ...     y = layer(sg.placeholder(sg.float32, [None, 10, 2]))
    ...     tuple(layer.kernel.shape), layer.kernel_size, tuple(y.shape)
    ((3, 2, 4), (3,), (None, 10, 4))
    """

    _RANK = 1

    def _function(self, x: Tensor, scope: VariableScope, reuse: Any, **kwargs: Any) -> Tensor:
        return _layers.conv1d(
            x,
            self.filters,
            self.kernel_size,
            strides=self.strides,
            dilation_rate=self.dilation_rate,
            **self._arguments(scope, reuse),
        )


class Conv2D(_Conv):
    """``tf.layers.Conv2D``: :func:`symgrad.layers.conv2d` as an object; ``kernel`` is
    ``[height, width, in_channels, filters]``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.Conv2D(8, 3, padding="same", data_format="channels_first")
    ...     y = layer(sg.placeholder(sg.float32, [None, 3, 16, 16]))
    ...     tuple(layer.kernel.shape), layer.strides, tuple(y.shape)
    ((3, 3, 3, 8), (1, 1), (None, 8, 16, 16))
    """

    def _function(self, x: Tensor, scope: VariableScope, reuse: Any, **kwargs: Any) -> Tensor:
        return _layers.conv2d(
            x,
            self.filters,
            self.kernel_size,
            strides=self.strides,
            dilation_rate=self.dilation_rate,
            **self._arguments(scope, reuse),
        )


class Conv2DTranspose(_Conv):
    """``tf.layers.Conv2DTranspose``: :func:`symgrad.layers.conv2d_transpose` as an object;
    ``kernel`` is ``[height, width, filters, in_channels]``. Its arguments are TF1's (no
    ``dilation_rate``: ``activation`` is the sixth).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.Conv2DTranspose(4, 3, strides=2)
    ...     y = layer(sg.placeholder(sg.float32, [None, 5, 5, 2]))
    ...     tuple(layer.kernel.shape), layer.strides, tuple(y.shape)
    ((3, 3, 4, 2), (2, 2), (None, 11, 11, 4))
    """

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        activation: Callable[[Tensor], Tensor] | str | None = None,
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
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            activation=activation,
            use_bias=use_bias,
            kernel_initializer=kernel_initializer,
            bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )

    def _in_channels(self) -> int:
        return _sizes(self.kernel)[-1]

    def _function(self, x: Tensor, scope: VariableScope, reuse: Any, **kwargs: Any) -> Tensor:
        return _layers.conv2d_transpose(
            x, self.filters, self.kernel_size, strides=self.strides, **self._arguments(scope, reuse)
        )


class SeparableConv2D(_Conv):
    """``tf.layers.SeparableConv2D``: :func:`symgrad.layers.separable_conv2d` as an object;
    ``depthwise_kernel`` is ``[height, width, in_channels, depth_multiplier]``,
    ``pointwise_kernel`` ``[1, 1, in_channels * depth_multiplier, filters]``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.SeparableConv2D(4, 3, depth_multiplier=2)
    ...     y = layer(sg.placeholder(sg.float32, [None, 5, 5, 3]))
    ...     tuple(layer.depthwise_kernel.shape), tuple(layer.pointwise_kernel.shape)
    ((3, 3, 3, 2), (1, 1, 6, 4))
    """

    _WEIGHTS = ("depthwise_kernel", "pointwise_kernel", "bias")
    depthwise_kernel: Variable
    pointwise_kernel: Variable

    def __init__(
        self,
        filters: int,
        kernel_size: Any,
        strides: Any = (1, 1),
        padding: str = "valid",
        data_format: str = "channels_last",
        dilation_rate: Any = (1, 1),
        depth_multiplier: int = 1,
        activation: Callable[[Tensor], Tensor] | str | None = None,
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
        **kwargs: Any,
    ) -> None:
        super().__init__(
            filters,
            kernel_size,
            strides=strides,
            padding=padding,
            data_format=data_format,
            dilation_rate=dilation_rate,
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            bias_constraint=bias_constraint,
            trainable=trainable,
            name=name,
            **kwargs,
        )
        layer = type(self).__name__
        self.depth_multiplier = _positive_int(depth_multiplier, "depth_multiplier", layer)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def _in_channels(self) -> int:
        return _sizes(self.depthwise_kernel)[-2]

    def _function(self, x: Tensor, scope: VariableScope, reuse: Any, **kwargs: Any) -> Tensor:
        arguments = self._arguments(scope, reuse)
        for key in ("kernel_initializer", "kernel_regularizer", "kernel_constraint"):
            del arguments[key]
        return _layers.separable_conv2d(
            x,
            self.filters,
            self.kernel_size,
            strides=self.strides,
            dilation_rate=self.dilation_rate,
            depth_multiplier=self.depth_multiplier,
            depthwise_initializer=self.depthwise_initializer,
            pointwise_initializer=self.pointwise_initializer,
            depthwise_regularizer=self.depthwise_regularizer,
            pointwise_regularizer=self.pointwise_regularizer,
            depthwise_constraint=self.depthwise_constraint,
            pointwise_constraint=self.pointwise_constraint,
            **arguments,
        )


class _Pooling(Layer):
    """TF1's pooling layers: no variables, the ops in the layer's name scope."""

    _RANK = 2
    _FUNCTION: Callable[..., Tensor]

    def __init__(
        self,
        pool_size: Any,
        strides: Any,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        layer = type(self).__name__
        if strides is None:
            raise InvalidArgumentError(f"symgrad: layers.{layer}: strides must not be None")
        self.pool_size = self._tuple(pool_size, "pool_size")
        self.strides = self._tuple(strides, "strides")
        self.padding = _padding_name(padding, layer)
        self.data_format = _data_format(data_format, layer)

    def _tuple(self, value: Any, what: str) -> tuple[int, ...]:
        layer = type(self).__name__
        if self._RANK == 1:
            return (_layers._single(value, what, layer),)
        return _layers._pair(value, what, layer)

    def _check_input(self, x: Tensor) -> None:
        self._check_rank(x, self._RANK + 2)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        assert self._scope is not None
        pool = type(self)._FUNCTION
        return pool(
            inputs,
            self.pool_size if self._RANK == 2 else self.pool_size[0],
            self.strides if self._RANK == 2 else self.strides[0],
            padding=self.padding,
            data_format=self.data_format,
            name=self._scope.original_name_scope,  # the scope re-entered, as it is
        )


class MaxPooling1D(_Pooling):
    """``tf.layers.MaxPooling1D``: :func:`symgrad.layers.max_pooling1d` as an object.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.MaxPooling1D(2, 2)
    ...     y = layer(sg.placeholder(sg.float32, [None, 8, 3]))
    ...     layer.name, layer.pool_size, tuple(y.shape)
    ('max_pooling1d_1', (2,), (None, 4, 3))
    """

    _RANK = 1
    _FUNCTION = staticmethod(_layers.max_pooling1d)


class MaxPooling2D(_Pooling):
    """``tf.layers.MaxPooling2D``: :func:`symgrad.layers.max_pooling2d` as an object.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.MaxPooling2D(2, 2)
    ...     x = sg.placeholder(sg.float32, [None, 8, 8, 3])
    ...     [y.op.name for y in (layer(x), layer(x))]
    ['max_pooling2d/MaxPool', 'max_pooling2d/MaxPool_1']
    """

    _FUNCTION = staticmethod(_layers.max_pooling2d)


class AveragePooling1D(_Pooling):
    """``tf.layers.AveragePooling1D``: :func:`symgrad.layers.average_pooling1d` as an object.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.layers.AveragePooling1D(3, 1, padding="same")(sg.placeholder(sg.float32, [None, 8, 3]))
    ...     tuple(y.shape)
    (None, 8, 3)
    """

    _RANK = 1
    _FUNCTION = staticmethod(_layers.average_pooling1d)


class AveragePooling2D(_Pooling):
    """``tf.layers.AveragePooling2D``: :func:`symgrad.layers.average_pooling2d` as an object.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.layers.AveragePooling2D(2, 2)(sg.placeholder(sg.float32, [None, 8, 8, 3]))
    ...     tuple(y.shape)
    (None, 4, 4, 3)
    """

    _FUNCTION = staticmethod(_layers.average_pooling2d)


class Flatten(Layer):
    """``tf.layers.Flatten``: :func:`symgrad.layers.flatten` as an object.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     y = sg.layers.Flatten()(sg.placeholder(sg.float32, [None, 7, 7, 64]))
    ...     tuple(y.shape), y.op.name
    ((None, 3136), 'flatten/Reshape')
    """

    def __init__(
        self, data_format: str = "channels_last", name: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(name=name, **kwargs)
        self.data_format = _data_format(data_format, "Flatten")

    def _check_input(self, x: Tensor) -> None:
        self._check_rank(x, 1, at_least=True)

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        assert self._scope is not None
        return _layers.flatten(
            inputs, name=self._scope.original_name_scope, data_format=self.data_format
        )


class Dropout(Layer):
    """``tf.layers.Dropout``: :func:`symgrad.layers.dropout` as an object; called with
    ``training=True`` (or a bool placeholder) it drops, else it passes its input on.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, [None, 3])
    ...     layer = sg.layers.Dropout(0.5)
    ...     y = layer(x)
    ...     with sg.Session() as sess:
    ...         print(layer.rate, y.op.name, sess.run(y, {x: np.ones((1, 3))}))
    0.5 dropout/Identity [[1. 1. 1.]]
    """

    def __init__(
        self,
        rate: Any = 0.5,
        noise_shape: Any = None,
        seed: int | None = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float, np.number)) and not 0 <= rate <= 1:
            raise InvalidArgumentError(
                f"symgrad: layers.Dropout: invalid value {rate} received for rate, expected a "
                "value between 0 and 1"
            )
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs: Any, training: Any = False, **kwargs: Any) -> Any:
        return _layers.dropout(
            inputs, rate=self.rate, noise_shape=self.noise_shape, seed=self.seed, training=training
        )


class BatchNormalization(_FunctionalLayer):
    """``tf.layers.BatchNormalization``: :func:`symgrad.layers.batch_normalization` as an
    object, called with ``training=`` (False by default); ``gamma``, ``beta``,
    ``moving_mean`` and ``moving_variance`` are its variables, ``updates`` the moving
    averages' update ops of its calls (also in ``GraphKeys.UPDATE_OPS``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     layer = sg.layers.BatchNormalization(momentum=0.9)
    ...     y = layer(sg.placeholder(sg.float32, [None, 4]), training=True)
    ...     [v.op.name for v in layer.variables], len(layer.updates)
    (['batch_normalization/gamma', 'batch_normalization/beta', 'batch_normalization/moving_mean', 'batch_normalization/moving_variance'], 2)
    """

    _WEIGHTS = ("gamma", "beta", "moving_mean", "moving_variance")
    gamma: Variable | None
    beta: Variable | None
    moving_mean: Variable
    moving_variance: Variable

    def __init__(
        self,
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
        renorm: bool = False,
        renorm_clipping: Any = None,
        renorm_momentum: float = 0.99,
        fused: Any = None,
        trainable: bool = True,
        virtual_batch_size: Any = None,
        adjustment: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(trainable=trainable, name=name, **kwargs)
        axes = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
        if not axes or not all(isinstance(a, (int, np.integer)) for a in axes):
            raise InvalidArgumentError(
                f"symgrad: layers.BatchNormalization: axis must be an int or a list of ints, "
                f"not {axis!r}"
            )
        self.axis = axis if isinstance(axis, (int, np.integer)) else list(axis)
        self.momentum, self.epsilon = momentum, epsilon
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer, self.gamma_initializer = beta_initializer, gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint
        self.renorm, self.renorm_clipping = renorm, renorm_clipping
        self.renorm_momentum, self.fused = renorm_momentum, fused
        self.virtual_batch_size, self.adjustment = virtual_batch_size, adjustment

    def _check_input(self, x: Tensor) -> None:
        shape = _static_shape(x)
        if shape is None:
            raise self._input_error(x, "a known rank")
        axes = [self.axis] if isinstance(self.axis, (int, np.integer)) else self.axis
        bad = [a for a in axes if not -len(shape) <= a < len(shape)]
        if bad:
            raise self._input_error(x, f"axis {bad[0]} in range for rank {len(shape)}")
        if self.built:
            sizes = [shape[a] for a in axes]
            built = list(_sizes(self.moving_mean))
            if len(axes) == 1 and sizes != built:
                raise self._input_error(x, f"axis {axes[0]} of size {built[0]}")

    def _takes_training(self) -> bool:
        return True

    def _function(
        self, x: Tensor, scope: VariableScope, reuse: Any, training: Any = False, **kwargs: Any
    ) -> Tensor:
        if kwargs:
            raise InvalidArgumentError(
                f"symgrad: layers.BatchNormalization: unknown call arguments {sorted(kwargs)}"
            )
        return _layers.batch_normalization(
            x,
            axis=self.axis,
            momentum=self.momentum,
            epsilon=self.epsilon,
            center=self.center,
            scale=self.scale,
            beta_initializer=self.beta_initializer,
            gamma_initializer=self.gamma_initializer,
            moving_mean_initializer=self.moving_mean_initializer,
            moving_variance_initializer=self.moving_variance_initializer,
            beta_regularizer=self.beta_regularizer,
            gamma_regularizer=self.gamma_regularizer,
            beta_constraint=self.beta_constraint,
            gamma_constraint=self.gamma_constraint,
            training=training,
            trainable=self.trainable,
            name=scope,  # type: ignore[arg-type]  # a scope object is re-entered
            reuse=reuse,
            renorm=self.renorm,
            renorm_clipping=self.renorm_clipping,
            renorm_momentum=self.renorm_momentum,
            fused=self.fused,
            virtual_batch_size=self.virtual_batch_size,
            adjustment=self.adjustment,
        )


# ``tf.layers`` holds TF1's layer functions and these classes: they join the functions in
# symgrad.layers here, since that module cannot import this one.
for _name in __all__:
    setattr(_layers, _name, globals()[_name])
_layers.__all__ += [name for name in __all__ if name not in _layers.__all__]
