"""The LayerNorm kernel γ⁻¹/‖γ⁻¹‖ (``book/dead_directions/ln_kernel.md``): its sizes, the Explore
figure (the bottom of the covariance spectrum against precision and inputs) and the claims
``shirodkar.ln_kernel`` and ``shirodkar.bf16_floor``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.theory.ln_kernel import (
    kernel_report,
    normalised_activations,
    sample_gamma,
    sample_inputs,
)
from companion.theory.null_classifier import precision_floor
from companion.widgets import Explore, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "INPUTS", "PRECISIONS_SWEEP", "data", "draw", "explore", "update"]

CHAPTER = docname(__name__)

#: The pre-norm inputs of :func:`companion.theory.ln_kernel.sample_inputs`, as the page names them.
INPUTS = (
    ("Gaussian", "gaussian"),
    ("Student-t, one outlier", "student_t"),
    ("Gaussian + offset", "offset"),
)


@dataclass(frozen=True)
class Sizes:
    d: int  # width of the LayerNorm (chapter check and claim)
    n: int  # input rows


SIZES = {
    "cpu": Sizes(d=96, n=1024),
    "full": Sizes(d=768, n=8192),  # GPT-2's width
    "smoke": Sizes(d=16, n=64),
}


#: The storage precisions of the activations offered by the Explore figure.
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
    """The Explore figure's computation: (gamma, report) for one setting (pure, seeded;
    cached per setting, the inputs cached apart: moving gamma, beta, eps or the precision
    draws no new inputs)."""
    return _ln_data(
        int(d),
        float(sigma),
        bool(signs),
        float(beta),
        float(eps),
        dist,
        int(n_ratio),
        precision,
        int(seed),
    )


_TINY = 1e-22  # where exact zeros are drawn on the log axis
#: Limits of the scatter panel: few steps, so that most moves keep its ticks (a blit).
_NICE = (0.5, 1.0, 1.5, 2.0, 3.0)


@lru_cache(maxsize=32)
def _ln_inputs(n: int, d: int, dist: str, seed: int):
    """The inputs and the generator's state after drawing them: moves of gamma, beta, eps
    or the precision reuse them."""
    rng = np.random.default_rng(seed)
    x = sample_inputs(n, d, dist, rng=rng)  # (n, d)
    return x, rng.bit_generator.state


@lru_cache(maxsize=128)
def _ln_data(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed):
    """(gamma, report) for one setting (cached; see :func:`data`)."""
    x, state = _ln_inputs(int(n_ratio * d), d, dist, seed)
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    g = sample_gamma(d, sigma, signs=signs, rng=rng)  # (d,)
    b = beta * rng.standard_normal(d)  # (d,)
    return g, kernel_report(normalised_activations(x, g, b, eps, precision=precision), g)


def _ln_view(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed):
    """Everything the figure shows for one setting."""
    _, rep = data(
        int(d),
        float(sigma),
        bool(signs),
        float(beta),
        float(eps),
        dist,
        int(n_ratio),
        precision,
        int(seed),
    )
    lam = np.abs(rep.spectrum) / rep.spectrum[-1]
    diag = rep.rayleigh / rep.diag_rayleigh if rep.diag_rayleigh != 0 else np.nan
    floor = precision_floor(precision, d, offset_ratio=rep.offset_ratio) * diag
    v, u = rep.vstar, rep.bottom
    if u is not None and u @ v != 0:
        u = u * np.sign(u @ v)
    lim = 1.05 * max(np.abs(v).max(), np.abs(u).max() if u is not None else 0.0)  # v* alone if no u
    lim = next((x for x in _NICE if x >= lim), lim)  # limits move in steps, not every setting
    return SimpleNamespace(rep=rep, lam=np.maximum(lam, _TINY), floor=floor, v=v, u=u, lim=lim)


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
    from matplotlib.ticker import MaxNLocator  # here: the claims need no matplotlib

    ax1, ax2 = fig.subplots(1, 2)
    (dots,) = ax1.semilogy(
        [1], [1], ".", ms=4, color=COLORS["grey"], label="eigenvalues of C / λ_max"
    )
    ray = ax1.axhline(1, color=COLORS["sim"], lw=2, label="|v*ᵀCv*|/λ_max (value on the line)")
    ray_value = ax1.text(
        0.98,
        1,
        "",
        transform=ax1.get_yaxis_transform(),
        ha="right",
        va="bottom",
        color=COLORS["sim"],
    )
    floor = ax1.axhline(
        1, color=COLORS["theory"], ls="--", lw=1.2, label="rounding floor of the activations"
    )
    ax1.set(xlabel="eigenvalue index (ascending)", ylabel="relative eigenvalue", ylim=(_TINY, 3))
    legend(ax1, ncols=1)
    ax1.grid(alpha=0.3)
    (diag,) = ax2.plot([-1, 1], [-1, 1], color=COLORS["theory"], lw=1, label="perfect alignment")
    pts = ax2.scatter([0], [0], s=10, color=COLORS["sim"], alpha=0.8, label="coordinates i")
    none = ax2.text(
        0.5,
        0.5,
        "N ≤ d: the bottom direction is not unique\n(centred rank ≤ N − 1)",
        ha="center",
        va="center",
        transform=ax2.transAxes,
    )
    ax2.set(
        xlabel=r"predicted $v^*_i = \gamma_i^{-1}/\|\gamma^{-1}\|$",
        ylabel="measured bottom direction $u_i$",
    )
    for axis in (ax2.xaxis, ax2.yaxis):  # ticks at 0.1, 0.2, 0.5 steps, labels of one width:
        axis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))  # new limits then leave the
        axis.set_major_formatter("{x:.1f}")  # panel's footprint as it was (redrawn alone)
    legend(ax2)
    ax2.grid(alpha=0.3)
    # legends stay in the background (drawing text is slow); the numbers are in titles and labels
    animate(dots, ray, ray_value, floor, ax1.title, diag, pts, none, ax2.title)
    state = SimpleNamespace(
        axes=(ax1, ax2),
        dots=dots,
        ray=ray,
        floor=floor,
        ray_value=ray_value,
        diag=diag,
        pts=pts,
        none=none,
        limits=None,
    )
    update(state, d, sigma, signs, beta, eps, dist, n_ratio, precision, seed)
    return state


def update(
    state,
    d: int = 64,
    sigma: float = 1.0,
    signs: bool = True,
    beta: float = 1.0,
    eps: float = 1e-5,
    dist: str = "student_t",
    n_ratio: int = 8,
    precision: str = "float64",
    seed: int = 0,
) -> bool:
    """Set the spectrum, the two levels, the scatter and the titles for this setting."""
    view = _ln_view(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed)
    rep = view.rep
    ax1, ax2 = state.axes
    state.dots.set_data(np.arange(1, d + 1), view.lam)
    level = max(abs(rep.rayleigh), _TINY)
    state.ray.set_ydata([level] * 2)
    # a log axis shows sizes: the value is |v*ᵀCv*| (in fp64 its sign is rounding noise)
    state.ray_value.set(y=level, text=f"{abs(rep.rayleigh):.1e}")
    state.floor.set_ydata([view.floor] * 2)
    ax1.set_title(f"N = {rep.n_samples}, d = {d}, {precision} activations")
    unique = view.u is not None
    state.pts.set_visible(unique)
    state.diag.set_visible(unique)
    state.none.set_visible(not unique)
    if unique:
        state.pts.set_offsets(np.column_stack([view.v, view.u]))
        ax2.set_title(f"|cos(v*, bottom direction)| = {rep.cos:.4f}")
    else:
        ax2.set_title("no unique bottom direction")
    changed = []  # panels whose ticks move
    if state.limits is None or state.limits[0] != d:
        ax1.set_xlim(1 - 0.05 * (d - 1), d + 0.05 * (d - 1))  # matplotlib's own margins
        changed.append(ax1)
    if state.limits is None or state.limits[1] != view.lim:
        state.diag.set_data([-view.lim, view.lim], [-view.lim, view.lim])
        ax2.set(xlim=(-view.lim, view.lim), ylim=(-view.lim, view.lim))
        changed.append(ax2)
    state.limits = (d, view.lim)
    return changed


def explore() -> Explore:
    """T1's Explore figure: activation precision x width d precomputed in full (bfloat16 stays
    chosen while d moves; d = 256 at N/d = 16 is the precision ladder of the page), the other
    six controls one at a time."""
    c = control
    controls = {
        "precision": c("float64", options=PRECISIONS_SWEEP, label="activations"),
        "sigma": c(1.0, 0.0, 3.0, 0.1, label="γ spread σ", values=(0.0, 0.5, 1.0, 2.0, 3.0)),
        "d": c(64, 16, 256, 16, label="width d", values=(16, 32, 64, 128, 256)),
        "n_ratio": c(16, 1, 16, 1, label="N / d", values=(1, 2, 4, 8, 16)),
        "signs": c(True, options=(("yes", True), ("no", False)), label="random signs"),
        "beta": c(1.0, 0.0, 5.0, 0.1, label="β scale", values=(0.0, 1.0, 5.0)),
        "eps": c(1e-5, 1e-6, 1.0, log=True, label="ε", values=(1e-6, 1e-5, 1e-3, 1e-1, 1.0)),
        "dist": c("student_t", options=INPUTS, label="inputs"),
    }
    return explore_figure(
        draw,
        controls,
        update=update,
        grid=("precision", "d"),
        figsize=(8, 4.4),
    )
