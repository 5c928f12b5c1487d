"""One chapter's deck: the talk's words (its ``talk`` module) around what the built page shows.

:func:`deck` writes, in order (every slide with speaker notes: what to say, the one question
for the room, the minutes):

1. the title: chapter and paper;
2. the question, in the talk's bullets;
3. the statement: the box's title from the page and the talk's bullets, the box itself as
   the site renders it one slide down (↓);
4. the derivation steps the talk names: its bullets and the step's display equations;
5. the figure: the page's kernel-free Explore figure, whose controls work in the deck too
   (or else the chapter's drawing function at its defaults);
6. the number: the punchline claim measured now, ours ± SE against the paper's (the claim in
   full and what it rests on in the notes);
7. the exercise, its solution one slide down;
8. the questions for discussion;
9. the status of every claim of the chapter, measured now;
10. where to go next.

Slides carry ``data-kind``: ``quote`` for those that show the page's own boxes (the statement
in full, the exercise, the solution); every other slide is the talk's own words, which
:func:`pasted` checks against the chapter's paragraphs.
"""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path

from companion.site import slide_page as page_parts
from companion.site.paths import deck_path
from companion.site.talk_spec import (
    BADGE,
    bullets_html,
    format_value,
    notes_html,
    slide_keys,
    talk_of,
    tally,
)

__all__ = [
    "CLAIMS_PER_SLIDE",
    "MATHJAX",
    "claims",
    "claims_slides",
    "deck",
    "page",
    "plain_title",
    "slide",
]

#: The most claims one slide shows: a longer list (an at-scale chapter has 15 or 16, each
#: stating its model and scale) continues on slides below it.
CLAIMS_PER_SLIDE = 8


def slide(body: str, *, title: str = "", notes: str = "", cls: str = "", kind: str = "text"):
    """One ``<section>`` of reveal.js: heading, body (fitted by deck.js) and speaker notes."""
    # a <section> inside a slide would be a slide of its own to reveal.js (sphinx-proof wraps
    # a theorem's body in one)
    body = re.sub(r"<(/?)section\b", r"<\1div", body)
    head = f"<h2>{title}</h2>" if title else ""
    aside = f'<aside class="notes">{notes}</aside>' if notes.strip() else ""
    inner = f'<div class="deck-fit">{head}{body}</div>{aside}'
    return f'<section class="deck-slide {cls}" data-kind="{kind}">{inner}</section>'


def claims(doc: str, scale: str) -> dict:
    """``{claim id: (result measured now, how it is measured)}`` of the chapter's claims."""
    from companion.ledger import all_claims, run

    return {c.id: (run(c, scale=scale), c.method) for c in all_claims() if c.chapter == doc}


def _figure(article, mod, spec: dict, deck_file: str) -> str:
    """The page's Explore figure, or the chapter's drawing at its defaults."""
    sec = article.find("section", id="explore")
    explore = sec.select_one("div.companion-explore") if sec is not None else None
    if explore is not None:
        return str(explore)
    from matplotlib.figure import Figure

    from companion import plotting

    fig = Figure(figsize=spec["figsize"], layout="constrained")
    getattr(mod, spec["figure"])(fig)
    name = deck_file.rsplit("/", 1)[-1].removesuffix(".html")
    # a deck scales its slide as one piece and never shows the phone layout: not rendered
    return plotting.figure_html(fig, name=name, dpi=120, svg=False, phone=False)


def _punchline(r, method: str) -> str:
    e = html.escape
    how = f'<p class="deck-small">How we measure it: {e(method)}.</p>' if method else ""
    why = f'<p class="deck-small">{e(r.reason)}</p>' if r.reason else ""
    return (
        f'<div class="deck-numbers"><div><span>ours, measured now</span>'
        f"<b>{e(format_value(r.value, r.stderr))}</b></div>"
        f"<div><span>the paper</span><b>{e(r.paper_value)}</b></div></div>"
        f'<p class="deck-status claim-{r.status}">{BADGE[r.status]}</p>{how}{why}'
    )


def _claims_table(results) -> str:
    e = html.escape
    rows = "".join(
        f'<tr class="claim-{r.status}"><td>{e(r.statement)}</td><td>{e(r.paper_value)}</td>'
        f"<td>{e(format_value(r.value, r.stderr))}</td><td>{BADGE[r.status]}</td></tr>"
        for r in results
    )
    return (
        '<table class="deck-claims"><thead><tr><th>claim</th><th>paper</th><th>ours</th>'
        f"<th>status</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def claims_slides(results, notes=None) -> str:
    """The claims slide, or a vertical stack of them when there are more than fit one.

    ``notes(i, k)``: the speaker notes of slide ``i`` of ``k`` (default: none)."""
    notes = notes or (lambda i, k: "")
    title = "The claims, measured now"
    chunks = [results[i : i + CLAIMS_PER_SLIDE] for i in range(0, len(results), CLAIMS_PER_SLIDE)]
    if len(chunks) <= 1:
        return slide(_claims_table(results), title=title, notes=notes(1, 1), kind="table")
    k = len(chunks)
    return (
        "<section>"
        + "".join(
            slide(
                _claims_table(chunk)
                + ('<p class="deck-small">More: next slide down (↓).</p>' if i < k else ""),
                title=f"{title} ({i} of {k})",
                notes=notes(i, k),
                kind="table",
            )
            for i, chunk in enumerate(chunks, 1)
        )
        + "</section>"
    )


class _Talk:
    """The slides' speaker notes, on one clock."""

    def __init__(self, spec, results, slot):
        self.spec, self.results, self.slot = spec, results, slot
        self.total = sum(spec["slides"][k]["min"] for k in slide_keys(spec))
        self.clock = 0.0

    def bullets(self, key, cls="deck-bullets"):
        entry = self.spec["slides"][key]
        return bullets_html(entry.get("bullets", ()), self.results, self.spec["punchline"], cls)

    def notes(self, key, *, extra="", backup=""):
        """The notes of slide ``key``; ``backup``: a slide below it, spoken only if asked."""
        entry = self.spec["slides"][key]
        if backup:
            entry = {**entry, "say": backup, "min": 0}
        out = notes_html(
            entry,
            self.results,
            self.spec["punchline"],
            at=self.clock,
            total=self.total,
            slot=self.slot,
            extra=extra,
        )
        if not backup:
            self.clock += entry["min"]
        return out


def deck(html_dir: Path, doc: str, caption: str, nav: dict, scale: str, slot: str) -> str:
    """The deck of chapter ``doc`` from its page in the built site ``html_dir`` (a whole
    HTML document). ``nav``: ``{"next": (href, title)}``; ``slot``: what the talk's minutes
    are (its slot in the seminar, or a talk on its own)."""
    from companion.chapters import module

    e = html.escape
    mod = module(doc)
    spec = talk_of(mod)
    pg, deck_file = doc + ".html", deck_path(doc)
    path = html_dir / pg
    if not path.exists():
        raise FileNotFoundError(f"{pg} is missing from {html_dir}: build the book first")
    article = page_parts.soup(path.read_text(encoding="utf-8")).select_one("article")
    article = article or page_parts.soup("")
    page_parts.strip(article)
    page_parts.relink(article, pg, deck_file)
    h1 = article.find("h1")
    title = h1.decode_contents() if h1 else doc
    site = posixpath.relpath(pg, posixpath.dirname(deck_file))
    measured = claims(doc, scale)
    if spec["punchline"] not in measured:
        raise LookupError(
            f"`TALK['punchline']` of {mod.__name__} must be one of its claims; "
            f"got {spec['punchline']!r} (claims: {sorted(measured)})"
        )
    results = {cid: r for cid, (r, _) in measured.items()}
    talk = _Talk(spec, results, slot)
    out = [
        slide(
            f'<h1>{title}</h1><p class="deck-paper">{e(caption)}</p>'
            f'<p class="deck-small">A talk from the companion book; every number on these '
            f"slides was computed when they were built (scale <code>{scale}</code>). "
            f'<a href="{site}">The chapter on the site</a>.</p>',
            cls="deck-title",
            notes=talk.notes("title"),
            kind="title",
        ),
        slide(talk.bullets("question"), title="The question", notes=talk.notes("question")),
    ]
    boxes = [page_parts.by_label(article, label) for label in spec["statement"]]
    names = [b.select_one(".admonition-title") for b in boxes]
    name = "; ".join(n.decode_contents() for n in names if n is not None)
    more = "s" if len(boxes) > 1 else ""
    main = slide(
        f'<p class="deck-box-title">{name}</p>{talk.bullets("statement")}'
        f'<p class="deck-small">The statement{more} in full, with where {"they" if more else "it"}'
        " come" + ("" if more else "s") + " from: next slide down (↓).</p>",
        title="The statement",
        notes=talk.notes("statement"),
        cls="deck-statement",
    )
    backup = (
        "Backup: the statement exactly as the chapter gives it, its provenance in the last "
        "line. Show it when someone asks for a hypothesis or for where the result comes from."
    )
    full = "".join(
        slide(
            str(b), notes=talk.notes("statement", backup=backup), cls="deck-statement", kind="quote"
        )
        for b in boxes
    )
    out.append(f"<section>{main}{full}</section>")
    for lead in spec["steps"]:
        step_name, body = page_parts.step(article, lead)
        eqs = page_parts.join(page_parts.equations(body))
        out.append(slide(talk.bullets(lead) + eqs, title=step_name, notes=talk.notes(lead)))
    out.append(
        slide(
            f'<div class="deck-figure">{_figure(article, mod, spec, deck_file)}</div>'
            + talk.bullets("figure", "deck-bullets deck-under")
            + f'<p class="deck-small">On the site: <a href="{site}#explore">the Explore '
            "section</a> of the chapter.</p>",
            title="The figure",
            notes=talk.notes("figure"),
            kind="figure",
        )
    )
    r, method = measured[spec["punchline"]]
    # the claim in full and what the value rests on, for the speaker (the command that wrote
    # its records is the chapter's "Reproduce" box's business, not the talk's)
    basis = (
        f'<p class="deck-basis"><b>The claim:</b> {e(r.statement)}</p>'
        f'<p class="deck-basis">{e(r.detail or r.reason)}</p>'
    )
    out.append(
        slide(
            talk.bullets("number") + _punchline(r, method),
            title="The number",
            notes=talk.notes("number", extra=basis),
            kind="number",
        )
    )
    ex = page_parts.by_label(article, spec["exercise"])
    sol = page_parts.solution(article, spec["exercise"])
    ran = bool(sol.select("div.cell"))
    for cell in sol.select("div.cell"):  # a talk shows no code: it runs on the chapter page
        cell.decompose()
    code = (
        f'<p class="deck-small">The solution\'s code runs in <a href="{site}#exercises">the '
        "chapter</a>.</p>"
        if ran
        else ""
    )
    out.append(
        "<section>"
        + slide(
            str(ex)
            + talk.bullets("exercise")
            + '<p class="deck-small">Solution: next slide down (↓).</p>',
            title="Try it",
            notes=talk.notes("exercise"),
            kind="quote",
        )
        + slide(str(sol) + code, cls="deck-solution", notes=talk.notes("solution"), kind="quote")
        + "</section>"
    )
    out.append(slide(talk.bullets("discuss"), title="Discuss", notes=talk.notes("discuss")))
    everything = [r for r, _ in measured.values()]
    first = talk.notes("claims")
    rest = f"The rest of the chapter's claims ({e(tally(everything))})."

    def claim_notes(i, k):
        return first if i == 1 else talk.notes("claims", backup=rest)

    out.append(claims_slides(everything, claim_notes))
    links = [
        f'<li><a href="{site}">The chapter</a>: derivation, checks, every exercise with '
        "its solution, and the Explore figure (its controls work without a kernel)</li>"
    ]
    if nav.get("next"):
        links.append(f'<li>Next talk: <a href="{nav["next"][0]}">{nav["next"][1]}</a></li>')
    ledger = posixpath.relpath("book/ledger.html", posixpath.dirname(deck_file))
    links += [
        f'<li><a href="{ledger}">The claims ledger</a> of both papers</li>',
        '<li><a href="../index.html">All talks</a>, in book order</li>',
    ]
    out.append(
        slide(
            talk.bullets("next") + f"<ul>{''.join(links)}</ul>",
            title="Where next",
            notes=talk.notes("next"),
            kind="links",
        )
    )
    return page(plain_title(title), "".join(out), deck_file)


def plain_title(title_html: str) -> str:
    """A title's text without markup or math delimiters (for ``<title>``)."""
    text = page_parts.soup(title_html).get_text("")
    return re.sub(r"\\\(|\\\)", "", text).replace("\\", "").strip()


MATHJAX = (
    "<script>window.MathJax = {tex: {inlineMath: [['\\\\(', '\\\\)']], displayMath: "
    "[['\\\\[', '\\\\]']]}, options: {processHtmlClass: 'math|output_area|deck-fit'}};</script>"
)


def page(title: str, sections: str, deck_file: str) -> str:
    """A deck's HTML document: reveal.js, the site's MathJax, ``companion.js`` (the Explore
    figures) and the deck's own script and style, all by relative links."""
    up = "../" * deck_file.count("/")  # from the deck to the site root
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
        f"<title>{html.escape(title)} (slides)</title>"
        f'<script src="{a}deck.js"></script>{css}{MATHJAX}'
        f'<script defer src="{up}_static/mathjax/tex-mml-chtml.js"></script></head><body>'
        f'<div class="reveal"><div class="slides">{sections}</div></div>'
        f'<script src="{a}reveal/reveal.js"></script><script src="{a}reveal/notes.js"></script>'
        f'<script src="{up}_static/companion.js"></script>'
        "<script>CompanionDeck.start();</script></body></html>"
    )
