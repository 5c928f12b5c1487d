"""Walking the dead direction (``book/dead_directions/walk.md``): its sizes, the records that
``companion run walk`` wrote, the tables and the Explore figure (the NLL and the directional
Fisher along the flat curve and its controls, read from the records alone)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.reproduce import Reproduce, reproduce_box
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = [
    "SIZES",
    "DIRECTIONS",
    "anchor_ratio",
    "commands",
    "draw",
    "explore",
    "fisher_rows",
    "flatness_rows",
    "kfac_rows",
    "model_record",
    "records",
    "reproduce",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    tokens: int  # held-out tokens per model in the walk records
    n_sim: int  # Monte Carlo samples per t in the framework simulations


SIZES = {
    "cpu": Sizes(tokens=1000, n_sim=20_000),
    "full": Sizes(tokens=8000, n_sim=200_000),
    "smoke": Sizes(tokens=64, n_sim=2000),
}

#: The LayerNorm model walked first and the RMSNorm control.
LN_MODEL, RMS_MODEL = "whisper-base-decoder", "smollm2-135m"

#: Explore's directions: label -> (model, curve in its record).
DIRECTIONS = {
    "flat curve (β compensated)": (LN_MODEL, "flat"),
    "same W_t, β fixed": (LN_MODEL, "uncompensated"),
    "random direction": (LN_MODEL, "random_0"),
    "W + t² R (order 2)": (LN_MODEL, "random_square"),
    "SmolLM2: γ⁻¹ (RMSNorm)": (RMS_MODEL, "gamma_inv"),
}
_STYLE = {
    "flat": (COLORS["theory"], "o"),
    "uncompensated": (COLORS["sim"], "s"),
    "random_0": (COLORS["grey"], "^"),
    "random_square": (COLORS["alt"], "D"),
    "gamma_inv": (COLORS["paper"], "v"),
}
_FLOOR = 1e-17  # where exact zeros (and values below float64's reach) are drawn


# ----------------------------------------------------------------------------- records


def commands(scale: str = "cpu") -> str:
    """The command that writes ``scale``'s walk records."""
    extra = "" if scale == "cpu" else f" --scale {scale}"
    return f"companion run walk --model {LN_MODEL} --model {RMS_MODEL}{extra} --resume"


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple:
    from companion.results import read_jsonl

    return tuple(read_jsonl(path))


def _stored(scale: str) -> list[dict]:
    from companion.llm.dead_directions.walk import results_path

    path = Path(results_path(scale=scale))
    if not path.exists():
        return []
    return [r for r in _load(str(path), path.stat().st_mtime) if r["settings"]["scale"] == scale]


def records(scale: str = "cpu") -> dict:
    """``{model: record}`` at ``scale`` (the latest per model). Off the CPU scale missing
    records are produced now (resumably); at CPU scale they ship with the package.

    Raises
    ------
    FileNotFoundError
        When a model's record is absent (naming the command that writes it).
    """
    want = (LN_MODEL, RMS_MODEL)
    have = {r["model"]: r for r in _stored(scale)}
    if scale != "cpu" and any(m not in have for m in want):
        from companion.llm.dead_directions.walk import run_walk

        for m in want:
            run_walk(m, scale=scale, tokens=SIZES[scale].tokens, resume=True)
        have = {r["model"]: r for r in _stored(scale)}
    missing = [m for m in want if m not in have]
    if missing:
        raise FileNotFoundError(
            f"no {scale}-scale walk record of {', '.join(missing)} in the results root; run "
            f"`{commands(scale)}`"
        )
    return {m: have[m] for m in want}


def reproduce(scale: str = "cpu") -> Reproduce:
    """The page's folded "Reproduce this chapter" box: the command, the records it wrote
    and their wall times (read from the records)."""
    recs = records(scale)
    return reproduce_box(
        [commands(scale)],
        records=[
            f"{m}: {r['n_tokens']} held-out tokens, {len(r['ts'])} values of t, written "
            f"{r['time'][:10]} by `{r['command']}`"
            for m, r in recs.items()
        ],
        timings=[f"{m}: {r['run_s']:.0f} s (load {r['load_s']:.0f} s)" for m, r in recs.items()],
        machine=", ".join(
            sorted(
                {f"{r['host']['cpus']} CPU cores, {r['host']['machine']}" for r in recs.values()}
            )
        ),
    )


def model_record(model: str, scale: str = "cpu") -> dict:
    """The record of one model (``LN_MODEL`` or ``RMS_MODEL``)."""
    return records(scale)[model]


# ----------------------------------------------------------------------------- tables

_NAMES = {
    "flat": "flat curve (β compensated)",
    "uncompensated": "same W_t, β fixed",
    "gamma_inv": "γ⁻¹ direction (no β to compensate)",
    "random_square": "W + t² R (a curve of order 2)",
}


def _name(curve: str) -> str:
    if curve.startswith("random_") and curve[7:].isdigit():
        return f"random direction {int(curve[7:]) + 1}"
    return _NAMES[curve]


def _display(model: str) -> str:
    return {LN_MODEL: "Whisper-base decoder", RMS_MODEL: "SmolLM2-135M"}.get(model, model)


def flatness_rows(recs: dict) -> list[dict]:
    """Per model and curve: max |ΔNLL| over the walk and ΔNLL at t = 1 and at the end."""
    rows = []
    for model, rec in recs.items():
        ts = np.asarray(rec["ts"])
        i1 = int(np.argmin(np.abs(np.log(ts))))
        for curve, c in rec["curves"].items():
            d = np.asarray(c["dnll"])
            rows.append(
                {
                    "model": _display(model),
                    "direction": _name(curve),
                    "max |ΔNLL| (nats)": float(np.max(np.abs(d))),
                    f"ΔNLL at t = {ts[i1]:g}": float(d[i1]),
                    f"ΔNLL at t = {ts[-1]:g}": float(d[-1]),
                }
            )
    return rows


def fisher_rows(recs: dict) -> list[dict]:
    """Per model and curve: the directional Fisher at the smallest t, k̂ = 1 + slope/2 from
    its log-log slope on t ≤ 0.01 (none where the Fisher is at float64's floor) and the
    anchor ratio F t²/(2 k² KL)."""
    rows = []
    for model, rec in recs.items():
        ref = rec["curves"]["random_0"]["fisher"][0]
        for curve, c in rec["curves"].items():
            F = c["fisher"][0]
            exact_floor = F < 1e-20 * ref
            dead = exact_floor or c["k_hat"] is None
            rows.append(
                {
                    "model": _display(model),
                    "direction": _name(curve),
                    "F(t = 1e-4) / F(random)": F / ref,
                    "k̂ = 1 + slope/2": "– (F at the float64 floor)"
                    if dead
                    else f"{c['k_hat']:.5f} ± {c['k_hat_se']:.1g}",
                    "F t² / (2 k² KL)": "–" if dead else anchor_ratio(rec["ts"], c),
                }
            )
    return rows


def anchor_ratio(ts, c, k: int | None = None) -> float:
    """``F t² / (2 k² KL)`` at the smallest ``t <= 0.01`` whose KL float64 resolves (> 1e-12;
    below it the KL's own rounding dominates): 1 in the limit (the anchor identity of Lean
    ``thm:fisher_decay``), with ``k`` the rounded k̂ unless given."""
    k = round(c["k_hat"]) if k is None else k
    for t, F, kl in zip(ts, c["fisher"], c["kl"], strict=True):
        if t <= 1e-2 and kl > 1e-12:
            return F * t * t / (2 * k * k * kl)
    return float("nan")


def kfac_rows(recs: dict) -> list[dict]:
    """K-FAC against the true Fisher along ``u v*ᵀ`` (``u = W w``) and along random rank-one
    directions (median of the ratio), each Fisher relative to the true one."""
    rows = []
    for model, rec in recs.items():
        k = rec["kfac_dead"]
        ratios = [r["kfac_uncentred"] / r["true"] for r in rec["kfac_random"]]
        ref = rec["curves"]["random_0"]["fisher"][0]
        rows.append(
            {
                "model": _display(model),
                "c = ⟨γ⁻¹, β⟩/‖γ⁻¹‖": rec["c"],
                "true Fisher along u v*ᵀ": k["true"],
                "true / F(random direction)": k["true"] / ref,
                "K-FAC, centred A": k["kfac_centred"],
                "K-FAC, uncentred A": k["kfac_uncentred"],
                "K-FAC / true, random u aᵀ (median)": float(np.median(ratios)),
            }
        )
    return rows


# ----------------------------------------------------------------------------- Explore


def _curve(direction: str, scale: str):
    model, curve = DIRECTIONS[direction]
    rec = model_record(model, scale)
    return rec, rec["curves"][curve], curve


def _dnll(direction, scale):
    rec, c, curve = _curve(direction, scale)
    return rec["ts"], np.clip(np.abs(c["dnll"]), _FLOOR, None), curve


def _nll_panel(ax, scale, **_):
    """|ΔNLL| against t for every direction (log-log; exact zeros at the floor); the chosen
    one is traced bold by an animated line, so choosing another repaints nothing."""
    for name in DIRECTIONS:
        ts, y, curve = _dnll(name, scale)
        col, mk = _STYLE[curve]
        ax.loglog(ts, y, marker=mk, ms=4, color=col, label=name)
    ax.axhline(_FLOOR, color=COLORS["grey"], lw=0.8, ls=":")
    ax.set(xlabel="t (step along the direction)", ylabel="|ΔNLL| (nats per token)")
    ax.set_ylim(_FLOOR / 10, 1e5)
    ax.minorticks_off()
    ax.grid(alpha=0.3)
    legend(ax)
    marker = ax.axvline(1.0, color=COLORS["grey"], ls="--", lw=1)
    dot = ax.plot([1], [1], "o", ms=10, mfc="none", color="black")[0]
    (bold,) = ax.loglog([1], [1], lw=2.5)
    return animate(marker, dot, bold, ax.title)


def _nll_move(artists, t, direction, scale, **_):
    marker, dot, bold, title = artists
    ts, y, curve = _dnll(direction, scale)
    bold.set_data(ts, y)
    bold.set_color(_STYLE[curve][0])
    rec, c, _ = _curve(direction, scale)
    i = int(np.argmin(np.abs(np.log(np.asarray(rec["ts"]) / t))))
    d = c["dnll"][i]
    marker.set_xdata([rec["ts"][i]] * 2)
    dot.set_data([rec["ts"][i]], [max(abs(d), _FLOOR)])
    title.set_text(f"ΔNLL = {d:+.2e} at t = {rec['ts'][i]:g}")


def _fisher_panel(ax, direction, scale, **_):
    """The directional Fisher along the chosen direction, with its fitted slope."""
    rec, c, curve = _curve(direction, scale)
    ts = np.asarray(rec["ts"])
    F = np.clip(np.asarray(c["fisher"]), 1e-40, None)
    col, mk = _STYLE[curve]
    ax.loglog(ts, F, marker=mk, color=col, ms=4, label="F(t) (model's own p)")
    # the legend sits below the axes, outside the region a repaint restores: its entries
    # must not depend on the direction (k̂ goes in the title)
    fit_t, fit = [], []
    if c["k_hat"] is not None and c["fisher"][0] > 1e-20 * rec["curves"]["random_0"]["fisher"][0]:
        small = ts <= 1e-2
        fit_t, fit = ts[small], F[small][0] * (ts[small] / ts[small][0]) ** (2 * (c["k_hat"] - 1))
        ax.set_title(f"{direction}: k̂ = 1 + slope/2 = {c['k_hat']:.3f}", fontsize=9)
    else:
        ax.set_title(f"{direction}: F at float64's floor", fontsize=9)
    ax.loglog(fit_t, fit, "--", color="black", lw=1, label="fit, slope 2(k̂ − 1)")
    ax.set(xlabel="t", ylabel="directional Fisher F(t)")
    ax.set_ylim(1e-40, 1e8)
    ax.minorticks_off()
    ax.grid(alpha=0.3)
    legend(ax)
    return animate(ax.plot([1], [1], "o", ms=10, mfc="none", color="black")[0])[0]


def _fisher_move(dot, t, direction, scale, **_):
    rec, c, _ = _curve(direction, scale)
    i = int(np.argmin(np.abs(np.log(np.asarray(rec["ts"]) / t))))
    dot.set_data([rec["ts"][i]], [max(c["fisher"][i], 1e-40)])


_PANELS = (
    Panel(_nll_panel, key=("scale",), move=_nll_move),
    Panel(_fisher_panel, key=("direction", "scale"), move=_fisher_move),
)

#: The t values the page precomputes (every decade of the walk).
T_VALUES = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)


def draw(fig, t: float = 1.0, direction: str = "flat curve (β compensated)", scale: str = "cpu"):
    """Left: |ΔNLL| along every direction (Whisper-base's decoder; SmolLM2 as the RMSNorm
    control), the chosen one bold and its value at ``t`` marked. Right: the directional
    Fisher along the chosen direction and its k̂. Pure: reads the records only."""
    return Panels(fig.subplots(1, 2), _PANELS, dict(t=t, direction=direction, scale=scale))


def explore(scale: str = "cpu") -> Explore:
    """The chapter's Explore figure: every decade of t x every direction precomputed."""
    from companion.scale import check_scale

    check_scale(scale)
    controls = {
        "t": control(1.0, 1e-4, 100.0, 1.0, log=True, label="step t", values=T_VALUES),
        "direction": control(
            "flat curve (β compensated)", options=tuple(DIRECTIONS), label="direction"
        ),
    }

    def at_scale(fig, **params):
        return draw(fig, scale=scale, **params)

    return explore_figure(
        at_scale, controls, update=Panels.update, grid=("t", "direction"), figsize=(9, 4.8)
    )
