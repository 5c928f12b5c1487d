"""The claims of ``book/dead_directions/rms_no_kernel.md``, declared as data (:data:`CLAIMS`,
collected by :mod:`companion.ledger`): ``shirodkar.rms_no_kernel``."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.rms_no_kernel import CHAPTER
from companion.claims import Claim, Measurement
from companion.theory import ln_kernel as lk
from companion.theory import null_classifier as nc

_SEED = 20260617


def _witness(norm: str) -> Measurement:
    d = 64
    rng = np.random.default_rng(_SEED)
    g = lk.sample_gamma(d, 1.0, rng=rng)
    errs, mins = [], []
    kw = {} if norm == "rmsnorm" else {"norm": "layernorm", "beta": np.ones(d)}
    for v in (lk.inverse_scale_direction(g), rng.standard_normal(d), np.eye(d)[0]):
        closed = lk.rms_witness_variance(v, g)
        errs.append(
            abs(lk.witness_variance_exact(v, g, 1e-5 if kw else 0.0, **kw) - closed) / closed
        )
        mins.append(closed)
    vs = lk.inverse_scale_direction(g)
    ok = max(errs) < 1e-12 and min(mins) > 0
    extra = ""
    if norm == "rmsnorm":  # and on generic data: the exactness statistic is macroscopic
        x = lk.sample_inputs(1024, d, "gaussian", rng=rng)
        verdict = nc.classify_norm(g, lk.normalised_activations(x, g, norm="rmsnorm"))
        ok = ok and verdict.verdict == "rmsnorm"
        extra = (
            f". Generic Gaussian inputs: v*ᵀCv*/Σv*_i²C_ii = {verdict.statistic:.3f} (verdict "
            f"{verdict.verdict})"
        )
    return Measurement(
        value=float(lk.witness_variance_exact(vs, g, 1e-5 if kw else 0.0, **kw)),
        agrees=bool(ok),
        reason=""
        if ok
        else f"{norm} on the witness: Var(⟨v, y⟩) is not Σ(v_iγ_i)² "
        f"(max relative error {max(errs):.1e})",
        detail=f"witness X uniform on ±e_i, d = {d}, {norm}: Var(⟨v, y⟩) enumerated vs "
        f"Σ(v_iγ_i)² over 3 directions (v*, random, e_0): max relative error {max(errs):.1e}"
        + extra,
    )


def _rms_no_kernel(scale: str = "cpu", full: bool = False) -> Measurement:
    return _witness("rmsnorm")


def _rms_no_kernel_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _witness("layernorm")


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="shirodkar.rms_no_kernel",
        paper="shirodkar",
        statement="RMSNorm has no γ-only kernel: for every v ≠ 0 some admissible input "
        "distribution gives Var(⟨v, RMSNorm(X)⟩) > 0 (the Lean witness, enumerated at d = 64).",
        paper_value="witness X uniform on ±e_i: Var = Σ(v_iγ_i)² > 0 (Lean prop:rmsnorm_no_kernel)",
        method="enumerate the 2d witness points and compare with Σ(v_iγ_i)²; classify RMSNorm "
        "outputs of generic inputs by the exactness statistic",
        tolerance="relative error < 1e-12, variance > 0, verdict 'rmsnorm'",
        provenance=("abstract", "lean"),
        measure=_rms_no_kernel,
        evidence="identity",
        control=_rms_no_kernel_control,
        control_method="LayerNorm on the same witness: its variance along v* vanishes, so the "
        "formula Σ(v_iγ_i)² must fail",
        chapter=CHAPTER,
        depends_on=(
            "companion.theory.ln_kernel.sample_gamma",
            "companion.theory.ln_kernel.inverse_scale_direction",
            "companion.theory.ln_kernel.rms_witness_variance",
            "companion.theory.ln_kernel.sample_inputs",
            "companion.theory.null_classifier.classify_norm",
            "companion.theory.ln_kernel.normalised_activations",
            "companion.theory.ln_kernel.witness_variance_exact",
        ),
    ),
)
