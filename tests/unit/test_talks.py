"""Talks: every chapter's talk data, the decks made from a built page (the talk's own words,
speaker notes on every slide), and the handouts made from the same statements."""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import pytest
import yaml

from companion.chapters import CHAPTERS, module
from companion.claims import ClaimResult
from companion.ledger import all_claims
from companion.site import (
    handout,
    reader_text,
    seminar,
    slide_check,
    slide_deck,
    slides,
    talk_spec,
)
from companion.site.paths import deck_path

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "_build" / "html"


def _talk_file(chapter: str) -> Path:
    return ROOT / "src" / "companion" / "chapters" / Path(chapter) / "talk.py"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_talk_names_parts_its_page_has(chapter):
    spec = talk_spec.talk_of(module(chapter))
    src = (ROOT / "book" / f"{chapter}.md").read_text(encoding="utf-8")
    labels = set(re.findall(r"^:label: (\S+)", src, re.M))
    for label in (*spec["statement"], spec["exercise"]):
        assert label in labels, label
    assert re.search(rf"\{{solution(?:-start)?\}} {re.escape(spec['exercise'])}\b", src)
    derivation = src.split("## Derivation", 1)[1].split("\n## ", 1)[0]
    for lead in spec["steps"]:
        assert re.search(rf"^\*\*{re.escape(lead)}\.?\*\*", derivation, re.M), lead
    mine = [c.id for c in all_claims() if c.chapter == "book/" + chapter]
    assert spec["punchline"] in mine
    assert callable(getattr(module(chapter), spec["figure"]))
    # every [[field]] names a claim of this chapter
    text = repr(spec["slides"])
    for cid in re.findall(r"\[\[(?:ours|paper|status):([\w.\-]+)\]\]", text):
        assert cid in mine, cid


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_a_talk_is_data_not_code(chapter):
    # the module is a docstring and one literal assignment: no imports, no calls
    tree = ast.parse(_talk_file(chapter).read_text(encoding="utf-8"))
    body = tree.body
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
    assert len(body) == 2 and isinstance(body[1], ast.Assign)
    assert [t.id for t in body[1].targets] == ["TALK"]
    ast.literal_eval(body[1].value)
    assert not hasattr(module(chapter), "TALK")  # moved out of the chapter's package


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_slide_of_every_talk_has_notes_and_the_talk_fits_its_slot(chapter):
    spec = talk_spec.talk_of(module(chapter))
    entries = [spec["slides"][k] for k in talk_spec.slide_keys(spec)]
    assert all(len(e["say"]) > 40 and e["ask"].rstrip().endswith("?") for e in entries)
    for key in (*talk_spec.SPOKEN, *spec["steps"]):
        bullets = spec["slides"][key]["bullets"]
        assert 1 <= len(bullets) <= 5, key
        assert all(len(b) <= 160 for b in bullets), key  # a bullet, not a paragraph
    total = sum(e["min"] for e in entries)
    stop = next(s for s in seminar.SEMINAR if s.doc == f"book/{chapter}")
    if stop.in_session:
        assert total == stop.minutes  # the notes' clock is the seminar's slot
    else:
        assert 5 <= total <= 20  # a talk on its own


def test_talk_spec_errors_name_what_is_missing_or_unknown():
    with pytest.raises(ValueError, match="must name 'exercise', 'slides'"):
        talk_spec.check_talk({"statement": "a", "punchline": "b"})
    with pytest.raises(ValueError, match="must use only"):
        talk_spec.check_talk(
            {"statement": "a", "punchline": "b", "exercise": "c", "slides": {}, "slide": 1}
        )
    full = _talk()
    with pytest.raises(ValueError, match=r"missing \['Step two'\]"):
        talk_spec.check_talk({**full, "steps": ("Step one", "Step two")})
    bare = {**full, "slides": {**full["slides"], "figure": {"say": "x" * 50, "min": 1}}}
    with pytest.raises(ValueError, match=r"\['figure'\].*must give 'say', 'ask'"):
        talk_spec.check_talk(bare)
    mute = {**full, "slides": {**full["slides"], "question": {"say": "s", "ask": "a?", "min": 1}}}
    with pytest.raises(ValueError, match="and 'bullets'"):
        talk_spec.check_talk(mute)


def test_fields_take_the_numbers_measured_now():
    res = {"x.a": _result("x.a"), "x.b": _result("x.b", "deviates", 3.1, None)}
    out = talk_spec.fill(
        "[[ours]] vs [[paper]] ([[status:x.b]], [[ours:x.b]]); [[tally]]", res, "x.a"
    )
    assert (
        out == "2.7021 ± 0.0046 vs π/(π−2) ≈ 2.7519 (deviates, 3.1); 1 of 2 reproduced, 1 deviates"
    )
    with pytest.raises(LookupError, match="x.c"):
        talk_spec.fill("[[ours:x.c]]", res, "x.a")


def test_decks_follow_book_order():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order = [c["file"] for p in toc["parts"] for c in p["chapters"] if "/" in c["file"][5:]]
    got = [d for d, _ in slides.decks(ROOT)]
    assert got == order and got[0] == "book/sign_magnitude/bussgang"


PAGE = """<html><body><article class="bd-article"><section id="fake">
<h1>Fake: the title<a class="headerlink" href="#fake">#</a></h1>
<section id="overview"><h2>Overview</h2>
<p>First, after <a class="reference internal" href="other.html#thm-o">Theorem 1.1</a>
and <a href="../../references.html#id3">Dong (2026)</a>, the overview says what the chapter
asks.</p><p>Second paragraph of the overview, long enough to count as prose.</p></section>
<section id="statement"><h2>Statement</h2>
<div class="proof theorem admonition" id="thm-x"><p class="admonition-title">Theorem 2.1 (X)</p>
<section class="theorem-content"><p>It holds, see <a href="#equation-e">(2.1)</a>.</p></section>
</div></section>
<section id="derivation"><h2>Derivation</h2>
<p><strong>Step one.</strong> Because of the reasons the derivation gives here.</p>
<div class="math notranslate nohighlight" id="equation-e">\\[x = 1\\]</div>
<div class="cell docutils container"><div class="cell_input">narrative_code()</div>
<div class="cell_output">table</div></div>
<p><strong>Step two.</strong> More.</p></section>
<section id="explore"><h2>Explore</h2><p>Move p and watch the figure follow the control.</p>
<div class="cell_output">
<div class="companion-explore"><input data-param="p"><img src="data:image/png;base64,AA"></div>
</div></section>
<section id="exercises"><h2>Exercises</h2>
<div class="exercise admonition" id="ex-x"><p class="admonition-title">Exercise 2.1</p>
<p>Do it.</p></div>
<div class="solution dropdown admonition" id="solution-ex-x"><p class="admonition-title">
Solution to <a class="reference internal" href="#ex-x">Exercise 2.1</a></p><p>Done so.</p>
<div class="cell docutils container"><div class="cell_input">secret()</div></div></div>
<div class="tip admonition"><p class="admonition-title">Discussion</p><ul><li>Why?</li></ul>
</div></section></section></article></body></html>"""


def _entry(bullets=()):
    return {
        "bullets": bullets,
        "say": "What to say on this slide, long enough to be a note.",
        "ask": "What would you ask?",
        "min": 1,
    }


def _talk(steps=("Step one",)):
    keys = talk_spec.slide_keys({"steps": steps})
    slides_ = {k: _entry() for k in keys}
    for k in (*talk_spec.SPOKEN, *steps):
        slides_[k] = _entry((f"A bullet for {k}, ours [[ours]]",))
    slides_["number"]["say"] = "Say the number [[ours]] against [[paper:fake.a]]."
    return {
        "statement": "thm-x",
        "steps": steps,
        "punchline": "fake.b",
        "exercise": "ex-x",
        "slides": slides_,
    }


def _result(cid, status="reproduced", value=2.70213, stderr=0.00461):
    return ClaimResult(
        cid,
        "dong",
        "simulation",
        f"statement of {cid}",
        "π/(π−2) ≈ 2.7519",
        value,
        stderr,
        status,
        0.1,
        detail="the detail",
        reason="" if status != "deviates" else "it is off",
    )


def _fake_deck(tmp_path, monkeypatch):
    page = tmp_path / "book" / "sign_magnitude" / "fake.html"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE)
    fake = types.SimpleNamespace(__name__="fake")
    monkeypatch.setattr("companion.chapters.module", lambda doc: fake)
    monkeypatch.setattr(slide_deck, "talk_of", lambda mod: talk_spec.check_talk(_talk()))
    monkeypatch.setattr(
        slide_deck,
        "claims",
        lambda doc, scale: {
            "fake.a": (_result("fake.a", "deviates"), "m"),
            "fake.b": (_result("fake.b"), "how"),
        },
    )
    return slide_deck.deck(tmp_path, "book/sign_magnitude/fake", "Part I", {}, "cpu", "a slot")


def test_deck_from_a_built_page(tmp_path, monkeypatch):
    deck = _fake_deck(tmp_path, monkeypatch)
    n = deck.count('<section class="deck-slide')
    assert 8 <= n <= 14, n
    assert "narrative_code" not in deck and "secret()" not in deck and "headerlink" not in deck
    assert 'href="../../book/sign_magnitude/other.html#thm-o"' not in deck  # not pasted
    assert 'href="../../book/sign_magnitude/fake.html#equation-e"' in deck  # in the box
    step = re.search(r"<h2>Step one</h2>(.*?)</section>", deck, re.S).group(1)
    assert "A bullet for Step one" in step and "x = 1" in step  # the talk's words, the equation
    assert "Because of the reasons" not in step and "More." not in step
    assert 'data-param="p"' in deck  # the page's kernel-free figure, controls included
    assert "Done so." in deck and "code runs in" in deck  # the solution, one slide down
    assert "2.7021 ± 0.0046" in deck and "≠ deviates" in deck and "How we measure it: how" in deck
    assert (
        not re.search(r"\[\[(ours|paper|status|tally)", deck)
        and "Say the number 2.7021 ± 0.0046 against π/(π−2)" in deck
    )
    assert "Theorem 2.1 (X)" in deck  # the box's title from the page
    assert "https://" not in deck
    # timing on one clock: 11 slides of 1 minute each (the full statement below is backup)
    assert "minute 0–1 of 11 (a slot)" in deck and "minute 10–11 of 11" in deck
    assert "0 min in this talk's 11 (a slot)" in deck


def test_every_slide_has_notes_and_no_talk_slide_pastes_the_chapter(tmp_path, monkeypatch):
    deck = _fake_deck(tmp_path, monkeypatch)
    assert slide_check.missing_notes(deck) == []
    assert slide_check.pasted(deck, PAGE) == []
    # the deck of before: the overview's first paragraph pasted as "The question", and a
    # slide without notes; both are found
    first = re.search(r"<p>First.*?</p>", PAGE, re.S).group(0)
    old = slide_deck.slide(first, title="The question") + slide_deck.slide(
        "<p>Moving on.</p>", title="Next", notes="<p>just a word</p>"
    )
    found = slide_check.pasted(old, PAGE)
    assert len(found) == 1 and found[0].startswith("slide 1: first, after theorem 1.1 and dong")
    assert slide_check.missing_notes(old) == ["slide 1 (The question)", "slide 2 (Next)"]
    # a quote slide (the statement in full, the exercise) may show the page's own box
    quote = slide_deck.slide(first, title="Statement", kind="quote")
    assert slide_check.pasted(quote, PAGE) == []


def _built_decks():
    if not (BUILT / "slides" / "index.html").exists():
        return []
    return [d for d, _ in slides.decks(ROOT) if (BUILT / deck_path(d)).exists()]


@pytest.mark.parametrize("doc", _built_decks() or [pytest.param("none", marks=pytest.mark.skip)])
def test_built_decks_are_talks(doc):
    """On a built site (``make book``): every slide has notes, no talk slide pastes the page,
    no words meant for the builder (notes included)."""
    deck = (BUILT / deck_path(doc)).read_text(encoding="utf-8")
    page = (BUILT / f"{doc}.html").read_text(encoding="utf-8")
    assert slide_check.missing_notes(deck) == []
    assert slide_check.pasted(deck, page) == []
    assert reader_text.page_problems(deck, pagename=deck_path(doc), budget=False) == []


def test_a_long_list_of_claims_continues_on_slides_below():
    results = [_result(f"fake.c{i}") for i in range(slide_deck.CLAIMS_PER_SLIDE * 2 + 1)]
    stack = slide_deck.claims_slides(results)
    assert stack.startswith("<section><section")  # one vertical stack: one horizontal slide
    assert stack.count('<section class="deck-slide') == 3
    assert "(1 of 3)" in stack and "(3 of 3)" in stack
    assert all(f"statement of fake.c{i}<" in stack for i in range(len(results)))
    one = slide_deck.claims_slides(results[:2])
    assert one.count('<section class="deck-slide') == 1 and "of 1)" not in one


def test_handout_takes_the_statement_boxes_of_the_built_page(tmp_path, monkeypatch):
    page = tmp_path / "book" / "sign_magnitude" / "fake.html"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE)
    monkeypatch.setattr("companion.chapters.module", lambda doc: types.SimpleNamespace())
    monkeypatch.setattr(talk_spec, "talk_of", lambda mod: talk_spec.check_talk(_talk()))
    title, boxes = handout.statements(tmp_path, "book/sign_magnitude/fake")
    assert title == "Fake: the title" and len(boxes) == 1
    assert "Theorem 2.1 (X)" in boxes[0] and "<a" not in boxes[0] and "(2.1)" in boxes[0]
    html = handout.handout_html("Part I", [(title, boxes)], "mathjax/tex-mml-chtml.js")
    assert "https://" not in html and "Theorem 2.1" in html
