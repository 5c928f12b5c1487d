import re

import numpy as np
import pytest

from companion.theory.ln_kernel import sample_gamma
from companion.theory.norms import layernorm
from companion.theory.schur_ratio import (
    deflate,
    delta_gamma,
    mp_baseline,
    schur_ratio,
    schur_ratios_coordinates,
    simulate_schur_ratio,
)


def test_inverse_and_complement_forms_agree(rng):
    X = rng.standard_normal((200, 6)) @ rng.standard_normal((6, 6))
    S = np.cov(X.T)
    for _ in range(3):
        h = rng.standard_normal(6)
        assert schur_ratio(S, h) == pytest.approx(schur_ratio(S, h, method="complement"), rel=1e-10)
    np.testing.assert_allclose(
        schur_ratios_coordinates(S), [schur_ratio(S, e) for e in np.eye(6)], rtol=1e-10
    )


def test_planted_dead_direction_gives_delta_gamma_near_one(rng):
    X = rng.standard_normal((2000, 5))
    X[:, 0] = X[:, 1:] @ np.array([1.0, -2.0, 0.5, 1.0]) + 1e-3 * rng.standard_normal(2000)
    assert delta_gamma(np.cov(X.T), np.eye(5)[0]) > 0.999


@pytest.mark.parametrize("d, ratio", [(16, 2), (16, 8), (32, 4)])
def test_mp_baseline_within_4_se(d, ratio, rng):
    N = ratio * d
    est = simulate_schur_ratio(d, N, trials=60, rng=rng)
    assert est.agrees_with(mp_baseline(d, N))
    assert abs(mp_baseline(d, N) - mp_baseline(d, N, exact=False)) < 2 / N


def test_post_ln_covariance_is_0_over_0_until_deflated(rng):
    d = 8
    gamma, beta = sample_gamma(d, 0.5, rng=rng), rng.standard_normal(d)
    Y = layernorm(rng.standard_normal((400, d)), gamma, beta)
    S = np.cov(Y.T)
    vstar = (1 / gamma) / np.linalg.norm(1 / gamma)
    with pytest.raises(
        ValueError, match=re.escape("`cov` must be positive definite for the Schur ratio")
    ):
        schur_ratio(S, vstar)
    Sp, B = deflate(S, vstar)
    assert np.all(np.isfinite(schur_ratios_coordinates(Sp)))


def test_bad_inputs():
    with pytest.raises(ValueError, match=re.escape("`cov` must be a 2-D array; got shape (3,)")):
        schur_ratio(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match=re.escape("`h` must have length d = 2; got length 3")):
        schur_ratio(np.eye(2), np.ones(3))
    with pytest.raises(
        ValueError,
        match=re.escape("`cov` must contain only finite values; got 1 non-finite entries"),
    ):
        schur_ratio(np.array([[1.0, np.nan], [0.0, 1.0]]), [1.0, 0.0])
    with pytest.raises(
        ValueError, match=re.escape("`h` must be a non-zero vector; got the zero vector")
    ):
        schur_ratio(np.eye(2), [0.0, 0.0])
    with pytest.raises(
        ValueError, match=re.escape("`method` must be one of 'inverse', 'complement'; got 'lu'")
    ):
        schur_ratio(np.eye(2), [1.0, 0.0], method="lu")
    with pytest.raises(ValueError, match=re.escape("`n_samples` must be an integer >= 9; got 8")):
        mp_baseline(8, 8)
