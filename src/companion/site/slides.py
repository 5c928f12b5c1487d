"""Talk decks: one reveal.js deck per chapter, made from the chapter's built page.

Each chapter module names, in a small ``TALK`` dict, the parts of the chapter a talk needs::

    TALK = {
        "statement": ("thm-theorem3",),      # label(s) of the statement box(es)
        "steps": ("Arc-cosine kernel",),     # derivation paragraphs, by their bold lead
        "punchline": "dong.thm3.limit",      # the claim whose value ± SE is the headline
        "exercise": "ex-t3-expand",          # the exercise set in the room
        "figure": "draw",                    # drawn when the page has no kernel-free figure
    }

:func:`build` reads the chapter pages Sphinx wrote, so numbers, citations and cross-references
are exactly those of the site (no prose is copied into the spec), and writes
``slides/<part>/<chapter>.html`` with, in order:

1. the title: chapter and paper;
2. the question: the overview's first paragraph (the rest goes to the speaker notes, key S);
3. the statement box(es), with their provenance;
4. the derivation steps the spec names;
5. the figure: the page's kernel-free Explore figure, whose controls work in the deck too, or
   else the spec's drawing function at its defaults;
6. the punchline: the claim measured now, our value ± SE against the paper's;
7. the exercise, its solution on the slide below it (key ↓);
8. the chapter's discussion questions;
9. the status of every claim of the chapter, measured now;
10. where to go next.

and ``slides/index.html``, every deck in book order. A deck loads reveal.js (vendored by
``make vendor``, copied to ``slides/assets/``), and the site's MathJax, ``companion.js`` and
``companion.css`` from ``_static/``: no CDN, and it works from ``file://``. ``deck.js`` shrinks
a slide's text until the slide fits its 1280 × 720 frame; opened with ``?check`` it steps through
every slide and reports what still overflows and every console error (:func:`check`).

The Sphinx extension (:mod:`companion.site.book_ext`) calls :func:`build` when an executed HTML
build finishes and links every chapter page to its deck; ``make slides`` rebuilds the decks
of an existing build and checks them in headless Chromium at 1280 × 720 and 1920 × 1080.
"""

from __future__ import annotations

import argparse
import html as _html
import json
import math
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from companion.site.paths import deck_path, repo_root

__all__ = [
    "SIZES",
    "TALK_KEYS",
    "build",
    "check",
    "check_talk",
    "deck_path",
    "decks",
    "format_value",
    "main",
]

#: Keys of a chapter's ``TALK`` spec (``statement``, ``punchline`` and ``exercise`` required).
TALK_KEYS = ("statement", "steps", "punchline", "exercise", "figure", "figsize")
#: Window sizes the decks are checked at: a projector and a full-HD screen.
SIZES = ((1280, 720), (1920, 1080))
_ASSETS = Path(__file__).with_name("deck")
_REVEAL = (  # what a deck loads from reveal.js (the white theme imports its font)
    "dist/reset.css",
    "dist/reveal.css",
    "dist/reveal.js",
    "dist/theme/white.css",
    "dist/theme/fonts/source-sans-pro",
    "plugin/notes/notes.js",
)


def check_talk(spec: dict, module: str = "the chapter") -> dict:
    """``spec`` completed with defaults (``steps=()``, ``figure="draw"``, ``figsize=(8, 4.4)``).

    Examples
    --------
    >>> check_talk({"statement": "thm-a", "punchline": "x.y", "exercise": "ex-a"})["statement"]
    ('thm-a',)
    >>> check_talk({"statement": "thm-a"})
    Traceback (most recent call last):
    ...
    ValueError: `TALK` of the chapter must name 'punchline', 'exercise'; got ['statement']
    """
    missing = [k for k in ("statement", "punchline", "exercise") if k not in spec]
    unknown = [k for k in spec if k not in TALK_KEYS]
    if missing or unknown:
        what = f"name {', '.join(map(repr, missing))}" if missing else f"use only {TALK_KEYS}"
        raise ValueError(f"`TALK` of {module} must {what}; got {sorted(spec)}")
    out = {"steps": (), "figure": "draw", "figsize": (8, 4.4), **spec}
    for key in ("statement", "steps"):
        if isinstance(out[key], str):
            out[key] = (out[key],)
        out[key] = tuple(out[key])
    return out


def decks(root: str | Path) -> list[tuple[str, str]]:
    """``(page, part caption)`` of every chapter of ``root``'s ``_toc.yml`` that has a deck
    (its module defines ``TALK``), in book order."""
    import yaml

    from companion.chapters import CHAPTERS, module

    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text(encoding="utf-8"))
    out = []
    for part in toc.get("parts", []):
        for ch in part.get("chapters", []):
            doc = ch.get("file", "")
            if doc.removeprefix("book/") in CHAPTERS and hasattr(module(doc), "TALK"):
                out.append((doc, part.get("caption", "")))
    return out


def format_value(value, stderr=None) -> str:
    """A measured value with its standard error, to the SE's second significant digit.

    >>> format_value(2.70213, 0.00461)
    '2.7021 ± 0.0046'
    >>> format_value(0.6366)
    '0.6366'
    """
    if isinstance(value, str) or value is None:
        return "—" if value is None else value
    if not stderr or not math.isfinite(stderr):
        return f"{value:.4g}"
    digits = max(0, 1 - math.floor(math.log10(abs(stderr))))
    return f"{value:.{digits}f} ± {stderr:.{digits}f}"


# ------------------------------------------------------------------------ reading a page


def _soup(text: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(text, "html.parser")


def _relink(node, page: str, deck: str) -> None:
    """Rewrite ``node``'s relative links (written for the site page ``page``) for ``deck``;
    links to the page itself become links to the page on the site."""
    for tag in node.find_all(True):
        for attr in ("href", "src"):
            url = tag.get(attr)
            if not url or re.match(r"^(?:[a-z][\w+.-]*:|//)", url, re.I):
                continue
            path, frag = (url.split("#", 1) + [""])[:2]
            target = posixpath.normpath(
                posixpath.join(posixpath.dirname(page), path or posixpath.basename(page))
            )
            rel = posixpath.relpath(target, posixpath.dirname(deck))
            tag[attr] = rel + (f"#{frag}" if frag else "")


def _strip(node) -> None:
    """Drop what has no place on a slide: code cells' inputs, header permalinks."""
    for sel in ("div.cell_input", "a.headerlink", "div.toggle-hidden", "button.toggle-button"):
        for el in node.select(sel):
            el.decompose()


def _section(article, name: str):
    sec = article.find("section", id=name)
    if sec is None:
        raise LookupError(f"the page has no section {name!r}")
    return sec


def _blocks(sec):
    """The direct content of a section: its children minus the heading and subsections."""
    return [
        c
        for c in sec.children
        if getattr(c, "name", None) and c.name not in ("h1", "h2", "h3", "section")
    ]


def _by_label(article, label: str):
    el = article.find(id=label)
    if el is None:
        raise LookupError(f"the page has no element labelled {label!r}")
    return el


def _step(article, lead: str):
    """The derivation paragraph that opens with ``<strong>lead</strong>``, and what follows it
    (lists, display math) up to the next such paragraph or code cell."""
    want = lead.rstrip(". ").lower()
    for p in article.select("section#derivation p"):
        strong = p.find("strong")
        if strong is None or p.contents[0] is not strong:
            continue
        if strong.get_text(" ", strip=True).rstrip(". ").lower() != want:
            continue
        strong.extract()
        body = [p]
        for sib in p.find_next_siblings():
            first = next((c for c in sib.children if str(c).strip()), None)
            opens_step = sib.name == "p" and getattr(first, "name", None) == "strong"
            if opens_step or sib.name in ("section", "h2", "h3") or "cell" in sib.get("class", []):
                break
            body.append(sib)
        return strong.get_text(" ", strip=True).rstrip(". "), body
    raise LookupError(f"the derivation has no paragraph opening with {lead!r}")


def _solution(article, label: str):
    """The solution of exercise ``label`` (a ``{solution}`` box, or a gated solution whose
    content follows its start marker up to the end marker)."""
    for sol in article.select("div.solution"):
        link = sol.select_one("p.admonition-title a, .admonition-title a")
        if link is not None and link.get("href", "").endswith("#" + label):
            return sol
    raise LookupError(f"the page has no solution of {label!r}")


def _join(nodes) -> str:
    return "".join(str(n) for n in nodes)


# ----------------------------------------------------------------------- making slides


def _slide(body: str, *, title: str = "", notes: str = "", cls: str = "") -> str:
    # a <section> inside a slide would be a slide of its own to reveal.js (sphinx-proof wraps
    # a theorem's body in one)
    body = re.sub(r"<(/?)section\b", r"<\1div", body)
    head = f"<h2>{title}</h2>" if title else ""
    aside = f'<aside class="notes">{notes}</aside>' if notes.strip() else ""
    inner = f'<div class="deck-fit">{head}{body}</div>{aside}'
    return f'<section class="deck-slide {cls}">{inner}</section>'


def _figure(article, mod, spec: dict, deck: str) -> tuple[str, str]:
    """(figure HTML, speaker notes): the page's Explore figure, or the spec's drawing."""
    sec = article.find("section", id="explore")
    notes = _join(p for p in (sec.find_all("p", recursive=False) if sec else []))
    explore = sec.select_one("div.companion-explore") if sec is not None else None
    if explore is not None:
        return str(explore), notes
    from matplotlib.figure import Figure

    from companion import plotting

    fig = Figure(figsize=spec["figsize"], layout="constrained")
    getattr(mod, spec["figure"])(fig)
    name = deck.rsplit("/", 1)[-1].removesuffix(".html")
    return plotting.figure_html(fig, name=name, dpi=120, svg=False), notes


def _claims(doc: str, scale: str) -> dict:
    """``{claim id: (result measured now, how it is measured)}`` of the chapter's claims."""
    from companion.ledger import all_claims, run

    return {c.id: (run(c, scale=scale), c.method) for c in all_claims() if c.chapter == doc}


_BADGE = {
    "reproduced": "✔ reproduced",
    "deviates": "≠ deviates",
    "unresolved": "? unresolved",
    "not-run": "○ not run",
}


def _punchline(r, method: str) -> str:
    e = _html.escape
    how = f'<p class="deck-small">How we measure it: {e(method)}.</p>'
    why = f'<p class="deck-small">{e(r.reason)}</p>' if r.reason else ""
    return (
        f'<p class="deck-claim">{e(r.statement)}</p>'
        f'<div class="deck-numbers"><div><span>ours, measured now</span>'
        f"<b>{e(format_value(r.value, r.stderr))}</b></div>"
        f"<div><span>the paper</span><b>{e(r.paper_value)}</b></div></div>"
        f'<p class="deck-status claim-{r.status}">{_BADGE[r.status]}</p>{how}{why}'
    )


def _claims_table(results) -> str:
    e = _html.escape
    rows = "".join(
        f'<tr class="claim-{r.status}"><td>{e(r.statement)}</td><td>{e(r.paper_value)}</td>'
        f"<td>{e(format_value(r.value, r.stderr))}</td><td>{_BADGE[r.status]}</td></tr>"
        for r in results
    )
    return (
        '<table class="deck-claims"><thead><tr><th>claim</th><th>paper</th><th>ours</th>'
        f"<th>status</th></tr></thead><tbody>{rows}</tbody></table>"
    )


#: The most claims one slide shows: a longer list (an at-scale chapter has 15 or 16, each
#: stating its model and scale) continues on slides below it.
CLAIMS_PER_SLIDE = 8


def _claims_slides(results) -> str:
    """The claims slide, or a vertical stack of them when there are more than fit one."""
    title = "The claims, measured now"
    chunks = [results[i : i + CLAIMS_PER_SLIDE] for i in range(0, len(results), CLAIMS_PER_SLIDE)]
    if len(chunks) <= 1:
        return _slide(_claims_table(results), title=title)
    k = len(chunks)
    return (
        "<section>"
        + "".join(
            _slide(
                _claims_table(chunk)
                + ('<p class="deck-small">More: next slide down (↓).</p>' if i < k else ""),
                title=f"{title} ({i} of {k})",
            )
            for i, chunk in enumerate(chunks, 1)
        )
        + "</section>"
    )


def _deck(html_dir: Path, doc: str, caption: str, nav: dict, scale: str) -> str:
    from companion.chapters import module

    mod = module(doc)
    spec = check_talk(mod.TALK, mod.__name__)
    page, deck = doc + ".html", deck_path(doc)
    path = html_dir / page
    if not path.exists():
        raise FileNotFoundError(f"{page} is missing from {html_dir}: build the book first")
    article = _soup(path.read_text(encoding="utf-8")).select_one("article") or _soup("")
    _strip(article)
    _relink(article, page, deck)
    h1 = article.find("h1")
    title = h1.decode_contents() if h1 else doc
    site = posixpath.relpath(page, posixpath.dirname(deck))
    slides = [
        _slide(
            f'<h1>{title}</h1><p class="deck-paper">{_html.escape(caption)}</p>'
            f'<p class="deck-small">A talk from the companion book; every number on these '
            f"slides was computed when they were built (scale <code>{scale}</code>). "
            f'<a href="{site}">The chapter on the site</a>.</p>',
            cls="deck-title",
        )
    ]
    over = [b for b in _blocks(_section(article, "overview")) if b.name == "p"]
    slides.append(_slide(str(over[0]), title="The question", notes=_join(over[1:])))
    for label in spec["statement"]:
        box = _by_label(article, label)
        slides.append(_slide(str(box), title="The statement", cls="deck-statement"))
    for lead in spec["steps"]:
        name, body = _step(article, lead)
        slides.append(_slide(_join(body), title=name))
    fig, notes = _figure(article, mod, spec, deck)
    slides.append(
        _slide(
            f'<div class="deck-figure">{fig}</div><p class="deck-small">On the site: '
            f'<a href="{site}#explore">the Explore section</a> of the chapter.</p>',
            title="The figure",
            notes=notes,
        )
    )
    results = _claims(doc, scale)
    if spec["punchline"] not in results:
        raise LookupError(
            f"`TALK['punchline']` of {mod.__name__} must be one of its claims; "
            f"got {spec['punchline']!r} (claims: {sorted(results)})"
        )
    r, method = results[spec["punchline"]]
    notes = _html.escape(r.detail or r.reason)
    if r.source:
        notes += f"<br>Source: {_html.escape(r.source)}"
    slides.append(_slide(_punchline(r, method), title="The number", notes=notes))
    ex = _by_label(article, spec["exercise"])
    sol = _solution(article, spec["exercise"])
    ran = bool(sol.select("div.cell"))
    for cell in sol.select("div.cell"):  # a talk shows no code: the solution's code runs on
        cell.decompose()  # the chapter page
    more = (
        f'<p class="deck-small">The solution\'s code runs in <a href="{site}#exercises">the '
        "chapter</a>.</p>"
        if ran
        else ""
    )
    slides.append(
        "<section>"
        + _slide(
            str(ex) + '<p class="deck-small">Solution: next slide down (↓).</p>', title="Try it"
        )
        + _slide(str(sol) + more, cls="deck-solution")
        + "</section>"
    )
    disc = [
        a
        for a in article.select("div.admonition")
        if a.select_one(".admonition-title")
        and a.select_one(".admonition-title").get_text(strip=True) == "Discussion"
    ]
    if disc:
        body = disc[0].find_all(recursive=False)[1:]
        slides.append(_slide(_join(body), title="Discuss"))
    slides.append(_claims_slides([r for r, _ in results.values()]))
    links = [
        f'<li><a href="{site}">The chapter</a>: derivation, checks, every exercise with '
        "its solution, and the Explore figure (its controls work without a kernel)</li>"
    ]
    if nav.get("next"):
        links.append(f'<li>Next talk: <a href="{nav["next"][0]}">{nav["next"][1]}</a></li>')
    ledger = posixpath.relpath("book/ledger.html", posixpath.dirname(deck))
    links += [
        f'<li><a href="{ledger}">The claims ledger</a> of both papers</li>',
        '<li><a href="../index.html">All talks</a>, in book order</li>',
    ]
    slides.append(_slide(f"<ul>{''.join(links)}</ul>", title="Where next"))
    return _page(_plain_title(title), "".join(slides), deck)


def _plain_title(title_html: str) -> str:
    text = _soup(title_html).get_text("")
    return re.sub(r"\\\(|\\\)", "", text).replace("\\", "").strip()


_MATHJAX = (
    "<script>window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']], displayMath: "
    "[['\\\\[', '\\\\]']]}, options: {processHtmlClass: 'math|output_area|deck-fit'}};</script>"
)


def _page(title: str, sections: str, deck: str) -> str:
    up = "../" * deck.count("/")  # from the deck to the site root
    a = up + "slides/assets/"
    css = "".join(
        f'<link rel="stylesheet" href="{href}">'
        for href in (
            a + "reveal/reset.css",
            a + "reveal/reveal.css",
            a + "reveal/theme/white.css",
            up + "_static/pygments.css",
            up + "_static/companion.css",
            a + "deck.css",
        )
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_html.escape(title)} (slides)</title>"
        f'<script src="{a}deck.js"></script>{css}{_MATHJAX}'
        f'<script defer src="{up}_static/mathjax/tex-mml-chtml.js"></script></head><body>'
        f'<div class="reveal"><div class="slides">{sections}</div></div>'
        f'<script src="{a}reveal/reveal.js"></script><script src="{a}reveal/notes.js"></script>'
        f'<script src="{up}_static/companion.js"></script>'
        "<script>CompanionDeck.start();</script></body></html>"
    )


def _index(entries: list[tuple[str, str, str]]) -> str:
    parts, items = [], {}
    for doc, caption, title in entries:
        items.setdefault(caption, []).append(
            f'<li><a href="{deck_path(doc).removeprefix("slides/")}">{title}</a></li>'
        )
    for caption, lis in items.items():
        parts.append(f"<h2>{_html.escape(caption)}</h2><ol>{''.join(lis)}</ol>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>Talks: one deck per chapter</title><link rel="stylesheet" '
        'href="assets/deck.css">'
        + _MATHJAX
        + '<script defer src="../_static/mathjax/tex-mml-chtml.js"></script></head>'
        '<body class="deck-index"><h1>Talks: one deck per chapter</h1><p>Each deck is a '
        "short talk made from its chapter: the question, the statement, the figure, the "
        "number with its standard error, an exercise (solution one slide down), discussion and "
        "the claims' status. Keys: → next, ↓ solution, S speaker notes, F full screen. The "
        '<a href="../book/seminar.html">seminar page</a> puts them into a 90-minute session.'
        f"</p>{''.join(parts)}</body></html>"
    )


def _copy_assets(root: Path, out: Path) -> None:
    reveal = root / "_vendor" / "reveal.js"
    if not reveal.exists():
        raise FileNotFoundError("`_vendor/reveal.js` is missing: run `make vendor` first")
    assets = out / "assets"
    for rel in _REVEAL:
        dest = assets / "reveal" / rel.removeprefix("dist/").removeprefix("plugin/notes/")
        dest.parent.mkdir(parents=True, exist_ok=True)
        if (reveal / rel).is_dir():
            shutil.copytree(reveal / rel, dest, dirs_exist_ok=True)
        else:
            shutil.copy2(reveal / rel, dest)
    for f in _ASSETS.iterdir():
        shutil.copy2(f, assets / f.name)


def build(html_dir: str | Path, root: str | Path, *, scale: str | None = None, log=print):
    """Write every chapter's deck and the index into ``html_dir/slides``; return their paths.

    ``html_dir``: a built site (the chapter pages must be there); ``root``: the book's sources
    (``_toc.yml``, ``_vendor/``); ``scale``: of the claims measured (default: the book's,
    :data:`companion.scale.SCALE`).
    """
    from companion.scale import SCALE

    html_dir, root, scale = Path(html_dir), Path(root), scale or SCALE
    out = html_dir / "slides"
    _copy_assets(root, out)
    entries = decks(root)
    titles = {}
    for doc, _ in entries:
        h1 = _soup((html_dir / f"{doc}.html").read_text(encoding="utf-8")).find("h1")
        titles[doc] = h1.decode_contents() if h1 else doc
        for a in h1.select("a.headerlink") if h1 else []:
            titles[doc] = titles[doc].replace(str(a), "")
    written = []
    for i, (doc, caption) in enumerate(entries):
        t0 = time.perf_counter()
        nxt = entries[i + 1][0] if i + 1 < len(entries) else None
        nav = (
            {
                "next": (
                    posixpath.relpath(deck_path(nxt), posixpath.dirname(deck_path(doc))),
                    titles[nxt],
                )
            }
            if nxt
            else {}
        )
        path = html_dir / deck_path(doc)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_deck(html_dir, doc, caption, nav, scale), encoding="utf-8")
        written.append(path)
        log(f"deck {deck_path(doc)} ({time.perf_counter() - t0:.1f} s)")
    (out / "index.html").write_text(
        _index([(d, c, titles[d]) for d, c in entries]), encoding="utf-8"
    )
    return written


# ----------------------------------------------------------------------------- checking


def _chromium() -> str:
    from companion.site.browser import find_chromium

    return find_chromium()


def check(paths, sizes=SIZES, *, timeout: int = 120) -> dict[str, list[str]]:
    """Open each deck in headless Chromium at each window size with ``?check``: ``deck.js``
    shows every slide, fits it and reports overflow and console errors. Returns
    ``{"<deck> <w>x<h>": [problems]}`` (an empty list: the deck is clean at that size), plus
    ``"<deck> <w>x<h> slides"`` entries giving the slide count and each slide's text scale."""
    out = {}
    for path in paths:
        for w, h in sizes:
            key = f"{Path(path).parent.name}/{Path(path).name} {w}x{h}"
            with tempfile.TemporaryDirectory() as prof:
                res = subprocess.run(
                    [
                        _chromium(),
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--no-first-run",
                        f"--user-data-dir={prof}",
                        f"--window-size={w},{h}",
                        "--virtual-time-budget=60000",
                        "--dump-dom",
                        Path(path).resolve().as_uri() + "?check",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                )
            m = re.search(r'<pre id="deck-check">(.*?)</pre>', res.stdout, re.S)
            if m is None:
                out[key] = [f"the check did not finish (chromium exit {res.returncode})"]
                continue
            rep = json.loads(_html.unescape(m.group(1)))
            out[key] = rep["problems"]
            out[key + " slides"] = rep["slides"]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m companion.site.slides", description=__doc__.splitlines()[0]
    )
    p.add_argument("--html", default="_build/html", help="the built site (default: %(default)s)")
    p.add_argument("--no-build", action="store_true", help="check the decks already there")
    p.add_argument("--no-check", action="store_true", help="build only")
    p.add_argument("--only", nargs="*", help="check only decks whose path contains one of these")
    args = p.parse_args(argv)
    root = repo_root()
    html_dir = Path(args.html) if Path(args.html).is_absolute() else root / args.html
    if not (html_dir / "index.html").exists():
        print(f"error: {html_dir} is not a built site: run `make book` first", file=sys.stderr)
        return 2
    if args.no_build:
        paths = [html_dir / deck_path(d) for d, _ in decks(root)]
    else:
        paths = build(html_dir, root)
    if args.no_check:
        return 0
    if args.only:
        paths = [p for p in paths if any(s in p.as_posix() for s in args.only)]
    t0 = time.perf_counter()
    report = check(paths)
    bad = 0
    for key, val in report.items():
        if key.endswith(" slides"):
            continue
        slides = report.get(key + " slides", [])
        status = "ok" if not val else f"{len(val)} problem(s)"
        print(f"  {key}: {len(slides)} slides, {status}")
        for prob in val:
            print(f"      {prob}")
        bad += bool(val)
    print(
        f"slides: {len(paths)} decks checked at {', '.join(f'{w}x{h}' for w, h in SIZES)} "
        f"in {time.perf_counter() - t0:.0f} s: {'all clean' if not bad else f'{bad} failing'}"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
