"""The results store: one record per setting, appended in O(1), read incrementally."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from companion.results.jsonl import (
    TMP_JSONL,
    ResultsWarning,
    check_path,
    check_schema,
    latest,
    quarantine_name,
    remove_stale_temporaries,
    replace,
    scan,
    warn_partial,
)
from companion.results.lock import locked
from companion.results.schema import RecordError, RecordSchema, schema_for
from companion.results.strict import dumps_strict, loads_strict

__all__ = ["ResultStore", "run_record", "settings_key"]

#: Bytes before the read offset that must be unchanged for an incremental read to be valid.
_FINGERPRINT = 64


def settings_key(settings: dict) -> str:
    """A stable 16-hex-digit hash of a settings dict (key order does not matter).

    Examples
    --------
    >>> settings_key({"a": 1, "b": 2}) == settings_key({"b": 2, "a": 1})
    True
    """
    if not isinstance(settings, dict):
        raise TypeError(f"`settings` must be a dict; got {type(settings).__name__}")
    blob = json.dumps(settings, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class _Cache:
    """What this store has read of its file: every record up to byte ``end``."""

    ident: tuple = ()  # (device, inode) of the file read
    end: int = 0  # byte offset after the last complete record read
    mtime: int = 0  # the file's mtime (ns) when ``end`` was reached
    next_line: int = 1
    tail: bytes = b""  # the bytes just before ``end`` (a rewrite in place is noticed)
    records: list = field(default_factory=list)  # every record read, superseded ones too
    index: dict = field(default_factory=dict)  # key -> position of its latest record
    partial: tuple | None = None  # (line, raw bytes) of a cut-short last line
    view: list | None = None  # latest(records), built on demand

    def add(self, recs: list) -> None:
        for rec in recs:
            key = rec.get("key")
            if isinstance(key, str):
                self.index[key] = len(self.records)
            self.records.append(rec)
        if recs:
            self.view = None


class ResultStore:
    """JSON-lines records at ``path`` (created on the first append, with its folder).

    One record per model × init × setting, keyed by :func:`settings_key`. Every ``companion
    run`` command uses a store the same way: records are **appended**, never deleted; with
    ``--resume`` a setting already stored is skipped, without it the setting is measured
    again and its new record replaces the old one (records of other settings stay).

    An append of a new setting writes and fsyncs the new line only (O(1) in the file's
    size); replacing a stored setting rewrites the file atomically (a temporary renamed into
    place, O(records)), so a file holds one line per key. Both happen under an
    exclusive lock on the folder, so two writers never lose each other's records; a write
    that fails or is interrupted in this process (a full disk, Ctrl-C) is cut back to the
    old end of the file, so no partial line survives it. Reads are incremental: the store
    remembers how far it has read and parses only lines appended since (by itself or by
    another writer); a file replaced or rewritten in place is read again from the start.

    Opening a store checks the file before any work: temporaries of killed writers are
    removed, a line that is not a record of the file's schema (:func:`schema_for`) raises
    :class:`CorruptResults` (naming the file, the line and the field) and a truncated last
    line (a writer killed mid-line, a copy cut short) is reported (:class:`ResultsWarning`);
    :meth:`recover` (and every append) moves that partial line to ``<name>.line<N>.partial``.

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

    def __init__(self, path, *, schema: RecordSchema | None = None):
        self.path = check_path(path)
        self.schema = check_schema(schema)
        folder = self._folder()
        if os.path.isdir(folder):
            with locked(folder):
                remove_stale_temporaries(folder, TMP_JSONL)
            self.records()  # refuses a corrupt file now, before any work

    def _folder(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def _schema(self) -> RecordSchema:
        return getattr(self, "schema", None) or schema_for(self.path)

    # ------------------------------------------------------------------------ reading

    def _refresh(self, *, settle: bool = True) -> _Cache:
        """Bring the cache up to date with the file, reading only what is new.

        A last line without its newline may be another writer's line being written: it is
        read again once that writer's lock is released (``settle``), and only then reported
        as truncated."""
        cache = getattr(self, "_cache", None)
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._cache = _Cache()
            return self._cache
        ident = (st.st_dev, st.st_ino)
        rewritten = cache is not None and st.st_size == cache.end and st.st_mtime_ns != cache.mtime
        if (
            cache is None
            or cache.ident != ident
            or st.st_size < cache.end
            or rewritten  # changed without growing: rewritten in place
            or not self._same_tail(cache)
        ):
            cache = _Cache(ident=ident)
        if st.st_size == cache.end and cache.partial is None and cache.ident:
            self._cache = cache
            return cache
        recs, partial, end, next_line = scan(
            self.path, start=cache.end, first_line=cache.next_line, schema=self._schema()
        )
        cache.add(recs)
        cache.partial, cache.next_line = partial, next_line
        if end != cache.end:
            cache.end = end
            cache.tail = self._read_tail(end)
        cache.mtime = st.st_mtime_ns if end == st.st_size else 0
        self._cache = cache
        if partial is not None and settle and not getattr(self, "_holding", False):
            with locked(self._folder()):  # a writer mid-line holds the lock: wait for it
                return self._refresh(settle=False)
        if partial is not None:
            warn_partial(self.path, partial, len(cache.records))
        return cache

    def _read_tail(self, end: int) -> bytes:
        start = max(0, end - _FINGERPRINT)
        with open(self.path, "rb") as fh:
            fh.seek(start)
            return fh.read(end - start)

    def _same_tail(self, cache: _Cache) -> bool:
        if not cache.tail:
            return True
        try:
            return self._read_tail(cache.end) == cache.tail
        except OSError:
            return False

    def _view(self) -> list:
        cache = self._refresh()
        if cache.view is None:
            cache.view = latest(cache.records)
        return cache.view

    def records(self) -> list[dict]:
        """Every stored record, in order (an absent file is empty); of a key stored twice,
        the later record only (copies: changing one changes nothing stored)."""
        return [dict(r) for r in self._view()]

    def keys(self) -> set:
        return {r.get("key") for r in self._view()}

    def done(self, key: str) -> bool:
        """True when a record with this key is stored."""
        return _check_key(key) in self._refresh().index

    def get(self, key: str) -> dict | None:
        """The stored record with this key (a copy), or None."""
        cache = self._refresh()
        i = cache.index.get(_check_key(key))
        return None if i is None else dict(cache.records[i])

    # ------------------------------------------------------------------------ writing

    def recover(self) -> Path | None:
        """Move a truncated last line to ``<name>.line<N>.partial`` and keep the complete
        records; return the quarantine file (None when the file was whole)."""
        folder = self._folder()
        if not os.path.exists(self.path):
            return None
        with locked(folder):
            return self._recover_locked()

    def _recover_locked(self) -> Path | None:
        """The quarantine file, or None when the file was whole; the caller holds the lock."""
        path = Path(self.path)
        if not path.exists():
            return None
        records, partial, _, _ = scan(path, schema=self._schema())
        if partial is None:
            return None
        number, raw = partial
        quarantine = quarantine_name(path, number)
        quarantine.write_bytes(raw)
        replace(path, [dumps_strict(r) for r in records])
        self._cache = None
        warnings.warn(
            f"{path} line {number} was truncated: kept its {len(records)} complete records "
            f"and moved the partial line to {quarantine}",
            ResultsWarning,
            stacklevel=3,
        )
        return quarantine

    def append(self, record: dict, *, command: str | None = None) -> dict:
        """Add one record (standard fields filled in unless given) and return it: one line
        written and fsynced at the end of the file.

        A record whose key is already stored replaces the old one (a forced rerun; the file
        is then rewritten atomically).
        """
        if not isinstance(record, dict):
            raise TypeError(f"`record` must be a dict; got {type(record).__name__}")
        if command is not None and not isinstance(command, str):
            raise TypeError(f"`command` must be a str or None; got {type(command).__name__}")
        rec = dict(record)
        rec.setdefault("command", command if command is not None else " ".join(sys.argv))
        rec.setdefault("version", _version())
        rec.setdefault("time", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
        rec.setdefault("host", _host())
        for name in ("model", "dtype", "device", "seed"):
            rec.setdefault(name, None)
        if "key" not in rec:
            rec["key"] = settings_key(rec.get("settings", {}))
        line = dumps_strict(rec)  # a record that cannot be written fails before the file is read
        stored = loads_strict(line)  # as a reader will see it
        schema = self._schema()
        problem = schema.problem(stored)
        if problem is not None:  # refused before it could make the file unreadable
            raise RecordError(f"`record` must be a {schema.name} record; {problem}")
        folder = self._folder()
        os.makedirs(folder, exist_ok=True)
        with locked(folder):
            self._holding = True  # this process holds the lock: never wait for it again
            try:
                remove_stale_temporaries(folder, TMP_JSONL)
                cache = self._refresh()  # only what other writers appended since
                if cache.partial is not None:
                    self._recover_locked()
                    cache = self._refresh()
                if rec["key"] in cache.index:  # a forced rerun: one line per key stays true
                    kept = [r for r in latest(cache.records) if r.get("key") != rec["key"]]
                    replace(Path(self.path), [dumps_strict(r) for r in kept] + [line])
                    self._cache = None
                else:  # a new setting: one line written and fsynced, O(1)
                    self._write_line(cache, line, stored)
            finally:
                self._holding = False
        return rec

    def _write_line(self, cache: _Cache, line: str, stored: dict) -> None:
        """Append ``line`` (after a newline when the last line lacks one) and fsync it; on
        any failure the file is cut back to its old end."""
        created = not os.path.exists(self.path)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            size = os.fstat(fd).st_size
            lead = b"\n" if size and self._read_tail(size)[-1:] != b"\n" else b""
            data = lead + line.encode("utf-8") + b"\n"
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            except BaseException:
                os.ftruncate(fd, size)  # no partial line survives a failed write
                raise
            mtime = os.fstat(fd).st_mtime_ns
        finally:
            os.close(fd)
        if created:
            _fsync_folder(self._folder())
        if cache.end == size and cache.ident:
            cache.add([stored])
            cache.end = size + len(data)
            cache.next_line += 1
            cache.tail = (cache.tail + data)[-_FINGERPRINT:]
            cache.mtime = mtime
        else:
            self._cache = None  # a file created just now: read it again next time


def _check_key(key) -> str:
    if not isinstance(key, str):
        raise TypeError(f"`key` must be a str (settings_key(settings)); got {type(key).__name__}")
    return key


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def run_record(
    store,
    settings: dict | None,
    measure,
    *,
    key: str | None = None,
    resume: bool = True,
    command: str | None = None,
    timed: str | None = None,
    since: float | None = None,
) -> dict:
    """The one resumable step of every runner: skip if done, else time, compute, append.

    With ``resume`` and a record of this key stored, return it (a copy) without calling
    ``measure``; else call ``measure()`` (-> the record's fields, a dict) and append
    ``{"key": key, "settings": settings, **fields}`` (``"settings"`` only when given).
    If ``measure`` raises, nothing is written.

    Parameters
    ----------
    store : ResultStore
        Or a view of one with ``get(key)`` (the stored record or None: a view decides what
        counts as done) and ``append(record, *, command=None)``.
    settings : dict or None
        What the record measures; its :func:`settings_key` is the key unless ``key`` is
        given. None for a runner with keys of its own (``key`` is then required).
    key : str, optional
        The record's key (e.g. ``"table2|p=0.05"``).
    timed : str, optional
        A field that receives the wall-clock seconds of ``measure`` (e.g. ``"wall_s"``);
        ``measure`` must not return that field itself.
    since : float, optional
        With ``timed``: a ``time.perf_counter()`` reading to time from (work done before
        the call that belongs to this record).

    Examples
    --------
    >>> import tempfile, os
    >>> store = ResultStore(os.path.join(tempfile.mkdtemp(), "r.jsonl"))
    >>> rec = run_record(store, None, lambda: {"x": 1.0}, key="x|1", timed="wall_s")
    >>> rec["x"], rec["wall_s"] >= 0
    (1.0, True)
    >>> run_record(store, None, lambda: 1 / 0, key="x|1")["x"]  # done: not measured again
    1.0
    """
    from companion._validate import check_bool, check_real

    if not (callable(getattr(store, "get", None)) and callable(getattr(store, "append", None))):
        raise TypeError(
            "`store` must be a ResultStore (or a view of one with get(key) and "
            f"append(record, command=...)); got {type(store).__name__}"
        )
    if not callable(measure):
        raise TypeError(f"`measure` must be callable (-> dict); got {type(measure).__name__}")
    resume = check_bool(resume, "resume")
    if command is not None and not isinstance(command, str):
        raise TypeError(f"`command` must be a str or None; got {type(command).__name__}")
    if settings is None and key is None:
        raise TypeError("`key` must be given when `settings` is None; got neither")
    if settings is not None and not isinstance(settings, dict):
        raise TypeError(f"`settings` must be a dict or None; got {type(settings).__name__}")
    if key is None:
        key = settings_key(settings)
    elif not isinstance(key, str) or not key:
        got = repr(key) if isinstance(key, str) else type(key).__name__
        raise TypeError(f"`key` must be a non-empty str; got {got}")
    if timed is not None and (not isinstance(timed, str) or not timed):
        got = repr(timed) if isinstance(timed, str) else type(timed).__name__
        raise TypeError(f"`timed` must be a field name (a non-empty str) or None; got {got}")
    if since is not None:
        if timed is None:
            raise TypeError("`since` must only be given with `timed` (what it times); got it alone")
        since = check_real(since, "since")
    if resume:
        found = store.get(key)
        if found is not None:
            return found
    t0 = time.perf_counter() if since is None else since
    result = measure()
    seconds = time.perf_counter() - t0
    if not isinstance(result, dict):
        raise TypeError(f"`measure` must return a dict; got {type(result).__name__}")
    head = {"key": key} if settings is None else {"key": key, "settings": settings}
    clash = sorted(k for k in head if k in result and result[k] != head[k])
    if timed is not None:
        if timed in result or timed in head:
            clash.append(timed)
        result = {**result, timed: seconds}
    if clash:  # a record that contradicts its own key is refused before it is written
        raise ValueError(
            f"`measure` must not return other values of the fields run_record writes "
            f"itself; got {clash}"
        )
    return store.append({**head, **result}, command=command)


def _host() -> dict:
    """Where a record was produced: Python, CPU architecture, cores and GPU (if torch sees one)."""
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
