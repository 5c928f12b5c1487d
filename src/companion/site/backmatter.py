"""Data behind the book's back-matter pages: execution times, the seminar plan, what results exist.

* :func:`exec_record` is the one measured source of chapter run times: ``bench/exec_times.json``,
  written by ``python -m companion.site.backmatter record`` after a ``make book`` from that
  build's execution records, with the machine it ran on. The Execution times page and the
  seminar page both read it; a wheel ships a copy (``companion/site/exec_times.json``, see
  ``setup.py``), so the pages show the same numbers from an installed package.
* :data:`SEMINAR` is the 90-minute plan: every chapter of both parts, either in the session
  (minutes, what to do in the room, what to move on the projector) or set as reading with the
  reason. :func:`seminar_rows` adds each chapter's measured run time.
* :func:`results_inventory` says which results files exist, measured where and how;
  :func:`full_scale_results` picks the records written at full scale (or on a GPU), and
  :func:`full_scale_commands` gives the exact commands that produce them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from companion.site.paths import deck_path, repo_root
from companion.tables import html_table

__all__ = [
    "SEMINAR",
    "SESSION_MINUTES",
    "Stop",
    "book_root",
    "doc_title",
    "exec_record",
    "exec_times",
    "exec_times_html",
    "commands_html",
    "full_scale_commands",
    "full_scale_results",
    "inventory_html",
    "machine",
    "repo_root",
    "results_inventory",
    "seminar_html",
    "seminar_rows",
]

SESSION_MINUTES = 90


@dataclass(frozen=True)
class Stop:
    """One page of the seminar plan.

    ``minutes`` > 0: taught in the session (``plan``: what happens in the room; ``projector``:
    what to move in the chapter's kernel-free Explore figure). ``minutes == 0``: set as reading
    before or after the session, and ``plan`` says why it is not in the room.
    """

    doc: str
    minutes: int
    plan: str
    projector: str = ""

    @property
    def in_session(self) -> bool:
        return self.minutes > 0


#: The 90-minute plan (our suggestion), in book order: both papers, every chapter placed.
SEMINAR = (
    Stop(
        "book/intro",
        4,
        "The question of both papers: what does a normalisation layer throw away? "
        "How to read a chapter and its claims box.",
    ),
    Stop(
        "book/sign_magnitude/bussgang",
        7,
        "Fact 1: derive 2/π on the board (one line from Bussgang's theorem).",
        "width n: the cosine settles on 2/π; then the weights' distribution",
    ),
    Stop(
        "book/sign_magnitude/rmsnorm_filter",
        5,
        "RMSNorm keeps only the transverse part of a perturbation: draw the sphere.",
        "angle (°): at 0° the perturbation is radial and the output does not move",
    ),
    Stop(
        "book/sign_magnitude/energy_equality",
        5,
        "Proposition 1: equal energy for both kinds of perturbation; the direction decides.",
        "flip rate p and width m: the two energies stay equal",
    ),
    Stop(
        "book/sign_magnitude/theorem3",
        12,
        "The main result: statement, the factor π/(π−2) against the simulation ± SE, the trap "
        "of measuring after the norm; do the expansion exercise together.",
        "flip rate p and width n: limit, author's formula, exact kernel and simulation",
    ),
    Stop(
        "book/sign_magnitude/theorem4",
        5,
        "Quantisation error is itself sign-preserving, so it is the mild kind (cos² → 2/π).",
        "quantiser and width n",
    ),
    Stop(
        "book/sign_magnitude/multilayer",
        3,
        "One figure: the asymmetry does not compound with depth, so depth cannot explain "
        "the 6–24× of real models.",
        "depth L and activation: no growth with depth",
    ),
    Stop(
        "book/sign_magnitude/leverage",
        5,
        "Outlier features: R ≈ nα², the explanation that does fit real models.",
        "amplitude α: R grows like nα²",
    ),
    Stop(
        "book/sign_magnitude/at_scale",
        3,
        "What a real model shows, from the results files shipped with the book (no run in "
        "the room): the Bussgang constant on trained weights, flips in outlier columns, and "
        "their claims' status.",
        "flip fraction p and which weights the flips hit",
    ),
    Stop(
        "book/dead_directions/ln_kernel",
        10,
        "The dead direction γ⁻¹/‖γ⁻¹‖: prove it in two lines on the board; read it off the "
        "parameters with no forward pass.",
        "γ spread σ and width d: the bottom eigenvalue stays at zero",
    ),
    Stop(
        "book/dead_directions/rms_no_kernel",
        5,
        "RMSNorm has no such kernel: the authors' Lean witness, and the trap of |cos| alone.",
        "γ spread σ: no eigenvalue reaches zero",
    ),
    Stop(
        "book/dead_directions/kfac_lift",
        0,
        "Reading: it lifts the activation kernel of the previous chapters into parameter space "
        "through the K-FAC approximation, which needs Fisher-information background that a "
        "90-minute session cannot build; it adds no new measurement to the session's story.",
    ),
    Stop(
        "book/dead_directions/walk",
        0,
        "Reading: it walks the K-FAC chapter's flat curve on a trained Whisper decoder and "
        "derives the framework underneath (Fisher decay, the LayerNorm bracket); it builds "
        "on the K-FAC lift, which is itself set as reading.",
    ),
    Stop(
        "book/dead_directions/sigma_min",
        6,
        "The residual stream's σₘᵢₙ does not shrink unless a block cancels the stream.",
        "depth and cancellation c: σₘᵢₙ falls only when c is large",
    ),
    Stop(
        "book/dead_directions/schur_ratio",
        0,
        "Reading: the paper's formula for the Schur ratio is not available to this project; the "
        "chapter is our own operationalisation, so its numbers are ours and not the paper's, and "
        "they are better discussed than presented.",
    ),
    Stop(
        "book/dead_directions/classifier",
        7,
        "How large |cos| gets by chance (the exact null), and the kernel as a classifier "
        "of the norm.",
        "width d and activations: the null against the kernel",
    ),
    Stop(
        "book/dead_directions/at_scale",
        4,
        "The diagnostic on real checkpoints: one forward pass per model, from the shipped "
        "results (random-init registry and three trained models).",
        "model: measured against read-off direction",
    ),
    Stop(
        "book/dead_directions/training",
        0,
        "Reading: the book's own tiny GPT and its RMSNorm twin, trained here; both papers' "
        "geometry at every checkpoint beside the validation loss.",
    ),
    Stop(
        "book/ledger",
        9,
        "The claims ledger, then discussion: what reproduced, what deviates and why, what was "
        "not run; each group takes one chapter's discussion box.",
    ),
    Stop(
        "book/results_full_scale",
        0,
        "Reading: what was measured where, and the commands for the full-scale runs; nothing "
        "there runs in the room (the model experiments need a GPU).",
    ),
)

_RECORD = Path("bench") / "exec_times.json"


def book_root(start: str | os.PathLike | None = None) -> Path | None:
    """:func:`repo_root`, or None outside a checkout (an installed package, e.g. on Colab)."""
    try:
        return repo_root(start)
    except FileNotFoundError:
        return None


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
    if base is not None and (base / _RECORD).exists():
        path = base / _RECORD
    else:
        path = Path(__file__).with_name("exec_times.json")
        if not path.exists():
            return None
    return json.loads(path.read_text(encoding="utf-8"))


def exec_times(root: str | os.PathLike | None = None) -> dict[str, float]:
    """``{page: seconds}`` from :func:`exec_record` (empty when nothing was measured)."""
    rec = exec_record(root)
    return {} if rec is None else {d: float(s) for d, s in rec["seconds"].items()}


def seminar_rows(times: dict[str, float] | None = None) -> list[dict]:
    """The plan with a clock: each :data:`SEMINAR` stop, its start and end minute in the
    session (None for reading) and its measured run time in seconds (None if not measured)."""
    times = exec_times() if times is None else times
    rows, clock = [], 0
    for stop in SEMINAR:
        start = clock if stop.in_session else None
        clock += stop.minutes
        rows.append(
            {
                "doc": stop.doc,
                "minutes": stop.minutes,
                "start": start,
                "end": clock if stop.in_session else None,
                "plan": stop.plan,
                "projector": stop.projector,
                "in_session": stop.in_session,
                "run_seconds": times.get(stop.doc),
            }
        )
    return rows


def doc_title(doc: str, root: str | os.PathLike | None = None) -> str:
    """The page's ``# `` heading as HTML, its ``$math$`` marked up for MathJax (the page name
    outside a checkout)."""
    import html
    import re

    base = book_root(root)
    path = None if base is None else base / f"{doc}.md"
    if path is None or not path.exists():
        return html.escape(doc.split("/")[-1].replace("_", " "))
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            parts = re.split(r"\$([^$]+)\$", line[2:].strip())
            return "".join(
                html.escape(t)
                if i % 2 == 0
                else f'<span class="math notranslate nohighlight">\\({html.escape(t)}\\)</span>'
                for i, t in enumerate(parts)
            )
    return html.escape(doc)


def _where(rec: dict | None) -> str:
    """ "on 2 cores of <CPU>, 2026-11-29" for a record (its load average stays in the file)."""
    if rec is None:
        return "not measured"
    m = rec.get("machine", {})
    return (
        f"on {m.get('cores', '?')} cores of {m.get('cpu', 'an unrecorded CPU')}, "
        f"{rec.get('date', 'undated')}"
    )


def _secs(x: float | None) -> str:
    return "not measured" if x is None else f"{x:.0f} s"


def exec_times_html(rec: dict | None = None) -> str:
    """The Execution times table: every measured page with its seconds, and where."""
    import html

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
        f"<b>{total / 60:.1f} min</b> in all, measured {html.escape(_where(rec))} by "
        f"<code>{html.escape(rec.get('command', ''))}</code>.</p>"
    )


def seminar_html(rows: list[dict] | None = None, rec: dict | None = None) -> str:
    """The seminar page's plan: the session minute by minute, then the reading."""
    import html
    import posixpath

    rec = exec_record() if rec is None else rec
    rows = (
        seminar_rows(
            exec_times() if rec is None else {d: float(s) for d, s in rec["seconds"].items()}
        )
        if rows is None
        else rows
    )

    def href(path):
        return posixpath.relpath(path, "book")

    session, reading = [], []
    for r in rows:
        page = f"<a href='{href(r['doc'] + '.html')}'>{doc_title(r['doc'])}</a>"
        chapter = r["doc"].count("/") == 2
        if not r["in_session"]:
            reading.append(f"<li>{page}: {html.escape(r['plan'])}</li>")
            continue
        use = []
        if chapter:
            use.append(f"<a href='{href(deck_path(r['doc']))}'>slides</a>")
            use.append(
                f"<a href='{href(r['doc'] + '.html')}#explore'>Explore</a>: "
                f"{html.escape(r['projector'])}"
            )
        session.append(
            [
                f"{r['start']}–{r['end']}",
                page,
                str(r["minutes"]),
                html.escape(r["plan"]),
                "<br>".join(use),
                _secs(r["run_seconds"]) if chapter else "",
            ]
        )
    minutes = sum(r["minutes"] for r in rows)
    measured = [r["run_seconds"] for r in rows if r["in_session"] and r["run_seconds"]]
    columns = ["minute", "page", "min", "in the room", "on the projector", "Run all"]
    return (
        html_table(columns, session, numeric=[False, False, True, False, False, True])
        + f"<p>Session: <b>{minutes} minutes</b>. Run all of the session's chapters: "
        f"<b>{sum(measured) / 60:.1f} min</b> in all, measured {html.escape(_where(rec))}.</p>"
        f"<p><b>Reading</b>, before or after the session:</p><ul>{''.join(reading)}</ul>"
    )


def _scale_of(rec: dict, path: Path) -> str:
    for src in (rec, rec.get("settings", {}), rec.get("meta", {})):
        if isinstance(src, dict) and src.get("scale"):
            return str(src["scale"])
    for scale in ("full", "smoke", "cpu"):
        if path.stem.endswith("-" + scale):
            return scale
    return "?"


def _results_roots(root):
    from companion.results import results_root

    if root is not None:
        return [repo_root(root) / "results"]
    return list(dict.fromkeys((results_root(write=True), results_root())))


def _records(root):
    from companion.results import read_jsonl

    for base in _results_roots(root):
        for path in sorted(base.rglob("*.jsonl")):
            if "_scratch" in path.parts:
                continue
            name = "results/" + path.relative_to(base).as_posix()
            yield name, path, read_jsonl(path)


def results_inventory(root: str | os.PathLike | None = None) -> list[dict]:
    """One row per results file (``results/**.jsonl``): ``file``, ``records``, ``models``,
    ``scales``, ``devices``, ``commands`` and the ``first``/``last`` record time. ``root``: a
    checkout (default: the results roots of :mod:`companion.results`)."""
    rows = []
    for name, path, recs in _records(root):
        if not recs:
            continue

        def values(key, recs=recs):
            return sorted({str(r.get(key)) for r in recs if r.get(key) is not None})

        times = values("time")
        rows.append(
            {
                "file": name,
                "records": len(recs),
                "models": values("model"),
                "scales": sorted({_scale_of(r, path) for r in recs}),
                "devices": values("device"),
                "commands": values("command"),
                "first": times[0] if times else None,
                "last": times[-1] if times else None,
            }
        )
    return rows


def full_scale_results(root: str | os.PathLike | None = None) -> list[dict]:
    """Every record under ``results/**.jsonl`` written at full scale (``scale == "full"``) or
    on a CUDA device, with the file it came from in ``_file``; ``root`` as in
    :func:`results_inventory`."""
    return [
        {**rec, "_file": name}
        for name, path, recs in _records(root)
        for rec in recs
        if _scale_of(rec, path) == "full" or str(rec.get("device", "")).startswith("cuda")
    ]


def full_scale_commands() -> list[tuple[str, str]]:
    """``(page, command)`` for every full-scale run the at-scale chapters read, exactly as
    their code writes the command (one experiment or model set per line)."""
    from companion.chapters.dead_directions import at_scale as dd
    from companion.chapters.sign_magnitude import at_scale as sm
    from companion.llm import sign_flips as sf

    model = sm.SIZES["full"].model
    out = [(sm.CHAPTER, sf.command_line(e, model, "full")) for e in sf.EXPERIMENTS]
    out += [(dd.CHAPTER, line) for line in dd.commands("full").splitlines()]
    return out


def inventory_html(root: str | os.PathLike | None = None) -> str:
    """The Results at full scale page's account: what was measured where, then the commands
    that produce the full-scale results (``root`` as in :func:`results_inventory`)."""
    import html

    e = html.escape
    inv = results_inventory(root)
    full = full_scale_results(root)
    gpu = sorted(
        {str(r.get("device")) for r in full if str(r.get("device", "")).startswith("cuda")}
    )
    used = sorted({d for r in inv for d in r["devices"]})
    devices = "a CPU" if used == ["cpu"] else "the devices " + ", ".join(map(e, used))
    if full:
        lead = (
            f"<p>{len(full)} record{'s were' if len(full) != 1 else ' was'} written at full "
            "scale or on a GPU "
            f"({', '.join(map(e, gpu)) or 'no GPU recorded'}); they are listed with the rest.</p>"
        )
    else:
        lead = (
            "<p><b>Nothing has been measured at full scale, and no GPU has run for this book:</b> "
            f"none of the {sum(r['records'] for r in inv)} records shipped in "
            f"{len(inv)} results files comes from a full-scale run or a CUDA device. Every "
            f"model result in the book was measured on {devices} at the scale of its file "
            "below, by the command listed with it.</p>"
        )
    items = []
    for r in inv:
        n = len(r["commands"])
        cmds = "\n".join(e(c) for c in r["commands"])
        items.append(
            f"<li><code>{e(r['file'])}</code>: {r['records']} records of "
            f"{len(r['models'])} model(s) ({e(', '.join(r['models']))}), scale "
            f"{e(', '.join(r['scales']))}, device {e(', '.join(r['devices']) or 'not recorded')}"
            f", last written {e((r['last'] or 'at an unrecorded time')[:10])}."
            f"<details><summary>the {n} command{'s' * (n != 1)} that wrote it</summary>"
            f"<pre style='white-space: pre-wrap'>{cmds}</pre></details></li>"
        )
    return lead + f"<ul>{''.join(items)}</ul>"


def commands_html() -> str:
    """:func:`full_scale_commands` as a list, each command under the chapter that reads it."""
    import html

    items = "".join(
        f"<li><a href='{page.removeprefix('book/')}.html'>{doc_title(page)}</a>: "
        f"<code>{html.escape(cmd)}</code></li>"
        for page, cmd in full_scale_commands()
    )
    return f"<ul>{items}</ul>"


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


def _record(args) -> int:
    root = repo_root()
    cache = root / "_build" / ".jupyter_cache"
    times = _cache_times(cache) if cache.exists() else {}
    if not times:
        print(
            "error: no execution records in _build/.jupyter_cache: run `make book` first",
            file=sys.stderr,
        )
        return 2
    out = root / _RECORD
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


def main(argv=None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m companion.site.backmatter", description=__doc__.splitlines()[0]
    )
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser(
        "record", help="write bench/exec_times.json from the last `make book`'s execution records"
    ).set_defaults(func=_record)
    args = p.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
