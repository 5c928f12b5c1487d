"""Redraw time of the Part II (dead directions) widgets at their default settings.

Run: python bench/dead_directions_widgets.py
Prints the median seconds per redraw (computation + PNG rendering) and the machine.
"""

from __future__ import annotations

import os
import platform
import time

from companion.chapters.dead_directions import classifier, ln_kernel, rms_no_kernel
from companion.widgets import redraw_time

CASES = [
    ("ln_kernel (fp64)", ln_kernel.draw, {}),
    ("ln_kernel (bf16)", ln_kernel.draw, {"precision": "bfloat16"}),
    ("rms_no_kernel", rms_no_kernel.draw, {}),
    ("classifier (fp32)", classifier.draw, {}),
]

if __name__ == "__main__":
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for name, draw, params in CASES:
        t0 = time.perf_counter()
        fn = {"ln_kernel": ln_kernel.data, "rms_no_kernel": rms_no_kernel.data}.get(name.split()[0])
        compute = None
        if fn is not None:
            fn(**({k: v for k, v in params.items()}))
            compute = time.perf_counter() - t0
        t = redraw_time(draw, params, repeats=3)
        extra = f"  (computation alone {compute * 1000:.0f} ms)" if compute is not None else ""
        print(f"{name:20s} redraw {t * 1000:6.0f} ms{extra}")
