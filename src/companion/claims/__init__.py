"""The claims framework: what a claim is, how one is measured, how its result is shown.

Each claim is one :class:`Claim`, declared as data by the chapter that derives it (the tuple
``CLAIMS`` of the chapter's module ``claims``); :mod:`companion.ledger` collects them, in book
order. A claim's ``measure(scale, full)`` reads the chapter's ``SIZES[scale]`` and returns a
:class:`Measurement`; :func:`run` times it and turns it into a :class:`ClaimResult` with a
status:

* ``reproduced``: our measurement agrees with the claim's reference within the claim's
  tolerance (4 standard errors wherever a standard error exists);
* ``deviates``: it does not, and ``reason`` says why (always written out);
* ``unresolved``: the data cannot decide: the measurement agrees with the reference, but
  also, within the same 4 standard errors, with the plausible wrong hypothesis the claim names
  (or the statistic sits at the working precision's rounding floor); ``reason`` says which,
  and what it would take to resolve (:func:`decide`);
* ``not-run``: it needs what this machine lacks (a GPU, a hub checkpoint, the paper's PDF) or
  records that are absent or incomplete; ``reason`` says which, and the command that makes them.

Every claim declares its **evidence** (:data:`EVIDENCE`): what kind of check it is. An
``identity`` or a ``simulation`` checks our own mathematics; only ``paper-number``,
``author-result`` and ``model`` claims face a number somebody else measured, so a reproduced
identity never counts as a reproduced paper number (the ledger counts them apart).

Every claim also carries a **negative control** (``control(scale, full)``): the same measure
run where the claim must fail (RMSNorm in place of LayerNorm, a shuffled γ, the wrong constant,
an injected compounding...). :func:`run` runs it next to the measure; it must come out
``deviates``, which shows that the check can fail. A claim without an honest control says why
in ``control_none``.

This package knows no chapter: the CLI ``companion claims``, the book's ledger page and every
chapter's claims box go through :mod:`companion.ledger`, which finds the claims and shows
their results with :mod:`companion.claims.render`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from companion.scale import check_scale

__all__ = [
    "CONTROL_STATUSES",
    "Claim",
    "ClaimResult",
    "EVIDENCE",
    "Measurement",
    "NotRun",
    "PROVENANCE",
    "STATUSES",
    "complete",
    "counts",
    "decide",
    "display_name",
    "machine",
    "measured_on_records",
    "run",
    "to_json",
]

#: Where a claim comes from (the specs' tags, in words a reader understands).
PROVENANCE = {
    "abstract": "the paper's abstract",
    "author-code": "the author's public code and result files",
    "lean": "the authors' public Lean proofs",
    "secondary": "machine-written secondary summaries (unverified)",
    "seed-only": "an AI-written seed summary only (unverified)",
    "reconstruction": "our own re-derivation (not the paper's text)",
}

#: What kind of check a claim is. Only the last three face somebody else's number; a
#: ``derivation`` is no check at all (the mutation suite has nothing to kill there).
EVIDENCE = {
    "derivation": "a step true by construction, shown numerically: it cannot fail, so it is "
    "never counted as a check",
    "identity": "an algebraic identity checked numerically (it faces no measurement)",
    "simulation": "Monte Carlo against a closed form, within 4 standard errors",
    "paper-number": "our measurement against a number the paper (or its README) states",
    "author-result": "our measurement against the author's own code or stored results",
    "model": "a measurement on real checkpoints (the row names the models, scale and machine)",
}
STATUSES = ("reproduced", "deviates", "unresolved", "not-run")
#: A control's outcome: ``deviates`` is what a control must give; ``reproduced`` means the
#: check could not tell the control from the claim (a defect); ``none``: no honest control.
CONTROL_STATUSES = ("deviates", "reproduced", "unresolved", "not-run", "none")


class NotRun(Exception):
    """Raised by a measure that cannot run here.

    Parameters
    ----------
    why : str
        What is missing, in words (the ledger prints it).
    needs : str, optional
        What it needs that this machine lacks (a GPU, a hub checkpoint, the PDF).
    command : str, optional
        The exact command that produces its records.
    present, expected : int, optional
        For a claim over a set of records: how many it found and how many it expects.
    missing : tuple of str, optional
        The names of the missing records.
    """

    def __init__(
        self,
        why: str,
        *,
        needs: str = "",
        command: str = "",
        present: int | None = None,
        expected: int | None = None,
        missing: tuple = (),
    ):
        super().__init__(why)
        self.needs, self.command = needs, command
        self.present, self.expected, self.missing = present, expected, tuple(missing)


@dataclass(frozen=True)
class Measurement:
    """What a claim's measure (or its control) returns.

    ``agrees`` decides the status (True: reproduced, False: deviates, in which case
    ``reason`` must say why); ``unresolved=True`` overrides it (status ``unresolved``: the data
    cannot decide, and ``reason`` says why). Both are computed from the data, never typed in
    (:func:`decide` makes them from an estimate). ``value`` is what the book prints as "ours".

    ``source`` names the results file and command a model measurement read ("" when it was
    measured in this build); ``measured_on`` says on what (see :func:`measured_on_records`):
    models, scale, machine, date, and how many of the expected records were present.
    """

    value: float | str
    agrees: bool
    stderr: float | None = None
    detail: str = ""
    reason: str = ""
    source: str = ""
    measured_on: dict | None = None
    unresolved: bool = False


def decide(est, reference: float, *, alternative: float | None = None, k: float = 4.0) -> dict:
    """``{"agrees", "unresolved", "z", "z_alt"}`` of an estimate against a reference.

    ``agrees``: ``est`` is within ``k`` standard errors of ``reference``. ``unresolved``: it
    is, but also within ``k`` SE of ``alternative``, the plausible wrong hypothesis the claim
    names (e.g. "no leverage", a ratio of 1): the data cannot tell the two apart. An estimate
    with no finite positive SE is unresolved.

    Examples
    --------
    >>> from companion.stats import MCEstimate
    >>> d = decide(MCEstimate(8.9, 2.9, 5), 9.09, alternative=1.0)
    >>> d["agrees"], d["unresolved"], round(d["z"], 2), round(d["z_alt"], 2)
    (True, True, -0.07, 2.72)
    >>> decide(MCEstimate(16.9, 1.0, 5), 9.09, alternative=1.0)["agrees"]
    False
    """
    import math

    se = float(est.stderr) if est.stderr is not None else float("nan")
    if not (math.isfinite(se) and se > 0):
        return {"agrees": False, "unresolved": True, "z": float("nan"), "z_alt": float("nan")}
    z = (float(est.value) - reference) / se
    z_alt = float("nan") if alternative is None else (float(est.value) - alternative) / se
    agrees = abs(z) <= k
    return {
        "agrees": agrees,
        "unresolved": agrees and alternative is not None and abs(z_alt) <= k,
        "z": z,
        "z_alt": z_alt,
    }


@dataclass(frozen=True)
class Claim:
    """One claim of one paper.

    Parameters
    ----------
    id : str
        ``<paper>.<result>[.<part>]``, fixed (external checks use it).
    paper : {"dong", "shirodkar"}
    statement : str
        What is measured and on what, in one sentence (a synthetic check names no models; a
        model claim names its models).
    paper_value : str
        The paper's number or statement, as text (e.g. ``"2/pi = 0.6366"``).
    method : str
        How the companion measures it.
    tolerance : str
        When we call it reproduced.
    provenance : tuple of str
        Keys of :data:`PROVENANCE`.
    measure : callable
        ``measure(scale, full) -> Measurement``; may raise :class:`NotRun`.
    evidence : str
        A key of :data:`EVIDENCE`.
    control : callable, optional
        ``control(scale, full) -> Measurement``: the same measure where the claim must fail;
        it must come out ``deviates`` (its tolerance, evaluated on the data, fails).
    control_method : str
        What the control changes, in words (required with ``control``).
    control_none : str
        Why the claim has no honest control (required without ``control``).
    models : tuple of str
        Model claims: the registered models it measures (or would measure).
    needs : str
        What the claim needs where it cannot run (GPU, hub checkpoint, the PDF).
    command : str
        The exact command that produces its records.
    chapter : str
        Book page that derives it (``book/...`` without suffix).
    heavy : bool
        True for model experiments: they read results files, and run with ``--full``.
    depends_on : tuple of str
        The dotted names of the library functions the check depends on (e.g.
        ``"companion.theory.bussgang.bussgang_cos2"``): breaking one of them must turn the
        claim to ``deviates``.
    """

    id: str
    paper: str
    statement: str
    paper_value: str
    method: str
    tolerance: str
    provenance: tuple
    measure: Callable = field(repr=False)
    evidence: str = ""
    control: Callable | None = field(default=None, repr=False)
    control_method: str = ""
    control_none: str = ""
    models: tuple = ()
    needs: str = ""
    command: str = ""
    chapter: str = ""
    heavy: bool = False
    depends_on: tuple = ()

    def __post_init__(self):
        if self.paper not in ("dong", "shirodkar"):
            raise ValueError(f"`paper` must be one of 'dong', 'shirodkar'; got {self.paper!r}")
        bad = [p for p in self.provenance if p not in PROVENANCE]
        if bad:
            raise ValueError(f"`provenance` must use keys of PROVENANCE; got {bad!r}")
        if self.evidence not in EVIDENCE:
            opts = ", ".join(repr(k) for k in EVIDENCE)
            raise ValueError(f"`evidence` must be one of {opts}; got {self.evidence!r}")
        if self.control is None and not self.control_none:
            raise ValueError(
                f"claim {self.id!r} needs a `control` or, in `control_none`, the reason it "
                "has no honest one"
            )
        if self.control is not None and not self.control_method:
            raise ValueError(f"`control_method` must say what claim {self.id!r}'s control does")
        if self.evidence in ("paper-number", "author-result") and set(self.provenance) <= {
            "reconstruction"
        }:
            raise ValueError(
                f"a {self.evidence} claim faces a number the paper or the author states: "
                f"`provenance` of {self.id!r} must name where it comes from; got "
                f"{self.provenance!r}"
            )
        if self.evidence == "model" and not self.models:
            raise ValueError(f"a model claim must name its `models`; {self.id!r} names none")
        deps = self.depends_on
        if not isinstance(deps, tuple) or any(not isinstance(d, str) or "." not in d for d in deps):
            raise ValueError(
                f"`depends_on` must be a tuple of dotted names of library functions; got "
                f"{self.depends_on!r} for {self.id!r}"
            )


@dataclass(frozen=True)
class ClaimResult:
    """A claim's status, with its control's outcome and what it was measured on."""

    id: str
    paper: str
    evidence: str
    statement: str
    paper_value: str
    value: float | str | None
    stderr: float | None
    status: str
    runtime_s: float
    detail: str = ""
    reason: str = ""
    source: str = ""
    provenance: tuple = ()
    chapter: str = ""
    method: str = ""
    tolerance: str = ""
    models: tuple = ()
    measured_on: dict = field(default_factory=dict)
    needs: str = ""
    command: str = ""
    control_method: str = ""
    control_status: str = "none"
    control_value: float | str | None = None
    control_detail: str = ""
    control_none: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


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


def _today() -> str:
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


def complete(
    expected: Iterable[str],
    present: Callable[[], Iterable[str]],
    *,
    command: str,
    full: bool = False,
    run: Callable[[list], object] | None = None,
    what: str = "records",
) -> str:
    """Check that a claim over a set of records has every record it expects.

    ``present()`` lists the names of the records stored now. When some are missing and
    ``full`` is set, ``run(missing)`` produces them (resumably) and they are counted again.
    A claim never reports a status on a subset: with records still missing this raises
    :class:`NotRun` naming them. Returns ``"n of n records"``.

    Examples
    --------
    >>> complete(["a", "b"], lambda: ["a", "b", "c"], command="make it")
    '2 of 2 records'
    >>> try:
    ...     complete(["a", "b", "c"], lambda: ["a"], command="make it")
    ... except NotRun as why:
    ...     print(why.present, why.expected, why.missing)
    1 3 ('b', 'c')
    """
    want = list(dict.fromkeys(expected))
    have = set(present())
    missing = [k for k in want if k not in have]
    if missing and full and run is not None:
        run(missing)
        have = set(present())
        missing = [k for k in want if k not in have]
    n = len(want)
    if missing:
        few = ", ".join(missing[:5]) + (
            f" … and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise NotRun(
            f"{n - len(missing)} of {n} expected {what} present; missing: {few}; produce them "
            f"with `{command}` (or `companion claims --full`)",
            command=command,
            present=n - len(missing),
            expected=n,
            missing=tuple(missing),
        )
    return f"{n} of {n} {what}"


def _build_measured_on(scale: str) -> dict:
    return {"where": "this build", "date": _today(), "machine": machine(), "scale": scale}


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
        status=status,
        runtime_s=runtime,
        detail=m.detail,
        reason=m.reason,
        source=m.source,
        measured_on=m.measured_on or _build_measured_on(scale),
        **ctl,
    )


def counts(results: Iterable[ClaimResult]) -> dict:
    """``{paper: {status: {evidence: n}}}`` over results (every status and kind present,
    zeros included)."""
    out: dict = {}
    for r in results:
        per = out.setdefault(r.paper, {s: dict.fromkeys(EVIDENCE, 0) for s in STATUSES})
        per[r.status][r.evidence] += 1
    return out


def to_json(results: list[ClaimResult]) -> str:
    """JSON list of result dicts (the CLI's ``--json``)."""
    return json.dumps([r.to_dict() for r in results], indent=2, default=str)
