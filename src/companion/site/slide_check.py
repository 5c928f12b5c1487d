"""Checks of the talk decks: layout and errors, speaker notes, pasted prose, keyboard focus.

* :func:`check`: each deck in headless Chromium at each window size with ``?check``:
  ``deck.js`` shows every slide, fits it and reports what overflows and every console error.
* :func:`missing_notes`: slides without speaker notes (what to say, what to ask, how long).
* :func:`pasted`: text on a talk slide that is a paragraph of the chapter, word for word.
* :func:`focus_check`: in a real browser (Playwright driving Debian's chromium), every control
  of a deck (a slider dragged with the mouse, an option chosen) is used, then → and Space
  must move the deck on and leave the control's value alone.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import tempfile
from pathlib import Path

from companion.site import slide_page as page_parts

__all__ = ["SIZES", "check", "focus_check", "missing_notes", "pasted"]

#: Window sizes the decks are checked at: a projector and a full-HD screen.
SIZES = ((1280, 720), (1920, 1080))


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
            rep = json.loads(html.unescape(m.group(1)))
            out[key] = rep["problems"]
            out[key + " slides"] = rep["slides"]
    return out


def missing_notes(deck_html: str) -> list[str]:
    """The slides of a deck without full speaker notes (what to say, the question for the
    room, the timing), as ``"slide <n> (<heading>)"``."""
    doc = page_parts.soup(deck_html)
    out = []
    for i, sec in enumerate(doc.select("section.deck-slide"), 1):
        aside = sec.find("aside", class_="notes")
        parts = [aside.select_one(f"p.{c}") if aside else None for c in _NOTE_PARTS]
        if not all(p is not None and len(p.get_text(strip=True)) > 12 for p in parts):
            h = sec.find(["h1", "h2"])
            out.append(f"slide {i} ({h.get_text(' ', strip=True) if h else 'untitled'})")
    return out


_NOTE_PARTS = ("deck-say", "deck-ask", "deck-time")


def pasted(deck_html: str, page_html: str) -> list[str]:
    """Text on a deck's talk slides (every slide but the ``quote`` ones, which show the
    page's statement, exercise and solution boxes) that is a paragraph or list item of the
    chapter's page word for word: the slide pastes the chapter instead of saying it.
    Returns ``"slide <n>: <start of the text>"`` for each."""
    article = page_parts.soup(page_html).select_one("article") or page_parts.soup(page_html)
    prose = page_parts.paragraphs(article)
    out = []
    for i, sec in enumerate(page_parts.soup(deck_html).select("section.deck-slide"), 1):
        if sec.get("data-kind") == "quote":
            continue
        body = sec.select_one("div.deck-fit") or sec
        for el in body.find_all(["p", "li"]):
            if el.find_parent(class_="companion-explore") is not None:
                continue  # the figure's own caption and readout
            text = page_parts.words(el.get_text(" ", strip=True))
            if text in prose:
                out.append(f"slide {i}: {text[:60]}")
    return out


# Runs in the deck: the controls of every slide, as (h, v, index among the slide's controls,
# kind) so that Python can use each one like a speaker would.
_CONTROLS_JS = """() => {
  const out = [];
  Reveal.getSlides().forEach((s) => {
    const idx = Reveal.getIndices(s);
    ['input[type=range]', 'select'].forEach((sel) => {
      s.querySelectorAll('.companion-explore ' + sel).forEach((el, i) => {
        if (!el.disabled) out.push([idx.h, idx.v || 0, i, el.tagName]);
      });
    });
  });
  return out;
}"""


def focus_check(path, *, size=(1280, 720), keys=("ArrowRight", " "), timeout_ms=60000):
    """Use every control of deck ``path`` as a speaker does, then press each of ``keys``:
    the deck must advance, and the control keep its value. Returns ``(controls used,
    problems)`` (no problems: the keyboard comes back to the deck after every control).

    A slider is dragged with the mouse; a select gets the keyboard focus and a new option.
    Needs Playwright and Debian's chromium (:func:`companion.site.browser.find_chromium`).
    """
    from playwright.sync_api import sync_playwright

    from companion.site.browser import CHROMIUM_ARGS

    problems, used = [], 0
    url = Path(path).resolve().as_uri()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_ARGS)
        try:
            pg = browser.new_page(viewport={"width": size[0], "height": size[1]})
            pg.on("pageerror", lambda e: problems.append(f"uncaught exception: {e}"))
            pg.goto(url, timeout=timeout_ms)
            pg.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=timeout_ms)
            for h, v, i, tag in pg.evaluate(_CONTROLS_JS):
                used += 1
                for key in keys:
                    problems += _use_then_press(pg, h, v, i, tag, key)
        finally:
            browser.close()
    return used, problems


def _use_then_press(pg, h, v, i, tag, key) -> list[str]:
    pg.evaluate(f"() => Reveal.slide({h}, {v})")
    sel = ".reveal .slides section.present .companion-explore " + (
        "input[type=range]" if tag == "INPUT" else "select"
    )
    el = pg.locator(sel).nth(i)
    where = f"slide {h + 1}{'.' + str(v + 1) if v else ''}, {tag.lower()} {i + 1}"
    if tag == "INPUT":
        box = el.bounding_box()
        if box is None:
            return [f"{where}: the slider is not visible"]
        y = box["y"] + box["height"] / 2
        pg.mouse.move(box["x"] + 2, y)
        pg.mouse.down()
        pg.mouse.move(box["x"] + box["width"] * 0.7, y, steps=4)
        pg.mouse.up()
    else:
        el.focus()
        opts = el.locator("option")
        current = el.input_value()
        values = [opts.nth(j).get_attribute("value") for j in range(opts.count())]
        other = next((x for x in values if x != current), current)
        el.select_option(other)
    pg.wait_for_timeout(50)
    handle = el.element_handle()
    before = handle.input_value()
    pg.keyboard.press(key)
    pg.wait_for_timeout(50)
    now = pg.evaluate("() => [Reveal.getIndices().h, Reveal.getIndices().v || 0]")
    out = []
    name = "Space" if key == " " else key
    if now == [h, v]:
        focused = pg.evaluate("() => document.activeElement && document.activeElement.tagName")
        out.append(f"{where}: {name} did not advance the deck (focus on {focused})")
    if handle.input_value() != before:
        out.append(f"{where}: {name} changed the control instead of the slide")
    return out
