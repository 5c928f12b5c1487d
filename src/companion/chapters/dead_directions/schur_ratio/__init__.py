"""The Schur ratio and its random-matrix baseline (``book/dead_directions/schur_ratio.md``): its
sizes, the Explore figure and the claim ``shirodkar.schur_baseline``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as st

from companion.chapters import docname
from companion.plotting import COLORS, legend, set_errorbar
from companion.theory.schur_ratio import mp_baseline, schur_ratios_coordinates, simulate_schur_ratio
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "PLAYER_RATIOS", "RATIOS", "draw", "explore", "readout"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    trials: int  # sample covariances per N/d in the chapter's check (d = 32)


SIZES = {
    "cpu": Sizes(trials=100),
    "full": Sizes(trials=400),
    "smoke": Sizes(trials=10),
}


#: Sample-to-width ratios N/d of the right panel.
RATIOS = (1.5, 2, 3, 4, 6, 8, 16, 32)


#: N/d values precomputed for the page.
PLAYER_RATIOS = (1.5, 2.0, 4.0, 8.0, 32.0)


def _samples(ratio, d):
    return max(d + 2, int(round(ratio * d)))


@lru_cache(maxsize=64)
def _ratios(ratio: float, d: int, trials: int, seed: int):
    """R(e_i) over the axes of ``trials`` centred Gaussian sample covariances at N/d."""
    g = np.random.default_rng(seed)
    N = _samples(ratio, d)
    Rs = []
    for _ in range(trials):
        X = g.standard_normal((N, d))  # (N, d)
        X -= X.mean(axis=0)
        Rs.append(schur_ratios_coordinates(X.T @ X))
    return np.concatenate(Rs)


@lru_cache(maxsize=32)
def _means(d: int, seed: int):
    """Mean R ± SE at every N/d of the right panel."""
    g = np.random.default_rng(seed + 1)
    return tuple(simulate_schur_ratio(d, _samples(r, d), trials=8, rng=g) for r in RATIOS)


def _law_panel(ax, **_):
    """R(e_i) over axes and trials at this N/d, with the exact Beta law: drawn once, moved
    by :func:`_law_move` (R lies in [0, 1]; the density axis has no numbers, so that a new
    setting only rescales it)."""
    hist = ax.stairs(
        [0.0], [0.0, 1.0], fill=True, color=COLORS["sim"], alpha=0.7, label="R(e_i), simulated"
    )
    (law,) = ax.plot(
        _X, np.zeros_like(_X), color=COLORS["theory"], lw=2, label="Beta((N−d)/2, (d−1)/2)"
    )
    base = ax.axvline(0.5, color=COLORS["alt"], ls="--", label="1 − d/N")
    ax.set(xlim=(0, 1), xlabel="R(h)", ylabel="density")
    ax.set_yticks([])
    legend(ax, ncols=1)
    return animate(hist, law, base, ax.title)


def _law_move(artists, ratio, d, trials, seed, **_):
    hist, law, base, title = artists
    Rs = _ratios(float(ratio), int(d), int(trials), int(seed))
    N = _samples(ratio, d)
    density, edges = np.histogram(Rs, bins=30, density=True)
    pdf = st.beta.pdf(_X, (N - d) / 2, (d - 1) / 2)
    hist.set_data(density, edges)
    law.set_ydata(pdf)
    hist.axes.set_ylim(0, 1.08 * max(density.max(), pdf.max()))
    base.set_xdata([1 - d / N] * 2)
    title.set_text(f"d = {d}, N = {N}: 1 − d/N = {1 - d / N:.3f}  (Δγ ≈ d/N)")


_X = np.linspace(1e-3, 1 - 1e-3, 300)


def _mean_panel(ax, **_):
    """Mean R ± 2 SE against N/d, the exact mean and the MP baseline 1 − d/N."""
    grid = np.geomspace(RATIOS[0], RATIOS[-1], 100)
    (exact,) = ax.plot(grid, grid, color=COLORS["theory"], lw=2, label="exact (N−d)/(N−1)")
    ax.plot(grid, 1 - 1 / grid, color=COLORS["alt"], ls="--", label="MP baseline 1 − d/N")
    sims = ax.errorbar(
        RATIOS,
        np.ones(len(RATIOS)),
        yerr=np.zeros(len(RATIOS)),
        fmt="o",
        ms=4,
        color=COLORS["sim"],
        capsize=3,
        label="simulation ± 2 SE",
    )
    ax.set(
        xscale="log",
        ylim=(0.25, 1.02),
        xlabel="N / d",
        ylabel="E R(h)",
        title="isotropic null of the Schur ratio",
    )
    ax.set_xticks(RATIOS, [f"{r:g}" for r in RATIOS])
    ax.minorticks_off()
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    mark = ax.axvline(RATIOS[0], color=COLORS["grey"], ls=":", lw=1)
    return animate(exact, sims, mark), exact, sims, mark


def _mean_move(artists, ratio, d, seed, **_):
    _, exact, sims, mark = artists
    grid = exact.get_xdata()
    exact.set_ydata([mp_baseline(d, int(round(r * d))) for r in grid])
    ests = _means(int(d), int(seed))
    set_errorbar(sims, RATIOS, [e.value for e in ests], [2 * e.stderr for e in ests])
    mark.set_xdata([ratio, ratio])


_PANELS = (
    Panel(_law_panel, move=_law_move),
    Panel(_mean_panel, move=_mean_move),
)


def draw(fig, ratio: float = 4.0, d: int = 32, trials: int = 20, seed: int = 0):
    """Left: R(e_i) over axes and trials at this N/d, with the exact Beta law.
    Right: mean R +- 2 SE against N/d, the exact mean and the MP baseline 1 - d/N.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(ratio=ratio, d=d, trials=trials, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def readout(ratio: float = 4.0, d: int = 32, trials: int = 20, seed: int = 0) -> str:
    """The sentence under the Explore figure: the simulated R(e_i) at this N/d and width
    against the exact mean and the MP baseline."""
    Rs = _ratios(float(ratio), int(d), int(trials), int(seed))
    N = _samples(ratio, d)
    return (
        f"d = {d}, N = {N}: R(e_i) over {Rs.size:,} axes of {trials} covariances, mean "
        f"{Rs.mean():.3f} (sd {Rs.std(ddof=1):.3f}); exact (N−d)/(N−1) = {mp_baseline(d, N):.3f}, "
        f"MP baseline 1 − d/N = {1 - d / N:.3f}."
    )


def explore() -> Explore:
    """The chapter's Explore figure: every N/d x width precomputed; its readout states the
    simulated mean against the exact one and the baseline."""
    controls = {
        "ratio": control(4.0, 1.5, 32.0, 0.5, label="N / d", values=PLAYER_RATIOS),
        "d": control(32, 8, 64, 8, label="width d", values=(8, 16, 32, 64)),
    }
    return explore_figure(
        draw,
        controls,
        update=Panels.update,
        grid=("ratio", "d"),
        figsize=(8, 4.4),
        readout=readout,
    )
