"""T6: the random-direction null and the exactness classifier."""

import re

import numpy as np
import pytest

from companion.theory.ln_kernel import (
    centred_covariance,
    normalised_activations,
    sample_gamma,
    sample_inputs,
)
from companion.theory.null_classifier import (
    NULL_WIDTHS,
    classify_norm,
    precision_floor,
    random_direction_null,
    simulate_null_cos,
)


@pytest.mark.parametrize("d", [768, 2048, 4096])
def test_null_matches_spec_values(d):
    nd = random_direction_null(d)
    spec = {768: (0.029, 0.118), 2048: (0.018, 0.073), 4096: (0.0125, 0.051)}[d]
    assert nd.mean == pytest.approx(spec[0], abs=6e-4)
    assert nd.q999 == pytest.approx(spec[1], abs=6e-4)
    assert nd.mean == pytest.approx(np.sqrt(2 / (np.pi * d)), rel=2e-3)
    assert nd.quantile(0.999) == pytest.approx(nd.q999) and nd.sf(nd.q99) == pytest.approx(0.01)
    assert nd.q99 < nd.q999


def test_null_exceedance_at_768():
    assert random_direction_null(768).sf(0.10) == pytest.approx(5.5e-3, rel=0.02)


@pytest.mark.parametrize("d", [768, 4096])
def test_null_monte_carlo(d, rng):
    sim = simulate_null_cos(d, samples=20_000, rng=rng)
    nd = random_direction_null(d)
    assert sim["mean"].agrees_with(nd.mean)
    assert sim["exceed_q99"].agrees_with(0.01)


def test_null_density_integrates_to_one():
    nd = random_direction_null(NULL_WIDTHS[0])
    c = np.linspace(0, 1, 200_001)
    assert np.trapezoid(nd.pdf(c), c) == pytest.approx(1.0, abs=1e-6)


def _acts(norm, sigma, precision, *, d=48, n=600, dist="gaussian", seed=0):
    rng = np.random.default_rng(seed)
    x = sample_inputs(n, d, dist, rng=rng)
    g = sample_gamma(d, sigma, rng=rng)
    b = rng.standard_normal(d) if norm == "layernorm" else None
    return g, normalised_activations(x, g, b, norm=norm, precision=precision)


@pytest.mark.parametrize("precision", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("dist", ["gaussian", "student_t", "offset"])
def test_classifier_ln_and_rms(precision, dist):
    for norm in ("layernorm", "rmsnorm"):
        g, Y = _acts(norm, 1.0, precision, dist=dist)
        v = classify_norm(g, Y, dtype=precision)
        assert v.verdict == norm, (norm, precision, dist, v.reason)


def test_classifier_heterogeneous_gamma_rms_trap():
    # very heterogeneous gamma: the RMSNorm bottom direction leans towards gamma^-1 far beyond
    # the null, yet the exactness test still says RMSNorm
    # (here |cos| = 0.998: a |cos| > 0.99 rule would call this RMSNorm model a LayerNorm)
    rng = np.random.default_rng(0)
    d, n = 256, 2048
    x = sample_inputs(n, d, "offset", rng=rng)
    g = sample_gamma(d, 2.0, rng=rng)
    v = classify_norm(g, normalised_activations(x, g, norm="rmsnorm"))
    assert v.cos > 0.99 > 4 * v.null_q999
    assert v.verdict == "rmsnorm" and v.statistic > 1e-3


def test_classifier_from_covariance_and_float32_array():
    g, Y = _acts("layernorm", 1.5, "float32", dist="offset")
    v = classify_norm(
        g, cov=centred_covariance(Y), n_samples=len(Y), mean=Y.mean(0), dtype="float32"
    )
    assert v.verdict == "layernorm" and v.dtype == "float32"
    v32 = classify_norm(g, Y.astype(np.float32))
    assert v32.dtype == "float32" and v32.verdict == "layernorm"
    # without the mean the floor is lower, the verdict unchanged here
    v0 = classify_norm(g, cov=centred_covariance(Y), n_samples=len(Y), dtype="float32")
    assert v0.floor < v.floor and v0.verdict == "layernorm"


def test_classifier_works_below_bottom_threshold():
    g, Y = _acts("rmsnorm", 1.0, "float64", d=48, n=20)
    v = classify_norm(g, Y)
    assert v.verdict == "rmsnorm" and v.report.bottom is None
    # the verdict holds; |cos| has no unique bottom direction to read: one clear error
    with pytest.raises(ValueError, match=r"N = 20 samples .* d = 48"):
        _ = v.cos


def test_bf16_labelled_float64_is_not_called_layernorm():
    # claiming float64 precision for bf16-rounded activations puts them far above the fp64 floor
    g, Y = _acts("layernorm", 1.0, "bfloat16", dist="student_t")
    assert classify_norm(g, Y, dtype="float64").verdict != "layernorm"
    assert classify_norm(g, Y, dtype="bfloat16").verdict == "layernorm"


def test_a_float32_accumulated_layernorm_is_not_called_rmsnorm_once_declared():
    # streaming uncentred sums in float32 bury the kernel at ~(1 + offset) u_32 (the paper's
    # FP64 point); a floor set from the storage precision calls that "rmsnorm"
    rng = np.random.default_rng(1)
    d, n = 64, 4096
    x = rng.standard_normal((n, d)) * np.exp(rng.standard_normal(d)) + 3 * rng.standard_normal(d)
    g = np.ones(d)
    for norm, want in (("layernorm", "layernorm"), ("rmsnorm", "rmsnorm")):
        Y = normalised_activations(x, g, 0.1 * np.ones(d) if norm == "layernorm" else None,
                                   norm=norm)  # fmt: skip
        s, S = np.zeros(d, np.float32), np.zeros((d, d), np.float32)
        for b in np.array_split(Y.astype(np.float32), 8):
            s += b.sum(0)
            S += b.T @ b
        m = s.astype(np.float64) / n
        C = (S.astype(np.float64) / n - np.outer(m, m)) * n / (n - 1)
        told = classify_norm(g, cov=C, n_samples=n, mean=m, dtype="float64", accumulate="float32")
        assert told.verdict == want, (norm, told.reason)
        if norm == "layernorm":
            untold = classify_norm(g, cov=C, n_samples=n, mean=m, dtype="float64")
            assert untold.verdict != "layernorm" and abs(told.statistic) > 1e3 * untold.floor


def test_precision_floor_orders():
    f = [precision_floor(p, 768) for p in ("float64", "float32", "float16", "bfloat16")]
    assert f == sorted(f)
    assert precision_floor("bfloat16", 768, offset_ratio=3.0) > f[-1]


def test_classifier_bad_input():
    g = np.ones(4)
    with pytest.raises(
        TypeError,
        match=re.escape(
            "`dtype` must be given with `cov` (the precision the "
            "activations were produced in, e.g. 'float32'); got None"
        ),
    ):
        classify_norm(g, cov=np.eye(4), n_samples=10)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`dtype` must be one of 'float64', 'float32', 'float16', 'bfloat16'; got 'int8'"
        ),
    ):
        classify_norm(g, cov=np.eye(4), n_samples=10, dtype="int8")
    with pytest.raises(
        ValueError,
        match=re.escape("`gamma` must have length d = 5 (the activation width); got length 4"),
    ):
        classify_norm(g, np.random.default_rng(0).standard_normal((10, 5)))
    with pytest.raises(
        ValueError,
        match=re.escape("`gamma` must have no zero entries; got 1 zero entry at coordinates [0]"),
    ):
        classify_norm([0.0, 1.0, 1.0, 1.0], cov=np.eye(4), n_samples=10, dtype="float32")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`Y` must be a 2-D array of shape (N, d), one sample per row; got shape (4,)"
        ),
    ):
        classify_norm(g, np.ones(4))
    with pytest.raises(ValueError, match=re.escape("`n_samples` must be an integer >= 2; got 1")):
        classify_norm(g, cov=np.eye(4), n_samples=1, dtype="float64")
    with pytest.raises(
        ValueError, match=re.escape("`cov` must be symmetric; got an asymmetry of 1")
    ):
        classify_norm(g, cov=np.eye(4) + np.triu(np.ones((4, 4)), 1), n_samples=10, dtype="float64")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "`accumulate` must be one of 'float64', 'float32', 'float16', 'bfloat16'; got 'int8'"
        ),
    ):
        classify_norm(g, cov=np.eye(4), n_samples=10, dtype="float64", accumulate="int8")
    with pytest.raises(ValueError, match=re.escape("`d` must be an integer >= 2; got 1")):
        random_direction_null(1)


@pytest.mark.parametrize(
    "t, verdict", [(1e-13, "layernorm"), (2e-11, "undetermined"), (1e-8, "rmsnorm")]
)
def test_classifier_three_verdicts_on_a_constructed_covariance(t, verdict):
    # C = I - (1 - t) v v^T with v = v* for gamma = 1: v*^T C v* = t exactly
    d = 16
    v = np.full(d, 1 / np.sqrt(d))
    C = np.eye(d) - (1 - t) * np.outer(v, v)
    out = classify_norm(np.ones(d), cov=C, n_samples=1000, dtype="float32")
    assert out.floor == pytest.approx(precision_floor("float32", d))
    assert out.threshold_layernorm < 2e-11 < out.threshold_rmsnorm
    assert out.verdict == verdict and out.cos == pytest.approx(1.0)
