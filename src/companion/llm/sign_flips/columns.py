"""Exp G (Dong 2026, §4.5): whole-column flips of columns log-spaced in α; ΔNLL per column.

The α of the target layer comes from Exp F's record when the results file holds one (else it
is measured now and stored). The summary is the rank correlation of α² with ΔNLL and the
log-log slope over the columns whose ΔNLL is positive.
"""

from __future__ import annotations

import numpy as np

from companion.llm.sign_flips.activations import log_spaced_columns, spearman
from companion.llm.sign_flips.alpha import alpha_record
from companion.llm.sign_flips.context import Context, Experiment
from companion.llm.sign_flips.masks import column_flip_set
from companion.results import run_record

__all__: list[str] = []


def run(ctx: Context) -> None:
    ctx.record_baseline()
    target = ctx.target
    akey = f"alpha|{target}"
    arec = run_record(ctx.store, None, lambda: alpha_record(ctx, target), key=akey)
    a_ratio = np.asarray(arec["alpha_ratio"])
    cols = log_spaced_columns(a_ratio, ctx.cfg.n_columns)
    W = ctx.layers[target].weight
    for j in ctx.bar(cols.tolist(), desc="columns"):

        def measure(j=j) -> dict:
            rec = ctx.eval_perturbed(column_flip_set(target, tuple(W.shape), j))
            return {
                **{"layer": target, "column": j, "alpha": float(a_ratio[j])},
                **{"alpha_tok": float(arec["alpha_tok"][j]), "colnorm": float(arec["colnorm"][j])},
                **rec,
            }

        ctx.measure(f"column|{target}|{j}", measure)


def summary(records: list, by_key: dict) -> dict:
    cols = sorted((r for r in records if r["key"].startswith("column|")), key=lambda r: r["alpha"])
    a2 = np.array([r["alpha"] ** 2 for r in cols])
    d = np.array([r["dnll"] for r in cols])
    pos = d > 0
    slope = (
        float(np.polyfit(np.log(a2[pos]), np.log(d[pos]), 1)[0]) if pos.sum() >= 3 else float("nan")
    )
    enough = len(cols) > 2
    weights = np.array([r["colnorm"] ** 2 for r in cols])
    return dict(
        columns=len(cols),
        spearman=spearman(a2, d) if enough else float("nan"),
        pearson=float(np.corrcoef(a2, d)[0, 1]) if enough else float("nan"),
        spearman_weighted=spearman(a2 * weights, d) if enough else float("nan"),
        loglog_slope=slope,
        negative=int((d <= 0).sum()),
        rows=cols,
        max_dnll=float(d.max()) if len(d) else float("nan"),
    )


def describe(s: dict) -> list[str]:
    return [
        f"{s['columns']} columns: Spearman(α², ΔNLL) {s['spearman']:.3f} (paper 0.927),"
        f" log-log slope {s['loglog_slope']:.2f} (paper 0.78), "
        f"{s['negative']} with ΔNLL ≤ 0"
    ]


EXPERIMENT = Experiment(
    "columns", run, summary, describe, prefix="column|", needs=frozenset({"windows", "target"})
)
