"""``make handouts``: a one-page handout per paper, as print-styled HTML and a PDF.

Each handout gathers, for every chapter of one part of ``_toc.yml`` that has a talk (a
``talk`` module beside its package, see :mod:`companion.site.talk_spec`), the chapter title
and its statement box(es) as the built site renders them: numbered, with citations and
cross-references resolved and the provenance line. The page uses the site's MathJax 3 (no
CDN) and a four-column A4 landscape print style whose text shrinks (from 6.2 pt, to 5 pt at
most) until the page fits; headless ``chromium --print-to-pdf`` turns it into
``_build/handouts/<paper>.pdf``.
The command fails unless each PDF has exactly one page and every statement was found.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from companion.site.browser import find_chromium
from companion.site.paths import repo_root

__all__ = ["statements", "handout_html", "main"]

_CSS = """
@page { size: A4 landscape; margin: 6mm 6mm; }
body {
  font-family: "DejaVu Sans", Helvetica, Arial, sans-serif;
  font-size: 6.2pt; line-height: 1.08; color: #111;
  width: 285mm; margin: 0;  /* the printed page's width, so that the fit below measures it */
}
h1 { font-size: 13pt; margin: 0 0 2mm 0; }
.sub { font-size: 8pt; color: #444; margin-bottom: 3mm; }
.cols { column-count: 4; column-gap: 3.5mm; }
section.chapter { margin: 0 0 2mm 0; padding: 0 0 0 2mm; border-left: 2px solid #0072B2; }
section.chapter h2 { break-after: avoid; font-size: 1.32em; margin: 0 0 1mm 0; color: #0b3d6e; }
.admonition-title { font-weight: bold; margin: 0.4mm 0; }
p { margin: 0.6mm 0; }
em { color: #333; }
mjx-container[display="true"] { margin: 0.4mm 0 !important; font-size: 92% !important; }
.eqno { float: right; }
.eqno a { display: none; }
code { font-size: 1.1em; }
ol, ul { margin: 0.5mm 0; padding-left: 4mm; }
"""


def statements(html_dir: Path, doc: str) -> tuple[str, list[str]]:
    """(title, statement boxes as HTML) of chapter ``doc`` in the built site ``html_dir``;
    links become plain text (a handout is printed)."""
    from bs4 import BeautifulSoup

    from companion.chapters import module
    from companion.site.talk_spec import talk_of

    page = html_dir / f"{doc}.html"
    if not page.exists():
        raise FileNotFoundError(f"{page} is missing: build the book first (`make book`)")
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    for el in soup.select("a.headerlink"):
        el.decompose()
    for a in soup.find_all("a"):
        a.unwrap()
    h1 = soup.select_one("article h1") or soup.find("h1")
    boxes = []
    for label in talk_of(module(doc))["statement"]:
        box = soup.find(id=label)
        if box is None:
            raise LookupError(f"{doc}: no statement labelled {label!r} on the built page")
        boxes.append(str(box))
    return (h1.decode_contents() if h1 else doc), boxes


def handout_html(caption: str, chapters: list[tuple[str, list[str]]], mathjax_src: str) -> str:
    """The print page of one paper: a section (title, statement boxes) per chapter."""
    secs = "".join(
        f"<section class='chapter'><h2>{t}</h2>{''.join(b)}</section>" for t, b in chapters
    )
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>{html.escape(caption)}</title>
<style>{_CSS}</style>
<script>window.MathJax = {{
  tex: {{inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']]}},
  startup: {{pageReady: () => MathJax.startup.defaultPageReady().then(() => {{
    // one A4 page: the text shrinks in steps of 0.1 pt (to 5 pt at most) until it fits
    const limit = 198 * 96 / 25.4;  // the page's height (210 mm less the margins) in px
    let size = 6.2;
    while (document.documentElement.scrollHeight > limit && size > 5.05) {{
      size = Math.round(size * 10 - 1) / 10;
      document.body.style.fontSize = size + "pt";
    }}
    document.body.dataset.fit = String(size);
    document.body.dataset.typeset = "1";
  }})}}
}};</script>
<script src="{mathjax_src}"></script></head><body>
<h1>{html.escape(caption)}</h1>
<div class="sub">One-page handout of the companion book: every result's statement, in the
paper's voice, with where it comes from (abstract / author code / Lean / secondary /
reconstruction = ours). Proofs, simulations, figures and exercises are in the book.</div>
<div class="cols">{secs}</div></body></html>"""


def _parts(root: Path):
    from companion.site.slides import decks

    parts: dict[str, list[str]] = {}
    for doc, caption in decks(root):
        parts.setdefault(caption, []).append(doc)
    return parts.items()


def _pdf_pages(pdf: Path) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="_build/handouts")
    p.add_argument("--html", default="_build/html", help="the built site (default: %(default)s)")
    p.add_argument("--no-pdf", action="store_true", help="write the HTML only")
    args = p.parse_args(argv)
    root = repo_root()
    out, html_dir = root / args.out, root / args.html
    mj = html_dir / "_static" / "mathjax"
    if not mj.exists():
        print(f"error: {html_dir} is not a built site: run `make book` first", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "mathjax").exists():
        shutil.copytree(mj, out / "mathjax")
    status = 0
    for caption, docs in _parts(root):
        t0 = time.perf_counter()
        name = "dong" if "sign_magnitude" in docs[0] else "shirodkar"
        chapters = [statements(html_dir, d) for d in docs]
        page = out / f"{name}.html"
        page.write_text(
            handout_html(caption, chapters, "mathjax/tex-mml-chtml.js"), encoding="utf-8"
        )
        msg = f"  {page.relative_to(root)} ({sum(len(b) for _, b in chapters)} statements)"
        if not args.no_pdf:
            pdf = out / f"{name}.pdf"
            with tempfile.TemporaryDirectory() as prof:
                subprocess.run(
                    [
                        find_chromium(),
                        "--headless=new",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--no-first-run",
                        f"--user-data-dir={prof}",
                        "--virtual-time-budget=15000",
                        "--no-pdf-header-footer",
                        f"--print-to-pdf={pdf}",
                        page.as_uri(),
                    ],
                    check=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    timeout=120,
                )
            pages = _pdf_pages(pdf)
            msg += f" -> {pdf.name}: {pages} page(s)"
            if pages != 1:
                msg += "  (error: a handout must fit on one page)"
                status = 1
        print(msg + f"  {time.perf_counter() - t0:.1f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
