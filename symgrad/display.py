"""Notebook display of a compiled module: its inputs, outputs and formulas.

``CompiledModule._repr_html_`` and ``_repr_latex_`` come from here, so a
module left as the last expression of a notebook cell shows a table of its
inputs and outputs (name, kind, dtype, shape) and the formula of every output,
typeset by the notebook's MathJax.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(sg.float64, shape=[], name="x")
...     f = sg.compile({"y": sg.sin(x)}, name="sine")
>>> print(f._repr_latex_())
$\\begin{aligned}\\texttt{y} &= \\sin{\\left(x \\right)} \\quad \\text{()}\\end{aligned}$
"""

from __future__ import annotations

import html
from typing import Any

import sympy as sp

from .explain import formulas, readable
from .program import Program
from .whiteboard import Whiteboard


def _latex_name(name: str) -> str:
    """An output name as LaTeX text (underscores and other specials escaped)."""
    specials = {ch: "\\" + ch for ch in "_&%$#{}"}
    return "\\texttt{" + "".join(specials.get(ch, ch) for ch in name) + "}"


def formula_lines(program: Program, board: Whiteboard | None = None) -> list[tuple[str, str]]:
    """``(name, LaTeX of its formula)``: the whiteboard's formulas, each with its shape, where
    there is one, else every output written in the inputs."""
    if board is not None:
        return [
            (formula.name, f"{tex} \\quad \\text{{{shape}}}")
            for formula, (_, tex, shape) in zip(board.formulas, board.latex_lines(), strict=True)
        ]
    return [
        (name, sp.latex(readable(expr))) for name, expr in formulas(program, expand=True).items()
    ]


def module_latex(program: Program, board: Whiteboard | None = None) -> str:
    """The formulas of ``program``'s outputs as one aligned LaTeX block."""
    rows = " \\\\ ".join(f"{_latex_name(n)} &= {tex}" for n, tex in formula_lines(program, board))
    return f"$\\begin{{aligned}}{rows}\\end{{aligned}}$"


def _shape_text(shape: Any) -> str:
    return "any shape" if shape is None else str(tuple(shape))


def module_html(program: Program, path: Any, board: Whiteboard | None = None) -> str:
    """An HTML summary: the function's name, a table of inputs and outputs, the formulas."""
    rows = []
    for item in program.inputs:
        rows.append(("input", item.name, item.kind, item.dtype.name, _shape_text(item.shape)))
    for output in program.outputs:
        rows.append(("output", output.name, "", output.dtype.name, _shape_text(output.shape)))
    cells = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    table = (
        "<table><thead><tr><th></th><th>name</th><th>kind</th><th>dtype</th><th>shape</th>"
        f"</tr></thead><tbody>{cells}</tbody></table>"
    )
    formulas_html = "".join(
        f"<div>$${html.escape(_latex_name(n))} = {html.escape(tex)}$$</div>"
        for n, tex in formula_lines(program, board)
    )
    return (
        f"<div><p><b>symgrad module</b> <code>{html.escape(program.name)}</code> "
        f"(<code>{html.escape(str(path))}</code>)</p>{table}{formulas_html}</div>"
    )
