"""Claims of Shirodkar & Narayanan (2026), theory part A: LN kernel, RMSNorm negative, null, precision.

Fast (about a second in all): run by the default ``companion claims --paper shirodkar``.
"""

from __future__ import annotations

import numpy as np

from companion.claims import Claim, Measurement, register
from companion.theory import ln_kernel as lk
from companion.theory import null_classifier as nc

_SEED = 20260617


def _ln_kernel(scale: str = "cpu", full: bool = False) -> Measurement:
    d, n = (96, 1024) if scale == "cpu" else (768, 8192)
    rng = np.random.default_rng(_SEED)
    rows = []
    for dist in lk.INPUT_DISTRIBUTIONS:
        for eps in (1e-5, 1.0):
            x = lk.sample_inputs(n, d, dist, rng=rng)  # (n, d)
            g = lk.sample_gamma(d, 1.0, rng=rng)
            b = rng.standard_normal(d)
            rep = lk.kernel_report(lk.normalised_activations(x, g, b, eps), g)
            rows.append((dist, eps, rep.residual, rep.cos))
    worst = max(r[2] for r in rows)
    min_cos = min(r[3] for r in rows)
    return Measurement(
        value=worst,
        agrees=bool(worst <= 1e-12 and min_cos >= 0.9999),
        detail=f"fp64, d = {d}, N = {n}; {len(rows)} cases (Gaussian, Student-t(3) with a x40 "
        f"outlier coordinate, offset; eps = 1e-5 and 1; log-normal gamma with signs; beta ~ N(0,1)): "
        f"max ||C v*||/||C|| = {worst:.1e}, min |cos(v*, bottom)| = {min_cos:.12f}",
    )


def _rms_no_kernel(scale: str = "cpu", full: bool = False) -> Measurement:
    d = 64
    rng = np.random.default_rng(_SEED)
    g = lk.sample_gamma(d, 1.0, rng=rng)
    errs, mins = [], []
    for v in (lk.inverse_scale_direction(g), rng.standard_normal(d), np.eye(d)[0]):
        closed = lk.rms_witness_variance(v, g)
        errs.append(abs(lk.witness_variance_exact(v, g) - closed) / closed)
        mins.append(closed)
    vs = lk.inverse_scale_direction(g)
    ln_var = lk.witness_variance_exact(vs, g, 1e-5, norm="layernorm", beta=np.ones(d))
    # and on generic data: the exactness statistic is macroscopic for RMSNorm
    x = lk.sample_inputs(1024, d, "gaussian", rng=rng)
    verdict = nc.classify_norm(g, lk.normalised_activations(x, g, norm="rmsnorm"))
    ok = max(errs) < 1e-12 and min(mins) > 0 and verdict.verdict == "rmsnorm"
    return Measurement(
        value=float(lk.rms_witness_variance(vs, g)),
        agrees=bool(ok),
        detail=f"witness ±e_i, d = {d}: Var(<v*, RMSNorm(X)>) = Σ(v*_i γ_i)² = d/||γ⁻¹||² "
        f"(enumerated vs closed form, max rel. error {max(errs):.1e} over 3 directions); "
        f"LayerNorm on the same witness: {ln_var:.1e}. Generic Gaussian inputs: "
        f"v*ᵀCv*/Σv*_i²C_ii = {verdict.statistic:.3f} (verdict {verdict.verdict})",
    )


def _null_cos(scale: str = "cpu", full: bool = False) -> Measurement:
    d_mc, samples = (768, 20_000) if scale == "cpu" else (4096, 100_000)
    sim = nc.simulate_null_cos(d_mc, samples=samples, rng=_SEED)
    nd = nc.random_direction_null(d_mc)
    q = {d: nc.random_direction_null(d) for d in nc.NULL_WIDTHS}
    ok = sim["mean"].agrees_with(nd.mean) and all(v.q99 <= 0.10 for v in q.values())
    qs = ", ".join(f"d={d}: {v.q999:.3f}" for d, v in q.items())
    return Measurement(
        value=q[768].q99,
        agrees=bool(ok),
        stderr=None,
        detail=f"exact: cos² ~ Beta(1/2, (d−1)/2); 99.9 % quantile of |cos| {qs}; "
        f"99 % quantile ≤ 0.10 for every d ≥ 768 but at d = 768 P(|cos| > 0.10) = "
        f"{q[768].sf(0.10):.4f}. Monte Carlo at d = {d_mc}: E|cos| = {sim['mean']:.5f} "
        f"vs exact {nd.mean:.5f} (z = {sim['mean'].z(nd.mean):+.2f})",
    )


def _bf16_floor(scale: str = "cpu", full: bool = False) -> Measurement:
    # the spec's awkward set-up (§7): Student-t(3) mixed inputs with a x40 outlier coordinate
    d, n = 256, 4096
    rng = np.random.default_rng(0)
    x = lk.sample_inputs(n, d, "student_t", rng=rng)
    g = lk.sample_gamma(d, 1.0, rng=rng)
    b = rng.standard_normal(d)
    res = {}
    for p in ("float64", "float32", "bfloat16"):
        Y = lk.normalised_activations(x, g, b, precision=p)
        res[p] = nc.classify_norm(g, Y, dtype=p)
    bf = res["bfloat16"]
    ok = (
        res["float64"].cos >= 0.9999
        and res["float32"].cos >= 0.9999
        and bf.cos < 0.9
        and bf.verdict == "layernorm"
    )
    return Measurement(
        value=bf.cos,
        agrees=bool(ok),
        detail=f"d = {d}, N = {n}, fp64 covariance: |cos| fp64 {res['float64'].cos:.6f}, "
        f"fp32 {res['float32'].cos:.6f}, bf16 {bf.cos:.4f} (v*ᵀCv*/λ_max {bf.report.rayleigh:.1e}); "
        f"bf16 exactness statistic {bf.statistic:.1e} ≤ floor × 100 = {bf.threshold_layernorm:.1e}, "
        f"so the kernel is still exact to bf16 precision while |cos| is destroyed "
        f"(the spec's own bf16 test gave |cos| = 0.42: how far it falls depends on how close "
        f"the bulk's smallest eigenvalues come to the rounding floor)",
    )


register(
    Claim(
        id="shirodkar.ln_kernel",
        paper="shirodkar",
        statement="γ⁻¹/‖γ⁻¹‖ is an exact kernel direction of the centred covariance of LayerNorm outputs, "
        "for every input distribution, β and ε; at random init the measured bottom direction "
        "matches it to four decimals on 9/9 LN models.",
        paper_value="Cov(LN(X))·γ⁻¹ = 0 (Lean prop:ln_kernel); |cos| = 1.0000 on 9/9 LN models",
        method="fp64 LayerNorm outputs for 3 input distributions × ε ∈ {1e-5, 1}, heterogeneous signed γ "
        "and random β; ‖Cv*‖/‖C‖₂ and |cos(v*, bottom eigenvector)|",
        tolerance="‖Cv*‖/‖C‖ ≤ 1e-12 and |cos| ≥ 0.9999 in every case",
        provenance=("abstract", "lean"),
        measure=_ln_kernel,
        chapter="book/dead_directions/ln_kernel",
    )
)

register(
    Claim(
        id="shirodkar.rms_no_kernel",
        paper="shirodkar",
        statement="RMSNorm has no γ-only kernel: for every v ≠ 0 some admissible input distribution "
        "gives Var(⟨v, RMSNorm(X)⟩) > 0 (RMSNorm models lack the mean-subtraction projector).",
        paper_value="witness X uniform on ±e_i: Var = Σ(v_iγ_i)² > 0 (Lean prop:rmsnorm_no_kernel); "
        "kernel correctly absent on 5/5 RMSNorm models",
        method="enumerate the 2d witness points and compare with Σ(v_iγ_i)²; classify RMSNorm outputs of "
        "generic inputs by the exactness statistic",
        tolerance="relative error < 1e-12, variance > 0, verdict 'rmsnorm'",
        provenance=("abstract", "lean"),
        measure=_rms_no_kernel,
        chapter="book/dead_directions/rms_no_kernel",
    )
)

register(
    Claim(
        id="shirodkar.null_cos",
        paper="shirodkar",
        statement="A random direction's |cos| with v* stays at the null level (≤ 0.10) at LLM widths, "
        "so |cos| ≈ 1 cannot happen by chance.",
        paper_value="null |cos| ≤ 0.10 (seed summary only); RMSNorm mean |cos| ≈ 0.015 (secondary)",
        method="exact law cos² ~ Beta(1/2, (d−1)/2) for d = 768…4096 (our derivation) and a Monte Carlo "
        "check of E|cos|",
        tolerance="Monte Carlo within 4 SE of the exact mean, and the 99 % quantile of |cos| (our value, at d = 768, the largest) ≤ 0.10 for every d ≥ 768",
        provenance=("seed-only", "secondary", "reconstruction"),
        measure=_null_cos,
        chapter="book/dead_directions/classifier",
    )
)

register(
    Claim(
        id="shirodkar.bf16_floor",
        paper="shirodkar",
        statement="The covariance must be accumulated in FP64 from activations of at least FP32 precision: "
        "low-precision rounding adds a noise floor that can hide the kernel direction.",
        paper_value="FP64 covariance needed to avoid an FP32 noise floor (secondary summary only)",
        method="the spec's ill-conditioned set-up (Student-t inputs, ×40 outlier, d = 256, N = 4096): "
        "|cos| with fp64, fp32 and bf16-rounded activations, fp64 covariance",
        tolerance="fp64/fp32 |cos| ≥ 0.9999, bf16 |cos| < 0.9, and the bf16 statistic within the bf16 floor",
        provenance=("secondary", "reconstruction"),
        measure=_bf16_floor,
        chapter="book/dead_directions/ln_kernel",
    )
)
