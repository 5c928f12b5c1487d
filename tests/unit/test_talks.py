"""Talks and teaching pages: every chapter's TALK spec, the decks made from a built page, the
browser check of a deck (with decks that must fail it), the handouts, the seminar plan and
the one record of execution times."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest
import yaml

from companion.chapters import CHAPTERS, module
from companion.claims import ClaimResult
from companion.ledger import all_claims
from companion.site import backmatter, handout, slides

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_talk_names_parts_its_page_has(chapter):
    mod = module(chapter)
    spec = slides.check_talk(mod.TALK, mod.__name__)
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
    assert callable(getattr(mod, spec["figure"]))


def test_talk_spec_errors_name_what_is_missing_or_unknown():
    with pytest.raises(ValueError, match="must name 'exercise'"):
        slides.check_talk({"statement": "a", "punchline": "b"})
    with pytest.raises(ValueError, match="must use only"):
        slides.check_talk({"statement": "a", "punchline": "b", "exercise": "c", "slide": 1})


def test_decks_follow_book_order():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    order = [c["file"] for p in toc["parts"] for c in p["chapters"] if "/" in c["file"][5:]]
    got = [d for d, _ in slides.decks(ROOT)]
    assert got == order and got[0] == "book/sign_magnitude/bussgang"


PAGE = """<html><body><article class="bd-article"><section id="fake">
<h1>Fake: the title<a class="headerlink" href="#fake">#</a></h1>
<section id="overview"><h2>Overview</h2>
<p>First, after <a class="reference internal" href="other.html#thm-o">Theorem 1.1</a>
and <a href="../../references.html#id3">Dong (2026)</a>.</p><p>Second paragraph.</p></section>
<section id="statement"><h2>Statement</h2>
<div class="proof theorem admonition" id="thm-x"><p class="admonition-title">Theorem 2.1 (X)</p>
<section class="theorem-content"><p>It holds, see <a href="#equation-e">(2.1)</a>.</p></section>
</div></section>
<section id="derivation"><h2>Derivation</h2>
<p><strong>Step one.</strong> Because.</p><div class="math">\\[x = 1\\]</div>
<div class="cell docutils container"><div class="cell_input">narrative_code()</div>
<div class="cell_output">table</div></div>
<p><strong>Step two.</strong> More.</p></section>
<section id="explore"><h2>Explore</h2><p>Move p.</p><div class="cell_output">
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


def test_deck_from_a_built_page(tmp_path, monkeypatch):
    page = tmp_path / "book" / "sign_magnitude" / "fake.html"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE)
    fake = types.SimpleNamespace(
        __name__="fake",
        TALK={
            "statement": "thm-x",
            "steps": ("Step one",),
            "punchline": "fake.b",
            "exercise": "ex-x",
        },
    )
    monkeypatch.setattr("companion.chapters.module", lambda doc: fake)
    monkeypatch.setattr(
        slides,
        "_claims",
        lambda doc, scale: {
            "fake.a": (_result("fake.a", "deviates"), "m"),
            "fake.b": (_result("fake.b"), "how"),
        },
    )
    deck = slides._deck(tmp_path, "book/sign_magnitude/fake", "Part I", {}, "cpu")
    n = deck.count('<section class="deck-slide')
    assert 6 <= n <= 12, n
    assert "narrative_code" not in deck and "secret()" not in deck and "headerlink" not in deck
    assert 'href="../../book/sign_magnitude/other.html#thm-o"' in deck  # resolved on the site
    assert 'href="../../references.html#id3"' in deck
    assert 'href="../../book/sign_magnitude/fake.html#equation-e"' in deck
    step = re.search(r"<h2>Step one</h2>(.*?)</section>", deck, re.S).group(1)
    assert "Because." in step and "x = 1" in step and "More." not in step
    assert 'data-param="p"' in deck  # the page's kernel-free figure, controls included
    assert "Done so." in deck and "code runs in" in deck  # the solution, one slide down
    assert "2.7021 ± 0.0046" in deck and "≠ deviates" in deck and "How we measure it: how" in deck
    assert "<li>Why?</li>" in deck and "Second paragraph." in deck  # discussion; notes
    assert "https://" not in deck


def _site(tmp_path):
    """A stand-in for a built site: the site's _static files the decks load."""
    static = tmp_path / "_static"
    static.mkdir()
    mathjax = ROOT / "_vendor" / "site" / "mathjax"
    if not (mathjax.exists() and (ROOT / "_vendor" / "reveal.js").exists()):
        pytest.skip("the vendored JavaScript is missing: run `make vendor`")
    shutil.copytree(mathjax, static / "mathjax")
    for name in ("companion.js", "companion.css"):
        shutil.copy(ROOT / "book" / "_assets" / name, static / name)
    (static / "pygments.css").write_text("")
    slides._copy_assets(ROOT, tmp_path / "slides")
    return tmp_path


def test_a_long_list_of_claims_continues_on_slides_below():
    results = [_result(f"fake.c{i}") for i in range(slides.CLAIMS_PER_SLIDE * 2 + 1)]
    stack = slides._claims_slides(results)
    assert stack.startswith("<section><section")  # one vertical stack: one horizontal slide
    assert stack.count('<section class="deck-slide') == 3
    assert "(1 of 3)" in stack and "(3 of 3)" in stack
    assert all(f"statement of fake.c{i}<" in stack for i in range(len(results)))
    one = slides._claims_slides(results[:2])
    assert one.count('<section class="deck-slide') == 1 and "of 1)" not in one


def test_deck_check_in_chromium_passes_a_clean_deck_and_fails_broken_ones(tmp_path):
    try:
        handout.find_chromium()
    except FileNotFoundError:
        pytest.skip("chromium is not installed (make chromium)")
    site = _site(tmp_path)
    good = slides._slide(r"<p>A short slide with math \(\pi/(\pi-2)\).</p>", title="Fine")
    long_text = "<p>" + " ".join(["words"] * 450) + "</p>"  # fits once the text shrinks
    decks = {
        "good": good + slides._slide(long_text, title="Shrinks"),
        "tall": good + slides._slide('<div style="height:2000px">tall</div>', title="Tall"),
        "wide": slides._slide('<pre style="overflow:auto">' + "x" * 600 + "</pre>"),
        "error": good + slides._slide("<script>undefinedFunction()</script>", title="Err"),
    }
    paths = []
    for name, body in decks.items():
        path = site / "slides" / "part" / f"{name}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(slides._page(name, body, f"slides/part/{name}.html"))
        paths.append(path)
    report = slides.check(paths, sizes=((1280, 720),))
    assert report["part/good.html 1280x720"] == []
    scales = [s["scale"] for s in report["part/good.html 1280x720 slides"]]
    assert scales[0] == 1.0 and 0.6 <= scales[1] < 1.0
    assert any("overflows" in p for p in report["part/tall.html 1280x720"])
    assert any("cut off" in p for p in report["part/wide.html 1280x720"])
    assert any("undefinedFunction" in p for p in report["part/error.html 1280x720"])


def test_handout_takes_the_statement_boxes_of_the_built_page(tmp_path, monkeypatch):
    page = tmp_path / "book" / "sign_magnitude" / "fake.html"
    page.parent.mkdir(parents=True)
    page.write_text(PAGE)
    fake = types.SimpleNamespace(TALK={"statement": "thm-x", "punchline": "b", "exercise": "e"})
    monkeypatch.setattr("companion.chapters.module", lambda doc: fake)
    title, boxes = handout.statements(tmp_path, "book/sign_magnitude/fake")
    assert title == "Fake: the title" and len(boxes) == 1
    assert "Theorem 2.1 (X)" in boxes[0] and "<a" not in boxes[0] and "(2.1)" in boxes[0]
    html = handout.handout_html("Part I", [(title, boxes)], "mathjax/tex-mml-chtml.js")
    assert "https://" not in html and "Theorem 2.1" in html


def test_seminar_is_ninety_minutes_and_places_every_chapter():
    docs = [s.doc for s in backmatter.SEMINAR]
    assert sum(s.minutes for s in backmatter.SEMINAR) == backmatter.SESSION_MINUTES == 90
    assert len(docs) == len(set(docs))
    assert {f"book/{c}" for c in CHAPTERS} | {"book/ledger"} <= set(docs)
    for stop in backmatter.SEMINAR:
        assert (ROOT / f"{stop.doc}.md").exists()
        assert stop.minutes >= 0 and len(stop.plan) > 40  # a reading says why
        if stop.in_session and stop.doc.removeprefix("book/") in CHAPTERS:
            assert stop.projector  # what to move in the chapter's Explore figure
    both = {s.doc.split("/")[1] for s in backmatter.SEMINAR if s.in_session and "/" in s.doc[5:]}
    assert both == {"sign_magnitude", "dead_directions"}


def test_seminar_times_come_from_the_execution_record():
    rec = {
        "date": "2026-01-02",
        "machine": {"cores": 2, "cpu": "Test CPU"},
        "command": "make book",
        "seconds": {"book/sign_magnitude/theorem3": 13.4},
    }
    rows = backmatter.seminar_rows({"book/sign_magnitude/theorem3": 13.4})
    assert {r["doc"]: r["run_seconds"] for r in rows}["book/sign_magnitude/theorem3"] == 13.4
    assert rows[-1]["start"] is None  # reading
    clock = [(r["start"], r["end"]) for r in rows if r["in_session"]]
    assert clock[0][0] == 0 and clock[-1][1] == 90
    assert all(a[1] == b[0] for a, b in zip(clock, clock[1:], strict=False))
    html = backmatter.seminar_html(rec=rec)
    assert "13 s" in html and "Test CPU" in html and "90 minutes" in html
    assert "../slides/sign_magnitude/theorem3.html" in html
    assert "sign_magnitude/theorem3.html#explore" in html
    assert "Test CPU" in backmatter.exec_times_html(rec)


def test_execution_record_is_one_file_read_from_a_checkout_or_the_package(tmp_path, monkeypatch):
    rec = backmatter.exec_record(ROOT)
    assert rec == json.loads((ROOT / "bench" / "exec_times.json").read_text())
    assert {"cpu", "cores"} <= set(rec["machine"]) and rec["seconds"]
    # an installed package has no checkout: it reads the copy the wheel ships
    monkeypatch.setattr(backmatter, "book_root", lambda root=None: None)
    monkeypatch.setattr(backmatter, "__file__", str(tmp_path / "backmatter.py"))
    assert backmatter.exec_record() is None and backmatter.exec_times() == {}
    (tmp_path / "exec_times.json").write_text(json.dumps(rec))
    assert backmatter.exec_record() == rec


def test_a_wheel_ships_the_execution_record(tmp_path):
    out = tmp_path / "lib"
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_py", "--build-lib", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    shipped = out / "companion" / "site" / "exec_times.json"
    assert shipped.read_bytes() == (ROOT / "bench" / "exec_times.json").read_bytes()
    assert (out / "companion" / "site" / "deck" / "deck.js").exists()


def test_full_scale_page_says_what_exists(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "_toc.yml").write_text("root: x\n")
    res = tmp_path / "results" / "exp"
    res.mkdir(parents=True)
    cpu = {"model": "m", "scale": "cpu", "device": "cpu", "command": "companion run x"}
    (res / "a-cpu.jsonl").write_text(json.dumps(cpu) + "\n")
    page = backmatter.inventory_html(tmp_path)
    assert "Nothing has been measured at full scale, and no GPU has run" in page
    assert "results/exp/a-cpu.jsonl" in page and "companion run x" in page and "on a CPU" in page
    gpu = {**cpu, "scale": "full", "device": "cuda:0"}
    (res / "a-full.jsonl").write_text(json.dumps(gpu) + "\n")
    page = backmatter.inventory_html(tmp_path)
    assert "Nothing has been measured" not in page and "1 record was written at full scale" in page
    assert "cuda:0" in page


def test_full_scale_commands_are_the_chapters_own():
    cmds = backmatter.full_scale_commands()
    pages = {page for page, _ in cmds}
    assert pages == {"book/sign_magnitude/at_scale", "book/dead_directions/at_scale"}
    assert all(c.startswith("companion run ") and "--scale full" in c for _, c in cmds)
    assert "tinyllama-1.1b" in backmatter.commands_html()
