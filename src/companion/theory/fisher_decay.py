"""The Fisher-decay theorem: the KL order of a dead direction read off the directional Fisher.

Shirodkar (2026), arXiv 2606.05957, Lean ``thm:fisher_decay`` (spec §2.7). Let a curve
``theta(t)`` run into the singular set as ``t -> 0`` and let its score expand as

    s(t) = d/dt log p_theta(t)(x) = k t^(k-1) a(x) + r(t, x),
    E[a^2] in (0, inf),   E[r(t)^2] <= M t^(2k).

Then the directional Fisher ``F(t) = E[s(t)^2]`` is ``k^2 E[a^2] t^(2(k-1)) + o(.)``, so
its log-log slope tends to ``2(k - 1)`` and

    k_hat = 1 + slope / 2

recovers the KL order ``k`` (:func:`kl_order`); each such direction contributes
``1/(2k)`` to the learning coefficient (:func:`learning_coefficient`). The anchor case
(:func:`gaussian_anchor`): ``x ~ N(t^k, 1)`` has ``F = k^2 t^(2(k-1))``,
``KL(p_t || p_0) = t^(2k) / 2`` and ``F t^2 = 2 k^2 KL`` exactly.

The toy models with a known ``k`` (their Fisher is estimated by Monte Carlo from the
model's own samples, with standard errors):

* :func:`simulate_gaussian_fisher`: the Gaussian anchor, score squared averaged over
  ``x ~ p_t``;
* :func:`simulate_chain_fisher`: a depth-``k`` scalar linear chain
  ``y = w_1 ... w_k x + noise`` along ``w_j = t (1 + rho t)``: a genuine remainder
  ``r(t) = O(t^k)``, so the slope reaches ``2(k - 1)`` only as ``t -> 0`` (our toy, a
  reconstruction; the theorem is the Lean one).

:func:`loglog_slope` fits the slope (weighted by the standard errors when given) and
:func:`local_slopes` gives it point by point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion._validate import as_generator, check_finite_array, check_int, check_real
from companion.theory.budget import check_sizes

__all__ = [
    "FisherCurve",
    "gaussian_anchor",
    "kl_order",
    "learning_coefficient",
    "local_slopes",
    "loglog_slope",
    "simulate_chain_fisher",
    "simulate_gaussian_fisher",
]


def _ts(ts, name: str = "ts") -> np.ndarray:
    ts = np.atleast_1d(check_finite_array(ts, name))
    if ts.ndim != 1 or ts.size == 0:
        raise ValueError(
            f"`{name}` must be a number or a non-empty 1-D array; got shape {ts.shape}"
        )
    if np.any(ts <= 0):
        raise ValueError(f"`{name}` must be > 0 (a log-log read-out); got {float(ts.min()):g}")
    return ts


def _order(k, name: str = "k") -> float:
    return check_real(k, name, low=0.0, low_open=True)


def _powers(k, compute, name: str = "k"):
    """``compute()`` (arrays of powers of t), or one ValueError naming the order when one of
    them overflows float64 (a huge k at t > 1 was a silent inf, then NaN)."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            out = compute()
    except OverflowError:  # a Python float: k**2 beyond 1.8e308
        out = (np.inf,)
    if not all(np.all(np.isfinite(v)) for v in out):
        raise ValueError(
            f"`{name}` must keep t^k and its derivative finite over `ts` (float64); got {k:g}"
        )
    return out


def gaussian_anchor(k, ts) -> dict:
    """Closed forms of the Gaussian anchor ``x ~ N(mu(t), 1)``, ``mu(t) = t^k``.

    Returns ``{"fisher": k^2 t^(2(k-1)), "kl": t^(2k)/2}`` as arrays over ``ts``;
    ``fisher * t^2 == 2 k^2 kl`` exactly (Lean ``thm:fisher_decay``, anchor case).

    Examples
    --------
    >>> out = gaussian_anchor(2, [0.1, 1.0])
    >>> out["fisher"], out["kl"]
    (array([0.04, 4.  ]), array([5.e-05, 5.e-01]))
    >>> bool(np.allclose(out["fisher"] * np.array([0.1, 1.0]) ** 2, 2 * 2**2 * out["kl"]))
    True
    """
    k, ts = _order(k), _ts(ts)
    fisher, kl = _powers(k, lambda: (k**2 * ts ** (2 * (k - 1)), ts ** (2 * k) / 2))
    return {"fisher": fisher, "kl": kl}


@dataclass(frozen=True)
class FisherCurve:
    """A Monte Carlo directional Fisher along a curve: ``F(t)`` with its standard errors.

    Attributes
    ----------
    t, fisher, stderr : ndarray (T,)
    n : int
        Samples per ``t``.
    exact : ndarray (T,)
        The model's exact directional Fisher (for the check).
    """

    t: np.ndarray
    fisher: np.ndarray
    stderr: np.ndarray
    n: int
    exact: np.ndarray

    def slope(self) -> tuple[float, float]:
        """:func:`loglog_slope` of this curve, weighted by its standard errors."""
        return loglog_slope(self.t, self.fisher, self.stderr)

    def k_hat(self) -> tuple[float, float]:
        """``(k_hat, SE)`` from the fitted slope (:func:`kl_order`)."""
        return kl_order(*self.slope())


def _curve(ts, score_sq, exact) -> FisherCurve:
    n = score_sq.shape[1]
    return FisherCurve(
        ts, score_sq.mean(axis=1), score_sq.std(axis=1, ddof=1) / np.sqrt(n), n, exact
    )


def simulate_gaussian_fisher(k, ts, *, n: int = 20_000, rng=None) -> FisherCurve:
    """Monte Carlo Fisher of the Gaussian anchor: mean of ``s(t)^2`` over ``x ~ N(t^k, 1)``,
    with ``s = (x - t^k) k t^(k-1)``.

    Examples
    --------
    >>> c = simulate_gaussian_fisher(3, np.logspace(-2, -1, 5), n=4000, rng=0)
    >>> k_hat, se = c.k_hat()
    >>> bool(abs(k_hat - 3) < 4 * se)
    True
    """
    k, ts = _order(k), _ts(ts)
    n = check_int(n, "n", low=2)
    check_sizes({"n": n}, elements=3 * ts.size * n, what=f"{ts.size} x {n} samples")
    g = as_generator(rng)
    mu, dmu = _powers(k, lambda: (ts**k, k * ts ** (k - 1), (k * ts ** (k - 1)) ** 2))[:2]
    x = mu[:, None] + g.standard_normal((ts.size, n))  # (T, n) samples of p_t
    return _curve(ts, ((x - mu[:, None]) * dmu[:, None]) ** 2, dmu**2)


def simulate_chain_fisher(
    k: int, ts, *, rho: float = 1.0, noise: float = 1.0, n: int = 20_000, rng=None
) -> FisherCurve:
    """Monte Carlo Fisher of a depth-``k`` scalar linear chain along a curve into its
    singular set (our toy with a known KL order ``k``).

    ``y = w_1 ... w_k x + noise * e`` with ``x, e ~ N(0, 1)``; the curve sets every
    ``w_j = t (1 + rho t)``, so the mean is ``m(t) x`` with ``m(t) = (t (1 + rho t))^k``
    and the score ``(y - m x) x m'(t) / noise^2`` is ``k t^(k-1) a + O(t^k)``. Exact
    directional Fisher: ``m'(t)^2 / noise^2`` (``E[x^2] = 1``).

    Examples
    --------
    >>> c = simulate_chain_fisher(2, np.logspace(-3, -2, 5), n=4000, rng=0)
    >>> k_hat, se = c.k_hat()
    >>> bool(abs(k_hat - 2) < 4 * se)
    True
    """
    k = check_int(k, "k", low=1)
    ts = _ts(ts)
    rho = check_real(rho, "rho")
    noise = check_real(noise, "noise", low=0.0, low_open=True)
    n = check_int(n, "n", low=2)
    check_sizes({"n": n}, elements=4 * ts.size * n, what=f"{ts.size} x {n} samples")
    g = as_generator(rng)
    w = ts * (1 + rho * ts)  # (T,)
    m, dm = _powers(k, lambda: (w**k, k * w ** (k - 1) * (1 + 2 * rho * ts), (k * w**k) ** 2))[:2]
    # dm: d/dt (t (1 + rho t))^k
    x = g.standard_normal((ts.size, n))  # (T, n)
    y = m[:, None] * x + noise * g.standard_normal((ts.size, n))
    score = (y - m[:, None] * x) * x * dm[:, None] / noise**2
    return _curve(ts, score**2, dm**2 / noise**2)


def loglog_slope(ts, fisher, stderr=None) -> tuple[float, float]:
    """``(slope, SE)`` of ``log F`` against ``log t`` by (weighted) least squares.

    With ``stderr`` the weights are ``(F / stderr)^2`` (the delta method's variance of
    ``log F``) and the SE is the fit's; without it the SE is the residual one (0 for an
    exact power law).

    Examples
    --------
    >>> ts = np.logspace(-3, 0, 7)
    >>> slope, se = loglog_slope(ts, 5 * ts**4)
    >>> round(slope, 12), se < 1e-12
    (4.0, True)
    >>> loglog_slope([1.0, 2.0], [1.0, -1.0])
    Traceback (most recent call last):
    ...
    ValueError: `fisher` must be > 0 everywhere (a log-log fit); got min -1
    """
    ts = _ts(ts)
    F = check_finite_array(fisher, "fisher")
    if F.shape != ts.shape:
        raise ValueError(f"`fisher` must have the shape of `ts` {ts.shape}; got {F.shape}")
    if ts.size < 2:
        raise ValueError(f"`ts` must hold at least 2 values for a slope; got {ts.size}")
    if np.any(F <= 0):
        raise ValueError(f"`fisher` must be > 0 everywhere (a log-log fit); got min {F.min():g}")
    X = np.stack([np.ones_like(ts), np.log(ts)], axis=1)  # (T, 2)
    yv = np.log(F)
    if stderr is None:
        coef, *_ = np.linalg.lstsq(X, yv, rcond=None)
        resid = yv - X @ coef
        dof = max(ts.size - 2, 1)
        cov = np.linalg.pinv(X.T @ X) * (resid @ resid) / dof
    else:
        se = check_finite_array(stderr, "stderr")
        if se.shape != ts.shape or np.any(se <= 0):
            raise ValueError(f"`stderr` must be > 0 with the shape of `ts` {ts.shape}")
        wts = (F / se) ** 2  # 1 / Var(log F)
        XtW = X.T * wts
        cov = np.linalg.inv(XtW @ X)
        coef = cov @ (XtW @ yv)
    return float(coef[1]), float(np.sqrt(max(cov[1, 1], 0.0)))


def local_slopes(ts, fisher) -> np.ndarray:
    """Point-by-point log-log slope ``d log F / d log t`` (central differences, T values).

    Examples
    --------
    >>> ts = np.logspace(-2, 0, 5)
    >>> np.round(local_slopes(ts, ts**2 + ts**6), 2)
    array([2.  , 2.  , 2.  , 2.3 , 2.59])
    """
    ts = _ts(ts)
    F = check_finite_array(fisher, "fisher")
    if F.shape != ts.shape or ts.size < 2 or np.any(F <= 0):
        raise ValueError(
            f"`fisher` must be > 0 with the shape of `ts` {ts.shape} (at least 2 values)"
        )
    return np.gradient(np.log(F), np.log(ts))


def kl_order(slope, stderr: float = 0.0) -> tuple[float, float]:
    """``(k_hat, SE)`` with ``k_hat = 1 + slope / 2`` (Lean ``thm:fisher_decay``).

    Examples
    --------
    >>> kl_order(2.0, 0.1)
    (2.0, 0.05)
    """
    slope = check_real(slope, "slope")
    stderr = check_real(stderr, "stderr", low=0.0)
    return 1.0 + slope / 2.0, stderr / 2.0


def learning_coefficient(ks) -> float:
    """Sum of the per-direction contributions ``1 / (2 k)`` (Lean ``thm:fisher_decay``).

    A regular direction (``k = 1``) gives the familiar ``1/2`` per parameter.

    Examples
    --------
    >>> learning_coefficient([1, 1, 2])
    1.25
    """
    ks = np.atleast_1d(check_finite_array(ks, "ks"))
    if ks.ndim != 1 or ks.size == 0 or np.any(ks <= 0):
        raise ValueError(f"`ks` must be a non-empty 1-D array of orders > 0; got {ks.tolist()}")
    return float(np.sum(1.0 / (2.0 * ks)))
