"""A resumable result store for long runs, and notebook-aware progress bars.

One JSON record per model × init × setting, one line each in a JSONL file. Every record is
keyed by :func:`settings_key` (a hash of its settings), so a rerun with ``--resume`` skips
what is done. Appends are atomic (the whole file is rewritten to a temporary file and
renamed), so an interrupted run never leaves a half-written line, and a run that fails
leaves no record at all (the record is written only after the measurement finished).

Examples
--------
>>> import tempfile, os
>>> store = ResultStore(os.path.join(tempfile.mkdtemp(), "r.jsonl"))
>>> key = settings_key({"model": "gpt2", "init": "random"})
>>> store.done(key)
False
>>> _ = store.append({"key": key, "model": "gpt2", "value": 1.0}, command="doctest")
>>> store.done(key), len(store.records())
(True, 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
import time

__all__ = ["ResultStore", "settings_key", "progress", "run_record"]


def settings_key(settings: dict) -> str:
    """A stable 16-hex-digit hash of a settings dict (key order does not matter).

    Examples
    --------
    >>> settings_key({"a": 1, "b": 2}) == settings_key({"b": 2, "a": 1})
    True
    """
    blob = json.dumps(settings, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class ResultStore:
    """JSONL records at ``path`` (created on the first append, with its folder)."""

    def __init__(self, path):
        self.path = os.fspath(path)

    def records(self) -> list[dict]:
        """Every stored record, in order (an absent file is empty)."""
        if not os.path.exists(self.path):
            return []
        with open(self.path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()]

    def keys(self) -> set:
        return {r.get("key") for r in self.records()}

    def done(self, key: str) -> bool:
        """True when a record with this key is stored."""
        return key in self.keys()

    def append(self, record: dict, *, command: str | None = None) -> dict:
        """Add one record atomically (standard fields filled in unless given) and return it.

        A record whose key is already stored replaces the old one (a forced rerun).
        """
        rec = dict(record)
        rec.setdefault("command", command if command is not None else " ".join(sys.argv))
        rec.setdefault("version", _version())
        rec.setdefault("time", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        rec.setdefault("host", _host())
        for field in ("model", "dtype", "device", "seed"):
            rec.setdefault(field, None)
        if "key" not in rec:
            rec["key"] = settings_key(rec.get("settings", {}))
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        with _locked(folder):  # two writers never lose each other's records
            self._write(folder, rec)
        return rec

    def _write(self, folder: str, rec: dict) -> None:
        old = [r for r in self.records() if r.get("key") != rec["key"]]
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                for r in old + [rec]:
                    fh.write(json.dumps(r, sort_keys=True, default=_jsonable) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise


class _locked:
    """An exclusive ``flock`` on the results folder (POSIX; a no-op elsewhere)."""

    def __init__(self, folder: str):
        self.folder, self.fd = folder, None

    def __enter__(self):
        try:
            import fcntl

            self.fd = os.open(self.folder, os.O_RDONLY)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except (ImportError, OSError):
            self.fd = None
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)  # closing releases the lock
        return False


def run_record(
    store: ResultStore, settings: dict, measure, *, resume: bool = True, command: str | None = None
) -> dict:
    """Measure once per settings: return the stored record when ``resume`` and done,
    else call ``measure()`` (→ dict) and append ``{key, settings, **result}``.

    If ``measure`` raises, nothing is written.
    """
    key = settings_key(settings)
    if resume:
        for r in store.records():
            if r.get("key") == key:
                return r
    result = measure()
    return store.append({"key": key, "settings": settings, **result}, command=command)


def _jsonable(x):
    try:
        import numpy as np

        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, np.generic):
            return x.item()
    except ImportError:  # pragma: no cover
        pass
    return str(x)


def _host() -> dict:
    """Where a record was produced: Python, CPU architecture, core count and GPU (if torch sees one)."""
    host = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    torch = sys.modules.get("torch")  # never import torch just to describe the host
    if torch is not None and torch.cuda.is_available():
        host["gpu"] = torch.cuda.get_device_name(0)
        host["gpus"] = torch.cuda.device_count()
    return host


def _version() -> str:
    from companion import __version__

    return __version__


def progress(iterable=None, **kw):
    """``tqdm.auto.tqdm`` (a widget in notebooks, text in a terminal); ``disable`` when
    ``COMPANION_PROGRESS=0`` (tests, nbval)."""
    from tqdm.auto import tqdm

    kw.setdefault("disable", os.environ.get("COMPANION_PROGRESS", "1") == "0")
    kw.setdefault("leave", False)
    return tqdm(iterable, **kw)
