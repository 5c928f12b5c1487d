"""Browser test of the built site: every page in headless Chromium, no CDN, nothing broken.

``python -m companion.testing.site_check`` (``make site-test``) serves ``_build/html`` on
localhost, opens every page in headless Debian ``chromium`` through the DevTools protocol
(tornado's websocket client, already installed with ipykernel) and fails on

* a console error, an uncaught exception, a failed or 4xx/5xx request;
* any request that leaves localhost (the site must render with no CDN);
* unrendered math: a ``.math`` element MathJax did not typeset, or raw ``\\(``, ``\\[``,
  ``$$`` or unparsed MyST (``{cite}``, ```` ```{ ````) left in the text;
* an empty widget area: a saved widget view that did not render, or an empty Output area;
* a missing figure: a broken image, or a figure printed as ``<Figure size ... with N Axes>``;
* a figure without alt text (frame-player frames are covered by the player's caption);
* a broken internal link or anchor (checked on disk for every ``href`` of every page);
* a Colab launch link that does not open an ``.ipynb`` present in the repository;
* no kernel-free control: a page with a live widget but no frame player, or a frame player
  whose "last frame" button and slider do not change the picture (they are clicked here);
* in dark mode (``--dark``, on by default for chapters): text with contrast below 3:1.

It saves a full-page screenshot per page under ``_build/screenshots/`` (dark-mode ones
under ``_build/screenshots/dark/``) and writes ``_build/screenshots/report.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import html.parser
import http.server
import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = ["check_site", "check_links", "check_launch_links", "main"]

SKIP_DIRS = (
    "_static",
    "_sources",
    "_images",
    "_vendor",
    "assets",
)  # assets: the slides' vendored JS
MAX_SHOT_HEIGHT = 16000

# Run in the page once it has settled; returns a list of problems (strings) and a few counts.
_PAGE_JS = r"""
(() => {
  const P = [], notes = {};
  const main = document.querySelector('main, article, .bd-article') || document.body;
  const skip = 'pre, code, script, style, textarea, .highlight, mjx-container, mjx-assistive-mml, .MathJax';
  // 1. math: every Sphinx math node typeset, no raw delimiters or MyST markup left in the text
  const maths = [...document.querySelectorAll('span.math, div.math')];
  const raw = maths.filter(m => !m.querySelector('mjx-container'));
  notes.math = maths.length;
  if (raw.length) P.push(`unrendered math: ${raw.length} of ${maths.length} math elements not typeset, e.g. ${raw[0].textContent.slice(0, 60)}`);
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement && n.parentElement.closest(skip) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const pats = [[/\\\(|\\\[|\$\$/, 'raw TeX delimiter'], [/\{(cite|prf:ref|eq|doc|ref|math)\}`/, 'unparsed MyST role'],
                [/```\{|:::\{/, 'unparsed MyST directive']];
  for (let n; (n = walker.nextNode());) {
    for (const [re, what] of pats) if (re.test(n.textContent)) {
      P.push(`unrendered math/markup (${what}): "${n.textContent.trim().slice(0, 80)}"`); break; }
  }
  // 2. widgets: each saved view rendered into a non-empty area; no empty Output area
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  notes.widgets = views.length;
  views.forEach((s, i) => {
    const area = s.previousElementSibling;
    // a widget on a slide that is not shown has no layout box: then only ask for content
    const ok = area && area.classList.contains('widget-subarea') && area.children.length &&
               (area.offsetHeight > 10 || area.getClientRects().length === 0);
    if (!ok) P.push(`empty widget area: widget view ${i + 1} of ${views.length} did not render`);
  });
  document.querySelectorAll('.widget-output').forEach((o, i) => {
    if (!o.querySelector('img, svg, canvas, .jp-OutputArea-child')) P.push(`empty widget area: Output widget ${i + 1} shows nothing`);
  });
  // 3. figures: images load, have alt text; no figure printed as text
  const imgs = [...main.querySelectorAll('img')];
  notes.images = imgs.length;
  let noAlt = 0, playerFrames = 0;
  imgs.forEach(img => {
    const src = (img.getAttribute('src') || '').slice(0, 70);
    if (!img.complete || img.naturalWidth === 0) P.push(`missing figure: image did not load: ${src}`);
    const alt = (img.getAttribute('alt') || '').trim();
    const player = img.closest('.companion-player, .animation');
    if (!alt || /\.(png|svg|jpe?g|gif)$/i.test(alt)) {
      if (player && (player.closest('.companion-player') || player).textContent.trim().length > 10) playerFrames++;
      else noAlt++;
    }
  });
  notes.player_frames_captioned = playerFrames;
  if (noAlt) P.push(`figure without alt text: ${noAlt} of ${imgs.length} images`);
  document.querySelectorAll('.cell_output pre, .output pre').forEach(pre => {
    if (/<Figure size [^>]* with \d+ Axes>/.test(pre.textContent)) P.push(`missing figure: a figure was printed as text: ${pre.textContent.trim().slice(0, 60)}`);
  });
  // 4a. layout: no output makes the page wider than the window (readers would scroll sideways)
  const over = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  if (over > 2) P.push(`horizontal overflow: the page is ${over}px wider than the window`);
  // 4. kernel-free control: every page with a live widget also has a frame player, and
  //    moving the player (its "last frame" button and its slider) changes the picture
  const players = [...document.querySelectorAll('.companion-player, .animation')]
      .filter(p => !p.parentElement.closest('.companion-player, .animation'));
  if (views.length && !players.length) P.push('no kernel-free control: the page has widgets but no frame player');
  players.forEach((pl, i) => {
    const img = pl.querySelector('img'), last = pl.querySelector('button[onclick*="last_frame"]');
    const range = pl.querySelector('input[type="range"]');
    if (!img || !last || !range) { P.push(`kernel-free control ${i + 1}: player without image, buttons or slider`); return; }
    const first = img.src;
    last.click();
    const moved = img.src !== first;
    range.value = range.min; range.dispatchEvent(new Event('input')); range.dispatchEvent(new Event('change'));
    if (!moved || img.src !== first) P.push(`kernel-free control ${i + 1}: moving the frame player does not change the figure`);
  });
  notes.theorems = document.querySelectorAll('.proof, [class*="theorem"]').length;
  notes.exercises = document.querySelectorAll('.exercise').length;
  notes.players = players.length;
  return {problems: P, notes};
})()
"""

# Contrast of visible text against its nearest opaque background (WCAG relative luminance).
_CONTRAST_JS = r"""
(() => {
  const lum = c => { const m = c.match(/[\d.]+/g); if (!m) return null;
    const [r, g, b] = m.slice(0, 3).map(v => { v = +v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bg = el => { for (; el; el = el.parentElement) { const c = getComputedStyle(el).backgroundColor;
      const m = c.match(/[\d.]+/g); if (m && (m.length < 4 || +m[3] > 0.5)) return c; } return 'rgb(255,255,255)'; };
  const bad = [];
  const sel = 'main p, main li, main td, main th, main h1, main h2, main h3, main .admonition-title, main .widget-label, main .widget-readout, main .widget-label-basic, main .companion-player p, main .companion-player code, main figcaption, main .caption-text, main .cell_output code';
  document.querySelectorAll(sel).forEach(el => {
    if (!el.offsetHeight || !el.textContent.trim()) return;
    const fg = lum(getComputedStyle(el).color), b = lum(bg(el));
    if (fg === null || b === null) return;
    const ratio = (Math.max(fg, b) + 0.05) / (Math.min(fg, b) + 0.05);
    if (ratio < 3) bad.push(`${el.tagName.toLowerCase()}.${el.className || ''} "${el.textContent.trim().slice(0, 40)}" ratio ${ratio.toFixed(2)}`);
  });
  return bad;
})()
"""

_READY_JS = r"""
(async () => {
  const t0 = performance.now();
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  while (document.readyState !== 'complete' && performance.now() - t0 < %(ms)d) await sleep(50);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    try { await Promise.race([MathJax.startup.promise, sleep(%(ms)d)]); } catch (e) {}
  } else if (document.querySelector('span.math, div.math') && document.querySelector('script[src*="mathjax"]')) {
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise) && performance.now() - t0 < %(ms)d) await sleep(100);
    if (window.MathJax && MathJax.startup) await Promise.race([MathJax.startup.promise, sleep(%(ms)d)]);
  }
  const views = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  while (views && document.querySelectorAll('.widget-subarea').length < views && performance.now() - t0 < %(ms)d) await sleep(100);
  if (views) await sleep(300);   // let the Output widgets attach their images
  const imgs = [...document.images].filter(i => !i.complete);
  await Promise.race([Promise.all(imgs.map(i => new Promise(r => { i.onload = i.onerror = r; }))), sleep(3000)]);
  return Math.round(performance.now() - t0);
})()
"""


@dataclass
class PageResult:
    page: str
    seconds: float
    problems: list = field(default_factory=list)
    notes: dict = field(default_factory=dict)
    screenshot: str = ""


class _CDP:
    """The smallest DevTools-protocol client: one browser websocket, flat sessions."""

    def __init__(self, conn):
        self.conn, self.next_id, self.pending, self.events = conn, 0, {}, []
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self):
        while True:
            msg = await self.conn.read_message()
            if msg is None:
                return
            data = json.loads(msg)
            if "id" in data and data["id"] in self.pending:
                self.pending.pop(data["id"]).set_result(data)
            elif "method" in data:
                self.events.append(data)

    async def wait_event(self, method, timeout):
        """Wait until ``method`` was received (since the events were last cleared)."""
        t0 = time.perf_counter()
        while not any(e["method"] == method for e in self.events):
            if time.perf_counter() - t0 > timeout:
                raise TimeoutError(f"no {method} within {timeout} s")
            await asyncio.sleep(0.05)

    async def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        fut = asyncio.get_running_loop().create_future()
        self.pending[self.next_id] = fut
        await self.conn.write_message(json.dumps(msg))
        data = await asyncio.wait_for(fut, timeout)
        if "error" in data:
            raise RuntimeError(f"{method}: {data['error']}")
        return data.get("result", {})


def _serve(root: Path):
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError(
        "`chromium` not found: install it with `apt-get install -y chromium` "
        "(the Makefile's site-test target does this when it is absent)"
    )


def _start_browser(profile: str):
    cmd = [
        _find_chromium(),
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        "--mute-audio",
        f"--user-data-dir={profile}",
        "--remote-debugging-port=0",
        "about:blank",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while time.time() - t0 < 60:
        line = proc.stderr.readline()
        m = re.search(r"DevTools listening on (ws://\S+)", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep draining
            return proc, m.group(1)
        if proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("chromium did not start (no 'DevTools listening' line within 60 s)")


def _event_problems(events, host) -> list[str]:
    out = []
    for ev in events:
        m, p = ev["method"], ev.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            text = " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", [])
            )
            out.append(f"console error: {text[:200]}")
        elif m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            text = d.get("exception", {}).get("description") or d.get("text", "")
            out.append(f"uncaught exception: {text.splitlines()[0][:200] if text else d}")
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            if e.get("url", "").endswith("/favicon.ico"):  # the browser asks for it by itself
                continue
            out.append(
                f"console error ({e.get('source')}): {e.get('text', '')[:160]} {e.get('url', '')[:100]}"
            )
        elif m == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            parts = urlsplit(url)
            if parts.scheme in ("http", "https", "ws", "wss") and parts.netloc != host:
                out.append(f"external request (CDN?): {url[:160]}")
        elif m == "Network.responseReceived":
            r = p.get("response", {})
            if r.get("status", 200) >= 400 and not r.get("url", "").endswith("/favicon.ico"):
                out.append(f"HTTP {r['status']}: {r.get('url', '')[:160]}")
        elif m == "Network.loadingFailed" and not p.get("canceled"):
            out.append(f"request failed: {p.get('errorText')} (request {p.get('requestId')})")
    return list(dict.fromkeys(out))


async def _check_pages(
    root: Path, pages, shots: Path, *, timeout: float, dark: bool, width: int, repo: Path
):
    from tornado.websocket import websocket_connect

    httpd = _serve(root)
    host = f"127.0.0.1:{httpd.server_address[1]}"
    profile = tempfile.mkdtemp(prefix="companion-chromium-")
    proc, ws_url = _start_browser(profile)
    results = []
    try:
        conn = await websocket_connect(ws_url, max_message_size=512 * 2**20)
        cdp = _CDP(conn)
        target = (await cdp.send("Target.createTarget", {"url": "about:blank"}))["targetId"]
        sid = (await cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True}))[
            "sessionId"
        ]
        for dom in ("Page", "Runtime", "Log", "Network"):
            await cdp.send(f"{dom}.enable", session=sid)
        await cdp.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": 1000, "deviceScaleFactor": 1, "mobile": False},
            session=sid,
        )
        for rel in pages:
            t0 = time.perf_counter()
            res = PageResult(page=rel, seconds=0.0)
            cdp.events.clear()
            url = f"http://{host}/{rel}"
            await cdp.send("Page.navigate", {"url": url}, session=sid)
            await cdp.wait_event("Page.loadEventFired", timeout)
            ready = await cdp.send(
                "Runtime.evaluate",
                {
                    "expression": _READY_JS % {"ms": int(timeout * 1000)},
                    "awaitPromise": True,
                    "returnByValue": True,
                },
                session=sid,
                timeout=timeout * 3 + 10,
            )
            out = (
                await cdp.send(
                    "Runtime.evaluate", {"expression": _PAGE_JS, "returnByValue": True}, session=sid
                )
            )["result"]["value"]
            res.problems += out["problems"]
            res.notes = out["notes"] | {"settle_ms": ready.get("result", {}).get("value")}
            res.screenshot = str(
                await _screenshot(cdp, sid, shots / (rel.replace("/", "__")[:-5] + ".png"), width)
            )
            if dark:
                await cdp.send(
                    "Runtime.evaluate",
                    {
                        "expression": "localStorage.setItem('theme','dark'); localStorage.setItem('mode','dark');"
                        "document.documentElement.dataset.theme='dark'; document.documentElement.dataset.mode='dark';"
                        "new Promise(r => setTimeout(r, 300))",
                        "awaitPromise": True,
                    },
                    session=sid,
                )
                bad = (
                    await cdp.send(
                        "Runtime.evaluate",
                        {"expression": _CONTRAST_JS, "returnByValue": True},
                        session=sid,
                    )
                )["result"]["value"]
                res.problems += [f"dark mode: low contrast {b}" for b in bad[:5]]
                await _screenshot(
                    cdp, sid, shots / "dark" / (rel.replace("/", "__")[:-5] + ".png"), width
                )
                await cdp.send(
                    "Runtime.evaluate",
                    {
                        "expression": "localStorage.setItem('theme','light'); localStorage.setItem('mode','light');"
                    },
                    session=sid,
                )
            res.problems = _event_problems(cdp.events, host) + res.problems
            res.problems += check_links(root, [rel]).get(rel, [])
            res.problems += check_launch_links(root, rel, repo)
            res.seconds = round(time.perf_counter() - t0, 2)
            results.append(res)
            status = "ok" if not res.problems else f"{len(res.problems)} problem(s)"
            print(f"  {rel:<48} {res.seconds:5.1f} s  {status}", flush=True)
            for p in res.problems:
                print(f"      - {p}", flush=True)
        cdp.reader.cancel()
        conn.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        httpd.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
    return results


async def _screenshot(cdp, sid, path: Path, width: int) -> Path:
    metrics = await cdp.send("Page.getLayoutMetrics", session=sid)
    height = int(
        min(metrics.get("cssContentSize", metrics.get("contentSize"))["height"], MAX_SHOT_HEIGHT)
    )
    shot = await cdp.send(
        "Page.captureScreenshot",
        {
            "format": "png",
            "captureBeyondViewport": True,
            "clip": {"x": 0, "y": 0, "width": width, "height": max(height, 200), "scale": 1},
        },
        session=sid,
        timeout=120,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


class _LinkParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"])
        for key in ("href", "src") if tag in ("a", "link", "script", "img", "iframe") else ():
            if a.get(key):
                self.links.append((tag, a[key]))


def check_links(root: str | Path, pages=None) -> dict[str, list[str]]:
    """Broken internal links and anchors, per page, checked on disk (no server needed)."""
    root = Path(root)
    pages = pages or _pages(root)
    parsed, problems = {}, {}

    def parse(path: Path):
        if path not in parsed:
            p = _LinkParser()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = p
        return parsed[path]

    for rel in pages:
        page = root / rel
        bad = []
        for tag, link in parse(page).links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if parts.path.endswith("/"):
                target = target / "index.html"
            if not target.exists():
                bad.append(f"broken link: <{tag}> {link}")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and parts.fragment not in parse(target).ids
            ):
                bad.append(f"broken anchor: {link}")
        if bad:
            problems[rel] = sorted(set(bad))
    return problems


_LAUNCH = re.compile(
    r'href="(https://colab\.research\.google\.com/github/[^/]+/[^/]+/blob/[^/]+/([^"]+))"'
)


def check_launch_links(root: str | Path, page: str, repo: str | Path = ".") -> list[str]:
    """A page's Colab launch link must open a committed-style ``.ipynb`` that exists in ``repo``."""
    text = (Path(root) / page).read_text(encoding="utf-8", errors="replace")
    bad = []
    for url, path in _LAUNCH.findall(text):
        if not path.endswith(".ipynb"):
            bad.append(f"Colab link does not open a notebook: {url}")
        elif not (Path(repo) / path).exists():
            bad.append(f"Colab link to a notebook missing from the repository: {path}")
    return bad


def _pages(root: Path, patterns=None) -> list[str]:
    out = []
    for p in sorted(root.rglob("*.html")):
        rel = p.relative_to(root).as_posix()
        if rel.split("/")[0] in SKIP_DIRS:
            continue
        if patterns and not any(Path(rel).match(pat) or pat in rel for pat in patterns):
            continue
        out.append(rel)
    return out


def check_site(
    html_dir="_build/html",
    shots="_build/screenshots",
    *,
    pages=None,
    timeout=20.0,
    dark=True,
    width=1280,
    repo=".",
) -> list[PageResult]:
    """Open every page of ``html_dir``; return one :class:`PageResult` per page."""
    root = Path(html_dir).resolve()
    if not (root / "index.html").exists():
        raise FileNotFoundError(f"`html_dir` must hold a built site (index.html); got {root}")
    shots = Path(shots)
    shutil.rmtree(shots, ignore_errors=True)
    pages = _pages(root, pages)
    repo = Path(repo).resolve()
    return asyncio.run(
        _check_pages(root, pages, shots, timeout=timeout, dark=dark, width=width, repo=repo)
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--html", default="_build/html", help="the built site")
    p.add_argument("--out", default="_build/screenshots", help="screenshots and report.json")
    p.add_argument("--pages", nargs="*", help="only pages matching these globs/substrings")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds for a page to settle")
    p.add_argument("--no-dark", action="store_true", help="skip the dark-mode pass")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    print(f"site check: {args.html} in headless {_find_chromium()}", flush=True)
    results = check_site(
        args.html, args.out, pages=args.pages, timeout=args.timeout, dark=not args.no_dark
    )
    total = time.perf_counter() - t0
    failed = [r for r in results if r.problems]
    report = {
        "pages": [r.__dict__ for r in results],
        "seconds": round(total, 1),
        "seconds_per_page": round(sum(r.seconds for r in results) / max(len(results), 1), 2),
    }
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "report.json").write_text(json.dumps(report, indent=1))
    print(
        f"site check: {len(results)} pages, {len(failed)} with problems, {total:.1f} s "
        f"({report['seconds_per_page']} s/page in the browser); screenshots in {args.out}/"
    )
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
