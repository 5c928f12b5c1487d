"""Part I at scale: figures drawn from the committed sign-flip results files.

Pure functions of their parameters: every panel reads ``results/sign_flips`` (written by
``companion run sign-flips``), cached per process, and draws nothing random.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.plotting import COLORS

__all__ = ["draw", "draw_alpha", "draw_columns", "draw_table1", "PS"]

#: The leverage sweep's flip fractions of the outlier pool (the frame player's values).
PS = (0.05, 0.005, 0.001, 0.0005, 0.0001)


@lru_cache(maxsize=16)
def _summary(experiment: str, model: str, scale: str):
    from companion.llm import sign_flips as sf

    recs = sf.load_results(model, experiment, scale=scale)
    return sf.summarize(experiment, recs) if recs else None


def _missing(fig, experiment, model, scale):
    ax = fig.subplots()
    ax.text(
        0.5,
        0.5,
        f"no results for {experiment} / {model} / {scale}:\nrun companion run "
        f"sign-flips --experiment {experiment} --model {model}",
        ha="center",
        va="center",
    )
    ax.set_axis_off()


def draw(
    fig, p: float = 0.001, metric: str = "nll", model: str = "smollm2-135m", scale: str = "cpu"
):
    """Left: count-matched leverage against the flip fraction p (median, IQR, seeds), with the
    paper's TinyLlama medians and the n·E[α²] prediction. Right: at the chosen p, ΔNLL of the
    outlier and non-outlier flips per seed, with the evaluation noise floor (±2 SE across
    windows)."""
    s = _summary("leverage", model, scale)
    if s is None:
        return _missing(fig, "leverage", model, scale)
    ax1, ax2 = fig.subplots(1, 2)
    key = "nll_lev" if metric == "nll" else "ppl_lev"
    rows = s["rows"]
    ps = np.array([r["p"] for r in rows])
    med = np.array([r[key]["median"] for r in rows])
    lo = np.array([r[key]["q25"] for r in rows])
    hi = np.array([r[key]["q75"] for r in rows])
    ax1.fill_between(ps, lo, hi, color=COLORS["sim"], alpha=0.2, lw=0)
    ax1.plot(ps, med, "o-", color=COLORS["sim"], label=f"{model}: median, IQR")
    for r in rows:
        vals = np.asarray(r[key + "s"], dtype=float)
        ax1.plot([r["p"]] * len(vals), vals, ".", color=COLORS["sim"], alpha=0.5, ms=4)
    paper = [r["paper_nll" if metric == "nll" else "paper_ppl"] for r in rows]
    ax1.plot(ps, paper, "s--", color=COLORS["paper"], ms=4, label="paper, TinyLlama-1.1B")
    pred = s.get("prediction", {}).get("n_E_alpha2_outlier")
    if pred:
        ax1.axhline(
            pred, color=COLORS["theory"], lw=1.5, label=f"n·E[α²] = {pred:.3g} (measured α)"
        )
    ax1.axhline(1, color=COLORS["grey"], lw=0.8, ls=":")
    ax1.axvline(p, color=COLORS["grey"], lw=1, ls=":")
    ax1.set_yscale("symlog", linthresh=1.0)
    ax1.set(
        xscale="log",
        xlabel="flips as a fraction p of the outlier pool",
        ylabel=f"{metric.upper()} leverage (outlier / non)",
        title="count-matched leverage",
    )
    ax1.legend(fontsize=7)
    r = min(rows, key=lambda r: abs(np.log(r["p"]) - np.log(p)))
    recs = [x for x in _records("leverage", model, scale) if x.get("p") == r["p"]]
    for pool, col, off in (("outlier", COLORS["sim"], -0.1), ("non", COLORS["alt"], 0.1)):
        sel = sorted((x for x in recs if x["pool"] == pool), key=lambda x: x["seed"])
        x = np.array([q["seed"] for q in sel]) + off
        y = np.array([q["dnll"] for q in sel])
        e = np.array([2 * q["dnll_window_se"] for q in sel])
        ax2.errorbar(x, y, yerr=e, fmt="o", color=col, capsize=3, label=f"{pool} columns")
    ax2.axhline(0, color=COLORS["grey"], lw=0.8)
    ax2.set_yscale("symlog", linthresh=1e-3)
    ax2.set_xticks(sorted({q["seed"] for q in recs}))
    ax2.set(
        xlabel="seed",
        ylabel="ΔNLL (± 2 SE across windows)",
        title=f"p = {r['p']:g}: {r['n_flips']} flips per pool",
    )
    ax2.legend(fontsize=7)


@lru_cache(maxsize=16)
def _records_cached(experiment, model, scale):
    from companion.llm import sign_flips as sf

    return tuple(sf.load_results(model, experiment, scale=scale))


def _records(experiment, model, scale):
    return list(_records_cached(experiment, model, scale))


def draw_table1(fig, model: str = "smollm2-135m", scale: str = "cpu"):
    """Row- and vector-level cos² of the 20 Table 1 layers against 2/π."""
    s = _summary("table1", model, scale)
    if s is None:
        return _missing(fig, "table1", model, scale)
    ax = fig.subplots()
    rows = s["rows"]
    x = np.arange(len(rows))
    ax.plot(x, [r["row_cos2"] for r in rows], "o", color=COLORS["sim"], label="row cos²")
    ax.errorbar(
        x,
        [r["vector_cos2"] for r in rows],
        yerr=[2 * r["vector_cos2_se"] for r in rows],
        fmt="s",
        ms=4,
        color=COLORS["alt"],
        capsize=2,
        label="vector cos² ± 2 SE",
    )
    ax.axhline(2 / np.pi, color=COLORS["theory"], lw=2, label="2/π")
    ax.axhline(0.6084, color=COLORS["paper"], ls="--", lw=1, label="paper TinyLlama mean (row)")
    ax.set_xticks(
        x,
        [
            r["layer"].replace("model.layers.", "L").replace("self_attn.", "").replace("mlp.", "")
            for r in rows
        ],
        rotation=70,
        fontsize=7,
    )
    ax.set(ylabel="cos²", title=f"{model}: 20 evenly spaced Linear layers")
    ax.legend(fontsize=7)


def draw_alpha(fig, model: str = "smollm2-135m", scale: str = "cpu", norm: str = "ratio"):
    """Exp F: exact single-flip energy against α² for every input column of the target."""
    s = _summary("alpha", model, scale)
    if s is None:
        return _missing(fig, "alpha", model, scale)
    ax = fig.subplots()
    arr = s["arrays"]
    a = np.asarray(arr["alpha_ratio" if norm == "ratio" else "alpha_tok"])
    e = np.asarray(arr["energy"])
    out = np.zeros(len(a), dtype=bool)
    out[arr["outlier_columns"]] = True
    ax.loglog(a[~out] ** 2, e[~out], ".", ms=3, color=COLORS["alt"], label="non-outlier columns")
    ax.loglog(a[out] ** 2, e[out], ".", ms=5, color=COLORS["sim"], label="outlier columns (top 5%)")
    ax.axvline(1 / len(a), color=COLORS["grey"], ls=":", lw=1, label="α² = 1/n (delocalised)")
    ax.set(
        xlabel="α² (" + ("E[x_j²]/E‖x‖²" if norm == "ratio" else "E[x_j²/‖x‖²]") + ")",
        ylabel="4‖W[:,j]‖²/m · E[x_j²]",
        title=f"{s['layer']}",
    )
    ax.legend(fontsize=7)


def draw_columns(fig, model: str = "smollm2-135m", scale: str = "cpu"):
    """Exp G: ΔNLL of whole-column flips against α² (log–log), with the fitted slope."""
    s = _summary("columns", model, scale)
    if s is None:
        return _missing(fig, "columns", model, scale)
    ax = fig.subplots()
    rows = s["rows"]
    a2 = np.array([r["alpha"] ** 2 for r in rows])
    d = np.array([r["dnll"] for r in rows])
    se = np.array([2 * r["dnll_window_se"] for r in rows])
    pos = d > 0
    ax.errorbar(
        a2[pos],
        d[pos],
        yerr=np.minimum(se[pos], d[pos] * 0.999),
        fmt="o",
        color=COLORS["sim"],
        capsize=2,
        label="ΔNLL > 0 (± 2 SE, clipped)",
    )
    if (~pos).any():
        ax.plot(a2[~pos], np.abs(d[~pos]), "x", color=COLORS["grey"], label="|ΔNLL|, ΔNLL ≤ 0")
    if np.isfinite(s["loglog_slope"]):
        c = np.polyfit(np.log(a2[pos]), np.log(d[pos]), 1)
        g = np.geomspace(a2.min(), a2.max(), 50)
        ax.plot(
            g,
            np.exp(np.polyval(c, np.log(g))),
            color=COLORS["theory"],
            label=f"slope {c[0]:.2f} (paper 0.78)",
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="α² of the flipped column",
        ylabel="ΔNLL",
        title=f"whole-column flips, Spearman {s['spearman']:.3f} (paper 0.927)",
    )
    ax.legend(fontsize=7)
