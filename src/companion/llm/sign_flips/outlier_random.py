"""The negative control of Exp D: the same flips at rate p with a **random** 5% of each
matrix's input columns in place of the calibrated outlier columns.

If the outlier columns carry the sensitivity, the ratio ΔNLL(random 5%) / ΔNLL(the other 95%)
is far below the outlier ratio; the paper's 5.0× must not come out of random columns. Per seed
a fresh random column set is drawn per matrix (its own generator), with pure flips and the
author's rescaling to the all-entry flip norm, as in :mod:`~.outlier`.
"""

from __future__ import annotations

import math

import numpy as np

from companion.llm.sign_flips.context import Context, Experiment, quartiles, ratio
from companion.llm.sign_flips.masks import bernoulli_flips, matrix_rng

__all__ = ["CONDITIONS"]

#: (pool, kind) of every condition: "outlier" here is the random column set.
CONDITIONS = (
    ("outlier", "flip"),
    ("non", "flip"),
    ("outlier", "scaled_flip"),
    ("non", "scaled_flip"),
)


def _random_columns(layers: dict, frac: float, seed: int) -> dict:
    """A random ``frac`` of each matrix's input columns (sorted), from per-matrix streams."""
    out = {}
    for i, (name, mod) in enumerate(layers.items()):
        n = mod.weight.shape[1]
        g = matrix_rng(seed, i, "columns")
        out[name] = np.sort(g.choice(n, size=max(1, int(round(frac * n))), replace=False))
    return out


def run(ctx: Context) -> None:
    ctx.record_baseline()
    p = ctx.p
    jobs = [(s, pool, kind) for s in range(ctx.seeds) for pool, kind in CONDITIONS]
    for s, pool, kind in ctx.bar(jobs, desc="outlier-random"):

        def measure(s=s, pool=pool, kind=kind) -> dict:
            cols = _random_columns(ctx.layers, ctx.cfg.outlier_frac, seed=1000 + s)
            fs = bernoulli_flips(ctx.layers, p, seed=s, columns=cols, pool=pool)
            scale = 1.0
            if kind == "scaled_flip":
                ref = bernoulli_flips(ctx.layers, p, seed=s, pool="all")
                scale = math.sqrt(ref.sq_norm(ctx.layers) / fs.sq_norm(ctx.layers))
            rec = ctx.eval_perturbed(fs, kind, scale)
            return {
                **{"p": p, "pool": pool, "kind": kind, "seed": s},
                **{"n_flips": fs.count, "rescale": scale, **rec},
            }

        ctx.measure(f"outlier_random|p={p:g}|{pool}|{kind}|seed={s}", measure)


def summary(records: list, by_key: dict) -> dict:
    recs = [r for r in records if r["key"].startswith("outlier_random|")]
    res = {}
    for kind in ("flip", "scaled_flip"):
        ratios = []
        for s in sorted({r["seed"] for r in recs}):
            o = [r for r in recs if r["seed"] == s and r["kind"] == kind and r["pool"] == "outlier"]
            n = [r for r in recs if r["seed"] == s and r["kind"] == kind and r["pool"] == "non"]
            if o and n:
                ratios.append(ratio(o[0]["dnll"], n[0]["dnll"]))
        if ratios:
            res[kind] = {"nll_ratio": quartiles(ratios), "nll_ratios": ratios}
    return {"conditions": res}


def describe(s: dict) -> list[str]:
    return [
        f"random 5% columns, {k:12s} ΔNLL ratio random/rest median {v['nll_ratio']['median']:.3g}"
        for k, v in s["conditions"].items()
    ]


EXPERIMENT = Experiment(
    "outlier-random", run, summary, describe, prefix="outlier_random|", needs=frozenset({"windows"})
)
