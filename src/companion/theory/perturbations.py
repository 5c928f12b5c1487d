"""Weight perturbations of Dong (2026) and the radial/transverse split of their effect.

The public helpers other chapters build on (stable names):

* :func:`sphere_inputs`, :func:`gaussian_weights` -- the model's inputs and weights;
* :func:`sign_flip_mask`, :func:`sign_flip_delta` -- ``Delta W = -2 W * M``, M ~ Bernoulli(p);
* :func:`magnitude_delta` -- ``Delta W = delta * sign(W)`` with ``delta`` matched per draw to a
  target Frobenius norm (the author's constant-delta, sign-preserving perturbation, "A5");
* :func:`independent_noise_delta` -- ``sign(W) * xi``, xi i.i.d. N(0, 1), rescaled to a norm;
* :func:`matched_pair` -- a sign flip and its Frobenius-matched magnitude partner;
* :func:`radial_fraction`, :func:`transverse_energy`, :func:`radial_transverse_split` --
  ``R(Delta; v) = cos^2(Delta, v)`` and ``T = (1 - R) ||Delta||^2`` along the last axis.

Conventions (the spec's section 2): W1 entries are N(0, 1/n); only W1 is perturbed;
the radial fraction is taken relative to the clean vector in the same space. These
definitions are used in {prf:ref}`thm-energy-equality`, {prf:ref}`thm-theorem3` and
{prf:ref}`thm-theorem4`.
"""

from __future__ import annotations

import numpy as np

from companion._validate import (
    as_generator,
    check_finite_array,
    check_int,
    check_matrix,
    check_nonempty,
    check_probability,
    check_real,
    check_shape,
)
from companion.theory.budget import check_sizes

__all__ = [
    "gaussian_weights",
    "independent_noise_delta",
    "magnitude_delta",
    "matched_pair",
    "radial_fraction",
    "radial_transverse_split",
    "sign_flip_delta",
    "sign_flip_mask",
    "sphere_inputs",
    "transverse_energy",
]


def _float_dtype(dtype) -> np.dtype:
    """float32 or float64: the dtypes numpy's Generator draws normals in."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(
            f"`dtype` must be numpy.float32 or numpy.float64; got {type(dtype).__name__}"
        ) from None
    if dt not in (np.float32, np.float64):
        raise ValueError(f"`dtype` must be numpy.float32 or numpy.float64; got {dt}")
    return dt


def sphere_inputs(samples: int, n: int, *, rng=None, dtype=np.float64) -> np.ndarray:
    """``samples`` points uniform on the unit sphere S^{n-1}, one per row.

    Examples
    --------
    >>> x = sphere_inputs(3, 5, rng=0)
    >>> np.allclose(np.linalg.norm(x, axis=1), 1)
    True
    """
    samples = check_int(samples, "samples", low=1)
    n = check_int(n, "n", low=2)
    check_sizes(
        {"samples": samples, "n": n}, elements=2 * samples * n, what=f"{samples} x {n} inputs"
    )
    dtype = _float_dtype(dtype)
    g = as_generator(rng).standard_normal((samples, n), dtype=dtype)  # (samples, n)
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g


def gaussian_weights(rows: int, cols: int, *, rng=None, dtype=np.float64) -> np.ndarray:
    """A ``rows x cols`` matrix with i.i.d. N(0, 1/cols) entries (the model's W1 and W2).

    Examples
    --------
    >>> gaussian_weights(2, 3, rng=0).shape
    (2, 3)
    """
    rows = check_int(rows, "rows", low=1)
    cols = check_int(cols, "cols", low=1)
    check_sizes({"rows": rows, "cols": cols}, elements=rows * cols, what=f"{rows} x {cols} weights")
    dtype = _float_dtype(dtype)
    W = as_generator(rng).standard_normal((rows, cols), dtype=dtype)  # (rows, cols)
    W /= np.sqrt(cols)
    return W


def sign_flip_mask(shape, p: float, *, rng=None) -> np.ndarray:
    """Boolean mask with i.i.d. Bernoulli(p) entries (True = flip this weight).

    Examples
    --------
    >>> bool(sign_flip_mask((2, 3), 0.0, rng=0).any())
    False
    """
    shape = check_shape(shape)
    p = check_probability(p)
    return as_generator(rng).random(shape) < p


def sign_flip_delta(W, p: float | None = None, *, mask=None, rng=None) -> np.ndarray:
    """Sign flips at rate ``p``: ``Delta W = -2 W * M`` with M ~ Bernoulli(p) i.i.d.

    Each selected weight becomes ``-W_ij``; ``||Delta W||_F^2 ~ 4 p ||W||_F^2``
    (Dong 2026, section 5; see {prf:ref}`thm-energy-equality`). Pass either ``p``
    (a fresh mask is drawn from ``rng``) or an explicit boolean ``mask`` (then ``rng`` is
    unused).

    Examples
    --------
    >>> W = np.array([[1.0, -2.0], [3.0, 4.0]])
    >>> sign_flip_delta(W, mask=np.array([[True, False], [False, True]]))
    array([[-2.,  0.],
           [ 0., -8.]])
    """
    W = check_nonempty(check_finite_array(W, "W", min_ndim=1), "W")
    if mask is None:
        if p is None:
            raise ValueError("`p` must be given when `mask` is None; got None")
        mask = sign_flip_mask(W.shape, p, rng=rng)
    else:
        if p is not None:
            raise TypeError(f"`p` must be None when `mask` is given; got {type(p).__name__}")
        as_generator(rng)  # unused, but a wrong type is still an error
        if not isinstance(mask, (np.ndarray, list, tuple)) or np.asarray(mask).dtype != bool:
            raise TypeError(f"`mask` must be a boolean array; got {_describe(mask)}")
        mask = np.asarray(mask)
        if mask.shape != W.shape:
            raise ValueError(f"`mask` must have the shape of `W` {W.shape}; got shape {mask.shape}")
    return np.where(mask, -2.0 * W, 0.0)


def _describe(x) -> str:
    return f"an array of dtype {x.dtype}" if isinstance(x, np.ndarray) else type(x).__name__


def _no_support(W, target):
    """A sign-pattern perturbation of an all-zero W is zero: fine for a zero target only."""
    if target > 0:
        raise ValueError(
            f"`W` must have a non-zero entry to carry a perturbation of norm {target:g}; "
            f"got {'an empty array' if W.size == 0 else 'all zeros'}"
        )
    return np.zeros_like(W)


def magnitude_delta(W, frobenius_norm: float) -> np.ndarray:
    """Sign-preserving, constant-delta magnitude perturbation ``delta * sign(W)``.

    ``delta = frobenius_norm / ||sign W||_F`` so that ``||Delta W||_F`` equals the target
    exactly (Dong 2026, Theorem 3's assumption A5; matched **per draw** to the sign flip's
    norm by :func:`matched_pair`). Every weight moves away from zero by ``delta``.

    Examples
    --------
    >>> W = np.array([[0.5, -2.0], [3.0, -1.0]])
    >>> magnitude_delta(W, 4.0)
    array([[ 2., -2.],
           [ 2., -2.]])
    """
    W = check_finite_array(W, "W", min_ndim=1)
    target = check_real(frobenius_norm, "frobenius_norm", low=0.0)
    s = np.sign(W)
    nrm = np.sqrt(np.count_nonzero(s))
    if nrm == 0:
        return _no_support(W, target)
    return s * (target / nrm)


def independent_noise_delta(W, frobenius_norm: float, *, rng=None) -> np.ndarray:
    """Independent magnitude noise ``sign(W) * xi`` (xi i.i.d. N(0, 1)), rescaled to a norm.

    Statistically i.i.d. noise uncorrelated with ``W``: its single-layer radial
    fraction is exactly ``1/m`` in expectation (Proposition 1's contrast,
    {prf:ref}`thm-energy-equality`).

    Examples
    --------
    >>> d = independent_noise_delta(np.ones((3, 4)), 2.0, rng=0)
    >>> round(float(np.linalg.norm(d)), 12)
    2.0
    """
    W = check_finite_array(W, "W", min_ndim=1)
    target = check_real(frobenius_norm, "frobenius_norm", low=0.0)
    d = np.sign(W) * as_generator(rng).standard_normal(W.shape)
    nrm = np.linalg.norm(d)
    if nrm == 0:
        return _no_support(W, target)
    return d * (target / nrm)


def matched_pair(W, p: float, *, rng=None) -> tuple[np.ndarray, np.ndarray]:
    """A sign flip at rate ``p`` and the magnitude perturbation with the **same** Frobenius norm.

    The norm is matched for this realisation of the mask, not in expectation
    (the spec's trap 6.3). Returns ``(Delta_sign, Delta_mag)``.

    Examples
    --------
    >>> W = gaussian_weights(64, 64, rng=0)
    >>> ds, dm = matched_pair(W, 0.05, rng=1)
    >>> bool(np.isclose(np.linalg.norm(ds), np.linalg.norm(dm)))
    True
    """
    W = check_matrix(W, "W")
    ds = sign_flip_delta(W, p, rng=rng)
    return ds, magnitude_delta(W, float(np.linalg.norm(ds)))


def _pair(delta, v):
    delta = check_finite_array(delta, "delta", min_ndim=1)
    v = check_finite_array(v, "v", min_ndim=1)
    if v.shape[-1] == 0:
        raise ValueError(f"`v` must have a non-empty last axis; got shape {v.shape}")
    if delta.shape != v.shape:
        raise ValueError(f"`delta` must have the shape of `v` {v.shape}; got shape {delta.shape}")
    return delta, v


def radial_transverse_split(delta, v) -> tuple[np.ndarray, np.ndarray]:
    """Split ``delta`` into its radial part ``(v_hat . delta) v_hat`` and transverse part.

    Works row-wise along the last axis; a zero ``v`` has no direction, and all of
    ``delta`` counts as transverse there.

    Examples
    --------
    >>> r, t = radial_transverse_split(np.array([1.0, 1.0]), np.array([2.0, 0.0]))
    >>> r, t
    (array([1., 0.]), array([0., 1.]))
    """
    delta, v = _pair(delta, v)
    nv = np.linalg.norm(v, axis=-1, keepdims=True)
    vh = np.divide(v, nv, out=np.zeros_like(v), where=nv > 0)
    radial = np.sum(vh * delta, axis=-1, keepdims=True) * vh
    return radial, delta - radial


def radial_fraction(delta, v) -> np.ndarray:
    """``R(Delta; v) = (v_hat . Delta)^2 / ||Delta||^2 = cos^2(Delta, v)``, along the last axis.

    Returns 0 where ``Delta`` or ``v`` is zero (no energy or no direction).

    Examples
    --------
    >>> float(radial_fraction(np.array([1.0, 1.0]), np.array([3.0, 0.0])))
    0.5
    """
    delta, v = _pair(delta, v)
    num = np.sum(delta * v, axis=-1) ** 2
    den = np.sum(delta * delta, axis=-1) * np.sum(v * v, axis=-1)
    out = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
    return out if out.ndim else out[()]


def transverse_energy(delta, v) -> np.ndarray:
    """``T(Delta; v) = ||Delta||^2 - (v_hat . Delta)^2 = (1 - R) ||Delta||^2`` (last axis).

    This is the energy RMSNorm passes on to first order ({prf:ref}`thm-rmsnorm-filter`).

    Examples
    --------
    >>> float(transverse_energy(np.array([1.0, 2.0]), np.array([5.0, 0.0])))
    4.0
    """
    delta, v = _pair(delta, v)
    return np.sum(delta * delta, axis=-1) * (1.0 - radial_fraction(delta, v))
