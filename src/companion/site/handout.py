"""``make handouts``: a one-page handout per paper, as print-styled HTML and a PDF.

Each handout gathers, for every chapter of one part of ``_toc.yml``, the chapter title and its
**Statement** section (the theorem or definition box, with its provenance line), converted
from MyST with :func:`companion.site.slides.myst_to_markdown`. The page uses the vendored
MathJax 3 (no CDN) and a two-column A4 print style; headless ``chromium --print-to-pdf``
turns it into ``_build/handouts/<paper>.pdf``, and the number of PDF pages is reported (the
target is one).
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

__all__ = ["statement", "handout_html", "main"]

_CSS = """
@page { size: A4 landscape; margin: 6mm 6mm; }
body {
  font-family: "DejaVu Sans", Helvetica, Arial, sans-serif;
  font-size: 6.5pt; line-height: 1.17; color: #111;
}
h1 { font-size: 13pt; margin: 0 0 2mm 0; }
.sub { font-size: 8pt; color: #444; margin-bottom: 3mm; }
.cols { column-count: 3; column-gap: 4mm; }
section { margin: 0 0 2mm 0; }
section h2 { break-after: avoid; }
h2 { font-size: 8.2pt; margin: 0 0 1mm 0; color: #0b3d6e; }
section { padding: 0 0 0 2mm; border-left: 2px solid #0072B2; }
p { margin: 0.6mm 0; }
em { color: #333; }
mjx-container[display="true"] {
  margin: 0.4mm 0 !important; font-size: 92% !important; overflow: hidden;
}
code { font-size: 6.8pt; }
ol, ul { margin: 0.5mm 0; padding-left: 4mm; }
.foot { font-size: 7pt; color: #555; margin-top: 2mm; }
"""


def statement(md_path: Path) -> tuple[str, str]:
    """(title, Markdown of the chapter's Statement section) of one MyST chapter."""
    from companion.site.slides import myst_to_markdown

    text = md_path.read_text(encoding="utf-8")
    body = text.split("---", 2)[2] if text.startswith("---") else text
    title = next((ln[2:].strip() for ln in body.splitlines() if ln.startswith("# ")), md_path.stem)
    m = re.search(r"^## Statement\s*$(.*?)(?=^## |\Z)", body, flags=re.M | re.S)
    if not m:
        return title, ""
    sec = re.sub(r"```\{code-cell\}.*?^```\s*$", "", m.group(1), flags=re.M | re.S)
    # the handout boxes each section itself: unquote the theorem block (a quoted $$ block
    # would carry the "> " markers into the TeX)
    md = "\n".join(re.sub(r"^>\s?", "", ln) for ln in myst_to_markdown(sec).splitlines())
    return title, md


def _md_to_html(md: str) -> str:
    """Markdown to HTML with TeX kept verbatim for MathJax (mistune would eat `_` and `*`)."""
    import mistune

    store = []

    def keep(m):
        store.append(m.group(0))
        return f"\x00{len(store) - 1}\x00"

    md = re.sub(r"\$\$.*?\$\$|\$[^$\n]+\$", keep, md, flags=re.S)
    out = mistune.html(md)
    return re.sub("\x00(\\d+)\x00", lambda m: html.escape(store[int(m.group(1))], quote=False), out)


def handout_html(caption: str, chapters: list[tuple[str, str]], mathjax_src: str) -> str:
    secs = []
    for title, md in chapters:
        if not md.strip():
            continue
        secs.append(f"<section><h2>{_md_to_html(title)[3:-5]}</h2>{_md_to_html(md)}</section>")
    missing = [t for t, md in chapters if not md.strip()]
    foot = (
        f"<p class='foot'>Not yet written: {html.escape(', '.join(missing))}.</p>"
        if missing
        else ""
    )
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>{html.escape(caption)}</title>
<style>{_CSS}</style>
<script>window.MathJax = {{
  tex: {{inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: [['$$', '$$']]}},
  startup: {{pageReady: () => MathJax.startup.defaultPageReady().then(() => {{
    document.body.dataset.typeset = "1";
  }})}}
}};</script>
<script src="{mathjax_src}"></script></head><body>
<h1>{html.escape(caption)}</h1>
<div class="sub">One-page handout of the companion book: every result's statement, in the
paper's voice, with where it comes from (abstract / author code / Lean / secondary /
reconstruction = ours). Proofs, simulations and widgets are in the book.</div>
<div class="cols">{"".join(secs)}</div>{foot}</body></html>"""


def _parts(root: Path):
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    for part in toc.get("parts", []):
        docs = [
            c["file"]
            for c in part.get("chapters", [])
            if c.get("file", "").startswith(("book/sign_magnitude/", "book/dead_directions/"))
        ]
        if docs:
            yield part.get("caption", docs[0]), docs


def find_chromium() -> str:
    """The headless browser that prints the PDF (Debian's chromium; ``make chromium``)."""
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError(
        "`chromium` not found: install it with `apt-get install -y chromium` "
        "(`make chromium` does this when it is absent)"
    )


def _pdf_pages(pdf: Path) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf.read_bytes()))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="_build/handouts")
    p.add_argument("--no-pdf", action="store_true", help="write the HTML only")
    args = p.parse_args(argv)
    from companion.site.backmatter import repo_root

    root = repo_root()
    out = root / args.out
    out.mkdir(parents=True, exist_ok=True)
    mj = root / "_vendor" / "site" / "mathjax"
    if not mj.exists():
        raise FileNotFoundError("`_vendor/site/mathjax` is missing: run `make vendor` first")
    shutil.rmtree(out / "mathjax", ignore_errors=True)
    shutil.copytree(mj, out / "mathjax")
    status = 0
    for caption, docs in _parts(root):
        t0 = time.perf_counter()
        name = "dong" if "sign_magnitude" in docs[0] else "shirodkar"
        chapters = [statement(root / f"{d}.md") for d in docs if (root / f"{d}.md").exists()]
        page = out / f"{name}.html"
        page.write_text(
            handout_html(caption, chapters, "mathjax/tex-mml-chtml.js"), encoding="utf-8"
        )
        msg = (
            f"  {page.relative_to(root)} ({sum(bool(md.strip()) for _, md in chapters)} statements)"
        )
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
                msg += "  (WARNING: the target is one page)"
        print(msg + f"  {time.perf_counter() - t0:.1f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
