"""Exp E (Dong 2026, §4.5): count-matched leverage of the outlier columns.

The same number of flips in the outlier pool and in the non-outlier pool, at fractions p
of the outlier pool; the leverage is the ratio of their ΔNLL, per seed. The first-order
prediction from the measured α
(:func:`companion.llm.sign_flips.activations.leverage_prediction`) is recorded with the
calibration.
"""

from __future__ import annotations

import numpy as np

from companion.llm.sign_flips.context import Context, Experiment, quartiles, ratio
from companion.llm.sign_flips.masks import count_matched_flips, pool_sizes
from companion.llm.sign_flips.setups import PAPER

#: The linear-response regime (fractions of the outlier pool, both ends included): where the
#: leverage is compared with n·E[α²] and where ``Setup.leverage_linear_seeds`` applies.
LINEAR = (0.0005, 0.005)


def linear_ps(ps) -> list:
    """The fractions of ``ps`` in the linear regime :data:`LINEAR`."""
    return [p for p in ps if LINEAR[0] <= p <= LINEAR[1]]


def linear_seeds(ctx: Context) -> int:
    """Seeds of the linear-regime fractions: the setup's ``leverage_linear_seeds`` when it
    exceeds the run's seeds."""
    return max(ctx.seeds, ctx.cfg.leverage_linear_seeds)


def run(ctx: Context) -> None:
    """Count-matched flips (same number in each pool) at fractions p of the outlier pool:
    ``ctx.seeds`` seeds at every p, then the extra seeds of the linear regime seed by seed
    (an interrupted run leaves whole seeds)."""
    ctx.record_baseline()
    _, cols = ctx.calibrate()
    pool_out = sum(pool_sizes(ctx.layers, cols, "outlier").values())
    pools = ("outlier", "non")
    jobs = [(p, s, pool) for p in ctx.ps for s in range(ctx.seeds) for pool in pools]
    jobs += [
        (p, s, pool)
        for s in range(ctx.seeds, linear_seeds(ctx))
        for p in linear_ps(ctx.ps)
        for pool in pools
    ]
    for p, s, pool in ctx.bar(jobs, desc="leverage"):

        def measure(p=p, s=s, pool=pool) -> dict:
            n = max(1, int(round(p * pool_out)))
            fs = count_matched_flips(ctx.layers, n, columns=cols, pool=pool, seed=s)
            rec = ctx.eval_perturbed(fs)
            return {"p": p, "pool": pool, "seed": s, "n_flips": fs.count, **rec}

        ctx.measure(f"leverage|{ctx.calibration}|p={p:g}|{pool}|seed={s}", measure)


def _row(recs: list, p: float) -> dict:
    """The leverage at one flip fraction: per-seed ratios and the non-outlier ΔNLL."""
    nl, pl, dn_non, se_non, nflips = [], [], [], [], 0
    for s in sorted({r["seed"] for r in recs if r["p"] == p}):
        o = next(
            (r for r in recs if r["p"] == p and r["seed"] == s and r["pool"] == "outlier"), None
        )
        n = next((r for r in recs if r["p"] == p and r["seed"] == s and r["pool"] == "non"), None)
        if o and n:
            nl.append(ratio(o["dnll"], n["dnll"]))
            pl.append(ratio(o["dppl"], n["dppl"], 0.001))
            dn_non.append(n["dnll"])
            se_non.append(n["dnll_window_se"])
            nflips = o["n_flips"]
    return {
        "p": p,
        "n_flips": nflips,
        "nll_lev": quartiles(nl),
        "ppl_lev": quartiles(pl),
        "nll_levs": nl,
        "ppl_levs": pl,
        "dnll_non_median": float(np.median(dn_non)) if dn_non else float("nan"),
        "window_se_non_median": float(np.median(se_non)) if se_non else float("nan"),
        "paper_nll": PAPER["leverage_nll_median"].get(p),
        "paper_ppl": PAPER["leverage_ppl_median"].get(p),
    }


def summary(records: list, by_key: dict) -> dict:
    recs = [r for r in records if r["key"].startswith("leverage|")]
    rows = [_row(recs, p) for p in sorted({r["p"] for r in recs}, reverse=True)]
    out: dict = {"rows": rows}
    cal = [v for k, v in by_key.items() if k.startswith("calibration|")]
    if cal:
        out["prediction"] = {
            k: cal[0][k] for k in ("n_E_alpha2_outlier", "alpha2_ratio", "energy_ratio")
        }
    lin = [r["nll_lev"]["median"] for r in rows if linear_ps([r["p"]])]
    out["plateau_nll"] = float(np.median(lin)) if lin else float("nan")
    return out


def describe(s: dict) -> list[str]:
    lines = [
        f"p={r['p']:<7g} n={r['n_flips']:<8d} NLL lev {r['nll_lev']['median']:.3g}"
        f" [{r['nll_lev']['q25']:.3g}, {r['nll_lev']['q75']:.3g}]  PPL lev "
        f"{r['ppl_lev']['median']:.3g}  ΔNLL_non {r['dnll_non_median']:.2e} "
        f"(window SE {r['window_se_non_median']:.1e})"
        for r in s["rows"]
    ]
    if "prediction" in s:
        lines.append(
            f"prediction: n·E[α²|out] {s['prediction']['n_E_alpha2_outlier']:.3g}, "
            f"energy ratio {s['prediction']['energy_ratio']:.3g}"
        )
    return lines


EXPERIMENT = Experiment(
    "leverage",
    run,
    summary,
    describe,
    prefix="leverage|",
    needs=frozenset({"windows", "calib"}),
    seeds_field="leverage_seeds",
)
