"""Segment reductions: segment_sum, segment_max, segment_mean and their unsorted forms (ids
checked as TF's kernels check them), and embedding_lookup (one table or shards of one).

``segment_mean`` is a composition of segment sums, and gets its gradient from them.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor
from ..shapes import format_shape
from .base import _op, _static_ints, constant_value
from .elementwise import (
    cast,
    equal,
    greater,
    maximum,
    ones_like,
    sqrt,
    truediv,
    where,
    zeros_like,
)
from .functions import Literal, check, dtype_literal, helper, literal
from .gathering import gather
from .joining import concat
from .reductions import reduce_sum
from .registry import OpDef, register
from .reshaping import reshape
from .sources import constant, convert_to_tensor

# --- segment sums ----------------------------------------------------------------------------------


def _segment_ids(data: Tensor, segment_ids: Any, op: str, flat: bool) -> Tensor:
    ids = convert_to_tensor(segment_ids)
    if not ids.dtype.is_integer:
        raise DTypeError(
            f"symgrad: {op}: segment_ids '{ids.name}' must be int32 or int64, got {ids.dtype.name}"
        )
    if data.shape is None or ids.shape is None:
        raise ShapeError(f"symgrad: {op}: data and segment_ids need known ranks")
    lead = tuple(data.shape[: len(ids.shape)])
    if (
        (flat and len(ids.shape) != 1)
        or len(lead) != len(ids.shape)
        or any(
            a is not None and b is not None and a != b for a, b in zip(lead, ids.shape, strict=True)
        )
    ):
        raise ShapeError(
            f"symgrad: {op}: segment_ids '{ids.name}' {format_shape(ids.shape)} must match the "
            f"leading axes of data '{data.name}' {format_shape(data.shape)}"
        )
    return ids


def _checked_segment_ids(ids: Tensor, count: int | None, ordered: bool, op_type: str) -> Tensor:
    """``ids``, checked when the graph runs as TF's kernel ``op_type`` checks them: below
    ``count`` (the unsorted ops, where a negative id drops its row), or sorted and non-negative
    (``ordered``, the sorted ops). NumPy would add a row to the wrong segment, or drop it."""
    fixed = constant_value(ids)
    if fixed is not None:
        if fixed.size and count is not None and int(fixed.max()) >= count:
            raise InvalidArgumentError(
                f"symgrad: {op_type}: segment id {int(fixed.max())} of '{ids.name}' is not in "
                f"[0, {count})"
            )
        return ids
    attrs = {"count": count, "ordered": ordered, "what": op_type}
    if ids.op.type == "EnsureSegmentIds" and ids.op.attrs["ordered"] == ordered:
        return ids  # checked already (segment_mean's two sums read one check)
    return _op("EnsureSegmentIds", [ids], attrs, ids.shape, ids.dtype, None)


register(
    OpDef(
        "EnsureSegmentIds",
        lower=lambda op, xs: check(
            "_ensure_segment_ids",
            xs[0],
            literal(op.attrs["count"]),
            int(op.attrs["ordered"]),
            Literal(repr(op.attrs["what"])),  # a string in the module, not a name
        ),
        gradient=lambda op, grad: [None],
        signature=lambda op, sigs: sigs[0],
    )
)


def unsorted_segment_sum(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Sums of the rows of ``data`` with equal ``segment_ids`` (any order; an id < 0 drops its
    row), ``num_segments`` of them; an empty segment is 0.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([1.0, 2.0, 3.0])
    ...     print(sg.compile(sg.unsorted_segment_sum(data, [2, 0, 2], 4))())
    [2. 0. 4. 0.]
    """
    return _unsorted_segment_op("UnsortedSegmentSum", data, segment_ids, num_segments, name)


def segment_sum(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Sums of the rows of ``data`` with equal sorted ``segment_ids``: ``max(ids) + 1`` rows
    (known when the ids are constant, else decided at run time); a skipped id gives 0.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    ...     print(sg.compile(sg.segment_sum(data, [0, 0, 2]))())
    [[4. 6.]
     [0. 0.]
     [5. 6.]]
    """
    x = convert_to_tensor(data)
    ids, count = _sorted_segment_ids(x, segment_ids, "SegmentSum")
    return _segment_sum_op("SegmentSum", x, ids, count, name)


def _sorted_segment_ids(x: Tensor, segment_ids: Any, op_type: str) -> tuple[Tensor, int | None]:
    """The sorted ``segment_ids`` of ``x``, checked (now if constant, else when run), and the
    number of segments, ``max(ids) + 1``, if known now."""
    ids = _segment_ids(x, segment_ids, op_type, flat=True)
    fixed = constant_value(ids)
    count = None if fixed is None else (int(fixed.max()) + 1 if fixed.size else 0)
    if fixed is not None and (np.any(np.diff(fixed) < 0) or np.any(fixed < 0)):
        raise InvalidArgumentError(
            f"symgrad: {op_type}: segment_ids '{ids.name}' must be sorted and non-negative, "
            f"got {fixed.tolist()!r:.60}"
        )
    return _checked_segment_ids(ids, count, True, op_type), count


def _unsorted_segment_op(
    op_type: str, data: Any, segment_ids: Any, num_segments: Any, name: str | None
) -> Tensor:
    """The unsorted segment op ``op_type`` of ``data``: ids of any order and rank (an id < 0
    drops its row), checked when run against ``num_segments``, a static int."""
    x = convert_to_tensor(data)
    ids = _segment_ids(x, segment_ids, op_type, flat=False)
    (count,) = _static_ints(num_segments, op_type, "num_segments", x)
    ids = _checked_segment_ids(ids, count, False, op_type)
    return _segment_sum_op(op_type, x, ids, count, name)


def _segment_sum_op(op_type: str, x: Tensor, ids: Tensor, count: int | None, name: Any) -> Tensor:
    if x.dtype.is_bool:
        raise DTypeError(f"symgrad: {op_type}: does not take bool tensors ('{x.name}')")
    assert x.shape is not None and ids.shape is not None
    shape = (count,) + tuple(x.shape[len(ids.shape) :])
    return _op(op_type, [x, ids], {"num_segments": count}, shape, x.dtype, name)


def _lower_segment_sum(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    count = op.attrs["num_segments"]
    return helper(
        "_segment_sum",
        operands[0],
        operands[1],
        literal(count),
        dtype_literal(op.outputs[0].dtype),
    )


def _segment_sum_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, ids = op.inputs
    # TF's _UnsortedSegmentSumGrad: each row takes its segment's cotangent, a dropped row 0.
    return [_op("SegmentGather", [grad, ids], {}, x.shape, grad.dtype, None), None]


def _segment_gather_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    g = op.inputs[0]
    assert g.shape is not None
    count = g.shape[0]
    if count is None:
        # Segments counted at run time come from sorted ids (SegmentSum, SegmentMax): their
        # number is the last id + 1 again.
        return [_segment_sum_op("SegmentSum", grad, op.inputs[1], None, None), None]
    return [_segment_sum_op("UnsortedSegmentSum", grad, op.inputs[1], count, None), None]


for _type in ("SegmentSum", "UnsortedSegmentSum"):
    register(OpDef(_type, lower=_lower_segment_sum, gradient=_segment_sum_gradient))
register(
    OpDef(
        "SegmentGather",
        lower=lambda op, xs: helper("_segment_gather", xs[0], xs[1]),
        gradient=_segment_gather_gradient,
        signature=lambda op, sigs: tuple(sigs[1]) + tuple(sigs[0][1:]),
    )
)


def unsorted_segment_max(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Maxima of the rows of ``data`` with equal ``segment_ids`` (an id < 0 drops its row); an
    empty segment holds the dtype's lowest value, as in TF. Ties share the gradient equally
    (TF's ``_UnsortedSegmentMinOrMaxGrad``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([1.0, 5.0, 3.0])
    ...     print(sg.compile(sg.unsorted_segment_max(data, [1, 1, 0], 2))())
    [3. 5.]
    """
    return _unsorted_segment_op("UnsortedSegmentMax", data, segment_ids, num_segments, name)


def _segment_max_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    x, ids = op.inputs
    count = op.attrs["num_segments"]
    # Each row takes its segment's maximum (minimum); the rows equal to it share the cotangent.
    gathered = _op("SegmentGather", [op.outputs[0], ids], {}, x.shape, x.dtype, None)
    selected = cast(equal(x, gathered), x.dtype)
    # Sorted ids (SegmentMax, SegmentMin) may leave the number of segments to run time.
    summed = "UnsortedSegmentSum" if op.type.startswith("Unsorted") else "SegmentSum"
    shares = _segment_sum_op(summed, selected, ids, count, None)
    # An empty segment has no share and no row reads it: divide by at least 1 there.
    shares = maximum(shares, np.asarray(1, dtype=x.dtype.numpy))
    weighted = _op("SegmentGather", [grad / shares, ids], {}, x.shape, x.dtype, None)
    return [weighted * selected, None]


register(
    OpDef(
        "UnsortedSegmentMax",
        lower=lambda op, xs: helper(
            "_segment_max",
            xs[0],
            xs[1],
            op.attrs["num_segments"],
            dtype_literal(op.outputs[0].dtype),
        ),
        gradient=_segment_max_gradient,
    )
)


def segment_max(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Maxima of the rows of ``data`` with equal sorted ``segment_ids``: ``max(ids) + 1`` rows
    (known when the ids are constant, else decided at run time); a skipped id gives 0, as in
    TF. Ties share the gradient equally (TF's ``_SegmentMinOrMaxGrad``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([[1.0, 8.0], [3.0, 4.0], [5.0, 6.0]])
    ...     print(sg.compile(sg.segment_max(data, [0, 0, 2]))())
    [[3. 8.]
     [0. 0.]
     [5. 6.]]
    """
    x = convert_to_tensor(data)
    ids, count = _sorted_segment_ids(x, segment_ids, "SegmentMax")
    return _segment_sum_op("SegmentMax", x, ids, count, name)


register(
    OpDef(
        "SegmentMax",
        lower=lambda op, xs: helper(
            "_sorted_segment_max", xs[0], xs[1], dtype_literal(op.outputs[0].dtype)
        ),
        gradient=lambda op, grad: _segment_max_gradient(op, grad),
    )
)


def unsorted_segment_min(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Minima of the rows of ``data`` with equal ``segment_ids`` (an id < 0 drops its row); an
    empty segment holds the dtype's largest value, as in TF. Ties share the gradient equally
    (TF's ``_UnsortedSegmentMinOrMaxGrad``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([1.0, 5.0, 3.0])
    ...     print(sg.compile(sg.unsorted_segment_min(data, [1, 1, 0], 2))())
    [3. 1.]
    """
    return _unsorted_segment_op("UnsortedSegmentMin", data, segment_ids, num_segments, name)


def segment_min(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Minima of the rows of ``data`` with equal sorted ``segment_ids``: ``max(ids) + 1`` rows
    (known when the ids are constant, else decided at run time); a skipped id gives 0, as in
    TF. Ties share the gradient equally (TF's ``_SegmentMinOrMaxGrad``).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([[1.0, 8.0], [3.0, 4.0], [5.0, 6.0]])
    ...     print(sg.compile(sg.segment_min(data, [0, 0, 2]))())
    [[1. 4.]
     [0. 0.]
     [5. 6.]]
    """
    x = convert_to_tensor(data)
    ids, count = _sorted_segment_ids(x, segment_ids, "SegmentMin")
    return _segment_sum_op("SegmentMin", x, ids, count, name)


register(
    OpDef(
        "UnsortedSegmentMin",
        lower=lambda op, xs: helper(
            "_segment_min",
            xs[0],
            xs[1],
            op.attrs["num_segments"],
            dtype_literal(op.outputs[0].dtype),
        ),
        gradient=_segment_max_gradient,
    )
)
register(
    OpDef(
        "SegmentMin",
        lower=lambda op, xs: helper(
            "_sorted_segment_min", xs[0], xs[1], dtype_literal(op.outputs[0].dtype)
        ),
        gradient=_segment_max_gradient,
    )
)


def unsorted_segment_prod(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Products of the rows of ``data`` with equal ``segment_ids`` (an id < 0 drops its row);
    an empty segment is 1. The gradient is TF's ``_UnsortedSegmentProdGrad``: the product of
    the others in the segment, also where the segment holds zeros.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([2.0, 5.0, 3.0])
    ...     print(sg.compile(sg.unsorted_segment_prod(data, [1, 1, 0], 3))())
    [ 3. 10.  1.]
    """
    return _unsorted_segment_op("UnsortedSegmentProd", data, segment_ids, num_segments, name)


def segment_prod(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Products of the rows of ``data`` with equal sorted ``segment_ids``: ``max(ids) + 1``
    rows (known when the ids are constant, else decided at run time); a skipped id gives 1,
    as in TF. The gradient is TF's ``_SegmentProdGrad``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([[1.0, 8.0], [3.0, 4.0], [5.0, 6.0]])
    ...     print(sg.compile(sg.segment_prod(data, [0, 0, 2]))())
    [[ 3. 32.]
     [ 1.  1.]
     [ 5.  6.]]
    """
    x = convert_to_tensor(data)
    ids, count = _sorted_segment_ids(x, segment_ids, "SegmentProd")
    return _segment_sum_op("SegmentProd", x, ids, count, name)


def _segment_prod_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    # TF's _SegmentProdGrad / _UnsortedSegmentProdGrad: a row's derivative is the product of
    # the segment's other rows; the product over the segment divided by the row where the row
    # is not 0, the product of the segment's nonzero rows where it is the segment's one zero,
    # and 0 throughout a segment with two zeros or more.
    x, ids = op.inputs
    count = op.attrs["num_segments"]
    summed = "UnsortedSegmentSum" if op.type.startswith("Unsorted") else "SegmentSum"
    zero = np.asarray(0, dtype=x.dtype.numpy)
    one = np.asarray(1, dtype=x.dtype.numpy)
    is_zero = equal(x, zero)
    zeros = _segment_sum_op(summed, cast(is_zero, x.dtype), ids, count, None)
    grad = where(greater(zeros, one), zeros_like(grad), grad)
    nonzero = where(is_zero, ones_like(x), x)
    nonzero_product = _segment_sum_op(op.type, nonzero, ids, count, None)
    if op.type.startswith("Unsorted"):
        # TF gathers the products at the ids clipped to 0: a dropped row reads segment 0 (its
        # cotangent is 0, but a second derivative through it is TF's).
        clipped = maximum(ids, zeros_like(ids))
        gathered, gathered_nonzero = (
            gather(op.outputs[0], clipped),
            gather(nonzero_product, clipped),
        )
    else:
        gathered = _op("SegmentGather", [op.outputs[0], ids], {}, x.shape, x.dtype, None)
        gathered_nonzero = _op("SegmentGather", [nonzero_product, ids], {}, x.shape, x.dtype, None)
    # TF's sorted form divides by the rows with 1 for 0; its unsorted form by the rows
    # themselves, where a 0 gives a quotient that is discarded but whose own gradient is NaN
    # (a second derivative through that segment is NaN in TF, and so here).
    divisor = x if op.type.startswith("Unsorted") else nonzero
    partial = where(is_zero, gathered_nonzero, gathered / divisor)
    gathered_grad = _op("SegmentGather", [grad, ids], {}, x.shape, x.dtype, None)
    return [gathered_grad * partial, None]


register(
    OpDef(
        "UnsortedSegmentProd",
        lower=lambda op, xs: helper(
            "_segment_prod",
            xs[0],
            xs[1],
            literal(op.attrs["num_segments"]),
            dtype_literal(op.outputs[0].dtype),
        ),
        gradient=_segment_prod_gradient,
    )
)
register(
    OpDef(
        "SegmentProd",
        lower=lambda op, xs: helper(
            "_segment_prod",
            xs[0],
            xs[1],
            literal(op.attrs["num_segments"]),
            dtype_literal(op.outputs[0].dtype),
        ),
        gradient=_segment_prod_gradient,
    )
)


def segment_mean(data: Any, segment_ids: Any, name: str | None = None) -> Tensor:
    """Means of the rows of ``data`` with equal sorted ``segment_ids`` (0 for an empty one).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     print(sg.compile(sg.segment_mean(sg.constant([1.0, 3.0, 5.0]), [0, 0, 1]))())
    [2. 5.]
    """
    x = convert_to_tensor(data)
    ids = _segment_ids(x, segment_ids, "SegmentMean", flat=True)
    if constant_value(ids) is None:
        ids = _checked_segment_ids(ids, None, True, "SegmentMean")
    total = segment_sum(x, ids)
    assert x.shape is not None
    counts = segment_sum(cast(ids * 0 + 1, x.dtype), ids)
    counts = reshape(counts, [-1] + [1] * (len(x.shape) - 1))
    return total / maximum(counts, np.asarray(1, dtype=x.dtype.numpy))


def unsorted_segment_mean(
    data: Any, segment_ids: Any, num_segments: Any, name: str | None = None
) -> Tensor:
    """Means of the rows of ``data`` with equal ``segment_ids`` (an id < 0 drops its row), 0
    for an empty segment: TF's composition of two unsorted segment sums.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     data = sg.constant([1.0, 3.0, 5.0])
    ...     print(sg.compile(sg.unsorted_segment_mean(data, [1, 1, 0], 3))())
    [5. 2. 0.]
    """
    x = convert_to_tensor(data)
    ids = _segment_ids(x, segment_ids, "UnsortedSegmentMean", flat=False)
    (count,) = _static_ints(num_segments, "UnsortedSegmentMean", "num_segments", x)
    ids = _checked_segment_ids(ids, count, False, "UnsortedSegmentSum")
    total = unsorted_segment_sum(x, ids, count)
    assert x.shape is not None and ids.shape is not None
    counts = unsorted_segment_sum(cast(ids * 0 + 1, x.dtype), ids, count)
    counts = reshape(counts, [-1] + [1] * (len(x.shape) - len(ids.shape)))
    return truediv(total, maximum(counts, np.asarray(1, dtype=x.dtype.numpy)), name=name)


# --- embedding_lookup ----------------------------------------------------------------------------


def embedding_lookup(
    params: Any,
    ids: Any,
    partition_strategy: str = "mod",
    name: str | None = None,
    validate_indices: bool = True,
    max_norm: float | None = None,
) -> Tensor:
    """The rows ``params[ids]`` (ids of any rank), as ``np.take``; the gradient adds the
    cotangents of repeated ids (``np.add.at``).

    ``params`` is one tensor or a list of shards of one table (each with static rows):
    id ``i`` is row ``i // len(params)`` of shard ``i % len(params)`` with
    ``partition_strategy="mod"``, and with ``"div"`` the ids are split into contiguous
    ranges, the first shards one id longer where they do not divide evenly (TF's rules).
    With ``max_norm`` each looked-up row longer than it is scaled down to that L2 norm, as
    TF's ``clip_by_norm``.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     table = sg.constant([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    ...     print(sg.compile(sg.nn.embedding_lookup(table, [[2, 0]]))())
    [[[4. 5.]
      [0. 1.]]]
    """
    if str(partition_strategy) not in ("mod", "div"):
        raise InvalidArgumentError(
            f"symgrad: embedding_lookup: partition_strategy must be 'mod' or 'div', got "
            f"{partition_strategy!r}"
        )
    if isinstance(params, (list, tuple)) and len(params) == 1:
        params = params[0]
    if isinstance(params, (list, tuple)):
        table, ids = _sharded_table(list(params), ids, str(partition_strategy))
    else:
        table = convert_to_tensor(params)
    rows = gather(table, ids, name=name if max_norm is None else None)
    if max_norm is None:
        return rows
    return _clip_rows(rows, table, float(max_norm), name)


def _sharded_table(shards: list[Any], ids: Any, strategy: str) -> tuple[Tensor, Any]:
    """The shards as one table (concatenated in order) and ``ids`` mapped to its rows by TF's
    partition rule (``embedding_ops.embedding_lookup``); a constant map, as the shard sizes
    are static."""
    if not shards:
        raise InvalidArgumentError("symgrad: embedding_lookup: params is an empty list")
    tensors = [convert_to_tensor(p) for p in shards]
    sizes = []
    for shard in tensors:
        if shard.shape is None or not shard.shape or shard.shape[0] is None:
            raise ShapeError(
                f"symgrad: embedding_lookup: shard '{shard.name}' has shape "
                f"{format_shape(shard.shape)}; sharded tables need static row counts"
            )
        sizes.append(int(shard.shape[0]))
    count, total = len(tensors), builtins.sum(sizes)
    every = np.arange(total)
    if strategy == "mod":
        partition, row = every % count, every // count
    else:
        per, extras = divmod(total, count)
        partition = np.maximum(every // (per + 1), (every - extras) // max(per, 1))
        row = np.where(partition < extras, every % (per + 1), (every - extras) % max(per, 1))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    if np.any(row >= np.asarray(sizes)[partition]):
        raise ShapeError(
            f"symgrad: embedding_lookup: shards of {sizes} rows do not hold ids 0..{total - 1} "
            f"by partition_strategy={strategy!r}"
        )
    positions = (starts[partition] + row).astype(np.int64)
    table = concat(tensors, 0)
    if np.array_equal(positions, every):
        return table, ids  # the shards in order are the table ("div" with TF's sizes)
    return table, gather(constant(positions), ids)


def _clip_rows(rows: Tensor, table: Tensor, max_norm: float, name: str | None) -> Tensor:
    # TF's embedding_ops._clip: clip_by_norm over the axes of one embedding, with its
    # guard for an all-zero row (no division by 0, no NaN gradient).
    assert rows.shape is not None and table.shape is not None
    axes = list(builtins.range(len(rows.shape) - len(table.shape) + 1, len(rows.shape)))
    squares = reduce_sum(rows * rows, axes, keepdims=True)
    positive = squares > 0
    norms = where(positive, sqrt(where(positive, squares, squares * 0 + 1)), squares)
    limit = np.asarray(max_norm, dtype=rows.dtype.numpy)
    return (rows * limit) / maximum(norms, limit)


__all__ = [
    "embedding_lookup",
    "segment_max",
    "segment_mean",
    "segment_min",
    "segment_prod",
    "segment_sum",
    "unsorted_segment_max",
    "unsorted_segment_mean",
    "unsorted_segment_min",
    "unsorted_segment_prod",
    "unsorted_segment_sum",
]
