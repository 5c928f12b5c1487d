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

from companion.claims.core import (
    CONTROL_STATUSES,
    EVIDENCE,
    PROVENANCE,
    STATUSES,
    Claim,
    ClaimResult,
    Measurement,
    NotRun,
    per_setting,
)
from companion.claims.machine import display_name, machine, measured_on_records
from companion.claims.output import counts, to_json
from companion.claims.records import complete
from companion.claims.runner import run
from companion.claims.status import decide

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
    "per_setting",
    "run",
    "to_json",
]
