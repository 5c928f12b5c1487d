"""Benchmark: one cell of the Table 2 grid (Theorem 3) with the author's protocol.

A cell is one width n (= m = d) and the four flip rates p in {0.01, 0.02, 0.05, 0.10},
each estimated from ``seeds`` weight draws x ``samples`` sphere inputs (author: 20 x 10,000).

* ``reference``: the author's protocol as in ``verify_theorem3.py`` (float32, batches of
  2,000, recomputes clean, sign and magnitude forward passes for every (seed, p));
* ``companion``: :func:`companion.theory.sign_magnitude.simulate_transverse_ratio_grid`
  with ``post_norm=False`` (shared clean pass and sign(W1) x across p, nested sparse flip
  masks, the output energy from the Gram identity tr(W2^T W2 dH^T dH) via a symmetric
  rank-k update instead of forming dU, float32 products with float64 sums).

Usage::

    .venv/bin/python bench/theorem3_grid.py --n 2048 --seeds 20 --samples 10000
    .venv/bin/python bench/theorem3_grid.py --n 2048 --seeds 2 --reference-seeds 1   # quick

Prints wall and CPU seconds per (seed, p) for both, the speed-up, and each p's C +- SE
(the SE is over seeds, so it needs --seeds >= 2; the author's cell is --seeds 20).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from companion.stats import ratio_estimate
from companion.theory import sign_magnitude as sm

PS = (0.01, 0.02, 0.05, 0.10)


def reference_seed_p(n, p, samples, rng, batch=2000):
    """One (seed, p) of the author's V1 protocol, re-implemented in numpy float32."""
    f32 = np.float32
    W1 = rng.standard_normal((n, n), dtype=f32) / f32(np.sqrt(n))
    W2 = rng.standard_normal((n, n), dtype=f32) / f32(np.sqrt(n))
    dWs = np.where(rng.random((n, n), dtype=f32) < p, -2 * W1, f32(0))
    s_norm = np.linalg.norm(dWs)
    sgn = np.sign(W1)
    dWm = sgn * f32(s_norm / np.linalg.norm(sgn))
    W1s, W1m = W1 + dWs, W1 + dWm
    ts = tm = 0.0
    for start in range(0, samples, batch):
        b = min(batch, samples - start)
        x = rng.standard_normal((b, n), dtype=f32)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        y = np.maximum(x @ W1.T, 0) @ W2.T
        yh = y / np.linalg.norm(y, axis=1, keepdims=True)
        for W, which in ((W1s, "s"), (W1m, "m")):
            dy = np.maximum(x @ W.T, 0) @ W2.T - y
            r = np.sum(yh * dy, axis=1, dtype=np.float64)
            t = float(np.sum(np.sum(dy * dy, axis=1, dtype=np.float64) - r * r))
            if which == "s":
                ts += t
            else:
                tm += t
    return ts, tm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2048)
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--reference-seeds", type=int, default=2,
                    help="seeds of the reference protocol to time (0 skips it)")
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"numpy {np.__version__}; n = m = d = {args.n}, {args.samples} samples")

    if args.reference_seeds:
        rng = np.random.default_rng(0)
        num, den = {p: [] for p in PS}, {p: [] for p in PS}
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(args.reference_seeds):
            for p in PS:
                a, b = reference_seed_p(args.n, p, args.samples, rng)
                num[p].append(a); den[p].append(b)
        t_ref = (time.perf_counter() - t0) / (args.reference_seeds * len(PS))
        c_ref = (time.process_time() - c0) / (args.reference_seeds * len(PS))
        print(f"reference (author's protocol): {t_ref:.3f} s wall, {c_ref:.3f} s CPU per (seed, p)")
        if args.reference_seeds >= 2:
            for p in PS:
                print(f"   p = {p:.2f}  C = {ratio_estimate(num[p], den[p]):.4f}")
    t0, c0 = time.perf_counter(), time.process_time()
    res = sm.simulate_transverse_ratio_grid(PS, args.n, samples=args.samples, seeds=args.seeds,
                                           post_norm=False, rng=1)
    t_cell, c_cell = time.perf_counter() - t0, time.process_time() - c0
    t_new, c_new = t_cell / (args.seeds * len(PS)), c_cell / (args.seeds * len(PS))
    print(f"companion: {t_cell:.1f} s wall, {c_cell:.1f} s CPU per cell ({args.seeds} seeds x {len(PS)} p); "
          f"{t_new:.3f} s wall, {c_new:.3f} s CPU per (seed, p)")
    if args.reference_seeds:
        print(f"speed-up: {t_ref / t_new:.2f}x wall, {c_ref / c_new:.2f}x CPU time "
              "(CPU time is the steadier number on a shared machine)")
    for r in res:
        print(f"   p = {r.p:.2f}  C = {r:.4f}  (SE {r.stderr:.4f} over {r.n} seeds)   "
              f"exact kernel {sm.transverse_ratio_exact(r.p):.4f}   paper measured "
              f"{sm.PAPER_TABLE2[r.p][0]:.3f} ± {sm.PAPER_TABLE2[r.p][1]:.3f}")


if __name__ == "__main__":
    main()
