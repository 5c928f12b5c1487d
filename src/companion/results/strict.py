"""Strict JSON (RFC 8259) lines: non-finite floats as ``null`` plus a ``"_nonfinite"`` flag.

Examples
--------
>>> line = dumps_strict({"a": float("nan"), "b": [1.0, float("inf")]})
>>> line
'{"_nonfinite": {"/a": "NaN", "/b/1": "Infinity"}, "a": null, "b": [1.0, null]}'
>>> loads_strict(line)
{'a': nan, 'b': [1.0, inf]}
"""

from __future__ import annotations

import json
import math
import sys

__all__ = ["NONFINITE", "DuplicateKey", "dumps_strict", "loads_strict"]

#: The field that names a record's non-finite numbers (JSON Pointer -> their spelling).
NONFINITE = "_nonfinite"
_SPELL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class DuplicateKey(ValueError):
    """A JSON object names one key twice (``json`` would silently keep the last value)."""


class BadFlag(ValueError):
    """A ``"_nonfinite"`` field that does not point at a ``null`` of the record."""


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
    if not isinstance(record, dict):
        raise TypeError(f"`record` must be a dict; got {type(record).__name__}")
    plain = json.loads(json.dumps(record, default=_jsonable))  # numpy -> Python, NaN kept
    plain.pop(NONFINITE, None)
    flags: dict = {}
    clean = _scrub(plain, "", flags)
    if flags:
        clean[NONFINITE] = flags
    return json.dumps(clean, sort_keys=True, allow_nan=False)


def restore_nonfinite(record: dict) -> dict:
    """``record`` with the non-finite numbers its ``"_nonfinite"`` field names put back."""
    flags = record.pop(NONFINITE, None)
    if flags is None:
        return record
    if not isinstance(flags, dict):
        raise BadFlag(f"field {NONFINITE!r} must be an object; got {type(flags).__name__}")
    for pointer, spelling in flags.items():
        if spelling not in _SPELL or not pointer.startswith("/"):
            raise BadFlag(f"field {NONFINITE!r} holds {pointer!r}: {spelling!r}, not a flag")
        *head, last = [_unescape(t) for t in pointer.split("/")[1:]]
        node = record
        try:
            for token in head:
                node = node[int(token)] if isinstance(node, list) else node[token]
            if isinstance(node, list):
                node[int(last)] = _SPELL[spelling]
            elif isinstance(node, dict) and last in node:
                node[last] = _SPELL[spelling]
            else:
                raise KeyError(last)
        except (KeyError, IndexError, ValueError, TypeError):
            raise BadFlag(
                f"field {NONFINITE!r} points at {pointer!r}, which the record does not hold"
            ) from None
    return record


def _pairs(pairs):
    """``object_pairs_hook`` that refuses a key named twice."""
    out = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(f"key {key!r} appears twice in one object")
        out[key] = value
    return out


def parse_line(text: str):
    """The JSON value of one line (any type), duplicated keys refused, flags put back."""
    value = json.loads(text, object_pairs_hook=_pairs)
    return restore_nonfinite(value) if isinstance(value, dict) else value


def loads_strict(line: str) -> dict:
    """One record from a line :func:`dumps_strict` wrote (bare ``NaN``/``Infinity`` of older
    files are accepted too); flagged non-finite values are put back.

    Raises ``ValueError`` for a line that is not one JSON object (a ``json.JSONDecodeError``
    when it is not JSON at all).
    """
    if not isinstance(line, str):
        raise TypeError(f"`line` must be a str (one line of JSON); got {type(line).__name__}")
    value = parse_line(line)
    if not isinstance(value, dict):
        raise ValueError(f"a record must be a JSON object; got a JSON {_kind(value)}")
    return value


def _kind(value) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )
