"""The book's source files: paired notebooks for Colab, the setup cell, GPU metadata, the TOC.

Colab opens the committed ``.ipynb`` next to each MyST chapter (the launch button is rewritten
to it only when it exists), so these checks keep the two in step.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
import yaml

from companion.site.colab import REPOSITORY, expected_cell

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
PLACEHOLDER = "This chapter is being written."


def _front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    return yaml.safe_load(text.split("---", 2)[1]) or {}


def _is_placeholder(path: Path) -> bool:
    text = path.read_text(encoding="utf-8")
    return PLACEHOLDER in text and len(text) < 400


CHAPTERS = sorted(p for p in BOOK.rglob("*.md") if "kernelspec" in _front_matter(p))
NOTEBOOKS = sorted(BOOK.rglob("*.ipynb"))
AT_SCALE = sorted(BOOK.glob("*/at_scale.md"))
_ids = lambda paths: [p.relative_to(ROOT).as_posix() for p in paths]  # noqa: E731


def _code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def test_repository_url_is_one_value():
    assert CONFIG["repository"]["url"] == REPOSITORY


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_full_jupytext_header(md):
    fm = _front_matter(md)
    jt = fm.get("jupytext", {})
    assert jt.get("formats") == "ipynb,md:myst", (
        f"{md.name}: pair it with `jupytext --set-formats ipynb,md:myst`"
    )
    rep = jt.get("text_representation", {})
    assert rep.get("extension") == ".md" and rep.get("format_name") == "myst"
    assert rep.get("format_version") and rep.get("jupytext_version")
    assert fm["kernelspec"].get("name") == "python3"


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_paired_notebook_in_sync(md):
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} missing: run `make sync` (Colab opens the .ipynb)"
    a, b = jupytext.read(md), jupytext.read(ipynb)
    cells_a = [(c.cell_type, c.source.strip()) for c in a.cells]
    cells_b = [(c.cell_type, c.source.strip()) for c in b.cells]
    assert cells_a == cells_b, f"{ipynb.name} is out of sync with {md.name}: run `make sync`"
    for key in ("accelerator", "colab", "mystnb"):
        assert a.metadata.get(key) == b.metadata.get(key), (
            f"front-matter `{key}` differs in {ipynb.name}"
        )


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_committed_notebook_has_no_outputs(ipynb):
    nb = jupytext.read(ipynb)
    dirty = [
        i for i, c in enumerate(_code_cells(nb)) if c.get("outputs") or c.get("execution_count")
    ]
    assert not dirty, f"{ipynb.name}: code cells {dirty} carry outputs; re-pair with `make sync`"
    assert ipynb.with_suffix(".md").exists(), f"{ipynb.name} has no MyST source next to it"


@pytest.mark.parametrize("md", CHAPTERS, ids=_ids(CHAPTERS))
def test_first_code_cell_is_the_colab_setup_cell(md):
    """One template (companion.site.colab), with the extras the chapter imports."""
    cells = _code_cells(jupytext.read(md))
    assert cells, f"{md.name} has no code cell"
    first = cells[0]
    assert first.source.strip() == expected_cell(md.read_text(encoding="utf-8")), (
        f"{md.name}: the first code cell must be the Colab setup cell "
        "(`python -m companion.site.colab` writes it)"
    )
    assert "remove-cell" in first.metadata.get("tags", [])


def test_at_scale_chapters_install_the_llm_extras():
    for md in AT_SCALE:
        assert "companion[llm] @ git+" in _code_cells(jupytext.read(md))[0].source, md.name


def test_the_repository_url_appears_only_where_it_is_generated():
    """The URL is written once (companion.site.colab) and copied only into the setup cells
    and _config.yml, which the tests above compare with it."""
    hits = [
        p.relative_to(ROOT).as_posix()
        for p in [*ROOT.glob("src/**/*.py"), *ROOT.glob("*.yml"), *ROOT.glob("*.toml")]
        if REPOSITORY in p.read_text(encoding="utf-8")
    ]
    assert sorted(hits) == ["_config.yml", "src/companion/site/colab.py"], hits


@pytest.mark.parametrize("md", AT_SCALE, ids=_ids(AT_SCALE))
def test_full_scale_chapters_request_a_gpu(md):
    if _is_placeholder(md):
        pytest.skip(f"{md.relative_to(ROOT)} is still a placeholder")
    fm = _front_matter(md)
    assert fm.get("accelerator") == "GPU", f"{md.name}: front matter needs `accelerator: GPU`"
    assert (fm.get("colab") or {}).get("gpuType") == "T4", (
        f"{md.name}: front matter needs `colab: {{gpuType: T4}}`"
    )
    meta = jupytext.read(md.with_suffix(".ipynb")).metadata
    assert meta.get("accelerator") == "GPU" and meta.get("colab", {}).get("gpuType") == "T4"


@pytest.mark.parametrize("path", CHAPTERS + NOTEBOOKS, ids=_ids(CHAPTERS + NOTEBOOKS))
def test_no_chapter_pins_ipywidgets(path):
    # Colab ships its own ipywidgets; forcing a version has broken widgets there before.
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"ipywidgets\s*(==|<=|>=|<|>|~=|!=)", text), f"{path.name} pins ipywidgets"


def _toc_files(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("file", "root"):
                yield value
            else:
                yield from _toc_files(value)
    elif isinstance(node, list):
        for item in node:
            yield from _toc_files(item)


def test_every_toc_entry_exists():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = list(_toc_files(toc))
    assert files
    missing = [
        f for f in files if not any((ROOT / f).with_suffix(s).exists() for s in (".md", ".ipynb"))
    ]
    assert not missing, f"_toc.yml lists files that do not exist: {missing}"


def test_site_serves_its_own_javascript():
    """No CDN: widget JS and MathJax come from the vendored folder, which is not `_static`."""
    cfg = CONFIG["sphinx"]["config"]
    assert "_static" not in " ".join(cfg["html_static_path"])
    assert not cfg["mathjax_path"].startswith("http")
    assert all(not url.startswith("http") for url in cfg["nb_ipywidgets_js"])
    assert "_vendor" in CONFIG["exclude_patterns"]
    gitignore = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "_vendor/" in gitignore
