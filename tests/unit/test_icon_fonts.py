"""The icon fonts cut down to the site's icons: what a page names stays, the rest goes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from companion.site import icon_fonts

pytest.importorskip("brotli")
TTFont = pytest.importorskip("fontTools.ttLib").TTFont


def _theme_font() -> Path:
    import pydata_sphinx_theme

    root = Path(pydata_sphinx_theme.__file__).parent
    return next(root.rglob("fa-solid-900.woff2"))


def _site(tmp_path, html: str) -> Path:
    fonts = tmp_path / "_static/vendor/fontawesome/webfonts"
    fonts.mkdir(parents=True)
    shutil.copy(_theme_font(), fonts)
    (tmp_path / "_static/theme.css").write_text(
        '.fa-github:before{content:"\\f09b"}.fa-bars:before,.fa-navicon:before'
        '{content:"\\f0c9"}.fa-rocket:before{content:"\\f135"}'
        '.toggle:after{content:"\\f105"}'
    )
    (tmp_path / "index.html").write_text(html)
    return fonts / "fa-solid-900.woff2"


def test_the_site_keeps_the_icons_it_names_and_drops_the_rest(tmp_path):
    path = _site(tmp_path, '<i class="fa-solid fa-bars"></i><i class="fa-nosuch"></i>')
    assert icon_fonts.used_codepoints(tmp_path) == {0xF0C9, 0xF105}
    before = set(TTFont(path).getBestCmap())
    assert {0xF0C9, 0xF105, 0xF135} <= before  # the rocket is in the theme's font
    sizes = icon_fonts.subset_site(tmp_path)
    after = set(TTFont(path).getBestCmap())
    assert {0xF0C9, 0xF105} <= after  # named by a class; drawn by a CSS rule
    assert 0xF135 not in after  # in the CSS, on no page
    assert sizes["fa-solid-900.woff2"][1] < sizes["fa-solid-900.woff2"][0] / 10


def test_a_site_without_the_fonts_is_left_alone(tmp_path):
    (tmp_path / "index.html").write_text("<p>no icons</p>")
    assert icon_fonts.subset_site(tmp_path) == {}
