"""The arc-cosine kernel of ReLU: k(rho) = E[ReLU(u) ReLU(v)] for a standard bivariate normal.

By Price's theorem dk/drho = E[1(u>0) 1(v>0)] = (pi - arccos rho)/(2 pi); integrating
from k(0) = 1/(2 pi) gives the closed form (Cho & Saul's first-order arc-cosine kernel).
Used by Theorem 3 (finite-p ratio), Theorem 4 (post-ReLU radial fraction 0.36489) and
the leverage law.
"""

from __future__ import annotations

import numpy as np

from companion._validate import check_finite_array

__all__ = ["relu_kernel", "relu_kernel_derivative"]


def relu_kernel(rho):
    """k(rho) = (sqrt(1 - rho^2) + rho (pi - arccos rho)) / (2 pi) for rho in [-1, 1].

    Dong (2026), proof of Theorem 3 (the author's derivation through Price's theorem);
    shown in {prf:ref}`thm-theorem3`.

    Examples
    --------
    >>> float(relu_kernel(1.0))      # E[ReLU(u)^2] = 1/2
    0.5
    >>> round(float(relu_kernel(0.0)), 6)   # (E ReLU(u))^2 = 1/(2 pi)
    0.159155
    """
    r = check_finite_array(rho, "rho")
    if np.any((r < -1) | (r > 1)):
        bad = r[(r < -1) | (r > 1)].ravel()[0]
        raise ValueError(f"`rho` must be in [-1, 1]; got {bad:g}")
    out = (np.sqrt(np.clip(1 - r * r, 0, None)) + r * (np.pi - np.arccos(r))) / (2 * np.pi)
    return out if out.ndim else out[()]


def relu_kernel_derivative(rho):
    """dk/drho = P(u > 0, v > 0) = (pi - arccos rho) / (2 pi) (Price's theorem)."""
    r = check_finite_array(rho, "rho")
    if np.any((r < -1) | (r > 1)):
        bad = r[(r < -1) | (r > 1)].ravel()[0]
        raise ValueError(f"`rho` must be in [-1, 1]; got {bad:g}")
    out = (np.pi - np.arccos(r)) / (2 * np.pi)
    return out if out.ndim else out[()]
