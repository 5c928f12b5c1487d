"""The claims of ``book/dead_directions/classifier.md``, declared as data (:data:`CLAIMS`,
collected by :mod:`companion.ledger`): ``shirodkar.null_cos``. Each measure and its control read
the chapter's ``SIZES[scale]``."""

from __future__ import annotations

from companion.chapters.dead_directions.classifier import CHAPTER, SIZES
from companion.claims import Claim, Measurement
from companion.theory import null_classifier as nc

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


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
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
        depends_on=(
            "companion.theory.null_classifier.simulate_null_cos",
            "companion.theory.null_classifier.random_direction_null",
        ),
    ),
)
