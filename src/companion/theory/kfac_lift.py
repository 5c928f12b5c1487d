"""From an activation kernel to a dead direction in parameter space (Shirodkar 2026, T5).

Two pieces, both shown in the chapter {prf:ref}`thm-kfac-lift`:

* **The Kronecker (K-FAC) lift** (Lean ``cor:kfac_lift`` / ``kron_spectral`` of arXiv
  2606.05957). A layer's Fisher block is approximated by ``A (x) G`` with
  ``A = E[a a^T]`` (layer inputs) and ``G = E[g g^T]`` (output gradients). Its eigenpairs
  are exactly the products ``(alpha_i kappa_j, a_i (x) g_j)`` of the factors' eigenpairs
  (:func:`kfac_lift`), so a kernel vector of ``A`` gives zero K-FAC Fisher along every
  rank-one increment ``u a^T``.
* **The induced LayerNorm dead direction** (abstract of arXiv 2606.19491; the details are
  our derivation, spec §2.7). A softmax head ``z = W y + b`` fed by ``y = LN(x)`` sees
  ``<v*, y> = c = <gamma^-1, beta> / ||gamma^-1||`` for every input, so ``Delta W = u v*^T``
  moves every logit vector by the same ``c u``. The *true* directional Fisher is
  ``c^2 E_x Var_{p(.|x)}(u)``: zero iff ``c = 0`` (``beta = 0``) or ``u`` is constant
  (the softmax shift gauge); otherwise the direction is dead only jointly with a
  compensating bias change. Tied embeddings break it (:class:`LNSoftmaxHead` with
  ``tied=True``).

Vectorisation convention: ``vec`` stacks columns, so ``vec(u a^T) = a (x) u`` and the
K-FAC quadratic form is ``vec(dW)^T (A (x) G) vec(dW) = tr(dW^T G dW A)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_finite_array,
    check_int,
    check_nonempty,
    check_real,
    check_symmetric,
)
from companion.theory.budget import check_sizes
from companion.theory.ln_kernel import inverse_scale_direction, sample_gamma
from companion.theory.norms import layernorm

__all__ = [
    "KronSpectrum",
    "LNSoftmaxHead",
    "categorical_fisher",
    "kfac_lift",
    "kfac_quadratic_form",
    "ln_softmax_head",
    "softmax",
]


def _vector(x, name: str, length: int) -> np.ndarray:
    x = check_finite_array(x, name, ndim=1)
    if x.shape[0] != length:
        raise ValueError(f"`{name}` must have length {length}; got length {x.shape[0]}")
    return x


@dataclass(frozen=True)
class KronSpectrum:
    """Eigenpairs of ``A (x) G`` built from the factors (result of :func:`kfac_lift`).

    Attributes
    ----------
    values : ndarray (dA * dG,)
        ``alpha_i * kappa_j``, ascending.
    index : ndarray (dA * dG, 2)
        ``(i, j)`` of each value: factor eigenpair indices (each ascending).
    alpha, a_vectors : ndarray (dA,), (dA, dA)
        Eigenvalues (ascending) and eigenvectors (columns) of ``A``.
    kappa, g_vectors : ndarray (dG,), (dG, dG)
        Same for ``G``.
    """

    values: np.ndarray
    index: np.ndarray
    alpha: np.ndarray
    a_vectors: np.ndarray
    kappa: np.ndarray
    g_vectors: np.ndarray

    def _pair(self, k) -> tuple[int, int]:
        k = check_int(k, "k", low=0, high=self.values.size - 1)
        return self.index[k]

    def vector(self, k: int) -> np.ndarray:
        """Eigenvector ``a_i (x) g_j`` of the k-th value, length dA * dG (``np.kron`` order)."""
        i, j = self._pair(k)
        return np.kron(self.a_vectors[:, i], self.g_vectors[:, j])

    def increment(self, k: int) -> np.ndarray:
        """The same eigenvector as a weight increment ``g_j a_i^T`` (dG, dA)."""
        i, j = self._pair(k)
        return np.outer(self.g_vectors[:, j], self.a_vectors[:, i])

    def dense_vectors(self) -> np.ndarray:
        """All eigenvectors as columns (dA * dG, dA * dG), in the order of :attr:`values`."""
        return np.stack([self.vector(k) for k in range(self.values.size)], axis=1)

    @property
    def bottom(self) -> tuple[float, np.ndarray]:
        """``(alpha_min kappa_min, g_min a_min^T)`` for PSD factors: the dead direction."""
        return float(self.values[0]), self.increment(0)


def kfac_lift(A, G) -> KronSpectrum:
    """Spectrum of the Kronecker product ``A (x) G`` from the factors' eigenpairs.

    Shirodkar (2026), Lean ``cor:kfac_lift``: if ``A a = alpha a`` and ``G g = kappa g``
    then ``(A (x) G)(a (x) g) = alpha kappa (a (x) g)``, and these ``dA * dG`` lifted pairs
    are the complete spectrum. Costs two small eigensolves instead of one of size
    ``dA * dG``. Shown in {prf:ref}`thm-kfac-lift`.

    Parameters
    ----------
    A : array_like (dA, dA)
        Symmetric input-side factor (e.g. the activation second moment or covariance).
    G : array_like (dG, dG)
        Symmetric gradient-side factor.

    Examples
    --------
    >>> A = np.diag([0.0, 2.0]); G = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> spec = kfac_lift(A, G)
    >>> spec.values
    array([0., 0., 2., 6.])
    >>> bool(np.allclose(np.sort(np.linalg.eigvalsh(np.kron(A, G))), spec.values))
    True
    """
    A = check_symmetric(A, "A")
    G = check_symmetric(G, "G")
    alpha, Va = np.linalg.eigh(A)  # (dA,), (dA, dA)
    kappa, Vg = np.linalg.eigh(G)  # (dG,), (dG, dG)
    prods = np.outer(alpha, kappa)  # (dA, dG)
    order = np.argsort(prods, axis=None, kind="stable")
    ii, jj = np.unravel_index(order, prods.shape)
    return KronSpectrum(prods.ravel()[order], np.stack([ii, jj], axis=1), alpha, Va, kappa, Vg)


def kfac_quadratic_form(A, G, dW) -> float:
    """K-FAC directional Fisher ``vec(dW)^T (A (x) G) vec(dW) = tr(dW^T G dW A)``.

    For a rank-one ``dW = u v^T`` it factorises as ``(v^T A v)(u^T G u)``.

    Examples
    --------
    >>> A = np.diag([0.0, 1.0]); G = np.eye(3)
    >>> kfac_quadratic_form(A, G, np.outer(np.ones(3), [1.0, 0.0]))   # v in ker A
    0.0
    """
    A = check_symmetric(A, "A")
    G = check_symmetric(G, "G")
    dW = check_finite_array(dW, "dW", ndim=2)
    if dW.shape != (G.shape[0], A.shape[0]):
        raise ValueError(
            f"`dW` must have shape (dG, dA) = {(G.shape[0], A.shape[0])}; got shape {dW.shape}"
        )
    return float(np.einsum("ij,jk,ik->", dW, A, G @ dW))


def softmax(z) -> np.ndarray:
    """Row-wise softmax over the last axis, float64 (max-shifted for stability).

    Examples
    --------
    >>> softmax([0.0, np.log(3.0)])
    array([0.25, 0.75])
    """
    z = check_finite_array(z, "z", min_ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"`z` must have a non-empty last axis; got shape {z.shape}")
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def categorical_fisher(logits, dlogits) -> float:
    """True directional Fisher of a softmax model along a logit change, averaged over inputs.

    For one input the Fisher quadratic form is ``dz^T (diag p - p p^T) dz = Var_p(dz)``,
    the variance of the logit change under the model's own predictive distribution
    ``p = softmax(z)``; this returns its mean over the rows. Computed in the centred form
    ``sum_k p_k (dz_k - p.dz)^2``, so a constant shift ``dz = c 1`` gives exactly 0.

    Parameters
    ----------
    logits, dlogits : array_like (N, V)

    Examples
    --------
    >>> categorical_fisher([[0.0, 0.0]], [[1.0, -1.0]])
    1.0
    >>> categorical_fisher([[0.3, -2.0]], [[5.0, 5.0]])      # softmax shift gauge
    0.0
    """
    z = check_nonempty(check_finite_array(logits, "logits", ndim=2), "logits")
    dz = check_finite_array(dlogits, "dlogits", ndim=2)
    if dz.shape != z.shape:
        raise ValueError(
            f"`dlogits` must have the shape of `logits` {z.shape}; got shape {dz.shape}"
        )
    p = softmax(z)  # (N, V)
    m = np.sum(p * dz, axis=1, keepdims=True)  # (N, 1) E_p[dz]
    return float(np.mean(np.sum(p * (dz - m) ** 2, axis=1)))


@dataclass(frozen=True)
class LNSoftmaxHead:
    """A softmax output head fed by a LayerNorm: the toy of {prf:ref}`thm-kfac-lift`.

    ``h`` (N, d) pre-norm states, ``y = LN(h; gamma, beta, eps)``, logits ``z = W y + b``.
    With ``tied=True`` the head is the embedding matrix: ``h = E[tokens] M + noise`` with
    ``W = E`` (V, d), so a change of ``W`` also moves the inputs.

    Use :func:`ln_softmax_head` to build one.
    """

    W: np.ndarray
    b: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    eps: float
    h: np.ndarray
    tokens: np.ndarray
    M: np.ndarray
    tied: bool

    # -- derived quantities --------------------------------------------------------
    @property
    def vstar(self) -> np.ndarray:
        """``v* = gamma^-1 / ||gamma^-1||`` (read from the parameters alone)."""
        return inverse_scale_direction(self.gamma)

    @property
    def c(self) -> float:
        """The constant reading ``<v*, LN(x)> = <gamma^-1, beta> / ||gamma^-1||``."""
        inv = 1.0 / self.gamma
        return float(inv @ self.beta / np.linalg.norm(inv))

    @property
    def y(self) -> np.ndarray:
        """LayerNorm outputs (N, d)."""
        return layernorm(self.h, self.gamma, self.beta, self.eps)

    def logits(self, W=None, b=None, beta=None) -> np.ndarray:
        """Logits (N, V) at (optionally) changed head weights, head bias and LN bias.

        For a tied head the changed ``W`` is also the embedding that builds ``h``."""
        V, d = self.W.shape
        if W is None:
            W = self.W
        else:
            W = check_finite_array(W, "W", ndim=2)
            if W.shape != (V, d):
                raise ValueError(f"`W` must have shape {(V, d)}; got shape {W.shape}")
        b = self.b if b is None else _vector(b, "b", V)
        beta = self.beta if beta is None else _vector(beta, "beta", d)
        h = self.h
        if self.tied:
            h = h + (W - self.W)[self.tokens] @ self.M  # (N, d) embeddings moved too
        return layernorm(h, self.gamma, beta, self.eps) @ W.T + b

    def dlogits(self, dW, db=None, dbeta=None) -> np.ndarray:
        """First-order logit change (N, V) along ``(dW, db, dbeta)`` (exact derivative).

        Untied: ``dW y + db + W dbeta``. Tied: adds ``W J_LN(h) (dW[token] M)`` because the
        embedding rows move with the head."""
        dW = check_finite_array(dW, "dW", ndim=2)
        if dW.shape != self.W.shape:
            raise ValueError(f"`dW` must have shape {self.W.shape}; got shape {dW.shape}")
        y = self.y
        dz = y @ dW.T  # (N, V)
        if db is not None:
            dz = dz + _vector(db, "db", self.W.shape[0])
        if dbeta is not None:
            dz = dz + _vector(dbeta, "dbeta", self.W.shape[1]) @ self.W.T
        if self.tied:
            dh = dW[self.tokens] @ self.M  # (N, d) input change
            # LN Jacobian applied row-wise: gamma * (P dh - z <z, P dh>/d) / s
            hc = self.h - self.h.mean(axis=1, keepdims=True)
            s = np.sqrt(np.mean(hc * hc, axis=1, keepdims=True) + self.eps)
            zc = hc / s
            dhc = dh - dh.mean(axis=1, keepdims=True)
            dy = self.gamma * (dhc - zc * np.mean(zc * dhc, axis=1, keepdims=True)) / s
            dz = dz + dy @ self.W.T
        return dz

    def fisher(self, dW, db=None, dbeta=None) -> float:
        """True directional Fisher ``E_x Var_p(dz)`` along ``(dW, db, dbeta)``."""
        return categorical_fisher(self.logits(), self.dlogits(dW, db, dbeta))

    def kfac_factors(self, centred: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """``(A, G)``: ``A`` the covariance (``centred``) or second moment of ``y`` (d, d),
        ``G = E_x[diag p - p p^T]`` the logit-gradient second moment (V, V)."""
        y = self.y
        if check_bool(centred, "centred"):
            yc = y - y.mean(axis=0)
            A = yc.T @ yc / y.shape[0]
        else:
            A = y.T @ y / y.shape[0]
        p = softmax(self.logits())  # (N, V)
        G = np.diag(p.mean(axis=0)) - p.T @ p / p.shape[0]
        return A, G

    def flat_curve_logit_change(self, w, ts) -> np.ndarray:
        """Max |logit change| along the exact flat curve of a bias-free head (untied).

        ``W_t = W + t (W w) v*^T`` and ``beta_t = beta - t c w / (1 + t <v*, w>)`` leave
        every logit unchanged for all ``t`` with ``1 + t <v*, w> != 0`` (spec §2.7):
        ``<v*, LN_t(x)> = c / (1 + t <v*, w>)`` exactly cancels the head change.
        Returns one number per ``t``."""
        w = check_finite_array(w, "w", ndim=1)
        if w.shape[0] != self.W.shape[1]:
            raise ValueError(f"`w` must have length d = {self.W.shape[1]}; got length {w.shape[0]}")
        ts = check_finite_array(ts, "ts")
        if ts.ndim > 1:
            raise ValueError(f"`ts` must be a number or a 1-D array; got shape {ts.shape}")
        ts = np.atleast_1d(ts)
        v, c, z0 = self.vstar, self.c, self.logits()
        pole = 1 + ts * (v @ w) == 0
        if np.any(pole):
            raise ValueError(
                "`ts` must avoid the pole 1 + t <v*, w> = 0 of the curve; "
                f"got t = {float(ts[pole][0]):g}"
            )
        out = []
        for t in ts:
            Wt = self.W + t * np.outer(self.W @ w, v)
            bt = self.beta - t * c * w / (1 + t * (v @ w))
            out.append(float(np.max(np.abs(self.logits(W=Wt, beta=bt) - z0))))
        return np.asarray(out)


def ln_softmax_head(
    V: int = 20,
    d: int = 16,
    *,
    n: int = 400,
    beta_scale: float = 1.0,
    gamma_sigma: float = 0.5,
    eps: float = 1e-5,
    tied: bool = False,
    bias: bool = True,
    rng=None,
) -> LNSoftmaxHead:
    """Build a random LayerNorm-fed softmax head (used in {prf:ref}`thm-kfac-lift`).

    ``gamma`` log-normal(0, ``gamma_sigma``) with random signs, ``beta ~ beta_scale N(0, I)``,
    ``W ~ N(0, 1/d)``, head bias ``b ~ N(0, 1)`` (zeros if not ``bias``). Pre-norm states
    ``h = E[tokens] M + noise`` for ``n`` uniformly drawn tokens; untied heads use an
    independent embedding ``E``, tied heads ``E = W``. ``M`` (d, d) stands in for the
    transformer body between embedding and final norm.

    Examples
    --------
    >>> head = ln_softmax_head(10, 8, n=100, beta_scale=0.0, rng=0)
    >>> u = np.random.default_rng(1).standard_normal(10)
    >>> head.fisher(np.outer(u, head.vstar)) < 1e-28                 # beta = 0: dead
    True
    """
    V = check_int(V, "V", low=2)
    d = check_int(d, "d", low=2)
    n = check_int(n, "n", low=2)
    check_sizes({"V": V, "d": d, "n": n}, elements=2 * V * d + d * d + 3 * n * (d + V),
                ops=n * d * (d + V), what=f"{n} inputs, a {V} x {d} head")  # fmt: skip
    beta_scale = check_real(beta_scale, "beta_scale", low=0.0)
    gamma_sigma = check_real(gamma_sigma, "gamma_sigma", low=0.0)
    eps = check_real(eps, "eps", low=0.0)
    tied = check_bool(tied, "tied")
    bias = check_bool(bias, "bias")
    g = as_generator(rng)
    gamma = sample_gamma(d, gamma_sigma, signs=True, rng=g)  # (d,)
    beta = beta_scale * g.standard_normal(d)  # (d,)
    W = g.standard_normal((V, d)) / np.sqrt(d)  # (V, d) head
    b = g.standard_normal(V) if bias else np.zeros(V)  # (V,)
    E = W if tied else g.standard_normal((V, d)) / np.sqrt(d)  # (V, d) embedding
    M = g.standard_normal((d, d)) / np.sqrt(d) + np.eye(d)  # (d, d) "body"
    tokens = g.integers(0, V, n)  # (n,)
    h = E[tokens] @ M + 0.5 * g.standard_normal((n, d))  # (n, d) pre-norm states
    return LNSoftmaxHead(W, b, gamma, beta, eps, h, tokens, M, tied)
