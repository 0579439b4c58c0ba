"""State: assignments to variables, initializers, and groups of ops.

An ``Assign`` op computes the variable's new value (it lowers to its value,
so compile() treats it as an identity); a :class:`symgrad.Session` that runs
it then stores that value. A ``NoOp`` groups ops through control inputs, as
``train_op`` and ``global_variables_initializer()`` do.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, get_default_graph
from ..shapes import format_shape, shapes_compatible
from .elementwise import _lower, _no_gradient, make_elementwise
from .registry import OpDef, register
from .sources import Variable, convert_to_tensor, global_variables

register(OpDef("Assign", lower=_lower, gradient=_no_gradient, elementwise=True))
register(OpDef("NoOp", lower=None, gradient=None))


def assign(ref: Variable, value: Any, name: str | None = None) -> Tensor:
    """A tensor holding ``value``; running it stores that value in ``ref``.

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
    if value.shape is None or not shapes_compatible(value.shape, ref.shape):
        raise ShapeError(
            f"symgrad: Assign: value '{value.name}' has shape {format_shape(value.shape)}, "
            f"variable '{ref.name}' has shape {format_shape(ref.shape)}"
        )
    out = make_elementwise(
        "Assign", lambda a: a, [value], name or f"{ref.op.name}/Assign", allowed="any"
    )
    out.op.attrs["variable"] = ref
    return out


def assign_add(ref: Variable, delta: Any, name: str | None = None) -> Tensor:
    """``ref + delta``, stored in ``ref`` when run."""
    return assign(ref, ref + delta, name=name or f"{ref.op.name}/AssignAdd")


def assign_sub(ref: Variable, delta: Any, name: str | None = None) -> Tensor:
    """``ref - delta``, stored in ``ref`` when run."""
    return assign(ref, ref - delta, name=name or f"{ref.op.name}/AssignSub")


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


def variables_initializer(var_list: Iterable[Variable], name: str = "init") -> Operation:
    """An op that sets every variable of ``var_list`` to its initial value."""
    return group([v.initializer for v in var_list], name=name)


def global_variables_initializer() -> Operation:
    """An op that initializes every variable of the default graph."""
    return variables_initializer(global_variables(), name="init")


initialize_all_variables = global_variables_initializer


__all__ = [
    "assign",
    "assign_add",
    "assign_sub",
    "group",
    "variables_initializer",
    "global_variables_initializer",
    "initialize_all_variables",
]
