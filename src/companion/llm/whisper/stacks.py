"""Whisper's two stacks as models of their own: :class:`WhisperDecoderStack` and
:class:`WhisperEncoderStack`, whose output is that stack's final-norm output, so the Part II
machinery (:func:`companion.llm.norms.find_final_norm`,
:func:`companion.llm.dead_directions.diagnose`) reads either one; trained
(:func:`load_stack`) or at random init (:func:`build_random_stack`).
"""

from __future__ import annotations

import torch

from companion._validate import check_bool, check_instance, check_int
from companion.llm._checks import check_optional_dict, check_optional_int, check_tensor
from companion.llm.whisper.checkpoint import load_tokenizer
from companion.llm.whisper.conversion import load_whisper

__all__ = [
    "STACKS",
    "checkpoint_of",
    "WhisperDecoderStack",
    "WhisperEncoderStack",
    "load_stack",
    "build_random_stack",
]

#: Registry name → the stack it diagnoses.
STACKS = {
    "whisper-base-decoder": "decoder",
    "whisper-base-encoder": "encoder",
    "whisper-tiny-en-decoder": "decoder",
    "whisper-tiny-en-encoder": "encoder",
}


def checkpoint_of(name: str) -> str:
    """The checkpoint (a key of :data:`~companion.llm.whisper.checkpoint.CHECKPOINTS`) whose
    stack the registry entry ``name`` is: its name less ``-decoder`` / ``-encoder``.

    Examples
    --------
    >>> checkpoint_of("whisper-tiny-en-encoder")
    'whisper-tiny-en'
    """
    from companion._validate import check_choice

    name = check_choice(name, "name", tuple(STACKS))
    return name.removesuffix(f"-{STACKS[name]}")


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
    cfg.update(check_optional_dict(overrides, "overrides") or {})
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
    """``(stack, tokenizer)`` for the registry entry ``spec`` (a key of :data:`STACKS`:
    ``whisper-base-decoder``, ``whisper-tiny-en-encoder``, ...), in eval mode: the trained
    weights (converted once, then cached), or the same architecture at random init
    (``num_layers`` blocks per stack, default the real depth; seed 0) with the same
    tokenizer, so that the init-versus-trained comparison runs on the same speech.

    Raises
    ------
    ValueError
        ``num_layers`` with ``init="trained"`` (the checkpoint keeps its depth).
    ModuleNotFoundError
        ``init="trained"`` without the checkpoint's packages (naming them).
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
        model, tok, _ = load_whisper(dtype=dtype, checkpoint=checkpoint_of(spec.name))
        stack = stack_cls(model).eval()
        stack._companion_load_s = time.perf_counter() - t0
    else:
        stack = build_random_stack(spec, num_layers=num_layers)
        if dtype is not None:
            stack = stack.to(dtype=dtype)
        tok = load_tokenizer(checkpoint=checkpoint_of(spec.name))
    return (stack.to(device) if device is not None else stack), tok
