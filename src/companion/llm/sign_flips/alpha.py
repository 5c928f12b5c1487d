"""Exp F (Dong 2026, §4.5): α of one attention input projection and its single-flip energies.

For the q_proj at depth ≈ 12/22 (:func:`~companion.llm.sign_flips.layers.default_target`):
α per input dimension in both normalisations (ratio of expectations, the author's; and
per token), the exact single-flip energy of each column, and their rank correlation.
"""

from __future__ import annotations

import numpy as np

from companion.llm.sign_flips.activations import (
    activation_stats,
    alpha_from_stats,
    outlier_columns,
    single_flip_energy,
    spearman,
)
from companion.llm.sign_flips.context import Context, Experiment

__all__: list[str] = []


def alpha_record(ctx: Context, target: str) -> dict:
    """The α statistics of ``target``'s inputs over the evaluation windows."""
    stats = activation_stats(
        ctx.model, ctx.windows, ctx.layers, target, min_tokens=ctx.cfg.min_calib_tokens
    )
    a_ratio, a_tok = alpha_from_stats(stats)
    W = ctx.layers[target].weight.detach().double().cpu().numpy()  # (m, n)
    energy = single_flip_energy(W, stats["ex2"])
    out = outlier_columns({"t": stats["abs_mean"]}, ctx.cfg.outlier_frac)["t"]
    mask = np.zeros(len(a_ratio), dtype=bool)
    mask[out] = True
    colnorm = np.sqrt((W * W).sum(0))
    return {
        "layer": target,
        "n": int(W.shape[1]),
        "m": int(W.shape[0]),
        "tokens": stats["tokens"],
        "enorm2": stats["enorm2"],
        "spearman_alpha2_energy": spearman(a_ratio**2, energy),
        "spearman_alpha2tok_energy": spearman(a_tok**2, energy),
        "pearson_alpha2_energy": float(np.corrcoef(a_ratio**2, energy)[0, 1]),
        "alpha_ratio_median": float(np.median(a_ratio)),
        "alpha_ratio_max": float(a_ratio.max()),
        "alpha_ratio_median_outlier": float(np.median(a_ratio[mask])),
        "alpha_tok_median": float(np.median(a_tok)),
        "alpha_tok_max": float(a_tok.max()),
        "alpha_tok_median_outlier": float(np.median(a_tok[mask])),
        "argmax_alpha": int(a_ratio.argmax()),
        "energy_ratio_outlier_non": float(energy[mask].mean() / energy[~mask].mean()),
        "alpha2_ratio_outlier_non": float(
            (a_ratio[mask] ** 2).mean() / (a_ratio[~mask] ** 2).mean()
        ),
        "colnorm_ratio_outlier_non": float(colnorm[mask].mean() / colnorm[~mask].mean()),
        "alpha_ratio": a_ratio.tolist(),
        "alpha_tok": a_tok.tolist(),
        "energy": energy.tolist(),
        "colnorm": colnorm.tolist(),
        "outlier_columns": out.tolist(),
    }


def run(ctx: Context) -> None:
    ctx.measure(f"alpha|{ctx.target}", lambda: alpha_record(ctx, ctx.target))


ARRAYS = ("alpha_ratio", "alpha_tok", "energy", "colnorm", "outlier_columns")


def summary(records: list, by_key: dict) -> dict:
    rec = next(r for r in records if r["key"].startswith("alpha|"))
    out = {k: v for k, v in rec.items() if not isinstance(v, list)}
    out["arrays"] = {k: rec[k] for k in ARRAYS}
    return out


def describe(s: dict) -> list[str]:
    return [
        f"{s['layer']}: Spearman(α², energy) {s['spearman_alpha2_energy']:.3f} "
        f"(paper 0.955); α median {s['alpha_ratio_median']:.4f} max "
        f"{s['alpha_ratio_max']:.3f}; per-token α median {s['alpha_tok_median']:.4f} "
        f"max {s['alpha_tok_max']:.3f}"
    ]


EXPERIMENT = Experiment(
    "alpha", run, summary, describe, prefix="alpha|", needs=frozenset({"windows", "target"})
)
