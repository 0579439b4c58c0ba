"""``symgrad.train``: TF1's optimizers and global step, with TF1's exact update formulas.

An optimizer's ``minimize`` builds the gradients and one ``Assign`` per
variable (and per slot variable) into the graph and groups them into a
``train_op``; a :class:`symgrad.Session` runs them from the values at the start
of the run, so fetching ``[train_op, loss]`` gives the loss before the update.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import dtypes as _dtypes
from .checkpoint import (
    CheckpointReader,
    CheckpointState,
    NewCheckpointReader,
    Saver,
    checkpoint_exists,
    get_checkpoint_state,
    init_from_checkpoint,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
    update_checkpoint_state,
)
from .errors import DTypeError, InvalidArgumentError, ModelFileError, NotFoundError
from .gradients import gradients
from .graph import Operation, Tensor, get_default_graph
from .graph_export import export_meta_graph, write_graph
from .graph_import import AppliedUpdate, import_meta_graph, register_training_op
from .ops.checks import ensure_shape
from .ops.elementwise import abs as abs_
from .ops.elementwise import (
    cast,
    equal,
    exp,
    floor,
    greater,
    less_equal,
    maximum,
    minimum,
    multiply,
    negative,
    ones_like,
    pow,
    sign,
    sqrt,
    truediv,
    zeros_like,
)
from .ops.gathering import gathered_slices, where
from .ops.joining import concat
from .ops.reshaping import reshape
from .ops.segments import unsorted_segment_sum
from .ops.sources import constant, convert_to_tensor
from .ops.state import Variable, assign, assign_add, group, trainable_variables
from .tf1.init_ops import zeros_initializer
from .tf1.variable_scope import GraphKeys, get_variable, slot_variable
from .tf1_names import missing_attribute

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "FtrlOptimizer",
    "RMSPropOptimizer",
    "exponential_decay",
    "inverse_time_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
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
    "load_checkpoint",
    "NewCheckpointReader",
    "CheckpointReader",
    "init_from_checkpoint",
    "import_meta_graph",
    "write_graph",
    "export_meta_graph",
    "update_checkpoint_state",
]

GradsAndVars = list[tuple[Tensor | None, Variable]]


class Optimizer:
    """Base class: ``compute_gradients`` + ``apply_gradients`` = ``minimize``.

    Subclasses define ``_updates(grad, var, rows)``, returning the Assign tensors of
    one variable's step. ``rows`` is None, or, for a variable the loss reads only through
    ``gather``/``embedding_lookup`` (TF1's sparse gradient, ``IndexedSlices``), a bool
    vector of the rows gathered in this step: TF1's sparse kernels then update only those
    rows of the variable and of its slots. Optimizers whose sparse kernels equal the dense
    ones on rows without a gradient (gradient descent, Adam, Adagrad) set
    ``_sparse_rows_differ = False`` and get None.
    """

    _sparse_rows_differ = False

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
        # Non-slot state (Adam's beta powers) is made in the name scope the call is in, as
        # TF1's init_scope keeps it ("train/beta1_power" under name_scope("train")).
        with graph.as_default():
            self._prepare(pairs)
        with graph.as_default(), graph.name_scope(name or self._name) as scope:
            for grad, var in pairs:
                gathered = _gathered_indices(grad, var) if self._sparse_rows_differ else None
                rows = None if gathered is None else _rows_of(gathered, var)
                if grad.dtype != var.dtype:
                    grad = cast(grad, var.dtype)
                updates.extend(self._updates(grad, var, rows))
            updates.extend(self._finish())
            if global_step is not None:
                updates.append(assign_add(global_step, 1))
            # The train op is named after its scope ("Adam", "train/Adam"), as in TF1.
            train_op = group(updates, name=scope)
        if train_op not in graph.get_collection(GraphKeys.TRAIN_OP):
            graph.add_to_collection(GraphKeys.TRAIN_OP, train_op)
        return train_op

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
        self, var: Variable, slot_name: str, initial: Any = 0.0, op_name: str | None = None
    ) -> Variable:
        """The slot ``slot_name`` of ``var`` (TF1's key, ``"momentum"``), a variable named
        after ``var`` and this optimizer (``w/Momentum``; the second slot of one optimizer
        ``w/Adam_1``; in a variable scope ``train/w/Adam``: :func:`slot_variable`) or
        ``op_name`` when given, filled with ``initial`` in the variable's dtype (TF1's
        ``constant_initializer``: no float32 rounding)."""
        key = (var, slot_name)
        if key not in self._slots:
            shape = typing.cast(tuple[int, ...], var.shape)  # a variable's shape is fully defined
            value = np.full(shape, initial, dtype=var.dtype.numpy)
            self._slots[key] = slot_variable(var, value, op_name or self._name)
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

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        raise NotImplementedError


def _gathered_indices(grad: Tensor, var: Variable) -> list[Tensor] | None:
    """The indices of the gathers of ``var`` whose gradients ``grad`` adds up, when it is
    nothing else (TF1's ``IndexedSlices``), else None."""
    slices = gathered_slices(grad)
    if slices is None or any(_read_of(part.params) is not var for part in slices):
        return None
    return [part.indices for part in slices]


def _read_of(tensor: Tensor) -> Tensor:
    """``tensor``, or the variable an ``identity`` of it reads."""
    while tensor.op.type == "Identity":
        tensor = tensor.op.inputs[0]
    return tensor


def _rows_of(gathered: list[Tensor], var: Variable) -> Tensor:
    """A bool vector, true for the rows of ``var`` that ``gathered`` index."""
    flat = [reshape(indices, [-1]) for indices in gathered]
    every = flat[0] if len(flat) == 1 else concat(flat, 0)
    rows = typing.cast(tuple[int, ...], var.shape)[0]
    return greater(unsorted_segment_sum(ones_like(every, dtype=_dtypes.int32), every, rows), 0)


def _on_rows(rows: Tensor | None, new: Tensor, old: Tensor) -> Tensor:
    """``new`` on ``rows`` (all of them when None), ``old`` elsewhere: TF1's sparse kernels."""
    return new if rows is None else where(rows, new, old)


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
        if value.shape is None:
            # A placeholder declared without a shape (``lr = tf.placeholder(tf.float32)``):
            # TF1's Apply* kernels take hyperparameters as scalars, checked when run.
            value = ensure_shape(value, [])
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

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
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

    _sparse_rows_differ = True  # rows not gathered keep their momentum and do not move

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        lr, momentum = _hyper(self._learning_rate, var), _hyper(self._momentum, var)
        accum = self._slot(var, "momentum")
        new_accum = _on_rows(rows, accum * momentum + grad, accum)
        # With Nesterov, ApplyMomentum's kernel order: var -= grad*lr + accum*momentum*lr.
        step = grad * lr + new_accum * momentum * lr if self._use_nesterov else new_accum * lr
        return [assign(accum, new_accum), assign(var, _on_rows(rows, var - step, var))]


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
            with graph.as_default(), graph.control_dependencies(None):
                self._beta_powers = (
                    Variable(np.float32(self._beta1), name="beta1_power", trainable=False),
                    Variable(np.float32(self._beta2), name="beta2_power", trainable=False),
                )

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        # TF1's sparse Adam also decays m and v and moves every row: the dense formulas.
        assert self._beta_powers is not None
        beta1_power, beta2_power = (
            p if p.dtype == var.dtype else cast(p, var.dtype) for p in self._beta_powers
        )
        lr = _hyper(self._learning_rate, var)
        beta1, beta2 = _hyper(self._beta1, var), _hyper(self._beta2, var)
        epsilon = _hyper(self._epsilon, var)
        m, v = self._slot(var, "m"), self._slot(var, "v")
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


class RMSPropOptimizer(Optimizer):
    """TF1's ApplyRMSProp: ``ms ← ms + (g² − ms)·(1 − decay)``,
    ``mom ← momentum·mom + lr·g/√(ms + ε)``, ``var ← var − mom``.

    With ``centered``, ApplyCenteredRMSProp: ``mg ← mg + (g − mg)·(1 − decay)`` and the
    denominator is ``√(ms − mg² + ε)``. Slots: ``"rms"`` (starts at ones), ``"mg"``
    (centered only) and ``"momentum"``, named ``var/RMSProp``, ``var/RMSProp_1``...

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable([1.0, 2.0], dtype=sg.float64, name="w")
    ...     opt = sg.train.RMSPropOptimizer(0.1)
    ...     step = opt.minimize(sg.reduce_sum(w * w))
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         sess.run(step)
    ...         print(sess.run(w).round(6), opt.get_slot_names())
    [0.824588 1.747018] ['momentum', 'rms']
    """

    def __init__(
        self,
        learning_rate: Any,
        decay: Any = 0.9,
        momentum: Any = 0.0,
        epsilon: Any = 1e-10,
        use_locking: bool = False,
        centered: bool = False,
        name: str = "RMSProp",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay, self._momentum, self._epsilon = decay, momentum, epsilon
        self._centered = centered

    _sparse_rows_differ = True  # rows not gathered keep their averages and do not move

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        lr, rho = _hyper(self._learning_rate, var), _hyper(self._decay, var)
        momentum, epsilon = _hyper(self._momentum, var), _hyper(self._epsilon, var)
        # TF1 creates the slots in this order, so their variable names count up alike.
        # TF1's order of slots (their names count up in it): rms, mg, momentum.
        ms = self._slot(var, "rms", initial=1.0)
        mg = self._slot(var, "mg") if self._centered else None
        mom = self._slot(var, "momentum")
        ms_t = _on_rows(rows, ms + (grad * grad - ms) * (1 - rho), ms)
        updates = [assign(ms, ms_t)]
        if mg is not None:
            mg_t = _on_rows(rows, mg + (grad - mg) * (1 - rho), mg)
            updates.append(assign(mg, mg_t))
            denominator = sqrt(ms_t - mg_t * mg_t + epsilon)
        else:
            denominator = sqrt(ms_t + epsilon)
        mom_t = _on_rows(rows, mom * momentum + grad * lr / denominator, mom)
        return [*updates, assign(mom, mom_t), assign(var, _on_rows(rows, var - mom_t, var))]


class AdagradOptimizer(Optimizer):
    """TF1's ApplyAdagrad: ``accum ← accum + g²``, ``var ← var − lr·g/√accum``.

    The slot ``"accumulator"`` (``var/Adagrad``) starts at ``initial_accumulator_value``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable([1.0, 2.0], dtype=sg.float64, name="w")
    ...     step = sg.train.AdagradOptimizer(0.1).minimize(sg.reduce_sum(w * w))
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         sess.run(step)
    ...         print(sess.run(w).round(6))
    [0.901227 1.900311]
    """

    def __init__(
        self,
        learning_rate: Any,
        initial_accumulator_value: float = 0.1,
        use_locking: bool = False,
        name: str = "Adagrad",
    ) -> None:
        if initial_accumulator_value <= 0.0:
            raise InvalidArgumentError(
                "symgrad: AdagradOptimizer: initial_accumulator_value must be positive: "
                f"{initial_accumulator_value}"
            )
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        # A row without a gradient adds 0 and moves by 0: the sparse kernel's result.
        lr = _hyper(self._learning_rate, var)
        accum = self._slot(var, "accumulator", self._initial_accumulator_value)
        accum_t = accum + grad * grad
        return [assign(accum, accum_t), assign(var, var - grad * lr / sqrt(accum_t))]


class AdadeltaOptimizer(Optimizer):
    """TF1's ApplyAdadelta: ``accum ← ρ·accum + (1 − ρ)·g²``,
    ``update = √(accum_update + ε)/√(accum + ε)·g``, ``var ← var − lr·update``,
    ``accum_update ← ρ·accum_update + (1 − ρ)·update²``.

    Slots ``"accum"`` (``var/Adadelta``) and ``"accum_update"`` (``var/Adadelta_1``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable([1.0, 2.0], dtype=sg.float64, name="w")
    ...     step = sg.train.AdadeltaOptimizer(1.0).minimize(sg.reduce_sum(w * w))
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         sess.run(step)
    ...         print(sess.run(w).round(6))
    [0.999553 1.999553]
    """

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: Any = 0.95,
        epsilon: Any = 1e-08,
        use_locking: bool = False,
        name: str = "Adadelta",
    ) -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._rho, self._epsilon = learning_rate, rho, epsilon

    _sparse_rows_differ = True  # rows not gathered keep their accumulators

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        lr, rho = _hyper(self._learning_rate, var), _hyper(self._rho, var)
        epsilon = _hyper(self._epsilon, var)
        accum = self._slot(var, "accum")
        accum_update = self._slot(var, "accum_update")
        accum_t = _on_rows(rows, accum * rho + grad * grad * (1 - rho), accum)
        update = sqrt(accum_update + epsilon) / sqrt(accum_t + epsilon) * grad
        new_accum_update = accum_update * rho + update * update * (1 - rho)
        return [
            assign(accum, accum_t),
            assign(var, _on_rows(rows, var - update * lr, var)),
            assign(accum_update, _on_rows(rows, new_accum_update, accum_update)),
        ]


def _ftrl_number(value: Any, what: str, sign: str = "") -> float:
    """An FtrlOptimizer argument that TF1 compares with 0 in Python: a number, not negative
    (``sign="+"``) or not positive (``sign="-"``), with TF1's message otherwise."""
    if isinstance(value, (bool, Tensor)) or not isinstance(value, (int, float, np.number)):
        raise InvalidArgumentError(
            f"symgrad: FtrlOptimizer: {what} must be a Python number, got {value!r}"
        )
    if sign == "-" and value > 0.0:
        raise InvalidArgumentError(
            f"symgrad: FtrlOptimizer: {what} {float(value):f} needs to be negative or zero"
        )
    if sign == "+" and value < 0.0:
        raise InvalidArgumentError(
            f"symgrad: FtrlOptimizer: {what} {float(value):f} needs to be positive or zero"
        )
    return float(value)


class FtrlOptimizer(Optimizer):
    """TF1's FTRL-proximal optimizer (McMahan et al., 2013), ApplyFtrl's formulas:

    ``n ← accum + g²``; ``linear ← linear + ĝ − (n^(−p) − accum^(−p))/lr·var``;
    ``var ← (l1·sign(linear) − linear)/(n^(−p)/lr + 2·l2)`` where ``|linear| > l1``, else 0;
    ``accum ← n``. ``p`` is ``learning_rate_power`` (−0.5: square roots), ``ĝ`` the gradient,
    plus ``2·l2_shrinkage·var`` with ``l2_shrinkage_regularization_strength`` (ApplyFtrlV2),
    and ``l2`` is ``l2_regularization_strength + beta/(2·lr)``. Slots ``"accum"`` (starts at
    ``initial_accumulator_value``; named ``var/Ftrl``, or after ``accum_name``) and
    ``"linear"`` (zeros; ``var/Ftrl_1``, or after ``linear_name``). A variable read through
    ``gather`` moves only on the rows gathered, as TF1's SparseApplyFtrl.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     w = sg.Variable([1.0, 2.0], dtype=sg.float64, name="w")
    ...     opt = sg.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01)
    ...     step = opt.minimize(sg.reduce_sum(w * w))
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         sess.run(step)
    ...         print(sess.run(w).round(6), [v.op.name for v in sg.global_variables()][1:])
    [0.744559 1.74244 ] ['w/Ftrl', 'w/Ftrl_1']
    """

    def __init__(
        self,
        learning_rate: Any,
        learning_rate_power: float = -0.5,
        initial_accumulator_value: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        use_locking: bool = False,
        name: str = "Ftrl",
        accum_name: str | None = None,
        linear_name: str | None = None,
        l2_shrinkage_regularization_strength: float = 0.0,
        beta: float | None = None,
    ) -> None:
        super().__init__(use_locking, name)
        self._initial_accumulator_value = _ftrl_number(
            initial_accumulator_value, "initial_accumulator_value", "+"
        )
        self._learning_rate_power = _ftrl_number(learning_rate_power, "learning_rate_power", "-")
        self._l1 = _ftrl_number(l1_regularization_strength, "l1_regularization_strength", "+")
        self._l2 = _ftrl_number(l2_regularization_strength, "l2_regularization_strength", "+")
        self._l2_shrinkage = _ftrl_number(
            l2_shrinkage_regularization_strength, "l2_shrinkage_regularization_strength", "+"
        )
        self._beta = 0.0 if beta is None else _ftrl_number(beta, "beta")
        self._learning_rate = learning_rate
        self._accum_name, self._linear_name = accum_name, linear_name

    _sparse_rows_differ = True  # rows not gathered keep their slots and their value

    def _adjusted_l2(self, var: Variable) -> Any:
        """``l2 + beta / (2 * max(lr, 1e-36))``, which TF1 computes in float32 (the rate's
        dtype when it is a tensor) before casting it to the variable's dtype."""
        lr = self._learning_rate
        if self._beta == 0.0:
            return _hyper(self._l2, var)  # l2 + 0, exactly
        if isinstance(lr, Tensor):
            denominator = multiply(maximum(lr, np.asarray(1e-36, lr.dtype.numpy)), 2.0)
            adjusted = truediv(np.asarray(self._beta, lr.dtype.numpy), denominator) + self._l2
            return _hyper(adjusted, var)
        f32 = np.float32
        value = f32(self._l2) + f32(self._beta) / (f32(2.0) * max(f32(lr), f32(1e-36)))
        return _hyper(float(value), var)

    def _updates(self, grad: Tensor, var: Variable, rows: Tensor | None) -> list[Tensor]:
        lr, l1 = _hyper(self._learning_rate, var), _hyper(self._l1, var)
        l2 = self._adjusted_l2(var)
        power = _hyper(self._learning_rate_power, var)
        # TF1 makes the slots in this order: their names count up in it (w/Ftrl, w/Ftrl_1).
        accum = self._slot(
            var, "accum", self._initial_accumulator_value, self._accum_name or self._name
        )
        linear = self._slot(var, "linear", 0.0, self._linear_name or self._name)
        shrunk = grad
        if self._l2_shrinkage > 0.0:  # ApplyFtrlV2
            shrunk = grad + 2.0 * _hyper(self._l2_shrinkage, var) * var
        new_accum = accum + grad * grad
        if power == -0.5:  # the kernels' special case: square roots
            new_power, old_power = sqrt(new_accum), sqrt(accum)
        else:
            new_power, old_power = pow(new_accum, -power), pow(accum, -power)
        new_linear = linear + (shrunk - (new_power - old_power) / lr * var)
        active = greater(abs_(new_linear), l1)
        quadratic = new_power / lr + 2.0 * l2
        # Divided only where the result is kept, so a discarded 0/0 raises no warning.
        safe = where(active, quadratic, ones_like(var))
        new_var = where(active, (l1 * sign(new_linear) - new_linear) / safe, zeros_like(var))
        return [
            assign(linear, _on_rows(rows, new_linear, linear)),
            assign(var, _on_rows(rows, new_var, var)),
            assign(accum, _on_rows(rows, new_accum, accum)),
        ]


# --- learning-rate schedules (TF1's learning_rate_decay) -------------------------------------
#
# Each takes the global step (a variable that minimize(..., global_step=...) increments) and
# gives a tensor to pass as any optimizer's learning_rate. TF1 converts the initial rate to a
# tensor (float32 from a Python float) and casts the step and every other number to its dtype.


def _schedule_start(learning_rate: Any, global_step: Any, op: str) -> tuple[Tensor, Tensor]:
    if global_step is None:
        raise InvalidArgumentError(f"symgrad: {op}: global_step is required")
    rate = convert_to_tensor(learning_rate, name="learning_rate")
    if not rate.dtype.is_floating:
        rate = cast(rate, _dtypes.float32)
    return rate, cast(convert_to_tensor(global_step), rate.dtype)


def _as(value: Any, dtype: _dtypes.DType) -> Tensor:
    """TF1's ``math_ops.cast(value, dtype)``: a Python float becomes a float32 tensor first,
    so 0.9 on a float64 rate is float32(0.9); NumPy values keep their precision."""
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else cast(value, dtype)
    if isinstance(value, float):
        value = np.float32(value)
    return constant(np.asarray(value).astype(dtype.numpy), dtype=dtype)


def exponential_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """``learning_rate · decay_rate^(global_step / decay_steps)`` (the exponent floored
    with ``staircase``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     step = sg.train.get_or_create_global_step()
    ...     lr = sg.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         step.load(25, sess)
    ...         print(round(float(sess.run(lr)), 6))
    0.025
    """
    rate, step = _schedule_start(learning_rate, global_step, "exponential_decay")
    exponent = step / _as(decay_steps, rate.dtype)
    if staircase:
        exponent = floor(exponent)
    return multiply(rate, pow(_as(decay_rate, rate.dtype), exponent), name=name)


def natural_exp_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """``learning_rate · exp(−decay_rate · global_step / decay_steps)`` (TF1: an exponential
    decay by ``exp(−decay_rate)``, the exponent floored with ``staircase``)."""
    rate, step = _schedule_start(learning_rate, global_step, "natural_exp_decay")
    exponent = step / _as(decay_steps, rate.dtype)
    if staircase:
        exponent = floor(exponent)
    factor = exp(negative(_as(decay_rate, rate.dtype)))
    return multiply(rate, pow(factor, exponent), name=name)


def inverse_time_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    decay_rate: Any,
    staircase: bool = False,
    name: str | None = None,
) -> Tensor:
    """``learning_rate / (1 + decay_rate · global_step / decay_steps)`` (the ratio floored
    with ``staircase``)."""
    rate, step = _schedule_start(learning_rate, global_step, "inverse_time_decay")
    ratio = step / _as(decay_steps, rate.dtype)
    if staircase:
        ratio = floor(ratio)
    denominator = _as(1, rate.dtype) + _as(decay_rate, rate.dtype) * ratio
    return truediv(rate, denominator, name=name)


def polynomial_decay(
    learning_rate: Any,
    global_step: Any,
    decay_steps: Any,
    end_learning_rate: Any = 0.0001,
    power: Any = 1.0,
    cycle: bool = False,
    name: str | None = None,
) -> Tensor:
    """From ``learning_rate`` to ``end_learning_rate`` over ``decay_steps`` steps:
    ``(lr − end)·(1 − step/decay_steps)^power + end``, the step capped at ``decay_steps``;
    with ``cycle``, ``decay_steps`` grows to the next multiple of itself instead.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     step = sg.train.get_or_create_global_step()
    ...     lr = sg.train.polynomial_decay(0.1, step, 10, end_learning_rate=0.01)
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         step.load(5, sess)
    ...         print(round(float(sess.run(lr)), 6))
    0.055
    """
    rate, step = _schedule_start(learning_rate, global_step, "polynomial_decay")
    end = _as(end_learning_rate, rate.dtype)
    exponent = _as(power, rate.dtype)
    steps = _as(decay_steps, rate.dtype)
    if cycle:
        # ceil(step / decay_steps), and 1 at step 0: ceil(x) = -floor(-x).
        ceiling = negative(floor(negative(step / steps)))
        multiplier = where(equal(step, _as(0, rate.dtype)), _as(1, rate.dtype), ceiling)
        steps = steps * multiplier
    else:
        step = minimum(step, steps)
    fraction = step / steps
    return multiply(rate - end, pow(_as(1, rate.dtype) - fraction, exponent)) + end


def piecewise_constant(
    x: Any, boundaries: Sequence[Any], values: Sequence[Any], name: str | None = None
) -> Tensor:
    """``values[0]`` while ``x <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < x <= boundaries[i]``, ``values[-1]`` after the last boundary.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     step = sg.train.get_or_create_global_step()
    ...     lr = sg.train.piecewise_constant(step, [10, 20], [1.0, 0.5, 0.1])
    ...     with sg.Session() as sess:
    ...         sess.run(sg.global_variables_initializer())
    ...         print([float(sess.run(lr)) for _ in [step.load(10, sess)]],
    ...               [float(sess.run(lr)) for _ in [step.load(11, sess)]])
    [1.0] [0.5]
    """
    if len(values) != len(boundaries) + 1:
        raise InvalidArgumentError(
            f"symgrad: piecewise_constant: the length of boundaries ({len(boundaries)}) should "
            f"be 1 less than the length of values ({len(values)})"
        )
    x = convert_to_tensor(x)
    tensors = [convert_to_tensor(v) for v in values]
    for value in tensors[1:]:
        if value.dtype != tensors[0].dtype:
            raise DTypeError(
                "symgrad: piecewise_constant: values must have the same dtype, got "
                f"{tensors[0].dtype.name} and {value.dtype.name}"
            )
    result = tensors[-1]
    # From the last boundary back: the first boundary x is not past decides.
    for boundary, value in zip(reversed(boundaries), reversed(tensors[:-1]), strict=True):
        result = where(less_equal(x, _as(boundary, x.dtype)), value, result)
    return result if name is None else multiply(result, _as(1, result.dtype), name=name)


# --- global step -----------------------------------------------------------------------------


def get_global_step(graph: Any = None) -> Variable | None:
    """The graph's global step variable: the one in ``GraphKeys.GLOBAL_STEP``, else a
    variable named ``global_step`` (TF1's rule), else None."""
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if found:
        return found[0]
    try:
        tensor = graph.get_tensor_by_name("global_step:0")
    except NotFoundError:
        return None
    return tensor if isinstance(tensor, Variable) else None


def get_or_create_global_step(graph: Any = None) -> Variable:
    """An int64 counter named ``global_step``; ``minimize(..., global_step=...)`` increments it."""
    graph = graph or get_default_graph()
    existing = get_global_step(graph)
    if existing is not None:
        return existing
    # get_variable: in the current variable scope ("s/global_step" under variable_scope("s")),
    # outside name scopes and control dependencies, as TF1 makes it.
    with graph.as_default(), graph.name_scope(""):
        step = get_variable(
            GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype=_dtypes.int64,
            initializer=zeros_initializer(),
            trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP],
        )
    return step


create_global_step = get_or_create_global_step


def global_step(sess: Any, global_step_tensor: Tensor) -> int:
    """The current value of the global step, as a Python int."""
    return int(sess.run(global_step_tensor))


# A TF1 name this module lacks says so, and what to use instead (symgrad.tf1_names).
if not TYPE_CHECKING:

    def __getattr__(name: str) -> Any:
        raise missing_attribute(__name__, "train", name)


# --- the train ops of imported meta graphs ------------------------------------------------------
# symgrad.graph_import makes each train op of a .meta file again with these optimizers: the
# hyperparameters and slot variables of TF's update ops (ApplyAdam's m and v ...) adopted.


def _adopted(
    optimizer: Optimizer, updates: Sequence[AppliedUpdate], slots: Mapping[str, str]
) -> Optimizer:
    """``optimizer`` whose slot ``slots[input]`` of each updated variable is the imported
    variable that TF's update op reads as ``input``."""
    for update in updates:
        variable = update.variables["var"]
        for input_name, slot_name in slots.items():
            slot = update.variables.get(input_name)
            if slot is None:
                raise ModelFileError(
                    f"symgrad: import_meta_graph: the {input_name} of '{update.name}' "
                    f"({update.op}) is no variable symgrad imported"
                )
            optimizer._slots[(variable, slot_name)] = slot
    return optimizer


def _no_nesterov(update: AppliedUpdate) -> None:
    if update.attrs.get("use_nesterov"):
        raise ModelFileError(
            f"symgrad: import_meta_graph: '{update.name}' ({update.op}) uses Nesterov "
            f"momentum, which TF1's {update.op[5:]}Optimizer does not"
        )


def _imported_gradient_descent(updates: Sequence[AppliedUpdate]) -> Optimizer:
    return GradientDescentOptimizer(updates[0].hyper("lr"))


def _imported_momentum(updates: Sequence[AppliedUpdate]) -> Optimizer:
    first = updates[0]
    optimizer = MomentumOptimizer(
        first.hyper("lr"),
        first.hyper("momentum"),
        use_nesterov=bool(first.attrs.get("use_nesterov")),
    )
    return _adopted(optimizer, updates, {"accum": "momentum"})


def _imported_adam(updates: Sequence[AppliedUpdate]) -> Optimizer:
    first = updates[0]
    _no_nesterov(first)
    optimizer = AdamOptimizer(
        first.hyper("lr"), first.hyper("beta1"), first.hyper("beta2"), first.hyper("epsilon")
    )
    powers = (first.variables.get("beta1_power"), first.variables.get("beta2_power"))
    if powers[0] is None or powers[1] is None:
        raise ModelFileError(
            f"symgrad: import_meta_graph: the beta powers of '{first.name}' are no variables "
            f"symgrad imported"
        )
    optimizer._beta_powers = (powers[0], powers[1])
    return _adopted(optimizer, updates, {"m": "m", "v": "v"})


def _imported_rmsprop(updates: Sequence[AppliedUpdate]) -> Optimizer:
    first = updates[0]
    centered = first.op == "ApplyCenteredRMSProp"
    optimizer = RMSPropOptimizer(
        first.hyper("lr"),
        first.hyper("rho"),
        first.hyper("momentum"),
        first.hyper("epsilon"),
        centered=centered,
    )
    slots = {"ms": "rms", "mom": "momentum", **({"mg": "mg"} if centered else {})}
    return _adopted(optimizer, updates, slots)


def _imported_adagrad(updates: Sequence[AppliedUpdate]) -> Optimizer:
    return _adopted(AdagradOptimizer(updates[0].hyper("lr")), updates, {"accum": "accumulator"})


def _imported_adadelta(updates: Sequence[AppliedUpdate]) -> Optimizer:
    first = updates[0]
    optimizer = AdadeltaOptimizer(first.hyper("lr"), first.hyper("rho"), first.hyper("epsilon"))
    return _adopted(optimizer, updates, {"accum": "accum", "accum_update": "accum_update"})


# The inputs of TF's update kernels, in order (training_ops.cc); "grad" is the gradient.
register_training_op("ApplyGradientDescent", ("var", "lr", "grad"), _imported_gradient_descent)
register_training_op(
    "ApplyMomentum", ("var", "accum", "lr", "grad", "momentum"), _imported_momentum
)
register_training_op(
    "ApplyAdam",
    ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
    _imported_adam,
)
register_training_op(
    "ApplyRMSProp",
    ("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"),
    _imported_rmsprop,
)
register_training_op(
    "ApplyCenteredRMSProp",
    ("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"),
    _imported_rmsprop,
)
register_training_op("ApplyAdagrad", ("var", "accum", "lr", "grad"), _imported_adagrad)
register_training_op(
    "ApplyAdadelta",
    ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"),
    _imported_adadelta,
)


# Moving averages of variables (issue 15).
from .tf1.moving_averages import ExponentialMovingAverage  # noqa: E402

__all__ += ["ExponentialMovingAverage"]

# Queue-based input pipelines, run by the Session in Python (symgrad.queues).
from .queues import (  # noqa: E402
    Coordinator,
    QueueRunner,
    add_queue_runner,
    batch,
    batch_join,
    input_producer,
    queue_runner,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    start_queue_runners,
)
from .string_ops import string_input_producer  # noqa: E402

__all__ += [
    "Coordinator",
    "QueueRunner",
    "add_queue_runner",
    "batch",
    "batch_join",
    "input_producer",
    "queue_runner",
    "range_input_producer",
    "shuffle_batch",
    "shuffle_batch_join",
    "slice_input_producer",
    "string_input_producer",
    "start_queue_runners",
]
