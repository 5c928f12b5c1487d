"""The claims of ``book/sign_magnitude/rmsnorm_filter.md``, declared as data (:data:`CLAIMS`,
collected by :mod:`companion.ledger`): ``dong.rmsnorm_jacobian``."""

from __future__ import annotations

import numpy as np

from companion.chapters.sign_magnitude.rmsnorm_filter import CHAPTER
from companion.claims import Claim, Measurement
from companion.theory import rmsnorm_filter as _rf
from companion.theory.norms import rmsnorm
from companion.theory.norms import rmsnorm_jacobian as _jac


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


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
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
        depends_on=(
            "companion.theory.norms.rmsnorm_jacobian",
            "companion.theory.rmsnorm_filter.jacobian_fd_error",
            "companion.theory.norms.rmsnorm",
        ),
    ),
)
