"""Notebook-aware progress bars for long runs (the result store is :mod:`companion.results`)."""

from __future__ import annotations

import os

__all__ = ["progress"]


def progress(iterable=None, **kw):
    """``tqdm.auto.tqdm`` (a widget in notebooks, text in a terminal); always disabled when
    ``COMPANION_PROGRESS=0`` (tests, nbval, scripts), whatever ``disable`` says."""
    from tqdm.auto import tqdm

    # COMPANION_PROGRESS=0 silences every bar, also one a caller asked for (disable=False)
    kw["disable"] = bool(kw.get("disable")) or os.environ.get("COMPANION_PROGRESS", "1") == "0"
    kw.setdefault("leave", False)
    return tqdm(iterable, **kw)
