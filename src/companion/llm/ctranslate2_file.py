"""A reader of CTranslate2 model files (``model.bin``), without CTranslate2.

The format, as ``ctranslate2.specs.model_spec.ModelSpec._serialize`` writes it (binary
version 6; the C++ loader ``src/models/model.cc`` reads versions 1-6), all little-endian:

* ``uint32`` binary version; from version 2 on a string (the spec's name, e.g.
  ``"WhisperSpec"``) and a ``uint32`` spec revision;
* ``uint32`` variable count, then per variable: a string (its name, scopes joined by
  ``/``), ``uint8`` rank, ``rank × uint32`` dimensions, ``uint8`` dtype id (0 float32,
  1 int8, 2 int16, 3 int32, 4 float16, 5 bfloat16), ``uint32`` byte count, the bytes
  (row-major); version < 4 stores a ``uint8`` item size and an item count instead;
* from version 3 on: ``uint32`` alias count, then (alias, target) string pairs: variables
  the converter found equal to another (e.g. a tied output projection) are stored once.

A string is a ``uint16`` length that counts a trailing NUL, then the bytes and the NUL.
Scalars (rank 0) are the spec's settings (``num_heads``, ``pre_norm``, ``activation``...).

Examples
--------
>>> import struct
>>> def s(x): return struct.pack("<H", len(x) + 1) + x.encode() + b"\\0"
>>> raw = (struct.pack("<I", 6) + s("TinySpec") + struct.pack("<II", 1, 1) + s("w")
...        + struct.pack("<BIIBI", 2, 1, 2, 0, 8) + struct.pack("<2f", 1.5, -2.0)
...        + struct.pack("<I", 0))
>>> f = read_model(raw)
>>> f.spec, f.revision, f.variables["w"].tolist()
('TinySpec', 1, [[1.5, -2.0]])
>>> read_model(raw[:30])
Traceback (most recent call last):
...
ValueError: `path` must be a complete CTranslate2 model file; variable 'w' needs bytes up to 36, ...
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

import numpy as np

__all__ = ["CT2File", "read_model", "DTYPES", "MAX_BINARY_VERSION"]

#: dtype ids of ``include/ctranslate2/types.h`` (the order of ``_dtype_to_type_id``).
#: bfloat16 has no numpy type: it is read as raw uint16 and widened by :func:`_bf16`.
DTYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")
_NP = {
    "float32": np.float32,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "float16": np.float16,
    "bfloat16": np.uint16,
}
#: The newest binary version this reader knows (CTranslate2 4.x writes 6).
MAX_BINARY_VERSION = 6


@dataclass
class CT2File:
    """A CTranslate2 model file's contents.

    Attributes
    ----------
    binary_version, spec, revision
        From the header (``spec`` is the model specification's name, e.g. ``"WhisperSpec"``).
    variables : dict
        Name → numpy array in its stored dtype (bfloat16 widened to float32), file order.
    dtypes : dict
        Name → stored dtype name (one of :data:`DTYPES`).
    aliases : dict
        Alias → the variable name it stands for.
    n_bytes : int
        The file's size.
    """

    binary_version: int
    spec: str
    revision: int
    variables: dict = field(repr=False)
    dtypes: dict = field(repr=False)
    aliases: dict
    n_bytes: int

    @property
    def n_params(self) -> int:
        """Entries of the non-scalar variables (aliases counted once)."""
        return int(sum(v.size for v in self.variables.values() if v.ndim))


class _Buffer:
    def __init__(self, data):
        self.data = memoryview(data)
        self.pos = 0

    def take(self, n: int, what: str) -> memoryview:
        end = self.pos + n
        if end > len(self.data):
            raise ValueError(
                f"`path` must be a complete CTranslate2 model file; {what} needs bytes up "
                f"to {end:,}, got {len(self.data):,} bytes"
            )
        out = self.data[self.pos : end]
        self.pos = end
        return out

    def unpack(self, fmt: str, what: str):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))

    def string(self, what: str) -> str:
        (n,) = self.unpack("H", what)
        raw = bytes(self.take(n, what))
        if n == 0 or raw[-1] != 0:
            raise ValueError(
                f"`path` must be a CTranslate2 model file; {what} is not a NUL-terminated "
                f"string at byte {self.pos - n:,}"
            )
        return raw[:-1].decode("utf-8")


def _bf16(raw: np.ndarray) -> np.ndarray:
    return (raw.astype(np.uint32) << 16).view(np.float32)


def _read_bytes(source) -> bytes:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    if hasattr(source, "read"):
        return source.read()
    if isinstance(source, (list, tuple)):  # a file shipped in parts: read as one
        return b"".join(_read_bytes(p) for p in source)
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            "`source` must be a path, bytes, a binary file object or a list of paths; "
            f"got {type(source).__name__}"
        )
    with open(os.fspath(source), "rb") as fh:
        return fh.read()


def read_model(source, *, expected_bytes: int | None = None) -> CT2File:
    """Read a CTranslate2 ``model.bin`` (see the module docs for the format).

    Parameters
    ----------
    source : path, bytes, binary file object, or a list of paths
        A list is read as the concatenation of its parts (a file split for packaging).
    expected_bytes : int, optional
        The complete file's size when known (e.g. from a package's record): a shorter
        input fails at once, naming both sizes.

    Raises
    ------
    ValueError
        A truncated file (the message gives the bytes present and needed), bytes left
        after the alias table, an unknown binary version or dtype id, a byte count that
        disagrees with the shape and dtype, or an alias to a missing variable.
    """
    from companion.llm._checks import check_optional_int

    expected_bytes = check_optional_int(expected_bytes, "expected_bytes", low=0)
    data = _read_bytes(source)
    if expected_bytes is not None and len(data) != expected_bytes:
        raise ValueError(
            f"`path` must be a complete CTranslate2 model file; got {len(data):,} of "
            f"{expected_bytes:,} bytes"
        )
    buf = _Buffer(data)
    (version,) = buf.unpack("I", "the header")
    if not 1 <= version <= MAX_BINARY_VERSION:
        raise ValueError(
            f"`path` must be a CTranslate2 model file (binary version 1-{MAX_BINARY_VERSION}); "
            f"got binary version {version}"
        )
    spec, revision = "", 1
    if version >= 2:
        spec = buf.string("the spec name")
        (revision,) = buf.unpack("I", "the spec revision")
    (count,) = buf.unpack("I", "the variable count")
    variables, dtypes = {}, {}
    for _ in range(count):
        name = buf.string("a variable name")
        what = f"variable {name!r}"
        (rank,) = buf.unpack("B", what)
        shape = buf.unpack(f"{rank}I", what) if rank else ()
        if version >= 4:
            type_id, n_bytes = buf.unpack("BI", what)
            if type_id >= len(DTYPES):
                raise ValueError(
                    f"`path` must be a CTranslate2 model file; {what} has dtype id "
                    f"{type_id} (known: 0-{len(DTYPES) - 1})"
                )
            dtype = DTYPES[type_id]
        else:  # versions 1-3 store an item size and an item count, and only these types
            item, n_items = buf.unpack("BI", what)
            dtype = {4: "float32", 1: "int8", 2: "int16"}.get(item, "")
            if not dtype:
                raise ValueError(
                    f"`path` must be a CTranslate2 model file; {what} has item size {item}"
                )
            n_bytes = item * n_items
        want = int(np.prod(shape, dtype=np.int64)) * np.dtype(_NP[dtype]).itemsize
        if n_bytes != want:
            raise ValueError(
                f"`path` must be a CTranslate2 model file; {what} of shape {list(shape)} "
                f"and dtype {dtype} needs {want:,} bytes, its header says {n_bytes:,}"
            )
        arr = np.frombuffer(buf.take(n_bytes, what), dtype=_NP[dtype]).reshape(shape)
        variables[name] = _bf16(arr) if dtype == "bfloat16" else arr
        dtypes[name] = dtype
    aliases = {}
    if version >= 3:
        (n_alias,) = buf.unpack("I", "the alias count")
        for _ in range(n_alias):
            alias = buf.string("an alias")
            target = buf.string("an alias target")
            if target not in variables:
                raise ValueError(
                    f"`path` must be a CTranslate2 model file; alias {alias!r} names "
                    f"{target!r}, which is not a stored variable"
                )
            aliases[alias] = target
    if buf.pos != len(data):
        raise ValueError(
            f"`path` must be a single CTranslate2 model file; {len(data) - buf.pos:,} bytes "
            f"follow its alias table (got {len(data):,} bytes, the file ends at {buf.pos:,})"
        )
    return CT2File(version, spec, revision, variables, dtypes, aliases, len(data))
