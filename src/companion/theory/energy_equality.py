"""Proposition 1 of Dong (2026): energy equality and single-layer radial fractions.

* (a) For any ``Delta W`` (m x n) and x uniform on S^{n-1},
  ``E ||Delta W x||^2 = ||Delta W||_F^2 / n``.
* (b) One linear layer z = W x: a sign flip at rate p has radial fraction
  ``R -> p + (1 - p)/m``; independent noise has ``R = 1/m`` exactly.
* (c) One layer + RMSNorm: ``T_noise / T_sign -> 1/(1 - p)`` -- the *opposite* ordering
  to Theorem 3.
* (d) Two layers with ReLU: the hidden radial fraction tends to ``p`` for sign flips
  and to ``2/pi`` for the constant-delta magnitude perturbation (Bussgang alignment;
  exact-kernel values in :mod:`companion.theory.transverse_ratio`).

Shown in {prf:ref}`thm-energy-equality`. Perturbations come from
:mod:`companion.theory.perturbations` (``sign_flip_delta``, ``magnitude_delta``,
``independent_noise_delta``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion._validate import (
    as_generator,
    check_choice,
    check_int,
    check_matrix,
    check_probability,
    check_real,
)
from companion.stats import MCEstimate, mean_estimate, ratio_estimate
from companion.theory.budget import check_sizes
from companion.theory.perturbations import (
    gaussian_weights,
    independent_noise_delta,
    magnitude_delta,
    sign_flip_delta,
    sphere_inputs,
)

__all__ = [
    "SingleLayerResult",
    "energy_equality",
    "simulate_energy_equality",
    "simulate_single_layer",
    "single_layer_radial_fraction",
    "single_layer_transverse_ratio",
]


def energy_equality(delta_W) -> float:
    """``E_x ||Delta W x||^2 = ||Delta W||_F^2 / n`` for x uniform on S^{n-1} (Proposition 1a).

    Dong (2026), Proposition 1; shown in {prf:ref}`thm-energy-equality`. The proof is
    one line: ``E[x x^T] = I/n``.

    Examples
    --------
    >>> energy_equality(np.eye(4))
    1.0
    """
    dW = check_matrix(delta_W, "delta_W")
    return float(np.sum(dW * dW) / dW.shape[1])


def simulate_energy_equality(delta_W, *, samples: int = 4000, rng=None) -> MCEstimate:
    """Monte Carlo ``E ||Delta W x||^2`` over x uniform on the sphere (cf. :func:`energy_equality`).

    Examples
    --------
    >>> dW = np.diag([1.0, 2.0, 3.0])
    >>> simulate_energy_equality(dW, samples=20000, rng=0).agrees_with(energy_equality(dW))
    True
    """
    dW = check_matrix(delta_W, "delta_W")
    samples = check_int(samples, "samples", low=2)
    if dW.shape[1] < 2:
        raise ValueError(f"`delta_W` must have at least 2 columns (n >= 2); got shape {dW.shape}")
    m, n = dW.shape
    check_sizes({"samples": samples}, elements=samples * (n + m), ops=samples * n * m,
                what=f"{samples} inputs x {n} + {m} outputs")  # fmt: skip
    x = sphere_inputs(samples, dW.shape[1], rng=rng)  # (samples, n)
    dz = x @ dW.T  # (samples, m)
    return mean_estimate(np.sum(dz * dz, axis=1))


def single_layer_radial_fraction(p: float = 0.0, m: int | None = None, kind: str = "sign") -> float:
    """Expected radial fraction of ``Delta z = Delta W x`` relative to ``z = W x`` (one layer).

    ``kind="sign"``: ``p + (1 - p)/m`` (``p`` when ``m`` is None) minus the small
    mean-of-ratio term ``2 lam (m - 1)/(lam + m)^3``, ``lam = p m/(1 - p)``; ``kind="noise"``:
    ``1/m`` (exact: the noise is isotropic and independent of z); ``kind="magnitude"``:
    the constant-delta perturbation, ``2/pi`` in the limit (Bussgang alignment; the
    same ``+ (1 - R)/m`` offset at finite m).

    Dong (2026), Proposition 1(b); shown in {prf:ref}`thm-energy-equality`. The
    ``(1 - R)/m`` offsets are our re-derivation (the part of ``Delta z`` uncorrelated
    with z is isotropic, and an isotropic vector has ``cos^2 = 1/m`` with z on average).

    Examples
    --------
    >>> single_layer_radial_fraction(0.05)
    0.05
    >>> round(single_layer_radial_fraction(0.05, m=100), 4)
    0.0586
    >>> single_layer_radial_fraction(kind="noise", m=100)
    0.01
    """
    check_choice(kind, "kind", ("sign", "noise", "magnitude"))
    p = check_probability(p)
    inv_m = 0.0 if m is None else 1.0 / check_int(m, "m", low=2)
    if kind == "noise":
        if m is None:
            return 0.0
        return inv_m
    r = p if kind == "sign" else 2.0 / np.pi
    if m is None:
        return float(r)
    # Delta z = a z + e with e isotropic: R = X / (X + Y), X ~ noncentral chi^2_1 (lam),
    # Y ~ chi^2_{m-1};
    # mean of the ratio to second order (the per-sample average the author's script takes)
    lam = r * m / (1.0 - r) if r < 1 else np.inf
    jensen = 0.0 if not np.isfinite(lam) else 2.0 * lam * (m - 1) / (lam + m) ** 3
    return float(r + (1.0 - r) * inv_m - jensen)


def single_layer_transverse_ratio(p: float) -> float:
    """``T_noise / T_sign -> 1/(1 - p)`` for one linear layer followed by RMSNorm.

    Both perturbations inject the same energy (Proposition 1a), so the ratio of the
    transverse energies is ``(1 - R_noise)/(1 - R_sign) = (1 - 1/m)/((1 - p)(1 - 1/m))``,
    and the ``1/m`` terms cancel. Independent magnitude noise is slightly *more*
    harmful here: the opposite ordering to Theorem 3. (The author's script writes
    ``(1 - 1/m)/(1 - p)``, which drops the sign flip's own ``1/m`` offset.)

    Dong (2026), Proposition 1(c); shown in {prf:ref}`thm-energy-equality`.

    Examples
    --------
    >>> round(single_layer_transverse_ratio(0.1), 6)
    1.111111
    """
    p = check_real(p, "p", low=0.0, high=1.0, high_open=True)
    return 1.0 / (1.0 - p)


@dataclass(frozen=True)
class SingleLayerResult:
    """Simulated single-layer quantities (Proposition 1b-c); every field an MCEstimate.

    ``R_sign``, ``R_noise``, ``R_magnitude`` are means of per-sample radial fractions
    (the author's Proposition 1 script averages per-sample ratios); ``T_ratio`` is the
    ratio of sums ``sum T_noise / sum T_sign`` (units: weight draws); ``energy_ratio`` is
    ``sum ||Delta z_sign||^2 / sum ||Delta z_noise||^2`` (1 by Proposition 1a).
    """

    p: float
    n: int
    m: int
    R_sign: MCEstimate
    R_noise: MCEstimate
    R_magnitude: MCEstimate
    T_ratio: MCEstimate
    energy_ratio: MCEstimate


def simulate_single_layer(
    p: float, n: int, m: int | None = None, *, samples: int = 500, seeds: int = 8, rng=None
) -> SingleLayerResult:
    """Simulate one linear layer ``z = W x`` under the three Frobenius-matched perturbations.

    Each of ``seeds`` independent draws has its own W (N(0, 1/n)), its own flip mask
    and ``samples`` sphere inputs; the noise and magnitude perturbations are rescaled to
    the flip's Frobenius norm for that draw.

    Examples
    --------
    >>> r = simulate_single_layer(0.1, 64, samples=200, seeds=4, rng=0)
    >>> r.R_noise.agrees_with(1 / 64)
    True
    """
    p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    n = check_int(n, "n", low=2)
    m = n if m is None else check_int(m, "m", low=2)
    samples = check_int(samples, "samples", low=2)
    seeds = check_int(seeds, "seeds", low=2)
    check_sizes({"n": n, "m": m, "samples": samples, "seeds": seeds},
                elements=4 * m * n + samples * (n + 4 * m), ops=seeds * samples * n * m * 4,
                what=f"{seeds} seeds of {samples} inputs through a {m} x {n} layer")  # fmt: skip
    g = as_generator(rng)
    rs, rn, rm, ts, tn, es, en = ([] for _ in range(7))
    for _ in range(seeds):
        W = gaussian_weights(m, n, rng=g)  # (m, n)
        ds = sign_flip_delta(W, p, rng=g)  # (m, n)
        norm = float(np.linalg.norm(ds))
        dn = independent_noise_delta(W, norm, rng=g)  # (m, n)
        dm = magnitude_delta(W, norm)  # (m, n)
        x = sphere_inputs(samples, n, rng=g)  # (samples, n)
        z = x @ W.T  # (samples, m)
        zz = np.sum(z * z, axis=1)
        out = []
        for d in (ds, dn, dm):
            dz = x @ d.T  # (samples, m)
            e = np.sum(dz * dz, axis=1)
            r = np.divide(np.sum(z * dz, axis=1) ** 2, zz * e, out=np.zeros_like(e), where=e > 0)
            out.append((r, e))
        (r_s, e_s), (r_n, e_n), (r_m, _) = out
        rs.append(r_s.mean())
        rn.append(r_n.mean())
        rm.append(r_m.mean())
        ts.append(np.sum((1 - r_s) * e_s))
        tn.append(np.sum((1 - r_n) * e_n))
        es.append(e_s.sum())
        en.append(e_n.sum())
    if not any(es):  # no weight flipped in any draw: every ratio is 0/0
        raise ValueError(
            f"`p` must flip at least one weight in some draw; got p = {p:g}, which flipped "
            f"none of the {m} x {n} weights in {seeds} draws"
        )
    return SingleLayerResult(
        p=p,
        n=n,
        m=m,
        R_sign=mean_estimate(rs),
        R_noise=mean_estimate(rn),
        R_magnitude=mean_estimate(rm),
        T_ratio=ratio_estimate(tn, ts),
        energy_ratio=ratio_estimate(es, en),
    )
