"""Notebook-aware progress bars for long runs; the result store lives in :mod:`companion.results`.

``ResultStore``, ``settings_key`` and ``run_record`` are re-exported from
:mod:`companion.results` (the one results module) so that ``companion.llm.runs`` keeps
working for code written against it.
"""

from __future__ import annotations

import os

from companion.results import ResultStore, run_record, settings_key

__all__ = ["ResultStore", "settings_key", "progress", "run_record"]


def progress(iterable=None, **kw):
    """``tqdm.auto.tqdm`` (a widget in notebooks, text in a terminal); always disabled when
    ``COMPANION_PROGRESS=0`` (tests, nbval, scripts), whatever ``disable`` says."""
    from tqdm.auto import tqdm

    # COMPANION_PROGRESS=0 silences every bar, also one a caller asked for (disable=False)
    kw["disable"] = bool(kw.get("disable")) or os.environ.get("COMPANION_PROGRESS", "1") == "0"
    kw.setdefault("leave", False)
    return tqdm(iterable, **kw)
