"""The example notebook runs from top to bottom and shows modules as HTML (needs nbclient)."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]


def test_example_notebook_runs() -> None:
    notebook = nbformat.read(ROOT / "examples" / "notebook.ipynb", as_version=4)
    client = nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    )
    client.execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = [o["data"]["text/html"] for o in outputs if "text/html" in o.get("data", {})]
    # The module (cell 2) and the function's last specialization (cell 5) show as HTML tables.
    assert len(html) == 2 and all("<table>" in h and "$$" in h for h in html)
    assert any("digraph symgrad {" in o.get("text", "") for o in outputs)
