"""MkDocs hook: the benchmark results of ``benchmarks/results/`` on the site.

MkDocs serves only files under ``docs/``; the results stay where ``benchmarks/run.py`` writes
them. At build time this hook adds every ``benchmarks/results/*.md`` and ``*.png`` to the site
under ``benchmarks/`` (``measured.md`` links to ``benchmarks/latest.md``), and replaces the
marker line ``<!-- benchmark-charts -->`` of ``measured.md`` with the charts found there.
Nothing is copied into ``docs/``. Registered under ``hooks:`` in ``mkdocs.yml``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
SITE_FOLDER = "benchmarks"
PAGE = "measured.md"
MARKER = "<!-- benchmark-charts -->"


def _results(suffix: str) -> list[Path]:
    return sorted(RESULTS.glob(f"*.{suffix}"))


def on_files(files: Files, config: Any, **kwargs: Any) -> Files:
    for path in _results("md") + _results("png"):
        files.append(File.generated(config, f"{SITE_FOLDER}/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    charts = [f"![{path.stem}]({SITE_FOLDER}/{path.name})" for path in _results("png")]
    text = "\n\n".join(charts) if charts else "(No chart in `benchmarks/results/` yet.)"
    return markdown.replace(MARKER, text)
