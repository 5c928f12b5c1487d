"""Proposition 1, energy equality (``book/sign_magnitude/energy_equality.md``): its sizes, the
Explore figure (one linear layer and two layers with ReLU) and the claims ``dong.prop1.*``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend, set_errorbar
from companion.theory.energy_equality import (
    simulate_single_layer,
    single_layer_radial_fraction,
    single_layer_transverse_ratio,
)
from companion.theory.transverse_ratio import branch_moments, simulate_transverse_ratio
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "FLIP_RATES", "draw", "explore"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    width: int  # m = n of the Gaussian W in the energy-equality check and claim
    samples: int  # sphere inputs of that check
    single_n: int  # inputs of the single-layer claim (p = 0.05)
    single_m: int  # outputs of the single-layer claim
    hidden_n: int  # width n = m = d of the two-layer claim dong.prop1.hidden_radial


# ‖ΔW x̂‖² scatters with a relative variance of about 2.5/n for a 5% flip, so with samples =
# 400 n one SE is about 1/(13 n): the energy check resolves a 1/n slip (a divisor n − 1).
SIZES = {
    "cpu": Sizes(width=64, samples=25600, single_n=512, single_m=128, hidden_n=512),
    "full": Sizes(width=256, samples=102400, single_n=2048, single_m=512, hidden_n=2048),
    "smoke": Sizes(width=32, samples=12800, single_n=64, single_m=16, hidden_n=32),
}


#: Flip rates precomputed for the page.
FLIP_RATES = (0.005, 0.02, 0.05, 0.1, 0.2)

_GRID = np.geomspace(1e-3, 0.3, 80)  # flip rates of the closed-form curves


@lru_cache(maxsize=64)
def _sims(p, m, seed):
    one = simulate_single_layer(p, m, samples=150, seeds=4, rng=seed)
    two = simulate_transverse_ratio(p, m, samples=150, seeds=3, rng=seed)
    return one, two


@lru_cache(maxsize=1)
def _branches():
    bm = [branch_moments(q) for q in _GRID]
    return np.array([b.R_sign for b in bm]), np.array([b.R_mag for b in bm])


def _point(ax, color):
    eb = ax.errorbar([0.01], [0.1], yerr=[0.01], fmt="o", color=COLORS[color], ms=5, capsize=3)
    animate(eb)
    return eb


def _axes(ax, **kw):
    ax.set(
        xscale="log", yscale="log", xlim=(8e-4, 0.35), ylim=(5e-4, 1.2), xlabel="flip rate p", **kw
    )
    ax.minorticks_off()
    ax.grid(alpha=0.3)


def _single_panel(ax, **_):
    """One linear layer: radial fractions of a sign flip, independent noise and a magnitude
    perturbation against p (closed forms; simulations at the chosen p)."""
    (flip,) = ax.plot(_GRID, _GRID, color=COLORS["sim"], lw=2, label="sign flip: p + (1−p)/m")
    noise = ax.axhline(0.1, color=COLORS["alt"], lw=2, label="independent noise: 1/m")
    mag = ax.axhline(0.1, color=COLORS["theory"], lw=2, label="constant-δ magnitude: 2/π")
    points = [_point(ax, c) for c in ("sim", "alt", "theory")]
    _axes(ax, ylabel="radial fraction R")
    legend(ax, ncols=1)
    return animate(flip, noise, mag, ax.title), points


def _single_move(artists, p, m, seed, **_):
    (flip, noise, mag, title), points = artists
    one, _ = _sims(float(p), int(m), int(seed))
    flip.set_ydata([single_layer_radial_fraction(q, m=m) for q in _GRID])
    noise.set_ydata([1 / m] * 2)
    mag.set_ydata([single_layer_radial_fraction(kind="magnitude", m=m)] * 2)
    for eb, est in zip(points, (one.R_sign, one.R_noise, one.R_magnitude), strict=True):
        set_errorbar(eb, [p], [est.value], [2 * est.stderr])
    title.set_text(
        f"one linear layer, m = {m}: T_noise/T_sign = {one.T_ratio.value:.3f}\n"
        f"(1/(1−p) = {single_layer_transverse_ratio(p):.3f})"
    )


def _two_panel(ax, **_):
    """Two layers with ReLU: hidden radial fractions of both perturbations against p."""
    r_sign, r_mag = _branches()
    ax.plot(_GRID, r_sign, color=COLORS["sim"], lw=2, label="sign flip (exact kernel) → p")
    ax.plot(_GRID, r_mag, color=COLORS["theory"], lw=2, label="magnitude (exact kernel) → 2/π")
    (off_sign,) = ax.plot(
        _GRID, r_sign, color=COLORS["sim"], ls=":", lw=1, label="+ finite-width offset 2(1−R)/m"
    )
    (off_mag,) = ax.plot(_GRID, r_mag, color=COLORS["theory"], ls=":", lw=1)
    points = [_point(ax, c) for c in ("sim", "theory")]
    _axes(ax)
    legend(ax, ncols=1)
    return animate(off_sign, off_mag, ax.title), points


def _two_move(artists, p, m, seed, **_):
    (off_sign, off_mag, title), points = artists
    _, two = _sims(float(p), int(m), int(seed))
    r_sign, r_mag = _branches()
    off_sign.set_ydata(r_sign + 2 * (1 - r_sign) / m)
    off_mag.set_ydata(r_mag + 2 * (1 - r_mag) / m)
    for eb, est in zip(points, (two.R_sign_hidden, two.R_mag_hidden), strict=True):
        set_errorbar(eb, [p], [est.value], [2 * est.stderr])
    title.set_text(f"two layers with ReLU (hidden h),\nn = m = {m}: C = {two.value:.2f}")


_PANELS = (Panel(_single_panel, move=_single_move), Panel(_two_panel, move=_two_move))


def draw(fig, p: float = 0.05, m: int = 128, seed: int = 0):
    """Left: one linear layer, radial fraction vs p. Right: two-layer hidden radial fractions.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    return Panels(fig.subplots(1, 2), _PANELS, dict(p=p, m=m, seed=seed))


def explore() -> Explore:
    """The chapter's Explore figure: every flip rate x width precomputed."""
    controls = {
        "p": control(0.05, 0.002, 0.3, log=True, label="flip rate p", values=FLIP_RATES),
        "m": control(128, 16, 512, 16, label="width m", values=(32, 64, 128, 256, 512)),
    }
    return explore_figure(draw, controls, update=Panels.update, grid=("p", "m"), figsize=(8, 4.8))
