"""Page weight of the chapter pages of a built site: the bytes a reader's browser loads.

    .venv/bin/python bench/page_weight.py --html _build/html --json
    .venv/bin/python bench/page_weight.py --html _build/html sign_magnitude/theorem3

Each chapter page is served from localhost and opened in Debian's chromium (Playwright, as
the browser suite does), with an empty cache, at 1400 px; once the network is idle it is
scrolled to the bottom (what loads only when seen loads then) and left to settle. Every
request the page made is counted, from Playwright's network events: its transferred bytes
are the response's body and headers as chromium received them (``Request.sizes()``), for
the page itself, its CSS, JavaScript, fonts and images (the Explore figure's first frame and
the static figures are files next to the page: ``companion.site.frames``), and the parts
MathJax loads as it typesets; a request that failed counts as a request and is listed.
Then every kernel-free control is stepped through each of its values, one control after
another, waiting for each new frame to load: what that adds is what a reader who tries
every value of every control loads on top. The same page is also opened at 390 px (a
phone, which loads the phone layout of each figure instead of the desktop one).

``--json`` prints chapter -> {"total_mb" (at load, 1400 px), "page_mb" (the HTML document
alone), "stepped_mb" (at load plus stepping every control), "frames" (frame files that
stepping loaded), "phone_mb" (at load, 390 px), "requests", "failed", "outside" (requests
that would leave the site, which should be 0), "within_budget" (total_mb), "largest" (the
three largest transfers at load)}. A chapter whose page is not in the build is reported as
missing. The budget is :data:`BUDGET_MB` a page at load; this is a measurement, reported
in the README, not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from urllib.parse import urlsplit

from companion.chapters import CHAPTERS
from companion.site import browser

MB = 1e6
#: What one chapter page should transfer at most, in MB.
BUDGET_MB = 3.5


def _transferred(request) -> int:
    """Bytes of ``request``'s response as received (body and headers), 0 without one."""
    try:
        sizes = request.sizes()
    except Exception:  # no response (failed, or a data: URL)
        return 0
    return max(sizes.get("responseBodySize", 0), 0) + max(sizes.get("responseHeadersSize", 0), 0)


# Step every kernel-free control through each of its values (as a reader trying them all),
# waiting for each frame the move shows to load; returns the number of moves.
STEP_ALL = r"""
async () => {
  const loaded = img => new Promise(ok => {
    if (img.complete) return ok();
    img.addEventListener('load', ok, {once: true});
    img.addEventListener('error', ok, {once: true});
  });
  let moves = 0;
  for (const box of document.querySelectorAll('.companion-explore')) {
    const img = box.querySelector('img');
    for (const el of box.querySelectorAll('[data-param]')) {
      const n = el.tagName === 'SELECT' ? el.options.length : +el.max - +el.min + 1;
      for (let i = 0; i < n; i++) {
        if (el.tagName === 'SELECT') el.selectedIndex = i; else el.value = String(i);
        el.dispatchEvent(new Event('input', {bubbles: true}));
        await loaded(img);
        moves += 1;
      }
    }
  }
  return moves;
}
"""


def _total(finished) -> tuple[int, dict]:
    sizes = {}
    for r in finished:
        if not r.url.startswith("data:"):
            sizes[r.url] = sizes.get(r.url, 0) + _transferred(r)
    return sum(sizes.values()), sizes


def weigh(page, base: str, chapter: str, *, step: bool = True) -> dict:
    """Open the chapter's page and add up every request it makes (transferred bytes); then,
    with ``step``, what stepping every kernel-free control through its values adds."""
    finished, failed, outside = [], [], []
    page.on("requestfinished", lambda r: finished.append(r))
    page.on("requestfailed", lambda r: failed.append(r))
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith((base, "data:")) else None,
    )
    url = f"{base}book/{chapter}.html"
    page.goto(url, wait_until="networkidle")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(1000)  # MathJax fetches its fonts while it typesets
    total, sizes = _total(finished)
    top = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    out = {
        "total_mb": round(total / MB, 2),
        "page_mb": round(sizes.get(url, 0) / MB, 2),
        "requests": len(finished) + len(failed),
        "failed": [r.url for r in failed],
        "outside": len(outside),
        "within_budget": total <= BUDGET_MB * MB,
        "largest": {urlsplit(u).path.rsplit("/", 1)[-1]: round(n / MB, 2) for u, n in top},
    }
    if step:
        at_load = set(sizes)
        page.evaluate(STEP_ALL)
        page.wait_for_load_state("networkidle")
        stepped, sizes = _total(finished)
        out["stepped_mb"] = round(stepped / MB, 2)
        out["frames"] = sum(1 for u in sizes if u not in at_load)
        out["failed"] = [r.url for r in failed]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chapters", nargs="*", help="chapters to weigh (default: all)")
    ap.add_argument("--html", default="_build/html", help="the built site")
    ap.add_argument("--json", action="store_true", help="print a JSON object")
    args = ap.parse_args(argv)
    root = Path(args.html)
    unknown = [c for c in args.chapters if c not in CHAPTERS]
    if unknown:
        print(
            f"error: unknown chapter {unknown[0]!r}; one of {', '.join(CHAPTERS)}", file=sys.stderr
        )
        return 2
    if not (root / "index.html").exists() and not any(root.glob("book/*/*.html")):
        print(f"error: no built site in {root}: run `make book` first", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    results = {}
    with browser.serve(root) as base, sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=browser.find_chromium(), args=browser.CHROMIUM_ARGS
        )
        for chapter in args.chapters or list(CHAPTERS):
            if not (root / "book" / f"{chapter}.html").exists():
                results[chapter] = "missing"
                if not args.json:
                    print(f"{chapter:34s} missing from the build", flush=True)
                continue
            context = chromium.new_context(viewport={"width": 1400, "height": 900})
            results[chapter] = r = weigh(context.new_page(), base, chapter)
            context.close()
            phone = chromium.new_context(
                viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
            )
            r["phone_mb"] = weigh(phone.new_page(), base, chapter, step=False)["total_mb"]
            phone.close()
            if not args.json:
                print(
                    f"{chapter:34s} {r['total_mb']:5.2f} MB  (page {r['page_mb']:.2f} MB, "
                    f"{r['requests']} requests; every control stepped {r['stepped_mb']:.2f} MB, "
                    f"{r['frames']} frames; phone {r['phone_mb']:.2f} MB)"
                    + ("" if r["within_budget"] else "  over budget"),
                    flush=True,
                )
        chromium.close()
    if args.json:
        print(json.dumps({"budget_mb": BUDGET_MB, "pages": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
