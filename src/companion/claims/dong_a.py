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
        value=est.value,
        stderr=est.stderr,
        agrees=est.agrees_with(exact),
        detail=f"n = {n}, {samples} Gaussian rows; closed form at this width {exact:.5f} "
        f"(limit 2/π = {2 / np.pi:.5f}); z = {est.z(exact):+.2f}",
    )


register(
    Claim(
        id="dong.fact1",
        paper="dong",
        statement="For a Gaussian weight row, cos²(w, sign w) → 2/π (the Bussgang constant).",
        paper_value="2/π ≈ 0.6366",
        method="mean row cos² over random Gaussian rows against the exact finite-width value 2/π + (1 − 2/π)/n",
        tolerance="within 4 standard errors",
        provenance=("author-code", "reconstruction"),
        measure=_fact1,
        chapter="book/sign_magnitude/bussgang",
    )
)


# ----------------------------------------------------------------------------------------
# Proposition 1, RMSNorm filter, Theorems 3 and 4 (chapters 1-4 of Part I)
# ----------------------------------------------------------------------------------------
from functools import lru_cache  # noqa: E402

from companion.theory import energy_equality as _ee  # noqa: E402
from companion.theory import quantization as _q  # noqa: E402
from companion.theory import rmsnorm_filter as _rf  # noqa: E402
from companion.theory import transverse_ratio as _tr  # noqa: E402
from companion.theory.norms import rmsnorm_jacobian as _jac  # noqa: E402
from companion.theory.perturbations import gaussian_weights as _gw  # noqa: E402
from companion.theory.perturbations import sign_flip_delta as _flip


def _prop1_energy(scale: str = "cpu", full: bool = False) -> Measurement:
    m, n, samples = (256, 256, 4000) if scale == "cpu" else (1024, 1024, 20000)
    W = _gw(m, n, rng=11)
    dW = _flip(W, 0.05, rng=12)
    exact = _ee.energy_equality(dW)
    est = _ee.simulate_energy_equality(dW, samples=samples, rng=13)
    return Measurement(
        value=est.value / exact,
        stderr=est.stderr / exact,
        agrees=est.agrees_with(exact),
        detail=f"E‖ΔW x̂‖² / (‖ΔW‖²_F/n) for a 5% sign flip of a {m}×{n} Gaussian W, "
        f"{samples} sphere inputs; z = {est.z(exact):+.2f}",
    )


def _prop1_single(scale: str = "cpu", full: bool = False) -> Measurement:
    p, n, m = (0.05, 512, 128) if scale == "cpu" else (0.05, 2048, 512)
    r = _ee.simulate_single_layer(p, n, m, samples=400, seeds=8, rng=21)
    rs = _ee.single_layer_radial_fraction(p, m=m)
    rn = _ee.single_layer_radial_fraction(kind="noise", m=m)
    tr = _ee.single_layer_transverse_ratio(p)
    ok = r.R_sign.agrees_with(rs) and r.R_noise.agrees_with(rn) and r.T_ratio.agrees_with(tr)
    return Measurement(
        value=r.R_sign.value,
        stderr=r.R_sign.stderr,
        agrees=ok,
        reason="" if ok else "a single-layer simulation is more than 4 SE from its closed form",
        detail=f"p = {p}, n = {n}, m = {m}: R_sign {r.R_sign:.4f} vs p + (1−p)/m (finite-m form) = {rs:.4f}; "
        f"R_noise {r.R_noise:.5f} vs 1/m = {rn:.5f}; T_noise/T_sign {r.T_ratio:.4f} "
        f"vs 1/(1−p) = {tr:.4f} (opposite ordering to Theorem 3)",
    )


def _rmsnorm_jac(scale: str = "cpu", full: bool = False) -> Measurement:
    g = np.random.default_rng(31)
    d = 64
    u, gain = g.standard_normal(d), 1 + 0.3 * g.standard_normal(d)
    err = _rf.jacobian_fd_error(u, gain, directions=8, rng=32)
    radial = float(np.max(np.abs(_jac(u, gain) @ u)))
    ok = err < 1e-7 and radial < 1e-12
    return Measurement(
        value=err,
        agrees=ok,
        reason="" if ok else "finite differences disagree with the Jacobian",
        detail=f"d = {d}, random gain: max |central FD − J v| over 8 directions = {err:.1e}; "
        f"max |J u| = {radial:.1e} (the radial direction is annihilated)",
    )


def _thm3_limit(scale: str = "cpu", full: bool = False) -> Measurement:
    p, n = 0.005, (512 if scale == "cpu" else 2048)
    est = _tr.simulate_transverse_ratio(p, n, samples=1000, seeds=4, rng=41)
    exact_p = _tr.transverse_ratio_exact(p)
    limit = _tr.transverse_ratio_limit()
    tiny = _tr.transverse_ratio_exact(1e-9)
    ok = (
        abs(est.value / exact_p - 1) <= 0.015 + 4 * est.stderr / exact_p
        and abs(tiny - limit) < 1e-3
    )
    return Measurement(
        value=est.value,
        stderr=est.stderr,
        agrees=ok,
        reason="" if ok else "simulation at small p is more than 1.5% from the exact-kernel value",
        detail=f"simulated C at p = {p}, n = {n}: {est:.4f}; exact kernel C({p}) = {exact_p:.4f} "
        f"(finite width lowers C by ~1%); exact kernel at p = 1e-9: {tiny:.5f} → "
        f"π/(π−2) = {limit:.5f}",
    )


def _thm3_finite(scale: str = "cpu", full: bool = False) -> Measurement:
    ps = sorted(_tr.PAPER_TABLE2)
    n, samples, seeds = (512, 1200, 4) if scale == "cpu" else (2048, 10000, 20)
    res = _tr.simulate_transverse_ratio_grid(ps, n, samples=samples, seeds=seeds, rng=42)
    parts, ok = [], True
    for r in res:
        paper, _ = _tr.PAPER_TABLE2[r.p]
        exact = _tr.transverse_ratio_exact(r.p)
        ok &= abs(r.value / paper - 1) <= 0.015 and abs(exact / paper - 1) <= 0.015
        parts.append(
            f"p={r.p:g}: ours {r.value:.3f}±{r.stderr:.3f}, exact kernel {exact:.3f}, "
            f"paper measured {paper:.3f}, paper formula {_tr.transverse_ratio_paper(r.p):.3f}"
        )
    r05 = res[ps.index(0.05)]
    return Measurement(
        value=r05.value,
        stderr=r05.stderr,
        agrees=bool(ok),
        reason="" if ok else "a simulated C is more than 1.5% from the paper's measured value",
        detail=f"n = {n}, {seeds} seeds × {samples} inputs (value shown: p = 0.05). "
        + "; ".join(parts)
        + ". The paper's closed form sits 1–5% below both; the exact kernel closes the gap.",
    )


@lru_cache(maxsize=4)
def _thm4_geometry(scale: str):
    m, n, samples = (512, 1024, 2000) if scale == "cpu" else (1024, 2048, 10000)
    return _q.quantization_error_geometry(
        _gw(m, n, rng=51), "sign_absmean", samples=samples, rng=52
    ), m


def _thm4_cos2(scale: str = "cpu", full: bool = False) -> Measurement:
    geo, m = _thm4_geometry(scale)
    lim = _q.quantization_cos2_limit()
    ok = geo.vector_cos2.agrees_with(lim) and geo.sign_preserving
    return Measurement(
        value=geo.vector_cos2.value,
        stderr=geo.vector_cos2.stderr,
        agrees=ok,
        reason="" if ok else "vector cos² is more than 4 SE from 2/π",
        detail=f"{geo.shape[0]}×{geo.shape[1]} Gaussian W, sign×absmean: vector cos² {geo.vector_cos2:.5f}, "
        f"row cos² {geo.row_cos2:.5f}; limit 2/π = {lim:.5f}; no sign changes: {geo.sign_preserving}",
    )


def _thm4_pre(scale: str = "cpu", full: bool = False) -> Measurement:
    geo, m = _thm4_geometry(scale)
    exact = _q.quantization_radial_pre(m)
    ok = geo.radial_pre.agrees_with(exact)
    return Measurement(
        value=geo.radial_pre.value,
        stderr=geo.radial_pre.stderr,
        agrees=ok,
        reason=""
        if ok
        else "the pre-ReLU radial fraction is more than 4 SE from 1 − 2/π + (2/π)/m",
        detail=f"m = {m}: {geo.radial_pre:.5f} vs 1 − 2/π = {_q.quantization_radial_pre():.5f} "
        f"(+ finite-width offset → {exact:.5f})",
    )


def _thm4_post(scale: str = "cpu", full: bool = False) -> Measurement:
    geo, m = _thm4_geometry(scale)
    exact = _q.quantization_radial_post(m)
    lim = _q.quantization_radial_post()
    ok = geo.radial_post.agrees_with(exact) and abs(lim - 0.365) < 0.0005
    return Measurement(
        value=geo.radial_post.value,
        stderr=geo.radial_post.stderr,
        agrees=ok,
        reason=""
        if ok
        else "the post-ReLU radial fraction is more than 4 SE from the kernel value",
        detail=f"m = {m}: {geo.radial_post:.5f}; exact kernel {lim:.5f} (+ finite-width offset → "
        f"{exact:.5f}); the abstract's 0.365 is {100 * (lim / (1 - 2 / np.pi) - 1):.2f}% above 1 − 2/π",
    )


_CH = "book/sign_magnitude/"
register(
    Claim(
        id="dong.prop1.energy",
        paper="dong",
        statement="For x̂ uniform on the sphere, E‖ΔW x̂‖² = ‖ΔW‖²_F / n: Frobenius-matched perturbations inject equal energy.",
        paper_value="E‖ΔW x̂‖² = ‖ΔW‖²_F/n (ratio 1)",
        method="Monte Carlo over sphere inputs for a sign-flip ΔW, divided by ‖ΔW‖²_F/n",
        tolerance="within 4 standard errors of 1",
        provenance=("author-code", "reconstruction"),
        measure=_prop1_energy,
        chapter=_CH + "energy_equality",
    )
)
register(
    Claim(
        id="dong.prop1.single_layer",
        paper="dong",
        statement="One linear layer: sign flips have radial fraction → p, independent noise 1/m; with RMSNorm, T_noise/T_sign → 1/(1−p).",
        paper_value="R_sign → p, R_noise = 1/m, T_mag/T_sign ≈ 1/(1−p)",
        method="simulate z = W x̂ under Frobenius-matched flips and noise (8 weight draws)",
        tolerance="each within 4 SE of p + (1−p)/m, 1/m and 1/(1−p)",
        provenance=("author-code", "reconstruction"),
        measure=_prop1_single,
        chapter=_CH + "energy_equality",
    )
)
register(
    Claim(
        id="dong.rmsnorm_jacobian",
        paper="dong",
        statement="RMSNorm's Fréchet derivative is diag(g)(1/rms(u))(I − ûûᵀ): it removes the radial direction.",
        paper_value="D RMSNorm(u) = diag(g) (1/rms u)(I − ûûᵀ)",
        method="central finite differences against the closed-form Jacobian, and J u = 0",
        tolerance="max error < 1e-7, |J u| < 1e-12",
        provenance=("abstract", "reconstruction"),
        measure=_rmsnorm_jac,
        chapter=_CH + "rmsnorm_filter",
    )
)
register(
    Claim(
        id="dong.thm3.limit",
        paper="dong",
        statement="As p → 0, sign flips give π/(π−2) ≈ 2.75 times the transverse output energy of Frobenius-matched magnitude perturbations.",
        paper_value="π/(π−2) ≈ 2.7519",
        method="exact-kernel C(p) as p → 0, and the two-layer simulation at p = 0.005 against it",
        tolerance="exact kernel → limit within 1e-3; simulation within 1.5% (+4 SE) of C_exact(p)",
        provenance=("abstract", "author-code", "reconstruction"),
        measure=_thm3_limit,
        chapter=_CH + "theorem3",
    )
)
register(
    Claim(
        id="dong.thm3.finite_p",
        paper="dong",
        statement="At finite p the ratio C(p) falls below π/(π−2); measured C = 2.639, 2.583, 2.465, 2.299 at p = 0.01, 0.02, 0.05, 0.10.",
        paper_value="measured 2.639/2.583/2.465/2.299 (formula 2.610/2.538/2.378/2.178)",
        method="two-layer simulation (ratio of summed pre-norm transverse energies) at the four p; exact kernel",
        tolerance="simulation and exact kernel each within 1.5% of the paper's measured C",
        provenance=("author-code", "reconstruction"),
        measure=_thm3_finite,
        chapter=_CH + "theorem3",
    )
)
register(
    Claim(
        id="dong.thm4.cos2",
        paper="dong",
        statement="The sign×absmean quantisation W_T keeps every sign and cos²(Wx̂, W_T x̂) → 2/π.",
        paper_value="2/π ≈ 0.6366",
        method="vector-level cos² over sphere inputs for a Gaussian W",
        tolerance="within 4 standard errors of 2/π",
        provenance=("abstract", "author-code"),
        measure=_thm4_cos2,
        chapter=_CH + "theorem4",
    )
)
register(
    Claim(
        id="dong.thm4.radial_pre",
        paper="dong",
        statement="The quantisation error's radial fraction before ReLU is 1 − 2/π.",
        paper_value="1 − 2/π ≈ 0.3634",
        method="ratio of summed radial to total error energy over sphere inputs",
        tolerance="within 4 SE of 1 − 2/π + (2/π)/m",
        provenance=("abstract", "reconstruction"),
        measure=_thm4_pre,
        chapter=_CH + "theorem4",
    )
)
register(
    Claim(
        id="dong.thm4.radial_post",
        paper="dong",
        statement="After ReLU the error's radial fraction is 0.365, within 0.4% of 1 − 2/π.",
        paper_value="0.365",
        method="post-ReLU radial fraction over sphere inputs; exact arc-cosine kernel value 0.36489",
        tolerance="within 4 SE of the kernel value + 2(1 − R)/m; kernel value within 5e-4 of 0.365",
        provenance=("abstract", "reconstruction"),
        measure=_thm4_post,
        chapter=_CH + "theorem4",
    )
)
