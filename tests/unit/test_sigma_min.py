import re

import numpy as np
import pytest

from companion.theory.norms import layernorm
from companion.theory.sigma_min import (
    GramAccumulator,
    cancellation_bound,
    residual_toy,
    sigma_min_profile,
)

# -- the streaming accumulator equals the one-shot computation ------------------------


@pytest.mark.parametrize("splits", [1, 3, 17])
def test_streaming_equals_one_shot(splits, rng):
    # a large mean on top of anisotropic spread: the case where naive sum x x^T loses digits
    X = rng.standard_normal((600, 12)) @ rng.standard_normal((12, 12)) + 50.0  # (N, d)
    acc = GramAccumulator()
    for b in np.array_split(X, splits):
        acc.update(b)
    Xc = X - X.mean(0)
    assert acc.n == 600 and acc.d == 12
    np.testing.assert_allclose(acc.mean, X.mean(0), rtol=1e-13)
    np.testing.assert_allclose(
        acc.comoment, Xc.T @ Xc, rtol=1e-10, atol=1e-9 * np.abs(Xc.T @ Xc).max()
    )
    np.testing.assert_allclose(acc.gram, X.T @ X, rtol=1e-11)
    np.testing.assert_allclose(acc.covariance(), np.cov(X.T), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(acc.covariance(centred=False), X.T @ X / 600, rtol=1e-11)
    for centred, M in [(False, X), (True, Xc)]:
        s = np.linalg.svd(M, compute_uv=False)
        assert acc.sigma_min(centred=centred) == pytest.approx(s[-1], rel=1e-8)
        np.testing.assert_allclose(acc.singular_values(centred), s, rtol=1e-8)


def test_leading_axes_flatten_and_float32_input_accumulates_in_float64(rng):
    X = rng.standard_normal((4, 50, 6)).astype(np.float32)  # (batch, seq, d)
    acc = GramAccumulator().update(X)
    rows = X.reshape(-1, 6).astype(np.float64)
    assert acc.n == 200 and acc.gram.dtype == np.float64
    np.testing.assert_allclose(acc.gram, rows.T @ rows, rtol=1e-12)


def test_merge_equals_single_stream(rng):
    X = rng.standard_normal((300, 5)) + 2.0
    a, b, whole = GramAccumulator(), GramAccumulator(), GramAccumulator()
    a.update(X[:100])
    b.update(X[100:])
    whole.update(X)
    a.merge(b)
    np.testing.assert_allclose(a.comoment, whole.comoment, rtol=1e-12, atol=1e-12)
    assert a.n == whole.n


def test_merge_moments_equals_update(rng):
    X = rng.standard_normal((120, 4)) + 5.0
    a, b = GramAccumulator(), GramAccumulator()
    for part in np.array_split(X, 3):
        a.update(part)
        mu = part.mean(0)
        b.merge_moments(part.shape[0], mu, (part - mu).T @ (part - mu))
    np.testing.assert_allclose(b.comoment, a.comoment, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.mean, a.mean, rtol=1e-14)
    with pytest.raises(ValueError, match=re.escape("`mean` must have length d = 4; got length 3")):
        b.merge_moments(2, np.zeros(3), np.zeros((3, 3)))
    with pytest.raises(
        ValueError, match=re.escape("`comoment` must have shape (4, 4); got shape (4, 3)")
    ):
        b.merge_moments(2, np.zeros(4), np.zeros((4, 3)))


def test_empty_batch_is_noop_and_quadratic_form(rng):
    acc = GramAccumulator(3).update(np.zeros((0, 3)))
    assert acc.n == 0
    X = rng.standard_normal((40, 3))
    acc.update(X)
    v = np.array([1.0, 2.0, -1.0])
    Xc = X - X.mean(0)
    assert acc.quadratic_form(v) == pytest.approx(np.sum((Xc @ v) ** 2) / 6, rel=1e-12)


# -- T4: monotone under non-cancellation, collapse under cancellation ----------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_profile_monotone_under_psd_pairing(seed):
    toy = residual_toy(24, 10, n=200, cancel=0.0, rng=seed)
    assert toy.branch_pairing.min() >= -1e-12
    prof = sigma_min_profile(toy.states)
    assert prof.monotone and prof.min_ratio >= 1 - 1e-12
    # and the streaming read gives the same profile
    accs = [GramAccumulator().update(X) for X in toy.states]
    np.testing.assert_allclose(sigma_min_profile(accs).ratio, prof.ratio, rtol=1e-7)


@pytest.mark.parametrize("cancel", [0.5, 0.7])
def test_profile_collapses_under_cancellation(cancel):
    toy = residual_toy(24, 12, n=200, cancel=cancel, rng=0)
    assert toy.branch_pairing.max() < 0  # hypothesis violated in every block
    prof = sigma_min_profile(toy.states)
    bound = cancellation_bound(toy, cancel)
    assert np.all(prof.ratio <= bound * (1 + 1e-9))
    assert prof.ratio[-1] <= (1 - cancel) ** 12 * bound[0] * (1 + 1e-9)
    assert prof.ratio[-1] < 1e-3


def test_full_cancellation_kills_the_floor_in_one_block():
    toy = residual_toy(16, 3, n=100, cancel=1.0, rng=0)
    prof = sigma_min_profile(toy.states)
    assert prof.ratio[1] < 1e-13


# -- T3: post-LN nodes have centred sigma_min = 0 -------------------------------------


def test_post_ln_centred_sigma_min_is_zero(rng):
    d = 16
    X = rng.standard_t(3, (500, d)) * 3 + rng.standard_normal(d)  # (N, d) pre-norm
    gamma = rng.lognormal(0, 1, d) * rng.choice([-1, 1], d)
    beta = rng.standard_normal(d)
    Y = layernorm(X, gamma, beta, eps=1.0)  # (N, d) post-LN
    prof = sigma_min_profile([X, Y], centred=True)
    assert prof.sigma_min[1] <= 1e-14 * prof.sigma_max[1]
    acc = GramAccumulator().update(Y)
    vstar = (1 / gamma) / np.linalg.norm(1 / gamma)
    assert acc.quadratic_form(vstar) <= 1e-15 * acc.singular_values(True)[0] ** 2
    # uncentred, the reading along v* is the constant c = <1/gamma, beta>/||1/gamma||: not 0
    c = (1 / gamma) @ beta / np.linalg.norm(1 / gamma)
    assert acc.quadratic_form(vstar, centred=False) == pytest.approx(500 * c**2, rel=1e-9)


# -- bad inputs -----------------------------------------------------------------------


def test_bad_inputs():
    acc = GramAccumulator()
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`X_batch` must be a 2-D array (samples, d) or have more leading axes; got shape (3,)"
        ),
    ):
        acc.update(np.ones(3))
    acc.update(np.ones((2, 3)))
    with pytest.raises(
        ValueError, match=re.escape("`X_batch` must have last axis d = 3; got shape (2, 4)")
    ):
        acc.update(np.ones((2, 4)))
    with pytest.raises(
        ValueError,
        match=re.escape("`X_batch` must contain only finite values; got 1 non-finite entries"),
    ):
        acc.update(np.array([[1.0, np.nan, 0.0]]))
    with pytest.raises(ValueError, match=re.escape("`n` must be >= 1 accumulated rows; got 0")):
        _ = GramAccumulator().gram
    with pytest.raises(ValueError, match=re.escape("`n` must be >= 2 accumulated rows; got 1")):
        GramAccumulator().update(np.ones((1, 3))).covariance()
    with pytest.raises(
        ValueError, match=re.escape("`states[1]` must have last axis d = 3; got shape (5, 4)")
    ):
        sigma_min_profile([np.eye(5)[:, :3], np.ones((5, 4))])
    with pytest.raises(ValueError, match=re.escape("`states` must hold at least 1 state; got 0")):
        sigma_min_profile([])
    with pytest.raises(
        ValueError, match=re.escape("`method` must be one of 'auto', 'gram', 'svd'; got 'qr'")
    ):
        sigma_min_profile([np.eye(3)], method="qr")
    with pytest.raises(ValueError, match=re.escape("`cancel` must be in [0, 2]; got 3")):
        residual_toy(cancel=3)
    with pytest.raises(
        ValueError,
        match=re.escape("`states[0]` must have sigma_min > 0 to normalise the profile; got 0.0"),
    ):
        sigma_min_profile([np.zeros((4, 2))])
