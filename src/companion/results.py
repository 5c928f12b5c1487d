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
import sys
import tempfile
import time
from pathlib import Path

__all__ = [
    "NONFINITE",
    "ResultStore",
    "dumps_strict",
    "experiment_dir",
    "loads_strict",
    "locate",
    "read_json",
    "read_jsonl",
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


def read_jsonl(path) -> list[dict]:
    """Every record of a JSON-lines file, in order (an absent file is empty).

    Raises
    ------
    ValueError
        A line that is not JSON, naming the file and the line number.
    """
    path = Path(path)
    if not path.exists():
        return []
    out = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                out.append(loads_strict(line))
            except json.JSONDecodeError as err:
                raise ValueError(
                    f"`path` must hold one JSON record per line; {path} line {number}: {err.msg}"
                ) from None
    return out


def write_jsonl(path, records) -> None:
    """Replace ``path`` by these records, one strict line each (atomic: temporary + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for r in records:
                fh.write(dumps_strict(r) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
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

    One record per model × init × setting, keyed by :func:`settings_key`, so a rerun with
    ``--resume`` skips what is done. Appends are atomic (the file is rewritten to a temporary
    file and renamed) and serialised by a lock on the folder, so an interrupted run never
    leaves a half-written line and two writers never lose each other's records.

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
        self.path = os.fspath(path)

    def records(self) -> list[dict]:
        """Every stored record, in order (an absent file is empty)."""
        return read_jsonl(self.path)

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
        for name in ("model", "dtype", "device", "seed"):
            rec.setdefault(name, None)
        if "key" not in rec:
            rec["key"] = settings_key(rec.get("settings", {}))
        folder = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(folder, exist_ok=True)
        with _locked(folder):
            old = [r for r in self.records() if r.get("key") != rec["key"]]
            write_jsonl(self.path, old + [rec])
        return rec


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
