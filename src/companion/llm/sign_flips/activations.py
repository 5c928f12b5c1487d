"""What the layers see: their inputs' statistics, from forward pre-hooks over token windows.

The outlier statistics of Dong (2026, §4.5): mean |input| per input dimension (the outlier
columns are the top 5% of each matrix), the α of one matrix's inputs in both normalisations
(:func:`alpha_from_stats`), and the exact per-column single-flip energy
4‖W[:, j]‖²/m · E[x_j²] (:func:`single_flip_energy`). Hooks are scoped
(:func:`companion.llm.capture.hooks`): removed when the pass ends, whatever happens.
"""

from __future__ import annotations

import numpy as np

from companion._validate import check_int, check_real
from companion.llm.sign_flips.layers import get_linear

__all__ = [
    "activation_stats",
    "alpha_from_stats",
    "input_abs_mean",
    "input_moments",
    "log_spaced_columns",
    "outlier_columns",
    "single_flip_energy",
    "spearman",
]


def _input_hooks(layers: dict, names, fn):
    """Forward pre-hooks calling ``fn(name, x)`` on each named layer's input.

    Scoped by :func:`companion.llm.capture.hooks`: removed when the block exits, whatever happens.
    """
    from companion.llm.capture import hooks

    return hooks(
        {n: layers[n] for n in names}, lambda name, mod, inputs: fn(name, inputs[0]), pre=True
    )


def _run(model, windows, batch_size=1):
    import torch

    dev = next(model.parameters()).device
    with torch.no_grad():
        for s in range(0, windows.shape[0], batch_size):
            model(input_ids=windows[s : s + batch_size].to(dev))


def _check_tokens(windows, min_tokens: int, what: str = "calibration"):
    n_tok = int(windows.shape[0] * windows.shape[1])
    if n_tok < min_tokens:
        raise ValueError(
            f"`{what}_tokens` must be >= {min_tokens} to rank input columns; got {n_tok}"
        )
    return n_tok


def input_abs_mean(model, windows, layers: dict, *, min_tokens: int = 512) -> dict:
    """Mean |x_j| per input dimension of every layer, over all tokens of ``windows`` (float64)."""
    import torch

    _check_tokens(windows, min_tokens)
    sums = {n: torch.zeros(m.weight.shape[1], dtype=torch.float64) for n, m in layers.items()}
    count = [0]

    def acc(name, x):
        sums[name] += x.detach().reshape(-1, x.shape[-1]).abs().double().sum(0).cpu()

    with _input_hooks(layers, list(layers), acc):
        _run(model, windows)
    n_tok = windows.shape[0] * windows.shape[1]
    count[0] = n_tok
    return {n: (s / n_tok).numpy() for n, s in sums.items()}


def outlier_columns(abs_mean: dict, frac: float = 0.05) -> dict:
    """Top ``frac`` of input dimensions per matrix by mean |input| (``int(frac·n)``, ≥ 1).

    Examples
    --------
    >>> outlier_columns({"a": np.array([0.1, 5.0, 0.2, 3.0])}, frac=0.5)
    {'a': array([1, 3])}
    """
    frac = check_real(frac, "frac", low=0.0, high=1.0, low_open=True, high_open=True)
    out = {}
    for name, s in abs_mean.items():
        k = max(1, int(frac * len(s)))
        out[name] = np.sort(np.argsort(-np.asarray(s), kind="stable")[:k])
    return out


def activation_stats(model, windows, layers: dict, name: str, *, min_tokens: int = 512) -> dict:
    """Per-dimension second moments of one layer's input over ``windows`` (float64).

    Returns ``ex2`` (E[x_j²]), ``enorm2`` (E‖x‖²), ``ex2_tok`` (E[x_j²/‖x‖²]),
    ``abs_mean`` (E|x_j|) and ``tokens``.
    """
    import torch

    get_linear(model, name, layers)
    _check_tokens(windows, min_tokens)
    n = layers[name].weight.shape[1]
    acc = {
        "sq": torch.zeros(n, dtype=torch.float64),
        "frac": torch.zeros(n, dtype=torch.float64),
        "abs": torch.zeros(n, dtype=torch.float64),
        "norm": 0.0,
        "tok": 0,
    }

    def fn(_, x):
        x = x.detach().reshape(-1, x.shape[-1]).double()  # (tokens, n)
        sq = x * x
        nrm = sq.sum(1, keepdim=True)  # (tokens, 1) ‖x‖²
        acc["sq"] += sq.sum(0).cpu()
        acc["frac"] += (sq / nrm.clamp_min(1e-300)).sum(0).cpu()
        acc["abs"] += x.abs().sum(0).cpu()
        acc["norm"] += float(nrm.sum())
        acc["tok"] += x.shape[0]

    with _input_hooks(layers, [name], fn):
        _run(model, windows)
    t = acc["tok"]
    return {
        "ex2": (acc["sq"] / t).numpy(),
        "enorm2": acc["norm"] / t,
        "ex2_tok": (acc["frac"] / t).numpy(),
        "abs_mean": (acc["abs"] / t).numpy(),
        "tokens": t,
    }


def alpha_from_stats(stats: dict) -> tuple[np.ndarray, np.ndarray]:
    """α per input dimension in both normalisations.

    ``alpha_ratio[j]² = E[x_j²] / E‖x‖²`` (ratio of expectations, the author's code; Σ α² = 1)
    and ``alpha_tok[j]² = E[x_j² / ‖x‖²]`` (per-token, which down-weights massive-activation
    tokens; also sums to 1).

    Examples
    --------
    >>> a, b = alpha_from_stats({"ex2": np.array([3.0, 1.0]), "enorm2": 4.0,
    ...                          "ex2_tok": np.array([0.5, 0.5])})
    >>> a.round(4).tolist(), b.round(4).tolist()
    ([0.866, 0.5], [0.7071, 0.7071])
    """
    return (
        np.sqrt(np.asarray(stats["ex2"]) / stats["enorm2"]),
        np.sqrt(np.asarray(stats["ex2_tok"])),
    )


def single_flip_energy(weight, ex2) -> np.ndarray:
    """Exact per-column single-flip energy ``4 ‖W[:, j]‖² / m · E[x_j²]`` (Exp F).

    Flipping one entry W[i, j] changes output i by −2 W[i, j] x_j, with mean energy
    4 W[i, j]² E[x_j²]; averaging over the m rows i of column j gives the formula.

    Examples
    --------
    >>> single_flip_energy(np.array([[1.0, 0.0], [1.0, 2.0]]), np.array([1.0, 0.5]))
    array([4., 4.])
    """
    W = np.asarray(weight, dtype=np.float64)
    col = (W * W).sum(axis=0)  # (n,) ‖W[:, j]‖²
    return 4.0 * col / W.shape[0] * np.asarray(ex2, dtype=np.float64)


def spearman(a, b) -> float:
    """Spearman rank correlation (scipy), as a float.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [10, 20, 25, 100])
    1.0
    """
    from scipy.stats import spearmanr

    return float(spearmanr(np.asarray(a, float), np.asarray(b, float)).statistic)


def log_spaced_columns(alpha, k: int = 20) -> np.ndarray:
    """``k`` distinct columns whose α are closest to a log-spaced grid from min to max α.

    The max- and min-α columns are always included (Exp G).

    Examples
    --------
    >>> log_spaced_columns(np.array([0.01, 0.1, 1.0, 0.02, 0.5]), 3).tolist()
    [0, 1, 2]
    """
    a = np.asarray(alpha, dtype=np.float64)
    k = check_int(k, "k", low=2, high=len(a))
    targets = np.geomspace(max(a.min(), 1e-300), a.max(), k)
    chosen: list[int] = []
    la = np.log(np.maximum(a, 1e-300))
    for t in targets:
        order = np.argsort(np.abs(la - np.log(t)), kind="stable")
        j = next(int(j) for j in order if int(j) not in chosen)
        chosen.append(j)
    return np.array(sorted(chosen), dtype=np.int64)


def input_moments(model, windows, layers: dict, *, min_tokens: int = 512) -> dict:
    """Per layer: mean |x_j| and E[x_j²] per input dimension, and E‖x‖² (one forward pass)."""
    import torch

    _check_tokens(windows, min_tokens)
    acc = {
        n: [
            torch.zeros(m.weight.shape[1], dtype=torch.float64),
            torch.zeros(m.weight.shape[1], dtype=torch.float64),
            0.0,
        ]
        for n, m in layers.items()
    }

    def fn(name, x):
        x = x.detach().reshape(-1, x.shape[-1]).double()  # (tokens, n)
        a = acc[name]
        a[0] += x.abs().sum(0).cpu()
        a[1] += (x * x).sum(0).cpu()
        a[2] += float((x * x).sum())

    with _input_hooks(layers, list(layers), fn):
        _run(model, windows)
    t = windows.shape[0] * windows.shape[1]
    return {
        n: {"abs_mean": (a[0] / t).numpy(), "ex2": (a[1] / t).numpy(), "enorm2": a[2] / t}
        for n, a in acc.items()
    }
