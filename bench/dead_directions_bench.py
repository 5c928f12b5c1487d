"""Benchmarks of the dead-direction engine (issue 5), written to results/dead_directions/bench.json.

    .venv/bin/python bench/dead_directions_bench.py [--big-tokens 65536] [--threads 2]

1. The γ-read (parameters only) against forward + float64 covariance + eigensolve (SmolLM2-135M).
2. Capture overhead: the forward pass with the final-norm hook streaming its float64
   covariance, against the bare forward pass over the same tokens (median of 3).
3. Peak memory (ru_maxrss of a fresh process) when the token count grows 10× (MiniLM-L6,
   full diagnosis incl. the σ_min profile): flat, because every statistic is streamed.
4. SmolLM2-135M trained diagnosis on ``--big-tokens`` tokens (the issue's 64k in ≤ 2 min).

The machine's load average is recorded with every number: on a shared machine the
wall-clock numbers are upper bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

# beside the diagnoses it measures, so the chapter reads it from the results root (also when
# installed: results/ ships inside the package)
OUT = Path(__file__).resolve().parents[1] / "results" / "dead_directions" / "bench.json"


def _load():
    return [round(x, 2) for x in os.getloadavg()]


def gamma_read_vs_full(tokens: int = 4096) -> dict:
    from companion.llm.data import token_windows
    from companion.llm.dead_directions import diagnose
    from companion.llm.loading import load_model
    from companion.llm.norms import find_final_norm

    model, tok = load_model("smollm2-135m")
    fn = find_final_norm(model)
    reads = []
    for _ in range(20):
        t0 = time.perf_counter()
        v = fn.vstar  # γ⁻¹/‖γ⁻¹‖ from the parameters: the whole γ-read
        reads.append(time.perf_counter() - t0)
    ids = token_windows(tok, n_windows=tokens // 256, window=256)
    t0 = time.perf_counter()
    d = diagnose(model, list(ids.split(8)), final_norm=fn, profile=False, recompute_fp64=False)
    full = time.perf_counter() - t0
    read = statistics.median(reads)
    return {
        "tokens": tokens,
        "gamma_read_s": read,
        "forward_cov_eig_s": full,
        "ratio": full / read,
        "timings": d.timings,
        "load": _load(),
        "v_len": int(v.shape[0]),
    }


def capture_overhead(tokens: int = 2048, repeats: int = 3) -> dict:
    import torch

    from companion.llm.capture import capture_module
    from companion.llm.data import token_windows
    from companion.llm.loading import load_model
    from companion.llm.norms import find_final_norm

    model, tok = load_model("smollm2-135m")
    base = model.base_model
    fn = find_final_norm(model)
    batches = list(token_windows(tok, n_windows=tokens // 256, window=256).split(4))
    bare, hooked = [], []
    with torch.no_grad():
        base(batches[0])  # warm-up
        for _ in range(repeats):
            t0 = time.perf_counter()
            for b in batches:
                base(b)
            bare.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            with capture_module(fn.module) as g:
                for b in batches:
                    base(b)
            hooked.append(time.perf_counter() - t0)
    b, h = statistics.median(bare), statistics.median(hooked)
    return {
        "tokens": tokens,
        "bare_s": b,
        "with_capture_s": h,
        "overhead": h / b - 1,
        "bare_all": bare,
        "hooked_all": hooked,
        "rows_captured": g.n,
        "load": _load(),
    }


_MEM_CHILD = r"""
import json, resource, sys, torch
torch.set_num_threads(int(sys.argv[2]))
from companion.llm.data import token_windows
from companion.llm.dead_directions import diagnose
from companion.llm.loading import load_model
n = int(sys.argv[1])
model, tok = load_model("minilm-l6")
ids = token_windows(tok, n_windows=n // 256, window=256)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
d = diagnose(model, (b for b in ids.split(8)))
print(json.dumps({"tokens": d.n_tokens, "rss_before_kib": base,
                  "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
"""


def memory_flat(threads: int, small: int = 2048, factor: int = 10) -> dict:
    out = {}
    for n in (small, small * factor):
        r = subprocess.run(
            [sys.executable, "-c", _MEM_CHILD, str(n), str(threads)],
            capture_output=True,
            text=True,
            check=True,
        )
        out[n] = json.loads(r.stdout.strip().splitlines()[-1])
    a, b = out[small], out[small * factor]
    return {
        "runs": out,
        "peak_ratio": b["peak_rss_kib"] / a["peak_rss_kib"],
        "growth_mib": (b["peak_rss_kib"] - a["peak_rss_kib"]) / 1024,
        "load": _load(),
    }


def big_run(tokens: int) -> dict:
    from companion.llm.data import token_windows
    from companion.llm.dead_directions import diagnose
    from companion.llm.loading import load_model

    t0 = time.perf_counter()
    model, tok = load_model("smollm2-135m")
    t_load = time.perf_counter() - t0
    ids = token_windows(tok, n_windows=tokens // 256, window=256)
    t0 = time.perf_counter()
    d = diagnose(model, list(ids.split(8)), profile_tokens=8192)
    total = time.perf_counter() - t0
    return {
        "tokens": d.n_tokens,
        "load_s": t_load,
        "diagnose_s": total,
        "timings": d.timings,
        "verdict": d.verdict,
        "cos": d.cos,
        "load": _load(),
        "profile_tokens": d.profile_tokens,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big-tokens", type=int, default=65536)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--skip-big", action="store_true")
    args = ap.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("COMPANION_PROGRESS", "0")
    res = {
        "threads": args.threads,
        "load_start": _load(),
        "cpu_count": os.cpu_count(),
        "command": " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
    }
    res["gamma_read"] = gamma_read_vs_full()
    res["capture"] = capture_overhead()
    res["memory"] = memory_flat(args.threads)
    if not args.skip_big:
        res["big"] = big_run(args.big_tokens)
    g, c, m = res["gamma_read"], res["capture"], res["memory"]
    s = {
        "γ-read time (median)": f"{g['gamma_read_s'] * 1e6:.1f} µs",
        f"forward + float64 cov + eigensolve ({g['tokens']} tokens)": (
            f"{g['forward_cov_eig_s']:.1f} s"
        ),
        "ratio (cheapest read)": f"{g['ratio']:.2e}",
        f"capture overhead ({c['tokens']} tokens, median of 3)": f"{100 * c['overhead']:+.1f} %",
        f"peak RSS, {min(map(int, m['runs']))} → {max(map(int, m['runs']))} tokens": (
            f"{m['runs'][min(m['runs'])]['peak_rss_kib'] / 1024:.0f} → "
            f"{m['runs'][max(m['runs'])]['peak_rss_kib'] / 1024:.0f} MiB (×{m['peak_ratio']:.2f})"
        ),
    }
    if "big" in res:
        b = res["big"]
        s[f"smollm2-135m diagnosis, {b['tokens']} tokens"] = (
            f"{b['diagnose_s']:.0f} s (+ {b['load_s']:.1f} s load); target ≤ 120 s"
        )
    s["load average during the runs"] = (
        f"{res['load_start']} at start, "
        f"{res.get('big', c)['load']} at end, {args.threads} threads, "
        f"{os.cpu_count()} cores"
    )
    res["summary"] = s
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(res, indent=2, default=str) + "\n")
    for k, v in s.items():
        print(f"{k:52s} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
