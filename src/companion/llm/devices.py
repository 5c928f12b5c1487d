"""Where a model runs and in which floating-point type: :func:`check_device`, :func:`as_dtype`.

Shared by every loader (:mod:`companion.llm.loading`, :mod:`companion.llm.whisper`), so that
one device or dtype is refused in the same words whichever model it is for. torch is imported
when a function runs, not with the module.
"""

from __future__ import annotations

__all__ = ["DTYPES", "as_dtype", "check_device"]

#: The floating-point types a model can be loaded in.
DTYPES = ("float32", "float16", "bfloat16", "float64")


def _torch():
    import torch

    return torch


def check_device(device=None):
    """``device`` as a ``torch.device`` this machine has (None: CUDA when available, else CPU).

    Raises
    ------
    ValueError
        A device type torch does not know (``"tpu"``), or one this machine lacks (``"cuda"``
        without a GPU, ``"cuda:3"`` with one GPU, ``"mps"`` off Apple silicon).

    Examples
    --------
    >>> check_device("cpu")
    device(type='cpu')
    >>> check_device("tpu")
    Traceback (most recent call last):
    ...
    ValueError: `device` must be 'cpu', 'cuda', 'cuda:N' or 'mps'; got 'tpu'
    """
    torch = _torch()
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not isinstance(device, (str, torch.device)):
        raise TypeError(f"`device` must be a str or torch.device; got {type(device).__name__}")
    kinds = "'cpu', 'cuda', 'cuda:N' or 'mps'"
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError):
        raise ValueError(f"`device` must be {kinds}; got {device!r}") from None
    have = ["cpu"]
    n_gpu = torch.cuda.device_count() if torch.cuda.is_available() else 0
    have += [f"cuda:{i}" for i in range(n_gpu)]
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        have.append("mps")
    if dev.type not in ("cpu", "cuda", "mps"):
        raise ValueError(f"`device` must be {kinds}; got {device!r}")
    if dev.type == "cuda" and (n_gpu == 0 or (dev.index or 0) >= n_gpu):
        seen = f"torch sees {n_gpu} CUDA GPU{'s' if n_gpu != 1 else ''}"
        raise ValueError(
            f"`device` must be one this machine has ({', '.join(have)}); got {device!r}: {seen}"
        )
    if dev.type == "mps" and "mps" not in have:
        raise ValueError(
            f"`device` must be one this machine has ({', '.join(have)}); got {device!r}"
        )
    return dev


def as_dtype(dtype=None):
    """``dtype`` as a ``torch.dtype`` of :data:`DTYPES` (None: ``torch.float32``); a str
    may carry the ``"torch."`` prefix.

    Examples
    --------
    >>> as_dtype("bfloat16"), as_dtype(None)
    (torch.bfloat16, torch.float32)
    >>> as_dtype("int8")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: `dtype` must be one of 'float32', ... or None; got 'int8'
    """
    torch = _torch()
    if dtype is None:
        return torch.float32
    if isinstance(dtype, torch.dtype) and str(dtype).removeprefix("torch.") in DTYPES:
        return dtype
    if isinstance(dtype, str) and dtype.removeprefix("torch.") in DTYPES:
        return getattr(torch, dtype.removeprefix("torch."))
    choices = ", ".join(repr(d) for d in DTYPES)
    if not isinstance(dtype, (str, torch.dtype)):
        raise TypeError(f"`dtype` must be one of {choices} or None; got {type(dtype).__name__}")
    raise ValueError(f"`dtype` must be one of {choices} or None; got {dtype!r}")
