"""Sphinx extension for the companion site (listed in ``_config.yml``'s ``extra_extensions``).

* Loads MathJax on every page (``html_assets_policy = "always"``): chapter titles with math
  appear in every page's sidebar, also on pages without math of their own (index, search).
* Sets the theme's default light/dark mode to "auto" (follow the reader's system setting).
* Drops inline scripts injected twice on one page (sphinx-thebe and the book theme both add
  ``const THEBE_JS_URL = ...``; the second copy is a SyntaxError in the console).
* Serves the theme's icons from its web fonts, not from Font Awesome's 1.49 MB script: the
  theme's CSS already maps every ``fa-*`` class to a glyph of the fonts (solid 156 KB, brands
  118 KB, loaded only by a page that shows one), so the ``fontawesome.js`` line of the theme's
  ``webpack-macros.html`` is dropped when the template is loaded (:class:`IconFontMacros`),
  and when the build finishes those fonts are cut down to the icons the site shows
  (:mod:`companion.site.icon_fonts`: 300 KB to 4 KB a page).
* Points CDN links that executed outputs carry at vendored copies: matplotlib's ``to_jshtml``
  frame player links Font Awesome 4.4 from maxcdn for its button icons.
* Reader text (:mod:`companion.site.reader_text`): warns (so ``-W`` fails the build) on a page
  body that shows a raw Markdown table, a cross-reference without its number or words meant
  for the builder.
* Figures as files (:mod:`companion.site.frames`): when an HTML build finishes (after the
  decks are written), the image data URIs of executed outputs (Explore frames, static
  figures, both layouts) move into files, so a page loads only the frames it shows.
* Talk decks (:mod:`companion.site.slides`): links every chapter page that has one to its deck,
  under the title, and writes the decks into ``slides/`` when an executed HTML build finishes
  (a build with execution off, such as ``make test``'s structural pass, writes none).
"""

from __future__ import annotations

import posixpath
import re

__all__ = ["setup", "CDN_REWRITES", "IconFontMacros", "ICON_SCRIPT"]

#: The theme's line that loads Font Awesome's SVG-replacing script on every page.
ICON_SCRIPT = re.compile(r"[ \t]*<script[^>]*scripts/fontawesome\.js[^>]*></script>[ \t]*\n?")

#: CDN URL found in page bodies -> path under the site's ``_static`` (from ``make vendor``).
CDN_REWRITES = {
    "https://maxcdn.bootstrapcdn.com/font-awesome/4.4.0/css/font-awesome.min.css": (
        "_static/font-awesome/css/font-awesome.min.css"
    ),
}


def _dedupe_scripts(scripts):
    seen, out = set(), []
    for js in scripts:
        attrs = getattr(js, "attributes", {}) or {}
        key = (str(getattr(js, "filename", js) or ""), str(attrs.get("body", "")))
        if key in seen:
            continue
        seen.add(key)
        out.append(js)
    return out


def _page_context(app, pagename, templatename, context, doctree):
    # pydata-sphinx-theme writes data-mode="" when the reader has no stored choice, then logs
    # "Got invalid theme mode" on every first visit: give it an explicit default.
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    if "script_files" in context:
        context["script_files"] = _dedupe_scripts(context["script_files"])
    body = context.get("body")
    if body and "pathto" in context:
        for url, local in CDN_REWRITES.items():
            if url in body:
                body = body.replace(url, context["pathto"](local, 1))
        context["body"] = _deck_link(app, pagename, body)
        _check_reader_text(pagename, body)


def _check_reader_text(pagename: str, body: str) -> None:
    from sphinx.util import logging

    from companion.site import reader_text

    log = logging.getLogger(__name__)
    # the height budget is measured as drawn by the browser suite (tests/site/test_browser.py);
    # the estimate without a browser overestimates folded pages, so it is no build error
    for problem in reader_text.page_problems(body, pagename=pagename, budget=False):
        log.warning(f"{problem} [reader text]", location=pagename, type="companion")


def _deck_pages(app) -> dict[str, str]:
    if not hasattr(app, "_companion_decks"):
        from companion.site import slides

        app._companion_decks = {d: slides.deck_path(d) for d, _ in slides.decks(app.srcdir)}
    return app._companion_decks


def _deck_link(app, pagename: str, body: str) -> str:
    deck = _deck_pages(app).get(pagename)
    if deck is None:
        return body
    href = posixpath.relpath(deck, posixpath.dirname(pagename))
    link = (
        f'<p class="companion-deck-link"><a href="{href}">Slides: this chapter as a talk</a> '
        "(statement, figure, the number, an exercise, the claims)</p>"
    )
    return body.replace("</h1>", "</h1>" + link, 1)


def _subset_icon_fonts(app, exception):
    if exception is None and app.builder.name == "html":
        from companion.site import icon_fonts

        icon_fonts.subset_site(app.outdir)


def _figures_to_files(app, exception):
    if exception is None and app.builder.name == "html":
        from sphinx.util import logging

        from companion.site import frames

        n = frames.move_to_files(app.outdir)
        logging.getLogger(__name__).info(
            f"figures as files: {n['images']} new images ({n['bytes'] / 1e6:.1f} MB) from "
            f"{n['pages']} pages, {n['removed']} unused removed"
        )


def _write_decks(app, exception):
    if exception is not None or app.builder.name != "html":
        return
    if app.config.nb_execution_mode == "off":
        return
    from sphinx.util import logging

    from companion.site import slides

    slides.build(app.outdir, app.srcdir, log=logging.getLogger(__name__).info)


class IconFontMacros:
    """A Jinja loader for the theme's ``static/webpack-macros.html`` without the
    ``fontawesome.js`` script (the icons then come from the theme's web fonts); every other
    template is left to the loaders after it.

    >>> import jinja2
    >>> theme = jinja2.DictLoader({"static/webpack-macros.html":
    ...     '<script defer src="_static/scripts/fontawesome.js?d=1"></script>\\n<link>'})
    >>> IconFontMacros([theme]).get_source(None, "static/webpack-macros.html")[0]
    '<link>'
    """

    NAME = "static/webpack-macros.html"

    def __init__(self, loaders):
        self.loaders = list(loaders)

    def get_source(self, environment, template):
        import jinja2

        if template != self.NAME:
            raise jinja2.TemplateNotFound(template)
        for loader in self.loaders:
            try:
                source, filename, uptodate = loader.get_source(environment, template)
            except jinja2.TemplateNotFound:
                continue
            return ICON_SCRIPT.sub("", source), filename, uptodate
        raise jinja2.TemplateNotFound(template)


def _icon_fonts(app):
    templates = getattr(app.builder, "templates", None)
    if templates is None or not hasattr(templates, "loaders"):
        return  # not an HTML builder
    templates.loaders.insert(0, IconFontMacros(templates.loaders))
    templates.templatepathlen += 1  # "!name" still searches the theme's own folders


def setup(app):
    app.set_html_assets_policy("always")
    app.connect("builder-inited", _icon_fonts)
    app.connect("html-page-context", _page_context, priority=900)
    app.connect("build-finished", _subset_icon_fonts)
    app.connect("build-finished", _write_decks)
    app.connect("build-finished", _figures_to_files, priority=600)  # the decks' too
    return {"parallel_read_safe": True, "parallel_write_safe": True}
