"""Sign flips against the paper's Frobenius-matched magnitude perturbation, and where the
magnitude perturbation's damage sits (Dong 2026, Theorem 3 on a real model).

At small flip rates p (the linear regime, ΔNLL ≪ 1), every Linear layer is perturbed by one
of the kinds of :mod:`~.perturbations`, all built from the same flip set S per seed:

* ``flip``: w → −w on S;
* ``magnitude``: δ sign W on every entry, ‖·‖_F = ‖ΔW_flip‖_F (the paper's partner);
* ``radial``: (1 + s)W, the same norm as a pure rescale (the control of a "radial scale-up"
  reading of the magnitude damage);
* ``magnitude_radial`` and ``magnitude_transverse``: the two orthogonal parts of δ sign W.

The summary is, per p and kind, the mean ΔNLL with its seed-to-seed SE and the mean over seeds
of the ratio to the flips' ΔNLL of the same seed.
"""

from __future__ import annotations

import math

import numpy as np

from companion.llm.sign_flips.context import Context, Experiment
from companion.llm.sign_flips.masks import bernoulli_flips

__all__ = ["KINDS", "PS"]

#: Flip rates (linear regime on SmolLM2 at CPU scale).
PS = (0.001, 0.01)
#: Perturbation kinds compared.
KINDS = ("flip", "magnitude", "radial", "magnitude_radial", "magnitude_transverse")


def run(ctx: Context) -> None:
    """Every kind at every p and seed, from one flip set per (p, seed)."""
    ctx.record_baseline()
    jobs = [(p, s, kind) for p in PS for s in range(ctx.seeds) for kind in KINDS]
    cache: dict = {}
    for p, s, kind in ctx.bar(jobs, desc="sign-vs-magnitude"):

        def measure(p=p, s=s, kind=kind) -> dict:
            if (p, s) not in cache:
                cache.clear()
                cache[p, s] = bernoulli_flips(ctx.layers, p, seed=s, pool="all")
            fs = cache[p, s]
            rec = ctx.eval_perturbed(fs, kind)
            return {"p": p, "kind": kind, "seed": s, "n_flips": fs.count, **rec}

        ctx.measure(f"svm|p={p:g}|{kind}|seed={s}", measure)


def _mean_se(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")
    return float(x.mean()), se


def summary(records: list, by_key: dict) -> dict:
    recs = [r for r in records if r["key"].startswith("svm|")]
    rows = {}
    for p in sorted({r["p"] for r in recs}):
        flips = {r["seed"]: r["dnll"] for r in recs if r["p"] == p and r["kind"] == "flip"}
        for kind in KINDS:
            sel = sorted(
                (r for r in recs if r["p"] == p and r["kind"] == kind), key=lambda r: r["seed"]
            )
            if not sel:
                continue
            dn = [r["dnll"] for r in sel]
            ratios = [r["dnll"] / flips[r["seed"]] for r in sel if flips.get(r["seed"])]
            mean, se = _mean_se(dn)
            rmean, rse = _mean_se(ratios) if ratios else (float("nan"), float("nan"))
            rows[f"{p:g}|{kind}"] = {
                "p": p,
                "kind": kind,
                "seeds": len(sel),
                "dnll": mean,
                "dnll_seed_se": se,
                "dnll_per_seed": dn,
                "window_se": float(np.median([r["dnll_window_se"] for r in sel])),
                "nll_max": float(max(r["nll"] for r in sel)),
                "ratio_to_flip": rmean,
                "ratio_to_flip_se": rse,
            }
    return {"rows": rows}


def describe(s: dict) -> list[str]:
    return [
        f"p={v['p']:<6g} {v['kind']:22s} ΔNLL {v['dnll']:.4f} ± {v['dnll_seed_se']:.4f} "
        f"({v['seeds']} seeds)  ÷ flips {v['ratio_to_flip']:.3f} ± {v['ratio_to_flip_se']:.3f}"
        for v in s["rows"].values()
    ]


EXPERIMENT = Experiment(
    "sign-vs-magnitude", run, summary, describe, prefix="svm|", needs=frozenset({"windows"})
)
