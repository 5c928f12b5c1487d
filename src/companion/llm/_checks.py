"""The one error style (:mod:`companion._validate`) for the engine's torch arguments.

Models, token windows, the dicts of Linear layers the sign-flip functions take, tokenizers and
paths: each check names the parameter in backticks, states the constraint and shows what it got.
"""

from __future__ import annotations

import os


def _torch():
    import torch

    return torch


def check_module(model, name: str = "model", *, parameters: bool = True):
    """A ``torch.nn.Module``, with at least one parameter when ``parameters``."""
    torch = _torch()
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"`{name}` must be a torch.nn.Module; got {type(model).__name__}")
    if parameters and next(model.parameters(), None) is None:
        raise ValueError(f"`{name}` must have parameters; got a {type(model).__name__} with none")
    return model


def check_windows(windows, name: str = "windows", *, min_tokens: int = 1):
    """A 2-D integer tensor of token ids ``(n_windows, window)`` with at least one window."""
    torch = _torch()
    if not isinstance(windows, torch.Tensor) or windows.dtype not in (torch.int32, torch.int64):
        got = f"a {windows.dtype} tensor" if isinstance(windows, torch.Tensor) else None
        raise TypeError(
            f"`{name}` must be an integer tensor of token ids; got {got or type(windows).__name__}"
        )
    if windows.ndim != 2 or windows.shape[0] < 1 or windows.shape[1] < min_tokens:
        raise ValueError(
            f"`{name}` must be a 2-D tensor (n_windows, window) of at least one window of "
            f">= {min_tokens} tokens; got shape {tuple(windows.shape)}"
        )
    if int(windows.min()) < 0:
        raise ValueError(f"`{name}` must hold non-negative token ids; got {int(windows.min())}")
    return windows


def check_layers(layers, name: str = "layers") -> dict:
    """A non-empty dict of named ``nn.Linear`` layers (what :func:`linear_layers` returns)."""
    torch = _torch()
    if not isinstance(layers, dict) or not layers:
        got = "an empty dict" if isinstance(layers, dict) else type(layers).__name__
        raise TypeError(
            f"`{name}` must be a non-empty dict of nn.Linear layers (linear_layers(model)); "
            f"got {got}"
        )
    bad = [k for k, m in layers.items() if not isinstance(m, torch.nn.Linear)]
    if bad:
        raise TypeError(
            f"`{name}` must map names to nn.Linear layers; got {type(layers[bad[0]]).__name__} "
            f"at {bad[0]!r}"
        )
    return layers


def check_tokenizer(tokenizer, name: str = "tokenizer"):
    """A Hugging Face tokenizer (callable, with a vocabulary size)."""
    if not callable(tokenizer) or not hasattr(tokenizer, "__len__"):
        raise TypeError(
            f"`{name}` must be a Hugging Face tokenizer; got {type(tokenizer).__name__}"
        )
    return tokenizer


def check_path(path, name: str, *, none: bool = True):
    """A filesystem path (str or os.PathLike), or None when ``none``."""
    if path is None and none:
        return None
    if isinstance(path, bool) or not isinstance(path, (str, os.PathLike)):
        allowed = "a path (str or os.PathLike)" + (" or None" if none else "")
        raise TypeError(f"`{name}` must be {allowed}; got {type(path).__name__}")
    return path


def check_optional_str(value, name: str):
    """A str or None."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"`{name}` must be a str or None; got {type(value).__name__}")
    return value


def check_tensor(x, name: str, *, none: bool = False):
    """A ``torch.Tensor``, or None when ``none``."""
    if x is None and none:
        return None
    if not isinstance(x, _torch().Tensor):
        allowed = "a torch.Tensor" + (" or None" if none else "")
        raise TypeError(f"`{name}` must be {allowed}; got {type(x).__name__}")
    return x


def check_callable(fn, name: str, *, none: bool = False):
    """A callable, or None when ``none``."""
    if fn is None and none:
        return None
    if not callable(fn):
        allowed = "callable" + (" or None" if none else "")
        raise TypeError(f"`{name}` must be {allowed}; got {type(fn).__name__}")
    return fn


def check_optional_int(value, name: str, *, low: int | None = None):
    """An integer ``>= low``, or None."""
    from companion._validate import check_int

    return None if value is None else check_int(value, name, low=low)


def check_tokens(windows, min_tokens: int, what: str = "calibration"):
    """The number of tokens of ``windows``, refused below ``min_tokens`` (ranking input
    columns needs enough of them)."""
    n_tok = int(windows.shape[0] * windows.shape[1])
    if n_tok < min_tokens:
        raise ValueError(
            f"`{what}_tokens` must be >= {min_tokens} to rank input columns; got {n_tok}"
        )
    return n_tok


def check_rates(ps, name: str) -> tuple:
    """A non-empty sequence of flip rates in (0, 1]."""
    from companion._validate import check_real

    if isinstance(ps, (str, bytes)) or not isinstance(ps, (tuple, list)):
        raise TypeError(
            f"`{name}` must be a sequence of flip rates in (0, 1]; got {type(ps).__name__}"
        )
    if not ps:
        raise ValueError(f"`{name}` must hold at least one flip rate; got none")
    return tuple(check_real(q, name, low=0.0, high=1.0, low_open=True) for q in ps)


def check_optional_dict(value, name: str):
    """A dict, or None."""
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"`{name}` must be a dict or None; got {type(value).__name__}")
    return value


def check_model_names(names, name: str):
    """None, or a list of registered model names (as a list)."""
    from companion._validate import check_choice
    from companion.llm.registry import list_models

    if names is None:
        return None
    if isinstance(names, str) or not isinstance(names, (list, tuple)):
        raise TypeError(
            f"`{name}` must be a list of model names or None; got {type(names).__name__}"
        )
    # the plan schedules the engine's runs; the trained-here twins are `companion train`'s
    known = tuple(s.name for s in list_models() if s.source != "trained-here")
    return [check_choice(n, name, known) for n in names]


def check_out(out) -> None:
    """``--out`` must be a folder this process can write (created if absent), checked before
    any model loads: a file, ``/dev/null``, ``''``, a folder under ``/proc`` or a read-only
    one is one line, not a failure after the whole computation.

    A probe file (``.tmp-<pid>-*.jsonl``, removed at once; a killed probe is removed by the
    next store that opens the folder) proves the folder writable.
    """
    import tempfile

    if out is None:
        return
    if out == "":
        raise ValueError("`out` must name a folder; got '' (leave --out out for the default)")
    path = os.path.abspath(os.path.expanduser(out))
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"`out` must be a folder; got {out!r}, which is not a folder")
    try:
        os.makedirs(path, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=f".tmp-{os.getpid()}-", suffix=".jsonl")
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise ValueError(
            f"`out` must be a folder this process can write; got {out!r} ({why})"
        ) from None
