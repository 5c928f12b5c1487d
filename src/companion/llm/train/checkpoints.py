"""Checkpoints of a training run and the run's manifest: safetensors files, each with its
SHA-256 in a strict-JSON ``manifest.json``, verified before any use.

A run folder holds ``step-<k>.safetensors`` (the weights after k optimiser steps; k = 0 is
the initialisation), one ``resume-<k>.safetensors`` (weights, AdamW moments and step: what
``--resume`` continues from) and ``manifest.json``. Every file is written to a temporary
name, fsynced and renamed into place, and only then listed in the manifest (itself replaced
atomically), so a run killed at any instant leaves a consistent folder. Safetensors rather
than pickles: loading a foreign file executes nothing, and equal tensors give equal bytes,
so a checkpoint's hash is a fingerprint of its weights.

A file whose hash differs from the manifest's, a file that is not a companion checkpoint,
or one of the other twin is refused with one :class:`CheckpointError` (a ``ValueError``);
nothing is ever loaded unverified, and a finished checkpoint is never overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from companion._validate import check_choice, check_instance, check_int

__all__ = [
    "CheckpointError",
    "FORMAT",
    "environment",
    "sha256_file",
    "write_tensors",
    "read_tensors",
    "read_manifest",
    "write_manifest",
    "verified",
    "verify_run",
]

#: The ``format`` tag in every checkpoint's metadata and in the manifest.
FORMAT = "companion-tiny-gpt/1"
MANIFEST = "manifest.json"
_MANIFEST_KEYS = ("config", "checkpoint_steps", "checkpoints", "resume", "finished")


class CheckpointError(ValueError):
    """A checkpoint or manifest that cannot be used (corrupt, foreign, of the other twin)."""


def environment() -> dict:
    """What besides the config decides a checkpoint's last bits: the library versions, the
    Python and the CPU (recorded in every new manifest; a resume elsewhere is warned)."""
    import platform

    import numpy
    import safetensors
    import torch
    import transformers

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next(
                (line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")),
                cpu,
            )
    except OSError:
        pass
    return {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "safetensors": safetensors.__version__,
        "numpy": numpy.__version__,
        "python": platform.python_version(),
        "cpu": cpu,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
    }


def check_path(value, name: str) -> Path:
    """``value`` (a str or path-like) as a :class:`~pathlib.Path`, or one ``TypeError``."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"`{name}` must be a path (str or os.PathLike); got {type(value).__name__}")
    return Path(value)


def _check_model(model):
    from companion.llm.train.model import MODELS

    return None if model is None else check_choice(model, "model", MODELS)


def sha256_file(path) -> str:
    """Hex SHA-256 of the file's bytes."""
    path = check_path(path, "path")
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_replace(tmp: Path, path: Path) -> None:
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_tensors(path, tensors: dict, metadata: dict) -> str:
    """Write ``tensors`` (name → CPU tensor) with JSON-able ``metadata`` atomically; returns the
    file's SHA-256. An existing file is never replaced: if its bytes differ it is refused."""
    import torch
    from safetensors.torch import save_file

    path = check_path(path, "path")
    check_instance(tensors, "tensors", dict)
    check_instance(metadata, "metadata", dict)
    bad = [k for k, v in tensors.items() if not isinstance(k, str) or not torch.is_tensor(v)]
    if bad or not tensors:
        raise TypeError(f"`tensors` must map names to tensors (at least one); got {bad[:3]}")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # one metadata key: safetensors writes its metadata map in hash order, so several keys
    # would make equal checkpoints differ in bytes (and in SHA-256) from process to process
    meta = {"companion": json.dumps({"format": FORMAT, **metadata}, sort_keys=True)}
    save_file({k: v.detach().contiguous() for k, v in tensors.items()}, str(tmp), metadata=meta)
    digest = sha256_file(tmp)
    if path.exists():
        tmp.unlink()
        if sha256_file(path) != digest:
            raise CheckpointError(
                f"checkpoint {path} exists with other bytes than this run computes (another "
                f"run, other threads or a changed file?); it is kept: use another run folder"
            )
        return digest
    _fsync_replace(tmp, path)
    return digest


def _header(path: Path, model: str | None) -> dict:
    """The companion metadata of the safetensors file at ``path`` (its header only: no
    tensor is read), checked for the format and, when given, ``model``."""
    from safetensors import SafetensorError
    from safetensors.torch import safe_open

    try:
        with safe_open(str(path), framework="pt") as fh:
            meta = json.loads((fh.metadata() or {}).get("companion", "{}"))
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(f"checkpoint {path} is not a safetensors file ({err})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(f"checkpoint {path} is not a {FORMAT} checkpoint")
    if model is not None and meta.get("model") != model:
        raise CheckpointError(
            f"checkpoint {path} belongs to {meta.get('model')!r}, not to {model!r}"
        )
    return meta


def _check_hash(path: Path, sha256: str) -> None:
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} is missing")
    got = sha256_file(path)
    if got != sha256:
        raise CheckpointError(
            f"checkpoint {path} is corrupt: its SHA-256 is {got[:16]}…, the manifest records "
            f"{sha256[:16]}…; it is not used (retrain into another folder)"
        )


def read_tensors(path, *, sha256: str, model: str | None = None) -> tuple[dict, dict]:
    """``(tensors, metadata)`` of a checkpoint, after checking its SHA-256 against ``sha256``,
    its format and (when given) that it belongs to ``model``.

    Raises
    ------
    CheckpointError
        Missing file, hash mismatch, not a companion checkpoint, or another model's.
    """
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    path = check_path(path, "path")
    if not isinstance(sha256, str):
        raise TypeError(f"`sha256` must be a hex string; got {type(sha256).__name__}")
    model = _check_model(model)
    _check_hash(path, sha256)
    meta = _header(path, model)
    try:
        tensors = load_file(str(path))
    except (SafetensorError, OSError, ValueError) as err:
        raise CheckpointError(f"checkpoint {path} is not a safetensors file ({err})") from None
    return tensors, meta


def read_manifest(folder) -> dict | None:
    """The run's manifest, or None when the folder holds none.

    Raises
    ------
    CheckpointError
        When ``manifest.json`` is not strict JSON or not a companion manifest.
    """
    path = check_path(folder, "folder") / MANIFEST
    if not path.exists():
        return None

    def _refuse(token):
        raise ValueError(f"non-finite number {token}")

    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse)
    except (ValueError, UnicodeDecodeError) as err:
        raise CheckpointError(f"manifest {path} is not strict JSON ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"manifest {path} is not a {FORMAT} manifest")
    missing = [k for k in _MANIFEST_KEYS if k not in data]
    if missing or not isinstance(data["checkpoints"], list):
        raise CheckpointError(f"manifest {path} is incomplete (missing {', '.join(missing)})")
    entries = [*data["checkpoints"], *([] if data["resume"] is None else [data["resume"]])]
    if not all(_entry_ok(e) for e in entries):
        raise CheckpointError(
            f"manifest {path} lists a checkpoint without a step, a plain file name in the "
            f"run folder and a SHA-256; it is not a manifest this trainer wrote"
        )
    return data


def _entry_ok(entry) -> bool:
    """A manifest entry: an int step ≥ 0, a file name inside the run folder, a hex hash."""
    if not isinstance(entry, dict):
        return False
    step, name, digest = entry.get("step"), entry.get("file"), entry.get("sha256")
    return (
        isinstance(step, int)
        and not isinstance(step, bool)
        and step >= 0
        and isinstance(name, str)
        and name == Path(name).name
        and name not in ("", ".", "..")
        and isinstance(digest, str)
        and len(digest) == 64
        and all(c in "0123456789abcdef" for c in digest)
    )


def write_manifest(folder, manifest: dict) -> None:
    """Replace the run's manifest atomically (strict JSON: a non-finite number is an error)."""
    path = check_path(folder, "folder") / MANIFEST
    check_instance(manifest, "manifest", dict)
    text = json.dumps({"format": FORMAT, **manifest}, indent=1, allow_nan=False)
    tmp = path.with_name(f".{MANIFEST}.{os.getpid()}.tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    _fsync_replace(tmp, path)


def verified(folder, step: int, *, model: str | None = None) -> tuple[dict, dict]:
    """The tensors and metadata of the run's checkpoint at ``step``, verified against its
    manifest (:func:`read_tensors`).

    Raises
    ------
    CheckpointError
        No manifest, no checkpoint at ``step``, or the file fails verification.
    """
    step = check_int(step, "step", low=0)
    model = _check_model(model)
    manifest = read_manifest(folder)
    if manifest is None:
        raise CheckpointError(f"`folder` must hold a training run; {folder} has no {MANIFEST}")
    entry = next((c for c in manifest["checkpoints"] if c["step"] == step), None)
    if entry is None:
        steps = [c["step"] for c in manifest["checkpoints"]]
        raise CheckpointError(f"`step` must be one of the run's checkpoints {steps}; got {step}")
    return read_tensors(Path(folder) / entry["file"], sha256=entry["sha256"], model=model)


def verify_run(folder, manifest: dict, *, model: str | None = None) -> None:
    """Check every checkpoint the manifest lists (file present, SHA-256, format and, when
    given, ``model``) before any of them is used; reads headers only, no tensor.

    Raises
    ------
    CheckpointError
        At the first file that fails (:func:`read_tensors`'s messages).
    """
    folder = check_path(folder, "folder")
    check_instance(manifest, "manifest", dict)
    model = _check_model(model)
    for entry in manifest.get("checkpoints", []):
        path = folder / entry["file"]
        _check_hash(path, entry["sha256"])
        _header(path, model)
