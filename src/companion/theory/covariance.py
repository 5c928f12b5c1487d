"""Covariance statistics in float64: the centred sample covariance, its bottom direction
(the measured u⊥ of Shirodkar & Narayanan 2026) and the validation shared by every reader
of samples or of a precomputed covariance (:func:`resolve_statistics`).
"""

from __future__ import annotations

import numpy as np

from companion._validate import check_finite_array, check_int, check_symmetric

__all__ = ["bottom_direction", "centred_covariance"]


def centred_covariance(Y, *, ddof: int = 1) -> np.ndarray:
    """Centred sample covariance ``Y_c^T Y_c / (N - ddof)`` in float64, Y of shape (N, d).

    Centring uses the empirical mean over the N samples (rows); two passes in float64.

    Examples
    --------
    >>> centred_covariance([[1.0, 0.0], [3.0, 2.0]])
    array([[2., 2.],
           [2., 2.]])
    """
    Y = check_samples(Y)
    ddof = check_int(ddof, "ddof", low=0, high=1)
    Yc = Y - Y.mean(axis=0)  # (N, d)
    return Yc.T @ Yc / (Y.shape[0] - ddof)


def bottom_direction(C, *, n_samples: int | None = None) -> tuple[float, np.ndarray]:
    """Smallest eigenvalue of a covariance and its unit eigenvector (the measured u_perp).

    Equivalent to the bottom right-singular vector of the centred data. The sign is
    fixed so that the largest-magnitude component is positive. A unique bottom
    direction needs N > d samples (the centred rank is at most N - 1): pass
    ``n_samples`` and it is checked.

    Examples
    --------
    >>> lam, u = bottom_direction(np.diag([3.0, 0.5, 2.0]))
    >>> lam, u
    (0.5, array([0., 1., 0.]))
    >>> bottom_direction(np.eye(3), n_samples=3)
    Traceback (most recent call last):
    ...
    ValueError: `n_samples` must be > d = 3 for a unique bottom direction (...); got 3
    """
    C = _check_cov(C, "C")
    if n_samples is not None:
        _check_n_for_bottom(n_samples, C.shape[0])
    w, V = np.linalg.eigh(C)
    u = V[:, 0]
    if u[np.argmax(np.abs(u))] < 0:
        u = -u
    return float(w[0]), u


def resolve_statistics(Y=None, *, cov=None, n_samples=None, mean=None):
    """Validate either samples ``Y`` or (``cov``, ``n_samples``[, ``mean``]).

    Returns ``(C, n, mean)`` with C the centred float64 covariance (ddof = 1 from Y) and
    ``mean`` possibly ``None``. Shared by :func:`kernel_report` and the classifier.
    """
    if (Y is None) == (cov is None):
        raise TypeError(
            "exactly one of `Y` (samples) and `cov` (a precomputed covariance) must be "
            f"given; got {'both' if Y is not None else 'neither'}"
        )
    if Y is not None:
        if n_samples is not None or mean is not None:
            raise TypeError(
                "`n_samples` and `mean` must only be given with `cov`; got them with `Y`"
            )
        Y = check_samples(Y)
        return centred_covariance(Y), Y.shape[0], Y.mean(axis=0)
    C = _check_cov(cov, "cov")
    if n_samples is None:
        raise TypeError(
            "`n_samples` must be given with `cov` (the number of samples behind it); got None"
        )
    n = check_int(n_samples, "n_samples", low=2)
    m = None
    if mean is not None:
        m = check_finite_array(mean, "mean", ndim=1)
        if m.shape[0] != C.shape[0]:
            raise ValueError(f"`mean` must have length d = {C.shape[0]}; got length {m.shape[0]}")
    return C, n, m


def check_samples(Y) -> np.ndarray:
    """``Y`` as a float64 (N, d) array of samples, one per row, N >= 2 and d >= 2."""
    Y = check_finite_array(Y, "Y")
    if Y.ndim != 2:
        raise ValueError(
            f"`Y` must be a 2-D array of shape (N, d), one sample per row; got shape {Y.shape}"
        )
    if Y.shape[0] < 2 or Y.shape[1] < 2:
        raise ValueError(
            f"`Y` must have at least 2 rows (samples) and 2 columns; got shape {Y.shape}"
        )
    return Y


def _check_cov(C, name) -> np.ndarray:
    return check_symmetric(C, name, min_size=2)


def _check_n_for_bottom(n, d):
    n = check_int(n, "n_samples", low=1)
    if n <= d:
        raise ValueError(
            f"`n_samples` must be > d = {d} for a unique bottom direction "
            f"(the centred rank is at most N - 1); got {n}"
        )
    return n
