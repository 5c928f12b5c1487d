"""The null distribution of |cos| and the LayerNorm/RMSNorm classifier (T6).

Shirodkar & Narayanan (2026), arXiv 2606.19491: the presence or absence of the
gamma^-1 kernel direction classifies a transformer's normalisation. The paper's
decision rule is not available to us; this module's rule is OUR reconstruction,
shown in {prf:ref}`thm-classifier`:

* the *null*: for a Haar-random unit vector u in R^d and any fixed unit v,
  cos^2(u, v) ~ Beta(1/2, (d-1)/2) (:func:`random_direction_null`);
* the *classifier* (:func:`classify_norm`) decides by the **exactness** of the kernel,
  not by a |cos| threshold: the statistic is

      rho = v*^T C v* / sum_i v*_i^2 C_ii     (``KernelReport.diag_rayleigh``),

  which is 0 in exact arithmetic for LayerNorm and, for RMSNorm, equals
  Var(1^T z) / sum_i Var(z_i) with z = x / rms(x): independent of gamma, so a very
  heterogeneous trained gamma cannot fake a kernel. It is compared with the rounding
  floor of the working precision, :func:`precision_floor`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special as _sp
from scipy import stats as _st

from companion._validate import (
    as_generator,
    check_choice,
    check_finite_array,
    check_instance,
    check_int,
    check_memory,
    check_real,
    check_work,
)
from companion.stats import mean_estimate
from companion.theory.ln_kernel import (
    PRECISIONS,
    UNIT_ROUNDOFF,
    KernelReport,
    kernel_report,
)

__all__ = [
    "NULL_WIDTHS",
    "NormVerdict",
    "NullDistribution",
    "VERDICTS",
    "classify_norm",
    "dead_share",
    "norm_verdict",
    "precision_floor",
    "random_direction_null",
    "simulate_null_cos",
]

#: Widths of the paper's model range (GPT-2 small ... 7B-class).
NULL_WIDTHS = (768, 1024, 1536, 2048, 3072, 4096)

#: Possible verdicts of :func:`classify_norm`.
VERDICTS = ("layernorm", "rmsnorm", "undetermined")


@dataclass(frozen=True)
class NullDistribution:
    """|cos| between a fixed unit vector and a Haar-random one in R^d (exact).

    cos^2 ~ Beta(1/2, (d-1)/2). ``mean`` = E|cos| = Gamma(d/2) / (sqrt(pi) Gamma((d+1)/2))
    ~ sqrt(2/(pi d)); ``q99``/``q999`` are the 99 % / 99.9 % quantiles of |cos|.
    """

    d: int
    mean: float
    q99: float
    q999: float

    def quantile(self, q: float) -> float:
        """The q-quantile of |cos|."""
        q = check_real(q, "q", low=0.0, high=1.0)
        return float(np.sqrt(_st.beta.ppf(q, 0.5, (self.d - 1) / 2)))

    def sf(self, c: float) -> float:
        """P(|cos| > c) for a random direction (the p-value of an observed |cos| = c)."""
        c = check_real(c, "c", low=0.0, high=1.0)
        return float(_st.beta.sf(c * c, 0.5, (self.d - 1) / 2))

    def pdf(self, c) -> np.ndarray:
        """Density of |cos| at c in [0, 1]: 2c * Beta(1/2, (d-1)/2) density at c^2."""
        c = check_finite_array(c, "c")
        if np.any((c < 0) | (c > 1)):
            raise ValueError(f"`c` must be in [0, 1]; got {float(c[(c < 0) | (c > 1)].flat[0]):g}")
        # change of variables from cos^2 ~ Beta(1/2, (d-1)/2):
        # (1 - c^2)^((d-3)/2) / B(1/2, (d-1)/2) * 2
        logb = _sp.betaln(0.5, (self.d - 1) / 2)
        with np.errstate(divide="ignore"):
            return 2 * np.exp((self.d - 3) / 2 * np.log1p(-np.minimum(c * c, 1.0)) - logb)


def random_direction_null(d: int) -> NullDistribution:
    """Exact null law of |cos(u, v*)| for a uniformly random unit u in R^d.

    Shown in {prf:ref}`thm-classifier`. A direction with no relation to v* (e.g. an
    RMSNorm model's bottom direction with homogeneous gamma) sits at this level.

    Examples
    --------
    >>> nd = random_direction_null(768)
    >>> round(nd.mean, 4), round(nd.q999, 3)
    (0.0288, 0.118)
    >>> round(nd.sf(0.10), 4)
    0.0055
    """
    d = check_int(d, "d", low=2)
    mean = float(np.exp(_sp.gammaln(d / 2) - _sp.gammaln((d + 1) / 2)) / np.sqrt(np.pi))
    q = np.sqrt(_st.beta.ppf([0.99, 0.999], 0.5, (d - 1) / 2))
    return NullDistribution(d=d, mean=mean, q99=float(q[0]), q999=float(q[1]))


def simulate_null_cos(d: int, *, samples: int = 20_000, rng=None) -> dict:
    """Monte Carlo check of :func:`random_direction_null`.

    Draws ``samples`` Gaussian directions (Haar after normalising) and returns
    ``{"mean": MCEstimate of E|cos|, "exceed_q99": MCEstimate of P(|cos| > q99),
    "exceed_q999": ..., "cos": the draws}``; the exceedances should be 0.01 and 0.001.
    By rotation invariance the fixed direction can be e_1.

    Examples
    --------
    >>> sim = simulate_null_cos(64, samples=4000, rng=0)
    >>> sim["mean"].agrees_with(random_direction_null(64).mean)
    True
    """
    d = check_int(d, "d", low=2)
    samples = check_int(samples, "samples", low=2)
    big, value = ("d", d) if d >= samples else ("samples", samples)
    check_memory(8.0 * samples + 8.0 * max(d, 2_000_000), big, value, what="the draws")
    check_work(float(samples) * d, big, value, what=f"{samples} x {d} Gaussian draws")
    rng = as_generator(rng)
    nd = random_direction_null(d)
    chunk = max(1, 2_000_000 // d)
    cos = np.empty(samples)  # (samples,)
    for start in range(0, samples, chunk):
        g = rng.standard_normal((min(chunk, samples - start), d))  # (chunk, d)
        cos[start : start + g.shape[0]] = np.abs(g[:, 0]) / np.linalg.norm(g, axis=1)
    return {
        "mean": mean_estimate(cos),
        "exceed_q99": mean_estimate(cos > nd.q99),
        "exceed_q999": mean_estimate(cos > nd.q999),
        "cos": cos,
    }


def precision_floor(
    dtype: str, d: int, *, offset_ratio: float = 0.0, accumulate: str | None = None
) -> float:
    """Rounding floor of the classifier's statistic rho = v*^T C v* / sum_i v*_i^2 C_ii.

    ``(1 + offset_ratio) * u^2 / 3 + d * (u_f^2 + u_64)`` (plus ``(1 + offset_ratio) * u_a``
    for a streaming accumulation in a lower precision, below) with

    * ``u`` the unit roundoff of the storage precision ``dtype`` (2^-53, 2^-24, 2^-11,
      2^-8 for float64/32/16, bfloat16). Rounding to nearest gives each activation y_i a
      relative error of rms <= u/sqrt(3), independent across coordinates, so a variance
      <= u^2/3 * sum_i v*_i^2 (C_ii + m_i^2) along v* (m the activation mean): relative
      to the denominator sum_i v*_i^2 C_ii that is u^2/3 * (1 + offset_ratio).
    * ``u_f = min(u, 2^-24)`` the precision of the forward pass's reductions (fp16/bf16
      norms accumulate in float32): an error in the per-token mean is a shift common to
      all d coordinates, so it adds up coherently along v*, giving ~ d u_f^2 (times the
      squared mean-to-spread ratio of the norm's *input*, which the classifier's
      ``margin`` absorbs).
    * ``u_64`` the float64 accumulation and eigensolve of C: ~ d u_64.
    * ``u_a``, only when ``accumulate`` names a precision: the covariance was accumulated
      as streaming uncentred sums (Σy, Σyyᵀ, then C = S/N − m mᵀ) in that precision. Each
      entry of S/N then carries a relative error ~ u_a, the subtraction of m mᵀ multiplies
      it by 1 + offset_ratio, and these errors are not squared along v*: the floor rises
      from O(u²) to O(u_a). This is the paper's point about FP64 accumulation (Shirodkar &
      Narayanan 2026): a float32 accumulation buries the kernel at ~1e-7, and a floor set
      from the storage precision alone would call such a LayerNorm "rmsnorm".

    Examples
    --------
    >>> f"{precision_floor('float32', 768):.2e}"
    '2.81e-12'
    >>> f"{precision_floor('bfloat16', 768):.2e}"
    '5.09e-06'
    >>> f"{precision_floor('float64', 768, offset_ratio=1.0, accumulate='float32'):.2e}"
    '1.19e-07'
    """
    check_choice(dtype, "dtype", PRECISIONS)
    d = check_int(d, "d", low=2)
    r = check_real(offset_ratio, "offset_ratio", low=0.0)
    u = UNIT_ROUNDOFF[dtype]
    u_f = min(u, UNIT_ROUNDOFF["float32"])
    floor = (1.0 + r) * u * u / 3.0 + d * (u_f * u_f + UNIT_ROUNDOFF["float64"])
    if accumulate is not None:
        check_choice(accumulate, "accumulate", PRECISIONS)
        if accumulate != "float64":
            floor += (1.0 + r) * UNIT_ROUNDOFF[accumulate]
    return floor


@dataclass(frozen=True)
class NormVerdict:
    """The classifier's verdict and its evidence.

    Attributes
    ----------
    verdict : {"layernorm", "rmsnorm", "undetermined"}
        ``layernorm``: v* is a kernel direction to the working precision's floor;
        ``rmsnorm``: the variance along v* is far above the floor (no gamma^-1 kernel:
        RMSNorm or any normaliser without mean subtraction); otherwise ``undetermined``.
    statistic : float
        rho = v*^T C v* / sum_i v*_i^2 C_ii (the decision statistic).
    floor : float
        :func:`precision_floor` for this dtype, d and offset ratio.
    threshold_layernorm, threshold_rmsnorm : float
        ``margin * floor`` and ``gap * margin * floor``.
    cos : float
        |cos(v*, bottom direction)| (evidence only; ``report.cos``: reading it raises a
        ``ValueError`` naming N and d when N <= d, where the verdict still holds).
    null_q999 : float
        99.9 % quantile of |cos| for a random direction at this d.
    report : KernelReport
        All kernel measurements (rayleigh, residual, spectrum, ...).
    dtype : str
    reason : str
        One sentence explaining the verdict.
    """

    verdict: str
    statistic: float
    floor: float
    threshold_layernorm: float
    threshold_rmsnorm: float
    null_q999: float
    report: KernelReport
    dtype: str
    reason: str

    @property
    def cos(self) -> float:
        """|cos(v*, bottom direction)| of :attr:`report` (needs N > d)."""
        return self.report.cos


def classify_norm(
    gamma,
    Y=None,
    *,
    cov=None,
    n_samples: int | None = None,
    mean=None,
    dtype: str | None = None,
    accumulate: str | None = None,
    margin: float = 100.0,
    gap: float = 10.0,
) -> NormVerdict:
    """Classify a normalisation as LayerNorm or RMSNorm from gamma plus activations.

    T6 of Shirodkar & Narayanan (2026); the rule is our reconstruction (the paper's
    threshold is not available), shown in {prf:ref}`thm-classifier`. The decision uses
    the exactness of the kernel, rho = v*^T C v* / sum_i v*_i^2 C_ii, against the
    working precision's rounding floor (:func:`precision_floor`):

    * |rho| <= margin * floor      -> ``"layernorm"`` (kernel exact to working precision; a
      negative rho is rounding noise, so its size, not its sign, is compared);
    * rho >= gap * margin * floor  -> ``"rmsnorm"`` (no gamma^-1 kernel);
    * otherwise                    -> ``"undetermined"``.

    For RMSNorm rho = Var(1^T z) / sum_i Var(z_i), z = x / rms(x), is O(1) unless the
    norm's inputs almost sum to a constant; for LayerNorm it sits at the floor.

    |cos| and the null quantile are reported as evidence but never decide: with a very
    heterogeneous trained gamma an RMSNorm bottom direction can correlate with gamma^-1
    (|cos| ~ 0.44) because both concentrate on small-gamma coordinates.

    Two ways to call it:

    * ``classify_norm(gamma, Y)`` with post-norm activations Y, shape (N, d), as
      computed (their dtype is the working precision unless ``dtype`` is given; pass
      ``dtype`` when float64 arrays hold values rounded to a lower precision);
    * ``classify_norm(gamma, cov=C, n_samples=N, mean=m, dtype="float32")`` with a
      precomputed float64 centred covariance of activations produced in ``dtype``
      (``mean`` optional but recommended: a large mean raises the floor; without it
      the floor assumes mean-free activations).

    Parameters
    ----------
    gamma : array_like, shape (d,)
        Effective scale of the final norm (Gemma: ``1 + w``).
    Y : array_like, shape (N, d), optional
    cov : array_like, shape (d, d), optional
    n_samples : int, optional
        With ``cov``: samples behind it (>= 2; the verdict does not need N > d, |cos| does).
    mean : array_like, shape (d,), optional
        With ``cov``: the activation mean.
    dtype : {"float64", "float32", "float16", "bfloat16"}, optional
        Precision the activations were produced in; required with ``cov``.
    accumulate : {"float64", "float32", "float16", "bfloat16"}, optional
        With ``cov``: the precision of streaming uncentred sums the covariance was
        accumulated in, when lower than float64 (the floor then rises to O(u_a), see
        :func:`precision_floor`); None for a float64 (or centred two-pass) covariance.
    margin : float
        Safety factor (> 1) between the floor and the LayerNorm threshold; the default
        100 covers a float32 forward pass whose input mean is up to ~10x its spread.
    gap : float
        Factor (>= 1) between the LayerNorm and RMSNorm thresholds.

    Examples
    --------
    >>> from companion.theory.ln_kernel import sample_inputs, sample_gamma, normalised_activations
    >>> x = sample_inputs(400, 32, "gaussian", rng=0)
    >>> g = sample_gamma(32, 1.5, rng=1)
    >>> classify_norm(g, normalised_activations(x, g, beta=np.ones(32))).verdict
    'layernorm'
    >>> classify_norm(g, normalised_activations(x, g, norm="rmsnorm")).verdict
    'rmsnorm'
    """
    margin = check_real(margin, "margin", low=1.0, low_open=True)
    gap = check_real(gap, "gap", low=1.0)
    if Y is not None and dtype is None:
        arr_dtype = np.asarray(Y).dtype
        dtype = {np.dtype(np.float32): "float32", np.dtype(np.float16): "float16"}.get(
            arr_dtype, "float64"
        )
    if cov is not None and dtype is None:
        raise TypeError(
            "`dtype` must be given with `cov` (the precision the activations were "
            "produced in, e.g. 'float32'); got None"
        )
    check_choice(dtype, "dtype", PRECISIONS)
    if gamma is None:
        raise TypeError("`gamma` must be given (the effective scale of the norm); got None")
    rep = kernel_report(Y, gamma, cov=cov, n_samples=n_samples, mean=mean)
    floor = precision_floor(dtype, rep.d, offset_ratio=rep.offset_ratio, accumulate=accumulate)
    t_ln, t_rms = margin * floor, gap * margin * floor
    rho = rep.diag_rayleigh
    if accumulate not in (None, "float64"):
        dtype_label = f"{dtype} (accumulated in {accumulate})"
    else:
        dtype_label = dtype
    verdict, reason = norm_verdict(
        rho, floor, dead=dead_share(rep.vstar, dtype), margin=margin, gap=gap, label=dtype_label
    )
    return NormVerdict(
        verdict=verdict,
        statistic=rho,
        floor=floor,
        threshold_layernorm=t_ln,
        threshold_rmsnorm=t_rms,
        null_q999=random_direction_null(rep.d).q999,
        report=rep,
        dtype=dtype,
        reason=reason,
    )


def dead_share(vstar, dtype: str) -> float:
    """Share of ‖v*‖² on *dead* coordinates: those whose |γ_i| is below u_f times the largest,
    u_f = min(u, 2⁻²⁴) the precision of the forward pass's reductions (as in
    :func:`precision_floor`): such a γ_i·z_i vanishes against any other coordinate's.

    v* ∝ γ⁻¹, so |γ_i| / max|γ| = min|v*| / |v*_i| and the share needs v* only. A dead
    coordinate's output is the constant β_i for any norm, so its axis is a kernel direction
    of LayerNorm and RMSNorm alike: where v* lies in their span the exactness test cannot tell
    the two apart (a trained γ with dead entries, e.g. all-MiniLM-L6-v2's).

    Examples
    --------
    >>> round(dead_share([0.5, 0.5, 0.5, 0.5], "float32"), 6)
    0.0
    >>> round(dead_share([1e-9, 1e-9, 1.0], "float32"), 6)
    1.0
    """
    check_choice(dtype, "dtype", PRECISIONS)
    v = np.abs(check_finite_array(vstar, "vstar").ravel())
    if v.size == 0 or not v.any():
        raise ValueError("`vstar` must have a non-zero entry; got all zeros")
    lo = v[v > 0].min() if (v > 0).any() else 0.0
    u_f = min(UNIT_ROUNDOFF[dtype], UNIT_ROUNDOFF["float32"])
    dead = lo / np.where(v > 0, v, np.inf) < u_f
    return float((v[dead] ** 2).sum() / (v**2).sum())


def norm_verdict(
    rho: float,
    floor: float,
    *,
    dead: float = 0.0,
    margin: float = 100.0,
    gap: float = 10.0,
    label: str = "working-precision",
) -> tuple[str, str]:
    """The classifier's decision rule (our reconstruction): ``(verdict, reason)`` from the
    exactness statistic ρ, the rounding floor and the dead share of v* (:func:`dead_share`).

    * |ρ| <= margin·floor and dead <= 1/2 -> ``"layernorm"``;
    * ρ >= gap·margin·floor               -> ``"rmsnorm"``;
    * otherwise (between the thresholds, or an exact kernel carried by dead coordinates,
      which any norm has)                 -> ``"undetermined"``.

    :func:`classify_norm` calls it; so do the claims, on the statistics stored in records.

    Examples
    --------
    >>> norm_verdict(1e-13, 2.8e-12)[0], norm_verdict(0.9, 2.8e-12)[0]
    ('layernorm', 'rmsnorm')
    >>> norm_verdict(1e-13, 2.8e-12, dead=0.99)[0]
    'undetermined'
    """
    rho = check_real(rho, "rho")
    floor = check_real(floor, "floor", low=0.0, low_open=True)
    dead = check_real(dead, "dead", low=0.0, high=1.0)
    margin = check_real(margin, "margin", low=0.0, low_open=True)
    gap = check_real(gap, "gap", low=0.0, low_open=True)
    label = check_instance(label, "label", str)
    t_ln, t_rms = margin * floor, gap * margin * floor
    if abs(rho) <= t_ln and dead > 0.5:
        return "undetermined", (
            f"the variance along gamma^-1 is {rho:.2e} of its diagonal share, within "
            f"{margin:g}x the {label} rounding floor {floor:.1e}, but {dead:.6f} of v*'s norm "
            "lies on dead coordinates (|gamma_i| below u_f of the largest), whose axes are "
            "kernel directions of any norm"
        )
    if abs(rho) <= t_ln:
        return "layernorm", (
            f"the variance along gamma^-1 is {rho:.2e} of its diagonal share, within "
            f"{margin:g}x the {label} rounding floor {floor:.1e}: an exact kernel"
        )
    if rho >= t_rms:
        return "rmsnorm", (
            f"the variance along gamma^-1 is {rho:.2e} of its diagonal share, "
            f"{rho / floor:.1e}x the {label} rounding floor: no gamma^-1 kernel"
        )
    return "undetermined", (
        f"the variance along gamma^-1 is {rho:.2e} of its diagonal share, between "
        f"{margin:g}x and {gap * margin:g}x the {label} rounding floor {floor:.1e}"
    )
