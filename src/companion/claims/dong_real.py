"""Claims of Dong (2026) on real language models (heavy: read results files of model runs).

Each measure reads the records that ``companion run sign-flips`` wrote under
``results/sign_flips/<model>/<experiment>-<scale>.jsonl``: at ``scale="cpu"`` the offline
SmolLM2-135M (the paper used TinyLlama-1.1B), at ``scale="full"`` TinyLlama-1.1B on WikiText-2
(a GPU run; Colab). Without the file the claim is ``not-run`` unless ``full=True``, which runs
the experiment now (minutes on a CPU).
"""

from __future__ import annotations

import math

from companion.claims import Claim, Measurement, NotRun, register

_CHAPTER = "book/sign_magnitude/at_scale"
_MODEL = {"cpu": "smollm2-135m", "full": "tinyllama-1.1b"}


def _summary(experiment: str, scale: str, full: bool) -> tuple[dict, str]:
    from companion.llm import sign_flips as sf

    model = _MODEL.get(scale, "smollm2-135m")
    recs = sf.load_results(model, experiment, scale=scale)
    cmd = sf.command_line(experiment, model, scale)
    if not recs:
        if not full:
            raise NotRun(
                f"no results file {sf.results_path('results/sign_flips', model, experiment, scale)}; "
                f"produce it with `{cmd}` (or pass --full)"
            )
        recs = sf.run_experiment(experiment, model, scale=scale, resume=True)
    s = sf.summarize(experiment, recs)
    m = s.get("meta", {})
    src = (
        f"results/sign_flips/{model}/{experiment}-{scale}.jsonl ({m.get('dtype')}, "
        f"{m.get('device')}); `{cmd}`"
    )
    return s, src


def _who(s: dict) -> str:
    m = s.get("meta", {})
    return f"{m.get('model')}, {m.get('eval_windows')}×{m.get('window')} tokens, {m.get('dtype')}"


def _cos2(scale: str = "cpu", full: bool = False) -> Measurement:
    s, src = _summary("table1", scale, full)
    two = 2 / math.pi
    ok = s["rel_dev_row"] < 0.05 and s["rel_dev_vec"] < 0.05
    worst = s["worst"][0]
    detail = (
        f"{s['meta'].get('model')}: mean over {s['layers']} evenly spaced Linear layers: "
        f"row cos² {s['row_cos2']:.4f} ({100 * s['rel_dev_row']:.1f}% below 2/π = {two:.4f}), "
        f"vector cos² {s['vector_cos2']:.4f} ({100 * s['rel_dev_vec']:.1f}%); worst layer "
        f"{worst[0]} row cos² {worst[1]:.3f} (kurtosis {worst[3]:.1f}). Paper (TinyLlama-1.1B): "
        f"0.6084 / 0.6072 (4.6%)"
    )
    reason = (
        ""
        if ok
        else (
            f"the mean cos² is more than 5% below 2/π on {s['meta'].get('model')} "
            f"(dequantised Q4 weights, heavier-tailed than TinyLlama's)"
        )
    )
    return Measurement(
        value=round(s["row_cos2"], 4), agrees=ok, detail=detail, reason=reason, source=src
    )


def _outlier(scale: str = "cpu", full: bool = False) -> Measurement:
    s, src = _summary("outlier", scale, full)
    c = s["conditions"]
    resc = c.get("disjoint|scaled_flip") or next(
        v for k, v in c.items() if k.endswith("|scaled_flip")
    )
    pure = c.get("disjoint|flip")
    over = c.get("overlap|scaled_flip")
    val = resc["nll_ratio"]["median"]
    ok = 2.5 <= val <= 10.0
    detail = (
        f"{_who(s)}, p = 5%, {resc['nll_ratio']['n']} seeds, calibration disjoint from "
        f"evaluation: ΔNLL ratio outlier/non-outlier {val:.2f} with the author's Frobenius "
        f"rescaling (not pure flips)"
    )
    if pure:
        detail += f"; pure flips {pure['nll_ratio']['median']:.2f}"
    if over:
        detail += f"; author's overlapping calibration {over['nll_ratio']['median']:.2f}"
    detail += ". Paper (TinyLlama-1.1B): 5.0× (median 4.97 of 5 seeds)"
    reason = (
        ""
        if ok
        else (
            f"ratio {val:.2f} is outside the factor-2 band [2.5, 10] around the "
            f"paper's 5.0 on {s['meta'].get('model')}"
        )
    )
    return Measurement(value=round(val, 3), agrees=ok, detail=detail, reason=reason, source=src)


def _leverage(scale: str = "cpu", full: bool = False) -> Measurement:
    s, src = _summary("leverage", scale, full)
    val = s["plateau_nll"]
    pred = s.get("prediction", {}).get("n_E_alpha2_outlier", float("nan"))
    ok = bool(math.isfinite(val) and pred > 0 and 0.5 <= val / pred <= 2.0)
    rows = "; ".join(f"p={r['p']:g}: {r['nll_lev']['median']:.3g}" for r in s["rows"])
    detail = (
        f"{_who(s)}, {s['rows'][0]['nll_lev']['n']} seeds per p (paper 10): NLL leverage "
        f"medians {rows}; plateau (p = 0.05–0.5%) {val:.3g} vs n·E[α²] over outlier "
        f"columns {pred:.3g} from the measured α. Paper (TinyLlama-1.1B): ≈ 10× ≈ n·E[α²]"
    )
    floor = [r["p"] for r in s["rows"] if abs(r["dnll_non_median"]) < 2 * r["window_se_non_median"]]
    plateau_ps = [r["p"] for r in s["rows"] if 0.0005 <= r["p"] <= 0.005]
    resolved = [q for q in plateau_ps if q not in floor]
    reason = (
        ""
        if ok
        else (
            f"the plateau {val:.3g} is not within a factor 2 of the first-order "
            f"prediction n·E[α²] = {pred:.3g} on {s['meta'].get('model')}"
        )
    )
    if floor:
        note = (
            f"the non-outlier ΔNLL is below the evaluation noise floor (2 SE across "
            f"{s['meta'].get('eval_windows')} windows of {s['meta'].get('window')} tokens) at "
            f"p = {', '.join(f'{q:g}' for q in floor)}"
        )
        if ok and not resolved:
            ok = False
            reason = (
                f"the plateau {val:.3g} is within a factor 2 of n·E[α²] = {pred:.3g}, but "
                f"{note}: every plateau ratio is noise-dominated at this scale, so this is "
                f"not a reproduction (the full-scale run scores 20× more tokens)"
            )
        elif not ok:
            reason += f"; {note}"
        else:
            detail += f"; {note}"
    return Measurement(value=round(val, 3), agrees=ok, detail=detail, reason=reason, source=src)


def _alpha(scale: str = "cpu", full: bool = False) -> Measurement:
    s, src = _summary("alpha", scale, full)
    val = s["spearman_alpha2_energy"]
    ok = val >= 0.9
    detail = (
        f"{s['meta'].get('model')} {s['layer']} ({s['tokens']} tokens): Spearman(α², exact "
        f"single-flip energy) {val:.3f} (per-token α: {s['spearman_alpha2tok_energy']:.3f}); "
        f"α median {s['alpha_ratio_median']:.4f}, max {s['alpha_ratio_max']:.3f} (per-token "
        f"{s['alpha_tok_median']:.4f}, {s['alpha_tok_max']:.3f}). Paper (TinyLlama layer 12 "
        f"q_proj): 0.955; abstract's α median 0.024, max 0.26 (author's JSON max 0.289)"
    )
    reason = (
        ""
        if ok
        else (
            f"rank correlation {val:.3f} < 0.9 on {s['meta'].get('model')}; likely because the energy also carries the "
            f"column norm ‖W[:,j]‖², which varies more here (outlier/non-outlier mean column-norm "
            f"ratio {s['colnorm_ratio_outlier_non']:.2f}; the author's TinyLlama layer: 1.04)"
        )
    )
    return Measurement(value=round(val, 3), agrees=ok, detail=detail, reason=reason, source=src)


def _columns(scale: str = "cpu", full: bool = False) -> Measurement:
    s, src = _summary("columns", scale, full)
    val = s["spearman"]
    ok = val >= 0.8
    detail = (
        f"{_who(s)}, {s['columns']} whole columns of {s['rows'][0]['layer']} log-spaced in α "
        f"(paper 20): Spearman(α², ΔNLL) {val:.3f}, log–log slope {s['loglog_slope']:.2f}, "
        f"{s['negative']} columns with ΔNLL ≤ 0. Paper (TinyLlama): 0.927, slope 0.78"
    )
    reason = (
        ""
        if ok
        else (f"Spearman {val:.3f} < 0.8 with {s['columns']} columns on {s['meta'].get('model')}")
    )
    return Measurement(value=round(val, 3), agrees=ok, detail=detail, reason=reason, source=src)


_COMMON = dict(paper="dong", chapter=_CHAPTER, heavy=True)

register(
    Claim(
        id="dong.real.cos2_table1",
        statement="On trained Linear layers, the row- and vector-level cos² between W and its "
        "sign quantisation stay within 5% of 2/π (Table 1).",
        paper_value="TinyLlama-1.1B: row 0.6084, vector 0.6072 (4.6% below 2/π); 0.606–0.633 over 5 models",
        method="20 evenly spaced nn.Linear layers (head excluded): mean row cos²(w, s·sign w) and "
        "vector cos²(Wx̂, W_T x̂) over sphere samples",
        tolerance="both means within 5% of 2/π",
        provenance=("author-code", "abstract"),
        measure=_cos2,
        **_COMMON,
    )
)

register(
    Claim(
        id="dong.real.outlier_nll_ratio",
        statement="Flips in the top-5% activation (outlier) input columns raise NLL about 5× more "
        "than flips in the other columns (all-column NLL ratio).",
        paper_value="5.0× (TinyLlama-1.1B, p = 5%, median of 5 seeds 4.97)",
        method="Exp D: flips at p = 5% in outlier vs non-outlier columns, Frobenius-rescaled to the "
        "all-entry flip norm (the author's variant); calibration disjoint from evaluation",
        tolerance="within a factor 2 of 5.0 (2.5–10)",
        provenance=("abstract", "author-code"),
        measure=_outlier,
        **_COMMON,
    )
)

register(
    Claim(
        id="dong.real.count_matched_leverage",
        statement="With equal numbers of flips, outlier-column flips raise NLL about n·E[α²] ≈ 10× "
        "more than non-outlier flips in the linear-response regime.",
        paper_value="≈ 10× at p ≤ 0.5% (TinyLlama-1.1B; medians 10.4 / 8.65 / 9.48)",
        method="Exp E: count-matched flips at p ∈ {5, 0.5, 0.1, 0.05, 0.01}% of the outlier pool; "
        "median NLL leverage at 0.05–0.5% vs n·E[α²] over outlier columns from the measured α",
        tolerance="plateau within a factor 2 of the measured model's n·E[α²]",
        provenance=("abstract", "author-code"),
        measure=_leverage,
        **_COMMON,
    )
)

register(
    Claim(
        id="dong.real.alpha_energy_spearman",
        statement="The single-flip output energy of an input column ranks with its α² "
        "(Spearman 0.955 on a mid-depth q_proj).",
        paper_value="Spearman 0.955 (TinyLlama layer 12 q_proj)",
        method="Exp F: α_j² = E[x_j²]/E‖x‖² and the exact energy 4‖W[:,j]‖²/m·E[x_j²] on the "
        "mid-depth q_proj; Spearman over all input columns",
        tolerance="Spearman ≥ 0.9",
        provenance=("author-code",),
        measure=_alpha,
        **_COMMON,
    )
)

register(
    Claim(
        id="dong.real.column_flip_spearman",
        statement="Flipping a whole input column raises NLL in rank order of its α² "
        "(Spearman 0.927).",
        paper_value="Spearman 0.927, log–log slope 0.78 (TinyLlama, 20 columns)",
        method="Exp G: columns log-spaced in α, each flipped whole; Spearman(α², ΔNLL)",
        tolerance="Spearman ≥ 0.8",
        provenance=("author-code",),
        measure=_columns,
        **_COMMON,
    )
)
