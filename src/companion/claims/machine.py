"""What a result was measured on: this machine, the machines, dates and commands of the
results records a claim read, and the registry's display names of its models."""

from __future__ import annotations

import time
from collections.abc import Iterable

__all__ = ["display_name", "machine", "measured_on_records", "today"]


def machine() -> str:
    """This machine in a few words (architecture, CPU cores, GPU if torch is loaded and sees
    one), e.g. ``"x86_64 CPU, 2 cores"``."""
    import os
    import platform
    import sys

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 0
    text = f"{platform.machine() or 'unknown'} CPU, {cores} core{'s' if cores != 1 else ''}"
    torch = sys.modules.get("torch")  # never import torch just to describe the machine
    if torch is not None and torch.cuda.is_available():
        text += f", GPU {torch.cuda.get_device_name(0)}"
    return text


def today() -> str:
    return time.strftime("%Y-%m-%d", time.gmtime())


def _record_machine(rec: dict) -> str:
    host = rec.get("host") or {}
    text = f"{host.get('machine') or 'unknown'} CPU"
    if host.get("cpus"):
        text += f", {host['cpus']} cores"
    gpu = host.get("gpu")
    if gpu:
        text += f", GPU {gpu}"
    elif str(rec.get("device", "")).startswith("cuda"):
        text += ", GPU"
    return text


def measured_on_records(
    records: Iterable[dict], *, file: str, scale: str, models: Iterable[str] = ()
) -> dict:
    """``measured_on`` of a measurement read from results records: where (the results file,
    relative to the results root), the scale, the machines and dates that wrote the records,
    their commands and the models (display names from the registry where known).

    Examples
    --------
    >>> recs = [{"time": "2026-11-29T16:09:32Z", "host": {"machine": "x86_64"},
    ...          "command": "companion run x"}]
    >>> m = measured_on_records(recs, file="x/y.jsonl", scale="cpu")
    >>> m["where"], m["date"], m["machine"]
    ('results file', '2026-11-29', 'x86_64 CPU')
    """
    recs = list(records)
    days = sorted({str(r["time"])[:10] for r in recs if r.get("time")})
    date = days[0] if len(days) == 1 else (f"{days[0]} to {days[-1]}" if days else "unknown")
    machines = sorted({_record_machine(r) for r in recs})
    commands = sorted({r["command"] for r in recs if r.get("command")})
    return {
        "where": "results file",
        "file": file,
        "scale": scale,
        "date": date,
        "machine": "; ".join(machines) or "unknown",
        "models": [display_name(m) for m in models],
        "commands": commands,
    }


def display_name(model: str) -> str:
    """The registry's display name of a model (the name itself when it is not registered)."""
    try:
        from companion.llm.registry import get_spec

        spec = get_spec(model)
    except Exception:  # the registry is optional (no llm extras) or the name is unregistered
        return model
    return getattr(spec, "display", None) or model
