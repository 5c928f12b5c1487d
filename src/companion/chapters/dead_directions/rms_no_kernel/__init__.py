"""RMSNorm has no kernel (``book/dead_directions/rms_no_kernel.md``): its sizes, the Explore figure
(the witness and the |cos| trap) and the claim ``shirodkar.rms_no_kernel``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.chapters.dead_directions.ln_kernel import INPUTS
from companion.plotting import COLORS, legend
from companion.theory.ln_kernel import (
    kernel_report,
    normalised_activations,
    sample_gamma,
    sample_inputs,
)
from companion.theory.null_classifier import random_direction_null
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "SIGMAS", "data", "draw", "explore"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    d: int  # width of the trap experiment (generic inputs through RMSNorm)
    n: int  # input rows there
    seeds: int  # inputs drawn per gamma spread


SIZES = {
    "cpu": Sizes(d=128, n=1024, seeds=4),
    "full": Sizes(d=768, n=8192, seeds=4),
    "smoke": Sizes(d=16, n=64, seeds=2),
}


#: Spreads of |gamma| (log-normal σ) precomputed for the page.
SIGMAS = (0.0, 1.0, 1.5, 2.0, 3.0)

_TINY = 1e-22  # where exact zeros are drawn on the log axis
_NORMS = (("LN", COLORS["theory"]), ("RMS", COLORS["sim"]))


@lru_cache(maxsize=128)
def data(d=64, sigma=1.5, dist="offset", n_ratio=8, seed=0):
    """(gamma, LN report, RMS report) on the same inputs and the same gamma (pure, seeded;
    cached per setting)."""
    rng = np.random.default_rng(seed)
    x = sample_inputs(int(n_ratio * d), d, dist, rng=rng)  # (n, d)
    g = sample_gamma(d, sigma, rng=rng)  # (d,)
    b = 0.1 * rng.standard_normal(d)
    ln = kernel_report(normalised_activations(x, g, b, norm="layernorm"), g)
    rms = kernel_report(normalised_activations(x, g, norm="rmsnorm"), g)
    return g, ln, rms


def _setting(p):
    return int(p["d"]), float(p["sigma"]), p["dist"], int(p["n_ratio"]), int(p["seed"])


def _spectra_panel(ax, d, **_):
    """Both spectra with v*'s Rayleigh quotient (x limits follow the width)."""
    dots, levels, values = [], [], []
    for name, col in _NORMS:
        dots.append(ax.semilogy([1], [1], ".", ms=4, color=col, label=f"{name} spectrum")[0])
        levels.append(ax.axhline(1, color=col, lw=1.5, ls="--", label=f"{name}: v*ᵀCv*/λ_max"))
        values.append(
            ax.text(
                0.98, 1, "", transform=ax.get_yaxis_transform(), ha="right", va="bottom", color=col
            )
        )
    ax.set(
        xlim=(1 - 0.05 * (d - 1), d + 0.05 * (d - 1)),
        xlabel="eigenvalue index (ascending)",
        ylabel="eigenvalue / λ_max",
        ylim=(_TINY, 3),
    )
    legend(ax)
    ax.grid(alpha=0.3)
    return animate(*dots, *levels, *values, ax.title), dots, levels, values


def _spectra_move(artists, **p):
    _, dots, levels, values = artists
    d, sigma, *_ = _setting(p)
    _, ln, rms = data(*_setting(p))
    for rep, dot, level, value in zip((ln, rms), dots, levels, values, strict=True):
        dot.set_data(
            np.arange(1, d + 1), np.maximum(np.abs(rep.spectrum) / rep.spectrum[-1], _TINY)
        )
        y = max(abs(rep.rayleigh), _TINY)
        level.set_ydata([y, y])
        value.set(y=y, text=f"{rep.rayleigh:.1e}")
    dots[0].axes.set_title(f"same inputs, same γ (σ = {sigma:g}), N = {ln.n_samples}")


def _weights_panel(ax, **_):
    """Where v* and the RMSNorm bottom direction put their weight, against |γ_i| (fixed axes:
    every spread of the page fits)."""
    vstar = ax.scatter([1], [0], s=12, color=COLORS["theory"], label="|v*_i| (γ-read)")
    bottom = ax.scatter(
        [1], [0], s=12, marker="x", color=COLORS["sim"], label="|u_i|, RMSNorm's bottom direction"
    )
    ax.set(
        xscale="log", xlim=(1e-4, 1e4), ylim=(0, 1.05), xlabel=r"$|\gamma_i|$", ylabel="|component|"
    )
    ax.minorticks_off()
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    return animate(vstar, bottom, ax.title), vstar, bottom


def _weights_move(artists, **p):
    _, vstar, bottom = artists
    d = int(p["d"])
    g, ln, rms = data(*_setting(p))
    vstar.set_offsets(np.column_stack([np.abs(g), np.abs(rms.vstar)]))
    bottom.set_visible(rms.bottom is not None)
    if rms.bottom is not None:
        bottom.set_offsets(np.column_stack([np.abs(g), np.abs(rms.bottom)]))
    q999 = random_direction_null(d).q999
    vstar.axes.set_title(
        f"RMSNorm |cos| = {rms.cos:.3f} (null 99.9%: {q999:.3f})\n"
        f"v*ᵀCv*/Σv*²C_ii: RMS {rms.diag_rayleigh:.2g}, LN {ln.diag_rayleigh:.1e}"
    )


_PANELS = (
    Panel(_spectra_panel, key=("d",), move=_spectra_move),
    Panel(_weights_panel, move=_weights_move),
)


def draw(
    fig, d: int = 64, sigma: float = 1.5, dist: str = "offset", n_ratio: int = 8, seed: int = 0
):
    """Left: both spectra with v*'s Rayleigh quotient. Right: where the bottom directions live.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(d=d, sigma=sigma, dist=dist, n_ratio=n_ratio, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def explore() -> Explore:
    """The chapter's Explore figure: γ spread x inputs in full, width and N/d one at a time."""
    c = control
    controls = {
        "sigma": c(1.5, 0.0, 3.0, 0.1, label="γ spread σ", values=SIGMAS),
        "dist": c("offset", options=INPUTS, label="inputs"),
        "d": c(64, 16, 192, 16, label="width d", values=(16, 32, 64, 128, 192)),
        "n_ratio": c(8, 2, 16, 1, label="N / d", values=(2, 4, 8, 16)),
    }
    return explore_figure(
        draw, controls, update=Panels.update, grid=("sigma", "dist"), figsize=(8, 4.6)
    )
