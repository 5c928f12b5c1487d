"""Part I at scale, its figures: the Explore figure (count-matched leverage against the flip
fraction, ΔNLL per seed) and the Table 1, Exp F and Exp G figures, pure functions of the records
(nothing random)."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from companion.chapters.sign_magnitude.at_scale.records import model_records, model_summary
from companion.plotting import COLORS, legend, set_errorbar
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

#: The leverage sweep's flip fractions of the outlier pool (the Explore figure's values).
PS = (0.05, 0.005, 0.001, 0.0005, 0.0001)


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


def _leverage_panel(ax, metric, model, scale, **_):
    """Count-matched leverage against the flip fraction p (median, IQR, seeds), with the
    paper's TinyLlama medians and the n·E[α²] prediction; the chosen p is marked."""
    s = model_summary("leverage", model, scale)
    key = "nll_lev" if metric == "nll" else "ppl_lev"
    ax.set_xscale("log")  # before the data: the limits are autoscaled in these scales
    ax.set_yscale("symlog", linthresh=1.0)
    rows = s["rows"]
    ps = np.array([r["p"] for r in rows])
    med = np.array([r[key]["median"] for r in rows])
    lo = np.array([r[key]["q25"] for r in rows])
    hi = np.array([r[key]["q75"] for r in rows])
    ax.fill_between(ps, lo, hi, color=COLORS["sim"], alpha=0.2, lw=0)
    ax.plot(ps, med, "o-", color=COLORS["sim"], label=f"{model}: median, IQR")
    for r in rows:
        vals = np.asarray(r[key + "s"], dtype=float)
        ax.plot([r["p"]] * len(vals), vals, ".", color=COLORS["sim"], alpha=0.5, ms=4)
    paper = [r["paper_nll" if metric == "nll" else "paper_ppl"] for r in rows]
    ax.plot(ps, paper, "s--", color=COLORS["paper"], ms=4, label="paper, TinyLlama-1.1B")
    pred = s.get("prediction", {}).get("n_E_alpha2_outlier")
    if pred:
        ax.axhline(pred, color=COLORS["theory"], lw=1.5, label="n·E[α²] (measured α)")
    ax.axhline(1, color=COLORS["grey"], lw=0.8, ls=":")
    ax.set(
        xlabel="flips as a fraction p of the outlier pool",
        ylabel=f"{metric.upper()} leverage (outlier / non)",
        title="count-matched leverage" + (f": n·E[α²] = {pred:.3g}" if pred else ""),
    )
    legend(ax)
    return animate(ax.axvline(ps[0], color=COLORS["grey"], lw=1, ls=":"))[0]


def _mark(line, p, **_):
    line.set_xdata([p, p])


def _nearest_row(summary: dict, p: float) -> dict:
    """The leverage sweep's row whose flip fraction is nearest to p (on a log scale)."""
    return min(summary["rows"], key=lambda r: abs(np.log(r["p"]) - np.log(p)))


def _seeds(p, model, scale):
    """The leverage row nearest to p and, per pool, (seeds, ΔNLL, 2 SE across windows)."""
    r = _nearest_row(model_summary("leverage", model, scale), p)
    recs = [x for x in model_records("leverage", model, scale) if x.get("p") == r["p"]]
    out = []
    for pool in ("outlier", "non"):
        sel = sorted((x for x in recs if x["pool"] == pool), key=lambda x: x["seed"])
        out.append(
            (
                np.array([q["seed"] for q in sel]),
                np.array([q["dnll"] for q in sel]),
                np.array([2 * q["dnll_window_se"] for q in sel]),
            )
        )
    return r, out


def _seeds_panel(ax, model, scale, **_):
    """ΔNLL of the outlier and non-outlier flips per seed at the chosen p (moved by
    _seeds_move), with the evaluation noise floor (±2 SE across windows); the axes hold every
    p's points, so moving p moves only the points."""
    everything = [
        _seeds(r["p"], model, scale)[1] for r in model_summary("leverage", model, scale)["rows"]
    ]
    ys = np.concatenate([np.r_[y - e, y + e] for pools in everything for _, y, e in pools])
    seeds = sorted({int(s) for pools in everything for x, _, _ in pools for s in x})
    bars = []
    for pool, col, off in (("outlier", COLORS["sim"], -0.1), ("non", COLORS["alt"], 0.1)):
        x = np.array(seeds, dtype=float) + off
        bars.append(
            ax.errorbar(
                x,
                np.zeros_like(x),
                yerr=0 * x,
                fmt="o",
                color=col,
                capsize=3,
                label=f"{pool} columns",
            )
        )
    ax.axhline(0, color=COLORS["grey"], lw=0.8)
    ax.set_yscale("symlog", linthresh=1e-3)
    # 40 seeds in the linear regime: label about eight of them, never every one
    ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
    ax.set(
        xlim=(seeds[0] - 0.5, seeds[-1] + 0.5), xlabel="seed", ylabel="ΔNLL (± 2 SE across windows)"
    )
    ax.update_datalim(np.column_stack([np.full(ys.size, seeds[0]), ys]))
    ax.autoscale_view(scalex=False)
    legend(ax)
    return animate(*bars, ax.title), bars


def _seeds_move(artists, p, model, scale, **_):
    (*_, title), bars = artists
    r, pools = _seeds(p, model, scale)
    for eb, (seeds, y, e), off in zip(bars, pools, (-0.1, 0.1), strict=True):
        set_errorbar(eb, seeds + off, y, e)
    title.set_text(f"p = {r['p']:g}: {r['n_flips']} flips per pool")


_PANELS = (
    Panel(_leverage_panel, key=("metric",), move=_mark),
    Panel(_seeds_panel, move=_seeds_move),
)


def readout(p: float, metric: str, model: str = "smollm2-135m", scale: str = "cpu") -> str:
    """The numbers behind the chosen frame: the measured leverage at p (median and IQR over
    seeds) against n·E[α²] and the paper's TinyLlama median.

    >>> readout(0.001, "nll")  # doctest: +ELLIPSIS
    'p = 0.1%, 5,184 flips per pool, 40 seeds: NLL leverage median 12.2 (IQR 4.87 to 24.7); ...'
    """
    s = model_summary("leverage", model, scale)
    if s is None:
        return f"no leverage results for {model} at {scale} scale"
    r = _nearest_row(s, p)
    key, paper = ("nll_lev", "paper_nll") if metric == "nll" else ("ppl_lev", "paper_ppl")
    lev, pred = r[key], s.get("prediction", {}).get("n_E_alpha2_outlier")
    return (
        f"p = {100 * r['p']:g}%, {r['n_flips']:,} flips per pool, {len(r[key + 's'])} seeds: "
        f"{metric.upper()} leverage median {lev['median']:.3g} (IQR {lev['q25']:.3g} to "
        f"{lev['q75']:.3g}); n·E[α²] = {pred:.3g}; paper (TinyLlama-1.1B) {r[paper]:.3g}"
    )


def draw(
    fig, p: float = 0.001, metric: str = "nll", model: str = "smollm2-135m", scale: str = "cpu"
):
    """Left: count-matched leverage against the flip fraction p (median, IQR, seeds), with the
    paper's TinyLlama medians and the n·E[α²] prediction. Right: at the chosen p, ΔNLL of the
    outlier and non-outlier flips per seed, with the evaluation noise floor (±2 SE across
    windows). Returns the figure's :class:`~companion.widgets.Panels` (None without results)."""
    if model_summary("leverage", model, scale) is None:
        return _missing(fig, "leverage", model, scale)
    params = dict(p=p, metric=metric, model=model, scale=scale)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def update(state, **params):
    """Move the Explore figure to ``params`` (nothing to move without results)."""
    return False if state is None else state.update(**params)


def explore(model: str = "smollm2-135m", scale: str = "cpu") -> Explore:
    """The chapter's Explore figure: every flip fraction x leverage metric, all precomputed
    (drawn from the results files: nothing is run on a move)."""
    from companion.llm.registry import list_models
    from companion.scale import check_scale

    check_scale(scale)
    names = [s.name for s in list_models()]
    if model not in names:
        raise ValueError(f"`model` must be a registered model ({', '.join(names)}); got {model!r}")
    controls = {
        "p": control(0.001, options=sorted(PS), label="flip fraction p"),
        "metric": control("nll", options=(("NLL", "nll"), ("PPL", "ppl")), label="leverage of"),
    }

    def draw_at(fig, **kw):
        return draw(fig, model=model, scale=scale, **kw)

    def read_at(**kw):
        return readout(kw["p"], kw["metric"], model, scale)

    return explore_figure(
        draw_at, controls, update=update, grid=("p", "metric"), figsize=(8, 4.4), readout=read_at
    )


def draw_table1(fig, model: str = "smollm2-135m", scale: str = "cpu"):
    """Row- and vector-level cos² of the 20 Table 1 layers against 2/π."""
    s = model_summary("table1", model, scale)
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
    # the layers' names are Table 1's rows, in this order: numbered here, so that the legend
    # sits under the panel on a phone too
    ax.set_xticks(x[::2] if len(x) > 10 else x)
    ax.set(
        xlabel="Linear layer (Table 1's rows, in order)",
        ylabel="cos²",
        title=f"{model}: {len(rows)} evenly spaced Linear layers",
    )
    legend(ax)


def draw_alpha(fig, model: str = "smollm2-135m", scale: str = "cpu", norm: str = "ratio"):
    """Exp F: exact single-flip energy against α² for every input column of the target."""
    s = model_summary("alpha", model, scale)
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
    legend(ax)


def draw_columns(fig, model: str = "smollm2-135m", scale: str = "cpu"):
    """Exp G: ΔNLL of whole-column flips against α² (log–log), with the fitted slope."""
    s = model_summary("columns", model, scale)
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
    legend(ax)
