"""Compile plain Python functions, the way ``tf.function`` and ``jax.jit`` do.

``@sg.function`` without specs traces the function on its first call for each
(structure, shape, dtype) signature of its arguments, compiles a NumPy module
for it and reuses that module on later calls with the same signature.
``sg.grad`` and ``sg.value_and_grad`` follow JAX: arguments and results may be
pytrees (tuples, lists, dicts) of arrays, ``argnums`` picks the arguments to
differentiate and ``has_aux`` lets the function return ``(value, aux)``.

>>> import numpy as np
>>> import symgrad as sg
>>> def loss(params, x):
...     return sg.reduce_sum(sg.square(x * params["w"] - 1.0))
>>> value, grads = sg.value_and_grad(loss)({"w": np.float64(2.0)}, np.array([1.0, 2.0]))
>>> float(value), float(grads["w"])
(10.0, 14.0)

With one :class:`TensorSpec` per argument, the function is traced once, ahead
of time, into one module whose ``None`` dims accept any size:

>>> def flat_loss(w, x):
...     return sg.reduce_sum(sg.square(x * w - 1.0))
>>> step = sg.value_and_grad(flat_loss, sg.TensorSpec([], sg.float64, "w"), sg.TensorSpec([None], sg.float64, "x"))
>>> value, d_w = step(2.0, [1.0, 2.0])
>>> float(value), float(d_w)
(10.0, 14.0)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .compiler import CompiledModule
from .compiler import compile as compile_graph
from .errors import DTypeError, InvalidArgumentError, ShapeError
from .gradients import gradients
from .graph import Graph, Tensor
from .ops.sources import convert_to_tensor, placeholder
from .shapes import as_shape


@dataclass(frozen=True)
class TensorSpec:
    """The shape (``None`` dims allowed), dtype and name of one argument of a traced function."""

    shape: Any = None
    dtype: Any = _dtypes.float32
    name: str | None = None


def _specs_for(fn: Callable[..., Any], specs: Sequence[Any]) -> list[TensorSpec]:
    parameters = [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    if len(specs) != len(parameters):
        raise InvalidArgumentError(
            f"symgrad: {fn.__name__}() takes {len(parameters)} arguments "
            f"({', '.join(parameters)}) but {len(specs)} specs were given"
        )
    result = []
    for spec, parameter in zip(specs, parameters, strict=False):
        if not isinstance(spec, TensorSpec):
            spec = TensorSpec(shape=spec)  # a bare shape: float32
        result.append(
            TensorSpec(as_shape(spec.shape), _dtypes.as_dtype(spec.dtype), spec.name or parameter)
        )
    return result


# --- pytrees: tuples, lists and dicts of leaves, as JAX's tree_util sees them ---------------------

# A tree's structure: "*" for a leaf, or (kind, keys, children structures). Hashable, so it can be
# part of a cache key.
Structure = Any


def tree_flatten(tree: Any) -> tuple[list[Any], Structure]:
    """The leaves of ``tree`` in JAX's order (dict keys sorted) and its structure.

    >>> tree_flatten({"b": 1, "a": (2, [3])})
    ([2, 3, 1], ('dict', ('a', 'b'), (('tuple', (), ('*', ('list', (), ('*',)))), '*')))
    """
    leaves: list[Any] = []

    def walk(node: Any) -> Structure:
        if type(node) in (tuple, list):
            return (type(node).__name__, (), tuple(walk(child) for child in node))
        if type(node) is dict:
            keys = tuple(sorted(node))
            return ("dict", keys, tuple(walk(node[key]) for key in keys))
        leaves.append(node)
        return "*"

    structure = walk(tree)
    return leaves, structure


def tree_unflatten(structure: Structure, leaves: Sequence[Any]) -> Any:
    """The tree of ``structure`` with ``leaves`` in place, the inverse of :func:`tree_flatten`.

    >>> tree_unflatten(*reversed(tree_flatten({"b": 1, "a": (2, [3])})))
    {'a': (2, [3]), 'b': 1}
    """
    remaining = iter(leaves)

    def build(node: Structure) -> Any:
        if node == "*":
            return next(remaining)
        kind, keys, children = node
        values = [build(child) for child in children]
        if kind == "dict":
            return dict(zip(keys, values, strict=True))
        return tuple(values) if kind == "tuple" else values

    return build(structure)


def _leaf_names(prefix: str, structure: Structure) -> list[str]:
    """Readable input names for the leaves of one argument: ``params_w``, ``layers_0``."""
    if structure == "*":
        return [prefix]
    kind, keys, children = structure
    labels = keys if kind == "dict" else range(len(children))
    names: list[str] = []
    for label, child in zip(labels, children, strict=True):
        names.extend(_leaf_names(f"{prefix}_{label}", child))
    return names


def _parameter_names(fn: Callable[..., Any], count: int) -> list[str]:
    try:
        parameters = [
            p.name
            for p in inspect.signature(fn).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):  # builtins without a signature
        parameters = []
    return [parameters[i] if i < len(parameters) else f"arg{i}" for i in range(count)]


# --- functions traced with specs, ahead of time ----------------------------------------------------


class TracedFunction:
    """A Python function traced into its own graph: ``.graph``, ``.inputs``, ``.outputs``.

    Calling it compiles the graph once (``.compile()``) and runs the module.
    """

    def __init__(self, fn: Callable[..., Any], specs: Sequence[Any]) -> None:
        self.fn = fn
        self.specs = _specs_for(fn, specs)
        self.graph = Graph()
        with self.graph.as_default():
            self.inputs: list[Tensor] = [
                placeholder(s.dtype, s.shape, name=s.name) for s in self.specs
            ]
            self.outputs = fn(*self.inputs)
        if not isinstance(self.outputs, (Tensor, list, tuple, dict)):
            raise InvalidArgumentError(
                f"symgrad: {fn.__name__}() must return a tensor, or a list, tuple "
                f"or dict of tensors; it returned {type(self.outputs).__name__}"
            )
        self._compiled: CompiledModule | None = None

    def compile(self, name: str | None = None, path: Any = None) -> CompiledModule:
        with self.graph.as_default():
            return compile_graph(
                self.outputs, inputs=self.inputs, name=name or self.fn.__name__, path=path
            )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._compiled is None:
            self._compiled = self.compile()
        return self._compiled(*args, **kwargs)


# --- functions traced on call, once per signature ---------------------------------------------------


class Function:
    """A Python function compiled on its first call for each signature of its arguments.

    The signature is the pytree structure of the arguments and the shape and
    dtype of every array in it (Python numbers become NumPy arrays first, so
    ``2.0`` is a float64 scalar). Each signature is traced into a graph of
    placeholders of exactly those shapes, compiled once, and reused.
    ``.source``, ``.path`` and ``.explain()`` describe the module of the last call;
    ``.specializations`` holds every module by signature, ``.cache_hits`` counts reuses.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> @sg.function
    ... def affine(x, w):
    ...     return sg.tanh(sg.matmul(x, w))
    >>> affine(np.ones((2, 3)), np.zeros((3, 1))).shape
    (2, 1)
    >>> _ = affine(np.ones((4, 3)), np.zeros((3, 1)))
    >>> _ = affine(np.ones((4, 3)), np.ones((3, 1)))
    >>> len(affine.specializations), affine.cache_hits
    (2, 1)
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        transform: Callable[[Any, list[Any]], Any] | None = None,
        name: str | None = None,
    ) -> None:
        self.fn = fn
        self._transform = transform
        self.name: str = str(name or getattr(fn, "__name__", "function"))
        self.specializations: dict[Any, tuple[CompiledModule, Structure]] = {}
        self.cache_hits = 0
        self._last: CompiledModule | None = None

    def __call__(self, *args: Any) -> Any:
        leaves, structure = tree_flatten(args)
        arrays = [_as_array(leaf, self.name) for leaf in leaves]
        key = (structure, tuple((a.shape, a.dtype.str) for a in arrays))
        if key in self.specializations:
            self.cache_hits += 1
        else:
            self.specializations[key] = self._trace(structure, arrays)
        compiled, output_structure = self.specializations[key]
        self._last = compiled
        return tree_unflatten(output_structure, compiled(*arrays))

    def _trace(self, structure: Structure, arrays: list[np.ndarray]) -> tuple[CompiledModule, Any]:
        argument_structures = structure[2]
        names: list[str] = []
        for parameter, argument in zip(
            _parameter_names(self.fn, len(argument_structures)), argument_structures, strict=True
        ):
            names.extend(_leaf_names(parameter, argument))
        graph = Graph()
        with graph.as_default():
            inputs = [
                placeholder(_dtypes.as_dtype(a.dtype), list(a.shape), name=n)
                for a, n in zip(arrays, names, strict=True)
            ]
            args = tree_unflatten(structure, inputs)
            result = self.fn(*args)
            if self._transform is not None:
                result = self._transform(args, result)
            output_leaves, output_structure = tree_flatten(result)
            outputs = [t if isinstance(t, Tensor) else convert_to_tensor(t) for t in output_leaves]
            compiled = compile_graph(outputs, inputs=inputs, name=self.name)
        return compiled, output_structure

    @property
    def last(self) -> CompiledModule:
        """The module of the last call."""
        if self._last is None:
            raise InvalidArgumentError(
                f"symgrad: {self.name} has not been called yet, so it has no compiled module; "
                f"call it once with example arguments"
            )
        return self._last

    @property
    def source(self) -> str:
        """The generated source of the last call's module."""
        return self.last.source

    @property
    def path(self) -> Any:
        """Where the last call's module was written."""
        return self.last.path

    def explain(self, expand: bool = True, latex: bool = False) -> str:
        """The formulas of the last call's module (see :meth:`CompiledModule.explain`)."""
        return self.last.explain(expand=expand, latex=latex)

    def __repr__(self) -> str:
        return f"<symgrad.Function {self.name}: {len(self.specializations)} specializations>"


def _as_array(leaf: Any, name: str) -> np.ndarray:
    array = np.asarray(leaf)
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise DTypeError(
            f"symgrad: {name}(): arguments must be arrays or numbers (in tuples, lists or "
            f"dicts), got {type(leaf).__name__} {leaf!r:.60}"
        )
    return array


def function(fn: Callable[..., Any] | None = None, *specs: Any) -> Any:
    """Compile ``fn`` on call, once per argument signature; usable as a decorator.

    ``@sg.function`` (no specs) gives a :class:`Function`, traced per shape and
    dtype like ``tf.function``/``jax.jit``. With one :class:`TensorSpec` per
    argument (``sg.function(f, spec, ...)`` or ``@sg.function(spec, ...)``) it
    traces once, ahead of time, into a :class:`TracedFunction` whose ``None``
    dims accept any size.

    >>> import numpy as np
    >>> import symgrad as sg
    >>> square = sg.function(lambda x: x * x)
    >>> float(square(3.0)), square(np.array([1.0, 2.0])).tolist()
    (9.0, [1.0, 4.0])
    """
    if fn is None or not callable(fn) or isinstance(fn, TensorSpec):
        leading = () if fn is None else (fn,)
        if not leading and not specs:
            return Function
        return lambda f: TracedFunction(f, leading + specs)
    if not specs:
        return Function(fn)
    return TracedFunction(fn, specs)


# --- JAX's grad and value_and_grad ----------------------------------------------------------------


def _gradient_transform(
    fn: Callable[..., Any], argnums: int | Sequence[int], has_aux: bool, with_value: bool
) -> Callable[[Any, Any], Any]:
    """What the traced graph returns instead of ``fn``'s result: value, aux and gradients."""
    name = getattr(fn, "__name__", "function")
    many = not isinstance(argnums, int)
    positions: tuple[int, ...] = (argnums,) if isinstance(argnums, int) else tuple(argnums)

    def transform(args: tuple[Any, ...], result: Any) -> Any:
        for position in positions:
            if not -len(args) <= position < len(args):
                raise InvalidArgumentError(
                    f"symgrad: grad: argnums {position} is out of range for {name}() called "
                    f"with {len(args)} arguments"
                )
        if has_aux:
            if not isinstance(result, (tuple, list)) or len(result) != 2:
                raise InvalidArgumentError(
                    f"symgrad: grad: with has_aux=True, {name}() must return a pair "
                    f"(value, aux), got {type(result).__name__}"
                )
            value, aux = result
        else:
            value, aux = result, None
        if not isinstance(value, Tensor):
            raise DTypeError(
                f"symgrad: grad: {name}() must return a scalar tensor"
                f"{' as the first of (value, aux)' if has_aux else ''}, got "
                f"{type(value).__name__}; pass has_aux=True to return (value, aux)"
            )
        if value.shape is None or list(value.shape) != []:
            raise ShapeError(
                f"symgrad: grad: {name}() returned '{value.name}' of shape "
                f"{list(value.shape) if value.shape is not None else 'unknown'}; gradients are "
                f"defined for scalar outputs only (reduce it first, e.g. with reduce_sum)"
            )
        if not value.dtype.is_floating:
            raise DTypeError(
                f"symgrad: grad: {name}() returned '{value.name}' of dtype {value.dtype.name}; "
                f"differentiate a floating-point value"
            )
        trees = []
        for position in positions:
            leaves, structure = tree_flatten(args[position])
            for leaf in leaves:
                if not leaf.dtype.is_floating:
                    raise DTypeError(
                        f"symgrad: grad: argument {position} of {name}() holds '{leaf.name}' of "
                        f"dtype {leaf.dtype.name}; only floating-point inputs have gradients"
                    )
            grads = gradients(value, leaves, unconnected_gradients="zero") if leaves else []
            trees.append(tree_unflatten(structure, grads))
        grads_out = tuple(trees) if many else trees[0]
        if with_value:
            return ((value, aux) if has_aux else value), grads_out
        return (grads_out, aux) if has_aux else grads_out

    return transform


def grad(
    fn: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False
) -> Function:
    """The gradient of a scalar function, as ``jax.grad``: a tree like the argument(s).

    >>> import numpy as np
    >>> import symgrad as sg
    >>> d = sg.grad(lambda w, x: sg.reduce_sum(w * x) ** 2, argnums=(0, 1))
    >>> [g.tolist() for g in d(np.array([1.0, 2.0]), np.array([3.0, 4.0]))]
    [[66.0, 88.0], [22.0, 44.0]]
    """
    transform = _gradient_transform(fn, argnums, has_aux, with_value=False)
    return Function(fn, transform, name=f"{getattr(fn, '__name__', 'function')}_grad")


def value_and_grad(
    fn: Callable[..., Any],
    *specs: Any,
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    name: str | None = None,
    path: Any = None,
) -> Any:
    """The value of a scalar function and its gradient, as ``jax.value_and_grad``.

    Without specs, a :class:`Function` returning ``(value, grads)`` — or
    ``((value, aux), grads)`` with ``has_aux=True`` —, where ``grads`` has the
    tree structure of the argument (a tuple of them when ``argnums`` is a
    sequence). With one :class:`TensorSpec` per argument, a compiled module
    returning ``(value, d value / d arg for each of argnums)``; there ``fn`` must
    return one tensor, whose gradient is that of its sum (TF's rule).

    >>> import numpy as np
    >>> import symgrad as sg
    >>> def loss(w):
    ...     return sg.reduce_sum(w * w), {"norm1": sg.reduce_sum(sg.abs(w))}
    >>> (value, aux), d_w = sg.value_and_grad(loss, has_aux=True)(np.array([3.0, -4.0]))
    >>> float(value), float(aux["norm1"]), d_w.tolist()
    (25.0, 7.0, [6.0, -8.0])
    """
    if not specs:
        transform = _gradient_transform(fn, argnums, has_aux, with_value=True)
        return Function(
            fn, transform, name=name or f"{getattr(fn, '__name__', 'function')}_value_and_grad"
        )
    if has_aux:
        raise InvalidArgumentError(
            "symgrad: value_and_grad: has_aux needs the traced-on-call form; leave out the specs"
        )
    traced = TracedFunction(fn, specs)
    if not isinstance(traced.outputs, Tensor):
        raise InvalidArgumentError(
            f"symgrad: value_and_grad: {fn.__name__}() must return one tensor"
        )
    positions: tuple[int, ...] = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for position in positions:
        if not 0 <= position < len(traced.inputs):
            raise InvalidArgumentError(
                f"symgrad: value_and_grad: argnums {position} is out of range for "
                f"{len(traced.inputs)} arguments"
            )
    with traced.graph.as_default():
        grads = gradients(
            traced.outputs, [traced.inputs[p] for p in positions], unconnected_gradients="zero"
        )
        return compile_graph(
            [traced.outputs, *grads],
            inputs=traced.inputs,
            name=name or f"{fn.__name__}_value_and_grad",
            path=path,
        )
