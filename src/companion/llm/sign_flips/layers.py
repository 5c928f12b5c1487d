"""The layers the sign-flip experiments perturb: every ``nn.Linear`` but the output head."""

from __future__ import annotations

import numpy as np

from companion._validate import check_int
from companion.llm._checks import check_layers, check_module

__all__ = ["default_target", "evenly_spaced", "get_linear", "linear_layers"]


def linear_layers(model) -> dict:
    """Every ``nn.Linear`` of ``model`` except the output head, in module order.

    Embeddings are ``nn.Embedding`` (never included); the head is excluded by identity with
    ``model.get_output_embeddings()`` and by the names ``lm_head``/``embed_out`` (with tied
    weights, flipping the head would also flip the embedding matrix). A model that is one
    part of a larger one (Whisper's stacks) lists its own through ``model.linear_layers()``.
    """
    import torch

    check_module(model)
    if callable(getattr(model, "linear_layers", None)):  # one part of a larger model
        return model.linear_layers()  # (Whisper's stacks: companion.llm.whisper)
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    out = {}
    for name, mod in model.named_modules():
        if not isinstance(mod, torch.nn.Linear) or mod is head:
            continue
        if name.split(".")[-1] in ("lm_head", "embed_out", "output"):
            continue
        out[name] = mod
    if not out:
        raise ValueError(
            f"`model` must contain nn.Linear layers besides the head; got none in "
            f"{type(model).__name__}"
        )
    return out


def get_linear(model, name: str, layers: dict | None = None):
    """The Linear layer called ``name``, or a ValueError listing a few valid names."""
    check_module(model)
    if layers is None:
        layers = linear_layers(model)
    elif not {id(m) for m in check_layers(layers).values()} <= {id(m) for m in model.modules()}:
        raise ValueError("`layers` must be layers of `model` (linear_layers(model))")
    return layers[check_layer_name(name, layers, "name")]


def check_layer_name(name, layers: dict, param: str = "layer") -> str:
    """``name`` when it names one of ``layers``; else the error lists a few valid names."""
    if not isinstance(name, str):
        raise TypeError(f"`{param}` must be a str naming a Linear layer; got {type(name).__name__}")
    if name not in layers:
        names = list(layers)
        hint = ", ".join(repr(n) for n in names[:3])
        raise ValueError(
            f"`{param}` must name a Linear layer of the model (e.g. {hint}, "
            f"{len(names)} in all); got {name!r}"
        )
    return name


def evenly_spaced(names, k: int = 20) -> list:
    """``k`` names evenly spaced over ``names`` (``np.linspace`` rounding, as the author).

    Examples
    --------
    >>> evenly_spaced(list("abcdefghij"), 4)
    ['a', 'd', 'g', 'j']
    """
    if isinstance(names, (str, bytes)) or not hasattr(names, "__iter__"):
        raise TypeError(f"`names` must be a sequence of names; got {type(names).__name__}")
    names = list(names)
    k = check_int(k, "k", low=1)
    if not names:
        raise ValueError("`names` must hold at least one name; got none")
    if k >= len(names):
        return names
    idx = np.linspace(0, len(names) - 1, k).round().astype(int)
    return [names[i] for i in idx]


def default_target(layers: dict) -> str:
    """The α / column-flip target: the q_proj at depth ≈ 12/22 (the paper's layer 12 of 22)."""
    check_layers(layers)
    qs = [n for n in layers if n.endswith("q_proj")]
    if not qs:
        names = list(layers)
        return names[len(names) // 2]
    return qs[int(round(12 / 22 * (len(qs) - 1)))] if len(qs) != 22 else qs[12]
