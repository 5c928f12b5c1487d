"""Perturbations and the radial/transverse split (companion.theory.perturbations)."""

import re

import numpy as np
import pytest

from companion.theory import perturbations as pt


def test_sign_flip_flips_exactly_the_mask():
    W = pt.gaussian_weights(8, 16, rng=0)
    mask = pt.sign_flip_mask(W.shape, 0.3, rng=1)
    assert np.allclose(W + pt.sign_flip_delta(W, mask=mask), np.where(mask, -W, W))


def test_matched_pair_norms_equal_per_draw_and_signs_kept():
    W = pt.gaussian_weights(32, 64, rng=0)
    for seed in range(3):
        ds, dm = pt.matched_pair(W, 0.05, rng=seed)
        assert np.isclose(np.linalg.norm(ds), np.linalg.norm(dm), rtol=1e-12)
        assert np.all(np.sign(W + dm) == np.sign(W))  # magnitude moves away from zero
        assert np.allclose(np.abs(dm), np.abs(dm[0, 0]))  # one constant delta


def test_independent_noise_has_target_norm():
    W = pt.gaussian_weights(16, 16, rng=0)
    assert np.isclose(np.linalg.norm(pt.independent_noise_delta(W, 3.0, rng=1)), 3.0)


def test_radial_plus_transverse_is_energy():
    g = np.random.default_rng(0)
    d, v = g.standard_normal((50, 7)), g.standard_normal((50, 7))
    r, t = pt.radial_transverse_split(d, v)
    assert np.allclose(r + t, d)
    assert np.allclose(np.sum(r * t, axis=1), 0, atol=1e-12)
    R = pt.radial_fraction(d, v)
    assert np.allclose(
        pt.transverse_energy(d, v) + R * np.sum(d * d, axis=1), np.sum(d * d, axis=1)
    )


def test_isotropic_radial_fraction_is_one_over_d():
    from companion.stats import mean_estimate

    for d in (4, 32):
        g = np.random.default_rng(d)
        R = pt.radial_fraction(g.standard_normal((4000, d)), g.standard_normal((4000, d)))
        assert mean_estimate(R).agrees_with(1 / d)


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (
            lambda: pt.sign_flip_delta(np.ones((2, 2)), 1.5, rng=0),
            ValueError,
            "`p` must be in [0, 1]; got 1.5",
        ),
        (
            lambda: pt.sign_flip_delta(np.ones((2, 2)), -0.1, rng=0),
            ValueError,
            "`p` must be in [0, 1]; got -0.1",
        ),
        (
            lambda: pt.sign_flip_delta(np.ones((2, 2)), mask=np.ones((2, 3), bool)),
            ValueError,
            "`mask` must have the shape of `W` (2, 2); got shape (2, 3)",
        ),
        (
            lambda: pt.sign_flip_delta(np.array([[1.0, np.nan]]), 0.1),
            ValueError,
            "`W` must contain only finite values; got 1 non-finite entries",
        ),
        (lambda: pt.sphere_inputs(10, 1, rng=0), ValueError, "`n` must be an integer >= 2; got 1"),
        (
            lambda: pt.radial_fraction(np.ones(3), np.ones(4)),
            ValueError,
            "`delta` must have the shape of `v` (4,); got shape (3,)",
        ),
        (
            lambda: pt.magnitude_delta(np.ones((2, 2)), -1.0),
            ValueError,
            "`frobenius_norm` must be >= 0; got -1",
        ),
        (
            lambda: pt.matched_pair(np.ones(3), 0.1),
            ValueError,
            "`W` must be a 2-D array; got shape (3,)",
        ),
    ],
)
def test_bad_inputs(call, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        call()
