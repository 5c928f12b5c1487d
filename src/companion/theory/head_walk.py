"""Walking a normalised softmax head along a curve in parameter space, in float64.

The object: a head ``z = W N(h) `` (no head bias) fed by the final norm ``N`` of a model
(LayerNorm ``gamma * P h / s + beta`` or RMSNorm ``gamma * h / s``), its pre-norm states
``h`` (N, d) and the next tokens ``targets`` (N,). :class:`HeadWalk` evaluates, chunk by
chunk (memory O(chunk * V)), at every point of a curve ``(W_t, beta_t)``:

* the mean held-out NLL of the targets;
* the directional Fisher ``F(t) = E_x Var_{p_t(.|x)}(dz/dt)`` from the model's own
  predictive distribution (no labels), the quantity whose log-log slope gives the KL order
  (:mod:`companion.theory.fisher_decay`);
* the mean ``KL(p_0 || p_t)``.

The curves (Shirodkar & Narayanan 2026, abstract: the kernel "induces a corresponding dead
direction in parameter space"; the curves are our derivation, spec §2.7, see
:mod:`companion.theory.kfac_lift`):

* ``"flat"``: ``W_t = W + t (W w) v*^T``, ``beta_t = beta - t c w / (1 + t <v*, w>)`` with
  ``c = <gamma^-1, beta> / ||gamma^-1||``: every logit is unchanged for all ``t`` (LayerNorm
  only: it needs the ``beta`` compensation);
* ``"uncompensated"``: the same ``W_t`` with ``beta`` fixed: every logit moves by
  ``t c W w`` (dead only when ``c = 0``); on an RMSNorm head this is the gamma^-1 direction,
  whose read ``<v*, y>`` is not constant;
* ``"line"``: ``W + t R`` for a given direction ``R``; ``"square"``: ``W + t^2 R`` (a curve
  of KL order 2: its Fisher's slope is 2).

Both the flat and the uncompensated curve are evaluated by materialising ``W_t``,
``beta_t`` and recomputing the norm and the head; the lines use ``z_t = z_0 + t R y``
(exact: the logits are linear in ``W`` at fixed ``beta``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from companion._validate import (
    check_choice,
    check_finite_array,
    check_int,
    check_matrix,
    check_real,
)
from companion.theory.budget import check_sizes
from companion.theory.kfac_lift import softmax
from companion.theory.ln_kernel import inverse_scale_direction
from companion.theory.norms import layernorm, rmsnorm

__all__ = ["CURVES", "HeadWalk", "WalkPoint", "toy_head_walk"]

#: The curves :meth:`HeadWalk.walk` knows.
CURVES = ("flat", "uncompensated", "line", "square")


@dataclass(frozen=True)
class WalkPoint:
    """Mean NLL, directional Fisher and KL(p_0 || p_t) at each ``t`` of a walk (arrays)."""

    t: np.ndarray
    nll: np.ndarray
    fisher: np.ndarray
    kl: np.ndarray


def _check_ts(ts) -> np.ndarray:
    ts = np.atleast_1d(check_finite_array(ts, "ts"))
    if ts.ndim != 1 or ts.size == 0:
        raise ValueError(f"`ts` must be a number or a non-empty 1-D array; got shape {ts.shape}")
    return ts


@dataclass(frozen=True)
class HeadWalk:
    """A float64 softmax head on captured pre-norm states (see the module docs).

    Attributes
    ----------
    h : ndarray (N, d)
        Pre-norm states (the final norm's input).
    targets : ndarray (N,) int
        The token each state predicts.
    W : ndarray (V, d)
        The head (an untied copy when the model ties it to its embedding).
    gamma, beta : ndarray (d,)
        Effective scale and shift of the final norm (``beta`` zeros for RMSNorm).
    eps : float
    kind : {"layernorm", "rmsnorm"}
    chunk : int
        Rows per block of logits.
    """

    h: np.ndarray
    targets: np.ndarray
    W: np.ndarray
    gamma: np.ndarray
    beta: np.ndarray
    eps: float
    kind: str = "layernorm"
    chunk: int = 128

    def __post_init__(self):
        h = check_matrix(self.h, "h", min_rows=1, min_cols=2)
        W = check_matrix(self.W, "W", min_rows=1, min_cols=2)
        N, d = h.shape
        V = W.shape[0]
        if W.shape[1] != d:
            raise ValueError(f"`W` must have shape (V, d = {d}); got shape {W.shape}")
        tg = np.asarray(self.targets)
        if tg.shape != (N,) or not np.issubdtype(tg.dtype, np.integer):
            raise ValueError(f"`targets` must be {N} integers; got shape {tg.shape}, {tg.dtype}")
        if tg.size and (tg.min() < 0 or tg.max() >= V):
            raise ValueError(f"`targets` must lie in [0, {V}); got [{tg.min()}, {tg.max()}]")
        for name in ("gamma", "beta"):
            v = check_finite_array(getattr(self, name), name, ndim=1)
            if v.shape != (d,):
                raise ValueError(f"`{name}` must have length d = {d}; got length {v.shape[0]}")
        check_choice(self.kind, "kind", ("layernorm", "rmsnorm"))
        check_real(self.eps, "eps", low=0.0)
        check_int(self.chunk, "chunk", low=1)
        if self.kind == "rmsnorm" and np.any(np.asarray(self.beta) != 0):
            raise ValueError("`beta` must be zeros for an RMSNorm head (it has no shift)")

    # -- the norm's constants ------------------------------------------------------------
    @property
    def vstar(self) -> np.ndarray:
        """``v* = gamma^-1 / ||gamma^-1||``."""
        return inverse_scale_direction(self.gamma)

    @property
    def c(self) -> float:
        """``c = <gamma^-1, beta> / ||gamma^-1||`` (0 for RMSNorm)."""
        inv = 1.0 / np.asarray(self.gamma, dtype=float)
        return float(inv @ self.beta / np.linalg.norm(inv))

    def y(self, rows=slice(None), beta=None) -> np.ndarray:
        """Norm outputs (n, d) of ``h[rows]`` recomputed in float64 (``beta`` overrides).

        ``rows`` is a slice or an array of row indices.
        """
        if not isinstance(rows, slice):
            idx = np.asarray(rows) if isinstance(rows, (list, tuple, np.ndarray)) else None
            if idx is None or idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
                raise TypeError(
                    "`rows` must be a slice or a 1-D array of row indices; "
                    f"got {type(rows).__name__}"
                )
            if idx.size and (idx.min() < -len(self.h) or idx.max() >= len(self.h)):
                raise ValueError(f"`rows` must index the {len(self.h)} states; got {idx.tolist()}")
        if beta is not None:
            beta = check_finite_array(beta, "beta", ndim=1)
            if beta.shape != (self.W.shape[1],):
                raise ValueError(f"`beta` must have length d = {self.W.shape[1]}; got {beta.shape}")
        h = np.asarray(self.h[rows], dtype=np.float64)
        if self.kind == "rmsnorm":
            return rmsnorm(h, self.gamma, self.eps)
        return layernorm(h, self.gamma, self.beta if beta is None else beta, self.eps)

    # -- curves ------------------------------------------------------------------------
    def _w(self, w) -> np.ndarray:
        w = check_finite_array(w, "w", ndim=1)
        if w.shape != (self.W.shape[1],):
            raise ValueError(f"`w` must have length d = {self.W.shape[1]}; got length {w.shape[0]}")
        return w

    def _R(self, R) -> np.ndarray:
        R = check_finite_array(R, "R", ndim=2)
        if R.shape != self.W.shape:
            raise ValueError(f"`R` must have the head's shape {self.W.shape}; got {R.shape}")
        return R

    def flat_point(self, w, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(W_t, beta_t, dbeta/dt)`` on the exact flat curve (LayerNorm only).

        Raises
        ------
        ValueError
            On an RMSNorm head (no ``beta`` to compensate with), or at the pole
            ``1 + t <v*, w> = 0``.
        """
        if self.kind != "layernorm":
            raise ValueError(
                "`kind` must be 'layernorm' for the flat curve (it compensates through the "
                f"norm's beta, which an RMSNorm lacks); got {self.kind!r}"
            )
        w, t = self._w(w), check_real(t, "t")
        v, c = self.vstar, self.c
        den = 1.0 + t * (v @ w)
        if den == 0:
            raise ValueError(f"`t` must avoid the pole 1 + t <v*, w> = 0; got t = {t:g}")
        Wt = self.W + t * np.outer(self.W @ w, v)
        return Wt, self.beta - t * c * w / den, -c * w / den**2

    # -- evaluation --------------------------------------------------------------------
    def _rows(self):
        N = self.h.shape[0]
        for s in range(0, N, self.chunk):
            yield slice(s, min(s + self.chunk, N))

    @cached_property
    def _base(self) -> list:
        """Per chunk: (rows, y_0, log p_0, targets), computed once (O(N V) memory)."""
        out = []
        for rows in self._rows():
            y0 = self.y(rows)
            z0 = y0 @ self.W.T  # (n, V)
            zm = z0.max(axis=1, keepdims=True)
            logp0 = z0 - zm - np.log(np.exp(z0 - zm).sum(axis=1, keepdims=True))
            out.append((rows, y0, logp0, np.asarray(self.targets[rows])))
        return out

    @staticmethod
    def _stats(z, dz, logp0, tg) -> tuple[float, float, float]:
        """Sums over the rows: NLL, Var_p(dz), KL(p0 || p)."""
        zmax = z.max(axis=1, keepdims=True)
        logp = z - zmax - np.log(np.exp(z - zmax).sum(axis=1, keepdims=True))  # (n, V)
        p = np.exp(logp)
        nll = -logp[np.arange(z.shape[0]), tg].sum()
        m = np.sum(p * dz, axis=1, keepdims=True)
        var = np.sum(p * (dz - m) ** 2)
        kl = np.sum(np.exp(logp0) * (logp0 - logp))
        return float(nll), float(var), float(kl)

    def walk(self, curve: str, ts, *, w=None, R=None) -> WalkPoint:
        """NLL, Fisher and KL at every ``t`` of ``curve`` (one of :data:`CURVES`).

        ``w`` (d,) sets the flat and uncompensated curves, ``R`` (V, d) the line and square.

        Examples
        --------
        >>> hw = toy_head_walk(rng=0)
        >>> ts = [0.1, 1.0, 10.0]
        >>> w = np.random.default_rng(1).standard_normal(hw.W.shape[1])
        >>> flat = hw.walk("flat", ts, w=w)
        >>> bool(np.max(np.abs(flat.nll - hw.walk("flat", [0.0], w=w).nll)) < 1e-12)
        True
        >>> bool(np.all(flat.fisher < 1e-25))
        True
        >>> off = hw.walk("uncompensated", ts, w=w)
        >>> bool(np.all(np.abs(off.nll - flat.nll) > 1e-6))
        True
        """
        curve = check_choice(curve, "curve", CURVES)
        ts = _check_ts(ts)
        if curve in ("flat", "uncompensated"):
            if w is None:
                raise ValueError(f"`w` must be given for the {curve!r} curve; got None")
            if R is not None:
                raise TypeError(f"`R` must be None for the {curve!r} curve (it uses `w`)")
            w = self._w(w)
        else:
            if w is not None:
                raise TypeError(f"`w` must be None for the {curve!r} curve (it uses `R`)")
            if R is None:
                raise ValueError(f"`R` must be given for the {curve!r} curve; got None")
            R = self._R(R)
        N, T = self.h.shape[0], ts.size
        nll, fis, kl = np.zeros(T), np.zeros(T), np.zeros(T)
        v = self.vstar
        Ww = None if w is None else self.W @ w  # (V,)

        def add(i, z, dz, logp0, tg):
            a, b_, c_ = self._stats(z, dz, logp0, tg)
            nll[i] += a
            fis[i] += b_
            kl[i] += c_

        if curve in ("flat", "uncompensated"):  # W_t made once per t, every chunk reads it
            for i, t in enumerate(ts):
                if curve == "flat":
                    Wt, bt, dbt = self.flat_point(w, t)
                else:
                    Wt = self.W + t * np.outer(Ww, v)
                for rows, y0, logp0, tg in self._base:
                    yt = self.y(rows, beta=bt) if curve == "flat" else y0
                    dz = np.outer(yt @ v, Ww)  # (n, V) dW/dt y_t
                    if curve == "flat":
                        dz = dz + (Wt @ dbt)[None, :]  # + W_t dbeta/dt
                    add(i, yt @ Wt.T, dz, logp0, tg)
        else:  # lines: z_t = z_0 + t R y (or t^2), one product R y per chunk
            for _, y0, logp0, tg in self._base:
                D = y0 @ R.T  # (n, V) logit change per unit t
                z0 = y0 @ self.W.T
                for i, t in enumerate(ts):
                    if curve == "line":
                        add(i, z0 + t * D, D, logp0, tg)
                    else:  # square: W + t^2 R
                        add(i, z0 + t**2 * D, 2 * t * D, logp0, tg)
        return WalkPoint(ts, nll / N, fis / N, kl / N)

    def kfac_vs_fisher(self, u, a) -> dict:
        """K-FAC against the true Fisher along the rank-one ``dW = u a^T`` at ``t = 0``.

        K-FAC: ``(a^T A a)(u^T G u)`` with ``A`` the centred covariance or the uncentred
        second moment of ``y`` and ``G = E_x[diag p - p p^T]`` (so ``u^T G u = E_x
        Var_p(u)``, no (V, V) matrix formed); true: ``E_x[(a^T y)^2 Var_p(u)]``.

        Examples
        --------
        >>> hw = toy_head_walk(rng=0)
        >>> u = np.random.default_rng(2).standard_normal(hw.W.shape[0])
        >>> out = hw.kfac_vs_fisher(u, hw.vstar)
        >>> bool(out["kfac_centred"] < 1e-25), bool(np.isclose(out["kfac_uncentred"], out["true"]))
        (True, True)
        """
        V, d = self.W.shape
        u = check_finite_array(u, "u", ndim=1)
        a = check_finite_array(a, "a", ndim=1)
        if u.shape != (V,) or a.shape != (d,):
            raise ValueError(f"`u` and `a` must have lengths V = {V} and d = {d}")
        reads, var_u = [], []
        for rows in self._rows():
            y = self.y(rows)
            reads.append(y @ a)  # (n,) reads a^T y
            p = softmax(y @ self.W.T)
            var_u.append(p @ (u * u) - (p @ u) ** 2)  # (n,) Var_p(u)
        r, vu = np.concatenate(reads), np.concatenate(var_u)
        read_var = float(np.mean((r - r.mean()) ** 2))  # two-pass: c^2 - c^2 cancels badly
        G = float(vu.mean())
        return {
            "kfac_centred": read_var * G,
            "kfac_uncentred": float(np.mean(r * r)) * G,
            "true": float(np.mean(r * r * vu)),
            "read_mean": float(r.mean()),
            "read_var": read_var,
        }


def toy_head_walk(
    V: int = 30, d: int = 12, n: int = 200, *, kind: str = "layernorm", rng=None
) -> HeadWalk:
    """A small random :class:`HeadWalk` (tests, doctests, the chapter's exercises):
    log-normal gamma with random signs, ``beta ~ N(0, 1)`` (zeros for RMSNorm), Gaussian
    states with an offset, a ``N(0, 1/d)`` head and targets drawn from the head's own
    predictions (so the NLL is that of a calibrated model).
    """
    from companion._validate import as_generator
    from companion.theory.ln_kernel import sample_gamma

    V, d, n = check_int(V, "V", low=2), check_int(d, "d", low=2), check_int(n, "n", low=1)
    check_sizes({"V": V, "d": d, "n": n}, elements=V * d + d * d + 3 * n * (d + V),
                ops=n * d * (d + V), what=f"{n} states, a {V} x {d} head")  # fmt: skip
    kind = check_choice(kind, "kind", ("layernorm", "rmsnorm"))
    g = as_generator(rng)
    gamma = sample_gamma(d, 0.5, signs=True, rng=g)
    beta = g.standard_normal(d) if kind == "layernorm" else np.zeros(d)
    W = 2 * g.standard_normal((V, d)) / np.sqrt(d)
    h = g.standard_normal((n, d)) @ (np.eye(d) + g.standard_normal((d, d)) / np.sqrt(d))
    h = h + g.standard_normal(d)
    y = layernorm(h, gamma, beta, 1e-5) if kind == "layernorm" else rmsnorm(h, gamma, 1e-5)
    p = softmax(y @ W.T)
    targets = np.array([g.choice(V, p=row) for row in p])
    return HeadWalk(h, targets, W, gamma, beta, 1e-5, kind)
