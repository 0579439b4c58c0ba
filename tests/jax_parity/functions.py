"""Random scalar functions of pytrees, written once for any array library.

Each function is drawn from a seed: its arguments (a dict, list or tuple of
parameters, and data), a chain of elementwise ops after an affine map, the
reduction to a scalar, the auxiliary outputs and the ``argnums`` to
differentiate. ``make(seed, ops)`` builds it over ``ops``, a small table of the
library's functions, so that JAX (recorded by ``record_jax.py``) and symgrad
run the same function.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

COUNT = 20

UNARY = ["tanh", "sin", "cos", "sigmoid", "softplus", "square", "log1p_square", "exp_half"]


def describe(tree: Any) -> Any:
    """The container structure of a pytree as JSON (leaves are ``"*"``)."""
    if type(tree) in (tuple, list):
        return {type(tree).__name__: [describe(child) for child in tree]}
    if type(tree) is dict:
        return {"dict": {str(key): describe(tree[key]) for key in sorted(tree)}}
    return "*"


def make(seed: int, ops: dict[str, Callable[..., Any]]) -> tuple[Callable[..., Any], tuple, Any]:
    """(function, NumPy arguments, argnums) for ``seed`` over the ops table ``ops``."""
    pick = random.Random(seed)
    data = np.random.default_rng(seed)
    rows, n, m = pick.choice([1, 3]), pick.choice([2, 3]), pick.choice([1, 2])
    w = data.standard_normal((n, m)) * 0.5
    b = data.standard_normal(m) * 0.5
    s = np.float64(data.uniform(0.5, 1.5))
    x = data.standard_normal((rows, n))
    layout = pick.choice(["dict", "list", "tuple"])
    chain = [pick.choice(UNARY) for _ in range(pick.randint(1, 3))]
    reduce = pick.choice(["sum", "mean"])
    scaled = pick.random() < 0.5
    aux_kind = pick.choice(["dict", "tuple", "array"])
    argnums = pick.choice([0, 1, (0, 1), (1, 0)])

    if layout == "dict":
        params: Any = {"w": w, "b": b, "s": s}
    elif layout == "list":
        params = [w, b, s]
    else:
        params = (w, (b, s))

    def unpack(p: Any) -> tuple[Any, Any, Any]:
        if layout == "dict":
            return p["w"], p["b"], p["s"]
        if layout == "list":
            return p[0], p[1], p[2]
        return p[0], p[1][0], p[1][1]

    def fn(p: Any, x: Any) -> Any:
        w, b, s = unpack(p)
        z = ops["matmul"](x, w) + b
        h = z
        for name in chain:
            h = ops[name](h)
        if scaled:
            h = h * s
        value = ops[reduce](h)
        if aux_kind == "dict":
            aux: Any = {"h": h, "z_sum": ops["sum"](z)}
        elif aux_kind == "tuple":
            aux = (ops["mean"](h * h), [z])
        else:
            aux = h
        return value, aux

    return fn, (params, x), argnums


def unary_table(base: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """The full ops table from a library's primitives (``exp``, ``log1p``, ...)."""
    table = dict(base)
    table["square"] = lambda v: v * v
    table["log1p_square"] = lambda v: base["log1p"](v * v)
    table["exp_half"] = lambda v: base["exp"](0.5 * v)
    return table
