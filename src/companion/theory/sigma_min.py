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

The streaming :class:`GramAccumulator` is the building block: it merges per-batch
means and co-moments in float64 (memory O(d^2) whatever the token count), and the
model engine (``companion.llm``) reuses it on real residual streams batch by batch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_choice,
    check_finite_array,
    check_instance,
    check_int,
    check_real,
)

__all__ = [
    "GramAccumulator",
    "ResidualToy",
    "SigmaMinProfile",
    "cancellation_bound",
    "residual_toy",
    "sigma_min_profile",
]


def _as_rows(X, name: str, d: int | None = None) -> np.ndarray:
    """A finite float64 (rows, d) view of ``X``; leading axes (batch, seq, ...) are flattened."""
    arr = check_finite_array(X, name)
    if arr.ndim < 2:
        raise ValueError(
            f"`{name}` must be a 2-D array (samples, d) or have more leading axes; "
            f"got shape {arr.shape}"
        )
    if arr.shape[-1] < 1:
        raise ValueError(
            f"`{name}` must have a non-empty last axis (d >= 1); got shape {arr.shape}"
        )
    if d is not None and arr.shape[-1] != d:
        raise ValueError(f"`{name}` must have last axis d = {d}; got shape {arr.shape}")
    return arr.reshape(-1, arr.shape[-1])  # (rows, d)


class GramAccumulator:
    """Streaming float64 mean and Gram / co-moment of the rows of a data matrix.

    Feed it batches of rows with :meth:`update` (any leading axes are flattened, so a
    ``(batch, seq, d)`` activation tensor converted with ``np.asarray`` works); it keeps
    only the sample count ``n``, the mean ``mu`` (d,) and the centred co-moment
    ``M2 = sum_i (x_i - mu)(x_i - mu)^T`` (d, d), merged per batch with Chan et al.'s
    pairwise update. Everything is float64 whatever the input dtype, and the result
    equals the one-shot computation on the stacked rows up to rounding.

    Two matrices can be read, and every method says which one it uses:

    * **uncentred** — the stacked data matrix ``X`` (n, d) itself: :attr:`gram` is
      ``X^T X = M2 + n mu mu^T`` and ``sigma_min(centred=False)`` is the smallest
      singular value of ``X``. This is the matrix of the residual-stream theorem T4
      (``sigma_min(X + F) >= sigma_min(X)``).
    * **centred** — ``X_c = X - 1 mu^T``: :attr:`comoment` is ``X_c^T X_c`` and
      ``sigma_min(centred=True)`` is the smallest singular value of ``X_c``. This is the
      matrix of the LayerNorm kernel (T1) and of the post-LN exclusion (T3).

    Singular values are square roots of Gram eigenvalues (``numpy.linalg.eigvalsh``),
    so they resolve down to about ``sqrt(d * eps) * sigma_max`` (~1e-7 relative in
    float64), not ``eps * sigma_max`` as a one-shot SVD of ``X`` would; use
    :meth:`quadratic_form` (a Gram-level, eps-accurate quantity) to certify an exact
    zero along a known direction. Rows are given equal weight; ``sigma`` of the stacked
    ``n x d`` matrix grows like ``sqrt(n)``, so ratios are only meaningful between
    accumulators fed the same tokens.

    Parameters
    ----------
    d : int, optional
        Width. Inferred from the first batch when omitted.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((500, 4)) + 3.0          # (samples, d)
    >>> acc = GramAccumulator()
    >>> for batch in np.array_split(X, 7):
    ...     _ = acc.update(batch)
    >>> acc.n, acc.d
    (500, 4)
    >>> np.allclose(acc.gram, X.T @ X), np.allclose(acc.covariance(), np.cov(X.T))
    (True, True)
    >>> s = np.linalg.svd(X - X.mean(0), compute_uv=False)
    >>> bool(np.isclose(acc.sigma_min(centred=True), s[-1]))
    True
    """

    def __init__(self, d: int | None = None):
        self._d = None if d is None else check_int(d, "d", low=1)
        self.n = 0
        self._mean = None if self._d is None else np.zeros(self._d)
        self._m2 = None if self._d is None else np.zeros((self._d, self._d))

    # -- accumulation -------------------------------------------------------------
    def update(self, X_batch) -> GramAccumulator:
        """Add the rows of ``X_batch`` (rows, d) — or (..., d) — and return ``self``.

        An empty batch (0 rows) is a no-op. Raises the one-style ``ValueError`` for a
        1-D or non-finite batch, or one whose width differs from earlier batches.
        Anything ``np.asarray`` accepts works; a torch tensor must be on the CPU and in a
        numpy-supported dtype (call ``.float()`` on bf16 first; the cast to float64 then
        happens here, before any product is formed).
        """
        X = _as_rows(X_batch, "X_batch", self._d)  # (rows, d) float64
        if self._d is None:
            self._d = X.shape[1]
            self._mean = np.zeros(self._d)
            self._m2 = np.zeros((self._d, self._d))
        nb = X.shape[0]
        if nb == 0:
            return self
        mb = X.mean(axis=0)  # (d,)
        Xc = X - mb  # (rows, d) centred on the batch
        self._merge(nb, mb, Xc.T @ Xc)
        return self

    def merge(self, other: GramAccumulator) -> GramAccumulator:
        """Fold another accumulator (e.g. from another worker) into this one; returns ``self``."""
        if not isinstance(other, GramAccumulator):
            raise TypeError(f"`other` must be a GramAccumulator; got {type(other).__name__}")
        if other.n == 0:
            return self
        if self._d is None:
            self._d = other.d
            self._mean = np.zeros(self._d)
            self._m2 = np.zeros((self._d, self._d))
        if other.d != self._d:
            raise ValueError(f"`other` must have d = {self._d}; got d = {other.d}")
        self._merge(other.n, other.mean, other.comoment)
        return self

    def merge_moments(self, n: int, mean, comoment) -> GramAccumulator:
        """Fold precomputed batch statistics into this accumulator; returns ``self``.

        ``n`` rows with mean ``mean`` (d,) and centred co-moment ``comoment`` (d, d) =
        ``sum_i (x_i - mean)(x_i - mean)^T``: lets a caller form the batch statistics where
        the data lives (e.g. on a GPU, in float64) and ship only ``d + d^2`` numbers.

        Examples
        --------
        >>> X = np.arange(12.0).reshape(4, 3)
        >>> a = GramAccumulator().merge_moments(4, X.mean(0), (X - X.mean(0)).T @ (X - X.mean(0)))
        >>> bool(np.allclose(a.gram, X.T @ X))
        True
        """
        n = check_int(n, "n", low=0)
        mean = check_finite_array(mean, "mean", ndim=1)
        if self._d is not None and mean.shape[0] != self._d:
            raise ValueError(f"`mean` must have length d = {self._d}; got length {mean.shape[0]}")
        d = mean.shape[0]
        comoment = check_finite_array(comoment, "comoment", ndim=2)
        if comoment.shape != (d, d):
            raise ValueError(f"`comoment` must have shape {(d, d)}; got shape {comoment.shape}")
        if self._d is None:
            self._d = d
            self._mean = np.zeros(d)
            self._m2 = np.zeros((d, d))
        if n:
            self._merge(n, mean, comoment)
        return self

    def _merge(self, nb: int, mb: np.ndarray, m2b: np.ndarray) -> None:
        # Chan, Golub & LeVeque pairwise update: exact in exact arithmetic, and it never
        # forms sum x x^T around the origin, so a large mean does not swamp the spread.
        na = self.n
        n = na + nb
        delta = mb - self._mean  # (d,)
        self._mean = self._mean + delta * (nb / n)
        self._m2 = self._m2 + m2b + np.outer(delta, delta) * (na * nb / n)
        self.n = n

    # -- read-outs ----------------------------------------------------------------
    def _need(self, k: int = 1) -> None:
        if self._d is None or self.n < k:
            raise ValueError(f"`n` must be >= {k} accumulated rows; got {self.n}")

    @property
    def d(self) -> int | None:
        """Width of the rows (``None`` before the first batch)."""
        return self._d

    @property
    def mean(self) -> np.ndarray:
        """Mean row ``mu`` (d,), float64."""
        self._need()
        return self._mean.copy()

    @property
    def comoment(self) -> np.ndarray:
        """Centred co-moment ``X_c^T X_c = sum_i (x_i - mu)(x_i - mu)^T`` (d, d)."""
        self._need()
        return self._m2.copy()

    @property
    def gram(self) -> np.ndarray:
        """Uncentred Gram ``X^T X = M2 + n mu mu^T`` (d, d) of the stacked rows."""
        self._need()
        return self._m2 + self.n * np.outer(self._mean, self._mean)

    def matrix(self, centred: bool) -> np.ndarray:
        """``comoment`` if ``centred`` else ``gram`` (both unnormalised, (d, d))."""
        return self.comoment if check_bool(centred, "centred") else self.gram

    def covariance(self, centred: bool = True) -> np.ndarray:
        """Covariance ``M2 / (n - 1)`` (centred, default) or second moment ``X^T X / n``."""
        if check_bool(centred, "centred"):
            self._need(2)
            return self._m2 / (self.n - 1)
        self._need()
        return self.gram / self.n

    def eigh(self, centred: bool):
        """Eigenvalues (ascending) and eigenvectors (columns) of the chosen Gram matrix."""
        G = self.matrix(centred)
        G = 0.5 * (G + G.T)  # rounding in the merges can break exact symmetry
        return np.linalg.eigh(G)

    def singular_values(self, centred: bool = False) -> np.ndarray:
        """Singular values (descending) of ``X`` (uncentred, default) or of ``X_c``.

        Computed as ``sqrt(max(eig, 0))`` of the Gram matrix; see the class notes on
        resolution.
        """
        G = self.matrix(centred)
        w = np.linalg.eigvalsh(0.5 * (G + G.T))
        return np.sqrt(np.clip(w, 0.0, None))[::-1]

    def sigma_min(self, centred: bool = False) -> float:
        """Smallest singular value of ``X`` (``centred=False``, default; the T4 matrix)
        or of the centred ``X_c`` (``centred=True``; the T1/T3 matrix).

        It is 0 whenever there are fewer rows than columns (``n < d``, or ``n - 1 < d``
        centred). Resolution about ``sqrt(d eps) sigma_max``; see the class notes.
        """
        return float(self.singular_values(centred)[-1])

    def quadratic_form(self, v, centred: bool = True) -> float:
        """``v^T G v / (v^T v)`` for the chosen Gram matrix (``||X_c v||^2 / ||v||^2`` when
        centred). Zero to rounding exactly when ``v`` is a kernel direction (e.g. ``gamma^-1``
        at a LayerNorm output, T1/T3)."""
        centred = check_bool(centred, "centred")
        self._need()
        v = check_finite_array(v, "v", ndim=1)
        if v.shape[0] != self._d:
            raise ValueError(f"`v` must have length d = {self._d}; got length {v.shape[0]}")
        vv = float(v @ v)
        if vv == 0:
            raise ValueError("`v` must be a non-zero vector; got the zero vector")
        return float(v @ self.matrix(centred) @ v) / vv

    def __repr__(self) -> str:
        return f"GramAccumulator(d={self._d}, n={self.n})"


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
            rows = _as_rows(X, name, d)  # (N, d)
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
