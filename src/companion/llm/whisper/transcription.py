"""Transcribing with the converted Whisper: the English no-timestamps prompt
(:data:`PREFIX_TOKENS`, or :data:`PREFIX_TOKENS_EN` for an English-only model) and plain
greedy decoding (:func:`greedy_transcribe`), the argmax that the conversion test compares
with CTranslate2's.
"""

from __future__ import annotations

import numpy as np
import torch

from companion._validate import check_instance, check_int
from companion.llm._checks import check_tensor, check_tokenizer
from companion.llm.whisper.conversion import MULTILINGUAL_VOCAB

__all__ = ["PREFIX_TOKENS", "PREFIX_TOKENS_EN", "decoder_prefix", "greedy_transcribe"]

#: The decoder prompt for English transcription without timestamps, as in Whisper's own
#: ``transcribe`` with ``language="en", without_timestamps=True`` and faster-whisper:
#: the transcripts here are known English text with no timings to predict.
PREFIX_TOKENS = ("<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>")
#: The same prompt for an English-only model (tiny.en): no language and no task token, as
#: Whisper's and faster-whisper's tokenizers build it when the model is not multilingual.
PREFIX_TOKENS_EN = ("<|startoftranscript|>", "<|notimestamps|>")
#: Whisper's 1,501 timestamp tokens ``<|0.00|>`` .. ``<|30.00|>`` follow the tokenizer's
#: tokens in the model's vocabulary; transformers' tokenizer does not list them.
_TIMESTAMPS = 1501


def decoder_prefix(tokenizer) -> list[int]:
    """The ids of the decoder's prompt: :data:`PREFIX_TOKENS` for a multilingual tokenizer
    (Whisper-base: 50258, 50259, 50359, 50363), :data:`PREFIX_TOKENS_EN` for an English-only
    one (tiny.en: 50257, 50362). A tokenizer is multilingual by Whisper's rule on the model's
    vocabulary (:data:`~companion.llm.whisper.conversion.MULTILINGUAL_VOCAB`), counted with
    the timestamp tokens."""
    multilingual = len(check_tokenizer(tokenizer)) + _TIMESTAMPS >= MULTILINGUAL_VOCAB
    tokens = PREFIX_TOKENS if multilingual else PREFIX_TOKENS_EN
    ids = tokenizer.convert_tokens_to_ids(list(tokens))
    if any(i is None or i == tokenizer.unk_token_id for i in ids):
        raise ValueError(f"`tokenizer` must know Whisper's special tokens {tokens}; got ids {ids}")
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
