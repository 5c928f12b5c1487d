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
(:data:`AUTHOR_TABLE3`). Shown in {prf:ref}`thm-multilayer`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

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
from companion.stats import MCEstimate, ratio_estimate
from companion.theory.perturbations import (
    gaussian_weights,
    magnitude_delta,
    sign_flip_delta,
    sign_flip_mask,
    sphere_inputs,
    transverse_energy,
)
from companion.theory.transverse_ratio import branch_moments, post_norm_inflation

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

#: The two chains of the author's multi-layer test.
VARIANTS = ("V2", "V3")
#: Activations of the test.
ACTIVATIONS = ("relu", "silu")
#: Which layers are perturbed: every layer (the author's default) or only W_1 (their control).
PERTURB_MODES = ("all", "first")
#: Where the transverse energy is read: the finite difference of the unit-normalised vector
#: ("normalised"), or the first-order (Frechet) reading on the pre-norm vector ("prenorm").
READOUTS = ("normalised", "prenorm")
#: The conjectured per-layer factor pi/(pi-2) (Theorem 3's limit).
COMPOUNDING_BASE = float(np.pi / (np.pi - 2))

_BATCH = 2000  # sphere samples per forward pass (bounds memory at m = 2048)


# ---------------------------------------------------------------------------------------------
# The author's stored numbers (labelled as theirs; never recomputed here)
# ---------------------------------------------------------------------------------------------

#: The author's stored C_L, L = 1..6 (mean over 20 seeds of the per-seed ratio; 10,000 sphere
#: samples), keyed by ``(variant, activation, m, p)``. Source: donglei628/sign-magnitude-pre-norm,
#: ``results/exp5_multilayer_toy.json`` (V2) and ``results/exp5_multilayer_toy_residual.json``
#: (V3), commit 5bc6a83; the m = 2048 ReLU rows are the spec's section 4.4 table (Figure 2).
AUTHOR_TABLE3 = {
    ("V2", "relu", 512, 0.01): (3.5954, 3.4750, 3.3881, 3.2951, 3.1398, 3.0485),
    ("V2", "relu", 512, 0.02): (3.9769, 3.7653, 3.5680, 3.3989, 3.1622, 3.0164),
    ("V2", "relu", 512, 0.05): (4.7123, 4.1994, 3.7834, 3.4877, 3.1568, 2.9318),
    ("V2", "silu", 512, 0.01): (3.6926, 3.6315, 3.5907, 3.5386, 3.4897, 3.4341),
    ("V2", "silu", 512, 0.02): (4.1160, 3.9855, 3.8715, 3.7581, 3.6536, 3.5405),
    ("V2", "silu", 512, 0.05): (4.9675, 4.5824, 4.2436, 3.9394, 3.6661, 3.4181),
    ("V3", "relu", 512, 0.01): (1.2106, 1.2538, 1.3228, 1.3952, 1.4657, 1.5309),
    ("V3", "relu", 512, 0.02): (1.1905, 1.2147, 1.2692, 1.3374, 1.4054, 1.4671),
    ("V3", "relu", 512, 0.05): (1.1430, 1.1291, 1.1613, 1.2158, 1.2702, 1.3257),
    ("V3", "silu", 512, 0.01): (1.1389, 1.2249, 1.2934, 1.3481, 1.3944, 1.4349),
    ("V3", "silu", 512, 0.02): (1.1361, 1.2105, 1.2712, 1.3183, 1.3574, 1.3919),
    ("V3", "silu", 512, 0.05): (1.1279, 1.1779, 1.2194, 1.2505, 1.2758, 1.2979),
    ("V2", "relu", 2048, 0.01): (3.617, 3.494, 3.351, 3.250, 3.141, 3.061),
    ("V2", "relu", 2048, 0.02): (3.994, 3.772, 3.535, 3.362, 3.200, 3.070),
    ("V2", "relu", 2048, 0.05): (4.734, 4.211, 3.764, 3.437, 3.179, 2.999),
    ("V3", "relu", 2048, 0.01): (1.220, 1.265, 1.335, 1.405, 1.472, 1.535),
    ("V3", "relu", 2048, 0.02): (1.198, 1.223, 1.282, 1.346, 1.411, 1.471),
    ("V3", "relu", 2048, 0.05): (1.148, 1.137, 1.177, 1.226, 1.284, 1.340),
}

#: The author's stored fits at m = 512 (same files): ``(beta_origin, R2_origin, beta_free)``.
AUTHOR_BETA_FITS = {
    ("V2", "relu", 512, 0.01): (0.2672, 0.7693, -0.0327),
    ("V2", "relu", 512, 0.02): (0.2727, 0.7440, -0.0552),
    ("V2", "relu", 512, 0.05): (0.2780, 0.7017, -0.0934),
    ("V2", "silu", 512, 0.01): (0.2869, 0.7924, -0.0140),
    ("V2", "silu", 512, 0.02): (0.2996, 0.7769, -0.0295),
    ("V2", "silu", 512, 0.05): (0.3076, 0.7321, -0.0737),
    ("V3", "relu", 512, 0.01): (0.0790, 0.9641, 0.0479),
    ("V3", "relu", 512, 0.02): (0.0699, 0.9658, 0.0433),
    ("V3", "relu", 512, 0.05): (0.0488, 0.9657, 0.0322),
    ("V3", "silu", 512, 0.01): (0.0687, 0.9694, 0.0448),
    ("V3", "silu", 512, 0.02): (0.0635, 0.9646, 0.0394),
    ("V3", "silu", 512, 0.05): (0.0512, 0.9490, 0.0273),
}


def author_table3(variant: str, activation: str = "relu", m: int = 512, p: float = 0.01):
    """The author's stored C_1..C_6 for one setting, or ``None`` where none is stored.

    Examples
    --------
    >>> author_table3("V2", "relu", 2048, 0.01)[0]
    3.617
    >>> author_table3("V3", "relu", 256, 0.01) is None
    True
    """
    check_choice(variant, "variant", VARIANTS)
    check_choice(activation, "activation", ACTIVATIONS)
    m = check_int(m, "m", low=2)
    p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    return AUTHOR_TABLE3.get((variant, activation, m, round(p, 6)))


def author_readout(variant: str) -> str:
    """The readout the author used: V2 on normalised outputs, V3 on the pre-norm stream.

    Examples
    --------
    >>> author_readout("V2"), author_readout("V3")
    ('normalised', 'prenorm')
    """
    return {"V2": "normalised", "V3": "prenorm"}[check_choice(variant, "variant", VARIANTS)]


# ---------------------------------------------------------------------------------------------
# Closed forms (our reconstruction)
# ---------------------------------------------------------------------------------------------


def compounding_prediction(depth, beta: float = 1.0):
    """The conjecture's C_L = (pi/(pi-2))^(beta L).

    With beta = 1 it predicts C_2 = 7.57 and C_6 = 434. Shown in {prf:ref}`thm-multilayer`.

    Examples
    --------
    >>> round(float(compounding_prediction(2)), 2), round(float(compounding_prediction(6)), 1)
    (7.57, 434.3)
    """
    L = check_finite_array(depth, "depth")
    if np.any(L < 0):
        raise ValueError(f"`depth` must be >= 0; got {float(L.min()):g}")
    beta = check_real(beta, "beta")
    out = COMPOUNDING_BASE ** (beta * L)
    return out if out.ndim else out[()]


def _branch_moments(activation: str, p: float):
    """(E_sign, R_sign, E_mag, R_mag) of one perturbed layer at infinite width.

    E = E(Delta a)^2 per unit (same scale for both branches) and R = the radial fraction of
    Delta a relative to a. ReLU: exact through the arc-cosine kernel (Theorem 3's
    :func:`~companion.theory.transverse_ratio.branch_moments`). SiLU: its linear regime
    (pre-activations are O(1/sqrt(m)) in these chains, where silu(z) = z/2 + O(z^2)), so a sign
    flip has R = p, the magnitude perturbation R = 2/pi, and both inject the same energy
    (Proposition 1's energy equality).
    """
    if activation == "silu":
        return 4 * p, p, 4 * p, 2 / np.pi
    b = branch_moments(p)
    return b.E_sign, b.R_sign, b.E_mag, b.R_mag


def first_layer_ratio(
    variant: str, activation: str, p: float, *, readout: str | None = None
) -> float:
    """Infinite-width C_1 of a chain: the first layer's transverse-energy ratio, by readout.

    With clean-branch energy fraction phi = E||a||^2 / E||y_1||^2 (1 for V2; 1/3 for V3 with
    ReLU, 1/5 with SiLU, because the skip carries a unit vector and ||a||^2 = 1/2 or 1/4),

        C_1 = (1 - phi R_sign) E_sign / ((1 - phi R_mag) E_mag)   (pre-norm / first order),

    times :func:`~companion.theory.transverse_ratio.post_norm_inflation` (V2) or
    (1 + phi' r)/(1 + phi') with
    r = sigma'^2/sigma^2 (V3) for the normalised finite difference. With V2 and ReLU the
    first-order value is Theorem 3's exact-kernel ratio c_exact(p) (2.668 at p = 0.01), and
    the author's normalised reading is c_exact(p) x 1.359 = 3.627. SiLU is taken in its linear
    regime (error O(1/sqrt(m))). Our reconstruction; shown in {prf:ref}`thm-multilayer`.

    Examples
    --------
    >>> round(first_layer_ratio("V2", "relu", 0.01, readout="prenorm"), 4)
    2.6683
    >>> round(first_layer_ratio("V2", "relu", 0.01), 3)     # the author's readout
    3.627
    >>> round(first_layer_ratio("V3", "relu", 0.01), 3)
    1.223
    """
    variant = check_choice(variant, "variant", VARIANTS)
    activation = check_choice(activation, "activation", ACTIVATIONS)
    p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    readout = (
        author_readout(variant) if readout is None else check_choice(readout, "readout", READOUTS)
    )
    e_s, r_s, e_m, r_m = _branch_moments(activation, p)
    clean = 0.5 if activation == "relu" else 0.25  # E||a||^2 for a unit input, N(0, 1/m) weights
    phi = 1.0 if variant == "V2" else clean / (1 + clean)
    c = (1 - phi * r_s) * e_s / ((1 - phi * r_m) * e_m)
    if readout == "prenorm":
        return float(c)
    r = float(post_norm_inflation(p))  # sigma'^2 / sigma^2 of the magnitude branch
    if variant == "V2":
        return float(c * r)
    return float(c * (1 + clean * r) / (1 + clean))


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


@dataclass(frozen=True, eq=False)
class ChainResult:
    """Per-depth sign/magnitude transverse-energy ratios of one chain setting.

    ``t_sign[readout]`` and ``t_mag[readout]`` are (seeds, depth) arrays of transverse energies
    summed over the sphere samples of each seed; a seed (weights, masks, inputs) is the
    independent unit, so each C_L is a ratio of sums with a delta-method SE over seeds.
    """

    variant: str
    activation: str
    p: float
    m: int
    samples: int
    seeds: int
    perturb: str
    readout: str
    t_sign: dict = field(repr=False)
    t_mag: dict = field(repr=False)

    @property
    def depths(self) -> np.ndarray:
        """1, 2, ..., L."""
        return np.arange(1, self.t_sign[self.readout].shape[1] + 1)

    def ratios(self, readout: str | None = None) -> tuple:
        """C_L for every depth (MCEstimate), for ``readout`` (default: this result's)."""
        r = self.readout if readout is None else check_choice(readout, "readout", READOUTS)
        s, g = self.t_sign[r], self.t_mag[r]
        return tuple(ratio_estimate(s[:, i], g[:, i]) for i in range(s.shape[1]))

    @property
    def ratio(self) -> tuple:
        """C_L for every depth in this result's readout."""
        return self.ratios()

    def upto(self, depth: int) -> ChainResult:
        """The same result restricted to depths 1..``depth`` (layers beyond it are dropped)."""
        depth = check_int(depth, "depth", low=1, high=self.t_sign[self.readout].shape[1])
        cut = {
            k: {r: a[:, :depth] for r, a in d.items()}
            for k, d in (("s", self.t_sign), ("m", self.t_mag))
        }
        return ChainResult(
            self.variant,
            self.activation,
            self.p,
            self.m,
            self.samples,
            self.seeds,
            self.perturb,
            self.readout,
            cut["s"],
            cut["m"],
        )

    def energies(self, readout: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Mean transverse energy per sample at each depth: ``(sign, magnitude)``, each (depth,)."""
        r = self.readout if readout is None else check_choice(readout, "readout", READOUTS)
        total = self.seeds * self.samples
        return self.t_sign[r].sum(axis=0) / total, self.t_mag[r].sum(axis=0) / total

    @property
    def values(self) -> np.ndarray:
        """C_L values (this result's readout), shape (depth,)."""
        return np.array([e.value for e in self.ratio])

    @property
    def stderrs(self) -> np.ndarray:
        """Their standard errors over seeds, shape (depth,)."""
        return np.array([e.stderr for e in self.ratio])


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
    from companion._validate import check_memory  # energies per (seed, depth); 3 chains' inputs

    need = {"depth": 32.0 * seeds * depth, "samples": 12.0 * samples * m, "m": 8.0 * m * m}
    big = max(need, key=need.get)
    check_memory(
        sum(need.values()),
        big,
        {"depth": depth, "samples": samples, "m": m}[big],
        what=f"{seeds} seeds x {depth} depths of energies, {samples} x {m} inputs",
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
