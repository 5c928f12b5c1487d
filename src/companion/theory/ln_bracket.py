"""The LayerNorm bracket: a decay that enters a LayerNorm is reset by it (and what leaks).

Shirodkar (2026), arXiv 2606.05957, Lean ``thm:bridge_ln`` (spec §3, "Framework
results"): the dead-direction rate through a LayerNorm is bracketed between the
post-crossing weight count and the full count. The mechanism is the normaliser's scale
invariance, ``LN(a h) = LN(h)`` for ``a > 0`` (``eps = 0``): an input decayed to
``t^k_pre`` returns to unit moment after the norm, so a read of the norm's output scaled
by ``t^k_post`` has second moment ``~ t^(2 k_post)`` (the plateau end of the bracket),
against ``t^(2 (k_pre + k_post))`` through the same chain without the norm (the full
count). With ``eps > 0`` the reset holds only while the decayed input's variance
dominates ``eps``: below ``t* = (eps / Var)^(1/(2 k_pre))`` the norm is linear and the
full count returns (:func:`bracket_chain`, :func:`crossover_t`; the chain is our toy,
a reconstruction).

The backward pass (:func:`ln_jacobian`): ``J = diag(gamma) (P - z z^T / d) / sigma`` with
``sigma = sqrt(||P x||^2 / d + eps)`` and ``z = P x / sigma``. A dead input coordinate
``h`` passes with factor ``(1 - 1/d - z_h^2 / d) / sigma`` and "leaks" into every other
coordinate ``i`` through ``-(1/d + z_h z_i / d) / sigma`` (:func:`dead_passthrough`).
"""

from __future__ import annotations

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_finite_array,
    check_int,
    check_real,
)
from companion.theory.budget import check_sizes
from companion.theory.norms import layernorm

__all__ = ["bracket_chain", "bracket_rates", "crossover_t", "dead_passthrough", "ln_jacobian"]


def _row(x, name: str = "x") -> np.ndarray:
    x = check_finite_array(x, name, ndim=1)
    if x.shape[0] < 2:
        raise ValueError(f"`{name}` must have length >= 2; got length {x.shape[0]}")
    return x


def ln_jacobian(x, gamma=None, eps: float = 0.0) -> np.ndarray:
    """The Jacobian (d, d) of ``LN(x) = gamma * P x / sigma + beta`` at one input ``x``.

    ``J = diag(gamma) (P - z z^T / d) / sigma`` (Lean ``LnJacobian``; ``beta`` drops out).

    Examples
    --------
    >>> x = np.array([1.0, -2.0, 0.5, 3.0])
    >>> J = ln_jacobian(x, eps=1e-3)
    >>> step = 1e-6 * np.array([0.3, 0.1, -0.2, 0.4])
    >>> fd = (layernorm(x + step, np.ones(4), np.zeros(4), 1e-3)
    ...       - layernorm(x - step, np.ones(4), np.zeros(4), 1e-3)) / 2
    >>> bool(np.allclose(J @ step, fd, atol=1e-14))
    True
    >>> bool(np.allclose(J @ np.ones(4), 0))        # the mean direction is removed
    True
    """
    x = _row(x)
    d = x.shape[0]
    eps = check_real(eps, "eps", low=0.0)
    g = np.ones(d) if gamma is None else check_finite_array(gamma, "gamma", ndim=1)
    if g.shape != (d,):
        raise ValueError(f"`gamma` must have length {d}; got length {g.shape[0]}")
    xc = x - x.mean()
    sigma = np.sqrt(xc @ xc / d + eps)
    if sigma == 0:
        raise ValueError("`x` must not be constant when eps = 0 (sigma = 0); got a constant x")
    z = xc / sigma
    P = np.eye(d) - 1.0 / d
    return g[:, None] * (P - np.outer(z, z) / d) / sigma


def dead_passthrough(x, coord: int, eps: float = 0.0) -> tuple[float, np.ndarray]:
    """``(pass, leak)``: what the LN Jacobian does to a change of input coordinate
    ``h = coord``.

    ``pass = (1 - 1/d - z_h^2/d) / sigma`` is the part that stays on ``h``; ``leak`` (d,)
    is the rest of the column ``J e_h`` (zero at ``h``), ``-(1/d + z_h z_i/d)/sigma``.

    Examples
    --------
    >>> x = np.array([1.0, -2.0, 0.5, 3.0])
    >>> p, leak = dead_passthrough(x, 0)
    >>> bool(np.isclose(p, ln_jacobian(x)[0, 0])), float(leak[0])
    (True, 0.0)
    """
    x = _row(x)
    h = check_int(coord, "coord", low=0, high=x.shape[0] - 1)
    col = ln_jacobian(x, eps=eps)[:, h]
    leak = col.copy()
    leak[h] = 0.0
    return float(col[h]), leak


def bracket_rates(k_pre, k_post) -> tuple[float, float]:
    """``(plateau, full)`` log-log slopes of the read's second moment: ``2 k_post`` through
    the norm, ``2 (k_pre + k_post)`` without it (Lean ``thm:bridge_ln``).

    Examples
    --------
    >>> bracket_rates(2, 1)
    (2.0, 6.0)
    """
    k_pre = check_real(k_pre, "k_pre", low=0.0)
    k_post = check_real(k_post, "k_post", low=0.0)
    return 2.0 * k_post, 2.0 * (k_pre + k_post)


def crossover_t(k_pre, eps, variance) -> float:
    """Where ``t^(2 k_pre) * variance = eps``: below it the norm no longer resets.

    Examples
    --------
    >>> crossover_t(1, 1e-4, 1.0)
    0.01
    """
    k_pre = check_real(k_pre, "k_pre", low=0.0, low_open=True)
    eps = check_real(eps, "eps", low=0.0)
    variance = check_real(variance, "variance", low=0.0, low_open=True)
    return float((eps / variance) ** (1.0 / (2.0 * k_pre)))


def bracket_chain(
    ts,
    *,
    k_pre: float = 1.0,
    k_post: float = 1.0,
    eps: float = 0.0,
    norm: bool = True,
    d: int = 16,
    n: int = 2000,
    rng=None,
) -> np.ndarray:
    """Second moment ``E[o(t)^2]`` of a read through a small chain, one value per ``t``.

    ``h(t) = t^k_pre M x`` (the norm's input decayed; ``x ~ N(0, I_d)``, ``M`` a fixed
    random mixing with unit-variance rows), ``o(t) = t^k_post <w, N(h(t))>`` with ``w`` a
    fixed unit vector orthogonal to ``1`` (a live read), ``N = LN`` (``gamma = 1``,
    ``beta = 0``, ``eps``) or the identity (``norm=False``). The same samples serve
    every ``t``, so the curve is smooth and its slopes can be compared with
    :func:`bracket_rates` directly.

    Examples
    --------
    >>> ts = np.logspace(-3, 0, 4)
    >>> m = bracket_chain(ts, k_pre=2, k_post=1, rng=0)          # eps = 0: a pure reset
    >>> np.round(np.diff(np.log(m)) / np.diff(np.log(ts)), 6)
    array([2., 2., 2.])
    >>> m = bracket_chain(ts, k_pre=2, k_post=1, norm=False, rng=0)
    >>> np.round(np.diff(np.log(m)) / np.diff(np.log(ts)), 6)
    array([6., 6., 6.])
    """
    ts = np.atleast_1d(check_finite_array(ts, "ts"))
    if ts.ndim != 1 or ts.size == 0 or np.any(ts <= 0):
        raise ValueError("`ts` must be a number or a non-empty 1-D array of values > 0")
    k_pre = check_real(k_pre, "k_pre", low=0.0)
    k_post = check_real(k_post, "k_post", low=0.0)
    eps = check_real(eps, "eps", low=0.0)
    norm = check_bool(norm, "norm")
    d = check_int(d, "d", low=2)
    n = check_int(n, "n", low=2)
    check_sizes({"d": d, "n": n}, elements=d * d + 4 * n * d, ops=ts.size * n * d * d,
                what=f"{ts.size} steps of {n} x {d} states")  # fmt: skip
    g = as_generator(rng)
    M = g.standard_normal((d, d))
    M /= np.linalg.norm(M, axis=1, keepdims=True)  # (d, d) unit rows: Var(h_i) = t^(2 k_pre)
    x = g.standard_normal((n, d))
    w = g.standard_normal(d)
    w -= w.mean()
    w /= np.linalg.norm(w)  # (d,) live read, orthogonal to 1
    out = []
    for t in ts:
        h = t**k_pre * x @ M.T  # (n, d)
        y = layernorm(h, np.ones(d), np.zeros(d), eps) if norm else h
        out.append(float(np.mean((t**k_post * y @ w) ** 2)))
    return np.asarray(out)
