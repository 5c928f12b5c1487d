"""The float64 head walk (companion.theory.head_walk): the flat curve is flat, the
uncompensated one moves by c, random lines and the t^2 curve read the right KL order, the
RMSNorm head refuses a flat curve, K-FAC against the true Fisher, and bad input."""

import numpy as np
import pytest

from companion.theory.fisher_decay import kl_order, loglog_slope
from companion.theory.head_walk import HeadWalk, toy_head_walk

TS = np.logspace(-4, 2, 7)


@pytest.fixture(scope="module")
def hw():
    return toy_head_walk(V=40, d=16, n=300, rng=3)


def _w(hw, seed=1):
    w = np.random.default_rng(seed).standard_normal(hw.W.shape[1])
    return w if hw.vstar @ w >= 0 else -w


def test_flat_curve_is_flat_and_dropping_beta_is_not(hw):
    base = hw.walk("line", [0.0], R=np.zeros_like(hw.W)).nll[0]
    flat = hw.walk("flat", TS, w=_w(hw))
    assert np.max(np.abs(flat.nll - base)) < 1e-12
    assert np.all(flat.fisher < 1e-26) and np.all(np.abs(flat.kl) < 1e-12)
    off = hw.walk("uncompensated", TS, w=_w(hw))
    assert abs(hw.c) > 0.1 and np.max(np.abs(off.nll - base)) > 1e-2
    # the uncompensated logit change is exactly t c W w: its Fisher is c^2 E Var_p(W w)
    kf = hw.kfac_vs_fisher(hw.W @ _w(hw), hw.vstar)
    assert np.isclose(off.fisher[0], kf["true"], rtol=1e-3)  # F at t = 1e-4, K-FAC at 0
    assert np.isclose(kf["true"], hw.c**2 * kf["kfac_uncentred"] / kf["read_mean"] ** 2)
    assert kf["kfac_centred"] < 1e-25 * kf["true"] + 1e-30


def test_flat_curve_with_beta_zero_is_also_flat_uncompensated():
    hw0 = toy_head_walk(V=20, d=10, n=100, rng=0)
    hw0 = HeadWalk(hw0.h, hw0.targets, hw0.W, hw0.gamma, 0 * hw0.beta, hw0.eps)
    off = hw0.walk("uncompensated", TS, w=_w(hw0))
    assert hw0.c == 0 and np.max(np.abs(off.nll - off.nll[0])) < 1e-12


def test_random_line_reads_k1_and_the_square_curve_k2(hw):
    R = np.random.default_rng(5).standard_normal(hw.W.shape)
    ts = np.logspace(-4, -2, 5)
    line, sq = hw.walk("line", ts, R=R), hw.walk("square", ts, R=R)
    k1, se1 = kl_order(*loglog_slope(ts, line.fisher))
    k2, se2 = kl_order(*loglog_slope(ts, sq.fisher))
    assert abs(k1 - 1) < 1e-2 and abs(k2 - 2) < 1e-2  # o(.) of a large R
    # KL(p_0 || p_t) ~ F t^2 / (2 k^2) at small t (Lean thm:fisher_decay's anchor identity)
    assert np.allclose(line.kl[:2], line.fisher[:2] * ts[:2] ** 2 / 2, rtol=1e-3)
    assert np.allclose(sq.kl[:2], sq.fisher[:2] * ts[:2] ** 2 / 8, rtol=1e-3)


def test_rmsnorm_head_refuses_the_flat_curve_and_its_gamma_inv_direction_is_live():
    hw = toy_head_walk(V=30, d=12, n=200, kind="rmsnorm", rng=2)
    with pytest.raises(ValueError, match="`kind` must be 'layernorm' for the flat curve"):
        hw.walk("flat", TS, w=_w(hw))
    off = hw.walk("uncompensated", TS, w=_w(hw))
    assert np.max(np.abs(off.nll - off.nll[0])) > 1e-2 and np.all(off.fisher > 0)


def test_bad_input_one_style(hw):
    with pytest.raises(ValueError, match="`ts` must contain only finite"):
        hw.walk("flat", [np.inf], w=_w(hw))
    with pytest.raises(ValueError, match="`w` must have length d = 16"):
        hw.walk("flat", TS, w=np.ones(5))
    with pytest.raises(ValueError, match="`R` must have the head's shape"):
        hw.walk("line", TS, R=np.ones((3, 3)))
    with pytest.raises(ValueError, match="`curve` must be one of"):
        hw.walk("sideways", TS, w=_w(hw))
    with pytest.raises(ValueError, match="`targets` must lie in"):
        HeadWalk(hw.h, hw.targets + 100, hw.W, hw.gamma, hw.beta, hw.eps)
    v = hw.vstar
    with pytest.raises(ValueError, match="pole"):
        hw.flat_point(v, -1.0 / (v @ v))
