"""LayerNorm and RMSNorm, and their Jacobians (numpy, float64). Shared by both papers.

Conventions follow PyTorch: LayerNorm uses the biased variance, ``eps`` sits inside
the square root, and the gain ``gamma`` multiplies the normalised vector. Gemma-family
RMSNorm stores ``w`` and applies the effective gain ``1 + w``; pass the effective gain.
"""

from __future__ import annotations

import numpy as np

from companion._validate import check_finite_array, check_real

__all__ = ["layernorm", "layernorm_jacobian", "rms", "rmsnorm", "rmsnorm_jacobian"]


def _gain(gain, d, name):
    if gain is None:
        return np.ones(d)
    g = check_finite_array(gain, name, ndim=1)
    if g.shape[0] != d:
        raise ValueError(f"`{name}` must have length d = {d}; got length {g.shape[0]}")
    return g


def _vectors(u, name: str) -> np.ndarray:
    u = check_finite_array(u, name, min_ndim=1)
    if u.shape[-1] < 1:
        raise ValueError(f"`{name}` must have a non-empty last axis; got shape {u.shape}")
    return u


def _rescaled(u):
    """``(v, m)``: ``u = m v`` with ``m`` the largest ``|u|`` of each row (1 for a zero row),
    so that ``v`` can be squared without overflow (1e200) or underflow (1e-200)."""
    m = np.max(np.abs(u), axis=-1, keepdims=True)
    m = np.where(m > 0, m, 1.0)
    return u / m, m


def _inv_root(ms, m, eps):
    """``m / sqrt(m^2 ms + eps)`` for every scale ``m``: the factor that turns a rescaled row
    ``v`` (mean square ``ms``) into ``u / sqrt(mean(u^2) + eps)``."""
    if eps == 0:
        return 1.0 / np.sqrt(ms)
    with np.errstate(over="ignore", under="ignore"):
        big = 1.0 / np.sqrt(ms + eps / np.maximum(m, 1.0) ** 2)  # m >= 1: eps / m^2 <= eps
        small = m / np.sqrt(np.minimum(m, 1.0) ** 2 * ms + eps)  # m < 1: m^2 ms may underflow
    return np.where(m >= 1, big, small)


def _rms(u, eps):
    """``sqrt(mean(u^2) + eps)``, rescaled so that no square overflows or underflows."""
    v, m = _rescaled(u)
    ms = np.mean(v * v, axis=-1, keepdims=True)
    if eps == 0:
        return m * np.sqrt(ms)
    with np.errstate(over="ignore", under="ignore"):
        big = m * np.sqrt(ms + eps / np.maximum(m, 1.0) ** 2)
        small = np.sqrt(np.minimum(m, 1.0) ** 2 * ms + eps)
    return np.where(m >= 1, big, small)


def rms(u, eps: float = 0.0) -> np.ndarray:
    """Root mean square over the last axis, ``sqrt(mean(u**2) + eps)`` (keeps the axis).

    Examples
    --------
    >>> rms([[3.0, 4.0]])
    array([[3.53553391]])
    """
    return _rms(_vectors(u, "u"), check_real(eps, "eps", low=0.0))


def rmsnorm(u, gain=None, eps: float = 0.0) -> np.ndarray:
    """RMSNorm ``g * u / sqrt(mean(u^2) + eps)`` over the last axis.

    With ``eps = 0`` a zero vector has no direction (0/0) and is refused; with
    ``eps > 0`` it maps to 0.

    Examples
    --------
    >>> rmsnorm(np.array([3.0, 4.0]))
    array([0.84852814, 1.13137085])
    """
    u = _vectors(u, "u")
    eps = check_real(eps, "eps", low=0.0)
    if eps == 0:
        zero = int(np.count_nonzero(~u.any(axis=-1)))
        if zero:
            raise ValueError(
                f"`u` must have no all-zero rows when eps = 0 (RMSNorm is 0/0 there); got {zero}"
            )
    g = _gain(gain, u.shape[-1], "gain")
    v, m = _rescaled(u)  # u / sqrt(mean(u^2) + eps), with no square of a huge or tiny number
    return g * v * _inv_root(np.mean(v * v, axis=-1, keepdims=True), m, eps)


def rmsnorm_jacobian(u, gain=None) -> np.ndarray:
    """Jacobian of RMSNorm (eps = 0) at a single vector ``u`` of length d.

    ``J = diag(g) (1/rms(u)) (I - u_hat u_hat^T)``: it annihilates the radial
    direction and scales the transverse part by ``1/rms(u) = sqrt(d)/||u||``
    (Dong 2026, the Frechet derivative behind Theorem 3; re-derived in
    {prf:ref}`thm-rmsnorm-filter`).

    Examples
    --------
    >>> u = np.array([1.0, 2.0, 2.0])
    >>> np.allclose(rmsnorm_jacobian(u) @ u, 0)
    True
    """
    u = check_finite_array(u, "u", ndim=1)
    d = u.shape[0]
    if d < 2:
        raise ValueError(f"`u` must have length d >= 2; got length {d}")
    nrm = np.linalg.norm(u)
    if nrm == 0:
        raise ValueError("`u` must be non-zero; got the zero vector")
    uh = u / nrm
    return _gain(gain, d, "gain")[:, None] * (np.sqrt(d) / nrm) * (np.eye(d) - np.outer(uh, uh))


def layernorm(x, gamma=None, beta=None, eps: float = 1e-5) -> np.ndarray:
    """LayerNorm ``gamma * (x - mean) / sqrt(var + eps) + beta`` over the last axis (biased var).

    With ``eps = 0`` a constant row has no direction (0/0) and is refused; with
    ``eps > 0`` it maps to ``beta`` (up to rounding in the mean).

    Examples
    --------
    >>> y = layernorm(np.array([[1.0, 2.0, 6.0]]), gamma=np.array([1.0, 2.0, 4.0]))
    >>> float(np.round(y @ (1 / np.array([1.0, 2.0, 4.0])), 12)[0])   # <gamma^-1, y> = 0
    0.0
    """
    x = _vectors(x, "x")
    d = x.shape[-1]
    eps = check_real(eps, "eps", low=0.0)
    if eps == 0:
        const = int(np.count_nonzero(np.all(x == x[..., :1], axis=-1)))
        if const:
            raise ValueError(
                f"`x` must have no constant rows when eps = 0 (LayerNorm is 0/0 there); got {const}"
            )
    g = _gain(gamma, d, "gamma")
    b = np.zeros(d) if beta is None else _gain(beta, d, "beta")
    v, m = _rescaled(x)  # centre and square the rescaled row: no overflow (1e200), no underflow
    vc = v - v.mean(axis=-1, keepdims=True)
    return g * vc * _inv_root(np.mean(vc * vc, axis=-1, keepdims=True), m, eps) + b


def layernorm_jacobian(x, gamma=None, eps: float = 0.0) -> np.ndarray:
    """Jacobian of LayerNorm at a single vector ``x`` of length d.

    With ``z = Px / s``, ``s = sqrt(var + eps)``: ``J = diag(gamma) (P - z z^T / d) / s``,
    where ``P = I - 11^T/d`` (exact for any eps).
    """
    x = check_finite_array(x, "x", ndim=1)
    d = x.shape[0]
    if d < 2:
        raise ValueError(f"`x` must have length d >= 2; got length {d}")
    g = _gain(gamma, d, "gamma")
    P = np.eye(d) - np.full((d, d), 1.0 / d)
    xc = P @ x
    s = np.sqrt(np.mean(xc * xc) + check_real(eps, "eps", low=0.0))
    if s == 0:
        raise ValueError("`x` must not be constant when eps = 0; got a constant vector")
    z = xc / s
    return g[:, None] * (P - np.outer(z, z) / d) / s
