"""One forward pass with scoped hooks on the final norm → float64 second moments
(:func:`accumulate`, in the manner of TransformerLens's ``run_with_cache``)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from companion._validate import check_bool, check_instance, check_int
from companion.llm._checks import check_module, check_optional_int
from companion.llm.norms import FinalNorm

__all__ = ["Moments", "accumulate", "FOLDS"]

#: Folds of the sequences for the jackknife of the σ_min steps.
FOLDS = 4


@dataclass
class Moments:
    """The float64 moments one forward pass gathers (:func:`accumulate`), each a
    :class:`companion.theory.sigma_min.GramAccumulator`: ``out`` the final norm's output,
    ``fp64`` the norm recomputed in float64 from its input, ``swap`` the other norm kind
    recomputed there (None when not gathered), ``pre`` the norm's input, ``blocks`` per
    block of the residual stream the fold accumulators without position 0 then the one of
    position 0 (uncentred reads)."""

    out: object
    pre: object
    fp64: object | None
    swap: object | None
    blocks: list
    profile_tokens: int
    dtype: str
    device: str
    timings: dict


class _Gather:
    """The hooks' state during :func:`accumulate`'s forward pass."""

    def __init__(self, fn, *, recompute_fp64: bool, swap: bool, folds: int):
        from companion.llm.capture import StreamingGram

        self.fn, self.folds = fn, folds
        self.out, self.pre = StreamingGram(), StreamingGram()
        self.fp64 = StreamingGram() if recompute_fp64 else None
        self.swap = StreamingGram() if swap else None
        self.blocks: list = []
        self.sequences = self.tokens = self.batch = 0
        self.t_acc = 0.0
        self.x = self.y = None

    def on_norm(self, name, m, inputs, output):
        from companion.llm.norms import recompute_norm

        t = time.perf_counter()
        x, y = inputs[0], (output[0] if isinstance(output, tuple) else output)
        _check_finite(y, name, self.batch)
        self.x, self.y = x, y
        self.out.update(y)
        self.pre.update(x)
        if self.fp64 is not None:
            self.fp64.update(recompute_norm(x, self.fn))
        if self.swap is not None:
            other = "rmsnorm" if self.fn.kind == "layernorm" else "layernorm"
            self.swap.update(recompute_norm(x, self.fn, kind=other))
        self.t_acc += time.perf_counter() - t

    def on_states(self, hidden_states):
        """Add one batch's residual-stream states (HF's ``hidden_states``) to the profile."""
        import torch

        from companion.llm.capture import StreamingGram

        t = time.perf_counter()
        states = list(hidden_states)
        last, y = states[-1], self.y
        if y is not None and last.shape == y.shape and torch.equal(last, y):
            states[-1] = self.x  # HF's last hidden state is post-norm: use the pre-norm one
        if not self.blocks:
            self.blocks = [[StreamingGram() for _ in range(self.folds + 1)] for _ in states]
        b = states[0].shape[0]
        fold = (self.sequences + torch.arange(b)) % self.folds  # (batch,) fold of each row
        for grams, h in zip(self.blocks, states, strict=True):
            h = h.reshape(b, -1, h.shape[-1])  # (batch, seq, d)
            for f in range(self.folds):
                grams[f].update(h[fold == f, 1:])
            grams[-1].update(h[:, :1])
        self.sequences += b
        self.tokens += states[0].shape[0] * states[0].shape[1]
        self.t_acc += time.perf_counter() - t


def _check_finite(y, name: str, batch: int) -> None:
    import torch

    bad = int((~torch.isfinite(y)).sum())
    if bad:
        raise ValueError(
            f"`model` must produce finite activations; its final norm {name!r} gave {bad} "
            f"non-finite values in batch {batch} (a NaN or infinite weight or input?)"
        )


def as_inputs(batch, vocab: int | None, device):
    """One batch as a dict of model inputs on ``device``; token ids checked against the
    vocabulary (an out-of-range id would index past the embedding)."""
    import torch

    if torch.is_tensor(batch):
        batch = {"input_ids": batch if batch.ndim == 2 else batch.view(1, -1)}
    if not isinstance(batch, dict):
        raise TypeError(
            f"`batches` must yield LongTensors of input ids or dicts of model inputs; "
            f"got {type(batch).__name__}"
        )
    ids = batch.get("input_ids")
    if torch.is_tensor(ids) and ids.numel() and vocab:
        lo, hi = int(ids.min()), int(ids.max())
        if lo < 0 or hi >= vocab:
            raise ValueError(
                f"`batches` must hold token ids in [0, {vocab}) (the model's vocabulary); "
                f"got ids from {lo} to {hi}"
            )
    return {k: (v.to(device) if torch.is_tensor(v) else v) for k, v in batch.items()}


def _check_batches(batches):
    if isinstance(batches, (str, bytes)) or not hasattr(batches, "__iter__"):
        raise TypeError(
            f"`batches` must be an iterable of token-id tensors or dicts of model inputs; "
            f"got {type(batches).__name__}"
        )
    return batches


def accumulate(
    model,
    batches,
    final_norm,
    *,
    profile: bool = True,
    profile_tokens: int | None = None,
    recompute_fp64: bool = True,
    swap: bool = True,
    folds: int = FOLDS,
    show_progress: bool = False,
    total: int | None = None,
) -> Moments:
    """One forward pass of ``model`` over ``batches`` with hooks on ``final_norm`` (from
    :func:`companion.llm.norms.find_final_norm`) → :class:`Moments` (see the module docs).

    The hooks are removed when the pass ends, also on an error. ``profile_tokens`` stops
    adding rows to the σ_min profile after that many tokens (it costs one d×d Gram update
    per block); the final-norm moments always use every token.
    """
    import torch

    from companion.llm.capture import hooks
    from companion.llm.progress import progress

    check_module(model)
    _check_batches(batches)
    check_instance(final_norm, "final_norm", FinalNorm)
    flags = dict(
        profile=profile, recompute_fp64=recompute_fp64, swap=swap, show_progress=show_progress
    )
    for name, flag in flags.items():
        check_bool(flag, name)
    check_optional_int(profile_tokens, "profile_tokens", low=0)
    check_optional_int(total, "total", low=0)
    folds = check_int(folds, "folds", low=1)
    base = getattr(model, "base_model", model)
    p = next(model.parameters())
    vocab = getattr(getattr(model, "config", None), "vocab_size", None)
    gather = _Gather(final_norm, recompute_fp64=recompute_fp64, swap=swap, folds=folds)
    bar = {"total": total, "desc": "forward", **({} if show_progress else {"disable": True})}
    t_fwd = time.perf_counter()
    with torch.no_grad(), hooks({final_norm.name: final_norm.module}, gather.on_norm):
        for batch in progress(batches, **bar):
            inputs = as_inputs(batch, vocab, p.device)
            want = profile and (profile_tokens is None or gather.tokens < profile_tokens)
            out = base(**inputs, output_hidden_states=want) if want else base(**inputs)
            if want:
                gather.on_states(out.hidden_states)
            gather.x = gather.y = None
            gather.batch += 1
    t_fwd = time.perf_counter() - t_fwd
    if gather.out.n == 0:
        raise ValueError("`batches` must yield at least one batch of tokens; got none")
    return Moments(
        out=gather.out.acc,
        pre=gather.pre.acc,
        fp64=gather.fp64.acc if recompute_fp64 else None,
        swap=gather.swap.acc if swap else None,
        blocks=[[g.acc for g in b] for b in gather.blocks],
        profile_tokens=gather.tokens,
        dtype=str(p.dtype).removeprefix("torch."),
        device=str(p.device),
        timings={"forward_s": t_fwd, "accumulate_s": gather.t_acc},
    )
