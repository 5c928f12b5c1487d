"""Figures of the chapter "Part II at scale": drawn from the results files of
``companion run dead-directions`` (no model is run here, so redraws are fast)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from companion.plotting import COLORS

__all__ = [
    "RESULTS",
    "load",
    "draw",
    "draw_null",
    "draw_random_table",
    "trained_models",
    "confusion",
]

#: The committed CPU-scale results (relative to the repository root).
RESULTS = (
    Path(__file__).resolve().parents[3] / "results" / "dead_directions" / "dead_directions.jsonl"
)


@lru_cache(maxsize=4)
def _load(path: str, mtime: float) -> tuple:
    return tuple(json.loads(line) for line in Path(path).read_text().splitlines() if line.strip())


def load(path=None) -> list[dict]:
    """Every record of a results file (default: :data:`RESULTS`)."""
    p = Path(path or RESULTS)
    return list(_load(str(p), p.stat().st_mtime))


def trained_models(path=None) -> list[str]:
    """Models with a trained record, in file order."""
    seen = []
    for r in load(path):
        if r["init"] == "trained" and r["model"] not in seen:
            seen.append(r["model"])
    return seen


def _pick(recs, model, init, layers=None):
    out = [
        r
        for r in recs
        if r["model"] == model and r["init"] == init and (layers is None or r["layers"] == layers)
    ]
    return out[-1] if out else None


def draw(fig, model: str = "smollm2-135m", path=None):
    """Left: the bottom of the spectrum of C (λ/λ_max) trained vs random init at the same depth,
    with v*'s Rayleigh quotient marked. Right: the pre-norm σ_min profile (ratio to block 0)."""
    recs = load(path)
    tr = _pick(recs, model, "trained")
    ri = _pick(recs, model, "random", tr["layers"] if tr else None)
    ax1, ax2 = fig.subplots(1, 2)
    for rec, col, lab in ((ri, COLORS["grey"], "random init"), (tr, COLORS["sim"], "trained")):
        if rec is None:
            continue
        w = np.asarray(rec["spectrum"])
        rel = np.clip(w / w[-1], 1e-40, None)[:24]
        ax1.semilogy(
            np.arange(1, rel.size + 1), rel, "o-", ms=3, color=col, label=f"{lab}: λ_i/λ_max"
        )
        ax1.axhline(
            max(rec["rayleigh"], 1e-40),
            color=col,
            ls="--",
            lw=1,
            label=f"{lab}: v*ᵀCv*/λ_max = {rec['rayleigh']:.1e}",
        )
    ax1.set(
        xlabel="eigenvalue index (ascending)",
        ylabel="λ / λ_max",
        title=f"{model}: bottom of the spectrum ({(tr or ri or {}).get('dtype', '')} forward)",
    )
    ax1.legend(fontsize=7)
    for rec, col, lab in ((ri, COLORS["grey"], "random init"), (tr, COLORS["sim"], "trained")):
        if rec is None or not rec["sigma_ratio"]:
            continue
        ax2.plot(rec["sigma_ratio_no_pos0"], "o-", ms=3, color=col, label=f"{lab}, without pos. 0")
        ax2.plot(rec["sigma_ratio"], ":", color=col, lw=1, label=f"{lab}, with pos. 0")
    ax2.axhline(1.0, color=COLORS["theory"], lw=1.5, label="ratio 1 (T4 floor)")
    degenerate = (tr or ri or {}).get("profile_degenerate", False)
    ax2.set(
        yscale="log",
        xlabel="block ℓ (0 = embeddings; last = pre-final-norm)",
        ylabel="σ_min(X_ℓ) / σ_min(X_0)",
        title="pre-norm residual stream" + (" (post-LN: degenerate)" if degenerate else ""),
    )
    ax2.legend(fontsize=7)


def draw_null(fig, path=None):
    """The null law of |cos| for a random direction at each RMSNorm width, with the measured
    random-init |cos| of every model (LN at 1, RMS near the null)."""
    from companion.theory.null_classifier import random_direction_null

    recs = [r for r in load(path) if r["init"] == "random"]
    ax = fig.subplots(1, 1)
    widths = sorted({r["d"] for r in recs if r["norm_registry"] == "rmsnorm"})
    c = np.linspace(1e-4, 0.2, 400)
    for d in widths:
        ax.plot(c, random_direction_null(d).pdf(c), lw=1, label=f"null, d = {d}")
    for r in recs:
        col = COLORS["theory"] if r["norm_registry"] == "layernorm" else COLORS["sim"]
        x = min(r["cos"], 0.2)
        ax.axvline(x, color=col, lw=1.5, alpha=0.7)
    ax.plot([], [], color=COLORS["sim"], label="RMSNorm models, measured |cos|")
    ax.plot([], [], color=COLORS["theory"], label="LayerNorm models (|cos| = 1, clipped)")
    ax.set(xlabel="|cos(u_min, v*)|", ylabel="density", title="random-init |cos| against the null")
    ax.legend(fontsize=7, ncol=2)


def draw_random_table(fig, path=None):
    """|cos| and v*ᵀCv*/λ_max for every random-init model (log scale, coloured by norm type)."""
    recs = {r["model"]: r for r in load(path) if r["init"] == "random" and r["layers"] <= 2}
    names = list(recs)
    ax = fig.subplots(1, 1)
    ray = [max(recs[n]["rayleigh"], 1e-30) for n in names]
    cols = [
        COLORS["theory"] if recs[n]["norm_registry"] == "layernorm" else COLORS["sim"]
        for n in names
    ]
    ax.bar(range(len(names)), ray, color=cols)
    ax.set(yscale="log", ylabel="v*ᵀCv* / λ_max", title="random init, float32 forward")
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)


def confusion(records) -> dict:
    """Counts ``{(registry norm, verdict): n}`` over records."""
    out: dict = {}
    for r in records:
        k = (r["norm_registry"], r["verdict"])
        out[k] = out.get(k, 0) + 1
    return out
