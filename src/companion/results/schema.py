"""The one schema every results record is read through: which fields a file's records must
hold, and of which JSON type.

A record is a JSON object whose standard fields (those :meth:`ResultStore.append` fills in)
have their types wherever they appear; a file the experiments write (chosen by its name,
:func:`schema_for`) also needs the fields its readers index. A record that breaks the schema
is refused in one line naming the file, the line and the field (:class:`RecordError`, a
:class:`CorruptResults`), never a ``KeyError`` or ``TypeError`` deep inside a reader.

Examples
--------
>>> DEAD_DIRECTIONS.problem({"key": "k", "model": "gpt2"})
"field 'init': missing (a string)"
>>> BASE.problem({"key": 3})
"field 'key': must be a string; got a number"
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field

__all__ = [
    "BASE",
    "DEAD_DIRECTIONS",
    "SCHEMAS",
    "CorruptResults",
    "RecordError",
    "RecordSchema",
    "schema_for",
]


class CorruptResults(ValueError):
    """A results file holds a line that is not a JSON record (other than a truncated last
    line); the message names the file and the line."""


class RecordError(CorruptResults):
    """A results line is JSON but not a record of its file's schema (not an object, a field
    missing or of the wrong type, a key named twice); the message names the field."""


#: JSON types by name: the Python types ``json`` gives (a bool is not a number here).
_TYPES = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "array": (list,),
    "object": (dict,),
    "boolean": (bool,),
    "null": (type(None),),
}


def json_kind(value) -> str:
    """The JSON type name of a parsed value."""
    if isinstance(value, bool):
        return "boolean"
    for name in ("string", "integer", "number", "array", "object", "null"):
        if isinstance(value, _TYPES[name]):
            return "number" if name == "integer" else name
    return type(value).__name__


def _is(value, kinds: str) -> bool:
    for kind in kinds.split("|"):
        if isinstance(value, bool) and kind != "boolean":
            continue
        if isinstance(value, _TYPES[kind]):
            return True
    return False


def _article(kinds: str) -> str:
    return " or ".join(("an " if k[0] in "aeiou" else "a ") + k for k in kinds.split("|"))


@dataclass(frozen=True)
class RecordSchema:
    """Fields a record must hold (``required``) and types of those it may hold
    (``optional``), each as JSON type names joined by ``|`` (``"string|null"``)."""

    name: str
    required: dict = field(default_factory=dict)
    optional: dict = field(default_factory=dict)

    def problem(self, record) -> str | None:
        """What is wrong with ``record`` (one phrase naming the field), or None."""
        if not isinstance(record, dict):
            return f"a record must be a JSON object; got a JSON {json_kind(record)}"
        for name, kinds in self.required.items():
            if name not in record:
                return f"field {name!r}: missing ({_article(kinds)})"
        for name, kinds in {**self.optional, **self.required}.items():
            if name in record and not _is(record[name], kinds):
                return (
                    f"field {name!r}: must be {_article(kinds)}; got "
                    f"{_article(json_kind(record[name]))}"
                )
        return None


#: The standard fields of every stored record, typed wherever they appear.
_STANDARD = {
    "key": "string",
    "command": "string",
    "version": "string",
    "time": "string",
    "host": "object",
    "model": "string|null",
    "dtype": "string|null",
    "device": "string|null",
    "seed": "integer|null",
    "settings": "object",
}

BASE = RecordSchema("results", optional=_STANDARD)

#: ``companion run dead-directions`` (read by the at-scale chapter, the ledger, the driver).
DEAD_DIRECTIONS = RecordSchema(
    "dead-direction",
    required={
        "key": "string",
        "model": "string",
        "init": "string",
        "scale": "string",
        "d": "integer",
        "layers": "integer",
        "n_tokens": "integer",
        "cos": "number",
        "rayleigh": "number",
        "diag_rayleigh": "number",
        "schur_ratio": "number",
        "null_q999": "number",
        "verdict": "string",
        "norm_registry": "string",
        "spectrum": "array",
        "vstar": "array",
        "sigma_ratio": "array",
        "gamma_stats": "object",
        "profile_degenerate": "boolean",
    },
    optional=_STANDARD,
)

#: ``companion run sign-flips`` (one file per model and experiment; its records differ by
#: kind, so only what every one of them holds is required).
SIGN_FLIPS = RecordSchema(
    "sign-flip", required={"key": "string"}, optional={**_STANDARD, "meta": "object"}
)

THEOREM3 = RecordSchema(
    "Theorem 3 grid",
    required={"key": "string", "p": "number", "C": "number", "C_se": "number",
              "seeds": "integer", "n": "integer"},
    optional=_STANDARD,
)  # fmt: skip

MULTILAYER = RecordSchema(
    "multilayer experiment-B",
    required={"key": "string", "t_sign": "array", "t_mag": "array", "layers": "array",
              "seeds": "integer", "m": "integer"},
    optional=_STANDARD,
)  # fmt: skip

_SIGN_FLIP_FILES = ("table1", "outlier", "leverage", "alpha", "columns", "sign-vs-magnitude",
                    "outlier-random")  # fmt: skip

#: (file-name pattern, schema): the first match applies; other files get :data:`BASE`.
SCHEMAS = (
    ("dead_directions.jsonl", DEAD_DIRECTIONS),
    ("table2-*.jsonl", THEOREM3),
    ("expb-*.jsonl", MULTILAYER),
    *((f"{name}-*.jsonl", SIGN_FLIPS) for name in _SIGN_FLIP_FILES),
)


def schema_for(path) -> RecordSchema:
    """The schema of the results file at ``path``, by its name.

    Examples
    --------
    >>> schema_for("results/sign_flips/gpt2/leverage-cpu.jsonl").name
    'sign-flip'
    >>> schema_for("notes.jsonl").name
    'results'
    """
    name = os.path.basename(os.fspath(path))
    for pattern, schema in SCHEMAS:
        if fnmatch.fnmatchcase(name, pattern):
            return schema
    return BASE
