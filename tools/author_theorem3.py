"""Run the author's own Theorem 3 script and write its numbers (numbers only) for the ledger.

The claim ``dong.thm3.author_code`` compares our estimator of Theorem 3's ratio C with the
author's code at the same protocol (V1: n = m = d = 2048, 10,000 sphere samples per seed,
the author's first five seeds), and ``dong.thm3.table2`` compares both with the README's
Table 2. The book never runs the author's code: a maintainer runs this script once with the
author's repository checked out, and the book reads the JSON it writes.

    python tools/author_theorem3.py PATH/TO/sign-magnitude-pre-norm [--seeds 5]

It imports ``experiments/verify_theorem3.py`` from that checkout, calls its
``verify_single_layer(2048, 2048, 2048, p, seed, 10000, "cpu", 2000)`` for each p of Table 2
and each of ``SEED_LIST[:seeds]``, reads the author's stored two-layer results
(``results/proposition1_verification.json``, 20 seeds, d_out = 1024; C = 1 /
``output_trans_ratio``, SE by the delta method), and writes
``results/author/theorem3_v1.json``: per-seed C, mean, SD and SE, the command, the
repository's commit, torch's version and the machine. None of the author's code is copied.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

PS = (0.01, 0.02, 0.05, 0.10)
OUT = Path(__file__).resolve().parents[1] / "results" / "author" / "theorem3_v1.json"


def _commit(repo: Path) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path, help="checkout of donglei628/sign-magnitude-pre-norm")
    ap.add_argument("--seeds", type=int, default=5, help="the first k of the author's SEED_LIST")
    ap.add_argument("--commit", default="", help="the checkout's commit, if it is not a git tree")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.repo / "experiments"))
    import torch
    import verify_theorem3 as vt  # the author's script

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    seeds = list(vt.SEED_LIST[: args.seeds])
    runs: dict = {}
    for p in PS:
        for seed in seeds:
            t0 = time.perf_counter()
            r = vt.verify_single_layer(2048, 2048, 2048, p, seed, 10000, "cpu", 2000)
            runs.setdefault(f"{p:g}", []).append(
                {"seed": seed, "C": float(r["C"]), "wall_s": time.perf_counter() - t0}
            )
            print(p, seed, round(r["C"], 4), flush=True)
    summary = {}
    for p, rows in runs.items():
        c = [x["C"] for x in rows]
        mean = sum(c) / len(c)
        sd = math.sqrt(sum((x - mean) ** 2 for x in c) / (len(c) - 1))
        summary[p] = {"mean": mean, "sd": sd, "se": sd / math.sqrt(len(c)), "seeds": len(c)}
    stored = {}
    path = args.repo / "results" / "proposition1_verification.json"
    for row in json.loads(path.read_text())["twolayer_relu"]:
        if row["n"] == 2048:
            t = row["output_trans_ratio"]  # T_mag / T_sign per seed, summarised by the author
            stored[f"{row['p']:g}"] = {
                "mean": 1 / t["mean"],
                "se": t["se"] / t["mean"] ** 2,
                "seeds": t["n"],
                "d_out": row["d_out"],
            }
    out = {
        "what": "Theorem 3's C = sum T_sign / sum T_mag (V1), by the author's own code",
        "repository": "https://github.com/donglei628/sign-magnitude-pre-norm",
        "commit": args.commit or _commit(args.repo),
        "script": "experiments/verify_theorem3.py",
        "call": "verify_single_layer(2048, 2048, 2048, p, seed, 10000, 'cpu', 2000)",
        "n": 2048,
        "samples": 10000,
        "seed_list": seeds,
        "C": summary,
        "per_seed": runs,
        "stored_json": {
            "file": "results/proposition1_verification.json (twolayer_relu, n = m = 2048)",
            "note": "C = 1 / output_trans_ratio; SE by the delta method; d_out = 1024",
            "C": stored,
        },
        "command": "python tools/author_theorem3.py <checkout> --seeds " + str(args.seeds),
        "torch": torch.__version__,
        "machine": f"{platform.machine()} CPU, {os.cpu_count()} cores",
        "threads": torch.get_num_threads(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
