"""Closed forms and norms over their whole domain (issue 22): no cancellation, no overflow."""

import math

import numpy as np
import pytest

from companion.theory.bussgang import absolute_moments, bussgang_cos2, row_cos2
from companion.theory.norms import layernorm, rms, rmsnorm

mpmath = pytest.importorskip("mpmath")


def _exact_student_t_cos2(nu: float) -> float:
    """(nu - 2)/pi * (Gamma((nu-1)/2) / Gamma(nu/2))^2 at enough digits that nu ± 2 is exact."""
    with mpmath.workdps(int(math.log10(nu)) + 40):
        v = mpmath.mpf(nu)
        ratio = mpmath.exp(mpmath.loggamma((v - 1) / 2) - mpmath.loggamma(v / 2))
        return float((v - 2) / mpmath.pi * ratio**2)


@pytest.mark.parametrize("nu", [2.01, 2.5, 3, 4.5, 7, 19.9, 21, 1e3, 2e4, 1e8, 1e15, 1e16,
                                1e20, 1e50, 1e100, 1e200, 1e300])
def test_student_t_cos2_matches_mpmath(nu):
    got = bussgang_cos2("student_t", nu=nu)
    assert 0 <= got <= 1
    assert got == pytest.approx(_exact_student_t_cos2(nu), rel=1e-13)


def test_student_t_cos2_tends_to_two_over_pi_monotonically():
    nus = np.logspace(0.4, 300, 400)
    vals = np.array([bussgang_cos2("student_t", nu=float(nu)) for nu in nus])
    assert np.all(np.diff(vals) >= -2.3e-16)  # a heavier tail never raises cos^2 (to 2 ulp)
    assert vals[-1] == pytest.approx(2 / math.pi, rel=1e-15)


def test_student_t_moments_tend_to_gaussian_ones_without_overflow():
    gauss = absolute_moments("gaussian")
    for nu in (1e16, 1e300):
        assert absolute_moments("student_t", nu=nu) == pytest.approx(gauss, rel=1e-14)
    assert bussgang_cos2("student_t", nu=1e300, n=10) == pytest.approx(
        bussgang_cos2("gaussian", n=10), rel=1e-14
    )


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-150, 1.0, 1e150, 1e200, 1e300])
def test_norms_are_scale_invariant(scale, rng):
    u = rng.standard_normal((3, 8))
    np.testing.assert_allclose(rmsnorm(u * scale), rmsnorm(u), rtol=1e-13)
    np.testing.assert_allclose(layernorm(u * scale, eps=0), layernorm(u, eps=0), rtol=1e-12)
    np.testing.assert_allclose(row_cos2(u * scale), row_cos2(u), rtol=1e-13)
    np.testing.assert_allclose(rms(u * scale) / scale, rms(u), rtol=1e-13)


def test_issue_22_probes_give_correct_numbers():
    np.testing.assert_allclose(rmsnorm(np.full(4, 1e-200)), np.ones(4))
    np.testing.assert_allclose(rmsnorm(np.full(4, 1e200)), np.ones(4))
    np.testing.assert_allclose(
        layernorm([1e200, -1e200, 0], eps=0), [math.sqrt(1.5), -math.sqrt(1.5), 0]
    )
    np.testing.assert_allclose(row_cos2(np.full((2, 4), 1e200)), [1.0, 1.0])


def test_eps_still_dominates_tiny_rows():
    # sqrt(mean(u^2) + eps) with mean(u^2) = 1e-400 (not representable) is sqrt(eps)
    np.testing.assert_allclose(rms(np.full(4, 1e-200), eps=1e-6), [1e-3])
    np.testing.assert_allclose(rmsnorm(np.full(4, 1e-200), eps=1e-6), np.full(4, 1e-197))
    # LayerNorm of a tiny row: (x - mean) / sqrt(var + eps) with var = 2/3 1e-400 -> x / sqrt(eps)
    np.testing.assert_allclose(
        layernorm([1e-200, -1e-200, 0.0], eps=1e-5), [1e-200 / 1e-5**0.5, -1e-200 / 1e-5**0.5, 0]
    )
    assert np.all(np.isfinite(rmsnorm(np.zeros(3), eps=1e-6)))


def test_eps_matches_the_plain_formula_at_ordinary_scales(rng):
    u = rng.standard_normal((5, 6)) * np.array([[1e-4], [1e-2], [1], [1e2], [1e4]])
    for eps in (1e-6, 1e-5, 1.0):
        plain = u / np.sqrt(np.mean(u * u, axis=-1, keepdims=True) + eps)
        np.testing.assert_allclose(rmsnorm(u, eps=eps), plain, rtol=1e-13)
        xc = u - u.mean(axis=-1, keepdims=True)
        plain = xc / np.sqrt(np.mean(xc * xc, axis=-1, keepdims=True) + eps)
        np.testing.assert_allclose(layernorm(u, eps=eps), plain, rtol=1e-12, atol=1e-300)
