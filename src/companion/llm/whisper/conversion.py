"""The conversion of Whisper's CTranslate2 weights (Whisper-base, tiny.en) onto transformers'
``WhisperForConditionalGeneration``: :data:`MAPPING_RULES` gives the correspondence, with the
fused projections split (self-attention ``linear_0`` = q, k, v; cross-attention ``linear_1``
= k, v); the float32 result is cached once as safetensors outside the repository
(:func:`convert`), and :func:`load_whisper` reloads it in about a second.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil

import numpy as np
import torch

from companion._validate import check_instance, check_int
from companion.llm._checks import check_optional_dict
from companion.llm.ctranslate2_file import CT2File
from companion.llm.whisper.checkpoint import (
    feature_extractor,
    get_checkpoint,
    load_tokenizer,
    package_files,
    package_settings,
    read_checkpoint,
)

__all__ = [
    "MAPPING_RULES",
    "MULTILINGUAL_VOCAB",
    "special_token_ids",
    "whisper_config",
    "convert_state_dict",
    "hf_names",
    "convert",
    "load_whisper",
]

#: CTranslate2 scope → transformers modules under ``model.`` (``{s}`` the stack, ``{i}`` a
#: layer index); several modules: the stored tensor is their weights (or biases) fused
#: along the first axis, split here in that order. Leaves: ``weight``/``bias`` keep their
#: names, ``gamma``/``beta`` (LayerNorm) become ``weight``/``bias``, ``encodings``
#: (positions) ``weight``.
MAPPING_RULES = {
    "encoder/conv1": ("encoder.conv1",),
    "encoder/conv2": ("encoder.conv2",),
    "decoder/embeddings": ("decoder.embed_tokens",),
    "{s}/position_encodings": ("{s}.embed_positions",),
    "{s}/layer_norm": ("{s}.layer_norm",),
    "{s}/layer_{i}/self_attention/layer_norm": ("{s}.layers.{i}.self_attn_layer_norm",),
    "{s}/layer_{i}/self_attention/linear_0": tuple(
        f"{{s}}.layers.{{i}}.self_attn.{p}_proj" for p in "qkv"
    ),
    "{s}/layer_{i}/self_attention/linear_1": ("{s}.layers.{i}.self_attn.out_proj",),
    "decoder/layer_{i}/attention/layer_norm": ("decoder.layers.{i}.encoder_attn_layer_norm",),
    "decoder/layer_{i}/attention/linear_0": ("decoder.layers.{i}.encoder_attn.q_proj",),
    "decoder/layer_{i}/attention/linear_1": (
        "decoder.layers.{i}.encoder_attn.k_proj",
        "decoder.layers.{i}.encoder_attn.v_proj",
    ),
    "decoder/layer_{i}/attention/linear_2": ("decoder.layers.{i}.encoder_attn.out_proj",),
    "{s}/layer_{i}/ffn/layer_norm": ("{s}.layers.{i}.final_layer_norm",),
    "{s}/layer_{i}/ffn/linear_0": ("{s}.layers.{i}.fc1",),
    "{s}/layer_{i}/ffn/linear_1": ("{s}.layers.{i}.fc2",),
}
_LEAVES = {
    "weight": "weight",
    "bias": "bias",
    "gamma": "weight",
    "beta": "bias",
    "encodings": "weight",
}
#: The spec's scalar settings: the value this conversion supports (transformers' Whisper
#: is pre-norm, exact-erf GELU (CTranslate2 activation id 3), unscaled embeddings, learned
#: positions from index 0, no ALiBi); the alignment settings (word timestamps) have no
#: counterpart in the forward pass and are only read.
_SCALARS = {
    "decoder/pre_norm": 1,
    "decoder/activation": 3,
    "decoder/scale_embeddings": 0,
    "decoder/alibi": 0,
    "decoder/start_from_zero_embedding": 0,
    "decoder/alignment_heads": None,
    "decoder/alignment_layer": None,
    "decoder/num_heads": None,  # -> decoder_attention_heads
    "encoder/num_heads": None,  # -> encoder_attention_heads
}
_ALIASES = {"decoder/projection/weight": "proj_out.weight"}  # tied to the token embedding
#: Whisper's rule (OpenAI's ``ModelDimensions``, CTranslate2's ``is_multilingual``): a
#: vocabulary of at least 51,865 tokens is multilingual, one of 51,864 English-only.
MULTILINGUAL_VOCAB = 51865


def special_token_ids(vocab_size: int) -> dict:
    """The special-token ids of ``WhisperConfig`` for a vocabulary of ``vocab_size``: the
    multilingual vocabulary puts ``<|endoftext|>`` at 50257 and ``<|startoftranscript|>`` at
    50258, the English-only one (GPT-2's 50,256 tokens, then the specials) one lower.

    Examples
    --------
    >>> special_token_ids(51864)["decoder_start_token_id"]  # tiny.en
    50257
    """
    eot = 50257 if check_int(vocab_size, "vocab_size", low=1) >= MULTILINGUAL_VOCAB else 50256
    return {
        "pad_token_id": eot,
        "bos_token_id": 50257,  # transformers' configs of both kinds say 50257
        "eos_token_id": eot,
        "decoder_start_token_id": eot + 1,
    }


def _layers(ct2: CT2File, stack: str) -> int:
    idx = {
        int(n.split("/")[1].removeprefix("layer_"))
        for n in ct2.variables
        if n.startswith(f"{stack}/layer_") and n.split("/")[1] != "layer_norm"
    }
    if idx != set(range(len(idx))) or not idx:
        raise ValueError(f"`path` must hold {stack} layers 0..L-1; got indices {sorted(idx)}")
    return len(idx)


def whisper_config(ct2: CT2File, settings: dict | None = None):
    """transformers' ``WhisperConfig`` read from the checkpoint's shapes and scalars.

    ``settings`` is the package's ``config.json`` (CTranslate2's Whisper settings:
    ``suppress_ids``, ``suppress_ids_begin``, ``lang_ids``, ``alignment_heads``).

    Raises
    ------
    ValueError
        When the file is not a ``WhisperSpec`` or a scalar setting differs from what
        transformers' Whisper computes (e.g. a non-GELU activation).
    """
    from transformers import WhisperConfig

    check_instance(ct2, "ct2", CT2File)
    check_optional_dict(settings, "settings")
    if ct2.spec != "WhisperSpec":
        raise ValueError(f"`path` must hold a WhisperSpec model; got spec {ct2.spec!r}")
    v = ct2.variables
    for name, want in _SCALARS.items():
        if name not in v:
            raise ValueError(f"`path` must hold the WhisperSpec setting {name!r}; it is missing")
        if want is not None and int(v[name]) != want:
            raise ValueError(
                f"`path` must hold a Whisper model transformers can run: {name} must be "
                f"{want}; got {int(v[name])}"
            )
    settings = settings or {}
    vocab, d = v["decoder/embeddings/weight"].shape
    return WhisperConfig(
        vocab_size=int(vocab),
        num_mel_bins=int(v["encoder/conv1/weight"].shape[1]),
        d_model=int(d),
        encoder_layers=_layers(ct2, "encoder"),
        decoder_layers=_layers(ct2, "decoder"),
        encoder_attention_heads=int(v["encoder/num_heads"]),
        decoder_attention_heads=int(v["decoder/num_heads"]),
        encoder_ffn_dim=int(v["encoder/layer_0/ffn/linear_0/weight"].shape[0]),
        decoder_ffn_dim=int(v["decoder/layer_0/ffn/linear_0/weight"].shape[0]),
        max_source_positions=int(v["encoder/position_encodings/encodings"].shape[0]),
        max_target_positions=int(v["decoder/position_encodings/encodings"].shape[0]),
        activation_function="gelu",
        scale_embedding=False,
        tie_word_embeddings=True,
        **special_token_ids(int(vocab)),  # the tokenizer's ids (multilingual or English-only)
        suppress_tokens=list(settings.get("suppress_ids", [])) or None,
        begin_suppress_tokens=list(settings.get("suppress_ids_begin", [])) or None,
    )


def hf_names(name: str) -> tuple | None:
    """The transformers parameters a CTranslate2 variable fills (``None``: no rule).

    Examples
    --------
    >>> hf_names("decoder/layer_3/attention/linear_1/weight")  # fused: split in two
    ... # doctest: +NORMALIZE_WHITESPACE
    ('model.decoder.layers.3.encoder_attn.k_proj.weight',
     'model.decoder.layers.3.encoder_attn.v_proj.weight')
    >>> hf_names("encoder/layer_norm/gamma")
    ('model.encoder.layer_norm.weight',)
    """
    if not isinstance(name, str):
        raise TypeError(f"`name` must be a str (a CTranslate2 variable); got {type(name).__name__}")
    scope, _, leaf = name.rpartition("/")
    stack = scope.split("/")[0]
    m = re.match(r"^(?:encoder|decoder)/layer_(\d+)/", scope + "/")
    layer = m.group(1) if m else None
    keyed = re.sub(r"/layer_\d+/", "/layer_{i}/", scope + "/").rstrip("/")
    generic = re.sub(r"^(encoder|decoder)/", "{s}/", keyed + "/").rstrip("/")
    modules = MAPPING_RULES.get(keyed) or MAPPING_RULES.get(generic)
    if modules is None or leaf not in _LEAVES or stack not in ("encoder", "decoder"):
        return None
    return tuple(f"model.{t.format(s=stack, i=layer)}.{_LEAVES[leaf]}" for t in modules)


def convert_state_dict(ct2: CT2File, config) -> tuple[dict, dict]:
    """``(state, mapping)``: the state dict of ``WhisperForConditionalGeneration(config)``
    (float32 tensors) and, for every CTranslate2 variable and alias, the transformers
    names it fills (``()`` for the spec's scalar settings, checked by
    :func:`whisper_config`).

    Fused tensors are split along their first axis into equal blocks. Whisper's key
    projections have no bias: the converter stored zeros in the fused biases, and a
    non-zero entry there fails here rather than be dropped.

    Raises
    ------
    ValueError
        A variable no rule maps, a parameter of the transformers model no variable fills,
        a fused tensor that does not split evenly, a non-zero key bias.
    """
    from transformers import WhisperForConditionalGeneration

    state, mapping = {}, {}
    for name, arr in ct2.variables.items():
        if arr.ndim == 0 and name in _SCALARS:
            mapping[name] = ()
            continue
        targets = hf_names(name)
        if targets is None:
            raise ValueError(
                f"`path` must hold only variables this conversion maps; got {name!r} "
                f"(shape {list(arr.shape)})"
            )
        x = torch.from_numpy(np.asarray(arr, dtype=np.float32))
        if x.shape[0] % len(targets):
            raise ValueError(
                f"`path` variable {name!r} of shape {list(x.shape)} must split into "
                f"{len(targets)} equal blocks"
            )
        kept = []
        for t, block in zip(targets, x.chunk(len(targets), dim=0), strict=True):
            if t.endswith("k_proj.bias"):
                if torch.count_nonzero(block):
                    raise ValueError(
                        f"`path` variable {name!r} must store a zero key bias (Whisper's key "
                        f"projections have none); got max |b| = {float(block.abs().max()):.3g}"
                    )
                continue
            state[t] = block.clone()
            kept.append(t)
        mapping[name] = tuple(kept)
    for alias, target in ct2.aliases.items():
        if alias not in _ALIASES:
            raise ValueError(f"`path` must hold only known aliases; got {alias!r} -> {target!r}")
        state[_ALIASES[alias]] = state[mapping[target][0]]
        mapping[alias] = (_ALIASES[alias],)
    with torch.device("meta"):
        wanted = set(WhisperForConditionalGeneration(config).state_dict())
    if wanted != set(state):
        raise ValueError(
            f"`path` must fill every parameter of the transformers model and no other; "
            f"unfilled {sorted(wanted - set(state))[:4]}, extra {sorted(set(state) - wanted)[:4]}"
        )
    return state, mapping


def _cache_dir(checkpoint: str = "whisper-base") -> str:
    from companion.llm.registry import cache_dir

    return os.path.join(cache_dir(), "models", f"{get_checkpoint(checkpoint).name}-fp32")


@contextlib.contextmanager
def _quiet():
    """transformers' progress bars ("Loading weights", "Writing model shards") off inside
    the block: a chapter's output shows results, not build chatter."""
    from transformers.utils import logging as hf_logging

    was = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was:
            hf_logging.enable_progress_bar()


def convert(target: str | None = None, *, parts=None, checkpoint: str = "whisper-base") -> str:
    """Convert the packaged checkpoint ``checkpoint`` (a key of
    :data:`~companion.llm.whisper.checkpoint.CHECKPOINTS`) once into float32 safetensors at
    ``target`` (default: the model cache), with the tokenizer, the feature extractor and
    ``conversion.json`` (the source files and what each variable became); atomic
    (a temporary folder renamed into place). Returns ``target``."""
    from transformers import WhisperForConditionalGeneration

    ck = get_checkpoint(checkpoint)
    target = target or _cache_dir(ck.name)
    ct2 = read_checkpoint(parts=parts, checkpoint=ck.name)
    config = whisper_config(ct2, package_settings(ck.name))
    state, mapping = convert_state_dict(ct2, config)
    model = WhisperForConditionalGeneration(config)
    model.load_state_dict(state, strict=True)
    model.eval()
    tok = load_tokenizer(checkpoint=ck.name)
    tmp = target + f".tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        with _quiet():
            model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        feature_extractor(config).save_pretrained(tmp)
        files = package_files(ck.name)
        info = {
            "source": {
                "checkpoint": ck.name,
                "weights": ck.source,
                "packages": list(ck.pins),
                "parts": [os.path.basename(p) for p in files["parts"]],
                "sha256": files["sha256"],
                "binary_version": ct2.binary_version,
                "spec": ct2.spec,
                "revision": ct2.revision,
                "n_variables": len(ct2.variables),
                "n_params_stored": ct2.n_params,
                "stored_dtypes": sorted(set(ct2.dtypes.values())),
            },
            "mapping": {k: list(v) for k, v in mapping.items()},
        }
        with open(os.path.join(tmp, "conversion.json"), "w", encoding="utf-8") as fh:
            json.dump(info, fh, indent=1)
        open(os.path.join(tmp, ".complete"), "w").close()
        shutil.rmtree(target, ignore_errors=True)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def load_whisper(*, dtype=None, device=None, checkpoint: str = "whisper-base"):
    """``(model, tokenizer, feature_extractor)``: the trained Whisper ``checkpoint``
    (Whisper-base by default, or ``"whisper-tiny-en"``) as
    ``WhisperForConditionalGeneration`` in eval mode, float32 by default, from the cache
    (converted first when absent)."""
    from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration

    folder = _cache_dir(checkpoint)
    if not os.path.exists(os.path.join(folder, ".complete")):
        convert(folder, checkpoint=checkpoint)
    with _quiet():
        model = WhisperForConditionalGeneration.from_pretrained(
            folder, dtype=dtype or torch.float32
        )
    model.eval()
    if device is not None:
        model = model.to(device)
    return model, load_tokenizer(folder), WhisperFeatureExtractor.from_pretrained(folder)
