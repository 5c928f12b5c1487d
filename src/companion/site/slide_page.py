"""Reading a chapter's built page for its deck: the parts a talk shows, links rewritten.

The decks take from the page Sphinx wrote exactly what the site shows (statement boxes with
their numbers and resolved cross-references, display equations, the Explore figure, the
exercise and its solution), never the chapter's Markdown: :mod:`companion.site.slide_deck`
puts them on slides beside the talk's own words.
"""

from __future__ import annotations

import posixpath
import re

__all__ = [
    "blocks",
    "by_label",
    "equations",
    "join",
    "paragraphs",
    "relink",
    "section",
    "soup",
    "solution",
    "step",
    "strip",
    "words",
]


def soup(text: str):
    """``text`` parsed (BeautifulSoup, the standard library's parser)."""
    from bs4 import BeautifulSoup

    return BeautifulSoup(text, "html.parser")


def relink(node, page: str, deck: str) -> None:
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


def strip(node) -> None:
    """Drop what has no place on a slide: code cells' inputs, header permalinks."""
    for sel in ("div.cell_input", "a.headerlink", "div.toggle-hidden", "button.toggle-button"):
        for el in node.select(sel):
            el.decompose()


def section(article, name: str):
    """The page's ``<section id=name>``."""
    sec = article.find("section", id=name)
    if sec is None:
        raise LookupError(f"the page has no section {name!r}")
    return sec


def blocks(sec):
    """The direct content of a section: its children minus the heading and subsections."""
    return [
        c
        for c in sec.children
        if getattr(c, "name", None) and c.name not in ("h1", "h2", "h3", "section")
    ]


def by_label(article, label: str):
    """The element with ``id=label`` (a statement box, an exercise)."""
    el = article.find(id=label)
    if el is None:
        raise LookupError(f"the page has no element labelled {label!r}")
    return el


def step(article, lead: str):
    """The derivation paragraph that opens with ``<strong>lead</strong>``, and what follows it
    (lists, display math) up to the next such paragraph or code cell: ``(lead, nodes)``."""
    want = lead.rstrip(". ").lower()
    for p in article.select("section#derivation p"):
        strong = p.find("strong")
        if strong is None or p.contents[0] is not strong:
            continue
        if strong.get_text(" ", strip=True).rstrip(". ").lower() != want:
            continue
        body = [p]
        for sib in p.find_next_siblings():
            first = next((c for c in sib.children if str(c).strip()), None)
            opens_step = sib.name == "p" and getattr(first, "name", None) == "strong"
            if opens_step or sib.name in ("section", "h2", "h3") or "cell" in sib.get("class", []):
                break
            body.append(sib)
        return strong.get_text(" ", strip=True).rstrip(". "), body
    raise LookupError(f"the derivation has no paragraph opening with {lead!r}")


def equations(nodes) -> list:
    """The display equations (``div.math``, numbered as on the site) among ``nodes``."""
    out = []
    for n in nodes:
        if "math" in (n.get("class") or []) and n.name == "div":
            out.append(n)
        else:
            out.extend(n.select("div.math"))
    return out


def solution(article, label: str):
    """The solution of exercise ``label`` (a ``{solution}`` box, or a gated solution whose
    content follows its start marker up to the end marker)."""
    for sol in article.select("div.solution"):
        link = sol.select_one("p.admonition-title a, .admonition-title a")
        if link is not None and link.get("href", "").endswith("#" + label):
            return sol
    raise LookupError(f"the page has no solution of {label!r}")


def join(nodes) -> str:
    """The nodes' HTML, one after another."""
    return "".join(str(n) for n in nodes)


def words(text: str) -> str:
    """Text normalised for comparison: whitespace collapsed, lower case.

    >>> words("  Sign  flips\\n COST ")
    'sign flips cost'
    """
    return " ".join(text.split()).lower()


def paragraphs(article, *, min_words: int = 6) -> set[str]:
    """The chapter's own prose (:func:`words` of every paragraph and list item of at least
    ``min_words`` words, outside code cells' outputs and boxes' titles), to tell a slide
    that pastes it."""
    out = set()
    for el in article.find_all(["p", "li"]):
        if el.find_parent("div", class_="cell_output") is not None:
            continue
        if "admonition-title" in (el.get("class") or []):
            continue  # a box's title names it; the deck may name it too
        text = words(el.get_text(" ", strip=True))
        if len(text.split()) >= min_words:
            out.add(text)
    return out
