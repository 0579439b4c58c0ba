"""Compile plain Python functions: trace them with placeholders built from specs.

>>> import symgrad as sg
>>> def loss(w, x):
...     return sg.reduce_sum(sg.square(x * w - 1.0))
>>> step = sg.value_and_grad(loss, sg.TensorSpec([], sg.float64, "w"), sg.TensorSpec([None], sg.float64, "x"))
>>> value, d_w = step(2.0, [1.0, 2.0])
>>> float(value), float(d_w)
(10.0, 14.0)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from . import dtypes as _dtypes
from .compiler import CompiledModule
from .compiler import compile as compile_graph
from .errors import InvalidArgumentError
from .gradients import gradients
from .graph import Graph, Tensor
from .ops.sources import placeholder
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


class TracedFunction:
    """A Python function traced into its own graph: ``.graph``, ``.inputs``, ``.outputs``."""

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

    def compile(self, name: str | None = None, path: Any = None) -> CompiledModule:
        with self.graph.as_default():
            return compile_graph(
                self.outputs, inputs=self.inputs, name=name or self.fn.__name__, path=path
            )


def function(fn: Callable[..., Any] | None = None, *specs: Any) -> Any:
    """Trace ``fn`` with one :class:`TensorSpec` per argument; usable as a decorator.

    ``sg.function(f, spec, ...)`` returns a :class:`TracedFunction`; as
    ``@sg.function(spec, ...)`` it decorates ``f``. Call ``.compile()`` on it.
    """
    if fn is None or not callable(fn) or isinstance(fn, TensorSpec):
        leading = () if fn is None else (fn,)
        return lambda f: TracedFunction(f, leading + specs)
    return TracedFunction(fn, specs)


def value_and_grad(
    fn: Callable[..., Any],
    *specs: Any,
    argnums: int | Sequence[int] = 0,
    name: str | None = None,
    path: Any = None,
) -> CompiledModule:
    """A compiled module returning ``(value, d value / d arg for each of argnums)``.

    ``fn`` must return one tensor; its gradient is that of its sum (TF's rule).
    """
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
