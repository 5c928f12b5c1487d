"""The book's own model: a tiny pre-LN GPT (GPT-NeoX, Pythia's architecture) and its RMSNorm twin.

Two models, built with transformers' ``GPTNeoXForCausalLM`` so every hook, capture and
diagnostic of the engine applies unchanged (:func:`companion.llm.norms.find_final_norm`
finds ``gpt_neox.final_layer_norm``):

* ``tiny-gpt-ln``: 4 blocks × 4 heads × width 128, MLP 512, context 64, rotary on a
  quarter of each head, parallel residual (Pythia's layout); every norm a LayerNorm;
* ``tiny-gpt-rms``: the same network with every LayerNorm replaced by ``torch.nn.RMSNorm``
  of the same width and eps, and nothing else changed (same widths, MLP, initialisation of
  every other weight, data order and seed): its linear and embedding weights at step 0 are
  bit-identical to the LayerNorm twin's.

**Vocabulary: the 256 byte values.** No tokenizer to download or to version, every byte of
the gensim Wikipedia text (UTF-8) is representable, and both twins see the same token
stream. A byte-level model learns slower per token than a subword one, which is the price.

**Initialisation, stated because it sets where Dong's Table 1 starts.** Every
``nn.Linear`` and ``nn.Embedding`` weight is drawn i.i.d. N(0, 0.02²) (GPT-2's and Pythia's
``initializer_range``) from one ``torch.Generator`` seeded with ``seed``, in module order;
biases are 0, norm scales γ = 1 and LayerNorm shifts β = 0. For a Gaussian row w of
length n, cos²(w, sign w) = ‖w‖₁² / (n ‖w‖₂²) → (E|w|)² / E w² = 2/π ≈ 0.6366. PyTorch's
default ``nn.Linear`` init (Kaiming-uniform rows) would instead start at (a/2)² / (a²/3) =
3/4; :func:`sign_cos2` measures either.

Examples
--------
>>> m = build_model("tiny-gpt-rms", layers=1, width=32, heads=2)
>>> type(m.gpt_neox.final_layer_norm).__name__, m.config.vocab_size
('RMSNorm', 256)
"""

from __future__ import annotations

from companion._validate import check_choice, check_int

__all__ = [
    "MODELS",
    "NORMS",
    "VOCAB_SIZE",
    "CONTEXT",
    "INIT_STD",
    "build_model",
    "model_norm",
    "sign_cos2",
]

#: The trained-here models and the norm each carries.
NORMS = {"tiny-gpt-ln": "layernorm", "tiny-gpt-rms": "rmsnorm"}
MODELS = tuple(NORMS)
#: Byte-level vocabulary (see the module docs).
VOCAB_SIZE = 256
#: Context length (tokens = bytes).
CONTEXT = 64
#: Standard deviation of every linear and embedding weight at init (N(0, INIT_STD²)).
INIT_STD = 0.02
#: Layer-norm eps of both twins (GPT-NeoX's default).
EPS = 1e-5


def model_norm(name: str) -> str:
    """``"layernorm"`` or ``"rmsnorm"``: the norm of trained-here model ``name``.

    Examples
    --------
    >>> model_norm("tiny-gpt-ln")
    'layernorm'
    >>> model_norm("tiny-gpt")
    Traceback (most recent call last):
    ...
    ValueError: `name` must be one of 'tiny-gpt-ln', 'tiny-gpt-rms'; got 'tiny-gpt'
    """
    return check_model(name, "name")


def check_model(value, param: str = "model") -> str:
    """The norm of trained-here model ``value``; an error names the caller's ``param``."""
    return NORMS[check_choice(value, param, MODELS)]


def _config(layers: int, width: int, heads: int, context: int):
    from transformers import GPTNeoXConfig

    return GPTNeoXConfig(
        vocab_size=VOCAB_SIZE,
        hidden_size=width,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        intermediate_size=4 * width,
        max_position_embeddings=context,
        rotary_pct=0.25,
        use_parallel_residual=True,
        hidden_act="gelu",
        layer_norm_eps=EPS,
        initializer_range=INIT_STD,
        attention_dropout=0.0,
        hidden_dropout=0.0,
        tie_word_embeddings=False,
        use_cache=False,
        bos_token_id=0,
        eos_token_id=0,
    )


def _swap_norms(model) -> int:
    """Replace every ``nn.LayerNorm`` of ``model`` by an ``nn.RMSNorm`` of the same width and
    eps (γ = 1); returns how many were replaced."""
    import torch

    swaps = [
        (name, mod) for name, mod in model.named_modules() if isinstance(mod, torch.nn.LayerNorm)
    ]
    for name, mod in swaps:
        parent_name, _, attr = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, attr, torch.nn.RMSNorm(mod.normalized_shape, eps=mod.eps))
    return len(swaps)


def _initialise(model, seed: int) -> None:
    """The stated init (module docs): N(0, INIT_STD²) weights in module order, zero biases,
    γ = 1, β = 0. Norms draw nothing, so both twins get the same draws."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for mod in model.modules():
            if isinstance(mod, (torch.nn.Linear, torch.nn.Embedding)):
                w = torch.empty(mod.weight.shape, dtype=torch.float32)
                mod.weight.copy_(w.normal_(0.0, INIT_STD, generator=gen))
                if getattr(mod, "bias", None) is not None:
                    mod.bias.zero_()
            elif isinstance(mod, (torch.nn.LayerNorm, torch.nn.RMSNorm)):
                mod.weight.fill_(1.0)
                if getattr(mod, "bias", None) is not None:
                    mod.bias.zero_()


def build_model(
    name: str,
    *,
    seed: int = 0,
    layers: int = 4,
    width: int = 128,
    heads: int = 4,
    context: int = CONTEXT,
):
    """Trained-here model ``name`` at its stated initialisation (float32, CPU, train mode).

    ``layers``, ``width``, ``heads`` and ``context`` shrink it for tests; the book's models
    use the defaults (≈ 0.86 M parameters). Attention is PyTorch's SDPA; no dropout.

    Raises
    ------
    ValueError
        An unknown ``name``, or ``width`` not a multiple of ``heads``.
    """
    import torch
    from transformers import GPTNeoXForCausalLM

    norm = check_model(name, "name")
    seed = check_int(seed, "seed", low=0)
    layers = check_int(layers, "layers", low=1)
    heads = check_int(heads, "heads", low=1)
    width = check_int(width, "width", low=heads)
    context = check_int(context, "context", low=2)
    if width % (4 * heads):
        raise ValueError(
            f"`width` must be a multiple of 4 × heads = {4 * heads} (rotary on a quarter of "
            f"each head); got {width}"
        )
    cfg = _config(layers, width, heads, context)
    cfg._attn_implementation = "sdpa"
    with torch.random.fork_rng(devices=[]):  # transformers' own init draws leave no trace
        model = GPTNeoXForCausalLM(cfg)
    if norm == "rmsnorm":
        _swap_norms(model)
    _initialise(model, seed)
    return model.float().train()


def sign_cos2(weight) -> float:
    """Mean over rows of cos²(w, sign w) = ‖w‖₁² / (n ‖w‖₂²) (Dong 2026, Table 1's statistic;
    2/π for Gaussian rows, 3/4 for uniform ones). ``weight``: a 2-D tensor or array.

    Examples
    --------
    >>> import numpy as np
    >>> round(sign_cos2(np.ones((3, 5))), 6)
    1.0
    """
    import numpy as np

    from companion._validate import check_finite_array

    if hasattr(weight, "detach"):
        weight = weight.detach().cpu().float().numpy()
    w = check_finite_array(weight, "weight")
    if w.ndim != 2 or w.shape[0] == 0 or w.shape[1] == 0:
        raise ValueError(f"`weight` must be a non-empty 2-D matrix; got shape {w.shape}")
    l1, l2 = np.abs(w).sum(1), (w * w).sum(1)
    keep = l2 > 0
    return float(np.mean(l1[keep] ** 2 / (w.shape[1] * l2[keep])))
