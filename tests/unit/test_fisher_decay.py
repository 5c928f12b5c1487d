"""The framework under the walk: Fisher decay (k_hat), the LayerNorm bracket, the finite-t
expansion (companion.theory.fisher_decay, ln_bracket, ln_finite_t)."""

import numpy as np
import pytest

from companion.theory import fisher_decay as fd
from companion.theory import ln_bracket as lb
from companion.theory import ln_finite_t as ft
from companion.theory.norms import layernorm


@pytest.mark.parametrize("k", [1, 2, 3])
def test_gaussian_anchor_recovers_k(k):
    ts = np.logspace(-2, -0.5, 6)
    c = fd.simulate_gaussian_fisher(k, ts, n=20_000, rng=k)
    assert np.all(np.abs(c.fisher - c.exact) < 5 * c.stderr)
    k_hat, se = c.k_hat()
    assert abs(k_hat - k) < 4 * se and se < 0.02
    anchor = fd.gaussian_anchor(k, ts)
    assert np.allclose(anchor["fisher"] * ts**2, 2 * k**2 * anchor["kl"], rtol=1e-14)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_chain_recovers_k_and_control_of_another_order_deviates(k):
    ts = np.logspace(-4, -2.5, 5)
    c = fd.simulate_chain_fisher(k, ts, n=20_000, rng=10 + k)
    k_hat, se = c.k_hat()
    assert abs(k_hat - k) < 4 * se + 0.01  # + the remainder's bias O(t)
    other = fd.simulate_chain_fisher(k + 1, ts, n=20_000, rng=10 + k)
    assert abs(other.k_hat()[0] - k) > 0.9  # a curve of a different order reads differently


def test_chain_remainder_bends_the_slope_at_large_t():
    ts = np.logspace(-1, 0.5, 6)
    exact = fd.simulate_chain_fisher(2, ts, rho=1.0, n=100, rng=0).exact
    assert fd.local_slopes(ts, exact)[-1] > 3.0  # far from 2(k-1) = 2: the o(.) matters


def test_learning_coefficient_and_errors():
    assert fd.learning_coefficient([1] * 4) == 2.0
    with pytest.raises(ValueError, match="`ts` must be > 0"):
        fd.gaussian_anchor(1, [0.0, 1.0])
    with pytest.raises(ValueError, match="`ts` must contain only finite"):
        fd.simulate_gaussian_fisher(1, [np.nan])
    with pytest.raises(ValueError, match="`k`"):
        fd.simulate_chain_fisher(0, [0.1])
    with pytest.raises(ValueError, match="`ks`"):
        fd.learning_coefficient([])


def test_ln_jacobian_matches_finite_differences_with_gamma():
    rng = np.random.default_rng(0)
    x, g, b = rng.standard_normal(7), rng.standard_normal(7), rng.standard_normal(7)
    J = lb.ln_jacobian(x, g, eps=1e-2)
    h = 1e-6
    fdj = np.stack(
        [
            (layernorm(x + h * e, g, b, 1e-2) - layernorm(x - h * e, g, b, 1e-2)) / (2 * h)
            for e in np.eye(7)
        ],
        axis=1,
    )
    assert np.allclose(J, fdj, atol=1e-8)
    p, leak = lb.dead_passthrough(x, 3, eps=1e-2)
    xc = x - x.mean()
    s = np.sqrt(xc @ xc / 7 + 1e-2)
    z = xc / s
    assert np.isclose(p, (1 - 1 / 7 - z[3] ** 2 / 7) / s)
    others = np.delete(np.arange(7), 3)
    assert np.allclose(leak[others], -(1 / 7 + z[3] * z[others] / 7) / s)


def test_bracket_plateau_full_count_and_eps_crossover():
    ts = np.logspace(-4, 0, 9)
    plateau, full = lb.bracket_rates(2, 1)
    with_norm = lb.bracket_chain(ts, k_pre=2, k_post=1, rng=0)
    without = lb.bracket_chain(ts, k_pre=2, k_post=1, norm=False, rng=0)
    assert np.allclose(fd.local_slopes(ts, with_norm), plateau, atol=1e-9)
    assert np.allclose(fd.local_slopes(ts, without), full, atol=1e-9)
    # eps > 0: the reset holds above t*, the full count returns below it
    t_star = lb.crossover_t(2, 1e-6, 1.0)
    slopes = fd.local_slopes(ts, lb.bracket_chain(ts, k_pre=2, k_post=1, eps=1e-6, rng=0))
    assert np.all(np.abs(slopes[ts > 10 * t_star] - plateau) < 0.1)
    assert np.all(np.abs(slopes[ts < t_star / 10] - full) < 0.1)


def test_finite_t_three_regimes_and_fit():
    ts = np.logspace(-5, 4, 10)
    c = ft.simulate_three_term(ts, n=20_000, rng=0)
    assert np.all(np.abs(c.fisher - c.exact) < 5 * c.stderr)
    c0, c2, c4 = 1e-6, 1.0, 1e-4
    lo, hi = ft.regime_edges(c0, c2, c4)
    a = ft.expansion_slope(ts, c0, c2, c4)
    assert np.all(a[ts < lo / 30] < 0.01)
    mid = (ts > 30 * lo) & (ts < hi / 30)
    assert np.all(np.abs(a[mid] - 2) < 0.01)
    assert np.all(np.abs(a[ts > 30 * hi] - 4) < 0.01)
    assert np.allclose(ft.fit_expansion(ts, c.fisher), [1e-6, 1.0, 1e-4], rtol=0.05)


def test_inverse_variance_moment_finite_iff_d_at_least_4():
    assert ft.inverse_variance_moment(3) == np.inf
    for d in (6, 12):
        assert ft.simulate_inverse_variance(d, n=50_000, rng=d).agrees_with(d / (d - 3))
    # d = 3: infinite mean, the running mean keeps growing with n
    small = ft.simulate_inverse_variance(3, n=1000, rng=1).value
    large = ft.simulate_inverse_variance(3, n=200_000, rng=1).value
    assert large > small
