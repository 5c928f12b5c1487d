"""The claims ledger: every chapter's claims, collected in book order, measured and shown.

Each chapter declares its claims as data, the tuple ``CLAIMS`` of
``companion.chapters.<part>.<chapter>.claims``; this module imports those modules in book order
(:data:`companion.chapters.CHAPTERS`), checks that the ids are unique, and runs and shows the
claims through :mod:`companion.claims` (which knows no chapter). It is the top of the house:
the CLI ``companion claims``, the book's ledger page and every chapter's claims box read it.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from companion import claims as _c
from companion.chapters import CHAPTERS, docname, module
from companion.claims import Claim, ClaimResult, render

__all__ = [
    "all_claims",
    "claims_box",
    "get",
    "ledger_table",
    "mutation_summary",
    "run",
    "run_many",
]


@lru_cache(maxsize=1)
def _collect() -> dict[str, Claim]:
    """``{id: claim}`` of every chapter's ``CLAIMS``, by chapter in book order, then in the
    order each chapter declares them."""
    found: list[Claim] = []
    for chapter in CHAPTERS:
        found += importlib.import_module(module(chapter).__name__ + ".claims").CLAIMS
    out: dict[str, Claim] = {}
    for c in found:
        if c.id in out:
            raise ValueError(f"`claim.id` must be unique; got a second {c.id!r}")
        out[c.id] = c
    rank = {"book/" + c: i for i, c in enumerate(CHAPTERS)}
    order = {cid: i for i, cid in enumerate(out)}
    ranked = sorted(out.values(), key=lambda c: (rank.get(c.chapter, len(rank)), order[c.id]))
    return {c.id: c for c in ranked}


def all_claims(paper: str | None = None, *, include_heavy: bool = True) -> list[Claim]:
    """Every claim in book order (chapter by chapter), optionally of one paper."""
    if paper is not None and paper not in ("dong", "shirodkar"):
        raise ValueError(f"`paper` must be one of 'dong', 'shirodkar'; got {paper!r}")
    return [
        c
        for c in _collect().values()
        if (paper is None or c.paper == paper) and (include_heavy or not c.heavy)
    ]


def get(claim_id: str) -> Claim:
    """The claim with this id.

    Raises
    ------
    KeyError
        For an unknown id; the message names a few known ids and how to list them all.
    """
    known = _collect()
    try:
        return known[claim_id]
    except KeyError:
        ids = list(known)
        near = [k for k in ids if k.split(".")[0] == str(claim_id).split(".")[0]] or ids
        shown = ", ".join(near[:4]) + (", …" if len(near) > 4 else "")
        raise KeyError(
            f"unknown claim id {claim_id!r} (known: {shown}; {len(ids)} in all, listed by "
            "`companion claims --list`)"
        ) from None


def run(
    claim: Claim | str, *, scale: str = "cpu", full: bool = False, controls: bool = True
) -> ClaimResult:
    """:func:`companion.claims.run` of a claim or of the claim with this id."""
    c = get(claim) if isinstance(claim, str) else claim
    return _c.run(c, scale=scale, full=full, controls=controls)


def run_many(
    paper: str | None = None,
    *,
    full: bool = False,
    scale: str = "cpu",
    ids=None,
    controls: bool = True,
) -> list[ClaimResult]:
    """Run every claim (of one paper, or the listed ids) and its control."""
    claims = [get(i) for i in ids] if ids else all_claims(paper)
    return [_c.run(c, scale=scale, full=full, controls=controls) for c in claims]


def claims_box(chapter, *, scale: str):
    """The claims box that ends a chapter: its claims and their controls, measured at the
    chapter's scale, as cards.

    Parameters
    ----------
    chapter : module or str
        The chapter module (``companion.chapters.<part>.<chapter>``) or its name
        (``"<part>/<chapter>"``).
    scale : {"cpu", "full", "smoke"}
        The scale the chapter ran at (``companion.scale.SCALE``): a box measured at another
        scale than the numbers above it would contradict them, so there is no default.
    """
    doc = docname(module(chapter))
    mine = [c for c in all_claims() if c.chapter == doc]
    if not mine:
        raise ValueError(f"`chapter` must have registered claims; got {chapter!r} (none)")
    return render.cards([_c.run(c, scale=scale) for c in mine])


_CACHE: dict = {}


def _cached_run(paper, full, scale):
    """Every claim measured once per process (a page's counts and its tables share them)."""
    key = (full, scale)
    if key not in _CACHE:
        _CACHE[key] = run_many(None, full=full, scale=scale)
    return [r for r in _CACHE[key] if paper is None or r.paper == paper]


def ledger_table(
    paper: str | None = None, *, full: bool = False, scale: str = "cpu", counts: bool = False
):
    """Every claim (of one paper) with its status, evidence and control, for the ledger page;
    ``counts=True`` shows the status × evidence counts instead of the rows. The claims are
    measured once per page (the two calls share the results)."""
    all_claims(paper)  # checks `paper`
    return render.ledger_view(_cached_run(paper, full, scale), paper, counts=counts)


def mutation_summary():
    """What the mutation suite did, for the ledger page: one paragraph of counts read from
    the report ``tools/mutation_report.py`` wrote (``results/ledger/mutations.json``), or a
    line saying it is absent. ``make test`` reruns the suite's fast rows and checks that the
    report still matches the table."""
    from IPython.display import Markdown

    from companion.results import locate, read_json

    path = locate("ledger", "mutations.json")
    if not path.exists():
        return Markdown("*The mutation suite's report is absent: run "
                        "`python tools/mutation_report.py` in a checkout.*")  # fmt: skip
    rep = read_json(path)
    c = rep["counts"]
    return Markdown(
        f"**Each ✔ here was shown able to fail.** The mutation suite breaks, one at a time, "
        f"the functions the claims depend on, the way a real bug would (a constant off by "
        f"the claim's resolution, a dropped term, an off-by-one, a standard deviation for a "
        f"standard error, a classifier that always answers one way), and measures each claim "
        f"again. Of its {c['rows']} breaks, {c['rows_as_stated']} did what the suite states: "
        f"{c['claims_killed']} of the {c['claims']} claims were turned by at least one break "
        f"(a reproduced claim to *deviates*); {c['blind_spots']} breaks are stated blind "
        f"spots, which the claim cannot resolve and which are listed as such; the other "
        f"{c['claims_with_reason']} claims say why no break applies (a derivation true by "
        f"construction, a claim not run here, a comparison of stated numbers). Report written "
        f"{rep['written'][:10]} by `{rep['command']}`."
    )
