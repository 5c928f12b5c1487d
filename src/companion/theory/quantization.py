"""Theorem 4 of Dong (2026): the sign-quantisation error is sign-preserving and Bussgang-aligned.

The quantiser is ``W_T = s * sign(W)`` with a per-row absmean scale ``s_i = ||w_i||_1 / n``
(:func:`absmean_sign_quantize`; no zero level). Its error ``Delta W = W_T - W`` never
changes a sign, ``cos^2 -> 2/pi`` at row and vector level, and the error's radial fraction
is ``1 - 2/pi`` before ReLU and 0.36489 after it (exact arc-cosine kernel). BitNet b1.58's
true ternary quantiser (:func:`ternary_quantize`, zeros allowed) gives other constants
(``cos^2 ~ 0.787``). Shown in {prf:ref}`thm-theorem4`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion._validate import check_choice, check_int, check_matrix, check_real
from companion.stats import MCEstimate, mean_estimate, ratio_estimate
from companion.theory.budget import check_sizes
from companion.theory.perturbations import sphere_inputs
from companion.theory.relu_kernel import relu_kernel

__all__ = [
    "QUANTIZERS",
    "QuantizationGeometry",
    "absmean_sign_quantize",
    "quantization_cos2_limit",
    "quantization_error_geometry",
    "quantization_radial_post",
    "quantization_radial_pre",
    "ternary_quantize",
]


def absmean_sign_quantize(W) -> np.ndarray:
    """``W_T = s * sign(W)`` with per-row scale ``s_i = ||w_i||_1 / n`` (Theorem 4's quantiser).

    With this scale ``<w_i - W_T,i, W_T,i> = 0``: each row is the orthogonal sum of its
    quantisation and the error (Dong 2026, Theorem 4; {prf:ref}`thm-theorem4`).

    Examples
    --------
    >>> absmean_sign_quantize(np.array([[1.0, -3.0], [0.5, 0.5]]))
    array([[ 2. , -2. ],
           [ 0.5,  0.5]])
    """
    W = check_matrix(W, "W")
    s = np.mean(np.abs(W), axis=1, keepdims=True)  # (m, 1) absmean per row
    return s * np.sign(W)


def ternary_quantize(W, eps: float = 1e-8) -> np.ndarray:
    """BitNet b1.58's absmean ternary quantiser ``gamma * clip(round(W/gamma), -1, 1)``.

    ``gamma = mean |W|`` over the whole matrix {cite}`ma2024bitnet`. Small weights
    round to **zero**, so the error is no longer sign-preserving and Theorem 4's
    constants do not apply (``cos^2 ~ 0.787`` for Gaussian weights).

    Examples
    --------
    >>> ternary_quantize(np.array([[0.1, -2.0], [1.0, 0.9]]))
    array([[ 0., -1.],
           [ 1.,  1.]])
    """
    W = check_matrix(W, "W")
    eps = check_real(eps, "eps", low=0.0)
    gamma = float(np.mean(np.abs(W)))
    if gamma + eps == 0:
        raise ValueError("`W` must not be all zeros when eps = 0 (W / gamma is 0/0); got zeros")
    return gamma * np.clip(np.round(W / (gamma + eps)), -1, 1)


#: Quantisers offered by the chapter's widget.
QUANTIZERS = {"sign_absmean": absmean_sign_quantize, "ternary": ternary_quantize}


def quantization_cos2_limit() -> float:
    """``cos^2(w, W_T w) -> 2/pi`` at row level (Fact 1) and at vector level ``cos^2(Wx, W_T x)``.

    Dong (2026), Theorem 4; shown in {prf:ref}`thm-theorem4`.

    Examples
    --------
    >>> round(quantization_cos2_limit(), 6)
    0.63662
    """
    return float(2.0 / np.pi)


def quantization_radial_pre(m: int | None = None) -> float:
    """Radial fraction of the pre-ReLU error ``Delta W x`` relative to ``W x``: ``1 - 2/pi``.

    ``(z, z_T)`` are jointly Gaussian with correlation ``sqrt(2/pi)`` and
    ``E[z_T | z] = (2/pi) z``, so ``Delta z = -(1 - 2/pi) z + noise`` and
    ``R = (1 - 2/pi)^2 / (1 - 2/pi) = 1 - 2/pi`` (Dong 2026, Theorem 4;
    {prf:ref}`thm-theorem4`). With ``m`` rows, our finite-width offset
    ``+ (2/pi)/m`` (the noise part is isotropic) is added.

    Examples
    --------
    >>> round(quantization_radial_pre(), 6)
    0.36338
    """
    r = 1.0 - 2.0 / np.pi
    return float(r if m is None else r + (1 - r) / check_int(m, "m", low=2))


def quantization_radial_post(m: int | None = None) -> float:
    """Radial fraction of ``ReLU(W_T x) - ReLU(W x)`` relative to ``ReLU(W x)``: 0.36489.

    With ``sigma_T = sqrt(2/pi)`` (per unit variance of z = 1) and correlation
    ``rho = sqrt(2/pi)``: ``E[h Delta] = sigma_T k(rho) - 1/2``,
    ``E[Delta^2] = sigma_T^2/2 + 1/2 - 2 sigma_T k(rho)``, ``E[h^2] = 1/2``. It is 0.42% above
    ``1 - 2/pi``: the abstract's "0.365, within 0.4%" (our derivation; Dong 2026,
    Theorem 4; {prf:ref}`thm-theorem4`). With ``m`` rows our heuristic offset
    ``+ 2(1 - R)/m`` (only about m/2 units are active) is added.

    Examples
    --------
    >>> round(quantization_radial_post(), 5)
    0.36489
    """
    c = float(np.sqrt(2.0 / np.pi))
    k = float(relu_kernel(c))
    cross = c * k - 0.5
    energy = c * c / 2 + 0.5 - 2 * c * k
    r = cross * cross / (0.5 * energy)
    return float(r if m is None else r + 2 * (1 - r) / check_int(m, "m", low=2))


@dataclass(frozen=True)
class QuantizationGeometry:
    """Geometry of a quantiser's error on one matrix (every number an MCEstimate).

    ``row_cos2``: mean over rows of ``cos^2(w_i, q_i)``; ``vector_cos2``: mean over
    inputs of ``cos^2(Wx, W_q x)``; ``radial_pre``/``radial_post``: ratio of sums of the
    error's radial energy to its energy, before and after ReLU; ``sign_preserving``:
    no weight changes sign (zeros count as changes); ``zero_fraction``: share of zeros.
    """

    quantizer: str
    shape: tuple
    row_cos2: MCEstimate
    vector_cos2: MCEstimate
    radial_pre: MCEstimate
    radial_post: MCEstimate
    sign_preserving: bool
    zero_fraction: float


def _cos2_rows(a, b):
    num = np.sum(a * b, axis=1) ** 2
    den = np.sum(a * a, axis=1) * np.sum(b * b, axis=1)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def quantization_error_geometry(
    W, quantizer: str = "sign_absmean", *, samples: int = 2000, rng=None
) -> QuantizationGeometry:
    """Measure Theorem 4's quantities for ``W`` (m x n) and a quantiser of :data:`QUANTIZERS`.

    Inputs are uniform on the sphere. Radial fractions are ratios of sums over inputs
    (delta-method SE), cosines are means of per-row / per-input values. ``W`` must have no
    zero row (its cos^2 is 0/0) and must not be exactly representable by the quantiser
    (a zero error has no radial fraction). Compare with
    :func:`quantization_cos2_limit`, :func:`quantization_radial_pre` and
    :func:`quantization_radial_post` (shown in {prf:ref}`thm-theorem4`).

    Examples
    --------
    >>> from companion.theory.perturbations import gaussian_weights
    >>> geo = quantization_error_geometry(gaussian_weights(128, 256, rng=0), samples=500, rng=1)
    >>> geo.sign_preserving, round(geo.row_cos2.value, 2)
    (True, 0.64)
    """
    W = check_matrix(W, "W", min_rows=2, min_cols=2)
    check_choice(quantizer, "quantizer", tuple(QUANTIZERS))
    samples = check_int(samples, "samples", low=2)
    m, n = W.shape
    check_sizes({"samples": samples}, elements=samples * (n + 4 * m), ops=4 * samples * n * m,
                what=f"{samples} inputs through a {m} x {n} matrix")  # fmt: skip
    zero = np.flatnonzero(~W.any(axis=1))
    if zero.size:
        raise ValueError(
            f"`W` must have no all-zero rows (cos^2 is 0/0 there); got {zero.size} at rows "
            f"{zero[:10].tolist()}"
        )
    Q = QUANTIZERS[quantizer](W)  # (m, n)
    if np.array_equal(Q, W):
        raise ValueError(
            f"`W` must not be exactly representable by the {quantizer!r} quantiser (its error "
            "is zero, so the radial fractions are 0/0); got a matrix it reproduces exactly"
        )
    x = sphere_inputs(samples, W.shape[1], rng=rng)  # (samples, n)
    z = x @ W.T  # (samples, m)
    zq = x @ Q.T  # (samples, m)
    dz = zq - z
    h = np.maximum(z, 0)
    dh = np.maximum(zq, 0) - h

    def radial(delta, v):
        vv = np.sum(v * v, axis=1)
        rad = np.divide(np.sum(v * delta, axis=1) ** 2, vv, out=np.zeros_like(vv), where=vv > 0)
        return ratio_estimate(rad, np.sum(delta * delta, axis=1))

    return QuantizationGeometry(
        quantizer=quantizer,
        shape=W.shape,
        row_cos2=mean_estimate(_cos2_rows(W, Q)),
        vector_cos2=mean_estimate(_cos2_rows(z, zq)),
        radial_pre=radial(dz, z),
        radial_post=radial(dh, h),
        sign_preserving=bool(np.all(np.sign(Q) == np.sign(W))),
        zero_fraction=float(np.mean(Q == 0)),
    )
