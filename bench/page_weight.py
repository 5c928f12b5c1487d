"""Page weight of the chapter pages of a built site: the bytes a reader's browser loads.

    .venv/bin/python bench/page_weight.py --html _build/html --json
    .venv/bin/python bench/page_weight.py --html _build/html sign_magnitude/theorem3

Each chapter page is served from localhost and opened in Debian's chromium (Playwright, as
the browser suite does), with an empty cache; once the network is idle, the files it
requested are summed (their sizes on disk): the page itself, its CSS,
JavaScript, fonts and images, and the parts MathJax loads as it typesets. ``--json`` prints
chapter -> {"total_mb", "page_mb", "requests", "outside", "largest"} ("page_mb": the HTML
document alone, where the Explore figure's precomputed frames live; "outside": requests that
would leave the site, which should be 0; "largest": the three largest files). A chapter
whose page is not in the build is reported as missing. The budget is about 6 MB a page;
this is a measurement, reported in the README, not a test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from companion.chapters import CHAPTERS
from companion.site import browser

MB = 1e6


def weigh(page, base: str, root: Path, chapter: str) -> dict:
    """Open the chapter's page and add up the files of the site it requests (sizes on disk:
    what a server sends them as, uncompressed)."""
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    url = f"{base}book/{chapter}.html"
    page.goto(url, wait_until="networkidle")
    page.wait_for_timeout(1000)  # MathJax fetches its fonts while it typesets
    sizes, outside = {}, []
    for u in dict.fromkeys(urls):
        path = urlsplit(u).path
        if not u.startswith(base):
            outside.append(u) if not u.startswith("data:") else None
        elif (root / unquote(path).lstrip("/")).is_file():
            sizes[path] = (root / unquote(path).lstrip("/")).stat().st_size
    top = sorted(sizes.items(), key=lambda kv: -kv[1])[:3]
    return {
        "total_mb": round(sum(sizes.values()) / MB, 2),
        "page_mb": round(sizes.get(urlsplit(url).path, 0) / MB, 2),
        "requests": len(sizes),
        "outside": len(outside),
        "largest": {p.rsplit("/", 1)[-1]: round(n / MB, 2) for p, n in top},
    }


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
            results[chapter] = weigh(context.new_page(), base, root, chapter)
            context.close()
            if not args.json:
                r = results[chapter]
                print(
                    f"{chapter:34s} {r['total_mb']:5.2f} MB  (page {r['page_mb']:.2f} MB, "
                    f"{r['requests']} requests)",
                    flush=True,
                )
        chromium.close()
    if args.json:
        print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
