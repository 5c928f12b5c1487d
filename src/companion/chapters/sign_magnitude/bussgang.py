"""Fact 1, the Bussgang constant 2/π (``book/sign_magnitude/bussgang.md``): its sizes, the
Explore figure (row cos² against the width and the weight law) and the claim ``dong.fact1``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.chapters import docname
from companion.claims import Claim, Measurement, register
from companion.plotting import COLORS
from companion.theory import sign_magnitude as sm
from companion.theory.bussgang import (
    bussgang_cos2,
    row_cos2,
    sample_weights,
    simulate_bussgang_cos2,
)

__all__ = ["SIZES", "draw", "WIDTHS"]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    n: int  # row width of the numerical check and of the claim
    rows: int  # Gaussian rows averaged at that width


SIZES = {
    "cpu": Sizes(n=1024, rows=4000),  # a laptop: well under a second
    "full": Sizes(n=4096, rows=20000),  # the width of a 4k-wide model
    "smoke": Sizes(n=64, rows=200),  # the tests' run of the full path
}


#: Widths of the convergence panel (and of the kernel-free frame player).
WIDTHS = (4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)


def draw(
    fig, n: int = 256, dist: str = "gaussian", nu: float = 5.0, rows: int = 400, seed: int = 0
):
    """Left: the distribution of row cos^2 at width n. Right: its mean +- 2 SE against n."""
    rng = np.random.default_rng(seed)
    limit = bussgang_cos2(dist, nu=nu)
    ax1, ax2 = fig.subplots(1, 2)
    c = row_cos2(sample_weights((rows, n), dist, nu=nu, rng=rng))  # (rows,)
    ax1.hist(c, bins=30, color=COLORS["sim"], alpha=0.7, density=True)
    ax1.axvline(limit, color=COLORS["theory"], lw=2, label=f"limit {limit:.4f}")
    ax1.axvline(c.mean(), color="k", ls="--", lw=1, label=f"mean {c.mean():.4f}")
    ax1.set(
        xlabel=r"row $\cos^2(w,\ \mathrm{sign}\,w)$",
        ylabel="density",
        title=f"{rows} rows of width n = {n}",
    )
    ax1.legend(fontsize=8)
    ests = [
        simulate_bussgang_cos2(m, dist=dist, nu=nu, samples=max(64, 8192 // m), rng=rng)
        for m in WIDTHS
    ]
    grid = np.geomspace(WIDTHS[0], WIDTHS[-1], 100)
    finite_ok = dist != "student_t" or nu > 4
    if finite_ok:
        ax2.plot(
            grid,
            [bussgang_cos2(dist, n=int(round(m)), nu=nu) for m in grid],
            color=COLORS["alt"],
            lw=1.5,
            label="limit + 1/n term",
        )
    ax2.axhline(limit, color=COLORS["theory"], lw=2, label="limit (Fact 1)")
    ax2.errorbar(
        WIDTHS,
        [e.value for e in ests],
        yerr=[2 * e.stderr for e in ests],
        fmt="o",
        ms=4,
        color=COLORS["sim"],
        capsize=3,
        label="simulation ± 2 SE",
    )
    ax2.axvline(n, color=COLORS["grey"], ls=":", lw=1)
    ax2.set(xscale="log", xlabel="row width n", ylabel=r"E $\cos^2$", title=_title(dist, nu))
    ax2.legend(fontsize=8)
    ax2.grid(alpha=0.3)


def _title(dist, nu):
    return {
        "gaussian": "Gaussian rows",
        "laplace": "Laplace rows",
        "uniform": "uniform rows",
        "student_t": f"Student-t rows, ν = {nu:g}",
    }[dist]


# ----------------------------------------------------------------------------- claims


def _fact1_rows(scale: str, dist: str) -> Measurement:
    n, samples = SIZES[scale].n, SIZES[scale].rows
    est = sm.simulate_bussgang_cos2(n, dist=dist, samples=samples, rng=20260518)
    exact = sm.bussgang_cos2(n=n)
    ok = est.agrees_with(exact)
    return Measurement(
        value=est.value,
        stderr=est.stderr,
        agrees=ok,
        reason=""
        if ok
        else f"{dist} rows give {est:.5f}, {est.z(exact):+.0f} SE from the "
        f"Gaussian value {exact:.5f}",
        detail=f"n = {n}, {samples} {dist} rows; Gaussian closed form at this width "
        f"{exact:.5f} (limit 2/π = {2 / np.pi:.5f}); z = {est.z(exact):+.2f}",
    )


def _fact1(scale: str = "cpu", full: bool = False) -> Measurement:
    return _fact1_rows(scale, "gaussian")


def _fact1_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _fact1_rows(scale, "laplace")


register(
    Claim(
        id="dong.fact1",
        paper="dong",
        statement="For a Gaussian weight row, cos²(w, sign w) → 2/π (the Bussgang constant); "
        "simulated on Gaussian rows at one width.",
        paper_value="2/π ≈ 0.6366",
        method="mean row cos² over random Gaussian rows against the exact finite-width value 2/π + "
        "(1 − 2/π)/n",
        tolerance="within 4 standard errors",
        provenance=("author-code", "reconstruction"),
        measure=_fact1,
        evidence="simulation",
        control=_fact1_control,
        control_method="Laplace rows in place of Gaussian ones (cos² → 1/2)",
        chapter=CHAPTER,
    )
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-bussgang",
    "punchline": "dong.fact1",
    "exercise": "ex-bussgang-finite",
}
