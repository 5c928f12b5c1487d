"""The compounding conjecture of Dong (2026, §4.4) before any simulation: the chains'
settings, the author's stored numbers (labelled as theirs, never recomputed), the closed
forms (our reconstruction: :func:`compounding_prediction`, :func:`first_layer_ratio`) and
:class:`ChainResult`, the per-depth record a simulated chain returns
(:func:`companion.theory.multilayer.simulate_chain`). Shown in {prf:ref}`thm-multilayer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import check_choice, check_finite_array, check_int, check_real
from companion.stats import ratio_estimate
from companion.theory.transverse_closed_forms import branch_moments, post_norm_inflation

__all__ = [
    "ACTIVATIONS",
    "AUTHOR_BETA_FITS",
    "AUTHOR_TABLE3",
    "COMPOUNDING_BASE",
    "ChainResult",
    "PERTURB_MODES",
    "READOUTS",
    "VARIANTS",
    "author_readout",
    "author_table3",
    "compounding_prediction",
    "first_layer_ratio",
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
