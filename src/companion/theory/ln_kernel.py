"""The LayerNorm kernel (T1) and its RMSNorm negative (T2) of Shirodkar & Narayanan (2026).

T1 (arXiv 2606.19491; Lean ``prop:ln_kernel`` (a) of arXiv 2606.05957): for LayerNorm
``LN(x) = gamma * s(x) * P x + beta`` with any scalar normaliser ``s`` (so any ``eps``),
any ``beta`` and every input distribution, ``Cov(LN(X)) gamma^-1 = 0``, because
``<gamma^-1, LN(x)> = <gamma^-1, beta>`` for every ``x`` (``1^T P x = 0``). The predicted
kernel direction ``v* = gamma^-1 / ||gamma^-1||`` is read from the parameters alone.
Shown in {prf:ref}`thm-ln-kernel`.

T2 (Lean ``prop:rmsnorm_no_kernel``): RMSNorm has no such gamma-only kernel; the Lean
witness is the input uniform on the ``2d`` points ``+-e_i``. Shown in
{prf:ref}`thm-rms-no-kernel`.

Which gamma: always the *effective* scale of the norm. Gemma-family RMSNorm and
"LayerNorm1p" checkpoints store ``w`` and multiply by ``1 + w`` (:func:`effective_scale`
with ``convention="one_plus"``); a non-parametric LayerNorm has ``gamma = 1``.

Split by job and re-exported here: γ and v* (:mod:`.gamma`), covariance statistics
(:mod:`.covariance`), the T2 witness (:mod:`.rms_witness`); this module holds the inputs, the
rounding to a storage precision, the kernel report and the rounding noise.

Every statistic is computed in float64. Activations of lower precision are modelled by
rounding exact float64 outputs to the storage dtype (:func:`round_to_precision`), which
is the dominant error of a real fp32/bf16 forward pass as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import (
    as_generator,
    check_choice,
    check_finite_array,
    check_int,
)
from companion.stats import MCEstimate, mean_estimate
from companion.theory.budget import check_sizes
from companion.theory.covariance import (
    bottom_direction,
    centred_covariance,
    check_samples,
    resolve_statistics,
)
from companion.theory.gamma import effective_scale, inverse_scale_direction, sample_gamma
from companion.theory.norms import layernorm, rmsnorm
from companion.theory.rms_witness import (
    rms_witness_inputs,
    rms_witness_variance,
    simulate_rms_witness_variance,
    witness_variance_exact,
)

__all__ = [
    "INPUT_DISTRIBUTIONS",
    "KernelReport",
    "PRECISIONS",
    "UNIT_ROUNDOFF",
    "bottom_direction",
    "centred_covariance",
    "effective_scale",
    "inverse_scale_direction",
    "kernel_report",
    "normalised_activations",
    "rms_witness_inputs",
    "rms_witness_variance",
    "round_to_bfloat16",
    "RoundingNoise",
    "round_to_precision",
    "rounding_noise",
    "sample_gamma",
    "sample_inputs",
    "simulate_rms_witness_variance",
    "witness_variance_exact",
]

#: Storage precisions of the activations, finest first.
PRECISIONS = ("float64", "float32", "float16", "bfloat16")

#: Unit roundoff u = 2^-p (half the machine epsilon) of each precision.
UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}

#: Input distributions of the chapter's widget (see :func:`sample_inputs`).
INPUT_DISTRIBUTIONS = ("gaussian", "student_t", "offset")


# --------------------------------------------------------------------------- gamma


# --------------------------------------------------------------------------- data


def sample_inputs(n_samples: int, d: int, dist: str = "gaussian", *, rng=None) -> np.ndarray:
    """Awkward pre-norm inputs, shape (n_samples, d): the kernel must hold for all of them.

    * ``"gaussian"``: anisotropic Gaussian, ``g @ M / sqrt(d)`` with a Gaussian mixing M;
    * ``"student_t"``: Student-t(3) noise mixed the same way, plus one outlier
      coordinate scaled x40 (heavy tails and a "massive activation", as in the spec's §7);
    * ``"offset"``: the anisotropic Gaussian plus a large random offset and a common
      shift along 1 (which LayerNorm's mean subtraction removes).

    Examples
    --------
    >>> sample_inputs(5, 3, "student_t", rng=0).shape
    (5, 3)
    """
    n = check_int(n_samples, "n_samples", low=1)
    d = check_int(d, "d", low=2)
    check_sizes({"n_samples": n, "d": d}, elements=d * d + 2 * n * d, ops=n * d * d,
                what=f"{n} x {d} inputs")  # fmt: skip
    check_choice(dist, "dist", INPUT_DISTRIBUTIONS)
    rng = as_generator(rng)
    mix = rng.standard_normal((d, d)) / np.sqrt(d)  # (d, d)
    if dist == "student_t":
        x = rng.standard_t(3.0, (n, d)) @ mix  # (n, d)
        x[:, 0] *= 40.0
        return x
    x = rng.standard_normal((n, d)) @ mix  # (n, d)
    if dist == "offset":
        x += 3.0 * rng.standard_normal(d) + 5.0
    return x


def round_to_bfloat16(x) -> np.ndarray:
    """Round to the nearest bfloat16 (ties to even), returned as float32.

    bfloat16 keeps the top 16 bits of the float32 pattern (8 exponent bits, 7 stored
    mantissa bits). Round-to-nearest-even on the bit pattern: add ``0x7FFF`` plus the
    lowest kept bit, then clear the low 16 bits. Inputs are first rounded to float32;
    they must be finite and round to a finite bfloat16 (|x| < (2 - 2^-8) 2^127 = 3.3962e38;
    beyond, round-to-nearest gives inf, which is refused in one line).

    Examples
    --------
    >>> round_to_bfloat16([1.0, 1.00390625, 1.01171875, 3.14159265])
    array([1.     , 1.     , 1.015625, 3.140625], dtype=float32)
    """
    x = _check_rounds_finite(check_finite_array(x, "x"), "bfloat16")
    x32 = _check_rounds_finite(x.astype(np.float32), "bfloat16")  # a float32 tie
    bits = np.ascontiguousarray(x32).reshape(-1).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32).reshape(x32.shape)


def round_to_precision(x, precision: str = "float64") -> np.ndarray:
    """Round float64 values to a storage precision and return them as float64.

    This models activations that were produced (or stored) in ``precision`` and then
    accumulated in float64, the paper's protocol.

    Examples
    --------
    >>> float(round_to_precision(1 / 3, "bfloat16"))
    0.333984375
    """
    check_choice(precision, "precision", PRECISIONS)
    x = check_finite_array(x, "x")
    if precision == "float64":
        return x.copy()
    if precision == "bfloat16":
        return round_to_bfloat16(x).astype(np.float64)
    return _check_rounds_finite(x, precision).astype(precision).astype(np.float64)


#: Largest exponent of each storage precision (float64 never overflows in a cast from it).
_EMAX = {"float32": 127, "float16": 15, "bfloat16": 127}

#: Where round-to-nearest overflows: (2 - u) 2^emax, half a unit beyond the largest finite
#: value (2 - 2u) 2^emax (65504 + 16 = 65520 in float16); from there on a rounded value is inf.
_OVERFLOW = {p: (2.0 - UNIT_ROUNDOFF[p]) * 2.0**e for p, e in _EMAX.items()}


def _check_rounds_finite(x: np.ndarray, precision: str) -> np.ndarray:
    """``x``, or one ValueError when an entry would round to inf in ``precision``."""
    top = _OVERFLOW[precision]
    big = float(np.abs(x).max()) if x.size else 0.0
    if big >= top:
        largest = (2.0 - 2.0 * UNIT_ROUNDOFF[precision]) * 2.0 ** _EMAX[precision]
        raise ValueError(
            f"`x` must round to a finite {precision} value (|x| < {top:.8g}, half a unit "
            f"beyond the largest, {largest:.8g}); got {big:.8g}"
        )
    return x


def normalised_activations(
    x, gamma, beta=None, eps: float = 1e-5, *, norm: str = "layernorm", precision: str = "float64"
) -> np.ndarray:
    """Outputs of a LayerNorm or RMSNorm, computed in float64 and rounded to ``precision``.

    Uses :func:`companion.theory.norms.layernorm` / ``rmsnorm`` (RMSNorm has no beta;
    passing one raises).

    Examples
    --------
    >>> y = normalised_activations([[1.0, 2.0, 4.0]], [1.0, 2.0, 4.0], precision="bfloat16")
    >>> y.dtype
    dtype('float64')
    """
    check_choice(norm, "norm", ("layernorm", "rmsnorm"))
    if norm == "layernorm":
        y = layernorm(x, gamma, beta, eps)
    else:
        if beta is not None:
            raise ValueError("`beta` must be None for RMSNorm (it has no bias); got an array")
        y = rmsnorm(x, gamma, eps)
    return round_to_precision(y, precision)


# --------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class KernelReport:
    """How well v* = gamma^-1/||gamma^-1|| is a kernel direction of a covariance C.

    Attributes
    ----------
    cos : float
        |cos(v*, bottom eigenvector of C)|. Defined only for ``n_samples > d``: with
        N <= d samples the centred covariance has rank at most N - 1 < d, so its bottom
        eigenvector is not unique (or, at N = d, fixed by the sampling alone), and reading
        ``cos`` raises a ``ValueError`` naming N and d; every other field holds for N >= 2.
    rayleigh : float
        v*^T C v* / lambda_max (signed; the spec's "floor"; 0 in exact arithmetic for LN).
    residual : float
        ||C v*|| / ||C||_2.
    diag_rayleigh : float
        v*^T C v* / sum_i v*_i^2 C_ii: the variance along v* relative to what
        uncorrelated coordinates would give. Independent of gamma for RMSNorm and
        ~ u^2 (the storage precision's unit roundoff squared) for LayerNorm; the
        classifier's statistic (:func:`companion.theory.null_classifier.classify_norm`).
    gap_ratio : float
        v*^T C v* / lambda_2 (second-smallest eigenvalue): << 1 when v* is separated
        from the bulk.
    offset_ratio : float
        sum_i v*_i^2 m_i^2 / sum_i v*_i^2 C_ii (m the activation mean; 0 if unknown):
        rounding noise scales with the uncentred second moment, so it raises the floor.
    spectrum : ndarray
        Eigenvalues of C, ascending.
    vstar, bottom : ndarray
        The predicted and the measured direction (``bottom`` is ``None`` when N <= d).
    n_samples, d : int
    """

    rayleigh: float
    residual: float
    diag_rayleigh: float
    gap_ratio: float
    offset_ratio: float
    spectrum: np.ndarray
    vstar: np.ndarray
    bottom: np.ndarray | None
    n_samples: int
    d: int
    _cos: float | None = field(default=None, repr=False)

    @property
    def cos(self) -> float:
        """|cos(v*, bottom eigenvector)|; a ``ValueError`` when N <= d (not unique)."""
        if self._cos is None:
            raise ValueError(
                f"|cos(v*, bottom direction)| needs more samples than dimensions (N > d): "
                f"the centred covariance of N = {self.n_samples} samples has rank at most "
                f"N - 1 = {self.n_samples - 1} < d = {self.d}, so its bottom direction is not "
                f"unique; use at least N = {self.d + 1} samples"
            )
        return self._cos

    def __repr__(self) -> str:
        cos = "undefined (N <= d)" if self._cos is None else f"{self._cos!r}"
        return (
            f"KernelReport(cos={cos}, rayleigh={self.rayleigh!r}, residual={self.residual!r}, "
            f"diag_rayleigh={self.diag_rayleigh!r}, n_samples={self.n_samples}, d={self.d})"
        )

    @property
    def vstar_eigenvalue(self) -> float:
        """v*^T C v* (absolute; the paper's "covariance eigenvalue along v*")."""
        return self.rayleigh * float(self.spectrum[-1])


def kernel_report(
    Y=None, gamma=None, *, cov=None, n_samples: int | None = None, mean=None
) -> KernelReport:
    """Measure the LayerNorm kernel: is v* = gamma^-1/||gamma^-1|| the bottom direction?

    Shirodkar & Narayanan (2026), T1, shown in {prf:ref}`thm-ln-kernel`.

    Two ways to call it:

    * ``kernel_report(Y, gamma)`` with activations Y of shape (N, d) (post-norm
      outputs, one row per token); the covariance is centred and computed in float64.
    * ``kernel_report(gamma=gamma, cov=C, n_samples=N, mean=m)`` with a precomputed
      centred covariance (any normalisation: N or N - 1; e.g. streamed in float64 over
      a model's tokens), its sample count and, optionally, the activation mean (used
      only for ``offset_ratio``).

    Parameters
    ----------
    Y : array_like, shape (N, d), optional
    gamma : array_like, shape (d,)
        Effective scale of the norm (Gemma: ``1 + w``, see :func:`effective_scale`).
    cov : array_like, shape (d, d), optional
        Symmetric centred covariance (instead of ``Y``).
    n_samples : int, optional
        Required with ``cov``: the number of samples behind it (>= 2).
    mean : array_like, shape (d,), optional
        Mean activation (with ``cov``; computed from ``Y`` otherwise).

    Examples
    --------
    >>> g = np.array([1.0, -2.0, 0.5, 3.0])
    >>> x = np.random.default_rng(0).standard_normal((50, 4))
    >>> rep = kernel_report(layernorm(x, g, beta=np.ones(4)), g)
    >>> round(rep.cos, 12), rep.residual < 1e-14
    (1.0, True)
    """
    if gamma is None:
        raise TypeError("`gamma` must be given (the effective scale of the norm); got None")
    C, n, m = resolve_statistics(Y, cov=cov, n_samples=n_samples, mean=mean)
    d = C.shape[0]
    v = inverse_scale_direction(gamma)
    if v.shape[0] != d:
        raise ValueError(
            f"`gamma` must have length d = {d} (the activation width); got length {v.shape[0]}"
        )
    w, V = np.linalg.eigh(C)
    Cv = C @ v  # (d,)
    quad = float(v @ Cv)
    lam_max = float(w[-1])
    norm_c = max(abs(float(w[0])), lam_max)
    diag = float(np.sum(v * v * np.diag(C)))
    if diag <= 0 or lam_max <= 0:
        raise ValueError(
            "`cov` must have positive variance along some coordinate; got an all-zero "
            "covariance (constant activations)"
        )
    offset = 0.0 if m is None else float(np.sum(v * v * m * m)) / diag
    if n > d:
        u = V[:, 0]
        if u[np.argmax(np.abs(u))] < 0:
            u = -u
        cos = float(abs(u @ v))
        bottom = u
    else:  # no unique bottom direction: reading .cos raises (see KernelReport)
        cos, bottom = None, None
    lam2 = float(w[1]) if d > 1 else float("nan")
    return KernelReport(
        rayleigh=quad / lam_max,
        residual=float(np.linalg.norm(Cv)) / norm_c,
        diag_rayleigh=quad / diag,
        gap_ratio=quad / lam2 if lam2 > 0 else float("inf"),
        offset_ratio=offset,
        spectrum=w,
        vstar=v,
        bottom=bottom,
        n_samples=n,
        d=d,
        _cos=cos,
    )


@dataclass(frozen=True)
class RoundingNoise:
    """The variance that rounding adds along v* (see :func:`rounding_noise`).

    Attributes
    ----------
    measured : MCEstimate
        Per-sample mean of (v*^T delta_c)^2, delta the rounding error: equals v*^T C v*
        of the rounded activations up to the exact (zero) part, with its standard error.
    independent : float
        sum_i v*_i^2 Var(delta_i): the prediction if errors are independent across coordinates.
    bound : float
        (u^2 / 3) sum_i v*_i^2 E[y_i^2]: the a-priori bound from the unit roundoff u.
    """

    measured: MCEstimate
    independent: float
    bound: float


def rounding_noise(Y, gamma, precision: str) -> RoundingNoise:
    """How much variance rounding exact activations ``Y`` to ``precision`` adds along v*.

    For LayerNorm outputs the exact reading <v*, y> is constant (T1), so after rounding
    ``y -> y + delta`` the covariance along v* is Var(<v*, delta>): the precision floor
    behind {prf:ref}`thm-ln-kernel`'s numerical check.

    Examples
    --------
    >>> g = np.array([1.0, 2.0, -0.5, 1.5])
    >>> Y = layernorm(np.random.default_rng(0).standard_normal((2000, 4)), g)
    >>> rn = rounding_noise(Y, g, "bfloat16")
    >>> rn.measured.agrees_with(rn.independent), rn.measured.value < rn.bound
    (True, True)
    """
    Y = check_samples(Y)
    v = inverse_scale_direction(gamma)
    if v.shape[0] != Y.shape[1]:
        raise ValueError(
            f"`gamma` must have length d = {Y.shape[1]} (the activation width); "
            f"got length {v.shape[0]}"
        )
    check_choice(precision, "precision", PRECISIONS)
    delta = round_to_precision(Y, precision) - Y  # (N, d)
    delta_c = delta - delta.mean(axis=0)
    r = delta_c @ v  # (N,)
    u = UNIT_ROUNDOFF[precision]
    return RoundingNoise(
        measured=mean_estimate(r * r),
        independent=float(np.sum(v * v * delta_c.var(axis=0))),
        bound=float(u * u / 3 * np.sum(v * v * np.mean(Y * Y, axis=0))),
    )
