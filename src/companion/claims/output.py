"""The ledger as numbers and as JSON: status counts per paper and evidence kind, and the
CLI's ``--json``."""

from __future__ import annotations

import json
from collections.abc import Iterable

from companion.claims.core import EVIDENCE, STATUSES, ClaimResult

__all__ = ["counts", "to_json"]


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
