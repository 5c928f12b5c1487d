"""The claims of ``book/dead_directions/training.md`` (collected by :mod:`companion.ledger`):
both papers along the training trajectory of the book's own tiny GPT and its RMSNorm twin,
every status computed from the trajectory records."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.chapters.dead_directions.training import (
    BAND,
    CHAPTER,
    LN_MODEL,
    MODELS,
    RMS_MODEL,
    commands,
    flip_stats,
    records,
    series,
)
from companion.claims import Claim, Measurement, NotRun

_COS = 0.998  # the paper's |cos| along the Pythia trajectory (abstract)
_DEEPENING = (1e2, 1e4)  # the paper's ~10³, read as within [10², 10⁴]


def _recs(scale: str):
    from companion.claims import measured_on_records

    try:
        recs = records(scale)
    except FileNotFoundError as err:
        raise NotRun(str(err), command="; ".join(commands(scale))) from None
    flat = [r for rs in recs.values() for r in rs]
    on = measured_on_records(flat, file="train/trajectory.jsonl", scale=scale, models=MODELS)
    return recs, on


def _source(recs: dict) -> str:
    cmds = sorted({r["command"] for rs in recs.values() for r in rs})
    return f"results/train/trajectory.jsonl (written by: {'; '.join(cmds)})"


def _verdict(n: dict, dtype: str, rho: float | None = None) -> str:
    """A norm's verdict recomputed now from its stored ρ with the library's decision rule
    (:func:`companion.theory.null_classifier.norm_verdict`), never the stored ``verdict``.

    The floor is the record's dtype's at the norm's width. The records keep γ's extreme
    magnitudes, not v*, so the dead share is 0 when even the smallest |γ_i| is alive, and
    taken as 1 (an undetermined verdict) otherwise."""
    from companion.theory import null_classifier as nc

    g_min, g_max = n["gamma_abs_min"], n["gamma_abs_max"]
    any_dead = g_min == 0 or nc.dead_share([1 / g_max, 1 / g_min], dtype) > 0
    floor = nc.precision_floor(dtype, n["d"])
    rho = n["rho"] if rho is None else rho
    return nc.norm_verdict(rho, floor, dead=1.0 if any_dead else 0.0)[0]


def _kernel(scale: str = "cpu", full: bool = False, model: str = LN_MODEL) -> Measurement:
    recs, on = _recs(scale)
    rs = recs[model]
    cos = series(rs, "cos_final")
    verdicts = {_verdict(n, r["dtype"]) for r in rs for n in r["norms"]}
    ok = bool(cos.min() >= _COS) and verdicts == {"layernorm"}
    low = [
        f"{n['name'].split('.', 1)[-1]} at step {r['step']}: |cos| {n['cos']:.3f} "
        f"(kernel dimension {n['kernel_dim']}, subspace |cos| {n['cos_subspace']:.4f})"
        for r in rs[-1:]
        for n in r["norms"]
        if n["cos"] < _COS
    ]
    return Measurement(
        value=float(cos.min()),
        agrees=ok,
        detail=f"{model}, {len(rs)} checkpoints: final-norm |cos| from {cos.min():.6f} to "
        f"{cos.max():.6f}; verdicts of all {len(rs[0]['norms'])} norms: {sorted(verdicts)}; "
        "norms below the threshold at the last checkpoint: " + ("; ".join(low) or "none"),
        reason=""
        if ok
        else f"{model}'s final-norm |cos| falls to {cos.min():.3f} or a norm is not called "
        f"layernorm ({sorted(verdicts)}): no exact γ⁻¹ kernel",
        source=_source(recs),
        measured_on=on,
    )


def _kernel_control(scale: str = "cpu", full: bool = False) -> Measurement:
    """Two controls, each of which must lose the kernel: the RMSNorm twin's records, and
    the LayerNorm twin's own norms with γ shuffled (v* of a permuted γ: ρ read on the same
    covariance), at every checkpoint where γ is no longer constant (at step 0 γ = 1 and a
    shuffle is the identity, so no shuffled read is stored there)."""
    rms = _kernel(scale, full, model=RMS_MODEL)
    recs, _ = _recs(scale)
    kept, total, rhos = [], 0, []
    for r in recs[LN_MODEL]:
        for n in r["norms"]:
            for rho in n["shuffled_rho"]:
                total += 1
                rhos.append(abs(rho))
                if _verdict(n, r["dtype"], rho) == "layernorm":
                    kept.append(f"step {r['step']} {n['name'].split('.', 1)[-1]}: ρ {rho:.1e}")
    shuffled_ok = total > 0 and not kept  # every shuffled γ loses the kernel
    shuffled = (
        f"{LN_MODEL} with γ shuffled: {total - len(kept)} of {total} reads called rmsnorm"
        + (f", |ρ| {min(rhos):.1e}–{max(rhos):.1e}" if rhos else "")
        + (f"; kept a kernel: {'; '.join(kept[:3])}" if kept else "")
    )
    agrees = rms.agrees or not shuffled_ok
    return replace(
        rms,
        agrees=agrees,
        detail=f"{rms.detail}. {shuffled}",
        reason="" if agrees else f"{rms.reason}; and every shuffled γ loses it too ({shuffled})",
    )


def _verdicts(scale: str = "cpu", full: bool = False, by_cos: bool = False) -> Measurement:
    recs, on = _recs(scale)
    want = {LN_MODEL: "layernorm", RMS_MODEL: "rmsnorm"}
    wrong, total = [], 0
    for m, rs in recs.items():
        for r in rs:
            for n in r["norms"]:
                total += 1
                # the control's rule: |cos| alone, the paper's headline reading
                v = ("layernorm" if n["cos"] >= _COS else "rmsnorm") if by_cos else None
                if (v := v or _verdict(n, r["dtype"])) != want[m]:
                    wrong.append(f"{m} step {r['step']} {n['name']}: {v}")
    rho = {m: (series(rs, "rho_max").min(), series(rs, "rho_max").max()) for m, rs in recs.items()}
    return Measurement(
        value=f"{total - len(wrong)}/{total}",
        agrees=not wrong,
        detail="; ".join(
            f"{m}: max |ρ| per checkpoint {a:.1e}–{b:.1e}" for m, (a, b) in rho.items()
        )
        + f"; {total} (norm, checkpoint) verdicts",
        reason="" if not wrong else f"{len(wrong)} verdicts differ: " + "; ".join(wrong[:4]),
        source=_source(recs),
        measured_on=on,
    )


def _verdicts_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _verdicts(scale, full, by_cos=True)


def _band(scale: str = "cpu", full: bool = False, index: int = -1) -> Measurement:
    recs, on = _recs(scale)
    rs = recs[LN_MODEL]
    vals = {m: series(recs[m], "cos2") for m in MODELS}
    x = float(vals[LN_MODEL][index])
    ok = BAND[0] <= x <= BAND[1] and all(BAND[0] <= v[index] <= BAND[1] for v in vals.values())
    where = f"step {rs[index]['step']}"
    return Measurement(
        value=x,
        agrees=bool(ok),
        detail=f"mean over the {len(rs[0]['linears'])} Linear layers at {where}: "
        + ", ".join(f"{m} {v[index]:.4f}" for m, v in vals.items())
        + f"; trajectory of {LN_MODEL}: "
        + ", ".join(f"{v:.4f}" for v in vals[LN_MODEL])
        + f" (2/π = {2 / np.pi:.4f})",
        reason="" if ok else f"at {where} the mean cos² is outside [{BAND[0]}, {BAND[1]}]",
        source=_source(recs),
        measured_on=on,
    )


def _band_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _band(scale, full, index=0)


def _ordering(scale: str = "cpu", full: bool = False, index: int = -1) -> Measurement:
    recs, on = _recs(scale)
    parts, ok = [], True
    for m, rs in recs.items():
        r = rs[index]
        f, g, se = flip_stats(r)
        good = f - g > 4 * se
        ok &= bool(good)
        parts.append(
            f"{m} step {r['step']}: flips {f:.4f}, magnitude {g:.4f}, difference "
            f"{f - g:+.4f} ± {se:.4f}"
        )
    return Measurement(
        value=parts[0].split(": ", 1)[1],
        agrees=ok,
        detail="; ".join(parts) + f" (p = {rs[index]['settings']['p']:g}, "
        f"{rs[index]['settings']['seeds']} seeds, paired SE)",
        reason=""
        if ok
        else "the flips' ΔNLL does not exceed the magnitude change's by 4 SE: " + "; ".join(parts),
        source=_source(recs),
        measured_on=on,
    )


def _ordering_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _ordering(scale, full, index=0)


def _outlier(scale: str = "cpu", full: bool = False, index: int = -1) -> Measurement:
    recs, on = _recs(scale)
    parts, ok = [], True
    for m, rs in recs.items():
        r = rs[index]
        f, g, se = flip_stats(r, "outlier", "random_columns")
        ok &= bool(f - g > 4 * se)
        lin = r["linears"]
        med = np.median([x["alpha_median"] for x in lin])
        uni = np.median([x["alpha_uniform"] for x in lin])
        top = max(x["alpha_max"] for x in lin)
        parts.append(
            f"{m} step {r['step']}: outlier columns {f:.4f}, random columns {g:.4f}, "
            f"difference {f - g:+.4f} ± {se:.4f}; α median {med:.3f} (1/√n {uni:.3f}), "
            f"max {top:.3f}"
        )
    return Measurement(
        value=parts[0].split(": ", 1)[1].split(";")[0],
        agrees=ok,
        detail="; ".join(parts) + f" (top {rs[index]['settings']['outlier_frac']:.0%} of columns "
        f"by mean |input|, flip rate {rs[index]['settings']['p_outlier']:g}, 5 seeds, paired SE)",
        reason=""
        if ok
        else "flips in the outlier columns do not cost 4 SE more than flips in "
        "as many random columns on both twins: " + "; ".join(parts),
        source=_source(recs),
        measured_on=on,
    )


def _outlier_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _outlier(scale, full, index=0)


def _sigma(scale: str = "cpu", full: bool = False, reverse: bool = False) -> Measurement:
    recs, on = _recs(scale)
    worst, parts = np.inf, []
    for m, rs in recs.items():
        for r in rs:
            sig = np.asarray(r["profile"]["sigma_min"], dtype=float)
            step = np.asarray(r["profile"]["sigma_step"], dtype=float)
            se = np.asarray(r["profile"]["sigma_step_se"], dtype=float)
            if reverse:  # the control: the profile read from the last block back
                step = sig[:-1] / sig[1:]
                se = np.zeros_like(step)
            low = np.where(np.isfinite(step), step + 4 * np.nan_to_num(se), np.inf)
            worst = min(worst, float(low.min()))
            parts.append(f"{m} step {r['step']}: " + ", ".join(f"{x:.2f}" for x in step[1:]))
    ok = worst >= 1.0
    return Measurement(
        value=worst,
        agrees=bool(ok),
        detail="σ_min(X_ℓ)/σ_min(X_ℓ−1) of the uncentred residual stream (position 0 excluded), "
        "block 1 → 2 onwards (the embedding's σ_min is 0: it holds fewer distinct rows than "
        "its width): " + "; ".join(parts[:: max(1, len(parts) // 6)]),
        reason="" if ok else f"a block-to-block step falls below 1 by more than 4 SE ({worst:.3f})",
        source=_source(recs),
        measured_on=on,
    )


def _sigma_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _sigma(scale, full, reverse=True)


def _deepening(scale: str = "cpu", full: bool = False) -> Measurement:
    recs, on = _recs(scale)
    rs = recs[LN_MODEL]
    a, b = rs[0]["norms"][-1], rs[-1]["norms"][-1]
    ratio = abs(a["rho"]) / abs(b["rho"])
    ratio64 = abs(a["rho_fp64"]) / abs(b["rho_fp64"])
    ok = _DEEPENING[0] <= ratio <= _DEEPENING[1]
    return Measurement(
        value=float(ratio),
        agrees=ok,
        unresolved=not ok,
        detail=f"{LN_MODEL} final norm: ρ {a['rho']:.2e} → {b['rho']:.2e} (×{ratio:.2g}) from "
        f"the float32 forward pass, {a['rho_fp64']:.2e} → {b['rho_fp64']:.2e} (×{ratio64:.2g}) "
        f"recomputed in float64; the γ spread max|γ|/min|γ| 1.00 → {b['gamma_spread']:.2f}",
        reason=""
        if ok
        else "ρ sits at the rounding floor at both ends (float32 and float64): "
        "the kernel is exact at initialisation already, so no deepening is measurable here",
        source=_source(recs),
        measured_on=on,
    )


_MODEL = dict(chapter=CHAPTER, evidence="model", models=MODELS, command="; ".join(commands()))

#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="shirodkar.trained_here_kernel",
        paper="shirodkar",
        statement="On the book's tiny GPT (LayerNorm; 4 blocks, width 128, trained here for 2000 "
        "steps), the final norm's γ⁻¹ kernel stays exact at every checkpoint (|cos| ≥ 0.998) "
        "and every one of its 9 norms is called layernorm.",
        paper_value="|cos| ≥ 0.998 at every Pythia-1B checkpoint (abstract)",
        provenance=("abstract",),
        method="|cos| between v* = γ⁻¹/‖γ⁻¹‖ and the bottom eigenvector of the final norm "
        "output's centred covariance (16,384 calibration bytes), and the classifier on all norms",
        tolerance=f"final-norm |cos| ≥ {_COS} at all 10 checkpoints; every verdict layernorm",
        measure=_kernel,
        control=_kernel_control,
        control_method="the same test on the RMSNorm twin's records (no kernel), and the "
        "LayerNorm twin's norms with γ shuffled (ρ along the shuffled γ⁻¹, every checkpoint "
        "after step 0): both must lose the kernel",
        **_MODEL,
    ),
    Claim(
        id="shirodkar.trained_here_classifier",
        paper="shirodkar",
        statement="Along training, the classifier calls every norm of the RMSNorm twin rmsnorm "
        "and every norm of the LayerNorm twin layernorm, at every checkpoint.",
        paper_value="the γ-invariant exactness test separates the two norms (abstract)",
        provenance=("abstract", "reconstruction"),
        method="the verdict recomputed from the stored ρ against the float32 rounding floor, "
        "9 norms × 10 checkpoints × 2 twins",
        tolerance="all 180 verdicts as the twin's norm",
        measure=_verdicts,
        control=_verdicts_control,
        control_method="a plausible simpler classifier: |cos| ≥ 0.998 alone calls a norm "
        "layernorm (the paper's headline reading), blind to a kernel inside a wider null space",
        **_MODEL,
    ),
    Claim(
        id="shirodkar.trained_here_deepening",
        paper="shirodkar",
        statement="From initialisation to trained, ρ along v* of the LayerNorm twin's final norm "
        "deepens by about 10³.",
        paper_value="~10³× deeper (abstract)",
        provenance=("abstract",),
        method="ρ at step 0 over ρ at step 2000 (float32 forward; the float64 recompute shown)",
        tolerance="within [10², 10⁴]; unresolved where ρ is rounding noise at both ends",
        measure=_deepening,
        control_none="ρ is at the rounding floor at both ends, so no control can differ; the "
        "kernel's exactness at init is itself measured by shirodkar.trained_here_kernel",
        **_MODEL,
    ),
    Claim(
        id="dong.trained_here_table1",
        paper="dong",
        statement="After 2000 steps the tiny GPTs' Linear weights sit in Dong's trained band "
        "of cos²(w, sign w), having started at the Gaussian init law 2/π.",
        paper_value="cos²(w, sign w) 0.606–0.633 over 5 trained models (the author's README "
        "summary of Table 1)",
        provenance=("author-code",),
        method="mean over rows and the 16 Linear layers (head excluded) at the last checkpoint",
        tolerance=f"within [{BAND[0]}, {BAND[1]}] for both twins",
        measure=_band,
        control=_band_control,
        control_method="the same test at step 0 (the init law, 2/π ≈ 0.6366, above the band)",
        **_MODEL,
    ),
    Claim(
        id="dong.trained_here_ordering",
        paper="dong",
        statement="On both trained twins, sign flips at rate p = 0.01 cost more validation NLL "
        "than the equal-norm magnitude change δ·sign W.",
        paper_value="sign flips dominate magnitude changes of equal norm (abstract)",
        provenance=("abstract",),
        method="ΔNLL on 64 validation windows, 5 seeds, the same flip set per seed",
        tolerance="mean difference > 4 paired SE on each twin",
        measure=_ordering,
        control=_ordering_control,
        control_method="the same test at step 0 (random weights: no ordering expected)",
        **_MODEL,
    ),
    Claim(
        id="dong.trained_here_outlier",
        paper="dong",
        statement="On both trained twins, sign flips inside the outlier input columns (top 5 % "
        "by mean |input|) cost more validation NLL than flips at the same rate inside as many "
        "random columns.",
        paper_value="outlier columns carry the sensitivity (abstract; α median 0.024, max 0.26 "
        "on TinyLlama)",
        provenance=("abstract", "author-code"),
        method="ΔNLL on 64 validation windows, flip rate 0.05 inside each pool, 5 seeds; "
        "outlier columns calibrated on held-out calibration bytes",
        tolerance="mean difference > 4 paired SE on each twin",
        measure=_outlier,
        control=_outlier_control,
        control_method="the same test at step 0 (random weights: no outlier columns yet)",
        **_MODEL,
    ),
    Claim(
        id="shirodkar.trained_here_sigma_min",
        paper="shirodkar",
        statement="At every checkpoint of both twins, σ_min of the pre-norm residual stream "
        "does not decrease from block to block.",
        paper_value="σ_min preserved block to block on 13/14 models (abstract)",
        provenance=("abstract",),
        method="uncentred float64 Gram of the residual stream after each block on the "
        "calibration bytes, position 0 excluded; jackknife SE over 4 folds",
        tolerance="every step + 4 SE ≥ 1 (a step from σ_min = 0 counts as not decreasing)",
        measure=_sigma,
        control=_sigma_control,
        control_method="the same profile read from the last block back to the first",
        **_MODEL,
    ),
)
