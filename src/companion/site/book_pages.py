"""The book's pages as the back-matter tools name them: the checkout, a page's title.

Shared by :mod:`.exec_record`, :mod:`.seminar` and :mod:`.results_pages`, and importing none of
them, so that their imports run one way.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

from companion.site.paths import repo_root

__all__ = ["book_root", "doc_title"]


def book_root(start: str | os.PathLike | None = None) -> Path | None:
    """:func:`repo_root`, or None outside a checkout (an installed package, e.g. on Colab)."""
    try:
        return repo_root(start)
    except FileNotFoundError:
        return None


def doc_title(doc: str, root: str | os.PathLike | None = None) -> str:
    """The page's ``# `` heading as HTML, its ``$math$`` marked up for MathJax (the page name
    outside a checkout)."""
    base = book_root(root)
    path = None if base is None else base / f"{doc}.md"
    if path is None or not path.exists():
        return html.escape(doc.split("/")[-1].replace("_", " "))
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            parts = re.split(r"\$([^$]+)\$", line[2:].strip())
            return "".join(
                html.escape(t)
                if i % 2 == 0
                else f'<span class="math notranslate nohighlight">\\({html.escape(t)}\\)</span>'
                for i, t in enumerate(parts)
            )
    return html.escape(doc)
