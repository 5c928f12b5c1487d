"""The kernel classifies the norm (``book/dead_directions/classifier.md``): its sizes, the Explore
figure (verdicts against precision and width) and the claim ``shirodkar.null_cos``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.chapters import docname
from companion.claims import Claim, Measurement, register
from companion.plotting import COLORS
from companion.theory import null_classifier as nc
from companion.theory.ln_kernel import normalised_activations, sample_gamma, sample_inputs
from companion.theory.null_classifier import classify_norm, random_direction_null, simulate_null_cos

__all__ = ["SIZES", "draw", "PRECISIONS_SWEEP", "synthetic_verdicts"]

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
    for i, (norm, _sigma, _dist, v) in enumerate(res):
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


# ----------------------------------------------------------------------------- claims

_SEED = 20260617


def _rms_widths() -> tuple:
    """Widths of the registered RMSNorm models (the book's own RMSNorm records)."""
    try:
        from companion.llm.registry import list_models
    except ImportError:  # the registry is part of the llm extra
        return ()
    return tuple(sorted({s.width for s in list_models(norm="rmsnorm")}))


def _null_cos(scale: str = "cpu", full: bool = False) -> Measurement:
    d_mc, samples = SIZES[scale].claim_d, SIZES[scale].claim_samples
    sim = nc.simulate_null_cos(d_mc, samples=samples, rng=_SEED)
    nd = nc.random_direction_null(d_mc)
    q = {d: nc.random_direction_null(d) for d in nc.NULL_WIDTHS}
    over = {d: v.q999 for d, v in q.items() if v.q999 > 0.10}
    ok = not over
    qs = ", ".join(f"d={d}: {v.q999:.3f}" for d, v in q.items())
    book = ", ".join(
        f"{d}: {nc.random_direction_null(d).q99:.3f}"
        for d in _rms_widths()
        if nc.random_direction_null(d).q99 > 0.10
    )
    return Measurement(
        value=q[768].q999,
        agrees=ok,
        reason=""
        if ok
        else "at the 99.9 % level the null |cos| exceeds 0.10 at "
        + ", ".join(f"d = {d} ({v:.3f})" for d, v in over.items())
        + "; the bound holds at 99.9 % only for d ≥ 1079 (at 99 % for d ≥ 768)"
        + (
            f", and at the book's narrower RMSNorm widths the 99 % quantile is {book}"
            if book
            else ""
        ),
        detail=f"exact: cos² ~ Beta(1/2, (d−1)/2); 99.9 % quantile of |cos| {qs}; at d = 768 "
        f"P(|cos| > 0.10) = {q[768].sf(0.10):.4f}. Monte Carlo at d = {d_mc}: E|cos| = "
        f"{sim['mean']:.5f} vs exact {nd.mean:.5f} (z = {sim['mean'].z(nd.mean):+.2f})",
    )


register(
    Claim(
        id="shirodkar.null_cos",
        paper="shirodkar",
        statement="A random direction's |cos| with v* stays at or below 0.10 at LLM widths "
        "(d = 768 … 4096), so |cos| ≈ 1 cannot happen by chance (tested at the 99.9 % level "
        "the book uses elsewhere).",
        paper_value="null |cos| ≤ 0.10 (seed summary only)",
        method="exact law cos² ~ Beta(1/2, (d−1)/2) (our derivation), its 99.9 % quantile at "
        "d = 768 … 4096, and a Monte Carlo check of E|cos|",
        tolerance="the 99.9 % quantile ≤ 0.10 at every d ≥ 768",
        provenance=("seed-only", "reconstruction"),
        measure=_null_cos,
        evidence="paper-number",
        control_none="the claim deviates at d = 768 and 1024; the same quantile is ≤ 0.10 at "
        "d = 1536 … 4096 (in the entry), so the check both passes and fails",
        chapter=CHAPTER,
    )
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-classifier",
    "punchline": "shirodkar.null_cos",
    "exercise": "ex-null-mean",
}
