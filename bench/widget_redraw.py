"""Time live slider moves of every chapter's Explore figure at its default sizes.

    .venv/bin/python bench/widget_redraw.py --json            # every chapter
    .venv/bin/python bench/widget_redraw.py sign_magnitude/theorem3 dead_directions/ln_kernel

A move is what the live widget does when the reader lets go of a control: set the
parameter, update the persistent figure, render it and encode the PNG the
``ipywidgets.Image`` receives (:meth:`companion.widgets.PersistentFigure.png`). Each
control in turn steps through the values the page offers and back to its start, the
others at their defaults. The first pass visits every value for the first time
(``cold_median_ms``: it includes computing a simulation that the chapter caches per
value); the second pass repeats the same moves (``median_ms``, ``p90_ms``: the redraw
itself, as after the page's own precomputation, which fills those caches). The chapters
are found through :data:`companion.chapters.CHAPTERS` (each module's ``explore()``).

``--json`` prints one JSON object, chapter -> {"median_ms", "p90_ms", "cpu_median_ms",
"cold_median_ms", "moves", "full_redraws"} (and "page_s", the time to precompute the page's
figures, with ``--page``); without it, a table. "cpu_median_ms" is the process's CPU time
per move (what a move costs this process, whatever else runs on the machine: on a shared
machine the wall-clock median is the larger). The machine and its load average go to
stderr. Reported in the README; never asserted in tests (these machines are noisy).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import matplotlib

matplotlib.use("Agg")

from companion.chapters import CHAPTERS, explorer  # noqa: E402


def moves(ex) -> list[dict]:
    """Every control through its page values and back to its default, one at a time."""
    out = []
    for name, ctl in ex.controls.items():
        out += [{**ex.defaults, name: v} for v in ctl.page_values() if v != ctl.value]
        out.append(ex.defaults)
    return out


def time_moves(ex, *, page: bool = False) -> dict:
    fig = ex.figure
    fig.png(ex.defaults)  # the first draw (layout) is not a move
    plan = moves(ex)
    passes, cpu = [], []
    for _ in range(2):
        times = []
        for params in plan:
            t0, c0 = time.perf_counter(), time.process_time()
            fig.png(params)
            times.append(1000 * (time.perf_counter() - t0))
            cpu.append(1000 * (time.process_time() - c0))
        passes.append(times)
    cold, warm = passes
    out = {
        "median_ms": round(statistics.median(warm), 1),
        "p90_ms": round(statistics.quantiles(warm, n=10)[-1], 1) if len(warm) > 1 else warm[0],
        "cpu_median_ms": round(statistics.median(cpu[len(plan) :]), 1),
        "cold_median_ms": round(statistics.median(cold), 1),
        "moves": len(warm),
        "full_redraws": fig.full_redraws,
    }
    if page:
        t0 = time.perf_counter()
        ex.frames()
        out["page_s"] = round(time.perf_counter() - t0, 1)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("chapters", nargs="*", help="chapters to time (default: all)")
    ap.add_argument("--json", action="store_true", help="print a JSON object")
    ap.add_argument("--page", action="store_true", help="also time precomputing the page")
    args = ap.parse_args(argv)
    unknown = [c for c in args.chapters if c not in CHAPTERS]
    if unknown:
        print(
            f"error: unknown chapter {unknown[0]!r}; one of {', '.join(CHAPTERS)}", file=sys.stderr
        )
        return 2
    load = os.getloadavg()
    print(
        f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}",
        file=sys.stderr,
    )
    results = {}
    for chapter in args.chapters or list(CHAPTERS):
        results[chapter] = time_moves(explorer(chapter), page=args.page)
        if not args.json:
            r = results[chapter]
            print(
                f"{chapter:34s} median {r['median_ms']:7.1f} ms  p90 {r['p90_ms']:7.1f} ms  "
                f"CPU {r['cpu_median_ms']:6.1f} ms  "
                f"first visit {r['cold_median_ms']:7.1f} ms  ({r['moves']} moves, "
                f"{r['full_redraws']} full redraws)"
                + (f"  page {r['page_s']:.1f} s" if "page_s" in r else ""),
                flush=True,
            )
    if args.json:
        print(json.dumps(results, indent=1))
    print(f"# load average after: {os.getloadavg()[0]:.1f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
