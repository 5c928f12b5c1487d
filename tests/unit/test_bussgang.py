import math
import re

import numpy as np
import pytest

from companion.theory import sign_magnitude as sm


def test_gaussian_limit_is_two_over_pi():
    assert sm.bussgang_cos2() == pytest.approx(2 / math.pi, abs=1e-15)


@pytest.mark.parametrize(
    "dist, limit",
    [
        ("laplace", 0.5),
        ("uniform", 0.75),
        ("student_t", 4 / math.pi**2),
    ],
)
def test_other_limits(dist, limit):
    assert sm.bussgang_cos2(dist, nu=3) == pytest.approx(limit, rel=1e-12)


def test_student_t_tends_to_gaussian():
    assert sm.bussgang_cos2("student_t", nu=1e6) == pytest.approx(2 / math.pi, rel=1e-5)


@pytest.mark.parametrize("n", [8, 64, 1024])
def test_gaussian_finite_width_formula_is_exact(n, rng):
    # E cos^2 = 2/pi + (1 - 2/pi)/n at every width: an exact identity, so 4 SE at any n.
    est = sm.simulate_bussgang_cos2(n, samples=20000, rng=rng)
    assert est.agrees_with(2 / math.pi + (1 - 2 / math.pi) / n)
    assert est.agrees_with(sm.bussgang_cos2(n=n))


@pytest.mark.parametrize("dist", ["laplace", "uniform", "student_t"])
def test_first_order_width_correction_at_large_n(dist, rng):
    est = sm.simulate_bussgang_cos2(2048, dist=dist, samples=3000, nu=8, rng=rng)
    assert est.agrees_with(sm.bussgang_cos2(dist, n=2048, nu=8))
    # ... and the limit alone is measurably worse for the 1/n term's sign
    assert (
        abs(est.value - sm.bussgang_cos2(dist, n=2048, nu=8))
        <= abs(est.value - sm.bussgang_cos2(dist, nu=8)) + 4 * est.stderr
    )


def test_row_cos2_is_scale_free(rng):
    w = rng.standard_normal((5, 100))
    assert np.allclose(sm.row_cos2(w), sm.row_cos2(7.5 * w))


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: sm.simulate_bussgang_cos2(n=1), ValueError, "`n` must be an integer >= 2; got 1"),
        (
            lambda: sm.simulate_bussgang_cos2(16, samples=0),
            ValueError,
            "`samples` must be an integer >= 2; got 0",
        ),
        (
            lambda: sm.simulate_bussgang_cos2(16, dist="cauchy"),
            ValueError,
            "`dist` must be one of 'gaussian', 'laplace', 'student_t', 'uniform'; got 'cauchy'",
        ),
        (
            lambda: sm.simulate_bussgang_cos2(16, dist="student_t", nu=float("inf")),
            ValueError,
            "`nu` must be finite; got inf",
        ),
        (lambda: sm.bussgang_cos2("student_t", nu=2), ValueError, "`nu` must be > 2; got 2"),
        (
            lambda: sm.bussgang_cos2("student_t", n=10, nu=3),
            ValueError,
            "`nu` must be > 4 for a finite-n correction; got 3",
        ),
        (
            lambda: sm.row_cos2(np.ones(4)),
            ValueError,
            "`W` must be a 2-D array with at least 2 columns; got shape (4,)",
        ),
    ],
)
def test_bad_input(call, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        call()
