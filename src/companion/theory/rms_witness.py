"""T2 of Shirodkar & Narayanan (2026, Lean ``prop:rmsnorm_no_kernel``): RMSNorm has no
γ-only kernel, and the Lean witness shows it, the input uniform on the ``2d`` points ``±e_i``.
Its closed-form variance along any ``v`` and its simulation; shown in
{prf:ref}`thm-rms-no-kernel`.
"""

from __future__ import annotations

import numpy as np

from companion._validate import (
    as_generator,
    check_choice,
    check_finite_array,
    check_int,
    check_real,
)
from companion.stats import MCEstimate, mean_estimate
from companion.theory.budget import check_sizes
from companion.theory.norms import layernorm, rmsnorm

__all__ = [
    "rms_witness_inputs",
    "rms_witness_variance",
    "simulate_rms_witness_variance",
    "witness_variance_exact",
]


def rms_witness_inputs(d: int) -> np.ndarray:
    """The Lean witness population of T2: the 2d points +-e_i, shape (2d, d), equally likely.

    Its covariance is I/d (positive definite), so it is an admissible input distribution.

    Examples
    --------
    >>> rms_witness_inputs(2)
    array([[ 1.,  0.],
           [ 0.,  1.],
           [-1., -0.],
           [-0., -1.]])
    """
    d = check_int(d, "d", low=2)
    check_sizes({"d": d}, elements=3 * d * d, what=f"2d x d inputs, d = {d}")
    eye = np.eye(d)
    return np.concatenate([eye, -eye])  # (2d, d)


def _check_v_gamma(v, gamma):
    g = check_finite_array(gamma, "gamma", ndim=1)
    v = check_finite_array(v, "v", ndim=1)
    if v.shape != g.shape:
        raise ValueError(
            f"`v` must have the length of `gamma`, d = {g.shape[0]}; got length {v.shape[0]}"
        )
    if g.shape[0] < 2:
        raise ValueError(f"`gamma` must have length d >= 2; got length {g.shape[0]}")
    return v, g


def rms_witness_variance(v, gamma, eps: float = 0.0) -> float:
    """Closed form Var(<v, RMSNorm(X)>) for X uniform on +-e_i: sum_i (v_i gamma_i)^2 / (1 + d eps).

    T2 (Lean ``prop:rmsnorm_no_kernel``), shown in {prf:ref}`thm-rms-no-kernel`:
    ``RMSNorm(+-e_i) = +-sqrt(d) gamma_i e_i / sqrt(1 + d eps)``, so the reading is
    ``+-sqrt(d) v_i gamma_i / sqrt(1 + d eps)`` with mean 0; it is > 0 for every v != 0
    when gamma has no zero entry. With ``v = v*`` it equals ``d / ||gamma^-1||^2`` (eps = 0).

    Examples
    --------
    >>> rms_witness_variance([1.0, 0.0, 0.0], [2.0, 5.0, 5.0])
    4.0
    """
    v, g = _check_v_gamma(v, gamma)
    eps = check_real(eps, "eps", low=0.0)
    return float(np.sum((v * g) ** 2) / (1.0 + g.shape[0] * eps))


def witness_variance_exact(
    v, gamma, eps: float = 0.0, *, norm: str = "rmsnorm", beta=None
) -> float:
    """Population Var(<v, Norm(X)>) over the 2d witness points, by enumeration (no sampling).

    With ``norm="layernorm"`` and ``v = v*`` it is 0 (T1); with ``norm="rmsnorm"`` it equals
    :func:`rms_witness_variance`.

    Examples
    --------
    >>> g = np.array([1.0, 2.0, 4.0])
    >>> v = [0.5, 0.5, 0.0]
    >>> round(witness_variance_exact(v, g), 12), rms_witness_variance(v, g)
    (1.25, 1.25)
    """
    v, g = _check_v_gamma(v, gamma)
    check_choice(norm, "norm", ("layernorm", "rmsnorm"))
    x = rms_witness_inputs(g.shape[0])  # (2d, d)
    y = layernorm(x, g, beta, eps) if norm == "layernorm" else rmsnorm(x, g, eps)
    r = y @ v  # (2d,)
    return float(np.mean((r - r.mean()) ** 2))


def simulate_rms_witness_variance(
    v, gamma, *, samples: int = 10_000, eps: float = 0.0, rng=None
) -> MCEstimate:
    """Monte Carlo Var(<v, RMSNorm(X)>) with X drawn uniformly from +-e_i.

    The reading has mean exactly 0, so the variance is the mean of its square (an
    unbiased estimate with an honest standard error).

    Examples
    --------
    >>> est = simulate_rms_witness_variance([1.0, 1.0], [1.0, 3.0], samples=2000, rng=0)
    >>> est.agrees_with(rms_witness_variance([1.0, 1.0], [1.0, 3.0]))
    True
    """
    v, g = _check_v_gamma(v, gamma)
    samples = check_int(samples, "samples", low=2)
    check_sizes({"samples": samples}, elements=3 * samples * g.shape[0],
                what=f"{samples} x {g.shape[0]} inputs")  # fmt: skip
    eps = check_real(eps, "eps", low=0.0)
    rng = as_generator(rng)
    d = g.shape[0]
    idx = rng.integers(0, d, samples)  # (samples,)
    sgn = rng.choice([-1.0, 1.0], samples)  # (samples,)
    x = np.zeros((samples, d))  # (samples, d)
    x[np.arange(samples), idx] = sgn
    r = rmsnorm(x, g, eps) @ v  # (samples,)
    return mean_estimate(r * r)
