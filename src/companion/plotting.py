"""Shared figure helpers: a theory curve against simulations with error bars."""

from __future__ import annotations

import numpy as np

__all__ = ["COLORS", "theory_vs_sim"]

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


# --- Accessible, downloadable figures (issue 7) --------------------------------------------
# Every matplotlib Figure displayed in an IPython kernel gets an HTML form: the PNG with alt
# text and "download PNG / SVG" links. Registering the formatter here (on import, only inside
# IPython) covers every chapter, since the figure modules import this one; the image/png form
# is registered too, so display(fig) shows a picture whatever the matplotlib backend (the
# Makefile's MPLBACKEND=Agg would otherwise reduce display(fig) to "<Figure size ...>").

__all__ += ["describe_figure", "figure_html", "register_figure_formatter"]

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


def figure_html(
    fig, alt: str | None = None, *, name: str = "figure", dpi: int = 100, svg: bool = True
) -> str:
    """``<figure>`` HTML: the PNG with alt text, plus PNG and SVG download links.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> fig = Figure(figsize=(2, 1))
    >>> _ = fig.subplots().plot([0, 1])
    >>> html = figure_html(fig, "a line", name="demo")
    >>> 'alt="a line"' in html and 'download="demo.svg"' in html
    True
    """
    import base64
    import html as _html
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
    png = base64.b64encode(buf.getvalue()).decode()
    alt = _html.escape(alt or describe_figure(fig), quote=True)
    links = [f'<a download="{name}.png" href="data:image/png;base64,{png}">PNG</a>']
    if svg:
        sbuf = io.BytesIO()
        fig.savefig(sbuf, format="svg", facecolor="white")
        if sbuf.tell() <= _SVG_LIMIT:
            s64 = base64.b64encode(sbuf.getvalue()).decode()
            links.append(f'<a download="{name}.svg" href="data:image/svg+xml;base64,{s64}">SVG</a>')
    return (
        f'<figure class="companion-figure"><img src="data:image/png;base64,{png}" alt="{alt}">'
        f'<figcaption class="companion-downloads">Download: {" · ".join(links)}</figcaption></figure>'
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
