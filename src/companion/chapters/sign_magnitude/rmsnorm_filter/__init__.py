"""The RMSNorm filter (``book/sign_magnitude/rmsnorm_filter.md``): its sizes, the Explore figure
(a perturbation split into radial and transverse parts) and the claim ``dong.rmsnorm_jacobian``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.theory.norms import rmsnorm
from companion.theory.perturbations import radial_transverse_split
from companion.theory.rmsnorm_filter import first_order_output_energy, rmsnorm_change
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "ANGLES", "draw", "explore", "readout"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    samples: int  # isotropic directions in the Monte Carlo check of E R = 1/d


SIZES = {
    "cpu": Sizes(samples=2000),
    "full": Sizes(samples=20000),
    "smoke": Sizes(samples=200),
}


#: Angles (degrees between the perturbation and u) precomputed for the page.
ANGLES = tuple(float(a) for a in range(0, 181, 20))

_U = np.array([1.6, 0.7])  # the clean pre-norm vector (2-D: the plane of u and Δ)


def _delta(angle, size):
    """Δ at ``angle`` degrees to u with ‖Δ‖ = size·‖u‖."""
    uh = _U / np.linalg.norm(_U)
    th = np.deg2rad(angle)
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    return size * np.linalg.norm(_U) * (rot @ uh)  # (2,)


def _plane_panel(ax, **_):
    """u, Δ and its radial and transverse parts, and the unit-RMS circle (moved by _arrows)."""
    circ = np.linspace(0, 2 * np.pi, 200)
    ax.plot(
        np.sqrt(2) * np.cos(circ),
        np.sqrt(2) * np.sin(circ),
        color=COLORS["grey"],
        lw=1,
        label="RMSNorm outputs (rms = 1)",
    )
    arrow = dict(angles="xy", scale_units="xy", scale=1, width=0.012)
    ax.quiver(0, 0, *_U, color="k", label="u", **arrow)
    parts = [
        ax.quiver(0, 0, 0, 0, color=COLORS[c], label=label, **arrow)
        for c, label in (
            ("sim", "Δ"),
            ("theory", "radial part (removed)"),
            ("alt", "transverse part (kept)"),
        )
    ]
    ax.plot(*rmsnorm(_U), "ko", ms=4)
    (new,) = ax.plot([0], [0], "o", color=COLORS["sim"], ms=4)
    (step,) = ax.plot([0, 0], [0, 0], color=COLORS["sim"], lw=2)
    ax.set(xlim=(-0.6, 2.6), ylim=(-0.6, 2.6), aspect="equal")
    legend(ax)
    return animate(*parts, new, step, ax.title)


def _arrows(artists, angle, size, **_):
    d_quiver, rad_quiver, trans_quiver, new, step, title = artists
    delta = _delta(angle, size)
    rad, trans = radial_transverse_split(delta, _U)
    for q, base, vec in (
        (d_quiver, _U, delta),
        (rad_quiver, _U, rad),
        (trans_quiver, _U + rad, trans),
    ):
        q.set_offsets([base])
        q.set_UVC(*vec)
    y, y2 = rmsnorm(_U), rmsnorm(_U + delta)
    new.set_data([y2[0]], [y2[1]])
    step.set_data([y[0], y2[0]], [y[1], y2[1]])
    title.set_text(f"Δ at {angle:.0f}° to u, ‖Δ‖ = {size:.2f}‖u‖")


@lru_cache(maxsize=32)
def _energies(size):
    """(angles, exact, first-order) output energies over 0..180 degrees at this size."""
    angs = np.linspace(0, 180, 91)
    exact, first = [], []
    for a in angs:
        dl = _delta(a, size)
        ex, _ = rmsnorm_change(_U, dl)
        exact.append(float(ex @ ex))
        first.append(first_order_output_energy(_U, dl))
    return angs, exact, first


def _energy_panel(ax, size, **_):
    """Output energy after RMSNorm against the angle, exact and first order."""
    angs, exact, first = _energies(float(size))
    ax.plot(angs, first, color=COLORS["theory"], lw=2, label="first order (d/‖u‖²)·T(Δ; u)")
    ax.plot(
        angs,
        exact,
        color=COLORS["sim"],
        ls="--",
        lw=1.5,
        label="exact ‖RMSNorm(u+Δ) − y‖²",
    )
    ax.set(
        xlabel="angle between Δ and u (degrees)",
        ylabel="output energy",
        title="only the transverse part gets through",
    )
    ax.yaxis.set_label_coords(-0.17, 0.5)  # where every size's tick labels leave it room
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    return animate(ax.axvline(90, color=COLORS["grey"], ls=":"))[0]


def _mark(line, angle, **_):
    line.set_xdata([angle, angle])


_PANELS = (Panel(_plane_panel, move=_arrows), Panel(_energy_panel, key=("size",), move=_mark))


def draw(fig, angle: float = 60.0, size: float = 0.2):
    """Left: u, a perturbation at ``angle`` to it and its two parts; the unit-RMS circle.
    Right: output energy after RMSNorm against the angle, exact and first order.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    return Panels(fig.subplots(1, 2), _PANELS, dict(angle=angle, size=size))


def readout(angle: float = 60.0, size: float = 0.2) -> str:
    """The sentence under the Explore figure: Δ's two parts and the output energy at
    ``angle`` and ``size``, exact and first order."""
    delta = _delta(angle, size)
    rad, trans = radial_transverse_split(delta, _U)
    ex, _ = rmsnorm_change(_U, delta)
    first = first_order_output_energy(_U, delta)
    share = float(trans @ trans) / float(delta @ delta)
    return (
        f"At {angle:.0f}°, ‖Δ‖ = {size:.2f}‖u‖: radial part {np.linalg.norm(rad):.3f}, "
        f"transverse part {np.linalg.norm(trans):.3f} ({share:.0%} of Δ's energy); output "
        f"energy exact {float(ex @ ex):.4f}, first order {first:.4f}."
    )


def explore() -> Explore:
    """The chapter's Explore figure: every angle x size precomputed; its readout states the
    two parts of Δ and the output energy at the setting."""
    controls = {
        "angle": control(
            60.0, 0.0, 180.0, 5.0, label="angle (°)", values=tuple(map(float, ANGLES))
        ),
        "size": control(0.2, 0.02, 0.8, 0.02, label="‖Δ‖/‖u‖", values=(0.05, 0.1, 0.2, 0.4, 0.8)),
    }
    return explore_figure(
        draw,
        controls,
        update=Panels.update,
        grid=("angle", "size"),
        figsize=(8, 4.6),
        readout=readout,
    )
