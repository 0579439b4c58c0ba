"""The Program: SSA statements whose right-hand sides are SymPy expressions.

This is what the tracer produces, the optimizer rewrites, and the emitter
prints. Every statement carries its static shape and dtype.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import sympy as sp

from .dtypes import DType
from .shapes import Shape, format_shape


@dataclass(frozen=True)
class Input:
    """A parameter of the generated function (a placeholder or a variable)."""

    name: str
    symbol: sp.Symbol
    shape: Shape
    dtype: DType
    kind: str  # "placeholder" | "variable"
    tensor_name: str


@dataclass(frozen=True)
class ConstantArray:
    """A non-scalar constant, bound once at module level."""

    name: str
    symbol: sp.Symbol
    value: np.ndarray
    dtype: DType


@dataclass(frozen=True)
class Statement:
    """``name = expr``. ``section`` is "forward", "gradient" or "update".

    A ``temporary`` (a common subexpression) has the dtype NumPy gives its
    expression (a name, possibly ``weak_*``) and is never converted.
    """

    name: str
    symbol: sp.Symbol
    expr: sp.Expr
    shape: Shape
    dtype: Any
    section: str
    tensor_name: str = ""
    temporary: bool = False
    comment: str = ""  # provenance shown above the statement (naming.provenance_comment)

    def with_expr(self, expr: sp.Expr) -> Statement:
        return replace(self, expr=expr)


@dataclass(frozen=True)
class Output:
    name: str
    symbol: sp.Symbol
    shape: Shape
    dtype: DType
    tensor_name: str


@dataclass(frozen=True)
class Loop:
    """How a loop function runs the functions of its body (printed by each backend).

    ``kind`` is ``"while"`` (call ``body`` while ``condition`` holds) or ``"scan"`` (call
    ``body`` once per row of the sequences, backwards with ``reverse``). Its parameters are
    ``carried`` (the values passed from step to step), ``sequences`` (each with None for an
    array read a row a step, or n for a saved trace whose steps are n values each),
    ``captured`` (passed to the condition and to every call of the body, which both take all
    of them) and ``limit`` (a while loop's ``maximum_iterations``, or ""). A scan stacks ``outputs`` per-step results; ``saves``
    makes the loop also return its trace, the carried values of each step in the order of
    the rows, for its gradient.
    """

    kind: str
    carried: tuple[str, ...]
    sequences: tuple[tuple[str, int | None], ...]
    captured: tuple[str, ...]
    condition: str
    body: str
    outputs: tuple[str, ...]
    saves: bool
    reverse: bool
    limit: str
    trace: str  # the local names of the trace and of the step counter
    step: str
    draws: tuple[str, ...] = ()  # what a step saves besides its carried values (draws, ...)
    rng: bool = False  # the condition and the body take the random source ``rng``
    cuts: tuple[bool, ...] = ()  # per sequence: a trace whose steps hold more than it takes
    # Carried values whose unknown sizes the body's code takes as the start's (checked after
    # each step, as ``_kept_shapes``), and the local name of their shapes at the start.
    kept: tuple[str, ...] = ()
    shapes: str = ""


@dataclass(frozen=True)
class Function:
    """A function the generated one calls: a body (a branch of a ``cond``, a loop's
    condition or body) traced into its own ``program``, or a ``loop`` that calls such
    bodies. ``description`` is its docstring's first line."""

    name: str
    description: str
    program: Program | None = None
    loop: Loop | None = None
    parameters: tuple[str, ...] = ()
    returns_tuple: bool = False  # a branch returns a tuple even of one value
    takes_rng: bool = False  # its last parameter is the random source ``rng``


@dataclass
class Program:
    name: str
    inputs: list[Input]
    constants: list[ConstantArray]
    statements: list[Statement]
    outputs: list[Output]
    graph_name: str = ""
    # Where the graph came from, as the module's docstring lists it (an imported TF model's
    # files and their SHA-256): lines of text, empty for a graph built in Python.
    provenance: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    # The run-time shape signature of each input, constant and traced statement
    # (symgrad.shapes.Signature), where the tracer could tell it, and of its kernel calls.
    naturals: dict[sp.Expr, Any] = field(default_factory=dict)
    # The names of the random ops whose draws the function makes, one per stream of its
    # ``rng`` argument, in order (symgrad.ops.random_ops).
    random_streams: list[str] = field(default_factory=list)
    # The functions the program's statements call (loops and their bodies, branches), in
    # the order they were traced: a body before the functions that call it.
    functions: list[Function] = field(default_factory=list)

    def dtypes_by_symbol(self) -> dict:
        table = {i.symbol: i.dtype for i in self.inputs}
        table.update({c.symbol: c.dtype for c in self.constants})
        table.update({s.symbol: s.dtype for s in self.statements})
        return table

    def shapes_by_symbol(self) -> dict:
        table = {i.symbol: i.shape for i in self.inputs}
        table.update({c.symbol: tuple(c.value.shape) for c in self.constants})
        table.update({s.symbol: s.shape for s in self.statements})
        return table

    def dump(self) -> str:
        """The program as text, one line per statement (for debugging)."""
        lines = [f"program {self.name}"]
        lines += [f"  input {i.name}: {i.dtype.name}{format_shape(i.shape)}" for i in self.inputs]
        lines += [
            f"  const {c.name}: {c.dtype.name}{format_shape(c.value.shape)}" for c in self.constants
        ]
        lines += [
            f"  [{s.section}] {s.name}: {getattr(s.dtype, 'name', s.dtype)}{format_shape(s.shape)} = {s.expr}"
            for s in self.statements
        ]
        lines += [f"  output {o.name}" for o in self.outputs]
        return "\n".join(lines)
