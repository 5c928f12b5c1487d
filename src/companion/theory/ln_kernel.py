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

Every statistic is computed in float64. Activations of lower precision are modelled by
rounding exact float64 outputs to the storage dtype (:func:`round_to_precision`), which
is the dominant error of a real fp32/bf16 forward pass as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_choice,
    check_finite_array,
    check_int,
    check_nonempty,
    check_real,
    check_symmetric,
)
from companion.stats import MCEstimate, mean_estimate
from companion.theory.norms import layernorm, rmsnorm

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
    sigma = check_real(sigma, "sigma", low=0.0)
    signs = check_bool(signs, "signs")
    rng = as_generator(rng)
    g = np.exp(sigma * rng.standard_normal(d))  # (d,)
    if signs:
        g *= rng.choice([-1.0, 1.0], d)
    return g


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
    they must be finite and within the float32 range.

    Examples
    --------
    >>> round_to_bfloat16([1.0, 1.00390625, 1.01171875, 3.14159265])
    array([1.     , 1.     , 1.015625, 3.140625], dtype=float32)
    """
    x = check_finite_array(x, "x")
    if np.any(np.abs(x) > np.finfo(np.float32).max):
        raise ValueError(
            f"`x` must lie within the float32 range (|x| <= 3.4e38); got {np.abs(x).max():g}"
        )
    x32 = x.astype(np.float32)
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
    top = float(np.finfo(precision).max)  # beyond it the cast is inf, as bfloat16 refuses
    if np.any(np.abs(x) > top):
        raise ValueError(
            f"`x` must lie within the {precision} range (|x| <= {top:g}); got {np.abs(x).max():g}"
        )
    return x.astype(precision).astype(np.float64)


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


def centred_covariance(Y, *, ddof: int = 1) -> np.ndarray:
    """Centred sample covariance ``Y_c^T Y_c / (N - ddof)`` in float64, Y of shape (N, d).

    Centring uses the empirical mean over the N samples (rows); two passes in float64.

    Examples
    --------
    >>> centred_covariance([[1.0, 0.0], [3.0, 2.0]])
    array([[2., 2.],
           [2., 2.]])
    """
    Y = _check_samples(Y)
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


@dataclass(frozen=True)
class KernelReport:
    """How well v* = gamma^-1/||gamma^-1|| is a kernel direction of a covariance C.

    Attributes
    ----------
    cos : float
        |cos(v*, bottom eigenvector of C)|; ``nan`` when ``n_samples <= d``.
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

    cos: float
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
    else:
        cos, bottom = float("nan"), None
    lam2 = float(w[1]) if d > 1 else float("nan")
    return KernelReport(
        cos=cos,
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
    )


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
        Y = _check_samples(Y)
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


def _check_samples(Y) -> np.ndarray:
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
    Y = _check_samples(Y)
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


# --------------------------------------------------------------------------- T2 witness


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
    eps = check_real(eps, "eps", low=0.0)
    rng = as_generator(rng)
    d = g.shape[0]
    idx = rng.integers(0, d, samples)  # (samples,)
    sgn = rng.choice([-1.0, 1.0], samples)  # (samples,)
    x = np.zeros((samples, d))  # (samples, d)
    x[np.arange(samples), idx] = sgn
    r = rmsnorm(x, g, eps) @ v  # (samples,)
    return mean_estimate(r * r)
