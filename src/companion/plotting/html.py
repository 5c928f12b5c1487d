"""Accessible, downloadable figures: alt text, PNG and SVG downloads, the phone layout."""

from __future__ import annotations

from companion.plotting.core import PHONE_DPI, PHONE_MEDIA, min_text_px, readable, stack

__all__ = ["describe_figure", "figure_html", "figure_titles", "register_figure_formatter"]

# --- Accessible, downloadable figures (issue 7) --------------------------------------------
# Every matplotlib Figure displayed in an IPython kernel gets an HTML form: the PNG with alt
# text and "download PNG / SVG" links. Registering the formatter here (on import, only inside
# IPython) covers every chapter, since the figure modules import this one; the image/png form
# is registered too, so display(fig) shows a picture whatever the matplotlib backend (the
# Makefile's MPLBACKEND=Agg would otherwise reduce display(fig) to "<Figure size ...>").

_SVG_LIMIT = 600_000  # bytes: above this the SVG link is left out (dense scatter plots)


def describe_figure(fig) -> str:
    """Alt text for a figure: ``fig._companion_alt`` if a draw function set it, else a
    description read from its axes (titles, axis labels and scales, legend entries).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> _ = ax.plot([1, 2], [3, 4], label="closed form")
    >>> _ = ax.set(title="Fact 1", xlabel="width n", ylabel=r"$\\cos^2$", xscale="log")
    >>> _ = ax.legend()
    >>> describe_figure(fig)
    'Figure: Fact 1: cos^2 against width n (log scale); shows closed form.'
    """
    alt = getattr(fig, "_companion_alt", None)
    if alt:
        return str(alt)
    panels = []
    for ax in fig.get_axes():
        if not ax.get_visible() or (not ax.has_data() and not ax.get_title()):
            continue
        x, y = _plain(ax.get_xlabel()), _plain(ax.get_ylabel())
        if ax.get_xscale() != "linear" and x:
            x += f" ({ax.get_xscale()} scale)"
        text = _plain(ax.get_title())
        if x or y:
            text += (": " if text else "") + (f"{y} against {x}" if x and y else (y or x))
        leg = ax.get_legend()
        if leg is not None:
            labels = [_plain(t.get_text()) for t in leg.get_texts()][:6]
            text += f"; shows {', '.join(labels)}"
        panels.append(text or "a plot")
    title = _plain(fig._suptitle.get_text()) if getattr(fig, "_suptitle", None) else ""
    if not panels:
        return f"Figure: {title}." if title else "Figure."
    if len(panels) == 1:
        return f"Figure: {(title + '. ') if title else ''}{panels[0]}."
    return (
        f"Figure{(' ' + title) if title else ''} with {len(panels)} panels: "
        + " | ".join(f"({i + 1}) {p}" for i, p in enumerate(panels))
        + "."
    )


def _plain(s: str) -> str:
    """Mathtext to readable text: drop $, backslashes and braces."""
    import re

    s = (s or "").replace("$", "")
    s = re.sub(
        r"\\mathrm\{([^}]*)\}|\\operatorname\{([^}]*)\}", lambda m: m.group(1) or m.group(2), s
    )
    s = re.sub(r"\\([A-Za-z]+)", r"\1", s).replace("{", "").replace("}", "").replace("\\", "")
    return " ".join(s.split())


def figure_titles(fig) -> str:
    """The visible panels' titles as one line of text (where a figure's moving numbers are:
    the Explore figures' readout).

    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> a, b = fig.subplots(1, 2)
    >>> _ = a.set_title("p = 0.01: exact 2.665"), b.set_title(r"$|\\cos|$ = 0.98")
    >>> figure_titles(fig)
    'p = 0.01: exact 2.665 · |cos| = 0.98'
    """
    titles = [_plain(ax.get_title()) for ax in fig.get_axes() if ax.get_visible()]
    return " · ".join(t for t in titles if t)


# The downloads carry no second copy of the figure: the PNG link takes the image's own data
# when clicked, and the SVG travels gzipped (about a fifth of its size) and is unpacked in
# the browser on click. Inline handlers, so a notebook's output works without the site's JS
# (inside one, a bare `URL` is `document.URL`: hence `window.URL`).
_PNG_CLICK = "this.href = this.closest('figure').querySelector('img').src"  # the desktop one
_SVG_CLICK = (
    "event.preventDefault(); const a = this;"
    " fetch('data:application/gzip;base64,' + a.dataset.svgz)"
    ".then(r => new Response(r.body.pipeThrough(new DecompressionStream('gzip'))).blob())"
    ".then(b => { const l = document.createElement('a');"
    " l.href = window.URL.createObjectURL(new Blob([b], {type: 'image/svg+xml'}));"
    " l.download = a.download; l.click(); setTimeout(() => window.URL.revokeObjectURL(l.href)); })"
)


def figure_html(
    fig,
    alt: str | None = None,
    *,
    name: str = "figure",
    dpi: int = 100,
    svg: bool = True,
    phone: bool = True,
) -> str:
    """``<figure>`` HTML: the PNG with alt text, plus PNG and SVG download links.

    Text below :data:`MIN_FONT_PT` is raised to it first (:func:`readable`). The page holds
    the PNG once (its download link reads the image) and the SVG gzipped; with ``phone``,
    also a copy of the figure laid out for a phone (:func:`stack`), shown where
    :data:`PHONE_MEDIA` holds. Each image carries the size of its smallest text in its own
    pixels (``data-min-font-px``), which the site's browser test checks as displayed.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.subplots().plot([0, 1])
    >>> html = figure_html(fig, "a line", name="demo")
    >>> 'alt="a line"' in html and 'download="demo.svg"' in html
    True
    >>> html.count("data:image/png;base64,")  # the image and its phone layout, no link
    2
    """
    import base64
    import gzip
    import html as _html
    import io

    readable(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    png = base64.b64encode(buf.getvalue()).decode()
    small = f"{min_text_px(fig, dpi):.2f}"
    alt = _html.escape(alt or describe_figure(fig), quote=True)
    click = _html.escape(_PNG_CLICK, quote=True)
    links = [f'<a download="{name}.png" href="#" onclick="{click}">PNG</a>']
    if svg:
        sbuf = io.BytesIO()
        fig.savefig(sbuf, format="svg", facecolor="white")
        if sbuf.tell() <= _SVG_LIMIT:
            # mtime=0: the same figure gives the same bytes (reproducible pages)
            svgz = base64.b64encode(gzip.compress(sbuf.getvalue(), 9, mtime=0)).decode()
            click = _html.escape(_SVG_CLICK, quote=True)
            links.append(
                f'<a download="{name}.svg" href="#" data-svgz="{svgz}" onclick="{click}">SVG</a>'
            )
    narrow = _phone_png(fig) if phone else None
    source = ""
    if narrow is not None:
        data, (w, h), px = narrow
        source = (
            f'<source media="{PHONE_MEDIA}" width="{w}" height="{h}" '
            f'srcset="data:image/png;base64,{data}" data-min-font-px="{px:.2f}">'
        )
    return (
        f'<figure class="companion-figure"><picture>{source}'
        f'<img src="data:image/png;base64,{png}" alt="{alt}" data-min-font-px="{small}">'
        "</picture>"
        f'<figcaption class="companion-downloads">Download: {" · ".join(links)}</figcaption>'
        "</figure>"
    )


def _phone_png(fig):
    """(base64 PNG, (width, height), smallest text in px) of a copy of ``fig`` laid out for a
    phone (:func:`stack`), or None for a figure that cannot be copied."""
    import base64
    import io
    import pickle
    import sys

    try:
        copy = pickle.loads(pickle.dumps(fig))
    except Exception:  # an artist that does not pickle (a lambda formatter)
        return None
    if "matplotlib.pyplot" in sys.modules:  # a pyplot figure's copy is registered again
        sys.modules["matplotlib.pyplot"].close(copy)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(copy)  # legends placed under rotated tick labels measure them
    stack(copy)
    readable(copy)
    buf = io.BytesIO()
    copy.savefig(buf, format="png", dpi=PHONE_DPI, facecolor="white")
    size = tuple(round(v * PHONE_DPI) for v in copy.get_size_inches())
    return base64.b64encode(buf.getvalue()).decode(), size, min_text_px(copy, PHONE_DPI)


def register_figure_formatter(ip=None) -> bool:
    """Give matplotlib Figures an HTML (alt text + downloads) and a PNG form in IPython.

    Called on import of this module; a no-op outside IPython. Returns True if registered.
    """
    if ip is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return False
        ip = get_ipython()
    if ip is None or not hasattr(ip, "display_formatter"):
        return False
    import io

    def _png(fig):
        readable(fig)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=100, facecolor="white", bbox_inches="tight")
        return buf.getvalue()

    def _html(fig):
        return figure_html(fig, name=_slug(fig))

    # Registered on FigureBase, not Figure: matplotlib-inline's select_figure_formats pops
    # every formatter registered for Figure when pyplot is first imported; a base-class entry
    # survives that (lookups walk the MRO), and inline's own Figure PNG printer still wins.
    forms = ip.display_formatter.formatters
    forms["text/html"].for_type_by_name("matplotlib.figure", "FigureBase", _html)
    forms["image/png"].for_type_by_name("matplotlib.figure", "FigureBase", _png)
    return True


def _slug(fig) -> str:
    import re

    title = ""
    for ax in fig.get_axes():
        title = ax.get_title()
        if title:
            break
    return (re.sub(r"[^A-Za-z0-9]+", "-", _plain(title)).strip("-").lower() or "figure")[:40]
