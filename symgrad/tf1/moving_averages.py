"""TF1's ``tf.train.ExponentialMovingAverage`` (``moving_averages.py``).

``apply(var_list)`` creates a shadow variable per variable, named ``<var>/<name>`` and
starting at the variable's initial value, and returns one op that moves every shadow towards
its variable: ``shadow -= (1 - decay) * (shadow - var)``. With ``num_updates`` the decay is
``min(decay, (1 + num_updates) / (10 + num_updates))``, as in TF1.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, ancestors, get_default_graph
from ..ops.elementwise import cast, minimum
from ..ops.sources import convert_to_tensor
from ..ops.state import Variable, assign_sub, global_variables, group, trainable_variables
from ..shapes import format_shape, is_fully_defined
from .variable_scope import GraphKeys, get_collection, slot_variable

MOVING_AVERAGE_VARIABLES = GraphKeys.MOVING_AVERAGE_VARIABLES


def moving_average_variables() -> list:
    """The variables that an ``ExponentialMovingAverage`` averages (TF1's collection)."""
    return get_collection(MOVING_AVERAGE_VARIABLES)


def _assigned_before(graph: Any) -> dict[Variable, Tensor]:
    """The new value of each variable that the enclosing ``control_dependencies`` blocks assign.

    ``with control_dependencies([train_op]): ema.apply(...)`` averages the trained values in
    TF, which reads a variable after its control inputs ran; a Session here computes a run
    from the values at its start, so the update reads the assignment's value instead.
    """
    roots = [c.op if isinstance(c, Tensor) else c for c in graph.current_control_inputs()]
    found: dict[Variable, Tensor] = {}
    for op in ancestors(roots, control=True):
        if op.type == "Assign":
            found[op.attrs["variable"]] = op.outputs[0]
    return found


class ExponentialMovingAverage:
    """Shadow copies of variables that follow them with exponential decay.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable(0.0, name="w")
    ...     ema = sg.train.ExponentialMovingAverage(0.75)
    ...     update = ema.apply([w])
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         _ = sess.run(w.assign(10.0))
    ...         sess.run(update)
    ...         print(ema.average_name(w), sess.run(ema.average(w)))
    w/ExponentialMovingAverage 2.5
    """

    def __init__(
        self,
        decay: Any,
        num_updates: Any = None,
        zero_debias: bool = False,
        name: str = "ExponentialMovingAverage",
    ) -> None:
        if zero_debias:
            raise InvalidArgumentError(
                "symgrad: ExponentialMovingAverage: zero_debias=True is not supported"
            )
        self._decay = decay
        self._num_updates = num_updates
        self._name = name
        self._averages: dict[Tensor, Variable] = {}  # a variable's or a tensor's average

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list: Iterable[Any] | None = None) -> Operation:
        """Create the shadow variables of ``var_list`` (default: the trainable variables) and
        return the op that updates them."""
        variables = list(trainable_variables() if var_list is None else var_list)
        graph = get_default_graph()
        for var in variables:
            if not isinstance(var, Tensor):
                raise InvalidArgumentError(
                    f"symgrad: ExponentialMovingAverage.apply: {var!r:.60} is neither a "
                    "variable nor a tensor"
                )
            if not isinstance(var, Variable) and not is_fully_defined(var.shape):
                raise ShapeError(
                    f"symgrad: ExponentialMovingAverage.apply: tensor '{var.name}' has shape "
                    f"{format_shape(var.shape)}; its average needs a fully defined shape"
                )
            if not var.dtype.is_floating:
                raise DTypeError(
                    f"symgrad: ExponentialMovingAverage: the variable '{var.name}' has dtype "
                    f"{var.dtype.name}; it must be float16, float32 or float64"
                )
            if var in self._averages:
                raise InvalidArgumentError(
                    f"symgrad: Moving average already computed for: {var.name}"
                )
            # A slot of the variable, as TF1 makes it: named after the variable scope it is
            # made in, starting from the variable's value once it is initialized; a tensor's
            # (a batch's mean) starts from zeros, as TF1's zeros slot.
            if isinstance(var, Variable):
                self._averages[var] = slot_variable(var, var.initialized_value(), self._name)
                graph.add_to_collection(MOVING_AVERAGE_VARIABLES, var)
            else:
                zeros = np.zeros(tuple(var.shape), dtype=var.dtype.numpy)  # type: ignore[arg-type]
                self._averages[var] = slot_variable(var, zeros, self._name)
        assigned = _assigned_before(graph)
        with graph.name_scope(self._name) as scope:
            decay: Tensor = convert_to_tensor(self._decay, dtype=_dtypes.float32)
            if self._num_updates is not None:
                steps = cast(convert_to_tensor(self._num_updates), _dtypes.float32)
                decay = minimum(decay, (1.0 + steps) / (10.0 + steps))
            # TF's assign_moving_average: 1 - decay in float32, then in the average's dtype
            # (a number is subtracted here: SymPy would fold 1 - 0.9 exactly).
            if isinstance(self._decay, Tensor) or self._num_updates is not None:
                rate32: Any = 1.0 - decay
            else:
                rate32 = np.float32(1.0) - np.float32(self._decay)
            updates = []
            for var in variables:
                average = self._averages[var]
                rate = cast(rate32, average.dtype)
                value = assigned.get(var, var)
                updates.append(assign_sub(average, (average - value) * rate))
            return group(*updates, name=scope)

    def average(self, var: Any) -> Variable | None:
        """The shadow variable of ``var`` (None if ``apply`` did not see it)."""
        return self._averages.get(var)

    def average_name(self, var: Any) -> str:
        """The name of ``var``'s shadow variable: once ``apply`` made it, its name (in a
        variable scope, ``ema_scope/w/ExponentialMovingAverage``), before that the name it
        would get outside any scope, ``<var's op name>/<this object's name>``."""
        if var in self._averages:
            return str(self._averages[var].op.name)
        return f"{var.op.name}/{self._name}"

    def variables_to_restore(self, moving_avg_variables: Any = None) -> dict[str, Variable]:
        """A ``Saver`` map that restores each averaged variable from its shadow's checkpoint
        entry and every other global variable from its own.

        >>> import symgrad as sg
        >>> with sg.Graph().as_default():
        ...     w = sg.Variable(1.0, name="w")
        ...     step = sg.Variable(0, name="step", trainable=False)
        ...     ema = sg.train.ExponentialMovingAverage(0.99)
        ...     _ = ema.apply([w])
        ...     sorted(ema.variables_to_restore())
        ['step', 'w/ExponentialMovingAverage']
        """
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        averaged = list(dict.fromkeys(moving_avg_variables))
        names = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for var in global_variables():
            if var.name not in averaged_names and var.op.name not in names:
                names[var.op.name] = var
        return names


__all__ = ["MOVING_AVERAGE_VARIABLES", "ExponentialMovingAverage", "moving_average_variables"]
