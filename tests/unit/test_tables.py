"""companion.tables: a cell's numbers stay whole, its long identifiers may break, its words
break at spaces and hyphens only (the stylesheet's side of it is checked here too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.tables import html_table, keep_whole, table

CSS = Path(__file__).resolve().parents[2] / "book" / "_assets" / "companion.css"


@pytest.mark.parametrize(
    "token",
    [
        "sentence-transformers/all-MiniLM-L6-v2",
        "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
        "(encoder.layer.5.output.LayerNorm)",
        "https://huggingface.co/google/gemma-2b",
        "model.norm_final_layer",
        "abcdefghijklmnopqrstuvwxyz",  # any run over 24 characters
    ],
)
def test_a_long_identifier_is_the_one_breakable_piece(token):
    out = keep_whole(f"weights {token} at 1.5")
    assert out == f'weights <span class="long-token">{token}</span> at <span class="nw">1.5</span>'


@pytest.mark.parametrize(
    "word",
    ["layernorm", "random", "pythia-1b", "whisper-tiny-en-encoder", "Marchenko–Pastur", "N/d"],
)
def test_an_ordinary_word_is_left_to_break_at_its_spaces_and_hyphens(word):
    assert "long-token" not in keep_whole(word)


def test_numbers_stay_whole_and_a_long_number_is_not_an_identifier():
    assert keep_whole("3.14159265358979323") == '<span class="nw">3.14159265358979323</span>'
    assert keep_whole("σ = 1.06e-02 (2,100 tokens)") == (
        'σ = <span class="nw">1.06e-02</span> (<span class="nw">2,100</span> tokens)'
    )


def test_tags_and_entities_are_kept_as_they_are():
    cell = '<a href="https://x.org/a_b/c.html" title="v0.1">Mistral&#x27;s 7 b</a>'
    assert keep_whole(cell) == (
        '<a href="https://x.org/a_b/c.html" title="v0.1">Mistral&#x27;s '
        '<span class="nw">7</span> b</a>'
    )
    # an entity inside a long identifier belongs to it
    assert keep_whole("a&amp;b/cdefghijklmnopq") == (
        '<span class="long-token">a&amp;b/cdefghijklmnopq</span>'
    )
    assert keep_whole("") == ""


def test_a_numeric_column_is_not_rewritten():
    out = html_table(["model", "d"], [["google/gemma-3-270m-it", "640"]], numeric=[False, True])
    model = '<span class="long-token">google/gemma-3-270m-it</span>'
    assert f'<td data-label="model">{model}</td>' in out
    assert '<td class="num" data-label="d">640</td>' in out


def test_a_table_marks_its_long_identifiers_inside_the_phone_card():
    rows = [{"model": "sentence-transformers/all-MiniLM-L6-v2", "norm": "layernorm", "d": 384}]
    out = table(rows)._repr_html_()
    assert (
        '<div class="cell-value"><span class="long-token">sentence-transformers/all-MiniLM-L6-v2'
        "</span></div>" in out
    )
    assert '<div class="cell-value">layernorm</div>' in out


def _rules(css: str) -> list[tuple[str, str]]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    return [(m[1].strip(), m[2]) for m in re.finditer(r"([^{}]+)\{([^{}]*)\}", css)]


def test_the_stylesheet_lets_only_a_long_identifier_break_anywhere_in_a_table():
    anywhere = [sel for sel, body in _rules(CSS.read_text()) if "overflow-wrap: anywhere" in body]
    in_tables = [s for s in anywhere if "table.companion-table" in s]
    assert in_tables == ["table.companion-table span.long-token"], in_tables
