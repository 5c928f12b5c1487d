"""Part II at scale, its figures: the Explore figure (a model's spectrum and σ_min profile at
random initialisation and trained), the null distribution, the random-initialisation table, the
profile figure and Whisper's figure, pure functions of the records."""

from __future__ import annotations

import numpy as np

from companion.chapters.dead_directions.at_scale.records import (
    random_init,
    records,
    stack_label,
    trained_models,
    whisper_records,
)
from companion.plotting import COLORS, legend
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure


def _pick(recs, model, init, layers=None):
    out = [
        r
        for r in recs
        if r["model"] == model and r["init"] == init and (layers is None or r["layers"] == layers)
    ]
    return out[-1] if out else None


_INITS = (("random", COLORS["grey"], "random"), ("trained", COLORS["sim"], "trained"))
# Where tiny values are drawn on the log axis: the axis stops here instead of running to
# MiniLM's 1e-33 (which flattened every other model's spectrum); the value printed on each
# line is the measured one.
_CLIP = 1e-20


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
        level = ax.axhline(1, color=col, ls="--", lw=1, label=f"{lab}: |v*ᵀCv*|/λ_max")
        value = ax.text(
            x, 1, "", transform=ax.get_yaxis_transform(), ha="right", va="bottom", color=col
        )
        artists.append((dots, level, value))
    ax.set(
        xlim=(0, 25),
        ylim=(max(low / 10, _CLIP / 3), 3),
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
        y = max(abs(rec["rayleigh"]), _CLIP)  # a log axis: the size (its sign is rounding)
        level.set_ydata([y, y])
        below = " (below the axis)" if abs(rec["rayleigh"]) < _CLIP else ""
        value.set(y=y, text=f"{abs(rec['rayleigh']):.1e}{below}")
    dtype = (pair[1] or pair[0] or {}).get("dtype", "")
    dots.axes.set_title(f"{model}\nbottom of the spectrum ({dtype} forward)")


def _profile_panel(ax, scale, **_):
    """The pre-norm σ_min profile (ratio to block 0), with and without position 0."""
    pairs = _all_pairs(scale)
    ys = [y for r in pairs for k in ("sigma_ratio", "sigma_ratio_no_pos0") for y in r[k] or []]
    blocks = max(len(r["sigma_ratio"] or []) for r in pairs)
    lines = []
    for _, col, lab in _INITS:
        (without,) = ax.plot([], [], "o-", ms=3, color=col, label=f"{lab}, no pos. 0")
        (with_,) = ax.plot([], [], ":", color=col, lw=1, label=f"{lab}, all pos.")
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
        "pre-norm residual stream\n" + ("post-LN: degenerate" if degenerate else "σ_min profile")
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


_NORMS = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm"}


def _num(x: float) -> str:
    """A value of the readout: 3 significant digits, or powers of ten when tiny or huge."""
    return f"{x:.3g}" if 1e-3 <= abs(x) < 1e4 else f"{x:.1e}"


def readout(model: str = "smollm2-135m", scale: str = "cpu") -> str:
    """The sentence under the Explore figure: the numbers both panels show for ``model``,
    trained / at random initialisation at the same depth, and the verdicts, from the
    records."""
    pair = [r for r in reversed(_pair(model, scale)) if r is not None]  # trained first
    if not pair:
        raise ValueError(f"`model` {model!r} has no record at scale {scale!r}")
    rec = pair[0]

    def both(fmt, key=None):
        return " / ".join(fmt(r) if key is None else fmt(r[key]) for r in pair)

    which = " / ".join(r["init"].replace("random", "random init") for r in pair)
    norm = _NORMS.get(rec["norm_registry"], rec["norm_registry"])
    text = (
        f"{model} ({norm}, d = {rec['d']}, {rec['layers']} blocks), {which}: "
        f"|v*ᵀCv*|/λ_max {both(lambda r: f'{abs(r):.1e}', 'rayleigh')}; "
        f"|cos(u_min, v*)| {both(lambda c: f'{c:.3f}', 'cos')}"
    )
    dead = [r for r in pair if r.get("kernel_dim", 1) > 1]  # tiny γ entries
    text += "".join(
        f" ({r['init']}: {r['cos_subspace']:.3f} with its {r['kernel_dim']}-dim null space)"
        for r in dead
    )
    text += (
        f"; ρ {both(lambda x: f'{x:.1e}', 'diag_rayleigh')}, read as "
        f"{both(lambda v: _NORMS.get(v, v), 'verdict')}"
    )
    ratios = [r["sigma_ratio_no_pos0"] or [] for r in pair]
    if all(len(x) > 1 for x in ratios):
        low = " / ".join(_num(min(x[1:])) for x in ratios)
        last = " / ".join(_num(x[-1]) for x in ratios)
        text += f"; σ_min ratio to block 0 (no position 0) lowest {low}, last {last}"
        if rec.get("profile_degenerate"):
            text += " (post-LN: degenerate)"
    return text + "."


def explore(scale: str = "cpu") -> Explore:
    """The chapter's Explore figure: every trained model of ``scale`` (from the results
    file: nothing runs on a move); its readout states both panels' numbers."""
    models = trained_models(scale)
    norms = {r["model"]: r["norm_registry"] for r in records(scale)}
    options = [(f"{m} ({_NORMS.get(norms.get(m), '?')})", m) for m in models]
    controls = {"model": control(models[0], options=options, label="model")}

    def draw_at(fig, model):
        return draw(fig, model, scale)

    def readout_at(model):
        return readout(model, scale)

    return explore_figure(
        draw_at,
        controls,
        update=Panels.update,
        grid=("model",),
        figsize=(9, 4.4),
        readout=readout_at,
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


def draw_whisper(fig, scale: str = "cpu"):
    """Left: the exactness statistic ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ of trained Whisper's two final
    LayerNorms against its controls (log scale). Right: the block-to-block σ_min steps of both
    stacks, trained and at random init, ± 2 jackknife SE."""
    from matplotlib.lines import Line2D

    recs = whisper_records(scale)
    ax1, ax2 = fig.subplots(1, 2)
    # per trained stack (one tick each), side by side: the kernel's ρ in float32 and float64
    # (blue), then the controls (shuffled γ, the RMSNorm swap); ρ under 1e-20 drawn at 1e-20
    kinds = (
        ("kernel v*, float32", "o", COLORS["theory"], True),
        ("kernel v*, float64", "s", COLORS["theory"], False),
        ("control: shuffled γ", "x", COLORS["sim"], True),
        ("control: RMSNorm swap", "^", COLORS["alt"], True),
    )
    trained = [r for r in recs if r["init"] == "trained"]
    for i, r in enumerate(trained):
        c = r.get("controls", {})
        values = (
            [r["diag_rayleigh"]],
            [abs(r.get("diag_rayleigh_fp64", np.nan))],
            [s["diag_rayleigh"] for s in c.get("shuffled_gamma", [])],
            [c.get("norm_swap", {}).get("diag_rayleigh", np.nan)],
        )
        for k, ((label, mark, colour, filled), v) in enumerate(zip(kinds, values, strict=True)):
            v = np.maximum(np.asarray(v, dtype=float), 1e-20)
            x = i + 0.2 * (k - 1.5) + np.linspace(-0.05, 0.05, v.size) * (v.size > 1)
            ax1.plot(
                x, v, mark, color=colour, mfc=colour if filled else "none", ms=5,
                label=label if i == 0 else None,
            )  # fmt: skip
    names = [stack_label(r["model"]) for r in trained]
    ax1.set_xticks(range(len(trained)), names, rotation=30, ha="right")
    ax1.set(
        yscale="log",
        xlim=(-0.6, len(trained) - 0.4),
        ylabel="ρ = v*ᵀCv* / Σ v*ᵢ² Cᵢᵢ",
        title="trained: kernel vs controls",
    )
    ax1.grid(alpha=0.3, axis="y")
    legend(ax1)
    for r in recs:
        steps = np.asarray(r.get("sigma_step_no_pos0") or [])
        se = np.asarray(r.get("sigma_step_se_no_pos0") or [np.nan] * steps.size, dtype=float)
        ls = "-" if r["init"] == "trained" else ":"
        col = COLORS["theory"] if "decoder" in r["model"] else COLORS["alt"]
        mark = "s" if "tiny" in r["model"] else "o"  # tiny.en's stacks: squares
        if r["layers"] == len(steps):
            x = np.arange(1, steps.size + 1)
            ax2.errorbar(x, steps, yerr=2 * se, fmt=mark + ls, ms=3, color=col)
    ax2.axhline(1.0, color=COLORS["grey"], lw=1)
    ax2.set(
        yscale="log",
        xlabel="block ℓ",
        ylabel="σ_min(X_ℓ) / σ_min(X_ℓ₋₁)",
        title="pre-norm stream, block to block",
    )
    # the styles, once each (a line per record would be 12 entries): colour the stack,
    # marker the model, line the initialisation (the random inits at two depths)
    grey = COLORS["grey"]
    keys = [
        ("decoder", dict(color=COLORS["theory"])),
        ("encoder", dict(color=COLORS["alt"])),
        ("trained", dict(color=grey)),
        ("random init", dict(color=grey, ls=":")),
        ("Whisper-base", dict(color=grey, marker="o", ls="none")),
        ("tiny.en", dict(color=grey, marker="s", ls="none")),
    ]
    legend(ax2, [Line2D([], [], ms=4, **kw) for _, kw in keys], [k for k, _ in keys])
