"""Matrix products: ``matmul`` (``@``) for 2-D and batched operands; vector and matrix norms."""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

import numpy as np
import sympy as sp

from ..errors import DTypeError, InvalidArgumentError, ShapeError
from ..graph import Operation, Tensor, get_default_graph
from ..shapes import broadcast_shapes, broadcast_signatures, format_shape, signature
from ..signatures import broadcast_axes_of, signature_of
from .broadcasting import sum_to_shape_of
from .creation import eye
from .diagonals import matrix_diag_part
from .elementwise import abs, multiply, ones_like, pow, sqrt
from .functions import Literal, MatMulNode, _Structural, helper
from .reductions import reduce_max, reduce_sum
from .registry import OpDef, register
from .reshaping import expand_dims, squeeze
from .sources import convert_to_tensor


def _matrix_dims(shape: Any, transpose: bool) -> tuple:
    rows, cols = shape[-2], shape[-1]
    return (cols, rows) if transpose else (rows, cols)


def matmul(
    a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False, name: str | None = None
) -> Tensor:
    """Matrix product of the last two axes, broadcasting leading (batch) axes.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.placeholder(sg.float32, shape=[None, 784])
    ...     w = sg.constant(0.0, shape=[784, 10])
    ...     (x @ w).shape
    (None, 10)
    """
    a = convert_to_tensor(a)
    b = convert_to_tensor(b, dtype=a.dtype) if not isinstance(b, Tensor) else b
    if a.dtype != b.dtype:
        raise DTypeError(
            f"symgrad: MatMul: operands '{a.name}' ({a.dtype.name}) and '{b.name}' "
            f"({b.dtype.name}) must have the same dtype"
        )
    if a.dtype.is_bool:
        raise DTypeError(f"symgrad: MatMul: bool operands are not supported ('{a.name}')")
    for tensor in (a, b):
        if tensor.shape is not None and len(tensor.shape) < 2:
            raise ShapeError(
                f"symgrad: MatMul: operand '{tensor.name}' has shape "
                f"{format_shape(tensor.shape)}; matmul needs rank 2 or more"
            )
    if a.shape is None or b.shape is None:
        # TF's rule (math_ops.matmul): an operand of unknown rank makes it BatchMatMulV2, whose
        # shape function knows nothing of the result; NumPy's matmul broadcasts batch axes as
        # that op does, and a fed value of rank < 2 is rejected at run time.
        return _matmul_op(a, b, transpose_a, transpose_b, None, name)
    rows, inner_a = _matrix_dims(a.shape, transpose_a)
    inner_b, cols = _matrix_dims(b.shape, transpose_b)
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ShapeError(
            f"symgrad: MatMul: inner dimensions differ: '{a.name}' {format_shape(a.shape)}"
            f"{' (transposed)' if transpose_a else ''} and '{b.name}' {format_shape(b.shape)}"
            f"{' (transposed)' if transpose_b else ''}"
        )
    try:
        batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ShapeError(
            f"symgrad: MatMul: batch dimensions of '{a.name}' {format_shape(a.shape)} and "
            f"'{b.name}' {format_shape(b.shape)} do not broadcast"
        ) from None
    shape = tuple(batch) + (rows, cols)  # type: ignore[arg-type]  # the operands have known ranks (checked above)
    return _matmul_op(a, b, transpose_a, transpose_b, shape, name)


def _matmul_op(
    a: Tensor, b: Tensor, transpose_a: bool, transpose_b: bool, shape: Any, name: str | None
) -> Tensor:
    op = a.graph.create_op(
        "MatMul",
        [a, b],
        {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)},
        [(shape, a.dtype)],
        name=name,
    )
    return op.outputs[0]


def _lower(op: Operation, operands: Sequence[sp.Expr]) -> sp.Expr:
    a, b = op.inputs
    values = list(operands[:2])
    for index, tensor in enumerate((a, b)):
        if tensor.shape is None:
            # Rank unknown until run time: the value must be a matrix or a batch of them.
            values[index] = helper("_matrices", values[index])
    return MatMulNode(
        values[0],
        values[1],
        sp.Integer(int(op.attrs["transpose_a"])),
        sp.Integer(int(op.attrs["transpose_b"])),
        sp.Integer(0 if a.shape is None else len(a.shape)),  # 0: unknown rank (>= 2 at run time)
        sp.Integer(0 if b.shape is None else len(b.shape)),
    )


def _gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        grad_a, grad_b = matmul(grad, b, transpose_b=True), matmul(a, grad, transpose_a=True)
    elif not ta and tb:
        grad_a, grad_b = matmul(grad, b), matmul(grad, a, transpose_a=True)
    elif ta and not tb:
        grad_a, grad_b = matmul(b, grad, transpose_b=True), matmul(a, grad)
    else:
        grad_a = matmul(b, grad, transpose_a=True, transpose_b=True)
        grad_b = matmul(grad, a, transpose_a=True, transpose_b=True)
    if a.shape is None or b.shape is None:
        # Which batch axes broadcast is known only at run time.
        return [sum_to_shape_of(grad_a, a, None), sum_to_shape_of(grad_b, b, None)]
    # Leading (batch) axes broadcast like elementwise operands.
    batches = [signature_of(a)[:-2] + (1, 1), signature_of(b)[:-2] + (1, 1)]  # type: ignore[index]  # MatMul operands have known ranks
    result = signature_of(op.outputs[0])[:-2] + (1, 1)  # type: ignore[index]  # MatMul operands have known ranks
    return [
        sum_to_shape_of(grad_a, a, broadcast_axes_of(0, batches, result)),
        sum_to_shape_of(grad_b, b, broadcast_axes_of(1, batches, result)),
    ]


def _signature(op: Operation, operands: Sequence[Any]) -> Any:
    a, b = operands
    if isinstance(a, frozenset) or isinstance(b, frozenset):
        return signature(None, op.name)  # an operand of unknown rank: so is the result
    rows, _ = _matrix_dims(a, op.attrs["transpose_a"])
    _, cols = _matrix_dims(b, op.attrs["transpose_b"])
    return tuple(broadcast_signatures(a[:-2], b[:-2])) + (rows, cols)


register(OpDef("MatMul", lower=_lower, gradient=_gradient, signature=_signature))


# --- einsum, tensordot, matvec -------------------------------------------------------------------


class EinsumNode(_Structural):
    """``np.einsum('subscripts', *operands)``; args: the subscripts literal, then the operands."""

    def result_dtype(self, dtype_of: Any) -> str:
        return dtype_of(self.args[1])


def _expand_ellipsis(equation: str, inputs: list[str], output: str | None, ranks: list) -> tuple:
    """Spell ``...`` out as letters the equation does not use, right-aligned as NumPy
    broadcasts them: ``'...ij,jk->...ik'`` with a rank-3 first operand is ``'Aij,jk->Aik'``.

    Returns the subscripts, the output (None if implicit) and the ellipsis letters.
    """
    used = set("".join(inputs) + (output or ""))
    free = [c for c in string.ascii_letters if c not in used]
    spans = []
    for part, rank in zip(inputs, ranks, strict=False):
        if "..." not in part:
            spans.append(0)
            continue
        if rank is None:
            raise ShapeError(f"symgrad: Einsum: '...' in {equation!r} needs operands of known rank")
        spans.append(rank - len(part.replace("...", "")))
        if spans[-1] < 0:
            raise ShapeError(f"symgrad: Einsum: an operand has too few axes for {equation!r}")
    width = max(spans, default=0)
    letters = "".join(free[:width])
    expanded = [
        part.replace("...", letters[width - span :]) if "..." in part else part
        for part, span in zip(inputs, spans, strict=False)
    ]
    if output is not None and "..." in output:
        output = output.replace("...", letters)
    return expanded, output, letters


def _parse_equation(equation: str, count: int, ranks: list | None = None) -> tuple:
    text = equation.replace(" ", "")
    left, output = text.split("->") if "->" in text else (text, None)
    inputs = left.split(",")
    if len(inputs) != count:
        raise InvalidArgumentError(
            f"symgrad: Einsum: {equation!r} names {len(inputs)} operands, got {count}"
        )
    ellipsis = ""
    if "." in text:
        if any(p.replace("...", "").count(".") for p in inputs + [output or ""]):
            raise InvalidArgumentError(f"symgrad: Einsum: invalid subscripts {equation!r}")
        inputs, output, ellipsis = _expand_ellipsis(
            equation, inputs, output, ranks or [None] * count
        )
    if output is None:  # implicit mode: broadcast axes, then indices named once, sorted
        letters = "".join(inputs).replace(",", "")
        output = ellipsis + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ellipsis)
        )
    for part in inputs + [output]:
        if not part.isalpha() and part:
            raise InvalidArgumentError(f"symgrad: Einsum: invalid subscripts {equation!r}")
    if len(set(output)) != len(output) or set(output) - set("".join(inputs)):
        raise InvalidArgumentError(f"symgrad: Einsum: invalid output subscripts in {equation!r}")
    return inputs, output, ellipsis


def einsum(equation: str, *inputs: Any, name: str | None = None, **kwargs: Any) -> Tensor:
    """``np.einsum`` of TF1's equations, e.g. ``'bij,bjk->bik'``, ``'...ij,jk->...ik'``
    (broadcast batch axes) or ``'ii->i'`` (an index repeated within one operand: a diagonal).

    >>> import symgrad as sg, numpy as np
    >>> with sg.Graph().as_default():
    ...     a = sg.constant(np.ones((5, 2, 3)))
    ...     sg.einsum("...ij,jk->...ik", a, sg.constant(np.ones((3, 4)))).shape
    (5, 2, 4)
    """
    return _einsum(equation, [convert_to_tensor(t) for t in inputs], name)


def _einsum(
    equation: str, tensors: list[Tensor], name: str | None = None, broadcast: bool = False
) -> Tensor:
    """``einsum``; with ``broadcast``, any index may broadcast 1 against n (a gradient's
    einsum spells out the '...' axes of the op it differentiates)."""
    ranks = [None if t.shape is None else len(t.shape) for t in tensors]
    subscripts, output, ellipsis = _parse_equation(equation, len(tensors), ranks)
    sizes: dict = {}
    for tensor, letters in zip(tensors, subscripts, strict=False):
        if tensor.shape is None or len(tensor.shape) != len(letters):
            raise ShapeError(
                f"symgrad: Einsum: '{tensor.name}' {format_shape(tensor.shape)} does not match "
                f"subscripts {letters!r} of {equation!r}"
            )
        if tensor.dtype != tensors[0].dtype:
            raise DTypeError(
                f"symgrad: Einsum: operands must share a dtype: '{tensor.name}' is "
                f"{tensor.dtype.name}, '{tensors[0].name}' {tensors[0].dtype.name}"
            )
        for letter, dim in zip(letters, tensor.shape, strict=False):
            known = sizes.get(letter)
            # Axes under '...' broadcast (1 against n), as in NumPy and TF.
            if (broadcast or letter in ellipsis) and 1 in (known, dim):
                sizes[letter] = dim if known == 1 else known
                continue
            if known is not None and dim is not None and known != dim:
                raise ShapeError(
                    f"symgrad: Einsum: index {letter!r} of {equation!r} is {known} in one operand "
                    f"and {dim} in '{tensor.name}'"
                )
            if known is None:
                sizes[letter] = dim
    normalized = ",".join(subscripts) + "->" + output
    op = tensors[0].graph.create_op(
        "Einsum",
        tensors,
        {"equation": normalized},
        [(tuple(sizes[c] for c in output), tensors[0].dtype)],
        name=name,
    )
    return op.outputs[0]


def _einsum_gradient(op: Operation, grad: Tensor) -> list[Tensor | None]:
    subscripts, output = op.attrs["equation"].split("->")
    subscripts = subscripts.split(",")
    results: list[Tensor | None] = []
    for k, (tensor, letters) in enumerate(zip(op.inputs, subscripts, strict=False)):
        distinct = "".join(dict.fromkeys(letters))
        operands = [grad] + [t for j, t in enumerate(op.inputs) if j != k]
        letters_of = [output] + [s for j, s in enumerate(subscripts) if j != k]
        if set(letters) - set("".join(letters_of)):  # an index summed within this operand alone
            operands.append(ones_like(tensor))
            letters_of.append(letters)
        local = _einsum(",".join(letters_of) + "->" + distinct, operands, broadcast=True)
        if distinct != letters:
            local = _onto_diagonals(local, distinct, letters, tensor, op)
        results.append(_unbroadcast(local, tensor))
    return results


def _onto_diagonals(
    local: Tensor, distinct: str, letters: str, tensor: Tensor, op: Operation
) -> Tensor:
    """The gradient of a diagonal (``'lli'``): ``local`` (``'li'``) placed on the diagonal,
    ``local[l, i] * eye[l, m]`` as ``'lmi'``, one identity per repeated index."""
    used = set(op.attrs["equation"])
    fresh = iter(c for c in string.ascii_letters if c not in used)
    assert tensor.shape is not None  # einsum operands have known ranks
    spelled, seen, factors, factor_letters = "", set(), [], []
    for position, letter in enumerate(letters):
        if letter not in seen:
            seen.add(letter)
            spelled += letter
            continue
        size = tensor.shape[position]
        if size is None:
            raise ShapeError(
                f"symgrad: gradients: einsum {op.attrs['equation']!r} repeats index {letter!r} "
                f"of '{tensor.name}', whose size is unknown; give it a static size"
            )
        other = next(fresh)
        spelled += other
        factors.append(eye(size, dtype=tensor.dtype))
        factor_letters.append(letter + other)
    equation = ",".join([distinct, *factor_letters]) + "->" + spelled
    return _einsum(equation, [local, *factors], broadcast=True)


def _unbroadcast(local: Tensor, tensor: Tensor) -> Tensor:
    """Sum the axes along which ``tensor`` (size 1) was broadcast under '...'."""
    if local.shape is None or tensor.shape is None:
        return local
    axes = [
        i
        for i, (got, want) in enumerate(zip(local.shape, tensor.shape, strict=False))
        if want == 1 and got != 1
    ]
    return reduce_sum(local, axis=axes, keepdims=True) if axes else local


def trace(x: Any, name: str | None = None) -> Tensor:
    """The sum of the main diagonal of the matrices of the last two axes (TF1's ``tf.trace``,
    ``linalg.trace``): a batch of them gives one sum each, and a matrix that is not square sums
    its ``min(rows, columns)`` diagonal entries, as TF does.

    >>> import symgrad as sg, numpy as np
    >>> with sg.Graph().as_default():
    ...     f = sg.compile(sg.trace(sg.constant(np.arange(9.0).reshape(3, 3))))
    ...     g = sg.compile(sg.linalg.trace(sg.constant(np.arange(12.0).reshape(2, 2, 3))))
    >>> float(f()), g().tolist()
    (12.0, [4.0, 16.0])
    """
    x = convert_to_tensor(x)
    if x.shape is not None and len(x.shape) < 2:
        raise ShapeError(
            f"symgrad: Trace: '{x.name}' {format_shape(x.shape)} needs at least two axes"
        )
    if x.shape is not None and x.shape[-1] is not None and x.shape[-1] == x.shape[-2]:
        return einsum("...ii->...", x, name=name or "Trace")
    # Not square, of sizes or a rank known only when run: the diagonal's sum, as in TF.
    return reduce_sum(matrix_diag_part(x), axis=-1, name=name or "Trace")


def _einsum_signature(op: Operation, sigs: Sequence[Any]) -> Any:
    subscripts, output = op.attrs["equation"].split("->")
    found: dict = {}
    for sig, letters in zip(sigs, subscripts.split(","), strict=False):
        for letter, dim in zip(letters, sig, strict=False):
            if isinstance(dim, int) and dim != 1 or letter not in found:
                found[letter] = dim
    return tuple(found[c] for c in output)


register(
    OpDef(
        "Einsum",
        lower=lambda op, xs: EinsumNode(Literal(repr(op.attrs["equation"])), *xs),
        gradient=_einsum_gradient,
        signature=_einsum_signature,
    )
)


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> Tensor:
    """Sum products over ``axes`` (an int: the last n of a with the first n of b; or two lists)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.shape is None or b.shape is None:
        raise ShapeError("symgrad: Tensordot: operands need known ranks")
    if isinstance(axes, int):
        axes_a, axes_b = list(range(len(a.shape) - axes, len(a.shape))), list(range(axes))
    else:
        axes_a, axes_b = (
            [axes[0]] if isinstance(axes[0], int) else list(axes[0]),
            [axes[1]] if isinstance(axes[1], int) else list(axes[1]),
        )
    if len(axes_a) != len(axes_b):
        raise ShapeError(
            f"symgrad: Tensordot: axes {axes!r} pair {len(axes_a)} axes with {len(axes_b)}"
        )
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sub_a = [next(letters) for _ in a.shape]
    sub_b = [next(letters) for _ in b.shape]
    for i, j in zip(axes_a, axes_b, strict=False):
        sub_b[j % len(b.shape)] = sub_a[i % len(a.shape)]
    contracted = {sub_a[i % len(a.shape)] for i in axes_a}
    output = [c for c in sub_a if c not in contracted] + [c for c in sub_b if c not in contracted]
    return einsum(f"{''.join(sub_a)},{''.join(sub_b)}->{''.join(output)}", a, b, name=name)


def matvec(a: Any, b: Any, transpose_a: bool = False, name: str | None = None) -> Tensor:
    """Matrix times vector over the last axes: ``matmul(a, b[..., None])[..., 0]``."""
    return squeeze(matmul(a, expand_dims(b, -1), transpose_a=transpose_a), -1, name=name)


_VECTOR_NORMS = ("euclidean", 1, 2, np.inf)
_MATRIX_NORMS = ("euclidean", "fro", 1, 2, np.inf)


def _norm_axes(axis: Any) -> tuple[tuple[int, ...] | None, bool]:
    """``norm``'s ``axis`` as a tuple of axes (None for all) and whether it names a matrix."""
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        first, second = axis
        if not isinstance(first, (int, np.integer)) or not isinstance(second, (int, np.integer)):
            raise InvalidArgumentError(f"symgrad: norm: axis {axis!r} must hold two integers")
        if first == second:
            raise InvalidArgumentError(f"symgrad: norm: the two axes of {axis!r} are the same")
        return (int(first), int(second)), True
    if axis is None:
        return None, False
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return (int(axis),), False
    raise InvalidArgumentError(
        f"symgrad: norm: axis {axis!r} must be None, an integer or a pair of integers"
    )


def norm(
    tensor: Any,
    ord: Any = "euclidean",
    axis: Any = None,
    keepdims: bool | None = None,
    name: str | None = None,
    keep_dims: bool | None = None,
) -> Tensor:
    """TF1's ``tf.norm``: the vector norm over ``axis`` (all entries if None), or the matrix
    norm over a pair of axes; ``ord`` is ``"euclidean"``, a positive p or ``np.inf`` (and
    ``"fro"`` for matrices). As in TF the Euclidean norm is ``sqrt(sum(x * x))``, so its
    gradient at a zero vector is NaN.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.constant([[3.0, -4.0], [0.0, 1.0]])
    ...     rows, matrix = sg.compile([sg.norm(x, axis=1), sg.norm(x, ord=1, axis=[0, 1])])()
    >>> print(rows, matrix)
    [5. 1.] 5.0
    """
    if keepdims is not None and keep_dims is not None:
        raise InvalidArgumentError("symgrad: norm: give keepdims or keep_dims, not both")
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes, is_matrix = _norm_axes(axis)
    if is_matrix:
        if ord not in _MATRIX_NORMS or isinstance(ord, bool):
            raise InvalidArgumentError(
                f"symgrad: norm: ord {ord!r} is not a matrix norm; use 'euclidean', 'fro', 1 or "
                f"np.inf"
            )
        if ord == 2:
            raise InvalidArgumentError(
                "symgrad: norm: the matrix 2-norm needs singular values, which symgrad does not "
                "compute; use ord='fro' (an upper bound) or compute it with NumPy outside the graph"
            )
    elif ord not in _VECTOR_NORMS and not (
        isinstance(ord, (int, float, np.integer, np.floating))
        and not isinstance(ord, bool)
        and ord > 0
    ):
        raise InvalidArgumentError(
            f"symgrad: norm: ord {ord!r} is not a vector norm; use 'euclidean', a positive "
            f"number or np.inf"
        )
    with get_default_graph().name_scope(name or "norm"):
        x = convert_to_tensor(tensor)
        # TF reduces with keepdims and squeezes the axes afterwards; reducing every axis with
        # keepdims=False gives the same values for any rank, also an unknown one.
        keep_now = keep if axes is None else True
        if ord in ("euclidean", "fro") or (ord == 2 and not is_matrix):
            result = sqrt(reduce_sum(multiply(x, x), axes, keepdims=keep_now))
        elif is_matrix and axes is not None:
            # ord 1: the largest column sum; ord inf: the largest row sum.
            rows, columns = axes if ord == 1 else axes[::-1]
            result = reduce_max(reduce_sum(abs(x), rows, keepdims=True), columns, keepdims=True)
        elif ord == 1:
            result = reduce_sum(abs(x), axes, keepdims=keep_now)
        elif ord == np.inf:
            result = reduce_max(abs(x), axes, keepdims=keep_now)
        else:
            result = pow(reduce_sum(pow(abs(x), ord), axes, keepdims=keep_now), 1.0 / ord)
        if axes is not None and not keep:
            result = squeeze(result, list(axes))
    return result


# --- the Q factor of a QR decomposition (the orthogonal initializer's) ----------------------------


def qr_q(a: Any, name: str | None = None) -> Tensor:
    """The ``Q`` of the reduced QR decomposition of the matrix ``a`` (``[m, n]``, ``m >= n``):
    ``m × n`` with orthonormal columns, as NumPy's ``linalg.qr`` (LAPACK's Householder QR)
    computes it; ``Qᵀ a`` is then the upper triangular ``R``. No gradient (TF's
    ``orthogonal_initializer`` is its use).

    >>> import numpy as np
    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     q = sg.compile(qr_q(sg.constant([[3.0, 1.0], [4.0, 2.0], [0.0, 2.0]])))()
    >>> np.allclose(q.T @ q, np.eye(2)), q.shape
    (True, (3, 2))
    """
    x = convert_to_tensor(a)
    if not x.dtype.is_floating:
        raise DTypeError(f"symgrad: Qr: '{x.name}' must be floating point, got {x.dtype.name}")
    if x.shape is None or len(x.shape) != 2 or None in x.shape or x.shape[0] < x.shape[1]:
        raise ShapeError(
            f"symgrad: Qr: '{x.name}' must be a matrix of static shape [m, n] with m >= n, "
            f"got shape {format_shape(x.shape)}"
        )
    with x.graph.default_names({"QrQ": "Qr"}):  # TF1's op name; code names it by its kind
        op = x.graph.create_op("QrQ", [x], {}, [(tuple(x.shape), x.dtype)], name=name)
    return op.outputs[0]


class QrQ(_Structural):
    """``np.linalg.qr(a)[0]``: the Q of the reduced QR decomposition (the array API's
    ``linalg.qr`` gives the same pair)."""


register(OpDef("QrQ", lower=lambda op, xs: QrQ(xs[0]), gradient=None))
