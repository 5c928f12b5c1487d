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

Under faults nothing finished is lost. Every write is atomic (a temporary file renamed into
place) and serialised by a lock on the folder, so two writers never lose each other's records
and a killed writer leaves the old file whole. A temporary left by a killed process
(``.tmp-<pid>-*.jsonl``) is removed the next time a store opens the folder
(:func:`remove_stale_temporaries`). A file whose last line was cut short (a copy or a disk that
filled up) still reads: its complete records are returned with a :class:`ResultsWarning`
naming the file and the line, and the next writer moves the partial line to
``<name>.line<N>.partial`` beside it. Any other line that is not JSON is refused when a store
opens the file (:class:`CorruptResults`, naming the file and the line), before any work.

This module never imports torch (numpy only when a record holds numpy values).

Examples
--------
>>> line = dumps_strict({"a": float("nan"), "b": [1.0, float("inf")]})
>>> line
'{"_nonfinite": {"/a": "NaN", "/b/1": "Infinity"}, "a": null, "b": [1.0, null]}'
>>> loads_strict(line)
{'a': nan, 'b': [1.0, inf]}
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import secrets
import shutil
import sys
import time
import warnings
from pathlib import Path

__all__ = [
    "NONFINITE",
    "CorruptResults",
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
    "settings_key",
    "write_jsonl",
]

#: The field that names a record's non-finite numbers (JSON Pointer -> their spelling).
NONFINITE = "_nonfinite"
_SPELL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

_PACKAGE = Path(__file__).resolve().parent
#: The committed results inside a non-editable install (see ``setup.py``).
SHIPPED = _PACKAGE / "_results"


def _checkout_results() -> Path | None:
    """``<repo>/results`` when this module is ``<repo>/src/companion/results.py``."""
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


# ----------------------------------------------------------------------------- strict JSON


def _scrub(x, path: str, flags: dict):
    if isinstance(x, float) and not math.isfinite(x):
        flags[path] = "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
        return None
    if isinstance(x, dict):
        return {k: _scrub(v, f"{path}/{_escape(str(k))}", flags) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_scrub(v, f"{path}/{i}", flags) for i, v in enumerate(x)]
    return x


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _jsonable(x):
    """numpy arrays and scalars as lists and Python numbers; anything else as its ``str``."""
    np = sys.modules.get("numpy")
    if np is not None:
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, np.generic):
            return x.item()
    return str(x)


def dumps_strict(record: dict) -> str:
    """One line of strict JSON (``allow_nan=False``, keys sorted): non-finite floats become
    ``null`` and are listed in the record's ``"_nonfinite"`` field."""
    plain = json.loads(json.dumps(record, default=_jsonable))  # numpy -> Python, NaN kept
    plain.pop(NONFINITE, None)
    flags: dict = {}
    clean = _scrub(plain, "", flags)
    if flags:
        clean[NONFINITE] = flags
    return json.dumps(clean, sort_keys=True, allow_nan=False)


def _restore(record: dict) -> dict:
    flags = record.pop(NONFINITE, None)
    for pointer, spelling in (flags or {}).items():
        *head, last = [_unescape(t) for t in pointer.split("/")[1:]]
        node = record
        for token in head:
            node = node[int(token)] if isinstance(node, list) else node[token]
        if isinstance(node, list):
            node[int(last)] = _SPELL[spelling]
        else:
            node[last] = _SPELL[spelling]
    return record


def loads_strict(line: str) -> dict:
    """One record from a line :func:`dumps_strict` wrote (bare ``NaN``/``Infinity`` of older
    files are accepted too); flagged non-finite values are put back."""
    return _restore(json.loads(line))


class CorruptResults(ValueError):
    """A results file holds a line that is not JSON (other than a truncated last line)."""


class ResultsWarning(UserWarning):
    """A results file was recovered: its truncated last line was skipped or quarantined."""


def _scan(path: Path):
    """``(records, partial)`` of a JSON-lines file: the records of its complete lines, and
    ``(line number, raw bytes)`` of a last line cut short (no newline, not JSON), else None."""
    lines = path.read_bytes().split(b"\n")
    out, partial = [], None
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            out.append(loads_strict(raw.decode("utf-8")))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            if number == len(lines):  # the last line has no newline: a cut-short write
                partial = (number, raw)
                break
            why = err.msg if isinstance(err, json.JSONDecodeError) else "not UTF-8"
            raise CorruptResults(
                f"`path` must hold one JSON record per line; {path} line {number}: {why}"
            ) from None
    return out, partial


def _quarantine_name(path: Path, number: int) -> Path:
    """``<stem>.line<N>.partial`` beside ``path`` (numbered when that name is taken)."""
    stem = path.name.removesuffix(".jsonl")
    q, i = path.with_name(f"{stem}.line{number}.partial"), 1
    while q.exists():
        q, i = path.with_name(f"{stem}.line{number}.partial.{i}"), i + 1
    return q


_WARNED: set = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, ResultsWarning, stacklevel=3)


def read_jsonl(path) -> list[dict]:
    """Every record of a JSON-lines file, in order (an absent file is empty).

    A last line cut short (no newline, not JSON) is skipped with a :class:`ResultsWarning`
    naming the file and the line: the complete records before it are returned.

    Raises
    ------
    CorruptResults
        Any other line that is not JSON, naming the file and the line number (a ValueError).
    """
    path = Path(_check_path(path))
    if not path.exists():
        return []
    out, partial = _scan(path)
    if partial is not None:
        _warn_once(
            f"{path} line {partial[0]} is truncated (an interrupted copy or write): read the "
            f"{len(out)} complete records before it; the next run that writes this file "
            f"moves the partial line to {_quarantine_name(path, partial[0]).name}"
        )
    return out


def _check_path(path) -> str:
    """``path`` as a str; a directory or a non-path is refused."""
    try:
        path = os.fspath(path)
    except TypeError:
        raise TypeError(
            f"`path` must be a path (str or os.PathLike); got {type(path).__name__}"
        ) from None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not path or os.path.isdir(path):
        raise ValueError(f"`path` must name a results file, not a directory; got {path!r}")
    return path


#: Temporary results files: ``.tmp-<pid>-<random>.jsonl`` (older versions: ``.tmp-<random>``).
_TMP_JSONL = re.compile(r"^\.tmp-(?:(?P<pid>\d+)-)?[A-Za-z0-9_]+\.jsonl$")


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: alive
        return True
    except OSError:
        return False
    return True


def remove_stale_temporaries(folder, pattern, *, max_age_s: float = 3600.0) -> list[Path]:
    r"""Remove the temporaries that killed processes left in ``folder``; return them.

    A name matching ``pattern`` (a regular expression) whose group ``pid`` names a process
    that is gone is stale; a match without a ``pid`` group is stale when older than
    ``max_age_s`` seconds (no writer keeps a temporary that long). Files and folders are
    removed; errors (a read-only folder, a race with another cleaner) are ignored.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / ".tmp-999999999-x.jsonl").write_text("")
    >>> [p.name for p in remove_stale_temporaries(d, r"^\.tmp-(?P<pid>\d+)-.*\.jsonl$")]
    ['.tmp-999999999-x.jsonl']
    """
    folder = Path(os.fspath(folder))
    if isinstance(pattern, str):
        pattern = re.compile(pattern)
    if not isinstance(pattern, re.Pattern):
        raise TypeError(f"`pattern` must be a regular expression; got {type(pattern).__name__}")
    if isinstance(max_age_s, bool) or not isinstance(max_age_s, (int, float)):
        raise TypeError(f"`max_age_s` must be a real number; got {type(max_age_s).__name__}")
    if not max_age_s >= 0:
        raise ValueError(f"`max_age_s` must be >= 0; got {max_age_s}")
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return []
    removed, now = [], time.time()
    for entry in entries:
        m = pattern.match(entry.name)
        if m is None:
            continue
        pid = m.groupdict().get("pid")
        try:
            if pid is not None and _pid_alive(int(pid)):
                continue
            if pid is None and now - entry.lstat().st_mtime <= max_age_s:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except OSError:
            continue
        removed.append(entry)
    return removed


def write_jsonl(path, records) -> None:
    """Replace ``path`` by these records, one strict line each (atomic: temporary + rename,
    under the folder's lock, so a concurrent :meth:`ResultStore.append` is not lost)."""
    path = Path(_check_path(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [dumps_strict(r) for r in records]
    with _locked(str(path.parent)):
        _replace(path, lines)


def _replace(path: Path, lines: list[str]) -> None:
    """Write ``lines`` to a temporary file beside ``path`` and rename it into place."""
    tmp = path.parent / f".tmp-{os.getpid()}-{secrets.token_hex(4)}.jsonl"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(line + "\n" for line in lines)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if tmp.exists():
            tmp.unlink()
        raise


def read_json(path):
    """One JSON document (a benchmark summary ...), with flagged non-finite values put back."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return _restore(data) if isinstance(data, dict) else data


# ----------------------------------------------------------------------------- the store


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
    """JSON-lines records at ``path`` (created on the first append, with its folder).

    One record per model × init × setting, keyed by :func:`settings_key`. Every ``companion
    run`` command uses a store the same way: records are **appended**, never deleted; with
    ``--resume`` a setting already stored is skipped, without it the setting is measured
    again and its new record replaces the old one (records of other settings stay). Appends
    are atomic (the file is rewritten to a temporary file and renamed) and serialised by a
    lock on the folder, so an interrupted run never leaves a half-written line and two
    writers never lose each other's records.

    Opening a store checks the file before any work: temporaries of killed writers are
    removed, a line that is not JSON raises :class:`CorruptResults` (naming the file and the
    line) and a truncated last line is reported (:class:`ResultsWarning`); :meth:`recover`
    (and every append) moves that partial line to ``<name>.line<N>.partial``.

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

    def __init__(self, path):
        self.path = _check_path(path)
        folder = self._folder()
        if os.path.isdir(folder):
            with _locked(folder):
                remove_stale_temporaries(folder, _TMP_JSONL)
            self.records()  # refuses a corrupt file now, before any work

    def _folder(self) -> str:
        return os.path.dirname(os.path.abspath(self.path))

    def records(self) -> list[dict]:
        """Every stored record, in order (an absent file is empty)."""
        return read_jsonl(self.path)

    def keys(self) -> set:
        return {r.get("key") for r in self.records()}

    def done(self, key: str) -> bool:
        """True when a record with this key is stored."""
        return key in self.keys()

    def recover(self) -> Path | None:
        """Move a truncated last line to ``<name>.line<N>.partial`` and keep the complete
        records; return the quarantine file (None when the file was whole)."""
        folder = self._folder()
        if not os.path.exists(self.path):
            return None
        with _locked(folder):
            return self._recover_locked()[1]

    def _recover_locked(self):
        """(complete records, quarantine file or None); the caller holds the lock."""
        path = Path(self.path)
        if not path.exists():
            return [], None
        records, partial = _scan(path)
        if partial is None:
            return records, None
        number, raw = partial
        quarantine = _quarantine_name(path, number)
        quarantine.write_bytes(raw)
        _replace(path, [dumps_strict(r) for r in records])
        warnings.warn(
            f"{path} line {number} was truncated: kept its {len(records)} complete records "
            f"and moved the partial line to {quarantine}",
            ResultsWarning,
            stacklevel=3,
        )
        return records, quarantine

    def append(self, record: dict, *, command: str | None = None) -> dict:
        """Add one record atomically (standard fields filled in unless given) and return it.

        A record whose key is already stored replaces the old one (a forced rerun).
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
        folder = self._folder()
        os.makedirs(folder, exist_ok=True)
        with _locked(folder):
            remove_stale_temporaries(folder, _TMP_JSONL)
            old, _ = self._recover_locked()
            _replace(
                Path(self.path),
                [dumps_strict(r) for r in old if r.get("key") != rec["key"]] + [line],
            )
        return rec


class _locked:
    """An exclusive ``flock`` on the results folder (POSIX; a no-op elsewhere)."""

    def __init__(self, folder: str):
        self.folder, self.fd = folder, None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:
            return self
        try:
            self.fd = os.open(self.folder, os.O_RDONLY)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError:  # a filesystem without locks: the rename still keeps files whole
            if self.fd is not None:
                os.close(self.fd)
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
