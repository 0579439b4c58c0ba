"""Golden copies of portable modules (``backend="array_api"``), and the backend switch itself.

The goldens under ``tests/golden/array_api/`` are the seed programs and the tutorial's linear
regression (written through ``symgrad compile --backend array_api``), the digits MLP and a
small conv net. Each module is also run on ``array_api_strict`` arrays and compared with the
NumPy module of the same graph. Update with ``python -m pytest --update-snapshots``.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg
from symgrad import cli
from symgrad.errors import BackendError
from tests.test_conv import _conv_pool_dense

xps = pytest.importorskip("array_api_strict")
xps.set_array_api_strict_flags(api_version="2023.12")

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden" / "array_api"
EXAMPLES = ["linear_regression", "seed_3_intermediate_xs", "seed_4_stop_gradient"]


@pytest.mark.parametrize("example", EXAMPLES)
def test_cli_writes_portable_example_modules(
    symgrad_snapshot,  # type: ignore[no-untyped-def]
    example: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    monkeypatch.setenv("SYMGRAD_EXAMPLES_OUTPUT", str(tmp_path / "numpy"))
    out = tmp_path / "portable"
    status = cli.main(
        [
            "compile",
            str(ROOT / "examples" / f"{example}.py"),
            "-o",
            str(out),
            "--backend",
            "array_api",
        ]
    )
    capsys.readouterr()
    assert status == 0
    written = sorted(out.glob("*.py"))
    assert written, f"{example} wrote no module"
    for path in written:
        assert "xp, device = _namespace(" in path.read_text()
        symgrad_snapshot(path.read_text(), GOLDEN / path.name)


def _strict(value: np.ndarray):  # type: ignore[no-untyped-def]
    return xps.asarray(value)


def _same_results(portable: sg.CompiledModule, numpy_form: sg.CompiledModule, *args) -> None:  # type: ignore[no-untyped-def]
    expected = numpy_form(*args)
    got = portable(*[_strict(np.asarray(a)) for a in args])
    assert all(type(g).__module__.startswith("array_api_strict") for g in got)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(np.asarray(g), e, rtol=1e-5, atol=1e-6)


def test_mlp_module_matches_its_snapshot(symgrad_snapshot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    example = runpy.run_path(str(ROOT / "examples" / "digits_models.py"), run_name="digits_example")
    with sg.Graph().as_default():
        model = example["build"]((64, 64))
        outputs = [model["loss"]] + sg.gradients(model["loss"], model["params"])
        portable = sg.compile(outputs, name="mlp", path=tmp_path / "mlp.py", backend="array_api")
        numpy_form = sg.compile(outputs, name="mlp")
    assert portable.backend == "array_api" and numpy_form.backend == "numpy"
    symgrad_snapshot(portable, GOLDEN / "mlp.py")
    rng = np.random.default_rng(0)
    images = rng.uniform(0, 16, (7, 64))
    labels = rng.integers(0, 10, 7)
    names = portable.input_names
    inputs = {names[0]: images, names[1]: labels}
    values = [inputs[n] if n in inputs else portable._initial_value(n) for n in names]
    _same_results(portable, numpy_form, *values)


def test_conv_net_module_matches_its_snapshot(symgrad_snapshot) -> None:  # type: ignore[no-untyped-def]
    with sg.Graph().as_default():
        outputs = _conv_pool_dense()
        portable = sg.compile(outputs, name="conv_pool_dense", backend="array_api")
        numpy_form = sg.compile(outputs, name="conv_pool_dense")
    symgrad_snapshot(portable, GOLDEN / "conv_pool_dense.py")
    rng = np.random.default_rng(1)
    images = rng.uniform(0, 1, (5, 8, 8, 1)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1]]
    weights = [portable._initial_value(n) for n in portable.input_names[2:]]
    _same_results(portable, numpy_form, images, labels, *weights)


def test_unknown_backend_names_the_choices() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [2], name="x")
        with pytest.raises(BackendError, match="'numpy', 'array_api'") as error:
            sg.compile(x * 2.0, backend="torch")
    assert isinstance(error.value, ValueError)


def test_float16_is_a_backend_error_naming_the_tensor() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float16, [2], name="half_input")
        with pytest.raises(BackendError, match="float16.*half_input.*numpy"):
            sg.compile(x * 2.0, backend="array_api")


def test_namespace_without_array_api_compat() -> None:
    """Without array_api_compat the module asks the arrays for their namespace."""
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        w = sg.Variable(np.ones((3, 2), np.float32), name="w")
        loss = sg.reduce_sum(sg.tanh(x @ w))
        compiled = sg.compile([loss, sg.gradients(loss, w)[0]], backend="array_api")
    compiled.module.array_api_compat = None
    x_value = np.arange(6, dtype=np.float32).reshape(2, 3) / 6
    loss_value, grad = compiled(_strict(x_value), _strict(np.ones((3, 2), np.float32)))
    assert type(grad).__module__.startswith("array_api_strict")
    hidden = np.tanh(x_value @ np.ones((3, 2), np.float32))
    np.testing.assert_allclose(np.asarray(loss_value), hidden.sum(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), x_value.T @ (1 - hidden**2), rtol=1e-5)
    # Python numbers alone fall back to NumPy.
    assert isinstance(compiled([[0.0, 0.0, 0.0]], np.ones((3, 2)))[1], np.ndarray)


def test_input_checks_do_not_convert_to_numpy() -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [None, 3], name="x")
        compiled = sg.compile(sg.reduce_sum(x), backend="array_api")
    with pytest.raises(ValueError, match=r"input 'x': expected shape \(None, 3\), got \(2, 4\)"):
        compiled(_strict(np.zeros((2, 4), np.float32)))
    # An int array is cast in its own namespace.
    total = compiled(xps.asarray([[1, 2, 3]]))
    assert type(total).__module__.startswith("array_api_strict") and total.dtype == xps.float32
