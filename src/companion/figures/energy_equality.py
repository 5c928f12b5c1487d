"""Proposition 1 widget: radial fractions of one linear layer and of the two-layer ReLU block."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.plotting import COLORS
from companion.theory.energy_equality import (
    simulate_single_layer,
    single_layer_radial_fraction,
    single_layer_transverse_ratio,
)
from companion.theory.transverse_ratio import branch_moments, simulate_transverse_ratio

__all__ = ["FLIP_RATES", "draw"]

#: Flip rates of the kernel-free frame player.
FLIP_RATES = (0.005, 0.02, 0.05, 0.1, 0.2)


@lru_cache(maxsize=64)
def _sims(p, m, seed):
    one = simulate_single_layer(p, m, samples=150, seeds=4, rng=seed)
    two = simulate_transverse_ratio(p, m, samples=150, seeds=3, rng=seed)
    return one, two


def draw(fig, p: float = 0.05, m: int = 128, seed: int = 0):
    """Left: one linear layer, radial fraction vs p. Right: two-layer hidden radial fractions."""
    one, two = _sims(float(p), int(m), int(seed))
    grid = np.geomspace(1e-3, 0.3, 80)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(
        grid,
        [single_layer_radial_fraction(q, m=m) for q in grid],
        color=COLORS["sim"],
        lw=2,
        label="sign flip: p + (1−p)/m",
    )
    ax1.axhline(1 / m, color=COLORS["alt"], lw=2, label="independent noise: 1/m")
    ax1.axhline(
        single_layer_radial_fraction(kind="magnitude", m=m),
        color=COLORS["theory"],
        lw=2,
        label="constant-δ magnitude: 2/π",
    )
    for est, col in ((one.R_sign, "sim"), (one.R_noise, "alt"), (one.R_magnitude, "theory")):
        ax1.errorbar(
            [p], [est.value], yerr=[2 * est.stderr], fmt="o", color=COLORS[col], ms=5, capsize=3
        )
    ax1.set(
        xscale="log",
        yscale="log",
        ylim=(5e-4, 1.2),
        xlabel="flip rate p",
        ylabel="radial fraction R",
        title=f"one linear layer, m = {m}: T_noise/T_sign = {one.T_ratio.value:.3f} "
        f"(1/(1−p) = {single_layer_transverse_ratio(p):.3f})",
    )
    ax1.title.set_fontsize(8)
    ax1.legend(fontsize=7, loc="center right")
    ax1.grid(alpha=0.3)
    bm = [branch_moments(q) for q in grid]
    ax2.plot(
        grid,
        [b.R_sign for b in bm],
        color=COLORS["sim"],
        lw=2,
        label="sign flip (exact kernel) → p",
    )
    ax2.plot(
        grid,
        [b.R_mag for b in bm],
        color=COLORS["theory"],
        lw=2,
        label="magnitude (exact kernel) → 2/π",
    )
    ax2.plot(
        grid,
        [b.R_sign + 2 * (1 - b.R_sign) / m for b in bm],
        color=COLORS["sim"],
        ls=":",
        lw=1,
        label="+ finite-width offset 2(1−R)/m",
    )
    ax2.plot(
        grid, [b.R_mag + 2 * (1 - b.R_mag) / m for b in bm], color=COLORS["theory"], ls=":", lw=1
    )
    for est, col in ((two.R_sign_hidden, "sim"), (two.R_mag_hidden, "theory")):
        ax2.errorbar(
            [p], [est.value], yerr=[2 * est.stderr], fmt="o", color=COLORS[col], ms=5, capsize=3
        )
    ax2.set(
        xscale="log",
        yscale="log",
        ylim=(5e-4, 1.2),
        xlabel="flip rate p",
        title=f"two layers with ReLU (hidden h), n = m = {m}: C = {two.value:.2f}",
    )
    ax2.title.set_fontsize(8)
    ax2.legend(fontsize=7, loc="center right")
    ax2.grid(alpha=0.3)
