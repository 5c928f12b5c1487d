"""What training does (``book/dead_directions/training.md``): the book's own tiny GPT and its
RMSNorm twin, both papers' geometry read at every checkpoint. Everything here reads the
records ``companion train-geometry`` wrote (results/train/trajectory.jsonl); nothing trains.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.reproduce import Reproduce, reproduce_box
from companion.widgets import Explore, control
from companion.widgets import explore as explore_figure

__all__ = [
    "SIZES",
    "MODELS",
    "BAND",
    "commands",
    "records",
    "series",
    "flip_stats",
    "summary_rows",
    "schur_rows",
    "schur_sentence",
    "limits_rows",
    "trajectory_figure",
    "draw",
    "explore",
    "readout",
    "reproduce",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    steps: int  # the trained run's optimiser steps (its records ship with the package)


SIZES = {"cpu": Sizes(2000), "full": Sizes(2000), "smoke": Sizes(2000)}

#: The twins: LayerNorm first, then its RMSNorm control.
LN_MODEL, RMS_MODEL = "tiny-gpt-ln", "tiny-gpt-rms"
MODELS = (LN_MODEL, RMS_MODEL)
#: Dong's Table 1 band of trained cos²(w, sign w) (abstract: 0.606–0.633).
BAND = (0.606, 0.633)
_STYLE = {LN_MODEL: (COLORS["theory"], "o"), RMS_MODEL: (COLORS["paper"], "s")}
_LABEL = {LN_MODEL: "LayerNorm twin", RMS_MODEL: "RMSNorm twin"}


def commands(scale: str = "cpu") -> list[str]:
    """The commands that train both twins and write their trajectory records."""
    steps = SIZES[scale].steps
    return [f"companion train --model {m} --steps {steps} --resume" for m in MODELS] + [
        f"companion train-geometry --model {m} --steps {steps} --resume" for m in MODELS
    ]


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple:
    from companion.results import read_jsonl

    return tuple(read_jsonl(path))


def records(scale: str = "cpu") -> dict:
    """``{model: [record per checkpoint, in step order]}`` of both twins.

    Raises
    ------
    FileNotFoundError
        When a twin has no record (naming the commands that write them).
    """
    from companion.llm.trajectory.driver import results_path

    path = Path(results_path())
    recs = _load(str(path), path.stat().st_mtime) if path.exists() else ()
    steps = SIZES[scale].steps
    out = {m: {} for m in MODELS}
    for r in recs:
        if r.get("model") in out and r["settings"]["run_steps"] == steps:
            out[r["model"]][r["step"]] = r
    missing = [m for m in MODELS if not out[m]]
    if missing:
        raise FileNotFoundError(
            f"no trajectory record of {', '.join(missing)} in the results root; run "
            + "; ".join(f"`{c}`" for c in commands(scale))
        )
    return {m: [v[s] for s in sorted(v)] for m, v in out.items()}


def series(recs: list, what: str) -> np.ndarray:
    """One number per checkpoint of a twin's records: ``"val_loss"``, ``"cos_final"``,
    ``"rho_final"``, ``"rho_max"`` (largest |ρ| over every norm), ``"cos2"`` (mean over the
    Linear layers), ``"alpha_max"``, ``"spread"`` (largest max|γ|/min|γ| over the norms)."""
    get = {
        "val_loss": lambda r: r["val_loss"],
        "cos_final": lambda r: r["norms"][-1]["cos"],
        "rho_final": lambda r: r["norms"][-1]["rho"],
        "rho_max": lambda r: max(abs(n["rho"]) for n in r["norms"]),
        "cos2": lambda r: float(np.mean([x["row_cos2"] for x in r["linears"]])),
        "alpha_max": lambda r: max(x["alpha_max"] for x in r["linears"]),
        "spread": lambda r: max(n["gamma_spread"] for n in r["norms"]),
    }[what]
    return np.array([get(r) for r in recs], dtype=float)


def flip_stats(rec: dict, a: str = "flip", b: str = "magnitude") -> tuple[float, float, float]:
    """``(mean ΔNLL of a, mean of b, SE of the paired difference)`` over a record's seeds."""
    x, y = np.asarray(rec["flips"][a]), np.asarray(rec["flips"][b])
    d = x - y
    return float(x.mean()), float(y.mean()), float(d.std(ddof=1) / math.sqrt(d.size))


def summary_rows(recs: dict, part: str = "II") -> list[dict]:
    """Both twins at initialisation and trained: the numbers the chapter's claims read, for
    Part II (the norms) or Part I (the Linear layers), one table each so that neither is
    squeezed."""
    if part not in ("I", "II"):
        raise ValueError(f"`part` must be 'I' or 'II'; got {part!r}")
    rows = []
    for m, rs in recs.items():
        for r in (rs[0], rs[-1]):
            row = {"model": _LABEL[m], "step": r["step"], "validation loss": r["val_loss"]}
            if part == "II":
                row |= {
                    "final norm |cos|": r["norms"][-1]["cos"],
                    "max |ρ| over norms": max(abs(n["rho"]) for n in r["norms"]),
                    "verdicts": ", ".join(sorted({n["verdict"] for n in r["norms"]})),
                    "max |γ| spread": max(n["gamma_spread"] for n in r["norms"]),
                }
            else:
                f, g, _ = flip_stats(r)
                cos2 = float(np.mean([x["row_cos2"] for x in r["linears"]]))
                row |= {"mean cos²(w, sign w)": cos2, "ΔNLL flips": f, "ΔNLL magnitude": g}
            rows.append(row)
    return rows


def schur_rows(recs: dict) -> list[dict]:
    """The Schur ratio R(h) = 1/(Σ_hh (Σ⁻¹)_hh) of the pre-final-norm residual stream (our
    reconstruction) along v* and along random unit directions, with the isotropic
    Marchenko–Pastur baseline 1 − d/N, both twins at initialisation and trained."""
    rows = []
    for m, rs in recs.items():
        for r in (rs[0], rs[-1]):
            p = r["profile"]
            rows.append(
                {
                    "model": _LABEL[m],
                    "step": r["step"],
                    "R(v*)": p["schur_ratio"],
                    "R, random directions (median)": float(np.median(p["schur_random"])),
                    "R, random directions (max)": float(np.max(p["schur_random"])),
                    "isotropic baseline 1 − d/N": p["schur_mp_baseline"],
                }
            )
    return rows


def schur_sentence(recs: dict) -> str:
    """What :func:`schur_rows` shows, in words computed from the records."""
    p0, p1 = recs[LN_MODEL][0]["profile"], recs[LN_MODEL][-1]["profile"]
    d0, d1 = 1 - p0["schur_ratio"], 1 - p1["schur_ratio"]
    above = p1["schur_ratio"] > max(p1["schur_random"])
    near = max(r["R, random directions (max)"] for r in schur_rows(recs)) < 0.5
    return (
        f"The LayerNorm twin's Δγ = 1 − R(v*) goes from {d0:.3f} at initialisation to "
        f"{d1:.3f} trained: it {'falls' if d1 < d0 else 'rises'}, where the paper reports "
        f"≈ 0–0.3 at initialisation rising towards 1. "
        + (
            "Random directions sit as low in R as v* does at initialisation, far below the "
            "isotropic baseline: the residual stream of a model this small is so correlated "
            "that any direction is largely predictable from the others, so Δγ near 1 here "
            "says nothing specific about v*. "
            if near
            else ""
        )
        + (
            "Trained, v* is less predictable than every random direction read."
            if above
            else "Trained, v* is not set apart from the random directions."
        )
    )


_HERE, _THERE = "on the twins", "for Pythia-1B and TinyLlama"  # limits_rows' columns


def limits_rows(recs: dict) -> list[dict]:
    """What a model of this size can and cannot say about the papers' models: one row per
    reading, its numbers from the records, and how far it carries to Pythia-1B and
    TinyLlama."""
    from companion.llm.registry import get_spec
    from companion.theory.null_classifier import precision_floor

    ln, rms = recs[LN_MODEL], recs[RMS_MODEL]
    cfg = ln[-1]["settings"]
    first, last = ln[0], ln[-1]
    tokens = last["step"] * 12 * 64  # the trainer's batch 12 × context 64 bytes a step
    spread = max(n["gamma_spread"] for n in last["norms"])
    lin = last["linears"]
    a_med = float(np.median([x["alpha_median"] for x in lin]))
    a_uni = float(np.median([x["alpha_uniform"] for x in lin]))
    a_max = max(x["alpha_max"] for x in lin)
    cos2 = series(ln, "cos2")
    f, g, se = flip_stats(last)
    fr, gr, ser = flip_stats(rms[-1])
    kdim = first["norms"][0]["kernel_dim"]
    rms_min = min(abs(n["rho"]) for r in rms for n in r["norms"])
    floor = precision_floor(last["dtype"], last["norms"][-1]["d"])
    tl_width = get_spec("tinyllama-1.1b").width  # TinyLlama's residual width
    tl_ratio = 0.26 * math.sqrt(tl_width)  # Dong's reported α max over its equal share
    return [
        {
            "reading": "γ⁻¹ kernel exact at every checkpoint; none for RMSNorm",
            _HERE: f"LayerNorm twin: every norm's |ρ| ≤ {series(ln, 'rho_max').max():.0e} at "
            f"all {len(ln)} checkpoints; RMSNorm twin: every norm's |ρ| ≥ {rms_min:.2f}",
            _THERE: "fully: the kernel is algebraic, the same at any width, depth or "
            "data, so this tests the measurement exactly as it would on Pythia-1B",
        },
        {
            "reading": "γ disperses and the kernel deepens",
            _HERE: f"after {tokens:,} training bytes the largest max|γ|/min|γ| of the "
            f"{len(last['norms'])} norms is {spread:.2f}; the LayerNorm twin's final-norm "
            f"|ρ| {abs(first['norms'][-1]['rho']):.1e} → {abs(last['norms'][-1]['rho']):.1e}, "
            f"against a float32 rounding floor of {floor:.1e}",
            _THERE: "no: γ has barely left 1, where Pythia-1B's γ was trained on "
            "hundreds of billions of tokens; the reported ~10³ is not testable here",
        },
        {
            "reading": "Table 1's band of cos²(w, sign w)",
            _HERE: f"{cos2[0]:.4f} at init (Gaussian rows of length ≤ 512; 2/π = "
            f"{2 / math.pi:.4f} for long ones) → {cos2[-1]:.4f} at step {last['step']}",
            _THERE: "the direction of the first steps only: where a weight matrix "
            "ends after a long run is a property of that run",
        },
        {
            "reading": "outlier input columns (α median 0.024, max 0.26 on TinyLlama)",
            _HERE: f"α median {a_med:.3f} against an equal share 1/√n = {a_uni:.3f}; the "
            f"largest column {a_max:.3f}, {a_max / a_uni:.1f}× an equal share",
            _THERE: f"in kind only: TinyLlama's reported max is ≈ {tl_ratio:.0f}× the "
            f"equal share of its width-{tl_width} inputs; columns that dominant, which "
            "Dong's sensitivity results are about, have not formed here",
        },
        {
            "reading": "sign flips cost more than equal-norm magnitude changes",
            _HERE: f"ΔNLL flips − magnitude at p = {cfg['p']:g}: {f - g:+.4f} ± {se:.4f} "
            f"({(f - g) / se:.1f} SE, LayerNorm), {fr - gr:+.4f} ± {ser:.4f} "
            f"({(fr - gr) / ser:.1f} SE, RMSNorm)",
            _THERE: "the sign of the effect at most: its size depends on what the "
            "weights have learned, and a trained 1B model has learned far more",
        },
        {
            "reading": "first-block norms",
            _HERE: f"a null space of dimension {kdim} (the calibration text uses fewer byte "
            "values than the width)",
            _THERE: "no: an artefact of the 256-byte vocabulary; a subword model's "
            "first norm sees tens of thousands of distinct embeddings",
        },
    ]


def _steps(rs):  # step 0 drawn at 1 on the log axis
    return np.maximum([r["step"] for r in rs], 1)


def trajectory_figure(scale: str = "cpu"):
    """Four panels against the optimiser step, both twins: validation loss; max |ρ| over
    every norm (log); mean cos²(w, sign w) with 2/π and Dong's band; ΔNLL of sign flips
    against the equal-norm magnitude change (± 2 SE over seeds)."""
    from matplotlib.figure import Figure

    recs = records(scale)
    fig = Figure(figsize=(10, 6.4), layout="constrained")
    (a, b), (c, d) = fig.subplots(2, 2)
    for m, rs in recs.items():
        col, mk = _STYLE[m]
        x = _steps(rs)
        a.semilogx(x, series(rs, "val_loss"), marker=mk, color=col, label=_LABEL[m])
        b.loglog(x, series(rs, "rho_max"), marker=mk, color=col, label=_LABEL[m])
        c.semilogx(x, series(rs, "cos2"), marker=mk, color=col, label=_LABEL[m])
        st = np.array([flip_stats(r) for r in rs])
        d.semilogx(x, st[:, 0], marker=mk, color=col, label=f"{_LABEL[m]}: flips")
        d.semilogx(x, st[:, 1], marker=mk, color=col, ls="--", mfc="none",
                   label=f"{_LABEL[m]}: magnitude")  # fmt: skip
    a.set(xlabel="step (0 drawn at 1)", ylabel="validation loss (nats/byte)")
    a.set_title("the model learns")
    b.set(xlabel="step", ylabel="max |ρ| over the 9 norms")
    b.set_title("exactness ρ: LayerNorm at rounding, RMSNorm O(1)")
    c.axhline(2 / math.pi, color=COLORS["grey"], ls=":", label="2/π (Gaussian init)")
    c.axhspan(*BAND, color=COLORS["sim"], alpha=0.15, label="Dong's trained band")
    c.set(xlabel="step", ylabel="mean cos²(w, sign w)")
    c.set_title("Table 1's statistic leaves its init law")
    d.axhline(0, color=COLORS["grey"], lw=0.8)
    d.set(xlabel="step", ylabel="ΔNLL (nats/byte)")
    d.set_title("flips vs equal-norm magnitude change")
    for ax in (a, b, c, d):
        ax.grid(alpha=0.3)
        legend(ax, fontsize=7)
    return fig


# ----------------------------------------------------------------------------- Explore


def _steps_of(scale):
    return tuple(r["step"] for r in records(scale)[LN_MODEL])


def draw(fig, step: int = 2000, scale: str = "cpu"):
    """At checkpoint ``step``: left, |ρ| of every norm of both twins (log; the LayerNorm
    twin's at rounding); right, cos²(w, sign w) of every Linear layer against 2/π and the
    band. Pure: reads the records only."""
    recs = records(scale)
    a, b = fig.subplots(1, 2)
    for k, (m, rs) in enumerate(recs.items()):
        r = next(x for x in rs if x["step"] == step)
        col, mk = _STYLE[m]
        rho = np.maximum([abs(n["rho"]) for n in r["norms"]], 1e-17)
        a.semilogy(np.arange(rho.size) + 0.15 * k, rho, mk, color=col, label=_LABEL[m])
        cos2 = [x["row_cos2"] for x in r["linears"]]
        b.plot(np.arange(len(cos2)) + 0.15 * k, cos2, mk, color=col, label=_LABEL[m])
    a.set(xlabel="norm (2 per block, then the final one)", ylabel="|ρ|", ylim=(1e-17, 10))
    a.set_title(f"step {step}: exactness of every norm", fontsize=9)
    b.axhline(2 / math.pi, color=COLORS["grey"], ls=":", label="2/π")
    b.axhspan(*BAND, color=COLORS["sim"], alpha=0.15, label="Dong's band")
    b.set(xlabel="Linear layer (4 per block)", ylabel="cos²(w, sign w)", ylim=(0.59, 0.66))
    b.set_title(f"step {step}: every Linear layer", fontsize=9)
    for ax in (a, b):
        ax.grid(alpha=0.3)
        legend(ax, fontsize=7)


def readout(step: int = 2000, scale: str = "cpu") -> str:
    """The sentence under the Explore figure: both twins' numbers at checkpoint ``step``."""
    parts = []
    for m, rs in records(scale).items():
        r = [x for x in rs if x["step"] == step]
        loss, rho, cos2 = (series(r, k)[0] for k in ("val_loss", "rho_max", "cos2"))
        parts.append(
            f"{_LABEL[m]}: validation loss {loss:.3f} nats/byte, max |ρ| {rho:.1e}, "
            f"mean cos²(w, sign w) {cos2:.4f}"
        )
    return f"At step {step:,}: " + "; ".join(parts) + "."


def explore(scale: str = "cpu") -> Explore:
    """The chapter's Explore figure: one control, the checkpoint (every one precomputed)."""
    from companion.scale import check_scale

    steps = _steps_of(check_scale(scale))
    controls = {"step": control(steps[-1], values=steps, label="checkpoint (step)", fmt="d")}

    def at_scale(fig, **params):
        return draw(fig, scale=scale, **params)

    def at_scale_readout(**params):
        return readout(scale=scale, **params)

    return explore_figure(
        at_scale, controls, grid=("step",), figsize=(9, 3.8), readout=at_scale_readout
    )


def reproduce(scale: str = "cpu") -> Reproduce:
    """The page's folded "Reproduce this chapter" box (commands, records, wall times)."""
    recs = records(scale)
    return reproduce_box(
        commands(scale),
        records=[
            f"{m}: {len(rs)} checkpoints (steps {rs[0]['step']}–{rs[-1]['step']}), written "
            f"{rs[-1]['time'][:10]} by `{rs[-1]['command']}`"
            for m, rs in recs.items()
        ],
        timings=[
            f"{m}: {sum(r['wall_s'] for r in rs):.0f} s for all checkpoints"
            for m, rs in recs.items()
        ],
        machine=", ".join(
            sorted(
                {
                    f"{r['host']['cpus']} CPU cores, {r['host']['machine']}"
                    for rs in recs.values()
                    for r in rs
                }
            )
        ),  # fmt: skip
    )
