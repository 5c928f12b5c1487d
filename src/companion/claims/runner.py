"""Measuring one claim and its control: :func:`run` turns a :class:`Measurement` (or a
:class:`NotRun`) into a :class:`ClaimResult` with its status."""

from __future__ import annotations

import time

from companion.claims.core import Claim, ClaimResult, Measurement, NotRun
from companion.claims.machine import display_name, machine, today
from companion.scale import check_scale

__all__ = ["run"]


def _build_measured_on(scale: str) -> dict:
    return {"where": "this build", "date": today(), "machine": machine(), "scale": scale}


def _run_control(c: Claim, scale: str, full: bool) -> dict:
    if c.control is None:
        return {"control_status": "none"}
    try:
        m = c.control(scale=scale, full=full)
    except NotRun as why:
        return {"control_status": "not-run", "control_detail": str(why)}
    return {
        "control_status": _status(m),
        "control_value": m.value,
        "control_detail": m.detail or m.reason,
    }


def _status(m: Measurement) -> str:
    return "unresolved" if m.unresolved else ("reproduced" if m.agrees else "deviates")


def run(
    claim: Claim, *, scale: str = "cpu", full: bool = False, controls: bool = True
) -> ClaimResult:
    """Measure one claim at ``scale`` (``"cpu"``, ``"full"`` or ``"smoke"``), and its control.

    Heavy claims read results files and are ``not-run`` when records are absent or incomplete
    unless ``full`` (then they run what is missing first). ``controls=False`` skips the
    control (its status is then ``not-run``). A claim by its id: :func:`companion.ledger.run`.
    """
    check_scale(scale)
    if not isinstance(claim, Claim):
        raise TypeError(
            f"`claim` must be a Claim (look one up by id with companion.ledger.get); got {claim!r}"
        )
    c = claim
    common = dict(
        id=c.id,
        paper=c.paper,
        evidence=c.evidence,
        statement=c.statement,
        paper_value=c.paper_value,
        provenance=c.provenance,
        chapter=c.chapter,
        method=c.method,
        tolerance=c.tolerance,
        models=tuple(display_name(m) for m in c.models),
        needs=c.needs,
        command=c.command,
        control_method=c.control_method,
        control_none=c.control_none,
    )
    t0 = time.perf_counter()
    try:
        m = c.measure(scale=scale, full=full)
    except NotRun as why:
        ctl = _run_control(c, scale, full) if controls else {"control_status": "not-run"}
        if c.control is None:
            ctl = {"control_status": "none"}
        return ClaimResult(
            **common | {"needs": why.needs or c.needs, "command": why.command or c.command},
            value=None,
            stderr=None,
            status="not-run",
            runtime_s=time.perf_counter() - t0,
            reason=str(why),
            measured_on={"where": "not run", "scale": scale}
            | ({"records": f"{why.present} of {why.expected}"} if why.expected is not None else {}),
            **ctl,
        )
    status = _status(m)
    if status in ("deviates", "unresolved") and not m.reason:
        verb = "deviates" if status == "deviates" else "is unresolved"
        raise ValueError(f"`reason` must be given when claim {c.id!r} {verb}; got an empty string")
    runtime = time.perf_counter() - t0
    ctl = _run_control(c, scale, full) if controls else {"control_status": "not-run"}
    if c.control is None:
        ctl = {"control_status": "none"}
    return ClaimResult(
        **common,
        value=m.value,
        stderr=m.stderr,
        shown=m.shown,
        status=status,
        runtime_s=runtime,
        detail=m.detail,
        reason=m.reason,
        source=m.source,
        measured_on=m.measured_on or _build_measured_on(scale),
        **ctl,
    )
