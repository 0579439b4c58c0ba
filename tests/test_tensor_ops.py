"""Table-driven property tests of symgrad's tensor ops (reductions, matrix products, shape ops,
slicing, gather, tensors made from shapes, softmax and the losses), in float64.

Every row of ``ROWS`` names an op/configuration: the symgrad builder, a NumPy reference,
and its inputs (a placeholder's static shape, ``None`` dims included, the shape of the
array fed, and a sampler of values). Each case builds

    loss = sum_k reduce_sum(output_k * R_k)

with ``R_k`` a fixed random weight array of output k's shape (ops such as ``split`` and
``unstack`` have several outputs), compiles the outputs, the loss and ``sg.gradients(loss,
inputs)`` for every float input, and checks

* the output's static shape agrees with the reference (known dims must match);
* the value (shape, dtype, numbers to rtol 1e-12) against NumPy, and the loss;
* every gradient: present (``None`` only where TF gives none, e.g. the labels of the
  v1 cross-entropy), of its input's shape, float64, finite, and its directional
  derivative ``sum(grad * v)`` in a random direction ``v`` equal to the central
  difference ``(L(x + h v) - L(x - h v)) / 2h`` of the compiled loss.

Samplers keep points away from kinks and ties (distinct values for max/min); reduce_prod
also gets rows with exact zeros (a polynomial, so finite differences hold there).

Then: special cases with exact numbers (ties of max/min, zeros in reduce_prod, repeated
gather indices, logits of +-1000), second derivatives (Hessian-vector products,
``sg.hessians``), and error messages (type and key words).

Cases where symgrad is wrong are kept and marked ``xfail(strict=True)`` via ``KNOWN_BUGS``.
Every case seeds its own ``np.random.default_rng`` from its id.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

import symgrad as sg
from tests.test_elementwise_gradients import (
    Arg,
    H,
    _check_directional,
    _check_gradient_array,
    _check_value,
    _check_vector,
    _f64,
    _rng,
    _weights,
    arg,
    nonzero,
    real,
)

Array = np.ndarray
Elementwise = Callable[[np.random.Generator, tuple[int, ...]], Array]


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Input:
    """A placeholder (static shape, fed shape) and a sampler of the array fed to it."""

    arg: Arg
    sample: Elementwise

    @property
    def label(self) -> str:
        return self.arg.label


def F(static: Any, feed: Sequence[int] | None = None, sample: Elementwise = real()) -> Input:
    """A float64 input."""
    return Input(arg(static, feed), sample)


def I(values: Any, static: Any = "feed") -> Input:
    """An int32 input with fixed values (``static``: the placeholder's shape, default the fed one)."""
    array = np.asarray(values, dtype=np.int32)
    return Input(
        arg(list(array.shape) if static == "feed" else static, array.shape),
        lambda rng, shape: array.copy(),
    )


def distinct(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
    """Values in about [-n/8, n/8], pairwise at least 0.15 apart (no ties for max/min)."""
    n = int(np.prod(shape, dtype=np.int64))
    grid = rng.permutation(n) * 0.25 - 0.125 * n + rng.uniform(-0.05, 0.05, size=n)
    return _f64(grid.reshape(shape))


def simplex(axis: int = -1) -> Elementwise:
    """Positive values summing to 1 along ``axis`` (soft labels)."""

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
        x = rng.uniform(0.1, 1.0, size=shape)
        return _f64(x / np.sum(x, axis=axis, keepdims=True))

    return sample


def unit(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
    """Probabilities away from 0 and 1 (sigmoid labels)."""
    return _f64(rng.uniform(0.05, 0.95, size=shape))


def with_zeros(count: int) -> Elementwise:
    """Values in +-[0.5, 1.5] with ``count`` exact zeros (reduce_prod is a polynomial: smooth there)."""

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
        x = nonzero(0.5, 1.5)(rng, shape).ravel()
        x[rng.choice(x.size, size=count, replace=False)] = 0.0
        return _f64(x.reshape(shape))

    return sample


# --- rows -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    name: str
    build: Callable[..., Any]  # symgrad tensors -> tensor, or list of tensors
    reference: Callable[..., Any]  # NumPy arrays -> array, or list of arrays
    inputs: tuple[Input, ...]
    nograd: tuple[int, ...] = field(default=())  # float inputs whose gradient is None (as in TF)


ROWS: list[Row] = []


def row(
    op: str,
    build: Callable[..., Any],
    reference: Callable[..., Any],
    *inputs: Input,
    config: str = "",
    nograd: tuple[int, ...] = (),
) -> None:
    labels = ",".join(i.label for i in inputs)
    ROWS.append(
        Row(
            f"{op}({labels}{';' + config if config else ''})",
            build,
            reference,
            tuple(inputs),
            nograd,
        )
    )


# reductions ---------------------------------------------------------------------------------


def _np_logsumexp(x: Array, axis: Any = None, keepdims: bool = False) -> Array:
    return np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))


def _numpy_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """symgrad's reduction kwargs as NumPy's (a list of axes becomes a tuple)."""
    axis = kwargs.get("axis")
    return {
        "axis": tuple(axis) if isinstance(axis, list) else axis,
        "keepdims": kwargs.get("keepdims", False),
    }


REDUCTIONS = {
    "reduce_sum": (sg.reduce_sum, np.sum, real()),
    "reduce_mean": (sg.reduce_mean, np.mean, real()),
    "reduce_max": (sg.reduce_max, np.max, distinct),
    "reduce_min": (sg.reduce_min, np.min, distinct),
    "reduce_prod": (sg.reduce_prod, np.prod, nonzero(0.5, 1.5)),
    "reduce_logsumexp": (sg.reduce_logsumexp, _np_logsumexp, real()),
}
REDUCTION_CONFIGS: list[tuple[str, dict[str, Any], list[tuple[Any, Any]]]] = [
    # (label, kwargs, [(static shape, fed shape)])
    ("axis=None", {}, [([2, 3, 4], None), ([None, 3], [4, 3]), ([5], None)]),
    ("axis=1", {"axis": 1}, [([2, 3, 4], None), ([None, 3], [4, 3])]),
    ("axis=0", {"axis": 0}, [([None, 3], [4, 3])]),
    ("axis=-1", {"axis": -1}, [([2, 3, 4], None)]),
    ("axis=[0,2]", {"axis": [0, 2]}, [([2, 3, 4], None)]),
    ("axis=[-1,0]", {"axis": [-1, 0]}, [([2, 3, 4], None)]),
    ("axis=0,keepdims", {"axis": 0, "keepdims": True}, [([2, 3, 4], None), ([None, 3], [4, 3])]),
    ("axis=[1,2],keepdims", {"axis": [1, 2], "keepdims": True}, [([2, 3, 4], None)]),
    ("axis=-2,keepdims", {"axis": -2, "keepdims": True}, [([2, 3, 4], None)]),
    ("axis=None,keepdims", {"keepdims": True}, [([2, 3, 4], None)]),
    ("axis=None", {}, [(None, [4, 3])]),  # unknown rank
    ("axis=None,keepdims", {"keepdims": True}, [(None, [4, 3])]),
    ("axis=1,keepdims", {"axis": 1, "keepdims": True}, [([None, None], [4, 3])]),
]
for _name, (_ours, _theirs, _sampler) in REDUCTIONS.items():
    for _label, _kwargs, _shapes in REDUCTION_CONFIGS:
        _np_kwargs = _numpy_kwargs(_kwargs)
        for _static, _feed in _shapes:
            row(
                _name,
                lambda x, f=_ours, k=_kwargs: f(x, **k),
                lambda x, f=_theirs, k=_np_kwargs: f(x, **k),
                F(_static, _feed, _sampler),
                config=_label,
            )

# reduce_prod with exact zeros (a polynomial: smooth there, so finite differences hold)
for _label, _kwargs, _static, _zeros in [
    ("axis=None", {}, [2, 3], 1),
    ("axis=1", {"axis": 1}, [3, 4], 3),
    ("axis=1", {"axis": 1}, [2, 3, 4], 6),
    ("axis=[0,2],keepdims", {"axis": [0, 2], "keepdims": True}, [2, 3, 4], 5),
]:
    _np_kwargs = _numpy_kwargs(_kwargs)
    row(
        "reduce_prod",
        lambda x, k=_kwargs: sg.reduce_prod(x, **k),
        lambda x, k=_np_kwargs: np.prod(x, **k),
        F(_static, sample=with_zeros(_zeros)),
        config=f"{_label},zeros={_zeros}",
    )


# matmul, tensordot, einsum, matvec ----------------------------------------------------------


def _t(x: Array, flag: bool) -> Array:
    return np.swapaxes(x, -1, -2) if flag else x


for _a, _b, _ta, _tb in [
    ([3, 4], [4, 5], False, False),
    ([4, 3], [4, 5], True, False),
    ([3, 4], [5, 4], False, True),
    ([4, 3], [5, 4], True, True),
    ([2, 3, 4], [2, 4, 5], False, False),
    ([2, 4, 3], [2, 5, 4], True, True),
    ([2, 3, 4], [2, 5, 4], False, True),
    ([2, 3, 4], [4, 5], False, False),
    ([2, 4, 3], [5, 4], True, True),
    ([3, 4], [2, 4, 5], False, False),
    ([1, 3, 4], [2, 4, 5], False, False),
    ([2, 1, 3, 4], [3, 4, 5], False, False),
]:
    row(
        "matmul",
        lambda a, b, ta=_ta, tb=_tb: sg.matmul(a, b, transpose_a=ta, transpose_b=tb),
        lambda a, b, ta=_ta, tb=_tb: np.matmul(_t(a, ta), _t(b, tb)),
        F(_a),
        F(_b),
        config=f"ta={int(_ta)},tb={int(_tb)}",
    )
row("matmul", sg.matmul, np.matmul, F([None, 4], [6, 4]), F([4, 5]))
row("matmul", sg.matmul, np.matmul, F([None, 3, 4], [2, 3, 4]), F([4, 5]))
row(
    "matmul",
    lambda a, b: sg.matmul(a, b, transpose_a=True),
    lambda a, b: a.T @ b,
    F([None, 3], [4, 3]),
    F([None, 2], [4, 2]),
    config="ta=1",
)
row("a@b", lambda a, b: a @ b, np.matmul, F([3, 4]), F([4, 2]))
row("matmul", sg.matmul, np.matmul, F([None, None], [3, 4]), F([None, None], [4, 2]))

for _a, _b, _axes in [
    ([3, 4], [4, 5], 1),
    ([2, 3, 4], [3, 4, 5], 2),
    ([2, 3], [4], 0),
    ([4, 3], [5, 4], [[0], [1]]),
    ([3, 4, 2], [4, 3, 5], ([1, 0], [0, 1])),
    ([None, 4], [4, 5], 1),
]:
    row(
        "tensordot",
        lambda a, b, ax=_axes: sg.tensordot(a, b, ax),
        lambda a, b, ax=_axes: np.tensordot(a, b, ax),
        F(_a, [3 if d is None else d for d in _a]),
        F(_b),
        config=f"axes={_axes}".replace(" ", ""),
    )

for _equation, _shapes in [
    ("ij,jk->ik", [[3, 4], [4, 2]]),
    ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]]),
    ("ij->j", [[3, 4]]),
    ("i,i->", [[5], [5]]),
    ("ij,j->i", [[3, 4], [4]]),
    ("ij->ji", [[3, 4]]),
]:
    row(
        f"einsum[{_equation}]",
        lambda *xs, e=_equation: sg.einsum(e, *xs),
        lambda *xs, e=_equation: np.einsum(e, *xs),
        *(F(s) for s in _shapes),
    )
row(
    "einsum[ij,jk->ik]",
    lambda a, b: sg.einsum("ij,jk->ik", a, b),
    lambda a, b: a @ b,
    F([None, 4], [3, 4]),
    F([4, 2]),
)

for _a, _b, _ta in [
    ([3, 4], [4], False),
    ([2, 3, 4], [2, 4], False),
    ([4, 3], [4], True),
    ([2, 3, 4], [4], False),
]:
    row(
        "linalg.matvec",
        lambda a, b, ta=_ta: sg.linalg.matvec(a, b, transpose_a=ta),
        lambda a, b, ta=_ta: np.matmul(_t(a, ta), b[..., None])[..., 0],
        F(_a),
        F(_b),
        config=f"ta={int(_ta)}",
    )
row("linalg.matvec", sg.linalg.matvec, lambda a, b: a @ b, F([None, 4], [3, 4]), F([4]))


# shape ops -----------------------------------------------------------------------------------

for _static, _feed, _shape in [
    ([2, 3, 4], None, [6, 4]),
    ([2, 3, 4], None, [-1]),
    ([2, 3, 4], None, [4, -1]),
    ([2, 3, 4], None, [2, -1, 2]),
    ([1], None, []),
    ([], None, [1, 1]),
    ([None, 3], [4, 3], [-1]),
    ([None, 3], [4, 3], [-1, 6]),
    ([None, 3], [4, 3], [-1, 3, 1]),
    ([None, 3], [4, 3], [3, -1]),
    (None, [4, 3], [-1]),
    (None, [4, 3], [2, 6]),
]:
    row(
        "reshape",
        lambda x, s=_shape: sg.reshape(x, s),
        lambda x, s=_shape: np.reshape(x, s),
        F(_static, _feed),
        config=f"shape={_shape}".replace(" ", ""),
    )

for _static, _feed, _perm in [
    ([2, 3, 4], None, None),
    ([2, 3, 4], None, [1, 0, 2]),
    ([2, 3, 4], None, [2, 0, 1]),
    ([3, 4], None, None),
    ([None, 3], [5, 3], None),
    ([None, 3, 4], [2, 3, 4], [0, 2, 1]),
    ([None, None], [5, 3], None),
]:
    row(
        "transpose",
        lambda x, p=_perm: sg.transpose(x, p),
        lambda x, p=_perm: np.transpose(x, p),
        F(_static, _feed),
        config=f"perm={_perm}".replace(" ", ""),
    )

for _static, _feed, _axis in [
    ([2, 3], None, 0),
    ([2, 3], None, 1),
    ([2, 3], None, 2),
    ([2, 3], None, -1),
    ([2, 3], None, -3),
    ([None, 3], [4, 3], 1),
    ([], None, 0),
]:
    row(
        "expand_dims",
        lambda x, a=_axis: sg.expand_dims(x, a),
        lambda x, a=_axis: np.expand_dims(x, a),
        F(_static, _feed),
        config=f"axis={_axis}",
    )

for _static, _feed, _axis in [
    ([2, 1, 3, 1], None, None),
    ([2, 1, 3, 1], None, 1),
    ([2, 1, 3, 1], None, [1, 3]),
    ([2, 1, 3, 1], None, -1),
    ([None, 1, 3], [4, 1, 3], 1),
    ([1], None, None),
]:
    row(
        "squeeze",
        lambda x, a=_axis: sg.squeeze(x, a),
        lambda x, a=_axis: np.squeeze(x, tuple(a) if isinstance(a, list) else a),
        F(_static, _feed),
        config=f"axis={_axis}".replace(" ", ""),
    )

for _inputs, _axis in [
    ([F([2, 3]), F([4, 3])], 0),
    ([F([2, 3]), F([2, 5])], 1),
    ([F([2, 1]), F([2, 3]), F([2, 2])], -1),
    ([F([2, 3, 4]), F([2, 1, 4])], 1),
    ([F([None, 3], [2, 3]), F([None, 3], [4, 3])], 0),  # along an axis of unknown size
    ([F([None, 3], [2, 3]), F([2, 3])], 0),
    ([F([None, 3], [2, 3]), F([None, 3], [1, 3]), F([None, 3], [3, 3])], 0),
    ([F([None, 3], [4, 3]), F([None, 2], [4, 2])], 1),
    ([F([None, None], [4, 3]), F([None, None], [4, 2])], 1),
]:
    row(
        "concat",
        lambda *xs, a=_axis: sg.concat(list(xs), a),
        lambda *xs, a=_axis: np.concatenate(xs, a),
        *_inputs,
        config=f"axis={_axis}",
    )

for _inputs, _axis in [
    ([F([2, 3])] * 3, 0),
    ([F([2, 3])] * 3, 1),
    ([F([2, 3])] * 3, 2),
    ([F([2, 3])] * 2, -1),
    ([F([None, 3], [4, 3])] * 2, 1),
    ([F([])] * 3, 0),
]:
    row(
        "stack",
        lambda *xs, a=_axis: sg.stack(list(xs), a),
        lambda *xs, a=_axis: np.stack(xs, a),
        *_inputs,
        config=f"axis={_axis}",
    )

for _static, _feed, _axis in [
    ([3, 2], None, 0),
    ([2, 3, 4], None, 1),
    ([2, 3, 4], None, -1),
    ([None, 3], [4, 3], 1),
]:
    row(
        "unstack",
        lambda x, a=_axis: sg.unstack(x, axis=a),
        lambda x, a=_axis: list(np.moveaxis(x, a, 0)),
        F(_static, _feed),
        config=f"axis={_axis}",
    )

for _static, _feed, _split, _axis in [
    ([2, 6], None, 3, 1),
    ([6, 2], None, 2, 0),
    ([2, 6], None, [1, 2, 3], 1),
    ([5, 3], None, [2, -1], 0),
    ([2, 6], None, [4, 2], -1),
    ([None, 6], [3, 6], 2, 1),
    ([None, 3], [4, 3], [1, 2], 1),
    ([None, 3], [4, 3], [1, 3], 0),
    ([None, 3], [4, 3], [1, -1], 0),  # sizes along the unknown axis
]:
    _size = (_feed or _static)[_axis]
    _sizes = (
        [_size // _split] * _split
        if isinstance(_split, int)
        else [_size - (sum(_split) + 1) if s == -1 else s for s in _split]
    )
    _points = np.cumsum(_sizes)[:-1]
    row(
        "split",
        lambda x, s=_split, a=_axis: sg.split(x, s, axis=a),
        lambda x, p=tuple(int(q) for q in _points), a=_axis: np.split(x, p, axis=a),
        F(_static, _feed),
        config=f"{_split},axis={_axis}".replace(" ", ""),
    )

for _static, _feed, _multiples in [
    ([2, 3], None, [2, 1]),
    ([2, 3], None, [1, 3]),
    ([2, 3], None, [2, 2]),
    ([2, 1, 3], None, [1, 4, 2]),
    ([None, 3], [2, 3], [2, 1]),
    ([3], None, [4]),
    ([None, None], [2, 3], [2, 3]),
]:
    row(
        "tile",
        lambda x, m=_multiples: sg.tile(x, m),
        lambda x, m=_multiples: np.tile(x, m),
        F(_static, _feed),
        config=f"multiples={_multiples}".replace(" ", ""),
    )

for _static, _shape in [
    ([3], [2, 3]),
    ([2, 1], [2, 3]),
    ([1, 3], [4, 2, 3]),
    ([], [2, 3]),
    ([2, 3], [2, 3]),
    ([2, 1, 3], [2, 4, 3]),
]:
    row(
        "broadcast_to",
        lambda x, s=_shape: sg.broadcast_to(x, s),
        lambda x, s=_shape: np.broadcast_to(x, s),
        F(_static),
        config=f"shape={_shape}".replace(" ", ""),
    )


# gather ----------------------------------------------------------------------------------------

for _params, _indices, _axis in [
    (F([5, 3]), I([0, 2, 4]), 0),
    (F([5, 3]), I([1, 1, 3, 1]), 0),  # repeated indices: their gradients add up
    (F([5, 3]), I([[0, 1], [1, 4]]), 0),  # 2-D indices
    (F([3, 5]), I([4, 0, 4]), 1),
    (F([3, 5]), I([[0, 4, 2], [1, 1, 3]]), 1),
    (F([2, 3, 5]), I([4, 4, 0]), -1),
    (F([None, 3], [5, 3]), I([0, 4, 4]), 0),
    (F([5, 3]), I([3, 0, 3], static=[None]), 0),
    (F([5]), I([[0, 1], [4, 4]]), 0),
    (F([5, 3]), I(2), 0),  # a scalar index drops the axis
]:
    row(
        "gather",
        lambda p, i, a=_axis: sg.gather(p, i, axis=a),
        lambda p, i, a=_axis: np.take(p, i, axis=a),
        _params,
        _indices,
        config=f"axis={_axis}",
    )
row(
    "gather",
    lambda p: sg.gather(p, np.array([2, 2, 0])),
    lambda p: np.take(p, [2, 2, 0], axis=0),
    F([4, 2]),
    config="indices=const[2,2,0]",
)


# slicing ------------------------------------------------------------------------------------------

SLICES: list[tuple[str, Any]] = [
    ("x[1:3]", np.s_[1:3]),
    ("x[:,::2]", np.s_[:, ::2]),
    ("x[-1]", np.s_[-1]),
    ("x[...,0]", np.s_[..., 0]),
    ("x[:,None,1:]", np.s_[:, None, 1:]),
    ("x[::-1]", np.s_[::-1]),
    ("x[1,2]", np.s_[1, 2]),
    ("x[3:0:-2]", np.s_[3:0:-2]),
    ("x[-3:-1,1]", np.s_[-3:-1, 1]),
    ("x[None]", np.s_[None]),
]
for _text, _key in SLICES:
    row(_text, lambda x, k=_key: x[k], lambda x, k=_key: x[k], F([4, 5]))
for _text, _key in [
    ("x[1:3]", np.s_[1:3]),
    ("x[::-1]", np.s_[::-1]),
    ("x[:,::2]", np.s_[:, ::2]),
    ("x[-1]", np.s_[-1]),
    ("x[...,0]", np.s_[..., 0]),
    ("x[:,None,1:]", np.s_[:, None, 1:]),
]:
    row(_text, lambda x, k=_key: x[k], lambda x, k=_key: x[k], F([None, 5], [4, 5]))
for _text, _key in [
    ("x[...,0]", np.s_[..., 0]),
    ("x[1:,::-1,None]", np.s_[1:, ::-1, None]),
    ("x[:,1]", np.s_[:, 1]),
    ("x[0,...,1:3]", np.s_[0, ..., 1:3]),
]:
    row(_text, lambda x, k=_key: x[k], lambda x, k=_key: x[k], F([2, 3, 4]))
row(
    "strided_slice",
    lambda x: sg.strided_slice(x, (slice(1, None), 0)),
    lambda x: x[1:, 0],
    F([3, 4]),
    config="key=[1:,0]",
)


# tensors made from shapes, inside differentiable expressions ---------------------------------------

F64 = sg.float64
row("x+zeros", lambda x: x + sg.zeros([2, 3], F64), lambda x: x + 0.0, F([2, 3]))
row(
    "concat(x,zeros)",
    lambda x: sg.concat([x, sg.zeros([2, 2], dtype=F64)], 1),
    lambda x: np.concatenate([x, np.zeros((2, 2))], 1),
    F([2, 3]),
)
row("x*ones*2", lambda x: x * sg.ones([2, 3], F64) * 2.0, lambda x: x * 2.0, F([2, 3]))
row("x+ones", lambda x: x + sg.ones([4, 2, 3], F64), lambda x: x + np.ones((4, 2, 3)), F([2, 3]))
row(
    "matmul(x,ones)",
    lambda x: sg.matmul(x, sg.ones([3, 2], F64)),
    lambda x: x @ np.ones((3, 2)),
    F([2, 3]),
)
row("x*fill", lambda x: x * sg.fill([2, 3], np.float64(2.5)), lambda x: x * 2.5, F([2, 3]))
row(
    "fill-x",
    lambda x: sg.fill([4, 3], np.float64(-1.5)) - x,
    lambda x: np.full((4, 3), -1.5) - x,
    F([3]),
)
row(
    "matmul(x,eye)",
    lambda x: sg.matmul(x, sg.eye(3, dtype=F64)),
    lambda x: x @ np.eye(3),
    F([2, 3]),
)
row("x*eye", lambda x: x * sg.eye(3, dtype=F64), lambda x: x * np.eye(3), F([3, 3]))
row(
    "x+eye(2,3)",
    lambda x: x + sg.eye(2, 3, dtype=F64),
    lambda x: x + np.eye(2, 3),
    F([None, 3], [2, 3]),
)
row(
    "x*cast(range(3))",
    lambda x: x * sg.cast(sg.range(3), F64),
    lambda x: x * np.arange(3.0),
    F([2, 3]),
)
row(
    "x*range(0.5,2,0.5)",
    lambda x: x * sg.range(0.5, 2.0, 0.5, dtype=F64),
    lambda x: x * np.arange(0.5, 2.0, 0.5),
    F([3]),
)
row(
    "x*range(1,4,f64)",
    lambda x: x * sg.range(1, 4, dtype=F64),
    lambda x: x * np.arange(1.0, 4.0),
    F([None, 3], [2, 3]),
)
row(
    "x*one_hot",
    lambda x: x * sg.one_hot([0, 2], 3, dtype=F64),
    lambda x: x * np.eye(3)[[0, 2]],
    F([2, 3]),
)
row(
    "reduce_sum(x*one_hot(i),1)",
    lambda x, i: sg.reduce_sum(x * sg.one_hot(i, 3, dtype=F64), axis=1),
    lambda x, i: x[np.arange(len(i)), i],
    F([None, 3], [4, 3]),
    I([2, 0, 1, 2], static=[None]),
)
row(
    "x*one_hot(on=2,off=-1,axis=0)",
    lambda x: x * sg.one_hot([1, 0], 3, on_value=2.0, off_value=-1.0, axis=0, dtype=F64),
    lambda x: x * np.where(np.arange(3)[:, None] == np.array([1, 0]), 2.0, -1.0),
    F([3, 2]),
)


# nn ----------------------------------------------------------------------------------------------


def _np_softmax(x: Array, axis: int = -1) -> Array:
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _np_log_softmax(x: Array, axis: int = -1) -> Array:
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _np_xent(labels: Array, logits: Array, axis: int = -1) -> Array:
    return -np.sum(labels * _np_log_softmax(logits, axis), axis=axis)


def _np_sigmoid_xent(labels: Array, logits: Array) -> Array:
    return np.maximum(logits, 0.0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


for _static, _feed, _axis in [
    ([3, 4], None, -1),
    ([3, 4], None, 0),
    ([None, 4], [2, 4], -1),
    ([2, 3, 4], None, 1),
    ([5], None, -1),
    ([None, None], [2, 4], -1),
]:
    row(
        "nn.softmax",
        lambda x, a=_axis: sg.nn.softmax(x, axis=a),
        lambda x, a=_axis: _np_softmax(x, a),
        F(_static, _feed, real(-3.0, 3.0)),
        config=f"axis={_axis}",
    )
    row(
        "nn.log_softmax",
        lambda x, a=_axis: sg.nn.log_softmax(x, axis=a),
        lambda x, a=_axis: _np_log_softmax(x, a),
        F(_static, _feed, real(-3.0, 3.0)),
        config=f"axis={_axis}",
    )

for _static, _feed, _axis in [([3, 4], None, -1), ([None, 4], [2, 4], -1), ([3, 4], None, 0)]:
    _labels = F(_static, _feed, simplex(_axis))
    _logits = F(_static, _feed, real(-3.0, 3.0))
    row(
        "nn.softmax_cross_entropy_with_logits_v2",
        lambda y, x, a=_axis: sg.nn.softmax_cross_entropy_with_logits_v2(
            labels=y, logits=x, axis=a
        ),
        lambda y, x, a=_axis: _np_xent(y, x, a),
        _labels,
        _logits,
        config=f"axis={_axis}",
    )
    row(
        "nn.softmax_cross_entropy_with_logits",
        lambda y, x, a=_axis: sg.nn.softmax_cross_entropy_with_logits(labels=y, logits=x, dim=a),
        lambda y, x, a=_axis: _np_xent(y, x, a),
        _labels,
        _logits,
        config=f"dim={_axis}",
        nograd=(0,),
    )

for _labels, _logits in [
    (I([0, 3, 1]), F([3, 4], sample=real(-3.0, 3.0))),
    (I([2, 2, 0, 1, 3], static=[None]), F([None, 4], [5, 4], real(-3.0, 3.0))),
    (I([[0, 1], [2, 2]]), F([2, 2, 3], sample=real(-3.0, 3.0))),
]:
    row(
        "nn.sparse_softmax_cross_entropy_with_logits",
        lambda y, x: sg.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x),
        lambda y, x: -np.take_along_axis(_np_log_softmax(x), y[..., None], axis=-1)[..., 0],
        _labels,
        _logits,
    )

for _static, _feed in [([2, 3], None), ([None, 3], [4, 3]), ([5], None)]:
    row(
        "nn.sigmoid_cross_entropy_with_logits",
        lambda y, x: sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x),
        _np_sigmoid_xent,
        F(_static, _feed, unit),
        F(_static, _feed, nonzero(0.2, 4.0)),
    )
# The loss softplus(x) - x z is smooth at x = 0 (derivative sigmoid(0) - z = 0.5 - z); zero logits are
# common (a zero-initialised last layer), so they get a row of their own.
row(
    "nn.sigmoid_cross_entropy_with_logits",
    lambda y, x: sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x),
    _np_sigmoid_xent,
    F([2, 3], sample=unit),
    F([2, 3], sample=lambda rng, shape: np.zeros(shape)),
    config="logits=0",
)
row(
    "nn.sigmoid_cross_entropy_with_logits",
    lambda y, x: sg.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x),
    _np_sigmoid_xent,
    F([2, 3], sample=unit),
    F([2, 3], sample=with_zeros(2)),
    config="logits_with_zeros",
)

for _static, _feed in [([2, 3], None), ([5], None), ([], None), ([None, 3], [4, 3])]:
    row("nn.l2_loss", sg.nn.l2_loss, lambda x: _f64(np.sum(x * x) / 2), F(_static, _feed))

for _value, _bias in [
    (F([2, 3]), F([3])),
    (F([None, 3], [4, 3]), F([3])),
    (F([2, 3, 4]), F([4])),
    (F([None, 3], [4, 3]), F([None], [3])),
]:
    row("nn.bias_add", sg.nn.bias_add, np.add, _value, _bias)


# --- known symgrad bugs: case id -> reason (strict xfail) ----------------------------------------

KNOWN_BUGS: dict[str, str] = {}  # case id -> reason; none known today

_PARAMETRIZED_IDS: set = set()


def _params(cases: Sequence[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    ids = [case_id for case_id, _ in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"duplicate test ids: {duplicates}"
    _PARAMETRIZED_IDS.update(ids)
    return [
        pytest.param(
            case_id,
            *values,
            id=case_id,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[case_id])]
            if case_id in KNOWN_BUGS
            else [],
        )
        for case_id, values in cases
    ]


def case(case_id: str, *values: Any) -> Any:
    """One hand-written case, marked if it is in KNOWN_BUGS."""
    assert case_id not in _PARAMETRIZED_IDS, case_id
    _PARAMETRIZED_IDS.add(case_id)
    return pytest.param(
        *values,
        id=case_id,
        marks=[pytest.mark.xfail(strict=True, reason=KNOWN_BUGS[case_id])]
        if case_id in KNOWN_BUGS
        else [],
    )


# --- the table-driven check ------------------------------------------------------------------------


def _as_list(value: Any) -> tuple[list[Any], bool]:
    if isinstance(value, (list, tuple)):
        return list(value), True
    return [value], False


def _dtype_of(value: Array) -> Any:
    if value.dtype.kind == "f":
        return sg.float64
    if value.dtype.kind in "iu":
        return sg.int32
    assert value.dtype == np.bool_
    return sg.bool


def _check_static_shape(tensor: Any, expected: tuple[int, ...], what: str) -> None:
    """The static shape must agree with the run-time one wherever it is known (None: unknown rank)."""
    static = tensor.shape
    if static is None:
        return
    assert len(static) == len(expected) and all(
        s is None or s == e for s, e in zip(static, expected, strict=False)
    ), f"{what}: static shape {static}, value shape {expected}"


@pytest.mark.parametrize("case_id, case", _params([(r.name, (r,)) for r in ROWS]))
def test_op(case_id: str, case: Row) -> None:
    rng = _rng(case_id)
    values = [i.sample(rng, i.arg.feed) for i in case.inputs]
    for i, value in zip(case.inputs, values, strict=False):
        assert value.shape == i.arg.feed
    expected_raw, several = _as_list(case.reference(*values))
    expected = [_f64(e) for e in expected_raw]
    weights = [_weights(rng, e.shape) for e in expected]
    floats = [k for k, v in enumerate(values) if v.dtype.kind == "f"]
    wrt = [k for k in floats if k not in case.nograd]
    with sg.Graph().as_default():
        inputs = [
            sg.placeholder(
                _dtype_of(v),
                shape=None if i.arg.static is None else list(i.arg.static),
                name=f"in{k}",
            )
            for k, (i, v) in enumerate(zip(case.inputs, values, strict=False))
        ]
        outputs, built_several = _as_list(case.build(*inputs))
        assert built_several == several and len(outputs) == len(expected), (
            f"{case_id}: built {len(outputs)} outputs, expected {len(expected)}"
        )
        for k, (output, e) in enumerate(zip(outputs, expected, strict=False)):
            assert isinstance(output, sg.Tensor), (
                f"{case_id}: output {k} is a {type(output).__name__}"
            )
            assert output.dtype == sg.float64, f"{case_id}: output {k} dtype {output.dtype}"
            _check_static_shape(output, e.shape, f"{case_id}: output {k}")
        loss = sg.reduce_sum(outputs[0] * weights[0])
        for output, w in zip(outputs[1:], weights[1:], strict=False):
            loss = loss + sg.reduce_sum(output * w)
        grads = sg.gradients(loss, [inputs[k] for k in floats])
        for k, g in zip(floats, grads, strict=False):
            if k in case.nograd:
                assert g is None, f"{case_id}: input {k} should get no gradient, got {g}"
            else:
                assert g is not None, f"{case_id}: no gradient for input {k}"
                _check_static_shape(g, values[k].shape, f"{case_id}: gradient of input {k}")
        compiled = sg.compile(
            [*outputs, loss, *[g for g in grads if g is not None]], inputs=inputs, name=case_id
        )
    results = compiled(*values)
    got, loss_value, grad_values = (
        results[: len(outputs)],
        results[len(outputs)],
        results[len(outputs) + 1 :],
    )
    for k, (g, e) in enumerate(zip(got, expected, strict=False)):
        _check_value(g, e, f"{case_id}: value of output {k}")
    weighted = sum(float(np.sum(np.abs(e * w))) for e, w in zip(expected, weights, strict=False))
    want_loss = sum(float(np.sum(e * w)) for e, w in zip(expected, weights, strict=False))
    np.testing.assert_allclose(
        loss_value, want_loss, rtol=1e-12, atol=1e-12 * weighted, err_msg=f"{case_id}: loss"
    )

    def loss_at(point: Sequence[Array]) -> float:
        return float(compiled(*point)[len(outputs)])

    assert len(grad_values) == len(wrt)
    for k, grad in zip(wrt, grad_values, strict=False):
        what = f"{case_id}: d loss / d input {k}"
        grad = _check_gradient_array(grad, values[k], what)
        direction = _f64(rng.standard_normal(values[k].shape))
        plus, minus = list(values), list(values)
        plus[k] = values[k] + H * direction
        minus[k] = values[k] - H * direction
        _check_directional(
            grad, direction, (loss_at(plus) - loss_at(minus)) / (2 * H), weighted, what
        )


def test_rows_cover_the_requested_ops() -> None:
    """A guard against a table edit that drops an op."""
    names = {r.name.split("(")[0].split("[")[0] for r in ROWS}
    for op in [
        "reduce_sum",
        "reduce_mean",
        "reduce_max",
        "reduce_min",
        "reduce_prod",
        "reduce_logsumexp",
        "matmul",
        "tensordot",
        "einsum",
        "linalg.matvec",
        "reshape",
        "transpose",
        "expand_dims",
        "squeeze",
        "concat",
        "stack",
        "unstack",
        "split",
        "tile",
        "broadcast_to",
        "gather",
        "x",
        "nn.softmax",
        "nn.log_softmax",
        "nn.softmax_cross_entropy_with_logits_v2",
        "nn.softmax_cross_entropy_with_logits",
        "nn.sparse_softmax_cross_entropy_with_logits",
        "nn.sigmoid_cross_entropy_with_logits",
        "nn.l2_loss",
        "nn.bias_add",
    ]:  # losses.mean_squared_error (float32 inside, as TF1): its own test
        assert op in names, op


# --- special cases with exact numbers ---------------------------------------------------------------


def _compile_value_and_grads(
    build: Callable[..., Any],
    values: Sequence[Array],
    weights: Array | None = None,
    dtypes: Sequence[Any] | None = None,
) -> tuple[Any, list[Any], list[Any]]:
    """(value, [gradient tensors (None kept)], [gradient values]) of reduce_sum(build(*inputs) * weights)."""
    values = [np.asarray(v) for v in values]
    with sg.Graph().as_default():
        inputs = [
            sg.placeholder(
                (dtypes or [_dtype_of(v) for v in values])[k], shape=list(v.shape), name=f"in{k}"
            )
            for k, v in enumerate(values)
        ]
        output = build(*inputs)
        loss = sg.reduce_sum(output if weights is None else output * weights)
        floats = [k for k, v in enumerate(values) if v.dtype.kind == "f"]
        grads = sg.gradients(loss, [inputs[k] for k in floats])
        compiled = sg.compile(
            [output, *[g for g in grads if g is not None]], inputs=inputs, name="special"
        )
    value, *grad_values = compiled(*values)
    return value, grads, grad_values


def _exact(got: Any, want: Any, what: str) -> None:
    got = np.asarray(got)
    want = _f64(want)
    assert got.shape == want.shape and got.dtype == np.float64, (
        f"{what}: {got.dtype}{got.shape} vs {want.shape}"
    )
    assert np.all(np.isfinite(got)), f"{what}: not finite: {got}"
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14, err_msg=what)


@pytest.mark.parametrize(
    "build, x, value, grad",
    [
        # reduction, input, value, gradient of reduce_sum(value)
        case(
            "ties max-axis1",
            lambda x: sg.reduce_max(x, axis=1),
            [[1.0, 3.0, 3.0]],
            [3.0],
            [[0.0, 0.5, 0.5]],
        ),
        case(
            "ties max-axis1-keepdims",
            lambda x: sg.reduce_max(x, axis=1, keepdims=True),
            [[1.0, 3.0, 3.0]],
            [[3.0]],
            [[0.0, 0.5, 0.5]],
        ),
        case(
            "ties min-axis1",
            lambda x: sg.reduce_min(x, axis=1),
            [[2.0, 1.0, 1.0, 5.0]],
            [1.0],
            [[0.0, 0.5, 0.5, 0.0]],
        ),
        case(
            "ties max-all-three-way",
            lambda x: sg.reduce_max(x),
            [[3.0, 1.0], [3.0, 3.0]],
            3.0,
            [[1 / 3, 0.0], [1 / 3, 1 / 3]],
        ),
        case(
            "ties min-axis0",
            lambda x: sg.reduce_min(x, axis=0),
            [[1.0, 2.0], [1.0, 0.0]],
            [1.0, 0.0],
            [[0.5, 0.0], [0.5, 1.0]],
        ),
        case(
            "ties max-all-equal",
            lambda x: sg.reduce_max(x, axis=[0, 1]),
            [[4.0, 4.0], [4.0, 4.0]],
            4.0,
            [[0.25, 0.25], [0.25, 0.25]],
        ),
    ],
)
def test_max_min_ties_split_the_gradient(
    build: Callable[..., Any], x: Any, value: Any, grad: Any
) -> None:
    got, _, (got_grad,) = _compile_value_and_grads(build, [_f64(x)])
    _exact(got, value, "value")
    _exact(got_grad, grad, "gradient")


@pytest.mark.parametrize(
    "x, axis, value, grad",
    [
        # input, axis, value, gradient of reduce_sum(value)
        case(
            "prod zeros one-zero-axis1",
            [[2.0, 0.0, 3.0], [1.0, 4.0, 5.0]],
            1,
            [0.0, 20.0],
            [[0.0, 6.0, 0.0], [20.0, 5.0, 4.0]],
        ),
        case(
            "prod zeros two-zeros-axis1", [[0.0, 2.0, 0.0, 3.0]], 1, [0.0], [[0.0, 0.0, 0.0, 0.0]]
        ),
        case(
            "prod zeros one-zero-all",
            [[2.0, 0.0], [3.0, 4.0]],
            None,
            0.0,
            [[0.0, 24.0], [0.0, 0.0]],
        ),
        case(
            "prod zeros two-zeros-all",
            [[2.0, 0.0], [0.0, 4.0]],
            None,
            0.0,
            [[0.0, 0.0], [0.0, 0.0]],
        ),
        case(
            "prod zeros one-zero-per-column-axis0",
            [[0.0, 5.0], [3.0, 0.0], [2.0, 7.0]],
            0,
            [0.0, 0.0],
            [[6.0, 0.0], [0.0, 35.0], [0.0, 0.0]],
        ),
        case(
            "prod zeros two-zeros-one-column",
            [[0.0, 2.0], [0.0, 3.0]],
            0,
            [0.0, 6.0],
            [[0.0, 3.0], [0.0, 2.0]],
        ),
    ],
)
def test_reduce_prod_with_zeros(x: Any, axis: Any, value: Any, grad: Any) -> None:
    """The gradient is the product of the other elements of the slice, zeros included."""
    got, _, (got_grad,) = _compile_value_and_grads(
        lambda t: sg.reduce_prod(t, axis=axis), [_f64(x)]
    )
    _exact(got, value, "value")
    _exact(got_grad, grad, "gradient")


def test_gather_repeated_indices_add_up() -> None:
    params = _f64(np.arange(8.0).reshape(4, 2))
    weights = _f64([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0], [1000.0, 2000.0]])
    indices = np.array([1, 1, 3, 1], dtype=np.int32)
    value, _, (grad,) = _compile_value_and_grads(
        lambda p, i: sg.gather(p, i), [params, indices], weights
    )
    _exact(value, params[[1, 1, 3, 1]], "value")
    # rows 0, 1 and 3 of the weights go to params row 1, weights row 2 to params row 3
    _exact(grad, [[0.0, 0.0], [1011.0, 2022.0], [0.0, 0.0], [100.0, 200.0]], "gradient")
    # along axis 1, with 2-D indices
    params = _f64(np.arange(6.0).reshape(2, 3))
    indices = np.array([[2, 2], [0, 2]], dtype=np.int32)
    weights = _f64(np.arange(1.0, 9.0).reshape(2, 2, 2))
    value, _, (grad,) = _compile_value_and_grads(
        lambda p, i: sg.gather(p, i, axis=1), [params, indices], weights
    )
    _exact(value, np.take(params, indices, axis=1), "value, axis=1")
    # row r: w[r, 0, 0] + w[r, 0, 1] + w[r, 1, 1] at column 2, w[r, 1, 0] at column 0
    _exact(grad, [[3.0, 0.0, 1.0 + 2.0 + 4.0], [7.0, 0.0, 5.0 + 6.0 + 8.0]], "gradient, axis=1")


EXTREME = _f64([[1000.0, 0.0, -1000.0]])
SOFT_LABELS = _f64([[0.2, 0.3, 0.5]])
R3 = _f64([[1.0, 2.0, 3.0]])


_XENT_V2 = sg.nn.softmax_cross_entropy_with_logits_v2
_SPARSE = sg.nn.sparse_softmax_cross_entropy_with_logits
_SIGMOID_XENT = sg.nn.sigmoid_cross_entropy_with_logits


@pytest.mark.parametrize(
    "build, inputs, weights, value, grads",
    [
        # inputs, loss weights, value, [gradient per float input] (None: no gradient, as in TF)
        case(
            "extreme softmax",
            lambda x: sg.nn.softmax(x),
            [EXTREME],
            R3,
            [[1.0, 0.0, 0.0]],
            [[[0.0, 0.0, 0.0]]],
        ),
        # d/dx sum(R * log_softmax(x)) = R - softmax(x) * sum(R)
        case(
            "extreme log_softmax",
            lambda x: sg.nn.log_softmax(x),
            [EXTREME],
            R3,
            [[0.0, -1000.0, -2000.0]],
            [[[-5.0, 2.0, 3.0]]],
        ),
        case(
            "extreme log_softmax-axis0",
            lambda x: sg.nn.log_softmax(x, axis=0),
            [EXTREME.T],
            R3.T,
            [[0.0], [-1000.0], [-2000.0]],
            [[[-5.0], [2.0], [3.0]]],
        ),
        case(
            "extreme reduce_logsumexp",
            lambda x: sg.reduce_logsumexp(x, axis=1),
            [EXTREME],
            None,
            [1000.0],
            [[[1.0, 0.0, 0.0]]],
        ),
        case(
            "extreme reduce_logsumexp-all",
            lambda x: sg.reduce_logsumexp(x),
            [EXTREME],
            None,
            1000.0,
            [[[1.0, 0.0, 0.0]]],
        ),
        # loss 0.3*1000 + 0.5*2000; d/dlabels = -log_softmax; d/dlogits = softmax - labels
        case(
            "extreme xent_v2",
            lambda y, x: _XENT_V2(labels=y, logits=x),
            [SOFT_LABELS, EXTREME],
            None,
            [1300.0],
            [[[0.0, 1000.0, 2000.0]], [[0.8, -0.3, -0.5]]],
        ),
        case(
            "extreme xent_v1",
            lambda y, x: sg.nn.softmax_cross_entropy_with_logits(labels=y, logits=x),
            [SOFT_LABELS, EXTREME],
            None,
            [1300.0],
            [None, [[0.8, -0.3, -0.5]]],
        ),
        case(
            "extreme sparse_xent-1",
            lambda y, x: _SPARSE(labels=y, logits=x),
            [np.array([1], dtype=np.int32), EXTREME],
            None,
            [1000.0],
            [[[1.0, -1.0, 0.0]]],
        ),
        case(
            "extreme sparse_xent-2",
            lambda y, x: _SPARSE(labels=y, logits=x),
            [np.array([2], dtype=np.int32), EXTREME],
            None,
            [2000.0],
            [[[1.0, 0.0, -1.0]]],
        ),
        # max(x, 0) - x z + log(1 + exp(-|x|)); d/dz = -x; d/dx = sigmoid(x) - z
        case(
            "extreme sigmoid_xent",
            lambda y, x: _SIGMOID_XENT(labels=y, logits=x),
            [_f64([[0.2, 0.5]]), _f64([[1000.0, -1000.0]])],
            None,
            [[800.0, 500.0]],
            [[[-1000.0, 1000.0]], [[0.8, -0.5]]],
        ),
        case(
            "zero logits sigmoid_xent",
            lambda y, x: _SIGMOID_XENT(labels=y, logits=x),
            [_f64([[0.3]]), _f64([[0.0]])],
            None,
            [[np.log(2.0)]],
            [[[0.0]], [[0.2]]],
        ),
    ],
)
def test_extreme_logits_stay_finite(
    build: Callable[..., Any],
    inputs: list[Array],
    weights: Array | None,
    value: Any,
    grads: list[Any],
) -> None:
    got, grad_tensors, grad_values = _compile_value_and_grads(build, inputs, weights)
    _exact(got, value, "value")
    expected_present = [g for g in grads if g is not None]
    assert [g is None for g in grad_tensors] == [g is None for g in grads]
    assert len(grad_values) == len(expected_present)
    for k, (got_grad, want) in enumerate(zip(grad_values, expected_present, strict=False)):
        _exact(got_grad, want, f"gradient {k}")


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_cross_entropy_labels_gradient(version: str) -> None:
    """v1 gives no gradient to labels; v2 gives -log_softmax(logits) (times the cotangent)."""
    rng = _rng(f"labels-gradient-{version}")
    labels, logits = simplex()(rng, (3, 4)), real(-3.0, 3.0)(rng, (3, 4))
    weights = _weights(rng, (3,))
    op = (
        sg.nn.softmax_cross_entropy_with_logits
        if version == "v1"
        else sg.nn.softmax_cross_entropy_with_logits_v2
    )
    _, grad_tensors, grad_values = _compile_value_and_grads(
        lambda y, x: op(labels=y, logits=x), [labels, logits], weights
    )
    if version == "v1":
        assert grad_tensors[0] is None and grad_tensors[1] is not None
        (d_logits,) = grad_values
    else:
        assert None not in grad_tensors
        d_labels, d_logits = grad_values
        np.testing.assert_allclose(
            d_labels, -_np_log_softmax(logits) * weights[:, None], rtol=1e-12, atol=1e-14
        )
    np.testing.assert_allclose(
        d_logits, (_np_softmax(logits) - labels) * weights[:, None], rtol=1e-12, atol=1e-14
    )


# --- second order ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scalar:
    """A scalar function of float inputs (its own weights inside) for second-order checks."""

    name: str
    build: Callable[..., Any]
    inputs: tuple[Input, ...]


_RM = _weights(np.random.default_rng(7), (3, 2))
_RS = _weights(np.random.default_rng(8), (2, 4))
_Y = simplex()(np.random.default_rng(9), (2, 4))
HVP_CASES = [
    Scalar(
        "tanh(x@W)",
        lambda x, w: sg.reduce_sum(sg.tanh(sg.matmul(x, w)) * _RM),
        (F([3, 4]), F([4, 2])),
    ),
    Scalar(
        "tanh(x@W^T)",
        lambda x, w: sg.reduce_sum(sg.tanh(sg.matmul(x, w, transpose_b=True)) * _RM),
        (F([3, 4]), F([2, 4])),
    ),
    Scalar(
        "tanh(x@W)[None]",
        lambda x, w: sg.reduce_sum(sg.tanh(sg.matmul(x, w)) * _RM[0]),
        (F([None, 4], [5, 4]), F([4, 2])),
    ),
    Scalar(
        "tanh(bx@W)",
        lambda x, w: sg.reduce_sum(sg.tanh(sg.matmul(x, w)) * _RM),
        (F([2, 3, 4], sample=real(-1.0, 1.0)), F([4, 2])),
    ),
    Scalar("softmax(x)", lambda x: sg.reduce_sum(sg.nn.softmax(x) * _RS), (F([2, 4]),)),
    Scalar(
        "softmax(x,axis=0)", lambda x: sg.reduce_sum(sg.nn.softmax(x, axis=0) * _RS), (F([2, 4]),)
    ),
    Scalar(
        "softmax(x@W)",
        lambda x, w: sg.reduce_sum(sg.nn.softmax(sg.matmul(x, w)) * _RS),
        (F([2, 3]), F([3, 4])),
    ),
    Scalar("log_softmax(x)", lambda x: sg.reduce_sum(sg.nn.log_softmax(x) * _RS), (F([2, 4]),)),
    # w.r.t. the logits, for fixed soft labels (TF's gradient rule softmax - labels holds where labels sum to 1;
    # its derivative along labels directions off that simplex is not the loss's)
    Scalar(
        "xent_v2(Y,x)",
        lambda x: sg.reduce_sum(
            sg.nn.softmax_cross_entropy_with_logits_v2(labels=_Y, logits=x) * _RS[:, 0]
        ),
        (F([2, 4]),),
    ),
    Scalar(
        "xent_v2(Y,x@W)",
        lambda x, w: sg.reduce_sum(
            sg.nn.softmax_cross_entropy_with_logits_v2(labels=_Y, logits=sg.matmul(x, w))
            * _RS[:, 0]
        ),
        (F([2, 3]), F([3, 4])),
    ),
    Scalar(
        "sparse_xent(i,x)",
        lambda x: sg.reduce_sum(
            sg.nn.sparse_softmax_cross_entropy_with_logits(
                labels=np.array([3, 0], dtype=np.int32), logits=x
            )
            * _RS[:, 0]
        ),
        (F([2, 4]),),
    ),
    Scalar(
        "reduce_logsumexp(x,1)",
        lambda x: sg.reduce_sum(sg.reduce_logsumexp(x, axis=1) * _RS[:, 0]),
        (F([2, 4]),),
    ),
    Scalar(
        "reduce_mean(square(x@W))",
        lambda x, w: sg.reduce_mean(sg.square(sg.matmul(x, w))),
        (F([3, 4]), F([4, 2])),
    ),
]


@pytest.mark.parametrize(
    "case_id, case",
    _params([(f"hvp {c.name}({','.join(i.label for i in c.inputs)})", (c,)) for c in HVP_CASES]),
)
def test_hessian_vector_product(case_id: str, case: Scalar) -> None:
    """gradients(sum_k reduce_sum(g_k * v_k), xs) against central differences of the compiled gradients."""
    rng = _rng(case_id)
    values = [i.sample(rng, i.arg.feed) for i in case.inputs]
    directions = [_f64(rng.standard_normal(v.shape)) for v in values]
    with sg.Graph().as_default():
        inputs = [
            sg.placeholder(sg.float64, shape=list(i.arg.static), name=f"in{k}")
            for k, i in enumerate(case.inputs)
        ]
        loss = case.build(*inputs)
        grads = sg.gradients(loss, inputs)
        assert None not in grads
        inner = sg.reduce_sum(grads[0] * directions[0])
        for g, v in zip(grads[1:], directions[1:], strict=False):
            inner = inner + sg.reduce_sum(g * v)
        hvps = sg.gradients(inner, inputs)
        assert None not in hvps
        compiled = sg.compile([*grads, *hvps], inputs=inputs, name=case_id)
    n = len(values)
    results = compiled(*values)
    plus = compiled(*[x + H * v for x, v in zip(values, directions, strict=False)])
    minus = compiled(*[x - H * v for x, v in zip(values, directions, strict=False)])
    for k in range(n):
        gradient = _check_gradient_array(results[k], values[k], f"{case_id}: gradient {k}")
        want = _f64((np.asarray(plus[k]) - np.asarray(minus[k])) / (2 * H))
        _check_vector(results[n + k], want, gradient, f"{case_id}: (H v)_{k}")


_C22 = _f64([[0.5, -1.0], [1.5, 2.0]])
HESSIAN_CASES = [
    ("sum(x**3)", [3], lambda x: sg.reduce_sum(x**3)),
    ("x0*x1**2+sin(x2)", [3], lambda x: x[0] * x[1] ** 2 + sg.sin(x[2])),
    ("logsumexp(x)", [3], lambda x: sg.reduce_logsumexp(x)),
    ("softmax(x).c", [3], lambda x: sg.reduce_sum(sg.nn.softmax(x) * _f64([1.0, -2.0, 0.5]))),
    ("sum(tanh(x@x))", [2, 2], lambda x: sg.reduce_sum(sg.tanh(sg.matmul(x, x)))),
    ("l2_loss(x@C)", [2, 2], lambda x: sg.nn.l2_loss(sg.matmul(x, _C22))),
    ("sum(x*x^T)", [2, 2], lambda x: sg.reduce_sum(x * sg.transpose(x))),
    ("sum(exp(x[:,0])*x[:,1])", [2, 2], lambda x: sg.reduce_sum(sg.exp(x[:, 0]) * x[:, 1])),
]


@pytest.mark.parametrize(
    "case_id, shape, build",
    _params([(f"hessians {n}({'x'.join(map(str, s))})", (s, b)) for n, s, b in HESSIAN_CASES]),
)
def test_hessians(case_id: str, shape: list[int], build: Callable[[Any], Any]) -> None:
    rng = _rng(case_id)
    x = real(-1.0, 1.0)(rng, tuple(shape))
    with sg.Graph().as_default():
        p = sg.placeholder(sg.float64, shape=shape, name="x")
        y = build(p)
        (hessian,) = sg.hessians(y, p)
        (grad,) = sg.gradients(y, p)
        assert tuple(hessian.shape) == tuple(shape) * 2
        compiled = sg.compile([hessian, grad], inputs=[p], name="hessians")
    value, gradient = compiled(x)
    value = np.asarray(value)
    assert value.shape == tuple(shape) * 2 and value.dtype == np.float64
    gradient = _check_gradient_array(gradient, x, f"{case_id}: gradient")
    for index in np.ndindex(*shape):
        e = np.zeros(shape)
        e[index] = 1.0
        want = _f64(
            (np.asarray(compiled(x + H * e)[1]) - np.asarray(compiled(x - H * e)[1])) / (2 * H)
        )
        # column ``index`` of the Hessian: d gradient / d x[index]
        _check_vector(value[(Ellipsis,) + index], want, gradient, f"{case_id}: column {index}")
    flat = value.reshape(x.size, x.size)
    np.testing.assert_allclose(
        flat, flat.T, rtol=1e-12, atol=1e-12, err_msg=f"{case_id}: symmetric"
    )


def test_hessians_of_x_itself_raises() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[3], name="x")
        with pytest.raises(ValueError, match=r"hessians: .*'x:0' does not depend on 'x:0'"):
            sg.hessians(x, x)


# --- error messages -------------------------------------------------------------------------------


def _reshape_bad() -> None:
    sg.reshape(sg.placeholder(sg.float64, shape=[2, 3], name="x"), [4, 2])


def _matmul_bad() -> None:
    sg.matmul(
        sg.placeholder(sg.float64, shape=[2, 3], name="a"),
        sg.placeholder(sg.float64, shape=[4, 5], name="b"),
    )


def _concat_bad() -> None:
    sg.concat(
        [
            sg.placeholder(sg.float64, shape=[2, 3], name="a"),
            sg.placeholder(sg.float64, shape=[2, 4], name="b"),
        ],
        axis=0,
    )


def _reduce_max_bad() -> None:
    sg.reduce_max(sg.placeholder(sg.float64, shape=[2, 3], name="x"), axis=2)


def _reduce_sum_repeated() -> None:
    sg.reduce_sum(sg.placeholder(sg.float64, shape=[2, 3], name="x"), axis=[1, -1])


def _gather_bad() -> None:
    sg.gather(
        sg.placeholder(sg.float64, shape=[4, 3], name="x"),
        sg.constant([0.0, 1.0], dtype=sg.float64),
    )


def _slice_bad() -> None:
    sg.placeholder(sg.float64, shape=[2, 3], name="x")[0, 1, 2]


ERRORS = [
    ("reshape", _reshape_bad, ValueError, ["Reshape", "'x", "(2, 3)", "6 elements", "(4, 2)"]),
    ("matmul", _matmul_bad, ValueError, ["MatMul", "inner dimensions", "(2, 3)", "(4, 5)"]),
    ("concat", _concat_bad, ValueError, ["ConcatV2", "(2, 3)", "(2, 4)", "axis 0"]),
    ("reduce_max-axis", _reduce_max_bad, ValueError, ["Max", "axis 2", "out of range", "rank 2"]),
    ("reduce_sum-repeated-axis", _reduce_sum_repeated, ValueError, ["Sum", "repeats an axis"]),
    ("gather-float", _gather_bad, TypeError, ["GatherV2", "indices", "int32 or int64", "float64"]),
    ("slice-too-many", _slice_bad, ValueError, ["StridedSlice", "too many indices", "(2, 3)"]),
]


@pytest.mark.parametrize(
    "trigger, error, words", [case(f"error {n}", t, e, w) for n, t, e, w in ERRORS]
)
def test_error_messages(trigger: Callable[[], None], error: type, words: list[str]) -> None:
    with sg.Graph().as_default(), pytest.raises(error) as info:
        trigger()
    message = str(info.value)
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"


@pytest.mark.parametrize("trigger", [case(f"is SymgradError: {n}", t) for n, t, _, _ in ERRORS])
def test_errors_are_symgrad_errors(trigger: Callable[[], None]) -> None:
    """errors.py: every error symgrad raises is a SymgradError (and the builtin type)."""
    with sg.Graph().as_default(), pytest.raises(sg.SymgradError):
        trigger()


def test_known_bugs_name_existing_cases() -> None:
    """Every id in KNOWN_BUGS is a parametrized case (a typo would silently un-mark it)."""
    assert sorted(set(KNOWN_BUGS) - _PARAMETRIZED_IDS) == []


@pytest.mark.parametrize("weight", [1.0, 2.5, 0.0])
def test_mean_squared_error_casts_to_float32_like_tf1(weight: float) -> None:
    rng = np.random.default_rng(7)
    labels, predictions = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    with sg.Graph().as_default():
        y = sg.placeholder(sg.float64, [None, 3], name="y")
        p = sg.placeholder(sg.float64, [None, 3], name="p")
        loss = sg.losses.mean_squared_error(y, p, weights=weight)
        value, d_p = sg.compile([loss, sg.gradients(loss, p)[0]])(labels, predictions)
    assert value.dtype == np.float32 and d_p.dtype == np.float64
    np.testing.assert_allclose(value, np.mean((predictions - labels) ** 2) * weight, rtol=1e-6)
    np.testing.assert_allclose(d_p, 2 * (predictions - labels) * weight / 12, rtol=1e-6, atol=1e-7)


def test_second_derivatives_through_reduce_prod_with_zeros() -> None:
    y0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, 3.0], [0.0, 0.0, 2.0]])
    v = np.arange(9.0).reshape(3, 3) - 4
    with sg.Graph().as_default():
        y = sg.placeholder(sg.float64, [3, 3], name="y")
        loss = sg.reduce_sum(sg.reduce_prod(y, axis=1) ** 2 + sg.reduce_prod(y, axis=0))
        grad = sg.gradients(loss, y)[0]
        hvp = sg.gradients(sg.reduce_sum(grad * v), y)[0]
        compiled = sg.compile([grad, hvp])
        hessian = sg.compile(sg.hessians(sg.reduce_prod(y[0]), y)[0])(y0)
    step = 1e-6
    numeric = (compiled(y0 + step * v)[0] - compiled(y0 - step * v)[0]) / (2 * step)
    np.testing.assert_allclose(compiled(y0)[1], numeric, rtol=1e-6, atol=1e-7)
    # d2 (y00*y01*y02) / dy0i dy0j: the third element for i != j, 0 on the diagonal.
    np.testing.assert_allclose(hessian[0, :, 0, :], [[0, 2, -1], [2, 0, 0.5], [-1, 0.5, 0]])
    assert not hessian[1:].any() and not hessian[:, :, 1:].any()


@pytest.mark.parametrize("optimize", [True, False], ids=["fast", "readable"])
def test_reductions_of_an_empty_batch_give_tensorflows_values(optimize: bool) -> None:
    """An empty ``[None]`` feed: TF gives max -inf, min +inf, logsumexp -inf, int32 max
    INT_MIN, mean NaN and an empty mean gradient (TF's _MeanGrad divides by at least 1)."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None], name="x")
        i = sg.placeholder(sg.int32, [None], name="i")
        mean = sg.reduce_mean(x)
        fetches = [
            sg.reduce_max(x),
            sg.reduce_min(x),
            sg.reduce_logsumexp(x),
            sg.reduce_max(i),
            sg.reduce_min(i),
            mean,
            sg.gradients(mean, x)[0],
            sg.gradients(sg.reduce_max(x), x)[0],
        ]
        compiled = sg.compile(fetches, optimize=optimize)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # log(0) and 0/0, as TF computes them
        values = compiled(np.zeros(0, np.float32), np.zeros(0, np.int32))
    top, bottom, logsumexp, int_top, int_bottom, average, d_mean, d_max = values
    assert top == -np.inf and bottom == np.inf and logsumexp == -np.inf
    assert int_top == np.iinfo(np.int32).min and int_bottom == np.iinfo(np.int32).max
    assert np.isnan(average)
    assert d_mean.shape == (0,) and d_max.shape == (0,) and d_mean.dtype == np.float32


# int32 feeds -> [mean, mean over axis 0, mean over axis 1 keeping it], as TF 2.21 gives them
INTEGER_MEANS = [
    ([[1, 2], [-4, -1]], [0, [-1, 0], [[1], [-2]]]),
    (np.zeros((0, 2)), [0, [0, 0], []]),
    ([[2**30, 2**30]] * 2, [2**30, [2**30] * 2, [[2**30]] * 2]),
    ([[7, -7], [-2, -2], [3, 3]], [0, [2, -2], [[0], [-2], [3]]]),
]


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize(("feed", "expected"), INTEGER_MEANS)
def test_the_mean_of_integers_is_tensorflows(form: str, feed: Any, expected: Any) -> None:
    """TF divides the integer sum by the count, rounding toward 0, and gives 0 for no
    elements: a float mean cast back gave INT_MIN there, and the portable form raised (the
    standard's mean takes floats only)."""
    with sg.Graph().as_default():
        i = sg.placeholder(sg.int32, [None, 2], name="i")
        means = [sg.reduce_mean(i), sg.reduce_mean(i, 0), sg.reduce_mean(i, 1, keepdims=True)]
        value = np.asarray(feed, np.int32)
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile(means, [i], backend="array_api")
            value = xps.asarray(value)
        else:
            compiled = sg.compile(means, [i], optimize=form == "fast")
    got = [np.asarray(v) for v in compiled(value)]
    assert [v.tolist() for v in got] == expected
    assert all(v.dtype == np.int32 for v in got)


def test_the_mean_of_int64_wraps_round_as_tensorflows() -> None:
    with sg.Graph().as_default():
        j = sg.placeholder(sg.int64, [None], name="j")
        compiled = sg.compile(sg.reduce_mean(j))
    # TF 2.21: the sum wraps round in 64 bits before the division.
    assert compiled(np.array([2**62 + 1, 2**62 + 3], np.int64)) == -4611686018427387902


@pytest.mark.parametrize("form", ["fast", "readable", "portable"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_the_gradient_of_reduce_prod_over_an_empty_batch_is_empty(form: str, axis: Any) -> None:
    """The product of every other element was reshaped to (rows, -1), which NumPy cannot do
    for 0 rows; along an empty axis, the product is 1 and its gradient empty."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, [None, 3], name="x")
        product = sg.reduce_prod(x, axis)
        (grad,) = sg.gradients(sg.reduce_sum(product), [x])
        if form == "portable":
            xps = pytest.importorskip("array_api_strict")
            compiled = sg.compile([product, grad], [x], backend="array_api")
            feed = xps.zeros((0, 3), dtype=xps.float64)
        else:
            compiled = sg.compile([product, grad], [x], optimize=form == "fast")
            feed = np.zeros((0, 3))
    value, d_x = (np.asarray(v) for v in compiled(feed))
    np.testing.assert_array_equal(value, np.prod(np.zeros((0, 3)), axis))
    assert d_x.shape == (0, 3)
