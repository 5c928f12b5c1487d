"""Imports run one way: the import graph of ``src/companion``, read with :mod:`ast`.

Every ``import`` and ``from … import`` of a companion module counts, at module level or inside a
function (a lazy import still ties two modules together). The house (DEVELOPERS.md), bottom up:

* the core (``_validate``, ``stats``, the package itself), then ``theory`` (numpy/scipy only),
  ``scale``, ``results``, ``tables`` (HTML tables, no import of companion: the at-scale plan
  of ``llm`` renders one); ``llm`` (models, engines); the presentation (``plotting``,
  ``widgets``); the ``claims`` framework, the ``chapters``, the ``ledger`` that
  collects them; the book tooling ``site``; the command line. A module imports its own layer
  and the layers below it, never one above (:data:`LAYERS`);
* inside ``llm``: the registry, the hub probe and the devices; the models (loading, data,
  hooks, norms, Whisper); the two engines (``dead_directions``, ``sign_flips``), which never
  import each other; ``llm.cli`` (:data:`LLM_LAYERS`);
* no cycle anywhere, ``llm`` and ``site`` included;
* no private name (``_x``) taken from another file.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"

#: Top-level layers, bottom up: a module may import its own layer and any layer before it.
#: ``"companion"`` is the package's ``__init__`` (``__version__``, ``MCEstimate``).
LAYERS = (
    "companion.install",  # standard library only: the offline packages' names and hints
    "companion._validate",
    "companion.stats",
    "companion",
    "companion.theory",
    "companion.scale",
    "companion.results",
    "companion.tables",
    "companion.llm",
    "companion.reproduce",
    "companion.plotting",
    "companion.widgets",
    "companion.claims",
    "companion.chapters",
    "companion.ledger",
    "companion.site",
    "companion.cli",
    "companion.__main__",
    "companion.testing",
)

#: Inside ``llm``, bottom up, by first name under ``companion.llm``. An unlisted module (a
#: new one) stands with the engines: it may import the models, and the models may not import it.
LLM_LAYERS = (
    ("_checks", "ctranslate2_file", "devices", "hub", "progress", "registry"),
    ("capture", "data", "evaluate", "norms", "loading", "whisper", "speech", "train"),
    ("dead_directions", "sign_flips"),
    ("trajectory",),
    ("cli",),
)
ENGINES = ("dead_directions", "sign_flips")

#: Cycles known and owned elsewhere, each with who fixes it; the test below fails once one is
#: gone, so the entry goes with it. None now: a chapter's ``records``/``tables`` take
#: ``SIZES`` from its ``sizes`` module, and the results folder's lock is ``results.lock``.
PENDING_CYCLES: dict = {}

#: Packages inside which private names still cross files (same rule: fails once one is
#: clean). None now.
PENDING_PRIVATE: dict = {}


def _name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted((SRC / "companion").rglob("*.py"))}


def _target(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(parts + ([node.module] if node.module else []))


def _parse():
    """``edges[m]``: the companion modules ``m`` imports; ``names[m]``: (module, name, line)
    of every name ``m`` takes from another companion module."""
    edges, names = defaultdict(set), defaultdict(list)
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}  # local name -> companion module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "companion":
                        edges[module].add(a.name)
                        if a.asname:
                            aliases[a.asname] = a.name
            elif isinstance(node, ast.ImportFrom):
                base = _target(module, path, node)
                if base.split(".")[0] != "companion":
                    continue
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    if sub in MODULES:
                        edges[module].add(sub)
                        aliases[a.asname or a.name] = sub
                    else:
                        edges[module].add(base)
                        names[module].append((base, a.name, node.lineno))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id in aliases:
                    names[module].append((aliases[node.value.id], node.attr, node.lineno))
    for module in edges:
        edges[module].discard(module)
    return edges, names


EDGES, NAMES = _parse()


def _cycles(edges) -> list[frozenset]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    for root in sorted(MODULES):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in MODULES:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(frozenset(comp))
    return out


def _layer(module: str) -> int:
    """Index in :data:`LAYERS` of the longest entry that ``module`` is or lies under."""
    best = None
    for i, layer in enumerate(LAYERS):
        if module == layer or (layer != "companion" and module.startswith(layer + ".")):
            best = i
    if best is None and module == "companion":
        best = LAYERS.index("companion")
    if best is None:
        raise AssertionError(f"{module} has no place in LAYERS: add its top-level name there")
    return best


def _llm_part(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["companion", "llm"] and len(parts) > 2 else None


def _llm_rank(part: str) -> int:
    for i, names in enumerate(LLM_LAYERS):
        if part in names:
            return i
    return LLM_LAYERS.index(ENGINES)


def test_the_graph_is_read():
    # a test that could not fail on an empty graph would prove nothing
    assert "companion.llm.registry" in EDGES["companion.llm.loading"]
    assert {"companion.llm.loading", "companion.llm.whisper"} <= set(MODULES)


def test_cycle_finder_finds_a_planted_cycle():
    planted = {m: set(t) for m, t in EDGES.items()}
    planted["companion.theory.norms"] = {"companion.llm.registry"}
    planted["companion.llm.registry"] = {"companion.theory.norms"}
    assert frozenset({"companion.theory.norms", "companion.llm.registry"}) in _cycles(planted)


def test_no_import_cycle():
    found = [c for c in _cycles(EDGES) if c not in PENDING_CYCLES]
    assert not found, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in found)


@pytest.mark.parametrize("cycle", sorted(PENDING_CYCLES, key=sorted), ids=lambda c: min(c))
def test_pending_cycles_are_still_there(cycle):
    # once fixed, drop the entry from PENDING_CYCLES so that it cannot come back unseen
    assert cycle in _cycles(EDGES), f"fixed: remove {min(cycle)} from PENDING_CYCLES"


def test_every_module_has_a_layer():
    for module in MODULES:
        _layer(module)


def test_no_import_up_a_layer():
    bad = [
        f"{m} imports {t}"
        for m, targets in EDGES.items()
        for t in sorted(targets)
        if t in MODULES and _layer(t) > _layer(m)
    ]
    assert not bad, "imports up a layer (see LAYERS): " + "; ".join(bad)


def test_theory_imports_only_the_core():
    core = {"companion", "companion._validate", "companion.stats"}
    bad = [
        f"{m} imports {t}"
        for m, targets in EDGES.items()
        if m.startswith("companion.theory")
        for t in sorted(targets)
        if not (t in core or t.startswith("companion.theory"))
    ]
    assert not bad, bad


def test_llm_imports_run_one_way():
    bad = []
    for m, targets in EDGES.items():
        src = _llm_part(m)
        if src is None:
            continue
        for t in sorted(targets):
            dst = _llm_part(t)
            if dst is None or dst == src:
                continue
            if _llm_rank(dst) > _llm_rank(src):
                bad.append(f"{m} imports {t} (up a layer of LLM_LAYERS)")
            elif src in ENGINES and dst in ENGINES:
                bad.append(f"{m} imports {t} (one engine imports the other)")
    assert not bad, bad


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _private_uses() -> list[tuple[str, str]]:
    """(module, what it uses) for every private name taken from another file."""
    return sorted(
        (m, f"{MODULES[m].relative_to(ROOT)}:{line} uses {mod}.{name}")
        for m, uses in NAMES.items()
        for mod, name, line in uses
        if _private(name) and mod != m
    )


def _pending(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in PENDING_PRIVATE)


def test_no_private_name_crosses_files():
    bad = [use for m, use in _private_uses() if not _pending(m)]
    assert not bad, "private names used across files (make them public where they live):\n" + (
        "\n".join(bad)
    )


@pytest.mark.parametrize("package", sorted(PENDING_PRIVATE))
def test_pending_private_names_are_still_there(package):
    # once clean, drop the entry from PENDING_PRIVATE so that it cannot come back unseen
    assert any(m.startswith(package + ".") for m, _ in _private_uses()), f"clean: drop {package}"
