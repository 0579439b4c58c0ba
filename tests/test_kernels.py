"""The kernel library: kernels are found from the code, copied whole, declared once.

The kernels themselves are tested in ``test_kernels_numpy.py`` and ``test_kernels_array_api.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import symgrad as sg
from symgrad.backends import registry
from symgrad.backends.kernels import (
    KernelLibrary,
    kernel_text,
    names_in,
    standard_imports,
)

BACKENDS = registry.all_backends()
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
def test_every_declared_kernel_is_defined_once_and_copies_as_valid_python(backend) -> None:
    library = backend.kernels
    assert library.names  # read from the backend's kernel modules
    module = ast.parse(kernel_text(list(library.kernels.values())))
    assert [getattr(n, "name", None) or n.targets[0].id for n in module.body] == list(
        library.kernels
    )


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
def test_copied_kernels_carry_no_annotations(backend) -> None:
    for kernel in backend.kernels.kernels.values():
        for node in ast.walk(ast.parse(kernel.source)):
            assert not isinstance(node, ast.AnnAssign), kernel.name
            if isinstance(node, ast.arg):
                assert node.annotation is None, kernel.name
            if isinstance(node, ast.FunctionDef):
                assert node.returns is None, kernel.name


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
def test_a_kernel_brings_what_it_calls(backend) -> None:
    library = backend.kernels
    for kernel in library.kernels.values():
        needed = {k.name for k in library.needed(f"{kernel.name}")}
        assert kernel.name in needed
        assert kernel.calls <= needed
        # Closed: every name a copied kernel uses is a builtin, a module the generated module
        # imports, a parameter or local of its own, or another copied kernel.
        for name in kernel.calls:
            assert name in library.names


def test_names_are_read_from_code_not_from_text() -> None:
    assert names_in('"""_conv2d in a docstring"""\n# _scatter in a comment\nx = 1') == {"x"}


def test_the_standard_modules_a_module_imports_come_from_its_code_and_kernels() -> None:
    numpy_kernels = registry.get("numpy").kernels
    needed = numpy_kernels.needed("y = _erf(x)")
    assert [k.name for k in needed] == ["_erf"]
    assert standard_imports("y = _erf(x)", needed) == ["math"]
    assert standard_imports("y = base64.b64decode(s)", []) == ["base64"]
    assert standard_imports('"""math. in a docstring"""', []) == []


def test_an_undeclared_kernel_or_a_declared_missing_one_is_refused(tmp_path: Path) -> None:
    (tmp_path / "extra.py").write_text(
        "def _one(x):\n    return x\n\n\ndef _two(x):\n    return x\n"
    )
    with pytest.raises(RuntimeError, match=r"not declared: \['_two'\]"):
        _ = KernelLibrary([tmp_path / "extra.py"], ["_one"]).kernels
    with pytest.raises(RuntimeError, match=r"declared but not defined: \['_three'\]"):
        _ = KernelLibrary([tmp_path / "extra.py"], ["_one", "_two", "_three"]).kernels


def test_annotations_are_cut_from_the_copy_and_comments_above_are_kept(tmp_path: Path) -> None:
    (tmp_path / "typed.py").write_text(
        "from __future__ import annotations\n\n"
        "# Per pool, the arrays given back.\n"
        "_SPARE: dict[str, list[int]] = {}\n\n\n"
        "def _scale(\n    x: float,\n    factor: tuple[int, ...] = (1,),\n    *rest: int,\n"
        "    **options: str,\n) -> dict[\n    str, int\n]:\n"
        '    """Scaled."""\n    return {"x": x * factor[0]}\n'
    )
    library = KernelLibrary([tmp_path / "typed.py"], ["_SPARE", "_scale"])
    assert library.kernels["_SPARE"].source == "# Per pool, the arrays given back.\n_SPARE = {}"
    source = library.kernels["_scale"].source
    assert ast.unparse(ast.parse(source)) == (
        "def _scale(x, factor=(1,), *rest, **options):\n"
        '    """Scaled."""\n    return {\'x\': x * factor[0]}'
    )


def test_an_annotated_local_is_refused(tmp_path: Path) -> None:
    (tmp_path / "local.py").write_text("def _f(x):\n    y: int = x\n    return y\n")
    with pytest.raises(RuntimeError, match="annotate parameters and results only"):
        _ = KernelLibrary([tmp_path / "local.py"], ["_f"]).kernels


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
def test_templates_hold_no_python_function_and_no_list_of_helpers(backend) -> None:
    text = backend.template_path().read_text(encoding="utf-8")
    assert not re.search(r"^\s*def ", text, re.MULTILINE)
    assert "helpers" not in text
    assert len(text.splitlines()) < 150  # the module's skeleton only


@pytest.mark.parametrize("backend", BACKENDS, ids=lambda b: b.name)
def test_a_generated_module_defines_exactly_the_kernels_it_calls(backend) -> None:
    with sg.Graph().as_default():
        x = sg.placeholder(sg.float32, [2, 4, 4, 1], name="x")
        w = sg.Variable(sg.ones([2, 2, 1, 1]), name="w")
        y = sg.reduce_sum(sg.nn.max_pool(sg.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), 2, 2, "VALID"))
        source = sg.compile([y], backend=backend.name).source
    tree = ast.parse(source)
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} | {
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    }  # functions, and constants such as _ROWS_CHUNK
    kernels = defined & backend.kernels.names
    entry = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name not in kernels]
    called = {k.name for k in backend.kernels.needed(ast.unparse(ast.Module(entry, [])))}
    assert kernels == called
    assert {"_conv2d", "_max_pool"} <= kernels
