"""What one read of the moments gives: v* against a covariance (:class:`KernelRead`), the
Schur ratio of the pre-norm state (:class:`SchurRead`) and the pre-norm σ_min profile
(:class:`SigmaProfile`), each with its record keys."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import (
    check_bool,
    check_choice,
    check_finite_array,
    check_real,
    check_symmetric,
)

__all__ = ["KernelRead", "SchurRead", "SigmaProfile", "near_null_alignment"]

#: Random directions of the Schur control.
SCHUR_DIRECTIONS = 8
_UNIT = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}


def _empty() -> np.ndarray:
    return np.zeros(0)


def near_null_alignment(C, vstar, *, dtype: str = "float32", factor: float = 1e3):
    """``(k, ‖P_k v*‖)``: the number k of eigenvalues of C that are numerically zero, and
    the norm of v*'s projection on the span of their eigenvectors (k = 1 when none is).

    "Numerically zero" means λ_i ≤ factor · (u² + d·u₆₄) · λ_max, with u the unit roundoff
    of the precision the activations were produced in (their rounding floor) and d·u₆₄
    the float64 eigensolver's absolute accuracy: below that level eigenvectors are
    arbitrary mixtures, so the only meaningful question is whether v* lies in their span.
    When γ has (near-)zero entries every such coordinate is a kernel direction of its own
    (clause (a)(ii) of T1), the null space is several-dimensional and |cos| with the
    single bottom eigenvector is not the right read; this is.

    Examples
    --------
    >>> k, a = near_null_alignment(np.diag([0.0, 1e-20, 1.0, 2.0]), np.array([0.6, 0.8, 0, 0]))
    >>> k, round(a, 12)
    (2, 1.0)
    """
    C = check_symmetric(C, "C")
    d = C.shape[0]
    v = check_finite_array(vstar, "vstar", ndim=1)
    if v.shape != (d,):
        raise ValueError(f"`vstar` must have length d = {d}; got shape {v.shape}")
    if not np.any(v):
        raise ValueError("`vstar` must be non-zero; got the zero vector")
    check_choice(dtype, "dtype", tuple(_UNIT))
    factor = check_real(factor, "factor", low=0.0, low_open=True)
    w, V = np.linalg.eigh(C)
    lam_max = float(w[-1])
    tau = factor * (_UNIT.get(dtype, 2.0**-24) ** 2 + d * _UNIT["float64"]) * lam_max
    k = max(1, int(np.sum(w <= tau)))
    proj = V[:, :k].T @ v  # (k,)
    return k, float(np.linalg.norm(proj) / np.linalg.norm(v))


#: KernelRead attribute → record key (the float64 read's keys add ``_fp64``).
_READ_KEYS = {
    "verdict": "verdict",
    "reason": "classifier_reason",
    "cos": "cos",
    "rayleigh": "rayleigh",
    "vstar_eigenvalue": "vstar_eigenvalue",
    "diag_rayleigh": "diag_rayleigh",
    "gap_ratio": "gap_ratio",
    "kernel_dim": "kernel_dim",
    "cos_subspace": "cos_subspace",
    "spectrum": "spectrum",
    "bottom": "bottom",
}


@dataclass
class KernelRead:
    """v* against one centred covariance C (float64).

    ``diag_rayleigh`` (ρ) is the exactness statistic: unlike ``rayleigh`` it does not
    scale with 1/‖γ⁻¹‖², so it compares models and checkpoints; the verdict thresholds it
    against the rounding floor of ``dtype``, the precision the activations were made in.
    """

    verdict: str
    reason: str
    cos: float
    rayleigh: float
    vstar_eigenvalue: float
    diag_rayleigh: float
    gap_ratio: float
    kernel_dim: int
    cos_subspace: float
    spectrum: np.ndarray = field(repr=False, default_factory=_empty)
    bottom: np.ndarray | None = field(repr=False, default=None)

    @classmethod
    def of(cls, gamma, acc, *, dtype: str, vstar=None) -> KernelRead:
        """The read of ``vstar`` (default: γ⁻¹/‖γ⁻¹‖) on ``acc``'s covariance."""
        from companion.theory.null_classifier import classify_norm

        C = acc.covariance()
        prec = dtype if dtype in ("float32", "float16", "bfloat16") else "float64"
        verdict = classify_norm(gamma, cov=C, n_samples=acc.n, mean=acc.mean, dtype=prec)
        rep = verdict.report
        k, sub = near_null_alignment(C, rep.vstar if vstar is None else vstar, dtype=dtype)
        return cls(
            verdict=verdict.verdict,
            reason=verdict.reason,
            cos=rep.cos,
            rayleigh=rep.rayleigh,
            vstar_eigenvalue=rep.vstar_eigenvalue,
            diag_rayleigh=rep.diag_rayleigh,
            gap_ratio=rep.gap_ratio,
            kernel_dim=k,
            cos_subspace=sub,
            spectrum=rep.spectrum,
            bottom=rep.bottom,
        )

    def fields(self, suffix: str = "", *, arrays: bool = True) -> dict:
        """The record's keys for this read (``suffix`` ``"_fp64"`` for the float64 twin)."""
        if not isinstance(suffix, str):
            raise TypeError(f"`suffix` must be a str; got {type(suffix).__name__}")
        arrays = check_bool(arrays, "arrays")
        out = {}
        for attr, key in _READ_KEYS.items():
            v = getattr(self, attr)
            if isinstance(v, np.ndarray) or v is None:
                if arrays:
                    out[key + suffix] = None if v is None else v.tolist()
                continue
            out[key + suffix] = v
        return out

    @classmethod
    def from_record(cls, rec: dict, suffix: str = "") -> KernelRead | None:
        """The read stored under ``suffix`` in ``rec`` (None when absent); keys that older
        records lack read as NaN."""
        if "verdict" + suffix not in rec:
            return None

        def get(attr: str, key: str):
            v = rec.get(key + suffix)
            if attr in ("spectrum", "bottom"):
                return (_empty() if attr == "spectrum" else None) if v is None else np.asarray(v)
            if v is None:
                return "" if attr in ("verdict", "reason") else float("nan")
            return v

        return cls(**{a: get(a, k) for a, k in _READ_KEYS.items()})


@dataclass
class SchurRead:
    """The Schur ratio R(h) = 1/(Σ_hh (Σ⁻¹)_hh) of the pre-norm covariance Σ (our
    reconstruction of the paper's Δγ = 1 − R): along v*, its Marchenko–Pastur baseline
    for N i.i.d. isotropic rows, and along random unit directions (a control: a high
    Δγ means something only if random directions do not share it). NaN when Σ is
    singular (a post-LN input)."""

    ratio: float
    mp_baseline: float
    random: np.ndarray = field(repr=False, default_factory=_empty)

    @classmethod
    def of(cls, acc, vstar) -> SchurRead:
        from companion.theory.schur_ratio import mp_baseline, schur_ratio

        S = acc.covariance()
        h = np.random.default_rng(0).standard_normal((SCHUR_DIRECTIONS, S.shape[0]))
        try:
            return cls(
                ratio=schur_ratio(S, vstar),
                mp_baseline=mp_baseline(S.shape[0], acc.n),
                random=np.array([schur_ratio(S, v) for v in h]),
            )
        except ValueError:  # singular pre-norm covariance: R is 0/0
            return cls(ratio=float("nan"), mp_baseline=mp_baseline(S.shape[0], acc.n))


@dataclass
class SigmaProfile:
    """σ_min of the uncentred residual-stream matrix X_ℓ after each block ℓ (0 = the
    embedding output; the last entry is the pre-final-norm state), with and without
    position 0, and the jackknife SE (over ``folds`` folds of the sequences) of each
    block-to-block step σ_min(X_ℓ)/σ_min(X_ℓ₋₁) without position 0."""

    sigma_min: np.ndarray = field(repr=False, default_factory=_empty)
    sigma_min_no_pos0: np.ndarray = field(repr=False, default_factory=_empty)
    step_se: np.ndarray = field(repr=False, default_factory=_empty)
    tokens: int = 0
    degenerate: bool = False
    folds: int = 0

    @property
    def ratio(self) -> np.ndarray:
        """σ_min(X_ℓ)/σ_min(X_0) with position 0."""
        return _ratio(self.sigma_min, self.sigma_min[:1])

    @property
    def ratio_no_pos0(self) -> np.ndarray:
        """σ_min(X_ℓ)/σ_min(X_0) without position 0."""
        return _ratio(self.sigma_min_no_pos0, self.sigma_min_no_pos0[:1])

    @property
    def steps(self) -> np.ndarray:
        """σ_min(X_ℓ)/σ_min(X_ℓ₋₁) without position 0, ℓ = 1 … L."""
        return _ratio(self.sigma_min_no_pos0[1:], self.sigma_min_no_pos0[:-1])

    @classmethod
    def of(cls, blocks, *, tokens: int, degenerate: bool) -> SigmaProfile:
        """``blocks``: per block, the fold accumulators without position 0 then the one
        of position 0."""
        if not blocks:
            return cls(tokens=tokens, degenerate=degenerate)
        wo = [_merged(b[:-1]) for b in blocks]
        sig = [
            _merged([w, b[-1]]).sigma_min(centred=False) for w, b in zip(wo, blocks, strict=True)
        ]
        return cls(
            sigma_min=np.asarray(sig),
            sigma_min_no_pos0=np.asarray([w.sigma_min(centred=False) for w in wo]),
            step_se=_jackknife_steps(blocks),
            tokens=tokens,
            degenerate=degenerate,
            folds=len(blocks[0]) - 1,
        )


def _ratio(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` (empty when ``a`` is); σ_min = 0 (a rank below d) gives inf or NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / b if a.size else a


def _merged(accs):
    from companion.theory.sigma_min import GramAccumulator

    out = GramAccumulator()
    for a in accs:
        out.merge(a)
    return out


def _jackknife_steps(blocks) -> np.ndarray:
    """Delete-one-fold jackknife SE of every step ratio (NaN when a fold is empty)."""
    k = len(blocks[0]) - 1
    if k < 2 or any(a.n == 0 for a in blocks[0][:-1]):
        return np.full(len(blocks) - 1, np.nan)
    s = np.array(  # (k, blocks): σ_min without fold i
        [[_merged(b[:i] + b[i + 1 : k]).sigma_min(centred=False) for b in blocks] for i in range(k)]
    )
    steps = _ratio(s[:, 1:], s[:, :-1])  # (k, blocks - 1)
    with np.errstate(invalid="ignore"):  # inf steps (σ_min = 0: fewer rows than d)
        se = np.sqrt((k - 1) / k * ((steps - steps.mean(0)) ** 2).sum(0))
    return np.where(np.isfinite(se), se, np.nan)
