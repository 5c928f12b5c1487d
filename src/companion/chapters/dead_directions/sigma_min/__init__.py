"""σ_min of the residual stream (``book/dead_directions/sigma_min.md``): its sizes, the Explore
figure (the σ_min profile of the toy residual network) and the claims
``shirodkar.sigma_min_residual`` and ``shirodkar.post_ln_sigma_min_zero``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from companion.chapters import docname
from companion.plotting import COLORS, legend
from companion.theory.ln_kernel import sample_gamma
from companion.theory.norms import layernorm
from companion.theory.sigma_min import cancellation_bound, residual_toy, sigma_min_profile
from companion.widgets import Explore, Panel, Panels, animate, control
from companion.widgets import explore as explore_figure

__all__ = ["SIZES", "CANCELS", "MAX_DEPTH", "draw", "explore", "readout"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    d: int  # width of the toy residual network (chapter check and claim)
    depth: int  # blocks
    n: int  # samples (rows of X)


SIZES = {
    "cpu": Sizes(d=32, depth=12, n=256),
    # the chapter's full size; the claim used (64, 24, 1024) before both read this entry
    "full": Sizes(d=128, depth=24, n=2048),
    "smoke": Sizes(d=8, depth=4, n=32),
}


#: Cancellation strengths precomputed for the page.
CANCELS = (0.0, 0.25, 0.5, 0.75, 1.0)

#: The deepest toy network of the Explore figure: a shallower one is its first blocks (the
#: toy draws block by block), so each setting is simulated once and the depth slider cuts it.
MAX_DEPTH = 24

_FLOOR = 1e-17


@lru_cache(maxsize=64)
def _toy(d: int, depth: int, n: int, cancel: float, seed: int):
    return residual_toy(d, depth, n=n, cancel=cancel, rng=seed)


@lru_cache(maxsize=64)
def _profiles(d: int, n: int, cancel: float, seed: int):
    """Every curve of the figure for the deepest toy (block 0..MAX_DEPTH)."""
    toy = _toy(d, MAX_DEPTH, n, cancel, seed)
    g = np.random.default_rng(seed + 7)
    gamma, beta = sample_gamma(d, 0.5, rng=g), g.standard_normal(d)
    post = [layernorm(X, gamma, beta) for X in toy.states]  # post-LN nodes
    pre_c = sigma_min_profile(toy.states, centred=True)
    post_c = sigma_min_profile([toy.states[0]] + post, centred=True)  # X_0 only normalises
    return {
        "ratio": sigma_min_profile(toy.states).ratio,
        "ceiling": cancellation_bound(toy, cancel),
        "pairing": toy.branch_pairing,
        "pre": pre_c.sigma_min / pre_c.sigma_max,
        "post": post_c.sigma_min[1:] / post_c.sigma_max[1:],
    }


def _floor(y):
    return np.maximum(y, _FLOOR)


def _profile_panel(ax, d, n, seed, **_):
    """sigma_min(X_l)/sigma_min(X_0) of the pre-norm states with the cancellation ceiling."""
    top = max(10.0, 2 * _profiles(int(d), int(n), 0.0, int(seed))["ratio"].max())
    (base,) = ax.plot([], [], "o-", color=COLORS["theory"], label="non-cancelling (sym B ⪰ 0)")
    (cancelling,) = ax.plot([], [], "s-", color=COLORS["sim"], label="cancelling, strength c")
    (ceiling,) = ax.plot(
        [],
        [],
        "--",
        color=COLORS["alt"],
        label=r"ceiling $|1-c|^\ell\,\|X_0u\|/\sigma_{\min}(X_0)$",
    )
    ax.axhline(1.0, color=COLORS["grey"], ls=":", lw=1)
    ax.set(
        yscale="log",
        xlim=(-0.8, MAX_DEPTH + 0.8),
        ylim=(_FLOOR / 10, top),
        xlabel="block ℓ",
        ylabel=r"$\sigma_{\min}(X_\ell)/\sigma_{\min}(X_0)$",
    )
    ax.minorticks_off()
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    return animate(base, cancelling, ceiling, ax.title)


def _profile_move(artists, depth, cancel, d, n, seed, **_):
    base, cancelling, ceiling, title = artists
    ell = np.arange(depth + 1)
    base.set_data(ell, _profiles(int(d), int(n), 0.0, int(seed))["ratio"][: depth + 1])
    prof = _profiles(int(d), int(n), float(cancel), int(seed))
    cancelling.set_data(ell, _floor(prof["ratio"][: depth + 1]))
    ceiling.set_data(ell, _floor(prof["ceiling"][: depth + 1]))
    for line in (cancelling, ceiling):
        line.set_visible(cancel > 0)
    low = prof["pairing"][:depth].min()
    low = 0.0 if abs(low) < 0.005 else low  # not "-0.00"
    title.set_text(f"c = {cancel:g}: min λ(sym B) = {low:.2f}")


def _centred_panel(ax, **_):
    """Centred sigma_min/sigma_max of the pre-norm states and of their LayerNorm outputs."""
    (pre,) = ax.plot([], [], "o-", color=COLORS["theory"], label="pre-norm state (measure here)")
    (post,) = ax.plot([], [], "x-", color=COLORS["paper"], label="LayerNorm output (T3: exactly 0)")
    ax.set(
        yscale="log",
        xlim=(-0.8, MAX_DEPTH + 0.8),
        ylim=(_FLOOR / 10, 2),
        xlabel="block ℓ",
        ylabel=r"centred $\sigma_{\min}/\sigma_{\max}$",
        title="post-LN nodes sit at the rounding floor",
    )
    ax.minorticks_off()
    legend(ax, ncols=1)
    ax.grid(alpha=0.3)
    return animate(pre, post)


def _centred_move(artists, depth, cancel, d, n, seed, **_):
    prof = _profiles(int(d), int(n), float(cancel), int(seed))
    ell = np.arange(depth + 1)
    for line, key in zip(artists, ("pre", "post"), strict=True):
        line.set_data(ell, _floor(prof[key][: depth + 1]))


_PANELS = (
    Panel(_profile_panel, key=("d", "n", "seed"), move=_profile_move),
    Panel(_centred_panel, move=_centred_move),
)


def draw(fig, depth: int = 12, cancel: float = 0.0, d: int = 32, n: int = 256, seed: int = 0):
    """Left: sigma_min(X_l)/sigma_min(X_0) (pre-norm states) with the cancellation ceiling.
    Right: centred sigma_min/sigma_max of the pre-norm states and of their LayerNorm outputs.
    Returns the figure's :class:`~companion.widgets.Panels` (its ``update`` moves it)."""
    params = dict(depth=depth, cancel=cancel, d=d, n=n, seed=seed)
    return Panels(fig.subplots(1, 2), _PANELS, params)


def readout(depth: int = 12, cancel: float = 0.0, d: int = 32, n: int = 256, seed: int = 0):
    """The sentence under the Explore figure: both panels' values at the last block shown."""
    base = _profiles(int(d), int(n), 0.0, int(seed))
    prof = _profiles(int(d), int(n), float(cancel), int(seed))
    low = prof["pairing"][:depth].min()
    low = 0.0 if abs(low) < 0.005 else low  # not "-0.00"
    text = (
        f"At block {depth}: σ_min(X_ℓ)/σ_min(X_0) non-cancelling {base['ratio'][depth]:.3g} "
        f"(lowest over blocks {base['ratio'][1 : depth + 1].min():.3g})"
    )
    if cancel > 0:
        text += (
            f", cancelling at c = {cancel:g} {prof['ratio'][depth]:.2e} "
            f"(ceiling {prof['ceiling'][depth]:.2e}; min λ(sym B) = {low:.2f})"
        )
    return text + (
        f"; centred σ_min/σ_max pre-norm {prof['pre'][depth]:.3g}, LayerNorm output "
        f"{prof['post'][depth]:.1e}."
    )


def explore() -> Explore:
    """The chapter's Explore figure: every depth x cancellation strength precomputed; its
    readout states both panels' values at the last block shown."""
    controls = {
        "depth": control(12, 1, MAX_DEPTH, 1, label="depth", values=(1, 6, 12, 18, 24)),
        "cancel": control(0.0, 0.0, 1.0, 0.05, label="cancellation c", values=CANCELS),
    }
    return explore_figure(
        draw,
        controls,
        update=Panels.update,
        grid=("depth", "cancel"),
        figsize=(8, 4.4),
        readout=readout,
    )
