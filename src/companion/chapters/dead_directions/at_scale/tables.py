"""Part II at scale, its tables: the registry, the diagnosis, random initialisation, the confusion
matrix, the trained models, the σ_min profile, the benchmark and Whisper-base's kernel and depth
tables."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.at_scale.records import (
    _label,
    abs_gamma,
    confusion,
    min_step,
    sigma_steps,
    verdict,
    whisper_records,
)
from companion.tables import Table, table


def registry_table() -> Table:
    """Every registered model: architecture, norm, width, depth, size and where it loads from."""
    from companion.llm.registry import list_models

    rows = [
        {
            "name": m.name,
            "architecture": m.architecture,
            "norm": m.norm,
            "width": m.width,
            "layers": m.n_layers,
            "params (approx.)": f"{m.n_params / 1e9:.2f}B"
            if m.n_params >= 1e9
            else f"{m.n_params / 1e6:.0f}M",
            "source": m.source,
            "trained weights here": "yes" if m.available_here else "no",
            "hub id": m.hub_id or "",
        }
        for m in list_models()
    ]
    notes = (
        "Parameter counts are approximate counts of the real checkpoints. Every model loads at "
        "random init from its config (init='random'), offline."
    )
    return table(rows, notes=notes)


def _commands(recs) -> str:
    return "written by: " + "; ".join(sorted({r["command"] for r in recs}))


def diagnosis_table(live: dict) -> Table:
    """One live diagnosis per model (``live``: name -> what ``diagnose`` returns)."""
    rows = [
        {
            "model": name,
            "norm": d.norm_kind,
            "d": d.d,
            "N": d.n_tokens,
            "forward": d.dtype,
            "|cos|": d.cos,
            "v*ᵀCv*/λ_max": d.rayleigh,
            "verdict": d.verdict,
        }
        for name, d in live.items()
    ]
    return table(rows, formats={"|cos|": "{:.6f}", "v*ᵀCv*/λ_max": "{:.2e}"})


def random_init_table(rand: dict) -> Table:
    """The random-init diagnosis of every architecture (``rand``: model -> record)."""
    rows = [
        {
            "model": name,
            "norm": r["norm_registry"],
            "d": r["d"],
            "blocks": r["layers"],
            "N": r["n_tokens"],
            "|cos|": r["cos"],
            "null q99.9": r["null_q999"],
            "v*ᵀCv*/λ_max": r["rayleigh"],
            "verdict": verdict(r),
        }
        for name, r in rand.items()
    ]
    fmt = {"|cos|": "{:.4f}", "null q99.9": "{:.4f}", "v*ᵀCv*/λ_max": "{:.2e}"}
    return table(rows, formats=fmt, notes=_commands(rand.values()))


def confusion_table(recs) -> Table:
    """Verdicts against the registry's norm type (counts)."""
    conf = confusion(recs)
    verdicts = ("layernorm", "rmsnorm", "undetermined")
    rows = [
        {"registry norm": true, **{f"verdict {v}": conf.get((true, v), 0) for v in verdicts}}
        for true in ("layernorm", "rmsnorm")
    ]
    return table(rows)


def trained_table(trained: dict, init_full: dict) -> Table:
    """The diagnosis of every trained checkpoint, one column per model, beside its random
    init at the same depth where one is stored."""
    quantities = {}
    for name, r in trained.items():
        g, ri = r["gamma_stats"], init_full.get(name)
        lo, hi = abs_gamma(r)
        quantities[name] = {
            "norm": f"{r['norm_kind']} ({r['norm_name']})",
            "d, N, forward": f"{r['d']}, {r['n_tokens']}, {r['dtype']}",
            "γ (effective): mean, min |γ|, max |γ|": f"{g['mean']:.3f}, {lo:.3g}, {hi:.3g}"
            + (" (stored weight + 1)" if g["offset"] else ""),
            "|cos(u_min, v*)|, float32 output": f"{r['cos']:.4f}",
            "|cos|, norm recomputed in float64": f"{r['cos_fp64']:.4f}",
            "null q99.9": f"{r['null_q999']:.3f}",
            "null-space dim (float64), ‖P v*‖": f"{r['kernel_dim_fp64']}, "
            f"{r['cos_subspace_fp64']:.6f}",
            "v*ᵀCv*/λ_max at init": f"{ri['rayleigh']:.2e}" if ri else "–",
            "v*ᵀCv*/λ_max trained": f"{r['rayleigh']:.2e}",
            "verdict": verdict(r),
            "Schur ratio R(v*), init → trained (ours)": (
                f"{ri['schur_ratio']:.3f} → " if ri else ""
            )
            + f"{r['schur_ratio']:.3f}",
            "Marchenko–Pastur baseline": f"{r.get('schur_mp_baseline', float('nan')):.3f}",
        }
    names = list(quantities)
    keys = list(quantities[names[0]]) if names else []
    rows = [{"": k, **{n: quantities[n][k] for n in names}} for k in keys]
    return table(rows, notes=_commands([*trained.values(), *init_full.values()]))


def profile_table(trained: dict) -> Table:
    """Each trained model's pre-norm σ_min block to block (position 0 excluded): how many
    steps σ_min(X_ℓ+1)/σ_min(X_ℓ) fall below 1, and the smallest."""
    rows = []
    for name, r in trained.items():
        steps, _ = sigma_steps(r)
        worst = int(np.nanargmin(steps))
        rows.append(
            {
                "model": name,
                "steps below 1": f"{int((steps < 1).sum())} of {steps.size}",
                "smallest step": steps[worst],
                "into block": worst + 1,
                "tokens": r["profile_tokens"],
                "": "post-LN: every block output is a LayerNorm output (degenerate)"
                if r["profile_degenerate"]
                else "",
            }
        )
    return table(rows, formats={"smallest step": "×{:.3f}"})


def bench_table(b: dict) -> Table:
    """The diagnosis benchmark: its measured numbers (and, marked, one extrapolation)."""
    rows = [{"measured": k, "value": v} for k, v in b["summary"].items()]
    if "big" in b and b["big"]["tokens"] < 65536:
        big = b["big"]
        per_tok = big["timings"]["forward_s"] / big["tokens"]
        rows.append(
            {
                "measured": "linear extrapolation of the forward pass to 65,536 tokens",
                "value": f"{per_tok * 65536:.0f} s (NOT measured; same load)",
            }
        )
    return table(rows, notes=f"command: {b['command']}")


def _md(head: list, rows: list) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def whisper_kernel_table(scale: str = "cpu") -> str:
    """Markdown table: the γ⁻¹ kernel on each Whisper record and the two controls on the
    same activations (a shuffled γ, three draws; the norm swapped for an RMSNorm)."""
    rows = []
    for r in whisper_records(scale):
        lo, hi = abs_gamma(r)
        c = r.get("controls", {})
        shuf = c.get("shuffled_gamma", [])
        sw = c.get("norm_swap", {})
        shuf_txt = (
            f"{min(s['cos'] for s in shuf):.3f}–{max(s['cos'] for s in shuf):.3f}; "
            f"{min(s['diag_rayleigh'] for s in shuf):.2f}; {shuf[0]['verdict']}"
            if shuf
            else "— (γ ≡ 1)"
        )
        rows.append(
            [
                _label(r),
                f"{r['n_tokens']:,}",
                f"{lo:.3g} / {hi:.3g}",
                f"{r['cos']:.14f}",
                f"{r['diag_rayleigh']:.1e} / {r.get('diag_rayleigh_fp64', np.nan):.0e}",
                r["verdict"],
                shuf_txt,
                f"{sw.get('diag_rayleigh', np.nan):.2f}; {sw.get('verdict', '—')}",
            ]
        )
    head = [
        "stack",
        "N",
        "min / max \\|γ\\|",
        "\\|cos(u_min, v*)\\|",
        "ρ float32 / float64",
        "verdict",
        "shuffled γ: \\|cos\\|; min ρ; verdict",
        "RMSNorm swap: ρ; verdict",
    ]
    return _md(head, rows)


def whisper_depth_table(scale: str = "cpu") -> str:
    """Markdown table: the pre-norm σ_min profile block to block (smallest step ± jackknife
    SE) and the Schur ratio R(v*) of the pre-norm state against random directions."""
    rows = []
    for r in whisper_records(scale):
        block, step, se = min_step(r)
        rand = np.asarray(r.get("schur_random") or [np.nan])
        rows.append(
            [
                _label(r),
                f"{r['profile_tokens']:,}",
                f"{step:.3f} ± {se:.3f} (block {block})",
                f"{r['sigma_ratio_no_pos0'][-1]:.3g}",
                f"{r['schur_ratio']:.4f} (Δγ = {1 - r['schur_ratio']:.3f})",
                f"{rand.min():.4f}–{rand.max():.4f}",
                f"{r['schur_mp_baseline']:.3f}",
            ]
        )
    head = [
        "stack",
        "profile tokens",
        "smallest step σ_ℓ/σ_ℓ₋₁ ± SE",
        "σ_L/σ_0",
        "Schur R(v*)",
        "R(h), 8 random h",
        "MP baseline",
    ]
    return _md(head, rows)
