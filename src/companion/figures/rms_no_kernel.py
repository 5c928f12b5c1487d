"""T2 widget: LayerNorm and RMSNorm spectra side by side, and the heterogeneous-gamma trap."""

from __future__ import annotations

import numpy as np

from companion.plotting import COLORS
from companion.theory.ln_kernel import (
    kernel_report,
    normalised_activations,
    sample_gamma,
    sample_inputs,
)
from companion.theory.null_classifier import random_direction_null

__all__ = ["draw", "SIGMAS"]

#: Frames of the kernel-free player: the log-normal spread of |gamma|.
SIGMAS = (0.0, 1.0, 2.0, 3.0)


def data(d=64, sigma=1.5, dist="offset", n_ratio=8, seed=0):
    """(gamma, LN report, RMS report) on the same inputs and the same gamma (pure, seeded)."""
    rng = np.random.default_rng(seed)
    x = sample_inputs(int(n_ratio * d), d, dist, rng=rng)  # (n, d)
    g = sample_gamma(d, sigma, rng=rng)  # (d,)
    b = 0.1 * rng.standard_normal(d)
    ln = kernel_report(normalised_activations(x, g, b, norm="layernorm"), g)
    rms = kernel_report(normalised_activations(x, g, norm="rmsnorm"), g)
    return g, ln, rms


def draw(
    fig, d: int = 64, sigma: float = 1.5, dist: str = "offset", n_ratio: int = 8, seed: int = 0
):
    """Left: both spectra with v*'s Rayleigh quotient. Right: where the bottom directions live."""
    g, ln, rms = data(d, sigma, dist, n_ratio, seed)
    ax1, ax2 = fig.subplots(1, 2)
    tiny = 1e-22
    idx = np.arange(1, d + 1)
    for rep, name, col in ((ln, "LayerNorm", COLORS["theory"]), (rms, "RMSNorm", COLORS["sim"])):
        ax1.semilogy(
            idx,
            np.maximum(np.abs(rep.spectrum) / rep.spectrum[-1], tiny),
            ".",
            ms=4,
            color=col,
            label=f"{name} spectrum",
        )
        ax1.axhline(
            max(abs(rep.rayleigh), tiny),
            color=col,
            lw=1.5,
            ls="--",
            label=f"{name}: v*ᵀCv*/λ_max = {rep.rayleigh:.1e}",
        )
    ax1.set(
        xlabel="eigenvalue index (ascending)",
        ylabel="eigenvalue / λ_max",
        ylim=(tiny, 3),
        title=f"same inputs, same γ (σ = {sigma:g}), N = {ln.n_samples}",
    )
    ax1.legend(fontsize=7, loc="lower right")
    ax1.grid(alpha=0.3)
    q999 = random_direction_null(d).q999
    ax2.scatter(np.abs(g), np.abs(rms.vstar), s=12, color=COLORS["theory"], label="|v*_i| (γ-read)")
    if rms.bottom is not None:
        ax2.scatter(
            np.abs(g),
            np.abs(rms.bottom),
            s=12,
            marker="x",
            color=COLORS["sim"],
            label="|u_i|, RMSNorm bottom direction",
        )
    ax2.set(
        xscale="log",
        xlabel=r"$|\gamma_i|$",
        ylabel="|component|",
        title=f"RMSNorm |cos| = {rms.cos:.3f}  (null 99.9%: {q999:.3f})\n"
        f"exactness v*ᵀCv*/Σv*²C_ii: RMS {rms.diag_rayleigh:.2g}, LN {ln.diag_rayleigh:.1e}",
    )
    ax2.title.set_fontsize(9)
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
