import math
import re

import numpy as np
import pytest

from companion.theory import multilayer as ml


# L = 1 closed forms (m = infinity) against the chains at m = 1024, where the finite-width
# offset (about -1% at m = 512, falling like 1/m) is inside the 4-SE band of these sizes.
@pytest.mark.parametrize("variant, p", [("V2", 0.05), ("V3", 0.02)])
def test_first_layer_closed_form_matches_simulation(variant, p, rng):
    res = ml.simulate_chain(variant, "relu", p, 1024, 1, samples=400, seeds=5, rng=rng)
    for readout in ml.READOUTS:  # both readouts come from the same forward passes
        assert res.ratios(readout)[0].agrees_with(
            ml.first_layer_ratio(variant, "relu", p, readout=readout)
        )


def test_silu_closed_form_is_its_linear_regime(rng):
    # SiLU is taken as linear (silu(z) = z/2 + O(z^2) at |z| ~ 1/sqrt(m)): good to about 1%
    res = ml.simulate_chain("V2", "silu", 0.02, 512, 1, samples=400, seeds=4, rng=rng)
    assert res.ratio[0].value == pytest.approx(ml.first_layer_ratio("V2", "silu", 0.02), rel=0.01)


def test_v2_relu_first_order_is_theorem3_exact_kernel():
    # c_exact(p) of the spec's section 3.3, evaluated there: 2.6683 (0.01), 2.4790 (0.05)
    assert ml.first_layer_ratio("V2", "relu", 0.01, readout="prenorm") == pytest.approx(
        2.6683, abs=1e-4
    )
    assert ml.first_layer_ratio("V2", "relu", 0.05, readout="prenorm") == pytest.approx(
        2.4790, abs=1e-4
    )
    # and tends to pi/(pi-2) as p -> 0
    assert ml.first_layer_ratio("V2", "relu", 1e-8, readout="prenorm") == pytest.approx(
        ml.COMPOUNDING_BASE, rel=1e-3
    )


def test_finite_difference_inflation_explains_v2():
    # V2's reading is the first-order ratio times 1 + 4 sqrt(2p/pi) + 4p
    # (spec 4.4: 2.64 x 1.36 = 3.60)
    for p in (0.01, 0.02, 0.05):
        ratio = ml.first_layer_ratio("V2", "relu", p) / ml.first_layer_ratio(
            "V2", "relu", p, readout="prenorm"
        )
        assert ratio == pytest.approx(1 + 4 * math.sqrt(2 * p / math.pi) + 4 * p, rel=1e-12)


def test_closed_forms_close_to_authors_wide_chains():
    # the author's m = 2048 values sit within 0.5% of our m = infinity closed forms
    for variant in ml.VARIANTS:
        for p in (0.01, 0.02, 0.05):
            ref = ml.author_table3(variant, "relu", 2048, p)[0]
            assert ml.first_layer_ratio(variant, "relu", p) == pytest.approx(ref, rel=5e-3)


@pytest.mark.parametrize("key", sorted(ml.AUTHOR_BETA_FITS))
def test_fit_reproduces_authors_stored_fits(key):
    # the author fits the seed-mean C_L; their stored fits follow from the stored means
    beta0, r2, beta_free = ml.AUTHOR_BETA_FITS[key]
    fit = ml.fit_compounding(ml.AUTHOR_TABLE3[key])
    assert fit.beta_origin == pytest.approx(beta0, abs=6e-4)
    assert fit.r2_origin == pytest.approx(r2, abs=2e-3)
    assert fit.beta_free == pytest.approx(beta_free, abs=6e-4)


def test_fit_recovers_a_true_compounding_law():
    L = np.arange(1, 7)
    fit = ml.fit_compounding(ml.compounding_prediction(L, beta=0.7))
    assert fit.beta_origin == pytest.approx(0.7) and fit.beta_free == pytest.approx(0.7)
    assert fit.r2_origin == pytest.approx(1.0) and abs(fit.intercept) < 1e-12
    assert fit.predict(3, "origin") == pytest.approx(ml.compounding_prediction(3, beta=0.7))


def test_no_compounding_at_small_scale(rng):
    res = ml.simulate_chain("V2", "relu", 0.02, 128, 4, samples=300, seeds=4, rng=rng)
    fit = ml.fit_compounding(res)
    assert fit.beta_free + 4 * fit.beta_free_se < 0.2
    assert fit.estimate("free").n == 4
    assert res.values[-1] < ml.compounding_prediction(4, beta=0.5)


def test_chain_result_shapes_truncation_and_determinism():
    a = ml.simulate_chain("V3", "silu", 0.05, 32, 3, samples=50, seeds=2, rng=7)
    b = ml.simulate_chain("V3", "silu", 0.05, 32, 3, samples=50, seeds=2, rng=7)
    assert a.depths.tolist() == [1, 2, 3] and a.readout == "prenorm"
    np.testing.assert_array_equal(a.values, b.values)
    assert a.upto(2).values.tolist() == a.values[:2].tolist()
    assert len(a.ratios("normalised")) == 3 and np.all(a.stderrs >= 0)


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: ml.simulate_chain("V4", "relu", 0.01, 16, 2),
            "`variant` must be one of 'V2', 'V3'; got 'V4'",
        ),
        (
            lambda: ml.simulate_chain("V2", "gelu", 0.01, 16, 2),
            "`activation` must be one of 'relu', 'silu'; got 'gelu'",
        ),
        (lambda: ml.simulate_chain("V2", "relu", 1.5, 16, 2), "`p` must be in (0, 1]; got 1.5"),
        (lambda: ml.simulate_chain("V2", "relu", -0.1, 16, 2), "`p` must be in (0, 1]; got -0.1"),
        (
            lambda: ml.simulate_chain("V2", "relu", 0.01, 16, 0),
            "`depth` must be an integer >= 1; got 0",
        ),
        (lambda: ml.simulate_chain("V2", "relu", 0.01, 1, 2), "`m` must be an integer >= 2; got 1"),
        (
            lambda: ml.simulate_chain("V2", "relu", 0.01, 16, 2, seeds=1),
            "`seeds` must be an integer >= 2; got 1",
        ),
        (
            lambda: ml.simulate_chain("V2", "relu", 0.01, 16, 2, perturb="last"),
            "`perturb` must be one of 'all', 'first'; got 'last'",
        ),
        (
            lambda: ml.simulate_chain("V2", "relu", 0.01, 16, 2, readout="post"),
            "`readout` must be one of 'normalised', 'prenorm'; got 'post'",
        ),
        (
            lambda: ml.first_layer_ratio("V2", "tanh", 0.01),
            "`activation` must be one of 'relu', 'silu'; got 'tanh'",
        ),
        (lambda: ml.fit_compounding([3.0]), "`values` must hold at least 2 depths; got 1"),
        (lambda: ml.fit_compounding([3.0, -1.0]), "`values` must be positive; got -1"),
        (
            lambda: ml.fit_compounding([3.0, 2.0]).estimate("free"),
            "`fit` must come from a ChainResult to carry a standard error; got bare values",
        ),
    ],
)
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()
