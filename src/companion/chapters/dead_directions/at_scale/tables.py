"""Part II at scale, its tables: the registry, the diagnosis, random initialisation, the confusion
matrix, the trained models, the σ_min profile, the benchmark and Whisper's kernel and depth
tables."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.at_scale.records import (
    WHISPER_CHECKPOINTS,
    abs_gamma,
    commands,
    confusion,
    min_step,
    record_label,
    sigma_steps,
    stack_label,
    verdict,
    whisper_commands,
    whisper_records,
)
from companion.reproduce import Reproduce, reproduce_box
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
        if m.source != "trained-here"  # the chapter's models; the twins are issue 20's
    ]
    notes = (
        "Parameter counts are approximate counts of the real checkpoints. Every model loads at "
        "random init from its config (init='random'), offline."
    )
    n_here = sum(r["trained weights here"] == "yes" for r in rows)
    fold = f"The registry: {len(rows)} models, {n_here} with trained weights here (show)"
    return table(rows, notes=notes, fold=fold)


def _commands(recs) -> str:
    """Where a table's numbers come from (the commands themselves are in :func:`reproduce`)."""
    n = len({r.get("command") for r in recs})
    return (
        f"From the stored records of {n} run{'s' * (n != 1)}; "
        "the commands are in “Reproduce this chapter”."
    )


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
    fold = f"Every architecture's diagnosis at random initialisation: {len(rows)} models (show)"
    return table(rows, formats=fmt, notes=_commands(rand.values()), fold=fold)


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
    # the file's own remarks on what it was measured against stay in the file
    rows = [
        {"measured": k, "value": str(v).split("; the issue")[0]}
        for k, v in b["summary"].items()
        if not k.startswith("load average")
    ]
    if "big" in b and b["big"]["tokens"] < 65536:
        big = b["big"]
        per_tok = big["timings"]["forward_s"] / big["tokens"]
        rows.append(
            {
                "measured": "linear extrapolation of the forward pass to 65,536 tokens",
                "value": f"{per_tok * 65536:.0f} s (NOT measured; same load)",
            }
        )
    return table(rows, notes=f"command: python {b['command']}")


#: the released Pythia checkpoints of the paper's training trajectory, one record per step
PYTHIA_TRAJECTORY = (
    "companion run dead-directions --model pythia-160m --scale full --revision step0 "
    "--revision step1000 --revision step10000 --revision step143000 --resume"
)


def reproduce(scale: str, results: list) -> Reproduce:
    """The chapter's folded "Reproduce" box: the commands that write its records (this scale,
    full scale on a GPU, Whisper, the σ_min split, the Pythia trajectory), what is stored,
    how long the runs took and on which machine."""
    from companion.results import locate, read_json

    cmds = [*commands(scale).splitlines()]
    if scale != "full":
        cmds += ["# full scale, on a GPU (Colab):", *commands("full").splitlines()]
    for ck, label in WHISPER_CHECKPOINTS.items():
        cmds += [f"# Whisper {label} (speech synthesised by eSpeak NG):"]
        cmds += whisper_commands(ck).values()
    from companion.chapters.dead_directions.at_scale.split import split_commands

    cmds += ["# σ_min split by sublayer, with its two cancelling controls:"]
    cmds += split_commands(scale).split("; ")
    cmds += ["# the Pythia training trajectory (GPU):", PYTHIA_TRAJECTORY]
    recs = [f"{len(results)} records at {scale} scale (results: dead_directions/)"]
    if scale != "full" and not locate("dead_directions_full", "dead_directions.jsonl").exists():
        recs.append("no full-scale (GPU) records ship with the book")
    times, extra, machine = [], [], ""
    bench = locate("dead_directions", "bench.json")
    if bench.exists():
        b = read_json(bench)
        extra.append(bench_table(b))
        machine = f"{b.get('cpu_count', '?')} shared CPU cores, {b.get('threads', '?')} threads"
        if "load_start" in b:
            machine += f"; load average {b['load_start'][0]:.1f} at the start"
    wb = locate("whisper", "bench.json")
    wbench = read_json(wb) if wb.exists() else {}
    for stage in ("diagnosis_decoder", "diagnosis_encoder"):
        if w := wbench.get(stage):
            times.append(
                f"{w['model']}: {w['run_wall_s']:.0f} s wall, {w['run_cpu_s']:.0f} s CPU "
                f"(forward {w['timings']['forward_s']:.0f} s), peak memory "
                f"{w['peak_rss_mib']:,.0f} MiB, N = {w['n_tokens']:,}, load average "
                f"{w['loadavg'][0]:.1f} ({w['command']})"
            )
    return reproduce_box(cmds, records=recs, timings=times, machine=machine, extra=extra)


def whisper_kernel_table(scale: str = "cpu", init: str | None = None) -> Table:
    """The γ⁻¹ kernel on each Whisper record (only those of ``init``, "trained" or "random",
    when given) and the two controls on the same activations (a shuffled γ, three draws;
    the norm swapped for an RMSNorm)."""
    if init not in (None, "trained", "random"):
        raise ValueError(f"`init` must be 'trained', 'random' or None; got {init!r}")
    rows = []
    for r in whisper_records(scale):
        if init is not None and r["init"] != init:
            continue
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
        # One init per table reads without the init in every row (the heading names it).
        label = record_label(r) if init is None else f"{stack_label(r['model'])} ({r['layers']})"
        rows.append(
            {
                "stack (blocks)": label,
                "N": f"{r['n_tokens']:,}",
                "min / max |γ|": f"{lo:.3g} / {hi:.3g}",
                # 1 − |cos| shows how close to exact: 14 printed digits of |cos| did not fit.
                "1 − |cos(u_min, v*)|": f"{max(1 - r['cos'], 0.0):.0e}",
                "ρ float32 / float64": f"{r['diag_rayleigh']:.1e} / "
                f"{r.get('diag_rayleigh_fp64', np.nan):.0e}",
                "verdict": r["verdict"],
                "shuffled γ: |cos|; min ρ; verdict": shuf_txt,
                "RMSNorm swap: ρ; verdict": f"{sw.get('diag_rayleigh', np.nan):.2f}; "
                f"{sw.get('verdict', '—')}",
            }
        )
    return table(rows)


def whisper_depth_table(scale: str = "cpu") -> Table:
    """The pre-norm σ_min profile block to block (smallest step ± jackknife SE) and the
    Schur ratio R(v*) of the pre-norm state against random directions."""
    rows = []
    for r in whisper_records(scale):
        block, step, se = min_step(r)
        rand = np.asarray(r.get("schur_random") or [np.nan])
        rows.append(
            {
                "stack": record_label(r),
                "profile tokens": f"{r['profile_tokens']:,}",
                "smallest step σ_ℓ/σ_ℓ₋₁ ± SE": f"{step:.3f} ± {se:.3f} (block {block})",
                "σ_L/σ_0": f"{r['sigma_ratio_no_pos0'][-1]:.3g}",
                "Schur R(v*)": f"{r['schur_ratio']:.4f} (Δγ = {1 - r['schur_ratio']:.3f})",
                "R(h), 8 random h": f"{rand.min():.4f}–{rand.max():.4f}",
                "MP baseline": f"{r['schur_mp_baseline']:.3f}",
            }
        )
    return table(rows)


def sigma_split_table(scale: str = "cpu") -> Table:
    """Each trained pre-norm checkpoint's σ_min declines split by sublayer: how many blocks
    decline below 1 − 4 SE, which sublayer carries each, and the steepest one's two halves
    (``companion run sigma-split``)."""
    from companion.chapters.dead_directions.at_scale.split import (
        declines,
        split_claim_records,
    )
    from companion.tables import pm

    # as records(): at full and smoke scale the runs are made now when none is stored
    use, _, _ = split_claim_records(scale, scale != "cpu")
    rows = []
    for name, r in use.items():
        found = declines(r)
        count = {c: sum(d["carrier"] == c for d in found) for c in ("mlp", "attention")}
        worst = min(found, key=lambda d: d["block_ratio"], default=None)
        rows.append(
            {
                "model": name,
                "declining blocks": f"{len(found)} of {len(r['split_block'])}",
                "in the MLP": count["mlp"],
                "in attention": count["attention"],
                "other": len(found) - sum(count.values()),
                "steepest": "–"
                if worst is None
                else f"block {worst['block']}: ×" + pm(worst["block_ratio"], worst["block_se"]),
                "its attention": pm(worst["attn"], worst["attn_se"]) if worst else "–",
                "its MLP": pm(worst["mlp"], worst["mlp_se"]) if worst else "–",
            }
        )
    notes = (
        "A block declines when σ_min(after the block)/σ_min(before it) is below 1 − 4 SE; its "
        "decline is in the MLP when σ_min(after the MLP)/σ_min(after attention) alone is, in "
        "attention when σ_min(after attention)/σ_min(before) alone is ('other': both, or "
        "neither at 4 SE). Uncentred pre-norm stream, position 0 excluded; SE by a "
        "delete-one-fold jackknife over 4 folds of the sequences (the commands are in the "
        "chapter's Reproduce box)."
    )
    return table(rows, notes=notes)
