"""The four tutorial programs in ``examples/seed`` against NumPy and TensorFlow 1.

Each program is run as it is (``runpy.run_path``) after ``np.random.seed(0)``
and ``symgrad.reset_default_graph()``, with its stdout captured.  What it
prints is compared with

* an independent float32 NumPy computation of the same training (programs 1, 2),
* the known values of the tutorial (programs 3, 4),
* what TensorFlow printed for the same programs, recorded by
  ``tf_parity/record_seed_programs.py`` in ``tf_parity/seed_program_outputs.json``.

The generated modules, written to ``SYMGRAD_CODEGEN_DIR``, must import numpy only.
"""

from __future__ import annotations

import ast
import json
import re
import runpy
from pathlib import Path

import numpy as np
import pytest

import symgrad

ROOT = Path(__file__).resolve().parents[1]
SEED_DIR = ROOT / "examples" / "seed"
RECORDED = json.loads(
    (Path(__file__).parent / "tf_parity" / "seed_program_outputs.json").read_text(encoding="utf-8")
)
SEED = 0
RTOL = 1e-5
STEPS = 20

# A number that is not part of an identifier: the ``32`` of ``np.float32(...)`` is skipped.
_FLOAT = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_EPOCH = re.compile(r"^epoch: (\d+) \t loss: (.+?) \t gradients: (.+)$")
_GRADIENT_LIST = re.compile(
    r"^\[None, <(?P<module>[\w.]+)\.Tensor '(?P<name>gradients/[^']+)' "
    r"shape=(?P<shape>\([^)]*\)) dtype=(?P<dtype>\w+)>\]$"
)


def floats(text: str) -> list[float]:
    """The numbers in ``text``, whether printed as ``-0.46`` or ``np.float32(-0.46)``."""
    return [float(token) for token in _FLOAT.findall(text)]


def parse_epochs(text: str) -> tuple[np.ndarray, np.ndarray]:
    """Losses and "gradients" numbers of the 20 ``epoch: i \\t loss: L \\t gradients: G`` lines."""
    lines = text.splitlines()
    assert len(lines) == STEPS, text
    losses, gradients = [], []
    for i, line in enumerate(lines):
        match = _EPOCH.match(line)
        assert match, f"line {i} is not an epoch line: {line!r}"
        assert int(match.group(1)) == i, line
        loss = floats(match.group(2))
        assert len(loss) == 1, line
        gradient = floats(match.group(3))
        assert len(gradient) == 1, line
        losses.append(loss[0])
        gradients.append(gradient[0])
    return np.array(losses), np.array(gradients)


def reference_training() -> dict[str, np.ndarray]:
    """The seed programs' training in float32 NumPy, one sample per step.

    The same draws as the programs after ``np.random.seed(0)``; every value is
    computed from ``w`` and ``b`` at the start of the step.
    """
    np.random.seed(SEED)
    x_pure = np.random.randint(-10, 100, 32)
    x_train = x_pure + np.random.randn(32) / 32
    y_train = 3 * x_pure + 2 + np.random.randn(32) / 32
    w, b = np.float32(2.0), np.float32(1.0)
    learning_rate = np.float32(0.01)
    losses, grads_w, new_bs = [], [], []
    for i in range(STEPS):
        x, y = np.float32(x_train[i]), np.float32(y_train[i])
        residual = y - (x * w + b)
        loss = residual * residual / np.float32(64)
        grad_w = -x * residual / np.float32(32)
        grad_b = -residual / np.float32(32)
        w, b = w - learning_rate * grad_w, b - learning_rate * grad_b
        assert all(v.dtype == np.float32 for v in (loss, grad_w, grad_b, w, b))
        losses.append(loss)
        grads_w.append(grad_w)
        new_bs.append(b)
    return {
        "loss": np.array(losses, dtype=np.float32),
        "grad_w": np.array(grads_w, dtype=np.float32),
        "new_b": np.array(new_bs, dtype=np.float32),
    }


@pytest.fixture
def run_seed_program(capsys, monkeypatch, tmp_path):
    """Run ``examples/seed/<name>.py``; return its stdout and the generated modules."""
    saved_state = np.random.get_state()

    def run(name: str) -> tuple[str, list[Path]]:
        codegen_dir = tmp_path / "codegen"
        codegen_dir.mkdir()
        monkeypatch.setenv("SYMGRAD_CODEGEN_DIR", str(codegen_dir))
        capsys.readouterr()
        symgrad.reset_default_graph()
        np.random.seed(SEED)
        runpy.run_path(str(SEED_DIR / f"{name}.py"), run_name="__main__")
        out = capsys.readouterr().out
        return out, sorted(codegen_dir.rglob("*.py"))

    yield run
    np.random.set_state(saved_state)
    symgrad.reset_default_graph()


def tensorflow_output(name: str) -> str:
    assert RECORDED["seed"] == SEED
    return RECORDED["programs"][name]


def check_generated_modules(files: list[Path]) -> None:
    """At least one module was written, and each one imports numpy and nothing else."""
    assert files, "the Session wrote no generated module to SYMGRAD_CODEGEN_DIR"
    for path in files:
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add("." * node.level + (node.module or ""))
        assert imported == {"numpy"}, f"{path.name} imports {sorted(imported)}"


@pytest.mark.parametrize(
    "name, printed", [("program_1_optimizer", "grad_w"), ("program_2_manual_update", "new_b")]
)
def test_training_programs(run_seed_program, name, printed):
    # Program 1 prints [d loss/d w]; program 2 fetches [new_w, new_b, loss_op] into
    # `_, gradients, loss`, so its "gradients" is the new value of b.
    out, files = run_seed_program(name)
    losses, gradients = parse_epochs(out)
    if name == "program_1_optimizer":
        assert all(line.split("gradients: ")[1].startswith("[") for line in out.splitlines())

    reference = reference_training()
    np.testing.assert_allclose(
        losses, reference["loss"], rtol=RTOL, atol=0, err_msg=f"{name}: loss vs NumPy float32"
    )
    np.testing.assert_allclose(
        gradients,
        reference[printed],
        rtol=RTOL,
        atol=0,
        err_msg=f"{name}: gradients vs NumPy float32 ({printed})",
    )

    tf_losses, tf_gradients = parse_epochs(tensorflow_output(name))
    np.testing.assert_allclose(
        losses, tf_losses, rtol=RTOL, atol=0, err_msg=f"{name}: loss vs TensorFlow"
    )
    np.testing.assert_allclose(
        gradients, tf_gradients, rtol=RTOL, atol=0, err_msg=f"{name}: gradients vs TensorFlow"
    )
    check_generated_modules(files)


def test_program_3_intermediate_xs(run_seed_program):
    out, files = run_seed_program("program_3_intermediate_xs")
    lines = out.splitlines()
    assert len(lines) == 1, out
    assert floats(lines[0]) == [3.0, 1.0], lines[0]
    tf_lines = tensorflow_output("program_3_intermediate_xs").splitlines()
    assert len(tf_lines) == 1
    assert floats(lines[0]) == floats(tf_lines[0]), (lines[0], tf_lines[0])
    check_generated_modules(files)


def test_program_4_stop_gradient(run_seed_program):
    out, files = run_seed_program("program_4_stop_gradient")
    lines = out.splitlines()
    tf_lines = tensorflow_output("program_4_stop_gradient").splitlines()
    assert len(lines) == len(tf_lines) == 2, (out, tf_lines)

    # Experiment 1: no gradient through stop_gradient for w1, a scalar float32 tensor for w2.
    assert lines[0].startswith("[None, <symgrad.Tensor 'gradients/"), lines[0]
    ours, theirs = _GRADIENT_LIST.match(lines[0]), _GRADIENT_LIST.match(tf_lines[0])
    assert ours, lines[0]
    assert theirs, tf_lines[0]
    assert (ours["module"], theirs["module"]) == ("symgrad", "tf")
    assert ours["shape"] == theirs["shape"] == "()"
    assert ours["dtype"] == theirs["dtype"] == "float32"

    # Experiment 2: the gradient reaches a and b through d.
    assert floats(lines[1]) == [1.0, 1.0], lines[1]
    assert floats(lines[1]) == floats(tf_lines[1]), (lines[1], tf_lines[1])
    check_generated_modules(files)
