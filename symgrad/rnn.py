"""TF1's recurrent nets: the cells of ``tf.nn.rnn_cell`` / ``tf.contrib.rnn``, and
``tf.nn.static_rnn``, ``tf.nn.dynamic_rnn`` and ``tf.nn.bidirectional_dynamic_rnn``.

A cell makes its variables at its first call, in a variable scope named after it
(``basic_lstm_cell``, ``gru_cell``, ... made unique, or the ``name`` given) inside the
scope of the call (``rnn`` for the functions here), so that they are named as in TF1
(``rnn/basic_lstm_cell/kernel``, ``rnn/multi_rnn_cell/cell_0/gru_cell/gates/bias``) and
weights saved by name carry over. Later calls use the same variables. The kernels are
Glorot uniform unless the enclosing variable scope or the cell says otherwise, the biases
zeros (a GRU's gates: ones), as in TF1.

The recurrence is unrolled over the time steps when the graph is built, so the generated
code is straight-line NumPy: ``dynamic_rnn`` needs the number of steps known then (TF1 runs
a ``while_loop`` instead); the batch may be ``None``.

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float32, [None, 5, 3])
...     cell = sg.nn.rnn_cell.BasicLSTMCell(4)
...     outputs, state = sg.nn.dynamic_rnn(cell, x, dtype=sg.float32)
...     print(outputs.shape, state.h.shape, [v.op.name for v in sg.trainable_variables()])
(None, 5, 4) (None, 4) ['rnn/basic_lstm_cell/kernel', 'rnn/basic_lstm_cell/bias']
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from . import dtypes as _dtypes
from .control_flow import flatten, loop_over_rows, pack_as
from .errors import InvalidArgumentError, ShapeError
from .graph import Tensor, get_default_graph
from .ops.checks import ensure_in_range
from .ops.creation import one_hot, zeros
from .ops.cumulative import cumsum
from .ops.elementwise import (
    add,
    cast,
    clip_by_value,
    less,
    multiply,
    ones_like,
    sigmoid,
    tanh,
    zeros_like,
)
from .ops.gathering import gather, where
from .ops.joining import concat, split, stack, unstack
from .ops.linalg import matmul
from .ops.nn_ops import bias_add
from .ops.random_ops import dropout
from .ops.reshaping import reshape, transpose
from .ops.shape_queries import shape
from .ops.slicing import reverse
from .ops.sources import constant, convert_to_tensor
from .ops.state import Variable
from .shapes import format_shape
from .tf1.init_ops import constant_initializer, zeros_initializer
from .tf1.variable_scope import VariableScope, get_variable, variable_scope

__all__ = [
    "BasicLSTMCell",
    "BasicRNNCell",
    "DropoutWrapper",
    "GRUCell",
    "LSTMCell",
    "LSTMStateTuple",
    "MultiRNNCell",
    "RNNCell",
    "bidirectional_dynamic_rnn",
    "dynamic_rnn",
    "static_rnn",
]

Activation = Callable[[Tensor], Tensor]


class LSTMStateTuple(NamedTuple):
    """An LSTM's state: the cell state ``c`` and the output ``h``."""

    c: Any
    h: Any

    @property
    def dtype(self) -> _dtypes.DType:
        return self.c.dtype


def _structure_map(function: Callable[[Any], Any], structure: Any) -> Any:
    """``function`` applied to every leaf of nested tuples (LSTMStateTuple kept)."""
    if isinstance(structure, LSTMStateTuple):
        return LSTMStateTuple(*(_structure_map(function, s) for s in structure))
    if isinstance(structure, (tuple, list)):
        return type(structure)(_structure_map(function, s) for s in structure)
    return function(structure)


def _structure_zip(function: Callable[..., Any], *structures: Any) -> Any:
    """``function`` of the leaves of equally nested structures, in their nesting."""
    first = structures[0]
    if isinstance(first, (tuple, list)):
        parts = [_structure_zip(function, *items) for items in zip(*structures, strict=True)]
        return LSTMStateTuple(*parts) if isinstance(first, LSTMStateTuple) else type(first)(parts)
    return function(*structures)


class RNNCell:
    """TF1's base class of recurrent cells: ``output, new_state = cell(inputs, state)``.

    A subclass gives ``state_size``, ``output_size``, ``_build(input_depth, dtype)`` (which
    makes the variables with :func:`symgrad.get_variable`) and ``_step(inputs, state)``.
    """

    _base_name = "rnn_cell"

    def __init__(self, reuse: Any = None, name: str | None = None, dtype: Any = None) -> None:
        self._reuse = reuse
        self._name = name
        self._dtype = None if dtype is None else _dtypes.as_dtype(dtype)
        self._scope: VariableScope | None = None

    @property
    def state_size(self) -> Any:
        raise NotImplementedError

    @property
    def output_size(self) -> int:
        raise NotImplementedError

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zeros of shape ``[batch_size, n]`` for each part of ``state_size``."""
        dtype = _dtypes.as_dtype(dtype)
        with get_default_graph().name_scope(f"{type(self).__name__}ZeroState"):
            return _structure_map(lambda n: zeros([batch_size, n], dtype), self.state_size)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Tensor, Any]:
        inputs = convert_to_tensor(inputs)
        if self._scope is not None:  # built: the same variables, whatever scope is open
            with variable_scope(self._scope, reuse=True):
                return self._step(inputs, state)
        if scope is not None:
            opened = variable_scope(scope)
        elif self._reuse:
            opened = variable_scope(self._name or self._base_name, reuse=self._reuse)
        else:
            opened = variable_scope(None, default_name=self._name or self._base_name)
        with opened as captured:
            self._scope = captured
            depth = _last_dim(inputs, type(self).__name__)
            self._build(depth, self._dtype or inputs.dtype)
            return self._step(inputs, state)

    def _build(self, input_depth: int, dtype: _dtypes.DType) -> None:
        raise NotImplementedError

    def _step(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        raise NotImplementedError


def _last_dim(inputs: Tensor, cell: str) -> int:
    """The size of the inputs' last axis, which a cell's kernel needs when it is made."""
    if inputs.shape is None or len(inputs.shape) != 2 or inputs.shape[-1] is None:
        raise ShapeError(
            f"symgrad: {cell}: inputs '{inputs.name}' must be [batch, depth] with a known "
            f"depth, got {format_shape(inputs.shape)}"
        )
    return int(inputs.shape[-1])


def _kernel(name: str, shape: list[int], dtype: _dtypes.DType, initializer: Any = None) -> Variable:
    return get_variable(name, shape, dtype=dtype, initializer=initializer)


def _bias(size: int, dtype: _dtypes.DType, initializer: Any = None) -> Variable:
    chosen = zeros_initializer() if initializer is None else initializer
    return get_variable("bias", [size], dtype=dtype, initializer=chosen)


def _affine(parts: list[Tensor], kernel: Variable, bias: Variable) -> Tensor:
    """``concat(parts, 1) @ kernel + bias``, as TF1's cells compute their gates."""
    return bias_add(matmul(concat(parts, 1), kernel), bias)


class BasicRNNCell(RNNCell):
    """``output = new_state = activation([inputs, state] @ kernel + bias)`` (tanh by default)."""

    _base_name = "basic_rnn_cell"

    def __init__(
        self,
        num_units: int,
        activation: Activation | None = None,
        reuse: Any = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(reuse, name, dtype)
        self._num_units = int(num_units)
        self._activation = activation or tanh

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def _build(self, input_depth: int, dtype: _dtypes.DType) -> None:
        units = self._num_units
        self._kernel = _kernel("kernel", [input_depth + units, units], dtype)
        self._bias = _bias(units, dtype)

    def _step(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        output = self._activation(_affine([inputs, state], self._kernel, self._bias))
        return output, output


class BasicLSTMCell(RNNCell):
    """TF1's LSTM without peepholes: gates ``i, j, f, o`` from one kernel, ``forget_bias``
    added to ``f``; the state is ``LSTMStateTuple(c, h)`` (or ``[c, h]`` concatenated when
    ``state_is_tuple=False``)."""

    _base_name = "basic_lstm_cell"

    def __init__(
        self,
        num_units: int,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Activation | None = None,
        reuse: Any = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(reuse, name, dtype)
        self._num_units = int(num_units)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or tanh

    @property
    def state_size(self) -> Any:
        units = self._num_units
        return LSTMStateTuple(units, units) if self._state_is_tuple else 2 * units

    @property
    def output_size(self) -> int:
        return self._num_units

    def _build(self, input_depth: int, dtype: _dtypes.DType) -> None:
        units = self._num_units
        self._kernel = _kernel("kernel", [input_depth + units, 4 * units], dtype)
        self._bias = _bias(4 * units, dtype)

    def _step(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        c, h = state if self._state_is_tuple else split(state, 2, axis=1)
        i, j, f, o = split(_affine([inputs, h], self._kernel, self._bias), 4, axis=1)
        forget_bias = cast(self._forget_bias, f.dtype)
        new_c = add(
            multiply(c, sigmoid(add(f, forget_bias))),
            multiply(sigmoid(i), self._activation(j)),
        )
        new_h = multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            return new_h, LSTMStateTuple(new_c, new_h)
        return new_h, concat([new_c, new_h], 1)


class LSTMCell(RNNCell):
    """TF1's full LSTM: optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``),
    ``cell_clip``, a projection of the output to ``num_proj`` units (``projection/kernel``)
    and ``proj_clip``; ``initializer`` for the kernels."""

    _base_name = "lstm_cell"

    def __init__(
        self,
        num_units: int,
        use_peepholes: bool = False,
        cell_clip: float | None = None,
        initializer: Any = None,
        num_proj: int | None = None,
        proj_clip: float | None = None,
        num_unit_shards: Any = None,
        num_proj_shards: Any = None,
        forget_bias: float = 1.0,
        state_is_tuple: bool = True,
        activation: Activation | None = None,
        reuse: Any = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(reuse, name, dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise InvalidArgumentError(
                "symgrad: LSTMCell: num_unit_shards/num_proj_shards (deprecated in TF1) are "
                "not supported"
            )
        self._num_units = int(num_units)
        self._use_peepholes = use_peepholes
        self._cell_clip, self._proj_clip = cell_clip, proj_clip
        self._initializer = initializer
        self._num_proj = None if num_proj is None else int(num_proj)
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or tanh

    @property
    def state_size(self) -> Any:
        units, out = self._num_units, self.output_size
        return LSTMStateTuple(units, out) if self._state_is_tuple else units + out

    @property
    def output_size(self) -> int:
        return self._num_proj or self._num_units

    def _build(self, input_depth: int, dtype: _dtypes.DType) -> None:
        units, init = self._num_units, self._initializer
        self._kernel = _kernel("kernel", [input_depth + self.output_size, 4 * units], dtype, init)
        self._bias = _bias(4 * units, dtype)
        if self._use_peepholes:
            self._w_f_diag = _kernel("w_f_diag", [units], dtype, init)
            self._w_i_diag = _kernel("w_i_diag", [units], dtype, init)
            self._w_o_diag = _kernel("w_o_diag", [units], dtype, init)
        if self._num_proj is not None:
            with variable_scope("projection"):
                self._projection = _kernel("kernel", [units, self._num_proj], dtype, init)

    def _step(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev, m_prev = split(state, [self._num_units, self.output_size], axis=1)
        i, j, f, o = split(_affine([inputs, m_prev], self._kernel, self._bias), 4, axis=1)
        forget = f + cast(self._forget_bias, f.dtype)
        if self._use_peepholes:
            c = sigmoid(forget + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * self._activation(j)
        else:
            c = sigmoid(forget) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = matmul(m, self._projection)
            if self._proj_clip is not None:
                m = clip_by_value(m, -self._proj_clip, self._proj_clip)
        if self._state_is_tuple:
            return m, LSTMStateTuple(c, m)
        return m, concat([c, m], 1)


class GRUCell(RNNCell):
    """TF1's GRU: reset and update gates from ``gates/kernel`` (their bias starts at ones),
    the candidate from ``candidate/kernel``; ``new_h = u·h + (1 − u)·candidate``."""

    _base_name = "gru_cell"

    def __init__(
        self,
        num_units: int,
        activation: Activation | None = None,
        reuse: Any = None,
        kernel_initializer: Any = None,
        bias_initializer: Any = None,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(reuse, name, dtype)
        self._num_units = int(num_units)
        self._activation = activation or tanh
        self._kernel_initializer, self._bias_initializer = kernel_initializer, bias_initializer

    @property
    def state_size(self) -> int:
        return self._num_units

    @property
    def output_size(self) -> int:
        return self._num_units

    def _build(self, input_depth: int, dtype: _dtypes.DType) -> None:
        units, kernel_init = self._num_units, self._kernel_initializer
        gate_bias = self._bias_initializer or constant_initializer(1.0)
        with variable_scope("gates"):
            self._gate_kernel = _kernel(
                "kernel", [input_depth + units, 2 * units], dtype, kernel_init
            )
            self._gate_bias = _bias(2 * units, dtype, gate_bias)
        with variable_scope("candidate"):
            self._candidate_kernel = _kernel(
                "kernel", [input_depth + units, units], dtype, kernel_init
            )
            self._candidate_bias = _bias(units, dtype, self._bias_initializer)

    def _step(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        value = sigmoid(_affine([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = split(value, 2, axis=1)
        candidate = _affine([inputs, r * state], self._candidate_kernel, self._candidate_bias)
        new_h = u * state + (1 - u) * self._activation(candidate)
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """Cells stacked: each one's output is the next one's input; the state is the tuple of
    theirs (scopes ``multi_rnn_cell/cell_0``, ``cell_1``, ...)."""

    _base_name = "multi_rnn_cell"

    def __init__(self, cells: Sequence[RNNCell], state_is_tuple: bool = True) -> None:
        super().__init__()
        if not cells:
            raise InvalidArgumentError("symgrad: MultiRNNCell: give at least one cell")
        self._cells = list(cells)
        # state_is_tuple=False (TF1's deprecated form): one [batch, sum of sizes] state, the
        # cells' states side by side; each cell's state must then be one array.
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(not isinstance(cell.state_size, int) for cell in self._cells):
            raise InvalidArgumentError(
                "symgrad: MultiRNNCell: with state_is_tuple=False every cell's state must be "
                "one array (an LSTM cell needs state_is_tuple=False too)"
            )

    @property
    def state_size(self) -> Any:
        sizes = tuple(cell.state_size for cell in self._cells)
        return sizes if self._state_is_tuple else sum(sizes)

    @property
    def output_size(self) -> int:
        return self._cells[-1].output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with get_default_graph().name_scope(f"{type(self).__name__}ZeroState"):
            states = tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return states if self._state_is_tuple else concat(list(states), 1)

    def _build(self, input_depth: int, dtype: _dtypes.DType) -> None:
        """The cells make their own variables, each in its ``cell_<i>`` scope."""

    def _step(self, inputs: Tensor, state: Any) -> tuple[Tensor, Any]:
        if not self._state_is_tuple:
            sizes = [cell.state_size for cell in self._cells]
            state = tuple(split(convert_to_tensor(state), sizes, axis=1))
        if len(state) != len(self._cells):
            raise InvalidArgumentError(
                f"symgrad: MultiRNNCell: the state has {len(state)} parts for "
                f"{len(self._cells)} cells"
            )
        output, new_states = inputs, []
        for index, (cell, cell_state) in enumerate(zip(self._cells, state, strict=True)):
            with variable_scope(f"cell_{index}"):
                output, new_state = cell(output, cell_state)
            new_states.append(new_state)
        return output, tuple(new_states) if self._state_is_tuple else concat(new_states, 1)


class DropoutWrapper(RNNCell):
    """Dropout on a cell's inputs, outputs and state (``*_keep_prob``; numbers or tensors).

    As in TF1, the ``c`` of an ``LSTMStateTuple`` is not dropped, and the wrapper adds no
    scope of its own. ``variational_recurrent`` (one mask for all steps) is not supported.
    """

    def __init__(
        self,
        cell: RNNCell,
        input_keep_prob: Any = 1.0,
        output_keep_prob: Any = 1.0,
        state_keep_prob: Any = 1.0,
        variational_recurrent: bool = False,
        input_size: Any = None,
        dtype: Any = None,
        seed: int | None = None,
        dropout_state_filter_visitor: Any = None,
    ) -> None:
        super().__init__()
        if variational_recurrent or dropout_state_filter_visitor is not None:
            raise InvalidArgumentError(
                "symgrad: DropoutWrapper: variational_recurrent and "
                "dropout_state_filter_visitor are not supported"
            )
        for what, keep in (
            ("input_keep_prob", input_keep_prob),
            ("output_keep_prob", output_keep_prob),
            ("state_keep_prob", state_keep_prob),
        ):
            if not isinstance(keep, Tensor) and not 0.0 < float(keep) <= 1.0:
                raise InvalidArgumentError(
                    f"symgrad: DropoutWrapper: Parameter {what} must be between 0 and 1: {keep}"
                )
        self._cell = cell
        self._keep = (input_keep_prob, output_keep_prob, state_keep_prob)
        self._seed = seed

    @property
    def state_size(self) -> Any:
        return self._cell.state_size

    @property
    def output_size(self) -> int:
        return self._cell.output_size

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        return self._cell.zero_state(batch_size, dtype)

    def _dropped(self, value: Tensor, keep: Any, role: int) -> Tensor:
        if not isinstance(keep, Tensor) and float(keep) == 1.0:
            return value
        # One seed, three masks: TF1 salts the seed per role (input, state, output) too.
        seed = None if self._seed is None else (3 * self._seed + role) % 2**31
        return dropout(value, keep_prob=keep, seed=seed)

    def _dropped_state(self, state: Any) -> Any:
        """Dropout on every part of ``state`` but the cell state ``c`` of each LSTM (TF1's
        default filter, which also looks inside the tuple of a MultiRNNCell)."""
        if isinstance(state, LSTMStateTuple):
            return LSTMStateTuple(state.c, self._dropped_state(state.h))
        if isinstance(state, (tuple, list)):
            return type(state)(self._dropped_state(part) for part in state)
        return self._dropped(state, self._keep[2], 1)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple[Tensor, Any]:
        input_keep, output_keep, _ = self._keep
        inputs = self._dropped(convert_to_tensor(inputs), input_keep, 0)
        output, new_state = self._cell(inputs, state, scope=scope)
        return self._dropped(output, output_keep, 2), self._dropped_state(new_state)


# --- unrolling ---------------------------------------------------------------------------


def _initial_state(
    cell: RNNCell, first_step: Tensor, initial_state: Any, dtype: Any, function: str
) -> Any:
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise InvalidArgumentError(
            f"symgrad: {function}: if no initial_state is provided, dtype must be specified"
        )
    if first_step.shape is None or len(first_step.shape) != 2:
        raise ShapeError(
            f"symgrad: {function}: the inputs of each step must be [batch, depth] with a known "
            f"depth, got '{first_step.name}' {format_shape(first_step.shape)}"
        )
    batch = first_step.shape[0]
    return cell.zero_state(shape(first_step)[0] if batch is None else batch, dtype)


def _unroll(
    cell: RNNCell, steps: list[Tensor], state: Any, sequence_length: Any
) -> tuple[list[Tensor], Any]:
    """The cell over ``steps`` from ``state``; past a sequence's length (when given) its
    output is zeros and its state is kept, as TF1's ``_rnn_step`` does."""
    lengths = None if sequence_length is None else _lengths(sequence_length)
    outputs = []
    for time, step in enumerate(steps):
        output, new_state = cell(step, state)
        if lengths is not None:
            running = less(time, lengths)  # one entry per sequence: where picks its rows
            output = where(running, output, zeros_like(output))
            new_state = _structure_zip(functools.partial(where, running), new_state, state)
        outputs.append(output)
        state = new_state
    return outputs, state


def _lengths(sequence_length: Any) -> Tensor:
    """``sequence_length`` as int32, checked to be a vector (one length per sequence)."""
    lengths = convert_to_tensor(sequence_length)
    if lengths.shape is not None and len(lengths.shape) != 1:
        raise ShapeError(
            f"symgrad: rnn: sequence_length '{lengths.name}' must be a vector of length "
            f"batch_size, got {format_shape(lengths.shape)}"
        )
    return cast(lengths, _dtypes.int32)


def static_rnn(
    cell: RNNCell,
    inputs: Sequence[Any],
    initial_state: Any = None,
    dtype: Any = None,
    sequence_length: Any = None,
    scope: Any = None,
) -> tuple[list[Tensor], Any]:
    """``cell`` over the list ``inputs`` (one ``[batch, depth]`` tensor per time step) in
    the variable scope ``scope`` (default ``rnn``); returns the outputs and the last state.

    ``sequence_length`` (one length per sequence) zeroes the outputs past each length and
    keeps the state there, as in TF1.
    """
    steps = [convert_to_tensor(step) for step in inputs]
    if not steps:
        raise InvalidArgumentError("symgrad: static_rnn: inputs must not be empty")
    with variable_scope(scope or "rnn"):
        state = _initial_state(cell, steps[0], initial_state, dtype, "static_rnn")
        return _unroll(cell, steps, state, sequence_length)


def dynamic_rnn(
    cell: RNNCell,
    inputs: Any,
    sequence_length: Any = None,
    initial_state: Any = None,
    dtype: Any = None,
    parallel_iterations: Any = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[Tensor, Any]:
    """``cell`` over the time axis of ``inputs`` (``[batch, time, depth]``, or
    ``[time, batch, depth]`` when ``time_major``); returns the outputs (same layout) and the
    last state. The number of time steps must be known when the graph is built: the loop is
    unrolled (TF1 runs a ``while_loop``); ``sequence_length`` as in :func:`static_rnn`.
    """
    del parallel_iterations, swap_memory  # TF1's while_loop tuning: nothing to tune here
    sequence = convert_to_tensor(inputs)
    time_axis = 0 if time_major else 1
    if sequence.shape is None or len(sequence.shape) != 3:
        raise ShapeError(
            f"symgrad: dynamic_rnn: inputs '{sequence.name}' must be [batch, time, depth] "
            f"(or [time, batch, depth] with time_major), got {format_shape(sequence.shape)}"
        )
    if sequence.shape[time_axis] is None:
        with variable_scope(scope or "rnn"):
            return _looped(cell, sequence, sequence_length, initial_state, dtype, time_axis)
    with variable_scope(scope or "rnn"):
        steps = unstack(sequence, axis=time_axis)
        state = _initial_state(cell, steps[0], initial_state, dtype, "dynamic_rnn")
        outputs, state = _unroll(cell, steps, state, sequence_length)
        return stack(outputs, axis=time_axis), state


def _looped(
    cell: RNNCell,
    sequence: Tensor,
    sequence_length: Any,
    initial_state: Any,
    dtype: Any,
    time_axis: int,
) -> tuple[Tensor, Any]:
    """``dynamic_rnn`` over a time axis of unknown size: a ``for`` loop over the steps in the
    generated module (:func:`symgrad.control_flow.loop_over_rows`), as TF1's ``while_loop``;
    its gradient loops back over what each step saved."""
    steps = sequence if time_axis == 0 else transpose(sequence, [1, 0, 2])
    state = _initial_state(cell, steps[0], initial_state, dtype, "dynamic_rnn")
    lengths = None if sequence_length is None else _lengths(sequence_length)
    leaves = flatten(state)
    # The step counter is carried only where sequence_length needs it.
    counter = [constant(0, dtype=_dtypes.int32)] if lengths is not None else []

    def step(carried: list[Tensor], rows: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
        old = pack_as(state, carried[len(counter) :])
        output, new_state = cell(rows[0], old)
        if lengths is not None:
            running = less(carried[0], lengths)
            output = where(running, output, zeros_like(output))
            new_state = _structure_zip(functools.partial(where, running), new_state, old)
        return [carried[0] + 1] * len(counter) + flatten(new_state), [output]

    names = ["time"] * len(counter) + (
        ["state"] if len(leaves) == 1 else [f"state_{k}" for k in range(len(leaves))]
    )
    finals, (outputs,) = loop_over_rows(
        step, counter + leaves, [steps], name="while", carried_names=names
    )
    final_state = pack_as(state, finals[len(counter) :])
    return (outputs if time_axis == 0 else transpose(outputs, [1, 0, 2])), final_state


def bidirectional_dynamic_rnn(
    cell_fw: RNNCell,
    cell_bw: RNNCell,
    inputs: Any,
    sequence_length: Any = None,
    initial_state_fw: Any = None,
    initial_state_bw: Any = None,
    dtype: Any = None,
    parallel_iterations: Any = None,
    swap_memory: bool = False,
    time_major: bool = False,
    scope: Any = None,
) -> tuple[tuple[Tensor, Tensor], tuple[Any, Any]]:
    """:func:`dynamic_rnn` forward (scope ``bidirectional_rnn/fw``) and over the reversed
    sequences (``bidirectional_rnn/bw``, its outputs reversed back); returns
    ``(outputs_fw, outputs_bw), (state_fw, state_bw)``. With ``sequence_length`` each
    sequence is reversed within its length, as TF1's ``reverse_sequence``."""
    sequence = convert_to_tensor(inputs)
    time_axis = 0 if time_major else 1
    with variable_scope(scope or "bidirectional_rnn"):
        with variable_scope("fw") as fw_scope:
            outputs_fw, state_fw = dynamic_rnn(
                cell_fw,
                sequence,
                sequence_length,
                initial_state_fw,
                dtype,
                time_major=time_major,
                scope=fw_scope,
            )
        with variable_scope("bw") as bw_scope:
            backward = _reversed(sequence, sequence_length, time_axis)
            reversed_outputs, state_bw = dynamic_rnn(
                cell_bw,
                backward,
                sequence_length,
                initial_state_bw,
                dtype,
                time_major=time_major,
                scope=bw_scope,
            )
        outputs_bw = _reversed(reversed_outputs, sequence_length, time_axis)
    return (outputs_fw, outputs_bw), (state_fw, state_bw)


def _reversed_rows(batch_major: Tensor, lengths: Tensor) -> Tensor:
    """Each sequence of ``[batch, time, depth]`` reversed within its length, where the
    number of steps is known only at run time: a gather of each sequence's steps in
    their reversed order (the steps counted by a cumulative sum of ones)."""
    ones = cast(ones_like(batch_major[:, :, 0]), _dtypes.int32)
    times = cumsum(ones, axis=1) - 1
    lengths = reshape(lengths, [-1, 1])
    sources = where(less(times, lengths), lengths - 1 - times, times)
    # Row b's step s is row b * steps + s of the steps of all rows, one after the other.
    rows = cumsum(ones[:, :1], axis=0) - 1
    known = batch_major.shape
    depth = known[2] if known is not None and known[2] is not None else -1
    flat = reshape(batch_major, [-1, depth])
    return gather(flat, sources + rows * shape(batch_major)[1])


def _reversed(sequence: Tensor, sequence_length: Any, time_axis: int) -> Tensor:
    """``sequence`` reversed along time; with lengths, each one within its length (the rest
    stays in place), as TF1's ``reverse_sequence``: a batched product with the one-hot
    matrix of each sequence's order of steps."""
    if sequence_length is None:
        return reverse(sequence, [time_axis])
    assert sequence.shape is not None  # dynamic_rnn has checked the rank
    batch_major = transpose(sequence, [1, 0, 2]) if time_axis == 0 else sequence
    if sequence.shape[time_axis] is None:
        flipped = _reversed_rows(batch_major, _lengths(sequence_length))
        return transpose(flipped, [1, 0, 2]) if time_axis == 0 else flipped
    count = int(sequence.shape[time_axis])
    # TF's ReverseSequence refuses a length past the steps or below 0.
    lengths = ensure_in_range(
        _lengths(sequence_length), zeros([count + 1], _dtypes.int32), 0, "ReverseSequence"
    )
    lengths = reshape(lengths, [-1, 1])
    times = constant(np.arange(count, dtype=np.int32))
    # Step t of a sequence of length n comes from its step n - 1 - t while t < n.
    sources = where(less(times, lengths), lengths - 1 - times, times + 0 * lengths)
    order = one_hot(sources, count, dtype=sequence.dtype)
    flipped = matmul(order, batch_major)
    return transpose(flipped, [1, 0, 2]) if time_axis == 0 else flipped
