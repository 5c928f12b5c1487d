"""How the ledger is shown: the claims box that ends a chapter, the ledger page, the terminal."""

from __future__ import annotations

import html

from companion import claims as _c

__all__ = ["claims_box", "fmt_value", "ledger_table"]

_BADGE = {"reproduced": "✔ reproduced", "deviates": "≠ deviates", "not-run": "○ not run"}
_CONTROL = {
    "deviates": "✔ control deviates",
    "reproduced": "✘ control passed",
    "not-run": "○ control not run",
    "none": "— no control",
}


def fmt_value(r) -> str:
    """Our value as text: ``"0.6368 ± 0.00017"``, a string as is, ``"—"`` when not run."""
    if r.value is None:
        return "—"
    if isinstance(r.value, str):
        return r.value
    if r.stderr:
        return f"{r.value:.4g} ± {r.stderr:.2g}"
    return f"{r.value:.4g}"


def _html_table(results, *, show_chapter: bool) -> str:
    rows = []
    for r in results:
        prov = ", ".join(r.provenance)
        note = r.reason or r.detail
        chap = ""
        if show_chapter and r.chapter:
            link, name = html.escape(_rel_link(r.chapter)), html.escape(r.chapter.split("/")[-1])
            chap = f'<td><a href="{link}">{name}</a></td>'
        rows.append(
            f'<tr class="claim-{r.status}"><td><code>{html.escape(r.id)}</code></td>'
            f"<td>{html.escape(r.statement)}</td><td>{html.escape(r.paper_value)}</td>"
            f"<td>{html.escape(fmt_value(r))}</td>"
            f'<td class="claim-status">{_BADGE[r.status]}</td>'
            f"<td>{html.escape(r.evidence)}</td><td>{_CONTROL[r.control_status]}</td>"
            f"<td>{html.escape(prov)}</td><td>{html.escape(note)}</td>{chap}</tr>"
        )
    head = (
        "<tr><th>claim</th><th>statement</th><th>paper</th><th>ours</th><th>status</th>"
        "<th>evidence</th><th>control</th><th>provenance</th><th>notes</th>"
        + ("<th>chapter</th>" if show_chapter else "")
        + "</tr>"
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
        return "\n".join(
            f"{r.id:38s} {r.status:10s} {r.evidence:13s} {fmt_value(r)}" for r in self.results
        )


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
    mine = [c for c in _c.all_claims() if c.chapter == doc]
    if not mine:
        raise ValueError(f"`chapter` must have registered claims; got {chapter!r} (none)")
    return _Table([_c.run(c, scale=scale) for c in mine], show_chapter=False)


def ledger_table(paper: str | None = None, *, full: bool = False, scale: str = "cpu") -> _Table:
    """Every claim (of one paper) with its status, for the book's ledger page."""
    return _Table(_c.run_many(paper, full=full, scale=scale), show_chapter=True)
