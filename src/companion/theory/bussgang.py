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
    check_memory,
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

    # Student-t: E|w|^k = nu^{k/2} Gamma((k+1)/2) Gamma((nu-k)/2) / (sqrt(pi) Gamma(nu/2)), k < nu,
    # written through P = Gamma(x + 1/2) / Gamma(x), x = (nu - 1)/2, so that no term grows with
    # nu: m1 = sqrt(nu / (pi x)) e^{-S}, m2 = nu/(nu - 2), m3 = 2 m1 nu/(nu - 3),
    # m4 = 3 nu^2 / ((nu - 2)(nu - 4)), where S = log P - log(x)/2 (see _log_ratio_excess).
    m1 = float(np.sqrt(2 * nu / (np.pi * (nu - 1))) * np.exp(-_log_ratio_excess((nu - 1) / 2)))
    m2 = nu / (nu - 2)
    m3 = 2 * m1 * nu / (nu - 3) if nu > 3 else np.inf
    m4 = 3 * (nu / (nu - 2)) * (nu / (nu - 4)) if nu > 4 else np.inf
    return (m1, float(m2), float(m3), float(m4))


#: (2^{1-n} - 2) B_n / (n (n - 1)) for n = 2, 4, ..., 16 (B_n the Bernoulli numbers).
_STIRLING = tuple(
    (2.0 ** (1 - n) - 2) * b / (n * (n - 1))
    for n, b in zip(
        range(2, 17, 2),
        (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510),
        strict=True,
    )
)


def _log_ratio_excess(x: float) -> float:
    """``S(x) = log Gamma(x + 1/2) - log Gamma(x) - log(x)/2`` without cancellation.

    For ``x >= 10`` the asymptotic series ``sum_n (B_n(1/2) - B_n) / (n (n-1) x^(n-1))`` (even
    ``n`` up to 16, error below 1e-17 there; DLMF 5.11.8) replaces the difference of two
    ``gammaln`` values that both grow like ``x log x`` and cancel (at ``nu = 1e16`` the
    difference lost every digit). ``S(x) = -1/(8x) + O(x^-3)``.

    Examples
    --------
    >>> round(_log_ratio_excess(1e6) * 8e6, 9)
    -1.0
    """
    if x < 10:
        return float(gammaln(x + 0.5) - gammaln(x) - 0.5 * np.log(x))
    t, acc = 1.0 / x, 0.0
    for c in reversed(_STIRLING):  # Horner in t^2, then one factor t
        acc = acc * t * t + c
    return float(acc * t)


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
    limit = m1**2 / m2  # for Student-t: 2 (nu - 2) e^{-2S} / (pi (nu - 1)), bounded for every nu
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
    count = float(np.prod(shape, dtype=float))
    check_memory(8 * count, "shape", shape, what=f"{count:.3g} float64 weights")
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
    # cos^2 is scale-free: rescale each row by its largest |w| before squaring, so that rows
    # of 1e200 (overflow) or 1e-200 (underflow) give the same numbers as rows of 1
    V = W / np.max(np.abs(W), axis=1, keepdims=True)
    l1 = np.abs(V).sum(axis=1)
    l2sq = np.einsum("ij,ij->i", V, V)
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
    big, value = ("samples", samples) if samples >= n else ("n", n)
    check_memory(  # the draws, their rescaled copy and |w|: three (samples, n) float64 arrays
        24.0 * samples * n, big, value, what=f"3 arrays of {samples} x {n} float64"
    )
    w = sample_weights((samples, n), dist, nu=nu, rng=rng)  # (samples, n)
    return mean_estimate(row_cos2(w))
