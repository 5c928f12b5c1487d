"""Outlier leverage R ≈ nα² (``book/sign_magnitude/leverage.md``): its sizes, the Explore figure
(leverage against the amplitude α) and the claims ``dong.leverage.*``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend, set_errorbar
from companion.theory import leverage as lv
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "ALPHAS", "WIDTHS", "draw", "explore"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    draws: int  # paired single-flip draws at n = 2048 (chapter check and claim)


SIZES = {
    "cpu": Sizes(draws=400_000),
    "full": Sizes(draws=4_000_000),
    "smoke": Sizes(draws=2_000),
}


#: Amplitudes precomputed for the page (log-spaced, through the real-model values).
ALPHAS = (0.01, 0.024, 0.04, 0.07, 0.1, 0.15, 0.2, 0.26, 0.35)

#: Widths offered by the Explore figure (TinyLlama's MLP input is 5632 wide).
WIDTHS = (256, 512, 1024, 2048, 4096, 5632)


_MARKS = (  # (α, its label on the panel; the two maxima, close together, are named in the legend)
    (lv.ABSTRACT_ALPHA_MEDIAN, "abstract median 0.024"),
    (lv.ABSTRACT_ALPHA_MAX, None),
    (lv.AUTHOR_ALPHA_MAX, None),
)

_STYLES = (
    ("pre_relu", r"pre-ReLU $n\alpha^2$ (exact)", COLORS["grey"], "--"),
    ("post_relu", r"post-ReLU $n\alpha^2(1-4\alpha/3\pi)$ (author)", COLORS["paper"], "-"),
    ("exact", "post-ReLU, exact kernel", COLORS["theory"], ":"),
)

_XLIM = (0.005, 0.45)  # every width's curve (from α = 0.5/√n) and the page's amplitudes


@lru_cache(maxsize=32)
def _sweep(n: int, samples: int, seed: int):
    rng = np.random.default_rng(seed)
    return tuple(lv.simulate_leverage(a, n, samples=samples, rng=rng) for a in ALPHAS)


@lru_cache(maxsize=256)
def _current(alpha: float, n: int, samples: int, seed: int):
    return lv.simulate_leverage(alpha, n, samples=samples, rng=seed + 1)


def _panel(ax, scaled: bool):
    """Closed forms, simulation ± 2 SE and the current α (moved by _move), on fixed axes;
    ``scaled``: divided by nα² (what the ReLU takes away)."""
    from matplotlib.ticker import NullLocator  # here: the claims need no matplotlib

    curves = [
        ax.plot([], [], color=col, ls=ls, lw=2, label=None if scaled else label)[0]
        for _, label, col, ls in _STYLES
    ]
    sims = ax.errorbar(
        [1e-2],
        [1],
        yerr=[0],
        fmt="o",
        ms=4,
        color=COLORS["sim"],
        capsize=3,
        label=None if scaled else "simulation ± 2 SE",
    )
    (now,) = ax.plot([], [], "D", color="k", ms=7, label=None if scaled else "current α")
    for i, (x, text) in enumerate(_MARKS):
        named = not scaled and i == 1
        label = "largest α: 0.26, 0.289" if named else None
        ax.axvline(x, color=COLORS["grey"], lw=1, ls=(0, (1, 2)), label=label)
        if not scaled and text:  # it hangs from the top, where the curves are low
            ax.text(
                x, 0.98, text, rotation=90, va="top", ha="right", transform=ax.get_xaxis_transform()
            )
    if scaled:
        ax.set(
            xscale="log",
            xlim=_XLIM,
            ylim=(0.8, 1.05),
            xlabel=r"$\alpha$",
            ylabel=r"$R / (n\alpha^2)$",
            title="the ReLU correction",
        )
    else:
        ax.axhline(1, color="k", lw=0.6)
        ax.set(
            xscale="log",
            yscale="log",
            xlim=_XLIM,
            ylim=(0.1, 2000),
            xlabel=r"amplitude $\alpha = |\hat x_j|$",
            ylabel=r"leverage $R(\alpha, n)$",
        )
        ax.yaxis.set_minor_locator(NullLocator())
        legend(ax)
    ax.xaxis.set_minor_locator(NullLocator())  # unlabelled minor ticks cost most of a redraw
    ax.grid(alpha=0.3)
    return animate(*curves, sims, now, ax.title), curves, sims, now


def _move(artists, scaled, alpha, n, samples, seed, **_):
    _, curves, sims, now = artists
    a = np.geomspace(0.5 / np.sqrt(n), 0.4, 200)
    unit = (lambda x: n * np.asarray(x) ** 2) if scaled else (lambda x: 1.0)
    for line, (kind, *_) in zip(curves, _STYLES, strict=True):
        line.set_data(a, lv.leverage(a, n, kind=kind) / unit(a))
    ests = _sweep(int(n), int(samples), int(seed))
    scale = np.array([unit(x) for x in ALPHAS], dtype=float)
    set_errorbar(
        sims, ALPHAS, [s.value for s in ests] / scale, [2 * s.stderr for s in ests] / scale
    )
    cur = _current(float(alpha), int(n), int(samples), int(seed))
    now.set_data([alpha], [cur.value / unit(alpha)])
    if not scaled:
        now.axes.set_title(
            f"one flip, n = {n}: at α = {alpha:.3g}, R = {cur.value:.3g}\n"
            "(delocalised: α = 1/√n, R = 1)"
        )


_PANELS = (
    Panel(lambda ax, **_: _panel(ax, False), move=lambda a, **p: _move(a, False, **p)),
    Panel(lambda ax, **_: _panel(ax, True), move=lambda a, **p: _move(a, True, **p)),
)


def draw(fig, alpha: float = 0.1, n: int = 2048, samples: int = 20000, seed: int = 0):
    """Left: R(alpha, n) on log-log axes, three closed forms, simulation +- 2 SE and the
    real-model alphas. Right: what the ReLU takes away, R / (n alpha^2).
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(alpha=alpha, n=n, samples=samples, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def explore() -> Explore:
    """The chapter's Explore figure: every amplitude x width precomputed."""
    controls = {
        "alpha": control(0.1, 0.005, 0.4, log=True, label="amplitude α", values=ALPHAS),
        "n": control(2048, options=WIDTHS, label="width n"),
    }
    return explore_figure(
        draw, controls, update=Panels.update, grid=("alpha", "n"), figsize=(8, 4.6)
    )
