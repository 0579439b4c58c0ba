"""Notebook reprs of compiled modules: an input/output table and the formulas."""

from __future__ import annotations

import symgrad as sg


def _module() -> sg.CompiledModule:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[None], name="x_in")
        w = sg.Variable(2.0, dtype=sg.float64, name="weight")
        loss = sg.reduce_sum(sg.square(x * w))
        return sg.compile({"loss": loss, "d_weight": sg.gradients(loss, w)[0]}, name="<b>m</b>")


def test_html_has_the_table_and_escaped_names() -> None:
    text = _module()._repr_html_()
    assert "<td>input</td><td>x_in</td><td>placeholder</td><td>float64</td><td>(None,)</td>" in text
    assert "<td>output</td><td>d_weight</td><td></td><td>float64</td><td>()</td>" in text
    assert "<b>m</b>" not in text  # the graph name never reaches the page unescaped
    assert text.count("$$") == 4


def test_latex_aligns_one_formula_per_output() -> None:
    text = _module()._repr_latex_()
    assert text.startswith("$\\begin{aligned}") and text.endswith("\\end{aligned}$")
    assert "\\texttt{loss} &= " in text and "\\texttt{d\\_weight} &= " in text
    assert text.count("\\\\") == 1
