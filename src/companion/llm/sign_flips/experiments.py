"""The five experiments by name, and what their records summarise to.

:func:`summarize` and :func:`format_summary` are the same for every experiment: the fields
all records share (model, baseline, wall time) and then the experiment's own summary and
description (:class:`~companion.llm.sign_flips.context.Experiment`).
"""

from __future__ import annotations

from companion._validate import check_choice
from companion.llm.sign_flips import (
    alpha,
    columns,
    leverage,
    outlier,
    outlier_random,
    sign_vs_magnitude,
    table1,
)
from companion.llm.sign_flips.context import Experiment

__all__ = ["EXPERIMENTS", "experiment", "format_summary", "summarize"]

_BY_NAME = {
    m.EXPERIMENT.name: m.EXPERIMENT
    for m in (table1, outlier, leverage, alpha, columns, sign_vs_magnitude, outlier_random)
}
#: The experiments ``companion run sign-flips --experiment`` knows.
EXPERIMENTS = tuple(_BY_NAME)


def experiment(name: str) -> Experiment:
    """The :class:`~companion.llm.sign_flips.context.Experiment` called ``name``."""
    return _BY_NAME[check_choice(name, "name", EXPERIMENTS)]


def summarize(experiment: str, records: list) -> dict:
    """The numbers the chapter and the claims print, from one experiment's records.

    Raises
    ------
    ValueError
        When ``records`` holds no record of ``experiment`` (an empty or foreign results file).
    """
    exp = _BY_NAME[check_choice(experiment, "experiment", EXPERIMENTS)]
    if not isinstance(records, (list, tuple)) or not all(isinstance(r, dict) for r in records):
        raise TypeError(
            f"`records` must be a list of result records (dicts); got {type(records).__name__}"
        )
    if not any(str(r.get("key", "")).startswith(exp.prefix) for r in records):
        raise ValueError(
            f"`records` must hold at least one {experiment!r} record (key {exp.prefix!r}...); "
            f"got {len(records)} records without one"
        )
    by_key = {r["key"]: r for r in records if "key" in r}
    meta = next((r.get("meta", {}) for r in records if r.get("meta")), {})
    wall = float(sum(r.get("wall_s", 0.0) for r in records))
    out: dict = {"experiment": experiment, "meta": meta, "wall_s": wall}
    base = by_key.get("baseline")
    if base:
        out["baseline_nll"], out["baseline_ppl"] = base["nll"], base["ppl"]
    out.update(exp.summary(list(records), by_key))
    return out


def format_summary(s: dict) -> str:
    """A few lines of text summarising :func:`summarize`'s output."""
    if not isinstance(s, dict) or s.get("experiment") not in _BY_NAME:
        raise TypeError(f"`s` must be a summary from summarize(); got {type(s).__name__}")
    m = s.get("meta", {})
    toks = f", {m.get('eval_windows')} x {m.get('window')} tokens" if m.get("window") else ""
    lines = [
        f"{s['experiment']}: model {m.get('model')} ({m.get('dtype')}, {m.get('device')}), "
        f"scale {m.get('scale')}{toks}"
    ]
    if "baseline_ppl" in s:
        lines.append(f"baseline NLL {s['baseline_nll']:.4f}, PPL {s['baseline_ppl']:.3f}")
    lines += _BY_NAME[s["experiment"]].describe(s)
    lines.append(f"measurement wall time {s['wall_s']:.1f} s")
    return "\n".join(lines)
