"""The decks in a browser: the layout check (decks made to fail it fail it) and the keyboard
coming back to the deck after a figure's control is used (and not without deck.js's fix)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from companion.site import slide_check, slide_deck, slides

ROOT = Path(__file__).resolve().parents[2]
DECK_JS = ROOT / "src" / "companion" / "site" / "deck" / "deck.js"


@pytest.fixture
def site(tmp_path):
    """A stand-in for a built site: the site's _static files the decks load."""
    try:
        slide_check._chromium()
    except FileNotFoundError:
        pytest.skip("chromium is not installed (make chromium)")
    static = tmp_path / "_static"
    static.mkdir()
    mathjax = ROOT / "_vendor" / "site" / "mathjax"
    if not (mathjax.exists() and (ROOT / "_vendor" / "reveal.js").exists()):
        pytest.skip("the vendored JavaScript is missing: run `make vendor`")
    shutil.copytree(mathjax, static / "mathjax")
    for name in ("companion.js", "companion.css"):
        shutil.copy(ROOT / "book" / "_assets" / name, static / name)
    (static / "pygments.css").write_text("")
    slides.copy_assets(ROOT, tmp_path / "slides")
    return tmp_path


def _write(site, name, body):
    path = site / "slides" / "part" / f"{name}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(slide_deck.page(name, body, f"slides/part/{name}.html"))
    return path


def test_deck_check_in_chromium_passes_a_clean_deck_and_fails_broken_ones(site):
    good = slide_deck.slide(r"<p>A short slide with math \(\pi/(\pi-2)\).</p>", title="Fine")
    long_text = "<p>" + " ".join(["words"] * 450) + "</p>"  # fits once the text shrinks
    decks = {
        "good": good + slide_deck.slide(long_text, title="Shrinks"),
        "tall": good + slide_deck.slide('<div style="height:2000px">tall</div>', title="Tall"),
        "wide": slide_deck.slide('<pre style="overflow:auto">' + "x" * 600 + "</pre>"),
        "error": good + slide_deck.slide("<script>undefinedFunction()</script>", title="Err"),
    }
    paths = [_write(site, name, body) for name, body in decks.items()]
    report = slide_check.check(paths, sizes=((1280, 720),))
    assert report["part/good.html 1280x720"] == []
    scales = [s["scale"] for s in report["part/good.html 1280x720 slides"]]
    assert scales[0] == 1.0 and 0.6 <= scales[1] < 1.0
    assert any("overflows" in p for p in report["part/tall.html 1280x720"])
    assert any("cut off" in p for p in report["part/wide.html 1280x720"])
    assert any("undefinedFunction" in p for p in report["part/error.html 1280x720"])


#: A slide with a figure's two kinds of control, as the Explore figures have them.
CONTROLS = (
    '<div class="companion-explore"><label>p <input type="range" data-param="p" min="0" '
    'max="8" value="0" style="width:400px"></label> <label>model <select data-param="m">'
    '<option value="0">a</option><option value="1">b</option><option value="2">c</option>'
    "</select></label></div>"
)


def _control_deck(site, name):
    body = (
        slide_deck.slide("<p>Title.</p>", title="Start")
        + slide_deck.slide(CONTROLS, title="The figure", kind="figure")
        + slide_deck.slide("<p>After the figure.</p>", title="Next")
        + slide_deck.slide("<p>The end.</p>", title="End")
    )
    return _write(site, name, body)


def _playwright():
    pytest.importorskip("playwright.sync_api")


def test_the_keyboard_comes_back_to_the_deck_after_a_control(site):
    _playwright()
    path = _control_deck(site, "focus")
    assert slide_check.focus_check(path) == (2, [])  # the slider and the select


def test_the_focus_check_fails_without_the_fix(site):
    _playwright()
    path = _control_deck(site, "nofix")
    js = DECK_JS.read_text(encoding="utf-8")
    cut = re.sub(r"// focus-return: begin.*?// focus-return: end", "", js, flags=re.S)
    assert cut != js  # the fix is where the check expects it
    (site / "slides" / "assets" / "deck.js").write_text(cut, encoding="utf-8")
    used, problems = slide_check.focus_check(path)
    assert any(
        "input 1: ArrowRight did not advance the deck (focus on INPUT)" in p for p in problems
    )
    assert any("Space did not advance" in p for p in problems)
