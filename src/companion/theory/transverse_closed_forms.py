"""Theorem 3 of Dong (2026) in closed form: the p -> 0 limit pi/(pi-2), the author's
finite-p formula, both branches through the exact arc-cosine kernel
(:class:`BranchMoments`), the post-norm inflation of the magnitude branch, and the paper's
measured Table 2 (labelled as theirs). The simulation is :mod:`companion.theory.transverse_ratio`,
which re-exports every name here. Shown in {prf:ref}`thm-theorem3`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion._validate import check_choice, check_finite_array, check_real
from companion.theory.relu_kernel import relu_kernel

__all__ = [
    "BranchMoments",
    "PAPER_TABLE2",
    "branch_moments",
    "post_norm_inflation",
    "transverse_ratio_exact",
    "transverse_ratio_limit",
    "transverse_ratio_noise",
    "transverse_ratio_paper",
]

#: The paper's measured C (V1, n = 2048, 20 seeds x 10,000 samples; value, SE), from the
#: author's README / Figure 1 -- the paper's numbers, not ours.
PAPER_TABLE2 = {
    0.01: (2.639, 0.012),
    0.02: (2.583, 0.010),
    0.05: (2.465, 0.010),
    0.10: (2.299, 0.008),
}


def check_probabilities(p, name="p", *, low_open=False):
    """Validate a scalar or array of probabilities with the one-style message (shared with
    the simulation, :mod:`companion.theory.transverse_ratio`)."""
    arr = check_finite_array(p, name)
    bad = (arr <= 0) if low_open else (arr < 0)
    bad |= arr > 1
    if np.any(bad):
        v = arr[bad].ravel()[0]
        lo = "(" if low_open else "["
        raise ValueError(f"`{name}` must be in {lo}0, 1]; got {v:g}")
    return arr


def _out(x):
    x = np.asarray(x, dtype=np.float64)
    return float(x) if x.ndim == 0 else x


def transverse_ratio_limit() -> float:
    """``pi/(pi - 2) = 1/(1 - 2/pi) ~ 2.7519``, the p -> 0, infinite-width limit of C.

    Dong (2026), Theorem 3; shown in {prf:ref}`thm-theorem3`.

    Examples
    --------
    >>> round(transverse_ratio_limit(), 6)
    2.751938
    """
    return float(np.pi / (np.pi - 2.0))


def transverse_ratio_paper(p, *, variant: str = "code"):
    """The author's finite-p closed form of C(p) (Theorem 3, as in the public code).

    ``variant="code"`` (``verify_theorem3.py``, the README's theory column):
    ``[(1 - R_sign)/(1 - 2/pi)] * R_A`` with ``R_sign = p - 4 p^{3/2}/(3 pi)`` and
    ``R_A = 1 - 4 sqrt(p)/(3 pi)``. ``variant="figure"`` (``plot_theorem3.py``):
    ``(pi/(pi-2)) (1 - p)(1 - 4 sqrt(p)/(3 pi))``. Both keep the O(sqrt p) kink terms of
    the sign branch only, so they sit 1-5% below simulation; compare
    :func:`transverse_ratio_exact`. Shown in {prf:ref}`thm-theorem3`.

    Examples
    --------
    >>> [round(transverse_ratio_paper(p), 3) for p in (0.01, 0.02, 0.05, 0.1)]
    [2.61, 2.538, 2.378, 2.176]
    """
    check_choice(variant, "variant", ("code", "figure"))
    p = check_probabilities(p)
    r_a = 1.0 - 4.0 * np.sqrt(p) / (3.0 * np.pi)
    if variant == "figure":
        return _out(transverse_ratio_limit() * (1.0 - p) * r_a)
    r_sign = p - 4.0 * p**1.5 / (3.0 * np.pi)
    return _out((1.0 - r_sign) / (1.0 - 2.0 / np.pi) * r_a)


@dataclass(frozen=True)
class BranchMoments:
    """Per-unit hidden moments of both branches at infinite width (sigma^2 = 1).

    ``E_*`` = E[Delta h^2], ``R_*`` = E[h Delta h]^2 / (E[h^2] E[Delta h^2]) and
    ``T_* = (1 - R_*) E_*``, for the sign flip (``s``) and the magnitude branch (``m``).
    """

    p: float
    E_sign: float
    R_sign: float
    T_sign: float
    E_mag: float
    R_mag: float
    T_mag: float

    @property
    def ratio(self) -> float:
        """``T_sign / T_mag``, i.e. :func:`transverse_ratio_exact` (undefined at p = 0)."""
        if self.T_mag == 0:
            raise ValueError(
                f"`p` must be > 0 for the ratio (both branches vanish at p = 0); got {self.p:g}"
            )
        return self.T_sign / self.T_mag


def branch_moments(p: float) -> BranchMoments:
    """Both branches of Theorem 3 through the exact arc-cosine kernel (no expansion in p).

    Sign flip: (z, z') standard bivariate normal with correlation ``1 - 2p``, so
    ``E_s = 1 - 2k(1-2p)`` and ``R_s = (1 - 2k(1-2p))/2``. Magnitude: z' = z + Delta z with
    ``Delta z = kappa z + eps``, ``kappa = 2 sqrt(2p/pi)``, ``Var eps = 4p(1 - 2/pi)``; so
    ``sigma'^2 = 1 + 4p + 4 sqrt(2p/pi)``, ``rho_m = (1 + kappa)/sigma'``,
    ``E_m = sigma'^2/2 + 1/2 - 2 sigma' k(rho_m)`` and ``E[h Delta h] = sigma' k(rho_m) - 1/2``.

    Our re-derivation (the spec's section 3.3 caveat), shown in {prf:ref}`thm-theorem3`.

    Examples
    --------
    >>> b = branch_moments(0.01)
    >>> round(b.R_sign, 5), round(b.R_mag, 4)
    (0.00958, 0.6421)
    """
    p = check_real(p, "p", low=0.0, high=1.0)
    k_s = float(relu_kernel(1.0 - 2.0 * p))
    e_s = 1.0 - 2.0 * k_s
    r_s = e_s / 2.0
    kappa = 2.0 * np.sqrt(2.0 * p / np.pi)
    sp = np.sqrt(1.0 + 4.0 * p + 2.0 * kappa)  # sigma'/sigma
    rho = min((1.0 + kappa) / sp, 1.0)
    k_m = float(relu_kernel(rho))
    e_m = sp * sp / 2.0 + 0.5 - 2.0 * sp * k_m
    c_m = sp * k_m - 0.5
    r_m = float(c_m * c_m / (0.5 * e_m)) if e_m > 0 else 0.0
    return BranchMoments(p, e_s, r_s, (1 - r_s) * e_s, float(e_m), r_m, float((1 - r_m) * e_m))


def transverse_ratio_exact(p):
    """``C_exact(p) = T_sign / T_mag`` with both branches through the exact kernel.

    Matches simulation within about 1% at width >= 512, where the author's
    :func:`transverse_ratio_paper` is 2-5% low; tends to :func:`transverse_ratio_limit`
    as p -> 0 (our re-derivation; Dong 2026, Theorem 3; shown in {prf:ref}`thm-theorem3`).

    Examples
    --------
    >>> [round(transverse_ratio_exact(p), 4) for p in (0.01, 0.05, 0.1)]
    [2.6683, 2.479, 2.292]
    """
    p = check_probabilities(p, low_open=True)
    vals = np.array([branch_moments(float(q)).ratio for q in np.atleast_1d(p)])
    return _out(vals.reshape(np.shape(p)))


def transverse_ratio_noise(p):
    """``T_sign / T_noise`` with an *independent* noise partner of the same norm in place of
    the magnitude perturbation (no Bussgang alignment), through the exact kernel.

    Independent noise has no radial part in the limit, so the ratio tends to 1 as p -> 0,
    not to :func:`transverse_ratio_limit`: the negative control of Theorem 3's limit (ours;
    the single-layer analogue is Proposition 1(c)).

    Examples
    --------
    >>> [round(transverse_ratio_noise(p), 3) for p in (1e-8, 0.01)]
    [1.0, 0.989]
    """
    p = check_probabilities(p, low_open=True)
    out = []
    for q in np.atleast_1d(p).ravel():
        b = branch_moments(float(q))
        sp = np.sqrt(1.0 + 4.0 * float(q))  # sigma'/sigma of z + eps, eps ~ N(0, 4p)
        k = float(relu_kernel(1.0 / sp))
        e_n = sp * sp / 2.0 + 0.5 - 2.0 * sp * k
        c_n = sp * k - 0.5
        t_n = (1.0 - c_n * c_n / (0.5 * e_n)) * e_n
        out.append(b.T_sign / t_n)
    return _out(np.array(out).reshape(np.shape(p)))


def post_norm_inflation(p):
    """``1 + 4 sqrt(2p/pi) + 4p``: how much the post-norm finite difference inflates C.

    The magnitude perturbation scales h up
    (``||h + Delta h||^2 ~ ||h||^2 (1 + 4 sqrt(2p/pi) + 4p)``)
    while sign flips leave the norm unchanged, so measuring the transverse change *after*
    normalisation divides the magnitude branch by that factor. This is the trap behind
    the author's V0/V2 value ~3.6 at p = 0.01 (shown in {prf:ref}`thm-theorem3`).

    Examples
    --------
    >>> round(post_norm_inflation(0.01), 3)
    1.359
    """
    p = check_probabilities(p)
    return _out(1.0 + 4.0 * np.sqrt(2.0 * p / np.pi) + 4.0 * p)
