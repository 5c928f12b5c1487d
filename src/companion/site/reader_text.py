"""What a reader sees, checked without a browser: the text of a built page (or of an executed
notebook's outputs) must hold no raw Markdown table, no cross-reference that lost its number,
no words meant for the builder, and an at-scale page must fit a height budget.

Run by the book's Sphinx extension on every page it writes (a warning, so ``-W`` fails the
build: the structural build of ``make test`` checks the prose, ``make book`` the outputs too),
and on a built site or an executed notebook from the command line::

    python -m companion.site.reader_text _build/html [book.ipynb ...]

Text inside a folded "Reproduce this chapter" box (``details.companion-reproduce``) and code
the reader did not ask to see are not the reader's text; code cells' inputs are exempt from
the builder-words check only (a command in a code cell is code).

The at-scale pages' height budget is measured as drawn by the browser suite
(``tests/site/test_browser.py``, 1400 px); :func:`estimated_height` is a proxy without a
browser (``page_problems(..., budget=True)``), which the command line only reports: it
overestimates pages whose secondary tables and figures are folded (13,705 and 14,382 px
estimated for 11,629 and 11,721 px drawn, 2026-12-02).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

__all__ = [
    "BANNED",
    "COMMAND_PAGES",
    "HEIGHT_BUDGET_PX",
    "estimated_height",
    "notebook_problems",
    "page_problems",
]

#: Words meant for the builder, not the reader (case-insensitive regular expressions).
BANNED = (
    r"what changed in this version",
    r"this version of the book",
    r"the issue'?s\b",
    r"\bthe specs?'s?\b(?! ?(trace|radius|norm))",  # "the spec's set-up", "the spec's own run"
    r"load average",
    r"\b1-minute load\b",
    r"\bspeed and memory\b",
    r"`?companion run [^`]*--resume\b",  # a run command in prose, not in a code block
    r"(?<![\w.])/(?:work|home|tmp|root|usr|content/drive)/[\w./-]+",  # machine paths
)
_BANNED = [re.compile(b, re.IGNORECASE) for b in BANNED]
_COMMAND = BANNED.index(r"`?companion run [^`]*--resume\b")

#: Pages whose subject is how to run things (their docnames end with these): a run command
#: there is what the reader came for (the full-scale guide; the ledger's command column).
COMMAND_PAGES = ("results_full_scale", "how_built", "ledger")

#: A cross-reference that lost its number: "Theorem ,", "Definition )", "Theorem predicts".
_KINDS = r"(?:Theorem|Definition|Lemma|Corollary|Proposition|Exercise|Figure|Table|Equation)"
_EMPTY_REF = re.compile(r"\b" + _KINDS + r"\s*(?=[,;)\]]|$)")
_BARE_KIND = re.compile(_KINDS + r"\s*")
# a row "| a | b |" of two or more cells ("|cos|", "|x| and |y|" are math), or a rule "|---|"
_MD_TABLE = re.compile(r"^\s*\| (?:[^|\n]*\|){2,}\s*$|\|\s*:?-{3,}:?\s*\|")

#: At-scale pages (their docnames end with this) must read as lectures: under about
#: 12,000 px at 1400 px (issue 19); the estimate below is a proxy for the measured height.
AT_SCALE = "at_scale"
HEIGHT_BUDGET_PX = 12_000

# Estimated heights at 1400 px (the book theme's ~750 px text column): a line of prose holds
# about 95 characters at 26 px; a table row 34 px; a code line 20 px; a figure its aspect.
_CHARS_PER_LINE, _LINE_PX, _ROW_PX, _CODE_PX, _BLOCK_PX = 95, 26, 34, 20, 24
_COLUMN_PX = 750
# What the counts above miss (wrapped table cells, margins, toggles): calibrated on the two
# at-scale pages built on 2026-12-02, 15,021 and 13,079 px tall in chromium at 1400 px
# (estimated 11,916 and 10,494 px before this factor).
_CALIBRATION = 1.25


def _soup(html: str):
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser")


def _reader_tree(html: str):
    """The page as the reader sees it unfolded: folded Reproduce boxes, scripts, styles and
    hidden cells removed."""
    soup = _soup(html)
    soup = soup.select_one("article, main") or soup  # a whole page: its article only
    for el in soup.select(
        "details.companion-reproduce, script, style, noscript, .cell.tag_remove-input .cell_input"
    ):
        el.decompose()
    return soup


def _texts(soup, *, code: bool, cells: bool = True):
    """The text blocks of ``soup``: paragraphs, list items, table cells, output text; with
    ``code`` False, code cells' inputs are left out."""
    if not code:
        soup = _soup(str(soup))
        for el in soup.select(".cell_input, div.highlight, pre.literal-block"):
            if not el.find_parent(class_="cell_output"):
                el.decompose()
    tags = ["p", "li", "caption", "pre", "h1", "h2", "h3", "dt"] + ["td", "th"] * cells
    for el in soup.find_all(tags):
        if el.find(["p", "li", "pre"]):
            continue  # its blocks are visited on their own
        yield el.get_text(" ", strip=False)


def page_problems(html: str, *, pagename: str = "", budget: bool = True) -> list[str]:
    """What a reader should never see on the page ``html`` (a page body or a whole page).

    Examples
    --------
    >>> page_problems("<p>| stack | N | d |</p><p>|---|---|---|</p>")[0]
    "raw Markdown table: '| stack | N | d |'"
    >>> page_problems("<table><tr><th>|cos(u, v)|</th></tr></table><p>|x| and |y|</p>")
    []
    >>> page_problems('<p>(Theorem , item 1) as <a class="reference">Definition </a> says.</p>')
    ["cross-reference without its number: link 'Definition'", "cross-reference without its number: '(Theorem , item 1) as Definition says.'"]
    >>> page_problems("<p>What changed in this version: more.</p>")
    ["words meant for the builder ('What changed in this version'): 'What changed in this version: more.'"]
    >>> page_problems('<details class="companion-reproduce"><p>--resume</p></details>')
    []
    """  # noqa: E501
    soup = _reader_tree(html)
    out = []
    for text in _texts(soup, code=True, cells=False):
        for line in text.splitlines():
            if _MD_TABLE.search(line):
                out.append(f"raw Markdown table: {line.strip()[:80]!r}")
                break
    for a in soup.find_all("a"):
        if _BARE_KIND.fullmatch(a.get_text()):
            out.append(f"cross-reference without its number: link {a.get_text().strip()!r}")
    commands_ok = pagename.endswith(COMMAND_PAGES)
    for text in _texts(soup, code=False):
        flat = " ".join(text.split())
        if _EMPTY_REF.search(flat):
            out.append(f"cross-reference without its number: {flat[:100]!r}")
        for i, rx in enumerate(_BANNED):
            if i == _COMMAND and commands_ok:
                continue
            if m := rx.search(flat):
                out.append(f"words meant for the builder ({m.group(0)[:80]!r}): {flat[:100]!r}")
    if budget and AT_SCALE in pagename and (h := estimated_height(html)) > HEIGHT_BUDGET_PX:
        out.append(
            f"page too long for a lecture: about {h:,} px at 1400 px "
            f"(budget {HEIGHT_BUDGET_PX:,} px)"
        )
    return list(dict.fromkeys(out))


def estimated_height(html: str) -> int:
    """A proxy for the page's height in CSS px at 1400 px: prose lines, table rows, code lines
    and figures as the reader sees them (a closed ``<details>`` counts one line, a claims
    card folded by ``claims.js`` two).

    >>> estimated_height("<p>" + "word " * 190 + "</p>")  # 950 characters: 10 lines
    340
    """
    soup = _reader_tree(html)
    px = 0
    for card in soup.select(".claims-box .claim-card"):  # folded to a line by claims.js
        card.replace_with(soup.new_string(" "))
        px += 2 * _LINE_PX + _BLOCK_PX
    for det in soup.find_all("details"):
        det.replace_with(soup.new_string(" "))
        px += _LINE_PX + _BLOCK_PX
    for el in soup.select("div.toggle-hidden, .tag_hide-input .cell_input, .dropdown"):
        el.decompose()
        px += _LINE_PX + _BLOCK_PX
    for img in soup.find_all("img"):
        w, h = (float(img.get(k) or 0) for k in ("width", "height"))
        px += int(_COLUMN_PX * h / w) if w and h else 400
    for tr in soup.find_all("tr"):
        px += _ROW_PX
        tr.decompose()
    for pre in soup.find_all("pre"):
        px += _BLOCK_PX + _CODE_PX * (pre.get_text().count("\n") + 1)
        pre.decompose()
    for el in soup.find_all(["p", "li", "h1", "h2", "h3", "dt", "dd", "caption"]):
        if el.find(["p", "li"]):
            continue
        chars = len(" ".join(el.get_text(" ").split()))
        if chars:
            px += _BLOCK_PX // 2 + _LINE_PX * -(-chars // _CHARS_PER_LINE)
    return round(px * _CALIBRATION)


def notebook_problems(nb: dict) -> list[str]:
    """:func:`page_problems` of an executed notebook's outputs (its Markdown cells' text is
    checked on the built page), with raw Markdown tables in ``text/markdown`` outputs.

    >>> nb = {"cells": [{"cell_type": "code", "outputs": [
    ...     {"data": {"text/markdown": "| a | b |\\n|---|---|"}}]}]}
    >>> notebook_problems(nb)
    ["cell 1: text/markdown output is a Markdown table (shown raw by the site): '| a | b |'"]
    """
    out = []
    for i, cell in enumerate(nb.get("cells", []), 1):
        for o in cell.get("outputs", []):
            data = o.get("data", {})
            md = "".join(data.get("text/markdown", ""))
            if md and any(_MD_TABLE.search(line) for line in md.splitlines()):
                first = md.strip().splitlines()[0]
                out.append(
                    f"cell {i}: text/markdown output is a Markdown table (shown raw by the "
                    f"site): {first[:60]!r}"
                )
            html = "".join(data.get("text/html", "")) or "<pre>{}</pre>".format(
                "".join(o.get("text", "")) or "".join(data.get("text/plain", ""))
            )
            out += [f"cell {i}: {p}" for p in page_problems(html)]
    return out


def main(argv: list[str]) -> int:
    problems = []
    for arg in argv:
        path = Path(arg)
        files = sorted(path.rglob("*.html")) if path.is_dir() else [path]
        for f in files:
            if f.suffix == ".ipynb":
                found = notebook_problems(json.loads(f.read_text(encoding="utf-8")))
            else:
                body = f.read_text(encoding="utf-8")
                found = page_problems(body, pagename=str(f.with_suffix("")), budget=False)
                if AT_SCALE in f.stem:
                    print(f"{f}: about {estimated_height(body):,} px at 1400 px (an estimate)")
            problems += [f"{f}: {p}" for p in found]
    print("\n".join(problems) or f"reader text: no problems in {len(argv)} path(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
