"""Theorem 4, the geometry of sign quantisation (``book/sign_magnitude/theorem4.md``): its sizes,
the Explore figure (error geometry against the width, two quantisers) and the claims
``dong.thm4.*``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend, set_errorbar
from companion.theory.perturbations import gaussian_weights, sphere_inputs
from companion.theory.quantization import (
    QUANTIZERS,
    quantization_cos2_limit,
    quantization_error_geometry,
    quantization_radial_post,
    quantization_radial_pre,
)
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "WIDTHS", "draw", "explore"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    m: int  # rows of the Gaussian W (chapter check and claims)
    n: int  # its columns
    samples: int  # sphere inputs


SIZES = {
    "cpu": Sizes(m=512, n=1024, samples=2000),
    "full": Sizes(m=1024, n=2048, samples=10000),
    "smoke": Sizes(m=32, n=64, samples=100),
}


#: Widths precomputed for the page.
WIDTHS = (16, 32, 64, 128, 256, 512, 1024)


_LABELS = {"sign_absmean": "sign × absmean (Theorem 4)", "ternary": "BitNet b1.58 ternary (zeros)"}

_NAMES = ["row cos²", "vector cos²", "R pre-ReLU", "R post-ReLU"]  # R: error radial fraction


@lru_cache(maxsize=32)
def _geometry(quantizer, n, seed):
    W = gaussian_weights(n, n, rng=seed)
    return W, quantization_error_geometry(W, quantizer, samples=400, rng=seed + 1)


@lru_cache(maxsize=32)
def _one_input(quantizer, n, seed):
    """z = W x and z_q = W_q x for one sphere input, and the regression slope of z_q on z."""
    W, _ = _geometry(quantizer, n, seed)
    x = sphere_inputs(1, W.shape[1], rng=seed + 2)[0]  # (n,)
    z, zq = W @ x, QUANTIZERS[quantizer](W) @ x
    return z, zq, float(z @ zq / (z @ z))


#: Half-width of the units panel, in units of rms(z): holds every hidden unit at every width.
_UNITS_LIM = 4.5


def _units_panel(ax, **_):
    """z = W x against z_q = W_q x, one dot per hidden unit, both over rms(z) (one scale at
    every width: the panel is drawn once and moved by :func:`_units_move`)."""
    t = np.array([-_UNITS_LIM, _UNITS_LIM])
    ax.plot(t, t, color=COLORS["grey"], lw=1, label="z_q = z")
    dots = ax.scatter([0.0], [0.0], s=6, color=COLORS["sim"], alpha=0.6)
    (fit,) = ax.plot(t, t, color=COLORS["theory"], lw=2, label="regression line")
    ax.set(
        xlim=tuple(t),
        ylim=tuple(t),
        xlabel="z / rms(z), with z = W x",
        ylabel="z_q / rms(z), with z_q = W_q x",
    )
    legend(ax)
    ax.grid(alpha=0.3)
    return animate(dots, fit, ax.title)


def _units_move(artists, quantizer, n, seed, **_):
    dots, fit, title = artists
    z, zq, slope = _one_input(quantizer, int(n), int(seed))
    rms = float(np.sqrt(np.mean(z**2)))
    dots.set_offsets(np.column_stack([z, zq]) / rms)
    fit.set_ydata(slope * fit.get_xdata())
    title.set_text(f"{_LABELS[quantizer]}: slope {slope:.3f}")


def _constants_panel(ax, **_):
    """The four constants of Theorem 4: the theorem's limits and the measured values."""
    theory = [
        quantization_cos2_limit(),
        quantization_cos2_limit(),
        quantization_radial_pre(),
        quantization_radial_post(),
    ]
    xs = np.arange(4)
    ax.bar(xs - 0.2, theory, width=0.4, color=COLORS["theory"], label="Theorem 4 (n → ∞)")
    bars = ax.bar(
        xs + 0.2,
        theory,
        width=0.4,
        yerr=[0.0] * 4,
        color=COLORS["sim"],
        capsize=3,
        label="measured, ± 2 SE",
    )
    ax.set_xticks(xs, _NAMES)
    ax.set(ylim=(0, 1))
    legend(ax)
    ax.grid(alpha=0.3, axis="y")
    return animate(*bars.patches, bars.errorbar, ax.title), bars


def _constants_move(artists, quantizer, n, seed, **_):
    (*_animated, title), bars = artists
    _, geo = _geometry(quantizer, int(n), int(seed))
    ests = [geo.row_cos2, geo.vector_cos2, geo.radial_pre, geo.radial_post]
    for bar, e in zip(bars.patches, ests, strict=True):
        bar.set_height(e.value)
    set_errorbar(
        bars.errorbar, np.arange(4) + 0.2, [e.value for e in ests], [2 * e.stderr for e in ests]
    )
    title.set_text(
        f"n = {n}: signs kept: {'yes' if geo.sign_preserving else 'no'}; "
        f"zeros: {100 * geo.zero_fraction:.0f}%"
    )


_PANELS = (
    Panel(_units_panel, move=_units_move),
    Panel(_constants_panel, move=_constants_move),
)


def draw(fig, quantizer: str = "sign_absmean", n: int = 256, seed: int = 0):
    """Left: z = Wx against z_q = W_q x for one input. Right: measured constants vs Theorem 4's.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    return Panels(fig.subplots(1, 2), _PANELS, dict(quantizer=quantizer, n=n, seed=seed))


def explore() -> Explore:
    """The chapter's Explore figure: both quantisers x seven widths, all precomputed."""
    controls = {
        "quantizer": control(
            "sign_absmean", options=[(_LABELS[q], q) for q in QUANTIZERS], label="quantiser"
        ),
        "n": control(256, 16, 1024, 16, label="width n", values=WIDTHS),
    }
    return explore_figure(
        draw, controls, update=Panels.update, grid=("quantizer", "n"), figsize=(8, 4.4)
    )
