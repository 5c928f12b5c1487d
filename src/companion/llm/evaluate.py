"""Next-token NLL and perplexity of a causal LM over fixed token windows.

The protocol of Dong (2026, §4.5): score each window on its own, predict every token
after the first, and report ``PPL = exp(total NLL / predicted tokens)``. Logits are
upcast to float32 before the log-softmax and the per-window sums are accumulated in
float64, so an fp16 forward pass on a GPU still has fp32 accumulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["NLLResult", "evaluate_nll"]


@dataclass(frozen=True)
class NLLResult:
    """Mean next-token NLL over windows (nats per token) and the perplexity ``exp(nll)``.

    ``per_window`` holds each window's mean NLL, so the spread of a difference across
    windows (the evaluation noise floor) can be computed from two results.
    """

    nll: float
    tokens: int
    per_window: np.ndarray = field(repr=False)
    dtype: str = "float32"

    @property
    def ppl(self) -> float:
        return float(math.exp(self.nll))


def _autocast(model):
    import contextlib

    import torch

    p = next(model.parameters())
    if p.device.type == "cuda" and p.dtype in (torch.float16, torch.bfloat16):
        return torch.autocast("cuda", dtype=p.dtype)
    return contextlib.nullcontext()


def _logits(model, ids):
    out = model(input_ids=ids)
    logits = getattr(out, "logits", None)
    if logits is None:
        raise ValueError(
            f"`model` must be a causal language model (its output has logits); got "
            f"{type(model).__name__}, whose output {type(out).__name__} has none"
        )
    _check_ids(ids, logits.shape[-1])
    return logits


def _check_ids(ids, vocab: int) -> None:
    if int(ids.max()) >= vocab or int(ids.min()) < 0:
        raise ValueError(
            f"`windows` must hold token ids in [0, {vocab - 1}] (the model's vocabulary); "
            f"got ids in [{int(ids.min())}, {int(ids.max())}]"
        )


def evaluate_nll(model, windows, *, batch_size: int = 1) -> NLLResult:
    """Mean next-token NLL of ``model`` on ``windows`` (LongTensor (n_windows, window)).

    Deterministic on a given machine and thread count: evaluating the same weights twice
    gives the same float bit for bit (the sign-flip experiments rely on this to check that
    undoing a perturbation restores the model exactly).
    """
    import torch

    from companion._validate import check_int

    batch_size = check_int(batch_size, "batch_size", low=1)
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"`model` must be a torch.nn.Module; got {type(model).__name__}")
    if not isinstance(windows, torch.Tensor) or windows.dtype not in (torch.int32, torch.int64):
        got = f"a {windows.dtype} tensor" if isinstance(windows, torch.Tensor) else None
        got = got or type(windows).__name__
        raise TypeError(f"`windows` must be an integer tensor of token ids; got {got}")
    if windows.ndim != 2 or windows.shape[0] < 1 or windows.shape[1] < 2:
        raise ValueError(
            f"`windows` must be a 2-D tensor of at least one window of at least 2 tokens; "
            f"got shape {tuple(windows.shape)}"
        )
    try:
        emb = model.get_input_embeddings()
    except (AttributeError, NotImplementedError):  # not a transformers model
        emb = None
    if isinstance(emb, torch.nn.Embedding):  # before the forward pass, which would IndexError
        _check_ids(windows, emb.num_embeddings)
    p = next(model.parameters())
    sums = np.zeros(windows.shape[0], dtype=np.float64)  # (n_windows,) summed NLL
    with torch.no_grad(), _autocast(model):
        for start in range(0, windows.shape[0], batch_size):
            ids = windows[start : start + batch_size].to(p.device)  # (b, window)
            logits = _logits(model, ids)[:, :-1].float()  # (b, window-1, vocab)
            logp = torch.log_softmax(logits, dim=-1)
            nll = -logp.gather(-1, ids[:, 1:, None]).squeeze(-1)  # (b, window-1)
            sums[start : start + ids.shape[0]] = nll.double().sum(dim=1).cpu().numpy()
    if not np.all(np.isfinite(sums)):  # checked on the result: no cost on the usual path
        _refuse_nonfinite(model, sums)
    per_tok = windows.shape[1] - 1
    per_window = sums / per_tok
    total = int(per_tok * windows.shape[0])
    return NLLResult(
        float(sums.sum() / total), total, per_window, str(p.dtype).removeprefix("torch.")
    )


def _refuse_nonfinite(model, sums) -> None:
    """One ValueError naming where a non-finite NLL came from (weights first)."""
    import torch

    bad = [
        (name, int((~torch.isfinite(w)).sum()))
        for name, w in model.named_parameters()
        if not bool(torch.isfinite(w).all())
    ]
    windows = np.flatnonzero(~np.isfinite(sums))
    if bad:
        names = ", ".join(f"{name} ({k})" for name, k in bad[:3])
        more = f" and {len(bad) - 3} more" if len(bad) > 3 else ""
        raise ValueError(
            f"`model` must have finite weights; got non-finite entries in {len(bad)} "
            f"parameters: {names}{more}"
        )
    raise ValueError(
        f"`model` must give finite logits on `windows`; got a non-finite NLL on "
        f"{windows.size} windows (first: {int(windows[0])}), e.g. an fp16 overflow"
    )
