"""The claims ledger: every claim of both papers, the paper's value, our measurement.

Each claim is one :class:`Claim` registered by the module of the chapter that derives it
(``companion.chapters.<part>.<chapter>``; the ledger imports every chapter module, in book
order). A claim's ``measure(scale, full)`` reads the chapter's ``SIZES[scale]`` and returns a
:class:`Measurement`; :func:`run` times it and turns it into a :class:`ClaimResult` with a
status:

* ``reproduced``: our measurement agrees with the paper within the claim's tolerance;
* ``deviates``: it does not, and ``reason`` says why (always written out);
* ``not-run``: it needs ``--full`` (a model run) or a results file that is absent.

The CLI ``companion claims``, the book's ledger page and every chapter's claims box
(:func:`claims_box`) read this registry.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from companion.scale import check_scale

__all__ = [
    "Claim",
    "ClaimResult",
    "Measurement",
    "NotRun",
    "PROVENANCE",
    "STATUSES",
    "all_claims",
    "claims_box",
    "get",
    "ledger_table",
    "register",
    "run",
    "run_many",
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
STATUSES = ("reproduced", "deviates", "not-run")
_REGISTRY: dict[str, Claim] = {}


class NotRun(Exception):
    """Raised by a measure that cannot run now (needs ``--full`` or a results file)."""


@dataclass(frozen=True)
class Measurement:
    """What a claim's measure returns.

    ``agrees`` decides the status (True: reproduced, False: deviates, in which case
    ``reason`` must say why). ``value`` is what the book prints as "ours".
    """

    value: float | str
    agrees: bool
    stderr: float | None = None
    detail: str = ""
    reason: str = ""
    source: str = "computed now"  # or the results file + command that produced it


@dataclass(frozen=True)
class Claim:
    """One claim of one paper.

    Parameters
    ----------
    id : str
        ``<paper>.<result>[.<part>]``, fixed (external checks use it).
    paper : {"dong", "shirodkar"}
    statement : str
        The claim in one sentence, in the paper's voice (paraphrased).
    paper_value : str
        The paper's number or statement, as text (e.g. ``"2/pi = 0.6366"``).
    method : str
        How the companion measures it.
    tolerance : str
        When we call it reproduced.
    provenance : tuple of str
        Keys of :data:`PROVENANCE`.
    measure : callable
        ``measure(scale) -> Measurement``; may raise :class:`NotRun`.
    chapter : str
        Book page that derives it (``book/...`` without suffix).
    heavy : bool
        True for model experiments: only run with ``--full``.
    """

    id: str
    paper: str
    statement: str
    paper_value: str
    method: str
    tolerance: str
    provenance: tuple
    measure: Callable = field(repr=False)
    chapter: str = ""
    heavy: bool = False

    def __post_init__(self):
        if self.paper not in ("dong", "shirodkar"):
            raise ValueError(f"`paper` must be one of 'dong', 'shirodkar'; got {self.paper!r}")
        bad = [p for p in self.provenance if p not in PROVENANCE]
        if bad:
            raise ValueError(f"`provenance` must use keys of PROVENANCE; got {bad!r}")


@dataclass(frozen=True)
class ClaimResult:
    """A claim's status now: value, standard error, status, runtime."""

    id: str
    paper: str
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

    def to_dict(self) -> dict:
        return asdict(self)


def register(claim: Claim) -> Claim:
    """Add a claim to the registry (ids are unique)."""
    if claim.id in _REGISTRY and _REGISTRY[claim.id] is not claim:
        raise ValueError(f"`claim.id` must be unique; got a second {claim.id!r}")
    _REGISTRY[claim.id] = claim
    return claim


def _load() -> None:
    """Import every chapter module (each registers its claims), in book order."""
    from companion.chapters import load_all

    load_all()


def _book_order() -> list[Claim]:
    """Every registered claim, by chapter in book order, then in registration order."""
    from companion.chapters import CHAPTERS

    rank = {"book/" + c: i for i, c in enumerate(CHAPTERS)}
    order = {cid: i for i, cid in enumerate(_REGISTRY)}
    return sorted(_REGISTRY.values(), key=lambda c: (rank.get(c.chapter, len(rank)), order[c.id]))


def all_claims(paper: str | None = None, *, include_heavy: bool = True) -> list[Claim]:
    """Registered claims in book order (chapter by chapter), optionally of one paper."""
    _load()
    if paper is not None and paper not in ("dong", "shirodkar"):
        raise ValueError(f"`paper` must be one of 'dong', 'shirodkar'; got {paper!r}")
    return [
        c
        for c in _book_order()
        if (paper is None or c.paper == paper) and (include_heavy or not c.heavy)
    ]


def get(claim_id: str) -> Claim:
    """The claim with this id."""
    _load()
    try:
        return _REGISTRY[claim_id]
    except KeyError:
        raise KeyError(f"`claim_id` must be a registered claim; got {claim_id!r}") from None


def run(claim: Claim | str, *, scale: str = "cpu", full: bool = False) -> ClaimResult:
    """Measure one claim now at ``scale`` (``"cpu"``, ``"full"`` or ``"smoke"``). Heavy claims
    read a results file and are ``not-run`` without it unless ``full`` (then they run the
    experiment first)."""
    check_scale(scale)
    c = get(claim) if isinstance(claim, str) else claim
    t0 = time.perf_counter()
    try:
        m = c.measure(scale=scale, full=full)
    except NotRun as why:
        return ClaimResult(
            c.id,
            c.paper,
            c.statement,
            c.paper_value,
            None,
            None,
            "not-run",
            time.perf_counter() - t0,
            reason=str(why),
            provenance=c.provenance,
            chapter=c.chapter,
        )
    status = "reproduced" if m.agrees else "deviates"
    if status == "deviates" and not m.reason:
        raise ValueError(
            f"`reason` must be given when claim {c.id!r} deviates; got an empty string"
        )
    return ClaimResult(
        c.id,
        c.paper,
        c.statement,
        c.paper_value,
        m.value,
        m.stderr,
        status,
        time.perf_counter() - t0,
        m.detail,
        m.reason,
        m.source,
        c.provenance,
        c.chapter,
    )


def run_many(
    paper: str | None = None, *, full: bool = False, scale: str = "cpu", ids=None
) -> list[ClaimResult]:
    """Run every claim (of one paper, or the listed ids)."""
    claims = [get(i) for i in ids] if ids else all_claims(paper)
    return [run(c, scale=scale, full=full) for c in claims]


def _fmt_value(r: ClaimResult) -> str:
    if r.value is None:
        return "—"
    if isinstance(r.value, str):
        return r.value
    if r.stderr:
        return f"{r.value:.4g} ± {r.stderr:.2g}"
    return f"{r.value:.4g}"


_BADGE = {"reproduced": "✔ reproduced", "deviates": "≠ deviates", "not-run": "○ not run"}


def _html_table(results: list[ClaimResult], *, show_chapter: bool) -> str:
    import html

    rows = []
    for r in results:
        prov = ", ".join(r.provenance)
        note = r.reason or r.detail
        chap = ""
        if show_chapter and r.chapter:
            link, name = html.escape(_rel_link(r.chapter)), html.escape(r.chapter.split("/")[-1])
            chap = f'<td><a href="{link}">{name}</a></td>'
        source = f"{html.escape(r.source)}; {r.runtime_s:.2f} s"
        rows.append(
            f'<tr class="claim-{r.status}"><td><code>{html.escape(r.id)}</code></td>'
            f"<td>{html.escape(r.statement)}</td><td>{html.escape(r.paper_value)}</td>"
            f"<td>{html.escape(_fmt_value(r))}</td>"
            f'<td class="claim-status">{_BADGE[r.status]}</td><td>{html.escape(prov)}</td>'
            f"<td>{html.escape(note)}<br><small>{source}</small></td>"
            f"{chap}</tr>"
        )
    head = (
        "<tr><th>claim</th><th>statement</th><th>paper</th><th>ours</th><th>status</th>"
        "<th>provenance</th><th>notes</th>" + ("<th>chapter</th>" if show_chapter else "") + "</tr>"
    )
    return f'<table class="claims-table">{head}{"".join(rows)}</table>'


def _rel_link(chapter: str) -> str:
    # ledger page is book/ledger.html; chapters are book/<part>/<name>.html
    return chapter.removeprefix("book/") + ".html"


class _Table:
    """Rich display: HTML in the book, plain text in a terminal."""

    def __init__(self, results, show_chapter):
        self.results, self.show_chapter = results, show_chapter

    def _repr_html_(self):
        return _html_table(self.results, show_chapter=self.show_chapter)

    def __repr__(self):
        return "\n".join(f"{r.id:38s} {r.status:10s} {_fmt_value(r)}" for r in self.results)


def claims_box(chapter, *, scale: str) -> _Table:
    """The claims box that ends a chapter: its claims, measured now at the chapter's scale.

    Parameters
    ----------
    chapter : module or str
        The chapter module (``companion.chapters.<part>.<chapter>``) or its name
        (``"<part>/<chapter>"``).
    scale : {"cpu", "full", "smoke"}
        The scale the chapter ran at (``companion.scale.SCALE``): a box measured at another
        scale than the numbers above it would contradict them, so there is no default.
    """
    from companion.chapters import docname, module

    doc = docname(module(chapter))
    mine = [c for c in all_claims() if c.chapter == doc]
    if not mine:
        raise ValueError(f"`chapter` must have registered claims; got {chapter!r} (none)")
    return _Table([run(c, scale=scale) for c in mine], show_chapter=False)


def ledger_table(paper: str | None = None, *, full: bool = False, scale: str = "cpu") -> _Table:
    """Every claim (of one paper) with its status, for the book's ledger page."""
    return _Table(run_many(paper, full=full, scale=scale), show_chapter=True)


def to_json(results: list[ClaimResult]) -> str:
    """JSON list of result dicts (the CLI's ``--json``)."""
    return json.dumps([r.to_dict() for r in results], indent=2, default=str)
