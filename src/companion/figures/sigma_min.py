"""sigma_min widget: the residual profile under non-cancellation and under a cancelling branch."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.plotting import COLORS
from companion.theory.ln_kernel import sample_gamma
from companion.theory.norms import layernorm
from companion.theory.sigma_min import cancellation_bound, residual_toy, sigma_min_profile

__all__ = ["CANCELS", "draw"]

#: Cancellation strengths of the kernel-free frame player.
CANCELS = (0.0, 0.25, 0.5, 0.75, 1.0)


@lru_cache(maxsize=64)
def _toy(d: int, depth: int, n: int, cancel: float, seed: int):
    # the non-cancelling reference is the same in every frame: cache it (draw stays pure)
    return residual_toy(d, depth, n=n, cancel=cancel, rng=seed)


def draw(fig, depth: int = 12, cancel: float = 0.0, d: int = 32, n: int = 256, seed: int = 0):
    """Left: sigma_min(X_l)/sigma_min(X_0) (pre-norm states) with the cancellation ceiling.
    Right: centred sigma_min/sigma_max of the pre-norm states and of their LayerNorm outputs."""
    ax1, ax2 = fig.subplots(1, 2)
    base = _toy(int(d), int(depth), int(n), 0.0, int(seed))
    toy = _toy(int(d), int(depth), int(n), float(cancel), int(seed))
    ell = np.arange(depth + 1)
    p0, p = sigma_min_profile(base.states), sigma_min_profile(toy.states)
    floor = 1e-17
    ax1.plot(ell, p0.ratio, "o-", color=COLORS["theory"], label="non-cancelling (sym B ⪰ 0)")
    if cancel > 0:
        ax1.plot(
            ell,
            np.maximum(p.ratio, floor),
            "s-",
            color=COLORS["sim"],
            label=f"cancelling, strength {cancel:g}",
        )
        ax1.plot(
            ell,
            np.maximum(cancellation_bound(toy, cancel), floor),
            "--",
            color=COLORS["alt"],
            label=r"ceiling $|1-c|^\ell\,\|X_0u\|/\sigma_{\min}(X_0)$",
        )
    ax1.axhline(1.0, color=COLORS["grey"], ls=":", lw=1)
    ax1.set(
        yscale="log",
        ylim=(floor / 10, max(10.0, 2 * p0.ratio.max())),
        xlabel="block ℓ",
        ylabel=r"$\sigma_{\min}(X_\ell)/\sigma_{\min}(X_0)$",
        title=f"min λ(sym B) = {toy.branch_pairing.min():+.2f}",
    )
    ax1.legend(fontsize=7)
    ax1.grid(alpha=0.3)
    g = np.random.default_rng(seed + 7)
    gamma, beta = sample_gamma(d, 0.5, rng=g), g.standard_normal(d)
    post = [layernorm(X, gamma, beta) for X in toy.states]  # post-LN nodes
    pre_c = sigma_min_profile(toy.states, centred=True)
    post_c = sigma_min_profile([toy.states[0]] + post, centred=True)  # X_0 only normalises
    ax2.plot(
        ell,
        np.maximum(pre_c.sigma_min / pre_c.sigma_max, floor),
        "o-",
        color=COLORS["theory"],
        label="pre-norm state (measure here)",
    )
    ax2.plot(
        ell,
        np.maximum(post_c.sigma_min[1:] / post_c.sigma_max[1:], floor),
        "x-",
        color=COLORS["paper"],
        label="LayerNorm output (T3: exactly 0)",
    )
    ax2.set(
        yscale="log",
        ylim=(floor / 10, 2),
        xlabel="block ℓ",
        ylabel=r"centred $\sigma_{\min}/\sigma_{\max}$",
        title="post-LN nodes sit at the rounding floor",
    )
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
