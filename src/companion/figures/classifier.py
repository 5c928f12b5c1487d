"""T6 widget: the random-direction null of |cos| and the exactness classifier."""

from __future__ import annotations

import numpy as np

from companion.plotting import COLORS
from companion.theory.ln_kernel import normalised_activations, sample_gamma, sample_inputs
from companion.theory.null_classifier import classify_norm, random_direction_null, simulate_null_cos

__all__ = ["draw", "PRECISIONS_SWEEP", "synthetic_verdicts"]

#: Frames of the kernel-free player: the precision of the activations.
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


def draw(fig, d: int = 768, precision: str = "float32", samples: int = 4000, seed: int = 0):
    """Left: |cos| of random directions at width d against the exact Beta law.
    Right: the classifier's statistic for synthetic LN and RMS layers at ``precision``."""
    ax1, ax2 = fig.subplots(1, 2)
    nd = random_direction_null(d)
    sim = simulate_null_cos(d, samples=samples, rng=seed)
    hi = max(3 * nd.q999, 1e-3)
    ax1.hist(
        sim["cos"],
        bins=40,
        range=(0, hi),
        density=True,
        color=COLORS["sim"],
        alpha=0.6,
        label=f"{samples} random directions",
    )
    c = np.linspace(0, hi, 300)
    ax1.plot(c, nd.pdf(c), color=COLORS["theory"], lw=2, label="exact: cos² ~ Beta(½, (d−1)/2)")
    for q, ls, name in ((nd.q99, "--", "99%"), (nd.q999, ":", "99.9%")):
        ax1.axvline(q, color="k", ls=ls, lw=1, label=f"{name} quantile {q:.3f}")
    ax1.set(xlabel="|cos(u, v*)|", ylabel="density", title=f"the null at d = {d}")
    ax1.legend(fontsize=7)
    res = synthetic_verdicts(precision, seed=seed)
    marks = {"layernorm": ("o", COLORS["theory"]), "rmsnorm": ("s", COLORS["sim"])}
    for i, (norm, sigma, dist, v) in enumerate(res):
        m, col = marks[norm]
        ok = v.verdict == norm
        k = i // 2
        ax2.scatter(
            k + (0.15 if norm == "rmsnorm" else -0.15),
            max(abs(v.statistic), 1e-22),
            marker=m,
            color=col if ok else "k",
            s=30,
            label=(f"true {norm}" if i < 2 else None),
        )
        if norm == "layernorm":  # thresholds depend on the case through the offset ratio
            ax2.hlines(
                v.threshold_layernorm,
                k - 0.4,
                k + 0.4,
                color=COLORS["theory"],
                ls="--",
                lw=1,
                label="LN threshold (100 × floor)" if i == 0 else None,
            )
            ax2.hlines(
                v.threshold_rmsnorm,
                k - 0.4,
                k + 0.4,
                color=COLORS["sim"],
                ls="--",
                lw=1,
                label="RMS threshold (10 × LN)" if i == 0 else None,
            )
    wrong = sum(v.verdict != n for n, _, _, v in res)
    ax2.set(
        yscale="log",
        ylim=(1e-22, 1e2),
        xticks=range(len(res) // 2),
        xticklabels=[f"{s:g}" for _ in _DISTS for s in _SIGMAS],
        xlabel="γ spread σ (Gaussian | Student-t | offset inputs)",
        ylabel="v*ᵀCv* / Σ v*_i² C_ii",
        title=f"{precision}: {len(res) - wrong}/{len(res)} classified correctly (black = wrong)",
    )
    ax2.title.set_fontsize(9)
    ax2.legend(fontsize=7, loc="center right")
    ax2.grid(alpha=0.3)
