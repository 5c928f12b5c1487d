"""Training speed and memory of the trained-here twins (issue 20), written to
results/train/bench-threads<n>.json.

    nice -n 10 .venv/bin/python bench/train.py [--threads 1] [--steps 30]

Each model runs in a fresh process (its peak RSS is that process's ``ru_maxrss``): build the
full-size model (4 × 4 × 128, context 64, batch 12) and its AdamW, run ``--steps`` optimiser
steps of :func:`companion.llm.train.trainer.train_step` (the trainer's own step) on random
bytes after 3 warm-up steps (the cost does not depend on the bytes), and report seconds per
step (wall and CPU), tokens/s, and the achieved FLOP/s of training, estimated as
6 N + 6 L T d per token (Kaplan et al. 2020: N non-embedding parameters, L layers, context T,
width d), against the machine's measured float32 matmul peak: a bare ``torch.matmul`` loop on
512 × 512 matrices in the same process, at the same threads. The ratio, not the absolute
time, is the training loop's efficiency. Checkpoint writing and validation are not timed
(ten of each in a whole run).

The machine's load average is recorded with every number: on a shared machine the
wall-clock numbers are upper bounds, and the CPU times are the steadier measure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results" / "train"
MODELS = ("tiny-gpt-ln", "tiny-gpt-rms")


def _matmul_peak(threads: int, n: int = 512, reps: int = 20) -> float:
    import torch

    torch.set_num_threads(threads)
    a, b = torch.randn(n, n), torch.randn(n, n)
    for _ in range(3):
        a @ b
    t0 = time.perf_counter()
    for _ in range(reps):
        torch.matmul(a, b)
    return 2 * n**3 * reps / (time.perf_counter() - t0)


def _measure(model_name: str, threads: int, steps: int) -> dict:
    import resource

    import numpy as np
    import torch

    from companion.llm.train.model import build_model
    from companion.llm.train.trainer import TrainConfig, make_optimizer, train_step

    torch.set_num_threads(threads)
    cfg = TrainConfig(model_name, threads=threads)
    model = build_model(model_name)
    opt = make_optimizer(model, cfg)
    rng = np.random.default_rng(0)

    def batch():
        x = torch.from_numpy(rng.integers(0, 256, (cfg.batch, cfg.context + 1)))
        return x[:, :-1], x[:, 1:]

    for s in range(3):
        train_step(model, opt, *batch(), cfg, s)
    c0, t0 = time.process_time(), time.perf_counter()
    for s in range(steps):
        train_step(model, opt, *batch(), cfg, 3 + s)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    n_all = sum(p.numel() for p in model.parameters())
    n_emb = sum(
        m.weight.numel() for m in (model.get_input_embeddings(), model.get_output_embeddings())
    )
    n = n_all - n_emb
    L, T, d = cfg.layers, cfg.context, cfg.width
    flops_token = 6 * n + 6 * L * T * d
    tokens = steps * cfg.batch * cfg.context
    peak = _matmul_peak(threads)
    return {
        "model": model_name,
        "threads": threads,
        "steps_timed": steps,
        "tokens_per_step": cfg.batch * cfg.context,
        "params": n_all,
        "params_non_embedding": n,
        "s_per_step_wall": wall / steps,
        "s_per_step_cpu": cpu / steps,
        "tokens_per_s_wall": tokens / wall,
        "train_flops_per_s": flops_token * tokens / wall,
        "matmul_peak_flops_per_s": peak,
        "efficiency": flops_token * tokens / wall / peak,
        "projected_2000_steps_min": 2000 * wall / steps / 60,
        "projected_2000_steps_cpu_min": 2000 * cpu / steps / 60,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "loadavg_1min": os.getloadavg()[0],
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--child", choices=MODELS, help=argparse.SUPPRESS)
    p.add_argument(
        "--out", type=Path, default=None, help="default results/train/bench-threads<n>.json"
    )
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(_measure(args.child, args.threads, args.steps)))
        return 0
    rows = []
    for name in MODELS:
        cmd = [
            sys.executable,
            __file__,
            "--child",
            name,
            "--threads",
            str(args.threads),
            "--steps",
            str(args.steps),
        ]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"{name}: the measuring process failed:\n{done.stderr[-2000:]}")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        r = rows[-1]
        print(
            f"{name}: {r['s_per_step_wall']:.3f} s/step wall ({r['s_per_step_cpu']:.3f} CPU), "
            f"{r['tokens_per_s_wall']:.0f} tokens/s, {r['train_flops_per_s'] / 1e9:.2f} GFLOP/s "
            f"= {100 * r['efficiency']:.0f} % of matmul peak "
            f"{r['matmul_peak_flops_per_s'] / 1e9:.1f} GFLOP/s, peak RSS "
            f"{r['peak_rss_mb']:.0f} MB, 2000 steps ≈ {r['projected_2000_steps_min']:.1f} min "
            f"wall, {r['projected_2000_steps_cpu_min']:.1f} min CPU "
            f"(load {r['loadavg_1min']:.1f})"
        )
    args.out = args.out or RESULTS / f"bench-threads{args.threads}.json"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "command": f"nice -n 10 python bench/train.py --threads {args.threads} "
        f"--steps {args.steps}",
        "cpus": os.cpu_count(),
        "rows": rows,
    }
    tmp = args.out.with_name(f".{args.out.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1, allow_nan=False) + "\n", encoding="utf-8")
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
