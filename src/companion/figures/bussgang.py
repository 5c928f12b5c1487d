"""Fact 1 widget: row cos^2(w, sign w) against width n and the weight distribution."""

from __future__ import annotations

import numpy as np

from companion.plotting import COLORS
from companion.theory.bussgang import (
    bussgang_cos2,
    row_cos2,
    sample_weights,
    simulate_bussgang_cos2,
)

__all__ = ["draw", "WIDTHS"]

#: Widths of the convergence panel (and of the kernel-free frame player).
WIDTHS = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def draw(
    fig, n: int = 256, dist: str = "gaussian", nu: float = 5.0, rows: int = 400, seed: int = 0
):
    """Left: the distribution of row cos^2 at width n. Right: its mean +- 2 SE against n."""
    rng = np.random.default_rng(seed)
    limit = bussgang_cos2(dist, nu=nu)
    ax1, ax2 = fig.subplots(1, 2)
    c = row_cos2(sample_weights((rows, n), dist, nu=nu, rng=rng))  # (rows,)
    ax1.hist(c, bins=30, color=COLORS["sim"], alpha=0.7, density=True)
    ax1.axvline(limit, color=COLORS["theory"], lw=2, label=f"limit {limit:.4f}")
    ax1.axvline(c.mean(), color="k", ls="--", lw=1, label=f"mean {c.mean():.4f}")
    ax1.set(
        xlabel=r"row $\cos^2(w,\ \mathrm{sign}\,w)$",
        ylabel="density",
        title=f"{rows} rows of width n = {n}",
    )
    ax1.legend(fontsize=8)
    ests = [
        simulate_bussgang_cos2(m, dist=dist, nu=nu, samples=max(64, 8192 // m), rng=rng)
        for m in WIDTHS
    ]
    grid = np.geomspace(WIDTHS[0], WIDTHS[-1], 100)
    finite_ok = dist != "student_t" or nu > 4
    if finite_ok:
        ax2.plot(
            grid,
            [bussgang_cos2(dist, n=int(round(m)), nu=nu) for m in grid],
            color=COLORS["alt"],
            lw=1.5,
            label="limit + 1/n term",
        )
    ax2.axhline(limit, color=COLORS["theory"], lw=2, label="limit (Fact 1)")
    ax2.errorbar(
        WIDTHS,
        [e.value for e in ests],
        yerr=[2 * e.stderr for e in ests],
        fmt="o",
        ms=4,
        color=COLORS["sim"],
        capsize=3,
        label="simulation ± 2 SE",
    )
    ax2.axvline(n, color=COLORS["grey"], ls=":", lw=1)
    ax2.set(xscale="log", xlabel="row width n", ylabel=r"E $\cos^2$", title=_title(dist, nu))
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)


def _title(dist, nu):
    return {
        "gaussian": "Gaussian rows",
        "laplace": "Laplace rows",
        "uniform": "uniform rows",
        "student_t": f"Student-t rows, ν = {nu:g}",
    }[dist]
