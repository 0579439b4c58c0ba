"""Property-based tests: random symgrad programs against NumPy and finite differences.

How to run
----------
Default ("ci" profile: about 1500 examples in total, split across the properties,
derandomized, so every run draws the same examples)::

    python -m pytest tests/test_properties.py

Slow profile (5000 examples per property, also derandomized; a long run)::

    SYMGRAD_HYPOTHESIS_PROFILE=slow python -m pytest tests/test_properties.py

``SYMGRAD_HYPOTHESIS_PROFILE`` picks the profile (default ``ci``). The profiles are
applied to these tests only (as the parent of each test's settings), so this module
does not change the Hypothesis settings of any other test module.

What is generated
-----------------
A *program* is 1-3 float64 placeholders with broadcast-compatible shapes (rank 0-3,
dims 1-4, size-1 dims, dims declared ``None`` but fed concrete sizes), followed by
1-8 ops, each reading earlier values: unary elementwise ops (domain-safe wrappers
such as ``sg.log(v * v + 0.5)``), binary elementwise ops between any two earlier
values whose static and fed shapes broadcast, reductions with random axes and
keepdims, 2-D ``matmul`` (with transposes), ``stop_gradient`` and softmax /
log-softmax along a random axis. The last value is the output ``out``.

A program prints (its ``repr``, and a ``hypothesis.note`` on failure) as the
symgrad code that the test executes, literally: every test builds its graph by
evaluating exactly those lines, so a shrunk failure can be pasted and rerun. The
input arrays come from ``np.random.default_rng(seed)`` (a continuous distribution,
so exact ties and kinks have probability zero); the seed is part of the program.

Properties
----------
(a) ``test_forward_matches_numpy``: the compiled value of ``out`` equals an
    independent NumPy interpretation of the same program (rtol 1e-10), and every
    value's static shape is TF's (None where unknown) and fits its run-time shape.
(b) ``test_gradients_match_finite_differences``: ``sg.gradients(reduce_sum(out * R),
    xs)`` for a random subset ``xs`` of the placeholders *and intermediate values*:
    the gradient is ``None`` exactly when every path from x to ``out`` passes a
    gradient-blocking op (stop_gradient, floor, round), and otherwise its directional
    derivative matches a central difference (h 1e-6, rtol 1e-5 with a small absolute
    floor) of a compiled *probe* of the loss: the same program in which every value
    ``v_k`` becomes ``op(...) + d_k`` (``d_k`` a placeholder fed 0 or ``±h·dir``)
    and every ``stop_gradient(a)`` becomes a placeholder fed a's value. Perturbing
    ``d_k`` is what the derivative with respect to an intermediate tensor means in
    TF (the total derivative of the loss through everything downstream of it,
    holding stop_gradient values fixed).
(c) ``test_hessian_vector_products``: on small smooth programs (at most 3 ops, no
    max/min/abs/... and no stop_gradient), ``gradients(sum_i reduce_sum(g_i * V_i),
    xs)`` with ``g = gradients(loss, xs)`` (a Hessian-vector product over all
    placeholders, cross terms included) against central differences of the
    compiled first gradients.
(d) ``test_stop_gradient_and_unconnected``: ``stop_gradient(out)`` has only ``None``
    gradients; an unrelated placeholder gets ``None``, or zeros of its fed shape with
    ``unconnected_gradients='zero'`` (which leaves connected gradients unchanged);
    adding a ``stop_gradient``-ed term to the loss does not change any gradient.
(e) ``test_fetched_dtypes_are_static_dtypes``: a float32 program and a float64 one
    (half the time the same program, so that equal expressions of both dtypes meet)
    compiled into one module, with their gradients and those of a loss that joins
    them through a cast: every fetched value has the dtype TF's static type gives it
    (the placeholders' dtype throughout each program; a gradient has its x's dtype).

Examples where finite differences are ill-conditioned are filtered out with
``hypothesis.assume``: non-finite values, values or gradients above 1e6, and any
finite-difference step that changes the branch taken by a kink (abs, relu, sign,
floor, round, maximum, minimum and the argmax set of reduce_max / reduce_min)
anywhere in the program.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import symgrad as sg

Array = np.ndarray
Shape = tuple[int | None, ...]
Fed = tuple[int, ...]

# --- profiles -------------------------------------------------------------------------------------

_COMMON: dict[str, Any] = {
    "derandomize": True,
    "deadline": None,
    "database": None,
    "print_blob": False,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
# "ci": max_examples is the budget of the whole module, split by BUDGET_SHARE below.
settings.register_profile("ci", max_examples=1500, **_COMMON)
# "slow": max_examples per property.
settings.register_profile("slow", max_examples=5000, **_COMMON)
TOTAL_BUDGET_PROFILES = {"ci"}
PROFILE = os.environ.get("SYMGRAD_HYPOTHESIS_PROFILE", "ci")
BUDGET_SHARE = {
    "forward": 0.20,
    "gradients": 0.40,
    "hessian": 0.20,
    "stop_gradient": 0.15,
    "dtype": 0.05,
}


def profile_settings(prop: str) -> settings:
    """The selected profile, with this property's share of the budget where it is a total."""
    parent = settings.get_profile(PROFILE)
    examples = parent.max_examples
    if PROFILE in TOTAL_BUDGET_PROFILES:
        examples = max(1, round(examples * BUDGET_SHARE[prop]))
    return settings(parent=parent, max_examples=examples)


# --- tolerances -----------------------------------------------------------------------------------

VALUE_RTOL = 1e-10
H = 1e-6  # finite-difference step
FD_RTOL = 1e-5
FD_ATOL = 1e-8  # absolute floor, times (1 + the size of the loss or gradient being differenced)
LIMIT = 1e6  # larger values or gradients: finite differences are ill-conditioned, skip


# --- shapes ---------------------------------------------------------------------------------------


def static_broadcast(a: Shape, b: Shape) -> Shape | None:
    """TF's broadcast of static shapes (None: unknown dim), or None if incompatible."""
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    out: list[int | None] = []
    for x, y in zip(a, b, strict=False):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            return None
    return tuple(out)


def fed_broadcast(a: Fed, b: Fed) -> Fed | None:
    try:
        return tuple(np.broadcast_shapes(a, b))
    except ValueError:
        return None


def normalize_axes(axis: Any, rank: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(rank))
    items = axis if isinstance(axis, list) else [axis]
    return tuple(sorted(a % rank for a in items))


def reduced(shape: Sequence[Any], axes: tuple[int, ...], keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def fmt_shape(shape: Sequence[Any]) -> str:
    return "[" + ", ".join("None" if d is None else str(d) for d in shape) + "]"


# --- the program model ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """One value of a program: a placeholder (``kind == 'placeholder'``) or an op."""

    name: str
    kind: str
    args: tuple[int, ...]
    params: tuple[tuple[str, Any], ...]
    static: Shape
    fed: Fed

    @property
    def p(self) -> dict[str, Any]:
        return dict(self.params)


@dataclass(frozen=True)
class Op:
    """How an op kind prints (symgrad code), evaluates in NumPy, and behaves at kinks."""

    expr: Callable[[list[str], dict[str, Any]], str]
    ref: Callable[[list[Array], dict[str, Any]], Array]
    smooth: bool = True
    blocks_gradient: bool = False  # TF has no gradient through it (None)
    branch: Callable[[list[Array], dict[str, Any]], Array] | None = None  # kink pattern


def _sigmoid(x: Array) -> Array:
    return 1.0 / (1.0 + np.exp(-x))


def _np_reduce(fn: Callable[..., Array]) -> Callable[[list[Array], dict[str, Any]], Array]:
    def ref(xs: list[Array], p: dict[str, Any]) -> Array:
        x = xs[0]
        return fn(x, axis=normalize_axes(p["axis"], x.ndim), keepdims=p["keepdims"])

    return ref


def _np_logsumexp(x: Array, axis: tuple[int, ...], keepdims: bool) -> Array:
    m = np.max(x, axis=axis, keepdims=True)
    total = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
    return total + (m if keepdims else np.squeeze(m, axis=axis))


def _np_softmax(xs: list[Array], p: dict[str, Any]) -> Array:
    e = np.exp(xs[0] - np.max(xs[0], axis=p["axis"], keepdims=True))
    return e / np.sum(e, axis=p["axis"], keepdims=True)


def _np_log_softmax(xs: list[Array], p: dict[str, Any]) -> Array:
    s = xs[0] - np.max(xs[0], axis=p["axis"], keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=p["axis"], keepdims=True))


def _np_matmul(xs: list[Array], p: dict[str, Any]) -> Array:
    a, b = xs
    return (a.T if p["transpose_a"] else a) @ (b.T if p["transpose_b"] else b)


def _extremum_mask(fn: Callable[..., Array]) -> Callable[[list[Array], dict[str, Any]], Array]:
    def branch(xs: list[Array], p: dict[str, Any]) -> Array:
        x = xs[0]
        return x == fn(x, axis=normalize_axes(p["axis"], x.ndim), keepdims=True)

    return branch


def _reduce_expr(fn: str) -> Callable[[list[str], dict[str, Any]], str]:
    return lambda a, p: f"sg.{fn}({a[0]}, axis={p['axis']!r}, keepdims={p['keepdims']})"


def _unary(fn: str) -> Callable[[list[str], dict[str, Any]], str]:
    return lambda a, p: f"{fn}({a[0]})"


def _binary(fn: str, infix: str | None = None) -> Callable[[list[str], dict[str, Any]], str]:
    def expr(a: list[str], p: dict[str, Any]) -> str:
        if infix and p.get("infix"):
            return f"({a[0]} {infix} {a[1]})"
        return f"{fn}({a[0]}, {a[1]})"

    return expr


def _sign_of(xs: list[Array], p: dict[str, Any]) -> Array:
    return np.sign(xs[0])


def _sign_of_difference(xs: list[Array], p: dict[str, Any]) -> Array:
    return np.sign(xs[0] - xs[1])


UNARY: dict[str, Op] = {
    "tanh": Op(_unary("sg.tanh"), lambda x, p: np.tanh(x[0])),
    "sigmoid": Op(_unary("sg.sigmoid"), lambda x, p: _sigmoid(x[0])),
    "softplus": Op(_unary("sg.nn.softplus"), lambda x, p: np.logaddexp(0.0, x[0])),
    "square": Op(_unary("sg.square"), lambda x, p: np.square(x[0])),
    "negative": Op(
        lambda a, p: f"(-{a[0]})" if p.get("infix") else f"sg.negative({a[0]})",
        lambda x, p: np.negative(x[0]),
    ),
    "identity": Op(_unary("sg.identity"), lambda x, p: x[0]),
    "sin": Op(_unary("sg.sin"), lambda x, p: np.sin(x[0])),
    "cos": Op(_unary("sg.cos"), lambda x, p: np.cos(x[0])),
    "exp": Op(_unary("sg.exp"), lambda x, p: np.exp(x[0])),
    "expm1": Op(_unary("sg.expm1"), lambda x, p: np.expm1(x[0])),
    "sqrt": Op(
        lambda a, p: f"sg.sqrt({a[0]} * {a[0]} + 0.1)", lambda x, p: np.sqrt(x[0] * x[0] + 0.1)
    ),
    "rsqrt": Op(
        lambda a, p: f"sg.rsqrt({a[0]} * {a[0]} + 0.5)",
        lambda x, p: 1.0 / np.sqrt(x[0] * x[0] + 0.5),
    ),
    "reciprocal": Op(
        lambda a, p: f"sg.reciprocal({a[0]} * {a[0]} + 0.5)", lambda x, p: 1.0 / (x[0] * x[0] + 0.5)
    ),
    "log": Op(
        lambda a, p: f"sg.log({a[0]} * {a[0]} + 0.5)", lambda x, p: np.log(x[0] * x[0] + 0.5)
    ),
    "log1p": Op(lambda a, p: f"sg.log1p({a[0]} * {a[0]})", lambda x, p: np.log1p(x[0] * x[0])),
    # kinks and jumps
    "abs": Op(_unary("sg.abs"), lambda x, p: np.abs(x[0]), smooth=False, branch=_sign_of),
    "relu": Op(
        _unary("sg.nn.relu"), lambda x, p: np.maximum(x[0], 0.0), smooth=False, branch=_sign_of
    ),
    "sign": Op(_unary("sg.sign"), lambda x, p: np.sign(x[0]), smooth=False, branch=_sign_of),
    "floor": Op(
        _unary("sg.floor"),
        lambda x, p: np.floor(x[0]),
        smooth=False,
        blocks_gradient=True,
        branch=lambda x, p: np.floor(x[0]),
    ),
    "round": Op(
        _unary("sg.round"),
        lambda x, p: np.round(x[0]),
        smooth=False,
        blocks_gradient=True,
        branch=lambda x, p: np.round(x[0]),
    ),
    "stop_gradient": Op(
        _unary("sg.stop_gradient"), lambda x, p: x[0], smooth=False, blocks_gradient=True
    ),
}
BINARY: dict[str, Op] = {
    "add": Op(_binary("sg.add", "+"), lambda x, p: x[0] + x[1]),
    "subtract": Op(_binary("sg.subtract", "-"), lambda x, p: x[0] - x[1]),
    "multiply": Op(_binary("sg.multiply", "*"), lambda x, p: x[0] * x[1]),
    "divide": Op(
        lambda a, p: (
            f"({a[0]} / ({a[1]} * {a[1]} + 0.5))"
            if p.get("infix")
            else f"sg.divide({a[0]}, {a[1]} * {a[1]} + 0.5)"
        ),
        lambda x, p: x[0] / (x[1] * x[1] + 0.5),
    ),
    "pow": Op(
        lambda a, p: f"sg.pow({a[0]} * {a[0]} + 0.5, {a[1]})",
        lambda x, p: np.power(x[0] * x[0] + 0.5, x[1]),
    ),
    "squared_difference": Op(_binary("sg.squared_difference"), lambda x, p: (x[0] - x[1]) ** 2),
    "maximum": Op(
        _binary("sg.maximum"),
        lambda x, p: np.maximum(x[0], x[1]),
        smooth=False,
        branch=_sign_of_difference,
    ),
    "minimum": Op(
        _binary("sg.minimum"),
        lambda x, p: np.minimum(x[0], x[1]),
        smooth=False,
        branch=_sign_of_difference,
    ),
}
REDUCE: dict[str, Op] = {
    "reduce_sum": Op(_reduce_expr("reduce_sum"), _np_reduce(np.sum)),
    "reduce_mean": Op(_reduce_expr("reduce_mean"), _np_reduce(np.mean)),
    "reduce_max": Op(
        _reduce_expr("reduce_max"), _np_reduce(np.max), smooth=False, branch=_extremum_mask(np.max)
    ),
    "reduce_min": Op(
        _reduce_expr("reduce_min"), _np_reduce(np.min), smooth=False, branch=_extremum_mask(np.min)
    ),
    "reduce_logsumexp": Op(_reduce_expr("reduce_logsumexp"), _np_reduce(_np_logsumexp)),
    "reduce_prod": Op(_reduce_expr("reduce_prod"), _np_reduce(np.prod)),
}
SOFTMAX: dict[str, Op] = {
    "softmax": Op(lambda a, p: f"sg.nn.softmax({a[0]}, axis={p['axis']})", _np_softmax),
    "log_softmax": Op(lambda a, p: f"sg.nn.log_softmax({a[0]}, axis={p['axis']})", _np_log_softmax),
}


def _matmul_expr(a: list[str], p: dict[str, Any]) -> str:
    if p.get("infix"):
        return f"({a[0]} @ {a[1]})"
    flags = "".join(f", {k}=True" for k in ("transpose_a", "transpose_b") if p[k])
    return f"sg.matmul({a[0]}, {a[1]}{flags})"


MATMUL: dict[str, Op] = {"matmul": Op(_matmul_expr, _np_matmul)}
OPS: dict[str, Op] = {**UNARY, **BINARY, **REDUCE, **SOFTMAX, **MATMUL}
_KINKS = ("abs", "relu", "sign", "floor", "round", "stop_gradient")
_MATH = ("sin", "cos", "exp", "expm1", "sqrt", "rsqrt", "reciprocal", "log", "log1p")
FAMILIES: dict[str, dict[str, Op]] = {
    "activation": {k: op for k, op in UNARY.items() if k not in _KINKS + _MATH},
    "math": {k: UNARY[k] for k in _MATH},
    "kink": {k: UNARY[k] for k in _KINKS},
    "binary": BINARY,
    "reduce": REDUCE,
    "softmax": SOFTMAX,
    "matmul": MATMUL,
}
assert sorted(k for table in FAMILIES.values() for k in table) == sorted(OPS)
SMOOTH_KINDS = frozenset(k for k, op in OPS.items() if op.smooth)


@dataclass(frozen=True)
class Program:
    """Placeholders then ops; the last value is the output. Prints as runnable symgrad code."""

    values: tuple[Value, ...]
    seed: int

    @property
    def out(self) -> int:
        return len(self.values) - 1

    @property
    def placeholders(self) -> list[int]:
        return [i for i, v in enumerate(self.values) if v.kind == "placeholder"]

    def expr(self, i: int) -> str:
        """The symgrad expression of value i (an op), in terms of the names of its operands."""
        v = self.values[i]
        return OPS[v.kind].expr([self.values[j].name for j in v.args], v.p)

    def lines(self) -> list[str]:
        lines = []
        for i, v in enumerate(self.values):
            if v.kind == "placeholder":
                lines.append(
                    f"{v.name} = sg.placeholder(sg.float64, shape={fmt_shape(v.static)}, "
                    f'name="{v.name}")  # fed shape {v.fed}'
                )
            else:
                lines.append(
                    f"{v.name} = {self.expr(i)}  # shape {fmt_shape(v.static)}, fed {v.fed}"
                )
        return lines

    @property
    def text(self) -> str:
        feeds = "; ".join(
            f"{self.values[i].name} = rng.standard_normal({self.values[i].fed})"
            for i in self.placeholders
        )
        return "\n".join(
            [
                f"# feeds: rng = np.random.default_rng({self.seed}); {feeds}",
                *self.lines(),
                f"out = {self.values[self.out].name}",
            ]
        )

    def __repr__(self) -> str:
        return "\n" + self.text + "\n"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(repr(self))

    # -- what gradients connect -------------------------------------------------------------------
    def connected(self, i: int) -> bool:
        """True if a path from value i to out avoids every gradient-blocking op (TF: not None)."""
        reach = {i}
        for j in range(i + 1, len(self.values)):
            v = self.values[j]
            if (
                v.kind != "placeholder"
                and not OPS[v.kind].blocks_gradient
                and any(a in reach for a in v.args)
            ):
                reach.add(j)
        return self.out in reach

    def ancestors(self, i: int) -> set:
        seen, stack = set(), [i]
        while stack:
            j = stack.pop()
            if j not in seen:
                seen.add(j)
                stack.extend(self.values[j].args)
        return seen


# --- strategies -----------------------------------------------------------------------------------


def _pick_recent(draw: Any, count: int) -> int:
    """An index into the values so far: the latest one half the time (so that the output
    depends on much of the program), else any; shrinks towards the latest (chains)."""
    k = draw(st.integers(0, 2 * (count - 1)))
    return count - 1 - max(0, k - (count - 1))


def _axis_argument(draw: Any, rank: int) -> Any:
    if rank == 0:
        return draw(st.sampled_from([None, []]))
    form = draw(st.sampled_from(["int", "none", "list"]))
    if form == "none":
        return None
    if form == "int":
        return draw(st.integers(-rank, rank - 1))
    axes = draw(st.lists(st.integers(0, rank - 1), unique=True, max_size=rank))
    return [a - rank if draw(st.booleans()) else a for a in axes]  # negative spellings too


def _make_op(draw: Any, values: list[Value], kinds: frozenset, name: str) -> Value:
    a = _pick_recent(draw, len(values))
    x = values[a]
    rank = len(x.fed)
    families = [
        f
        for f in FAMILIES
        if any(k in kinds for k in FAMILIES[f])
        and (f != "softmax" or rank >= 1)
        and (f != "matmul" or rank == 2)
    ]
    # binary ops listed twice: they carry the broadcasting
    family = draw(st.sampled_from(families + [f for f in families if f == "binary"]))
    table = FAMILIES[family]
    kind = draw(st.sampled_from([k for k in table if k in kinds]))
    if family in ("activation", "math", "kink"):
        params = (("infix", draw(st.booleans())),) if kind == "negative" else ()
        return Value(name, kind, (a,), params, x.static, x.fed)
    if family == "binary":
        pairs = []
        for b, y in enumerate(values):
            static, fed = static_broadcast(x.static, y.static), fed_broadcast(x.fed, y.fed)
            if static is not None and fed is not None:
                pairs.append((b, static, fed))
        b, static, fed = pairs[draw(st.integers(0, len(pairs) - 1))]  # shrinks towards x0
        args = (b, a) if draw(st.booleans()) else (a, b)
        return Value(name, kind, args, (("infix", draw(st.booleans())),), static, fed)
    if family == "reduce":
        axis = _axis_argument(draw, rank)
        keepdims = draw(st.booleans())
        axes = normalize_axes(axis, rank)
        return Value(
            name,
            kind,
            (a,),
            (("axis", axis), ("keepdims", keepdims)),
            reduced(x.static, axes, keepdims),
            reduced(x.fed, axes, keepdims),
        )
    if family == "softmax":
        axis = draw(st.integers(-rank, rank - 1))
        return Value(name, kind, (a,), (("axis", axis),), x.static, x.fed)
    # matmul: a 2-D partner whose inner dimension matches (a itself always does, transposed)
    options = []
    for b, y in enumerate(values):
        if len(y.fed) != 2:
            continue
        for ta in (False, True):
            for tb in (False, True):
                rows, inner_a = (x.fed[1], x.fed[0]) if ta else x.fed
                inner_b, cols = (y.fed[1], y.fed[0]) if tb else y.fed
                s_rows, s_inner_a = (x.static[1], x.static[0]) if ta else x.static
                s_inner_b, s_cols = (y.static[1], y.static[0]) if tb else y.static
                if inner_a == inner_b and (
                    s_inner_a is None or s_inner_b is None or s_inner_a == s_inner_b
                ):
                    options.append((b, ta, tb, (s_rows, s_cols), (rows, cols)))
    b, ta, tb, static, fed = options[draw(st.integers(0, len(options) - 1))]
    infix = not ta and not tb and draw(st.booleans())
    return Value(
        name,
        kind,
        (a, b),
        (("transpose_a", ta), ("transpose_b", tb), ("infix", infix)),
        static,
        fed,
    )


@st.composite
def programs(draw: Any, max_ops: int = 8, kinds: frozenset = frozenset(OPS)) -> Program:
    # the broadcast shape of the placeholders: ranks 2 and 3 twice as likely (shrinks to rank 0)
    base = [draw(st.integers(1, 4)) for _ in range(draw(st.sampled_from([0, 1, 2, 3, 2, 3])))]
    values: list[Value] = []
    for i in range(draw(st.integers(1, 3))):
        # the full rank half the time or more, else fewer leading dims (NumPy broadcasting)
        rank = len(base) - max(0, draw(st.integers(0, len(base) + 2)) - 2)
        fed = tuple(1 if draw(st.integers(0, 3)) == 3 else d for d in base[len(base) - rank :])
        static = tuple(None if draw(st.booleans()) else d for d in fed)
        values.append(Value(f"x{i}", "placeholder", (), (), static, fed))
    for k in range(max_ops):
        # after the first op, stop with probability 1/6 (shrinks towards stopping: fewer ops)
        if k > 0 and draw(st.integers(0, 5)) == 0:
            break
        values.append(_make_op(draw, values, kinds, f"v{len(values)}"))
    return Program(tuple(values), draw(st.integers(0, 2**32 - 1)))


def smooth_programs() -> st.SearchStrategy[Program]:
    return programs(max_ops=3, kinds=SMOOTH_KINDS)


@dataclass(frozen=True)
class GradientCase:
    _repr_pretty_ = Program._repr_pretty_
    program: Program
    wrt: tuple[int, ...]

    def __repr__(self) -> str:
        names = ", ".join(self.program.values[i].name for i in self.wrt)
        return (
            self.program.__repr__()
            + "loss = sg.reduce_sum(out * R)  # R: random weights of out's shape\n"
            f"grads = sg.gradients(loss, [{names}])\n"
        )


@st.composite
def gradient_cases(draw: Any) -> GradientCase:
    program = draw(programs())
    # each value (placeholder or intermediate) independently, kept with probability 3/4
    # (shrinks towards all of them; the failing assertion names the x)
    wrt = tuple(i for i in range(len(program.values)) if draw(st.integers(0, 3)) != 3)
    return GradientCase(program, wrt or (program.out,))


# --- running a program ----------------------------------------------------------------------------


def inputs_of(program: Program) -> dict[int, Array]:
    rng = np.random.default_rng(program.seed)
    return {i: rng.standard_normal(program.values[i].fed) for i in program.placeholders}


def interpret(
    program: Program,
    feeds: dict[int, Array],
    delta: dict[int, Array] | None = None,
    frozen: list[Array] | None = None,
) -> tuple[list[Array], list[Array | None]]:
    """NumPy values of every value (and the kink pattern of each op).

    ``delta`` adds a perturbation to chosen values; ``frozen`` (the unperturbed values)
    makes stop_gradient outputs constants, as gradients see them.
    """
    delta = delta or {}
    values: list[Array] = []
    branches: list[Array | None] = []
    with np.errstate(all="ignore"):
        for i, v in enumerate(program.values):
            if v.kind == "placeholder":
                value, branch = np.asarray(feeds[i], dtype=np.float64), None
            else:
                op = OPS[v.kind]
                args = [values[j] for j in v.args]
                if v.kind == "stop_gradient" and frozen is not None:
                    value = frozen[i]
                else:
                    value = np.asarray(op.ref(args, v.p), dtype=np.float64)
                branch = op.branch(args, v.p) if op.branch else None
            if i in delta:
                value = value + delta[i]
            values.append(value)
            branches.append(branch)
    return values, branches


def assume_well_conditioned(values: Sequence[Array]) -> None:
    for value in values:
        assume(np.all(np.isfinite(value)))
        assume(np.all(np.abs(value) <= LIMIT))


def assume_same_branches(base: Sequence[Array | None], other: Sequence[Array | None]) -> None:
    """A finite-difference step must not cross a kink or change an argmax set."""
    for a, b in zip(base, other, strict=False):
        if a is not None:
            assume(np.array_equal(a, b))


@dataclass
class Built:
    tensors: list[Any]  # one symgrad tensor per program value
    frozen: dict[int, Any]  # probe: value index of a stop_gradient -> the placeholder replacing it
    deltas: dict[int, Any]  # probe: value index of an op -> the placeholder added to it


def build(program: Program, probe: bool = False, dtype: Any = sg.float64) -> Built:
    """Evaluate the program's lines (the printed code) in the default graph.

    With ``probe``, every ``stop_gradient(a)`` is replaced by a placeholder ``s_<name>``
    (fed a's value), and every op's value gets ``+ d_<name>``, a placeholder fed a
    perturbation (or zeros).
    """
    namespace: dict[str, Any] = {"sg": sg}
    built = Built([], {}, {})
    for i, v in enumerate(program.values):
        if v.kind == "placeholder":
            tensor = sg.placeholder(dtype, shape=list(v.static), name=v.name)
        elif probe and v.kind == "stop_gradient":
            tensor = built.frozen[i] = sg.placeholder(
                sg.float64, shape=list(v.static), name=f"s_{v.name}"
            )
        else:
            tensor = eval(program.expr(i), namespace)  # the printed program text is what runs
        if probe and v.kind != "placeholder":
            built.deltas[i] = sg.placeholder(sg.float64, shape=list(v.static), name=f"d_{v.name}")
            tensor = tensor + built.deltas[i]
        namespace[v.name] = tensor
        built.tensors.append(tensor)
    return built


def weights(rng: np.random.Generator, shape: Fed) -> Array:
    """Random weights away from 0, of both signs."""
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 1.5, size=shape)


def check_static_shape(tensor: Any, value: Value) -> None:
    """symgrad's static shape is TF's (as ``static_broadcast`` etc. compute it) and fits the fed one."""
    static = tensor.shape
    assert (
        static is not None
        and len(static) == len(value.fed)
        and all(s is None or s == f for s, f in zip(static, value.fed, strict=False))
    ), f"{value.name}: static shape {static} does not fit the run-time shape {value.fed}"
    assert tuple(static) == value.static, (
        f"{value.name}: static shape {static}, TF's rule gives {value.static}"
    )


def note_inputs(program: Program, feeds: dict[int, Array]) -> None:
    note(program.text)
    for i, x in feeds.items():
        note(f"{program.values[i].name} = np.array({x.tolist()!r})")


# --- (a) forward values ---------------------------------------------------------------------------


@profile_settings("forward")
@given(program=programs())
def test_forward_matches_numpy(program: Program) -> None:
    feeds = inputs_of(program)
    note_inputs(program, feeds)
    expected, _ = interpret(program, feeds)
    assume(all(np.all(np.isfinite(v)) for v in expected))
    # A value right at the jump of floor/round/sign is ill-conditioned: any rounding flips it.
    for v in program.values:
        if v.kind in ("floor", "round", "sign"):
            x = expected[v.args[0]]
            jump = {"floor": np.round(x), "round": np.floor(x) + 0.5, "sign": 0.0}[v.kind]
            assume(np.all(np.abs(x - jump) > 1e-8 * (1.0 + np.abs(x))))
    with sg.Graph().as_default():
        tensors = build(program).tensors
        placeholders = [tensors[i] for i in program.placeholders]
        for v, tensor in zip(program.values, tensors, strict=False):
            check_static_shape(tensor, v)
        compiled = sg.compile(tensors[program.out], inputs=placeholders, name="prop_forward")
    got = np.asarray(compiled(*(feeds[i] for i in program.placeholders)))
    want = expected[program.out]
    assert got.shape == want.shape, f"out: shape {got.shape}, NumPy gives {want.shape}"
    assert got.dtype == np.float64, f"out: dtype {got.dtype}"
    # An output that is 0 in exact arithmetic (log of a softmax's sum of 1) is a few roundings of
    # the values it came from: an absolute floor on their scale, not on 0's.
    scale = max([1.0, *(float(np.max(np.abs(v), initial=0.0)) for v in expected)])
    np.testing.assert_allclose(
        got, want, rtol=VALUE_RTOL, atol=1e-14 * scale, err_msg="out: symgrad vs NumPy"
    )


# --- (b) gradients against finite differences -----------------------------------------------------


@profile_settings("gradients")
@given(case=gradient_cases())
def test_gradients_match_finite_differences(case: GradientCase) -> None:
    program, wrt = case.program, case.wrt
    feeds = inputs_of(program)
    note_inputs(program, feeds)
    base, base_branches = interpret(program, feeds)
    assume_well_conditioned(base)
    rng = np.random.default_rng(program.seed + 1)
    out_fed = program.values[program.out].fed
    R = weights(rng, out_fed)
    note(f"R = np.array({R.tolist()!r})")
    order = program.placeholders
    with sg.Graph().as_default():
        tensors = build(program).tensors
        loss = sg.reduce_sum(tensors[program.out] * R)
        grads = sg.gradients(loss, [tensors[i] for i in wrt])
        compiled = sg.compile(
            [tensors[program.out], loss, *grads],
            inputs=[tensors[i] for i in order],
            name="prop_gradients",
        )
    # The probe: the same loss, every op's value plus d_<name>, stop_gradient values fed.
    with sg.Graph().as_default():
        built = build(program, probe=True)
        probe_loss = sg.reduce_sum(built.tensors[program.out] * R)
        frozen, ops = sorted(built.frozen), sorted(built.deltas)
        probe = sg.compile(
            probe_loss,
            inputs=[built.tensors[i] for i in order]
            + [built.frozen[i] for i in frozen]
            + [built.deltas[i] for i in ops],
            name="prop_probe",
        )

    def probe_loss_at(delta: dict[int, Array]) -> float:
        args = [feeds[i] + delta.get(i, 0.0) for i in order]
        args += [base[i] for i in frozen]
        args += [delta.get(i, np.zeros(program.values[i].fed)) for i in ops]
        return float(probe(*args))

    before = {i: np.array(feeds[i], copy=True) for i in order}
    out_value, loss_value, *grad_values = compiled(*(feeds[i] for i in order))
    for i in order:  # the fast form computes in place, but only in arrays it allocated
        np.testing.assert_array_equal(
            feeds[i], before[i], err_msg=f"the call wrote into input {program.values[i].name}"
        )
    np.testing.assert_allclose(
        np.asarray(out_value),
        base[program.out],
        rtol=VALUE_RTOL,
        atol=0,
        err_msg="out (compiled with the gradients) vs NumPy",
    )
    loss_size = float(np.sum(np.abs(base[program.out] * R)))
    np.testing.assert_allclose(
        loss_value, np.sum(base[program.out] * R), rtol=1e-9, atol=1e-12 * loss_size, err_msg="loss"
    )
    for i, grad in zip(wrt, grad_values, strict=False):
        name = program.values[i].name
        if not program.connected(i):
            assert grad is None, (
                f"d loss / d {name}: expected None (no gradient path), got {grad!r}"
            )
            continue
        assert grad is not None, f"d loss / d {name}: got None, but {name} reaches out"
        grad = np.asarray(grad)
        assert grad.shape == base[i].shape, (
            f"d loss / d {name}: shape {grad.shape}, value {base[i].shape}"
        )
        assert grad.dtype == np.float64, f"d loss / d {name}: dtype {grad.dtype}"
        assume(np.all(np.isfinite(grad)) and np.all(np.abs(grad) <= LIMIT))
        direction = rng.standard_normal(base[i].shape)
        for sign in (1.0, -1.0):
            _, branches = interpret(program, feeds, delta={i: sign * H * direction}, frozen=base)
            assume_same_branches(base_branches, branches)

        def central(step: float) -> float:
            return (
                probe_loss_at({i: step * direction}) - probe_loss_at({i: -step * direction})
            ) / (2 * step)

        fd = central(H)
        analytic = float(np.sum(grad * direction))
        scale = float(np.sum(np.abs(grad * direction)))
        tolerance = FD_RTOL * max(scale, abs(fd)) + FD_ATOL * (1.0 + loss_size)
        # A central difference errs by about step**2 * f'''(x) / 6. Where that nears the tolerance
        # (the sine of a value that moves fast, a power of a power), the difference at half the
        # step disagrees with it, and it is no reference for the gradient.
        assume(abs(fd - central(H / 2)) <= tolerance / 4)
        assert abs(analytic - fd) <= tolerance, (
            f"d loss / d {name}: sum(grad * dir) = {analytic!r}, central difference {fd!r} "
            f"(error {abs(analytic - fd):.3g}, tolerance {tolerance:.3g})"
        )


# --- (c) Hessian-vector products ------------------------------------------------------------------


@dataclass(frozen=True)
class HessianCase:
    _repr_pretty_ = Program._repr_pretty_
    program: Program

    def __repr__(self) -> str:
        names = ", ".join(self.program.values[i].name for i in self.program.placeholders)
        return (
            self.program.__repr__()
            + "loss = sg.reduce_sum(out * R)  # R: random weights of out's shape\n"
            f"g = sg.gradients(loss, [{names}])\n"
            f"hv = sg.gradients(sum(sg.reduce_sum(g_i * V_i) for each g_i not None), [{names}])"
            "  # V_i: random directions\n"
        )


@profile_settings("hessian")
@given(case=smooth_programs().map(HessianCase))
def test_hessian_vector_products(case: HessianCase) -> None:
    program = case.program
    feeds = inputs_of(program)
    note_inputs(program, feeds)
    base, _ = interpret(program, feeds)
    assume_well_conditioned(base)
    rng = np.random.default_rng(program.seed + 2)
    R = weights(rng, program.values[program.out].fed)
    order = program.placeholders
    V = {i: rng.standard_normal(program.values[i].fed) for i in order}
    note(f"R = np.array({R.tolist()!r})")
    for i in order:
        note(f"V_{program.values[i].name} = np.array({V[i].tolist()!r})")
    with sg.Graph().as_default():
        tensors = build(program).tensors
        xs = [tensors[i] for i in order]
        loss = sg.reduce_sum(tensors[program.out] * R)
        first = sg.gradients(loss, xs)
        terms = [
            sg.reduce_sum(g * V[i]) for g, i in zip(first, order, strict=False) if g is not None
        ]
        assert terms, "no placeholder reaches out"
        total = terms[0]
        for term in terms[1:]:
            total = total + term
        second = sg.gradients(total, xs)
        compiled = sg.compile([*first, *second], inputs=xs, name="prop_hessian")
    count = len(order)

    def first_at(step: float) -> list[Any]:
        return list(compiled(*(feeds[i] + step * V[i] for i in order)))[:count]

    values = list(compiled(*(feeds[i] for i in order)))
    g_values, hv_values = values[:count], values[count:]
    plus, minus = first_at(H), first_at(-H)
    for k, i in enumerate(order):
        name = program.values[i].name
        reaches = i in program.ancestors(program.out)
        assert (g_values[k] is not None) == reaches, (
            f"d loss / d {name}: {'None' if g_values[k] is None else 'a tensor'}, but {name} "
            f"{'reaches' if reaches else 'does not reach'} out"
        )
        if g_values[k] is None:
            assert hv_values[k] is None, f"Hv for {name}: not None, but {name} has no gradient"
            continue
        g = np.asarray(g_values[k])
        assume(np.all(np.isfinite(g)) and np.all(np.abs(g) <= LIMIT))
        hv = np.zeros(program.values[i].fed) if hv_values[k] is None else np.asarray(hv_values[k])
        assert hv.shape == g.shape, f"Hv for {name}: shape {hv.shape}, expected {g.shape}"
        assume(np.all(np.isfinite(hv)) and np.all(np.abs(hv) <= LIMIT))
        fd = (np.asarray(plus[k]) - np.asarray(minus[k])) / (2 * H)
        scale = max(float(np.max(np.abs(hv), initial=0.0)), float(np.max(np.abs(fd), initial=0.0)))
        tolerance = FD_RTOL * scale + FD_ATOL * (1.0 + float(np.max(np.abs(g), initial=0.0)))
        error = float(np.max(np.abs(hv - fd), initial=0.0))
        assert error <= tolerance, (
            f"Hessian-vector product for {name}: symgrad {hv.tolist()} "
            f"({'None' if hv_values[k] is None else 'a tensor'}), central difference of the compiled "
            f"gradient {fd.tolist()} (max error {error:.3g}, tolerance {tolerance:.3g})"
        )


# --- (d) stop_gradient and unconnected gradients --------------------------------------------------


@dataclass(frozen=True)
class StopCase:
    _repr_pretty_ = Program._repr_pretty_
    program: Program
    u_static: Shape  # an unrelated placeholder
    u_fed: Fed
    extra: int  # the value whose stop_gradient is added to the loss
    zero_spelling: str

    def __repr__(self) -> str:
        names = ", ".join(v.name for v in self.program.values)
        extra = self.program.values[self.extra].name
        return (
            self.program.__repr__()
            + "loss = sg.reduce_sum(out * R)  # R: random weights of out's shape\n"
            f'u = sg.placeholder(sg.float64, shape={fmt_shape(self.u_static)}, name="u")'
            f"  # fed shape {self.u_fed}\n"
            f"sg.gradients(sg.reduce_sum(sg.stop_gradient(out) * R), [{names}])  # all None\n"
            f"sg.gradients(loss, [u])  # [None]\n"
            f"sg.gradients(loss, [u, {names}], unconnected_gradients={self.zero_spelling})"
            "  # zeros where None\n"
            f"loss2 = loss + 3.0 * sg.reduce_sum(sg.stop_gradient({extra}))\n"
            f"sg.gradients(loss2, [{names}])  # == sg.gradients(loss, [{names}])\n"
        )


@st.composite
def stop_cases(draw: Any) -> StopCase:
    program = draw(programs())
    u_fed = tuple(draw(st.lists(st.integers(1, 4), max_size=3)))
    u_static = tuple(None if draw(st.booleans()) else d for d in u_fed)
    extra = draw(st.integers(0, len(program.values) - 1))
    spelling = draw(st.sampled_from(['"zero"', "sg.UnconnectedGradients.ZERO"]))
    return StopCase(program, u_static, u_fed, extra, spelling)


@profile_settings("stop_gradient")
@given(case=stop_cases())
def test_stop_gradient_and_unconnected(case: StopCase) -> None:
    program = case.program
    feeds = inputs_of(program)
    note_inputs(program, feeds)
    base, _ = interpret(program, feeds)
    assume_well_conditioned(base)
    rng = np.random.default_rng(program.seed + 3)
    R = weights(rng, program.values[program.out].fed)
    u_value = rng.standard_normal(case.u_fed)
    order = program.placeholders
    mode = eval(case.zero_spelling, {"sg": sg})  # the spelling shown in the repr
    with sg.Graph().as_default():
        tensors = build(program).tensors
        u = sg.placeholder(sg.float64, shape=list(case.u_static), name="u")
        out = tensors[program.out]
        loss = sg.reduce_sum(out * R)
        stopped = sg.gradients(sg.reduce_sum(sg.stop_gradient(out) * R), tensors)
        assert all(g is None for g in stopped), f"gradients of stop_gradient(out) * R: {stopped}"
        stopped = sg.gradients(sg.stop_gradient(out), tensors)
        assert all(g is None for g in stopped), f"gradients of stop_gradient(out): {stopped}"
        assert sg.gradients(loss, [u]) == [None], "gradient of an unrelated placeholder is not None"
        plain = sg.gradients(loss, tensors)
        zero = sg.gradients(loss, [u, *tensors], unconnected_gradients=mode)
        assert all(g is not None for g in zero), (
            f"unconnected_gradients={case.zero_spelling}: {zero}"
        )
        loss2 = loss + 3.0 * sg.reduce_sum(sg.stop_gradient(tensors[case.extra]))
        extra = sg.gradients(loss2, tensors)
        compiled = sg.compile(
            [*plain, *zero, *extra],
            inputs=[tensors[i] for i in order] + [u],
            name="prop_stop_gradient",
        )
    count = len(tensors)
    values = compiled(*(feeds[i] for i in order), u_value)
    plain_v, zero_v, extra_v = (
        values[:count],
        values[count : 2 * count + 1],
        values[2 * count + 1 :],
    )
    u_grad = np.asarray(zero_v[0])
    assert u_grad.shape == case.u_fed and u_grad.dtype == np.float64 and not np.any(u_grad), (
        f"d loss / d u with unconnected_gradients={case.zero_spelling}: {u_grad!r}, expected zeros{case.u_fed}"
    )
    for i, v in enumerate(program.values):
        connected = program.connected(i)
        assert (plain_v[i] is not None) == connected, (
            f"d loss / d {v.name}: {'None' if plain_v[i] is None else 'a tensor'}, but {v.name} "
            f"{'has' if connected else 'has no'} gradient path to out"
        )
        z = np.asarray(zero_v[i + 1])
        assert z.shape == v.fed and z.dtype == np.float64, (
            f"d loss / d {v.name} (zero mode): shape {z.shape} dtype {z.dtype}, expected {v.fed} float64"
        )
        if plain_v[i] is None:
            assert not np.any(z), f"d loss / d {v.name} (zero mode): {z!r}, expected zeros"
            assert extra_v[i] is None, f"d loss2 / d {v.name}: {extra_v[i]!r}, expected None"
            continue
        p = np.asarray(plain_v[i])
        size = 1e-12 * (1.0 + float(np.max(np.abs(p), initial=0.0)))
        np.testing.assert_allclose(
            z, p, rtol=1e-12, atol=size, err_msg=f"d loss / d {v.name}: zero mode vs none mode"
        )
        assert extra_v[i] is not None, f"d loss2 / d {v.name}: None"
        np.testing.assert_allclose(
            np.asarray(extra_v[i]),
            p,
            rtol=1e-12,
            atol=size,
            err_msg=f"d loss2 / d {v.name} vs d loss / d {v.name}",
        )


# --- (e) fetched dtypes are static dtypes ---------------------------------------------------------


@dataclass(frozen=True)
class MixedCase:
    _repr_pretty_ = Program._repr_pretty_
    single: Program  # built with float32 placeholders
    double: Program  # built with float64 placeholders

    def __repr__(self) -> str:
        return "\n# float32:" + self.single.__repr__() + "# float64:" + self.double.__repr__()


@st.composite
def mixed_cases(draw: Any) -> MixedCase:
    single = draw(programs(max_ops=5))
    return MixedCase(single, single if draw(st.booleans()) else draw(programs(max_ops=5)))


@profile_settings("dtype")
@given(case=mixed_cases())
def test_fetched_dtypes_are_static_dtypes(case: MixedCase) -> None:
    note(repr(case))
    with sg.Graph().as_default():
        fetches, expected = [], []
        placeholders, feeds, losses = [], [], []
        for program, dtype in ((case.single, sg.float32), (case.double, sg.float64)):
            with sg.name_scope(dtype.name):
                tensors = build(program, dtype=dtype).tensors
            values = inputs_of(program)
            for i in program.placeholders:
                placeholders.append(tensors[i])
                feeds.append(values[i].astype(dtype.numpy))
            # TF's rule: every op of a program computes in its placeholders' dtype.
            for value, tensor in zip(program.values, tensors, strict=False):
                assert tensor.dtype == dtype, f"{value.name}: static dtype {tensor.dtype}"
            loss = sg.reduce_sum(tensors[program.out])
            losses.append(loss)
            xs = list(tensors)
            fetches += tensors + sg.gradients(loss, xs)
            expected += [dtype] * (2 * len(tensors))
        joined = sg.cast(losses[0], sg.float64) + losses[1]
        fetches += sg.gradients(joined, placeholders)
        expected += [x.dtype for x in placeholders]
        live = [(f, want) for f, want in zip(fetches, expected, strict=False) if f is not None]
        for tensor, want in live:
            assert tensor.dtype == want, f"{tensor.name}: static dtype {tensor.dtype}, TF {want}"
        compiled = sg.compile([f for f, _ in live], inputs=placeholders, name="prop_dtype")
    with np.errstate(all="ignore"):
        got = compiled(*feeds)
    for (tensor, want), value in zip(live, got, strict=False):
        assert np.asarray(value).dtype == want.numpy, (
            f"{tensor.name}: fetched {np.asarray(value).dtype}, static dtype {want.name}"
        )
