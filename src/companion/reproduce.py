"""One folded "Reproduce this chapter" box: the commands, the records, the wall times and the
machine behind a chapter's numbers, kept out of the prose (a reader opens it on demand).

A chapter returns :func:`reproduce_box` as the last expression of a cell; on the site it is a
closed ``<details class="companion-reproduce">``, in a terminal plain text.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Reproduce", "reproduce_box"]


@dataclass(frozen=True)
class Reproduce:
    """What :func:`reproduce_box` returns; shown folded on the page."""

    commands: tuple[str, ...]
    records: tuple[str, ...] = ()
    timings: tuple[str, ...] = ()
    machine: str = ""
    extra: tuple = field(default=())  # objects with ``_repr_html_`` (tables), shown last

    def _sections(self):
        yield "Commands (each resumes where it stopped)", self.commands, True
        yield "Records", self.records, False
        yield "Wall time", self.timings, False

    def _repr_html_(self) -> str:
        parts = []
        for title, lines, code in self._sections():
            if not lines:
                continue
            parts.append(f"<p><strong>{html.escape(title)}</strong></p>")
            if code:
                body = "\n".join(html.escape(c) for c in lines)
                parts.append(f'<pre class="companion-reproduce-cmd"><code>{body}</code></pre>')
            else:
                items = "".join(f"<li>{html.escape(x)}</li>" for x in lines)
                parts.append(f"<ul>{items}</ul>")
        if self.machine:
            parts.append(f"<p><strong>Machine</strong>: {html.escape(self.machine)}</p>")
        parts += [x._repr_html_() for x in self.extra]
        return (
            '<details class="companion-reproduce"><summary>Reproduce this chapter</summary>'
            + "".join(parts)
            + "</details>"
        )

    def __repr__(self) -> str:
        out = ["Reproduce this chapter"]
        for title, lines, _ in self._sections():
            if lines:
                out += [f"{title}:", *(f"  {x}" for x in lines)]
        if self.machine:
            out.append(f"Machine: {self.machine}")
        out += [repr(x) for x in self.extra]
        return "\n".join(out)


def reproduce_box(
    commands: Sequence[str],
    *,
    records: Sequence[str] = (),
    timings: Sequence[str] = (),
    machine: str = "",
    extra: Sequence = (),
) -> Reproduce:
    """The folded box of a chapter's commands, records, wall times and machine.

    Examples
    --------
    >>> box = reproduce_box(["companion run x --resume"], records=["3 records"])
    >>> print(repr(box))
    Reproduce this chapter
    Commands (each resumes where it stopped):
      companion run x --resume
    Records:
      3 records
    >>> box._repr_html_().startswith('<details class="companion-reproduce">')
    True
    >>> reproduce_box([])
    Traceback (most recent call last):
    ...
    ValueError: `commands` must hold at least one command; got none
    """
    commands = tuple(c for c in commands if c)
    if not commands:
        raise ValueError("`commands` must hold at least one command; got none")
    return Reproduce(commands, tuple(records), tuple(timings), machine, tuple(extra))
