"""Time of one results append as the file grows: O(1), not O(records already stored).

    .venv/bin/python bench/results_append.py --json
    .venv/bin/python bench/results_append.py --sizes 100 1000 10000 --appends 100

For each size N, a results file of N records (each about ``--bytes`` of JSON, like a
sign-flip record) is written once (``write_jsonl``), a :class:`companion.results.ResultStore`
is opened on it (one read, not timed), and ``--appends`` appends of new records are timed
one by one, each with its fsync, as ``companion run`` makes them. ``--json`` prints
``{"per_append_ms": {N: median}, "p90_ms": {N: ...}, "ratio": largest N / smallest N,
"machine": ...}``. Before issue 22 every append re-read and re-wrote the whole file (12 ms at 10
records, 110 ms at 1,000, 206 ms at 1,500); the target is the largest size within 2x of
the smallest. A measurement reported in README's speed section, not a test.

Measured on the 2-core build machine under load (2026-12-02), ``nice bench/results_append.py
--json``: median 5.617 ms per append at 100 records, 4.353 ms at 10,000 (ratio 0.78; p90 8.1
and 8.6 ms). The same script on the code before (``--appends 5``): 20.0 ms at 100, 1,464.8 ms
at 10,000 (ratio 73).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from companion.results import ResultStore, write_jsonl


def _record(i: int, size: int) -> dict:
    pad = "x" * max(0, size - 200)
    return {
        "key": f"k{i:08d}",
        "model": "bench",
        "meta": {"kind": "bench", "seed": i},
        "dnll": 0.001 * i,
        "pad": pad,
        "command": "bench/results_append.py",
        "version": "bench",
        "time": "2026-01-01T00:00:00Z",
        "host": {},
        "dtype": None,
        "device": None,
        "seed": i,
    }


def measure(n: int, appends: int, size: int, folder: Path) -> list[float]:
    """Milliseconds of each of ``appends`` appends to a file already holding ``n`` records."""
    path = folder / f"leverage-{n}.jsonl"
    write_jsonl(path, (_record(i, size) for i in range(n)))
    store = ResultStore(path)
    times = []
    for j in range(appends):
        rec = _record(n + j, size)
        t0 = time.perf_counter()
        store.append(rec, command="bench")
        times.append((time.perf_counter() - t0) * 1e3)
    assert len(store.records()) == n + appends
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 10_000])
    ap.add_argument("--appends", type=int, default=100)
    ap.add_argument("--bytes", type=int, default=600, help="JSON bytes per record")
    ap.add_argument("--dir", default=None, help="folder for the files (default: a temporary)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        per = {n: measure(n, args.appends, args.bytes, Path(tmp)) for n in args.sizes}
    med = {str(n): round(statistics.median(t), 3) for n, t in per.items()}
    p90 = {str(n): round(sorted(t)[int(0.9 * len(t))], 3) for n, t in per.items()}
    lo, hi = str(min(args.sizes)), str(max(args.sizes))
    out = {
        "per_append_ms": med,
        "p90_ms": p90,
        "ratio": round(med[hi] / med[lo], 3),
        "appends": args.appends,
        "bytes_per_record": args.bytes,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
    }
    if args.json:
        print(json.dumps(out))
    else:
        for n in args.sizes:
            print(f"{n:>8} records: {med[str(n)]:.3f} ms per append (p90 {p90[str(n)]:.3f})")
        print(f"ratio {hi} / {lo}: {out['ratio']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
