"""What results exist, measured where, and the commands of the full-scale runs.

:func:`results_inventory` says which results files exist, measured where and how;
:func:`full_scale_results` picks the records written at full scale (or on a GPU), and
:func:`full_scale_commands` gives the exact commands that produce them. The Results at full
scale page shows them (:func:`inventory_html`, :func:`commands_html`).
"""

from __future__ import annotations

import html
import os
from pathlib import Path

from companion.site.book_pages import doc_title
from companion.site.paths import repo_root

__all__ = [
    "commands_html",
    "full_scale_commands",
    "full_scale_results",
    "inventory_html",
    "results_inventory",
]


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
    items = "".join(
        f"<li><a href='{page.removeprefix('book/')}.html'>{doc_title(page)}</a>: "
        f"<code>{html.escape(cmd)}</code></li>"
        for page, cmd in full_scale_commands()
    )
    return f"<ul>{items}</ul>"
