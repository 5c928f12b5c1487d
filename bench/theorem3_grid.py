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

    .venv/bin/python bench/theorem3_grid.py                      # 2 timing pairs + a 20-seed cell
    .venv/bin/python bench/theorem3_grid.py --seeds 0 --pairs 3   # timing only

Times reference and companion seeds interleaved (fair on a shared machine), prints seconds
per (seed, p), the speed-up, then the full companion cell with each p's C +- SE (over seeds).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

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
    ap.add_argument(
        "--seeds", type=int, default=20, help="seeds of the full companion cell (0 skips it)"
    )
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument(
        "--pairs",
        type=int,
        default=2,
        help="interleaved (reference seed, companion seed) timing pairs (0 skips them)",
    )
    args = ap.parse_args()
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "default")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"numpy {np.__version__}, OPENBLAS_NUM_THREADS={threads}; n = m = d = {args.n}, "
        f"{args.samples} samples, p in {PS}"
    )

    # 1. Interleaved timing: one reference seed (all four p), then one companion seed (all four p),
    #    so that both see the same load on a shared machine.
    from companion.theory.transverse_ratio import _one_seed

    ratios, cpu_ratios, t_refs, t_news = [], [], [], []
    rng = np.random.default_rng(0)
    for child in np.random.default_rng(1).spawn(args.pairs):
        t0, c0 = time.perf_counter(), time.process_time()
        for p in PS:
            reference_seed_p(args.n, p, args.samples, rng)
        t_ref, c_ref = (time.perf_counter() - t0) / len(PS), (time.process_time() - c0) / len(PS)
        t0, c0 = time.perf_counter(), time.process_time()
        _one_seed(list(PS), args.n, args.n, args.n, args.samples, 2000, child, post_norm=False)
        t_new, c_new = (time.perf_counter() - t0) / len(PS), (time.process_time() - c0) / len(PS)
        ratios.append(t_ref / t_new)
        cpu_ratios.append(c_ref / c_new)
        t_refs.append(t_ref)
        t_news.append(t_new)
        print(
            f"   pair: reference {t_ref:.3f} s wall ({c_ref:.3f} s CPU), companion {t_new:.3f} s "
            "wall "
            f"({c_new:.3f} s CPU) per (seed, p): {t_ref / t_new:.2f}x wall, {c_ref / c_new:.2f}x "
            "CPU"
        )
    if ratios:
        print(
            f"speed-up in CPU time (median): {np.median(cpu_ratios):.2f}x  (with "
            "OPENBLAS_NUM_THREADS=1 this "
            "is the work ratio, least sensitive to other load)"
        )
        print(
            f"reference (author's protocol): {np.median(t_refs):.3f} s per (seed, p) "
            f"-> {80 * np.median(t_refs):.0f} s per cell (20 seeds x 4 p), estimated"
        )
        print(f"companion:                     {np.median(t_news):.3f} s per (seed, p)")
        print(f"speed-up (median of interleaved pairs): {np.median(ratios):.2f}x")

    # 2. The full companion cell with its standard errors.
    if args.seeds:
        t0 = time.perf_counter()
        res = sm.simulate_transverse_ratio_grid(
            PS, args.n, samples=args.samples, seeds=args.seeds, post_norm=False, rng=1
        )
        t_cell = time.perf_counter() - t0
        print(
            f"companion full cell: {t_cell:.1f} s ({args.seeds} seeds x {len(PS)} p x "
            f"{args.samples} "
            f"samples), {t_cell / (args.seeds * len(PS)):.3f} s per (seed, p)"
        )
        for r in res:
            print(
                f"   p = {r.p:.2f}  C = {r:.4f}  (SE {r.stderr:.4f} over {r.n} seeds)   "
                f"exact kernel {sm.transverse_ratio_exact(r.p):.4f}   paper measured "
                f"{sm.PAPER_TABLE2[r.p][0]:.3f} ± {sm.PAPER_TABLE2[r.p][1]:.3f} (the paper's)"
            )


if __name__ == "__main__":
    main()
