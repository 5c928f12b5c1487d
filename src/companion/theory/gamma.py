"""The scale γ of a norm and the direction it predicts: the *effective* scale (Gemma-family
RMSNorm and "LayerNorm1p" store ``w`` and multiply by ``1 + w``), the direction
``v* = γ⁻¹/‖γ⁻¹‖`` that T1 of Shirodkar & Narayanan (2026) reads from the parameters alone
(:mod:`companion.theory.ln_kernel`), and random γ for the simulations.
"""

from __future__ import annotations

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_choice,
    check_finite_array,
    check_int,
    check_nonempty,
    check_real,
)
from companion.theory.budget import check_sizes

__all__ = ["effective_scale", "inverse_scale_direction", "sample_gamma"]


def effective_scale(weight, convention: str = "plain") -> np.ndarray:
    """The effective scale gamma that the norm multiplies by, from the stored weight.

    ``convention="plain"`` (PyTorch ``nn.LayerNorm``, GPT-2 ``ln_f``, Pythia
    ``final_layer_norm``, Llama/Qwen RMSNorm): gamma = weight.
    ``convention="one_plus"`` (Gemma 1-3 RMSNorm, "LayerNorm1p", zero-centred gamma):
    the checkpoint stores ``w`` and the layer applies ``1 + w``, so gamma = 1 + w. Reading
    ``w`` itself as gamma is wrong: at Gemma's initialisation ``w = 0``.

    Examples
    --------
    >>> effective_scale([0.0, 0.5], convention="one_plus")
    array([1. , 1.5])
    """
    check_choice(convention, "convention", ("plain", "one_plus"))
    w = check_nonempty(check_finite_array(weight, "weight", ndim=1), "weight")
    return w + 1.0 if convention == "one_plus" else w.copy()


def inverse_scale_direction(gamma) -> np.ndarray:
    """The predicted kernel direction v* = gamma^-1 / ||gamma^-1|| (signs kept).

    Shirodkar & Narayanan (2026), T1: ``Cov(LN(X)) v* = 0`` for every input
    distribution; shown in {prf:ref}`thm-ln-kernel`. Needs no forward pass.

    Parameters
    ----------
    gamma : array_like, shape (d,)
        The *effective* LayerNorm scale (see :func:`effective_scale`), finite, no zero
        entry, d >= 2.

    Raises
    ------
    ValueError
        If some gamma_i = 0: then gamma^-1 is undefined and each such coordinate vector
        e_i is itself a kernel direction (T1 (a)(ii)); the message lists them.

    Examples
    --------
    >>> inverse_scale_direction([1.0, 1.0, 1.0, 1.0])
    array([0.5, 0.5, 0.5, 0.5])
    >>> inverse_scale_direction([1.0, -2.0])
    array([ 0.894...,  -0.447...])
    >>> inverse_scale_direction([1e-310, 1.0])       # 1/gamma overflows; v* does not
    array([1.e+000, 1.e-310])
    >>> inverse_scale_direction([1.0, 0.0, 2.0])
    Traceback (most recent call last):
    ...
    ValueError: `gamma` must have no zero entries; got 1 zero entry at coordinates [1] (...)
    """
    g = check_finite_array(gamma, "gamma", ndim=1)
    if g.shape[0] < 2:
        raise ValueError(f"`gamma` must have length d >= 2; got length {g.shape[0]}")
    zeros = np.flatnonzero(g == 0)
    if zeros.size:
        shown = zeros[:10].tolist()
        more = "" if zeros.size <= 10 else f" and {zeros.size - 10} more"
        noun = "entry" if zeros.size == 1 else "entries"
        raise ValueError(
            f"`gamma` must have no zero entries; got {zeros.size} zero {noun} at coordinates "
            f"{shown}{more} (gamma^-1 is undefined there; each coordinate vector e_i with "
            f"gamma_i = 0 is itself a kernel direction of Cov(LN(X)))"
        )
    with np.errstate(over="ignore", under="ignore"):
        inv = 1.0 / g
        nrm = np.linalg.norm(inv)
    if not (np.isfinite(nrm) and nrm > 0):
        # 1/g overflows (a subnormal gamma_i) or ||1/g|| under- or overflows: scale by
        # min |g| first, so that the largest entry of the direction is exactly +-1
        inv = np.min(np.abs(g)) / g
        nrm = np.linalg.norm(inv)
    return inv / nrm


def sample_gamma(d: int, sigma: float = 1.0, *, signs: bool = True, rng=None) -> np.ndarray:
    """A heterogeneous scale: |gamma_i| log-normal(0, sigma), random signs if ``signs``.

    ``sigma = 0`` with ``signs=False`` is the initialisation gamma = 1.

    Examples
    --------
    >>> sample_gamma(3, 0.0, signs=False)
    array([1., 1., 1.])
    """
    d = check_int(d, "d", low=2)
    check_sizes({"d": d}, elements=2 * d, what=f"{d} scales")
    sigma = check_real(sigma, "sigma", low=0.0)
    signs = check_bool(signs, "signs")
    rng = as_generator(rng)
    g = np.exp(sigma * rng.standard_normal(d))  # (d,)
    if signs:
        g *= rng.choice([-1.0, 1.0], d)
    return g
