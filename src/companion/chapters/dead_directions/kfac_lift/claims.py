"""The claims of ``book/dead_directions/kfac_lift.md``, declared as data (:data:`CLAIMS`, collected
by :mod:`companion.ledger`): ``shirodkar.kfac_lift``."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.kfac_lift import CHAPTER
from companion.claims import Claim, Measurement
from companion.theory import kfac_lift as kl

_SEED = 20260619


def _kfac(scale: str = "cpu", full: bool = False, live_only: bool = False) -> Measurement:
    rng = np.random.default_rng(_SEED)
    # (1) eigenpairs multiply: lifted spectrum vs the dense eigendecomposition
    A = rng.standard_normal((6, 6))
    A = A @ A.T  # (dA, dA) PSD
    G = rng.standard_normal((5, 5))
    G = G @ G.T  # (dG, dG) PSD
    spec = kl.kfac_lift(A, G)
    K = np.kron(A, G)
    dense = np.linalg.eigvalsh(K)
    eig_err = float(np.max(np.abs(dense - spec.values)) / dense[-1])
    vec_err = float(
        np.max(
            np.linalg.norm(K @ spec.dense_vectors() - spec.dense_vectors() * spec.values, axis=0)
        )
        / dense[-1]
    )
    # (2) the induced LN dead direction of a softmax head
    V, d = 30, 24
    u = rng.standard_normal(V)
    a = rng.standard_normal(d)
    a /= np.linalg.norm(a)
    h0 = kl.ln_softmax_head(V, d, n=800, beta_scale=0.0, rng=1)
    h1 = kl.ln_softmax_head(V, d, n=800, beta_scale=1.0, rng=1)
    ref0, ref1 = h0.fisher(np.outer(u, a)), h1.fisher(np.outer(u, a))
    dead = {
        "beta=0, random u": h0.fisher(np.outer(u, h0.vstar)) / ref0,
        "beta!=0, u=1": h1.fisher(np.outer(np.ones(V), h1.vstar)) / ref1,
        "beta!=0, with db=-c u": h1.fisher(np.outer(u, h1.vstar), db=-h1.c * u) / ref1,
    }
    live = h1.fisher(np.outer(u, h1.vstar)) / ref1
    if live_only:  # the control: the uncompensated β ≠ 0 direction is not dead
        dead = {"beta!=0, random u, no compensation": live}
    worst = max(dead.values())
    ok = eig_err < 1e-12 and vec_err < 1e-12 and worst < 1e-20 and (live_only or live > 1e-3)
    return Measurement(
        value=worst,
        agrees=bool(ok),
        reason=""
        if ok
        else f"a lifted eigenpair or a 'dead' Fisher ratio ({worst:.1e}) is above its rounding "
        "tolerance",
        detail=(
            f"A⊗G (30×30): max eigenvalue error {eig_err:.1e}, eigenvector residual {vec_err:.1e} "
            f"(relative to λ_max). Softmax head V={V}, d={d}: directional Fisher along u v*ᵀ "
            f"relative to a random rank-one direction: "
            + ", ".join(f"{k}: {v:.1e}" for k, v in dead.items())
            + f"; beta≠0 with random u and no compensation: {live:.3f} (not dead)"
        ),
    )


def _kfac_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _kfac(scale, full, live_only=True)


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="shirodkar.kfac_lift",
        evidence="identity",
        control=_kfac_control,
        control_method="the same Fisher read along u v*ᵀ with β ≠ 0 and no compensating bias "
        "(not a dead direction)",
        paper="shirodkar",
        statement=(
            "The eigenpairs of a K-FAC block A ⊗ G are the products of the factors' eigenpairs, so "
            "the "
            "LayerNorm kernel v* induces a parameter-space dead direction ΔW = u v*ᵀ of the head."
        ),
        paper_value="exact (Lean cor:kfac_lift); 'induces a corresponding dead direction in "
        "parameter space'",
        method=(
            "lifted vs dense spectrum of A ⊗ G; true softmax-head Fisher along u v*ᵀ in the three "
            "dead cases "
            "(β = 0; u ∝ 1; compensating head bias) relative to a random rank-one direction"
        ),
        tolerance="spectrum to 1e-12 relative; dead-case Fisher ratio < 1e-20; the uncompensated β "
        "≠ 0 case > 1e-3",
        provenance=("lean", "abstract", "reconstruction"),
        measure=_kfac,
        chapter=CHAPTER,
        depends_on=(
            "companion.theory.kfac_lift.kfac_lift",
            "companion.theory.kfac_lift.ln_softmax_head",
        ),
    ),
)
