"""What the layers see: their inputs' statistics, from forward pre-hooks over token windows.

The outlier statistics of Dong (2026, §4.5): mean |input| per input dimension (the outlier
columns are the top 5% of each matrix), the α of one matrix's inputs in both normalisations
(:func:`alpha_from_stats`), and the exact per-column single-flip energy
4‖W[:, j]‖²/m · E[x_j²] (:func:`single_flip_energy`), and from them the first-order
prediction of the count-matched leverage (:func:`leverage_prediction`). Hooks are scoped
(:func:`companion.llm.capture.hooks`): removed when the pass ends, whatever happens.
"""

from __future__ import annotations

import numpy as np

from companion._validate import check_finite_array, check_int, check_matrix, check_real
from companion.llm._checks import check_layers, check_module, check_tokens, check_windows
from companion.llm.sign_flips.layers import get_linear
from companion.llm.sign_flips.masks import check_columns

__all__ = [
    "activation_stats",
    "alpha_from_stats",
    "input_abs_mean",
    "input_moments",
    "leverage_prediction",
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


def _check_pass(model, windows, layers: dict, min_tokens) -> None:
    """The arguments of a forward pass with hooks on ``layers``: layers of ``model`` (hooks
    on layers of another model would never fire), token windows, enough tokens."""
    check_module(model)
    check_windows(windows)
    check_layers(layers)
    own = {id(m) for m in model.modules()}
    alien = [n for n, m in layers.items() if id(m) not in own]
    if alien:
        raise ValueError(
            f"`layers` must be layers of `model` (linear_layers(model)); got {len(alien)} "
            f"that are not, e.g. {alien[0]!r}"
        )
    check_tokens(windows, check_int(min_tokens, "min_tokens", low=1))


def input_abs_mean(model, windows, layers: dict, *, min_tokens: int = 512) -> dict:
    """Mean |x_j| per input dimension of every layer, over all tokens of ``windows`` (float64)."""
    import torch

    _check_pass(model, windows, layers, min_tokens)
    sums = {n: torch.zeros(m.weight.shape[1], dtype=torch.float64) for n, m in layers.items()}

    def acc(name, x):
        sums[name] += x.detach().reshape(-1, x.shape[-1]).abs().double().sum(0).cpu()

    with _input_hooks(layers, list(layers), acc):
        _run(model, windows)
    n_tok = windows.shape[0] * windows.shape[1]
    return {n: (s / n_tok).numpy() for n, s in sums.items()}


def outlier_columns(abs_mean: dict, frac: float = 0.05) -> dict:
    """Top ``frac`` of input dimensions per matrix by mean |input| (``int(frac·n)``, ≥ 1).

    Examples
    --------
    >>> outlier_columns({"a": np.array([0.1, 5.0, 0.2, 3.0])}, frac=0.5)
    {'a': array([1, 3])}
    """
    frac = check_real(frac, "frac", low=0.0, high=1.0, low_open=True, high_open=True)
    if not isinstance(abs_mean, dict) or not abs_mean:
        raise TypeError(
            f"`abs_mean` must be a non-empty dict of per-dimension means; got "
            f"{'an empty dict' if isinstance(abs_mean, dict) else type(abs_mean).__name__}"
        )
    out = {}
    for name, s in abs_mean.items():
        s = check_finite_array(s, f"abs_mean[{name!r}]", ndim=1)
        if s.size == 0:
            raise ValueError(f"`abs_mean[{name!r}]` must not be empty; got shape (0,)")
        k = max(1, int(frac * len(s)))
        out[name] = np.sort(np.argsort(-s, kind="stable")[:k])
    return out


def activation_stats(model, windows, layers: dict, name: str, *, min_tokens: int = 512) -> dict:
    """Per-dimension second moments of one layer's input over ``windows`` (float64).

    Returns ``ex2`` (E[x_j²]), ``enorm2`` (E‖x‖²), ``ex2_tok`` (E[x_j²/‖x‖²]),
    ``abs_mean`` (E|x_j|) and ``tokens``.
    """
    import torch

    _check_pass(model, windows, layers, min_tokens)
    get_linear(model, name, layers)
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
    missing = {"ex2", "enorm2", "ex2_tok"} - set(stats if isinstance(stats, dict) else ())
    if not isinstance(stats, dict) or missing:
        got = f"a dict without {sorted(missing)}" if isinstance(stats, dict) else None
        raise TypeError(
            f"`stats` must be activation_stats' dict (ex2, enorm2, ex2_tok); "
            f"got {got or type(stats).__name__}"
        )
    ex2 = check_finite_array(stats["ex2"], "stats['ex2']", ndim=1)
    tok = check_finite_array(stats["ex2_tok"], "stats['ex2_tok']", ndim=1)
    enorm2 = check_real(stats["enorm2"], "stats['enorm2']", low=0.0, low_open=True)
    if ex2.shape != tok.shape or ex2.size == 0 or (ex2 < 0).any() or (tok < 0).any():
        raise ValueError(
            f"`stats` must hold non-negative moments of one non-empty shape; got ex2 "
            f"{ex2.shape}, ex2_tok {tok.shape}"
        )
    return np.sqrt(ex2 / enorm2), np.sqrt(tok)


def single_flip_energy(weight, ex2) -> np.ndarray:
    """Exact per-column single-flip energy ``4 ‖W[:, j]‖² / m · E[x_j²]`` (Exp F).

    Flipping one entry W[i, j] changes output i by −2 W[i, j] x_j, with mean energy
    4 W[i, j]² E[x_j²]; averaging over the m rows i of column j gives the formula.

    Examples
    --------
    >>> single_flip_energy(np.array([[1.0, 0.0], [1.0, 2.0]]), np.array([1.0, 0.5]))
    array([4., 4.])
    """
    W = check_matrix(weight, "weight")
    ex2 = check_finite_array(ex2, "ex2", ndim=1)
    if ex2.shape != (W.shape[1],) or (ex2 < 0).any():
        raise ValueError(
            f"`ex2` must hold {W.shape[1]} non-negative second moments (one per column of "
            f"`weight`); got shape {ex2.shape}"
        )
    col = (W * W).sum(axis=0)  # (n,) ‖W[:, j]‖²
    return 4.0 * col / W.shape[0] * ex2


def spearman(a, b) -> float:
    """Spearman rank correlation (scipy), as a float.

    Examples
    --------
    >>> spearman([1, 2, 3, 4], [10, 20, 25, 100])
    1.0
    """
    from scipy.stats import spearmanr

    x, y = check_finite_array(a, "a", ndim=1), check_finite_array(b, "b", ndim=1)
    if x.size < 2:
        raise ValueError(f"`a` must hold at least 2 values; got {x.size}")
    if y.shape != x.shape:
        raise ValueError(f"`b` must have the length of `a` ({x.size}); got {y.size}")
    for name, v in (("a", x), ("b", y)):
        if np.all(v == v[0]):
            raise ValueError(f"`{name}` must not be constant (no ranks to correlate); got {v[0]}")
    return float(spearmanr(x, y).statistic)


def log_spaced_columns(alpha, k: int = 20) -> np.ndarray:
    """``k`` distinct columns whose α are closest to a log-spaced grid from min to max α.

    The max- and min-α columns are always included (Exp G).

    Examples
    --------
    >>> log_spaced_columns(np.array([0.01, 0.1, 1.0, 0.02, 0.5]), 3).tolist()
    [0, 1, 2]
    """
    a = check_finite_array(alpha, "alpha", ndim=1)
    if a.size < 2 or (a < 0).any():
        raise ValueError(
            f"`alpha` must hold at least 2 non-negative values; got {a.size} (min "
            f"{a.min() if a.size else 'none'})"
        )
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

    _check_pass(model, windows, layers, min_tokens)
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


def leverage_prediction(layers: dict, moments: dict, columns: dict) -> dict:
    """First-order predictions of the count-matched leverage from the measured α.

    With flips allocated in proportion to pool size, the expected count-matched ratio is the
    ratio of pool-averaged per-flip energies. ``n_E_alpha2_outlier`` is the paper's
    n·E[α²] over outlier columns (a delocalised column has nα² = 1); ``alpha2_ratio`` is
    E[α²|outlier]/E[α²|non] (the count-matched form, weights ignored) and ``energy_ratio``
    uses the exact single-flip energies 4 W_ij² E[x_j²] (weights included).
    """
    check_layers(layers)
    columns = check_columns(layers, columns, "outlier")
    if not isinstance(moments, dict) or set(moments) != set(layers):
        raise TypeError(
            f"`moments` must be input_moments' dict with one entry per layer; got "
            f"{type(moments).__name__}{' with other keys' if isinstance(moments, dict) else ''}"
        )
    if any(len(c) in (0, layers[k].weight.shape[1]) for k, c in columns.items()):
        raise ValueError("`columns` must leave each layer some outlier and some other columns")
    num = {"a_out": 0.0, "a_non": 0.0, "e_out": 0.0, "e_non": 0.0, "na_out": 0.0}
    n_out = n_non = 0
    for name, mod in layers.items():
        m, n = mod.weight.shape
        mom = moments[name]
        a2 = np.asarray(mom["ex2"]) / mom["enorm2"]  # (n,) α_j²
        col2 = (mod.weight.detach().double() ** 2).sum(0).cpu().numpy()  # (n,) ‖W[:, j]‖²
        energy = 4.0 * col2 * np.asarray(mom["ex2"])  # Σ_i 4 W_ij² E x_j²
        mask = np.zeros(n, dtype=bool)
        mask[columns[name]] = True
        num["a_out"] += m * a2[mask].sum()
        num["a_non"] += m * a2[~mask].sum()
        num["na_out"] += m * (n * a2[mask]).sum()
        num["e_out"] += energy[mask].sum()
        num["e_non"] += energy[~mask].sum()
        n_out += m * int(mask.sum())
        n_non += m * int((~mask).sum())
    return {
        "n_E_alpha2_outlier": num["na_out"] / n_out,
        "alpha2_ratio": (num["a_out"] / n_out) / (num["a_non"] / n_non),
        "energy_ratio": (num["e_out"] / n_out) / (num["e_non"] / n_non),
    }
