"""``compile()`` and ``CompiledModule``: structures, inputs, defaults, files, errors."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import symgrad as sg


@pytest.fixture(autouse=True)
def fresh_graph():  # type: ignore[no-untyped-def]
    with sg.Graph().as_default() as graph:
        yield graph


def _model():  # type: ignore[no-untyped-def]
    x = sg.placeholder(sg.float64, shape=[None], name="x")
    w = sg.Variable(np.float64(2.0), name="weight")
    b = sg.Variable(
        sg.constant(0.5, dtype=sg.float64) * 2, name="bias"
    )  # initial value from a tensor
    y = sg.reduce_sum(x * w + b)
    return x, w, b, y


def test_output_structures(tmp_path: Path) -> None:
    x, w, b, y = _model()
    d_w, d_b = sg.gradients(y, [w, b])
    single = sg.compile(y, path=tmp_path)
    assert isinstance(single([1.0, 2.0]), np.float64)
    as_list = sg.compile([y, None, d_w], path=tmp_path)
    value, nothing, grad = as_list([1.0, 2.0])
    assert nothing is None and float(grad) == 3.0 and float(value) == 8.0
    assert isinstance(sg.compile((y, d_b), path=tmp_path)([1.0]), tuple)
    as_dict = sg.compile({"loss": y, "d_bias": d_b}, name="model", path=tmp_path / "model.py")
    assert as_dict([1.0, 2.0, 3.0]) == {"loss": 15.0, "d_bias": 3.0}
    assert as_dict.output_names == ["loss", "d_bias"]
    assert as_dict.path == tmp_path / "model.py" and as_dict.path.read_text() == as_dict.source


def test_inputs_positional_keyword_and_variable_defaults(tmp_path: Path) -> None:
    x, w, b, y = _model()
    compiled = sg.compile(y, name="model", path=tmp_path)
    assert compiled.input_names == ["x", "weight", "bias"]
    assert compiled([1.0]) == 3.0  # variables take their initial values
    assert compiled([1.0], 3.0) == 4.0
    assert compiled(x=[1.0], bias=0.0) == 2.0
    assert list(inspect.signature(compiled.function).parameters) == ["x", "weight", "bias"]
    with pytest.raises(TypeError, match="missing inputs: x"):
        compiled(weight=1.0)
    with pytest.raises(TypeError, match="has no input 'z'"):
        compiled([1.0], z=1.0)
    with pytest.raises(TypeError, match="takes 3 inputs"):
        compiled(1, 2, 3, 4)


def test_explicit_inputs_order_and_errors(tmp_path: Path) -> None:
    x, w, b, y = _model()
    compiled = sg.compile(y, inputs=[b, w, x], path=tmp_path)
    assert compiled.input_names == ["bias", "weight", "x"]
    assert compiled(0.0, 1.0, [2.0]) == 2.0
    with pytest.raises(
        sg.NotCompilableError, match="depend on placeholder 'x:0', which is not among the inputs"
    ):
        sg.compile(y, inputs=[w, b])
    with pytest.raises(sg.NotCompilableError, match="read variables bias:0"):
        sg.compile(y, inputs=[x, w])
    with pytest.raises(sg.InvalidArgumentError, match="outputs must be tensors, got int"):
        sg.compile([y, 3])


def test_generated_file_is_importable_and_inspectable(tmp_path: Path) -> None:
    x, w, b, y = _model()
    compiled = sg.compile(y, name="model", path=tmp_path / "model.py")
    assert "def model(x, weight, bias):" in inspect.getsource(compiled.function)
    assert compiled.module.model is compiled.function


def test_default_location_is_the_cache_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SYMGRAD_CACHE_DIR", str(tmp_path / "cache"))
    x, w, b, y = _model()
    compiled = sg.compile(y, name="cached")
    assert compiled.path.parent == tmp_path / "cache" and compiled.path.name.startswith("cached_")
    assert sg.compile(y, name="cached").path == compiled.path  # same graph, same file


def test_names_are_sanitized(tmp_path: Path) -> None:
    x = sg.placeholder(sg.float64, name="np")
    y = sg.placeholder(sg.float64, name="class")
    z = sg.placeholder(sg.float64, name="bad.name>import-os")
    compiled = sg.compile(x * y + z, path=tmp_path)
    assert compiled.input_names == ["np_", "class_", "bad_name_import_os"]
    assert compiled(2.0, 3.0, 1.0) == 7.0
    assert "import os" not in compiled.source
