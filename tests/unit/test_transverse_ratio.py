"""Theorem 3 (companion.theory.transverse_ratio)."""

import re

import numpy as np
import pytest

from companion.theory import transverse_ratio as tr


def test_limit_and_paper_formula():
    assert tr.transverse_ratio_limit() == pytest.approx(np.pi / (np.pi - 2))
    assert tr.transverse_ratio_paper(0.0) == pytest.approx(tr.transverse_ratio_limit())
    vals = tr.transverse_ratio_paper(np.array([0.01, 0.02, 0.05, 0.10]))
    assert np.allclose(vals, [2.610, 2.538, 2.378, 2.176], atol=6e-4)
    fig = tr.transverse_ratio_paper(np.array([0.01, 0.1]), variant="figure")
    assert np.all(np.abs(fig / tr.transverse_ratio_paper(np.array([0.01, 0.1])) - 1) < 0.015)


def test_exact_kernel_tends_to_limit_and_expansions():
    assert tr.transverse_ratio_exact(1e-10) == pytest.approx(tr.transverse_ratio_limit(), abs=1e-3)
    for p in (1e-4, 1e-3):
        b = tr.branch_moments(p)
        assert b.R_sign == pytest.approx(p - 4 * p**1.5 / (3 * np.pi), rel=2e-3)
        assert b.R_mag == pytest.approx(2 / np.pi, abs=0.01)


def test_exact_values_from_the_spec():
    got = tr.transverse_ratio_exact(np.array([1e-4, 1e-3, 0.002, 0.005, 0.01, 0.02, 0.05, 0.10]))
    want = [2.7469, 2.7334, 2.7234, 2.7001, 2.6683, 2.6141, 2.4790, 2.2920]
    assert np.allclose(got, want, atol=1.5e-4)


@pytest.mark.parametrize("p", sorted(tr.PAPER_TABLE2))
def test_the_readme_table2_differs_from_the_authors_own_code(p):
    # results/author/theorem3_v1.json: the author's verify_theorem3.py at n = 2048, 5 seeds
    from companion.results import locate, read_json

    author = read_json(locate("author", "theorem3_v1.json"))["C"][f"{p:g}"]
    readme, _ = tr.PAPER_TABLE2[p]
    assert abs(readme - author["mean"]) > 4 * author["se"]


def test_post_norm_inflation_values():
    assert tr.post_norm_inflation(0.01) == pytest.approx(1.3592, abs=1e-3)
    assert tr.post_norm_inflation(0.05) == pytest.approx(1.9137, abs=1e-3)


@pytest.fixture(scope="module")
def sims():
    return tr.simulate_transverse_ratio_grid([0.01, 0.05], 256, samples=600, seeds=6, rng=7)


@pytest.mark.parametrize("i", [0, 1])
def test_simulation_against_exact_kernel(sims, i):
    s = sims[i]
    exact = tr.transverse_ratio_exact(s.p)
    # finite width (n = 256) lowers C by about 1-2% (the spec's section 6.4)
    assert abs(s.value / exact - 1) <= 0.025 + 4 * s.stderr / exact
    bm = tr.branch_moments(s.p)
    assert s.R_mag_hidden.agrees_with(bm.R_mag + 2 * (1 - bm.R_mag) / 256)
    assert s.R_sign_hidden.agrees_with(bm.R_sign + 2 * (1 - bm.R_sign) / 256)
    assert abs(s.C_hidden.value / s.value - 1) < 0.01
    trap = s.C_post_norm_fd.value / (exact * tr.post_norm_inflation(s.p))
    assert abs(trap - 1) < 0.05


def test_result_is_an_mcestimate(sims):
    from companion.stats import MCEstimate

    s = sims[0]
    assert isinstance(s, MCEstimate) and s.n == 6 and s.stderr > 0
    assert s.agrees_with(s.value + 3 * s.stderr) and not s.agrees_with(s.value + 5 * s.stderr)
    assert s.n_in == s.m == s.d == 256


def test_single_p_matches_grid_seeding():
    a = tr.simulate_transverse_ratio(0.05, 32, samples=50, seeds=2, rng=3)
    b = tr.simulate_transverse_ratio_grid([0.05], 32, samples=50, seeds=2, rng=3)[0]
    assert a.value == b.value


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: tr.transverse_ratio_exact(1.5), "`p` must be in (0, 1]; got 1.5"),
        (lambda: tr.transverse_ratio_paper(-0.1), "`p` must be in [0, 1]; got -0.1"),
        (
            lambda: tr.transverse_ratio_paper(0.1, variant="x"),
            "`variant` must be one of 'code', 'figure'; got 'x'",
        ),
        (lambda: tr.simulate_transverse_ratio(1.2, 64), "`p` must be in (0, 1]; got 1.2"),
        (lambda: tr.simulate_transverse_ratio(0.1, 1), "`n` must be an integer >= 2; got 1"),
        (
            lambda: tr.simulate_transverse_ratio(0.1, 8, seeds=1),
            "`seeds` must be an integer >= 2; got 1",
        ),
        (
            lambda: tr.simulate_transverse_ratio_grid([0.1, np.nan], 8),
            "`ps` must contain only finite values; got 1 non-finite entries",
        ),
    ],
)
def test_bad_inputs(call, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()


def test_gram_path_equals_direct_path():
    a = tr.simulate_transverse_ratio_grid(
        [0.02, 0.1], 48, samples=80, seeds=2, post_norm=True, rng=4
    )
    b = tr.simulate_transverse_ratio_grid(
        [0.02, 0.1], 48, samples=80, seeds=2, post_norm=False, rng=4
    )
    for x, y in zip(a, b, strict=True):
        assert x.value == pytest.approx(y.value, rel=1e-5)
        assert x.R_mag.value == pytest.approx(y.R_mag.value, rel=1e-5)
        assert y.C_post_norm_fd is None and x.C_post_norm_fd is not None
