"""Exp E (``dong.real.count_matched_leverage``, ``dong.real.leverage_nonlinear``): count-matched
flips in the outlier and other columns, against n·E[α²] in the linear regime and beyond it."""

from __future__ import annotations

import math

import numpy as np

from companion.chapters.sign_magnitude.at_scale.claims._common import (
    COMMON,
    SMOL,
    claim_summary,
    mean_se,
    who,
)
from companion.chapters.sign_magnitude.at_scale.records import model_records
from companion.chapters.sign_magnitude.at_scale.sizes import SIZES
from companion.claims import Claim, Measurement, decide
from companion.stats import MCEstimate, ratio_estimate


def _pooled(scale: str, full: bool, p: float):
    """Seed-pooled ratio of mean ΔNLLs (outlier / non) at fraction p, per-window SE."""
    recs = model_records("leverage", SIZES[scale].model, scale)
    sel = {
        pool: [r for r in recs if r["key"].startswith(f"leverage|disjoint|p={p:g}|{pool}|")]
        for pool in ("outlier", "non")
    }
    w = {pool: np.mean([r["dnll_per_window"] for r in v], axis=0) for pool, v in sel.items()}
    o, n = w["outlier"], w["non"]  # (windows,) mean over seeds
    k = o.size
    mo, mn = o.mean(), n.mean()
    so, sn = o.std(ddof=1) / math.sqrt(k), n.std(ddof=1) / math.sqrt(k)
    cov = np.cov(o, n)[0, 1] / k
    r = mo / mn
    se = abs(r) * math.sqrt(max(so**2 / mo**2 + sn**2 / mn**2 - 2 * cov / (mo * mn), 0.0))
    return MCEstimate(float(r), float(se), int(k)), float(mn), float(sn), len(sel["non"])


def _seed_ratio(scale: str, p: float) -> tuple[MCEstimate, list]:
    """Seed-level ratio of ΔNLLs (outlier / non) at fraction p: the ratio of the seeds' sums
    with its delta-method SE over seeds, and the per-seed non-outlier ΔNLLs."""
    recs = model_records("leverage", SIZES[scale].model, scale)
    by = {r["key"]: r for r in recs}
    seeds = range(SIZES[scale].claim_seeds)
    o, n = ([by[f"leverage|disjoint|p={p:g}|{pool}|seed={s}"]["dnll"] for s in seeds]
            for pool in ("outlier", "non"))  # fmt: skip
    return ratio_estimate(o, n), n


def _leverage(scale: str = "cpu", full: bool = False) -> Measurement:
    s, src, on = claim_summary("leverage", scale, full)
    pred = s.get("prediction", {}).get("n_E_alpha2_outlier", float("nan"))
    lin = [p for p in SIZES[scale].setup.leverage_ps if 0.0005 <= p <= 0.005]
    parts, ds = [], {}
    for p in lin:
        est, non = _seed_ratio(scale, p)
        ds[p] = d = decide(est, pred, alternative=1.0)
        parts.append(
            f"p = {p:g}: {est.value:.1f} ± {est.stderr:.1f} (z = {d['z']:+.1f} from "
            f"n·E[α²], {d['z_alt']:+.1f} from 1; non-outlier ΔNLL per seed "
            f"{min(non):.1e}–{max(non):.1e})"
        )
    deviate = [p for p, d in ds.items() if not d["agrees"]]
    open_ = [p for p, d in ds.items() if d["unresolved"]]
    n_seeds = SIZES[scale].claim_seeds
    if deviate:
        reason = (
            f"the seed-level ratio differs from n·E[α²] = {pred:.2f} by more than 4 SE at p = "
            + ", ".join(f"{p:g}" for p in deviate)
            + " ("
            + "; ".join(parts)
            + ")"
        )
    elif open_:
        worst = min(abs(ds[p]["z_alt"]) for p in open_)
        reason = (
            f"every seed-level ratio agrees with n·E[α²] = {pred:.2f} within 4 SE, but at p = "
            + ", ".join(f"{p:g}" for p in open_)
            + f" it is also within 4 SE of 1 (no leverage): {n_seeds} seeds cannot tell the "
            f"two apart (about {math.ceil(n_seeds * (4 / worst) ** 2)} would, at this "
            "scatter) (" + "; ".join(parts) + ")"
        )
    else:
        reason = ""
    est01 = _seed_ratio(scale, 0.001)[0]
    return Measurement(
        value=round(est01.value, 3),
        stderr=est01.stderr,
        agrees=not deviate,
        unresolved=not deviate and bool(open_),
        reason=reason,
        detail=f"{who(s)}, {n_seeds} seeds per p (paper 10), count-matched flips; seed-level "
        "ratio of summed ΔNLLs with its delta-method SE over seeds; value shown: p = 0.1%. "
        + "; ".join(parts)
        + ". Paper (TinyLlama-1.1B): ≈ 10× ≈ n·E[α²] (medians 10.4 / 8.65 / 9.48 at 0.5 / 0.1 "
        "/ 0.05%)",
        source=src,
        measured_on=on,
    )


def _nonlinear(scale: str, full: bool, low: float) -> Measurement:
    s, src, on = claim_summary("leverage", scale, full)
    rows = {r["p"]: r for r in s["rows"]}
    hi = mean_se(rows[0.05]["nll_levs"])
    lo, *_ = _pooled(scale, full, low)
    z = (hi.value - lo.value) / math.hypot(hi.stderr, lo.stderr)
    ok = z > 4
    return Measurement(
        value=round(hi.value, 2),
        stderr=hi.stderr,
        agrees=ok,
        reason=""
        if ok
        else f"the leverage at 5% ({hi:.1f}) does not exceed the one at "
        f"{100 * low:g}% ({lo:.1f}) by 4 SE (z = {z:+.1f})",
        detail=f"{who(s)}: NLL leverage at 5% of the outlier pool {hi:.1f} (per seed "
        + ", ".join(f"{x:.1f}" for x in rows[0.05]["nll_levs"])
        + f"; PPL leverage median {rows[0.05]['ppl_lev']['median']:.3g}) against the linear "
        f"regime at {100 * low:g}% {lo:.1f} (seed-pooled; z = {z:+.1f}). Paper (TinyLlama): "
        "NLL 41.3, PPL 89.8 at 5% against ≈ 10 in the linear regime",
        source=src,
        measured_on=on,
    )


def _leverage_nonlinear(scale: str = "cpu", full: bool = False) -> Measurement:
    return _nonlinear(scale, full, 0.001)


def _leverage_nonlinear_control(scale: str = "cpu", full: bool = False) -> Measurement:
    m = _nonlinear(scale, full, 0.001)
    s, *_ = claim_summary("leverage", scale, full)
    rows = {r["p"]: r for r in s["rows"]}
    a, b = _pooled(scale, full, 0.0005)[0], _pooled(scale, full, 0.001)[0]
    z = (a.value - b.value) / math.hypot(a.stderr, b.stderr)
    return Measurement(
        value=a.value,
        agrees=z > 4,
        detail=f"the same comparison between two linear-regime fractions (0.05% against 0.1%): "
        f"{a:.1f} against {b:.1f} (z = {z:+.1f}); median per-seed leverage "
        f"{rows[0.0005]['nll_lev']['median']:.1f}",
        measured_on=m.measured_on,
    )


#: These claims, in the order the chapter shows them.
CLAIMS = (
    Claim(
        id="dong.real.count_matched_leverage",
        statement=f"On {SMOL} at CPU scale, with equal numbers of flips, outlier-column flips "
        "raise NLL about n·E[α²] (9.1 here, from the measured α) times more than non-outlier "
        "flips in the linear-response regime (p = 0.05–0.5% of the outlier pool).",
        paper_value="≈ 10× ≈ n·E[α²] at p ≤ 0.5% (TinyLlama-1.1B; medians 10.4 / 8.65 / 9.48)",
        method="Exp E: count-matched flips, 5 seeds; per p the ratio of the seeds' summed ΔNLLs "
        "(delta-method SE over seeds) against n·E[α²] over the outlier columns",
        tolerance="at every p, within 4 seed-SE of n·E[α²]; unresolved where also within 4 "
        "seed-SE of 1 (no leverage)",
        provenance=("abstract", "author-code"),
        measure=_leverage,
        control_none="at CPU scale (5 seeds) the claim is unresolved: within 4 SE of both "
        "n·E[α²] and 1; its control (the same ratio between two random pools of equal size) "
        "needs the longer run that would resolve it",
        **COMMON,
        depends_on=(
            "companion.llm.sign_flips.experiments.summarize",
            "companion.stats.ratio_estimate",
            "companion.claims.decide",
        ),
    ),
    Claim(
        id="dong.real.leverage_nonlinear",
        statement=f"On {SMOL} at CPU scale, at 5% of the outlier pool the count-matched NLL "
        "leverage is far above its linear-regime value: the response is nonlinear (TinyLlama: "
        "41× against ≈ 10×).",
        paper_value="NLL leverage median 41.3, PPL 89.8 at p = 5% (TinyLlama-1.1B, Exp E)",
        method="Exp E: mean per-seed leverage at 5% against the seed-pooled ratio at 0.1%",
        tolerance="the 5% leverage exceeds the linear-regime one by more than 4 SE",
        provenance=("abstract", "author-code"),
        measure=_leverage_nonlinear,
        control=_leverage_nonlinear_control,
        control_method="the same comparison between two linear-regime fractions (0.05% and 0.1%)",
        **COMMON,
        depends_on=("companion.llm.sign_flips.experiments.summarize",),
    ),
)
