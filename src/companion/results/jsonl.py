"""JSON-lines files read through their schema, written atomically, recovered when cut short."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import time
import warnings
from pathlib import Path

from companion.results.lock import locked
from companion.results.schema import CorruptResults, RecordError, RecordSchema, schema_for
from companion.results.strict import (
    BadFlag,
    DuplicateKey,
    dumps_strict,
    parse_line,
    restore_nonfinite,
)

__all__ = ["ResultsWarning", "read_json", "read_jsonl", "remove_stale_temporaries", "write_jsonl"]


def check_schema(schema) -> RecordSchema | None:
    if schema is not None and not isinstance(schema, RecordSchema):
        raise TypeError(f"`schema` must be a RecordSchema or None; got {type(schema).__name__}")
    return schema


class ResultsWarning(UserWarning):
    """A results file was recovered: its truncated last line was skipped or quarantined."""


def _record(raw: bytes, path, number: int, schema: RecordSchema, last: bool):
    """The record of one line; None for a cut-short last line; else :class:`CorruptResults`."""
    try:
        value = parse_line(raw.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        if last:  # the last line has no newline: a cut-short write
            return None
        why = err.msg if isinstance(err, json.JSONDecodeError) else "not UTF-8"
        raise CorruptResults(
            f"`path` must hold one JSON record per line; {path} line {number}: {why}"
        ) from None
    except (DuplicateKey, BadFlag) as err:
        raise RecordError(
            f"`path` must hold {schema.name} records; {path} line {number}: {err}"
        ) from None
    problem = schema.problem(value)
    if problem is not None:
        raise RecordError(
            f"`path` must hold {schema.name} records; {path} line {number}: {problem}"
        )
    return value


def scan(path, *, start: int = 0, first_line: int = 1, schema: RecordSchema | None = None):
    """Read the lines of ``path`` from byte ``start`` (line number ``first_line``).

    Returns ``(records, partial, end, next_line)``: the records of the complete lines, the
    ``(line number, raw bytes)`` of a last line cut short (no newline, not JSON) or None, the
    byte offset after the last record read and the number of the line after it. A valid last
    line without its newline counts as a record.
    """
    schema = schema or schema_for(path)
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read()
    out, partial, number, pos = [], None, first_line, 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        last = nl < 0
        end = len(data) if last else nl + 1
        raw = data[pos:end].rstrip(b"\n")
        if raw.strip():
            rec = _record(raw, path, number, schema, last)
            if rec is None:
                partial = (number, raw)
                break
            out.append(rec)
        pos, number = end, number + 1
    return out, partial, start + pos, number


def latest(records: list) -> list:
    """Each key's last record, in the order of those last records (a forced rerun appends
    the new record; it replaces the old one). Records without a string key all stay."""
    last = {r["key"]: i for i, r in enumerate(records) if isinstance(r.get("key"), str)}
    return [
        r for i, r in enumerate(records) if not isinstance(r.get("key"), str) or last[r["key"]] == i
    ]


def quarantine_name(path: Path, number: int) -> Path:
    """``<stem>.line<N>.partial`` beside ``path`` (numbered when that name is taken)."""
    stem = path.name.removesuffix(".jsonl")
    q, i = path.with_name(f"{stem}.line{number}.partial"), 1
    while q.exists():
        q, i = path.with_name(f"{stem}.line{number}.partial.{i}"), i + 1
    return q


_WARNED: set = set()


def warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(message, ResultsWarning, stacklevel=4)


def warn_partial(path, partial, n_records: int) -> None:
    warn_once(
        f"{path} line {partial[0]} is truncated (an interrupted copy or write): read the "
        f"{n_records} complete records before it; the next run that writes this file "
        f"moves the partial line to {quarantine_name(Path(path), partial[0]).name}"
    )


def read_jsonl(path, *, schema: RecordSchema | None = None) -> list[dict]:
    """Every record of a JSON-lines file, in order (an absent file is empty); of a key
    stored twice (a forced rerun), the later record only.

    Each record is read through ``schema`` (default: the file's, :func:`schema_for`). A last
    line cut short (no newline, not JSON) is skipped with a :class:`ResultsWarning` naming
    the file and the line: the complete records before it are returned.

    Raises
    ------
    CorruptResults
        Any other line that is not JSON, naming the file and the line number (a ValueError);
        :class:`RecordError` (a CorruptResults) for a line that is JSON but not a record of
        the schema, naming the field too.
    """
    path = Path(check_path(path))
    schema = check_schema(schema)
    if not path.exists():
        return []
    out, partial, _, _ = scan(path, schema=schema)
    if partial is not None:  # perhaps a writer's line being written: read again after it
        with locked(str(path.parent)):
            out, partial, _, _ = scan(path, schema=schema)
    if partial is not None:
        warn_partial(path, partial, len(out))
    return latest(out)


def check_path(path) -> str:
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
TMP_JSONL = re.compile(r"^\.tmp-(?:(?P<pid>\d+)-)?[A-Za-z0-9_]+\.jsonl$")


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
    from companion._validate import check_real

    if isinstance(folder, bool) or not isinstance(folder, (str, os.PathLike)):
        raise TypeError(
            f"`folder` must be a path (str or os.PathLike); got {type(folder).__name__}"
        )
    folder = Path(os.fspath(folder))
    if isinstance(pattern, str):
        try:
            pattern = re.compile(pattern)
        except re.error as err:
            raise ValueError(
                f"`pattern` must be a regular expression; got {pattern!r}: {err}"
            ) from None
    if not isinstance(pattern, re.Pattern):
        raise TypeError(f"`pattern` must be a regular expression; got {type(pattern).__name__}")
    max_age_s = check_real(max_age_s, "max_age_s", low=0.0)
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

    path = Path(check_path(path))
    if isinstance(records, (str, bytes, dict)) or not hasattr(records, "__iter__"):
        raise TypeError(f"`records` must be an iterable of dicts; got {type(records).__name__}")
    records = list(records)
    bad = next((r for r in records if not isinstance(r, dict)), None)
    if bad is not None:
        raise TypeError(f"`records` must hold dicts; got a {type(bad).__name__}")
    lines = [dumps_strict(r) for r in records]
    path.parent.mkdir(parents=True, exist_ok=True)
    with locked(str(path.parent)):
        replace(path, lines)


def replace(path: Path, lines: list[str]) -> None:
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
    data = json.loads(Path(check_path(path)).read_text(encoding="utf-8"))
    return restore_nonfinite(data) if isinstance(data, dict) else data
