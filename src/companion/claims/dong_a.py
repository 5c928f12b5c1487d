"""Claims of Dong (2026), theory part (fast: run by default)."""

from __future__ import annotations

import numpy as np

from companion.claims import Claim, Measurement, register
from companion.theory import sign_magnitude as sm


def _fact1(scale: str = "cpu", full: bool = False) -> Measurement:
    n, samples = (1024, 4000) if scale == "cpu" else (4096, 20000)
    est = sm.simulate_bussgang_cos2(n, samples=samples, rng=20260518)
    exact = sm.bussgang_cos2(n=n)
    return Measurement(
        value=est.value, stderr=est.stderr, agrees=est.agrees_with(exact),
        detail=f"n = {n}, {samples} Gaussian rows; closed form at this width {exact:.5f} "
               f"(limit 2/π = {2 / np.pi:.5f}); z = {est.z(exact):+.2f}",
    )


register(Claim(
    id="dong.fact1", paper="dong",
    statement="For a Gaussian weight row, cos²(w, sign w) → 2/π (the Bussgang constant).",
    paper_value="2/π ≈ 0.6366",
    method="mean row cos² over random Gaussian rows against the exact finite-width value 2/π + (1 − 2/π)/n",
    tolerance="within 4 standard errors", provenance=("author-code", "reconstruction"),
    measure=_fact1, chapter="book/sign_magnitude/bussgang",
))
