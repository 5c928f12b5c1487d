"""How the ledger is shown: the claims box that ends a chapter, the ledger page, the terminal.

Each function takes results (:class:`companion.claims.ClaimResult`, from
:func:`companion.ledger.run_many` or :func:`companion.claims.run`). A claims box is a column
of cards (a two-column definition list per claim: statement, paper, ours, status, evidence,
control, what it was measured on, the reason), which reflows to one column on a phone. The
ledger page starts with a count of statuses by evidence kind for each paper, then one table
per paper whose rows ``book/_assets/claims.js`` filters by status, evidence kind and paper (no
kernel needed). Nothing shown names a path on the machine that built the page.
"""

from __future__ import annotations

import html
import os
import re

from companion import claims as _c
from companion.tables import html_table, keep_whole

__all__ = ["cards", "counts_table", "fmt_value", "ledger_view", "measured_text", "smoke"]

_STATUS = {
    "reproduced": "✔ reproduced",
    "deviates": "≠ deviates",
    "unresolved": "? unresolved",
    "not-run": "○ not run",
}
_CONTROL = {
    "deviates": "✔ control deviates, as it must",
    "reproduced": "✘ control passed: this check cannot tell the claim from its control",
    "unresolved": "? control unresolved: the data cannot reject it",
    "not-run": "○ control not run",
    "none": "— no honest control",
}
_SMOKE = "⚙ path checked (smoke)"
_SMOKE_TITLE = (
    "measured at smoke scale (tiny sizes, few seeds, random weights): the code path ran, "
    "the number says nothing about the claim"
)
_EVIDENCE_LABEL = {
    "derivation": "derivation",
    "identity": "identity",
    "simulation": "simulation",
    "paper-number": "paper number",
    "author-result": "author's result",
    "model": "model",
}
_PAPER = {"dong": "Dong (2026)", "shirodkar": "Shirodkar & Narayanan (2026)"}


def fmt_value(r) -> str:
    """Our value as text: ``"0.6368 ± 0.00017"``, a string as is, ``"—"`` when not run, and
    every value when the claim names several (``r.shown``)."""
    if r.value is None:
        return "—"
    if getattr(r, "shown", ""):
        return r.shown
    if isinstance(r.value, str):
        return r.value
    if r.stderr:
        return f"{r.value:.4g} ± {r.stderr:.2g}"
    return f"{r.value:.4g}"


def smoke(r) -> bool:
    """Whether result ``r`` was measured at smoke scale, which proves the code path and not
    the claim: its box shows "path checked (smoke)" instead of a status and no numbers.

    >>> from types import SimpleNamespace as R
    >>> smoke(R(status="deviates", measured_on={"scale": "smoke"}))
    True
    >>> smoke(R(status="deviates", measured_on={"scale": "cpu"}))
    False
    """
    return r.status != "not-run" and (r.measured_on or {}).get("scale") == "smoke"


_ABS_PATH = re.compile(r"(?<![\w.~])/(?:[\w.+@-]+/)+([\w.+@-]+)")


def _public(text: str) -> str:
    """``text`` without the machine's paths: a path under the results root is shown relative
    to it, any other absolute path by its last component."""
    if not text:
        return ""
    try:
        from companion.results import results_root

        root = str(results_root())
    except Exception:  # no results root is configured: nothing to strip but absolute paths
        root = ""
    if root:
        text = text.replace(root.rstrip(os.sep) + os.sep, "")
    return _ABS_PATH.sub(lambda m: m.group(1), text)


def measured_text(r) -> str:
    """Where and when a result was measured, for a reader (no machine paths)."""
    on = r.measured_on or {}
    scale = on.get("scale", "")
    if r.status == "not-run":
        text = "not run here"
        if on.get("records"):
            text += f" ({on['records']} expected records present)"
        return text
    if on.get("where") == "this build":
        return (
            f"measured when this page was built, {on.get('date')}, {on.get('machine')}, "
            f"{scale} scale"
        )
    models = ", ".join(on.get("models") or r.models)
    parts = [
        p
        for p in (models, f"{scale} scale" if scale else "", on.get("machine"), on.get("date"))
        if p
    ]
    text = " · ".join(parts)
    if on.get("file"):
        text += f" (results file {on['file']})"
    return text


def _esc(text) -> str:
    return html.escape(_public(str(text)))


def _css_status(r) -> str:
    return "smoke" if smoke(r) else r.status


def _badges(r) -> str:
    if smoke(r):
        status = f'<span class="claim-badge claim-smoke" title="{_SMOKE_TITLE}">{_SMOKE}</span>'
    else:
        status = f'<span class="claim-badge claim-{r.status}">{_STATUS[r.status]}</span>'
    return (
        f"{status} "
        f'<span class="claim-badge claim-ev claim-ev-{r.evidence}" '
        f'title="{html.escape(_c.EVIDENCE[r.evidence])}">{_EVIDENCE_LABEL[r.evidence]}</span>'
    )


def _control_text(r) -> str:
    if smoke(r) and r.control_status not in ("none", "not-run"):
        return f"{_SMOKE}: {r.control_method}"
    if r.control_status == "none":
        return f"{_CONTROL['none']}: {r.control_none}"
    text = f"{_CONTROL[r.control_status]}: {r.control_method}"
    if r.control_detail:
        text += f". {r.control_detail}"
    return text


def _ours_html(r) -> str:
    # several values (one per p, say) read one per line in a narrow column, and a value
    # never parts from its standard error ("2.6658 ±" above "0.0073" read as two numbers)
    parts = fmt_value(r).split("; ") if getattr(r, "shown", "") else [fmt_value(r)]
    return "<br>".join(_esc(p).replace(" ± ", "\u00a0±\u00a0") for p in parts)


def _fields(r) -> list[tuple[str, str]]:
    """(label, escaped HTML) pairs of one claim, in reading order."""
    out = [
        ("Claim", _esc(r.statement)),
        ("Paper", _esc(r.paper_value) + f" <small>({_esc(', '.join(r.provenance))})</small>"),
        ("Ours", "— (smoke scale: not a measurement)" if smoke(r) else _ours_html(r)),
        ("Status", _badges(r)),
        ("Evidence", _esc(_c.EVIDENCE[r.evidence])),
    ]
    if r.status in ("deviates", "unresolved") and r.reason and not smoke(r):
        out.append(("Reason", _esc(r.reason)))
    if r.status == "not-run":
        out.append(("Needs", _esc(r.needs or r.reason)))
        if r.command:
            out.append(("Command", f"<code>{_esc(r.command)}</code>"))
        if r.needs and r.reason and r.reason != r.needs:
            out.append(("Why", _esc(r.reason)))
    out += [
        ("Measured", _esc(measured_text(r))),
        ("Method", _esc(r.method) + f"; reproduced when {_esc(r.tolerance)}"),
        ("Control", _esc(_control_text(r))),
    ]
    if r.detail and not smoke(r):
        out.append(("Detail", _esc(r.detail)))
    return out


def _whole_fields(r) -> list[tuple[str, str]]:
    """:func:`_fields` with each number kept whole and only long identifiers breakable, as
    in every table of the book (a narrow column never splits "2.1e-02" or a word)."""
    return [(k, keep_whole(v)) for k, v in _fields(r)]


def _card(r) -> str:
    rows = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in _whole_fields(r))
    return (
        f'<div class="claim-card claim-{_css_status(r)}" id="claim-{html.escape(r.id)}">'
        f'<div class="claim-card-id"><code>{html.escape(r.id)}</code></div>'
        f'<dl class="claim-fields">{rows}</dl></div>'
    )


def _rel_link(chapter: str) -> str:
    # ledger page is book/ledger.html; chapters are book/<part>/<name>.html
    return chapter.removeprefix("book/") + ".html"


def _row(r) -> str:
    fields = dict(_whole_fields(r))
    chap = ""
    if r.chapter:
        link = html.escape(_rel_link(r.chapter) + f"#claim-{r.id}")
        chap = f' <a href="{link}">{html.escape(r.chapter.split("/")[-1])}</a>'
    more = "".join(
        f"<dt>{k}</dt><dd>{v}</dd>"
        for k, v in fields.items()
        if k not in ("Claim", "Paper", "Ours", "Status")
    )
    return (
        f'<tr data-status="{r.status}" data-evidence="{r.evidence}" data-paper="{r.paper}" '
        f'class="claim-{_css_status(r)}">'
        f"<td><code>{html.escape(r.id)}</code>{chap}<br>{fields['Claim']}"
        f'<details><summary>how, on what, control</summary><dl class="claim-fields">{more}</dl>'
        f"</details></td>"
        f"<td>{fields['Paper']}</td><td>{fields['Ours']}</td><td>{fields['Status']}</td></tr>"
    )


def _ledger_html(results, paper: str | None) -> str:
    head = "<tr><th>claim</th><th>paper</th><th>ours</th><th>status · evidence</th></tr>"
    rows = "".join(_row(r) for r in results)
    label = _PAPER.get(paper, "both papers")
    return (
        f'<div class="claims-ledger" data-paper="{paper or "all"}" aria-label="{label}">'
        f'<table class="claims-table">{head}{rows}</table></div>'
    )


def counts_table(results) -> str:
    """HTML: for each paper, statuses (rows) by evidence kind (columns), with totals."""
    counts = _c.counts(results)
    kinds = list(_c.EVIDENCE)
    out = []
    for paper, per in counts.items():
        columns = ["", *(_EVIDENCE_LABEL[k] for k in kinds), "all"]
        rows = [
            [_STATUS[s], *(str(per[s][k] or "") for k in kinds), str(sum(per[s].values()))]
            for s in _c.STATUSES
        ]
        n = sum(sum(v.values()) for v in per.values())
        rows.append(["all", *(str(sum(per[s][k] for s in _c.STATUSES)) for k in kinds), str(n)])
        table = html_table(
            columns,
            rows,
            numeric=[False] + [True] * (len(columns) - 1),
            caption=f"{_PAPER[paper]}: {n} claims",
            row_headers=True,
            cls="claims-counts",
        )
        out.append(table)
    return "".join(out)


class _Box:
    """Rich display: HTML in the book, plain text in a terminal."""

    def __init__(self, results, html_fn):
        self.results, self._html = results, html_fn

    def _repr_html_(self):
        return self._html(self.results)

    def __repr__(self):
        return "\n".join(
            f"{r.id:38s} {r.status:10s} {r.evidence:13s} {fmt_value(r)}"
            if not smoke(r)
            else f"{r.id:38s} {'path checked (smoke)':24s} {r.evidence:13s}"
            for r in self.results
        )


def cards(results) -> _Box:
    """The claims box that ends a chapter: its results, with their controls, as cards."""
    return _Box(results, lambda rs: '<div class="claims-box">' + "".join(map(_card, rs)) + "</div>")


def ledger_view(results, paper: str | None = None, *, counts: bool = False) -> _Box:
    """The ledger page's view of ``results`` (of one paper, or of both): the rows, or with
    ``counts=True`` the status × evidence counts."""
    if counts:
        return _Box(results, counts_table)
    return _Box(results, lambda rs: _ledger_html(rs, paper))
