"""The generated module as a product: standalone, deterministic, checked inputs, linear size."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg

ROOT = Path(__file__).resolve().parents[1]


def _linear_regression(path: Path) -> sg.CompiledModule:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[None], name="x_input")
        y = sg.placeholder(sg.float64, shape=[None], name="y_input")
        w = sg.Variable(2.0, dtype=sg.float64, name="weight")
        b = sg.Variable(1.0, dtype=sg.float64, name="biases")
        loss = sg.reduce_mean(sg.square(y - (x * w + b)))
        return sg.compile([loss] + sg.gradients(loss, [w, b]), name="linear_regression", path=path)


def test_runs_where_only_numpy_is_importable(tmp_path: Path) -> None:
    compiled = _linear_regression(tmp_path / "linear_regression.py")
    x, y = np.linspace(-1, 1, 7), np.linspace(0, 3, 7)
    expected = compiled(x, y, 0.5, -0.25)
    script = textwrap.dedent(f"""
        import sys
        for blocked in ("symgrad", "sympy", "jinja2", "mpmath"):
            sys.modules[blocked] = None  # any import of these now fails
        import importlib.util, json
        import numpy as np
        spec = importlib.util.spec_from_file_location("generated", {str(compiled.path)!r})
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        x, y = np.linspace(-1, 1, 7), np.linspace(0, 3, 7)
        print(json.dumps([float(v) for v in module.linear_regression(x, y, 0.5, -0.25)]))
        """)
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert np.allclose(eval(result.stdout), [float(v) for v in expected], rtol=1e-14)
    assert (
        "import sympy" not in compiled.source and "symgrad" not in compiled.source.split('"""')[2]
    )


def test_imports_only_numpy_and_the_standard_library(tmp_path: Path) -> None:
    import ast

    tree = ast.parse(_linear_regression(tmp_path / "m.py").source)
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"numpy", "base64"}


def test_same_source_for_every_hash_seed(tmp_path: Path) -> None:
    digests = []
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(ROOT))
        run = subprocess.run(
            [
                sys.executable,
                str(ROOT / "tests" / "scripts" / "generate_sources.py"),
                str(tmp_path / seed),
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 0, run.stderr
        digests.append(run.stdout)
    assert "chain" in digests[0] and "seed_3_intermediate_xs.py" in digests[0]
    assert digests[0] == digests[1] == digests[2]


def test_checks_input_shapes_and_types(tmp_path: Path) -> None:
    compiled = _linear_regression(tmp_path / "m.py")
    with pytest.raises(ValueError, match=r"input 'weight': expected shape \(\), got \(2,\)"):
        compiled([1.0], [2.0], [1.0, 2.0], 0.0)
    with pytest.raises(
        ValueError, match=r"input 'x_input': expected shape \(None,\), got \(2, 2\)"
    ):
        compiled(np.ones((2, 2)), [2.0], 1.0, 0.0)
    with pytest.raises(
        ValueError, match="input 'y_input': expected numbers convertible to float64"
    ):
        compiled([1.0], ["a"], 1.0, 0.0)
    # None dims accept any size; ints are cast to the graph dtype.
    loss, d_w, d_b = compiled(np.arange(5), np.arange(5) * 2, 2, 0)
    assert loss == 0.0 and d_w == 0.0 and isinstance(loss, np.float64)

    # NumPy scalars: one of the graph's dtype passes as it is, another is converted, and a
    # scalar where a vector is declared is refused like any other wrong shape.
    x, y = np.linspace(-1, 1, 7), np.linspace(0, 3, 7)
    expected = compiled(x, y, np.array(0.5), np.array(-0.25))
    for weight, bias in [
        (np.float64(0.5), np.float64(-0.25)),
        (np.float32(0.5), np.float16(-0.25)),
        (np.int64(0) + 0.5, -0.25),
    ]:
        assert compiled(x, y, weight, bias) == expected
    with pytest.raises(ValueError, match=r"input 'x_input': expected shape \(None,\), got \(\)"):
        compiled(np.float64(1.0), y, 0.5, -0.25)
    with pytest.raises(ValueError, match="input 'weight': expected numbers convertible"):
        compiled(x, y, np.str_("a"), -0.25)


def test_float32_graphs_give_float32_results(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, shape=[3], name="x")
        y = sg.reduce_sum(sg.sigmoid(x) * 0.1 + x**2 / 3)
        compiled = sg.compile([y] + sg.gradients(y, x), path=tmp_path / "f32.py")
    value, grad = compiled(np.array([0.5, -1.0, 2.0]))
    assert value.dtype == np.float32 and grad.dtype == np.float32


def _chain_source(layers: int, tmp_path: Path) -> sg.CompiledModule:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[None], name="x")
        z, params = x, []
        for k in range(layers):
            w = sg.Variable(1.0 + 0.001 * k, dtype=sg.float64, name=f"w{k}")
            b = sg.Variable(0.01, dtype=sg.float64, name=f"b{k}")
            params += [w, b]
            z = sg.tanh(z * w + b)
        loss = sg.reduce_sum(z)
        return sg.compile(
            [loss] + sg.gradients(loss, params),
            name=f"chain{layers}",
            path=tmp_path / f"chain{layers}.py",
        )


def test_deep_chain_compiles_to_linear_size_and_exact_gradients(tmp_path: Path) -> None:
    compiled = _chain_source(200, tmp_path)
    doubled = _chain_source(400, tmp_path)
    lines, doubled_lines = compiled.source.count("\n"), doubled.source.count("\n")
    assert doubled_lines <= 2.2 * lines
    # Against hand-written backpropagation.
    x = np.linspace(-2, 2, 11)
    ws, bs = 1.0 + 0.001 * np.arange(200), np.full(200, 0.01)
    activations = [x]
    for w, b in zip(ws, bs, strict=False):
        activations.append(np.tanh(activations[-1] * w + b))
    grad, d_w, d_b = np.ones_like(x), np.zeros(200), np.zeros(200)
    for k in reversed(range(200)):
        local = grad * (1 - activations[k + 1] ** 2)
        d_w[k], d_b[k] = np.sum(local * activations[k]), np.sum(local)
        grad = local * ws[k]
    loss, *grads = compiled(x)
    assert np.isclose(loss, np.sum(activations[-1]), rtol=1e-13)
    np.testing.assert_allclose(grads[0::2], d_w, rtol=1e-12)
    np.testing.assert_allclose(grads[1::2], d_b, rtol=1e-12)


def test_discarded_where_branches_do_not_warn(tmp_path: Path) -> None:
    import warnings

    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[3], name="x")
        y = sg.where(x > 0, sg.log(x), sg.exp(x * 1000.0))
        value_only = sg.compile(y, path=tmp_path / "where.py")
        gradient = sg.compile(sg.gradients(sg.reduce_sum(y), x)[0], path=tmp_path / "where_grad.py")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        value = value_only(np.array([-1.0, 2.0, 1.0]))  # exp(2000) and log(-1) are discarded
        # (where exp(1000 x) overflows the gradient is 0 * inf = nan, in TF as well)
        grad = gradient(np.array([-1.0, 0.5, 0.25]))
    np.testing.assert_allclose(value, [np.exp(-1000.0), np.log(2.0), 0.0])
    np.testing.assert_allclose(grad, [1000.0 * np.exp(-1000.0), 2.0, 4.0])


def _hundred_op_model(extra_op: bool) -> str:
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(sg.float64, [None], name="x")
        weights = [sg.Variable(1.0 + 0.01 * k, dtype=sg.float64, name=f"w{k}") for k in range(25)]
        z = sg.sin(x) if extra_op else x
        for k, w in enumerate(weights):
            z = sg.tanh(z * w + 0.1) if k % 2 else sg.sigmoid(z * w) + z
        loss = sg.reduce_sum(z)
        forward_ops = len(graph.get_operations())
        source = sg.compile([loss] + sg.gradients(loss, weights), name="model").source
    assert forward_ops >= 100
    return source


def test_one_more_op_near_the_start_changes_few_lines() -> None:
    import difflib

    before, after = _hundred_op_model(False).splitlines(), _hundred_op_model(True).splitlines()
    changed = [
        line
        for line in difflib.unified_diff(before, after, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert len(changed) <= 0.05 * len(before), "\n".join(changed)


def test_gradients_that_cancel_keep_their_shape(tmp_path: Path) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float64, shape=[3], name="x")
        y = sg.square(sg.sin(x)) + sg.square(sg.cos(x))  # d/dx = 0, an array of x's shape
        compiled = sg.compile([y, sg.gradients(y, x)[0]], path=tmp_path / "cancel.py")
        x0 = sg.placeholder(sg.float64, shape=[1], name="x0")
        gradient = sg.gradients(sg.reduce_sum(sg.reduce_logsumexp(x0, axis=[]) * 2.0), x0)[0]
        hvp = sg.compile(
            sg.gradients(sg.reduce_sum(gradient * 3.0), x0)[0], path=tmp_path / "hvp.py"
        )
    value, grad = compiled(np.array([0.1, 1.0, 2.0]))
    np.testing.assert_allclose(value, 1.0)
    assert grad.shape == (3,) and np.allclose(grad, 0.0)
    assert hvp(np.array([0.5])).shape == (1,)


@pytest.mark.parametrize(
    "value, printed",
    [
        (np.zeros((300, 20), np.float32), "np.zeros((300, 20), dtype=np.float32)"),
        (np.full((256,), 0.1, np.float32), "np.full((256,), 0.1, dtype=np.float32)"),
        (np.full((9, 9), -0.0), "np.full((9, 9), -0.0, dtype=np.float64)"),
        (np.full((100,), np.inf, np.float32), "np.full((100,), np.inf, dtype=np.float32)"),
        (np.full((100,), np.nan), "np.full((100,), np.nan, dtype=np.float64)"),
        (np.full((5, 20), 7, np.int32), "np.full((5, 20), 7, dtype=np.int32)"),
        (np.ones((70,), bool), "np.full((70,), True, dtype=np.bool_)"),
        (np.linspace(0, 1, 70), "base64.b64decode("),  # values that differ: their bytes
        (np.where(np.arange(70) == 0, 0.0, -0.0), "base64.b64decode("),  # 0.0 and -0.0
    ],
)
def test_a_large_constant_of_one_value_is_one_call(value: np.ndarray, printed: str) -> None:
    """A constant beyond the literal limit whose elements all have the same bits (an
    optimizer's zero-filled slots, a bias of 0.1 everywhere) is np.zeros/np.full of its
    shape, not its bytes in base64; the module gives it back bit for bit."""
    with sg.Graph().as_default():
        constant = sg.constant(value, name="c")
        module = sg.compile([sg.identity(constant)])
    assert printed in module.source, module.source
    got = np.asarray(module()[0])
    assert got.dtype == value.dtype and got.shape == value.shape
    assert got.tobytes() == value.tobytes()
