"""A figure's download links in a real browser: the page carries the PNG once and the SVG
gzipped (:func:`companion.plotting.figure_html`), so the links must rebuild the files on
click: the PNG byte for byte, the SVG unpacked to the figure matplotlib wrote."""

from __future__ import annotations

import base64
import io
import shutil

import pytest

from companion.site import browser

pytestmark = pytest.mark.skipif(
    not (shutil.which("chromium") or shutil.which("chromium-browser")),
    reason="needs Debian's chromium (`make chromium`; make site-test installs it)",
)


def _figure_page(tmp_path):
    from matplotlib.figure import Figure

    from companion.plotting import figure_html

    fig = Figure(figsize=(3, 2))
    fig.subplots().plot([0, 1], [1, 0])
    html = figure_html(fig, "a line", name="demo")
    (tmp_path / "index.html").write_text(f"<!DOCTYPE html><html><body>{html}</body></html>")
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", facecolor="white")
    return html, buf.getvalue()


def _download(page, name: str) -> bytes:
    with page.expect_download() as info:
        page.click(f"a[download='{name}']")
    return open(info.value.path(), "rb").read()


def test_figure_downloads_rebuild_the_png_and_the_svg(tmp_path):
    from playwright.sync_api import sync_playwright

    html, svg = _figure_page(tmp_path)
    # the desktop image (the <img>; its phone layout is the <source> before it)
    png = base64.b64decode(html.split('<img src="data:image/png;base64,')[1].split('"')[0])
    with browser.serve(tmp_path) as base, sync_playwright() as pw:
        chromium = pw.chromium.launch(
            executable_path=browser.find_chromium(), args=browser.CHROMIUM_ARGS
        )
        page = chromium.new_context(accept_downloads=True).new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "index.html")
        got_png, got_svg = _download(page, "demo.png"), _download(page, "demo.svg")
        chromium.close()
    assert not errors
    assert got_png == png and got_png[:4] == b"\x89PNG"
    # matplotlib stamps each SVG with its own ids and date: compare the drawing's size
    assert got_svg.startswith(b"<?xml") and b"</svg>" in got_svg
    assert abs(len(got_svg) - len(svg)) < 0.05 * len(svg)
