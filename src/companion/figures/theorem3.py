"""Theorem 3 widget: C(p) -- limit, the author's formula, the exact kernel and simulation."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.plotting import COLORS
from companion.theory.transverse_ratio import (
    PAPER_TABLE2,
    post_norm_inflation,
    simulate_transverse_ratio_grid,
    transverse_ratio_exact,
    transverse_ratio_limit,
    transverse_ratio_paper,
)

__all__ = ["FLIP_RATES", "SIM_RATES", "WIDTHS", "draw"]

#: Flip rates of the kernel-free frame player.
FLIP_RATES = (1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.2)
#: Where the widget simulates (cached per width: moving p only moves the marker).
SIM_RATES = (0.002, 0.01, 0.05, 0.2)
#: Widths offered by the widget.
WIDTHS = (64, 128, 256, 512)


@lru_cache(maxsize=16)
def _sims(n, seed):
    return tuple(simulate_transverse_ratio_grid(SIM_RATES, n, samples=400, seeds=3, rng=seed))


def draw(fig, p: float = 0.01, n: int = 256, seed: int = 0):
    """Left: first-order C(p), three closed forms and simulation +- 2 SE. Right: the post-norm trap."""
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
    ax1.errorbar(
        [s.p for s in sims],
        [s.value for s in sims],
        yerr=[2 * s.stderr for s in sims],
        fmt="o",
        color=COLORS["sim"],
        ms=4,
        capsize=3,
        label=f"simulation n = {n} ± 2 SE",
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
    ax1.axvline(p, color=COLORS["grey"], ls=":")
    ax1.set(
        xscale="log",
        xlabel="flip rate p",
        ylabel="C = ΣT_sign / ΣT_mag",
        title=f"p = {p:.2g}: exact {transverse_ratio_exact(p):.3f}, author {transverse_ratio_paper(p):.3f}",
    )
    ax1.legend(fontsize=7, loc="lower left")
    ax1.grid(alpha=0.3)
    ax2.plot(
        grid,
        exact * post_norm_inflation(grid),
        color=COLORS["sim"],
        lw=2,
        label="C_exact × (1 + 4√(2p/π) + 4p)",
    )
    ax2.plot(grid, exact, color=COLORS["theory"], lw=2, label="first order (Theorem 3)")
    ax2.errorbar(
        [s.p for s in sims],
        [s.C_post_norm_fd.value for s in sims],
        yerr=[2 * s.C_post_norm_fd.stderr for s in sims],
        fmt="o",
        color=COLORS["sim"],
        ms=4,
        capsize=3,
        label="post-norm finite difference (sim)",
    )
    ax2.axvline(p, color=COLORS["grey"], ls=":")
    ax2.set(xscale="log", xlabel="flip rate p", title="trap: measuring after the norm")
    ax2.legend(fontsize=7, loc="upper left")
    ax2.grid(alpha=0.3)
