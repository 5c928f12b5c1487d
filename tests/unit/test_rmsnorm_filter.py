"""RMSNorm as a radial filter (companion.theory.rmsnorm_filter + norms)."""

import re

import numpy as np
import pytest

from companion.theory import rmsnorm_filter as rf
from companion.theory.norms import rmsnorm, rmsnorm_jacobian


@pytest.mark.parametrize("d, with_gain", [(3, False), (64, True)])
def test_jacobian_matches_finite_differences(d, with_gain):
    g = np.random.default_rng(d)
    u = g.standard_normal(d)
    gain = 1 + 0.3 * g.standard_normal(d) if with_gain else None
    assert rf.jacobian_fd_error(u, gain, directions=6, rng=1) < 1e-7
    assert np.max(np.abs(rmsnorm_jacobian(u, gain) @ u)) < 1e-12


def test_first_order_energy_identity():
    g = np.random.default_rng(0)
    u, delta = g.standard_normal(16), 1e-6 * g.standard_normal(16)
    exact, lin = rf.rmsnorm_change(u, delta)
    assert np.allclose(exact, lin, rtol=1e-4, atol=1e-12)
    assert np.sum(lin**2) == pytest.approx(rf.first_order_output_energy(u, delta), rel=1e-10)


def test_scale_invariance():
    u = np.array([1.0, -2.0, 0.5])
    assert np.allclose(rmsnorm(3.7 * u), rmsnorm(u))


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: rf.rmsnorm_change(np.ones(3), np.ones(4)),
            "`delta` must have the shape of `u` (3,); got shape (4,)",
        ),
        (
            lambda: rf.first_order_output_energy(np.array([1.0, np.nan]), np.ones(2)),
            "`u` must contain only finite values; got 1 non-finite entries",
        ),
        (lambda: rf.jacobian_fd_error(np.ones(3), h=0.0), "`h` must be > 0; got 0"),
        (lambda: rmsnorm_jacobian(np.zeros(3)), "`u` must be non-zero; got the zero vector"),
    ],
)
def test_bad_inputs(call, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()
