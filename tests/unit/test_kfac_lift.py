import re

import numpy as np
import pytest

from companion.theory.kfac_lift import (
    categorical_fisher,
    kfac_lift,
    kfac_quadratic_form,
    ln_softmax_head,
)


@pytest.mark.parametrize("dA, dG", [(4, 3), (7, 5)])
def test_eigenpairs_multiply(dA, dG, rng):
    A = rng.standard_normal((dA, dA))
    A = A @ A.T  # (dA, dA) PSD
    G = rng.standard_normal((dG, dG))
    G = G @ G.T  # (dG, dG) PSD
    spec = kfac_lift(A, G)
    K = np.kron(A, G)
    np.testing.assert_allclose(spec.values, np.linalg.eigvalsh(K), atol=1e-12 * spec.values[-1])
    Vecs = spec.dense_vectors()
    np.testing.assert_allclose(K @ Vecs, Vecs * spec.values, atol=1e-11 * spec.values[-1])
    np.testing.assert_allclose(Vecs.T @ Vecs, np.eye(dA * dG), atol=1e-12)
    # each value is alpha_i * kappa_j for its index pair
    i, j = spec.index.T
    np.testing.assert_allclose(spec.values, spec.alpha[i] * spec.kappa[j], rtol=1e-14)


def test_bottom_pair_is_rank_one_increment_from_kernel_of_A(rng):
    a = rng.standard_normal(5)
    a /= np.linalg.norm(a)
    P = np.eye(5) - np.outer(a, a)
    A = P @ np.diag(rng.uniform(1, 2, 5)) @ P  # a spans ker A
    G = np.diag([1.0, 2.0, 3.0])
    spec = kfac_lift(A, G)
    val, inc = spec.bottom
    assert abs(val) < 1e-14
    a_min = spec.a_vectors[:, spec.index[0][0]]
    assert abs(abs(a_min @ a) - 1) < 1e-12
    np.testing.assert_allclose(inc, np.outer(spec.g_vectors[:, spec.index[0][1]], a_min))
    assert np.linalg.matrix_rank(inc) == 1
    # every rank-one increment u a^T has zero K-FAC Fisher
    for _ in range(3):
        u = rng.standard_normal(3)
        assert abs(kfac_quadratic_form(A, G, np.outer(u, a))) < 1e-13


def test_quadratic_form_matches_kron(rng):
    A = rng.standard_normal((4, 4))
    A = A @ A.T
    G = rng.standard_normal((3, 3))
    G = G @ G.T
    dW = rng.standard_normal((3, 4))
    vec = dW.reshape(-1, order="F")  # column stacking
    assert kfac_quadratic_form(A, G, dW) == pytest.approx(vec @ np.kron(A, G) @ vec, rel=1e-12)


@pytest.fixture
def heads():
    return (
        ln_softmax_head(25, 12, n=500, beta_scale=0.0, rng=3),
        ln_softmax_head(25, 12, n=500, beta_scale=1.0, rng=3),
    )


def test_induced_dead_direction_cases(heads, rng):
    h0, h1 = heads
    u = rng.standard_normal(25)
    a = rng.standard_normal(12)
    a /= np.linalg.norm(a)
    ref0, ref1 = h0.fisher(np.outer(u, a)), h1.fisher(np.outer(u, a))
    assert h0.c == 0.0
    assert h0.fisher(np.outer(u, h0.vstar)) < 1e-25 * ref0  # beta = 0
    assert h1.fisher(np.outer(np.ones(25), h1.vstar)) < 1e-25 * ref1  # u = 1: shift gauge
    assert h1.fisher(np.outer(u, h1.vstar), db=-h1.c * u) < 1e-25 * ref1  # compensated
    live = h1.fisher(np.outer(u, h1.vstar))
    assert live > 1e-3 * ref1  # otherwise not dead
    # ... and it equals c^2 E Var_p(u) exactly
    pred = h1.c**2 * categorical_fisher(h1.logits(), np.tile(u, (500, 1)))
    assert live == pytest.approx(pred, rel=1e-10)


def test_uncentred_second_moment_is_c_squared(heads):
    _, h1 = heads
    A_c, _ = h1.kfac_factors(centred=True)
    A_u, _ = h1.kfac_factors(centred=False)
    v = h1.vstar
    assert abs(v @ A_c @ v) < 1e-14
    assert v @ A_u @ v == pytest.approx(h1.c**2, rel=1e-12)


def test_flat_curve_of_bias_free_head(heads, rng):
    _, h1 = heads
    w = rng.standard_normal(12)
    change = h1.flat_curve_logit_change(w, [0.1, 0.5, 1.0])
    assert np.all(change < 1e-12)


def test_tied_embeddings_break_it(rng):
    h = ln_softmax_head(25, 12, n=500, beta_scale=0.0, tied=True, rng=3)
    u = rng.standard_normal(25)
    a = rng.standard_normal(12)
    a /= np.linalg.norm(a)
    assert h.fisher(np.outer(u, h.vstar)) > 1e-3 * h.fisher(np.outer(u, a))
    # the analytic derivative agrees with central differences
    dW = np.outer(u, h.vstar) * 1e-5
    fd = (h.logits(W=h.W + dW) - h.logits(W=h.W - dW)) / 2
    np.testing.assert_allclose(h.dlogits(dW), fd, atol=1e-9 * np.abs(fd).max())


def test_bad_inputs():
    with pytest.raises(ValueError, match=re.escape("`A` must be a 2-D array; got shape (3,)")):
        kfac_lift(np.ones(3), np.eye(2))
    with pytest.raises(
        ValueError,
        match=re.escape("`G` must be a square (d, d) matrix with d >= 1; got shape (2, 3)"),
    ):
        kfac_lift(np.eye(2), np.ones((2, 3)))
    with pytest.raises(
        ValueError, match=re.escape("`A` must contain only finite values; got 1 non-finite entries")
    ):
        kfac_lift(np.array([[1.0, 0.0], [0.0, np.inf]]), np.eye(2))
    with pytest.raises(ValueError, match=re.escape("`A` must be symmetric; got an asymmetry of 1")):
        kfac_lift(np.array([[1.0, 1.0], [0.0, 1.0]]), np.eye(2))
    with pytest.raises(
        ValueError, match=re.escape("`dW` must have shape (dG, dA) = (2, 3); got shape (3, 2)")
    ):
        kfac_quadratic_form(np.eye(3), np.eye(2), np.ones((3, 2)))
    with pytest.raises(
        ValueError,
        match=re.escape("`dlogits` must have the shape of `logits` (1, 2); got shape (1, 3)"),
    ):
        categorical_fisher([[0.0, 1.0]], [[0.0, 1.0, 2.0]])
    h = ln_softmax_head(4, 3, n=10, rng=0)
    with pytest.raises(
        ValueError, match=re.escape("`dW` must have shape (4, 3); got shape (3, 4)")
    ):
        h.fisher(np.ones((3, 4)))
    with pytest.raises(ValueError, match=re.escape("`beta_scale` must be >= 0; got -1")):
        ln_softmax_head(beta_scale=-1.0)
