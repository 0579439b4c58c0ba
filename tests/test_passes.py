"""The optimizer as named passes: each runs alone on a Program, and the list is the pipeline."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import symgrad as sg
from symgrad import errors, passes
from symgrad.compiler import trace
from symgrad.ops import functions as F
from symgrad.program import Program

ROOT = Path(__file__).resolve().parents[1]


def _regression() -> tuple[sg.CompiledModule, Program]:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[8], name="x")
        y = sg.placeholder(sg.float64, shape=[8], name="y")
        w = sg.Variable(2.0, dtype=sg.float64, name="w")
        loss = sg.reduce_mean(sg.square(x * w - y))
        grad = sg.gradients(loss, w)[0]
        compiled = sg.compile({"loss": loss, "d_w": grad}, name="regression")
        traced = trace([("loss", loss), ("d_w", grad)], compiled.input_tensors, "regression")
    return compiled, traced


@pytest.mark.parametrize("step", passes.PASSES + passes.FAST_PASSES, ids=lambda p: p.name)
def test_each_pass_runs_alone_and_keeps_every_output_defined(step: passes.Pass) -> None:
    _, traced = _regression()
    after = step.run(traced)
    assert isinstance(after, Program)
    defined = {i.symbol for i in after.inputs} | {s.symbol for s in after.statements}
    for output in after.outputs:
        assert sp.sympify(output.symbol).free_symbols <= defined, step.name


def test_the_pipeline_is_what_compile_runs() -> None:
    compiled, traced = _regression()
    assert run_names() == passes.pass_names()
    assert passes.run_passes(traced, fast=False).statements == compiled.program.statements


def run_names() -> list[str]:
    return [p.name for p in passes.PASSES + passes.FAST_PASSES]


def test_blas_reductions_alone_turns_a_sum_of_squares_into_a_dot_product() -> None:
    compiled, _ = _regression()
    before = compiled.program_after("cse")
    after = passes.FAST_PASSES[1].run(before)
    assert passes.FAST_PASSES[1].name == "blas-reductions"
    assert not any(s.expr.has(F.Dot) for s in before.statements)
    assert any(s.expr.has(F.Dot) for s in after.statements)


def test_program_after_each_pass_and_an_unknown_pass() -> None:
    compiled, _ = _regression()
    for name in passes.pass_names():
        assert compiled.program_after(name).outputs
    assert compiled.program_after("cse").statements == compiled.program.statements
    with pytest.raises(errors.InvalidArgumentError, match="no pass named 'fusion'"):
        compiled.program_after("fusion")
    assert np.isfinite(compiled(np.ones(8), np.ones(8))["loss"])


def test_show_after_prints_the_program_after_that_pass(tmp_path: Path) -> None:
    script = tmp_path / "model.py"
    script.write_text(
        textwrap.dedent("""
            import symgrad as sg

            def norm():
                x = sg.placeholder(sg.float64, shape=[5], name="x")
                return sg.reduce_sum(x * x)
            """)
    )
    command = [sys.executable, "-m", "symgrad", "show", "--after"]
    shown = {
        name: subprocess.run(
            [*command, name, f"{script}:norm"], capture_output=True, text=True, cwd=tmp_path
        )
        for name in ("cse", "blas-reductions")
    }
    for run in shown.values():
        assert run.returncode == 0, run.stderr
        assert run.stdout.startswith("program norm")
    assert "sum(x**2)" in shown["cse"].stdout
    assert "Dot(" not in shown["cse"].stdout and "x @ x" in shown["blas-reductions"].stdout


def test_cse_drops_a_temporary_whose_uses_cancel() -> None:
    """``c*(-2*s + 2*x) + c*(2*s - 2*x)`` shares ``2*s - 2*x`` and then cancels to 0: the
    temporary has no use left (a Hessian-vector product the property tests drew)."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[1], name="x")
        difference = sg.squared_difference(sg.reduce_sum(x, axis=0, keepdims=True), x)
        loss = sg.reduce_sum(difference * np.array([0.8]))
        gradient = sg.gradients(loss, [x])[0]
        hessian_vector = sg.gradients(sg.reduce_sum(gradient * np.array([-0.4])), [x])[0]
        compiled = sg.compile([loss, gradient, hessian_vector], inputs=[x])
    loss_value, gradient_value, hessian_vector_value = compiled(np.array([0.125]))
    assert loss_value == 0.0
    np.testing.assert_array_equal(gradient_value, [0.0])
    np.testing.assert_array_equal(hessian_vector_value, [0.0])


def test_a_shared_temporary_of_masks_keeps_a_float32_gradient_float32() -> None:
    """The tie masks of ``maximum(x, x)``'s gradient, shared by two float32 gradients, are one
    CSE temporary: printed as float64 numbers they made both gradients float64 (the property
    tests' mixed-dtype programs drew this)."""
    with sg.Graph().as_default():
        losses, placeholders, gradients = [], [], []
        for dtype in (sg.float32, sg.float64):
            x = sg.placeholder(dtype, shape=[3], name=f"{dtype.name}_x")
            loss = sg.reduce_sum(sg.tanh(sg.maximum(x, x)))
            losses.append(loss)
            placeholders.append(x)
            gradients += sg.gradients(loss, [x])
        joined = sg.cast(losses[0], sg.float64) + losses[1]
        gradients += sg.gradients(joined, placeholders)
        for optimize in (True, False):
            compiled = sg.compile(gradients, inputs=placeholders, optimize=optimize)
            values = compiled(np.ones(3, np.float32) * 0.5, np.ones(3) * 0.5)
            assert [v.dtype for v in values] == [np.float32, np.float64, np.float32, np.float64]
            np.testing.assert_allclose(values[0], 1 - np.tanh(0.5) ** 2, rtol=1e-6)
