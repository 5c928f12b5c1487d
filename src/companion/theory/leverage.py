"""Dong (2026), per-entry outlier leverage: one sign flip on an input entry of amplitude alpha.

Take a unit input x_hat whose coordinate j has amplitude alpha = |x_j|, and flip one weight
W_ij -> -W_ij (W Gaussian, N(0, sigma^2)). Relative to the same flip on a delocalised entry
(alpha^2 = 1/n), the injected energy is amplified by

* pre-ReLU: exactly n alpha^2 (Delta z = -2 W_ij x_j);
* post-ReLU: n alpha^2 (1 - 4 alpha/(3 pi)) to first order (the author's code formula);
  exactly (1 - 2k(1 - 2 alpha^2)) / (1 - 2k(1 - 2/n)) with the arc-cosine kernel k, because
  (z, z') are jointly Gaussian with correlation 1 - 2 alpha^2.

The aggregate version compares count-matched flips in outlier and non-outlier columns:
E[alpha^2 | outlier] / E[alpha^2 | non-outlier]. Shown in {prf:ref}`thm-leverage`.
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
    check_real,
)
from companion.stats import MCEstimate, ratio_estimate
from companion.theory.budget import check_sizes
from companion.theory.perturbations import gaussian_weights

__all__ = [
    "ABSTRACT_ALPHA_MAX",
    "ABSTRACT_ALPHA_MEDIAN",
    "AUTHOR_ALPHA_MAX",
    "LEVERAGE_KINDS",
    "AggregateLeverage",
    "aggregate_leverage",
    "column_leverage_bound",
    "leverage",
    "simulate_leverage",
]

#: Outlier amplitude, TinyLlama-1.1B layer 12: the abstract's median and max (its alpha
#: normalisation is not stated; see the chapter's caveat).
ABSTRACT_ALPHA_MEDIAN = 0.024
ABSTRACT_ALPHA_MAX = 0.26
#: The author's stored max alpha (results/activation_level_verify.json, q_proj of layer 12,
#: alpha_j^2 = E[x_j^2] / E||x||^2, a ratio of expectations).
AUTHOR_ALPHA_MAX = 0.289

#: The readings of :func:`leverage`.
LEVERAGE_KINDS = ("pre_relu", "post_relu", "exact")


def _check(alpha, n):
    a = check_finite_array(alpha, "alpha")
    if np.any((a < 0) | (a > 1)):
        bad = a[(a < 0) | (a > 1)].ravel()[0]
        raise ValueError(f"`alpha` must be in [0, 1]; got {bad:g}")
    return a, check_int(n, "n", low=2)


def _flip_energy(alpha2):
    """E(Delta h)^2 / sigma^2 for one flip on an entry with amplitude^2 ``alpha2`` (exact):
    1 - 2 k(1 - 2x), x = alpha2, k the arc-cosine kernel, written as
    2x + (2/pi) ((1 - 2x) arcsin(sqrt x) - sqrt(x (1 - x))) so that nothing cancels at
    small x (1 - 2 k(1 - 2/n) lost all its digits by n ~ 1e16 and was 0 beyond 2^53)."""
    x = np.clip(alpha2, 0.0, 1.0)
    return 2 * x + (2 / np.pi) * ((1 - 2 * x) * np.arcsin(np.sqrt(x)) - np.sqrt(x * (1 - x)))


def leverage(alpha, n: int, *, kind: str = "post_relu"):
    """Energy of one sign flip on an entry of amplitude ``alpha``, relative to a delocalised entry.

    Dong (2026), the per-entry leverage R(alpha, n) behind "R ~ n alpha^2" (the abstract) and
    the code's ``n alpha^2 (1 - 4 alpha / (3 pi))``. Shown in {prf:ref}`thm-leverage`.

    Parameters
    ----------
    alpha : float or array
        Amplitude |x_j| of the flipped input coordinate, in [0, 1] (x_hat is a unit vector).
    n : int
        Input width (>= 2); the reference entry has amplitude 1/sqrt(n).
    kind : {"pre_relu", "post_relu", "exact"}
        ``"pre_relu"``: n alpha^2 (exact before the ReLU). ``"post_relu"``: the author's first-order
        n alpha^2 (1 - 4 alpha/(3 pi)). ``"exact"``: post-ReLU through the arc-cosine kernel,
        (1 - 2k(1 - 2 alpha^2)) / (1 - 2k(1 - 2/n)) (our reconstruction).

    Examples
    --------
    >>> round(float(leverage(0.26, 2048, kind="pre_relu")), 1)
    138.4
    >>> round(float(leverage(0.26, 2048)), 1)
    123.2
    >>> round(float(leverage(0.26, 2048, kind="exact")), 1)
    124.2
    """
    a, n = _check(alpha, n)
    kind = check_choice(kind, "kind", LEVERAGE_KINDS)
    if kind == "pre_relu":
        out = n * a**2
    elif kind == "post_relu":
        out = n * a**2 * (1 - 4 * a / (3 * np.pi))
    else:
        out = _flip_energy(a**2) / _flip_energy(1.0 / n)
    out = np.asarray(out, dtype=np.float64)
    return out if out.ndim else out[()]


def simulate_leverage(
    alpha: float,
    n: int,
    *,
    samples: int = 20000,
    stage: str = "post_relu",
    full_rows: bool = False,
    rng=None,
) -> MCEstimate:
    """Monte Carlo leverage of one flip: E(Delta h)^2 at amplitude alpha over the same at 1/sqrt(n).

    Each sample is one row w of a Gaussian W1 (N(0, 1/n)) and two unit inputs that differ only
    in the flipped coordinate j: ``|x_j| = alpha`` and ``|x_j| = 1/sqrt(n)``, the other
    coordinates uniform on the remaining sphere. Flipping w_j changes z = w.x by -2 w_j x_j;
    the energy is (Delta z)^2 (``stage="pre_relu"``, exactly n alpha^2 per draw) or
    (ReLU(z') - ReLU(z))^2 (``"post_relu"``). Paired draws give a ratio of sums with its
    delta-method SE. Compare with :func:`leverage`; shown in {prf:ref}`thm-leverage`.

    By default the rest of the row is drawn in one number: for any unit vector u independent
    of w, w_(-j).u ~ N(0, 1/n) exactly (rotation invariance), so the sample has the model's
    exact law at O(1) cost. ``full_rows=True`` draws the n-dimensional rows and inputs instead
    (O(n) per sample; a check of that reduction).

    Examples
    --------
    >>> est = simulate_leverage(0.1, 256, samples=20000, rng=0)
    >>> est.agrees_with(leverage(0.1, 256, kind="exact"))
    True
    >>> simulate_leverage(0.1, 256, samples=100, stage="pre_relu", rng=0).value   # exact per draw
    2.56
    """
    a, n = _check(alpha, n)
    if a.ndim:
        raise ValueError(f"`alpha` must be a scalar; got shape {a.shape}")
    alpha = float(a)
    samples = check_int(samples, "samples", low=2)
    check_sizes({"n": n, "samples": samples}, elements=4 * (2**20 + n + samples),
                ops=samples * n, what=f"{samples} rows of {n} weights")  # fmt: skip
    stage = check_choice(stage, "stage", ("pre_relu", "post_relu"))
    g = as_generator(rng)
    if check_bool(full_rows, "full_rows"):
        wj, r = [], []
        chunk = max(1, 2**20 // n)  # rows per block: ~1M weights in memory
        for start in range(0, samples, chunk):
            rows = min(chunk, samples - start)
            w = gaussian_weights(rows, n, rng=g)  # (rows, n); column 0 is flipped
            rest = g.standard_normal((rows, n - 1))  # (rows, n - 1)
            rest /= np.linalg.norm(rest, axis=1, keepdims=True)
            wj.append(w[:, 0])
            r.append(np.einsum("ij,ij->i", w[:, 1:], rest))  # (rows,)
        wj, r = np.concatenate(wj), np.concatenate(r)
    else:
        wj, r = g.standard_normal((2, samples)) / np.sqrt(n)  # (samples,) each
    energies = []
    for amp in (alpha, 1 / np.sqrt(n)):
        z = amp * wj + np.sqrt(1 - amp**2) * r  # (samples,) clean pre-activation
        z_flip = z - 2 * amp * wj  # w_j -> -w_j
        d = z_flip - z if stage == "pre_relu" else np.maximum(z_flip, 0) - np.maximum(z, 0)
        energies.append(d**2)
    return ratio_estimate(*energies)


def column_leverage_bound(outlier_fraction: float = 0.05) -> float:
    """(1 - f)/f: 19 at f = 5%. A [GUESS] at the abstract's "R_col <= 19" (not the paper's text).

    The count-matched outlier/non-outlier ratio ((1-f)/f) F/(1-F) (see :func:`aggregate_leverage`)
    is at most (1-f)/f exactly when the outlier columns carry at most half of the activation
    energy (F <= 1/2). The paper's definition of R_col was not available.

    Examples
    --------
    >>> column_leverage_bound(0.05)
    19.0
    """
    f = check_real(
        outlier_fraction, "outlier_fraction", low=0.0, high=1.0, low_open=True, high_open=True
    )
    return float(1 / f - 1)


@dataclass(frozen=True)
class AggregateLeverage:
    """Count-matched leverage predicted from a column profile alpha_j^2 (normalised to sum 1).

    ``n_mean_alpha2`` is n E[alpha^2 | outlier] (the abstract's "n E[alpha^2]", leverage over an
    average column); ``ratio`` is E[alpha^2 | outlier] / E[alpha^2 | non-outlier] (outlier vs
    non-outlier flips, count matched); ``energy_share`` is F, the outliers' share of sum alpha^2.
    """

    n: int
    n_outliers: int
    n_mean_alpha2: float
    ratio: float
    energy_share: float
    bound: float


def aggregate_leverage(alpha2, outlier_fraction: float = 0.05) -> AggregateLeverage:
    """Predicted count-matched leverage of flips in the top ``outlier_fraction`` columns.

    To first order each flip's energy is proportional to its column's alpha_j^2 (the pre-ReLU
    law), so equal numbers of flips drawn from the outlier and non-outlier pools differ in
    energy by E[alpha^2 | out] / E[alpha^2 | non] = ((1-f)/f) F/(1-F). Our reading of the
    abstract's aggregate claim (NLL leverage ~10x ~ n E[alpha^2] on TinyLlama);
    shown in {prf:ref}`thm-leverage`.

    Parameters
    ----------
    alpha2 : array
        Per-column E[x_j^2] (any positive scale; normalised here so that sum alpha_j^2 = 1).
    outlier_fraction : float
        Fraction f of columns called outliers (top by alpha^2), in (0, 1).

    Examples
    --------
    >>> agg = aggregate_leverage(np.r_[np.full(5, 10.0), np.ones(95)])
    >>> round(agg.ratio, 6), round(agg.energy_share, 4), agg.bound
    (10.0, 0.3448, 19.0)
    """
    a2 = check_finite_array(alpha2, "alpha2", ndim=1)
    if a2.size < 2:
        raise ValueError(f"`alpha2` must hold at least 2 columns; got {a2.size}")
    if np.any(a2 < 0) or not np.any(a2 > 0):
        raise ValueError(
            "`alpha2` must be non-negative with a positive sum; got "
            f"min {float(a2.min()):g}, sum {float(a2.sum()):g}"
        )
    bound = column_leverage_bound(outlier_fraction)
    f = 1 / (1 + bound)
    n = a2.size
    k = min(n - 1, max(1, int(round(f * n))))
    a2 = np.sort(a2 / a2.sum())[::-1]  # (n,) descending
    out, non = a2[:k], a2[k:]
    ratio = float(out.mean() / non.mean()) if non.mean() > 0 else float("inf")
    return AggregateLeverage(n, k, float(n * out.mean()), ratio, float(out.sum()), bound)
