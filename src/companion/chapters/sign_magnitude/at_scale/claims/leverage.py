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
from companion.claims import Claim, Measurement, NotRun, decide, per_setting
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


def _seeds(scale: str) -> tuple[int, int]:
    """(seeds present, seeds planned) of Exp E's linear regime: the seeds 0, 1, … whose
    outlier and non-outlier records exist at every linear-regime p (a run that stopped
    leaves whole seeds), and the setup's plan (``leverage_linear_seeds``, at least
    ``leverage_seeds``). Records measured on other windows than the first are refused."""
    from companion.llm.sign_flips.leverage import linear_ps

    cfg = SIZES[scale].setup
    recs = [r for r in model_records("leverage", SIZES[scale].model, scale) if r.get("meta")]
    shape = {(r["meta"].get("eval_windows"), r["meta"].get("window")) for r in recs}
    if len(shape) > 1:
        raise NotRun(f"Exp E's records mix evaluation windows {sorted(shape)}: not one measurement")
    keys = {r["key"] for r in recs}
    k = 0
    while all(
        f"leverage|disjoint|p={p:g}|{pool}|seed={k}" in keys
        for p in linear_ps(cfg.leverage_ps)
        for pool in ("outlier", "non")
    ):
        k += 1
    return k, max(cfg.leverage_seeds, cfg.leverage_linear_seeds)


def _seed_ratio(scale: str, p: float, n_seeds: int) -> tuple[MCEstimate, list, list]:
    """Seed-level ratio of ΔNLLs (outlier / non) at fraction p over seeds 0 … n_seeds − 1:
    the ratio of the seeds' sums with its delta-method SE over seeds, and the per-seed
    non-outlier and outlier ΔNLLs."""
    recs = model_records("leverage", SIZES[scale].model, scale)
    by = {r["key"]: r for r in recs}
    o, n = ([by[f"leverage|disjoint|p={p:g}|{pool}|seed={s}"]["dnll"] for s in range(n_seeds)]
            for pool in ("outlier", "non"))  # fmt: skip
    return ratio_estimate(o, n), n, o


def _linear(scale: str, full: bool):
    """Per linear-regime p: (estimate, per-seed non-outlier ΔNLLs, decision against
    n·E[α²] with 1 as the alternative); with the summary, source, seeds present and planned."""
    from companion.llm.sign_flips.leverage import linear_ps

    s, src, on = claim_summary("leverage", scale, full)
    pred = s.get("prediction", {}).get("n_E_alpha2_outlier", float("nan"))
    k, planned = _seeds(scale)
    rows = {}
    for p in linear_ps(SIZES[scale].setup.leverage_ps):
        est, non, out = _seed_ratio(scale, p, k)
        rows[p] = (est, non, decide(est, pred, alternative=1.0), out)
    return rows, pred, k, planned, s, src, on


def _parts(rows: dict) -> list[str]:
    return [
        f"p = {p:g}: {est.value:.1f} ± {est.stderr:.1f} (z = {d['z']:+.1f} from n·E[α²], "
        f"{d['z_alt']:+.1f} from 1; non-outlier ΔNLL per seed {min(non):.1e}–{max(non):.1e})"
        for p, (est, non, d, _) in rows.items()
    ]


def _tails(rows: dict) -> list[str]:
    """Per p, how the outlier ΔNLL is spread over seeds (a sum dominated by a few seeds is
    a heavy tail, not the typical flip) and the median per-seed ratio (the paper's
    statistic), shown beside the decision, never used by it."""
    out = []
    for p, (_, non, _, o) in rows.items():
        med = float(np.median(o))
        big = sum(x > 10 * med for x in o) if med > 0 else 0
        ratios = [a / b for a, b in zip(o, non, strict=True) if b > 0]
        out.append(
            f"p = {p:g}: outlier ΔNLL per seed median {med:.2g}, largest {max(o):.2g} "
            f"({big} of {len(o)} seeds above 10× the median); median per-seed ratio "
            f"{np.median(ratios):.1f}"
        )
    return out


def _leverage(scale: str = "cpu", full: bool = False) -> Measurement:
    rows, pred, k, planned, s, src, on = _linear(scale, full)
    parts = _parts(rows)
    deviate = [p for p, (_, _, d, _) in rows.items() if not d["agrees"]]
    open_ = [p for p, (_, _, d, _) in rows.items() if d["unresolved"]]
    cmd = _command(scale)
    if deviate:
        reason = (
            f"the seed-level ratio differs from n·E[α²] = {pred:.2f} by more than 4 SE at p = "
            + ", ".join(f"{p:g}" for p in deviate)
            + (f" ({k} of the {planned} planned seeds)" if k < planned else "")
            + " ("
            + "; ".join(parts)
            + ")"
        )
    elif k < planned:  # never called reproduced on part of the planned seeds
        reason = (
            f"{k} of the {planned} planned seeds are measured: the claim is decided on all "
            f"{planned} (finish with `{cmd}`); so far every ratio is within 4 SE of n·E[α²] = "
            f"{pred:.2f} (" + "; ".join(parts) + ")"
        )
    elif open_:
        worst = min(abs(rows[p][2]["z_alt"]) for p in open_)
        reason = (
            f"every seed-level ratio agrees with n·E[α²] = {pred:.2f} within 4 SE, but at p = "
            + ", ".join(f"{p:g}" for p in open_)
            + f" it is also within 4 SE of 1 (no leverage): {k} seeds cannot tell the "
            f"two apart (about {math.ceil(k * (4 / worst) ** 2)} would, at this "
            "scatter) (" + "; ".join(parts) + ")"
        )
    else:
        reason = ""
    est01 = rows[0.001][0]
    return Measurement(
        value=round(est01.value, 3),
        stderr=est01.stderr,
        agrees=not deviate,
        unresolved=not deviate and (bool(open_) or k < planned),
        reason=reason,
        shown=per_setting(
            {f"p = {100 * p:g}%": (e.value, e.stderr) for p, (e, *_) in rows.items()}
        ),
        detail=f"{who(s)}, {k} seeds per linear-regime p ({planned} planned; paper 10), "
        "count-matched flips; seed-level ratio of summed ΔNLLs with its delta-method SE over "
        "seeds. "
        + "; ".join(parts)
        + ". How the seeds spread: "
        + "; ".join(_tails(rows))
        + ". Paper (TinyLlama-1.1B): ≈ 10× ≈ n·E[α²] (medians 10.4 / 8.65 / 9.48 at 0.5 / 0.1 "
        "/ 0.05%)",
        source=src,
        measured_on=on,
    )


def _command(scale: str) -> str:
    from companion.llm import sign_flips as sf

    return sf.command_line("leverage", SIZES[scale].model, scale)


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


_CPU = SIZES["cpu"].setup

#: These claims, in the order the chapter shows them.
CLAIMS = (
    Claim(
        id="dong.real.count_matched_leverage",
        statement=f"On {SMOL} at CPU scale, with equal numbers of flips, outlier-column flips "
        "raise NLL about n·E[α²] (from the measured α) times more than non-outlier "
        "flips in the linear-response regime (p = 0.05–0.5% of the outlier pool).",
        paper_value="≈ 10× ≈ n·E[α²] at p ≤ 0.5% (TinyLlama-1.1B; medians 10.4 / 8.65 / 9.48)",
        method=f"Exp E: count-matched flips, {_CPU.leverage_seeds} seeds at every p and "
        f"{_CPU.leverage_linear_seeds} at p = 0.05–0.5%; per p the ratio of the seeds' summed "
        "ΔNLLs (delta-method SE over seeds) against n·E[α²] over the outlier columns",
        tolerance="at every p, within 4 seed-SE of n·E[α²]; unresolved where also within 4 "
        "seed-SE of 1 (no leverage), or while fewer seeds than planned are measured (a ratio "
        "beyond 4 SE of n·E[α²] is reported as it is found)",
        provenance=("abstract", "author-code"),
        measure=_leverage,
        control_none="the control it needs is the same seed-level ratios against 1 (no "
        "leverage: an outlier-column flip costing what any other does); it cannot deviate "
        "while the claim itself is unresolved, within 4 SE of 1 at some p (its reason gives "
        "the numbers and how the outlier ΔNLL spreads over seeds)",
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
