"""Chapter run times: one measured record, ``bench/exec_times.json``.

:func:`exec_record` is the one measured source of chapter run times, written by
``python -m companion.site.backmatter record`` after a ``make book`` from that build's
execution records (:func:`record`), with the machine it ran on. The Execution times page and
the seminar page both read it; a wheel ships a copy (``companion/site/exec_times.json``, see
``setup.py``), so the pages show the same numbers from an installed package.
"""

from __future__ import annotations

import html
import json
import os
import platform
import sys
import time
from pathlib import Path

from companion.site.book_pages import book_root, doc_title
from companion.site.paths import repo_root
from companion.tables import html_table

__all__ = [
    "exec_record",
    "exec_times",
    "exec_times_html",
    "machine",
    "record",
    "secs",
    "where",
]

RECORD = Path("bench") / "exec_times.json"


def machine() -> dict:
    """Where a timing was measured: CPU model, usable cores, Python, platform, load."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu,
        "cores": cores,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_1min_when_recorded": None if load is None else round(load, 2),
    }


def exec_record(root: str | os.PathLike | None = None) -> dict | None:
    """The measured chapter run times: ``{"command", "date", "machine", "seconds"}``.

    Read from the checkout's ``bench/exec_times.json`` (``root``, default: the checkout around
    the working directory), else from the copy a wheel ships inside the package; None if
    neither exists. ``seconds`` maps a page (``book/...``) to its execution time.
    """
    base = book_root(root)
    if base is not None and (base / RECORD).exists():
        path = base / RECORD
    else:
        path = Path(__file__).with_name("exec_times.json")
        if not path.exists():
            return None
    return json.loads(path.read_text(encoding="utf-8"))


def exec_times(root: str | os.PathLike | None = None) -> dict[str, float]:
    """``{page: seconds}`` from :func:`exec_record` (empty when nothing was measured)."""
    rec = exec_record(root)
    return {} if rec is None else {d: float(s) for d, s in rec["seconds"].items()}


def where(rec: dict | None) -> str:
    """ "on 2 cores of <CPU>, 2026-11-29" for a record (its load average stays in the file)."""
    if rec is None:
        return "not measured"
    m = rec.get("machine", {})
    return (
        f"on {m.get('cores', '?')} cores of {m.get('cpu', 'an unrecorded CPU')}, "
        f"{rec.get('date', 'undated')}"
    )


def secs(x: float | None) -> str:
    return "not measured" if x is None else f"{x:.0f} s"


def exec_times_html(rec: dict | None = None) -> str:
    """The Execution times table: every measured page with its seconds, and where (the
    command that recorded them is on the How this book is built page, not here)."""
    rec = exec_record() if rec is None else rec
    if rec is None:
        return "<p>No execution times have been recorded yet.</p>"
    from companion.chapters import CHAPTERS

    rank = {"book/" + c: i for i, c in enumerate(CHAPTERS)}
    order = sorted(rec["seconds"], key=lambda d: (rank.get(d, len(rank)), d))  # book order
    rows = [
        [doc_title(d), f"<code>{html.escape(d)}.md</code>", f"{rec['seconds'][d]:.0f}"]
        for d in order
    ]
    total = sum(rec["seconds"].values())
    table = html_table(["page", "source file", "seconds"], rows, numeric=[False, False, True])
    return (
        f"{table}<p>{len(rec['seconds'])} pages, "
        f"<b>{total / 60:.1f} min</b> in all, measured {html.escape(where(rec))}.</p>"
    )


def _cache_times(cache_dir: Path) -> dict[str, float]:
    """``{page: seconds}`` of the newest execution of each page in a jupyter-cache folder."""
    from jupyter_cache import get_cache

    newest: dict[str, tuple] = {}
    for rec in get_cache(str(cache_dir)).list_cache_records():
        secs = (rec.data or {}).get("execution_seconds")
        parts = Path(rec.uri).with_suffix("").parts
        if secs is None or "book" not in parts:
            continue
        doc = "/".join(parts[parts.index("book") :])
        if doc not in newest or str(rec.created) > newest[doc][0]:
            newest[doc] = (str(rec.created), float(secs))
    return {d: s for d, (_, s) in sorted(newest.items())}


def record(args=None) -> int:
    """Write ``bench/exec_times.json`` from the last ``make book``'s execution records."""
    root = repo_root()
    cache = root / "_build" / ".jupyter_cache"
    times = _cache_times(cache) if cache.exists() else {}
    if not times:
        print(
            "error: no execution records in _build/.jupyter_cache: run `make book` first",
            file=sys.stderr,
        )
        return 2
    out = root / RECORD
    out.parent.mkdir(exist_ok=True)
    rec = {
        "command": "make book && python -m companion.site.backmatter record",
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "seconds": {d: round(s, 1) for d, s in times.items()},
    }
    out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    cores = rec["machine"]["cores"]
    print(f"wrote {out} ({len(times)} pages, {sum(times.values()):.0f} s in all, {cores} cores)")
    return 0
