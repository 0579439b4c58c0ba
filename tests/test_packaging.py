"""``pip install .`` into a fresh virtual environment, then compile() from the installed package."""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
import textwrap
import venv
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def test_installed_package_finds_its_templates(tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # Dependencies come from this interpreter (no download); symgrad itself is installed fresh.
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(ROOT)],
        check=True,
        capture_output=True,
    )
    script = textwrap.dedent("""
        import symgrad as sg, symgrad.backends.numpy.emit as emit
        assert "venv" in sg.__file__, sg.__file__
        assert emit.template_directory().parent.name == "_templates", emit.template_directory()
        x = sg.placeholder(sg.float64, name="x")
        f = sg.compile(sg.gradients(sg.sin(x), x)[0], name="cosine", path="out")
        print(float(f(0.0)))
        """)
    run = subprocess.run([str(python), "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "1.0"
    assert (tmp_path / "out" / "cosine.py").is_file()


def _requirement_names(requirements: list[str]) -> set[str]:
    """The distribution names of PEP 508 requirements, without versions or extras."""
    return {re.split(r"[\[<>=!~; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_backend_extras_pull_only_what_their_backend_needs() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert _requirement_names(project["dependencies"]) == {"sympy", "numpy", "jinja2", "ruff"}
    extras = {name: _requirement_names(r) for name, r in project["optional-dependencies"].items()}
    assert extras["array_api"] == {"array-api-compat"}
    assert extras["dask"] == {"dask", "distributed", "array-api-compat"}
    assert extras["torch"] == {"torch", "array-api-compat"}
    assert extras["jax"] == {"jax", "array-api-compat"}
    # CI tests every CPU backend: the test extra pulls them all.
    assert extras["array_api"] | extras["dask"] | extras["torch"] | extras["jax"] <= extras["test"]
    requirements = project["optional-dependencies"]
    # An unpinned torch may resolve to a CUDA build of several GB.
    assert "torch==2.13.0" in requirements["torch"] and "torch==2.13.0" in requirements["test"]
    assert "dask[array]" in " ".join(requirements["dask"])
    assert "jax[cpu]" in " ".join(requirements["jax"])


def test_import_loads_no_optional_library() -> None:
    """``import symgrad`` stays light: the optional libraries load where they are used.

    tensorboardX imports PyTorch when it is installed (1.5 s here), so an eager import of it
    made every ``import symgrad`` pay for PyTorch."""
    optional = ["tensorboardX", "torch", "jax", "dask", "array_api_strict", "array_api_compat"]
    probe = f"import sys, symgrad; print([m for m in {optional!r} if m in sys.modules])"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"
