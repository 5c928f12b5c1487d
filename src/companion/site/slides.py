"""Talk decks: one reveal.js deck per chapter, made from the chapter's built page.

Each chapter keeps its talk as data beside it, in ``companion.chapters.<part>.<chapter>.talk``
(:mod:`companion.site.talk_spec` describes the ``TALK`` dict): the parts of the page the talk
shows (statement, derivation steps, exercise), the claim that is its punchline, and, slide by
slide, the bullets written for the talk and the speaker notes (what to say, the one question
for the room, the minutes).

:func:`build` reads the chapter pages Sphinx wrote, so equations, citations and
cross-references are exactly those of the site, measures the chapter's claims now for the
numbers, and writes ``slides/<part>/<chapter>.html`` (:func:`companion.site.slide_deck.deck`
lists the slides) and ``slides/index.html``, every deck in book order. A deck loads reveal.js
(vendored by ``make vendor``, copied to ``slides/assets/``), and the site's MathJax,
``companion.js`` and ``companion.css`` from ``_static/``: no CDN, and it works from
``file://``. ``deck.js`` shrinks a slide's text until the slide fits its 1280 × 720 frame,
and gives the keyboard back to the deck after a figure's control is used.

The Sphinx extension (:mod:`companion.site.book_ext`) calls :func:`build` when an executed HTML
build finishes and links every chapter page to its deck; ``make slides`` rebuilds the decks
of an existing build and checks them (:mod:`companion.site.slide_check`): in headless Chromium
at 1280 × 720 and 1920 × 1080 (no overflow, no console error), speaker notes on every slide,
no chapter paragraph pasted onto a talk slide, no words meant for the builder, and → and
Space advancing after every control.
"""

from __future__ import annotations

import argparse
import html
import posixpath
import shutil
import sys
import time
from pathlib import Path

from companion.site import reader_text, slide_check, slide_deck
from companion.site.paths import deck_path, repo_root
from companion.site.seminar import talk_slot
from companion.site.slide_page import soup
from companion.site.talk_spec import TALK_KEYS, check_talk, format_value, has_talk

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

SIZES = slide_check.SIZES
check = slide_check.check
_ASSETS = Path(__file__).with_name("deck")
_REVEAL = (  # what a deck loads from reveal.js (the white theme imports its font)
    "dist/reset.css",
    "dist/reveal.css",
    "dist/reveal.js",
    "dist/theme/white.css",
    "dist/theme/fonts/source-sans-pro",
    "plugin/notes/notes.js",
)


def decks(root: str | Path) -> list[tuple[str, str]]:
    """``(page, part caption)`` of every chapter of ``root``'s ``_toc.yml`` that has a deck
    (a ``talk`` module beside its package), in book order."""
    import yaml

    from companion.chapters import CHAPTERS, module

    toc = yaml.safe_load((Path(root) / "_toc.yml").read_text(encoding="utf-8"))
    out = []
    for part in toc.get("parts", []):
        for ch in part.get("chapters", []):
            doc = ch.get("file", "")
            if doc.removeprefix("book/") in CHAPTERS and has_talk(module(doc)):
                out.append((doc, part.get("caption", "")))
    return out


def index_html(entries: list[tuple[str, str, str]]) -> str:
    """``slides/index.html``: every deck (page, part caption, title) under its part."""
    parts, items = [], {}
    for doc, caption, title in entries:
        items.setdefault(caption, []).append(
            f'<li><a href="{deck_path(doc).removeprefix("slides/")}">{title}</a></li>'
        )
    for caption, lis in items.items():
        parts.append(f"<h2>{html.escape(caption)}</h2><ol>{''.join(lis)}</ol>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>Talks: one deck per chapter</title><link rel="stylesheet" '
        'href="assets/deck.css">'
        + slide_deck.MATHJAX
        + '<script defer src="../_static/mathjax/tex-mml-chtml.js"></script></head>'
        '<body class="deck-index"><h1>Talks: one deck per chapter</h1><p>Each deck is a '
        "short talk on its chapter: the question, the statement, the figure, the number with "
        "its standard error, an exercise (solution one slide down), questions for discussion "
        "and the claims' status. Every slide has speaker notes: what to say, one question for "
        "the room, and its minutes. Keys: → or Space next, ↓ solution, S speaker notes, "
        'F full screen. The <a href="../book/seminar.html">seminar page</a> puts them into a '
        f"90-minute session.</p>{''.join(parts)}</body></html>"
    )


def copy_assets(root: Path, out: Path) -> None:
    """reveal.js (from ``_vendor/``) and the deck's own script and style into ``out/assets``."""
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


def _title(html_dir: Path, doc: str) -> str:
    h1 = soup((html_dir / f"{doc}.html").read_text(encoding="utf-8")).find("h1")
    if h1 is None:
        return doc
    for a in h1.select("a.headerlink"):
        a.decompose()
    return h1.decode_contents()


def build(html_dir: str | Path, root: str | Path, *, scale: str | None = None, log=print):
    """Write every chapter's deck and the index into ``html_dir/slides``; return their paths.

    ``html_dir``: a built site (the chapter pages must be there); ``root``: the book's sources
    (``_toc.yml``, ``_vendor/``); ``scale``: of the claims measured (default: the book's,
    :data:`companion.scale.SCALE`).
    """
    from companion.scale import SCALE

    html_dir, root, scale = Path(html_dir), Path(root), scale or SCALE
    out = html_dir / "slides"
    copy_assets(root, out)
    entries = decks(root)
    titles = {doc: _title(html_dir, doc) for doc, _ in entries}
    written = []
    for i, (doc, caption) in enumerate(entries):
        t0 = time.perf_counter()
        nav = {}
        if i + 1 < len(entries):
            nxt = entries[i + 1][0]
            href = posixpath.relpath(deck_path(nxt), posixpath.dirname(deck_path(doc)))
            nav = {"next": (href, titles[nxt])}
        path = html_dir / deck_path(doc)
        path.parent.mkdir(parents=True, exist_ok=True)
        text = slide_deck.deck(html_dir, doc, caption, nav, scale, talk_slot(doc))
        path.write_text(text, encoding="utf-8")
        written.append(path)
        log(f"deck {deck_path(doc)} ({time.perf_counter() - t0:.1f} s)")
    (out / "index.html").write_text(
        index_html([(d, c, titles[d]) for d, c in entries]), encoding="utf-8"
    )
    return written


def _text_problems(html_dir: Path, root: Path) -> dict[str, list[str]]:
    """Speaker notes missing, chapter prose pasted, words meant for the builder (the site's
    reader-text check, :mod:`companion.site.reader_text`): ``{deck: [problems]}``."""
    out = {}
    for doc, _ in decks(root):
        deck = (html_dir / deck_path(doc)).read_text(encoding="utf-8")
        pg = (html_dir / f"{doc}.html").read_text(encoding="utf-8")
        out[deck_path(doc)] = [f"no speaker notes: {s}" for s in slide_check.missing_notes(deck)]
        out[deck_path(doc)] += [f"pastes the chapter: {s}" for s in slide_check.pasted(deck, pg)]
        words = reader_text.page_problems(deck, pagename=deck_path(doc), budget=False)
        out[deck_path(doc)] += [f"reader text: {s}" for s in words]
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
    text = _text_problems(html_dir, root)
    bad = 0
    for path in paths:
        rel = path.relative_to(html_dir).as_posix()
        used, focus = slide_check.focus_check(path)
        probs = text.get(rel, []) + [f"keyboard: {f}" for f in focus]
        print(
            f"  {rel}: speaker notes, the talk's own words, → and Space after {used} "
            f"control(s): {'ok' if not probs else f'{len(probs)} problem(s)'}"
        )
        for prob in probs:
            print(f"      {prob}")
        bad += bool(probs)
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
