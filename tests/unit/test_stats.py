import re

import numpy as np
import pytest

from companion.stats import (
    MCEstimate,
    mean_estimate,
    ratio_difference_estimate,
    ratio_estimate,
)


def test_mean_estimate_matches_textbook_formula(rng):
    x = rng.normal(size=1000)
    est = mean_estimate(x)
    assert est.n == 1000
    assert est.value == pytest.approx(x.mean())
    assert est.stderr == pytest.approx(x.std(ddof=1) / np.sqrt(1000))


def test_agrees_with_is_a_k_sigma_test():
    est = MCEstimate(1.0, 0.1, 100)
    assert est.agrees_with(1.39) and not est.agrees_with(1.41)
    assert est.agrees_with(1.19, k=2) and not est.agrees_with(1.21, k=2)
    assert est.z(0.8) == pytest.approx(2.0)


def test_ratio_estimate_standard_error_is_calibrated():
    # Coverage of the delta-method SE over many replications of a ratio of sums.
    rng = np.random.default_rng(1)
    truth = 2.0
    hits = 0
    for _ in range(400):
        b = rng.exponential(1.0, 200)
        a = truth * b + rng.normal(0, 0.5, 200)
        hits += ratio_estimate(a, b).agrees_with(truth, k=2)
    assert 0.92 <= hits / 400 <= 0.98


def test_ratio_difference_standard_error_is_paired_and_calibrated():
    # Two ratios sharing each unit's noise: the paired SE covers the true difference (0.1)
    # at the nominal rate and is far below the SE combined as if the ratios were independent.
    rng = np.random.default_rng(2)
    hits, shrink = 0, []
    for _ in range(400):
        b = rng.exponential(1.0, 50)
        shared = rng.normal(0, 0.5, 50)
        a1 = 2.0 * b + shared
        a2 = 1.9 * b + shared + rng.normal(0, 0.05, 50)
        d = ratio_difference_estimate(a1, b, a2, b)
        hits += d.agrees_with(0.1, k=2)
        shrink.append(
            d.stderr / np.hypot(ratio_estimate(a1, b).stderr, ratio_estimate(a2, b).stderr)
        )
    assert 0.92 <= hits / 400 <= 0.98
    assert np.median(shrink) < 0.2


def test_bad_inputs():
    with pytest.raises(ValueError, match=re.escape("`samples` must hold at least 2 draws; got 1")):
        mean_estimate([1.0])
    with pytest.raises(
        ValueError, match=re.escape("`num` and `den` must have the same length; got 2 and 3")
    ):
        ratio_estimate([1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match=re.escape("`num_b` must pair with `num_a`")):
        ratio_difference_estimate([1, 2], [1, 2], [1, 2, 3], [1, 2, 3])


def test_format():
    assert f"{MCEstimate(0.5, 0.01, 10):.3f}" == "0.500 ± 0.010"
