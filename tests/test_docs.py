"""The documentation: ``README.md``, ``docs/`` and the site MkDocs builds from them.

The site builds with ``mkdocs build --strict`` (no warning: no broken link or anchor, no
docstring the API reference cannot render), every page is in the nav, the README's links
lead somewhere, and the code blocks run. The rules for code blocks are in
``docs/development.md``: a block fenced as ``python`` is run, the blocks of one page in
order, in one namespace, in a temporary working folder; any other block is shown only, and
a shown block with a ``title`` must match the file or the value that title names.
"""

from __future__ import annotations

import doctest
import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import tomllib

import symgrad as sg

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = [README, *sorted(p for p in DOCS.rglob("*.md") if "hooks" not in p.parts)]
# Languages a block may be fenced with: `python` runs, the others are shown only.
LANGUAGES = {"python", "py", "text", "bash", ""}
# Libraries of optional extras: a page whose blocks need one that is missing is skipped.
OPTIONAL = {"torch", "jax", "dask", "cupy", "tensorboardX", "graphviz", "sklearn"}

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,})(?P<info>[^`]*)$")
_TITLE = re.compile(r'title="(?P<title>[^"]*)"')


@dataclass(frozen=True)
class Block:
    """One fenced code block of a page."""

    language: str
    title: str | None
    text: str
    line: int  # of the opening fence, 1-based


def code_blocks(path: Path) -> list[Block]:
    """The fenced code blocks of the Markdown file ``path``, in order."""
    blocks: list[Block] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence, info = opening["indent"], opening["fence"], opening["info"].strip()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            body.append(lines[end][len(indent) :])
            end += 1
        assert end < len(lines), f"{path.name}:{index + 1}: a code block is not closed"
        title = _TITLE.search(info)
        blocks.append(
            Block(
                language=info.split()[0] if info else "",
                title=title["title"] if title else None,
                text="\n".join(body),
                line=index + 1,
            )
        )
        index = end + 1
    return blocks


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --- the site ------------------------------------------------------------------------------


def test_the_site_builds_without_a_warning(tmp_path: Path) -> None:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(
            module, reason="the docs tools are not installed: pip install '.[docs]'"
        )
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    assert (tmp_path / "site" / "index.html").is_file()
    # The table of TF1 names symgrad lacks is made from the code, when the site is built.
    table = (tmp_path / "site" / "coming-from-tf1" / "index.html").read_text(encoding="utf-8")
    assert "<code>tf.py_func</code>" in table and "tf1-substitutes" not in table


def test_every_page_is_in_the_nav() -> None:
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with the docs tools")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def pages(entry: object) -> list[str]:
        if isinstance(entry, str):
            return [entry]
        if isinstance(entry, dict):
            return [page for value in entry.values() for page in pages(value)]
        if isinstance(entry, list):
            return [page for item in entry for page in pages(item)]
        return []

    in_nav = pages(config["nav"])
    on_disk = {str(p.relative_to(DOCS)) for p in PAGES if p != README}
    assert sorted(in_nav) == sorted(on_disk)


def test_the_readme_links_lead_somewhere() -> None:
    toc = pytest.importorskip("markdown.extensions.toc", reason="Markdown comes with MkDocs")
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert any(link.startswith("docs/") for link in links)
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        path = ROOT / target if target else README
        assert path.exists(), f"README.md links to {link}, which does not exist"
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.MULTILINE)
            slugs = {toc.slugify(re.sub(r"[`*]", "", h), "-") for h in headings}
            assert anchor in slugs, f"README.md links to {link}: no such heading"


def test_the_readme_stays_a_front_page() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.split("\n")) <= 300
    # The error of a missing TF1 name sends readers to this section.
    assert "## Coming from TF1" in text and "docs/coming-from-tf1.md#what-is-not-there" in text


def test_the_test_extra_installs_the_docs_tools() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = extras["optional-dependencies"]
    assert set(extras["docs"]) <= set(extras["test"])
    assert all("==" in requirement for requirement in extras["docs"])


# --- the code blocks -----------------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_code_blocks_are_fenced_with_a_known_language(page: Path) -> None:
    for block in code_blocks(page):
        assert block.language in LANGUAGES, (
            f"{_page_id(page)}:{block.line}: fence with one of {sorted(LANGUAGES)} "
            f"(`python` runs; see docs/development.md), not {block.language!r}"
        )


def test_the_code_block_parser() -> None:
    blocks = code_blocks(DOCS / "development.md") + code_blocks(README)
    assert [b.language for b in code_blocks(README)][:3] == ["bash", "bash", "python"]
    assert any(b.title == "step.explain()" for b in blocks)


@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if any(b.language == "python" or b.title for b in code_blocks(p))],
    ids=_page_id,
)
def test_code_blocks_run_and_shown_output_is_real(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # blocks write files (examples/output/...) here
    blocks = code_blocks(page)
    namespace: dict[str, object] = {"__name__": "__docs__"}
    with sg.Graph().as_default():
        for block in blocks:
            if block.language != "python":
                continue
            code = compile(block.text, f"{_page_id(page)}:{block.line}", "exec")
            try:
                exec(code, namespace)
            except ModuleNotFoundError as error:
                if (error.name or "").split(".")[0] not in OPTIONAL:
                    raise
                pytest.skip(f"{_page_id(page)}:{block.line} needs {error.name}")
        for block in blocks:
            if block.language == "python" or block.title is None:
                continue
            where = f"{_page_id(page)}:{block.line}"
            shown = block.text.strip("\n")
            if block.title.endswith(".py"):
                written = tmp_path / block.title
                assert written.is_file(), f"{where}: the page's code wrote no {block.title}"
                assert shown in written.read_text(encoding="utf-8"), (
                    f"{where}: the listing is not what {block.title} holds"
                )
            else:
                value = eval(block.title, namespace)
                assert str(value).strip("\n") == shown, f"{where}: {block.title} is now {value}"


def test_the_api_reference_fences_doctest_examples() -> None:
    pytest.importorskip("griffe", reason="Griffe comes with mkdocstrings-python")
    spec = importlib.util.spec_from_file_location(
        "griffe_docstrings", DOCS / "hooks" / "griffe_docstrings.py"
    )
    assert spec is not None and spec.loader is not None
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    assert doctest.testmod(hook).failed == 0
