"""T1 widget: the LayerNorm kernel against gamma, beta, eps, the inputs and the activation precision."""

from __future__ import annotations

import numpy as np

from companion.plotting import COLORS
from companion.theory.ln_kernel import (
    kernel_report,
    normalised_activations,
    sample_gamma,
    sample_inputs,
)
from companion.theory.null_classifier import precision_floor

__all__ = ["draw", "PRECISIONS_SWEEP"]

#: Frames of the kernel-free player: the storage precision of the activations.
PRECISIONS_SWEEP = ("float64", "float32", "float16", "bfloat16")


def data(
    d=64,
    sigma=1.0,
    signs=True,
    beta=1.0,
    eps=1e-5,
    dist="student_t",
    n_ratio=8,
    precision="float64",
    seed=0,
):
    """The widget's computation: (gamma, report) for one setting (pure, seeded)."""
    rng = np.random.default_rng(seed)
    n = int(n_ratio * d)
    x = sample_inputs(n, d, dist, rng=rng)  # (n, d)
    g = sample_gamma(d, sigma, signs=signs, rng=rng)  # (d,)
    b = beta * rng.standard_normal(d)  # (d,)
    rep = kernel_report(normalised_activations(x, g, b, eps, precision=precision), g)
    return g, rep


def draw(
    fig,
    d: int = 64,
    sigma: float = 1.0,
    signs: bool = True,
    beta: float = 1.0,
    eps: float = 1e-5,
    dist: str = "student_t",
    n_ratio: int = 8,
    precision: str = "float64",
    seed: int = 0,
):
    """Left: the covariance spectrum with v*'s Rayleigh quotient and the rounding floor.
    Right: components of the measured bottom direction against v*."""
    g, rep = data(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed)
    ax1, ax2 = fig.subplots(1, 2)
    lam = np.abs(rep.spectrum) / rep.spectrum[-1]
    tiny = 1e-22
    ax1.semilogy(
        np.arange(1, d + 1),
        np.maximum(lam, tiny),
        ".",
        ms=4,
        color=COLORS["grey"],
        label="eigenvalues of C / λ_max",
    )
    ax1.axhline(
        max(abs(rep.rayleigh), tiny),
        color=COLORS["sim"],
        lw=2,
        label=f"v*ᵀCv*/λ_max = {rep.rayleigh:.1e}",
    )
    diag = rep.rayleigh / rep.diag_rayleigh if rep.diag_rayleigh != 0 else np.nan
    floor = precision_floor(precision, d, offset_ratio=rep.offset_ratio) * diag
    ax1.axhline(floor, color=COLORS["theory"], ls="--", lw=1.2, label=f"{precision} rounding floor")
    ax1.set(
        xlabel="eigenvalue index (ascending)",
        ylabel="relative eigenvalue",
        ylim=(tiny, 3),
        title=f"N = {rep.n_samples}, d = {d}, {precision} activations",
    )
    ax1.legend(fontsize=7, loc="lower right")
    ax1.grid(alpha=0.3)
    v, u = rep.vstar, rep.bottom
    if u is not None:
        u = u * np.sign(u @ v) if u @ v != 0 else u
        lim = 1.05 * max(np.abs(v).max(), np.abs(u).max())
        ax2.plot([-lim, lim], [-lim, lim], color=COLORS["theory"], lw=1, label="perfect alignment")
        ax2.scatter(v, u, s=10, color=COLORS["sim"], alpha=0.8, label="coordinates i")
        ax2.set(xlim=(-lim, lim), ylim=(-lim, lim))
        ax2.set(title=f"|cos(v*, bottom direction)| = {rep.cos:.4f}")
        ax2.legend(fontsize=7, loc="upper left")
    else:
        ax2.text(
            0.5,
            0.5,
            "N ≤ d: the bottom direction is not unique\n(centred rank ≤ N − 1)",
            ha="center",
            va="center",
            transform=ax2.transAxes,
        )
        ax2.set(title="no unique bottom direction")
    ax2.set(
        xlabel=r"predicted $v^*_i = \gamma_i^{-1}/\|\gamma^{-1}\|$",
        ylabel="measured bottom direction $u_i$",
    )
    ax2.grid(alpha=0.3)
