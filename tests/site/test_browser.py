"""Every page of the built site in headless Chromium, as a reader without a kernel sees it.

Run by ``make site-test`` (see ``conftest.py``). Each page is opened at 1400 px (desktop,
then dark mode) and at 390 px (a phone). A page fails on: a console error or uncaught
exception; a failed request or HTTP error; any request leaving localhost (the site must
render with no CDN; such requests are blocked, never sent); unrendered math or MyST markup;
an empty widget area; a missing figure or one without alt text; a broken link, anchor or
Colab target; text below WCAG AA contrast in dark mode (4.5:1; 3:1 for large text); an
element that is wider than the window, clipped, spilling out of its box or (at 1400 px)
hidden behind a scrollbar, named by its selector; a word or number of a table cell broken
across lines (at 1400 and 390 px; a long identifier in its ``span.long-token`` may break);
an at-scale page (``reader_text.AT_SCALE`` in its name) taller than
``reader_text.HEIGHT_BUDGET_PX`` at 1400 px, measured as drawn; and a kernel-free control
that does not move its figure: every ``[data-param]`` control of a ``.companion-explore``
container is set to another value and its ``<img>`` must change (a control that applies only
at other controls' values, its ``data-when``, is given them first; one that stays disabled
fails), every frame player is stepped and its frame must change; and, at 390 px, a figure
whose smallest text is under ``plotting.MIN_TEXT_PX`` (9) CSS px as drawn, from the text
size each figure image carries (``data-min-font-px``, in its own pixels: the phone layout's
where the page shows that one), or that does not say it.

Deterministic: a page that redirects (``index.html``'s meta refresh) is followed to its
final URL, read from disk beforehand, before anything runs in it; then the test waits for
conditions (the load event, MathJax's startup promise, every widget view rendered, every
image loaded, fonts ready), never for a fixed time.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from companion.plotting import MIN_TEXT_PX
from companion.site import browser, reader_text, table_words

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(os.environ["COMPANION_SITE_HTML"]).resolve()
PAGES = browser.pages(SITE)
DESKTOP = {"viewport": {"width": 1400, "height": 1000}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SETTLE_MS = 60_000  # upper bound for a condition; a healthy page meets each in about a second
MOVE_MS = 5_000  # a kernel-free control swaps a precomputed image: no computation to wait for
MAX_SHOT_PX = 16_000  # Chromium's largest texture; longer pages are cut there

if not (SITE / "index.html").exists():
    raise pytest.UsageError(f"COMPANION_SITE_HTML must be a built site (index.html); got {SITE}")


@pytest.fixture(scope="session")
def site_url():
    with browser.serve(SITE) as url:
        yield url


class Visit:
    """One page in a fresh browser context, with everything the browser reported."""

    def __init__(self, new_context, site_url: str, rel: str, context_args: dict):
        self.problems: list[str] = []
        self.host = urlsplit(site_url).netloc
        context = new_context(**context_args)
        context.route("**/*", self._route)
        self.page = page = context.new_page()
        # every action and navigation may take up to SETTLE_MS (Playwright's default is 30 s:
        # a long page's load or full-page screenshot on a busy machine has taken longer)
        page.set_default_timeout(SETTLE_MS)
        page.set_default_navigation_timeout(SETTLE_MS)
        page.on("console", self._console)
        page.on("pageerror", lambda e: self.problems.append(f"uncaught exception: {e}"))
        page.on("requestfailed", self._failed)
        page.on("response", self._response)
        self.rel, target = rel, browser.redirect_target(SITE, rel)
        if target is None:
            page.goto(site_url + rel, wait_until="load")
        elif not (SITE / target).exists():
            self.problems.append(f"redirect to a missing page: {target}")
            return
        else:
            # index.html's meta refresh: run nothing until the final page has loaded (the
            # old checker evaluated its script in the page being replaced: KeyError 'value')
            page.goto(site_url + rel, wait_until="commit")
            page.wait_for_url(site_url + target, wait_until="load", timeout=SETTLE_MS)
            self.rel = target
        self._settle()

    def _route(self, route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("http", "https", "ws", "wss") and parts.netloc != self.host:
            self.problems.append(f"request leaving localhost (CDN?): {url[:160]}")
            route.abort("blockedbyclient")
        else:
            route.continue_()

    def _console(self, msg):
        if msg.type in ("error", "assert") and "favicon.ico" not in (msg.location or {}).get(
            "url", ""
        ):
            self.problems.append(f"console {msg.type}: {msg.text[:200]}")

    def _failed(self, request):
        if urlsplit(request.url).netloc != self.host or request.url.endswith("favicon.ico"):
            return
        if request.failure == "net::ERR_ABORTED" and request.resource_type == "image":
            return  # the page itself replaced the image (two quick moves): a missing one is a 404
        self.problems.append(f"request failed: {request.failure} {request.url[:160]}")

    def _response(self, response):
        if response.status >= 400 and not response.url.endswith("/favicon.ico"):
            self.problems.append(f"HTTP {response.status}: {response.url[:160]}")

    def _settle(self):
        page = self.page
        if page.evaluate(browser.NEEDS_MATHJAX):
            page.wait_for_function(
                "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
                timeout=SETTLE_MS,
            )
            page.evaluate("() => MathJax.startup.promise.then(() => true)")
        try:
            page.wait_for_function(browser.WIDGETS_AND_IMAGES_READY, timeout=SETTLE_MS)
        except PlaywrightTimeout:
            pass  # the page checks below say which widget or image is missing
        page.evaluate("() => document.fonts.ready.then(() => true)")

    def check_content(self):
        out = self.page.evaluate(browser.PAGE_PROBLEMS)
        self.problems += out["problems"]
        self.problems += browser.check_links(SITE, [self.rel]).get(self.rel, [])
        self.problems += browser.check_launch_links(SITE, self.rel, ROOT)

    def check_overflow(self, *, strict: bool):
        for o in self.page.evaluate(browser.OVERFLOW, strict):
            self.problems.append(f"overflow: {o['what']} by {o['px']} px: {o['selector']}")

    def check_table_words(self):
        """No word or number of a table cell broken across lines (a long identifier, in its
        ``span.long-token``, may break anywhere): ``companion.site.table_words``."""
        found = self.page.evaluate(table_words.BROKEN_WORDS)
        width = self.page.viewport_size["width"]
        self.problems += table_words.broken_word_problems(found, width)

    def check_height(self):
        """An at-scale page must read as a lecture: at most the height budget at 1400 px,
        as drawn (claims cards and dropdowns folded, as a reader first sees them)."""
        if reader_text.AT_SCALE not in self.rel or self.rel.startswith("slides/"):
            return  # a talk deck shows one slide at a time
        height = self.page.evaluate("() => document.documentElement.scrollHeight")
        if height > reader_text.HEIGHT_BUDGET_PX:
            width, budget = self.page.viewport_size["width"], reader_text.HEIGHT_BUDGET_PX
            self.problems.append(
                f"page too long for a lecture: {height:,} px at {width} px (budget {budget:,} px)"
            )

    def screenshot(self, shots, suffix: str):
        name = self.rel.removesuffix(".html").replace("/", "__") + f"-{suffix}.png"
        height = self.page.evaluate("() => document.documentElement.scrollHeight")
        width = self.page.viewport_size["width"]
        clip = {"x": 0, "y": 0, "width": width, "height": min(height, MAX_SHOT_PX)}
        self.page.screenshot(path=shots.file(name), full_page=True, clip=clip)

    def drive_controls(self) -> int:
        """Move every kernel-free control; each must change its figure. Returns how many."""
        page, moved = self.page, 0
        for ctl in page.locator(".companion-explore [data-param]").all():
            name = ctl.get_attribute("data-param")
            ctl.evaluate(SHOW_SLIDE)
            if self._enable(ctl, name):
                moved += self._expect_new_figure(ctl, f"control {name!r}", lambda c=ctl: _move(c))
        for i, player in enumerate(page.locator(".animation").all(), 1):
            step = player.locator('button[onclick*="next_frame"]')
            slider = player.locator('input[type="range"]')
            if not step.count() or not slider.count():
                self.problems.append(f"frame player {i}: no step button or frame slider")
                continue
            if slider.first.evaluate("el => +el.max <= +el.min"):
                self.problems.append(f"frame player {i}: a single frame, nothing to move")
                continue
            moved += self._expect_new_figure(
                player, f"frame player {i}", lambda s=step: s.first.click() or "its next button"
            )
            moved += self._expect_new_figure(
                player, f"frame player {i}", lambda s=slider: _move(s.first)
            )
        return moved

    def _enable(self, ctl, name: str) -> bool:
        """A control that applies only at other controls' values (``data-when``, disabled
        elsewhere) is first given them, as a reader would; a control that stays disabled
        is a problem."""
        when = ctl.get_attribute("data-when")
        if when:
            box = ctl.locator(f"xpath=ancestor::*[{_HAS_CLASS.format('companion-explore')}][1]")
            for other, index in json.loads(when).items():
                box.locator(f'[data-param="{other}"]').evaluate(SET_INDEX, index)
        if ctl.is_disabled():
            self.problems.append(
                f"kernel-free control {name!r}: disabled "
                + (f"even at {when}" if when else "with no data-when that enables it")
            )
            return False
        return True

    def _expect_new_figure(self, element, what: str, move) -> int:
        before = element.evaluate(browser.FIGURE_SRC)
        if before is None:
            self.problems.append(f"kernel-free {what}: no <img> figure in its container")
            return 0
        try:
            how = move()
        except PlaywrightError as e:
            self.problems.append(f"kernel-free {what}: cannot be moved ({e.message[:120]})")
            return 0
        if how is None:
            self.problems.append(f"kernel-free {what}: not a range, select or checkbox")
            return 0
        try:
            self.page.wait_for_function(
                f"([el, before]) => ({browser.FIGURE_SRC})(el) !== before",
                arg=[element.element_handle(), before],
                timeout=MOVE_MS,
            )
        except PlaywrightTimeout:
            self.problems.append(f"kernel-free {what}: {how} does not change the figure")
            return 0
        try:  # the new frame is a file: the figure has moved once it has loaded
            self.page.wait_for_function(
                browser.FIGURE_LOADED, arg=element.element_handle(), timeout=SETTLE_MS
            )
        except PlaywrightTimeout:
            self.problems.append(f"kernel-free {what}: {how} shows a figure that does not load")
            return 0
        return 1

    def check_figure_text(self):
        """Every figure's smallest text, as drawn, at least MIN_TEXT_PX CSS px."""
        self.problems += self.page.evaluate(browser.FIGURE_TEXT, MIN_TEXT_PX)

    def dark_mode(self):
        """Switch to dark mode as a reader whose system asks for it (the theme's default mode
        is "auto" and follows the change) and check the text contrast."""
        page = self.page
        themed = page.evaluate("() => 'theme' in document.documentElement.dataset")
        page.emulate_media(color_scheme="dark")
        if themed:
            page.wait_for_function("() => document.documentElement.dataset.theme === 'dark'")
        low = page.evaluate(browser.LOW_CONTRAST)
        self.problems += [f"dark mode: low contrast {b}" for b in low[:5]]

    def assert_clean(self, record):
        record += dict.fromkeys(self.problems)
        assert not self.problems, f"{self.rel}:\n  " + "\n  ".join(dict.fromkeys(self.problems))


# A talk deck shows one slide at a time: a reader moves a control on the slide that holds it.
_HAS_CLASS = "contains(concat(' ', normalize-space(@class), ' '), ' {} ')"
# a control set to the value at index i (a select's option, a range's step), with the events
# a reader's move dispatches
SET_INDEX = """(el, i) => {
  if (el.tagName === 'SELECT') el.selectedIndex = i; else el.value = String(i);
  for (const type of ['input', 'change']) el.dispatchEvent(new Event(type, {bubbles: true}));
}"""
SHOW_SLIDE = """el => {
  const slide = window.Reveal && el.closest('.slides section');
  if (slide) { const i = Reveal.getIndices(slide); Reveal.slide(i.h, i.v); }
}"""


def _move(ctl) -> str | None:
    """Give a control another value the way a reader does (keyboard or selection), which
    dispatches its ``input`` and ``change`` events; returns what was done, or None."""
    kind = ctl.evaluate("el => el.tagName.toLowerCase() + ':' + (el.type || '')")
    if kind == "input:range":
        key = ctl.evaluate("el => +el.value >= +el.max ? 'Home' : 'End'")
        ctl.press(key)
        return f"pressing {key} on it"
    if kind.startswith("select:"):
        n, i = ctl.evaluate("el => [el.options.length, el.selectedIndex]")
        if n < 2:
            return None
        ctl.select_option(index=(i + 1) % n)
        return f"selecting option {(i + 1) % n + 1} of {n}"
    if kind in ("input:checkbox", "input:radio"):
        ctl.click()
        return "clicking it"
    return None


@pytest.mark.parametrize("rel", PAGES)
def test_desktop_and_dark(new_context, site_url, shots, record, rel):
    visit = Visit(new_context, site_url, rel, DESKTOP)
    visit.check_content()
    visit.check_overflow(strict=True)
    visit.check_table_words()
    visit.check_height()
    visit.screenshot(shots, "1400")
    visit.drive_controls()
    visit.dark_mode()
    visit.screenshot(shots, "1400-dark")
    visit.assert_clean(record)


@pytest.mark.parametrize("rel", PAGES)
def test_phone(new_context, site_url, shots, record, rel):
    visit = Visit(new_context, site_url, rel, PHONE)
    visit.check_overflow(strict=False)
    visit.check_table_words()
    visit.screenshot(shots, "390")
    visit.check_figure_text()  # last: it unfolds the folded boxes
    visit.assert_clean(record)
