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
    "SIGMA_SPLIT",
    "TRAJECTORY",
    "WALK",
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
    (``optional``), each as JSON type names joined by ``|`` (``"string|null"``); ``kinds``
    adds required fields by the record's kind, the part of its ``key`` before ``|``
    (``"leverage|p=0.01|seed=0"``: a leverage point)."""

    name: str
    required: dict = field(default_factory=dict)
    optional: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"`name` must be a non-empty str; got {self.name!r}")
        if not isinstance(self.kinds, dict):
            raise TypeError(f"`kinds` must be a dict of kind -> fields; got {self.kinds!r}")
        for which in ("required", "optional", *(f"kinds[{k!r}]" for k in self.kinds)):
            fields = self.kinds[which[7:-2]] if which.startswith("kinds[") else getattr(self, which)
            if not isinstance(fields, dict):
                raise TypeError(f"`{which}` must be a dict of field -> type; got "
                                f"{type(fields).__name__}")  # fmt: skip
            for key, kinds in fields.items():
                ok = isinstance(key, str) and isinstance(kinds, str)
                if not ok or not all(k in _TYPES for k in kinds.split("|")):
                    raise ValueError(
                        f"`{which}` must map field names to JSON types joined by '|' "
                        f"({', '.join(_TYPES)}); got {key!r}: {kinds!r}"
                    )

    def problem(self, record) -> str | None:
        """What is wrong with ``record`` (one phrase naming the field), or None."""
        if not isinstance(record, dict):
            return f"a record must be a JSON object; got a JSON {json_kind(record)}"
        key = record.get("key")
        kind = key.split("|", 1)[0] if isinstance(key, str) else None
        required = {**self.required, **self.kinds.get(kind, {})}
        for name, kinds in required.items():
            if name not in record:
                of = f", which a {kind!r} record holds" if name not in self.required else ""
                return f"field {name!r}: missing ({_article(kinds)}{of})"
        for name, kinds in {**self.optional, **required}.items():
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
_NLL = {"nll": "number", "ppl": "number"}
_DNLL = {**_NLL, "dnll": "number", "dnll_per_window": "array", "dnll_window_se": "number"}
SIGN_FLIPS = RecordSchema(
    "sign-flip",
    required={"key": "string"},
    optional={**_STANDARD, "meta": "object"},
    kinds={
        "baseline": {**_NLL, "tokens": "integer"},
        "leverage": {**_DNLL, "p": "number", "pool": "string", "n_flips": "integer"},
        "outlier": {**_DNLL, "p": "number", "pool": "string", "kind": "string"},
        "outlier_random": {**_DNLL, "p": "number", "pool": "string", "kind": "string"},
        "svm": {**_DNLL, "p": "number", "kind": "string"},
        "column": {**_DNLL, "layer": "string", "alpha": "number", "colnorm": "number"},
        "table1": {"layer": "string", "shape": "array", "row_cos2": "number",
                   "vector_cos2": "number", "vector_cos2_se": "number", "kurtosis": "number"},
        "alpha": {"layer": "string", "alpha_ratio": "array", "colnorm": "array",
                  "energy": "array", "outlier_columns": "array"},
    },
)  # fmt: skip

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

#: ``companion run sigma-split`` (read by the at-scale chapter's split table and its claim).
_SPLIT_ARRAYS = ("sigma_min", "attn", "attn_se", "mlp", "mlp_se", "block", "block_se")
SIGMA_SPLIT = RecordSchema(
    "sigma-split",
    required={"key": "string", "model": "string", "init": "string", "scale": "string",
              "settings": "object", "width": "integer", "layers": "integer",
              "localised": "array", "split_tokens": "integer", "split_folds": "integer",
              **{f"split_{a}": "array" for a in _SPLIT_ARRAYS}},
    optional=_STANDARD,
)  # fmt: skip

#: ``companion run walk`` (read by the walk chapter and its claims).
WALK = RecordSchema(
    "walk",
    required={"key": "string", "model": "string", "settings": "object", "d": "integer",
              "n_tokens": "integer", "norm": "string", "c": "number", "ts": "array",
              "curves": "object", "kfac_dead": "object", "kfac_random": "array",
              "run_s": "number"},
    optional={**_STANDARD, "flat_refused": "string|null"},
)  # fmt: skip

#: ``companion train-geometry`` (read by the training chapter and its claims).
TRAJECTORY = RecordSchema(
    "train-geometry",
    required={"key": "string", "model": "string", "settings": "object", "step": "integer",
              "sha256": "string", "norm": "string", "norms": "array", "linears": "array",
              "profile": "object", "flips": "object", "val_loss": "number"},
    optional={**_STANDARD, "train_loss": "number|null"},
)  # fmt: skip

_SIGN_FLIP_FILES = ("table1", "outlier", "leverage", "alpha", "columns", "sign-vs-magnitude",
                    "outlier-random")  # fmt: skip

#: (file-name pattern, schema): the first match applies; other files get :data:`BASE`.
SCHEMAS = (
    ("dead_directions.jsonl", DEAD_DIRECTIONS),
    ("table2-*.jsonl", THEOREM3),
    ("expb-*.jsonl", MULTILAYER),
    ("sigma_split.jsonl", SIGMA_SPLIT),
    ("walk.jsonl", WALK),
    ("trajectory.jsonl", TRAJECTORY),
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
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"`path` must be a path (str or os.PathLike); got {type(path).__name__}")
    name = os.path.basename(os.fspath(path))
    for pattern, schema in SCHEMAS:
        if fnmatch.fnmatchcase(name, pattern):
            return schema
    return BASE
