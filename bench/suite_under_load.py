"""The browser suite, run several times in a row while another CPU-heavy job runs.

    .venv/bin/python bench/suite_under_load.py --runs 5 [--html _build/html]

A flaky wait shows up only when the machine is busy, so this starts one CPU burner per core
(float64 matrix products in numpy, what the chapters' eigensolves do) and runs
``make site-test``'s pytest command on the built site ``--runs`` times, one after another,
printing each run's outcome and wall time and the 1-minute load average it saw. The burners
stop when the runs end. A measurement for the README or a note, not a test.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import subprocess
import sys
import time

SUITE = [
    "-m", "pytest", "tests/site/test_browser.py", "tests/site/test_suite.py",
    "-p", "pytest_playwright.pytest_playwright", "-p", "no:cacheprovider", "-q",
    "-W", "ignore::pytest.PytestRemovedIn10Warning",
]  # fmt: skip


def _burn(stop) -> None:
    import numpy as np

    a = np.random.default_rng(0).standard_normal((400, 400))
    while not stop.is_set():
        a = np.tanh(a @ a.T / 400)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="suite runs in a row (default 5)")
    ap.add_argument("--html", default="_build/html", help="the built site")
    args = ap.parse_args(argv)
    if args.runs < 1:
        print(f"error: --runs must be at least 1; got {args.runs}", file=sys.stderr)
        return 2
    stop = mp.Event()
    burners = [mp.Process(target=_burn, args=(stop,)) for _ in range(os.cpu_count() or 1)]
    for b in burners:
        b.start()
    env = {**os.environ, "COMPANION_SITE_HTML": args.html, "OMP_NUM_THREADS": "1"}
    failed = 0
    try:
        for k in range(1, args.runs + 1):
            t0 = time.perf_counter()
            run = subprocess.run([sys.executable, *SUITE], env=env, capture_output=True, text=True)
            lines = run.stdout.strip().splitlines()
            failed += run.returncode != 0
            print(
                f"run {k}: {'passed' if run.returncode == 0 else 'FAILED'} in "
                f"{time.perf_counter() - t0:.0f} s, load {os.getloadavg()[0]:.1f}: "
                f"{lines[-1] if lines else ''}",
                flush=True,
            )
            if run.returncode:
                print("\n".join(ln for ln in lines if ln.startswith("FAILED")), flush=True)
    finally:
        stop.set()
        for b in burners:
            b.join()
    print(f"{args.runs - failed} of {args.runs} runs passed with {len(burners)} burners")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
