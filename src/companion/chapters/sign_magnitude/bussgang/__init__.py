"""Fact 1, the Bussgang constant 2/π (``book/sign_magnitude/bussgang.md``): its sizes, the
Explore figure (row cos² against the width and the weight law) and the claim ``dong.fact1``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.theory import sign_magnitude as sm
from companion.theory.bussgang import (
    bussgang_cos2,
    row_cos2,
    sample_weights,
    simulate_bussgang_cos2,
)
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "WIDTHS", "draw", "explore"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    n: int  # row width of the numerical check and of the claim
    rows: int  # Gaussian rows averaged at that width


# One row's cos² scatters with variance ≈ 0.115/n, so with rows = 125 n the finite-width term
# (1 − 2/π)/n is ≈ 0.363 √(rows/(0.115 n)) ≈ 12 SE: the check sees it at every scale.
SIZES = {
    "cpu": Sizes(n=128, rows=16000),  # a laptop: about 0.1 s
    "full": Sizes(n=512, rows=64000),  # a few seconds, 0.8 GB of draws
    "smoke": Sizes(n=32, rows=4000),  # the tests' run of the full path
}


#: Widths of the convergence panel.
WIDTHS = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def _nu(p):
    return p["nu"] if p["dist"] == "student_t" else None  # ν matters only for Student-t rows


@lru_cache(maxsize=64)
def _row_cos2(n, dist, nu, rows, seed):
    rng = np.random.default_rng(seed)
    return row_cos2(sample_weights((rows, n), dist, nu=nu, rng=rng))  # (rows,)


def _rows_panel(ax, **_):
    """The distribution of row cos² at width n: drawn once, moved by :func:`_rows_move`
    (cos² lies in [0, 1] at every width; the density axis has no numbers, so that a new
    width only rescales it)."""
    hist = ax.stairs([0.0], [0.0, 1.0], fill=True, color=COLORS["sim"], alpha=0.7, label="rows")
    limit = ax.axvline(0.5, color=COLORS["theory"], lw=2, label="limit (Fact 1)")
    mean = ax.axvline(0.5, color="k", ls="--", lw=1, label="mean of the rows")
    ax.set(xlim=(0, 1), xlabel=r"row $\cos^2(w,\ \mathrm{sign}\,w)$", ylabel="density")
    ax.set_yticks([])
    legend(ax)
    return animate(hist, limit, mean, ax.title)


def _rows_move(artists, n, dist, nu, rows, seed, **_):
    hist, limit, mean, title = artists
    nu = nu if dist == "student_t" else 5.0
    lim = bussgang_cos2(dist, nu=nu)
    c = _row_cos2(int(n), dist, float(nu), int(rows), int(seed))
    density, edges = np.histogram(c, bins=30, density=True)
    hist.set_data(density, edges)
    hist.axes.set_ylim(0, 1.08 * density.max())
    limit.set_xdata([lim, lim])
    mean.set_xdata([c.mean(), c.mean()])
    title.set_text(f"{rows} rows of width {n}: mean {c.mean():.4f}, limit {lim:.4f}")


@lru_cache(maxsize=32)
def _convergence(dist, nu, seed):
    rng = np.random.default_rng(seed + 1)
    return tuple(
        simulate_bussgang_cos2(m, dist=dist, nu=nu, samples=max(64, 8192 // m), rng=rng)
        for m in WIDTHS
    )


def _convergence_panel(ax, dist, nu, seed, **_):
    """The mean row cos² ± 2 SE against the width, with the limit (and its 1/n term)."""
    nu = nu if dist == "student_t" else 5.0
    limit = bussgang_cos2(dist, nu=nu)
    ests = _convergence(dist, nu, seed)
    grid = np.geomspace(WIDTHS[0], WIDTHS[-1], 100)
    if dist != "student_t" or nu > 4:  # the 1/n term needs a finite fourth moment
        ax.plot(
            grid,
            [bussgang_cos2(dist, n=int(round(m)), nu=nu) for m in grid],
            color=COLORS["alt"],
            lw=1.5,
            label="limit + 1/n term",
        )
    ax.axhline(limit, color=COLORS["theory"], lw=2, label="limit (Fact 1)")
    ax.errorbar(
        WIDTHS,
        [e.value for e in ests],
        yerr=[2 * e.stderr for e in ests],
        fmt="o",
        ms=4,
        color=COLORS["sim"],
        capsize=3,
        label="simulation ± 2 SE",
    )
    ax.set(xscale="log", xlabel="row width n", ylabel=r"E $\cos^2$", title=_title(dist, nu))
    ax.minorticks_off()  # unlabelled minor ticks cost most of a redraw
    legend(ax)
    ax.grid(alpha=0.3)
    return animate(ax.axvline(WIDTHS[0], color=COLORS["grey"], ls=":", lw=1))[0]  # width n


def _mark(line, n, **_):
    line.set_xdata([n, n])


_PANELS = (
    Panel(_rows_panel, move=_rows_move),
    Panel(_convergence_panel, key=lambda p: (p["dist"], _nu(p), p["seed"]), move=_mark),
)


def draw(
    fig, n: int = 256, dist: str = "gaussian", nu: float = 5.0, rows: int = 400, seed: int = 0
):
    """Left: the distribution of row cos^2 at width n. Right: its mean +- 2 SE against n.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(n=n, dist=dist, nu=nu, rows=rows, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def explore() -> Explore:
    """The chapter's Explore figure: width x weight law x Student-t ν, all precomputed."""
    c = control
    controls = {
        "n": c(256, 4, 4096, 4, label="width n", values=(16, 64, 256, 1024, 4096)),
        "dist": c("gaussian", options=[(_NAMES[k], k) for k in sm.DISTRIBUTIONS], label="weights"),
        "nu": c(
            5.0,
            2.5,
            30.0,
            0.5,
            label="Student-t ν",
            values=(3.0, 5.0, 10.0, 30.0),
            when={"dist": "student_t"},  # ν means nothing for the other laws
        ),
    }
    return explore_figure(
        draw, controls, update=Panels.update, grid=("n", "dist", "nu"), figsize=(8, 4.4)
    )


#: What the page calls each weight law.
_NAMES = {
    "gaussian": "Gaussian",
    "laplace": "Laplace",
    "student_t": "Student-t",
    "uniform": "uniform",
}


def _title(dist, nu):
    return f"{_NAMES[dist]} rows" + (f", ν = {nu:g}" if dist == "student_t" else "")
