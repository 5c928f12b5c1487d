"""The claims of ``book/sign_magnitude/bussgang.md``, declared as data (:data:`CLAIMS`, collected
by :mod:`companion.ledger`): ``dong.fact1``. Each measure and its control read the chapter's
``SIZES[scale]``."""

from __future__ import annotations

import numpy as np

from companion.chapters.sign_magnitude.bussgang import CHAPTER, SIZES
from companion.claims import Claim, Measurement
from companion.theory import sign_magnitude as sm


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
        f"{exact:.5f} (limit 2/π = {2 / np.pi:.5f}); z = {est.z(exact):+.2f} from the "
        f"closed form, {est.z(2 / np.pi):+.1f} from the limit"
        + (
            f" (the finite-width term (1 − 2/π)/n is {(exact - 2 / np.pi) / est.stderr:.1f} SE)"
            if dist == "gaussian"
            else ""
        ),  # fmt: skip
    )


def _fact1(scale: str = "cpu", full: bool = False) -> Measurement:
    return _fact1_rows(scale, "gaussian")


def _fact1_control(scale: str = "cpu", full: bool = False) -> Measurement:
    return _fact1_rows(scale, "laplace")


#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    Claim(
        id="dong.fact1",
        paper="dong",
        statement="For a Gaussian weight row, cos²(w, sign w) → 2/π (the Bussgang constant); "
        "simulated on Gaussian rows at one width.",
        paper_value="2/π ≈ 0.6366",
        method="mean row cos² over random Gaussian rows against the exact finite-width value 2/π + "
        "(1 − 2/π)/n",
        tolerance="within 4 standard errors of the finite-width value (the rows per width "
        "make one SE about a twelfth of the finite-width term (1 − 2/π)/n, so the check tells "
        "the exact formula from its limit 2/π at every scale)",
        provenance=("author-code", "reconstruction"),
        measure=_fact1,
        evidence="simulation",
        control=_fact1_control,
        control_method="Laplace rows in place of Gaussian ones (cos² → 1/2)",
        chapter=CHAPTER,
        depends_on=(
            "companion.theory.bussgang.simulate_bussgang_cos2",
            "companion.theory.bussgang.bussgang_cos2",
        ),
    ),
)
