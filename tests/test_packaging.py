"""``pip install .`` into a fresh virtual environment, then compile() from the installed package."""

from __future__ import annotations

import subprocess
import sysconfig
import textwrap
import venv
from pathlib import Path

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
