"""The Schur ratio R(h) and Delta-gamma = 1 - R(h): OUR operationalisation (a reconstruction).

Shirodkar & Narayanan (2026) report a "Schur ratio" that quantifies how much deeper the
dead direction becomes with training, built from a Schur complement and
Marchenko-Pastur theory; its exact formula is not available to this project. We use
the reading of spec §2.5, shown in the chapter {prf:ref}`def-schur-ratio`:

    R(h) = (S_hh - S_{h,perp} S_{perp,perp}^-1 S_{perp,h}) / S_hh = 1 / (S_hh (S^-1)_hh)

for a unit direction ``h`` and a covariance ``S``: the fraction of the variance along
``h`` that the orthogonal complement cannot predict linearly. For N isotropic Gaussian
samples in dimension d, R is exactly Beta((n - d + 1)/2, (d - 1)/2) with ``n = N - 1``
(centred) or ``n = N`` (uncentred), so E[R] = (n - d + 1)/n -> 1 - d/N, the
Marchenko-Pastur baseline. On a post-LN covariance R(v*) is 0/0 (v* is an exact kernel
direction), so the ratio must be read on a tensor without the exact kernel, e.g. after
:func:`deflate` removes v*.
"""

from __future__ import annotations

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_choice,
    check_finite_array,
    check_int,
    check_real,
    check_symmetric,
)
from companion.stats import MCEstimate, mean_estimate
from companion.theory.budget import check_sizes

__all__ = [
    "deflate",
    "delta_gamma",
    "mp_baseline",
    "schur_ratio",
    "schur_ratios_coordinates",
    "simulate_schur_ratio",
]


def _check_cov(cov) -> np.ndarray:
    # one rule with ln_kernel and kfac_lift: symmetric to rounding (then averaged), else refused
    return check_symmetric(cov, "cov", min_size=2)


def _check_positive_definite(lam, rtol):
    if lam[0] <= rtol * max(lam[-1], 0.0) or lam[-1] <= 0:
        raise ValueError(
            f"`cov` must be positive definite for the Schur ratio; got smallest eigenvalue "
            f"{lam[0]:.3g} (largest {lam[-1]:.3g}): R(h) is 0/0 along a kernel direction "
            f"(e.g. v* on a post-LN covariance) -- deflate it first"
        )


def _check_h(h, d: int, name: str = "h") -> np.ndarray:
    h = check_finite_array(h, name, ndim=1)
    if h.shape[0] != d:
        raise ValueError(f"`{name}` must have length d = {d}; got length {h.shape[0]}")
    nrm = np.linalg.norm(h)
    if nrm == 0:
        raise ValueError(f"`{name}` must be a non-zero vector; got the zero vector")
    return h / nrm


def schur_ratio(cov, h, *, method: str = "inverse", rtol: float = 1e-12) -> float:
    """R(h) = 1 / (S_hh (S^-1)_hh) for a unit direction h (our reconstruction, spec §2.5).

    ``method="inverse"`` uses the eigendecomposition of S; ``method="complement"`` rotates
    to a basis whose first axis is h and forms the Schur complement
    ``S_hh - S_{h,perp} S_{perp,perp}^-1 S_{perp,h}`` explicitly (same number; the
    chapter {prf:ref}`def-schur-ratio` checks the identity). ``h`` is normalised.

    Raises ``ValueError`` when S is singular to relative tolerance ``rtol`` (then R is
    0/0 along a kernel direction, e.g. R(v*) on a post-LN covariance), and when S is not
    symmetric beyond rounding (an asymmetry above 1e-10 of its largest entry; a smaller
    one is averaged away), the same rule as :mod:`companion.theory.ln_kernel`.

    Examples
    --------
    >>> S = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> schur_ratio(S, [1.0, 0.0])                       # 1 - rho^2 with rho = 1/2
    0.75
    >>> round(schur_ratio(S, [1.0, 0.0], method="complement"), 12)
    0.75
    """
    check_choice(method, "method", ("inverse", "complement"))
    rtol = check_real(rtol, "rtol", low=0.0)
    S = _check_cov(cov)
    d = S.shape[0]
    h = _check_h(h, d)
    lam, Q = np.linalg.eigh(S)
    _check_positive_definite(lam, rtol)
    if method == "inverse":
        q = Q.T @ h  # (d,) h in the eigenbasis
        return float(1.0 / ((q * q) @ lam * ((q * q) @ (1.0 / lam))))
    # orthonormal basis [h, rest]: Householder-free via QR of [h | I]
    B, _ = np.linalg.qr(np.column_stack([h, np.eye(d)]))  # (d, d), B[:, 0] = +-h
    R = B.T @ S @ B
    s_hh, s_hp, s_pp = R[0, 0], R[0, 1:], R[1:, 1:]
    return float((s_hh - s_hp @ np.linalg.solve(s_pp, s_hp)) / s_hh)


def delta_gamma(cov, h, *, method: str = "inverse", rtol: float = 1e-12) -> float:
    """Delta-gamma = 1 - R(h) (our reconstruction): 0 for an unpredictable direction, -> 1
    for a (linearly) dead one. See :func:`schur_ratio`.

    Examples
    --------
    >>> delta_gamma(np.eye(3), [0.0, 1.0, 0.0])
    0.0
    """
    return 1.0 - schur_ratio(cov, h, method=method, rtol=rtol)


def schur_ratios_coordinates(cov, *, rtol: float = 1e-12) -> np.ndarray:
    """R(e_i) for every coordinate axis at once: ``1 / (S_ii (S^-1)_ii)``, shape (d,).

    Examples
    --------
    >>> schur_ratios_coordinates(np.array([[2.0, 1.0], [1.0, 2.0]]))
    array([0.75, 0.75])
    """
    rtol = check_real(rtol, "rtol", low=0.0)
    S = _check_cov(cov)
    _check_positive_definite(np.linalg.eigvalsh(S), rtol)
    return 1.0 / (np.diag(S) * np.diag(np.linalg.inv(S)))


def deflate(cov, v) -> tuple[np.ndarray, np.ndarray]:
    """Restrict a covariance to the orthogonal complement of ``v``.

    Returns ``(S_perp, B)`` with ``B`` (d, d - 1) an orthonormal basis of ``v``'s complement
    and ``S_perp = B^T S B`` (d - 1, d - 1); a direction ``h`` ⊥ ``v`` becomes ``B^T h``.

    Examples
    --------
    >>> S, B = deflate(np.diag([1.0, 2.0, 3.0]), [1.0, 0.0, 0.0])
    >>> np.round(np.linalg.eigvalsh(S), 12)
    array([2., 3.])
    """
    S = _check_cov(cov)
    v = _check_h(v, S.shape[0], "v")
    Q, _ = np.linalg.qr(np.column_stack([v, np.eye(S.shape[0])]))  # (d, d), Q[:, 0] = +-v
    B = Q[:, 1:]  # (d, d - 1)
    return B.T @ S @ B, B


def mp_baseline(d: int, n_samples: int, *, centred: bool = True, exact: bool = True) -> float:
    """E[R(h)] for i.i.d. isotropic Gaussian data: the null level of our Schur ratio.

    With ``n = N - 1`` degrees of freedom (``centred``) or ``n = N``, the sample covariance
    is Wishart and ``R(h) = S_{hh.perp} / S_hh ~ Beta((n - d + 1)/2, (d - 1)/2)`` for any
    fixed unit h (Bartlett), so ``E[R] = (n - d + 1)/n`` (``exact=True``). Its large-N form
    ``1 - d/N`` (``exact=False``) is the Marchenko-Pastur reading (aspect ratio d/N), the
    baseline quoted in spec §2.5. Shown in {prf:ref}`def-schur-ratio`.

    Examples
    --------
    >>> mp_baseline(256, 1024, exact=False)
    0.75
    >>> round(mp_baseline(256, 1024), 6)
    0.750733
    """
    d = check_int(d, "d", low=2)
    centred = check_bool(centred, "centred")
    exact = check_bool(exact, "exact")
    n_samples = check_int(n_samples, "n_samples", low=d + 1 if centred else d)
    if not exact:
        return 1.0 - d / n_samples
    n = n_samples - 1 if centred else n_samples
    return (n - d + 1) / n


def simulate_schur_ratio(
    d: int, n_samples: int, *, trials: int = 100, centred: bool = True, rng=None
) -> MCEstimate:
    """Monte Carlo E[R(e_i)] for N i.i.d. N(0, I_d) samples (compare :func:`mp_baseline`).

    Each trial draws a fresh (N, d) sample, forms its (centred) covariance and averages R
    over the d coordinate axes; the trial means are i.i.d., so the standard error is
    honest despite the correlation between axes within a trial.

    Examples
    --------
    >>> est = simulate_schur_ratio(16, 64, trials=200, rng=0)
    >>> est.agrees_with(mp_baseline(16, 64))
    True
    """
    d = check_int(d, "d", low=2)
    n_samples = check_int(n_samples, "n_samples", low=d + 2)
    trials = check_int(trials, "trials", low=2)
    check_sizes(
        {"n_samples": n_samples, "trials": trials},
        elements=2 * n_samples * d + trials,
        ops=trials * n_samples * d * d,
        what=f"{trials} trials of {n_samples} x {d}",
    )
    centred = check_bool(centred, "centred")
    g = as_generator(rng)
    out = np.empty(trials)
    for t in range(trials):
        X = g.standard_normal((n_samples, d))  # (N, d)
        if centred:
            X = X - X.mean(axis=0)
        out[t] = schur_ratios_coordinates(X.T @ X).mean()
    return mean_estimate(out)
