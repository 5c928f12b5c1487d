"""The Schur ratio and its random-matrix baseline (``book/dead_directions/schur_ratio.md``): its
sizes, the Explore figure and the claim ``shirodkar.schur_baseline``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import stats as st

from companion.chapters import docname
from companion.claims import Claim, Measurement, register
from companion.plotting import COLORS, legend, set_errorbar
from companion.stats import mean_estimate
from companion.theory import schur_ratio as sr
from companion.theory.schur_ratio import mp_baseline, schur_ratios_coordinates, simulate_schur_ratio
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "PLAYER_RATIOS", "RATIOS", "draw", "explore"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    trials: int  # sample covariances per N/d in the chapter's check (d = 32)


SIZES = {
    "cpu": Sizes(trials=100),
    "full": Sizes(trials=400),
    "smoke": Sizes(trials=10),
}


#: Sample-to-width ratios N/d of the right panel.
RATIOS = (1.5, 2, 3, 4, 6, 8, 16, 32)


#: N/d values precomputed for the page.
PLAYER_RATIOS = (1.5, 2.0, 4.0, 8.0, 32.0)


def _samples(ratio, d):
    return max(d + 2, int(round(ratio * d)))


@lru_cache(maxsize=64)
def _ratios(ratio: float, d: int, trials: int, seed: int):
    """R(e_i) over the axes of ``trials`` centred Gaussian sample covariances at N/d."""
    g = np.random.default_rng(seed)
    N = _samples(ratio, d)
    Rs = []
    for _ in range(trials):
        X = g.standard_normal((N, d))  # (N, d)
        X -= X.mean(axis=0)
        Rs.append(schur_ratios_coordinates(X.T @ X))
    return np.concatenate(Rs)


@lru_cache(maxsize=32)
def _means(d: int, seed: int):
    """Mean R ± SE at every N/d of the right panel."""
    g = np.random.default_rng(seed + 1)
    return tuple(simulate_schur_ratio(d, _samples(r, d), trials=8, rng=g) for r in RATIOS)


def _law_panel(ax, **_):
    """R(e_i) over axes and trials at this N/d, with the exact Beta law: drawn once, moved
    by :func:`_law_move` (R lies in [0, 1]; the density axis has no numbers, so that a new
    setting only rescales it)."""
    hist = ax.stairs(
        [0.0], [0.0, 1.0], fill=True, color=COLORS["sim"], alpha=0.7, label="R(e_i), simulated"
    )
    (law,) = ax.plot(
        _X, np.zeros_like(_X), color=COLORS["theory"], lw=2, label="Beta((N−d)/2, (d−1)/2)"
    )
    base = ax.axvline(0.5, color=COLORS["alt"], ls="--", label="1 − d/N")
    ax.set(xlim=(0, 1), xlabel="R(h)", ylabel="density")
    ax.set_yticks([])
    legend(ax, ncols=1)
    return animate(hist, law, base, ax.title)


def _law_move(artists, ratio, d, trials, seed, **_):
    hist, law, base, title = artists
    Rs = _ratios(float(ratio), int(d), int(trials), int(seed))
    N = _samples(ratio, d)
    density, edges = np.histogram(Rs, bins=30, density=True)
    pdf = st.beta.pdf(_X, (N - d) / 2, (d - 1) / 2)
    hist.set_data(density, edges)
    law.set_ydata(pdf)
    hist.axes.set_ylim(0, 1.08 * max(density.max(), pdf.max()))
    base.set_xdata([1 - d / N] * 2)
    title.set_text(f"d = {d}, N = {N}: 1 − d/N = {1 - d / N:.3f}  (Δγ ≈ d/N)")


_X = np.linspace(1e-3, 1 - 1e-3, 300)


def _mean_panel(ax, **_):
    """Mean R ± 2 SE against N/d, the exact mean and the MP baseline 1 − d/N."""
    grid = np.geomspace(RATIOS[0], RATIOS[-1], 100)
    (exact,) = ax.plot(grid, grid, color=COLORS["theory"], lw=2, label="exact (N−d)/(N−1)")
    ax.plot(grid, 1 - 1 / grid, color=COLORS["alt"], ls="--", label="MP baseline 1 − d/N")
    sims = ax.errorbar(
        RATIOS,
        np.ones(len(RATIOS)),
        yerr=np.zeros(len(RATIOS)),
        fmt="o",
        ms=4,
        color=COLORS["sim"],
        capsize=3,
        label="simulation ± 2 SE",
    )
    ax.set(
        xscale="log",
        ylim=(0.25, 1.02),
        xlabel="N / d",
        ylabel="E R(h)",
        title="isotropic null of the Schur ratio",
    )
    ax.set_xticks(RATIOS, [f"{r:g}" for r in RATIOS])
    ax.minorticks_off()
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    mark = ax.axvline(RATIOS[0], color=COLORS["grey"], ls=":", lw=1)
    return animate(exact, sims, mark), exact, sims, mark


def _mean_move(artists, ratio, d, seed, **_):
    _, exact, sims, mark = artists
    grid = exact.get_xdata()
    exact.set_ydata([mp_baseline(d, int(round(r * d))) for r in grid])
    ests = _means(int(d), int(seed))
    set_errorbar(sims, RATIOS, [e.value for e in ests], [2 * e.stderr for e in ests])
    mark.set_xdata([ratio, ratio])


_PANELS = (
    Panel(_law_panel, move=_law_move),
    Panel(_mean_panel, move=_mean_move),
)


def draw(fig, ratio: float = 4.0, d: int = 32, trials: int = 20, seed: int = 0):
    """Left: R(e_i) over axes and trials at this N/d, with the exact Beta law.
    Right: mean R +- 2 SE against N/d, the exact mean and the MP baseline 1 - d/N.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(ratio=ratio, d=d, trials=trials, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def explore() -> Explore:
    """The chapter's Explore figure: every N/d x width precomputed."""
    controls = {
        "ratio": control(4.0, 1.5, 32.0, 0.5, label="N / d", values=PLAYER_RATIOS),
        "d": control(32, 8, 64, 8, label="width d", values=(8, 16, 32, 64)),
    }
    return explore_figure(
        draw, controls, update=Panels.update, grid=("ratio", "d"), figsize=(8, 4.4)
    )


# ----------------------------------------------------------------------------- claims

_SEED = 20260619


def _schur(scale: str = "cpu", full: bool = False) -> Measurement:
    d = 32
    ests = []
    for ratio in (2, 4, 16):
        N = ratio * d
        est = sr.simulate_schur_ratio(d, N, trials=SIZES[scale].trials, rng=_SEED + ratio)
        ests.append((N, est, sr.mp_baseline(d, N), sr.mp_baseline(d, N, exact=False)))
    ok = all(e.agrees_with(ex) for _, e, ex, _ in ests)
    N, e, ex, mp = ests[1]
    return Measurement(
        value=e.value,
        stderr=e.stderr,
        agrees=bool(ok),
        reason=""
        if ok
        else "a simulated mean Schur ratio is more than 4 SE from the exact Beta mean",
        detail=(
            f"isotropic Gaussian, d = {d}: "
            + "; ".join(
                f"N/d = {n // d}: R = {est:.4f} vs exact (N−d)/(N−1) = {x:.4f} "
                f"(1 − d/N = {m:.4f}, z = {est.z(x):+.1f})"
                for n, est, x, m in ests
            )
        ),
    )


def _schur_control(scale: str = "cpu", full: bool = False) -> Measurement:
    d, N, trials = 32, 128, SIZES[scale].trials
    g = np.random.default_rng(_SEED + 7)
    vals = np.empty(trials)
    for t in range(trials):
        X = g.standard_normal((N, d))  # (N, d)
        X[:, 0] = X[:, 1:] @ g.standard_normal(d - 1) / np.sqrt(d) + 1e-3 * X[:, 0]  # dead axis
        X -= X.mean(axis=0)
        vals[t] = sr.schur_ratio(X.T @ X, np.eye(d)[0])
    est = mean_estimate(vals)
    ex = sr.mp_baseline(d, N)
    return Measurement(
        value=est.value,
        stderr=est.stderr,
        agrees=est.agrees_with(ex),
        detail=f"d = {d}, N = {N}: R along an axis made a linear combination of the others "
        f"(+1e-3 noise): {est:.2e} against (N−d)/(N−1) = {ex:.4f}, i.e. Δγ ≈ 1",
    )


register(
    Claim(
        id="shirodkar.schur_baseline",
        paper="shirodkar",
        statement=(
            "Our reconstruction of the Schur ratio, R(h) = 1/(Σ_hh (Σ⁻¹)_hh), has mean "
            "(N − d)/(N − 1) ≈ 1 − d/N on isotropic Gaussian data, so Δγ = 1 − R ≈ d/N is its "
            "random-matrix baseline (the paper's formula is not available)."
        ),
        paper_value="Δγ ≈ 0–0.3 at random init, → 1 trained (secondary summaries; formula not "
        "available)",
        method=(
            "R(h) on sample covariances of N(0, I_d) data, averaged over axes and trials, "
            "against the exact Beta mean (N − d)/(N − 1)"
        ),
        tolerance="within 4 standard errors at N/d = 2, 4, 16",
        provenance=("secondary", "reconstruction"),
        measure=_schur,
        evidence="simulation",
        control=_schur_control,
        control_method="R along a dead axis (a linear combination of the others) in place of "
        "an isotropic one",
        chapter=CHAPTER,
    )
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "def-schur-ratio",
    "steps": ("The caveat",),
    "punchline": "shirodkar.schur_baseline",
    "exercise": "ex-schur-coord",
}
