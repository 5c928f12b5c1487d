"""The reader's-book tools that run without a browser: links, figures, full-scale results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion import plotting
from companion.site import backmatter
from companion.site.browser import check_links

ROOT = Path(__file__).resolve().parents[2]


def test_check_links_finds_broken_links_and_anchors(tmp_path):
    (tmp_path / "a.html").write_text(
        '<h1 id="top">A</h1><a href="b.html#sec">ok</a>'
        '<a href="b.html#nope">bad anchor</a><a href="c.html">bad</a>'
        '<a href="https://example.org/x">external, not checked</a>'
    )
    (tmp_path / "b.html").write_text('<section id="sec"><a href="a.html#top">back</a></section>')
    problems = check_links(tmp_path, ["a.html", "b.html"])
    assert problems == {"a.html": ["broken anchor: b.html#nope", "broken link: <a> c.html"]}


def test_figures_get_alt_text_and_downloads_in_ipython():
    from IPython.core.formatters import DisplayFormatter
    from matplotlib.figure import Figure

    class Shell:
        display_formatter = DisplayFormatter()

    assert plotting.register_figure_formatter(Shell())
    # what matplotlib-inline does when pyplot is first imported: drop every Figure printer
    for form in Shell.display_formatter.formatters.values():
        form.pop(Figure, None)
    fig = Figure(figsize=(3, 2))
    ax = fig.subplots()
    ax.plot([0, 1], [1, 0], label="closed form")
    ax.set(title="Demo", xlabel="p", ylabel="ratio")
    ax.legend()
    data, _ = Shell.display_formatter.format(fig)
    assert data["image/png"][:4] == b"\x89PNG"
    html = data["text/html"]
    assert 'alt="Figure: Demo: ratio against p; shows closed form."' in html
    assert 'download="demo.png"' in html and 'download="demo.svg"' in html


def test_full_scale_results_reads_only_full_scale_records(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "_toc.yml").write_text("root: x\n")
    res = tmp_path / "results" / "dead_directions"
    res.mkdir(parents=True)
    recs = [
        {
            "model": "a",
            "settings": {"scale": "full"},
            "device": "cuda:0",
            "command": "companion run ...",
        },
        {"model": "b", "settings": {"scale": "cpu"}, "device": "cpu"},
    ]
    (res / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    found = backmatter.full_scale_results(tmp_path)
    assert [r["model"] for r in found] == ["a"]
    assert found[0]["_file"] == "results/dead_directions/runs.jsonl"


def test_launch_links_must_open_an_existing_notebook(tmp_path):
    from companion.site.browser import check_launch_links

    base = "https://colab.research.google.com/github/org/repo/blob/main/"
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "ok.ipynb").write_text("{}")
    (tmp_path / "p.html").write_text(
        f'<a href="{base}book/ok.ipynb">a</a><a href="{base}book/x.md">b</a>'
        f'<a href="{base}book/gone.ipynb">c</a>'
    )
    assert check_launch_links(tmp_path, "p.html", tmp_path) == [
        f"Colab link does not open a notebook: {base}book/x.md",
        "Colab link to a notebook missing from the repository: book/gone.ipynb",
    ]


def test_screenshot_folder_never_deletes_what_it_did_not_write(tmp_path):
    from companion.site.browser import ShotFolder

    # a folder of the user's (here: finished results) is refused, and left as it was
    theirs = tmp_path / "results"
    theirs.mkdir()
    (theirs / "runs.jsonl").write_text("{}\n")
    with pytest.raises(FileExistsError, match="was not made by the site test"):
        ShotFolder(theirs)
    assert [p.name for p in theirs.iterdir()] == ["runs.jsonl"]
    # a new folder is the suite's: a second run replaces only what the first one wrote
    shots = tmp_path / "shots"
    first = ShotFolder(shots)
    first.file("a-1400.png").write_bytes(b"old")
    first.file("dark/a.png").write_bytes(b"old")
    (shots / "notes.txt").write_text("the user's")
    second = ShotFolder(shots)
    assert sorted(p.relative_to(shots).as_posix() for p in shots.rglob("*") if p.is_file()) == [
        ".companion-site-test.json",
        "notes.txt",
    ]
    second.file("b-390.png").write_bytes(b"new")
    assert (shots / "notes.txt").read_text() == "the user's"
    with pytest.raises(ValueError, match="must stay inside"):
        second.file("../escape.png")


def test_redirect_target_is_read_from_disk(tmp_path):
    from companion.site.browser import redirect_target

    (tmp_path / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=book/intro.html" />'
    )
    (tmp_path / "page.html").write_text("<p>no refresh</p>")
    assert redirect_target(tmp_path, "index.html") == "book/intro.html"
    assert redirect_target(tmp_path, "page.html") is None
