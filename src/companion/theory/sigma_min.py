"""The residual stream's smallest singular value (Shirodkar 2026, T3 and T4), float64.

Two results of the dead-direction framework, both shown in the chapter
{prf:ref}`thm-sigma-min-residual`:

* **T4 (depth invariance).** A residual block ``x -> x + f(x)`` whose branch never
  anti-aligns with the stream (the *non-cancellation hypothesis*) cannot shrink the
  smallest singular value of the stacked states, so the profile
  ``sigma_min(X_l) / sigma_min(X_0)`` does not decline with depth.
* **T3 (post-LN exclusion).** At any LayerNorm output the *centred* sample matrix has
  ``sigma_min = 0`` exactly (its rows are orthogonal to ``gamma^-1``), so profiles
  must be taken on pre-norm states.

The streaming :class:`GramAccumulator` (:mod:`.gram`, re-exported here) is the building
block: it merges per-batch means and co-moments in float64 (memory O(d^2) whatever the
token count), and the model engine (``companion.llm``) reuses it on real residual streams
batch by batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_choice,
    check_instance,
    check_int,
    check_real,
)
from companion.theory.budget import check_sizes
from companion.theory.gram import GramAccumulator, as_rows

__all__ = [
    "GramAccumulator",
    "ResidualToy",
    "SigmaMinProfile",
    "cancellation_bound",
    "residual_toy",
    "sigma_min_profile",
]


@dataclass(frozen=True)
class SigmaMinProfile:
    """Result of :func:`sigma_min_profile`.

    Attributes
    ----------
    sigma_min : ndarray (L + 1,)
        Smallest singular value of each state matrix.
    ratio : ndarray (L + 1,)
        ``sigma_min[l] / sigma_min[0]`` (``rho_l`` of the paper; ``ratio[0] == 1``).
    sigma_max : ndarray (L + 1,)
        Largest singular value of each state (for judging how small "small" is).
    centred : bool
        Whether the states were centred on their mean row.
    n : int
        Rows per state.
    """

    sigma_min: np.ndarray
    ratio: np.ndarray
    sigma_max: np.ndarray
    centred: bool
    n: int

    @property
    def min_ratio(self) -> float:
        """``min_l ratio[l]`` — below 1 means the profile declined somewhere."""
        return float(self.ratio.min())

    @property
    def monotone(self) -> bool:
        """True when ``sigma_min`` never decreases from one state to the next (rounding aside)."""
        s = self.sigma_min
        return bool(np.all(np.diff(s) >= -1e-9 * self.sigma_max[1:]))


def sigma_min_profile(states, *, centred: bool = False, method: str = "auto") -> SigmaMinProfile:
    """Profile ``rho_l = sigma_min(X_l) / sigma_min(X_0)`` over a list of states, float64.

    Shirodkar (2026), residual sigma_min depth invariance (T4): under non-cancellation
    the profile does not decline; shown in {prf:ref}`thm-sigma-min-residual`.

    Parameters
    ----------
    states : sequence of arrays (N, d) or of :class:`GramAccumulator`
        ``X_0`` (the embedding output) first, then the pre-norm residual state after each
        block. Accumulators (the engine streams tokens into them) are read through their
        Gram matrices; arrays are decomposed by a one-shot SVD (``method="auto"`` or
        ``"svd"``: accurate to ``eps * sigma_max``, which matters for a collapsing
        profile) or fed through a :class:`GramAccumulator` (``method="gram"``: the
        streaming computation, resolution ``~sqrt(d eps) * sigma_max``).
    centred : bool
        ``False`` (default): singular values of the state matrices themselves (the matrix
        of T4). ``True``: of the mean-centred matrices (the matrix of T1/T3).
    method : {"auto", "gram", "svd"}

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X0 = rng.standard_normal((200, 8))               # (N, d)
    >>> p = sigma_min_profile([X0, X0 @ (np.eye(8) + 0.3 * np.eye(8))])
    >>> np.round(p.ratio, 6)
    array([1. , 1.3])
    """
    check_choice(method, "method", ("auto", "gram", "svd"))
    centred = check_bool(centred, "centred")
    if isinstance(states, (str, bytes)) or not hasattr(states, "__iter__"):
        raise TypeError(
            "`states` must be a sequence of arrays or GramAccumulators; "
            f"got {type(states).__name__}"
        )
    states = list(states)
    if len(states) < 1:
        raise ValueError("`states` must hold at least 1 state; got 0")
    smin, smax, ns, d = [], [], [], None
    for i, X in enumerate(states):
        name = f"states[{i}]"
        if isinstance(X, GramAccumulator):
            if method == "svd":
                raise ValueError(
                    f"`method` must be 'gram' when `{name}` is a GramAccumulator; got 'svd'"
                )
            acc = X
            acc._need(2 if centred else 1)
        else:
            rows = as_rows(X, name, d)  # (N, d)
            if method in ("svd", "auto"):
                if centred:
                    rows = rows - rows.mean(axis=0)
                s = np.linalg.svd(rows, compute_uv=False)
                if rows.shape[0] < rows.shape[1]:  # rank-deficient: the missing values are 0
                    s = np.concatenate([s, np.zeros(rows.shape[1] - rows.shape[0])])
                smin.append(float(s[-1])), smax.append(float(s[0])), ns.append(rows.shape[0])
                d = rows.shape[1]
                continue
            acc = GramAccumulator(rows.shape[1]).update(rows)
        if d is not None and acc.d != d:
            raise ValueError(f"`{name}` must have d = {d}; got d = {acc.d}")
        d = acc.d
        s = acc.singular_values(centred)
        smin.append(float(s[-1])), smax.append(float(s[0])), ns.append(acc.n)
    if len(set(ns)) != 1:
        raise ValueError(f"`states` must all have the same number of rows; got {sorted(set(ns))}")
    smin = np.asarray(smin)
    if smin[0] <= 0:
        raise ValueError("`states[0]` must have sigma_min > 0 to normalise the profile; got 0.0")
    return SigmaMinProfile(smin, smin / smin[0], np.asarray(smax), bool(centred), ns[0])


# -- the toy residual network of the chapter -----------------------------------------


@dataclass(frozen=True)
class ResidualToy:
    """States of :func:`residual_toy`.

    Attributes
    ----------
    states : list of ndarray (n, d)
        ``X_0, ..., X_L`` (pre-norm residual states).
    branch_pairing : ndarray (L,)
        ``lambda_min(sym(B_l))`` of each block's linear branch ``f(x) = B_l^T x``: the
        operator form of non-cancellation holds iff all are >= 0.
    data_pairing : ndarray (L,)
        ``lambda_min(sym(X_l^T F_l)) / ||X_l||_2^2``: the data-matrix form.
    direction : ndarray (d,)
        The unit direction ``u`` the cancelling part of each branch removes.
    """

    states: list
    branch_pairing: np.ndarray
    data_pairing: np.ndarray
    direction: np.ndarray = field(repr=False)


def residual_toy(
    d: int = 32, depth: int = 12, *, n: int = 256, cancel: float = 0.0, scale: float = 0.3, rng=None
) -> ResidualToy:
    """A linear residual network ``X_{l+1} = X_l (I + B_l)`` with a tunable cancelling branch.

    Each branch is ``B_l = scale * P (S_l + K_l) P - cancel * u u^T``: ``S_l`` a random PSD
    matrix (the non-cancelling part), ``K_l`` a random skew-symmetric matrix (a rotation
    that leaves ``sym(B_l)`` unchanged), ``P = I - u u^T`` and ``u`` a fixed random unit
    direction. With ``cancel = 0``, ``sym(B_l)`` is PSD (the non-cancellation hypothesis
    of T4) and the profile cannot decline; with ``cancel > 0`` the branch anti-aligns with
    the stream along ``u``, which then shrinks by exactly ``(1 - cancel)`` per block (see
    :func:`cancellation_bound`). Used in {prf:ref}`thm-sigma-min-residual`.

    Examples
    --------
    >>> toy = residual_toy(8, 4, n=64, rng=0)
    >>> sigma_min_profile(toy.states).monotone, bool(toy.branch_pairing.min() >= -1e-12)
    (True, True)
    """
    d = check_int(d, "d", low=2)
    depth = check_int(depth, "depth", low=0)
    n = check_int(n, "n", low=d)
    check_sizes({"d": d, "depth": depth, "n": n}, elements=(depth + 1) * n * d + 3 * d * d,
                ops=depth * n * d * d, what=f"{depth + 1} states of {n} x {d}")  # fmt: skip
    cancel = check_real(cancel, "cancel", low=0.0, high=2.0)
    scale = check_real(scale, "scale", low=0.0)
    g = as_generator(rng)
    u = g.standard_normal(d)
    u /= np.linalg.norm(u)  # (d,)
    P = np.eye(d) - np.outer(u, u)  # (d, d) projector off u
    X = g.standard_normal((n, d))  # (n, d) embedding output X_0
    states, bp, dp = [X], [], []
    for _ in range(depth):
        W = g.standard_normal((d, d)) / np.sqrt(d)
        S = P @ (W @ W.T) @ P / 2  # (d, d) PSD, kills u
        Z = g.standard_normal((d, d)) / np.sqrt(2 * d)
        K = P @ (Z - Z.T) @ P  # (d, d) skew, kills u
        B = scale * (S + K) - cancel * np.outer(u, u)  # (d, d); B u = -cancel u
        F = X @ B  # (n, d) branch outputs
        bp.append(float(np.linalg.eigvalsh(0.5 * (B + B.T))[0]))
        M = X.T @ F
        dp.append(float(np.linalg.eigvalsh(0.5 * (M + M.T))[0] / np.linalg.norm(X, 2) ** 2))
        X = X + F
        states.append(X)
    return ResidualToy(states, np.asarray(bp), np.asarray(dp), u)


def cancellation_bound(toy: ResidualToy, cancel: float) -> np.ndarray:
    """Closed-form ceiling of the toy's profile under cancellation, shape (L + 1,).

    In :func:`residual_toy` every branch maps ``u`` to ``-cancel * u``, so
    ``X_l u = (1 - cancel)^l X_0 u`` exactly and

        sigma_min(X_l) / sigma_min(X_0) <= |1 - cancel|^l * ||X_0 u|| / sigma_min(X_0).

    With ``cancel = 1`` (two tied routes with opposite coefficients, the Lean sharpness
    example) the floor dies after one block. Shown in {prf:ref}`thm-sigma-min-residual`.

    Examples
    --------
    >>> toy = residual_toy(8, 3, n=64, cancel=0.5, rng=0)
    >>> b = cancellation_bound(toy, 0.5)
    >>> np.round(b / b[0], 6)
    array([1.   , 0.5  , 0.25 , 0.125])
    """
    check_instance(toy, "toy", ResidualToy)
    cancel = check_real(cancel, "cancel", low=0.0, high=2.0)
    X0 = toy.states[0]
    s0 = np.linalg.svd(X0, compute_uv=False)[-1]
    L = len(toy.states) - 1
    return np.abs(1.0 - cancel) ** np.arange(L + 1) * np.linalg.norm(X0 @ toy.direction) / s0
