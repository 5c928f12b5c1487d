"""The K-FAC lift of the dead direction (``book/dead_directions/kfac_lift.md``): its sizes, the
Explore figure (the head's Fisher along u v*ᵀ) and the claim ``shirodkar.kfac_lift``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.theory.kfac_lift import categorical_fisher, ln_softmax_head
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "BETA_SCALES", "U_CHOICES", "draw", "explore", "fisher_cases", "readout"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    n: int  # inputs of the softmax head in the chapter's Fisher check (V = 40, d = 24)


SIZES = {
    "cpu": Sizes(n=600),
    "full": Sizes(n=4000),
    "smoke": Sizes(n=100),
}


#: beta scales of the right panel (and of the page's precomputed figures).
BETA_SCALES = (0.0, 0.1, 0.5, 1.0, 2.0)


#: Choices of the head-side vector u (and how the direction is completed).
U_CHOICES = ("random u", "u = 1 (shift gauge)", "random u + bias fix", "tied head, random u")


_FLOOR = 1e-36  # where exact zeros are drawn on the log axis


@lru_cache(maxsize=256)
def _true_fisher(beta_scale: float, u: str, seed: int) -> float:
    # the right panel is the same in every frame: cache it (draw stays a pure function)
    return float(fisher_cases(beta_scale, u, seed=seed)["true Fisher"])


def fisher_cases(
    beta_scale: float = 1.0,
    u: str = "random u",
    *,
    V: int = 20,
    d: int = 16,
    n: int = 300,
    seed: int = 0,
) -> dict:
    """True directional Fisher along the chosen direction and its references, relative to a
    random rank-one direction of the same head; plus the constant ``c`` and K-FAC values."""
    tied = u.startswith("tied")
    head = ln_softmax_head(V, d, n=n, beta_scale=beta_scale, tied=tied, rng=seed)
    g = np.random.default_rng(seed + 1)
    uu = np.ones(V) if u.startswith("u = 1") else g.standard_normal(V)  # (V,)
    a = g.standard_normal(d)
    a /= np.linalg.norm(a)
    ref = head.fisher(np.outer(g.standard_normal(V), a))
    dW = np.outer(uu, head.vstar)  # (V, d) rank one
    db = -head.c * uu if u.endswith("bias fix") else None
    A_c, G = head.kfac_factors(centred=True)
    A_u, _ = head.kfac_factors(centred=False)
    v = head.vstar
    return {
        "true Fisher": head.fisher(dW, db=db) / ref,
        "c² E Var_p(u)": head.c**2 * categorical_fisher(head.logits(), np.tile(uu, (n, 1))) / ref
        if not tied
        else np.nan,
        "K-FAC, centred A": (v @ A_c @ v) * (uu @ G @ uu) / ref,
        "K-FAC, uncentred A": (v @ A_u @ v) * (uu @ G @ uu) / ref,
        "c": head.c,
    }


_CASES = ["true Fisher", "c² E Var_p(u)", "K-FAC, centred A", "K-FAC, uncentred A"]
_COLOURS = [COLORS["sim"], COLORS["theory"], COLORS["alt"], COLORS["paper"]]


@lru_cache(maxsize=256)
def _cases(beta_scale: float, u: str, seed: int) -> dict:
    return fisher_cases(beta_scale, u, seed=seed)


def _bars_panel(ax, **_):
    """The Fisher along u v*ᵀ at this β (log scale, relative to a random direction)."""
    bars = ax.barh(range(4), [1.0] * 4, color=_COLOURS, left=_FLOOR)
    ax.set_xscale("log")
    ax.set_xlim(_FLOOR, 10)
    ax.minorticks_off()
    ax.axvline(1.0, color=COLORS["grey"], ls=":", lw=1)
    ax.set_yticks(range(4), _CASES)
    ax.set(xlabel="Fisher / Fisher of a random rank-one direction")
    missing = [ax.text(1e-30, i, "n/a (tied head)", va="center") for i in range(4)]
    return animate(*bars.patches, *missing, ax.title), bars.patches, missing


def _bars_move(artists, beta_scale, u, seed, **_):
    _, bars, missing = artists
    cases = _cases(float(beta_scale), u, int(seed))
    for bar, note, name in zip(bars, missing, _CASES, strict=True):
        x = cases[name]
        bar.set_width(max(abs(x), _FLOOR) if np.isfinite(x) else _FLOOR)
        note.set_visible(not np.isfinite(x))
    bars[0].axes.set_title(f"{u}, β scale {beta_scale:g} (c = {cases['c']:.3f})")


def _beta_panel(ax, seed, **_):
    """The true Fisher against the β scale for every choice of u."""
    for uc, col, mk in zip(U_CHOICES, _COLOURS, "osD^", strict=True):
        ys = [max(abs(_true_fisher(float(b), uc, int(seed))), _FLOOR) for b in BETA_SCALES]
        ax.plot(BETA_SCALES, ys, marker=mk, color=col, label=uc, lw=1.5)
    ax.set(yscale="log", ylim=(_FLOOR / 10, 10), xlabel="β scale", ylabel="true Fisher (relative)")
    ax.minorticks_off()
    ax.set_title("dead iff c = 0, u ∝ 1, or compensated")
    legend(ax)
    ax.grid(alpha=0.3)
    return animate(ax.axvline(1.0, color=COLORS["grey"], ls=":", lw=1))[0]


def _mark(line, beta_scale, **_):
    line.set_xdata([beta_scale, beta_scale])


_PANELS = (
    Panel(_bars_panel, move=_bars_move),
    Panel(_beta_panel, key=("seed",), move=_mark),
)


def draw(fig, beta_scale: float = 1.0, u: str = "random u", seed: int = 0):
    """Left: the Fisher along u v*^T at this beta (log scale, relative to a random direction).
    Right: the true Fisher against the beta scale for every choice of u.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(beta_scale=beta_scale, u=u, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def _rel(x: float) -> str:
    return "n/a (tied head)" if not np.isfinite(x) else f"{x:.2e}"


def readout(beta_scale: float = 1.0, u: str = "random u", seed: int = 0) -> str:
    """The sentence under the Explore figure: the four bars' values at this β and u."""
    cases = _cases(float(beta_scale), u, int(seed))
    values = "; ".join(f"{name} {_rel(cases[name])}" for name in _CASES)
    return (
        f"{u}, β scale {beta_scale:g}: c = {cases['c']:.3f}; Fisher along u v*ᵀ relative to "
        f"a random rank-one direction: {values}."
    )


def explore() -> Explore:
    """The chapter's Explore figure: every β scale x choice of u precomputed; its readout
    states the four bars' values at the setting."""
    controls = {
        "beta_scale": control(1.0, 0.0, 2.0, 0.05, label="β scale", values=BETA_SCALES),
        "u": control("random u", options=U_CHOICES, label="choice of u"),
    }
    return explore_figure(
        draw,
        controls,
        update=Panels.update,
        grid=("beta_scale", "u"),
        figsize=(8, 4.4),
        readout=readout,
    )
