"""T1 (the LayerNorm kernel) and T2 (RMSNorm has no gamma-only kernel)."""

import re

import numpy as np
import pytest

from companion.theory import dead_directions as dd
from companion.theory.ln_kernel import (
    INPUT_DISTRIBUTIONS,
    bottom_direction,
    centred_covariance,
    effective_scale,
    inverse_scale_direction,
    kernel_report,
    normalised_activations,
    rms_witness_inputs,
    rms_witness_variance,
    round_to_bfloat16,
    round_to_precision,
    sample_gamma,
    sample_inputs,
    simulate_rms_witness_variance,
    witness_variance_exact,
)
from companion.theory.norms import layernorm, rmsnorm

# -- T1: the kernel holds to machine precision for every input distribution ------------


@pytest.mark.parametrize("dist", INPUT_DISTRIBUTIONS)
@pytest.mark.parametrize("eps", [1e-5, 1.0])
def test_ln_kernel_fp64_every_distribution(dist, eps, rng):
    d, n = 48, 600
    x = sample_inputs(n, d, dist, rng=rng)  # (n, d)
    g = sample_gamma(d, 1.0, rng=rng)
    b = rng.standard_normal(d)  # non-zero beta
    Y = layernorm(x, g, b, eps)
    C = centred_covariance(Y)
    v = inverse_scale_direction(g)
    # Cov(LN(X)) gamma^-1 = 0, relative to ||C||
    assert np.linalg.norm(C @ v) / np.linalg.norm(C, 2) <= 1e-12
    rep = kernel_report(Y, g)
    assert rep.residual <= 1e-12 and abs(rep.rayleigh) <= 1e-12
    assert rep.cos == pytest.approx(1.0, abs=1e-10)
    # the reading <gamma^-1, LN(x)> is the constant <gamma^-1, beta> row by row
    np.testing.assert_allclose(Y @ (1 / g), np.full(n, (1 / g) @ b), rtol=1e-11)


def test_kernel_holds_for_mass_on_span_one():
    # X = c * 1 gives Px = 0, LN(x) = beta: the identity still holds (no extra hypothesis)
    g, b = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, -1.0])
    x = np.vstack([np.full(3, 2.0), [1.0, 2.0, 4.0], [0.0, 5.0, 1.0]])
    Y = layernorm(x, g, b, eps=1e-5)
    np.testing.assert_allclose(Y[0], b)
    assert np.linalg.norm(centred_covariance(Y) @ inverse_scale_direction(g)) < 1e-14


def test_kernel_report_with_precomputed_covariance_matches_samples(rng):
    d, n = 16, 300
    x = sample_inputs(n, d, "offset", rng=rng)
    g = sample_gamma(d, 0.5, rng=rng)
    Y = normalised_activations(x, g, np.ones(d))
    a = kernel_report(Y, g)
    b = kernel_report(gamma=g, cov=np.cov(Y.T), n_samples=n, mean=Y.mean(0))
    c = kernel_report(gamma=g, cov=np.cov(Y.T, bias=True) * 7.0, n_samples=n)  # any normalisation
    assert a.cos == pytest.approx(b.cos) and a.cos == pytest.approx(c.cos)
    assert b.offset_ratio == pytest.approx(a.offset_ratio) and c.offset_ratio == 0.0
    np.testing.assert_allclose(a.spectrum, b.spectrum, atol=1e-12)
    assert a.vstar_eigenvalue == pytest.approx(a.rayleigh * a.spectrum[-1])


@pytest.mark.parametrize("n", [2, 5, 8])
def test_kernel_report_below_bottom_threshold_refuses_cos(n, rng):
    # N <= d: the centred rank is at most N - 1 < d, no unique bottom direction. The
    # report's other fields hold (the Explore figure shows them at N/d = 1); reading
    # |cos| is one ValueError naming N and d, never a NaN.
    g = sample_gamma(8, 0.5, rng=rng)
    Y = layernorm(rng.standard_normal((n, 8)), g)
    rep = kernel_report(Y, g)
    assert rep.bottom is None and rep.residual < 1e-12 and rep.n_samples == n
    with pytest.raises(ValueError, match=rf"N = {n} samples .* d = 8.* N = 9 samples"):
        _ = rep.cos
    assert "undefined (N <= d)" in repr(rep)
    rep9 = kernel_report(layernorm(rng.standard_normal((9, 8)), g), g)  # N = d + 1: defined
    assert rep9.cos == pytest.approx(1.0, abs=1e-8) and "cos=" in repr(rep9)


def test_precision_ladder(rng):
    # fp64 and fp32 keep the alignment; bf16 rounding leaves a floor above exact zero
    d, n = 64, 1024
    x = sample_inputs(n, d, "student_t", rng=rng)
    g = sample_gamma(d, 1.0, rng=rng)
    b = rng.standard_normal(d)
    reps = {
        p: kernel_report(normalised_activations(x, g, b, precision=p), g)
        for p in ("float64", "float32", "bfloat16")
    }
    assert reps["float64"].residual < 1e-13
    assert reps["float32"].residual < 1e-6
    assert reps["bfloat16"].residual > 100 * reps["float32"].residual


def test_bfloat16_rounding_is_round_to_nearest_even():
    # 1 + 2^-8 is a tie between 1 and 1 + 2^-7: even mantissa (1) wins; 1 + 3 * 2^-8 rounds up
    x = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, 1 + 2**-8 + 2**-20, -2.5, 0.0])
    out = round_to_bfloat16(x)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [1.0, 1.0, 1 + 2**-6, 1 + 2**-7, -2.5, 0.0])
    assert round_to_precision(np.float64(1 / 3), "bfloat16").shape == ()


def test_effective_scale_gemma_convention():
    np.testing.assert_array_equal(effective_scale([0.0, -0.5], convention="one_plus"), [1.0, 0.5])
    np.testing.assert_array_equal(effective_scale([2.0, 3.0]), [2.0, 3.0])


def test_bottom_direction_sign_and_value():
    lam, u = bottom_direction(np.diag([2.0, 1.0, 0.1]), n_samples=10)
    assert lam == pytest.approx(0.1)
    np.testing.assert_allclose(u, [0.0, 0.0, 1.0])


def test_facade_exports():
    for name in (
        "inverse_scale_direction",
        "kernel_report",
        "classify_norm",
        "random_direction_null",
        "rms_witness_variance",
        "round_to_bfloat16",
        "precision_floor",
    ):
        assert hasattr(dd, name)


# -- T2: the Lean witness --------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.0, 1e-3])
def test_rms_witness_variance_exact(eps, rng):
    d = 24
    g = sample_gamma(d, 1.0, rng=rng)
    for v in (rng.standard_normal(d), inverse_scale_direction(g), np.eye(d)[3]):
        exact = witness_variance_exact(v, g, eps)
        closed = rms_witness_variance(v, g, eps)
        assert closed == pytest.approx(float(np.sum((v * g) ** 2)) / (1 + d * eps), rel=1e-15)
        assert exact == pytest.approx(closed, rel=1e-12) and closed > 0
    vs = inverse_scale_direction(g)
    assert rms_witness_variance(vs, g) == pytest.approx(d / np.sum(1 / g**2), rel=1e-13)
    # LayerNorm under the same witness: the kernel direction has zero variance
    assert witness_variance_exact(vs, g, 1e-5, norm="layernorm", beta=np.ones(d)) < 1e-25


def test_rms_witness_simulation_agrees(rng):
    g = sample_gamma(16, 1.0, rng=rng)
    v = rng.standard_normal(16)
    est = simulate_rms_witness_variance(v, g, samples=20_000, rng=rng)
    assert est.stderr > 0 and est.agrees_with(rms_witness_variance(v, g))
    # along v* every witness sample reads +-sqrt(d)/||gamma^-1||: the square is deterministic
    vs = inverse_scale_direction(g)
    est = simulate_rms_witness_variance(vs, g, samples=1000, rng=rng)
    assert est.value == pytest.approx(rms_witness_variance(vs, g), rel=1e-12) and est.stderr < 1e-12


def test_witness_population_covariance_is_identity_over_d():
    x = rms_witness_inputs(5)
    np.testing.assert_allclose(x.T @ x / len(x), np.eye(5) / 5)
    np.testing.assert_allclose(
        rmsnorm(x[:5], np.arange(1.0, 6.0)), np.sqrt(5) * np.diag(np.arange(1.0, 6.0))
    )


# -- bad input: one error style ------------------------------------------------------------


@pytest.mark.parametrize(
    "gamma, msg",
    [
        (
            [1.0, 0.0, 2.0, 0.0],
            "`gamma` must have no zero entries; got 2 zero entries at coordinates [1, 3] "
            "(gamma^-1 is undefined there; each coordinate vector e_i with gamma_i = 0 is "
            "itself a kernel direction of Cov(LN(X)))",
        ),
        ([1.0, np.nan], "`gamma` must contain only finite values; got 1 non-finite entries"),
        ([1.0, np.inf, 2.0], "`gamma` must contain only finite values; got 1 non-finite entries"),
        ([[1.0, 2.0]], "`gamma` must be a 1-D array; got shape (1, 2)"),
        ([2.0], "`gamma` must have length d >= 2; got length 1"),
    ],
)
def test_bad_gamma(gamma, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        inverse_scale_direction(gamma)


def test_bad_samples_and_shapes(rng):
    g = np.ones(4)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`Y` must be a 2-D array of shape (N, d), one sample per row; got shape (4,)"
        ),
    ):
        centred_covariance(np.ones(4))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`Y` must be a 2-D array of shape (N, d), one sample per row; got shape (4,)"
        ),
    ):
        kernel_report(np.ones(4), g)
    with pytest.raises(
        ValueError,
        match=re.escape("`gamma` must have length d = 5 (the activation width); got length 4"),
    ):
        kernel_report(rng.standard_normal((20, 5)), g)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`n_samples` must be > d = 4 for a unique bottom "
            "direction (the centred rank is at most N - 1); got 4"
        ),
    ):
        bottom_direction(np.eye(4), n_samples=4)
    with pytest.raises(
        ValueError,
        match=re.escape("`C` must be a square (d, d) matrix with d >= 2; got shape (3, 4)"),
    ):
        bottom_direction(np.ones((3, 4)))
    with pytest.raises(
        ValueError, match=re.escape("`Y` must contain only finite values; got 1 non-finite entries")
    ):
        kernel_report(np.array([[1.0, np.nan], [0.0, 1.0]]), np.ones(2))
    with pytest.raises(
        TypeError,
        match=re.escape(
            "`n_samples` must be given with `cov` (the number of samples behind it); got None"
        ),
    ):
        kernel_report(gamma=g, cov=np.eye(4))
    with pytest.raises(
        TypeError,
        match=re.escape(
            "exactly one of `Y` (samples) and `cov` (a precomputed "
            "covariance) must be given; got both"
        ),
    ):
        kernel_report(np.ones((5, 4)), g, cov=np.eye(4), n_samples=5)
    with pytest.raises(ValueError, match=re.escape("`mean` must have length d = 4; got length 3")):
        kernel_report(gamma=g, cov=np.eye(4), n_samples=10, mean=np.zeros(3))
    with pytest.raises(
        ValueError, match=re.escape("`v` must have the length of `gamma`, d = 4; got length 3")
    ):
        rms_witness_variance(np.ones(3), g)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`precision` must be one of 'float64', 'float32', 'float16', 'bfloat16'; got 'fp8'"
        ),
    ):
        round_to_precision(1.0, "fp8")
    with pytest.raises(
        ValueError,
        match=re.escape("`dist` must be one of 'gaussian', 'student_t', 'offset'; got 'cauchy'"),
    ):
        sample_inputs(10, 4, "cauchy")
