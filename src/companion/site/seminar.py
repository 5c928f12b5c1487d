"""The 90-minute seminar: the plan (data, :mod:`companion.site.seminar_plan`) with its clock.

:data:`SEMINAR` is the plan as :class:`Stop` entries: every chapter of both parts, either in
the session (minutes, what to do in the room, what to move on the projector) or set as reading
with the reason. :func:`seminar_rows` adds each stop's start and end minute and each chapter's
measured run time (:mod:`companion.site.exec_record`); :func:`seminar_html` is the seminar
page's table; :func:`talk_slot` says what a chapter's talk minutes are (its slot in the
session, or a talk on its own).
"""

from __future__ import annotations

import html
import posixpath
from dataclasses import dataclass

from companion.site import seminar_plan
from companion.site.book_pages import doc_title
from companion.site.exec_record import exec_record, exec_times, secs, where
from companion.site.paths import deck_path
from companion.tables import html_table

__all__ = ["SEMINAR", "SESSION_MINUTES", "Stop", "seminar_html", "seminar_rows", "talk_slot"]

SESSION_MINUTES = seminar_plan.SESSION_MINUTES


@dataclass(frozen=True)
class Stop:
    """One page of the seminar plan.

    ``minutes`` > 0: taught in the session (``plan``: what happens in the room; ``projector``:
    what to move in the chapter's kernel-free Explore figure). ``minutes == 0``: set as reading
    before or after the session, and ``plan`` says why it is not in the room.
    """

    doc: str
    minutes: int
    plan: str
    projector: str = ""

    @property
    def in_session(self) -> bool:
        return self.minutes > 0


def _stops(plan) -> tuple[Stop, ...]:
    out = []
    for entry in plan:
        unknown = set(entry) - {"doc", "minutes", "plan", "projector"}
        if unknown or not {"doc", "minutes", "plan"} <= set(entry):
            raise ValueError(
                "a seminar stop must give 'doc', 'minutes', 'plan' (and may give 'projector');"
                f" got {sorted(entry)}"
            )
        out.append(Stop(**entry))
    return tuple(out)


#: The 90-minute plan (our suggestion), in book order: both papers, every chapter placed.
SEMINAR = _stops(seminar_plan.PLAN)


def talk_slot(doc: str) -> str:
    """What the minutes of chapter ``doc``'s talk are, in the speaker's words.

    >>> talk_slot("book/sign_magnitude/theorem3")
    "its slot in the book's 90-minute seminar"
    >>> talk_slot("book/dead_directions/kfac_lift")
    'a talk on its own: the 90-minute seminar sets this chapter as reading'
    """
    stop = next((s for s in SEMINAR if s.doc == doc), None)
    if stop is not None and stop.in_session:
        return f"its slot in the book's {SESSION_MINUTES}-minute seminar"
    return f"a talk on its own: the {SESSION_MINUTES}-minute seminar sets this chapter as reading"


def seminar_rows(times: dict[str, float] | None = None) -> list[dict]:
    """The plan with a clock: each :data:`SEMINAR` stop, its start and end minute in the
    session (None for reading) and its measured run time in seconds (None if not measured)."""
    times = exec_times() if times is None else times
    rows, clock = [], 0
    for stop in SEMINAR:
        start = clock if stop.in_session else None
        clock += stop.minutes
        rows.append(
            {
                "doc": stop.doc,
                "minutes": stop.minutes,
                "start": start,
                "end": clock if stop.in_session else None,
                "plan": stop.plan,
                "projector": stop.projector,
                "in_session": stop.in_session,
                "run_seconds": times.get(stop.doc),
            }
        )
    return rows


def seminar_html(rows: list[dict] | None = None, rec: dict | None = None) -> str:
    """The seminar page's plan: the session minute by minute, then the reading."""
    rec = exec_record() if rec is None else rec
    if rows is None:
        times = exec_times() if rec is None else {d: float(s) for d, s in rec["seconds"].items()}
        rows = seminar_rows(times)

    def href(path):
        return posixpath.relpath(path, "book")

    session, reading = [], []
    for r in rows:
        page = f"<a href='{href(r['doc'] + '.html')}'>{doc_title(r['doc'])}</a>"
        chapter = r["doc"].count("/") == 2
        if not r["in_session"]:
            reading.append(f"<li>{page}: {html.escape(r['plan'])}</li>")
            continue
        use = []
        if chapter:
            use.append(f"<a href='{href(deck_path(r['doc']))}'>slides</a>")
            use.append(
                f"<a href='{href(r['doc'] + '.html')}#explore'>Explore</a>: "
                f"{html.escape(r['projector'])}"
            )
        session.append(
            [
                f"{r['start']}–{r['end']}",
                page,
                str(r["minutes"]),
                html.escape(r["plan"]),
                "<br>".join(use),
                secs(r["run_seconds"]) if chapter else "",
            ]
        )
    minutes = sum(r["minutes"] for r in rows)
    measured = [r["run_seconds"] for r in rows if r["in_session"] and r["run_seconds"]]
    columns = ["minute", "page", "min", "in the room", "on the projector", "Run all"]
    return (
        html_table(columns, session, numeric=[False, False, True, False, False, True])
        + f"<p>Session: <b>{minutes} minutes</b>. Run all of the session's chapters: "
        f"<b>{sum(measured) / 60:.1f} min</b> in all, measured {html.escape(where(rec))}.</p>"
        f"<p><b>Reading</b>, before or after the session:</p><ul>{''.join(reading)}</ul>"
    )
