"""The finite-t expansion of a directional Fisher through a LayerNorm: three terms, three slopes.

Shirodkar (2026), arXiv 2606.05957, Lean ``thm:ln_finite_t_mlp`` (spec §3, "Framework
results"): along a dead direction through an MLP with a LayerNorm the directional Fisher
expands as

    G(t) = c0 + c2 t^2 + c4 t^4

(a noise floor, the LayerNorm mean-subtraction leak, the direct term), so its local
log-log slope ``alpha(t) = t G'(t) / G(t)`` runs through 0, 2 and 4 as ``t`` grows
(:func:`expansion_slope`; the regimes meet near ``sqrt(c0/c2)`` and ``sqrt(c2/c4)``,
:func:`regime_edges`). The leak coefficient carries ``E[1 / sigma_0^2]``, which is finite
iff ``d >= 4`` for isotropic Gaussian inputs: ``||P x||^2 ~ chi^2_(d-1)`` and
``E[1 / chi^2_nu] = 1 / (nu - 2)``, so ``E[1 / sigma_0^2] = d / (d - 3)``
(:func:`inverse_variance_moment`, checked by :func:`simulate_inverse_variance`).

:func:`simulate_three_term` is our toy (a reconstruction, not the Lean MLP): a
three-channel Gaussian model whose mean moves as ``(b0 t, b1 t^2 / 2, b2 t^3 / 3)``, so its
exact Fisher is ``b0^2 + b1^2 t^2 + b2^2 t^4`` and the Monte Carlo estimate shows the three
regimes with standard errors; :func:`fit_expansion` recovers the coefficients.
"""

from __future__ import annotations

import numpy as np

from companion._validate import as_generator, check_finite_array, check_int, check_real
from companion.stats import MCEstimate, mean_estimate
from companion.theory.budget import check_sizes
from companion.theory.fisher_decay import FisherCurve

__all__ = [
    "expansion",
    "expansion_slope",
    "fit_expansion",
    "inverse_variance_moment",
    "regime_edges",
    "simulate_inverse_variance",
    "simulate_three_term",
]


def _ts(ts) -> np.ndarray:
    ts = np.atleast_1d(check_finite_array(ts, "ts"))
    if ts.ndim != 1 or ts.size == 0 or np.any(ts <= 0):
        raise ValueError("`ts` must be a number or a non-empty 1-D array of values > 0")
    return ts


def _coefs(c0, c2, c4) -> tuple[float, float, float]:
    return tuple(check_real(c, name, low=0.0) for c, name in ((c0, "c0"), (c2, "c2"), (c4, "c4")))


def expansion(ts, c0, c2, c4) -> np.ndarray:
    """``G(t) = c0 + c2 t^2 + c4 t^4``.

    Examples
    --------
    >>> expansion([1.0, 2.0], 1.0, 0.5, 0.25)
    array([1.75, 7.  ])
    """
    c0, c2, c4 = _coefs(c0, c2, c4)
    ts = _ts(ts)
    return c0 + c2 * ts**2 + c4 * ts**4


def expansion_slope(ts, c0, c2, c4) -> np.ndarray:
    """Local slope ``alpha(t) = t G'/G = (2 c2 t^2 + 4 c4 t^4) / G(t)``: 0, then 2, then 4.

    Examples
    --------
    >>> np.round(expansion_slope([1e-4, 1.0, 1e4], 1e-6, 1.0, 1e-6), 3)
    array([0.02, 2.  , 3.98])
    """
    G = expansion(ts, c0, c2, c4)
    ts = _ts(ts)
    if np.any(G == 0):
        raise ValueError("`c0`, `c2`, `c4` must not all be 0 (G = 0 has no slope)")
    return (2 * c2 * ts**2 + 4 * c4 * ts**4) / G


def regime_edges(c0, c2, c4) -> tuple[float, float]:
    """``(sqrt(c0/c2), sqrt(c2/c4))``: where the floor meets the leak and the leak the direct
    term (three distinct regimes need ``c2^2 >> c0 c4``).

    Examples
    --------
    >>> regime_edges(1e-6, 1.0, 1e-4)
    (0.001, 100.0)
    """
    c0, c2, c4 = _coefs(c0, c2, c4)
    if c2 == 0 or c4 == 0:
        raise ValueError(f"`c2` and `c4` must be > 0 for the edges; got c2={c2:g}, c4={c4:g}")
    return float(np.sqrt(c0 / c2)), float(np.sqrt(c2 / c4))


def fit_expansion(ts, G) -> tuple[float, float, float]:
    """``(c0, c2, c4)`` by least squares on ``G / G`` (relative errors weigh every ``t``).

    Examples
    --------
    >>> ts = np.logspace(-2, 2, 9)
    >>> np.round(fit_expansion(ts, expansion(ts, 1e-3, 1.0, 1e-2)), 8)
    array([0.001, 1.   , 0.01 ])
    """
    ts = _ts(ts)
    G = check_finite_array(G, "G")
    if G.shape != ts.shape or np.any(G <= 0) or ts.size < 3:
        raise ValueError(f"`G` must be > 0 with the shape of `ts` {ts.shape} (3 values at least)")
    X = np.stack([np.ones_like(ts), ts**2, ts**4], axis=1) / G[:, None]  # (T, 3)
    coef, *_ = np.linalg.lstsq(X, np.ones_like(ts), rcond=None)
    return coef


def inverse_variance_moment(d: int) -> float:
    """``E[1 / sigma_0^2]`` for ``x ~ N(0, I_d)``, ``sigma_0^2 = ||P x||^2 / d``:
    ``d / (d - 3)`` for ``d >= 4``, infinite for ``d <= 3`` (``chi^2_(d-1)`` has
    ``E[1/chi^2] < inf`` iff ``d - 1 > 2``).

    Examples
    --------
    >>> inverse_variance_moment(4), inverse_variance_moment(3)
    (4.0, inf)
    """
    d = check_int(d, "d", low=2)
    return float(d / (d - 3)) if d >= 4 else float("inf")


def simulate_inverse_variance(d: int, *, n: int = 100_000, rng=None) -> MCEstimate:
    """Monte Carlo ``E[1 / sigma_0^2]`` (mean and SE) from ``n`` Gaussian inputs; its SE
    is honest only for ``d >= 6`` (the variance of ``1/chi^2_(d-1)`` is finite iff
    ``d - 1 > 4``); for ``d <= 3`` the running mean does not settle.

    Examples
    --------
    >>> est = simulate_inverse_variance(8, n=20_000, rng=0)
    >>> est.agrees_with(inverse_variance_moment(8))
    True
    """
    d = check_int(d, "d", low=2)
    n = check_int(n, "n", low=2)
    check_sizes({"d": d, "n": n}, elements=3 * n * d, what=f"{n} x {d} draws")
    g = as_generator(rng)
    x = g.standard_normal((n, d))
    xc = x - x.mean(axis=1, keepdims=True)
    return mean_estimate(d / np.sum(xc * xc, axis=1))


def simulate_three_term(ts, b=(1e-3, 1.0, 1e-2), *, n: int = 20_000, rng=None) -> FisherCurve:
    """Monte Carlo directional Fisher of the three-channel Gaussian toy (see module docs).

    ``x ~ N(m(t), I_3)``, ``m(t) = (b0 t, b1 t^2/2, b2 t^3/3)``, score ``(x - m) . m'(t)``;
    exact Fisher ``|m'(t)|^2 = b0^2 + b1^2 t^2 + b2^2 t^4``.

    Examples
    --------
    >>> ts = np.logspace(-4, 3, 8)
    >>> c = simulate_three_term(ts, n=4000, rng=0)
    >>> bool(np.all(np.abs(c.fisher - c.exact) < 5 * c.stderr))
    True
    """
    ts = _ts(ts)
    b = check_finite_array(b, "b", ndim=1)
    if b.shape != (3,):
        raise ValueError(f"`b` must have length 3 (b0, b1, b2); got length {b.shape[0]}")
    n = check_int(n, "n", low=2)
    check_sizes({"n": n}, elements=5 * ts.size * n, what=f"{ts.size} x {n} x 3 draws")
    g = as_generator(rng)
    dm = np.stack([b[0] * np.ones_like(ts), b[1] * ts, b[2] * ts**2], axis=1)  # (T, 3)
    e = g.standard_normal((ts.size, n, 3))  # x - m(t)
    score_sq = np.einsum("tnj,tj->tn", e, dm) ** 2  # (T, n)
    return FisherCurve(
        ts,
        score_sq.mean(axis=1),
        score_sq.std(axis=1, ddof=1) / np.sqrt(n),
        n,
        np.sum(dm**2, axis=1),
    )
