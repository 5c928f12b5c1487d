"""The reader-text checks (``companion.site.reader_text``) fail on what the at-scale pages
showed before issue 19 and pass on what they show now; and no chapter source refers to an
unnumbered statement without a title (what the site renders as "Theorem ,")."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from companion.site import reader_text as rt
from companion.site.book_ext import _check_reader_text

ROOT = Path(__file__).resolve().parents[2]

# What the old `Markdown(ch.whisper_kernel_table(SCALE))` cell put on the page: myst-nb renders
# text/markdown outputs as CommonMark, which has no tables, so each line became a paragraph.
OLD_TABLE = """<div class="cell_output docutils container"><div class="output text_markdown">
<p>| stack | N | min / max \\|γ\\| | verdict |
|---|---|---|---|
| decoder, trained (6 bl.) | 2,100 | 4.17 / 37.2 | layernorm |</p></div></div>"""

OLD_REFS = [
    '<p>The trained-model claim (<a class="reference internal" href="#thm-dd-at-scale">'
    '<span class="std std-ref">Theorem </span></a>, item 1) now rests on Whisper.</p>',
    "<p>the behaviour Theorem predicts for non-cancelling blocks (see Definition ).</p>",
]

OLD_BUILDER = [
    "<p>What changed in this version: the trained-model claim now rests on Whisper.</p>",
    "<td>98 s (+ 0.6 s load); the issue's target is 65,536 tokens in ≤ 120 s</td>",
    "<h2>Speed and memory</h2>",
    "<p>on 2 cores, 1-minute load 7.66 when recorded</p>",
    "<p>on the spec's realistic set-up (d = 768, N = 8192)</p>",
    '<div class="cell_output"><pre>written by:\n  companion run dead-directions --model '
    "whisper-base-decoder --init trained --resume</pre></div>",
    "<p>No GPU run has been shipped with this version of the book.</p>",
    "<p>read from /work/main/results/dead_directions.jsonl</p>",
]


def test_a_raw_markdown_table_fails_and_a_table_passes():
    assert any("raw Markdown table" in p for p in rt.page_problems(OLD_TABLE))
    from companion.tables import table

    html = table([{"stack": "decoder", "N": 2100, "verdict": "layernorm"}])._repr_html_()
    assert rt.page_problems(html) == []


def test_a_markdown_output_is_caught_in_the_executed_notebook():
    nb = {"cells": [{"cell_type": "code", "outputs": [
        {"output_type": "execute_result", "data": {"text/markdown": "| a | b |\n|---|---|"}}
    ]}]}  # fmt: skip
    assert "Markdown table" in rt.notebook_problems(nb)[0]


@pytest.mark.parametrize("html", OLD_REFS)
def test_a_reference_without_its_number_fails(html):
    assert any("without its number" in p for p in rt.page_problems(html))


def test_a_numbered_or_titled_reference_passes():
    ok = (
        '<p>(<a class="reference internal"><span>the diagnostic</span></a>, item 1), '
        "as Theorem 3 says; Table 1 on the same weights.</p>"
    )
    assert rt.page_problems(ok) == []


@pytest.mark.parametrize("html", OLD_BUILDER)
def test_words_meant_for_the_builder_fail(html):
    assert any("meant for the builder" in p for p in rt.page_problems(html)), html


def test_a_run_command_is_allowed_only_on_the_pages_about_running():
    cmd = OLD_BUILDER[5]
    assert rt.page_problems(cmd, pagename="book/results_full_scale") == []
    assert rt.page_problems(cmd, pagename="book/ledger") == []
    assert rt.page_problems(cmd, pagename="book/dead_directions/at_scale")
    # the other builder words are not allowed there either
    assert rt.page_problems(OLD_BUILDER[0], pagename="book/results_full_scale")


def test_the_folded_reproduce_box_and_code_inputs_may_hold_commands():
    from companion.reproduce import reproduce_box

    box = reproduce_box(["companion run dead-directions --model gpt2 --resume"],
                        timings=["97 s, load average 2.2"])._repr_html_()  # fmt: skip
    code = (
        '<div class="cell_input"><div class="highlight"><pre>results = ch.records(SCALE)'
        "  # written by `companion run dead-directions --resume`</pre></div></div>"
    )
    assert rt.page_problems(box + code) == []


def _lecture(rows: int, paragraphs: int) -> str:
    table = "<table>" + "<tr><td>x</td></tr>" * rows + "</table>"
    return table + ("<p>" + "a sentence of the lecture " * 30 + "</p>") * paragraphs


def test_an_at_scale_page_over_budget_fails_only_there():
    long = _lecture(rows=200, paragraphs=60)  # ~ 6,800 px of tables + ~ 11,000 of prose
    assert rt.estimated_height(long) > rt.HEIGHT_BUDGET_PX
    assert any("too long" in p for p in rt.page_problems(long, pagename="book/x/at_scale"))
    assert rt.page_problems(long, pagename="book/x/theorem3") == []
    short = _lecture(rows=40, paragraphs=10)
    assert rt.page_problems(short, pagename="book/x/at_scale") == []


def test_folded_content_does_not_count_towards_the_height():
    body = "<p>" + "text " * 4000 + "</p>"
    assert rt.estimated_height(f"<details><summary>s</summary>{body}</details>") < 100
    assert rt.estimated_height(body) > 5000


def test_the_book_extension_warns_so_that_w_fails_the_build(caplog):
    caplog.set_level(logging.WARNING)
    _check_reader_text("book/dead_directions/at_scale", OLD_REFS[1])
    assert "without its number" in caplog.text and "[reader text]" in caplog.text


# -- the chapter sources: a {prf:ref} to a :nonumber: statement needs an explicit title -----

_LABEL = re.compile(r"^:label: *(\S+)\n(?=(?:^:[^\n]*\n)*?^:nonumber:)", re.MULTILINE)
_BARE_REF = re.compile(r"\{prf:ref\}`([^`<>]+)`")


def untitled_refs_to_unnumbered(sources: dict[str, str]) -> list[str]:
    """``{prf:ref}`label``` without a title, where ``label`` is an unnumbered statement: the
    site renders it as "Theorem " with no number."""
    unnumbered = {m.group(1) for text in sources.values() for m in _LABEL.finditer(text)}
    return [
        f"{name}: {{prf:ref}}`{m.group(1)}` (unnumbered: give it a title)"
        for name, text in sources.items()
        for m in _BARE_REF.finditer(text)
        if m.group(1).strip() in unnumbered
    ]


def test_an_untitled_reference_to_an_unnumbered_statement_is_found():
    page = (
        "````{prf:theorem} Diagnostic\n:label: thm-dd\n:nonumber:\n\nText.\n````\n"
        "As {prf:ref}`thm-dd` says; as {prf:ref}`the diagnostic <thm-dd>` says.\n"
    )
    assert untitled_refs_to_unnumbered({"old.md": page}) == [
        "old.md: {prf:ref}`thm-dd` (unnumbered: give it a title)"
    ]


def test_no_chapter_refers_to_an_unnumbered_statement_without_a_title():
    sources = {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "book").rglob("*.md"))
    }
    assert untitled_refs_to_unnumbered(sources) == []
