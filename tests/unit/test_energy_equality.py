"""Proposition 1 (companion.theory.energy_equality)."""

import re

import numpy as np
import pytest

from companion.theory import energy_equality as ee
from companion.theory.perturbations import gaussian_weights, sign_flip_delta


@pytest.mark.parametrize("m, n, p", [(64, 32, 0.05), (32, 128, 0.2)])
def test_energy_equality_simulation(m, n, p):
    dW = sign_flip_delta(gaussian_weights(m, n, rng=1), p, rng=2)
    est = ee.simulate_energy_equality(dW, samples=4000, rng=3)
    assert est.agrees_with(ee.energy_equality(dW))


def test_energy_equality_any_matrix():
    dW = np.arange(12.0).reshape(3, 4)
    assert ee.energy_equality(dW) == pytest.approx(np.sum(dW**2) / 4)


@pytest.mark.parametrize("p, n, m", [(0.05, 1024, 64), (0.2, 128, 128)])
def test_single_layer_closed_forms(p, n, m):
    r = ee.simulate_single_layer(p, n, m, samples=300, seeds=8, rng=10)
    assert r.R_sign.agrees_with(ee.single_layer_radial_fraction(p, m=m))
    assert r.R_noise.agrees_with(ee.single_layer_radial_fraction(kind="noise", m=m))
    assert r.T_ratio.agrees_with(ee.single_layer_transverse_ratio(p))
    assert r.energy_ratio.agrees_with(1.0)
    assert r.T_ratio.value > 1  # the opposite ordering to Theorem 3


def test_limits():
    assert ee.single_layer_radial_fraction(0.1) == 0.1
    assert ee.single_layer_radial_fraction(kind="magnitude") == pytest.approx(2 / np.pi)


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: ee.single_layer_radial_fraction(1.5), "`p` must be in [0, 1]; got 1.5"),
        (lambda: ee.single_layer_radial_fraction(0.1, m=1), "`m` must be an integer >= 2; got 1"),
        (
            lambda: ee.single_layer_radial_fraction(0.1, kind="flip"),
            "`kind` must be one of 'sign', 'noise', 'magnitude'; got 'flip'",
        ),
        (lambda: ee.single_layer_transverse_ratio(1.0), "`p` must be in [0, 1); got 1"),
        (lambda: ee.simulate_single_layer(0.1, 1), "`n` must be an integer >= 2; got 1"),
        (lambda: ee.simulate_single_layer(-0.2, 8), "`p` must be in (0, 1]; got -0.2"),
        (
            lambda: ee.energy_equality(np.array([[1.0, np.inf]])),
            "`delta_W` must contain only finite values; got 1 non-finite entries",
        ),
        (
            lambda: ee.simulate_energy_equality(np.ones((3, 1))),
            "`delta_W` must have at least 2 columns (n >= 2); got shape (3, 1)",
        ),
    ],
)
def test_bad_inputs(call, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()
