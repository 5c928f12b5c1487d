"""Streaming second moments in float64: :class:`GramAccumulator` merges per-batch means and
co-moments (memory O(d²) whatever the token count), the building block of the σ_min profile
(:mod:`companion.theory.sigma_min`) and of the model engine's readings of real residual
streams (``companion.llm``), batch by batch.
"""

from __future__ import annotations

import numpy as np

from companion._validate import check_bool, check_finite_array, check_int
from companion.theory.budget import check_sizes

__all__ = ["GramAccumulator"]


def as_rows(X, name: str, d: int | None = None) -> np.ndarray:
    """A finite float64 (rows, d) view of ``X``; leading axes (batch, seq, ...) are flattened
    (shared with :func:`companion.theory.sigma_min.sigma_min_profile`)."""
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
        if self._d is not None:
            check_sizes({"d": self._d}, elements=self._d * (self._d + 1), what="a d x d sum")
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
        X = as_rows(X_batch, "X_batch", self._d)  # (rows, d) float64
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
