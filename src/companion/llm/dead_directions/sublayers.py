"""σ_min of the residual stream split by sublayer: which half of a block (attention or MLP)
carries a block-to-block change of the pre-norm stream's smallest singular value.

As TransformerLens does with ``run_with_cache`` then analysis, :func:`accumulate_split`
runs the model once with scoped hooks and gathers, per block ℓ, the uncentred float64 Gram
of three residual-stream states (position 0 excluded, folds of the sequences as the σ_min
profile of :mod:`.moments` keeps them):

* X_ℓ₋₁, the stream entering the block (the embedding output for the first block);
* A_ℓ, after the attention sublayer's residual add: the input of the MLP's pre-norm
  (``post_attention_layernorm`` of LLaMA/Qwen/Mistral/Gemma 1, ``pre_feedforward_layernorm``
  of Gemma 2/3, ``ln_2`` of GPT-2/GPT-Neo, ``final_layer_norm`` of OPT and Whisper, whose
  decoder counts its cross-attention with the attention half);
* X_ℓ, after the MLP's residual add (the block's output).

:func:`split_of` reads them with the estimator of the σ_min records
(:class:`~companion.llm.dead_directions.reads.SigmaProfile`, a delete-one-fold jackknife
over 4 folds): the attention ratio σ_min(A_ℓ)/σ_min(X_ℓ₋₁), the MLP ratio
σ_min(X_ℓ)/σ_min(A_ℓ) and the block ratio σ_min(X_ℓ)/σ_min(X_ℓ₋₁), each with its SE; the
first two multiply to the third. :func:`localise` says, for every block whose ratio is
below 1 − 4 SE, which sublayer carries the decline.

Not split: post-LN blocks (BERT, MiniLM: every state between sublayers is a LayerNorm output,
whose centred σ_min is 0 by construction) and parallel-residual blocks (GPT-NeoX/Pythia, GPT-J:
attention and MLP read the same input, so no state lies between them); both raise ValueError.

:func:`cancelling` replaces one block's MLP (or its attention) of a LLaMA-layout model by a map
that removes 99% of the stream along its smallest singular direction: the controls of
``shirodkar.sigma_min_split``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from companion._validate import check_choice, check_instance, check_int, check_real
from companion.llm.dead_directions.moments import FOLDS, as_inputs
from companion.llm.dead_directions.reads import SigmaProfile

__all__ = ["SublayerSplit", "accumulate_split", "split_of", "localise", "cancelling", "CARRIERS"]

#: The MLP's pre-norm in a block, by attribute name, in the order they are tried (Gemma 2/3
#: also have a ``post_attention_layernorm``, applied to the attention output: not the stream).
_MLP_NORMS = (
    "pre_feedforward_layernorm",
    "post_attention_layernorm",
    "ln_2",
    "final_layer_norm",
    "layernorm_after",
    "norm2",
)

#: What :func:`localise` can say a decline is carried by.
CARRIERS = ("mlp", "attention", "both", "unresolved")


def _empty() -> np.ndarray:
    return np.zeros(0)


def find_sublayers(model, final_norm=None) -> tuple[str, list]:
    """``(name of the blocks' ModuleList, [(block, its MLP pre-norm's attribute)])``.

    Raises
    ------
    ValueError
        Post-LN blocks, parallel-residual blocks, or no block with a recognised MLP pre-norm.
    """
    import torch

    from companion.llm.norms import FinalNorm, find_final_norm

    fn = find_final_norm(model) if final_norm is None else final_norm
    check_instance(fn, "final_norm", FinalNorm)
    if fn.post_ln:
        raise ValueError(
            "`model` must have pre-norm blocks; it is post-LN (every state between sublayers "
            "is a LayerNorm output, whose centred σ_min is 0 by construction), so there is no "
            "pre-norm stream to split"
        )
    cfg = getattr(model, "config", None)
    if getattr(cfg, "use_parallel_residual", False) or getattr(cfg, "parallel_attn", False):
        raise ValueError(
            "`model` must have sequential blocks; its attention and MLP are parallel residual "
            "branches reading the same input, so no stream state lies between them"
        )
    parent = fn.name.rpartition(".")[0]
    best, best_len = None, -1
    for name, mod in model.named_modules():
        if not isinstance(mod, torch.nn.ModuleList) or not len(mod):
            continue
        attr = next((a for a in _MLP_NORMS if hasattr(mod[0], a)), None)
        if attr is None:
            continue
        common = len(_common_prefix(name, parent))
        if common > best_len:
            best, best_len = (name, [(b, attr) for b in mod]), common
    if best is None:
        raise ValueError(
            f"`model` must have blocks with an MLP pre-norm named one of {', '.join(_MLP_NORMS)}; "
            f"found none in {type(model).__name__}"
        )
    return best


def _common_prefix(a: str, b: str) -> str:
    pa, pb = a.split("."), b.split(".")
    n = 0
    while n < min(len(pa), len(pb)) and pa[n] == pb[n]:
        n += 1
    return ".".join(pa[:n])


class _SplitGather:
    """The hooks' state: per stream state (X₀, A₁, X₁, A₂, …) fold accumulators without
    position 0 then the one of position 0, as :class:`.moments.Moments` keeps its blocks."""

    def __init__(self, n_blocks: int, folds: int):
        from companion.llm.capture import StreamingGram

        self.folds = folds
        self.states = [[StreamingGram() for _ in range(folds + 1)] for _ in range(2 * n_blocks + 1)]
        self.sequences = self.tokens = 0
        self.batch = (0, 0)
        self.seen: set = set()

    def add(self, i: int, h) -> None:
        import torch

        h = h[0] if isinstance(h, tuple) else h
        b = h.shape[0] if h.ndim == 3 else self.batch[0]  # OPT flattens (batch·seq, d)
        h = h.reshape(b, -1, h.shape[-1])
        fold = (self.sequences + torch.arange(b, device=h.device)) % self.folds
        grams = self.states[i]
        for f in range(self.folds):
            grams[f].update(h[fold == f, 1:])
        grams[-1].update(h[:, :1])
        self.seen.add(i)

    def end_batch(self, b: int, tokens: int) -> None:
        if len(self.seen) != len(self.states):
            missing = sorted(set(range(len(self.states))) - self.seen)
            raise ValueError(
                f"`model` must run every block once per batch; stream states {missing} were "
                "not reached (a block skipped or an early exit?)"
            )
        self.seen = set()
        self.sequences += b
        self.tokens += tokens


@dataclass
class SplitMoments:
    """What :func:`accumulate_split` gathers: ``states`` (2L + 1 lists of fold accumulators:
    X₀, A₁, X₁, …, A_L, X_L), the tokens read, the blocks' ModuleList, dtype and device."""

    states: list
    tokens: int
    blocks: str
    mlp_norm: str
    dtype: str
    device: str


def accumulate_split(
    model,
    batches,
    *,
    final_norm=None,
    profile_tokens: int | None = None,
    folds: int = FOLDS,
) -> SplitMoments:
    """One forward pass with hooks on every block (input of the first, the MLP pre-norm's
    input, each block's output) → :class:`SplitMoments`. Batches are read until
    ``profile_tokens`` tokens have been (as the σ_min profile of :func:`.moments.accumulate`
    stops adding rows); the hooks are removed when the pass ends, also on an error."""
    import torch

    from companion.llm._checks import check_module, check_optional_int

    check_module(model)
    if isinstance(batches, (str, bytes)) or not hasattr(batches, "__iter__"):
        raise TypeError(
            f"`batches` must be an iterable of token-id tensors or dicts of model inputs; "
            f"got {type(batches).__name__}"
        )
    check_optional_int(profile_tokens, "profile_tokens", low=1)
    folds = check_int(folds, "folds", low=2)
    name, blocks = find_sublayers(model, final_norm)
    gather = _SplitGather(len(blocks), folds)
    handles = []

    def first(mod, args, kwargs):
        h = args[0] if args else kwargs["hidden_states"]
        gather.batch = (h.shape[0], h.shape[0] * h.shape[1])
        gather.add(0, h)

    def mid(i):
        return lambda m, a: gather.add(i, a[0])

    def out(i):
        return lambda m, a, o: gather.add(i, o)

    try:
        handles.append(blocks[0][0].register_forward_pre_hook(first, with_kwargs=True))
        for i, (blk, attr) in enumerate(blocks):
            handles.append(getattr(blk, attr).register_forward_pre_hook(mid(2 * i + 1)))
            handles.append(blk.register_forward_hook(out(2 * i + 2)))
        base = getattr(model, "base_model", model)
        p = next(model.parameters())
        vocab = getattr(getattr(model, "config", None), "vocab_size", None)
        with torch.no_grad():
            for batch in batches:
                if profile_tokens is not None and gather.tokens >= profile_tokens:
                    break
                base(**as_inputs(batch, vocab, p.device))
                gather.end_batch(*gather.batch)
    finally:
        for h in handles:
            h.remove()
    if gather.tokens == 0:
        raise ValueError("`batches` must yield at least one batch of tokens; got none")
    return SplitMoments(
        states=[[g.acc for g in s] for s in gather.states],
        tokens=gather.tokens,
        blocks=name,
        mlp_norm=blocks[0][1],
        dtype=str(p.dtype).removeprefix("torch."),
        device=str(p.device),
    )


@dataclass
class SublayerSplit:
    """Per block ℓ = 1 … L (arrays of length L): the attention ratio σ_min(A_ℓ)/σ_min(X_ℓ₋₁),
    the MLP ratio σ_min(X_ℓ)/σ_min(A_ℓ) and the block ratio σ_min(X_ℓ)/σ_min(X_ℓ₋₁), each
    with its delete-one-fold jackknife SE; ``sigma_min`` the 2L + 1 states' σ_min (X₀, A₁,
    X₁, …), uncentred, position 0 excluded."""

    sigma_min: np.ndarray = field(repr=False, default_factory=_empty)
    attn: np.ndarray = field(repr=False, default_factory=_empty)
    attn_se: np.ndarray = field(repr=False, default_factory=_empty)
    mlp: np.ndarray = field(repr=False, default_factory=_empty)
    mlp_se: np.ndarray = field(repr=False, default_factory=_empty)
    block: np.ndarray = field(repr=False, default_factory=_empty)
    block_se: np.ndarray = field(repr=False, default_factory=_empty)
    tokens: int = 0
    folds: int = 0

    def to_record(self) -> dict:
        """The record's keys (``split_*``)."""
        out = {f"split_{n}": getattr(self, n).tolist() for n in _ARRAYS}
        return {**out, "split_tokens": self.tokens, "split_folds": self.folds}

    @classmethod
    def from_record(cls, rec: dict) -> SublayerSplit:
        """The split a record of :meth:`to_record` holds (null entries read as NaN)."""
        arr = lambda k: np.asarray(  # noqa: E731
            [np.nan if x is None else x for x in rec.get(f"split_{k}") or []], dtype=float
        )
        return cls(
            **{n: arr(n) for n in _ARRAYS},
            tokens=int(rec.get("split_tokens", 0)),
            folds=int(rec.get("split_folds", 0)),
        )


_ARRAYS = ("sigma_min", "attn", "attn_se", "mlp", "mlp_se", "block", "block_se")


def split_of(states: list, *, tokens: int | None = None) -> SublayerSplit:
    """:class:`SublayerSplit` of the 2L + 1 states' fold accumulators (X₀, A₁, X₁, …), read
    with the σ_min profile's estimator (:class:`SigmaProfile`) twice: on every state (the
    sublayer ratios) and on the block outputs alone (the block ratios, as the records' steps)."""
    if not isinstance(states, list) or len(states) < 3 or len(states) % 2 == 0:
        raise ValueError(
            "`states` must be a list of 2L + 1 fold-accumulator lists (X0, A1, X1, ...), "
            f"L >= 1; got {len(states) if isinstance(states, list) else type(states).__name__}"
        )
    from companion.llm._checks import check_optional_int

    tokens = check_optional_int(tokens, "tokens", low=1) or 0
    sub = SigmaProfile.of(states, tokens=tokens, degenerate=False)
    blk = SigmaProfile.of(states[::2], tokens=tokens, degenerate=False)
    steps, se = sub.steps, sub.step_se
    return SublayerSplit(
        sigma_min=sub.sigma_min_no_pos0,
        attn=steps[0::2],
        attn_se=se[0::2],
        mlp=steps[1::2],
        mlp_se=se[1::2],
        block=blk.steps,
        block_se=blk.step_se,
        tokens=tokens,
        folds=sub.folds,
    )


def localise(split: SublayerSplit, *, k: float = 4.0) -> list[dict]:
    """For every block whose ratio is below 1 − k SE (a decline, as the σ_min claims call
    one), the sublayer that carries it: ``"mlp"`` when only the MLP ratio is below 1 − k SE,
    ``"attention"`` when only the attention ratio is, ``"both"`` when both are, else
    ``"unresolved"`` (the decline is not resolved in either half at k SE).

    Returns ``[{"block": ℓ (1-based), "block_ratio", "block_se", "attn", "attn_se", "mlp",
    "mlp_se", "carrier"}]``.

    Examples
    --------
    >>> s = SublayerSplit(attn=np.array([1.2, 0.5]), attn_se=np.array([0.01, 0.01]),
    ...                   mlp=np.array([0.5, 1.0]), mlp_se=np.array([0.01, 0.01]),
    ...                   block=np.array([0.6, 0.5]), block_se=np.array([0.01, 0.01]))
    >>> [d["carrier"] for d in localise(s)]
    ['mlp', 'attention']
    """
    check_instance(split, "split", SublayerSplit)
    k = check_real(k, "k", low=0.0)
    down = lambda x, s: bool(x < 1 - k * s)  # noqa: E731  (NaN SE: no decline)
    out = []
    for i in range(split.block.size):
        b, bse = split.block[i], split.block_se[i]
        if not down(b, bse):
            continue
        a, m = down(split.attn[i], split.attn_se[i]), down(split.mlp[i], split.mlp_se[i])
        carrier = "both" if a and m else "attention" if a else "mlp" if m else "unresolved"
        out.append({
            "block": i + 1, "block_ratio": float(b), "block_se": float(bse),
            "attn": float(split.attn[i]), "attn_se": float(split.attn_se[i]),
            "mlp": float(split.mlp[i]), "mlp_se": float(split.mlp_se[i]), "carrier": carrier,
        })  # fmt: skip
    return out


# --- the controls: one sublayer replaced by a cancelling map ------------------------------


def bottom_direction(acc) -> np.ndarray:
    """The unit bottom eigenvector of an accumulator's uncentred Gram (the stream's smallest
    right-singular direction)."""
    _, V = acc.eigh(centred=False)
    return V[:, 0] / np.linalg.norm(V[:, 0])


def _cancel_modules(direction, c: float):
    """``(mlp, attention)`` modules computing x ↦ −c (x·v) v (the attention one returns
    ``(output, None)`` as transformers' attention modules do)."""
    import torch

    class Cancel(torch.nn.Module):
        """Added to the stream, x ↦ −c (x·v) v removes a share c of it along v."""

        def __init__(self):
            super().__init__()
            self.register_buffer("v", torch.as_tensor(direction, dtype=torch.float32))

        def forward(self, hidden_states=None, *args, **kwargs):
            x = hidden_states if hidden_states is not None else args[0]
            v = self.v.to(x.dtype)
            return -c * (x @ v)[..., None] * v

    class CancelAttention(Cancel):
        def forward(self, hidden_states=None, *args, **kwargs):
            return super().forward(hidden_states, *args), None

    return Cancel(), CancelAttention()


def cancelling(model, block: int, sublayer: str, direction, *, c: float = 0.99):
    """A context manager within which block ``block`` (1-based) of a LLaMA-layout model
    (``input_layernorm``, ``self_attn``, ``post_attention_layernorm``, ``mlp``) has its
    ``sublayer`` (``"mlp"`` or ``"attention"``) replaced by x ↦ −c (x·v) v on the raw stream
    (its pre-norm made the identity), v = ``direction``: the stream loses a share ``c`` along
    v in that sublayer. Arguments are checked at the call; the original modules are put back
    on exit."""
    from companion._validate import check_finite_array
    from companion.llm._checks import check_module

    check_module(model)
    check_choice(sublayer, "sublayer", ("mlp", "attention"))
    c = check_real(c, "c", low=0.0, high=1.0)
    block = check_int(block, "block", low=1)
    v = check_finite_array(direction, "direction", ndim=1)
    _, blocks = find_sublayers(model)
    block = check_int(block, "block", low=1, high=len(blocks))
    layer = blocks[block - 1][0]
    names = ("input_layernorm", "self_attn", "post_attention_layernorm", "mlp")
    if not all(hasattr(layer, n) for n in names) or hasattr(layer, "pre_feedforward_layernorm"):
        raise ValueError(
            f"`model` must have LLaMA-layout blocks ({', '.join(names)}) for a cancelling "
            f"sublayer; got {type(layer).__name__}"
        )
    d = next(model.parameters()).shape[-1]
    if v.shape != (d,) or not np.any(v):
        raise ValueError(
            f"`direction` must be a non-zero vector of length d = {d}; got shape {v.shape}"
        )
    norm, branch = names[2:] if sublayer == "mlp" else names[:2]
    mlp, attention = _cancel_modules(v / np.linalg.norm(v), c)
    cancel = (mlp if sublayer == "mlp" else attention).to(next(model.parameters()).device)
    return _swapped(layer, {norm: None, branch: cancel})


@contextlib.contextmanager
def _swapped(layer, new: dict):
    """``layer``'s submodules replaced by ``new`` (None: the identity) inside the block."""
    import torch

    saved = {n: getattr(layer, n) for n in new}
    try:
        for n, mod in new.items():
            setattr(layer, n, torch.nn.Identity() if mod is None else mod)
        yield layer
    finally:
        for n, mod in saved.items():
            setattr(layer, n, mod)
