"""Fact 1 of Dong (2026): the Bussgang constant cos^2(w, sign w) -> (E|w|)^2 / E[w^2].

For a Gaussian row the limit is 2/pi; the chapter {prf:ref}`thm-bussgang` shows it.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from companion._validate import (
    as_generator,
    check_choice,
    check_finite_array,
    check_int,
    check_real,
    check_shape,
)
from companion.stats import MCEstimate, mean_estimate

__all__ = [
    "DISTRIBUTIONS",
    "absolute_moments",
    "bussgang_cos2",
    "row_cos2",
    "sample_weights",
    "simulate_bussgang_cos2",
]

#: Weight distributions of Fact 1's widget, with their parameters.
DISTRIBUTIONS = ("gaussian", "laplace", "student_t", "uniform")


def _check_params(dist: str, nu) -> float | None:
    check_choice(dist, "dist", DISTRIBUTIONS)
    nu = check_real(nu, "nu", low=2.0, low_open=True)  # checked even where unused
    return nu if dist == "student_t" else None


def absolute_moments(
    dist: str = "gaussian", *, nu: float = 5.0
) -> tuple[float, float, float, float]:
    """E|w|, E[w^2], E|w|^3, E[w^4] for a unit-scale weight distribution.

    The cos^2 is scale-free, so every distribution uses its standard scale
    (Gaussian sigma = 1, Laplace b = 1, uniform on [-1, 1], Student-t with ``nu``
    degrees of freedom). E[w^4] is ``inf`` for Student-t with ``nu <= 4``.

    Examples
    --------
    >>> absolute_moments("uniform")
    (0.5, 0.333..., 0.25, 0.2)
    """
    nu = _check_params(dist, nu)
    if dist == "gaussian":
        c = np.sqrt(2 / np.pi)
        return (c, 1.0, 2 * c, 3.0)
    if dist == "laplace":
        return (1.0, 2.0, 6.0, 24.0)
    if dist == "uniform":
        return (0.5, 1 / 3, 0.25, 0.2)

    # Student-t: E|w|^k = nu^{k/2} Gamma((k+1)/2) Gamma((nu-k)/2) / (sqrt(pi) Gamma(nu/2)), k < nu
    def mom(k):
        if k >= nu:
            return np.inf
        return float(
            np.exp(
                k / 2 * np.log(nu)
                + gammaln((k + 1) / 2)
                + gammaln((nu - k) / 2)
                - 0.5 * np.log(np.pi)
                - gammaln(nu / 2)
            )
        )

    return (mom(1), mom(2), mom(3), mom(4))


def bussgang_cos2(dist: str = "gaussian", *, n: int | None = None, nu: float = 5.0) -> float:
    """Expected row-level cos^2(w, sign w) = (sum|w_j|)^2 / (n sum w_j^2).

    With ``n=None`` this is the limit (E|w|)^2 / E[w^2] of Dong (2026), Fact 1:
    2/pi for Gaussian rows, 1/2 Laplace, 3/4 uniform and
    4(nu-2) Gamma((nu+1)/2)^2 / (pi (nu-1)^2 Gamma(nu/2)^2) for Student-t.
    With a width ``n`` it adds the 1/n term of the delta-method expansion,

        [Var|w|/m2 - 2 m1 Cov(|w|, w^2)/m2^2 + m1^2 Var(w^2)/m2^3] / n,

    which is exact for Gaussian rows (2/pi + (1 - 2/pi)/n) and first-order otherwise.
    Shown in {prf:ref}`thm-bussgang`.

    Parameters
    ----------
    dist : {"gaussian", "laplace", "student_t", "uniform"}
    n : int, optional
        Row width (>= 2). ``None`` gives the infinite-width limit.
    nu : float
        Student-t degrees of freedom (> 2; the finite-n term needs nu > 4).

    Examples
    --------
    >>> round(bussgang_cos2(), 6)
    0.63662
    >>> round(bussgang_cos2("gaussian", n=10), 6)
    0.672958
    >>> round(bussgang_cos2("student_t", nu=3), 6)
    0.405285
    """
    m1, m2, m3, m4 = absolute_moments(dist, nu=nu)
    n = None if n is None else check_int(n, "n", low=2)
    limit = m1**2 / m2
    if n is None:
        return float(limit)
    if not np.isfinite(m4):
        raise ValueError(f"`nu` must be > 4 for a finite-n correction; got {nu:g}")
    corr = (m2 - m1**2) / m2 - 2 * m1 * (m3 - m1 * m2) / m2**2 + m1**2 * (m4 - m2**2) / m2**3
    return float(limit + corr / n)


def sample_weights(shape, dist: str = "gaussian", *, nu: float = 5.0, rng=None) -> np.ndarray:
    """I.i.d. weights of the given shape from one of :data:`DISTRIBUTIONS` (unit scale)."""
    shape = check_shape(shape)
    nu = _check_params(dist, nu)
    g = as_generator(rng)
    if dist == "gaussian":
        return g.standard_normal(shape)
    if dist == "laplace":
        return g.laplace(0.0, 1.0, shape)
    if dist == "uniform":
        return g.uniform(-1.0, 1.0, shape)
    return g.standard_t(nu, shape)


def row_cos2(W) -> np.ndarray:
    """Per-row cos^2(w_i, sign w_i) = ||w_i||_1^2 / (n ||w_i||_2^2) of a matrix ``W`` (m, n).

    A zero row has no sign pattern (cos^2 is 0/0 there) and is refused.

    Examples
    --------
    >>> row_cos2(np.array([[1.0, -1.0], [3.0, 4.0]]))
    array([1.  , 0.98])
    """
    W = check_finite_array(W, "W")
    if W.ndim != 2 or W.shape[1] < 2:
        raise ValueError(f"`W` must be a 2-D array with at least 2 columns; got shape {W.shape}")
    zero = np.flatnonzero(~W.any(axis=1))
    if zero.size:
        raise ValueError(
            f"`W` must have no all-zero rows (cos^2 is 0/0 there); got {zero.size} at rows "
            f"{zero[:10].tolist()}"
        )
    l1 = np.abs(W).sum(axis=1)
    l2sq = np.einsum("ij,ij->i", W, W)
    return l1**2 / (W.shape[1] * l2sq)


def simulate_bussgang_cos2(
    n: int, *, dist: str = "gaussian", samples: int = 2000, nu: float = 5.0, rng=None
) -> MCEstimate:
    """Monte Carlo estimate of E[cos^2(w, sign w)] over ``samples`` random rows of width ``n``.

    Compare it with ``bussgang_cos2(dist, n=n)`` (finite width) or the limit.

    Examples
    --------
    >>> est = simulate_bussgang_cos2(256, samples=4000, rng=0)
    >>> est.agrees_with(bussgang_cos2(n=256))
    True
    """
    n = check_int(n, "n", low=2)
    samples = check_int(samples, "samples", low=2)
    w = sample_weights((samples, n), dist, nu=nu, rng=rng)  # (samples, n)
    return mean_estimate(row_cos2(w))
