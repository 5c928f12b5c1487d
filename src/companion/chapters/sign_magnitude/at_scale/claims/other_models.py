"""Beyond SmolLM2 (``dong.real.table1_whisper``, ``dong.real.table1_models``,
``dong.abstract.alpha_stats``, ``dong.abstract.rcol_19``, ``dong.abstract.ppl_gap_67``):
Table 1 on Whisper-base and Whisper tiny.en, the paper's numbers faced with the author's
stored results, and the ones whose definition is only in the PDF."""

from __future__ import annotations

import math

from companion.chapters.sign_magnitude.at_scale import CHAPTER
from companion.chapters.sign_magnitude.at_scale.claims.table1 import cos2
from companion.chapters.sign_magnitude.at_scale.records import model_records, model_summary
from companion.claims import Claim, Measurement, NotRun


def _not_here(needs: str, command: str):
    raise NotRun(needs, needs=needs, command=command)


#: The stacks of Whisper-base and Whisper tiny.en (float16 weights), whose Table 1 is
#: measured at CPU scale.
_WHISPER_T1 = (
    "whisper-base-decoder",
    "whisper-base-encoder",
    "whisper-tiny-en-decoder",
    "whisper-tiny-en-encoder",
)


def _table1_whisper(scale: str = "cpu", full: bool = False) -> Measurement:
    """Table 1's 5% band on Whisper's decoders and encoders, from their CPU-scale records
    (the weights alone: the scale changes nothing in them)."""
    from companion.claims import measured_on_records
    from companion.llm import sign_flips as sf

    two = 2 / math.pi
    sums, recs = {}, []
    for model in _WHISPER_T1:
        s = model_summary("table1", model, "cpu")
        if s is None:
            cmd = sf.command_line("table1", model, "cpu")
            raise NotRun(f"needs {model}'s Table 1 records (`{cmd}`)", command=cmd)
        sums[model] = s
        recs += model_records("table1", model, "cpu")
    out = {m: (s["rel_dev_row"], s["rel_dev_vec"]) for m, s in sums.items()}
    bad = [m for m, (r, v) in out.items() if r >= 0.05 or v >= 0.05]
    parts = [
        f"{m}: row cos² {s['row_cos2']:.4f} ({100 * s['rel_dev_row']:.1f}% below 2/π = "
        f"{two:.4f}), vector {s['vector_cos2']:.4f} ({100 * s['rel_dev_vec']:.1f}%), lowest "
        f"layer {s['worst'][0][0]} {s['worst'][0][1]:.3f} (kurtosis {s['worst'][0][3]:.0f})"
        for m, s in sums.items()
    ]
    on = measured_on_records(
        recs, file="sign_flips/whisper-*/table1-cpu.jsonl", scale="cpu", models=_WHISPER_T1
    )
    return Measurement(
        value=round(min(s["row_cos2"] for s in sums.values()), 4),
        agrees=not bad,
        reason="" if not bad else "outside the 5% band: " + "; ".join(parts),
        detail="; ".join(parts) + " (20 evenly spaced Linear layers per stack, the head and the "
        "convolutions excluded)",
        source="; ".join(sf.command_line("table1", m, "cpu") for m in _WHISPER_T1),
        measured_on=on,
    )


#: The author's stored Table 1 row / vector means over 20 layers (results/
#: theorem4_verification.json, 3 models; spec §4.2) and the README's stated range.
_AUTHOR_TABLE1 = {
    "TinyLlama-1.1B": (0.6084, 0.6072),
    "Qwen2.5-1.5B": (0.6139, 0.6131),
    "Qwen2.5-3B": (0.5882, 0.5966),
}


_README_TABLE1_RANGE = (0.606, 0.633)


def _table1_models(scale: str = "cpu", full: bool = False) -> Measurement:
    """The author's stored rows against the README's range and against 2/π within 5%, next to
    our own Table 1 measurement (SmolLM2, from its records)."""
    two = 2 / math.pi
    lo, hi = _README_TABLE1_RANGE
    bad = {}
    for k, (row, vec) in _AUTHOR_TABLE1.items():
        why = [
            f"{w} cos² {v:.4f} ({100 * (two - v) / two:.1f}% below 2/π)"
            for w, v in (("row", row), ("vector", vec))
            if (two - v) / two > 0.05
        ]
        if not lo <= row <= hi:
            why.append(f"row cos² {row:.4f} outside the README's {lo}–{hi}")
        if why:
            bad[k] = why
    try:  # the committed CPU-scale records (never a model run from here)
        ours = cos2("cpu", False)
        mine = f"; ours on SmolLM2-135M: row cos² {ours.value} (dong.real.cos2_table1)"
    except NotRun:
        mine = ""
    return Measurement(
        value=min(r for r, _ in _AUTHOR_TABLE1.values()),
        agrees=not bad,
        reason=""
        if not bad
        else "the author's own stored Table 1 results contradict the README's '0.606–0.633 "
        "(5 models), within 5% of 2/π': "
        + "; ".join(f"{k}: {', '.join(v)}" for k, v in bad.items())
        + "; our runs of these models need the hub",
        detail="author's results/theorem4_verification.json (3 models; the README names 5), row "
        "/ vector: "
        + ", ".join(f"{k} {r:.4f} / {v:.4f}" for k, (r, v) in _AUTHOR_TABLE1.items())
        + mine,
    )


#: The abstract's α at TinyLlama layer 12 q_proj and the author's stored Exp F file's (spec
#: §4.5: results/activation_level_verify.json, α_j² = E[x_j²]/E‖x‖²).
_ABSTRACT_ALPHA = {"median": 0.024, "max": 0.26}


_AUTHOR_ALPHA = {"median": 0.0138, "max": 0.289, "outlier median": 0.030}


def _half_unit(x: float) -> float:
    """Half a unit of the last digit ``x`` is stated to (its rounding)."""
    text = f"{x:g}"
    return 0.5 * 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)


def _alpha_stats(scale: str = "cpu", full: bool = False) -> Measurement:
    """The stored values equal the abstract's to the abstract's rounding."""
    off = {
        k: (_AUTHOR_ALPHA[k], v)
        for k, v in _ABSTRACT_ALPHA.items()
        if abs(_AUTHOR_ALPHA[k] - v) > _half_unit(v)
    }
    return Measurement(
        value=_AUTHOR_ALPHA["max"],
        agrees=not off,
        reason=""
        if not off
        else "the author's stored Exp F file for that layer (α_j² = E[x_j²]/E‖x‖²) gives "
        + ", ".join(f"{k} {a} against the abstract's {b}" for k, (a, b) in off.items())
        + f" (outlier-column median {_AUTHOR_ALPHA['outlier median']}), beyond the abstract's "
        "rounding; the per-token normalisation E[x_j²/‖x‖²] is a guess the stored file cannot "
        "check",
        detail="author's results/activation_level_verify.json (TinyLlama layer 12 q_proj, 10 × "
        "2048 tokens). Our measurement of TinyLlama needs the hub: "
        "`companion run sign-flips --experiment alpha --model tinyllama-1.1b --scale full`",
    )


def _rcol(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "the paper's definition of R_col (not in the abstract, the README or the "
        "author's code; the PDF)",
        "",
    )


def _ppl_gap(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "the paper's definition of the '67× PPL gap' (not any statistic of the author's "
        "stored files; the PDF)",
        "",
    )


#: These claims, in the order the chapter shows them.
CLAIMS = (
    Claim(
        id="dong.real.table1_whisper",
        statement="On the decoders and encoders of Whisper-base and Whisper tiny.en (the "
        "original float16 weights, 20 evenly spaced Linear layers of each stack), the row- and "
        "vector-level cos² between W and its sign×absmean quantisation stay within 5% of 2/π "
        "(Table 1's check on two more trained models, with GELU MLPs).",
        paper_value="TinyLlama-1.1B: row 0.6084, vector 0.6072 (4.6% below 2/π); README: < 5% "
        "on 5 models",
        method="Table 1's statistic on each stack's records (CPU scale)",
        tolerance="both means within 5% of 2/π on all four stacks",
        provenance=("author-code", "abstract"),
        measure=_table1_whisper,
        control_none="the claim deviates (Whisper's CPU-scale records); the same band test "
        "passes on SmolLM2-135M (dong.real.cos2_table1, whose control deviates), so it can both "
        "pass and fail",
        paper="dong",
        chapter=CHAPTER,
        heavy=True,
        evidence="model",
        models=_WHISPER_T1,
        depends_on=("companion.llm.sign_flips.experiments.summarize",),
    ),
    Claim(
        id="dong.real.table1_models",
        statement="Table 1 on the paper's models: row cos² within 5% of 2/π, "
        "'0.606–0.633 (5 models)', faced with the author's own stored results (TinyLlama-1.1B, "
        "Qwen2.5-1.5B, Qwen2.5-3B).",
        paper_value="0.606–0.633 over 5 models, < 5% from 2/π (README)",
        method="the author's results/theorem4_verification.json (3 models, 20 layers each)",
        tolerance="every stored row mean within 5% of 2/π",
        provenance=("author-code",),
        measure=_table1_models,
        paper="dong",
        chapter=CHAPTER,
        evidence="author-result",
        control_none="a comparison of two stated numbers, with no measure to perturb; our "
        "measurement of these models needs the hub (`companion run sign-flips --experiment "
        "table1 --model qwen2.5-1.5b --scale full`)",
    ),
    Claim(
        id="dong.abstract.alpha_stats",
        statement="The abstract's outlier amplitudes at TinyLlama layer 12 q_proj: median "
        "α = 0.024, max 0.26, faced with the author's stored Exp F results for that layer.",
        paper_value="α median 0.024, max 0.26 (abstract)",
        method="the author's results/activation_level_verify.json",
        tolerance="the stored max and median equal the abstract's",
        provenance=("abstract", "author-code"),
        measure=_alpha_stats,
        paper="dong",
        chapter=CHAPTER,
        evidence="author-result",
        control_none="a comparison of two stated numbers, with no measure to perturb",
    ),
    Claim(
        id="dong.abstract.rcol_19",
        statement="The all-column, multi-layer aggregate leverage falls within R_col ≤ 19.",
        paper_value="R_col ≤ 19 (abstract)",
        method="needs the definition of R_col",
        tolerance="—",
        provenance=("abstract",),
        measure=_rcol,
        paper="dong",
        chapter=CHAPTER,
        evidence="paper-number",
        needs="the paper's definition of R_col (the PDF)",
        control_none="not measured: no definition to measure",
    ),
    Claim(
        id="dong.abstract.ppl_gap_67",
        statement="A 67× perplexity gap reflects metric nonlinearity, not sensitivity.",
        paper_value="67× PPL gap (abstract)",
        method="needs the definition of the 67× statistic",
        tolerance="—",
        provenance=("abstract",),
        measure=_ppl_gap,
        paper="dong",
        chapter=CHAPTER,
        evidence="paper-number",
        needs="the definition of the 67× statistic (the PDF)",
        control_none="not measured: no definition to measure",
    ),
)
