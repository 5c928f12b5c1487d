"""Dong (2026), multi-layer test (the author's Table 3): does the 2.75x asymmetry compound?

The author conjectured ("theory section 6.8" in the code) that the sign/magnitude
transverse-energy ratio of an L-layer chain grows like

    C_L ~ (pi/(pi-2))^(beta L),   beta in (0, 1],

and then refuted it with two toy chains (``exp5_multilayer_toy.py``):

* **V2** (no residual): ``y_0 = x_hat``, ``a_l = act(W_l y_{l-1})``, ``y_l = a_l/||a_l||``;
* **V3** (pre-norm residual): ``y_l = y_{l-1} + act(W_l y_{l-1}/||y_{l-1}||)``.

Square ``W_l`` (m x m) with i.i.d. N(0, 1/m) entries; every layer perturbed independently
(sign flip at rate p, or the Frobenius-matched constant-delta magnitude perturbation);
ReLU or SiLU. The author measures V2 as a **finite difference of the normalised outputs**
(which inflates C_1 from ~2.7 to ~3.6, see
:func:`~companion.theory.transverse_ratio.post_norm_inflation`) and V3 on the
un-normalised residual stream. This module reruns both (:func:`simulate_chain`), fits the
conjecture (:func:`fit_compounding`), gives infinite-width closed forms for the first layer
(:func:`first_layer_ratio`, our reconstruction) and holds the author's stored numbers
(:data:`AUTHOR_TABLE3`). Shown in {prf:ref}`thm-multilayer`. The settings, the author's
numbers, the closed forms and :class:`ChainResult` live in :mod:`.compounding` and are
re-exported here; this module simulates and fits.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from companion._validate import (
    as_generator,
    check_choice,
    check_finite_array,
    check_int,
    check_matrix,
    check_real,
)
from companion.stats import MCEstimate
from companion.theory.budget import check_sizes
from companion.theory.compounding import (
    ACTIVATIONS,
    AUTHOR_BETA_FITS,
    AUTHOR_TABLE3,
    COMPOUNDING_BASE,
    PERTURB_MODES,
    READOUTS,
    VARIANTS,
    ChainResult,
    author_readout,
    author_table3,
    compounding_prediction,
    first_layer_ratio,
)
from companion.theory.perturbations import (
    gaussian_weights,
    magnitude_delta,
    sign_flip_delta,
    sign_flip_mask,
    sphere_inputs,
    transverse_energy,
)

__all__ = [
    "ACTIVATIONS",
    "AUTHOR_BETA_FITS",
    "AUTHOR_TABLE3",
    "COMPOUNDING_BASE",
    "PERTURB_MODES",
    "READOUTS",
    "VARIANTS",
    "ChainResult",
    "CompoundingFit",
    "author_readout",
    "author_table3",
    "compounding_prediction",
    "first_layer_ratio",
    "fit_compounding",
    "inject_compounding",
    "simulate_chain",
]

_BATCH = 2000  # sphere samples per forward pass (bounds memory at m = 2048)


# ---------------------------------------------------------------------------------------------
# Simulation
# ---------------------------------------------------------------------------------------------


def _act(z, activation):
    return np.maximum(z, 0) if activation == "relu" else z * expit(z)


def _unit(v):
    nrm = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.maximum(nrm, 1e-30)


def _forward(X, Ws, variant, activation):
    """Pre-norm and normalised states of every layer: two lists of (batch, m) arrays."""
    pre, post = [], []
    y = X  # (batch, m)
    for W in Ws:
        if variant == "V2":
            a = _act(y @ W.T, activation)  # (batch, m) pre-norm
            y = _unit(a)
            pre.append(a)
            post.append(y)
        else:
            y = y + _act(_unit(y) @ W.T, activation)  # (batch, m) residual stream
            pre.append(y)
            post.append(_unit(y))
    return pre, post


def simulate_chain(
    variant: str,
    activation: str,
    p: float,
    m: int,
    depth: int,
    *,
    samples: int = 1000,
    seeds: int = 4,
    perturb: str = "all",
    readout: str | None = None,
    weights=None,
    rng=None,
) -> ChainResult:
    """Sign/magnitude transverse-energy ratio C_L at every depth L = 1..depth of a toy chain.

    Dong (2026), multi-layer test (Table 3), with the author's protocol: per seed, fresh
    ``W_l`` (m x m, N(0, 1/m)), a Bernoulli(p) flip mask per layer, the constant-delta magnitude
    perturbation matched per layer to the flip's Frobenius norm, and ``samples`` inputs uniform
    on S^{m-1}. C_L = sum T_sign / sum T_mag (ratio of sums) with T the transverse energy at
    layer L in both readouts (:data:`READOUTS`), the clean, sign and magnitude chains sharing
    inputs. Forward passes run in float32; energies are summed in float64.
    Shown in {prf:ref}`thm-multilayer`.

    Parameters
    ----------
    variant : {"V2", "V3"}
        V2: normalise every layer, no residual. V3: pre-norm residual stream.
    activation : {"relu", "silu"}
    p : float
        Flip rate, in (0, 1].
    m : int
        Width (>= 2).
    depth : int
        Number of layers L (>= 1); every depth 1..L is reported.
    samples : int
        Sphere samples per seed.
    seeds : int
        Independent seeds (>= 2; the SE is taken over seeds).
    perturb : {"all", "first"}
        Perturb every layer (the author's default) or only W_1 (the author's control).
    readout : {"normalised", "prenorm"}, optional
        The reading returned by ``.ratio``; default :func:`author_readout` (both are stored).
    weights : sequence of array, optional
        ``depth`` fixed (m, m) matrices used in place of the Gaussian draws in every seed
        (the author's Exp B: trained MLP weights, rescaled by the caller); a seed then varies
        only the flip masks and the inputs.
    rng : None, int or Generator

    Returns
    -------
    ChainResult
        ``.ratio`` (one MCEstimate per depth), ``.ratios(readout)``, ``.values``, ``.stderrs``.

    Examples
    --------
    >>> res = simulate_chain("V2", "relu", 0.05, 64, 2, samples=200, seeds=3, rng=0)
    >>> res.depths.tolist(), len(res.ratio)
    ([1, 2], 2)
    >>> bool(res.ratio[0].value > res.ratios("prenorm")[0].value)   # finite-difference inflation
    True
    """
    variant = check_choice(variant, "variant", VARIANTS)
    activation = check_choice(activation, "activation", ACTIVATIONS)
    p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    m = check_int(m, "m", low=2)
    depth = check_int(depth, "depth", low=1)
    samples = check_int(samples, "samples", low=1)
    seeds = check_int(seeds, "seeds", low=2)
    check_sizes(  # energies per (seed, depth); 3 chains' inputs; a weight matrix per layer
        {"m": m, "depth": depth, "samples": samples, "seeds": seeds},
        elements=4.0 * seeds * depth + 1.5 * samples * m + m * m,
        ops=3.0 * seeds * depth * samples * m * m,
        what=f"{seeds} seeds x {depth} layers of {samples} x {m} activations",
    )
    perturb = check_choice(perturb, "perturb", PERTURB_MODES)
    readout = (
        author_readout(variant) if readout is None else check_choice(readout, "readout", READOUTS)
    )
    if weights is not None:
        if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
            raise TypeError(
                f"`weights` must be a sequence of {depth} matrices; got {type(weights).__name__}"
            )
        weights = [check_matrix(w, f"weights[{i}]") for i, w in enumerate(weights)]
        if len(weights) != depth or any(w.shape != (m, m) for w in weights):
            shapes = [w.shape for w in weights]
            raise ValueError(
                f"`weights` must be {depth} matrices of shape ({m}, {m}); got {shapes}"
            )
    t_sign = {r: np.zeros((seeds, depth)) for r in READOUTS}
    t_mag = {r: np.zeros((seeds, depth)) for r in READOUTS}
    flips = 0
    for s, g in enumerate(as_generator(rng).spawn(seeds)):
        Ws, Ws_sign, Ws_mag = [], [], []
        for layer in range(depth):
            W = gaussian_weights(m, m, rng=g) if weights is None else weights[layer]  # (m, m)
            if perturb == "all" or layer == 0:
                mask = sign_flip_mask(W.shape, p, rng=g)
                flips += int(mask.sum())
                d_sign = sign_flip_delta(W, mask=mask)
                d_mag = magnitude_delta(
                    W, float(np.linalg.norm(d_sign))
                )  # matched per layer, per draw
            else:
                d_sign = d_mag = 0.0
            Ws.append(W.astype(np.float32))
            Ws_sign.append((W + d_sign).astype(np.float32))
            Ws_mag.append((W + d_mag).astype(np.float32))
        for start in range(0, samples, _BATCH):
            X = sphere_inputs(
                min(_BATCH, samples - start), m, rng=g, dtype=np.float32
            )  # (batch, m)
            clean = _forward(X, Ws, variant, activation)
            for Wp, acc in ((Ws_sign, t_sign), (Ws_mag, t_mag)):
                pert = _forward(X, Wp, variant, activation)
                for r, i in (("prenorm", 0), ("normalised", 1)):
                    v = np.stack(clean[i]).astype(np.float64)  # (depth, batch, m)
                    dv = np.stack(pert[i]).astype(np.float64) - v  # (depth, batch, m)
                    acc[r][s] += transverse_energy(dv, v).sum(axis=1)
    if flips == 0:  # both chains unperturbed: every C_L is 0/0
        raise ValueError(
            f"`p` must flip at least one weight in some seed; got p = {p:g}, which flipped "
            f"none of the {m} x {m} weights per layer in {seeds} seeds"
        )
    return ChainResult(variant, activation, p, m, samples, seeds, perturb, readout, t_sign, t_mag)


def inject_compounding(result: ChainResult, beta: float) -> ChainResult:
    """``result`` with every sign-branch energy at depth L multiplied by
    (pi/(pi-2))^(beta (L - 1)): a chain that compounds at rate ``beta`` by construction.

    The negative control of the no-compounding claim: the same fit must flag it (ours).

    Examples
    --------
    >>> res = simulate_chain("V2", "relu", 0.05, 32, 3, samples=50, seeds=2, rng=0)
    >>> c = inject_compounding(res, 1.0).values / res.values
    >>> np.round(c / COMPOUNDING_BASE ** np.arange(3), 6).tolist()
    [1.0, 1.0, 1.0]
    """
    if not isinstance(result, ChainResult):
        raise TypeError(
            f"`result` must be a ChainResult (from simulate_chain); got {type(result).__name__}"
        )
    beta = check_real(beta, "beta")
    fac = COMPOUNDING_BASE ** (beta * np.arange(result.depths.size))  # (depth,)
    t_sign = {r: a * fac[None, :] for r, a in result.t_sign.items()}
    return dataclasses.replace(result, t_sign=t_sign)


# ---------------------------------------------------------------------------------------------
# Fitting the conjecture
# ---------------------------------------------------------------------------------------------


def _fit(depths, logc):
    """Through-origin beta, its uncentred R^2 (the author's), free slope beta, intercept, R^2."""
    b = np.log(COMPOUNDING_BASE)
    beta0 = float(np.sum(depths * logc) / (b * np.sum(depths**2)))
    ss_res = float(np.sum((logc - beta0 * b * depths) ** 2))
    ss_unc = float(np.sum(logc**2))
    r2_0 = 1 - ss_res / ss_unc if ss_unc > 0 else float("nan")
    slope, intercept = np.polyfit(depths, logc, 1)
    resid = logc - (slope * depths + intercept)
    ss_tot = float(np.sum((logc - logc.mean()) ** 2))
    r2_f = 1 - float(np.sum(resid**2)) / ss_tot if ss_tot > 0 else float("nan")
    return beta0, r2_0, float(slope / b), float(intercept), r2_f


@dataclass(frozen=True)
class CompoundingFit:
    """Fits of log C_L = beta L log(pi/(pi-2)): through the origin and with a free intercept.

    ``r2_origin`` is the uncentred R^2 the author reports (1 - SS_res / sum (log C_L)^2);
    ``r2_free`` the usual centred one. The ``*_se`` fields are jackknife SEs over seeds
    (``None`` when the fit was given bare values).
    """

    depths: np.ndarray
    values: np.ndarray
    beta_origin: float
    r2_origin: float
    beta_free: float
    intercept: float
    r2_free: float
    beta_origin_se: float | None = None
    beta_free_se: float | None = None
    seeds: int | None = None

    def predict(self, depth, kind: str = "free"):
        """Fitted C_L at ``depth``: ``kind="origin"`` (the conjecture's form) or ``"free"``."""
        check_choice(kind, "kind", ("origin", "free"))
        L = check_finite_array(depth, "depth")
        b = np.log(COMPOUNDING_BASE)
        return (
            np.exp(self.beta_origin * b * L)
            if kind == "origin"
            else np.exp(self.intercept + self.beta_free * b * L)
        )

    def estimate(self, kind: str = "free") -> MCEstimate:
        """beta as an MCEstimate (needs a fit from a :class:`ChainResult`)."""
        check_choice(kind, "kind", ("origin", "free"))
        se = self.beta_origin_se if kind == "origin" else self.beta_free_se
        if se is None:
            raise ValueError(
                "`fit` must come from a ChainResult to carry a standard error; got bare values"
            )
        return MCEstimate(
            self.beta_origin if kind == "origin" else self.beta_free, se, int(self.seeds)
        )


def fit_compounding(data, depths=None, *, readout: str | None = None) -> CompoundingFit:
    """Fit the compounding conjecture C_L ~ (pi/(pi-2))^(beta L) to measured ratios.

    The author's two fits (``fit_beta`` in ``exp5_multilayer_toy.py``): beta through the origin
    (the conjecture's form, with the uncentred R^2) and the free-intercept slope, which is the
    honest test of growth: the conjecture needs it near beta in (0, 1]; flat or falling C_L
    gives ~0 or negative. Given a :class:`ChainResult`, the SEs are jackknife over seeds.
    Shown in {prf:ref}`thm-multilayer`.

    Parameters
    ----------
    data : ChainResult or sequence of float
        Simulated ratios, or C_L values (e.g. :data:`AUTHOR_TABLE3`).
    depths : sequence of int, optional
        The depths of bare values (default 1, 2, ...).
    readout : str, optional
        Which readout of a ChainResult to fit (default its own).

    Examples
    --------
    >>> fit = fit_compounding(AUTHOR_TABLE3[("V2", "relu", 512, 0.01)])
    >>> round(fit.beta_origin, 4), round(fit.r2_origin, 4), round(fit.beta_free, 4)
    (0.2672, 0.7693, -0.0327)
    """
    if readout is not None:
        check_choice(readout, "readout", READOUTS)
    if isinstance(data, ChainResult):
        if depths is not None:
            raise TypeError(
                "`depths` must be None when `data` is a ChainResult (it has its own); "
                f"got {type(depths).__name__}"
            )
        r = data.readout if readout is None else readout
        s, g = data.t_sign[r], data.t_mag[r]  # (seeds, depth)
        L = np.arange(1, s.shape[1] + 1, dtype=np.float64)
        if L.size < 2:
            raise ValueError(f"`depth` must be >= 2 to fit a slope; got {L.size}")
        vals = s.sum(axis=0) / g.sum(axis=0)
        k = s.shape[0]
        jack = np.array([_fit(L, np.log((s.sum(0) - s[i]) / (g.sum(0) - g[i]))) for i in range(k)])
        se = np.sqrt((k - 1) / k * ((jack - jack.mean(axis=0)) ** 2).sum(axis=0))
        b0, r20, bf, ic, r2f = _fit(L, np.log(vals))
        return CompoundingFit(L, vals, b0, r20, bf, ic, r2f, float(se[0]), float(se[2]), k)
    if readout is not None:
        raise TypeError(f"`readout` must be None when `data` holds bare values; got {readout!r}")
    vals = check_finite_array(data, "data", ndim=1)
    if np.any(vals <= 0):
        raise ValueError(f"`data` must be positive; got {float(vals.min()):g}")
    L = (
        np.arange(1, vals.size + 1, dtype=np.float64)
        if depths is None
        else check_finite_array(depths, "depths", ndim=1)
    )
    if L.shape != vals.shape:
        raise ValueError(f"`depths` must have the length of `data` {vals.size}; got {L.size}")
    if L.size < 2:
        raise ValueError(f"`data` must hold at least 2 depths; got {L.size}")
    return CompoundingFit(L, vals, *_fit(L, np.log(vals)))
