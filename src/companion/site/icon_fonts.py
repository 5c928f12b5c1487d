"""The theme's icon fonts cut down to the icons the site shows.

pydata-sphinx-theme ships Font Awesome 6's web fonts (solid 156 KB, brands 118 KB, regular
25 KB) and every page loads them for its ~15 header and sidebar icons: a quarter of a
chapter page's weight. When an HTML build finishes, :func:`subset_site` finds the icons the
site can show and rewrites each ``.woff2`` in place with only their glyphs (a few KB each):

* every ``fa-<name>`` class named in the site's HTML and JavaScript, mapped to its code point
  through the theme's CSS (``.fa-github:before{content:"\\f09b"}``);
* every private-use code point a CSS rule puts in ``content`` other than Font Awesome's own
  class list (the theme's buttons that draw an icon from CSS alone).

A class that is not in the CSS (another icon set, a typo) is ignored; the ``.ttf`` fallbacks,
which no current browser loads, are left whole. Needs fontTools with Brotli
(``fonttools[woff]``, in the ``book`` extra); without Brotli the fonts are left whole.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["glyph_map", "used_codepoints", "subset_site"]

_RULE = re.compile(r"([^{}]+)\{[^{}]*?content:\s*[\"']\\(f[0-9a-fA-F]{3,4})[\"'][^{}]*\}")
_FA_SELECTOR = re.compile(r"\.fa-([a-z0-9-]+)::?(?:before|after)")
_CLASS = re.compile(r"\bfa-([a-z0-9-]+)")
_FONTS = "_static/vendor/fontawesome/webfonts"


def glyph_map(css: str) -> tuple[dict[str, int], set[int]]:
    """``({icon name: code point}, {code points other rules draw})`` read from ``css``.

    >>> css = '.fa-a:before,.fa-b:before{content:"\\\\f09b"}.btn:after{content:"\\\\f105"}'
    >>> glyph_map(css)
    ({'a': 61595, 'b': 61595}, {61701})
    """
    names, direct = {}, set()
    for selectors, code in _RULE.findall(css):
        parts = [s.strip() for s in selectors.split(",")]
        found = [_FA_SELECTOR.fullmatch(p) for p in parts]
        if all(found):
            names.update((m.group(1), int(code, 16)) for m in found)
        else:
            direct.add(int(code, 16))
    return names, direct


def used_codepoints(site: str | Path) -> set[int]:
    """Code points of every icon the built site at ``site`` can show."""
    site = Path(site)
    css = "\n".join(p.read_text(errors="replace") for p in site.glob("_static/**/*.css"))
    names, codes = glyph_map(css)
    for path in (*site.rglob("*.html"), *site.glob("_static/**/*.js")):
        if "mathjax" in path.parts:
            continue
        text = path.read_text(errors="replace")
        codes.update(names[n] for n in set(_CLASS.findall(text)) if n in names)
    return codes


def subset_site(site: str | Path) -> dict[str, tuple[int, int]]:
    """Rewrite the site's Font Awesome ``.woff2`` files with only the icons it uses.

    Returns ``{file name: (bytes before, bytes after)}``; empty when the site has no such
    fonts or Brotli (needed to write WOFF2) is missing.
    """
    try:
        import brotli  # noqa: F401  (fontTools writes WOFF2 with it)
        from fontTools import subset
    except ImportError:
        return {}
    site = Path(site)
    fonts = sorted((site / _FONTS).glob("*.woff2"))
    if not fonts:
        return {}
    codes = used_codepoints(site)
    sizes = {}
    for path in fonts:
        before = path.stat().st_size
        options = subset.Options()
        options.flavor = "woff2"
        options.layout_features = ["*"]
        font = subset.load_font(str(path), options)
        sub = subset.Subsetter(options)
        sub.populate(unicodes=codes | {0x20})
        sub.subset(font)
        tmp = path.with_suffix(".part")
        subset.save_font(font, str(tmp), options)
        tmp.replace(path)  # a build writes this copy: the theme's own file is untouched
        sizes[path.name] = (before, path.stat().st_size)
    return sizes
