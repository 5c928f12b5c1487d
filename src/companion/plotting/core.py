"""Shared figure helpers: a theory curve against simulations with error bars, readable text
and legends, and each figure's phone layout (re-exported by :mod:`companion.plotting`)."""

from __future__ import annotations

import numpy as np

__all__ = [
    "COLORS",
    "MIN_FONT_PT",
    "MIN_TEXT_PX",
    "PHONE_COLUMN_PX",
    "PHONE_DPI",
    "PHONE_MEDIA",
    "PHONE_WIDTH_IN",
    "READABLE_RC",
    "legend",
    "min_text_px",
    "readable",
    "set_errorbar",
    "stack",
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


# --- Legible on a phone (issue 19) --------------------------------------------------------
# On a 390 px phone the text column is 358 CSS px: an 800 px figure shrinks there to 45 %, its
# 9 pt tick labels to 5.6 px. The page therefore also carries each figure laid out for a phone,
# its panels one under another in a narrow figure, and the browser shows that one where the
# site's phone layout applies (``<picture>``, :data:`PHONE_MEDIA`): text of MIN_FONT_PT points
# on a figure PHONE_WIDTH_IN wide, shown 358 px wide, is 9 / 72 * 358 / 4.2 = 10.7 px.

#: The narrowest text column a figure is shown in (a 390 px phone), in CSS px.
PHONE_COLUMN_PX = 358
#: The smallest text a figure may show at that width, in CSS px (the browser suite's bound).
MIN_TEXT_PX = 9.0
#: Width (in) and resolution of a figure's phone layout: 714 px, two device pixels per CSS px.
PHONE_WIDTH_IN, PHONE_DPI = 4.2, 170
#: Where the page shows the phone layout (the site's phone breakpoint, ``companion.css``).
PHONE_MEDIA = "(max-width: 700px)"


def min_text_px(fig, dpi: float | None = None) -> float:
    """The font size of the smallest visible text of ``fig``, in pixels of its image at
    ``dpi`` (default: the figure's); mathtext scripts are drawn at 70 % of it.

    >>> from matplotlib.figure import Figure
    >>> fig = Figure(dpi=100)
    >>> _ = fig.subplots().set_title("t", fontsize=9)
    >>> _ = readable(fig)
    >>> round(min_text_px(fig), 2)
    12.5
    """
    from matplotlib.text import Text

    sizes = [
        t.get_fontsize()
        for t in fig.findobj(Text)
        if t.get_text() and t.get_visible() and (t.axes is None or t.axes.get_visible())
    ]
    return min(sizes, default=MIN_FONT_PT) * (dpi or fig.dpi) / 72


def stack(fig, width_in: float = PHONE_WIDTH_IN) -> None:
    """Lay ``fig`` out for a phone, in place: ``width_in`` wide, its panels (the axes of a
    grid with their twins, or its subfigures) one under another in reading order, each row
    2.9 in tall plus room for its legends, now in one column (:func:`legend`); titles wrap
    at the figure's edge. A figure without such panels is only narrowed, at its aspect
    ratio. Call it before the figure is first drawn."""

    def spec(part):  # a subfigure keeps its cell privately
        return part._subplotspec if part in fig.subfigs else part.get_subplotspec()

    parts = fig.subfigs or [ax for ax in fig.axes if ax.get_subplotspec() is not None]
    cells: dict = {}
    for part in parts:
        ss = spec(part)
        key = (ss.rowspan.start, ss.colspan.start, ss.rowspan.stop, ss.colspan.stop)
        cells.setdefault(key, []).append(part)
    w, h = fig.get_size_inches()
    if not cells:
        fig.set_size_inches(width_in, h * width_in / w)
        return
    axes = [ax for f in (fig, *fig.subfigs) for ax in f.axes]
    for ax in axes:
        leg = ax.get_legend()
        if getattr(leg, "_companion_args", None) is not None and leg._ncols != 1:
            args, kwargs = leg._companion_args
            legend(ax, *args, **{**kwargs, "ncols": 1})
        ax.title.set_wrap(True)

    def entries(part):
        inner = part.axes if part in fig.subfigs else [part]
        return sum(len(ax.get_legend().texts) for ax in inner if ax.get_legend())

    order = sorted(cells, key=lambda k: (k[0], k[1]))
    rows = [2.9 + 0.19 * sum(entries(p) for p in cells[k]) for k in order]
    gs = fig.add_gridspec(len(order), 1, height_ratios=rows)
    for i, key in enumerate(order):
        for part in cells[key]:
            if part in fig.subfigs:
                part._subplotspec = gs[i, 0]
                part._redo_transform_rel_fig()
            else:
                part.set_subplotspec(gs[i, 0])
    fig.set_size_inches(width_in, sum(rows) + 0.3 * bool(fig.get_suptitle()))
    if fig.get_layout_engine() is None:
        fig.set_layout_engine("constrained")


def _phone(fig) -> bool:
    return fig.get_figure(root=True).get_figwidth() <= PHONE_WIDTH_IN + 1e-6


def _below(ax):
    """The axes' frame shifted down past its x tick labels and x label (for a legend's anchor)."""
    import matplotlib as mpl
    from matplotlib.transforms import ScaledTranslation

    tick = ax.xaxis.get_major_ticks()[0] if ax.xaxis.get_major_ticks() else None
    size = tick.label1.get_fontsize() if tick is not None else mpl.rcParams["xtick.labelsize"]
    size = mpl.font_manager.FontProperties(size=size).get_size_in_points()
    labels = 1.1 * size  # one line of tick labels; taller ones (rotated, two lines) measured
    fig = ax.get_figure(root=True)
    if hasattr(fig.canvas, "get_renderer"):
        r = fig.canvas.get_renderer()
        tall = [t.get_window_extent(r).height for t in ax.get_xticklabels() if t.get_text()]
        labels = max([labels] + [h * 72 / fig.dpi for h in tall])
    pts = mpl.rcParams["xtick.major.size"] + mpl.rcParams["xtick.major.pad"] + labels + 3
    if ax.xaxis.label.get_text():
        pts += ax.xaxis.labelpad + 1.2 * ax.xaxis.label.get_fontsize()
    return ax.transAxes + ScaledTranslation(0, -pts / 72, ax.figure.dpi_scale_trans)


def legend(ax, *args, ncols: int | None = None, **kwargs):
    """A legend under the axes, off the data (call it after setting the x label).

    Takes ``ax.legend``'s arguments; ``ncols`` defaults to 2 columns (1 for a single entry,
    and in a figure laid out for a phone, :func:`stack`). Constrained layout makes room for
    it below the panel.

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
        ncols=1 if _phone(ax.figure) else ncols or min(max(n, 1), 2),
        **kwargs,
    )
    leg._companion_below = True
    leg._companion_args = (args, kwargs)  # stack() makes it again in one column
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
