"""What a claim is and what measuring it returns: :class:`Claim` (declared as data by its
chapter), :class:`Measurement` (what its measure returns), :class:`ClaimResult` (its status
and its control's, :func:`companion.claims.run`), :class:`NotRun`, and the vocabularies of
provenance, evidence and status."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

__all__ = [
    "CONTROL_STATUSES",
    "Claim",
    "ClaimResult",
    "EVIDENCE",
    "Measurement",
    "NotRun",
    "PROVENANCE",
    "STATUSES",
    "format_value",
    "per_setting",
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

    ``shown`` is how "ours" reads when the statement names several values (one per p, say):
    every one of them, from :func:`per_setting`; ``value`` stays the single number the JSON
    gives.

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
    shown: str = ""


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
    shown: str = ""
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


def format_value(value, stderr=None) -> str:
    """A measured value with its standard error, to the SE's second significant digit (as
    the slides and a claim's several values print it; "—" for a value not measured).

    >>> format_value(2.70213, 0.00461)
    '2.7021 ± 0.0046'
    >>> format_value(0.6366)
    '0.6366'
    """
    if isinstance(value, str) or value is None:
        return "—" if value is None else value
    if not stderr or not math.isfinite(stderr):
        return f"{value:.4g}"
    digits = max(0, 1 - math.floor(math.log10(abs(stderr))))
    return f"{value:.{digits}f} ± {stderr:.{digits}f}"


def per_setting(values: dict) -> str:
    """Several estimates as one "ours": ``{label: (value, stderr)}`` in the statement's order,
    each value given to the decimals its standard error (two significant digits) resolves.

    >>> per_setting({"p = 0.01": (2.66581, 0.0073), "p = 0.5%": (79.78, 28.6)})
    'p = 0.01: 2.6658 ± 0.0073; p = 0.5%: 80 ± 29'
    """
    return "; ".join(f"{k}: {format_value(v, se)}" for k, (v, se) in values.items())
