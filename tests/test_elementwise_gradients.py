"""Table-driven property tests of symgrad's elementwise ops and reductions, in float64.

Every case builds ``loss = reduce_sum(op(...) * R)`` with a fixed random weight
array ``R`` (so the incoming cotangent is not all ones), compiles the op's
value, the loss and ``sg.gradients(loss, inputs)``, and checks

* the op's value (shape, dtype and numbers) against the same NumPy computation;
* every gradient: it exists, has exactly the shape of its input, is float64,
  and its directional derivative ``sum(grad * v)`` in a random direction ``v``
  matches the central difference ``(L(x + h v) - L(x - h v)) / 2h`` of the
  compiled loss.

Each case also runs with ``R`` broadcast along the leading axes (``w=row``) and
without ``R`` (``w=ones``: a plain ``reduce_sum``, whose cotangent is a broadcast
scalar inside symgrad); the test id ends in ``|w=R``, ``|w=row`` or ``|w=ones``.

Tables: unary ops (and Python operators with Python numbers, and one tensor used
twice) over shapes ``[]``, ``[5]``, ``[2, 3]`` and unknown rank; binary ops over
broadcasting pairs, ``None`` dims included; a tensor with a NumPy array on either
side; ``where``; ``reduce_sum``/``reduce_mean``. Second derivatives are checked
against central differences of the compiled first gradient. Domain samplers keep
the points inside each op's domain and away from kinks and ties, so that finite
differences are valid. Ops without a gradient (floor, round, comparisons, ...)
get value checks and ``None`` gradients.

Cases where symgrad is wrong are kept, marked ``xfail(strict=True)`` with the
reason (see ``KNOWN_BUGS``). Every case seeds its own ``np.random.default_rng``
from its id, so a case gives the same numbers alone or in the whole run.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import symgrad as sg

H = 1e-6  # finite-difference step
GRAD_RTOL = 1e-6  # tolerance of a directional derivative, relative to sum(|grad * v|)
FD_NOISE = 16  # rounding of one loss evaluation, in units of eps * sum(|y * R|)
VALUE_RTOL, VALUE_ATOL = 1e-12, 1e-13  # symgrad's value against NumPy's

Array = np.ndarray
Sampler = Callable[[np.random.Generator, Sequence[tuple[int, ...]]], list[Array]]


# --- inputs: static shape, fed shape -----------------------------------------------------


@dataclass(frozen=True)
class Arg:
    """A placeholder's static shape (``None``: unknown rank) and the shape of the array fed."""

    static: tuple[int | None, ...] | None
    feed: tuple[int, ...]

    @property
    def label(self) -> str:
        if self.static is None:
            return "unknown=" + _dims(self.feed)
        text = _dims(tuple("N" if d is None else d for d in self.static))
        return text if None not in self.static else f"{text}={_dims(self.feed)}"


def _dims(shape: Sequence[Any]) -> str:
    return "x".join(str(d) for d in shape) if shape else "scalar"


def arg(static: Any, feed: Sequence[int] | None = None) -> Arg:
    if static is None:
        assert feed is not None
        return Arg(None, tuple(feed))
    static = tuple(static)
    return Arg(static, tuple(feed) if feed is not None else static)


UNARY_SHAPES = [arg([]), arg([5]), arg([2, 3]), arg(None, [3])]

BINARY_SHAPES = [
    (arg([2, 3, 5]), arg([3, 1])),
    (arg([3, 1]), arg([1, 4])),
    (arg([]), arg([4])),
    (arg([4]), arg([])),
    (arg([2, 3]), arg([2, 3])),
    (arg([None, 3], [4, 3]), arg([3])),
    (arg([None, 3], [4, 3]), arg([None, 3], [4, 3])),
    (arg([None], [4]), arg([None], [4])),
    (arg([None], [4]), arg([None], [1])),  # the None dim is 1 at run time: broadcast then
    (arg([None, 1], [4, 1]), arg([None], [5])),
    (arg(None, [3]), arg([3])),
]


# --- samplers of valid domain points -------------------------------------------------------


def _f64(value: Any) -> Array:
    return np.asarray(value, dtype=np.float64)


def real(
    lo: float = -2.0, hi: float = 2.0
) -> Callable[[np.random.Generator, tuple[int, ...]], Array]:
    return lambda rng, shape: _f64(rng.uniform(lo, hi, size=shape))


def positive(
    lo: float = 0.3, hi: float = 2.5
) -> Callable[[np.random.Generator, tuple[int, ...]], Array]:
    return real(lo, hi)


def nonzero(
    lo: float = 0.2, hi: float = 2.0
) -> Callable[[np.random.Generator, tuple[int, ...]], Array]:
    """|x| in [lo, hi], either sign: away from the kinks of abs, relu, sign and the pole of 1/x."""

    def sample(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
        return _f64(rng.choice([-1.0, 1.0], size=shape) * rng.uniform(lo, hi, size=shape))

    return sample


def each(*elementwise: Callable[[np.random.Generator, tuple[int, ...]], Array]) -> Sampler:
    """One independent sampler per operand."""

    def sample(rng: np.random.Generator, shapes: Sequence[tuple[int, ...]]) -> list[Array]:
        assert len(shapes) == len(elementwise)
        return [s(rng, shape) for s, shape in zip(elementwise, shapes, strict=False)]

    return sample


def separated(rng: np.random.Generator, shapes: Sequence[tuple[int, ...]]) -> list[Array]:
    """Two operands from interleaved lattices: |x - y| >= 0.1 under any broadcasting (no ties)."""

    def lattice(shape: tuple[int, ...], offset: float) -> Array:
        return _f64(
            rng.integers(-5, 5, size=shape) * 0.4 + offset + rng.uniform(-0.05, 0.05, size=shape)
        )

    x, y = lattice(shapes[0], 0.0), lattice(shapes[1], 0.2)
    assert np.all(np.abs(x - y) >= 0.1 - 1e-12)
    return [x, y]


def unary(elementwise: Callable[[np.random.Generator, tuple[int, ...]], Array]) -> Sampler:
    return each(elementwise)


# --- the op tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    name: str
    build: Callable[..., Any]  # symgrad tensors -> tensor
    reference: Callable[..., Array]  # NumPy arrays -> array
    sampler: Sampler  # (rng, fed shapes) -> one array per operand
    arity: int = 1


def _sigmoid(x: Array) -> Array:
    return 1.0 / (1.0 + np.exp(-x))


def _softplus(x: Array) -> Array:
    return np.log1p(np.exp(x))


REAL = unary(real())
POS = unary(positive())
NONZERO = unary(nonzero())

UNARY_OPS = [
    Op("negative", sg.negative, np.negative, REAL),
    Op("square", sg.square, np.square, REAL),
    Op("sqrt", sg.sqrt, np.sqrt, POS),
    Op("rsqrt", sg.rsqrt, lambda x: 1.0 / np.sqrt(x), POS),
    Op("reciprocal", sg.reciprocal, lambda x: 1.0 / x, NONZERO),
    Op("exp", sg.exp, np.exp, REAL),
    Op("expm1", sg.expm1, np.expm1, REAL),
    Op("log", sg.log, np.log, POS),
    Op("log1p", sg.log1p, np.log1p, unary(real(-0.6, 2.5))),
    Op("sin", sg.sin, np.sin, unary(real(-3.0, 3.0))),
    Op("cos", sg.cos, np.cos, unary(real(-3.0, 3.0))),
    Op("tanh", sg.tanh, np.tanh, REAL),
    Op("sigmoid", sg.sigmoid, _sigmoid, unary(real(-4.0, 4.0))),
    Op("softplus", sg.softplus, _softplus, unary(real(-4.0, 4.0))),
    Op("abs", sg.abs, np.abs, NONZERO),
    Op("sign", sg.sign, np.sign, NONZERO),
    Op("identity", sg.identity, lambda x: x, REAL),
    Op("cast_float64", lambda x: sg.cast(x, sg.float64), lambda x: x, REAL),
    Op("saturate_cast_float64", lambda x: sg.saturate_cast(x, sg.float64), lambda x: x, REAL),
    Op("nn.relu", sg.nn.relu, lambda x: np.maximum(x, 0.0), NONZERO),
    Op("nn.sigmoid", sg.nn.sigmoid, _sigmoid, unary(real(-4.0, 4.0))),
    Op("nn.softplus", sg.nn.softplus, _softplus, unary(real(-4.0, 4.0))),
    Op("nn.tanh", sg.nn.tanh, np.tanh, REAL),
    # pow with a Python-number exponent
    Op("pow(x,2)", lambda x: sg.pow(x, 2), np.square, REAL),
    Op("pow(x,3.0)", lambda x: sg.pow(x, 3.0), lambda x: x**3, REAL),
    Op("pow(x,0.5)", lambda x: sg.pow(x, 0.5), np.sqrt, POS),
    Op("pow(x,-1.5)", lambda x: sg.pow(x, -1.5), lambda x: x**-1.5, POS),
    Op("pow(x,-1)", lambda x: sg.pow(x, -1), lambda x: 1.0 / x, NONZERO),
    Op("pow(x,2.7)", lambda x: sg.pow(x, 2.7), lambda x: x**2.7, POS),
    Op("pow(x,1/7)", lambda x: sg.pow(x, 1 / 7), lambda x: x ** (1 / 7), POS),
    # Python operators with Python numbers on either side
    Op("-x", lambda x: -x, np.negative, REAL),
    Op("abs(x)", lambda x: abs(x), np.abs, NONZERO),
    Op("x+2.5", lambda x: x + 2.5, lambda x: x + 2.5, REAL),
    Op("2.5+x", lambda x: 2.5 + x, lambda x: 2.5 + x, REAL),
    Op("x+2", lambda x: x + 2, lambda x: x + 2.0, REAL),
    Op("x-2.5", lambda x: x - 2.5, lambda x: x - 2.5, REAL),
    Op("2.5-x", lambda x: 2.5 - x, lambda x: 2.5 - x, REAL),
    Op("x*2.5", lambda x: x * 2.5, lambda x: x * 2.5, REAL),
    Op("3*x", lambda x: 3 * x, lambda x: 3.0 * x, REAL),
    Op("x*-0.7", lambda x: x * -0.7, lambda x: x * -0.7, REAL),
    Op("x/2.5", lambda x: x / 2.5, lambda x: x / 2.5, REAL),
    Op("2.5/x", lambda x: 2.5 / x, lambda x: 2.5 / x, NONZERO),
    Op("x**2", lambda x: x**2, np.square, REAL),
    Op("x**3", lambda x: x**3, lambda x: x**3, REAL),
    Op("x**0.5", lambda x: x**0.5, np.sqrt, POS),
    Op("x**-2", lambda x: x**-2, lambda x: x**-2.0, NONZERO),
    Op("x**2.5", lambda x: x**2.5, lambda x: x**2.5, POS),
    Op("x**(1/3)", lambda x: x ** (1 / 3), lambda x: np.cbrt(x), POS),
    Op("2.5**x", lambda x: 2.5**x, lambda x: 2.5**x, REAL),
    Op("0.5**x", lambda x: 0.5**x, lambda x: 0.5**x, REAL),
    Op("np.float64(1.5)*x", lambda x: np.float64(1.5) * x, lambda x: 1.5 * x, REAL),
    Op("x-np.float64(1.5)", lambda x: x - np.float64(1.5), lambda x: x - 1.5, REAL),
    Op("np.float64(1.5)-x", lambda x: np.float64(1.5) - x, lambda x: 1.5 - x, REAL),
    # the same tensor as both operands (the op's value must keep the tensor's shape)
    Op("x+x", lambda x: x + x, lambda x: 2.0 * x, REAL),
    Op("x*x", lambda x: x * x, np.square, REAL),
    Op("x-x", lambda x: x - x, lambda x: 0.0 * x, REAL),
    Op("subtract(x,x)", lambda x: sg.subtract(x, x), lambda x: 0.0 * x, REAL),
    Op("x+(-x)", lambda x: x + (-x), lambda x: 0.0 * x, REAL),
    Op("x/x", lambda x: x / x, lambda x: x / x, NONZERO),
    Op("divide(x,x)", lambda x: sg.divide(x, x), lambda x: x / x, NONZERO),
    Op("pow(x,x)", lambda x: sg.pow(x, x), lambda x: x**x, POS),
    Op("squared_difference(x,x)", lambda x: sg.squared_difference(x, x), lambda x: 0.0 * x, REAL),
    Op("maximum(x,x)", lambda x: sg.maximum(x, x), lambda x: x, REAL),
    Op("minimum(x,x)", lambda x: sg.minimum(x, x), lambda x: x, REAL),
    # one tensor feeding two piecewise ops, or both branches of where (their masks add up)
    Op("where(x>0,x,-x)", lambda x: sg.where(x > 0.0, x, -x), np.abs, NONZERO),
    Op(
        "where(x>0,x,0.2*x)",
        lambda x: sg.where(x > 0.0, x, 0.2 * x),
        lambda x: np.where(x > 0, x, 0.2 * x),
        NONZERO,
    ),
    Op(
        "relu(x)+maximum(x,0.0)",
        lambda x: sg.nn.relu(x) + sg.maximum(x, 0.0),
        lambda x: 2.0 * np.maximum(x, 0.0),
        NONZERO,
    ),
    Op(
        "where(x>0,x,0.0)+relu(x)",
        lambda x: sg.where(x > 0.0, x, 0.0) + sg.nn.relu(x),
        lambda x: 2.0 * np.maximum(x, 0.0),
        NONZERO,
    ),
    Op(
        "minimum(x,0.5)+maximum(x,0.5)",
        lambda x: sg.minimum(x, 0.5) + sg.maximum(x, 0.5),
        lambda x: x + 0.5,
        unary(lambda rng, shape: nonzero()(rng, shape) + 0.5),
    ),
    Op(
        "abs(x)+relu(x)",
        lambda x: sg.abs(x) + sg.nn.relu(x),
        lambda x: np.abs(x) + np.maximum(x, 0.0),
        NONZERO,
    ),
    # issue 15, item 5: TF1's other elementwise math and activations
    Op("tan", sg.tan, np.tan, unary(real(-1.2, 1.2))),
    Op("sinh", sg.sinh, np.sinh, REAL),
    Op("cosh", sg.cosh, np.cosh, REAL),
    Op("asin", sg.asin, np.arcsin, unary(real(-0.9, 0.9))),
    Op("acos", sg.acos, np.arccos, unary(real(-0.9, 0.9))),
    Op("atan", sg.atan, np.arctan, unary(real(-3.0, 3.0))),
    Op("asinh", sg.asinh, np.arcsinh, unary(real(-3.0, 3.0))),
    Op("acosh", sg.acosh, np.arccosh, unary(real(1.2, 3.0))),
    Op("atanh", sg.atanh, np.arctanh, unary(real(-0.9, 0.9))),
    Op("nn.relu6", sg.nn.relu6, lambda x: np.clip(x, 0.0, 6.0), unary(real(-2.0, 8.0))),
    Op("nn.elu", sg.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))), NONZERO),
    Op(
        "nn.selu",
        sg.nn.selu,
        lambda x: (
            1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(np.minimum(x, 0)))
        ),
        NONZERO,
    ),
    Op("nn.softsign", sg.nn.softsign, lambda x: x / (1 + np.abs(x)), REAL),
    # issue 15: the error function (NumPy has none; the C library's is the reference)
    Op("erf", sg.erf, np.vectorize(math.erf), unary(real(-2.5, 2.5))),
    Op("erfc", sg.erfc, np.vectorize(math.erfc), unary(real(-2.5, 2.5))),
    Op(
        "nn.leaky_relu",
        sg.nn.leaky_relu,
        lambda x: np.where(x > 0, x, float(np.float32(0.2)) * x),
        NONZERO,
    ),
    Op(
        "clip_by_value", lambda x: sg.clip_by_value(x, -1.0, 1.0), lambda x: np.clip(x, -1, 1), REAL
    ),
    Op("add_n", lambda x: sg.add_n([x, 2.0 * x, x * x]), lambda x: 3 * x + x * x, REAL),
]

DIVISOR = each(real(), nonzero(0.3, 2.0))
REAL2 = each(real(), real())
POW_TENSOR = each(positive(), real())


def Op2(
    name: str, build: Callable[..., Any], reference: Callable[..., Array], sampler: Sampler
) -> Op:
    return Op(name, build, reference, sampler, arity=2)


BINARY_OPS = [
    Op2("add", sg.add, np.add, REAL2),
    Op2("subtract", sg.subtract, np.subtract, REAL2),
    Op2("multiply", sg.multiply, np.multiply, REAL2),
    Op2("divide", sg.divide, np.divide, DIVISOR),
    Op2("truediv", sg.truediv, np.true_divide, DIVISOR),
    Op2("pow", sg.pow, np.power, POW_TENSOR),
    Op2("maximum", sg.maximum, np.maximum, separated),
    Op2("minimum", sg.minimum, np.minimum, separated),
    Op2("squared_difference", sg.squared_difference, lambda x, y: (x - y) ** 2, REAL2),
    Op2("x+y", lambda x, y: x + y, np.add, REAL2),
    Op2("x-y", lambda x, y: x - y, np.subtract, REAL2),
    Op2("x*y", lambda x, y: x * y, np.multiply, REAL2),
    Op2("x/y", lambda x, y: x / y, np.divide, DIVISOR),
    Op2("x**y", lambda x, y: x**y, np.power, POW_TENSOR),
    # issue 15, item 5
    Op2("atan2", sg.atan2, np.arctan2, each(nonzero(), nonzero())),
    Op2("div", sg.div, np.divide, DIVISOR),
    Op2("floormod", sg.floormod, np.mod, DIVISOR),
    Op2("div_no_nan", sg.div_no_nan, np.divide, DIVISOR),
    Op2("math.xlogy", sg.math.xlogy, lambda x, y: x * np.log(y), each(real(), positive())),
    Op2("math.xdivy", sg.math.xdivy, np.divide, DIVISOR),
]


# --- the checks ---------------------------------------------------------------------------


def _rng(case_id: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(case_id.encode()))


def _weights(rng: np.random.Generator, shape: tuple[int, ...]) -> Array:
    """Random weights away from 0 (every element's cotangent matters), not all equal."""
    return _f64(rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 1.5, size=shape))


# How the loss weighs the op's output, i.e. what cotangent reaches the op:
#   R     reduce_sum(y * R), R random of y's shape (the main case);
#   row   reduce_sum(y * r), r random of shape y.shape[-1:], broadcast over the leading axes;
#   ones  reduce_sum(y): the cotangent is all ones (a broadcast scalar inside symgrad).
WEIGHTINGS = ("R", "row", "ones")


def _loss_weights(rng: np.random.Generator, shape: tuple[int, ...], weighting: str) -> Array | None:
    if weighting == "R":
        return _weights(rng, shape)
    if weighting == "row":
        return _weights(rng, tuple(shape[-1:]))
    assert weighting == "ones"
    return None


def _placeholders(args: Sequence[Arg], dtypes: Sequence[Any]) -> list[Any]:
    return [
        sg.placeholder(dtype, shape=None if a.static is None else list(a.static), name=f"in{i}")
        for i, (a, dtype) in enumerate(zip(args, dtypes, strict=False))
    ]


def _check_value(got: Any, want: Array, what: str) -> None:
    got = np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, expected {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=VALUE_RTOL, atol=VALUE_ATOL, err_msg=what)


def _check_gradient_array(grad: Any, like: Array, what: str) -> Array:
    assert grad is not None, f"{what}: no gradient"
    grad = np.asarray(grad)
    assert grad.shape == like.shape, (
        f"{what}: gradient shape {grad.shape}, input shape {like.shape}"
    )
    assert grad.dtype == np.float64, f"{what}: gradient dtype {grad.dtype}"
    assert np.all(np.isfinite(grad)), f"{what}: non-finite gradient {grad}"
    return grad


def _check_directional(
    grad: Array, direction: Array, finite_difference: float, loss_size: float, what: str
) -> None:
    """``sum(grad * v)`` against a central difference of the loss.

    The tolerance is ``GRAD_RTOL`` relative to ``sum(|grad * v|)``, plus the rounding
    noise of the difference quotient itself: ``FD_NOISE * eps * loss_size / H``, where
    ``loss_size`` is ``sum(|y * R|)`` (this matters only where the gradient of a
    broadcast operand is a sum that nearly cancels).
    """
    analytic = float(np.sum(grad * direction))
    scale = float(np.sum(np.abs(grad * direction)))
    noise = FD_NOISE * np.finfo(np.float64).eps * loss_size / H
    error = abs(analytic - finite_difference)
    assert error <= GRAD_RTOL * max(scale, abs(finite_difference)) + noise, (
        f"{what}: sum(grad * v) = {analytic!r}, central difference {finite_difference!r} "
        f"(error {error:.3g}, scale {scale:.3g}, rounding noise {noise:.3g})"
    )


def run_loss_case(
    case_id: str,
    build: Callable[..., Any],
    reference: Callable[..., Array],
    args: Sequence[Arg],
    values: Sequence[Array],
    wrt: Sequence[int],
    rng: np.random.Generator,
    weighting: str,
    separately: bool = False,
) -> None:
    """Value and gradient checks of ``loss = reduce_sum(build(*inputs) * R)``.

    ``values`` are fed to placeholders of the ``args`` shapes; ``wrt`` lists the
    (float) inputs to differentiate; ``weighting`` picks R (see ``WEIGHTINGS``).
    With ``separately``, the value alone and the gradients alone are compiled too
    (symgrad fuses differently when fewer tensors are outputs) and must agree.
    """
    expected = _f64(reference(*values))
    weights = _loss_weights(rng, expected.shape, weighting)
    with sg.Graph().as_default():
        inputs = _placeholders(
            args, [sg.bool if v.dtype == np.bool_ else sg.float64 for v in values]
        )
        output = build(*inputs)
        assert isinstance(output, sg.Tensor), f"{case_id}: built {type(output).__name__}"
        assert output.dtype == sg.float64, f"{case_id}: output dtype {output.dtype}"
        loss = sg.reduce_sum(output if weights is None else output * weights)
        grads = sg.gradients(loss, [inputs[i] for i in wrt])
        assert all(g is not None for g in grads), f"{case_id}: gradients {grads}"
        compiled = sg.compile([output, loss, *grads], inputs=inputs, name=case_id)
        if separately:
            value_only = sg.compile(output, inputs=inputs, name=case_id + "_value")
            gradients_only = sg.compile(list(grads), inputs=inputs, name=case_id + "_gradients")
    value, loss_value, *grad_values = compiled(*values)
    _check_value(value, expected, f"{case_id}: value")
    if separately:
        _check_value(value_only(*values), expected, f"{case_id}: value compiled alone")
    weighted = expected if weights is None else expected * weights
    np.testing.assert_allclose(
        loss_value,
        np.sum(weighted),
        rtol=1e-12,
        atol=1e-12 * float(np.sum(np.abs(weighted))),
        err_msg=f"{case_id}: loss",
    )

    def loss_at(point: Sequence[Array]) -> float:
        return float(compiled(*point)[1])

    for i, grad in zip(wrt, grad_values, strict=False):
        what = f"{case_id}: d loss / d input {i}"
        grad = _check_gradient_array(grad, values[i], what)
        direction = _f64(rng.standard_normal(values[i].shape))
        plus, minus = list(values), list(values)
        plus[i] = values[i] + H * direction
        minus[i] = values[i] - H * direction
        _check_directional(
            grad,
            direction,
            (loss_at(plus) - loss_at(minus)) / (2 * H),
            float(np.sum(np.abs(weighted))),
            what,
        )
    if separately:
        for i, grad, alone in zip(wrt, grad_values, gradients_only(*values), strict=False):
            _check_value(alone, np.asarray(grad), f"{case_id}: d loss / d input {i} compiled alone")


# --- known symgrad bugs: case id -> reason (strict xfail) --------------------------------------


def _bug_ids(names: Sequence[str], shapes_and_weightings: Sequence[str]) -> list[str]:
    """``name(shape)|w=weighting`` for every name and every ``shape|w=weighting``."""
    ids = []
    for name in names:
        for entry in shapes_and_weightings:
            shape, weighting = entry.split("|")
            ids.append(f"{name}({shape})|w={weighting}")
    return ids


_UNARY_SHAPES_AND_WEIGHTINGS = [
    "scalar|R",
    "scalar|ones",
    "5|R",
    "5|ones",
    "2x3|R",
    "2x3|row",
    "2x3|ones",
    "unknown=3|R",
    "unknown=3|ones",
]
_COMPOSED_SHAPES_AND_WEIGHTINGS = [
    f"{shapes}|{w}" for shapes in ("2x3,2x3", "Nx3=4x3,3") for w in WEIGHTINGS
]
KNOWN_BUGS: dict[str, str] = {}  # case id -> reason; none known today


def _output_rank(values: tuple[Any, ...]) -> int:
    """The largest rank among a case's fed shapes (and constant shapes): its output rank."""
    ranks = [len(v.feed) for v in values if isinstance(v, Arg)]
    ranks += [len(v) for v in values if isinstance(v, tuple)]
    return max(ranks, default=0)


def _weighted(cases: Sequence[tuple[str, tuple[Any, ...]]]) -> list[tuple[str, tuple[Any, ...]]]:
    """Every case once per weighting of the loss; the id ends in ``|w=<weighting>``.

    ``row`` is left out where it would equal ``R`` (outputs of rank 0 or 1).
    """
    return [
        (f"{case_id}|w={w}", (*values, w))
        for case_id, values in cases
        for w in WEIGHTINGS
        if w != "row" or _output_rank(values) >= 2
    ]


_PARAMETRIZED_IDS: set = set()


def _params(cases: Sequence[tuple[str, tuple[Any, ...]]]) -> list[Any]:
    ids = [case_id for case_id, _ in cases]
    assert len(set(ids)) == len(ids), "duplicate test ids"
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


# --- unary ops ------------------------------------------------------------------------------

UNARY_CASES = [(f"{op.name}({a.label})", (op, a)) for op in UNARY_OPS for a in UNARY_SHAPES]


@pytest.mark.parametrize("case_id, op, a, weighting", _params(_weighted(UNARY_CASES)))
def test_unary(case_id: str, op: Op, a: Arg, weighting: str) -> None:
    assert op.arity == 1
    rng = _rng(case_id)
    values = op.sampler(rng, [a.feed])
    run_loss_case(case_id, op.build, op.reference, [a], values, [0], rng, weighting)


# --- binary ops, over broadcasting pairs --------------------------------------------------------

BINARY_CASES = [
    (f"{op.name}({a.label},{b.label})", (op, a, b)) for op in BINARY_OPS for a, b in BINARY_SHAPES
]


@pytest.mark.parametrize("case_id, op, a, b, weighting", _params(_weighted(BINARY_CASES)))
def test_binary(case_id: str, op: Op, a: Arg, b: Arg, weighting: str) -> None:
    assert op.arity == 2
    rng = _rng(case_id)
    values = op.sampler(rng, [a.feed, b.feed])
    run_loss_case(case_id, op.build, op.reference, [a, b], values, [0, 1], rng, weighting)


# --- two elementwise ops in a row (symgrad fuses them into one NumPy expression) -----------------

COMPOSED_OPS = [
    Op2("square(x**y)", lambda x, y: sg.square(x**y), lambda x, y: (x**y) ** 2, POW_TENSOR),
    Op2("(x**y)**2", lambda x, y: (x**y) ** 2, lambda x, y: (x**y) ** 2, POW_TENSOR),
    Op2(
        "pow(square(x),y)",
        lambda x, y: sg.pow(sg.square(x), y),
        lambda x, y: (x**2) ** y,
        POW_TENSOR,
    ),
    Op2(
        "pow(pow(x,y),y)",
        lambda x, y: sg.pow(sg.pow(x, y), y),
        lambda x, y: (x**y) ** y,
        POW_TENSOR,
    ),
    Op2("(x**2.5)**y", lambda x, y: (x**2.5) ** y, lambda x, y: (x**2.5) ** y, POW_TENSOR),
    Op2("sqrt(x)**y", lambda x, y: sg.sqrt(x) ** y, lambda x, y: np.sqrt(x) ** y, POW_TENSOR),
    Op2("exp(x)**y", lambda x, y: sg.exp(x) ** y, lambda x, y: np.exp(x) ** y, REAL2),
    Op2("x**exp(y)", lambda x, y: x ** sg.exp(y), lambda x, y: x ** np.exp(y), POW_TENSOR),
    Op2("-(x**y)", lambda x, y: -(x**y), lambda x, y: -(x**y), POW_TENSOR),
    Op2(
        "tanh(x)*sigmoid(y)",
        lambda x, y: sg.tanh(x) * sg.sigmoid(y),
        lambda x, y: np.tanh(x) * _sigmoid(y),
        REAL2,
    ),
    Op2(
        "log(x)/y",
        lambda x, y: sg.log(x) / y,
        lambda x, y: np.log(x) / y,
        each(positive(), nonzero(0.3, 2.0)),
    ),
    Op2("sqrt(x*x+y*y)", lambda x, y: sg.sqrt(x * x + y * y), lambda x, y: np.hypot(x, y), REAL2),
]
COMPOSED_SHAPES = [(arg([2, 3]), arg([2, 3])), (arg([None, 3], [4, 3]), arg([3]))]
COMPOSED_CASES = [
    (f"{op.name}({a.label},{b.label})", (op, a, b))
    for op in COMPOSED_OPS
    for a, b in COMPOSED_SHAPES
]


@pytest.mark.parametrize("case_id, op, a, b, weighting", _params(_weighted(COMPOSED_CASES)))
def test_composed(case_id: str, op: Op, a: Arg, b: Arg, weighting: str) -> None:
    rng = _rng(case_id)
    values = op.sampler(rng, [a.feed, b.feed])
    run_loss_case(
        case_id, op.build, op.reference, [a, b], values, [0, 1], rng, weighting, separately=True
    )


# --- a tensor with a NumPy array on either side --------------------------------------------------


@dataclass(frozen=True)
class ConstOp:
    name: str
    build: Callable[[Any, Array], Any]  # (tensor, constant array) -> tensor
    reference: Callable[[Array, Array], Array]
    x_sampler: Callable[[np.random.Generator, tuple[int, ...]], Array]
    c_sampler: Callable[[np.random.Generator, tuple[int, ...]], Array]


CONST_OPS = [
    ConstOp("x+C", lambda x, c: x + c, lambda x, c: x + c, real(), real()),
    ConstOp("C+x", lambda x, c: c + x, lambda x, c: c + x, real(), real()),
    ConstOp("x-C", lambda x, c: x - c, lambda x, c: x - c, real(), real()),
    ConstOp("C-x", lambda x, c: c - x, lambda x, c: c - x, real(), real()),
    ConstOp("x*C", lambda x, c: x * c, lambda x, c: x * c, real(), real()),
    ConstOp("C*x", lambda x, c: c * x, lambda x, c: c * x, real(), real()),
    ConstOp("x/C", lambda x, c: x / c, lambda x, c: x / c, real(), nonzero(0.3, 2.0)),
    ConstOp("C/x", lambda x, c: c / x, lambda x, c: c / x, nonzero(0.3, 2.0), real()),
    ConstOp("x**C", lambda x, c: x**c, lambda x, c: x**c, positive(), real()),
    ConstOp("C**x", lambda x, c: c**x, lambda x, c: c**x, real(), positive()),
    ConstOp("add(C,x)", lambda x, c: sg.add(c, x), lambda x, c: c + x, real(), real()),
    ConstOp("pow(C,x)", lambda x, c: sg.pow(c, x), lambda x, c: c**x, real(), positive()),
    ConstOp(
        "maximum(C,x)",
        lambda x, c: sg.maximum(c, x),
        np.maximum,
        lambda rng, s: separated(rng, [s, ()])[0],
        lambda rng, s: separated(rng, [(), s])[1],
    ),
    ConstOp(
        "minimum(x,C)",
        lambda x, c: sg.minimum(x, c),
        np.minimum,
        lambda rng, s: separated(rng, [s, ()])[0],
        lambda rng, s: separated(rng, [(), s])[1],
    ),
    ConstOp(
        "squared_difference(C,x)",
        lambda x, c: sg.squared_difference(c, x),
        lambda x, c: (c - x) ** 2,
        real(),
        real(),
    ),
]

# (tensor shape, constant shape): the constant may broadcast the tensor to a larger shape.
CONST_SHAPES = [
    (arg([2, 3]), (3,)),
    (arg([4]), (2, 1)),
    (arg([None, 3], [4, 3]), (2, 1, 3)),
    (arg([]), (2, 3)),
]

CONST_CASES = [
    (f"{op.name}({a.label},C={_dims(c)})", (op, a, c)) for op in CONST_OPS for a, c in CONST_SHAPES
]


@pytest.mark.parametrize("case_id, op, a, c_shape, weighting", _params(_weighted(CONST_CASES)))
def test_with_numpy_constant(
    case_id: str, op: ConstOp, a: Arg, c_shape: tuple[int, ...], weighting: str
) -> None:
    rng = _rng(case_id)
    x = op.x_sampler(rng, a.feed)
    c = op.c_sampler(rng, c_shape)
    if "maximum" in op.name or "minimum" in op.name:
        # Ties are impossible between the two lattices whatever their shapes.
        assert np.all(np.abs(np.subtract.outer(x.ravel(), c.ravel())) >= 0.1 - 1e-12)
    run_loss_case(
        case_id,
        lambda t: op.build(t, c),
        lambda v: op.reference(v, c),
        [a],
        [x],
        [0],
        rng,
        weighting,
    )


# --- where(cond, x, y) --------------------------------------------------------------------

WHERE_SHAPES = [
    (arg([2, 3, 5]), arg([2, 3, 5]), arg([2, 3, 5])),
    (arg([3, 1]), arg([2, 3, 5]), arg([1, 5])),
    (arg([]), arg([4]), arg([4])),
    (arg([4]), arg([]), arg([])),
    (arg([2, 3]), arg([3]), arg([2, 1])),
    (arg([None, 3], [4, 3]), arg([None, 3], [4, 3]), arg([3])),
    (arg([None], [4]), arg([None], [1]), arg([None], [4])),
    (arg(None, [3]), arg([3]), arg(None, [3])),
]

WHERE_CASES = [(f"where({c.label},{a.label},{b.label})", (c, a, b)) for c, a, b in WHERE_SHAPES]


@pytest.mark.parametrize("case_id, c, a, b, weighting", _params(_weighted(WHERE_CASES)))
def test_where(case_id: str, c: Arg, a: Arg, b: Arg, weighting: str) -> None:
    rng = _rng(case_id)
    cond = rng.random(c.feed) < 0.5
    cond = np.asarray(cond, dtype=np.bool_)
    x, y = real()(rng, a.feed), real()(rng, b.feed)
    run_loss_case(case_id, sg.where, np.where, [c, a, b], [cond, x, y], [1, 2], rng, weighting)


# where() with Python numbers and NumPy arrays among its operands; the condition is a bool
# placeholder of x's shape, or a NumPy bool array.

WHERE_MIXED = [
    ("where(c,x,0.0)", lambda c, x, k: sg.where(c, x, 0.0), lambda c, x, k: np.where(c, x, 0.0)),
    ("where(c,1.5,x)", lambda c, x, k: sg.where(c, 1.5, x), lambda c, x, k: np.where(c, 1.5, x)),
    ("where(c,x,C)", lambda c, x, k: sg.where(c, x, k), lambda c, x, k: np.where(c, x, k)),
    # A constant condition of x's shape (TF1's Select takes no other but a vector of rows).
    (
        "where(C_bool,x,-x)",
        lambda c, x, k: sg.where(k > 0, x, -x),
        lambda c, x, k: np.where(k > 0, x, -x),
    ),
]
FULL_SHAPE_CONSTANT = {"where(C_bool,x,-x)"}
WHERE_MIXED_CASES = [
    (f"{name}({a.label})", (build, reference, a))
    for name, build, reference in WHERE_MIXED
    for a in [arg([2, 3]), arg([None], [4]), arg(None, [3])]
]


@pytest.mark.parametrize(
    "case_id, build, reference, a, weighting", _params(_weighted(WHERE_MIXED_CASES))
)
def test_where_with_constants(
    case_id: str, build: Callable[..., Any], reference: Callable[..., Array], a: Arg, weighting: str
) -> None:
    rng = _rng(case_id)
    cond = np.asarray(rng.random(a.feed) < 0.5, dtype=np.bool_)
    x = real()(rng, a.feed)
    # A NumPy array, broadcast along x's last axis (or of x's shape, for a condition).
    full = any(case_id.startswith(name + "(") for name in FULL_SHAPE_CONSTANT)
    k = nonzero()(rng, a.feed if full else a.feed[-1:])
    run_loss_case(
        case_id,
        lambda c, t: build(c, t, k),
        lambda c, v: reference(c, v, k),
        [a, a],
        [cond, x],
        [1],
        rng,
        weighting,
    )


# --- reductions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Reduction:
    name: str
    build: Callable[[Any], Any]
    reference: Callable[[Array], Array]
    args: tuple[Arg, ...]


def _reductions() -> list[Reduction]:
    table = []
    plain = {"reduce_sum": (sg.reduce_sum, np.sum), "reduce_mean": (sg.reduce_mean, np.mean)}
    variants = [
        (
            "",
            {},
            [
                arg([2, 3, 4]),
                arg([]),
                arg([5]),
                arg([None, 3], [4, 3]),
                arg(None, [3]),
                arg([None, None], [2, 5]),
            ],
        ),
        (
            "axis=1",
            {"axis": 1},
            [arg([2, 3, 4]), arg([None, 3], [4, 3]), arg([None, None], [2, 5])],
        ),
        (
            "axis=0",
            {"axis": 0},
            [arg([2, 3, 4]), arg([None, 3], [4, 3]), arg([None, None], [2, 5])],
        ),
        (
            "axis=-1,keepdims",
            {"axis": -1, "keepdims": True},
            [arg([2, 3, 4]), arg([None, 3], [4, 3])],
        ),
        ("axis=[0,2]", {"axis": [0, 2]}, [arg([2, 3, 4]), arg([None, 3, None], [2, 3, 4])]),
        ("axis=[0,2],keepdims", {"axis": [0, 2], "keepdims": True}, [arg([2, 3, 4])]),
        ("axis=(1,2)", {"axis": (1, 2)}, [arg([2, 3, 4])]),
        ("axis=None,keepdims", {"keepdims": True}, [arg([2, 3, 4]), arg([None, 3], [4, 3])]),
        ("axis=[]", {"axis": []}, [arg([2, 3])]),
        (
            "reduction_indices=1,keep_dims",
            {"reduction_indices": 1, "keep_dims": True},
            [arg([2, 3, 4])],
        ),
    ]
    for label, kwargs, shapes in variants:
        numpy_kwargs = {
            "axis": tuple(kwargs["axis"])
            if isinstance(kwargs.get("axis"), list)
            else kwargs.get("axis", kwargs.get("reduction_indices")),
            "keepdims": bool(kwargs.get("keepdims", kwargs.get("keep_dims", False))),
        }
        for name, (ours, theirs) in plain.items():
            for a in shapes:
                table.append(
                    Reduction(
                        f"{name}({a.label}{',' + label if label else ''})",
                        lambda x, ours=ours, kwargs=kwargs: ours(x, **kwargs),
                        lambda v, theirs=theirs, numpy_kwargs=numpy_kwargs: _f64(
                            theirs(v, **numpy_kwargs)
                        ),
                        (a,),
                    )
                )
    return table


REDUCTION_CASES = [(r.name, (r,)) for r in _reductions()]


@pytest.mark.parametrize("case_id, reduction, weighting", _params(_weighted(REDUCTION_CASES)))
def test_reduction(case_id: str, reduction: Reduction, weighting: str) -> None:
    rng = _rng(case_id)
    (a,) = reduction.args
    x = real()(rng, a.feed)
    run_loss_case(case_id, reduction.build, reduction.reference, [a], [x], [0], rng, weighting)


# --- second derivatives -----------------------------------------------------------------------

SECOND_ORDER_OPS = [
    op
    for op in UNARY_OPS
    if op.name
    in {
        "tanh",
        "sigmoid",
        "exp",
        "log",
        "sqrt",
        "softplus",
        "sin",
        "cos",
        "expm1",
        "log1p",
        "rsqrt",
        "reciprocal",
        "square",
        "nn.sigmoid",
        "pow(x,2.7)",
        "2.5**x",
        "x**-2",
        "tan",
        "sinh",
        "asin",
        "atan",
        "asinh",
        "atanh",
        "nn.elu",
        "nn.selu",
        "nn.softsign",
        "erf",
        "erfc",
    }
]
SECOND_ORDER_SHAPES = [arg([]), arg([2, 3]), arg([None], [5]), arg(None, [3])]
SECOND_ORDER_CASES = [
    (f"d2 {op.name}({a.label})", (op, a)) for op in SECOND_ORDER_OPS for a in SECOND_ORDER_SHAPES
]


def _check_vector(got: Any, want: Array, gradient: Array, what: str) -> None:
    """A Hessian-vector product against the central difference ``want`` of ``gradient``, elementwise.

    Tolerance: 1e-6 relative (per element, and to the largest element), plus the
    rounding noise of the difference quotient, ``FD_NOISE * eps * max|gradient| / H``.
    """
    got = _check_gradient_array(got, want, what)
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    noise = (
        FD_NOISE
        * np.finfo(np.float64).eps
        * (float(np.max(np.abs(gradient))) if gradient.size else 0.0)
        / H
    )
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * scale + noise, err_msg=what)


@pytest.mark.parametrize("case_id, op, a, weighting", _params(_weighted(SECOND_ORDER_CASES)))
def test_second_derivative_unary(case_id: str, op: Op, a: Arg, weighting: str) -> None:
    """``gradients(reduce_sum(gradients(loss, x)[0] * v), x)`` against differences of the gradient."""
    rng = _rng(case_id)
    (x,) = op.sampler(rng, [a.feed])
    weights = _loss_weights(rng, a.feed, weighting)
    v = _f64(rng.standard_normal(a.feed))
    with sg.Graph().as_default():
        (p,) = _placeholders([a], [sg.float64])
        output = op.build(p)
        loss = sg.reduce_sum(output if weights is None else output * weights)
        (grad,) = sg.gradients(loss, p)
        (hessian_v,) = sg.gradients(sg.reduce_sum(grad * v), p)
        assert grad is not None and hessian_v is not None
        compiled = sg.compile([grad, hessian_v], inputs=[p], name=case_id)
    grad_value, hv_value = compiled(x)
    _check_gradient_array(grad_value, x, f"{case_id}: first gradient")
    finite_difference = (compiled(x + H * v)[0] - compiled(x - H * v)[0]) / (2 * H)
    _check_vector(
        hv_value,
        _f64(finite_difference),
        np.asarray(grad_value),
        f"{case_id}: Hessian-vector product",
    )


SECOND_ORDER_BINARY_OPS = [
    op
    for op in BINARY_OPS
    if op.name
    in {
        "multiply",
        "divide",
        "pow",
        "squared_difference",
        "x/y",
        "atan2",
        "math.xlogy",
        "div_no_nan",
    }
]
SECOND_ORDER_BINARY_SHAPES = [
    (arg([2, 3, 5]), arg([3, 1])),
    (arg([]), arg([4])),
    (arg([None], [4]), arg([None], [1])),
]
SECOND_ORDER_BINARY_CASES = [
    (f"d2 {op.name}({a.label},{b.label})", (op, a, b))
    for op in SECOND_ORDER_BINARY_OPS
    for a, b in SECOND_ORDER_BINARY_SHAPES
]


@pytest.mark.parametrize(
    "case_id, op, a, b, weighting", _params(_weighted(SECOND_ORDER_BINARY_CASES))
)
def test_second_derivative_binary(case_id: str, op: Op, a: Arg, b: Arg, weighting: str) -> None:
    """The Hessian of a broadcasting binary op times a joint direction (vx, vy)."""
    rng = _rng(case_id)
    x, y = op.sampler(rng, [a.feed, b.feed])
    weights = _loss_weights(rng, np.broadcast_shapes(a.feed, b.feed), weighting)
    vx, vy = _f64(rng.standard_normal(a.feed)), _f64(rng.standard_normal(b.feed))
    with sg.Graph().as_default():
        px, py = _placeholders([a, b], [sg.float64, sg.float64])
        output = op.build(px, py)
        loss = sg.reduce_sum(output if weights is None else output * weights)
        gx, gy = sg.gradients(loss, [px, py])
        hx, hy = sg.gradients(sg.reduce_sum(gx * vx) + sg.reduce_sum(gy * vy), [px, py])
        assert None not in (gx, gy, hx, hy)
        compiled = sg.compile([gx, gy, hx, hy], inputs=[px, py], name=case_id)
    gx_value, gy_value, hx_value, hy_value = compiled(x, y)
    _check_gradient_array(gx_value, x, f"{case_id}: d/dx")
    _check_gradient_array(gy_value, y, f"{case_id}: d/dy")
    plus = compiled(x + H * vx, y + H * vy)
    minus = compiled(x - H * vx, y - H * vy)
    _check_vector(
        hx_value, _f64((plus[0] - minus[0]) / (2 * H)), np.asarray(gx_value), f"{case_id}: (H v)_x"
    )
    _check_vector(
        hy_value, _f64((plus[1] - minus[1]) / (2 * H)), np.asarray(gy_value), f"{case_id}: (H v)_y"
    )


# --- exported elementwise ops without a gradient ---------------------------------------------------

NO_GRADIENT_OPS = [
    Op("floor", sg.floor, np.floor, unary(real(-3.0, 3.0))),
    Op("round", sg.round, np.round, unary(real(-3.0, 3.0))),
    Op("ceil", sg.ceil, np.ceil, unary(real(-3.0, 3.0))),
    Op("stop_gradient", sg.stop_gradient, lambda x: x, REAL),
    Op("ones_like", sg.ones_like, np.ones_like, REAL),
    Op("zeros_like", sg.zeros_like, np.zeros_like, REAL),
]
NO_GRADIENT_CASES = [
    (f"{op.name}({a.label})", (op, a))
    for op in NO_GRADIENT_OPS
    for a in [arg([2, 3]), arg([None], [4]), arg(None, [3])]
]


@pytest.mark.parametrize("case_id, op, a", _params(NO_GRADIENT_CASES))
def test_no_gradient(case_id: str, op: Op, a: Arg) -> None:
    """TF1 gives no gradient (None) through floor, round, stop_gradient, ones_like, zeros_like."""
    rng = _rng(case_id)
    (x,) = op.sampler(rng, [a.feed])
    if op.name in (
        "floor",
        "round",
        "ceil",
    ):  # fractional parts near 0.25 and 0.75: away from both jumps
        x = (
            np.floor(x)
            + rng.choice([0.25, 0.75], size=a.feed)
            + rng.uniform(-0.1, 0.1, size=a.feed)
        )
    expected = _f64(op.reference(x))
    with sg.Graph().as_default():
        (p,) = _placeholders([a], [sg.float64])
        y = op.build(p)
        loss = sg.reduce_sum(y * _weights(rng, a.feed))
        assert sg.gradients(loss, p) == [None]
        compiled = sg.compile(y, inputs=[p], name=case_id)
    _check_value(compiled(x), expected, f"{case_id}: value")


COMPARISONS = [
    ("greater", sg.greater, np.greater),
    ("greater_equal", sg.greater_equal, np.greater_equal),
    ("less", sg.less, np.less),
    ("less_equal", sg.less_equal, np.less_equal),
    ("equal", sg.equal, np.equal),
    ("not_equal", sg.not_equal, np.not_equal),
    ("x>y", lambda x, y: x > y, np.greater),
    ("x<=y", lambda x, y: x <= y, np.less_equal),
]
COMPARISON_CASES = [
    (f"{name}({a.label},{b.label})", (ours, theirs, a, b))
    for name, ours, theirs in COMPARISONS
    for a, b in [(arg([2, 3, 5]), arg([3, 1])), (arg([None], [4]), arg([]))]
]


@pytest.mark.parametrize("case_id, ours, theirs, a, b", _params(COMPARISON_CASES))
def test_comparison(
    case_id: str, ours: Callable[..., Any], theirs: Callable[..., Array], a: Arg, b: Arg
) -> None:
    """Comparisons give bool values (ties included) and no gradient."""
    rng = _rng(case_id)
    x = _f64(rng.integers(-2, 3, size=a.feed))
    y = _f64(rng.integers(-2, 3, size=b.feed))
    with sg.Graph().as_default():
        px, py = _placeholders([a, b], [sg.float64, sg.float64])
        out = ours(px, py)
        assert out.dtype == sg.bool
        loss = sg.reduce_sum(sg.where(out, px * 1.0, py * 2.0))
        dx, dy = sg.gradients(loss, [px, py])
        compiled = sg.compile([out, dx, dy], inputs=[px, py], name=case_id)
    value, dx_value, dy_value = compiled(x, y)
    value = np.asarray(value)
    expected = theirs(x, y)
    assert value.dtype == np.bool_ and value.shape == expected.shape
    np.testing.assert_array_equal(value, expected)
    # The gradient of where() flows to the selected operand only (none through the mask).
    mask = np.broadcast_to(expected, np.broadcast_shapes(x.shape, y.shape))
    _check_value(dx_value, _sum_to(np.where(mask, 1.0, 0.0), x.shape), f"{case_id}: d/dx")
    _check_value(dy_value, _sum_to(np.where(mask, 0.0, 2.0), y.shape), f"{case_id}: d/dy")


def _sum_to(value: Array, shape: tuple[int, ...]) -> Array:
    """Undo NumPy broadcasting: sum ``value`` down to ``shape``."""
    lead = value.ndim - len(shape)
    value = np.sum(value, axis=tuple(range(lead))) if lead else value
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and value.shape[i] != 1)
    return _f64(np.sum(value, axis=axes, keepdims=True) if axes else value)


def test_known_bugs_name_existing_cases() -> None:
    """Every id in KNOWN_BUGS is a parametrized case (a typo would silently un-mark it)."""
    assert sorted(set(KNOWN_BUGS) - _PARAMETRIZED_IDS) == []


# Every elementwise function symgrad exports, all exercised by the tables above.
COVERED_ELEMENTWISE = {
    "abs",
    "add",
    "cast",
    "saturate_cast",
    "cos",
    "divide",
    "equal",
    "exp",
    "expm1",
    "floor",
    "greater",
    "greater_equal",
    "identity",
    "is_finite",
    "less",
    "less_equal",
    "log",
    "log1p",
    "maximum",
    "minimum",
    "multiply",
    "negative",
    "not_equal",
    "ones_like",
    "pow",
    "reciprocal",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "softplus",
    "sqrt",
    "square",
    "squared_difference",
    "stop_gradient",
    "subtract",
    "tanh",
    "truediv",
    "where",
    "zeros_like",
    "nn.relu",
    "nn.sigmoid",
    "nn.softplus",
    "nn.tanh",
    # issue 15, item 5 (the integer, bool and cast ops among them are checked against
    # TensorFlow in tests/test_tf_parity_elemops.py)
    "acos",
    "acosh",
    "accumulate_n",
    "add_n",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "clip_by_value",
    "cosh",
    "div",
    "div_no_nan",
    "floordiv",
    "floormod",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "mod",
    "sinh",
    "tan",
    "to_double",
    "to_float",
    "to_int32",
    "to_int64",
    "truncatediv",
    "truncatemod",
    "nn.elu",
    "nn.leaky_relu",
    "nn.relu6",
    "nn.selu",
    "nn.softsign",
    # issue 15: the error function
    "erf",
    "erfc",
}


def _elementwise_exports(namespace: Any, prefix: str = "") -> set:
    """Names in ``namespace.__all__`` bound to functions of ``symgrad.ops.elementwise``."""
    from symgrad.ops import elementwise, gathering, nn_ops

    # TF1's where is the elementwise Select, after turning a vector condition into rows;
    # clip_by_value is the elementwise one, after taking a gathered gradient's slices apart
    also_elementwise = {gathering.where, nn_ops.clip_by_value}
    return {
        prefix + name
        for name in namespace.__all__
        if callable(getattr(namespace, name))
        and not isinstance(getattr(namespace, name), type)
        and (
            getattr(getattr(namespace, name), "__module__", None) == elementwise.__name__
            or getattr(namespace, name) in also_elementwise
        )
    }


def test_tables_cover_every_exported_elementwise_op() -> None:
    """A newly exported elementwise op must be added to the tables (and to COVERED_ELEMENTWISE)."""
    exported = _elementwise_exports(sg) | _elementwise_exports(sg.nn, "nn.")
    assert sorted(exported ^ COVERED_ELEMENTWISE) == []
    for name in _elementwise_exports(sg.math):  # tf.math names are the same functions
        if hasattr(sg, name):  # (xlogy, xdivy, softsign: TF1 has them under tf.math only)
            assert getattr(sg.math, name) is getattr(sg, name), name


@pytest.mark.parametrize(
    "a", [arg([6]), arg([None, 3], [2, 3]), arg(None, [6])], ids=lambda a: a.label
)
def test_is_finite(a: Arg) -> None:
    """is_finite is bool-valued; where(is_finite(x), x, 0.0) passes the gradient where x is finite."""
    x = _f64(np.array([1.5, np.inf, -np.inf, np.nan, 0.0, -2.0]).reshape(a.feed))
    with sg.Graph().as_default():
        (p,) = _placeholders([a], [sg.float64])
        finite = sg.is_finite(p)
        assert finite.dtype == sg.bool
        loss = sg.reduce_sum(sg.where(finite, p, 0.0) * 3.0)
        (grad,) = sg.gradients(loss, p)
        compiled = sg.compile([finite, loss, grad], inputs=[p], name="is_finite")
    finite_value, loss_value, grad_value = compiled(x)
    finite_value = np.asarray(finite_value)
    assert finite_value.dtype == np.bool_ and finite_value.shape == x.shape
    np.testing.assert_array_equal(finite_value, np.isfinite(x))
    assert float(loss_value) == 3.0 * (1.5 + 0.0 - 2.0)
    _check_value(grad_value, np.where(np.isfinite(x), 3.0, 0.0), "is_finite: gradient")


def test_saturate_cast_never_wraps_around() -> None:
    """Values past the target's range come out as its nearest representable bound: float32
    holds 2**31 - 1 only as 2**31, so the upper bound of a float32-to-int32 cast is the float32
    just below it; float64 values past float32's range become float32's largest."""
    with sg.Graph().as_default():
        wide = sg.constant(np.array([3e9, -3e9, 7.9], np.float32))
        huge = sg.constant(np.array([1e300, -1e300, 0.5]))
        ints, floats = sg.compile(
            [sg.saturate_cast(wide, sg.int32), sg.saturate_cast(huge, sg.float32)]
        )()
    np.testing.assert_array_equal(ints, np.array([2147483520, -2147483648, 7], np.int32))
    top = np.finfo(np.float32).max
    np.testing.assert_array_equal(floats, np.array([top, -top, 0.5], np.float32))
