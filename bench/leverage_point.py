"""Cost of one leverage point (apply flips, evaluate, undo) against one bare evaluation pass.

    .venv/bin/python bench/leverage_point.py [--model smollm2-135m] [--windows 2] [--window 256]
                                             [--repeats 3] [--out results/sign_flips/bench.json]

The target (issue 6) is a ratio <= 1.2: flips are applied in place to the model's own weights
and undone from the saved entries, so the only extra work is an index gather/scatter over the
flipped entries. Both timings are the minimum over ``--repeats`` interleaved runs (this
machine's 2 cores are shared; the minimum is the least disturbed run). Also checks that the
NLL after undo equals the baseline bit for bit. Writes the numbers as JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--windows", type=int, default=2)
    ap.add_argument("--window", type=int, default=256)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--p", type=float, default=0.001, help="fraction of the outlier pool")
    ap.add_argument("--out", default="results/sign_flips/bench.json")
    args = ap.parse_args(argv)

    import numpy as np
    import torch

    from companion.llm import sign_flips as sf
    from companion.llm.data import token_windows
    from companion.llm.evaluate import evaluate_nll
    from companion.llm.loading import load_model

    model, tok = load_model(args.model)
    windows = token_windows(tok, n_windows=args.windows, window=args.window, source="wiki")
    calib = token_windows(
        tok, n_windows=args.windows, window=args.window, source="wiki", offset=args.windows
    )
    layers = sf.linear_layers(model)
    mom = sf.input_moments(model, calib, layers)
    cols = sf.outlier_columns({k: v["abs_mean"] for k, v in mom.items()})
    n = int(round(args.p * sum(sf.pool_sizes(layers, cols, "outlier").values())))
    flips = sf.count_matched_flips(layers, n, columns=cols, pool="outlier", seed=0)
    base = evaluate_nll(model, windows)  # warm-up
    bare, point, apply_undo = [], [], []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        evaluate_nll(model, windows)
        bare.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with sf.perturbed(layers, flips):
            evaluate_nll(model, windows)
        point.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with sf.perturbed(layers, flips):
            pass
        apply_undo.append(time.perf_counter() - t0)
    restored = evaluate_nll(model, windows).nll == base.nll
    res = {
        "model": args.model,
        "tokens": int(windows.numel()),
        "n_flips": flips.count,
        "bare_eval_s": min(bare),
        "leverage_point_s": min(point),
        "apply_undo_s": min(apply_undo),
        "ratio": min(point) / min(bare),
        "restored_bit_exact": bool(restored),
        "repeats": args.repeats,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads",
        "command": " ".join(
            ["python bench/leverage_point.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "all_bare_s": bare,
        "all_point_s": point,
        "median_ratio": float(np.median(point) / np.median(bare)),
    }
    print(f"# {res['machine']}")
    print(f"bare evaluation ({res['tokens']} tokens)     {res['bare_eval_s']:.3f} s")
    print(f"leverage point ({flips.count} flips)       {res['leverage_point_s']:.3f} s")
    print(f"apply + undo alone                  {res['apply_undo_s']:.4f} s")
    print(f"ratio (min / min)                   {res['ratio']:.3f}   (target <= 1.2)")
    print(f"restored NLL bit-identical          {restored}")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=1)
    return res


if __name__ == "__main__":
    main()
