"""Theorem 3, the Explore figure: C(p) in the limit, by the author's formula and by the exact
kernel, against simulation at the chosen width, before and after the norm."""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from companion.plotting import COLORS, legend, set_errorbar
from companion.theory.transverse_ratio import (
    PAPER_TABLE2,
    post_norm_inflation,
    simulate_transverse_ratio_grid,
    transverse_ratio_exact,
    transverse_ratio_limit,
    transverse_ratio_paper,
)
from companion.widgets import Explore, animate, control
from companion.widgets import explore as explore_figure

#: Flip rates precomputed for the page.
FLIP_RATES = (1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.2)


#: Where the Explore figure simulates (cached per width: moving p only moves the marker).
SIM_RATES = (0.002, 0.01, 0.05, 0.2)


#: Widths offered by the Explore figure.
WIDTHS = (64, 128, 256, 512)


#: y ranges that hold every width's simulation +- 2 SE (checked in tests/unit/test_widgets.py).
YLIM = ((1.8, 2.95), (1.8, 6.8))


@lru_cache(maxsize=16)
def _sims(n, seed):
    return tuple(simulate_transverse_ratio_grid(SIM_RATES, n, samples=400, seeds=3, rng=seed))


def _title(p, n):
    return (
        f"p = {p:.2g}, n = {n}: exact {transverse_ratio_exact(p):.3f}, "
        f"author {transverse_ratio_paper(p):.3f}"
    )


def _points(sims, post: bool):
    est = [s.C_post_norm_fd if post else s for s in sims]
    return [s.p for s in sims], [e.value for e in est], [2 * e.stderr for e in est]


def draw(fig, p: float = 0.01, n: int = 256, seed: int = 0):
    """Left: first-order C(p), three closed forms and simulation +- 2 SE. Right: the post-norm
    trap. Returns the state :func:`update` moves."""
    sims = _sims(int(n), int(seed))
    grid = np.geomspace(1e-4, 0.2, 120)
    exact = transverse_ratio_exact(grid)
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    ax1.axhline(transverse_ratio_limit(), color="k", lw=1, ls="--", label="limit π/(π−2)")
    ax1.plot(
        grid,
        transverse_ratio_paper(grid),
        color=COLORS["paper"],
        lw=2,
        label="author's formula c(p)",
    )
    ax1.plot(grid, exact, color=COLORS["theory"], lw=2, label="exact kernel (ours)")
    sim1 = ax1.errorbar(
        *_points(sims, False),
        fmt="o",
        color=COLORS["sim"],
        ms=4,
        capsize=3,
        label="simulation at width n ± 2 SE",
    )
    ps = sorted(PAPER_TABLE2)
    ax1.errorbar(
        ps,
        [PAPER_TABLE2[q][0] for q in ps],
        yerr=[2 * PAPER_TABLE2[q][1] for q in ps],
        fmt="s",
        mfc="none",
        color=COLORS["paper"],
        ms=5,
        capsize=2,
        label="paper's measured (n = 2048)",
    )
    line1 = ax1.axvline(p, color=COLORS["grey"], ls=":")
    ax1.set(
        xscale="log",
        xlim=(8e-5, 0.25),
        ylim=YLIM[0],
        xlabel="flip rate p",
        ylabel="C = ΣT_sign / ΣT_mag",
        title=_title(p, n),
    )
    legend(ax1)
    ax1.grid(alpha=0.3)
    ax2.plot(
        grid,
        exact * post_norm_inflation(grid),
        color=COLORS["sim"],
        lw=2,
        label="C_exact × (1 + 4√(2p/π) + 4p)",
    )
    ax2.plot(grid, exact, color=COLORS["theory"], lw=2, label="first order (Theorem 3)")
    sim2 = ax2.errorbar(
        *_points(sims, True),
        fmt="o",
        color=COLORS["sim"],
        ms=4,
        capsize=3,
        label="post-norm finite difference (sim)",
    )
    line2 = ax2.axvline(p, color=COLORS["grey"], ls=":")
    ax2.set(
        xscale="log",
        xlim=(8e-5, 0.25),
        ylim=YLIM[1],
        xlabel="flip rate p",
        ylabel="C measured after the norm",
        title="trap: measuring after the norm",
    )
    legend(ax2, ncols=1)
    ax2.grid(alpha=0.3)
    # legends stay in the background (text is slow to draw); what moves is blitted
    animate(line1, line2, ax1.title, sim1, sim2)
    return SimpleNamespace(lines=(line1, line2), title=ax1.title, sims=(sim1, sim2))


def update(state, p: float = 0.01, n: int = 256, seed: int = 0) -> bool:
    """Move the p marker and the title; on a new width, the simulation points."""
    for line in state.lines:
        line.set_xdata([p, p])
    state.title.set_text(_title(p, n))
    sims = _sims(int(n), int(seed))
    for container, post in zip(state.sims, (False, True), strict=True):
        set_errorbar(container, *_points(sims, post))
    return False  # only animated artists changed


def readout(p: float = 0.01, n: int = 256, seed: int = 0) -> str:
    """The numbers the figure shows at ``p`` and ``n``, in words (under the figure)."""
    text = (
        f"At p = {p:.2g}: exact kernel C = {transverse_ratio_exact(p):.3f}, author's formula "
        f"{transverse_ratio_paper(p):.3f}, after the norm "
        f"{transverse_ratio_exact(p) * post_norm_inflation(p):.3f}"
    )
    sim = next((s for s in _sims(int(n), int(seed)) if np.isclose(s.p, p)), None)
    if sim is not None:
        text += f"; simulated at n = {n}: {sim.value:.3f} ± {sim.stderr:.3f}"
    if p in PAPER_TABLE2:
        text += f"; paper's measured (n = 2048): {PAPER_TABLE2[p][0]:.3f}"
    return text + "."


def explore() -> Explore:
    """The chapter's Explore figure: flip rate p x width n, all 28 combinations precomputed."""
    controls = {
        "p": control(0.01, 1e-4, 0.2, log=True, label="flip rate p", values=FLIP_RATES),
        "n": control(256, options=WIDTHS, label="width n"),
    }
    return explore_figure(
        draw, controls, update=update, grid=("p", "n"), figsize=(8, 4.4), readout=readout
    )
