"""``make slides``: one reveal.js deck per chapter, self-hosted, from the executed chapters.

For each chapter of Parts I and II (``_toc.yml``) this takes the outputs that ``make book``
stored in its execution cache for exactly the current source (or executes the chapter itself
when there is none), and

* turns MyST into plain Markdown that nbconvert can render: theorem boxes become quoted
  "**Theorem (...)**" blocks, ``{math}`` blocks ``$$...$$``, exercises stay, solutions
  (plain ``{solution}`` blocks and gated ``{solution-start}`` ... ``{solution-end}`` ones with
  their code cells) are left out (they are in the book), roles such as ``{cite}`` become plain text;
* drops ``remove-cell`` cells, shows only the output of ``remove-input``/``hide-input``
  cells (plots and widgets), and starts a slide at every ``#``/``##`` heading, with each
  figure or widget snapshot on its own sub-slide;
* exports with nbconvert's reveal.js template, pointing reveal.js, require.js, the widget
  manager and MathJax 3 at copies in ``_build/slides/assets/`` (from ``make vendor``), so a
  deck works offline; the saved widget state is embedded.

Decks go to ``_build/slides/<part>__<chapter>.slides.html``.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import shutil
import sys
import time
from pathlib import Path

__all__ = ["myst_to_markdown", "chapter_deck", "main"]

_THEOREMS = {
    "theorem",
    "definition",
    "lemma",
    "proposition",
    "corollary",
    "conjecture",
    "remark",
    "example",
    "property",
    "observation",
    "assumption",
    "axiom",
    "criterion",
    "algorithm",
}
_ADMONITIONS = {
    "note",
    "tip",
    "warning",
    "important",
    "hint",
    "caution",
    "attention",
    "danger",
    "error",
    "seealso",
}
_OPEN = re.compile(r"^(\s*)(`{3,}|:{3,})\{([\w:-]+)\}\s*(.*)$")
_PLAIN_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")


def _role(m: re.Match) -> str:
    name, text = m.group(1), m.group(2)
    if name == "cite" or name.startswith("cite:"):
        return "[" + ", ".join(k.strip() for k in text.split(",")) + "]"
    if name == "math":
        return f"${text}$"
    if name == "eq":
        return f"({text})"
    label = re.match(r"^(.*?)\s*<([^>]+)>$", text)
    return label.group(1) if label else text


def _render(name: str, arg: str, body: list[str]) -> list[str]:
    text = body[:]
    while text and not text[0].strip():
        text.pop(0)
    kind = name.split(":")[-1]
    if (
        name == "solution"
        or kind == "solution"
        or name
        in ("glue:figure", "glue", "bibliography", "nb-exec-table", "toctree", "tableofcontents")
    ):
        return []
    if name == "math":
        return ["$$", *text, "$$"]
    if kind in _THEOREMS or name == "exercise":
        head = "Exercise" if name == "exercise" else kind.capitalize()
        head = f"**{head}{f' ({arg})' if arg else ''}.**"
        return ["> " + head, ">", *[("> " + ln) if ln.strip() else ">" for ln in text], ""]
    if name == "admonition" or kind in _ADMONITIONS:
        head = f"**{arg or kind.capitalize()}**"
        return ["> " + head, ">", *[("> " + ln) if ln.strip() else ">" for ln in text], ""]
    if name in ("figure", "image") and arg:
        return [f"![{' '.join(text).strip() or arg}]({arg})"]
    return text


def myst_to_markdown(src: str) -> str:
    """Plain Markdown from a MyST markdown cell (directives, roles and labels resolved).

    Examples
    --------
    >>> src = "````{prf:theorem} Fact 1\\n:label: thm-x\\n\\nSee {cite}`a`.\\n````"
    >>> print(myst_to_markdown(src))
    > **Theorem (Fact 1).**
    >
    > See [a].
    <BLANKLINE>
    >>> src = "(sec-x)=\\n````{solution} ex\\n:class: dropdown\\n\\nhidden\\n````"
    >>> myst_to_markdown(src).strip()
    ''
    """
    lines = src.splitlines()
    out: list[str] = []
    stack: list[dict] = []  # open directives

    def emit(items):
        (stack[-1]["body"] if stack else out).extend(items)

    i = 0
    while i < len(lines):
        line = lines[i]
        if re.match(r"^\([\w:-]+\)=\s*$", line):  # a (label)= target
            i += 1
            continue
        m = _OPEN.match(line)
        if m:
            fence = m.group(2)
            node = {
                "char": fence[0],
                "len": len(fence),
                "name": m.group(3),
                "arg": m.group(4).strip(),
                "body": [],
            }
            i += 1
            while i < len(lines) and re.match(r"^\s*:[\w-]+:", lines[i]):  # options
                i += 1
            stack.append(node)
            continue
        if stack:
            top = stack[-1]
            s = line.strip()
            if s and set(s) == {top["char"]} and len(s) >= top["len"]:
                node = stack.pop()
                emit(_render(node["name"], node["arg"], node["body"]))
                i += 1
                continue
        m = _PLAIN_FENCE.match(line)
        if m:  # an ordinary code block: copy it through unchanged
            fence = m.group(2)
            block = [line]
            i += 1
            while i < len(lines):
                block.append(lines[i])
                if lines[i].strip().startswith(fence[0] * len(fence)) and not lines[
                    i
                ].strip().strip(fence[0]):
                    break
                i += 1
            emit(block)
            i += 1
            continue
        emit([_ROLE.sub(_role, line)])
        i += 1
    while stack:  # unterminated directive: keep its body
        node = stack.pop()
        emit(_render(node["name"], node["arg"], node["body"]))
    return "\n".join(out).strip("\n") + ("\n" if out else "")


def _has_visual(cell) -> bool:
    for o in cell.get("outputs", []):
        data = o.get("data", {})
        if any(
            k.startswith("image/") or k in ("application/vnd.jupyter.widget-view+json", "text/html")
            for k in data
        ):
            return True
    return False


_SOLUTION_START = re.compile(r"^(`{3,}|:{3,})\{solution-start\}.*?^\1\s*$", re.M | re.S)
_SOLUTION_END = re.compile(r"^(`{3,}|:{3,})\{solution-end\}.*?^\1\s*$", re.M | re.S)


def _without_solutions(cells):
    """The cells with every gated solution (``{solution-start}`` ... ``{solution-end}``, which
    may span markdown and code cells) left out; a deck shows the exercise, not its answer."""
    inside, out = False, []
    for cell in cells:
        if cell.cell_type != "markdown":
            if not inside:
                out.append(cell)
            continue
        kept, text = [], cell.source
        while text:
            marker = (_SOLUTION_END if inside else _SOLUTION_START).search(text)
            if marker is None:
                kept.append("" if inside else text)
                break
            kept.append("" if inside else text[: marker.start()])
            text, inside = text[marker.end() :], not inside
        source = "".join(kept)
        if source.strip():
            cell = copy.deepcopy(cell)
            cell.source = source
            out.append(cell)
    return out


def to_slides(nb):
    """A copy of the executed notebook arranged as slides (see the module docstring)."""
    nb = copy.deepcopy(nb)
    cells = []
    for cell in _without_solutions(nb.cells):
        tags = set(cell.metadata.get("tags", []))
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            # one slide per #/## heading, also when several sections share one markdown cell
            for k, chunk in enumerate(re.split(r"\n(?=#{1,2} )", myst_to_markdown(cell.source))):
                if not chunk.strip():
                    continue
                part = copy.deepcopy(cell)
                if "id" in part:
                    part["id"] = f"{cell['id']}-{k}"[:64]
                part.source = chunk.strip("\n") + "\n"
                kind = "slide" if re.match(r"^#{1,2} ", chunk.lstrip()) else "-"
                part.metadata["slideshow"] = {"slide_type": kind}
                cells.append(part)
            continue
        elif cell.cell_type == "code":
            if tags & {"remove-input", "hide-input"}:
                cell.metadata.setdefault("jupyter", {})["source_hidden"] = True
                cell.metadata["transient"] = {"remove_source": True}
            if "remove-output" in tags:
                cell.outputs = []
            if not cell.source.strip() and not cell.get("outputs"):
                continue
            kind = "subslide" if _has_visual(cell) else "-"
        else:
            continue
        cell.metadata["slideshow"] = {"slide_type": kind}
        cells.append(cell)
    if cells:
        cells[0].metadata["slideshow"] = {"slide_type": "slide"}
    nb.cells = cells
    return nb


def _chapters(root: Path) -> list[str]:
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    docs = []
    for part in toc.get("parts", []):
        for ch in part.get("chapters", []):
            f = ch.get("file", "")
            if f.startswith(("book/sign_magnitude/", "book/dead_directions/")):
                docs.append(f)
    return docs


def _executed(root: Path, doc: str, *, timeout: int):
    """The executed notebook of ``doc``: ``make book``'s cached execution of exactly this
    source if there is one, else executed here."""
    import jupytext
    import nbformat

    src = root / f"{doc}.md"
    nb = jupytext.read(src)
    cache_dir = root / "_build" / ".jupyter_cache"
    if cache_dir.exists():  # the outputs the site shows, if the cache matches this source
        from jupyter_cache import get_cache

        try:
            _, merged = get_cache(str(cache_dir)).merge_match_into_notebook(nb)
            return nbformat.from_dict(merged), "from make book's execution cache"
        except KeyError:
            pass
    if nb.metadata.get("mystnb", {}).get("execution_mode") == "off":
        return nb, "not executed (full-scale chapter)"
    from nbclient import NotebookClient

    env_backend = os.environ.pop("MPLBACKEND", None)  # inline backend in the kernel
    try:
        NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(src.parent)}},
        ).execute()
    finally:
        if env_backend is not None:
            os.environ["MPLBACKEND"] = env_backend
    return nb, "executed here"


_MATHJAX3_CONFIG = (
    "<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], "
    "displayMath: [['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true, tags: 'ams'}};"
    "</script>\n"
)


def _offline(html: str) -> str:
    """Remove what nbconvert's template still loads from CDNs and set up MathJax 3."""
    html = re.sub(r'<script src="https://[^"]*jquery[^"]*"></script>\s*', "", html)
    html = re.sub(r'<script type="module">\s*import mermaid.*?</script>\s*', "", html, flags=re.S)
    html = re.sub(r'<script type="text/x-mathjax-config">.*?</script>\s*', "", html, flags=re.S)
    html = html.replace(
        '<script src="assets/mathjax/', _MATHJAX3_CONFIG + '<script src="assets/mathjax/', 1
    )
    html = html.replace(
        "https://maxcdn.bootstrapcdn.com/font-awesome/4.4.0/css/font-awesome.min.css",
        "assets/font-awesome/css/font-awesome.min.css",
    )
    # the white theme upper-cases headings, which would turn a typeset pi into a capital Pi
    style = "<style>.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }</style>\n"
    return html.replace(
        "</head>", style + '<script src="assets/companion.js"></script>\n</head>', 1
    )


def chapter_deck(root: Path, doc: str, out: Path, *, timeout: int = 600) -> tuple[Path, str]:
    """Write the deck of ``doc`` under ``out``; return its path and where the outputs came from."""
    from nbconvert import SlidesExporter

    nb, origin = _executed(root, doc, timeout=timeout)
    here = Path(doc).parent

    def deck_link(m):  # a link to another chapter's source -> that chapter's deck
        target = os.path.normpath(here / (m.group(1) + ".md"))
        deck = Path(target).with_suffix("").as_posix().removeprefix("book/").replace("/", "__")
        return f"]({deck}.slides.html)"

    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(
                r"\]\(((?!https?:)[^)#\s]+)\.(?:md|ipynb)(?:#[^)]*)?\)", deck_link, cell.source
            )
    exporter = SlidesExporter(
        reveal_url_prefix="assets/reveal.js",
        reveal_theme="white",
        reveal_scroll=True,
        reveal_transition="none",
        reveal_number="c/t",
        require_js_url="assets/widgets/require.js",
        widget_renderer_url="assets/widgets/embed-amd.js",
        mathjax_url="assets/mathjax/tex-mml-chtml.js",
        font_awesome_url="assets/font-awesome/css/font-awesome.min.css",
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(to_slides(nb))
    path = out / (doc.removeprefix("book/").replace("/", "__") + ".slides.html")
    path.write_text(_offline(body), encoding="utf-8")
    left = sorted(set(re.findall(r'(?:src|href)="(https?://[^"]+)"', _offline(body))))
    left = [u for u in left if not u.startswith(("https://github.com", "https://colab"))]
    if left:
        print(f"    warning: {path.name} still loads {left[:3]}", file=sys.stderr)
    return path, origin


def _copy_assets(root: Path, out: Path) -> None:
    vend = root / "_vendor"
    if not (vend / "reveal.js").exists():
        raise FileNotFoundError("`_vendor/reveal.js` is missing: run `make vendor` first")
    assets = out / "assets"
    shutil.rmtree(assets, ignore_errors=True)
    shutil.copytree(vend / "reveal.js", assets / "reveal.js")
    for sub in ("widgets", "mathjax", "font-awesome"):
        if (vend / "site" / sub).exists():  # no widget JS since the site shows none
            shutil.copytree(vend / "site" / sub, assets / sub)
    shutil.copy(root / "book" / "_assets" / "companion.js", assets / "companion.js")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="_build/slides")
    p.add_argument("--only", nargs="*", help="only chapters whose path contains one of these")
    p.add_argument("--timeout", type=int, default=600, help="seconds per cell when executing here")
    args = p.parse_args(argv)
    from companion.site.backmatter import repo_root

    root = repo_root()
    out = root / args.out if not Path(args.out).is_absolute() else Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    _copy_assets(root, out)
    docs = [d for d in _chapters(root) if not args.only or any(s in d for s in args.only)]
    t_all = time.perf_counter()
    failed = []
    for doc in docs:
        t0 = time.perf_counter()
        if not (root / f"{doc}.md").exists():
            failed.append(doc)
            print(f"  {doc}: source missing", flush=True)
            continue
        try:
            path, origin = chapter_deck(root, doc, out, timeout=args.timeout)
        except Exception as err:  # report every chapter, then fail
            failed.append(doc)
            print(
                f"  {doc}: FAILED {type(err).__name__}: "
                f"{str(err).splitlines()[0][:200] if str(err) else ''}",
                flush=True,
            )
            continue
        print(
            f"  {path.relative_to(root)}  {path.stat().st_size / 1e6:.1f} MB  "
            f"{time.perf_counter() - t0:.1f} s  ({origin})",
            flush=True,
        )
    decks = sorted(out.glob("*.slides.html"))
    (out / "index.html").write_text(
        "<!DOCTYPE html><html lang='en'><head><meta "
        "charset='utf-8'><title>Slides</title></head><body>"
        "<h1>Chapter slides</h1><ul>"
        + "".join(
            f"<li><a href='{d.name}'>{d.name.removesuffix('.slides.html')}</a></li>" for d in decks
        )
        + "</ul></body></html>",
        encoding="utf-8",
    )
    print(
        f"slides: {len(docs) - len(failed)} of {len(docs)} decks in {out} "
        f"({time.perf_counter() - t_all:.0f} s)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
