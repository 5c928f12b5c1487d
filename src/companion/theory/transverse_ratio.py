"""Theorem 3 of Dong (2026): sign flips make pi/(pi-2) times more transverse energy.

Model (the spec's section 2): x uniform on S^{n-1}; W1 (m x n) i.i.d. N(0, 1/n);
h = ReLU(W1 x); W2 (d x m) i.i.d. N(0, 1/m); u = W2 h; y = RMSNorm(u). Only W1 is
perturbed: a sign flip at rate p (``sign_flip_delta``) against the constant-delta
magnitude perturbation ``magnitude_delta`` with the same Frobenius norm, matched per draw.

The asymmetry ratio is a ratio of sums of first-order (pre-norm) transverse energies,
``C = sum_x T(Delta u_sign; u) / sum_x T(Delta u_mag; u)``: RMSNorm's Jacobian keeps only
the transverse part and its scale ``d/||u||^2`` cancels ({prf:ref}`thm-rmsnorm-filter`).
Closed forms: the limit :func:`transverse_ratio_limit`, the author's finite-p formula
:func:`transverse_ratio_paper` and both branches through the exact arc-cosine kernel,
:func:`transverse_ratio_exact` (in :mod:`.transverse_closed_forms`, re-exported here); this
module simulates C. Shown in {prf:ref}`thm-theorem3`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import (
    as_generator,
    check_bool,
    check_int,
    check_real,
)
from companion.stats import MCEstimate, mean_estimate, ratio_difference_estimate, ratio_estimate
from companion.theory.budget import check_sizes
from companion.theory.transverse_closed_forms import (
    PAPER_TABLE2,
    BranchMoments,
    branch_moments,
    check_probabilities,
    post_norm_inflation,
    transverse_ratio_exact,
    transverse_ratio_limit,
    transverse_ratio_noise,
    transverse_ratio_paper,
)

__all__ = [
    "BranchMoments",
    "PAPER_TABLE2",
    "TransverseRatioResult",
    "branch_moments",
    "post_norm_inflation",
    "simulate_transverse_ratio",
    "simulate_transverse_ratio_grid",
    "transverse_ratio_exact",
    "transverse_ratio_limit",
    "transverse_ratio_noise",
    "transverse_ratio_paper",
]


@dataclass(frozen=True)
class TransverseRatioResult(MCEstimate):
    """Simulated asymmetry ratio C (``value``, ``stderr``; ``n`` = independent weight draws).

    It is an :class:`~companion.stats.MCEstimate` (``agrees_with``, ``z``, ``ci``), plus:
    output-space radial fractions ``R_sign``/``R_mag`` and mean energies per input
    ``E_sign``/``E_mag`` (pre-norm u), hidden-space ``R_sign_hidden``/``R_mag_hidden``
    and ``C_hidden`` (with ``C_out_minus_hidden``, the difference ``C - C_hidden`` and its
    paired per-seed SE), the energy ratio ``energy_ratio = E_sign/E_mag``, the mean
    matched ``delta``, and ``C_post_norm_fd``: the post-norm finite-difference ratio,
    kept only to show the trap (it is not Theorem 3's quantity).
    """

    p: float = float("nan")
    n_in: int = 0
    m: int = 0
    d: int = 0
    samples: int = 0
    R_sign: MCEstimate | None = None
    R_mag: MCEstimate | None = None
    E_sign: MCEstimate | None = None
    E_mag: MCEstimate | None = None
    energy_ratio: MCEstimate | None = None
    R_sign_hidden: MCEstimate | None = None
    R_mag_hidden: MCEstimate | None = None
    C_hidden: MCEstimate | None = None
    C_out_minus_hidden: MCEstimate | None = None
    C_post_norm_fd: MCEstimate | None = None
    delta: float = float("nan")
    extra: dict = field(default_factory=dict, compare=False, repr=False)


# Per-seed sums kept for every p (index into the accumulator's last axis).
_KEYS = (
    "T_s",
    "T_m",
    "E_s",
    "E_m",
    "Rn_s",
    "Rn_m",
    "Th_s",
    "Th_m",
    "Eh_s",
    "Eh_m",
    "Rhn_s",
    "Rhn_m",
    "F_s",
    "F_m",
)
_SPARSE_MAX_DENSITY = 0.02  # below this a sparse product beats a dense float32 GEMM here


def _delta_z_sign(x32, W1, U, ps, batch_cache):
    """Sign-flip pre-activation changes for every p, sharing work across nested masks.

    One uniform matrix U gives nested masks ``U < p``; the change for the next p adds
    only the newly flipped entries (a sparse product when few, a dense GEMM otherwise).
    """
    import scipy.sparse as sp

    out, acc, prev = [], None, 0.0
    for i, p in enumerate(ps):
        key = ("inc", i)
        if key not in batch_cache:
            sel = (U >= prev) & (U < p)  # (m, n) newly flipped
            inc = np.where(sel, np.float32(-2.0) * W1, np.float32(0.0))
            if p - prev < _SPARSE_MAX_DENSITY:
                batch_cache[key] = ("sparse", sp.csr_matrix(inc))
            else:
                batch_cache[key] = ("dense", np.ascontiguousarray(inc.T))
        kind, mat = batch_cache[key]
        if kind == "sparse":
            dz = np.asarray((mat @ x32.T).T)  # (b, m)
        else:
            dz = x32 @ mat  # (b, m)
        acc = dz if acc is None else acc + dz
        out.append(acc)
        prev = p
    return out


def _one_seed(ps, n, m, d, samples, batch, g, post_norm=True):
    """Per-seed sums for all flip rates ``ps`` (sorted), sharing the clean forward pass.

    ``post_norm=True`` forms every ``Delta u = W2 Delta h`` (needed for the per-input
    post-norm finite difference). ``post_norm=False`` never forms ``Delta u``: with
    ``G = W2^T W2`` and ``a = G h``, ``u . Delta u = a . Delta h`` and
    ``sum_x ||Delta u||^2 = tr(G Delta H^T Delta H)``, a symmetric rank-k update that
    costs about half a matrix product.
    """
    from scipy.linalg.blas import ssyrk

    f32 = np.float32
    W1 = g.standard_normal((m, n), dtype=f32) / f32(np.sqrt(n))  # (m, n)
    W2T = (g.standard_normal((d, m), dtype=f32) / f32(np.sqrt(m))).T  # (m, d)
    U = g.random((m, n), dtype=f32)  # (m, n) nested masks
    S1T = np.ascontiguousarray(np.sign(W1).T)  # (n, m)
    W1T = np.ascontiguousarray(W1.T)  # (n, m)
    w2 = W1.astype(np.float64) ** 2
    deltas = []
    for p in ps:  # Frobenius match per draw: ||dW_sign|| / sqrt(mn)
        deltas.append(2.0 * np.sqrt(w2[U < p].sum()) / np.sqrt(m * n))
    if not post_norm:
        G = W2T @ W2T.T  # (m, m) Gram of W2
        Gw = 2 * np.triu(G) - np.diag(np.diag(G))  # pairs with syrk's upper triangle
        gram = {}  # (i, branch) -> sum_x dh dh^T, upper
    acc = np.zeros((len(ps), len(_KEYS)))  # float64 accumulators
    cache = {}
    j = _KEYS.index
    for start in range(0, samples, batch):
        b = min(batch, samples - start)
        x = g.standard_normal((b, n), dtype=f32)  # (b, n)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        z = x @ W1T  # (b, m)
        h = np.maximum(z, 0)
        zs = x @ S1T  # (b, m) sign(W1) x, shared by all p
        if post_norm:
            u = h @ W2T  # (b, d)
            uu = np.einsum("ij,ij->i", u, u).astype(np.float64)
        else:
            a = h @ G  # (b, m) = (W2^T u) per input
            uu = np.einsum("ij,ij->i", h, a).astype(np.float64)
        hh = np.einsum("ij,ij->i", h, h).astype(np.float64)
        dzs = _delta_z_sign(x, W1, U, ps, cache)
        buf = np.empty_like(z)  # (b, m) reused for every branch
        for i in range(len(ps)):
            for br in ("s", "m"):
                if br == "s":
                    np.add(z, dzs[i], out=buf)
                else:
                    np.multiply(zs, f32(deltas[i]), out=buf)  # Delta z_mag = delta * sign(W1) x
                    buf += z
                np.maximum(buf, 0, out=buf)
                buf -= h  # Delta h, exact through ReLU
                eh = np.einsum("ij,ij->i", buf, buf).astype(np.float64)
                ch = np.einsum("ij,ij->i", h, buf).astype(np.float64)
                radh = np.divide(ch * ch, hh, out=np.zeros_like(ch), where=hh > 0)
                row = acc[i]
                if post_norm:
                    du = buf @ W2T  # (b, d)
                    e = np.einsum("ij,ij->i", du, du).astype(np.float64)
                    c = np.einsum("ij,ij->i", u, du).astype(np.float64)
                    e_sum = e.sum()
                    # post-norm finite difference (the trap): transverse part of
                    # RMSNorm(u + du) - RMSNorm(u)
                    cc = np.divide(c * c, uu, out=np.zeros_like(uu), where=uu > 0)
                    den = uu + 2 * c + e  # ||u + Delta u||^2
                    fd = np.divide(d * (e - cc), den, out=np.zeros_like(den), where=den > 0)
                    row[j(f"F_{br}")] += fd.sum()
                else:
                    c = np.einsum("ij,ij->i", a, buf).astype(np.float64)
                    key = (i, br)  # accumulate Delta H^T Delta H (upper)
                    if key in gram:
                        gram[key] = ssyrk(1.0, buf.T, beta=1.0, c=gram[key], trans=0, overwrite_c=1)
                    else:
                        gram[key] = ssyrk(1.0, buf.T, trans=0)  # (m, m)
                    e_sum = 0.0  # added once per seed, below
                # (u_hat . Delta u)^2; an input whose hidden layer is all dead has u = 0 and
                # no direction: all of its change is transverse (as in radial_transverse_split)
                rad = np.divide(c * c, uu, out=np.zeros_like(uu), where=uu > 0)
                row[j(f"T_{br}")] += e_sum - rad.sum()
                row[j(f"E_{br}")] += e_sum
                row[j(f"Rn_{br}")] += rad.sum()
                row[j(f"Th_{br}")] += (eh - radh).sum()
                row[j(f"Eh_{br}")] += eh.sum()
                row[j(f"Rhn_{br}")] += radh.sum()
    if not post_norm:  # sum_x ||Delta u||^2 = tr(G Delta H^T Delta H): row sums, then float64
        for (i, br), C in gram.items():
            e_sum = float(np.einsum("ij,ij->i", Gw, C).sum(dtype=np.float64))
            acc[i, j(f"T_{br}")] += e_sum
            acc[i, j(f"E_{br}")] += e_sum
    return acc, np.array(deltas)


def simulate_transverse_ratio_grid(
    ps,
    n: int,
    *,
    m: int | None = None,
    d: int | None = None,
    samples: int = 2000,
    seeds: int = 8,
    batch: int = 2000,
    post_norm: bool = True,
    rng=None,
) -> list[TransverseRatioResult]:
    """:func:`simulate_transverse_ratio` for several flip rates at once (one result per p).

    The clean forward pass, ``sign(W1) x`` (all magnitude branches are ``delta_p`` times
    it) and the nested flip masks are shared across ``ps``; the flips' contribution is
    computed only over the flipped entries. Matrix products run in float32, every sum
    over units and samples in float64. Each seed is an independent draw of W1, W2,
    masks and inputs; standard errors are over seeds (ratio of sums, delta method).
    ``post_norm=False`` skips the trap quantity ``C_post_norm_fd`` (None then) and uses
    a Gram-matrix identity that avoids forming ``Delta u`` (faster at large widths;
    the same estimator of C).
    """
    return _simulate_grid(
        ps, n, m=m, d=d, samples=samples, seeds=seeds, batch=batch, post_norm=post_norm, rng=rng
    )


def _simulate_grid(ps, n, *, m, d, samples, seeds, batch, post_norm, rng, name="ps"):
    """The grid simulation; ``name`` is the caller's name for the flip rates in errors."""
    ps_arr = check_probabilities(ps, name, low_open=True).ravel()
    if ps_arr.size == 0:
        raise ValueError(f"`{name}` must hold at least one flip rate; got none")
    n = check_int(n, "n", low=2)
    m = n if m is None else check_int(m, "m", low=2)
    d = n if d is None else check_int(d, "d", low=2)
    samples = check_int(samples, "samples", low=1)
    seeds = check_int(seeds, "seeds", low=2)
    batch = check_int(batch, "batch", low=1)
    check_sizes(  # per seed: W1, W2, the flip masks; a batch of inputs and hidden units
        {"n": n, "m": m, "d": d, "samples": samples, "seeds": seeds},
        elements=(ps_arr.size + 3) * (m * n + d * m) + 8.0 * min(batch, samples) * (n + m + d),
        ops=seeds * samples * (m * n + d * m) * (ps_arr.size + 2.0),
        what=f"{seeds} seeds of {samples} inputs through {m} x {n} and {d} x {m} weights",
    )
    post_norm = check_bool(post_norm, "post_norm")
    order = np.argsort(ps_arr)
    ps_sorted = [float(ps_arr[i]) for i in order]
    g = as_generator(rng)
    per_seed, deltas = [], []
    for child in g.spawn(seeds):
        acc, dl = _one_seed(ps_sorted, n, m, d, samples, batch, child, post_norm)
        per_seed.append(acc)
        deltas.append(dl)
    A = np.stack(per_seed)  # (seeds, len(ps), keys)
    D = np.stack(deltas)  # (seeds, len(ps))
    if not np.all(D.any(axis=0)):  # no flip in any seed: both branches vanish, C is 0/0
        p0 = ps_sorted[int(np.argmin(D.any(axis=0)))]
        raise ValueError(
            f"`{name}` must flip at least one weight in some seed; got p = {p0:g}, which "
            f"flipped none of the {m} x {n} weights of W1 in {seeds} seeds"
        )
    j = _KEYS.index
    results = [None] * len(ps_sorted)
    for i, p in enumerate(ps_sorted):
        a = A[:, i, :]
        col = lambda k, a=a: a[:, j(k)]  # per-seed sums of one quantity
        c = ratio_estimate(col("T_s"), col("T_m"))
        res = TransverseRatioResult(
            c.value,
            c.stderr,
            c.n,
            p=p,
            n_in=n,
            m=m,
            d=d,
            samples=samples,
            R_sign=ratio_estimate(col("Rn_s"), col("E_s")),
            R_mag=ratio_estimate(col("Rn_m"), col("E_m")),
            E_sign=mean_estimate(col("E_s") / samples),
            E_mag=mean_estimate(col("E_m") / samples),
            energy_ratio=ratio_estimate(col("E_s"), col("E_m")),
            R_sign_hidden=ratio_estimate(col("Rhn_s"), col("Eh_s")),
            R_mag_hidden=ratio_estimate(col("Rhn_m"), col("Eh_m")),
            C_hidden=ratio_estimate(col("Th_s"), col("Th_m")),
            C_out_minus_hidden=ratio_difference_estimate(
                col("T_s"), col("T_m"), col("Th_s"), col("Th_m")
            ),
            C_post_norm_fd=ratio_estimate(col("F_s"), col("F_m")) if post_norm else None,
            delta=float(D[:, i].mean()),
        )
        results[order[i]] = res
    return results


def simulate_transverse_ratio(
    p: float,
    n: int,
    *,
    m: int | None = None,
    d: int | None = None,
    samples: int = 2000,
    seeds: int = 8,
    post_norm: bool = True,
    rng=None,
) -> TransverseRatioResult:
    """Simulate Theorem 3's asymmetry ratio C at flip rate ``p`` and width ``n`` (m, d default n).

    ``C = sum T(Delta u_sign; u) / sum T(Delta u_mag; u)``: first-order transverse energy
    on the pre-norm output u, exact finite difference through ReLU, only W1 perturbed,
    ``delta`` matched per draw to the flip's Frobenius norm. The returned
    :class:`TransverseRatioResult` is an MCEstimate of C (SE over ``seeds`` weight draws)
    with the radial fractions and energies of both branches (``post_norm=False`` skips the
    trap quantity and runs faster, see :func:`simulate_transverse_ratio_grid`). Compare
    :func:`transverse_ratio_exact` (shown in {prf:ref}`thm-theorem3`).

    Examples
    --------
    >>> r = simulate_transverse_ratio(0.05, 128, samples=200, seeds=3, rng=0)
    >>> 2.2 < r.value < 2.6
    True
    """
    p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    return _simulate_grid(
        [p],
        n,
        m=m,
        d=d,
        samples=samples,
        seeds=seeds,
        batch=2000,
        post_norm=post_norm,
        rng=rng,
        name="p",
    )[0]
