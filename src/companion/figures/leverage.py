"""Leverage widget: the energy of one flip on an entry of amplitude alpha, against alpha."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.ticker import NullLocator

from companion.plotting import COLORS
from companion.theory import leverage as lv

__all__ = ["ALPHAS", "draw"]

#: Amplitudes of the kernel-free frame player (log-spaced, through the real-model values).
ALPHAS = (0.01, 0.024, 0.04, 0.07, 0.1, 0.15, 0.2, 0.26, 0.35)
_MARKS = (
    (lv.ABSTRACT_ALPHA_MEDIAN, "abstract median 0.024"),
    (lv.ABSTRACT_ALPHA_MAX, "abstract max 0.26"),
    (lv.AUTHOR_ALPHA_MAX, "author's JSON max 0.289"),
)


@lru_cache(maxsize=32)
def _sweep(n: int, samples: int, seed: int):
    rng = np.random.default_rng(seed)
    return tuple(lv.simulate_leverage(a, n, samples=samples, rng=rng) for a in ALPHAS)


def draw(fig, alpha: float = 0.1, n: int = 2048, samples: int = 20000, seed: int = 0):
    """Left: R(alpha, n) on log-log axes, three closed forms, simulation +- 2 SE and the real-model alphas.
    Right: what the ReLU takes away, R / (n alpha^2)."""
    ax1, ax2 = fig.subplots(1, 2)
    a = np.geomspace(0.5 / np.sqrt(n), 0.4, 200)
    sims = _sweep(n, samples, seed)
    cur = lv.simulate_leverage(alpha, n, samples=samples, rng=seed + 1)
    styles = (
        ("pre_relu", r"pre-ReLU $n\alpha^2$ (exact)", COLORS["grey"], "--"),
        ("post_relu", r"post-ReLU $n\alpha^2(1-4\alpha/3\pi)$ (author)", COLORS["paper"], "-"),
        ("exact", "post-ReLU, exact kernel", COLORS["theory"], ":"),
    )
    for kind, label, col, ls in styles:
        y = lv.leverage(a, n, kind=kind)
        ax1.plot(a, y, color=col, ls=ls, lw=2, label=label)
        ax2.plot(a, y / (n * a**2), color=col, ls=ls, lw=2)
    for ax, scale in ((ax1, 1.0), (ax2, None)):
        ys = [s.value if scale else s.value / (n * x**2) for s, x in zip(sims, ALPHAS)]
        es = [2 * s.stderr if scale else 2 * s.stderr / (n * x**2) for s, x in zip(sims, ALPHAS)]
        ax.errorbar(
            ALPHAS,
            ys,
            yerr=es,
            fmt="o",
            ms=4,
            color=COLORS["sim"],
            capsize=3,
            label="simulation ± 2 SE" if scale else None,
        )
        yc = cur.value if scale else cur.value / (n * alpha**2)
        ax.plot(
            [alpha],
            [yc],
            "D",
            color="k",
            ms=7,
            label=f"α = {alpha:.3g}: R = {cur.value:.3g}" if scale else None,
        )
        for i, (x, text) in enumerate(_MARKS):
            ax.axvline(x, color=COLORS["grey"], lw=1, ls=(0, (1, 2)))
            if scale:
                ax.text(
                    x,
                    0.02,
                    text,
                    rotation=90,
                    fontsize=7,
                    va="bottom",
                    ha="left" if i == 2 else "right",
                    transform=ax.get_xaxis_transform(),
                )
    ax1.axhline(1, color="k", lw=0.6)
    ax1.set(
        xscale="log",
        yscale="log",
        xlabel=r"amplitude $\alpha = |\hat x_j|$",
        ylabel=r"leverage $R(\alpha, n)$",
        title=f"one flip, n = {n} (delocalised: α = 1/√n, R = 1)",
    )
    ax1.legend(fontsize=7, loc="upper left")
    ax2.set(
        xscale="log",
        ylim=(0.8, 1.05),
        xlabel=r"$\alpha$",
        ylabel=r"$R / (n\alpha^2)$",
        title="the ReLU correction",
    )
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.xaxis.set_minor_locator(NullLocator())  # unlabelled minor ticks cost most of a redraw
    ax1.yaxis.set_minor_locator(NullLocator())
