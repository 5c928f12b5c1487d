"""The browser suite's check that a table cell never breaks a word or a number across lines.

A cell breaks at its spaces and hyphens only ("layernorm", never "layernor m"; "1.06e-02",
never "1.06e-" and "02"); the one thing allowed to break anywhere is a long identifier that
``companion.tables`` wrapped in ``span.long-token`` (a model id, a module path, a URL), and
code. Measured as drawn: each word of a cell's text (a run of letters and digits, a number
with its decimal point and exponent kept as one) is a DOM Range, and a Range whose boxes sit
on more than one line is a broken word. A break at a hyphen or a slash is between two words.
Folded tables (``<details>``) are opened for the measurement and folded again.
"""

from __future__ import annotations

__all__ = ["BROKEN_WORDS", "broken_word_problems"]

#: Page-side script (Playwright): ``[[word, where], ...]`` for each broken word of a table
#: cell in ``main`` (``where``: the table's caption, or its cell's column name).
BROKEN_WORDS = r"""
() => {
  // folded tables are read unfolded (a reader opens them), then folded back as they were
  const opened = [...document.querySelectorAll('main details:not([open])')];
  opened.forEach(d => { d.open = true; });
  const out = [];
  const word = /[\p{L}\p{N}]+(?:[.,][\p{L}\p{N}]+)*(?:(?<=\d[eE])[-+−]\p{N}+)?/gu;
  const cells = 'main table td, main table th';
  const exempt = '.long-token, code, pre, mjx-container, .MathJax, script, style';
  for (const cell of document.querySelectorAll(cells)) {
    if (!cell.getClientRects().length) continue;
    const table = cell.closest('table'), cap = table && table.querySelector('caption');
    const where = (cap ? cap.textContent : cell.getAttribute('data-label') || '').trim();
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT, {acceptNode: n =>
        n.parentElement.closest(exempt) ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    for (let n; (n = walker.nextNode());) {
      for (const m of n.textContent.matchAll(word)) {
        const r = document.createRange();
        r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
        const boxes = [...r.getClientRects()].filter(b => b.width > 0 && b.height > 0);
        if (boxes.length < 2) continue;
        const tops = boxes.map(b => b.top), h = Math.min(...boxes.map(b => b.height));
        if (Math.max(...tops) - Math.min(...tops) > h / 2) out.push([m[0], where.slice(0, 60)]);
      }
    }
  }
  opened.forEach(d => { d.open = false; });
  return out;
}
"""  # noqa: E501


def broken_word_problems(found, width: int, shown: int = 5) -> list[str]:
    """The suite's lines for :data:`BROKEN_WORDS`' findings at a page ``width``.

    >>> broken_word_problems([["layernorm", "Table 1"], ["random", ""]], 1400)
    ["table cell breaks a word across lines at 1400 px: 'layernorm' (Table 1)", "table cell breaks a word across lines at 1400 px: 'random'"]
    >>> broken_word_problems([["a", ""]] * 7, 390, shown=1)
    ["table cell breaks a word across lines at 390 px: 'a'", 'table cell breaks a word across lines at 390 px: 6 more words']
    """  # noqa: E501
    lines = [
        f"table cell breaks a word across lines at {width} px: {w!r}" + (f" ({at})" if at else "")
        for w, at in found[:shown]
    ]
    if len(found) > shown:
        lines.append(
            f"table cell breaks a word across lines at {width} px: {len(found) - shown} more words"
        )
    return lines
