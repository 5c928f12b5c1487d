"""Multi-layer compounding (``book/sign_magnitude/multilayer.md``): its sizes, the Explore figure
(C_L against depth and the conjecture) and the claim ``dong.multilayer.no_compounding``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend, set_errorbar
from companion.tables import Table, pm, table
from companion.theory import multilayer as ml
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = [
    "SIZES",
    "DEPTHS",
    "FLIP_RATES",
    "MAX_DEPTH",
    "chain",
    "draw",
    "energies_table",
    "explore",
    "first_layer_table",
    "fits_table",
    "injection_table",
    "readout",
    "readouts_table",
    "table3",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    m: int  # width of every layer of the V2/V3 chains
    seeds: int  # independent chains
    samples: int  # sphere samples per seed in the chapter's runs
    claim_samples: int  # sphere samples per seed in the claim (the author: 10,000)
    expb_model: str = "smollm2-135m"  # Exp B's trained weights (the author: TinyLlama)
    expb_layers: tuple = (8, 9, 10, 11, 12, 13)
    expb_m: int = 576  # the i.i.d. baseline's width when no trained chain sets it
    expb_samples: int = 2000
    expb_seeds: int = 10


SIZES = {
    "cpu": Sizes(m=256, seeds=5, samples=300, claim_samples=400),
    "full": Sizes(
        m=2048,
        seeds=20,
        samples=500,
        claim_samples=10000,
        expb_model="tinyllama-1.1b",
        expb_m=2048,
        expb_samples=10000,
    ),  # fmt: skip
    "smoke": Sizes(
        m=16,
        seeds=2,
        samples=20,
        claim_samples=20,
        expb_model="tinyllama-1.1b",
        expb_layers=(0,) * 6,
        expb_m=32,
        expb_samples=20,
        expb_seeds=2,
    ),  # fmt: skip
}


#: Depths precomputed for the page.
DEPTHS = (1, 2, 3, 4, 5, 6)


MAX_DEPTH = 6


#: Flip rates offered by the Explore figure (the author's three and two more).
FLIP_RATES = (0.005, 0.01, 0.02, 0.05, 0.1)


@lru_cache(maxsize=64)
def chain(variant: str, activation: str, p: float, m: int, samples: int, seeds: int, seed: int):
    """One cached 6-layer simulation: the depth slider only truncates it, so moving it is cheap."""
    return ml.simulate_chain(
        variant, activation, p, m, MAX_DEPTH, samples=samples, seeds=seeds, rng=seed
    )


#: The three series of the left panel: (variant, readout or None, marker style, colour, label).
_SERIES = (
    ("V2", None, "o-", "sim", "V2, normalised (author's reading)"),
    ("V2", "prenorm", "s:", "alt", "V2, first order (pre-norm)"),
    ("V3", None, "^-", "theory", "V3, pre-norm residual"),
)


def _chains(p, activation, m, samples, seeds, seed, depth, **_):
    args = (activation, float(p), int(m), int(samples), int(seeds), int(seed))
    return chain("V2", *args).upto(depth), chain("V3", *args).upto(depth)


def _depth_panel(ax, **_):
    """C_L (log scale) for L <= depth: ours +- 2 SE, the author's, the conjecture."""
    from matplotlib.ticker import NullLocator  # here: the claims need no matplotlib

    grid = np.linspace(0.8, MAX_DEPTH + 0.2, 50)
    ax.plot(
        grid,
        ml.compounding_prediction(grid),
        color=COLORS["grey"],
        ls="--",
        lw=1.5,
        label=r"conjecture $(\pi/(\pi-2))^{L}$",
    )
    series = [
        ax.errorbar([1], [1], yerr=[0], fmt=fmt, color=COLORS[c], capsize=3, ms=5, label=label)
        for _, _, fmt, c, label in _SERIES
    ]
    authors = [
        ax.plot([], [], mk, mfc="none", mec=COLORS["paper"], ms=9, mew=1.5, label=label)[0]
        for mk, label in (("o", "author's JSON, m = 512"), ("^", None))
    ]
    (stars,) = ax.plot([], [], "k*", ms=8, label="closed form, L = 1 (m = ∞)")
    ax.set(
        yscale="log",
        xlim=(0.6, MAX_DEPTH + 0.4),
        ylim=(0.9, 500),
        xlabel="depth L",
        ylabel=r"$C_L = \sum T_\mathrm{sign} / \sum T_\mathrm{mag}$",
    )
    legend(ax)
    ax.grid(alpha=0.3)
    ax.yaxis.set_minor_locator(NullLocator())  # unlabelled minor ticks cost most of a redraw
    return animate(*series, *authors, stars, ax.title), series, authors, stars


def _depth_move(artists, depth, p, activation, m, samples, seeds, **kw):
    _, series, authors, stars = artists
    v2, v3 = _chains(p, activation, m, samples, seeds, depth=depth, **kw)
    L = np.arange(1, depth + 1)
    for eb, (variant, readout, *_) in zip(series, _SERIES, strict=True):
        res = v2 if variant == "V2" else v3
        ests = res.ratios(readout) if readout else res.ratio
        set_errorbar(eb, L, [e.value for e in ests], [2 * e.stderr for e in ests])
    for line, variant in zip(authors, ("V2", "V3"), strict=True):
        ref = ml.author_table3(variant, activation, 512, p)
        line.set_data((L, ref[:depth]) if ref is not None else ([], []))
    ones = [
        ml.first_layer_ratio(variant, activation, p, readout=readout)
        for variant, readout in (("V2", "normalised"), ("V2", "prenorm"), ("V3", "prenorm"))
    ]
    stars.set_data([1, 1, 1], ones)
    axes = stars.axes
    name = {"relu": "ReLU", "silu": "SiLU"}.get(activation, activation)
    axes.set_title(f"{name}, p = {p:g}, m = {m}, {seeds} seeds × {samples}")


_FITS = (("V2 norm.", "sim"), ("V2 first", "alt"), ("V3", "theory"))


def _slope_panel(ax, depth, **_):
    """The free-intercept slope beta (jackknife +- 2 SE) against the conjecture's (0, 1]."""
    if depth < 2:
        ax.text(
            0.5,
            0.5,
            "a slope needs\nat least 2 depths",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
        ax.set_axis_off()
        return None
    ax.set_axis_on()
    ax.axhspan(0, 1, color=COLORS["grey"], alpha=0.12, label=r"conjecture: $\beta \in (0, 1]$")
    ax.axhline(0, color="k", lw=0.8)
    points = [
        ax.errorbar(
            [i],
            [0],
            yerr=[0],
            fmt="o",
            color=COLORS[c],
            capsize=4,
            label="free-intercept β" if i == 0 else None,
        )
        for i, (_, c) in enumerate(_FITS)
    ]
    crosses = [
        ax.plot([i], [0], "x", color=COLORS[c], ms=8, label="through-origin β" if i == 0 else None)[
            0
        ]
        for i, (_, c) in enumerate(_FITS)
    ]
    ax.set_xticks(range(3), [name for name, _ in _FITS])
    ax.set(xlim=(-0.5, 2.5), ylim=(-0.4, 1.1), ylabel=r"fitted $\beta$")
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    return animate(*points, *crosses, ax.title), points, crosses


def _slope_move(artists, depth, p, activation, m, samples, seeds, **kw):
    if artists is None:
        return
    _, points, crosses = artists
    v2, v3 = _chains(p, activation, m, samples, seeds, depth=depth, **kw)
    fits = [
        ml.fit_compounding(v2),
        ml.fit_compounding(v2, readout="prenorm"),
        ml.fit_compounding(v3),
    ]
    for i, (eb, cross, fit) in enumerate(zip(points, crosses, fits, strict=True)):
        set_errorbar(eb, [i], [fit.beta_free], [2 * fit.beta_free_se])
        cross.set_ydata([fit.beta_origin])
    cross.axes.set_title(f"fits over L = 1…{depth}")


_PANELS = (
    Panel(_depth_panel, move=_depth_move),
    Panel(_slope_panel, key=lambda p: p["depth"] >= 2, move=_slope_move),
)


def draw(
    fig,
    depth: int = 6,
    p: float = 0.01,
    activation: str = "relu",
    m: int = 128,
    samples: int = 300,
    seeds: int = 4,
    seed: int = 0,
):
    """Left: C_L (log scale) for L <= depth, ours +- 2 SE, the author's, and the conjecture.
    Right: the free-intercept slope beta (jackknife +- 2 SE) against the conjecture's (0, 1].
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    axes = fig.subplots(1, 2, width_ratios=[1.6, 1])
    params = dict(
        depth=depth, p=p, activation=activation, m=m, samples=samples, seeds=seeds, seed=seed
    )
    return Panels(axes, _PANELS, params)


def readout(
    depth: int = 6,
    p: float = 0.01,
    activation: str = "relu",
    m: int = 128,
    samples: int = 300,
    seeds: int = 4,
    seed: int = 0,
) -> str:
    """The sentence under the Explore figure: C_L at the deepest depth shown for the three
    series (± SE), the conjecture's and the author's there, and the fitted slopes."""
    v2, v3 = _chains(p, activation, m, samples, seeds, seed, depth)
    name = {"relu": "ReLU", "silu": "SiLU"}.get(activation, activation)
    ours = []
    labels = ("V2 normalised", "V2 first order", "V3")
    for (variant, how, *_), label in zip(_SERIES, labels, strict=True):
        res = v2 if variant == "V2" else v3
        e = (res.ratios(how) if how else res.ratio)[-1]
        ours.append(f"{label} {e.value:.3g} ± {e.stderr:.2g}")
    text = (
        f"{name}, p = {p:g}, m = {m}: at L = {depth}, C_L = " + ", ".join(ours)
        + f"; conjecture {float(ml.compounding_prediction(depth)):.3g}"
    )  # fmt: skip
    author = [
        f"{v} {ref[depth - 1]:.3g}"
        for v in ("V2", "V3")
        if (ref := ml.author_table3(v, activation, 512, p)) is not None
    ]
    if author:
        text += "; author's (m = 512) " + ", ".join(author)
    if depth >= 2:
        fits = (ml.fit_compounding(v2), ml.fit_compounding(v2, readout="prenorm"))
        fits += (ml.fit_compounding(v3),)
        betas = [
            f"{label} {f.beta_free:.3f} ± {f.beta_free_se:.3f}"
            for (label, _), f in zip(_FITS, fits, strict=True)
        ]
        text += f". Free-intercept β over L = 1…{depth}: " + ", ".join(betas)
    return text + "."


def explore() -> Explore:
    """The chapter's Explore figure: depth x flip rate for ReLU, and SiLU at the defaults;
    its readout states C_L and the fitted slopes at the setting."""
    controls = {
        "depth": control(6, 1, 6, 1, label="depth L", values=DEPTHS),
        "p": control(0.01, options=FLIP_RATES, label="flip rate p"),
        "activation": control(
            "relu", options=(("ReLU", "relu"), ("SiLU", "silu")), label="activation"
        ),
    }
    return explore_figure(
        draw,
        controls,
        update=Panels.update,
        grid=("depth", "p"),
        figsize=(8, 4.8),
        readout=readout,
    )


def first_layer_table(ps=(0.01, 0.05)) -> Table:
    """C_1 of every chain at infinite width (closed form) beside the author's stored C_1."""
    rows = []
    for variant in ml.VARIANTS:
        for act in ml.ACTIVATIONS:
            for p in ps:
                a512, a2048 = (ml.author_table3(variant, act, m, p) for m in (512, 2048))
                rows.append(
                    {
                        "variant": variant,
                        "activation": act,
                        "p": f"{p:g}",
                        "closed form (m = ∞)": ml.first_layer_ratio(variant, act, p),
                        "author, m = 512": a512[0] if a512 else None,
                        "author, m = 2048": a2048[0] if a2048 else None,
                    }
                )
    numbers = ("closed form (m = ∞)", "author, m = 512", "author, m = 2048")
    return table(rows, formats=dict.fromkeys(numbers, "{:.3f}"))


def energies_table(res) -> Table:
    """Summed transverse energies per sample of one chain, depth by depth, and their ratio."""
    e_sign, e_mag = res.energies()
    rows = [
        {"L": L, "T_sign / sample": s, "T_mag / sample": g, "ratio": s / g}
        for L, (s, g) in enumerate(zip(e_sign, e_mag, strict=True), 1)
    ]
    fmt = {"T_sign / sample": "{:.4f}", "T_mag / sample": "{:.4f}", "ratio": "{:.3f}"}
    return table(rows, formats=fmt)


def readouts_table(chains: dict) -> Table:
    """C_L by readout when only W_1 is perturbed (``chains``: variant -> chain result)."""
    rows = [
        {"chain": v, "readout": r, **{f"L = {L}": e.value for L, e in enumerate(res.ratios(r), 1)}}
        for v, res in chains.items()
        for r in ml.READOUTS
    ]
    return table(rows, formats={f"L = {L}": "{:.3f}" for L in range(1, MAX_DEPTH + 1)})


def table3(runs: dict, p: float = 0.01) -> Table:
    """Table 3: C_L against depth, ours ± SE beside the author's stored values, for every
    chain (``runs``: (variant, activation) -> chain result at this p)."""
    rows = []
    for (v, act), res in runs.items():
        refs = {w: ml.author_table3(v, act, w, p) for w in (512, 2048)}
        series = [("ours", [pm(e) for e in res.ratio])]
        if v == "V2":
            series.append(("ours, first order", [pm(e) for e in res.ratios("prenorm")]))
        series += [(f"author, m = {w}", ref) for w, ref in refs.items() if ref]
        for who, values in series:
            row = {"chain": f"{v} {act}", "": who}
            row.update({f"L = {L}": x for L, x in enumerate(values, 1)})
            rows.append(row)
    return table(rows, formats={f"L = {L}": "{:.3f}" for L in range(1, MAX_DEPTH + 1)})


def fits_table(fits: dict, p: float = 0.01) -> Table:
    """The conjecture's slope fitted both ways, ours beside the author's (m = 512)."""
    rows = []
    for (v, act), fit in fits.items():
        b0, r2, bf = ml.AUTHOR_BETA_FITS[v, act, 512, p]
        rows.append(
            {
                "chain": f"{v} {act}",
                "β through the origin (R²)": f"{fit.beta_origin:.3f} ({fit.r2_origin:.2f})",
                "β, free intercept": pm(fit.estimate("free")),
                "author: β origin (R²)": f"{b0:.3f} ({r2:.2f})",
                "author: β free": f"{bf:+.3f}",
            }
        )
    notes = (
        f"The conjecture with β = 1: C_2 = {ml.compounding_prediction(2):.2f}, "
        f"C_6 = {ml.compounding_prediction(6):.0f}."
    )
    return table(rows, notes=notes)


def injection_table(runs: dict, fits: dict, beta: float = 0.19) -> Table:
    """The fit's negative control: each chain's free slope as measured and with compounding
    at ``beta`` injected into the same runs."""
    rows = [
        {
            "chain": f"{v} {act}",
            "measured β_free": pm(fits[v, act].estimate("free")),
            f"β = {beta:g} injected": pm(
                ml.fit_compounding(ml.inject_compounding(res, beta)).estimate("free")
            ),
        }
        for (v, act), res in runs.items()
    ]
    return table(rows)
