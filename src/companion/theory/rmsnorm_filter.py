"""RMSNorm as a radial filter: its Jacobian keeps only the transverse part of a change.

``D RMSNorm(u)[v] = diag(g) (1/rms(u)) (I - u_hat u_hat^T) v`` (``rmsnorm_jacobian`` in
:mod:`companion.theory.norms`). Because ``RMSNorm(c u) = RMSNorm(u)`` for ``c > 0``, the
radial direction is annihilated, and to first order the output change has energy
``(d/||u||^2) T(Delta; u)`` (gain 1), with ``T`` the transverse energy of
:func:`companion.theory.perturbations.transverse_energy`. A supporting result we
re-derive (the paper's Theorems 1-2 are not available); shown in
{prf:ref}`thm-rmsnorm-filter`.
"""

from __future__ import annotations

import numpy as np

from companion._validate import as_generator, check_finite_array, check_int, check_real
from companion.theory.budget import check_sizes
from companion.theory.norms import rmsnorm, rmsnorm_jacobian
from companion.theory.perturbations import transverse_energy

__all__ = ["first_order_output_energy", "jacobian_fd_error", "rmsnorm_change"]


def _vec_pair(u, delta):
    u = check_finite_array(u, "u", ndim=1)
    delta = check_finite_array(delta, "delta", ndim=1)
    if delta.shape != u.shape:
        raise ValueError(f"`delta` must have the shape of `u` {u.shape}; got shape {delta.shape}")
    return u, delta


def rmsnorm_change(u, delta, gain=None) -> tuple[np.ndarray, np.ndarray]:
    """The exact change ``RMSNorm(u + delta) - RMSNorm(u)`` and its first-order part ``J delta``.

    Examples
    --------
    >>> exact, lin = rmsnorm_change(np.array([3.0, 4.0]), np.array([0.3, 0.4]))
    >>> np.allclose(exact, 0), np.allclose(lin, 0)     # a purely radial change does nothing
    (True, True)
    """
    u, delta = _vec_pair(u, delta)
    J = rmsnorm_jacobian(u, gain)  # (d, d)
    return rmsnorm(u + delta, gain) - rmsnorm(u, gain), J @ delta


def first_order_output_energy(u, delta) -> float:
    """``||J delta||^2 = (d / ||u||^2) T(delta; u)`` for gain 1 ({prf:ref}`thm-rmsnorm-filter`).

    Examples
    --------
    >>> first_order_output_energy(np.array([1.0, 0.0]), np.array([5.0, 1.0]))
    2.0
    """
    u, delta = _vec_pair(u, delta)
    uu = float(np.dot(u, u))
    if uu == 0:
        raise ValueError("`u` must be non-zero; got the zero vector")
    return float(u.shape[0] / uu * transverse_energy(delta, u))


def jacobian_fd_error(u, gain=None, *, directions: int = 4, h: float = 1e-5, rng=None) -> float:
    """Largest ``|central finite difference - J v|`` over random unit directions ``v``.

    The central difference ``(RMSNorm(u + h v) - RMSNorm(u - h v)) / (2h)`` has error
    ``O(h^2)``; at ``h = 1e-5`` expect about 1e-10 for ``||u|| ~ sqrt(d)``.

    Examples
    --------
    >>> jacobian_fd_error(np.arange(1.0, 9.0), rng=0) < 1e-8
    True
    """
    u = check_finite_array(u, "u", ndim=1)
    h = check_real(h, "h", low=0.0, low_open=True)
    directions = check_int(directions, "directions", low=1)
    d = u.shape[0]
    check_sizes({"directions": directions}, elements=d * d, ops=directions * d * (d + 10),
                what=f"{directions} directions at d = {d}")  # fmt: skip
    J = rmsnorm_jacobian(u, gain)  # (d, d)
    g = as_generator(rng)
    err = 0.0
    for _ in range(directions):
        v = g.standard_normal(u.shape[0])
        v /= np.linalg.norm(v)
        fd = (rmsnorm(u + h * v, gain) - rmsnorm(u - h * v, gain)) / (2 * h)
        err = max(err, float(np.max(np.abs(fd - J @ v))))
    return err
