"""Where things lie: the repository's root and a chapter's deck in the built site.

The few names the book tools (:mod:`.slides`, :mod:`.handout`, :mod:`.backmatter`) share, in
one module that imports none of them, so that their imports run one way.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["deck_path", "repo_root"]


def repo_root(start: str | os.PathLike | None = None) -> Path:
    """The folder holding ``_config.yml``, searched upwards from ``start`` (default: cwd)."""
    here = Path(start or os.getcwd()).resolve()
    for p in (here, *here.parents):
        if (p / "_config.yml").exists() and (p / "_toc.yml").exists():
            return p
    raise FileNotFoundError(f"`start` must lie inside the book repository; got {here}")


def deck_path(doc: str) -> str:
    """Where the deck of page ``doc`` lies in the built site.

    >>> deck_path("book/sign_magnitude/theorem3")
    'slides/sign_magnitude/theorem3.html'
    """
    return "slides/" + doc.removeprefix("book/") + ".html"
