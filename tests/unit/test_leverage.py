import math
import re

import numpy as np
import pytest

from companion.theory import leverage as lv
from companion.theory import sign_magnitude as sm


@pytest.mark.parametrize("alpha, n", [(0.05, 2048), (0.26, 2048), (0.3, 256)])
def test_exact_kernel_matches_simulation(alpha, n, rng):
    est = lv.simulate_leverage(alpha, n, samples=200_000, rng=rng)
    assert est.agrees_with(lv.leverage(alpha, n, kind="exact"))


@pytest.mark.parametrize("alpha, n", [(0.05, 64), (0.3, 64)])
def test_full_rows_agree_with_the_one_number_reduction(alpha, n, rng):
    est = lv.simulate_leverage(alpha, n, samples=40_000, full_rows=True, rng=rng)
    assert est.agrees_with(lv.leverage(alpha, n, kind="exact"))


def test_pre_relu_leverage_is_exactly_n_alpha_squared(rng):
    est = lv.simulate_leverage(0.2, 512, samples=50, stage="pre_relu", rng=rng)
    assert est.value == pytest.approx(512 * 0.04, rel=1e-12) and est.stderr < 1e-9


def test_first_order_formula_and_orientation_values():
    # spec 3.5: n = 2048, alpha = 0.26 -> n alpha^2 = 138.4, code formula 123.2, exact kernel 124.2
    assert lv.leverage(0.26, 2048, kind="pre_relu") == pytest.approx(138.4, abs=0.05)
    assert lv.leverage(0.26, 2048) == pytest.approx(123.2, abs=0.05)
    assert lv.leverage(0.26, 2048, kind="exact") == pytest.approx(124.2, abs=0.05)
    # the first-order formula's error is O(alpha^2) relative, once the reference entry's own
    # ReLU correction 1 - 4/(3 pi sqrt(n)) (which the formula leaves out) is put back
    for n in (2048, 10**6):
        ref = 1 - 4 / (3 * math.pi * math.sqrt(n))
        for a in (0.01, 0.03, 0.1):
            assert (
                abs(lv.leverage(a, n, kind="exact") * ref / lv.leverage(a, n) - 1)
                < 2 * a**2 + 2 / n
            )


def test_delocalised_entry_has_unit_leverage():
    n = 1000
    for kind in ("pre_relu", "exact"):
        assert lv.leverage(1 / math.sqrt(n), n, kind=kind) == pytest.approx(1.0, rel=1e-12)
    np.testing.assert_allclose(lv.leverage(np.array([0.0, 0.1]), 100, kind="pre_relu"), [0.0, 1.0])


def test_aggregate_leverage():
    flat = lv.aggregate_leverage(np.ones(200))
    assert flat.ratio == pytest.approx(1.0) and flat.n_mean_alpha2 == pytest.approx(1.0)
    assert flat.n_outliers == 10 and flat.bound == pytest.approx(19.0)
    # the [GUESS] reading of R_col <= 19: ratio <= (1-f)/f exactly when the outliers hold at
    # most half the energy
    half = lv.aggregate_leverage(np.r_[np.full(10, 19.0), np.ones(190)])
    assert half.energy_share == pytest.approx(0.5) and half.ratio == pytest.approx(19.0)
    assert lv.column_leverage_bound(0.05) == pytest.approx(19.0)


def test_reexported_from_sign_magnitude():
    assert sm.leverage is lv.leverage and sm.simulate_leverage is lv.simulate_leverage


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: lv.leverage(1.5, 100), "`alpha` must be in [0, 1]; got 1.5"),
        (lambda: lv.leverage(-0.1, 100), "`alpha` must be in [0, 1]; got -0.1"),
        (lambda: lv.leverage(0.1, 1), "`n` must be an integer >= 2; got 1"),
        (
            lambda: lv.leverage(0.1, 100, kind="taylor"),
            "`kind` must be one of 'pre_relu', 'post_relu', 'exact'; got 'taylor'",
        ),
        (lambda: lv.simulate_leverage(1.2, 100), "`alpha` must be in [0, 1]; got 1.2"),
        (lambda: lv.simulate_leverage(0.1, 1), "`n` must be an integer >= 2; got 1"),
        (
            lambda: lv.simulate_leverage(0.1, 100, stage="post_norm"),
            "`stage` must be one of 'pre_relu', 'post_relu'; got 'post_norm'",
        ),
        (lambda: lv.simulate_leverage([0.1, 0.2], 100), "`alpha` must be a scalar; got shape (2,)"),
        (
            lambda: lv.simulate_leverage(float("nan"), 100),
            "`alpha` must contain only finite values; got 1 non-finite entries",
        ),
        (lambda: lv.column_leverage_bound(0.0), "`outlier_fraction` must be in (0, 1); got 0"),
        (lambda: lv.aggregate_leverage([1.0]), "`alpha2` must hold at least 2 columns; got 1"),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()
