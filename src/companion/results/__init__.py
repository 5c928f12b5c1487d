"""Where results live, and the one way they are read and written: strict JSON lines.

Every experiment writes JSON records under one **results root**, one folder per experiment
(``sign_flips/``, ``dead_directions/`` ...). The root is, in this order:

1. ``$COMPANION_RESULTS`` when it is set;
2. the checkout's ``results/`` when the package runs from a repository checkout;
3. for reading, the results shipped inside the package (a non-editable install, e.g.
   ``pip install git+...`` on Colab, carries the committed ``results/`` as package data);
4. for writing (or when nothing is shipped), a user data folder:
   ``$XDG_DATA_HOME/companion/results``, default ``~/.local/share/companion/results``.

So a Colab user reads the committed CPU-scale records and writes new ones beside them in a
folder of their own; :func:`locate` finds a file in whichever of the two holds it.

Files are strict JSON (RFC 8259): a non-finite float is written as ``null`` and named in the
record's ``"_nonfinite"`` field (JSON Pointer → ``"NaN"``, ``"Infinity"`` or
``"-Infinity"``), and :func:`read_jsonl` puts the value back, so a record reads back exactly as
it was written. Older files that carry bare ``NaN``/``Infinity`` still read.

Under faults nothing finished is lost. An append writes and fsyncs one line at the end of
the file (O(1): the file is never re-read or re-serialised to add a record), serialised by a
lock on the folder, so two writers never lose each other's records; a write that fails (a full
disk, Ctrl-C) is cut back, and a rewrite (:func:`write_jsonl`, a compaction) is atomic (a
temporary file renamed into place). A temporary left by a killed process
(``.tmp-<pid>-*.jsonl``) is removed the next time a store opens the folder
(:func:`remove_stale_temporaries`). A file whose last line was cut short (a writer killed
mid-line, a copy or a disk that filled up) still reads: its complete records are returned with
a :class:`ResultsWarning` naming the file and the line, and the next writer moves the partial
line to ``<name>.line<N>.partial`` beside it. Every record is read through one schema
(:mod:`companion.results.schema`): a line that is not JSON, or JSON but not a record of its
file (not an object, a field missing or of the wrong type, a key named twice) is refused when
a store opens the file (:class:`CorruptResults`, naming the file, the line and the field),
before any work.

The package: :mod:`~companion.results.strict` (strict JSON lines),
:mod:`~companion.results.schema` (what a record holds), :mod:`~companion.results.jsonl`
(reading, atomic rewriting, recovery), :mod:`~companion.results.store` (the store, appends).

This package never imports torch (numpy only when a record holds numpy values).

Examples
--------
>>> line = dumps_strict({"a": float("nan"), "b": [1.0, float("inf")]})
>>> line
'{"_nonfinite": {"/a": "NaN", "/b/1": "Infinity"}, "a": null, "b": [1.0, null]}'
>>> loads_strict(line)
{'a': nan, 'b': [1.0, inf]}
"""

from __future__ import annotations

import os
from pathlib import Path

from companion.results.jsonl import (
    ResultsWarning,
    read_json,
    read_jsonl,
    remove_stale_temporaries,
    write_jsonl,
)
from companion.results.schema import CorruptResults, RecordError, RecordSchema, schema_for
from companion.results.store import ResultStore, run_record, settings_key
from companion.results.strict import NONFINITE, dumps_strict, loads_strict

__all__ = [
    "NONFINITE",
    "CorruptResults",
    "RecordError",
    "RecordSchema",
    "ResultStore",
    "ResultsWarning",
    "dumps_strict",
    "experiment_dir",
    "loads_strict",
    "locate",
    "read_json",
    "read_jsonl",
    "remove_stale_temporaries",
    "results_root",
    "run_record",
    "schema_for",
    "settings_key",
    "write_jsonl",
]

_PACKAGE = Path(__file__).resolve().parents[1]  # src/companion
#: The committed results inside a non-editable install (see ``setup.py``).
SHIPPED = _PACKAGE / "_results"


def _checkout_results() -> Path | None:
    """``<repo>/results`` when this package is ``<repo>/src/companion/results/``."""
    repo = _PACKAGE.parents[1]
    if (repo / "pyproject.toml").is_file() and (repo / "src" / "companion") == _PACKAGE:
        return repo / "results"
    return None


def _user_results() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return Path(base) / "companion" / "results"


def results_root(*, write: bool = False) -> Path:
    """The results root (see the module docs for the order).

    Parameters
    ----------
    write : bool
        True for a root new records may be written to: never the folder inside an installed
        package, which a reinstall would replace.
    """
    env = os.environ.get("COMPANION_RESULTS")
    if env:
        return Path(env)
    checkout = _checkout_results()
    if checkout is not None:
        return checkout
    if not write and SHIPPED.is_dir():
        return SHIPPED
    return _user_results()


def experiment_dir(experiment: str, *, write: bool = False) -> Path:
    """``results_root(write=write) / experiment``."""
    return results_root(write=write) / experiment


def locate(*parts: str) -> Path:
    """The path of a results file, relative to the root: the copy written here if there is one,
    else the read root's (shipped) copy, else where it would be written.

    Examples
    --------
    >>> locate("sign_flips", "no-such-model", "table1-cpu.jsonl").name
    'table1-cpu.jsonl'
    """
    written, shipped = results_root(write=True), results_root()
    for root in dict.fromkeys((written, shipped)):
        if (root.joinpath(*parts)).exists():
            return root.joinpath(*parts)
    return written.joinpath(*parts)
