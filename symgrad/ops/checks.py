"""Run-time checks: ops that pass a value through and check, when the graph runs, what TF's
kernels check and NumPy would let pass (a shape, equal sizes, indices in range, an axis,
broadcastable weights). Where the static shapes decide, the builders check at once and add
no op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from ..errors import ShapeError
from ..graph import Operation, Tensor
from ..shapes import as_shape, format_shape, shapes_compatible
from ..signatures import signature_of
from .base import _op
from .elementwise import identity
from .functions import Literal, check
from .registry import OpDef, register
from .sources import convert_to_tensor


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> Tensor:
    """``x``, with the static ``shape`` (``None`` dims: any size) checked when the graph runs.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     sg.ensure_shape(sg.placeholder(sg.int32), [None])
    <symgrad.Tensor 'EnsureShape:0' shape=(None,) dtype=int32>
    """
    x = convert_to_tensor(x)
    static = as_shape(shape)
    if static is None:
        return identity(x, name=name)
    if x.shape is not None and not shapes_compatible(x.shape, static):
        raise ShapeError(
            f"symgrad: EnsureShape: '{x.name}' has shape {format_shape(x.shape)}, "
            f"not the required {format_shape(static)}"
        )
    if x.shape is not None:
        static = tuple(d if d is not None else e for d, e in zip(static, x.shape, strict=True))
        if static == x.shape:
            return identity(x, name=name)
    return _op("EnsureShape", [x], {"shape": tuple(static)}, tuple(static), x.dtype, name)


register(
    OpDef(
        "EnsureShape",
        lower=lambda op, xs: check("_ensure_shape", xs[0], op.attrs["shape"]),
        gradient=lambda op, grad: [grad],
    )
)


def ensure_same_dims(
    x: Tensor, like: Tensor, axes: Sequence[int], like_axes: Sequence[int], op_type: str
) -> Tensor:
    """``x``, with its size along each of ``axes`` checked to equal ``like``'s along
    ``like_axes``: when the graph is built where both sizes are known, when it runs where
    one is not. For the ops that TF checks so (``op_type`` names the one asking), where
    NumPy would broadcast a size 1 silently: the labels of a sparse cross-entropy and the
    targets of ``in_top_k`` against their batch.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     labels = sg.placeholder(sg.int32, [None], name="labels")
    ...     logits = sg.placeholder(sg.float32, [None, 10], name="logits")
    ...     checked = ensure_same_dims(labels, logits, [0], [0], "InTopK")
    ...     f = sg.compile(checked)
    >>> f([1, 2], [[0.0] * 10] * 2).tolist()
    [1, 2]
    """
    unchecked: list[tuple[int, int]] = []
    for axis, like_axis in zip(axes, like_axes, strict=True):
        size = None if x.shape is None else x.shape[axis]
        like_size = None if like.shape is None else like.shape[like_axis]
        if size is not None and like_size is not None:
            if size != like_size:
                raise ShapeError(
                    f"symgrad: {op_type}: '{x.name}' has {size} entries along axis {axis}, "
                    f"'{like.name}' {like_size} along axis {like_axis}; they must be equal"
                )
            continue
        unchecked.append((axis, like_axis))
    if not unchecked:
        return x
    attrs = {
        "axes": tuple(a for a, _ in unchecked),
        "like_axes": tuple(b for _, b in unchecked),
        "what": op_type,
    }
    return _op("EnsureSameDims", [x, like], attrs, x.shape, x.dtype, None)


def _lower_ensure_same_dims(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    value, like = signature_of(op.inputs[0]), signature_of(op.inputs[1])
    pairs = list(zip(op.attrs["axes"], op.attrs["like_axes"], strict=True))
    if (
        isinstance(value, tuple)
        and isinstance(like, tuple)
        and all(value[a] == like[b] for a, b in pairs)
    ):
        # One origin for each pair of sizes: equal at run time, as in the body for equal
        # batch sizes (signatures.assuming), where the function's shape check made them so.
        return operands[0]
    return check(
        "_ensure_same_dims",
        operands[0],
        operands[1],
        op.attrs["axes"],
        op.attrs["like_axes"],
        Literal(repr(op.attrs["what"])),  # a string in the module, not a name
    )


register(
    OpDef(
        "EnsureSameDims",
        lower=_lower_ensure_same_dims,
        gradient=lambda op, grad: [grad, None],
        # ``like`` is read for its shape: a named array (or an input of its shape), never an
        # expression computed again for it.
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[0],
    )
)


def ensure_in_range(indices: Tensor, like: Tensor, axis: int, op_type: str) -> Tensor:
    """``indices``, checked when the graph runs to lie in ``[0, n)``, ``n`` the size of ``like``
    along ``axis``: TF's kernels (``op_type`` names the one asking) refuse an index outside,
    where NumPy's indexing would wrap a negative one round to the end, or a batched gather's
    flat index would read another batch entry's row.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     ids = sg.placeholder(sg.int32, [None], name="ids")
    ...     table = sg.placeholder(sg.float32, [3, 2], name="table")
    ...     f = sg.compile(ensure_in_range(ids, table, 0, "GatherV2"))
    >>> f([2, 0], [[0.0] * 2] * 3).tolist()
    [2, 0]
    """
    return _op(
        "EnsureInRange",
        [indices, like],
        {"axis": int(axis), "what": op_type},
        indices.shape,
        indices.dtype,
        None,
    )


register(
    OpDef(
        "EnsureInRange",
        lower=lambda op, xs: check(
            "_ensure_in_range",
            xs[0],
            xs[1],
            op.attrs["axis"],
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [None, None],
        # ``like`` is read for its shape: a named array, never an expression computed again.
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[0],
    )
)


def ensure_axis(
    x: Tensor, axis: int, size: int = 0, at_least: bool = True, op_type: str = "EnsureAxis"
) -> Tensor:
    """``x``, checked when the graph runs to have an axis ``axis`` with ``size`` entries (or at
    least ``size``): where the rank or that size is known only then, and NumPy would take the
    value anyway (an axis 0 of a 0-d value, a slice past the end, parts that do not fill the
    axis) where TF's kernel, ``op_type``, refuses it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, name="x")
    ...     f = sg.compile(ensure_axis(x, 1, 3, at_least=False, op_type="Unpack"))
    >>> f([[1.0, 2.0, 3.0]]).shape
    (1, 3)
    """
    attrs = {"axis": int(axis), "size": int(size), "at_least": bool(at_least), "what": op_type}
    return _op("EnsureAxis", [x], attrs, x.shape, x.dtype, None)


register(
    OpDef(
        "EnsureAxis",
        lower=lambda op, xs: check(
            "_ensure_axis",
            xs[0],
            op.attrs["axis"],
            op.attrs["size"],
            int(op.attrs["at_least"]),
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [grad],
        signature=lambda op, sigs: sigs[0],
    )
)


def ensure_broadcastable(weights: Tensor, values: Tensor, op_type: str) -> Tensor:
    """``weights``, checked when the graph runs to be a scalar or of the rank of ``values``
    with each size 1 or the size of ``values`` (TF1's ``assert_broadcastable``, which
    ``op_type`` asks for): NumPy would also broadcast a lower rank, silently. For where the
    static shapes cannot decide it.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     weights = sg.placeholder(sg.float32, name="weights")
    ...     values = sg.placeholder(sg.float32, [None, 2], name="values")
    ...     f = sg.compile(ensure_broadcastable(weights, values, "compute_weighted_loss"))
    >>> f([[1.0, 0.0]], [[1.0, 2.0]] * 3).tolist()
    [[1.0, 0.0]]
    """
    attrs = {"what": op_type}
    return _op("EnsureBroadcastable", [weights, values], attrs, weights.shape, weights.dtype, None)


register(
    OpDef(
        "EnsureBroadcastable",
        lower=lambda op, xs: check(
            "_ensure_broadcastable",
            xs[0],
            xs[1],
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [grad, None],
        # ``values`` is read for its shape: a named array, never an expression computed again.
        materialized_inputs=lambda op: (1,),
        shape_only_inputs=(1,),
        signature=lambda op, sigs: sigs[0],
    )
)


def _rank_of_arguments(x: Tensor, rank: int) -> Tensor:
    """``x``, of the ``rank`` that the op's arguments (one pair of paddings, one begin per axis)
    give it when its own rank is known only at run time: checked then, as TF's kernel does."""
    return ensure_shape(x, [None] * rank) if x.shape is None else x
