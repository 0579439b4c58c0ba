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
from .ops.creation import eye, zeros
from .ops.elementwise import (
    ZERO_DERIVATIVE_OPS,
    equal,
    exp,
    expression_op,
    identity,
    ones_like,
    zeros_like,
)
from .ops.elementwise import cast as cast_to
from .ops.joining import broadcast_to, concat, stack, tile
from .ops.linalg import matmul
from .ops.nn_ops import log_softmax, softmax
from .ops.reductions import broadcast_gradient, reduce_mean, reduce_sum
from .ops.registry import GradientFn, arg_symbols, opdef_of
from .ops.reshaping import expand_dims, reshape, reshape_like, transpose
from .ops.slicing import strided_slice
from .ops.sources import convert_to_tensor
from .shapes import ALL_AXES, format_shape, is_fully_defined, num_elements, shapes_compatible
from .signatures import signature_of


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


def _slice_position(op: Operation) -> tuple[int, int | tuple[int, int]] | None:
    """``(axis, index)`` or ``(axis, (start, stop))`` of a StridedSlice that selects along one
    axis of an input whose size there is known (``x[:, 3]``, ``x[:, 128:256]``), else None."""
    if op.type != "StridedSlice":
        return None
    x, key = op.inputs[0], op.attrs["key"]
    if x.shape is None or len(key) > len(x.shape):
        return None
    chosen = [(axis, item) for axis, item in enumerate(key) if item != slice(None)]
    if len(chosen) != 1:
        return None
    axis, item = chosen[0]
    size = x.shape[axis]
    if size is None:
        return None
    if isinstance(item, int) and not isinstance(item, bool):
        return (axis, item % size) if -size <= item < size else None
    if isinstance(item, slice) and item.step in (None, 1):
        start, stop, _ = item.indices(size)
        return (axis, (start, stop)) if start < stop else None
    return None


def _joined_slice_gradients(
    x: Tensor, parts: list[tuple[Operation, Tensor]]
) -> list[tuple[Tensor, Operation | None]]:
    """The cotangent terms of ``x`` from the slices in ``parts`` (each a slice op whose
    ``_slice_position`` is known, and its cotangent): the pieces of slices along one axis
    joined as TF's split and unstack gradients join them (one ``concat`` or ``stack``, zeros
    where no slice reads) rather than one zero-filled array per slice, added up. Each term
    comes with the slice op it flows back through when there is one."""
    groups: dict[tuple[int, bool], list[tuple[Any, Tensor, Operation]]] = {}
    for op, grad in parts:
        axis, place = cast(tuple[int, Any], _slice_position(op))
        groups.setdefault((axis, isinstance(place, int)), []).append((place, grad, op))
    terms: list[tuple[Tensor, Operation | None]] = []
    for (axis, by_index), pieces in groups.items():
        pieces.sort(key=lambda piece: piece[0])
        places = [place for place, _, _ in pieces]
        overlapping = any(
            a == b if by_index else a[1] > b[0] for a, b in zip(places, places[1:], strict=False)
        )
        lead = (slice(None),) * axis
        size = cast(int, cast(tuple[Any, ...], x.shape)[axis])
        # Rows of an unstacked axis: joined when they are at least half of it, so that a
        # few rows read out of many do not become a stack of zeros.
        sparse = by_index and 2 * len(pieces) < size
        if len(pieces) == 1 or overlapping or sparse:
            for _, grad, op in pieces:
                rule = cast(GradientFn, opdef_of(op).gradient)
                terms.append((cast(Tensor, rule(op, grad)[0]), op))
            continue
        if by_index:
            given = {place: grad for place, grad, _ in pieces}
            rows = [
                given[i] if i in given else zeros_like(strided_slice(x, lead + (i,)))
                for i in range(size)
            ]
            terms.append((stack(rows, axis=axis), None))
            continue
        columns, reached = [], 0
        for (start, stop), grad, _ in pieces:
            if start > reached:
                columns.append(zeros_like(strided_slice(x, lead + (slice(reached, start),))))
            columns.append(grad)
            reached = stop
        if reached < size:
            columns.append(zeros_like(strided_slice(x, lead + (slice(reached, size),))))
        terms.append((concat(columns, axis), None))
    return terms


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

        # Slices along one axis, per sliced tensor: their cotangents are joined when the
        # tensor's total is taken (_joined_slice_gradients).
        slice_parts: dict[Tensor, list[tuple[Operation, Tensor]]] = {}

        def labelled(output: Tensor, build: Any, *arguments: Any) -> Any:
            """What ``build(*arguments)`` returns, and the ops it adds, which it marks as
            steps of ``output``'s rule."""
            first_new = len(graph._operations)
            result = build(*arguments)
            for new_op in graph._operations[first_new:]:
                new_op.provenance = naming.Provenance("step", ys_key, output)
            return result, set(graph._operations[first_new:])

        def add_term(
            tensor: Tensor, term: Tensor, built: set[Operation], via: Tensor | None
        ) -> None:
            if term.op in built:
                term.op.provenance = naming.Provenance("part", ys_key, tensor, via)
            cotangents.setdefault(tensor, []).append(term)

        def total(tensor: Tensor) -> Tensor | None:
            if tensor in slice_parts:
                terms, built = labelled(
                    tensor, _joined_slice_gradients, tensor, slice_parts.pop(tensor)
                )
                for term, via in terms:
                    add_term(tensor, term, built, None if via is None else via.outputs[0])
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
            opdef = opdef_of(op)
            gradient = opdef.gradient
            if op in stop_ops or gradient is None:
                continue
            if opdef.control is not None:
                # A function-running op (cond, a loop): one cotangent per output.
                grads = [total(t) if t.dtype.is_floating else None for t in op.outputs]
                if all(g is None for g in grads):
                    continue
                contributions, built = labelled(op.outputs[0], gradient, op, grads)
                for tensor, contribution in zip(op.inputs, contributions, strict=False):
                    if contribution is not None and tensor.op in between:
                        add_term(tensor, contribution, built, op.outputs[0])
                continue
            output = op.outputs[0]
            grad = total(output)
            if grad is None or not output.dtype.is_floating:
                continue  # integer and bool values carry no gradient
            if _slice_position(op) is not None and op.inputs[0].op in between:
                slice_parts.setdefault(op.inputs[0], []).append((op, grad))
                continue
            contributions, built = labelled(output, gradient, op, grad)
            for tensor, contribution in zip(op.inputs, contributions, strict=False):
                if contribution is not None and tensor.op in between:
                    add_term(tensor, contribution, built, output)

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
                jacobian = _forward_jacobian(grad, x, count, list(x.shape) * 2)
            except _NoForwardRule:
                jacobian = _jacobian_by_rows(grad, x, count, name, aggregation_method)
        if jacobian is None:
            raise InvalidArgumentError(
                f"symgrad: hessians: the gradient of ys with respect to '{x.name}' does not depend on "
                f"'{x.name}' (ys are linear in it), so there is no second derivative; TensorFlow raises "
                f"here too"
            )
        square = list(x.shape) * 2
        same = jacobian.shape is not None and list(jacobian.shape) == square
        results.append(identity(jacobian, name="hessian") if same else reshape(jacobian, square))
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


def _forward_jacobian(
    target: Tensor, x: Tensor, count: int, shape: list[int] | None = None
) -> Tensor | None:
    """``d target / d x`` with x's elements along a trailing axis: shape ``target.shape + [count]``.

    Forward mode over the ops between x and ``target``, every tangent carrying
    all ``count`` directions (the rows of the identity) at once. ``None`` when
    ``target`` does not depend on x. Static shapes may have unknown dims (a
    ``None`` batch axis); only their ranks must be known. With ``shape``, the result is
    reshaped to it (from what its last reshape reshaped, so reshapes do not pile up).
    """
    forward = _Forward(x, count)
    for op in sorted(_between([x], [target]), key=lambda o: o.index):
        if op is x.op:
            continue
        inputs = [forward.tangents.get(t) for t in op.inputs]
        if len(op.outputs) != 1:
            raise _NoForwardRule(op.type)
        out = op.outputs[0]
        if all(t is None for t in inputs) or not out.dtype.is_floating:
            forward.tangents[out] = None
            continue
        if out.shape is None or any(
            t is not None and i.shape is None for t, i in zip(inputs, op.inputs, strict=True)
        ):
            raise _NoForwardRule(op.type)  # a rank known only at run time
        forward.tangents[out] = forward.tangent_of(op, inputs)
    result = forward.tangents.get(target)
    return result if result is None or shape is None else forward.reshape(result, shape)


def _rank(tensor: Tensor) -> int:
    assert tensor.shape is not None  # ranks on the tangent path are known (_forward_jacobian)
    return len(tensor.shape)


def _dims(tensor: Tensor) -> list[int | None]:
    assert tensor.shape is not None  # ranks on the tangent path are known (_forward_jacobian)
    return list(tensor.shape)


def _directions_first(tangent: Tensor, transposed: bool) -> Tensor:
    """A matrix's tangent ``[..., m, n, k]`` as ``[..., k, m, n]`` (``[..., k, n, m]`` where the
    product transposes the matrix): the directions a batch axis of the matrix product."""
    rank = _rank(tangent)
    matrix = [rank - 2, rank - 3] if transposed else [rank - 3, rank - 2]
    return transpose(tangent, [*range(rank - 3), rank - 1, *matrix])


def _directions_last(product: Tensor) -> Tensor:
    """A product ``[..., k, i, j]`` over the directions back as ``[..., i, j, k]``."""
    rank = _rank(product)
    return transpose(product, [*range(rank - 3), rank - 2, rank - 1, rank - 3])


def _swap_last(rank: int) -> list[int]:
    """The permutation that swaps the two axes before the last (a matrix's, before the
    directions)."""
    return [*range(rank - 3), rank - 2, rank - 3, rank - 1]


def _linear_in_first(op: Operation, tangents: list[Tensor | None]) -> Tensor:
    """The tangent of the op's first operand, the only one a linear op passes on."""
    if tangents[0] is None or any(t is not None for t in tangents[1:]):
        raise _NoForwardRule(op.type)
    return tangents[0]


class _ShapeOnly(Exception):
    """The op's first operand has no tangent (its others give only shapes, sizes or indices)."""


def _of_first(tangents: list[Tensor | None]) -> Tensor:
    """The tangent of the op's first operand; the others give only shapes, sizes or indices
    (a slice's gradient reads the sliced tensor's shape), so their tangents do not matter."""
    if tangents[0] is None:
        raise _ShapeOnly
    return tangents[0]


# Ops whose output is their first operand, checked against the others: the tangent passes.
_PASS_THROUGH = frozenset(
    {"EnsureShape", "EnsureAxis", "EnsureSameDims", "EnsureBroadcastable", "PlaceholderWithDefault"}
)


class _Forward:
    """Tangents of tensors between x and the target, all ``count`` directions on a trailing axis.

    ``identity`` holds the tangents that are the seed (the identity matrix) reshaped: a matrix
    product with one of them is a reshape of the other operand, not a product with ``eye``.
    ``bases`` maps a tangent this class reshaped to the tangent it reshaped, so that reshapes
    of reshapes (``Squeeze`` of ``ExpandDims``) collapse into one.
    """

    def __init__(self, x: Tensor, count: int) -> None:
        self.count = count
        seed = reshape(eye(count, dtype=x.dtype), [*_dims(x), count])
        self.tangents: dict[Tensor, Tensor | None] = {x: seed}
        self.identity: set[Tensor] = {seed}
        self.bases: dict[Tensor, Tensor] = {}
        self.likes: dict[Tensor, Tensor] = {}

    # --- shapes with directions ---------------------------------------------------------------

    def full(self, primal: Tensor) -> list[int | None]:
        return [*_dims(primal), self.count]

    def has_full_shape(self, tangent: Tensor, primal: Tensor) -> bool:
        """Whether ``tangent`` is known to have ``primal``'s shape plus the directions."""
        full = self.full(primal)
        if tangent.shape is None or list(tangent.shape) != full:
            return False
        return is_fully_defined(tangent.shape) or signature_of(tangent) == (
            *cast(tuple[Any, ...], signature_of(primal)),
            self.count,
        )

    def like(self, primal: Tensor) -> Tensor:
        """Zeros of ``primal``'s shape plus the directions (read for their shape, mostly)."""
        if primal not in self.likes:
            full = self.full(primal)
            if is_fully_defined(tuple(full)):
                like = zeros(full, dtype=primal.dtype)
            else:
                like = expression_op(
                    arg_symbols(2)[0] + arg_symbols(2)[1],
                    [expand_dims(zeros_like(primal), -1), zeros([self.count], dtype=primal.dtype)],
                    like=primal,
                    name="Directions",
                )
            self.likes[primal] = like
        return self.likes[primal]

    def shape_source(self, primal: Tensor) -> Tensor:
        """A tensor of ``primal``'s shape plus the directions, read for its shape: the tangent
        of ``primal`` where there is one (mostly computed anyway), else :meth:`like`."""
        tangent = self.tangents.get(primal)
        return self.like(primal) if tangent is None else tangent

    def spread(self, tangent: Tensor, primal: Tensor) -> Tensor:
        """``tangent`` broadcast to ``primal``'s shape plus the directions, where it may not
        have it (a term of an operand that the op broadcast)."""
        if self.has_full_shape(tangent, primal):
            return tangent
        full = self.full(primal)
        if is_fully_defined(tuple(full)):
            return broadcast_to(tangent, full)
        # Plus zeros of primal's shape with a size-1 axis for the directions: a broadcast
        # that NumPy does by itself inside a fused expression.
        a0, a1 = arg_symbols(2)
        zero = zeros_like(expand_dims(primal, -1))
        return expression_op(a0 + a1, [tangent, zero], like=primal, name="Tangent")

    def reshaped(self, tangent: Tensor, primal: Tensor) -> Tensor:
        """``tangent`` reshaped to ``primal``'s shape plus the directions (a reshape keeps the
        elements' order, so the seed identity stays one)."""
        base = self.bases.get(tangent, tangent)
        if self.has_full_shape(base, primal):
            return base
        dims = _dims(primal)
        if dims.count(None) > 1:
            result = reshape_like(base, self.like(primal))
            self.bases[result] = base
            if tangent in self.identity:
                self.identity.add(result)
            return result
        return self.reshape(tangent, [-1 if d is None else d for d in dims] + [self.count])

    def reshape(self, tangent: Tensor, dims: list[int]) -> Tensor:
        """``tangent`` (or what it reshapes) reshaped to ``dims`` (one may be -1)."""
        base = self.bases.get(tangent, tangent)
        if base.shape is not None and list(base.shape) == dims:
            return base
        result = reshape(base, dims)
        self.bases[result] = base
        if tangent in self.identity:
            self.identity.add(result)
        return result

    def same_op(
        self,
        op: Operation,
        inputs: list[Tensor],
        attrs: dict[str, Any],
        like_of: Tensor | None = None,
    ) -> Tensor:
        """``op`` again, on tangents (a linear op): its output's shape plus the directions."""
        out = op.outputs[0]
        shape = tuple(self.full(out if like_of is None else like_of))
        return out.graph.create_op(op.type, inputs, attrs, [(shape, out.dtype)]).outputs[0]

    # --- the rules ----------------------------------------------------------------------------

    def tangent_of(self, op: Operation, tangents: list[Tensor | None]) -> Tensor | None:
        out = op.outputs[0]
        if op.type in ZERO_DERIVATIVE_OPS:
            return None
        if op.type == "Cast":
            tangent = _linear_in_first(op, tangents)
            return cast_to(tangent, out.dtype) if tangent.dtype != out.dtype else tangent
        if opdef_of(op).elementwise and "expr" in op.attrs:
            return self.elementwise(op, tangents)
        if op.type in _PASS_THROUGH:  # the others are only checked against the first
            return tangents[0]
        rule = getattr(self, "rule_" + op.type, None)
        if rule is None:
            raise _NoForwardRule(op.type)
        try:
            return cast(Tensor | None, rule(op, tangents))
        except _ShapeOnly:
            return None

    def elementwise(self, op: Operation, tangents: list[Tensor | None]) -> Tensor | None:
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
            if partial == 1:
                terms.append(tangent)
                continue
            if not partial.free_symbols:
                terms.append(expression_op(partial * a0, [tangent], like=out, name="Tangent"))
                continue
            # The partial's free symbols are among a0..: renumber the operands it uses.
            used = [i for i, s in enumerate(symbols) if partial.has(s)]
            renamed = partial.xreplace(
                {symbols[i]: arg_symbols(len(used))[k] for k, i in enumerate(used)}
            )
            local = expression_op(renamed, [op.inputs[i] for i in used], like=out, name="Partial")
            terms.append(
                expression_op(a0 * a1, [expand_dims(local, -1), tangent], like=out, name="Tangent")
            )
        if not terms:
            return None
        return self.spread(_add_all(terms, out), out)

    def rule_Reshape(self, op: Operation, tangents: list[Tensor | None]) -> Tensor | None:
        # ReshapeLike's second operand gives a shape only; so do Squeeze's and ExpandDims' axes.
        return None if tangents[0] is None else self.reshaped(tangents[0], op.outputs[0])

    rule_ReshapeLike = rule_ExpandDims = rule_Squeeze = rule_Reshape

    def rule_Transpose(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        tangent = _linear_in_first(op, tangents)
        perm = op.attrs["perm"]
        rank = _rank(op.inputs[0])
        order = list(range(rank))[::-1] if perm is None else list(perm)
        return transpose(tangent, [*order, rank])

    def rule_SumToShape(self, op: Operation, tangents: list[Tensor | None]) -> Tensor | None:
        if tangents[0] is None:
            return None
        grad, like = op.inputs
        tangent, axes = tangents[0], op.attrs["axes"]
        if axes == () or signature_of(grad) == signature_of(like):
            return self.reshaped(tangent, like) if axes == () else tangent
        if axes is None:  # which axes broadcast is known only at run time
            return self.same_op(op, [tangent, self.shape_source(like)], {"axes": None})
        rank = _rank(grad)
        everything = list(range(rank)) if axes == ALL_AXES else list(axes)
        lead = rank - _rank(like)
        leading = [a for a in everything if a < lead]
        stretched = [a - lead for a in everything if a >= lead]
        if leading:
            tangent = reduce_sum(tangent, axis=leading)
        if stretched:
            tangent = reduce_sum(tangent, axis=stretched, keepdims=True)
        return self.reshaped(tangent, like) if axes == ALL_AXES else tangent

    def rule_BroadcastLike(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        tangent = _of_first(tangents)
        source, like = op.inputs
        for _ in range(_rank(like) - _rank(source)):
            tangent = expand_dims(tangent, 0)
        if is_fully_defined(like.shape):
            return broadcast_to(tangent, self.full(like))
        return self.same_op(op, [tangent, self.shape_source(like)], {})

    def rule_BroadcastTo(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        tangent = _linear_in_first(op, tangents)
        for _ in range(_rank(op.outputs[0]) - _rank(op.inputs[0])):
            tangent = expand_dims(tangent, 0)
        return broadcast_to(tangent, self.full(op.outputs[0]))

    def rule_Sum(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        tangent = _linear_in_first(op, tangents)
        rank = _rank(op.inputs[0])
        axes = op.attrs["axes"]
        axes = list(range(rank)) if axes is None else [a % rank for a in axes]
        reduce = reduce_mean if op.type == "Mean" else reduce_sum
        return reduce(tangent, axis=axes, keepdims=op.attrs["keepdims"])

    rule_Mean = rule_Sum

    def rule_Max(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        """Ties share the tangent equally, as TF's gradient shares the cotangent."""
        tangent = _linear_in_first(op, tangents)
        x = op.inputs[0]
        rank = _rank(x)
        axes = op.attrs["axes"]
        axes = list(range(rank)) if axes is None else [a % rank for a in axes]
        keepdims = op.attrs["keepdims"]
        extremum = broadcast_gradient(op.outputs[0], x, tuple(axes), keepdims, mean=False)
        chosen = cast_to(equal(x, extremum), x.dtype)
        a0, a1 = arg_symbols(2)
        picked = expression_op(a0 * a1, [expand_dims(chosen, -1), tangent], like=x, name="Tangent")
        total = reduce_sum(picked, axis=axes, keepdims=keepdims)
        ties = expand_dims(reduce_sum(chosen, axis=axes, keepdims=keepdims), -1)
        return expression_op(a0 / a1, [total, ties], like=x, name="Tangent")

    rule_Min = rule_Max

    def rule_BroadcastGrad(self, op: Operation, tangents: list[Tensor | None]) -> Tensor | None:
        # The adjoint of a reduction: the same spread of the tangent to like's shape plus the
        # directions (like gives only a shape, so its tangent does not matter).
        if tangents[0] is None:
            return None
        like = op.inputs[1]
        rank = _rank(like)
        axes = op.attrs["axes"]
        axes = tuple(range(rank)) if axes is None else tuple(a % rank for a in axes)
        attrs = {"axes": axes, "keepdims": op.attrs["keepdims"], "mean": op.attrs["mean"]}
        return self.same_op(op, [tangents[0], self.shape_source(like)], attrs)

    def rule_MatMul(self, op: Operation, tangents: list[Tensor | None]) -> Tensor | None:
        # out = a' @ b' (a' = a or a with its last two axes swapped, likewise b'), so
        # d out = da' @ b' + a' @ db'.
        out = op.outputs[0]
        terms = []
        if tangents[1] is not None:
            terms.append(self.matmul_right(op, tangents[1]))
        if tangents[0] is not None:
            terms.append(self.matmul_left(op, tangents[0]))
        return self.spread(_add_all(terms, out), out)

    def matmul_right(self, op: Operation, db: Tensor) -> Tensor:
        """``a' @ db'``, shape ``out.shape + [count]``."""
        a, b = op.inputs
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        ra, rb = _rank(a), _rank(b)
        b_dims = _dims(b)
        inner, columns = (b_dims[-1], b_dims[-2]) if tb else (b_dims[-2], b_dims[-1])
        if db in self.identity and rb == 2 and columns == 1:
            # b' is a column holding x's elements: a' @ e_k is column k of a'.
            a_matrix = transpose(a, _swap_last(ra + 1)[:-1]) if ta else a
            return expand_dims(a_matrix, -2)
        if ra == 2 and rb == 2 and columns is not None:
            # One 2-D product over all directions at once (BLAS): a' [i, m] @ db' [m, j*k].
            rows = _dims(a)[1 if ta else 0]
            moved = transpose(db, [1, 0, 2]) if tb else db  # [m, j, k]
            flat = self.reshape(moved, [-1 if inner is None else inner, columns * self.count])
            product = matmul(a, flat, transpose_a=ta)
            return self.reshape(product, [-1 if rows is None else rows, columns, self.count])
        # Any ranks: the directions become a batch axis before the matrices.
        product = matmul(expand_dims(a, -3), _directions_first(db, tb), transpose_a=ta)
        return _directions_last(product)

    def matmul_left(self, op: Operation, da: Tensor) -> Tensor:
        """``da' @ b'``, shape ``out.shape + [count]``."""
        a, b = op.inputs
        ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
        ra, rb = _rank(a), _rank(b)
        a_dims = _dims(a)
        rows, inner = (a_dims[-1], a_dims[-2]) if ta else (a_dims[-2], a_dims[-1])
        if da in self.identity and ra == 2 and rb == 2 and rows == 1:
            # a' is a row holding x's elements: e_k @ b' is row k of b'.
            return expand_dims(b if tb else transpose(b), 0)
        b_dims = _dims(b)
        columns = b_dims[0] if tb else b_dims[1]
        if ra == 2 and rb == 2 and inner is not None and (rows is not None or columns is not None):
            # One 2-D product (BLAS): da' moved to [i*k, m] @ b' [m, j].
            moved = transpose(da, [1, 2, 0] if ta else [0, 2, 1])  # [i, k, m]
            product = matmul(self.reshape(moved, [-1, inner]), b, transpose_b=tb)  # [i*k, j]
            shape = [-1 if rows is None else rows, self.count, -1 if columns is None else columns]
            return transpose(self.reshape(product, shape), [0, 2, 1])
        product = matmul(_directions_first(da, ta), expand_dims(b, -3), transpose_b=tb)
        return _directions_last(product)

    def rule_Softmax(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        """``d softmax = s * (dx - sum(s * dx))`` along the class axis."""
        tangent = _linear_in_first(op, tangents)
        out = op.outputs[0]
        axis = op.attrs["axis"] % _rank(out)
        a0, a1, a2 = arg_symbols(3)
        probabilities = expand_dims(out if op.type == "Softmax" else exp(out), -1)
        weighted = expression_op(a0 * a1, [probabilities, tangent], like=out, name="Tangent")
        mean = reduce_sum(weighted, axis=axis, keepdims=True)
        if op.type == "LogSoftmax":  # d log_softmax = dx - sum(s * dx)
            return expression_op(a0 - a1, [tangent, mean], like=out, name="Tangent")
        return expression_op(
            a0 - a1 * a2, [weighted, probabilities, mean], like=out, name="Tangent"
        )

    rule_LogSoftmax = rule_Softmax

    def rule_SoftmaxCrossEntropyWithLogits(
        self, op: Operation, tangents: list[Tensor | None]
    ) -> Tensor | None:
        """``loss = -sum(labels * log_softmax(logits))``: ``d loss = sum((p * sum(labels) -
        labels) * d logits) - sum(log_softmax(logits) * d labels)`` along the class axis."""
        labels, logits = op.inputs
        d_labels, d_logits = tangents
        axis = op.attrs["axis"] % _rank(logits)
        a0, a1, a2 = arg_symbols(3)
        out = op.outputs[0]
        terms = []
        if d_logits is not None:
            total = reduce_sum(labels, axis=axis, keepdims=True)
            coefficient = expression_op(
                a0 * a1 - a2, [softmax(logits, axis=axis), total, labels], like=out, name="Partial"
            )
            weighted = expression_op(
                a0 * a1, [expand_dims(coefficient, -1), d_logits], like=out, name="Tangent"
            )
            terms.append(reduce_sum(weighted, axis=axis))
        if d_labels is not None and op.attrs["labels_gradient"]:
            logs = expand_dims(log_softmax(logits, axis=axis), -1)
            weighted = expression_op(-a0 * a1, [logs, d_labels], like=out, name="Tangent")
            terms.append(reduce_sum(weighted, axis=axis))
        if not terms:
            return None
        return self.spread(_add_all(terms, out), out)

    def zeros_or(self, tangent: Tensor | None, primal: Tensor) -> Tensor:
        return self.like(primal) if tangent is None else tangent

    def rule_ConcatV2(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        axis = op.attrs["axis"] % _rank(op.outputs[0])
        parts = [self.zeros_or(t, x) for t, x in zip(tangents, op.inputs, strict=True)]
        return concat(parts, axis=axis)

    def rule_Pack(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        axis = op.attrs["axis"] % _rank(op.outputs[0])
        parts = [self.zeros_or(t, x) for t, x in zip(tangents, op.inputs, strict=True)]
        return stack(parts, axis=axis)

    def rule_StridedSlice(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        key = op.attrs["key"]
        # After an ellipsis the key counts axes from the end: the directions take the last.
        key = (*key, slice(None)) if Ellipsis in key else key
        return strided_slice(_linear_in_first(op, tangents), key)

    def rule_SliceGrad(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        tangent = _of_first(tangents)
        key = op.attrs["key"]
        key = (*key, slice(None)) if Ellipsis in key else key
        return self.same_op(op, [tangent, self.shape_source(op.inputs[1])], {"key": key})

    def _nonnegative_axis(self, op: Operation) -> None:
        if op.attrs["axis"] < 0:  # counted from the end: it would meet the directions
            raise _NoForwardRule(op.type)

    def rule_ConcatPart(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        self._nonnegative_axis(op)  # the parts give only their sizes
        return self.same_op(op, [_of_first(tangents), *op.inputs[1:]], dict(op.attrs))

    def rule_UnconcatPart(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        self._nonnegative_axis(op)
        grad, whole, *parts = op.inputs
        inputs = [_of_first(tangents), self.shape_source(whole), *parts]
        return self.same_op(op, inputs, dict(op.attrs))

    def rule_SplitEqual(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        self._nonnegative_axis(op)
        return self.same_op(op, [_linear_in_first(op, tangents)], dict(op.attrs))

    def rule_UnsplitEqual(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        self._nonnegative_axis(op)
        inputs = [_of_first(tangents), self.shape_source(op.inputs[1])]
        return self.same_op(op, inputs, dict(op.attrs))

    def rule_Tile(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        return tile(_linear_in_first(op, tangents), [*op.attrs["multiples"], 1])

    def rule_Untile(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        inputs = [_of_first(tangents), self.shape_source(op.inputs[1])]
        return self.same_op(op, inputs, {"multiples": (*op.attrs["multiples"], 1)})

    def rule_GatherV2(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        self._nonnegative_axis(op)  # the indices were checked by the forward op
        return self.same_op(op, [_of_first(tangents), op.inputs[1]], dict(op.attrs))

    def rule_ScatterAdd(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        self._nonnegative_axis(op)
        _, indices, like = op.inputs
        inputs = [_of_first(tangents), indices, self.shape_source(like)]
        return self.same_op(op, inputs, dict(op.attrs))

    def rule_ReverseV2(self, op: Operation, tangents: list[Tensor | None]) -> Tensor:
        axes = op.attrs["axes"]
        if axes is None or any(a < 0 for a in axes):
            raise _NoForwardRule(op.type)
        return self.same_op(op, [_linear_in_first(op, tangents)], dict(op.attrs))
