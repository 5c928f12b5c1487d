"""The RMSNorm filter (``book/sign_magnitude/rmsnorm_filter.md``): its sizes, the Explore figure
(a perturbation split into radial and transverse parts) and the claim ``dong.rmsnorm_jacobian``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.chapters import docname
from companion.claims import Claim, Measurement, register
from companion.plotting import COLORS
from companion.theory import rmsnorm_filter as _rf
from companion.theory.norms import rmsnorm
from companion.theory.norms import rmsnorm_jacobian as _jac
from companion.theory.perturbations import radial_transverse_split
from companion.theory.rmsnorm_filter import first_order_output_energy, rmsnorm_change

__all__ = ["SIZES", "ANGLES", "draw"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    samples: int  # isotropic directions in the Monte Carlo check of E R = 1/d


SIZES = {
    "cpu": Sizes(samples=2000),
    "full": Sizes(samples=20000),
    "smoke": Sizes(samples=200),
}


#: Angles (degrees between the perturbation and u) of the kernel-free frame player.
ANGLES = tuple(range(0, 181, 20))


def draw(fig, angle: float = 60.0, size: float = 0.2, seed: int = 0):
    """Left: u, a perturbation at ``angle`` to it and its two parts; the unit-RMS circle.
    Right: output energy after RMSNorm against the angle, exact and first order."""
    u = np.array([1.6, 0.7])
    uh = u / np.linalg.norm(u)
    th = np.deg2rad(angle)
    rot = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    delta = size * np.linalg.norm(u) * (rot @ uh)  # (2,)
    rad, trans = radial_transverse_split(delta, u)
    y, y2 = rmsnorm(u), rmsnorm(u + delta)
    ax1, ax2 = fig.subplots(1, 2)
    circ = np.linspace(0, 2 * np.pi, 200)
    ax1.plot(
        np.sqrt(2) * np.cos(circ),
        np.sqrt(2) * np.sin(circ),
        color=COLORS["grey"],
        lw=1,
        label="RMSNorm outputs (rms = 1)",
    )
    arrow = dict(angles="xy", scale_units="xy", scale=1, width=0.012)
    ax1.quiver(0, 0, *u, color="k", label="u", **arrow)
    ax1.quiver(*u, *delta, color=COLORS["sim"], label="Δ", **arrow)
    ax1.quiver(*u, *rad, color=COLORS["theory"], label="radial part (removed)", **arrow)
    ax1.quiver(*(u + rad), *trans, color=COLORS["alt"], label="transverse part (kept)", **arrow)
    ax1.plot(*y, "ko", ms=4)
    ax1.plot(*y2, "o", color=COLORS["sim"], ms=4)
    ax1.plot([y[0], y2[0]], [y[1], y2[1]], color=COLORS["sim"], lw=2)
    lim = 2.6
    ax1.set(
        xlim=(-0.6, lim),
        ylim=(-0.6, lim),
        aspect="equal",
        title=f"Δ at {angle:.0f}° to u, ‖Δ‖ = {size:.2f}‖u‖",
    )
    ax1.legend(fontsize=7, loc="upper left")
    angs = np.linspace(0, 180, 91)
    exact, first = [], []
    for a in angs:
        t = np.deg2rad(a)
        r2 = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        dl = size * np.linalg.norm(u) * (r2 @ uh)
        ex, _ = rmsnorm_change(u, dl)
        exact.append(float(ex @ ex))
        first.append(first_order_output_energy(u, dl))
    ax2.plot(angs, first, color=COLORS["theory"], lw=2, label="first order (d/‖u‖²)·T(Δ; u)")
    ax2.plot(
        angs,
        exact,
        color=COLORS["sim"],
        ls="--",
        lw=1.5,
        label="exact ‖RMSNorm(u+Δ) − RMSNorm(u)‖²",
    )
    ax2.axvline(angle, color=COLORS["grey"], ls=":")
    ax2.set(
        xlabel="angle between Δ and u (degrees)",
        ylabel="output energy",
        title="only the transverse part gets through",
    )
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)


# ----------------------------------------------------------------------------- claims


def _jac_check(project: bool) -> Measurement:
    g = np.random.default_rng(31)
    d = 64
    u, gain = g.standard_normal(d), 1 + 0.3 * g.standard_normal(d)
    if project:
        J = _jac(u, gain)
        err = _rf.jacobian_fd_error(u, gain, directions=8, rng=32)
    else:  # the Jacobian without the projector I − ûûᵀ: diag(g)/rms(u)
        J = np.diag(gain) / np.sqrt(np.mean(u * u))
        h, err = 1e-5, 0.0
        for v in np.random.default_rng(32).standard_normal((8, d)):
            v /= np.linalg.norm(v)
            fd = (rmsnorm(u + h * v, gain) - rmsnorm(u - h * v, gain)) / (2 * h)
            err = max(err, float(np.max(np.abs(fd - J @ v))))
    radial = float(np.max(np.abs(J @ u)))
    ok = err < 1e-7 and radial < 1e-12
    return Measurement(
        value=err,
        agrees=ok,
        reason="" if ok else f"finite differences disagree with this Jacobian (error {err:.1e})",
        detail=f"d = {d}, random gain: max |central FD − J v| over 8 directions = {err:.1e}; "
        f"max |J u| = {radial:.1e}" + (" (the radial direction is annihilated)" if project else ""),
    )


def _rmsnorm_jac(scale: str = "cpu", full: bool = False) -> Measurement:
    return _jac_check(project=True)


def _rmsnorm_jac_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _jac_check(project=False)


register(
    Claim(
        id="dong.rmsnorm_jacobian",
        paper="dong",
        statement="RMSNorm's Fréchet derivative is diag(g)(1/rms(u))(I − ûûᵀ): it removes the "
        "radial direction (checked at d = 64 with a random gain).",
        paper_value="D RMSNorm(u) = diag(g) (1/rms u)(I − ûûᵀ)",
        method="central finite differences against the closed-form Jacobian, and J u = 0",
        tolerance="max error < 1e-7, |J u| < 1e-12",
        provenance=("abstract", "reconstruction"),
        measure=_rmsnorm_jac,
        evidence="identity",
        control=_rmsnorm_jac_control,
        control_method="the Jacobian without the projector, diag(g)/rms(u), against the same "
        "finite differences",
        chapter=CHAPTER,
    )
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-rmsnorm-filter",
    "punchline": "dong.rmsnorm_jacobian",
    "exercise": "ex-rmsnorm-second-order",
}
