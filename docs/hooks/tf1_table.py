"""MkDocs hook: the "What is not there" table of ``coming-from-tf1.md``, made from the code.

The page holds the marker line ``<!-- tf1-substitutes -->``; this hook replaces it, at build
time, with one row per entry of :data:`symgrad.tf1_names.SUBSTITUTES`, the table the
``MissingTF1NameError`` messages quote. The table is never written down anywhere else, so it
cannot drift from what symgrad says. Registered under ``hooks:`` in ``mkdocs.yml``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the working tree's symgrad, whatever is installed

PAGE = "coming-from-tf1.md"
MARKER = "<!-- tf1-substitutes -->"


def substitutes_table() -> str:
    """The Markdown table of TF1 names symgrad lacks and what to use instead."""
    from symgrad.tf1_names import SUBSTITUTES

    rows = [f"| `tf.{name}` | {instead} |" for name, instead in SUBSTITUTES.items()]
    return "\n".join(["| TF1 name | instead |", "|---|---|", *rows])


def render(markdown: str) -> str:
    """``markdown`` with its one marker line replaced by the table."""
    if markdown.count(MARKER) != 1:
        raise ValueError(f"{PAGE} must hold the line {MARKER!r} exactly once")
    return markdown.replace(MARKER, substitutes_table())


def on_page_markdown(markdown: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    return render(markdown)
