"""``symgrad.gradients``: TF1's reverse mode, building gradient ops into the graph.

The returned gradients are ordinary tensors, so they can be compiled, used in
further ops, and differentiated again by the same machinery.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any, cast

import sympy as sp

from . import naming
from .errors import DTypeError, GraphMismatchError, InvalidArgumentError, ShapeError
from .graph import Operation, Tensor
from .ops.creation import eye
from .ops.elementwise import (
    ZERO_DERIVATIVE_OPS,
    expression_op,
    identity,
    ones_like,
    zeros_like,
)
from .ops.joining import broadcast_to, stack
from .ops.linalg import matmul
from .ops.reductions import reduce_mean, reduce_sum
from .ops.registry import arg_symbols, opdef_of
from .ops.reshaping import expand_dims, reshape, transpose
from .ops.sources import convert_to_tensor
from .shapes import format_shape, is_fully_defined, num_elements, shapes_compatible


class UnconnectedGradients(enum.Enum):
    """What an x that the ys do not depend on receives: ``None`` or zeros."""

    NONE = "none"
    ZERO = "zero"


class AggregationMethod:
    """How gradients from several paths are added; all give the same sum here."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_AGGREGATION_METHODS = (
    AggregationMethod.ADD_N,
    AggregationMethod.EXPERIMENTAL_TREE,
    AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
)


def _as_tensor_list(
    value: Any, argument: str, op: str = "gradients", allow_empty: bool = False
) -> list[Tensor]:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items and not allow_empty:
        raise InvalidArgumentError(f"symgrad: {op}: {argument} is empty")
    for item in items:
        if not isinstance(item, Tensor):
            raise DTypeError(
                f"symgrad: {op}: every entry of {argument} must be a Tensor, "
                f"got {type(item).__name__} {item!r:.60}"
            )
    return items


def _unconnected_mode(value: Any) -> UnconnectedGradients:
    try:
        return UnconnectedGradients(value.value if isinstance(value, enum.Enum) else value)
    except ValueError:
        raise InvalidArgumentError(
            f"symgrad: gradients: unknown unconnected_gradients value "
            f"{value!r}; use 'none' or 'zero'"
        ) from None


def _consumers(ops: Sequence[Operation]) -> dict[Operation, list[Operation]]:
    table: dict[Operation, list[Operation]] = {op: [] for op in ops}
    for op in ops:
        for tensor in op.inputs:
            table[tensor.op].append(op)
    return table


def _between(xs: Sequence[Tensor], ys: Sequence[Tensor]) -> set[Operation]:
    """Ops reachable forward from the xs that also reach the ys (TF's between_ops)."""
    graph = ys[0].graph
    consumers = _consumers(graph.get_operations())
    reached: set[Operation] = set()
    stack = [x.op for x in xs]
    while stack:
        op = stack.pop()
        if op not in reached:
            reached.add(op)
            stack.extend(consumers[op])
    between: set[Operation] = set()
    stack = [y.op for y in ys]
    while stack:
        op = stack.pop()
        if op in reached and op not in between:
            between.add(op)
            stack.extend(t.op for t in op.inputs)
    return between


def _add_all(tensors: list[Tensor], like: Tensor) -> Tensor:
    if len(tensors) == 1:
        return tensors[0]
    return expression_op(sp.Add(*arg_symbols(len(tensors))), tensors, like=like, name="AddN")


def gradients(
    ys: Any,
    xs: Any,
    grad_ys: Any = None,
    name: str = "gradients",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
    stop_gradients: Any = None,
    unconnected_gradients: Any = UnconnectedGradients.NONE,
) -> list[Tensor | None]:
    """Symbolic derivatives of ``sum(ys)`` with respect to each x, as TF1 computes them.

    Returns a list with one entry per x: a tensor of x's shape, or ``None``
    when x does not reach the ys (zeros with ``unconnected_gradients='zero'``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     a = sg.constant(0.0)
    ...     b = 2 * a
    ...     f = sg.compile(sg.gradients(a + b, [a, b]))
    >>> [float(v) for v in f()]
    [3.0, 1.0]
    """
    ys = _as_tensor_list(ys, "ys")
    # TF1 answers an empty xs with [] and takes an empty stop_gradients as "stop nothing".
    xs = _as_tensor_list(xs, "xs", allow_empty=True)
    stops = (
        _as_tensor_list(stop_gradients, "stop_gradients", allow_empty=True)
        if stop_gradients is not None
        else []
    )
    graph = ys[0].graph
    for tensor in ys + xs + stops:
        if tensor.graph is not graph:
            raise GraphMismatchError(
                f"symgrad: gradients: tensor '{tensor.name}' belongs to another "
                f"graph than ys[0] '{ys[0].name}'"
            )
    mode = _unconnected_mode(unconnected_gradients)
    if aggregation_method is not None and aggregation_method not in _AGGREGATION_METHODS:
        raise InvalidArgumentError(
            f"symgrad: gradients: invalid aggregation_method "
            f"{aggregation_method!r}; use a symgrad.AggregationMethod value"
        )
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    if len(grad_ys) != len(ys):
        raise InvalidArgumentError(
            f"symgrad: gradients: got {len(grad_ys)} grad_ys for {len(ys)} ys; pass one per y"
        )

    with graph.name_scope(name), graph._building_gradients():
        cotangents: dict[Tensor, list[Tensor]] = {}
        for index, (y, grad_y) in enumerate(zip(ys, grad_ys, strict=False)):
            cotangents.setdefault(y, []).append(_seed(index, y, grad_y))
        between = _between(xs, ys)
        stop_ops = {t.op for t in stops}
        totals: dict[Tensor, Tensor | None] = {}

        ys_key = tuple(ys)

        def total(tensor: Tensor) -> Tensor | None:
            if tensor not in totals:
                parts = cotangents.get(tensor)
                totals[tensor] = _add_all(parts, tensor) if parts else None
                # The sum of several terms, or the one term a rule built for this tensor
                # (not a cotangent passed through unchanged: that keeps its own label).
                result = totals[tensor]
                provenance = result.op.provenance if result is not None else None
                if result is not None and (
                    len(parts or ()) > 1
                    or (
                        provenance is not None
                        and provenance.kind == "part"
                        and provenance.of is tensor
                    )
                ):
                    result.op.provenance = naming.Provenance("total", ys_key, tensor)
            return totals[tensor]

        for op in sorted(between, key=lambda o: o.index, reverse=True):
            gradient = opdef_of(op).gradient
            if op in stop_ops or gradient is None:
                continue
            output = op.outputs[0]
            grad = total(output)
            if grad is None or not output.dtype.is_floating:
                continue  # integer and bool values carry no gradient
            first_new = len(graph._operations)
            contributions = gradient(op, grad)
            new_ops = graph._operations[first_new:]
            for new_op in new_ops:
                new_op.provenance = naming.Provenance("step", ys_key, output)
            built = set(new_ops)
            for tensor, contribution in zip(op.inputs, contributions, strict=False):
                if contribution is not None and tensor.op in between:
                    if contribution.op in built:
                        contribution.op.provenance = naming.Provenance(
                            "part", ys_key, tensor, output
                        )
                    cotangents.setdefault(tensor, []).append(contribution)

        results: list[Tensor | None] = []
        for x in xs:
            grad = total(x)
            if grad is None and mode is UnconnectedGradients.ZERO:
                grad = zeros_like(x)
            if grad is None:
                results.append(None)
                continue
            result = identity(grad, name=naming.gradient_name(ys, x))
            # What this is the gradient of, for `symgrad check` (finite differences of sum(ys)).
            result.op.attrs["gradient_of"] = (tuple(ys), x, all(g is None for g in grad_ys))
            results.append(result)
        return results


def _seed(index: int, y: Tensor, grad_y: Any) -> Tensor:
    if grad_y is None:
        return ones_like(y, name="grad_ys")
    if isinstance(grad_y, Tensor) and grad_y.dtype != y.dtype:
        raise DTypeError(
            f"symgrad: gradients: grad_ys[{index}] '{grad_y.name}' has dtype {grad_y.dtype.name} "
            f"but y '{y.name}' has {y.dtype.name}"
        )
    grad_y = convert_to_tensor(grad_y, dtype=y.dtype)
    if not shapes_compatible(grad_y.shape, y.shape):
        raise ShapeError(
            f"symgrad: gradients: grad_ys[{index}] '{grad_y.name}' has shape "
            f"{format_shape(grad_y.shape)} but y '{y.name}' has shape "
            f"{format_shape(y.shape)}; they must match"
        )
    return grad_y


HESSIAN_SIZE_LIMIT = 4096


def hessians(
    ys: Any,
    xs: Any,
    name: str = "hessians",
    colocate_gradients_with_ops: bool = False,
    gate_gradients: bool = False,
    aggregation_method: Any = None,
) -> list[Tensor]:
    """For each x, the Hessian of ``sum(ys)`` with respect to x alone: shape ``x.shape + x.shape``.

    The Hessian is the Jacobian of the gradient, built as one vectorised block:
    the gradient's ops are pushed forward with a tangent per element of x along
    a trailing axis (forward over reverse, seeded with the identity), so the
    generated code does not grow with the number of elements. Graphs with an op
    that has no such rule fall back to one gradient per element, as TF does.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, shape=[2], name="x")
    ...     f = sg.compile(sg.hessians(x[0] ** 2 * x[1], x)[0])
    >>> f([3.0, 5.0]).tolist()
    [[10.0, 6.0], [6.0, 0.0]]
    """
    results = []
    _as_tensor_list(ys, "ys", "hessians")
    for x in _as_tensor_list(xs, "xs", "hessians"):
        if not is_fully_defined(x.shape):
            raise ShapeError(
                f"symgrad: hessians: '{x.name}' has shape {format_shape(x.shape)}; the Hessian "
                f"needs a fully defined shape"
            )
        count = num_elements(x.shape) or 0
        if count > HESSIAN_SIZE_LIMIT:
            raise InvalidArgumentError(
                f"symgrad: hessians: '{x.name}' has {count} elements, so its Hessian would have "
                f"{count}x{count} entries and every intermediate value {count} times its size "
                f"(limit {HESSIAN_SIZE_LIMIT} elements); use Hessian-vector products instead: "
                f"gradients(reduce_sum(gradients(y, x)[0] * v), x)"
            )
        grad = gradients(ys, x, name=name, aggregation_method=aggregation_method)[0]
        if grad is None:
            raise InvalidArgumentError(f"symgrad: hessians: ys do not depend on '{x.name}'")
        with grad.graph.name_scope(name), grad.graph._building_gradients():
            try:
                jacobian = _forward_jacobian(grad, x, count)
            except _NoForwardRule:
                jacobian = _jacobian_by_rows(grad, x, count, name, aggregation_method)
        if jacobian is None:
            raise InvalidArgumentError(
                f"symgrad: hessians: the gradient of ys with respect to '{x.name}' does not depend on "
                f"'{x.name}' (ys are linear in it), so there is no second derivative; TensorFlow raises "
                f"here too"
            )
        results.append(reshape(jacobian, list(x.shape) * 2))
    return results


def _jacobian_by_rows(
    grad: Tensor, x: Tensor, count: int, name: str, aggregation_method: Any
) -> Tensor | None:
    """The Jacobian of ``grad`` as one gradient graph per element (TF's method)."""
    flat = reshape(grad, [-1])
    rows = [
        gradients(flat[i], x, name=name, aggregation_method=aggregation_method)[0]
        for i in range(count)
    ]
    if all(row is None for row in rows):
        return None
    return stack([zeros_like(x) if row is None else row for row in rows])


class _NoForwardRule(Exception):
    """An op between x and the gradient has no forward (tangent) rule here."""


def _forward_jacobian(target: Tensor, x: Tensor, count: int) -> Tensor | None:
    """``d target / d x`` with x's elements along a trailing axis: shape ``target.shape + [count]``.

    Forward mode over the ops between x and ``target``, every tangent carrying
    all ``count`` directions (the rows of the identity) at once. ``None`` when
    ``target`` does not depend on x.
    """
    assert x.shape is not None  # hessians() checked it is fully defined
    tangents: dict[Tensor, Tensor | None] = {
        x: reshape(eye(count, dtype=x.dtype), [*x.shape, count])
    }
    for op in sorted(_between([x], [target]), key=lambda o: o.index):
        if op is x.op:
            continue
        inputs = [tangents.get(t) for t in op.inputs]
        if len(op.outputs) != 1:
            raise _NoForwardRule(op.type)
        out = op.outputs[0]
        if all(t is None for t in inputs) or not out.dtype.is_floating:
            tangents[out] = None
            continue
        if not is_fully_defined(out.shape) or any(
            t is not None and not is_fully_defined(i.shape)
            for t, i in zip(inputs, op.inputs, strict=True)
        ):
            raise _NoForwardRule(op.type)
        tangents[out] = _tangent_of(op, inputs, count)
    return tangents.get(target)


def _tangent_of(op: Operation, tangents: list[Tensor | None], count: int) -> Tensor | None:
    out = op.outputs[0]
    full = [*out.shape, count]  # type: ignore[misc]  # fully defined (checked by _forward_jacobian)
    if op.type in ZERO_DERIVATIVE_OPS:
        return None
    definition = opdef_of(op)
    if definition.elementwise and "expr" in op.attrs:
        return _elementwise_tangent(op, tangents, full)
    if op.type in ("Reshape", "ReshapeLike"):  # ReshapeLike's second operand is a shape only
        return None if tangents[0] is None else reshape(tangents[0], full)
    if op.type in ("SumToShape", "BroadcastLike"):  # the second operand is a shape only
        if tangents[0] is None:
            return None
        source = list(op.inputs[0].shape)  # type: ignore[arg-type]  # an operand with a tangent: fully defined
        if op.type == "BroadcastLike":
            aligned = [1] * (len(full) - 1 - len(source)) + source
            return broadcast_to(reshape(tangents[0], [*aligned, count]), full)
        lead = len(source) - len(out.shape)  # type: ignore[arg-type]  # fully defined (checked by _forward_jacobian)
        axes = [
            i
            for i, d in enumerate(source)
            if i < lead or (out.shape[i - lead] == 1 and d != 1)  # type: ignore[index]  # fully defined (checked by _forward_jacobian)
        ]
        summed = reduce_sum(tangents[0], axis=axes) if axes else tangents[0]
        return reshape(summed, full)
    if op.type in ("Sum", "Mean"):
        rank = len(op.inputs[0].shape)  # type: ignore[arg-type]  # the one operand has a tangent: fully defined
        axes = op.attrs["axes"]
        axes = list(range(rank)) if axes is None else [a % rank for a in axes]
        reduce = reduce_mean if op.type == "Mean" else reduce_sum
        return reduce(tangents[0], axis=axes, keepdims=op.attrs["keepdims"])
    if op.type == "BroadcastGrad":
        # The adjoint of a reduction: put the reduced axes back as size 1, then spread.
        # Its second operand gives only a shape, so its tangent does not matter.
        if tangents[0] is None:
            return None
        like_shape = list(op.inputs[1].shape)  # type: ignore[arg-type]  # like's shape is the output's: fully defined
        axes = op.attrs["axes"]
        axes = list(range(len(like_shape))) if axes is None else [a % len(like_shape) for a in axes]
        kept = [1 if i in axes else d for i, d in enumerate(like_shape)]
        spread = broadcast_to(reshape(tangents[0], [*kept, count]), full)
        if not op.attrs["mean"]:
            return spread
        reduced = num_elements(tuple(like_shape[a] for a in axes)) or 1
        return expression_op(arg_symbols(1)[0] / reduced, [spread], like=out, name="Mean")
    if op.type == "MatMul" and all(len(t.shape) == 2 for t in op.inputs):  # type: ignore[arg-type]  # MatMul operands have known ranks
        # out = a' @ b' (a' = a or a.T, likewise b'), so d out = da' @ b' + a' @ db'. Each term is
        # one 2-D matrix product over all directions at once (BLAS, unlike np.einsum):
        # a' [i, m] @ db' [m, j*k], and da' moved to [i*k, m] @ b' [m, j].
        a, b = op.inputs
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        # Rank 2 (checked above), with the dims used here known (the shapes with a tangent and
        # the output's are fully defined).
        a_shape, b_shape = cast(tuple[int, int], a.shape), cast(tuple[int, int], b.shape)
        a_rows, inner = (a_shape[1], a_shape[0]) if ta else (a_shape[0], a_shape[1])
        b_columns = b_shape[0] if tb else b_shape[1]
        terms = []
        if tangents[0] is not None:
            da = transpose(tangents[0], [1, 2, 0] if ta else [0, 2, 1])  # [i, k, m]
            product = matmul(reshape(da, [a_rows * count, inner]), b, transpose_b=tb)
            terms.append(transpose(reshape(product, [a_rows, count, b_columns]), [0, 2, 1]))
        if tangents[1] is not None:
            db = transpose(tangents[1], [1, 0, 2]) if tb else tangents[1]  # [m, j, k]
            product = matmul(a, reshape(db, [inner, b_columns * count]), transpose_a=ta)
            terms.append(reshape(product, full))
        return _add_all(terms, out)
    raise _NoForwardRule(op.type)


def _elementwise_tangent(
    op: Operation, tangents: list[Tensor | None], full: list[int]
) -> Tensor | None:
    """Sum over operands of ``d expr / d operand`` times the operand's tangent."""
    out = op.outputs[0]
    expr = op.attrs["expr"]
    symbols = arg_symbols(len(op.inputs))
    a0, a1 = arg_symbols(2)
    terms = []
    for symbol, tangent in zip(symbols, tangents, strict=True):
        if tangent is None:
            continue
        partial = sp.diff(expr, symbol)
        if partial == 0:
            continue
        if partial.has(sp.Derivative, sp.Subs, sp.DiracDelta, sp.Heaviside, sp.Piecewise):
            raise _NoForwardRule(op.type)  # special points need the op's own gradient rule
        if not partial.free_symbols:
            terms.append(expression_op(partial * a0, [tangent], like=out, name="Tangent"))
            continue
        # The partial's free symbols are among a0..; keep all operands so they line up.
        local = expression_op(partial, list(op.inputs), like=out, name="Partial")
        terms.append(
            expression_op(a0 * a1, [expand_dims(local, -1), tangent], like=out, name="Tangent")
        )
    if not terms:
        return None
    total = _add_all(terms, out)
    return total if list(total.shape) == full else broadcast_to(total, full)  # type: ignore[arg-type]  # a tangent of the output: fully defined
