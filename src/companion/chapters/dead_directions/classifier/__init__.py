"""The kernel classifies the norm (``book/dead_directions/classifier.md``): its sizes, the Explore
figure (verdicts against precision and width) and the claim ``shirodkar.null_cos``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.theory.ln_kernel import normalised_activations, sample_gamma, sample_inputs
from companion.theory.null_classifier import classify_norm, random_direction_null, simulate_null_cos
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "PRECISIONS_SWEEP", "draw", "explore", "synthetic_verdicts"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    null_samples: int  # Monte Carlo directions per width of the chapter's null check
    d: int  # width of the chapter's synthetic classifier sweep
    n: int  # input rows there
    claim_d: int  # width of the claim's Monte Carlo check of E|cos|
    claim_samples: int


SIZES = {
    "cpu": Sizes(null_samples=10_000, d=64, n=640, claim_d=768, claim_samples=20_000),
    "full": Sizes(null_samples=100_000, d=256, n=4096, claim_d=4096, claim_samples=100_000),
    "smoke": Sizes(null_samples=500, d=16, n=160, claim_d=64, claim_samples=500),
}


#: The precisions of the activations offered by the Explore figure.
PRECISIONS_SWEEP = ("float64", "float32", "float16", "bfloat16")


_SIGMAS = (0.0, 1.5, 3.0)


_DISTS = ("gaussian", "student_t", "offset")


def synthetic_verdicts(precision="float32", *, d=48, n_ratio=10, seed=0):
    """Classify synthetic LN and RMS layers over gamma spreads and input distributions.

    Returns a list of ``(norm, sigma, dist, NormVerdict)``.
    """
    rng = np.random.default_rng(seed)
    out = []
    for dist in _DISTS:
        for sigma in _SIGMAS:
            x = sample_inputs(n_ratio * d, d, dist, rng=rng)  # (n, d)
            g = sample_gamma(d, sigma, rng=rng)
            b = rng.standard_normal(d)
            for norm in ("layernorm", "rmsnorm"):
                Y = normalised_activations(
                    x, g, b if norm == "layernorm" else None, norm=norm, precision=precision
                )
                out.append((norm, sigma, dist, classify_norm(g, Y, dtype=precision)))
    return out


@lru_cache(maxsize=8)
def _verdicts(precision: str, seed: int):
    return synthetic_verdicts(precision, seed=seed)


@lru_cache(maxsize=16)
def _null_sample(d: int, samples: int, seed: int):
    return simulate_null_cos(d, samples=samples, rng=seed)["cos"]


#: Where the null panel's x axis ends, in units of 1/√d (√d |cos| tends to |N(0, 1)|).
_SCALED_MAX = 4.5


def _null_panel(ax, **_):
    """|cos| of random directions at width d against the exact Beta law and its quantiles,
    on the scale √d |cos| that holds every width (drawn once, moved by :func:`_null_move`)."""
    hist = ax.stairs(
        [0.0],
        [0.0, _SCALED_MAX],
        fill=True,
        color=COLORS["sim"],
        alpha=0.6,
        label="random directions",
    )
    s = np.linspace(0, _SCALED_MAX, 300)
    (law,) = ax.plot(
        s, np.zeros_like(s), color=COLORS["theory"], lw=2, label="exact: cos² ~ Beta(½, (d−1)/2)"
    )
    q99 = ax.axvline(1, color="k", ls="--", lw=1, label="99 % quantile")
    q999 = ax.axvline(1, color="k", ls=":", lw=1, label="99.9 % quantile")
    ax.set(xlim=(0, _SCALED_MAX), ylim=(0, 1.0), xlabel="√d · |cos(u, v*)|", ylabel="density")
    legend(ax)
    return animate(hist, law, q99, q999, ax.title)


def _null_move(artists, d, samples, seed, **_):
    hist, law, q99, q999, title = artists
    nd, root = random_direction_null(d), np.sqrt(d)
    cos = _null_sample(int(d), int(samples), int(seed))
    density, edges = np.histogram(root * cos, bins=40, range=(0, _SCALED_MAX), density=True)
    hist.set_data(density, edges)
    law.set_ydata(nd.pdf(law.get_xdata() / root) / root)
    q99.set_xdata([root * nd.q99] * 2)
    q999.set_xdata([root * nd.q999] * 2)
    title.set_text(f"d = {d}: 99 % of |cos| < {nd.q99:.3f}, 99.9 % < {nd.q999:.3f}")


_CASES = len(_DISTS) * len(_SIGMAS)
_TITLES = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm"}
_NORMS = {"layernorm": ("o", COLORS["theory"], -0.15), "rmsnorm": ("s", COLORS["sim"], 0.15)}


def _verdict_panel(ax, **_):
    """The classifier's statistic for synthetic LN and RMS layers, with each case's
    thresholds; black marks a wrong verdict (fixed axes: moved by _verdict_move)."""
    points, thresholds = {}, {}
    for norm, (mk, col, off) in _NORMS.items():
        points[norm] = ax.scatter(np.arange(_CASES) + off, np.ones(_CASES), marker=mk, s=30)
        ax.scatter([], [], marker=mk, s=30, color=col, label=f"true {_TITLES[norm]}")  # legend
    for norm, label in (
        ("layernorm", "LN threshold (100 × floor)"),
        ("rmsnorm", "RMS threshold (10 × LN)"),
    ):
        thresholds[norm] = ax.hlines(
            np.ones(_CASES),
            np.arange(_CASES) - 0.4,
            np.arange(_CASES) + 0.4,
            color=_NORMS[norm][1],
            ls="--",
            lw=1,
            label=label,
        )
    ax.set(
        yscale="log",
        ylim=(1e-22, 1e2),
        xlim=(-0.6, _CASES - 0.4),
        xticks=range(_CASES),
        xticklabels=[f"{s:g}" for _ in _DISTS for s in _SIGMAS],
        xlabel="γ spread σ (Gaussian | Student-t | offset inputs)",
        ylabel="v*ᵀCv* / Σ v*_i² C_ii",
    )
    ax.minorticks_off()
    legend(ax)
    ax.grid(alpha=0.3)
    return animate(*points.values(), *thresholds.values(), ax.title), points, thresholds


def _verdict_move(artists, precision, seed, **_):
    _, points, thresholds = artists
    res = _verdicts(precision, int(seed))
    for norm, (_, col, off) in _NORMS.items():
        mine = [v for n, _, _, v in res if n == norm]
        k = np.arange(_CASES)
        y = [max(abs(v.statistic), 1e-22) for v in mine]
        points[norm].set_offsets(np.column_stack([k + off, y]))
        points[norm].set_facecolors([col if v.verdict == norm else "k" for v in mine])
        points[norm].set_edgecolors("face")
    ln = [v for n, _, _, v in res if n == "layernorm"]  # thresholds depend on the case
    for norm in ("layernorm", "rmsnorm"):
        level = [v.threshold_layernorm if norm == "layernorm" else v.threshold_rmsnorm for v in ln]
        thresholds[norm].set_segments([[(k - 0.4, t), (k + 0.4, t)] for k, t in enumerate(level)])
    wrong = sum(v.verdict != n for n, _, _, v in res)
    points["layernorm"].axes.set_title(
        f"{precision}: {len(res) - wrong}/{len(res)} classified correctly\n(black = wrong)"
    )


_PANELS = (
    Panel(_null_panel, move=_null_move),
    Panel(_verdict_panel, move=_verdict_move),
)


def draw(fig, d: int = 768, precision: str = "float32", samples: int = 4000, seed: int = 0):
    """Left: |cos| of random directions at width d against the exact Beta law.
    Right: the classifier's statistic for synthetic LN and RMS layers at ``precision``.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(d=d, precision=precision, samples=samples, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def explore() -> Explore:
    """The chapter's Explore figure: every width x precision precomputed."""
    controls = {
        "d": control(768, 64, 4096, 64, label="width d", values=(64, 256, 768, 2048, 4096)),
        "precision": control("float32", options=PRECISIONS_SWEEP, label="activations"),
    }
    return explore_figure(
        draw, controls, update=Panels.update, grid=("d", "precision"), figsize=(8, 4.8)
    )
