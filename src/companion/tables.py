"""Tabular results shown as tables: an HTML table on the page, aligned text in a terminal.

A chapter builds its rows (one ``dict`` per row, column name -> value) and returns
:func:`table` as the last expression of a cell::

    table(
        [{"p": 0.01, "C": est, "paper": 2.639}, ...],
        formats={"p": "{:g}", "C": "{:.3f}"},
        caption="Table 2 at n = 512",
    )

Numbers are formatted per column (``formats``; otherwise four significant digits), an
:class:`~companion.stats.MCEstimate` as ``value ± SE``; text is escaped. Long cells wrap;
on a phone a table of three or more columns shows each row as a card (:func:`html_table`).
"""

from __future__ import annotations

import html
import math
import numbers
import re
from collections.abc import Mapping, Sequence

__all__ = ["Table", "checks", "html_table", "keep_whole", "pm", "table"]


def pm(value, stderr=None, fmt: str = "{:.3f}") -> str:
    """``"value ± stderr"`` in ``fmt``; ``value`` may be an estimate with ``.stderr``.

    >>> pm(2.6391, 0.0042)
    '2.639 ± 0.004'
    """
    if stderr is None and hasattr(value, "stderr"):
        value, stderr = value.value, value.stderr
    return f"{fmt.format(value)} ± {fmt.format(stderr)}"


def _text(value, fmt: str | None) -> str:
    if value is None:
        return "–"
    if hasattr(value, "stderr") and hasattr(value, "value"):  # an MCEstimate
        return pm(value, fmt=fmt or "{:.4g}")
    if isinstance(value, bool) or not isinstance(value, numbers.Number):
        return str(value)
    if isinstance(value, numbers.Integral):
        return fmt.format(value) if fmt else str(value)
    if not math.isfinite(value):
        return str(value)
    return (fmt or "{:.4g}").format(value)


def _numeric(value) -> bool:
    return (isinstance(value, numbers.Number) and not isinstance(value, bool)) or hasattr(
        value, "stderr"
    )


class Table:
    """Rows shown as a table; see :func:`table`. ``rows`` keeps the values themselves."""

    def __init__(self, rows, columns, formats, caption, notes, fold=None):
        self.rows, self.columns = rows, columns
        self.formats, self.caption, self.notes = formats, caption, notes
        self.fold = fold

    def cells(self) -> list[list[str]]:
        """Every row's cells as text."""
        return [[_text(r.get(c), self.formats.get(c)) for c in self.columns] for r in self.rows]

    def _repr_html_(self) -> str:
        numeric = [
            any(_numeric(r.get(c)) for r in self.rows)
            and all(_numeric(r.get(c)) or r.get(c) is None for r in self.rows)
            for c in self.columns
        ]
        rows = [[html.escape(t) for t in row] for row in self.cells()]
        caption = html.escape(self.caption) if self.caption else ""
        notes = (
            f'<p class="companion-table-note">{html.escape(self.notes)}</p>' if self.notes else ""
        )
        table_html = html_table(
            [html.escape(str(c)) for c in self.columns], rows, numeric=numeric, caption=caption
        )
        out = f'<div class="companion-table-wrap">{table_html}{notes}</div>'
        if self.fold:  # a reference table the reader opens on demand
            summary = html.escape(self.fold)
            out = (
                f'<details class="companion-table-fold"><summary>{summary}</summary>{out}</details>'
            )
        return out

    def __repr__(self) -> str:
        cells = [list(map(str, self.columns))] + self.cells()
        widths = [max(len(r[i]) for r in cells) for i in range(len(self.columns))]
        lines = ["  ".join(t.ljust(w) for t, w in zip(r, widths, strict=True)) for r in cells]
        lines.insert(1, "  ".join("-" * w for w in widths))
        extra = [self.caption] if self.caption else []
        return "\n".join(extra + lines + ([self.notes] if self.notes else []))

    def to_pandas(self):
        """The rows as a ``pandas.DataFrame`` (pandas is not a dependency: install it)."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=self.columns)


# A number ("1.06e-02", "-3.49", "2,100") is kept whole: each one in a cell of plain text is
# wrapped in a no-wrap span, so the browser may break a cell between numbers but never after
# an exponent's hyphen or inside the digits.
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d.,]*(?:e[-+−]?\d+)?%?(?![A-Za-z_])")
# A long identifier (a model id "sentence-transformers/all-MiniLM-L6-v2", a module path, a
# URL) is the one thing of a cell allowed to break anywhere: it is wrapped in a
# ``span.long-token`` (``overflow-wrap: anywhere``, book/_assets/companion.css), so that a wide
# table still fits its column, while every other word of the cell breaks only at its spaces
# and hyphens ("layernorm", never "layernor m").
_PIECES = re.compile(r"(<[^>]*>|&#?\w+;|\s+)")  # tags, entities and spaces: kept as they are
_LONG_CHARS = 16  # a token this long with a path separator in it ("/", "_", ".", ":", "@")
_LONGEST_WORD = 24  # any token longer than this
_SEPARATORS = re.compile(r"\w[/_.:@]\w|/")


def _long(token: str) -> bool:
    """Whether a space-free run of text is a long identifier (not a number, not a word)."""
    n = len(html.unescape(token))
    if n <= _LONG_CHARS or _NUMBER.fullmatch(token):
        return False
    return n > _LONGEST_WORD or bool(_SEPARATORS.search(token))


def keep_whole(text: str) -> str:
    """A cell's HTML with each number in a ``span.nw`` and each long identifier in a
    ``span.long-token``; tags and entities are left as they are.

    >>> keep_whole("pythia-1b at 1.06e-02")
    'pythia-1b at <span class="nw">1.06e-02</span>'
    >>> keep_whole("sentence-transformers/all-MiniLM-L6-v2 (d = 384)")
    '<span class="long-token">sentence-transformers/all-MiniLM-L6-v2</span> (d = <span class="nw">384</span>)'
    >>> keep_whole('<a href="x/y_z/w.html">model.layers.11.norm, N = 2</a>')
    '<a href="x/y_z/w.html"><span class="long-token">model.layers.11.norm,</span> N = <span class="nw">2</span></a>'
    """  # noqa: E501
    if not text:
        return text
    pieces = _PIECES.split(text)
    # a token runs across entities ("a&amp;b"), never across tags or spaces
    out, token = [], []

    def flush():
        if token:
            word = "".join(token)
            if _long(word):
                out.append(f'<span class="long-token">{word}</span>')
            else:
                out.extend(t if t.startswith("&") else _NUMBER.sub(_nw, t) for t in token)
            token.clear()

    for piece in pieces:
        if not piece:
            continue
        if piece.startswith("<") or piece.isspace():
            flush()
            out.append(piece)
        else:
            token.append(piece)
    flush()
    return "".join(out)


def _nw(m) -> str:
    return f'<span class="nw">{m.group(0)}</span>'


def html_table(
    columns, rows, *, numeric=None, caption: str = "", row_headers=False, cls: str = ""
) -> str:
    """A ``<table class="companion-table">`` of cells that are already HTML.

    Every cell carries its column's name (``data-label``): on a phone a table of three or
    more columns is shown one row per card, each cell under its name, instead of hiding
    columns behind a scrollbar (``book/_assets/companion.css``). ``numeric`` flags the
    right-aligned columns; with ``row_headers`` each row's first cell is its ``<th>``;
    ``cls`` adds classes to the table.

    >>> html_table(["d"], [["1.06e-02 (2.4e-03)"]])
    '<table class="companion-table"><thead><tr><th>d</th></tr></thead><tbody><tr><td data-label="d"><span class="nw">1.06e-02</span> (<span class="nw">2.4e-03</span>)</td></tr></tbody></table>'
    >>> html_table(["p", "C"], [["0.01", "2.639"]], numeric=[True, True])
    '<table class="companion-table"><thead><tr><th class="num">p</th><th class="num">C</th></tr></thead><tbody><tr><td class="num" data-label="p">0.01</td><td class="num" data-label="C">2.639</td></tr></tbody></table>'
    """  # noqa: E501
    columns, rows = list(columns), [list(r) for r in rows]
    numeric = list(numeric) if numeric is not None else [False] * len(columns)
    if len(numeric) != len(columns):
        raise ValueError(
            f"`numeric` must flag each of the {len(columns)} columns; got {len(numeric)} flags"
        )
    for i, row in enumerate(rows, 1):
        if len(row) != len(columns):
            raise ValueError(
                f"each row of `rows` must have {len(columns)} cells, one per column; "
                f"row {i} has {len(row)}"
            )
    num = [' class="num"' if n else "" for n in numeric]
    head = "".join(f"<th{k}>{c}</th>" for c, k in zip(columns, num, strict=True))

    labels = [re.sub(r"<[^>]+>", "", c).replace('"', "&quot;") for c in columns]  # text only

    stack = len(columns) > 2

    def cell(i, text):
        if row_headers and i == 0:
            return f'<th scope="row">{text}</th>'
        # a .num cell never wraps; a text cell's numbers stay whole, long identifiers may break
        text = text if num[i] else keep_whole(str(text))
        if stack and str(text):  # one flex item on a phone card, so its text wraps as one
            text = f'<div class="cell-value">{text}</div>'
        return f'<td{num[i]} data-label="{labels[i]}">{text}</td>'

    body = "".join(
        "<tr>" + "".join(cell(i, t) for i, t in enumerate(row)) + "</tr>" for row in rows
    )
    classes = ["companion-table"] + ["companion-table-stack"] * stack + cls.split()
    caption = f"<caption>{caption}</caption>" if caption else ""
    return (
        f'<table class="{" ".join(classes)}">{caption}<thead><tr>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def table(
    rows: Sequence[Mapping],
    *,
    columns: Sequence[str] | None = None,
    formats: Mapping[str, str] | None = None,
    caption: str | None = None,
    notes: str | None = None,
    fold: str | None = None,
) -> Table:
    """A table of ``rows`` (dicts: column -> value), in the order of ``columns`` (default:
    the keys of the rows, in order of first appearance).

    Parameters
    ----------
    rows : sequence of mappings
        One row each; a missing value is shown as "–".
    columns : sequence of str, optional
        The columns and their order.
    formats : mapping, optional
        Column -> format string for its numbers (``"{:.3f}"``); estimates with a standard
        error are shown as ``value ± SE`` in it.
    caption, notes : str, optional
        A caption above the table and a note under it (where the numbers come from).
    fold : str, optional
        Show the table folded, under this one-line summary (a reference table that would
        lengthen the page; the reader opens it).

    Examples
    --------
    >>> t = table([{"p": 0.01, "C": 2.6391}, {"p": 0.1, "C": 2.2987}], formats={"C": "{:.3f}"})
    >>> print(repr(t))
    p     C
    ----  -----
    0.01  2.639
    0.1   2.299
    >>> '<td class="num" data-label="C">2.639</td>' in t._repr_html_()
    True
    >>> table([{"a": 1}], fold="one row")._repr_html_()[:58]
    '<details class="companion-table-fold"><summary>one row</su'

    >>> table([{"a": 1}], columns=["b"])
    Traceback (most recent call last):
    ...
    ValueError: `columns` name 'b', which no row has; the rows have: a
    """
    rows = [dict(r) for r in rows]
    if not rows:
        raise ValueError("`rows` must hold at least one row")
    keys = list(dict.fromkeys(k for r in rows for k in r))
    columns = list(columns) if columns is not None else keys
    for c in columns:
        if c not in keys:
            raise ValueError(
                f"`columns` name {c!r}, which no row has; the rows have: {', '.join(keys)}"
            )
    return Table(rows, columns, dict(formats or {}), caption, notes, fold)


def checks(rows, *, fmt: str = "{:.5f}", caption: str | None = None, notes=None) -> Table:
    """Simulations against their closed forms: ``rows`` of ``(quantity, estimate, exact)``
    (an estimate with ``.value``, ``.stderr`` and ``.z``), one table row each with the
    distance in standard errors.

    >>> from companion.stats import mean_estimate
    >>> est = mean_estimate([0.9, 1.1, 1.0, 1.2])
    >>> print(repr(checks([("mean", est, 1.0)], fmt="{:.2f}")))
    quantity  simulated ± SE  closed form  z (SE)
    --------  --------------  -----------  ------
    mean      1.05 ± 0.06     1.00         +0.77
    """
    out = [
        {
            "quantity": name,
            "simulated ± SE": pm(est, fmt=fmt),
            "closed form": exact,
            "z (SE)": f"{est.z(exact):+.2f}",
        }
        for name, est, exact in rows
    ]
    return table(out, formats={"closed form": fmt}, caption=caption, notes=notes)
