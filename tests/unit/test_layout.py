"""The house keeps its shape: lint, formatting, import layers, chapter modules and pages.

* ``ruff check`` and ``ruff format --check`` on the library, tests and benchmarks (100 columns),
  and the chapters' code cells formatted at 88 columns (``python -m companion.site.cells``);
* import layers: ``theory`` imports nothing from ``llm``, ``chapters``, ``claims``, ``widgets``,
  ``plotting`` or torch; chapters (modules and pages) reach ``llm`` only through public names;
  only ``site/`` imports ``site/``;
* one package per chapter, named like the chapter, with ``SIZES`` for every scale, and no size
  that depends on the scale written into a chapter page;
* a file does one job: no module of ``llm``, ``theory``, ``chapters``, ``claims`` nor
  ``ledger.py`` over :data:`MAX_LINES` lines (the import graph itself is ``test_import_graph.py``).
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

from companion.chapters import CHAPTERS, PARTS, module
from companion.scale import SCALES

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "companion"
PAGES = [ROOT / "book" / f"{c}.md" for c in CHAPTERS]


def _ruff(*args):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=ROOT, capture_output=True, text=True
    )


def test_ruff_check():
    run = _ruff("check", "--output-format", "concise", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_ruff_format():
    run = _ruff("format", "--check", ".")
    assert run.returncode == 0, run.stdout + run.stderr


def test_chapter_code_cells_are_formatted_at_88_columns():
    from companion.site import cells

    problems = cells.check(ROOT)
    assert not problems, "run `make sync`:\n" + "\n".join(problems)


# ----------------------------------------------------------------------------- import layers


def _imports(tree: ast.AST, package: str) -> list[tuple[str, list[str]]]:
    """(module, names) of every import in a tree; relative imports resolved in ``package``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.append((base, [a.name for a in node.names]))
    return out


def _modules(folder: Path):
    for path in sorted(folder.rglob("*.py")):
        name = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        yield path, name, ast.parse(path.read_text(encoding="utf-8"))


def _page_trees():
    for md in PAGES:
        for cell in jupytext.read(md).cells:
            if cell.cell_type == "code":
                yield md, ast.parse(cell.source)


FORBIDDEN_IN_THEORY = (
    "companion.llm",
    "companion.chapters",
    "companion.claims",
    "companion.widgets",
    "companion.plotting",
    "companion.site",
    "torch",
    "transformers",
)


def test_theory_imports_only_numpy_scipy_and_the_core():
    bad = []
    for path, name, tree in _modules(SRC / "theory"):
        for mod, _ in _imports(tree, name.rsplit(".", 1)[0]):
            if mod.startswith(FORBIDDEN_IN_THEORY):
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, bad


def test_only_site_imports_site():
    bad = []
    for path, name, tree in _modules(SRC):
        if name.startswith("companion.site"):
            continue
        for mod, names in _imports(tree, name.rsplit(".", 1)[0]):
            if mod.startswith("companion.site") or (mod == "companion" and "site" in names):
                bad.append(f"{path.relative_to(ROOT)} imports {mod}")
    assert not bad, bad


def _llm_uses(tree: ast.AST, package: str):
    """Every name a tree takes from companion.llm: imported names and attributes of aliases."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for mod, names in _imports(node, package):
                if mod == "companion" and "llm" in names:
                    aliases["llm"] = "companion.llm"
                elif mod.startswith("companion.llm"):
                    for a in node.names:
                        yield mod, a.name
                        sub = f"{mod}.{a.name}"
                        if importlib.util.find_spec(mod) and _is_module(sub):
                            aliases[a.asname or a.name] = sub
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("companion.llm") and a.asname:
                    aliases[a.asname] = a.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.value.id in aliases:
                yield aliases[node.value.id], node.attr


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def test_chapters_reach_llm_only_through_public_names():
    bad = []
    sources = [(p, n.rsplit(".", 1)[0], t) for p, n, t in _modules(SRC / "chapters")]
    sources += [(md, "companion.chapters", tree) for md, tree in _page_trees()]
    for path, package, tree in sources:
        for mod, name in _llm_uses(tree, package):
            public = getattr(importlib.import_module(mod), "__all__", None)
            private = name.startswith("_") or any(p.startswith("_") for p in mod.split("."))
            if private or (
                public is not None and name not in public and not _is_module(f"{mod}.{name}")
            ):
                bad.append(f"{path.relative_to(ROOT)}: {mod}.{name}")
    assert not bad, "not public in companion.llm: " + ", ".join(sorted(set(bad)))


#: The most lines a module of :data:`SIZED` may have (DEVELOPERS.md: "~450 lines at most").
MAX_LINES = 450
#: Folders (every module under them) and single modules of ``src/companion`` held to it.
SIZED = ("llm", "theory", "chapters", "claims", "ledger.py")


def _long_modules(folders, limit: int) -> dict[str, int]:
    out = {}
    for folder in folders:
        paths = [SRC / folder] if folder.endswith(".py") else sorted((SRC / folder).rglob("*.py"))
        for path in paths:
            n = len(path.read_text(encoding="utf-8").splitlines())
            if n > limit:
                out[str(path.relative_to(ROOT))] = n
    return out


def test_no_engine_theory_chapter_or_claims_module_over_450_lines():
    assert "src/companion/llm/loading.py" in _long_modules(SIZED, 100)  # the check can fail
    assert "src/companion/ledger.py" in _long_modules(SIZED, 100)  # a single module counts
    long = _long_modules(SIZED, MAX_LINES)
    assert not long, f"split by job (at most {MAX_LINES} lines): {long}"


# ----------------------------------------------------------------------------- chapter modules


def test_one_package_per_chapter_in_book_order():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    in_toc = [
        c["file"].removeprefix("book/")
        for part in toc["parts"]
        for c in part["chapters"]
        if c["file"].count("/") == 2
    ]
    assert list(CHAPTERS) == in_toc
    on_disk = {
        f"{p.parent.parent.name}/{p.parent.name}"
        for part in PARTS
        for p in (SRC / "chapters" / part).glob("*/__init__.py")
    }
    assert on_disk == set(CHAPTERS)
    loose = [p.name for part in PARTS for p in (SRC / "chapters" / part).glob("[!_]*.py")]
    assert not loose, f"a chapter is a package, not a module: {loose}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_module_sizes_every_scale(chapter):
    sizes = module(chapter).SIZES
    assert tuple(sizes) == SCALES, f"{chapter}: SIZES must have the keys {SCALES}"
    assert len({type(v) for v in sizes.values()}) == 1, f"{chapter}: one Sizes type per module"


@pytest.mark.parametrize("md", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_chapter_pages_hold_no_scale_dependent_size_and_no_relative_path(md):
    code = "\n".join(c.source for c in jupytext.read(md).cells if c.cell_type == "code")
    assert not re.search(r"if SCALE ==|SCALE == \"cpu\" else", code), (
        f"{md.name}: sizes belong in the chapter module's SIZES"
    )
    assert "../" not in code, f"{md.name}: read results through companion.results"
    assert "claims_box(ch, scale=SCALE)" in code, f"{md.name}: claims_box(ch, scale=SCALE)"


def test_every_claim_lives_in_the_claims_module_of_its_chapter():
    from companion import ledger

    for c in ledger.all_claims():
        owner = c.measure.__module__.split(".")  # a claims module, or a module of its package
        assert "claims" in owner[2:], c.id
        chapter = owner[2 : owner.index("claims", 2)]
        assert owner[:2] == ["companion", "chapters"] and len(chapter) == 2, c.id
        assert c.chapter == "book/" + "/".join(chapter), c.id
