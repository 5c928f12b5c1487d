"""What the browser test of the built site needs besides the browser itself.

``make site-test`` runs ``tests/site/test_browser.py`` (pytest-playwright driving Debian's
``chromium``) over every page of ``_build/html``. This module holds the parts that are plain
Python or page-side JavaScript, so that they can be unit-tested without a browser: the page
list and redirects, a quiet localhost server, the on-disk link checks, the screenshot folder
(which never deletes anything it did not write) and the scripts the pages run.
"""

from __future__ import annotations

import contextlib
import functools
import html.parser
import http.server
import json
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

__all__ = [
    "CHROMIUM_ARGS",
    "ShotFolder",
    "check_launch_links",
    "check_links",
    "find_chromium",
    "pages",
    "redirect_target",
    "serve",
]

# Folders of a Sphinx build that hold assets, not pages (assets: the slides' vendored JS).
SKIP_DIRS = ("_static", "_sources", "_images", "_vendor", "assets")

# Launch flags that work in this sandbox and in CI (Playwright adds --headless and a fresh
# temporary profile itself). No network leaves the machine: see the suite's request routing.
CHROMIUM_ARGS = [
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
]


def find_chromium() -> str:
    """The system Chromium (Debian's ``chromium``); Playwright never downloads a browser here."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError(
        "`chromium` not found: `make chromium` installs Debian's package (apt-get install chromium)"
    )


def pages(root: str | Path) -> list[str]:
    """Every HTML page of the built site ``root``, as paths relative to it, sorted."""
    root = Path(root)
    return [
        p.relative_to(root).as_posix()
        for p in sorted(root.rglob("*.html"))
        if p.relative_to(root).parts[0] not in SKIP_DIRS
    ]


_REFRESH = re.compile(
    r"""<meta\s+http-equiv=["']?refresh["']?\s+content=["']\s*\d+\s*;\s*url=([^"']+)["']""", re.I
)


def redirect_target(root: str | Path, page: str) -> str | None:
    """Where ``page``'s ``<meta http-equiv="refresh">`` sends the reader (relative to
    ``root``), or None. Read from disk, so the test knows the final page before it loads."""
    m = _REFRESH.search((Path(root) / page).read_text(encoding="utf-8", errors="replace"))
    if not m:
        return None
    return (Path(page).parent / unquote(m.group(1).strip())).as_posix().removeprefix("./")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the browser cancelled the request (an image replaced before it loaded)


@contextlib.contextmanager
def serve(root: str | Path):
    """Serve ``root`` on an ephemeral localhost port; yields the base URL (ending in /)."""
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(10)


class ShotFolder:
    """A folder for screenshots that never deletes anything it did not write.

    A folder that does not exist is created and marked as the suite's (a manifest file lists
    what the suite wrote there). A marked folder is reused: the files of the previous run named
    in its manifest are removed, nothing else. A folder that exists without the mark (the
    user's, the checkout, results/) is refused with a clear error unless it is empty.
    """

    MANIFEST = ".companion-site-test.json"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        manifest = self.path / self.MANIFEST
        if self.path.exists() and not self.path.is_dir():
            raise FileExistsError(f"screenshot folder `{self.path}` is a file")
        if self.path.is_dir() and not manifest.exists() and any(self.path.iterdir()):
            raise FileExistsError(
                f"screenshot folder `{self.path}` exists and was not made by the site test: "
                "choose a new folder (nothing was deleted)"
            )
        if manifest.exists():
            for name in json.loads(manifest.read_text()).get("files", []):
                old = self.path / name
                if old.is_file() and self.path.resolve() in old.resolve().parents:
                    old.unlink()
        self.path.mkdir(parents=True, exist_ok=True)
        self.files: list[str] = []
        self._save()

    def file(self, name: str) -> Path:
        """The path to write ``name`` to (recorded in the manifest first)."""
        target = self.path / name
        if self.path.resolve() not in target.resolve().parents:
            raise ValueError(f"`name` must stay inside the screenshot folder; got {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        self.files.append(name)
        self._save()
        return target

    def _save(self):
        (self.path / self.MANIFEST).write_text(json.dumps({"files": self.files}, indent=1))


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


def check_links(root: str | Path, page_list=None) -> dict[str, list[str]]:
    """Broken internal links and anchors, per page, checked on disk (no server needed)."""
    root = Path(root)
    page_list = page_list or pages(root)
    parsed, problems = {}, {}

    def parse(path: Path):
        if path not in parsed:
            p = _LinkParser()
            p.feed(path.read_text(encoding="utf-8", errors="replace"))
            parsed[path] = p
        return parsed[path]

    for rel in page_list:
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
    """A page's Colab launch link must open an ``.ipynb`` that exists in ``repo``."""
    text = (Path(root) / page).read_text(encoding="utf-8", errors="replace")
    bad = []
    for url, path in _LAUNCH.findall(text):
        if not path.endswith(".ipynb"):
            bad.append(f"Colab link does not open a notebook: {url}")
        elif not (Path(repo) / path).exists():
            bad.append(f"Colab link to a notebook missing from the repository: {path}")
    return bad


# ---------------------------------------------------------------------------------------
# Page-side scripts (evaluated by Playwright). Each returns plain JSON.

# True once every saved widget view has rendered into a non-empty area (html-manager renders
# them after require.js loads, some time after the load event), every font icon is drawn, every
# widget label's math is typeset and every image has loaded.
WIDGETS_AND_IMAGES_READY = r"""
() => {
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const rendered = views.every(s => {
    const area = s.previousElementSibling;
    return area && area.classList.contains('widget-subarea') && area.children.length > 0;
  });
  // pydata-sphinx-theme's Font Awesome replaces <i class="fa-..."> icons (the frame players'
  // buttons included) by SVGs asynchronously; the layout is final once none is left
  const icons = window.FontAwesome ? document.querySelectorAll('i[class*="fa-"]').length : 0;
  // widget labels with TeX are typeset after the widgets render (book/_assets/companion.js)
  const rawLabels = [...document.querySelectorAll('.widget-label, .widget-label-basic')]
      .filter(l => /\$|\\\(/.test(l.textContent) && !l.querySelector('mjx-container')).length;
  return rendered && icons === 0 && rawLabels === 0 && [...document.images].every(i => i.complete);
}
"""  # noqa: E501

NEEDS_MATHJAX = r"""
() => !!document.querySelector('span.math, div.math')
      && !!document.querySelector('script[src*="mathjax"]')
"""

# Content problems of a settled page (light mode, any width).
PAGE_PROBLEMS = r"""
() => {
  const P = [], notes = {};
  const main = document.querySelector('main, article, .bd-article') || document.body;
  const skip = 'pre, code, script, style, textarea, .highlight, mjx-container, mjx-assistive-mml, .MathJax';
  // math: every Sphinx math node typeset; no raw delimiters or MyST markup left in the text
  const maths = [...document.querySelectorAll('span.math, div.math')];
  const raw = maths.filter(m => !m.querySelector('mjx-container'));
  notes.math = maths.length;
  if (raw.length) P.push(`unrendered math: ${raw.length} of ${maths.length} math elements, e.g. ${raw[0].textContent.slice(0, 60)}`);
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement && n.parentElement.closest(skip) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  const pats = [[/\\\(|\\\[|\$\$/, 'raw TeX delimiter'], [/\{(cite|prf:ref|eq|doc|ref|math|numref)\}`/, 'unparsed MyST role'],
                [/```\{|:::\{/, 'unparsed MyST directive']];
  for (let n; (n = walker.nextNode());) {
    for (const [re, what] of pats) if (re.test(n.textContent)) {
      P.push(`unrendered math/markup (${what}): "${n.textContent.trim().slice(0, 80)}"`); break; }
  }
  // widgets: each saved view rendered into a non-empty area; no empty Output area
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  notes.widgets = views.length;
  views.forEach((s, i) => {
    const area = s.previousElementSibling;
    const ok = area && area.classList.contains('widget-subarea') && area.children.length &&
               (area.offsetHeight > 10 || area.getClientRects().length === 0);
    if (!ok) P.push(`empty widget area: widget view ${i + 1} of ${views.length} did not render`);
  });
  document.querySelectorAll('.widget-output').forEach((o, i) => {
    if (!o.querySelector('img, svg, canvas, .jp-OutputArea-child')) P.push(`empty widget area: Output widget ${i + 1} shows nothing`);
  });
  // figures: images load and have alt text (a player's frames are covered by its caption)
  const imgs = [...main.querySelectorAll('img')];
  notes.images = imgs.length;
  let noAlt = 0;
  imgs.forEach(img => {
    if (!img.complete || img.naturalWidth === 0) P.push(`missing figure: image did not load: ${(img.getAttribute('src') || '').slice(0, 70)}`);
    const alt = (img.getAttribute('alt') || '').trim();
    const captioned = img.closest('.companion-player, .companion-explore');
    if ((!alt || /\.(png|svg|jpe?g|gif)$/i.test(alt)) && !(captioned && captioned.textContent.trim().length > 10)) noAlt++;
  });
  if (noAlt) P.push(`figure without alt text: ${noAlt} of ${imgs.length} images`);
  document.querySelectorAll('.cell_output pre, .output pre').forEach(pre => {
    if (/<Figure size [^>]* with \d+ Axes>/.test(pre.textContent)) P.push(`missing figure: a figure printed as text: ${pre.textContent.trim().slice(0, 60)}`);
  });
  // every page with a live widget also has a kernel-free control
  const kernelFree = document.querySelectorAll('.animation, .companion-explore [data-param]').length;
  if (views.length && !kernelFree) P.push('no kernel-free control: the page has live widgets only');
  notes.players = document.querySelectorAll('.animation').length;
  notes.explore_controls = document.querySelectorAll('.companion-explore [data-param]').length;
  return {problems: P, notes};
}
"""  # noqa: E501

# Elements wider than they may be, named by a selector (the outermost offender of a nest).
# Everywhere: nothing may make the page scroll sideways, be clipped (overflow hidden) or spill
# out of its box, measured by what is drawn (MathJax's hidden assistive copy does not count).
# At desktop widths (strict) no content may hide behind a horizontal scrollbar either; on a
# phone a scroll box is the remedy for display math and code, not for tables or prose.
OVERFLOW = r"""
(strict) => {
  const vw = document.documentElement.clientWidth;
  const out = [];
  const sel = el => {
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && parts.length < 4; e = e.parentElement) {
      let s = e.tagName.toLowerCase();
      if (e.id) { parts.unshift(s + '#' + CSS.escape(e.id)); break; }
      const cls = [...e.classList].filter(c => !/^(docutils|notranslate|nohighlight)$/.test(c)).slice(0, 2);
      if (cls.length) s += '.' + cls.map(c => CSS.escape(c)).join('.');
      parts.unshift(s);
    }
    return parts.join(' > ');
  };
  // not drawn, or drawn outside their box by design: off-canvas drawers, visually-hidden
  // text, MathJax's assistive copy, the slider library's handle track
  const IGNORED = 'mjx-assistive-mml, .visually-hidden, .sr-only, .bd-sidebar-primary, .bd-sidebar-secondary, .search-button__wrapper, .noUi-target, script, style, head, dialog:not([open])';
  const visible = el => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden';
  // how far the drawn descendants reach past the element's right edge (what a nested scroll
  // box holds is drawn inside it: the box itself is measured, not its scrolled content)
  const inBox = (d, el) => { for (let e = d.parentElement; e && e !== el; e = e.parentElement) {
      if (getComputedStyle(e).overflowX !== 'visible') return true; } return false; };
  const beyond = el => {
    const edge = el.getBoundingClientRect().right - parseFloat(getComputedStyle(el).borderRightWidth);
    let far = -Infinity;
    for (const d of el.querySelectorAll('*')) {
      if (d.closest(IGNORED) || !visible(d) || inBox(d, el)) continue;
      const r = d.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) far = Math.max(far, r.right);
    }
    return far - edge;
  };
  const scrollOk = el => strict ? false :
      !!el.querySelector(':scope > pre, :scope > div.highlight, :scope > mjx-container') ||
      el.matches('pre, div.highlight, div.math, mjx-container, div.math mjx-container') ||
      !!el.closest('div.highlight');
  const scroller = el => { for (let e = el.parentElement; e; e = e.parentElement) {
      if (getComputedStyle(e).overflowX !== 'visible') return e; } return null; };
  const seen = [];
  const report = (what, el, px) => {
    if (seen.some(o => o.contains(el))) return;   // the outermost offender says it
    seen.push(el); out.push({what, selector: sel(el), px: Math.round(px)});
  };
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest(IGNORED) || !visible(el)) continue;
    const cs = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    if (r.right > vw + 1 && r.width > 0 && cs.position !== 'fixed') {
      const s = scroller(el);
      if (!s || s === document.documentElement || s === document.body) report('wider than the window', el, r.right - vw);
    }
    if (el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1 || el.closest('mjx-container')) continue;
    const ox = cs.overflowX;
    if (ox === 'visible' || ox === 'hidden' || ox === 'clip') {
      if (cs.textOverflow === 'ellipsis') continue;
      const px = beyond(el);
      if (px > 1) report(ox === 'visible' ? 'spills out of its box' : 'clipped', el, px);
    } else if (!scrollOk(el)) {
      report('hidden behind a horizontal scrollbar', el, el.scrollWidth - el.clientWidth);
    }
  }
  return out;
}
"""  # noqa: E501

# Visible text below WCAG AA contrast against its nearest opaque background: 4.5:1, or 3:1
# for large text (24 px, or 18.66 px bold). Prose, tables, output cells, the Explore
# widgets (labels, values, readouts, notes, selects), the claims boxes and their badges.
LOW_CONTRAST = r"""
() => {
  const lum = c => { const m = c.match(/[\d.]+/g); if (!m) return null;
    const [r, g, b] = m.slice(0, 3).map(v => { v = +v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bg = el => { for (; el; el = el.parentElement) { const c = getComputedStyle(el).backgroundColor;
      const m = c.match(/[\d.]+/g); if (m && (m.length < 4 || +m[3] > 0.5)) return c; } return 'rgb(255,255,255)'; };
  const bad = [];
  const sel = 'main p, main li, main td, main th, main h1, main h2, main h3, main dt, main dd, main label, main .admonition-title, main .widget-label, main .widget-readout, main .widget-label-basic, main .companion-player p, main .companion-player code, main .companion-explore, main .companion-explore-label, main .companion-explore-value, main .companion-explore select, main figcaption, main .caption-text, main .cell_output code, main .cell_output pre, main .cell_output summary, main .claims-box summary, main .claim-badge, main .claim-card-id';
  document.querySelectorAll(sel).forEach(el => {
    if (!el.offsetHeight || !el.textContent.trim()) return;
    const st = getComputedStyle(el), px = parseFloat(st.fontSize), weight = parseInt(st.fontWeight) || 400;
    const need = (px >= 24 || (px >= 18.66 && weight >= 700)) ? 3 : 4.5;
    const fg = lum(st.color), b = lum(bg(el));
    if (fg === null || b === null) return;
    const ratio = (Math.max(fg, b) + 0.05) / (Math.min(fg, b) + 0.05);
    if (ratio < need) bad.push(`${el.tagName.toLowerCase()}.${el.className || ''} "${el.textContent.trim().slice(0, 40)}" ratio ${ratio.toFixed(2)} (AA: ${need})`);
  });
  return bad;
}
"""  # noqa: E501

# The figure a kernel-free control moves: for a [data-param] control, the <img> inside its
# .companion-explore container (and its phone layout's <source>); for a matplotlib frame
# player, the player's frame.
FIGURE_SRC = r"""
el => {
  const box = el.closest('.animation, .companion-explore');  // the nearest of the two
  const img = box && box.querySelector('img');
  const phone = box && box.querySelector('picture source');
  return img ? img.getAttribute('src') + (phone ? ' ' + phone.getAttribute('srcset') : '') : null;
}
"""  # noqa: E501

# Whether that figure has loaded what it now shows (a frame is a file on the site).
FIGURE_LOADED = r"""
el => {
  const box = el.closest('.animation, .companion-explore');
  const img = box && box.querySelector('img');
  return !!img && img.complete && img.naturalWidth > 0;
}
"""

# Every figure's smallest text as the reader sees it, in CSS px. A figure image (an Explore
# frame, a static figure, any image of an output) says how large its smallest text is in its
# own pixels (data-min-font-px, written when it was rendered: on the <img>, or on the
# <source> of its <picture> that the browser chose, the phone layout); shown at its drawn
# width that is px * width / naturalWidth, and must be at least `min`. Folded boxes are opened
# first (a figure in one is read when it is unfolded).
FIGURE_TEXT = r"""
(min) => {
  document.querySelectorAll('main details:not([open])').forEach(d => { d.open = true; });
  const out = [], vw = document.documentElement.clientWidth;
  const sel = 'main .companion-explore img, main figure.companion-figure img, main .cell_output img';
  document.querySelectorAll(sel).forEach(img => {
    if (!img.getClientRects().length || !img.naturalWidth) return;  // not drawn: other checks
    let carrier = img;
    const pic = img.parentElement && img.parentElement.tagName === 'PICTURE' ? img.parentElement : null;
    for (const s of pic ? pic.querySelectorAll('source') : []) {
      const src = s.getAttribute('srcset');
      if (src && new URL(src, document.baseURI).href === img.currentSrc) { carrier = s; break; }
    }
    const name = (img.getAttribute('alt') || img.currentSrc || '').slice(0, 70);
    const px = parseFloat(carrier.getAttribute('data-min-font-px'));
    if (!(px > 0)) { out.push(`figure without its text size (data-min-font-px): ${name}`); return; }
    const shown = px * img.getBoundingClientRect().width / img.naturalWidth;
    if (shown < min - 1e-6) out.push(`figure text ${shown.toFixed(1)} px at ${vw} px (under ${min} px): ${name}`);
  });
  return out;
}
"""  # noqa: E501
