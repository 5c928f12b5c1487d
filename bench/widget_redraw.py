"""Time one slider move (compute + render a PNG) of every chapter's widget at its default values.

    .venv/bin/python bench/widget_redraw.py

Prints a table: chapter, median seconds per redraw over 5 repeats, and
the machine it ran on. The figures are reported in the README; they are never
asserted as tests (these machines are noisy).
"""

from __future__ import annotations

import os
import platform

import matplotlib

matplotlib.use("Agg")

from companion.chapters import CHAPTERS, module  # noqa: E402
from companion.widgets import redraw_time  # noqa: E402


def main() -> None:
    print(
        f"# {platform.node()} {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}"
    )
    print(f"{'chapter':32s} {'median s / redraw':>18s}")
    for name in CHAPTERS:
        mod = module(name)
        if not hasattr(mod, "draw"):
            continue
        redraw_time(mod.draw, {}, repeats=1)  # warm caches (fonts, imports)
        print(f"{name:32s} {redraw_time(mod.draw, {}, repeats=5):18.3f}")


if __name__ == "__main__":
    main()
