"""The browser suite itself, run on a two-page site written here: it passes on a healthy
site (a control that applies at one value of another is given it first), it fails when a
kernel-free control does not move its figure or stays disabled, when something
overflows (measured as drawn) or an at-scale page is taller than its budget, when a figure's
text is under 9 px at 390 px or the figure does not say how large it is, when a table cell
breaks a word or a number across lines (a long identifier may break), and it deletes nothing
it did not create (pytest-playwright's own fixture would remove ``test-results/``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser")),
    reason="needs Debian's chromium (`make chromium`; make site-test installs it)",
)


def _frame(colour: str, width: int = 200, height: int = 100) -> str:
    """A precomputed "frame": a small SVG as a data URI."""
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}'>"
        f"<rect width='{width}' height='{height}' fill='{colour}'/></svg>"
    )
    return "data:image/svg+xml," + quote(svg)


RED, BLUE = _frame("red"), _frame("blue")
WIDE, NARROW = _frame("green", 800, 360), _frame("green", 360, 600)
# a figure laid out twice: the phone's layout (its text 20 px in its 360 px) where the page
# is at most 700 px wide; the desktop's (12.5 px text in 800 px: 5.8 px at 390 px) elsewhere
PICTURE = f"""<figure class="companion-figure" style="margin: 0"><picture>
  <source media="(max-width: 700px)" srcset="{NARROW}" data-min-font-px="20">
  <img src="{WIDE}" alt="Figure: both layouts" data-min-font-px="12.5"
       style="max-width: 100%; height: auto"></picture></figure>"""
# what the figure text check must find at 390 px: the desktop layout alone, and no size
SMALL_TEXT = f"""<figure class="companion-figure" style="margin: 0"><img src="{WIDE}"
  alt="Figure: desktop layout only" data-min-font-px="12.5" style="max-width: 100%"></figure>
<figure class="companion-figure" style="margin: 0"><img src="{NARROW}" alt="Figure: no size"
  style="max-width: 100%"></figure>"""

# a narrow table as companion.tables writes it: words break at spaces and hyphens only, the
# long identifier (span.long-token) anywhere; the failing page squeezes words and a number
TABLE_WORDS = """<table id="words" style="width: 1px; overflow-wrap: break-word"><tr>
  <td>random layer-norm</td><td><span class="long-token" style="overflow-wrap: anywhere">
  sentence-transformers/all-MiniLM-L6-v2</span></td></tr></table>"""
SQUEEZED = """<table style="width: 1px; overflow-wrap: anywhere"><caption>squeezed</caption>
  <tr><td>layernorm</td><td class="num">1.06e-02</td></tr></table>"""

PAGE = f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>Explore</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main>
<h1 id="top">Explore</h1>
<p>A figure and its controls, without a kernel. <a href="#top">Back to the top</a>.</p>
<div class="companion-explore">
  <label>width n <input type="range" data-param="n" min="0" max="1" step="1" value="0"></label>
  <label>law <select data-param="law">
    <option>gaussian</option><option>rademacher</option></select></label>
  <label>tail <select data-param="tail" data-when='{{"law": 1}}' disabled>
    <option>light</option><option>heavy</option></select></label>
  <img alt="Figure: the ratio against p" width="200" height="100" src="{RED}"
       data-min-font-px="12">
</div>
{PICTURE}
{TABLE_WORDS}
<div class="animation">
  <img alt="Figure: frames sweep p" width="200" height="100" id="frame" src="{RED}">
  <input type="range" id="slider" min="0" max="1" step="1" value="0"
         oninput="anim.set_frame(parseInt(this.value))">
  <button title="Next frame" onclick="anim.next_frame()">next</button>
</div>
<script>
  var frames = ["{RED}", "{BLUE}"];
  var anim = {{i: 0,
    set_frame: function (i) {{  // as matplotlib's to_jshtml player: the slider follows
      this.i = i; document.getElementById("frame").src = frames[i];
      document.getElementById("slider").value = i; }},
    next_frame: function () {{ this.set_frame((this.i + 1) % frames.length); }}}};
  /*EXPLORE*/
  document.querySelectorAll(".companion-explore [data-param]").forEach(function (el) {{
    el.addEventListener("input", function () {{
      var box = el.closest(".companion-explore"), img = box.querySelector("img");
      img.src = img.getAttribute("src") === frames[0] ? frames[1] : frames[0];
      // "tail" applies to the second law only (data-when)
      box.querySelector('[data-param="tail"]').disabled =
        box.querySelector('[data-param="law"]').selectedIndex !== 1;
    }});
  }});
</script>
</main></body></html>
"""


def _site(tmp_path: Path, page: str = PAGE, extra: dict | None = None) -> Path:
    site = tmp_path / "html"
    (site / "book").mkdir(parents=True)
    for name, text in (extra or {}).items():
        (site / "book" / name).write_text(text)
    # the race of the old checker: a meta refresh with a 0 s delay, as Jupyter Book writes it
    (site / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=book/explore.html" />'
    )
    (site / "book" / "explore.html").write_text(page)
    return site


def _tall(px: int) -> str:
    """An at-scale page ``px`` tall (its paragraph's height; the body's margins add 16 px)."""
    return (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>At scale</title></head>'
        f'<body style="margin: 8px"><main><p style="height: {px}px; margin: 0">A lecture.</p>'
        "</main></body></html>"
    )


def _run_suite(site: Path, cwd: Path, shots: Path):
    env = dict(os.environ, COMPANION_SITE_HTML=str(site), COMPANION_SITE_SHOTS=str(shots))
    cmd = [sys.executable, "-m", "pytest", str(ROOT / "tests" / "site" / "test_browser.py"),
           "-p", "pytest_playwright.pytest_playwright", "-p", "no:cacheprovider", "-q",
           "--rootdir", str(ROOT), "-c", str(ROOT / "pyproject.toml"),
           "-W", "ignore::pytest.PytestRemovedIn10Warning"]  # fmt: skip
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_suite_passes_on_a_healthy_site_and_deletes_nothing(tmp_path):
    site, work = _site(tmp_path, extra={"at_scale.html": _tall(11_900)}), tmp_path / "work"
    keep = work / "test-results" / "mine.txt"  # what pytest-playwright would delete
    keep.parent.mkdir(parents=True)
    keep.write_text("the user's")
    res = _run_suite(site, work, work / "shots")
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert keep.read_text() == "the user's"
    report = json.loads((work / "shots" / "report.json").read_text())
    assert set(report["problems"]) == {
        f"test_{kind}[chromium-{page}]"
        for kind in ("desktop_and_dark", "phone")
        for page in ("book/at_scale.html", "book/explore.html", "index.html")
    }
    shots = sorted(p.name for p in (work / "shots").glob("*.png"))
    assert "book__explore-1400.png" in shots and "book__explore-390.png" in shots
    assert "book__explore-1400-dark.png" in shots


# What overflows: a 40 px spill in a box that also holds a wide scroll box (the spill is
# measured, not the scroll box's content), and a five-column table scrolling on a phone.
OVERFLOWS = """<div id="spill" style="width: 300px">
  <span style="display: inline-block; width: 340px">a spill</span>
  <div style="overflow-x: auto"><pre style="width: 2000px">wide code scrolls</pre></div>
</div>
<p class="faint" style="color: #8a8a8a; background: #ffffff">grey on white: 3.4:1</p>
<div id="wide" style="overflow-x: auto"><table style="width: 600px"><tr>
  <td>a</td><td>b</td><td>c</td><td>d</td><td>e</td></tr></table></div>
"""


def test_the_suite_fails_when_a_control_does_not_move_its_figure(tmp_path):
    broken = PAGE.replace("/*EXPLORE*/", "if (false)")  # the controls' script never runs
    broken = broken.replace("</main>", OVERFLOWS + SMALL_TEXT + SQUEEZED + "</main>")
    long = {"at_scale.html": _tall(12_100)}
    res = _run_suite(_site(tmp_path, broken, long), tmp_path, tmp_path / "shots")
    assert res.returncode == 1, res.stdout[-3000:]
    assert 'dark mode: low contrast p.faint "grey on white: 3.4:1" ratio 3.45 (AA: 4.5)' in (
        res.stdout
    )
    assert "page too long for a lecture: 12,116 px at 1400 px (budget 12,000 px)" in res.stdout
    assert "overflow: spills out of its box by 40 px: div#spill" in res.stdout
    # at 390 px: 600 px of table in 374 px of column
    assert "overflow: hidden behind a horizontal scrollbar by 226 px: div#wide" in res.stdout
    assert "kernel-free control 'n': pressing End on it does not change the figure" in res.stdout
    assert (
        "kernel-free control 'law': selecting option 2 of 2 does not change the figure"
        in res.stdout
    )
    assert """kernel-free control 'tail': disabled even at {"law": 1}""" in res.stdout
    # at 390 px: 12.5 px of text in 800 px, drawn 374 px wide; an image that does not say
    assert "figure text 5.8 px at 390 px (under 9 px): Figure: desktop layout only" in (res.stdout)
    assert "figure without its text size (data-min-font-px): Figure: no size" in res.stdout
    assert "Figure: both layouts" not in res.stdout  # the phone layout is the one shown
    # a word and a number of a table cell broken across lines (overflow-wrap: anywhere), at
    # both widths; the healthy table's hyphen break and long identifier are not reported
    for width in (1400, 390):
        for word in ("'layernorm'", "'1.06e-02'"):
            line = f"table cell breaks a word across lines at {width} px: {word} (squeezed)"
            assert line in res.stdout, res.stdout[-3000:]
    assert not any(w in res.stdout for w in ("'layer'", "'norm'", "'random'", "MiniLM"))


def test_the_suite_refuses_a_screenshot_folder_it_did_not_make(tmp_path):
    theirs = tmp_path / "results"
    theirs.mkdir()
    (theirs / "finished.jsonl").write_text("{}\n")
    res = _run_suite(_site(tmp_path), tmp_path, theirs)
    assert res.returncode != 0
    assert "exists and was not made by the site test" in res.stdout + res.stderr
    assert [p.name for p in theirs.iterdir()] == ["finished.jsonl"]
