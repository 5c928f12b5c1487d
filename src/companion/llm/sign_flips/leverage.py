"""Exp E (Dong 2026, §4.5): count-matched leverage of the outlier columns.

The same number of flips in the outlier pool and in the non-outlier pool, at fractions p
of the outlier pool; the leverage is the ratio of their ΔNLL, per seed. The first-order
prediction from the measured α (:func:`leverage_prediction`) is recorded with the
calibration.
"""

from __future__ import annotations

import time

import numpy as np

from companion.llm._checks import check_layers
from companion.llm.sign_flips.context import Context, Experiment, quartiles, ratio
from companion.llm.sign_flips.masks import check_columns, count_matched_flips, pool_sizes
from companion.llm.sign_flips.setups import PAPER

__all__ = ["leverage_prediction"]


def leverage_prediction(layers: dict, moments: dict, columns: dict) -> dict:
    """First-order predictions of the count-matched leverage from the measured α.

    With flips allocated in proportion to pool size, the expected count-matched ratio is the
    ratio of pool-averaged per-flip energies. ``n_E_alpha2_outlier`` is the paper's
    n·E[α²] over outlier columns (a delocalised column has nα² = 1); ``alpha2_ratio`` is
    E[α²|outlier]/E[α²|non] (the count-matched form, weights ignored) and ``energy_ratio``
    uses the exact single-flip energies 4 W_ij² E[x_j²] (weights included).
    """
    check_layers(layers)
    columns = check_columns(layers, columns, "outlier")
    if not isinstance(moments, dict) or set(moments) != set(layers):
        raise TypeError(
            f"`moments` must be input_moments' dict with one entry per layer; got "
            f"{type(moments).__name__}{' with other keys' if isinstance(moments, dict) else ''}"
        )
    if any(len(c) in (0, layers[k].weight.shape[1]) for k, c in columns.items()):
        raise ValueError("`columns` must leave each layer some outlier and some other columns")
    num = {"a_out": 0.0, "a_non": 0.0, "e_out": 0.0, "e_non": 0.0, "na_out": 0.0}
    n_out = n_non = 0
    for name, mod in layers.items():
        m, n = mod.weight.shape
        mom = moments[name]
        a2 = np.asarray(mom["ex2"]) / mom["enorm2"]  # (n,) α_j²
        col2 = (mod.weight.detach().double() ** 2).sum(0).cpu().numpy()  # (n,) ‖W[:, j]‖²
        energy = 4.0 * col2 * np.asarray(mom["ex2"])  # Σ_i 4 W_ij² E x_j²
        mask = np.zeros(n, dtype=bool)
        mask[columns[name]] = True
        num["a_out"] += m * a2[mask].sum()
        num["a_non"] += m * a2[~mask].sum()
        num["na_out"] += m * (n * a2[mask]).sum()
        num["e_out"] += energy[mask].sum()
        num["e_non"] += energy[~mask].sum()
        n_out += m * int(mask.sum())
        n_non += m * int((~mask).sum())
    return {
        "n_E_alpha2_outlier": num["na_out"] / n_out,
        "alpha2_ratio": (num["a_out"] / n_out) / (num["a_non"] / n_non),
        "energy_ratio": (num["e_out"] / n_out) / (num["e_non"] / n_non),
    }


def run(ctx: Context) -> None:
    """Count-matched flips (same number in each pool) at fractions p of the outlier pool."""
    ctx.record_baseline()
    _, cols = ctx.calibrate()
    pool_out = sum(pool_sizes(ctx.layers, cols, "outlier").values())
    jobs = [(p, s, pool) for p in ctx.ps for s in range(ctx.seeds) for pool in ("outlier", "non")]
    for p, s, pool in ctx.bar(jobs, desc="leverage"):
        key = f"leverage|{ctx.calibration}|p={p:g}|{pool}|seed={s}"
        if ctx.store.done(key):
            continue
        t0 = time.perf_counter()
        n = max(1, int(round(p * pool_out)))
        fs = count_matched_flips(ctx.layers, n, columns=cols, pool=pool, seed=s)
        rec = ctx.eval_perturbed(fs)
        ctx.store.append(
            {
                "key": key,
                "p": p,
                "pool": pool,
                "seed": s,
                "n_flips": fs.count,
                **rec,
                "wall_s": time.perf_counter() - t0,
            }
        )


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
    lin = [r["nll_lev"]["median"] for r in rows if r["p"] <= 0.005 and r["p"] >= 0.0005]
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
