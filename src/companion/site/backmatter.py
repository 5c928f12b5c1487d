"""Data behind the book's back-matter pages: execution times, the seminar path, full-scale results.

Run from a checkout (the book build); from an installed package (a notebook on Colab) the
pages still run: execution times are then "not measured" and full-scale results are read
from the results roots of :mod:`companion.results`.

* :func:`exec_times` reads how long each chapter took to execute, from the execution cache
  of the current build (``_build/.jupyter_cache``, the data behind ``{nb-exec-table}``) or from
  ``bench/exec_times.json``, which ``python -m companion.site.backmatter record`` writes after a
  ``make book`` together with the machine it ran on.
* :data:`SEMINAR` is the suggested 90-minute path; :func:`seminar_rows` adds the measured
  execution time of each chapter on this machine.
* :func:`full_scale_results` finds results files written by ``companion run ... --scale full``
  under the results roots (the checkout's ``results/``, or the shipped and the user's).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

__all__ = [
    "SEMINAR",
    "book_root",
    "exec_times",
    "full_scale_results",
    "machine",
    "repo_root",
    "seminar_rows",
]

#: (docname, suggested minutes of teaching/discussion, what to do in the room). The minutes
#: are our suggestion; the execution times next to them are measured (see seminar_rows).
SEMINAR = [
    ("book/intro", 5, "The two papers in one picture each; how the book is built."),
    ("book/sign_magnitude/bussgang", 8, "Fact 1: derive 2/π on the board; move n in the widget."),
    (
        "book/sign_magnitude/rmsnorm_filter",
        8,
        "RMSNorm as a radial filter: what survives the norm.",
    ),
    ("book/sign_magnitude/energy_equality", 7, "Equal-norm sign flips vs magnitude changes."),
    (
        "book/sign_magnitude/theorem3",
        8,
        "The π/(π−2) ratio: statement, simulation ± SE, one exercise.",
    ),
    ("book/sign_magnitude/leverage", 6, "Outliers and R ≈ nα²: why real models are more fragile."),
    ("book/dead_directions/ln_kernel", 10, "The dead direction γ⁻¹/‖γ⁻¹‖: prove it in two lines."),
    ("book/dead_directions/rms_no_kernel", 5, "RMSNorm has no such kernel: the witness."),
    ("book/dead_directions/sigma_min", 7, "σ_min does not shrink with depth."),
    ("book/dead_directions/classifier", 8, "Telling LayerNorm from RMSNorm by the kernel alone."),
    ("book/ledger", 5, "The claims ledger: what reproduced, what deviates, what was not run."),
]


def repo_root(start: str | os.PathLike | None = None) -> Path:
    """The folder holding ``_config.yml``, searched upwards from ``start`` (default: cwd)."""
    here = Path(start or os.getcwd()).resolve()
    for p in (here, *here.parents):
        if (p / "_config.yml").exists() and (p / "_toc.yml").exists():
            return p
    raise FileNotFoundError(f"`start` must lie inside the book repository; got {here}")


def book_root(start: str | os.PathLike | None = None) -> Path | None:
    """:func:`repo_root`, or None outside a checkout (an installed package, e.g. on Colab)."""
    try:
        return repo_root(start)
    except FileNotFoundError:
        return None


def machine() -> dict:
    """Where a timing was measured: CPU model, usable cores, Python, platform."""
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


def _cache_times(cache_dir: Path) -> dict[str, dict]:
    if not cache_dir.exists():
        return {}
    from jupyter_cache import get_cache

    out = {}
    for rec in get_cache(str(cache_dir)).list_cache_records():
        secs = (rec.data or {}).get("execution_seconds")
        if secs is None:
            continue
        doc = _docname(rec.uri)
        if doc and (doc not in out or str(rec.created) > out[doc]["when"]):
            out[doc] = {"seconds": float(secs), "when": str(rec.created), "source": "this build"}
    return out


def _docname(uri: str) -> str | None:
    parts = Path(uri).with_suffix("").parts
    return "/".join(parts[parts.index("book") :]) if "book" in parts else None


def exec_times(root: str | os.PathLike | None = None) -> dict[str, dict]:
    """``{docname: {"seconds", "when", "source"}}``: the current build's cache, else the record.

    The cache gives the times of this build on this machine; chapters not (yet) in it are
    taken from ``bench/exec_times.json`` (with ``source`` naming the machine it records).
    """
    root = book_root(root)
    if root is None:
        return {}
    out = {}
    path = root / "bench" / "exec_times.json"
    if path.exists():
        rec = json.loads(path.read_text(encoding="utf-8"))
        m = rec.get("machine", {})
        src = f"bench/exec_times.json ({m.get('cores', '?')} cores, {rec.get('date', '?')})"
        for doc, secs in rec.get("seconds", {}).items():
            out[doc] = {"seconds": float(secs), "when": rec.get("date", ""), "source": src}
    cache = os.environ.get("COMPANION_EXEC_CACHE", root / "_build" / ".jupyter_cache")
    out.update(_cache_times(Path(cache)))
    return out


def seminar_rows(times: dict[str, dict] | None = None) -> list[dict]:
    """The seminar path with each chapter's measured execution time (None if not measured)."""
    times = exec_times() if times is None else times
    rows = []
    for doc, minutes, what in SEMINAR:
        t = times.get(doc)
        rows.append(
            {
                "doc": doc,
                "minutes": minutes,
                "what": what,
                "run_seconds": None if t is None else t["seconds"],
                "source": None if t is None else t["source"],
            }
        )
    return rows


def full_scale_results(root: str | os.PathLike | None = None) -> list[dict]:
    """Every record under ``results/**.jsonl`` written at full scale (``scale == "full"`` or a
    CUDA device), with the file it came from (``results/<experiment>/...``). Records keep their
    ``command`` and ``host``. ``root``: a checkout (default: the results roots of
    :mod:`companion.results`)."""
    from companion.results import read_jsonl, results_root

    if root is not None:
        roots = [repo_root(root) / "results"]
    else:
        roots = list(dict.fromkeys((results_root(write=True), results_root())))
    found = []
    for base in roots:
        for path in sorted(base.rglob("*.jsonl")):
            if "_scratch" in path.parts:
                continue
            for rec in read_jsonl(path):
                settings = rec.get("settings", {})
                scale = rec.get("scale", settings.get("scale"))
                if scale == "full" or str(rec.get("device", "")).startswith("cuda"):
                    name = "results/" + path.relative_to(base).as_posix()
                    found.append({**rec, "_file": name})
    return found


def _record(args) -> int:
    root = repo_root()
    times = {d: v["seconds"] for d, v in _cache_times(root / "_build" / ".jupyter_cache").items()}
    if not times:
        print(
            "no execution records in _build/.jupyter_cache: run `make book` first", file=sys.stderr
        )
        return 1
    out = root / "bench" / "exec_times.json"
    out.parent.mkdir(exist_ok=True)
    rec = {
        "command": "make book && python -m companion.site.backmatter record",
        "date": time.strftime("%Y-%m-%d"),
        "machine": machine(),
        "seconds": dict(sorted(times.items())),
    }
    out.write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
    total = sum(times.values())
    cores = rec["machine"]["cores"]
    print(f"wrote {out} ({len(times)} chapters, {total:.0f} s in all, {cores} cores)")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m companion.site.backmatter", description=__doc__.splitlines()[0]
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser(
        "record", help="write bench/exec_times.json from the current build's cache"
    ).set_defaults(func=_record)
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
