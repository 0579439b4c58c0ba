"""TF1's control flow: ``cond``, ``case``, ``while_loop``, and the loops over a tensor's
leading axis (``map_fn``, ``scan``, ``foldl``, ``foldr``) that ``dynamic_rnn`` runs on.

Each builds a function body (:class:`symgrad.graph.Subgraph`) by calling the user's
function on stand-ins (``Parameter`` ops), and one op that runs it: ``Cond`` (a Python
``if`` in the generated module), ``While`` (a ``while`` statement) or ``Scan`` (a ``for``
over the rows of its sequences). The tracer turns each body into a function of the
generated module (:mod:`symgrad.lowering`).

Reverse mode follows TF1's while-loop gradient: the forward loop saves the values it
carried into each step (its *trace*, a list, made only when a gradient reads it), and the
gradient is a second loop that runs over the trace backwards, calling the body's
vector-Jacobian product (the body's ops copied with the saved values as inputs, and
differentiated by :func:`symgrad.gradients`) and adding up the cotangents of what the body
read from outside. The gradient of a ``cond`` is a ``cond`` of the two branches' products,
so it can be differentiated again; the gradient of a loop's gradient is refused, as TF1
refuses it.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, cast

import numpy as np

from . import dtypes as _dtypes
from .errors import DTypeError, InvalidArgumentError, ShapeError
from .gradients import gradients
from .graph import Operation, Subgraph, Tensor, get_default_graph
from .ops.creation import zeros
from .ops.elementwise import zeros_like
from .ops.joining import concat
from .ops.registry import OpDef, opdef_of, register
from .ops.reshaping import expand_dims
from .ops.sources import convert_to_tensor
from .ops.state import Variable, assign
from .ops.tensor_array import TensorArray
from .shapes import Shape, Signature, TensorShape, format_shape, shapes_compatible
from .shapes import signature as fresh_signature
from .signatures import signature_of

# --- nested structures ---------------------------------------------------------------------


def flatten(structure: Any) -> list[Any]:
    """The leaves of nested lists, tuples (named ones too) and dicts (by sorted key); a
    TensorArray is its flow."""
    if isinstance(structure, TensorArray):
        return [structure.flow]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_as(structure: Any, leaves: Sequence[Any]) -> Any:
    """``leaves`` in the nesting of ``structure`` (the inverse of :func:`flatten`)."""
    remaining = list(leaves)

    def build(part: Any) -> Any:
        if isinstance(part, TensorArray):
            return part.with_flow(remaining.pop(0))
        if isinstance(part, dict):
            built = {key: build(part[key]) for key in sorted(part)}
            return type(part)((key, built[key]) for key in part)
        if isinstance(part, (list, tuple)):
            items = [build(item) for item in part]
            if isinstance(part, tuple) and hasattr(part, "_fields"):  # a namedtuple
                return type(part)(*items)
            return type(part)(items)
        return remaining.pop(0)

    return build(structure)


def _same_structure(first: Any, second: Any) -> bool:
    if isinstance(first, dict) or isinstance(second, dict):
        return (
            isinstance(first, dict)
            and isinstance(second, dict)
            and sorted(first) == sorted(second)
            and all(_same_structure(first[k], second[k]) for k in first)
        )
    if isinstance(first, (list, tuple)) or isinstance(second, (list, tuple)):
        return (
            isinstance(first, (list, tuple))
            and isinstance(second, (list, tuple))
            and len(first) == len(second)
            and all(_same_structure(a, b) for a, b in zip(first, second, strict=True))
        )
    return True


def _tensors(values: Sequence[Any], what: str) -> list[Tensor]:
    try:
        return [convert_to_tensor(v) for v in values]
    except (TypeError, ValueError) as error:
        raise DTypeError(f"symgrad: {what}: every value must be a tensor: {error}") from None


# --- function bodies -----------------------------------------------------------------------


def _like(signature: Signature, shape: Shape, origin: str) -> Signature:
    """``signature`` for a value of static ``shape``, where their ranks agree; else fresh."""
    if shape is not None and isinstance(signature, tuple) and len(signature) == len(shape):
        return signature
    return fresh_signature(shape, origin)


def _parameter_signature(op: Operation, inputs: Sequence[Signature]) -> Signature:
    """A stand-in's run-time shape is that of the value it stands for (``like``, less its
    ``drop`` leading dims: a row of a sequence): the body's values then share dims with the
    outer ones, so the passes know a step's arrays to have the batch's size."""
    like: Tensor | None = op.attrs.get("like")
    shape = op.outputs[0].shape
    if like is None:
        return fresh_signature(shape, op.name)
    known = signature_of(like)
    drop = op.attrs.get("drop", 0)
    return _like(known[drop:] if isinstance(known, tuple) else known, shape, op.name)


register(OpDef("Parameter", lower=None, gradient=None, signature=_parameter_signature))


class _Spec(NamedTuple):
    """A parameter of a function body: its name, static shape and dtype, and the value whose
    run-time shape it has (``like``, less ``drop`` leading dims), where there is one."""

    name: str
    shape: Shape
    dtype: _dtypes.DType
    like: Tensor | None = None
    drop: int = 0


_OWN_SHAPE: Any = object()  # _spec_of's default: the tensor's own static shape


def _spec_of(tensor: Tensor, shape: Any = _OWN_SHAPE, name: str | None = None) -> _Spec:
    """A stand-in for ``tensor``: of its shape (and run-time shape), or of ``shape``."""
    base = name or tensor.op.name.rsplit("/", 1)[-1]
    own = shape is _OWN_SHAPE or shape == tensor.shape
    return _Spec(
        base, tensor.shape if shape is _OWN_SHAPE else shape, tensor.dtype, tensor if own else None
    )


def _row_spec(sequence: Tensor, name: str) -> _Spec:
    """A stand-in for a row of ``sequence`` (along its first axis)."""
    return _Spec(name, _row_shape(sequence.shape), sequence.dtype, sequence, 1)


def _parameter_names(
    function: Callable[..., Any], structure: Any, specs: Sequence[_Spec]
) -> list[_Spec]:
    """``specs`` renamed after ``function``'s parameters where it takes one per top-level
    value of ``structure`` (``lambda i, total: ...`` names the stand-ins ``i`` and
    ``total``; a nested value's leaves are ``state_0``, ``state_1``, ...)."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return list(specs)
    items = list(structure) if isinstance(structure, (list, tuple)) else [structure]
    positional = [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if len(positional) != len(items):
        return list(specs)
    names = []
    for name, item in zip(positional, items, strict=True):
        count = len(flatten(item))
        names += (
            [name]
            if count == 1 and not isinstance(item, (list, tuple, dict))
            else [f"{name}_{k}" for k in range(count)]
        )
    return [spec._replace(name=name) for spec, name in zip(specs, names, strict=True)]


def _body(
    description: str,
    specs: Sequence[_Spec],
    function: Callable[[list[Tensor]], Any],
) -> tuple[Subgraph, Any]:
    """The Subgraph of ``function`` called with a stand-in per spec, and the structure of
    what it returned; its results are the returned tensors, flattened."""
    graph = get_default_graph()
    subgraph = Subgraph(description)
    with graph.building(subgraph):
        parameters = [
            graph.create_op(
                "Parameter",
                [],
                {"name": s.name, "like": s.like, "drop": s.drop},
                [(s.shape, s.dtype)],
                name=s.name,
            ).outputs[0]
            for s in specs
        ]
        subgraph.parameters = parameters
        returned = function(parameters)
        subgraph.results = _tensors(flatten(returned), description)
    return subgraph, returned


def copy_body(subgraph: Subgraph, values: dict[Tensor, Tensor]) -> list[Tensor]:
    """The ops of ``subgraph`` made again in the current body, reading ``values[t]`` for
    each tensor ``t`` of ``values`` (its parameters, its captures): what the copied body
    returns. A gradient recomputes a body's values this way from what the loop saved."""
    return _copied(subgraph, values)[0]


def _copied(
    subgraph: Subgraph, values: dict[Tensor, Tensor]
) -> tuple[list[Tensor], dict[Tensor, Tensor]]:
    """:func:`copy_body`'s results, and each of the body's tensors' copy (or given value)."""
    graph = get_default_graph()
    copies = dict(values)
    for op in subgraph.ops:
        if op.type == "Parameter" or all(t in copies for t in op.outputs):
            continue  # a stand-in, or a value given (a random draw the forward pass saved)
        if op.type == "Assign":  # its value; storing it was the forward pass's business
            copies[op.outputs[0]] = copies.get(op.inputs[0], op.inputs[0])
            continue
        attrs = {key: value for key, value in op.attrs.items() if key != "control"}
        made = graph.create_op(
            op.type,
            [copies.get(t, t) for t in op.inputs],
            attrs,
            [(t.shape, t.dtype) for t in op.outputs],
            name=op.name.rsplit("/", 1)[-1],
        )
        copies.update(zip(op.outputs, made.outputs, strict=True))
    return [copies.get(t, t) for t in subgraph.results], copies


def _captured(*subgraphs: Subgraph) -> list[Tensor]:
    """What the bodies read from outside, each once, in the order first read."""
    found: dict[Tensor, None] = {}
    for subgraph in subgraphs:
        for tensor in subgraph.captures:
            found.setdefault(tensor)
    return list(found)


# --- cond and case -------------------------------------------------------------------------


def _cond_gradient(op: Operation, grads: list[Tensor | None]) -> list[Tensor | None]:
    """A ``cond`` over the two branches' vector-Jacobian products (each branch recomputed):
    the cotangents of the floating-point values the branches read."""
    branches: tuple[Subgraph, Subgraph] = op.attrs["branches"]
    formal: list[Tensor] = op.attrs["captured"]
    actual = list(op.inputs[1:])
    targets = [k for k, t in enumerate(actual) if t.dtype.is_floating]
    values = op.attrs["values"]
    wanted = [k for k, g in enumerate(grads[:values]) if g is not None]
    # The draws the forward branches made, seen again (not drawn anew) by their products.
    drawn = dict(zip(op.attrs["draws"], op.outputs[op.attrs["draws_from"] :], strict=True))
    if not targets:
        return [None] * len(op.inputs)
    cotangents = [grads[k] for k in wanted]

    def product(branch: Subgraph) -> Callable[[], list[Tensor]]:
        def run() -> list[Tensor]:
            results = copy_body(branch, {**dict(zip(formal, actual, strict=True)), **drawn})
            # Each value read gets only its own part: the paths through another value read
            # (which may depend on it outside) are the outer gradient's to follow.
            xs = [actual[k] for k in targets]
            found = gradients(
                [results[k] for k in wanted], xs, grad_ys=cotangents, stop_gradients=xs
            )
            return [
                zeros_like(actual[k]) if g is None else g
                for g, k in zip(found, targets, strict=True)
            ]

        return run

    parts = cond(op.inputs[0], product(branches[0]), product(branches[1]), name="cond_grad")
    parts = parts if isinstance(parts, list) else [parts]
    result: list[Tensor | None] = [None] * len(op.inputs)
    for part, k in zip(parts, targets, strict=True):
        result[1 + k] = part
    return result


def _cond_signatures(op: Operation, inputs: Sequence[Signature]) -> list[Signature]:
    """A value's run-time shape is the branches' where they give it alike."""
    found = []
    true_branch, false_branch = op.attrs["branches"]
    for out, a, b in zip(op.outputs, true_branch.results, false_branch.results, strict=True):
        first, second = signature_of(a), signature_of(b)
        found.append(first if first == second else fresh_signature(out.shape, out.name))
    return found


register(
    OpDef(
        "Cond",
        lower=None,
        gradient=_cond_gradient,
        control="cond",
        signature=_cond_signatures,
    )
)


def cond(
    pred: Any,
    true_fn: Callable[[], Any] | None = None,
    false_fn: Callable[[], Any] | None = None,
    strict: bool = False,
    name: str | None = None,
    fn1: Callable[[], Any] | None = None,
    fn2: Callable[[], Any] | None = None,
) -> Any:
    """``true_fn()`` if ``pred`` holds, else ``false_fn()``: only one of them runs.

    ``pred`` is a boolean scalar tensor (a Python ``if`` in the generated module, even
    for a constant, as in TF1), or a Python bool, which picks the branch when the graph is
    built (TF1's ``smart_cond``; TF1's own ``cond`` refuses a Python bool). The branches return the same structure of
    tensors, of the same dtypes; a value whose shapes differ between the branches gets the
    shape they share (unknown dims where they differ). The gradient flows through the
    branch that ran. As TF1, a one-element list comes back as its element unless
    ``strict``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [], name="x")
    ...     huber = sg.cond(sg.abs(x) < 1.0, lambda: 0.5 * x * x, lambda: sg.abs(x) - 0.5)
    ...     f = sg.compile([huber, sg.gradients(huber, x)[0]])
    >>> [float(v) for v in f(0.5)], [float(v) for v in f(-3.0)]
    ([0.125, 0.5], [2.5, -1.0])
    """
    true_fn = true_fn if true_fn is not None else fn1
    false_fn = false_fn if false_fn is not None else fn2
    if not callable(true_fn) or not callable(false_fn):
        raise InvalidArgumentError("symgrad: cond: true_fn and false_fn must be callables")
    decided = _static_truth(pred)
    if decided is not None:  # TF1's smart_cond: the graph holds only the branch taken
        result = true_fn() if decided else false_fn()
        return _unwrap(result, strict)
    pred = convert_to_tensor(pred)
    if pred.dtype != _dtypes.bool_ or (pred.shape is not None and len(pred.shape) != 0):
        raise DTypeError(
            f"symgrad: cond: pred '{pred.name}' must be a boolean scalar, got "
            f"{pred.dtype.name}{format_shape(pred.shape)}"
        )
    graph = get_default_graph()
    with graph.name_scope(name or "cond") as scope:
        label = scope.rstrip("/")
        true_branch, true_value = _body(
            f"the true branch of cond '{label}'", [], lambda _: true_fn()
        )
        false_branch, false_value = _body(
            f"the false branch of cond '{label}'", [], lambda _: false_fn()
        )
        if not _same_structure(true_value, false_value) or len(true_branch.results) != len(
            false_branch.results
        ):
            raise InvalidArgumentError(
                f"symgrad: cond '{label}': the branches must return the same structure of "
                f"tensors; true_fn returned {_describe(true_value)}, false_fn "
                f"{_describe(false_value)}"
            )
        if not true_branch.results:
            raise InvalidArgumentError(
                f"symgrad: cond '{label}': the branches return no tensor; symgrad's cond "
                f"computes values (an assignment in a branch is not supported yet)"
            )
        outputs = []
        for position, (a, b) in enumerate(
            zip(true_branch.results, false_branch.results, strict=True)
        ):
            if a.dtype != b.dtype:
                raise DTypeError(
                    f"symgrad: cond '{label}': result {position} is {a.dtype.name} in the true "
                    f"branch ('{a.name}') but {b.dtype.name} in the false one ('{b.name}')"
                )
            outputs.append((_shared_shape(a.shape, b.shape), a.dtype))
        _refuse_state(label, true_branch, false_branch, assignments=True)
        values = len(outputs)
        names = [_value_name(t, label) for t in true_branch.results]
        # What the branches assign: each variable's value after the cond is one more value
        # (its last assignment in a branch that assigns it, the variable as it was in the
        # other), stored by an assignment outside that runs with the cond.
        assigned = _assignments(true_branch, false_branch)
        for variable, (in_true, in_false) in assigned.items():
            true_branch.results.append(in_true)
            false_branch.results.append(in_false)
            outputs.append((variable.shape, variable.dtype))
            names.append(f"{variable.op.name.rsplit('/', 1)[-1]}_after_{label.rsplit('/', 1)[-1]}")
        values_and_state = len(outputs)
        # A branch's random draws are more values of the cond (an empty array from the
        # other branch), so that the gradient sees the draws of the branch that ran.
        draws = [_draws(true_branch), _draws(false_branch)]
        if draws[0] or draws[1]:  # after the values and the variables' new values
            for branch, own in zip((true_branch, false_branch), (0, 1), strict=True):
                with graph.building(branch):
                    for side in (0, 1):
                        branch.results += (
                            draws[side]
                            if side == own
                            else [zeros([0], dtype=d.dtype) for d in draws[side]]
                        )
            outputs += [(None, d.dtype) for d in draws[0] + draws[1]]
            names += [f"{label.rsplit('/', 1)[-1]}_draw" for _ in draws[0] + draws[1]]
        captured = _captured(true_branch, false_branch)
        op = graph.create_op(
            "Cond",
            [pred, *captured],
            {
                "branches": (true_branch, false_branch),
                "captured": captured,
                "values": values,
                "draws": draws[0] + draws[1],
                "draws_from": values_and_state,
                "value_names": names,
            },
            outputs,
            name="Cond",
        )
        stores = [
            assign(
                cast(Variable, variable), after, name=f"{variable.op.name.rsplit('/', 1)[-1]}_store"
            ).op
            for variable, after in zip(assigned, op.outputs[values:values_and_state], strict=True)
        ]
        op.attrs["assigns"] = stores
    return _unwrap(pack_as(true_value, list(op.outputs[:values])), strict)


def _assignments(*branches: Subgraph) -> dict[Tensor, tuple[Tensor, ...]]:
    """Each variable a branch assigns, with its value after each branch: the last
    assignment's in a branch that assigns it, the variable itself in one that does not."""
    last: list[dict[Tensor, Tensor]] = []
    for branch in branches:
        found: dict[Tensor, Tensor] = {}
        for op in branch.ops:
            if op.type == "Assign":
                found[op.attrs["variable"]] = op.outputs[0]
        last.append(found)
    variables = sorted(set().union(*last), key=lambda v: v.op.index)
    return {v: tuple(found.get(v, v) for found in last) for v in variables}


def _value_name(result: Tensor, label: str) -> str:
    """A cond's value is named after the true branch's result when the user named it."""
    return (
        result.op.name.rsplit("/", 1)[-1] if not result.op.auto_named else label.rsplit("/", 1)[-1]
    )


def _refuse_state(label: str, *subgraphs: Subgraph, assignments: bool = False) -> None:
    """Assignments inside a loop's body (a cond's branch may assign), and random draws
    inside a body inside a body, are not supported yet: say so."""
    for subgraph in subgraphs:
        for op in subgraph.ops:
            opdef = opdef_of(op)
            if opdef.effectful and not (assignments and op.type == "Assign"):
                raise InvalidArgumentError(
                    f"symgrad: '{label}': op '{op.name}' ({op.type}) is an assignment inside "
                    f"{subgraph.description}; symgrad's control flow runs functions without "
                    f"side effects (make the assignment outside, and pass its value in)"
                )
            if opdef.control is not None and op.attrs.get("draws"):
                raise InvalidArgumentError(
                    f"symgrad: '{label}': '{op.name}' draws random numbers ("
                    f"{op.attrs['draws'][0].op.name}) inside {subgraph.description}: random "
                    f"draws in a loop or branch inside another are not supported yet; draw "
                    f"them in the outer one and pass them in"
                )


def _draws(subgraph: Subgraph) -> list[Tensor]:
    """The random draws a body makes, which its gradient must see again (saved, not drawn
    anew)."""
    return [op.outputs[0] for op in subgraph.ops if opdef_of(op).random]


def _describe(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)}"
    return type(value).__name__


def _unwrap(result: Any, strict: bool) -> Any:
    if not strict and isinstance(result, list) and len(result) == 1:
        return result[0]
    return result


def _static_truth(pred: Any) -> bool | None:
    if isinstance(pred, (bool, int)) and not isinstance(pred, Tensor):
        return builtins.bool(pred)
    if isinstance(pred, np.bool_):
        return builtins.bool(pred)
    return None


def _shared_shape(a: Shape, b: Shape) -> Shape:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b, strict=True))


def case(
    pred_fn_pairs: Any,
    default: Callable[[], Any] | None = None,
    exclusive: bool = False,
    strict: bool = False,
    name: str = "case",
) -> Any:
    """The function of the first pair whose predicate holds, else ``default``: a chain of
    :func:`cond` (TF1's ``case``). ``pred_fn_pairs`` is a list of ``(pred, fn)`` pairs (or a
    dict); with ``exclusive`` TF1 checks that at most one holds, which symgrad does not.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.int32, [], name="x")
    ...     y = sg.case([(x < 0, lambda: sg.constant(-1)), (x > 0, lambda: sg.constant(1))],
    ...                 default=lambda: sg.constant(0))
    ...     f = sg.compile(y)
    >>> int(f(-5)), int(f(0)), int(f(7))
    (-1, 0, 1)
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    if not pairs:
        if default is None:
            raise InvalidArgumentError("symgrad: case: give at least one pair or a default")
        return default()
    if default is None:  # TF1: the last function is the default
        default = pairs[-1][1]
        pairs = pairs[:-1]
        if not pairs:
            return default()
    with get_default_graph().name_scope(name):
        chosen = default
        for pred, function in reversed(pairs):
            chosen = _chained(pred, function, chosen, strict)
        return chosen()


def _chained(
    pred: Any, function: Callable[[], Any], otherwise: Callable[[], Any], strict: bool
) -> Callable[[], Any]:
    return lambda: cond(pred, function, otherwise, strict=strict)


# --- while_loop ----------------------------------------------------------------------------


def _loop_gradient(op: Operation, grads: list[Tensor | None]) -> list[Tensor | None]:
    """The reversed loop over the trace (see the module docstring)."""
    if op.attrs.get("gradient_of") is not None:
        raise InvalidArgumentError(
            f"symgrad: gradients: '{op.name}' is the gradient of loop "
            f"'{op.attrs['gradient_of']}'; a second derivative through a loop (tf.while_loop, "
            "map_fn, scan, dynamic_rnn over unknown time) is not supported, as in TF1 "
            "('Second-order gradient for while loops not supported'); unroll the loop (a "
            "Python for loop, static_rnn) to differentiate twice"
        )
    if not op.attrs["back_prop"]:
        return [None] * len(op.inputs)
    kind = opdef_of(op).control
    body: Subgraph = op.attrs["body"]
    carried_count = op.attrs["carried"]
    sequence_count = op.attrs.get("sequences", 0)
    step_widths: list[int] = op.attrs.get("step_widths", [])
    output_count = op.attrs.get("outputs", 0)
    formal: list[Tensor] = op.attrs["captured"]
    captured_from = carried_count + sequence_count
    actual = list(op.inputs[captured_from : captured_from + len(formal)])
    trace = op.outputs[-1]
    # A step's trace: the values carried into it, then what it drew at random.
    draws: list[Tensor] = op.attrs["draws"]
    # The body's values that earlier gradients of this loop asked the steps to save; this
    # gradient may ask for more (see ``product``).
    saved_values: list[Tensor] = op.attrs["saved"]
    known_saved = list(saved_values)
    trace_specs: list[_Spec] = op.attrs["trace_specs"] + [
        _Spec(f"{d.op.name.rsplit('/', 1)[-1]}_drawn", d.shape, d.dtype, d) for d in draws
    ]
    trace_specs += [_saved_spec(t) for t in known_saved]
    carried = list(op.outputs[:carried_count])
    sequences = list(op.inputs[carried_count:captured_from])

    float_carried = [k for k in range(carried_count) if carried[k].dtype.is_floating]
    float_captured = [j for j, t in enumerate(actual) if t.dtype.is_floating]
    # Sequences read one row a step (arrays; a saved trace has width > 1 or is variant).
    float_sequences = [
        s for s in range(sequence_count) if sequences[s].dtype.is_floating and step_widths[s] == 1
    ]
    graded_outputs = [j for j in range(output_count) if grads[carried_count + j] is not None]
    start: list[Tensor] = [
        zeros_like(carried[k]) if grads[k] is None else cast(Tensor, grads[k])
        for k in float_carried
    ]
    sums = [zeros_like(actual[j]) for j in float_captured]
    stacked_cotangents = [grads[carried_count + j] for j in graded_outputs]

    def product(parameters: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
        position = 0

        def take(count: int) -> list[Tensor]:
            nonlocal position
            taken = parameters[position : position + count]
            position += count
            return taken

        cotangents = take(len(float_carried))
        totals = take(len(float_captured))
        saved = take(carried_count)
        drawn = take(len(draws))
        kept = take(len(known_saved))
        rows = take(sum(step_widths))
        output_rows = take(len(graded_outputs))
        values = dict(zip(body.parameters, saved + rows, strict=True))
        values.update(zip(formal, actual, strict=True))
        values.update(zip(draws, drawn, strict=True))
        values.update(zip(known_saved, kept, strict=True))
        first_copy = len(get_default_graph()._operations)
        results, copies = _copied(body, values)
        first_gradient = len(get_default_graph()._operations)
        ys = [results[k] for k in float_carried] + [
            results[carried_count + j] for j in graded_outputs
        ]
        row_of = _row_positions(step_widths)
        sequence_rows = [rows[row_of[s]] for s in float_sequences]
        xs = [saved[k] for k in float_carried] + sequence_rows + [actual[j] for j in float_captured]
        found = gradients(ys, xs, grad_ys=cotangents + output_rows, stop_gradients=xs)
        count_c, count_s = len(float_carried), len(float_sequences)
        new_cotangents = [
            _shaped(zeros_like(saved[k]) if g is None else g, saved[k])
            for g, k in zip(found[:count_c], float_carried, strict=True)
        ]
        row_cotangents = [
            _shaped(zeros_like(row) if g is None else g, row)
            for g, row in zip(found[count_c : count_c + count_s], sequence_rows, strict=True)
        ]
        new_totals = [
            total if g is None else _shaped(total + g, total)
            for g, total in zip(found[count_c + count_s :], totals, strict=True)
        ]
        # What the gradient reads of the recomputed step is saved by the forward steps
        # instead (as TF1's stacks save it): one product less per step backwards.
        read = _read_by_gradient(body, copies, first_copy, first_gradient, values)
        outputs = new_cotangents + new_totals, row_cotangents
        if read:
            at = len(cotangents) + len(totals) + carried_count + len(draws) + len(known_saved)
            stand_ins = _take_from_trace(read, at, trace_step_specs)
            replaced = {
                copies[value]: stand_in for value, stand_in in zip(read, stand_ins, strict=True)
            }
            here = get_default_graph().current_subgraph
            for made in get_default_graph()._operations[first_gradient:]:
                # Ops of this body only: a cond's branch inside it reads the copy as what it
                # captured, and the cond op (of this body) passes the stand-in in its place.
                if made.subgraph is here and any(t in replaced for t in made.inputs):
                    made.inputs = tuple(replaced.get(t, t) for t in made.inputs)
            outputs = (
                [replaced.get(t, t) for t in outputs[0]],
                [replaced.get(t, t) for t in outputs[1]],
            )
            saved_values.extend(read)
        return outputs

    carried_specs = [
        _spec_of(carried[k], trace_specs[k].shape, f"d_{trace_specs[k].name}")
        for k in float_carried
    ]
    carried_specs += [
        _spec_of(actual[j], name=f"d_{_spec_of(actual[j]).name}") for j in float_captured
    ]
    trace_step_specs = list(trace_specs)
    step_sequences: list[tuple[Tensor, list[_Spec]]] = [(trace, trace_step_specs)]
    for s in range(sequence_count):
        width = step_widths[s]
        if width == 1:
            step_specs_s = [op.attrs["step_specs"][_row_positions(step_widths)[s]]]
        else:
            first = _row_positions(step_widths)[s]
            step_specs_s = op.attrs["step_specs"][first : first + width]
        step_sequences.append((sequences[s], list(step_specs_s)))
    for j, stacked in zip(graded_outputs, stacked_cotangents, strict=True):
        assert stacked is not None
        step_sequences.append((stacked, [_row_spec(stacked, f"d_{op.attrs['output_names'][j]}")]))
    forward_reverse = op.attrs.get("reverse", False) if kind == "scan" else False
    finals, stacks = _scan_op(
        product,
        start + sums,
        carried_specs,
        step_sequences,
        reverse=not forward_reverse,
        description=f"the gradient of loop '{op.name}', backwards over what its steps saved",
        name=f"{_loop_base(op)}_grad",
        back_prop=True,
        gradient_of=op.name,
    )
    result: list[Tensor | None] = [None] * len(op.inputs)
    for k, final in zip(float_carried, finals[: len(float_carried)], strict=True):
        result[k] = final
    for s, stacked in zip(float_sequences, stacks, strict=True):
        result[carried_count + s] = stacked
    for j, final in zip(float_captured, finals[len(float_carried) :], strict=True):
        result[captured_from + j] = final
    return result


def _saved_spec(value: Tensor) -> _Spec:
    """A stand-in for a body's value that its steps save for the gradient."""
    return _Spec(f"{value.op.name.rsplit('/', 1)[-1]}_saved", value.shape, value.dtype, value)


def _read_by_gradient(
    body: Subgraph,
    copies: dict[Tensor, Tensor],
    first_copy: int,
    first_gradient: int,
    given: dict[Tensor, Tensor],
) -> list[Tensor]:
    """The body's values whose copies (made from ``first_copy`` on, before
    ``first_gradient``) the gradient's ops read: the forward steps can save them. Constants
    and values given anyway (parameters, captures, draws) are not among them."""
    graph = get_default_graph()
    original = {
        copy: value
        for value, copy in copies.items()
        if value not in given
        and copy.op.index >= first_copy
        and copy.op.index < first_gradient
        and copy.op.type != "Const"
        and value.op.subgraph is body
        and not value.dtype.is_string
        and value.dtype != _dtypes.variant
    }
    read: dict[Tensor, None] = {}
    here = graph.current_subgraph
    for op in graph._operations[first_gradient:]:
        if op.subgraph is not here:
            continue  # inside a body of this one: it reads what its op passes in
        for tensor in op.inputs:
            if tensor in original:
                read.setdefault(original[tensor])
    return list(read)


def _take_from_trace(values: list[Tensor], at: int, specs: list[_Spec]) -> list[Tensor]:
    """Stand-ins for ``values`` among the current body's parameters from position ``at`` (in
    the trace's row, after what it held), their specs added to the row's ``specs``."""
    graph = get_default_graph()
    subgraph = graph.current_subgraph
    assert subgraph is not None  # called while the gradient's body is built
    stand_ins = []
    for value in values:
        spec = _saved_spec(value)
        stand_ins.append(
            graph.create_op(
                "Parameter",
                [],
                {"name": spec.name, "like": spec.like, "drop": 0},
                [(spec.shape, spec.dtype)],
                name=spec.name,
            ).outputs[0]
        )
        specs.append(spec)
    subgraph.parameters[at:at] = stand_ins
    return stand_ins


def _loop_base(op: Operation) -> str:
    """The name of a loop's scope (``while``, ``rnn/while``'s ``while``)."""
    parts = op.name.split("/")
    return parts[-2] if len(parts) > 1 else parts[-1]


def _shaped(cotangent: Tensor, primal: Tensor) -> Tensor:
    """``cotangent`` with ``primal``'s static shape, which it has at run time (a rule that
    lost it, through a ``where`` or a cond of unknown shapes, would fail the loop's check)."""
    if primal.shape is not None and (
        cotangent.shape is None or len(cotangent.shape) == len(primal.shape)
    ):
        cotangent.set_shape(primal.shape)
    return cotangent


def _row_positions(widths: Sequence[int]) -> list[int]:
    positions, at = [], 0
    for width in widths:
        positions.append(at)
        at += width
    return positions


def _row_shape(shape: Shape) -> Shape:
    return None if shape is None else tuple(shape)[1:]


def _loop_signatures(op: Operation, inputs: Sequence[Signature]) -> list[Signature]:
    """A carried value keeps its run-time shape from step to step where its static shape does
    (its shape invariant is its own); a scan's stacked output is a step's output per row of
    its first sequence; the trace is a list."""
    count = op.attrs["carried"]
    found: list[Signature] = []
    for k, out in enumerate(op.outputs[:count]):
        kept = out.shape == op.inputs[k].shape
        found.append(
            _like(inputs[k], out.shape, out.name) if kept else fresh_signature(out.shape, out.name)
        )
    if opdef_of(op).control == "scan":
        body: Subgraph = op.attrs["body"]
        arrays = [
            sig
            for sig, width in zip(inputs[count:], op.attrs["step_widths"], strict=False)
            if width == 1 and isinstance(sig, tuple) and sig
        ]
        for out, result in zip(op.outputs[count:-1], body.results[count:], strict=False):
            row = signature_of(result)
            if arrays and isinstance(row, tuple):
                found.append(_like((arrays[0][0], *row), out.shape, out.name))
            else:
                found.append(fresh_signature(out.shape, out.name))
    found.append(())  # the trace
    return found


register(
    OpDef(
        "While",
        lower=None,
        gradient=_loop_gradient,
        control="while",
        signature=_loop_signatures,
    )
)
register(
    OpDef("Scan", lower=None, gradient=_loop_gradient, control="scan", signature=_loop_signatures)
)


def _tensor_arrays(structure: Any) -> list[TensorArray]:
    if isinstance(structure, TensorArray):
        return [structure]
    if isinstance(structure, dict):
        return [ta for key in sorted(structure) for ta in _tensor_arrays(structure[key])]
    if isinstance(structure, (list, tuple)):
        return [ta for item in structure for ta in _tensor_arrays(item)]
    return []


def _shape_leaves(structure: Any) -> list[Any]:
    """The shapes of a nested structure of shapes (a shape is a TensorShape, or a list of
    ints and None, or None)."""
    if structure is None or isinstance(structure, TensorShape):
        return [structure]
    if isinstance(structure, (list, tuple)) and _is_dims(structure):
        return [structure]
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in _shape_leaves(structure[key])]
    return [leaf for item in structure for leaf in _shape_leaves(item)]


def _is_dims(value: Any) -> bool:
    return all(
        d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool)) for d in value
    )


def _relaxed(shape: Shape, invariant: Any, tensor: Tensor) -> Shape:
    if invariant is None:
        return shape
    if isinstance(invariant, Tensor):
        raise InvalidArgumentError("symgrad: while_loop: shape_invariants must be shapes")
    relaxed = tuple(None if d is None else int(d) for d in invariant)
    if not shapes_compatible(relaxed, shape):
        raise ShapeError(
            f"symgrad: while_loop: the shape invariant {format_shape(relaxed)} is not "
            f"compatible with the shape {format_shape(shape)} of loop variable '{tensor.name}'"
        )
    return relaxed


def _check_carried(
    label: str, specs: Sequence[_Spec], results: Sequence[Tensor], starts: Sequence[Tensor]
) -> None:
    for spec, result, start in zip(specs, results, starts, strict=True):
        if result.dtype != spec.dtype:
            raise DTypeError(
                f"symgrad: {label}: loop variable '{start.name}' enters the loop as "
                f"{spec.dtype.name} but the body makes it {result.dtype.name} ('{result.name}')"
            )
        if not _fits(result.shape, spec.shape):
            raise ShapeError(
                f"symgrad: {label}: loop variable '{start.name}' enters the loop with shape "
                f"{format_shape(spec.shape)}, but has shape {format_shape(result.shape)} after "
                f"one iteration ('{result.name}'); to let its shape vary, give "
                f"shape_invariants with a less specific shape"
            )


def _fits(shape: Shape, invariant: Shape) -> bool:
    """Whether every value of static shape ``shape`` has the shape ``invariant``."""
    if invariant is None:
        return True
    if shape is None or len(shape) != len(invariant):
        return False
    return all(i is None or s == i for s, i in zip(shape, invariant, strict=True))


def while_loop(
    cond: Callable[..., Any],
    body: Callable[..., Any],
    loop_vars: Any,
    shape_invariants: Any = None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations: Any = None,
    return_same_structure: bool = False,
) -> Any:
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds: a ``while``
    statement in the generated module, run for as many steps as the values ask.

    ``loop_vars`` is a list or tuple (nested structures allowed) of tensors; the body
    returns the same structure with the same dtypes and shapes, or shapes that
    ``shape_invariants`` allows (``[None, 2]`` lets the first dim change).
    ``maximum_iterations`` stops it after that many steps. The gradient runs a reversed
    loop over the values each step saved; ``back_prop=False`` gives no gradient and saves
    nothing. ``parallel_iterations`` and ``swap_memory`` tune TF1's executor and change
    nothing here. As TF1, one loop variable comes back as itself, several as a list,
    unless ``return_same_structure``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [], name="x")
    ...     i, p = sg.while_loop(lambda i, p: i < 3, lambda i, p: (i + 1, p * x), [0, 1.0 + 0 * x])
    ...     f = sg.compile([p, sg.gradients(p, x)[0]])
    >>> [float(v) for v in f(2.0)]
    [8.0, 12.0]
    """
    del parallel_iterations, swap_memory  # TF1's executor tuning: nothing to tune here
    single = not isinstance(loop_vars, (list, tuple))
    structure = [loop_vars] if single else loop_vars
    starts = _tensors(flatten(structure), "while_loop")
    if not starts:
        raise InvalidArgumentError("symgrad: while_loop: loop_vars is empty")
    invariants = (
        [None] * len(starts)
        if shape_invariants is None
        else _shape_leaves([shape_invariants] if single else shape_invariants)
    )
    if len(invariants) != len(starts):
        raise InvalidArgumentError(
            f"symgrad: while_loop: {len(invariants)} shape_invariants for {len(starts)} "
            f"loop variables"
        )
    graph = get_default_graph()
    with graph.name_scope(name or "while") as scope:
        label = f"while_loop '{scope.rstrip('/')}'"
        # A TensorArray's rows grow as the loop writes them: its flow's shape may change.
        # A value given a shape invariant may change its unknown sizes; one without keeps
        # its start's (its stand-in has the start's run-time shape, checked each step).
        flows = {id(ta.flow) for ta in _tensor_arrays(structure)}
        specs = [
            _spec_of(t, None if id(t) in flows else _relaxed(t.shape, inv, t))
            if inv is None
            else _Spec(t.op.name.rsplit("/", 1)[-1], _relaxed(t.shape, inv, t), t.dtype)
            for t, inv in zip(starts, invariants, strict=True)
        ]

        def called(function: Callable[..., Any]) -> Callable[[list[Tensor]], Any]:
            def call(parameters: list[Tensor]) -> Any:
                packed = pack_as(structure, parameters)
                return function(packed[0]) if single else function(*packed)

            return call

        condition, test = _body(
            f"the condition of {label}", _parameter_names(cond, structure, specs), called(cond)
        )
        if (
            len(condition.results) != 1
            or condition.results[0].dtype != _dtypes.bool_
            or (condition.results[0].shape not in (None, ()))
        ):
            raise DTypeError(
                f"symgrad: {label}: cond must return one boolean scalar, got {_describe(test)}"
                + (
                    f" {condition.results[0].dtype.name}{format_shape(condition.results[0].shape)}"
                    if len(condition.results) == 1
                    else ""
                )
            )
        specs = _parameter_names(body, structure, specs)
        step, returned = _body(f"the body of {label}", specs, called(body))
        returned_structure = (
            [returned]
            if not isinstance(returned, (list, tuple)) and len(structure) == 1
            else returned
        )
        if single and isinstance(returned, (list, tuple)) and len(flatten(returned)) == 1:
            returned_structure = [flatten(returned)[0]]
        if not _same_structure(structure, returned_structure) or len(step.results) != len(starts):
            raise InvalidArgumentError(
                f"symgrad: {label}: body must return the structure of loop_vars "
                f"({_describe(structure)}), got {_describe(returned)}"
            )
        _check_carried(label, specs, step.results, starts)
        _refuse_state(label, condition, step)
        captured = _captured(condition, step)
        limit = [] if maximum_iterations is None else [convert_to_tensor(maximum_iterations)]
        if limit and (not limit[0].dtype.is_integer or limit[0].shape not in (None, ())):
            raise DTypeError(
                f"symgrad: {label}: maximum_iterations must be an int scalar, got "
                f"{limit[0].dtype.name}{format_shape(limit[0].shape)}"
            )
        op = graph.create_op(
            "While",
            [*starts, *captured, *limit],
            {
                "condition": condition,
                "body": step,
                "captured": captured,
                "carried": len(starts),
                "back_prop": bool(back_prop),
                "limited": bool(limit),
                "trace_specs": specs,
                "draws": _draws(step),
                "saved": [],
                "gradient_of": None,
                "description": f"tf.while_loop '{scope.rstrip('/')}'.",
                "value_names": [s.name for s in specs] + ["trace"],
            },
            [(s.shape, s.dtype) for s in specs] + [((), _dtypes.variant)],
            name="Loop",
        )
    # The body's structure: a TensorArray it wrote knows its rows' shape.
    finals = pack_as(returned_structure, list(op.outputs[:-1]))
    if return_same_structure:
        return finals[0] if single else finals
    if single or len(starts) == 1:
        return flatten(finals)[0]
    return finals


# --- loops over rows -----------------------------------------------------------------------


def _scan_op(
    step: Callable[[list[Tensor]], tuple[list[Tensor], list[Tensor]]],
    carried: Sequence[Tensor],
    carried_specs: Sequence[_Spec],
    sequences: Sequence[tuple[Tensor, list[_Spec]]],
    *,
    reverse: bool,
    description: str,
    name: str,
    back_prop: bool,
    gradient_of: str | None = None,
) -> tuple[list[Tensor], list[Tensor]]:
    """The Scan op: ``carried, outputs[t] = step(carried, rows of the sequences at t)`` for
    each t along the sequences' leading axis (backwards with ``reverse``); the final carried
    values and each output stacked along a new leading axis, in the sequences' order.

    A sequence comes with the specs of its rows: one for an array, one per saved value for
    a loop's trace. ``step`` gets the carried values' stand-ins, then every row's.
    """
    graph = get_default_graph()
    if not sequences:
        raise InvalidArgumentError(f"symgrad: {description}: no sequence to loop over")
    with graph.name_scope(name):
        return _scan_in_scope(
            graph,
            step,
            carried,
            carried_specs,
            sequences,
            reverse,
            description,
            back_prop,
            gradient_of,
        )


def _scan_in_scope(
    graph: Any,
    step: Callable[[list[Tensor]], tuple[list[Tensor], list[Tensor]]],
    carried: Sequence[Tensor],
    carried_specs: Sequence[_Spec],
    sequences: Sequence[tuple[Tensor, list[_Spec]]],
    reverse: bool,
    description: str,
    back_prop: bool,
    gradient_of: str | None,
) -> tuple[list[Tensor], list[Tensor]]:
    row_specs = [spec for _, specs in sequences for spec in specs]
    outputs_made: list[list[Tensor]] = []

    def call(parameters: list[Tensor]) -> list[Tensor]:
        new_carried, outputs = step(parameters)
        outputs_made.append(list(outputs))
        return list(new_carried) + list(outputs)

    body, _ = _body(description, [*carried_specs, *row_specs], call)
    count = len(carried)
    _check_carried(description, carried_specs, body.results[:count], carried)
    _refuse_state(description, body)
    outputs = outputs_made[0]
    captured = _captured(body)
    steps = next(
        (
            seq.shape[0]
            for seq, specs in sequences
            if seq.shape is not None and len(specs) == 1 and seq.dtype != _dtypes.variant
        ),
        None,
    )
    op = graph.create_op(
        "Scan",
        [*carried, *(seq for seq, _ in sequences), *captured],
        {
            "body": body,
            "captured": captured,
            "carried": count,
            "sequences": len(sequences),
            "step_widths": [
                len(specs) if seq.dtype == _dtypes.variant else 1 for seq, specs in sequences
            ],
            "step_specs": [spec for _, specs in sequences for spec in specs],
            "outputs": len(outputs),
            "output_names": [_step_name(t) for t in outputs],
            "value_names": [s.name for s in carried_specs]
            + [_step_name(t) for t in outputs]
            + ["trace"],
            "reverse": reverse,
            "back_prop": back_prop,
            "trace_specs": list(carried_specs),
            "draws": _draws(body),
            "saved": [],
            "gradient_of": gradient_of,
            "description": description[0].upper() + description[1:] + ".",
        },
        [(s.shape, s.dtype) for s in carried_specs]
        + [(None if t.shape is None else (steps, *t.shape), t.dtype) for t in body.results[count:]]
        + [((), _dtypes.variant)],
        name="Loop",
    )
    return list(op.outputs[:count]), list(op.outputs[count:-1])


def _step_name(output: Tensor) -> str:
    """A per-step output's name: its op's, or its role's (``add``) where TF named it."""
    last = output.op.name.rsplit("/", 1)[-1]
    return last if output.op.type != "Parameter" else f"{last}_out"


def loop_over_rows(
    step: Callable[[list[Tensor], list[Tensor]], tuple[list[Tensor], list[Tensor]]],
    carried: Sequence[Tensor],
    sequences: Sequence[Tensor],
    *,
    name: str,
    carried_names: Sequence[str] | None = None,
    reverse: bool = False,
    back_prop: bool = True,
) -> tuple[list[Tensor], list[Tensor]]:
    """``carried, outputs = step(carried, rows)`` for each row of ``sequences`` (along their
    leading axis, backwards with ``reverse``), as a ``for`` loop in the generated module:
    the final carried values and each output stacked. What ``dynamic_rnn`` over an unknown
    number of steps runs on; ``carried_names`` name the carried values in generated code.
    """
    names = list(carried_names) if carried_names is not None else [None] * len(carried)
    carried_specs = [_spec_of(t, name=n) for t, n in zip(carried, names, strict=True)]
    count = len(carried)

    def call(parameters: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
        return step(parameters[:count], parameters[count:])

    return _scan_op(
        call,
        list(carried),
        carried_specs,
        [
            (
                seq,
                [_row_spec(seq, f"{seq.op.name.rsplit('/', 1)[-1]}_row")],
            )
            for seq in sequences
        ],
        reverse=reverse,
        description=f"one step of {name}",
        name=name,
        back_prop=back_prop,
    )


def _rows(elems: Any, function: str) -> tuple[list[Tensor], list[_Spec]]:
    leaves = _tensors(flatten(elems), function)
    if not leaves:
        raise InvalidArgumentError(f"symgrad: {function}: elems is empty")
    specs = []
    for leaf in leaves:
        if leaf.shape is not None and len(leaf.shape) == 0:
            raise ShapeError(
                f"symgrad: {function}: elems '{leaf.name}' is a scalar; it needs a leading "
                f"axis to loop over"
            )
        specs.append(_row_spec(leaf, leaf.op.name.rsplit("/", 1)[-1] + "_row"))
    return leaves, specs


def map_fn(
    fn: Callable[[Any], Any],
    elems: Any,
    dtype: Any = None,
    parallel_iterations: Any = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    name: str | None = None,
) -> Any:
    """``fn`` of each row of ``elems`` (a tensor or a nested structure of tensors with one
    leading size), stacked: a ``for`` loop in the generated module. ``dtype`` is the
    structure ``fn`` returns when it differs from ``elems`` (TF1); it is checked.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None, 2], name="x")
    ...     norms = sg.map_fn(lambda row: sg.reduce_sum(row * row), x)
    ...     f = sg.compile(norms)
    >>> f([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]]).tolist()
    [5.0, 25.0, 1.0]
    """
    del parallel_iterations, swap_memory, infer_shape
    leaves, specs = _rows(elems, "map_fn")
    specs = _parameter_names(fn, [elems], specs)
    returned: list[Any] = []

    def step(parameters: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
        value = fn(pack_as(elems, parameters))
        returned.append(value)
        return [], _tensors(flatten(value), "map_fn")

    _, stacked = _scan_op(
        step,
        [],
        [],
        [(leaf, [spec]) for leaf, spec in zip(leaves, specs, strict=True)],
        reverse=False,
        description="the function of map_fn",
        name=name or "map",
        back_prop=back_prop,
    )
    if dtype is not None:
        wanted = [_dtypes.as_dtype(d) for d in flatten(dtype)]
        got = [t.dtype for t in stacked]
        if wanted != got:
            raise DTypeError(
                f"symgrad: map_fn: fn returns {[d.name for d in got]}, but dtype says "
                f"{[d.name for d in wanted]}"
            )
    return pack_as(returned[0], stacked)


def scan(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: Any = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    infer_shape: bool = True,
    reverse: bool = False,
    name: str | None = None,
) -> Any:
    """``a = fn(a, row)`` over the rows of ``elems`` from ``initializer`` (default: the first
    row, or the last with ``reverse``), every ``a`` stacked: TF1's ``scan``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None], name="x")
    ...     f = sg.compile(sg.scan(lambda total, v: total + v, x))
    >>> f([1.0, 2.0, 3.0, 4.0]).tolist()
    [1.0, 3.0, 6.0, 10.0]
    """
    del parallel_iterations, swap_memory, infer_shape
    return _accumulate("scan", fn, elems, initializer, back_prop, reverse, name, stacked=True)


def foldl(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: Any = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """``a = fn(a, row)`` over the rows of ``elems`` from the first, giving the last ``a``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None], name="x")
    ...     f = sg.compile(sg.foldl(lambda a, v: a * 10.0 + v, x))
    >>> float(f([1.0, 2.0, 3.0]))
    123.0
    """
    del parallel_iterations, swap_memory
    return _accumulate("foldl", fn, elems, initializer, back_prop, False, name, stacked=False)


def foldr(
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any = None,
    parallel_iterations: Any = None,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
) -> Any:
    """``a = fn(a, row)`` over the rows of ``elems`` from the last, giving the last ``a``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, [None], name="x")
    ...     f = sg.compile(sg.foldr(lambda a, v: a * 10.0 + v, x))
    >>> float(f([1.0, 2.0, 3.0]))
    321.0
    """
    del parallel_iterations, swap_memory
    return _accumulate("foldr", fn, elems, initializer, back_prop, True, name, stacked=False)


def _accumulate(
    function: str,
    fn: Callable[[Any, Any], Any],
    elems: Any,
    initializer: Any,
    back_prop: bool,
    reverse: bool,
    name: str | None,
    stacked: bool,
) -> Any:
    leaves, specs = _rows(elems, function)
    with get_default_graph().name_scope(name or function) as scope:
        first = None
        if initializer is None:
            # The first row (the last, backwards) starts the accumulation.
            first = [leaf[-1] if reverse else leaf[0] for leaf in leaves]
            initial = pack_as(elems, first)
            rest = [leaf[:-1] if reverse else leaf[1:] for leaf in leaves]
        else:
            initial = initializer
            rest = leaves
        starts = _tensors(flatten(initial), function)
        named = _parameter_names(
            fn,
            [initial, elems],
            [_spec_of(t, name="accumulated") for t in starts] + specs,
        )
        carried_specs, specs = named[: len(starts)], named[len(starts) :]

        def step(parameters: list[Tensor]) -> tuple[list[Tensor], list[Tensor]]:
            accumulated = pack_as(initial, parameters[: len(starts)])
            row = pack_as(elems, parameters[len(starts) :])
            value = _tensors(flatten(fn(accumulated, row)), function)
            return value, (value if stacked else [])

        finals, outputs = _scan_op(
            step,
            starts,
            carried_specs,
            [(leaf, [spec]) for leaf, spec in zip(rest, specs, strict=True)],
            reverse=reverse,
            description=f"the function of {function}",
            name=scope,
            back_prop=back_prop,
        )
    if not stacked:
        return pack_as(initial, finals)
    if first is not None:
        outputs = [
            concat([o, expand_dims(f, 0)] if reverse else [expand_dims(f, 0), o], 0)
            for o, f in zip(outputs, first, strict=True)
        ]
    return pack_as(initial, outputs)


__all__ = [
    "case",
    "cond",
    "copy_body",
    "flatten",
    "foldl",
    "foldr",
    "loop_over_rows",
    "map_fn",
    "pack_as",
    "scan",
    "while_loop",
]
