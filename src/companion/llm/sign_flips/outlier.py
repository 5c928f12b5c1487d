"""Exp D (Dong 2026, §4.5): flips at rate p in outlier columns, in the others, everywhere.

The outlier columns are the top 5% of each matrix's input dimensions by mean |input| on
calibration windows. Conditions: flips everywhere and the Frobenius-matched magnitude
perturbation (controls), flips in the outlier pool and in the non-outlier pool, and the
author's Frobenius-rescaled flips in both pools. The summary is the per-seed ratio of
ΔNLL (outlier / non-outlier) and each condition's median.
"""

from __future__ import annotations

import math

import numpy as np

from companion.llm.sign_flips.context import Context, Experiment, quartiles, ratio
from companion.llm.sign_flips.masks import bernoulli_flips

__all__: list[str] = []

#: (pool, kind) of every condition; the first two do not depend on the calibration.
CONDITIONS = (
    ("all", "flip"),
    ("all", "magnitude"),
    ("outlier", "flip"),
    ("non", "flip"),
    ("outlier", "scaled_flip"),
    ("non", "scaled_flip"),
)


def run(ctx: Context) -> None:
    """Flips at rate p in outlier / non-outlier columns / everywhere (+ controls)."""
    ctx.record_baseline()
    _, cols = ctx.calibrate()
    proto, p = ctx.calibration, ctx.p
    conds = CONDITIONS[2:] if proto == "overlap" else CONDITIONS
    jobs = [(s, pool, kind) for s in range(ctx.seeds) for pool, kind in conds]
    for s, pool, kind in ctx.bar(jobs, desc="outlier"):

        def measure(s=s, pool=pool, kind=kind) -> dict:
            fs = bernoulli_flips(ctx.layers, p, seed=s, columns=cols, pool=pool)
            scale = 1.0
            if kind == "scaled_flip":
                # the author's Frobenius matching: rescale ΔW to the norm of the all-entry flips
                ref = bernoulli_flips(ctx.layers, p, seed=s, pool="all")
                scale = math.sqrt(ref.sq_norm(ctx.layers) / fs.sq_norm(ctx.layers))
            rec = ctx.eval_perturbed(fs, kind, scale)
            return {
                **{"protocol": proto, "p": p, "pool": pool, "kind": kind, "seed": s},
                **{"n_flips": fs.count, "rescale": scale, **rec},
            }

        ctx.measure(f"outlier|{proto}|p={p:g}|{pool}|{kind}|seed={s}", measure)


def _ratios(recs: list, by_key: dict) -> dict:
    """Per protocol and kind: the per-seed outlier/non ratios of ΔNLL and ΔPPL."""
    res = {}
    for proto in sorted({r["protocol"] for r in recs}):
        for kind in ("flip", "scaled_flip"):
            ratios, pratios = [], []
            for s in sorted({r["seed"] for r in recs}):
                o = by_key.get(f"outlier|{proto}|p={recs[0]['p']:g}|outlier|{kind}|seed={s}")
                n = by_key.get(f"outlier|{proto}|p={recs[0]['p']:g}|non|{kind}|seed={s}")
                if o and n:
                    ratios.append(ratio(o["dnll"], n["dnll"]))
                    pratios.append(ratio(o["dppl"], n["dppl"], 0.01))
            if ratios:
                res[f"{proto}|{kind}"] = {
                    "nll_ratio": quartiles(ratios),
                    "ppl_ratio": quartiles(pratios),
                    "nll_ratios": ratios,
                    "ppl_ratios": pratios,
                }
    return res


def summary(records: list, by_key: dict) -> dict:
    recs = [r for r in records if r["key"].startswith("outlier|")]
    res = _ratios(recs, by_key)
    for pool, kind in CONDITIONS:
        sel = [
            r
            for r in recs
            if r["pool"] == pool and r["kind"] == kind and r["protocol"] == "disjoint"
        ] or [r for r in recs if r["pool"] == pool and r["kind"] == kind]
        if sel:
            res[f"{pool}|{kind}"] = {
                "dnll": float(np.median([r["dnll"] for r in sel])),
                "ppl": float(np.median([r["ppl"] for r in sel])),
                "n_flips": int(np.median([r["n_flips"] for r in sel])),
                "rescale": float(np.median([r["rescale"] for r in sel])),
            }
    calibration = {k.split("|", 1)[1]: v for k, v in by_key.items() if k.startswith("calibration|")}
    return {"conditions": res, "calibration": calibration}


def describe(s: dict) -> list[str]:
    lines = []
    for k, v in s["conditions"].items():
        if "nll_ratio" in v:
            lines.append(
                f"{k:24s} ΔNLL ratio out/non median {v['nll_ratio']['median']:.3g}"
                f"  ΔPPL ratio {v['ppl_ratio']['median']:.3g}"
            )
        else:
            lines.append(
                f"{k:24s} ΔNLL {v['dnll']:.4g}  PPL {v['ppl']:.4g}  "
                f"flips {v['n_flips']}  rescale {v['rescale']:.3g}"
            )
    return lines


EXPERIMENT = Experiment(
    "outlier", run, summary, describe, prefix="outlier|", needs=frozenset({"windows", "calib"})
)
