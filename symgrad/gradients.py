"""``symgrad.gradients``: TF1's reverse mode, building gradient ops into the graph.

The returned gradients are ordinary tensors, so they can be compiled, used in
further ops, and differentiated again by the same machinery.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import sympy as sp

from . import naming
from .errors import DTypeError, GraphMismatchError, InvalidArgumentError, ShapeError
from .graph import Operation, Tensor
from .ops.elementwise import expression_op, identity, ones_like, zeros_like
from .ops.registry import arg_symbols, opdef_of
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


def _as_tensor_list(value: Any, argument: str, op: str = "gradients") -> list[Tensor]:
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not items:
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
    xs = _as_tensor_list(xs, "xs")
    stops = _as_tensor_list(stop_gradients, "stop_gradients") if stop_gradients is not None else []
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
            if op in stop_ops or opdef_of(op).gradient is None:
                continue
            output = op.outputs[0]
            grad = total(output)
            if grad is None or not output.dtype.is_floating:
                continue  # integer and bool values carry no gradient
            first_new = len(graph._operations)
            contributions = opdef_of(op).gradient(op, grad)
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

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float64, shape=[2], name="x")
    ...     f = sg.compile(sg.hessians(x[0] ** 2 * x[1], x)[0])
    >>> f([3.0, 5.0]).tolist()
    [[10.0, 6.0], [6.0, 0.0]]
    """
    from .ops.array_ops import reshape, stack

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
                f"symgrad: hessians: '{x.name}' has {count} elements, so its Hessian would need {count} "
                f"gradient graphs (limit {HESSIAN_SIZE_LIMIT}); use Hessian-vector products instead: "
                f"gradients(reduce_sum(gradients(y, x)[0] * v), x)"
            )
        grad = gradients(ys, x, name=name, aggregation_method=aggregation_method)[0]
        if grad is None:
            raise InvalidArgumentError(f"symgrad: hessians: ys do not depend on '{x.name}'")
        flat = reshape(grad, [-1])
        rows = [
            gradients(flat[i], x, name=name, aggregation_method=aggregation_method)[0]
            for i in range(count)
        ]
        if all(row is None for row in rows):
            raise InvalidArgumentError(
                f"symgrad: hessians: the gradient of ys with respect to '{x.name}' does not depend on "
                f"'{x.name}' (ys are linear in it), so there is no second derivative; TensorFlow raises "
                f"here too"
            )
        rows = [zeros_like(x) if row is None else row for row in rows]
        results.append(reshape(stack(rows), list(x.shape) * 2))  # type: ignore[arg-type]
    return results
