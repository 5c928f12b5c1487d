"""The claims of ``book/dead_directions/schur_ratio.md``, declared as data (:data:`CLAIMS`,
collected by :mod:`companion.ledger`): ``shirodkar.schur_baseline``. Each measure and its
control read the chapter's ``SIZES[scale]``."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.schur_ratio import CHAPTER, SIZES
from companion.claims import Claim, Measurement
from companion.stats import mean_estimate
from companion.theory import schur_ratio as sr

_SEED = 20260619


def _schur(scale: str = "cpu", full: bool = False) -> Measurement:
    d = 32
    ests = []
    for ratio in (2, 4, 16):
        N = ratio * d
        est = sr.simulate_schur_ratio(d, N, trials=SIZES[scale].trials, rng=_SEED + ratio)
        ests.append((N, est, sr.mp_baseline(d, N), sr.mp_baseline(d, N, exact=False)))
    ok = all(e.agrees_with(ex) for _, e, ex, _ in ests)
    N, e, ex, mp = ests[1]
    return Measurement(
        value=e.value,
        stderr=e.stderr,
        agrees=bool(ok),
        reason=""
        if ok
        else "a simulated mean Schur ratio is more than 4 SE from the exact Beta mean",
        detail=(
            f"isotropic Gaussian, d = {d}: "
            + "; ".join(
                f"N/d = {n // d}: R = {est:.4f} vs exact (N−d)/(N−1) = {x:.4f} "
                f"(1 − d/N = {m:.4f}, z = {est.z(x):+.1f})"
                for n, est, x, m in ests
            )
        ),
    )


def _schur_control(scale: str = "cpu", full: bool = False) -> Measurement:
    d, N, trials = 32, 128, SIZES[scale].trials
    g = np.random.default_rng(_SEED + 7)
    vals = np.empty(trials)
    for t in range(trials):
        X = g.standard_normal((N, d))  # (N, d)
        X[:, 0] = X[:, 1:] @ g.standard_normal(d - 1) / np.sqrt(d) + 1e-3 * X[:, 0]  # dead axis
        X -= X.mean(axis=0)
        vals[t] = sr.schur_ratio(X.T @ X, np.eye(d)[0])
    est = mean_estimate(vals)
    ex = sr.mp_baseline(d, N)
    return Measurement(
        value=est.value,
        stderr=est.stderr,
        agrees=est.agrees_with(ex),
        detail=f"d = {d}, N = {N}: R along an axis made a linear combination of the others "
        f"(+1e-3 noise): {est:.2e} against (N−d)/(N−1) = {ex:.4f}, i.e. Δγ ≈ 1",
    )


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="shirodkar.schur_baseline",
        paper="shirodkar",
        statement=(
            "Our reconstruction of the Schur ratio, R(h) = 1/(Σ_hh (Σ⁻¹)_hh), has mean "
            "(N − d)/(N − 1) ≈ 1 − d/N on isotropic Gaussian data, so Δγ = 1 − R ≈ d/N is its "
            "random-matrix baseline (the paper's formula is not available)."
        ),
        paper_value="Δγ ≈ 0–0.3 at random init, → 1 trained (secondary summaries; formula not "
        "available)",
        method=(
            "R(h) on sample covariances of N(0, I_d) data, averaged over axes and trials, "
            "against the exact Beta mean (N − d)/(N − 1)"
        ),
        tolerance="within 4 standard errors at N/d = 2, 4, 16",
        provenance=("secondary", "reconstruction"),
        measure=_schur,
        evidence="simulation",
        control=_schur_control,
        control_method="R along a dead axis (a linear combination of the others) in place of "
        "an isotropic one",
        chapter=CHAPTER,
        depends_on=(
            "companion.theory.schur_ratio.simulate_schur_ratio",
            "companion.theory.schur_ratio.mp_baseline",
            "companion.theory.schur_ratio.schur_ratio",
        ),
    ),
)
