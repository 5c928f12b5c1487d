"""Shared figure helpers: a theory curve against simulations with error bars, and readable,
phone-friendly text and legends for every figure of the book."""

from __future__ import annotations

import numpy as np

__all__ = [
    "COLORS",
    "MIN_FONT_PT",
    "READABLE_RC",
    "legend",
    "readable",
    "set_errorbar",
    "theory_vs_sim",
]

#: Colour-blind-safe palette readable on light and dark backgrounds.
COLORS = {
    "theory": "#0072B2",
    "sim": "#D55E00",
    "alt": "#009E73",
    "paper": "#CC79A7",
    "grey": "#7f7f7f",
}


def theory_vs_sim(
    ax,
    x,
    theory,
    sim_x=None,
    sim=None,
    *,
    k: float = 2.0,
    label_theory="closed form",
    label_sim="simulation ± 2 SE",
):
    """Plot a closed-form curve and simulated :class:`~companion.stats.MCEstimate` points."""
    ax.plot(x, theory, color=COLORS["theory"], lw=2, label=label_theory)
    if sim is not None:
        vals = np.array([s.value for s in sim])
        errs = k * np.array([s.stderr for s in sim])
        ax.errorbar(
            sim_x, vals, yerr=errs, fmt="o", ms=4, color=COLORS["sim"], capsize=3, label=label_sim
        )
    ax.grid(alpha=0.3)
    return ax


# --- Readable everywhere (issue 11) ---------------------------------------------------------
# A figure is 8 in wide at 100 dpi: 800 px, shown about 1:1 in the 784 px text column. At 9 pt
# (12.5 px) the capitals of a legend are about 9 px tall there; 7 pt gave about 7 px.

#: The smallest font size (points) of any text in a book figure.
MIN_FONT_PT = 9.0
#: Matplotlib settings for book figures (used by :class:`companion.widgets.PersistentFigure`).
READABLE_RC = {
    "font.size": 10.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 10.0,
    "xtick.labelsize": MIN_FONT_PT,
    "ytick.labelsize": MIN_FONT_PT,
    "legend.fontsize": MIN_FONT_PT,
    "figure.titlesize": 11.0,
    # titles at the top of their panel, not moved above top tick labels (there are none):
    # placing them automatically measures every y tick label on every redraw
    "axes.titley": 1.0,
}


def readable(fig, min_pt: float = MIN_FONT_PT, *, axes=None):
    """Raise every text of ``fig`` smaller than ``min_pt`` points to ``min_pt``; return ``fig``.

    Tick labels, legends (``fontsize=7`` passed by a draw function), annotations and titles
    alike; nothing drawn moves but the text size, and legends placed by :func:`legend` are
    re-anchored below their axes for the new size. ``axes``: only these panels (one that an
    Explore figure's ``update`` has just painted again).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure()
    >>> ax = fig.subplots()
    >>> _ = ax.plot([0, 1], label="a")
    >>> leg = ax.legend(fontsize=6)
    >>> _ = readable(fig)
    >>> leg.get_texts()[0].get_fontsize(), ax.xaxis.get_major_ticks()[0].label1.get_fontsize() >= 9
    (9.0, True)
    """
    from matplotlib.text import Text

    panels = fig.get_axes() if axes is None else list(axes)
    for ax in panels:
        for axis, which in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            ticks = axis.get_major_ticks()
            if ticks and ticks[0].label1.get_fontsize() < min_pt:
                ax.tick_params(axis=which, which="both", labelsize=min_pt)
    for part in [fig] if axes is None else panels:
        for text in part.findobj(Text):
            if text.get_text() and text.get_fontsize() < min_pt:
                text.set_fontsize(min_pt)
    for ax in panels:
        leg = ax.get_legend()
        if leg is not None:
            if leg.prop.get_size_in_points() < min_pt:
                leg.prop.set_size(min_pt)
                leg._fontsize = min_pt  # handle lengths and spacing are in units of it
            if getattr(leg, "_companion_below", False):
                leg.set_bbox_to_anchor((0.5, 0), transform=_below(ax))
    return fig


def _below(ax):
    """The axes' frame shifted down past its x tick labels and x label (for a legend's anchor)."""
    import matplotlib as mpl
    from matplotlib.transforms import ScaledTranslation

    tick = ax.xaxis.get_major_ticks()[0] if ax.xaxis.get_major_ticks() else None
    size = tick.label1.get_fontsize() if tick is not None else mpl.rcParams["xtick.labelsize"]
    size = mpl.font_manager.FontProperties(size=size).get_size_in_points()
    pts = mpl.rcParams["xtick.major.size"] + mpl.rcParams["xtick.major.pad"] + 1.1 * size + 3
    if ax.xaxis.label.get_text():
        pts += ax.xaxis.labelpad + 1.2 * ax.xaxis.label.get_fontsize()
    return ax.transAxes + ScaledTranslation(0, -pts / 72, ax.figure.dpi_scale_trans)


def legend(ax, *args, ncols: int | None = None, **kwargs):
    """A legend under the axes, off the data (call it after setting the x label).

    Takes ``ax.legend``'s arguments; ``ncols`` defaults to 2 columns (1 for a single entry).
    Constrained layout makes room for it below the panel.

    Examples
    --------
    >>> from matplotlib.backends.backend_agg import FigureCanvasAgg
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(layout="constrained")
    >>> ax = FigureCanvasAgg(fig).figure.subplots()
    >>> _ = ax.plot([0, 1], label="closed form")
    >>> _ = ax.set_xlabel("p")
    >>> leg = legend(ax)
    >>> fig.canvas.draw()
    >>> bool(leg.get_window_extent().y1 < ax.xaxis.label.get_window_extent().y0)
    True
    """
    n = len(args[1] if len(args) > 1 else ax.get_legend_handles_labels()[1])
    kwargs.setdefault("frameon", False)
    leg = ax.legend(
        *args,
        loc="upper center",
        bbox_to_anchor=(0.5, 0),
        bbox_transform=_below(ax),
        ncols=ncols or min(max(n, 1), 2),
        **kwargs,
    )
    leg._companion_below = True
    return leg


def set_errorbar(container, x, y, yerr) -> None:
    """Move the points, caps and bars of an ``ax.errorbar`` container in place (symmetric errors).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().subplots()
    >>> eb = ax.errorbar([1, 2], [1, 1], yerr=[0.1, 0.1], capsize=2)
    >>> set_errorbar(eb, [1, 2], [2, 3], [0.5, 0.5])
    >>> eb.lines[0].get_ydata().tolist(), eb.lines[1][1].get_ydata().tolist()
    ([2.0, 3.0], [2.5, 3.5])
    """
    x, y, e = (np.asarray(v, dtype=float) for v in (x, y, yerr))
    line, caps, bars = container.lines
    if line is not None:
        line.set_data(x, y)
    if len(caps) == 2:
        caps[0].set_data(x, y - e)
        caps[1].set_data(x, y + e)
    if bars:
        bars[0].set_segments(
            [[(xi, yi - ei), (xi, yi + ei)] for xi, yi, ei in zip(x, y, e, strict=True)]
        )


# --- Accessible, downloadable figures (issue 7) --------------------------------------------
# Every matplotlib Figure displayed in an IPython kernel gets an HTML form: the PNG with alt
# text and "download PNG / SVG" links. Registering the formatter here (on import, only inside
# IPython) covers every chapter, since the figure modules import this one; the image/png form
# is registered too, so display(fig) shows a picture whatever the matplotlib backend (the
# Makefile's MPLBACKEND=Agg would otherwise reduce display(fig) to "<Figure size ...>").

__all__ += ["describe_figure", "figure_html", "figure_titles", "register_figure_formatter"]

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
_PNG_CLICK = "this.href = this.closest('figure').querySelector('img').src"
_SVG_CLICK = (
    "event.preventDefault(); const a = this;"
    " fetch('data:application/gzip;base64,' + a.dataset.svgz)"
    ".then(r => new Response(r.body.pipeThrough(new DecompressionStream('gzip'))).blob())"
    ".then(b => { const l = document.createElement('a');"
    " l.href = window.URL.createObjectURL(new Blob([b], {type: 'image/svg+xml'}));"
    " l.download = a.download; l.click(); setTimeout(() => window.URL.revokeObjectURL(l.href)); })"
)


def figure_html(
    fig, alt: str | None = None, *, name: str = "figure", dpi: int = 100, svg: bool = True
) -> str:
    """``<figure>`` HTML: the PNG with alt text, plus PNG and SVG download links.

    Text below :data:`MIN_FONT_PT` is raised to it first (:func:`readable`). The page holds
    the PNG once (its download link reads the image) and the SVG gzipped.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.subplots().plot([0, 1])
    >>> html = figure_html(fig, "a line", name="demo")
    >>> 'alt="a line"' in html and 'download="demo.svg"' in html
    True
    >>> html.count("data:image/png;base64,")  # the image, not its link too
    1
    """
    import base64
    import gzip
    import html as _html
    import io

    readable(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    png = base64.b64encode(buf.getvalue()).decode()
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
    return (
        f'<figure class="companion-figure"><img src="data:image/png;base64,{png}" alt="{alt}">'
        f'<figcaption class="companion-downloads">Download: {" · ".join(links)}</figcaption>'
        "</figure>"
    )


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


register_figure_formatter()
