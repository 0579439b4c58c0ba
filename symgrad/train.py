"""``symgrad.train``: TF1's optimizers and global step, with TF1's exact update formulas.

An optimizer's ``minimize`` builds the gradients and one ``Assign`` per
variable (and per slot variable) into the graph and groups them into a
``train_op``; a :class:`symgrad.Session` runs them from the values at the start
of the run, so fetching ``[train_op, loss]`` gives the loss before the update.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import dtypes as _dtypes
from .checkpoint import (
    CheckpointState,
    Saver,
    checkpoint_exists,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_variable,
    update_checkpoint_state,
)
from .errors import InvalidArgumentError
from .gradients import gradients
from .graph import Operation, Tensor, get_default_graph
from .ops.elementwise import cast, sqrt
from .ops.state import Variable, assign, assign_add, group, trainable_variables

__all__ = [
    "AdamOptimizer",
    "CheckpointState",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "Saver",
    "checkpoint_exists",
    "create_global_step",
    "get_checkpoint_state",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "latest_checkpoint",
    "list_variables",
    "load_variable",
    "update_checkpoint_state",
]

GradsAndVars = list[tuple[Tensor | None, Variable]]


class Optimizer:
    """Base class: ``compute_gradients`` + ``apply_gradients`` = ``minimize``.

    Subclasses define ``_updates(grad, var)``, returning the Assign tensors of
    one variable's step.
    """

    def __init__(self, use_locking: bool = False, name: str = "Optimizer") -> None:
        self._name = name
        self._slots: dict = {}

    def compute_gradients(
        self,
        loss: Tensor,
        var_list: Sequence[Variable] | None = None,
        gate_gradients: Any = 1,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        grad_loss: Tensor | None = None,
    ) -> GradsAndVars:
        """``[(gradient or None, variable), ...]`` for ``var_list`` (default: trainable variables)."""
        if not isinstance(loss, Tensor):
            raise InvalidArgumentError(
                f"symgrad: {self._name}: loss must be a Tensor, got {type(loss).__name__}"
            )
        if var_list is None:
            with loss.graph.as_default():
                var_list = trainable_variables()
        var_list = list(var_list)
        if not var_list:
            raise InvalidArgumentError(f"symgrad: {self._name}: no variables to optimize")
        for var in var_list:
            if not isinstance(var, Variable):
                raise InvalidArgumentError(
                    f"symgrad: {self._name}: var_list entries must be Variables, "
                    f"got {type(var).__name__} {getattr(var, 'name', var)!r}"
                )
        grads = gradients(loss, var_list, grad_ys=grad_loss, aggregation_method=aggregation_method)
        return list(zip(grads, var_list, strict=False))

    def apply_gradients(
        self,
        grads_and_vars: Sequence[tuple[Tensor | None, Variable]],
        global_step: Variable | None = None,
        name: str | None = None,
    ) -> Operation:
        """One op that applies every (gradient, variable) step (and increments ``global_step``)."""
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not pairs:
            names = ", ".join(v.name for _, v in grads_and_vars)
            raise InvalidArgumentError(
                f"symgrad: {self._name}: no gradients provided for any variable ({names})"
            )
        graph = pairs[0][1].graph
        updates: list[Tensor] = []
        with graph.as_default(), graph.name_scope(name or self._name):
            self._prepare(pairs)
            for grad, var in pairs:
                if grad.dtype != var.dtype:
                    grad = cast(grad, var.dtype)
                updates.extend(self._updates(grad, var))
            updates.extend(self._finish())
            if global_step is not None:
                updates.append(assign_add(global_step, 1))
        return group(updates, name=name or self._name)

    def minimize(
        self,
        loss: Tensor,
        global_step: Variable | None = None,
        var_list: Sequence[Variable] | None = None,
        gate_gradients: Any = 1,
        aggregation_method: Any = None,
        colocate_gradients_with_ops: bool = False,
        name: str | None = None,
        grad_loss: Tensor | None = None,
    ) -> Operation:
        """``train_op``: one step on every trainable variable that receives a gradient.

        Raises ``ValueError`` when no variable receives one.
        """
        grads_and_vars = self.compute_gradients(
            loss, var_list, aggregation_method=aggregation_method, grad_loss=grad_loss
        )
        if all(g is None for g, _ in grads_and_vars):
            raise InvalidArgumentError(
                f"symgrad: {self._name}: no gradients provided for any variable; check the graph for ops "
                f"that do not support gradients between variables "
                f"{[v.name for _, v in grads_and_vars]} and loss '{loss.name}'"
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    # -- slots ---------------------------------------------------------------------------------
    def _slot(
        self, var: Variable, slot_name: str, variable_name: str, initial: Any = 0.0
    ) -> Variable:
        """The slot ``slot_name`` of ``var`` (TF1's key, ``"momentum"``), a variable
        named ``var/variable_name`` (TF1's variable name, ``"w/Momentum"``)."""
        key = (var, slot_name)
        if key not in self._slots:
            shape = typing.cast(tuple[int, ...], var.shape)  # a variable's shape is fully defined
            value = np.full(shape, initial, dtype=var.dtype.numpy)
            # TF1 names a slot after its variable, outside any scope: "w/Momentum".
            with var.graph.as_default(), var.graph.name_scope(""):
                self._slots[key] = Variable(
                    value, name=f"{var.op.name}/{variable_name}", trainable=False
                )
        return self._slots[key]

    def get_slot(self, var: Variable, name: str) -> Variable | None:
        return self._slots.get((var, name))

    def get_slot_names(self) -> list[str]:
        return sorted({name for _, name in self._slots})

    def _prepare(self, pairs: list[tuple[Tensor, Variable]]) -> None:
        """Create non-slot state before the updates (Adam's beta powers)."""

    def _finish(self) -> list[Tensor]:
        """Updates of non-slot state after the per-variable ones."""
        return []

    def _updates(self, grad: Tensor, var: Variable) -> list[Tensor]:
        raise NotImplementedError


def _hyper(value: Any, var: Variable) -> Any:
    """A hyperparameter as a number or a tensor of the variable's dtype.

    TF1 turns a Python number into a float32 tensor and casts that to the
    variable's dtype, so momentum 0.9 on a float64 variable is 0.8999999762:
    round Python numbers through float32 the same way. (NumPy scalars keep their
    own precision, as ``convert_to_tensor`` keeps their dtype.)

    >>> import symgrad as sg
    >>> _hyper(0.9, sg.Variable(1.0, dtype=sg.float64))
    0.8999999761581421
    """
    if isinstance(value, Tensor):
        return value if value.dtype == var.dtype else cast(value, var.dtype)
    if isinstance(value, (int, float)) and not isinstance(value, (bool, np.generic)):
        return float(np.float32(value))
    return value


class GradientDescentOptimizer(Optimizer):
    """``var ← var − learning_rate · grad``."""

    def __init__(
        self, learning_rate: Any, use_locking: bool = False, name: str = "GradientDescent"
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _updates(self, grad: Tensor, var: Variable) -> list[Tensor]:
        return [assign(var, var - _hyper(self._learning_rate, var) * grad)]


class MomentumOptimizer(Optimizer):
    """TF1's ApplyMomentum: ``accum ← momentum·accum + grad``; ``var ← var − lr·accum``.

    With ``use_nesterov``: ``var ← var − lr·(grad + momentum·accum)`` (new accum).
    """

    def __init__(
        self,
        learning_rate: Any,
        momentum: Any,
        use_locking: bool = False,
        name: str = "Momentum",
        use_nesterov: bool = False,
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _updates(self, grad: Tensor, var: Variable) -> list[Tensor]:
        lr, momentum = _hyper(self._learning_rate, var), _hyper(self._momentum, var)
        accum = self._slot(var, "momentum", self._name)
        new_accum = accum * momentum + grad
        if self._use_nesterov:
            # ApplyMomentum's kernel order: var -= grad*lr + accum*momentum*lr.
            return [
                assign(accum, new_accum),
                assign(var, var - (grad * lr + new_accum * momentum * lr)),
            ]
        return [assign(accum, new_accum), assign(var, var - new_accum * lr)]


class AdamOptimizer(Optimizer):
    """TF1's Adam, with its bias correction folded into the step size:

    ``lr_t = lr·√(1 − β2^t)/(1 − β1^t)``, ``m ← β1·m + (1 − β1)·g``,
    ``v ← β2·v + (1 − β2)·g²``, ``var ← var − lr_t·m/(√v + ε)``.
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-08,
        use_locking: bool = False,
        name: str = "Adam",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._beta_powers: tuple[Variable, Variable] | None = None

    def _prepare(self, pairs: list[tuple[Tensor, Variable]]) -> None:
        if self._beta_powers is None:
            first = min((v for _, v in pairs), key=lambda v: v.op.index)
            graph = first.graph
            # TF1 makes the beta powers float32 variables (from Python floats) whatever
            # the variables' dtype, and casts them to each variable's dtype when applying.
            with graph.as_default(), graph.name_scope(""):
                self._beta_powers = (
                    Variable(np.float32(self._beta1), name="beta1_power", trainable=False),
                    Variable(np.float32(self._beta2), name="beta2_power", trainable=False),
                )

    def _updates(self, grad: Tensor, var: Variable) -> list[Tensor]:
        assert self._beta_powers is not None
        beta1_power, beta2_power = (
            p if p.dtype == var.dtype else cast(p, var.dtype) for p in self._beta_powers
        )
        lr = _hyper(self._learning_rate, var)
        beta1, beta2 = _hyper(self._beta1, var), _hyper(self._beta2, var)
        epsilon = _hyper(self._epsilon, var)
        m, v = self._slot(var, "m", self._name), self._slot(var, "v", f"{self._name}_1")
        # ApplyAdam's kernel order: m += (g - m)·(1 - β1), v += (g² - v)·(1 - β2).
        lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
        m_t = m + (grad - m) * (1 - beta1)
        v_t = v + (grad * grad - v) * (1 - beta2)
        return [
            assign(m, m_t),
            assign(v, v_t),
            assign(var, var - m_t * lr_t / (sqrt(v_t) + epsilon)),
        ]

    def _finish(self) -> list[Tensor]:
        assert self._beta_powers is not None
        beta1_power, beta2_power = self._beta_powers
        return [
            assign(beta1_power, beta1_power * _hyper(self._beta1, beta1_power)),
            assign(beta2_power, beta2_power * _hyper(self._beta2, beta2_power)),
        ]


# --- global step -----------------------------------------------------------------------------


def get_global_step(graph: Any = None) -> Variable | None:
    """The graph's global step variable, if one was created."""
    found = (graph or get_default_graph()).get_collection("global_step")
    return found[0] if found else None


def get_or_create_global_step(graph: Any = None) -> Variable:
    """An int64 counter named ``global_step``; ``minimize(..., global_step=...)`` increments it."""
    graph = graph or get_default_graph()
    existing = get_global_step(graph)
    if existing is not None:
        return existing
    with graph.as_default(), graph.name_scope(""):
        step = Variable(np.int64(0), name="global_step", trainable=False, dtype=_dtypes.int64)
    graph.add_to_collection("global_step", step)
    return step


create_global_step = get_or_create_global_step


def global_step(sess: Any, global_step_tensor: Tensor) -> int:
    """The current value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))
