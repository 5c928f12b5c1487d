"""Sign flips, outlier columns and leverage on real language models (Dong 2026, §4.2, §4.5).

The building blocks of the chapter ``book/sign_magnitude/at_scale.md``:

* the layers studied: every ``nn.Linear`` except the output head (embeddings are not
  ``Linear``), in module order (:func:`linear_layers`), 20 of them evenly spaced for Table 1;
* masks drawn from **per-matrix** seeded generators (:func:`matrix_rng`): each matrix gets its
  own stream derived from ``(seed, tag, layer index)``, so equal-shaped layers never share a
  mask (the author's ``dn_outlier.py`` reseeded every layer with the same seed, which made
  layers of equal shape share masks), and masks are drawn on the CPU so they do not depend on
  the device;
* perturbations applied **in place** and undone **exactly** (:func:`perturbed`): the original
  values of the touched entries are saved and written back, so no copy of the model is made
  and the restored model is bit-identical (its NLL equals the baseline bit for bit);
* perturbation kinds (:data:`KINDS`): ``"flip"`` (w → −w, a pure sign flip), ``"scaled_flip"``
  (the author's Exp D "Frobenius-matched" variant, w → (1 − 2c)w: **not a pure flip** when
  c ≠ 1), ``"magnitude"`` (the paper's sign-preserving ΔW = δ sign W on every entry, δ chosen
  per matrix so that ‖ΔW‖_F equals the flip's) and ``"magnitude_local"`` (the same on the
  flipped entries only);
* count matching (:func:`count_matched_flips`): exactly ``n`` flips per pool, allocated across
  matrices in proportion to pool size and drawn without replacement;
* the outlier statistics: mean |input| per input dimension from forward hooks, and the
  α of one matrix's inputs in both normalisations (:func:`alpha_from_stats`), with the exact
  per-column single-flip energy 4‖W[:, j]‖²/m · E[x_j²] (:func:`single_flip_energy`).

The experiment drivers (:func:`run_experiment`) write one JSON record per setting to a
resumable result store and are what ``companion run sign-flips`` calls (:func:`run_cli`).
"""

from __future__ import annotations

import contextlib
import math
import time
from dataclasses import dataclass, field

import numpy as np

from companion._validate import check_choice, check_int, check_real

__all__ = [
    "EXPERIMENTS",
    "KINDS",
    "PAPER",
    "POOLS",
    "FlipSet",
    "SETUPS",
    "Setup",
    "activation_stats",
    "alpha_from_stats",
    "allocate",
    "bernoulli_flips",
    "column_flip_set",
    "command_line",
    "count_matched_flips",
    "evenly_spaced",
    "format_summary",
    "get_linear",
    "input_abs_mean",
    "load_results",
    "results_path",
    "results_root",
    "summarize",
    "linear_layers",
    "log_spaced_columns",
    "matrix_rng",
    "outlier_columns",
    "perturbed",
    "pool_sizes",
    "run_cli",
    "run_experiment",
    "setup",
    "single_flip_energy",
    "spearman",
    "table1_layer",
    "vector_cos2",
]

#: The experiments ``companion run sign-flips --experiment`` knows.
EXPERIMENTS = ("table1", "outlier", "leverage", "alpha", "columns")
#: Perturbation kinds of :func:`perturbed`.
KINDS = ("flip", "scaled_flip", "magnitude", "magnitude_local")
#: The experiment's folder under the results root (:mod:`companion.results`).
RESULTS = "sign_flips"
#: Where flips may fall: every entry, only outlier columns, only non-outlier columns.
POOLS = ("all", "outlier", "non")

#: The paper's TinyLlama-1.1B values (author's JSONs / abstract; see the spec §4.2 and §4.5).
PAPER = {
    "table1_row_cos2": 0.6084,
    "table1_vec_cos2": 0.6072,
    "outlier_nll_ratio": 4.97,
    "outlier_nll_ratio_abstract": 5.0,
    "leverage_plateau": 10.0,
    "leverage_nll_median": {0.05: 41.3, 0.005: 10.4, 0.001: 8.65, 0.0005: 9.48, 0.0001: 3.54},
    "leverage_ppl_median": {0.05: 89.8, 0.005: 10.5, 0.001: 8.67, 0.0005: 9.50, 0.0001: 2.26},
    "alpha_energy_spearman": 0.955,
    "alpha_median_abstract": 0.024,
    "alpha_max_abstract": 0.26,
    "alpha_max_json": 0.289,
    "column_flip_spearman": 0.927,
    "column_flip_slope": 0.78,
    "baseline_ppl": 7.3828,
}


# --------------------------------------------------------------------------- layers


def linear_layers(model) -> dict:
    """Every ``nn.Linear`` of ``model`` except the output head, in module order.

    Embeddings are ``nn.Embedding`` (never included); the head is excluded by identity with
    ``model.get_output_embeddings()`` and by the names ``lm_head``/``embed_out`` (with tied
    weights, flipping the head would also flip the embedding matrix).
    """
    import torch

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
    layers = linear_layers(model) if layers is None else layers
    if name not in layers:
        names = list(layers)
        hint = ", ".join(repr(n) for n in names[:3])
        raise ValueError(
            f"`layer` must name a Linear layer of the model (e.g. {hint}, "
            f"{len(names)} in all); got {name!r}"
        )
    return layers[name]


def evenly_spaced(names, k: int = 20) -> list:
    """``k`` names evenly spaced over ``names`` (``np.linspace`` rounding, as the author).

    Examples
    --------
    >>> evenly_spaced(list("abcdefghij"), 4)
    ['a', 'd', 'g', 'j']
    """
    names = list(names)
    k = check_int(k, "k", low=1)
    if k >= len(names):
        return names
    idx = np.linspace(0, len(names) - 1, k).round().astype(int)
    return [names[i] for i in idx]


# --------------------------------------------------------------------------- randomness


_TAGS = {
    "all": 1,
    "outlier": 2,
    "non": 3,
    "count:outlier": 4,
    "count:non": 5,
    "sphere": 6,
    "columns": 7,
}


def matrix_rng(seed: int, layer_index: int, tag: str = "all") -> np.random.Generator:
    """The generator of one matrix: a SeedSequence of ``(seed, tag, layer_index)``.

    Distinct layers (and distinct pools) get independent streams, whatever their shapes.

    Examples
    --------
    >>> a = matrix_rng(0, 3).integers(0, 2**31, 3)
    >>> b = matrix_rng(0, 4).integers(0, 2**31, 3)
    >>> bool((a != b).any())
    True
    """
    seed = check_int(seed, "seed", low=0)
    return np.random.default_rng(np.random.SeedSequence([seed, _TAGS[tag], int(layer_index)]))


# --------------------------------------------------------------------------- flip sets


@dataclass
class FlipSet:
    """Flat indices of the entries to perturb, per matrix name (sorted int64 arrays)."""

    indices: dict = field(default_factory=dict)
    pool: str = "all"

    @property
    def count(self) -> int:
        return int(sum(len(v) for v in self.indices.values()))

    def sq_norm(self, layers) -> float:
        """‖ΔW_flip‖_F² = Σ 4 w² over the set (float64)."""
        tot = 0.0
        for name, idx in self.indices.items():
            w = layers[name].weight.detach().reshape(-1)[_as_index(idx, layers[name].weight)]
            tot += 4.0 * float((w.double() ** 2).sum())
        return tot


def _as_index(idx, weight):
    import torch

    return torch.as_tensor(idx, dtype=torch.long, device=weight.device)


def _pool_columns(n_in: int, cols, pool: str) -> np.ndarray | None:
    if pool == "all":
        return None
    cols = np.asarray(cols, dtype=np.int64)
    if pool == "outlier":
        return np.sort(cols)
    mask = np.ones(n_in, dtype=bool)
    mask[cols] = False
    return np.flatnonzero(mask)


def _positions_to_flat(pos: np.ndarray, n_in: int, pool_cols: np.ndarray | None) -> np.ndarray:
    """Pool positions -> flat indices of an (m, n_in) row-major matrix."""
    if pool_cols is None:
        return np.sort(pos.astype(np.int64))
    k = len(pool_cols)
    rows, c = np.divmod(pos.astype(np.int64), k)
    return np.sort(rows * n_in + pool_cols[c])


def pool_sizes(layers: dict, columns: dict | None, pool: str = "all") -> dict:
    """Number of entries of each matrix in the pool (rows × pool columns)."""
    check_choice(pool, "pool", POOLS)
    sizes = {}
    for name, mod in layers.items():
        m, n = mod.weight.shape
        if pool == "all":
            sizes[name] = m * n
        else:
            k = len(columns[name])
            sizes[name] = m * (k if pool == "outlier" else n - k)
    return sizes


def bernoulli_flips(
    layers: dict, p: float, *, seed: int = 0, columns: dict | None = None, pool: str = "all"
) -> FlipSet:
    """Each entry of the pool selected independently with probability ``p``.

    Per matrix: a count K ~ Binomial(pool size, p) and then K distinct positions, both from
    that matrix's own generator (:func:`matrix_rng`); this is the same law as a Bernoulli mask.
    """
    p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    check_choice(pool, "pool", POOLS)
    if pool != "all" and columns is None:
        raise ValueError(f"`columns` must be given for pool {pool!r}; got None")
    out = FlipSet(pool=pool)
    sizes = pool_sizes(layers, columns, pool)
    for i, (name, mod) in enumerate(layers.items()):
        g = matrix_rng(seed, i, pool)
        k = int(g.binomial(sizes[name], p))
        pos = g.choice(sizes[name], size=k, replace=False)
        cols = _pool_columns(mod.weight.shape[1], columns[name] if columns else None, pool)
        out.indices[name] = _positions_to_flat(pos, mod.weight.shape[1], cols)
    return out


def allocate(sizes: dict, n: int) -> dict:
    """Split ``n`` over matrices in proportion to their pool sizes (largest remainder).

    Examples
    --------
    >>> allocate({"a": 300, "b": 100}, 10)
    {'a': 8, 'b': 2}
    >>> allocate({"a": 1, "b": 1, "c": 1}, 2)
    {'a': 1, 'b': 1, 'c': 0}
    """
    total = sum(sizes.values())
    n = check_int(n, "n_flips", low=0, high=total)
    names = list(sizes)
    exact = np.array([sizes[k] * n / total for k in names], dtype=np.float64)
    base = np.floor(exact).astype(np.int64)
    rest = n - int(base.sum())
    order = np.argsort(-(exact - base), kind="stable")
    base[order[:rest]] += 1
    return {k: int(v) for k, v in zip(names, base)}


def count_matched_flips(
    layers: dict, n_flips: int, *, columns: dict, pool: str, seed: int = 0
) -> FlipSet:
    """Exactly ``n_flips`` distinct entries of the pool, allocated in proportion to pool size.

    Used with the same ``n_flips`` for the outlier and the non-outlier pool (Exp E), so the
    two conditions differ only in *where* the flips fall.
    """
    check_choice(pool, "pool", ("outlier", "non"))
    sizes = pool_sizes(layers, columns, pool)
    counts = allocate(sizes, n_flips)
    out = FlipSet(pool=pool)
    for i, (name, mod) in enumerate(layers.items()):
        g = matrix_rng(seed, i, f"count:{pool}")
        pos = g.choice(sizes[name], size=counts[name], replace=False)
        cols = _pool_columns(mod.weight.shape[1], columns[name], pool)
        out.indices[name] = _positions_to_flat(pos, mod.weight.shape[1], cols)
    return out


def column_flip_set(layer_name: str, weight_shape, column: int) -> FlipSet:
    """Every entry of one input column ``W[:, j]`` (a whole-column flip, Exp G)."""
    m, n = weight_shape
    column = check_int(column, "column", low=0, high=n - 1)
    return FlipSet({layer_name: np.arange(m, dtype=np.int64) * n + column}, pool="column")


# --------------------------------------------------------------------------- apply / undo


def _magnitude_all(w, idx):
    """The paper's magnitude perturbation on a whole matrix, with an exact undo.

    ΔW = δ sign(W) on every entry, δ = ‖ΔW_flip‖_F / √(mn) for the flip set ``idx`` (so the
    Frobenius norm equals that flip's, per realisation). Undoing by subtraction is exact
    except where rounding lost low bits; those entries (and only those) are saved first.
    Returns the restore function.
    """
    import torch

    W = w.data
    flat = W.view(-1)
    t = _as_index(idx, w)
    delta = float(torch.sqrt(4.0 * (flat[t].double() ** 2).sum() / W.numel()))

    def shift(x, sgn):  # one elementwise recipe both ways
        return (x.float() + sgn * delta * torch.sign(x.float())).to(x.dtype)

    new = shift(W, 1.0)  # (m, n) temporary
    back = shift(new, -1.0)
    bad = torch.nonzero((back != W).view(-1)).squeeze(1)  # entries the subtraction cannot undo
    fix = flat[bad].clone()
    del back
    W.copy_(new)
    del new

    def restore():
        W.copy_(shift(W, -1.0))
        flat[bad] = fix

    return restore


@contextlib.contextmanager
def perturbed(layers: dict, flips: FlipSet, *, kind: str = "flip", scale: float = 1.0):
    """Perturb the model in place; restore it exactly on exit.

    For each matrix with entries S in ``flips``:

    * ``kind="flip"``: w → −w on S (a pure sign flip);
    * ``kind="scaled_flip"``: w → w + scale·(−2w) = (1 − 2·scale)w on S, the author's
      Frobenius-rescaled Exp D variant (**not a pure flip** unless ``scale == 1``);
    * ``kind="magnitude"``: the paper's sign-preserving perturbation ΔW = δ sign(W) on **every**
      entry of the matrix, δ = ‖ΔW_flip‖_F/√(mn) (Frobenius-matched to the flip of S, per
      realisation; constant δ, assumption A5). Bussgang-aligned with W;
    * ``kind="magnitude_local"``: w → w + δ sign w on S only, δ = 2·rms(w over S) (same
      entries, same norm, no sign change; *not* Bussgang-aligned with the whole row).

    The original values of the touched entries are saved (memory ∝ their number; for
    ``"magnitude"`` only the entries whose subtraction would not round back) and written back
    in ``finally``, so the model is restored bit for bit even after an error. No copy of the
    model is made.
    """
    import torch

    check_choice(kind, "kind", KINDS)
    scale = check_real(scale, "scale", low=0.0, low_open=True)
    restores = []
    try:
        with torch.no_grad():
            for name, idx in flips.indices.items():
                if len(idx) == 0:
                    continue
                w = layers[name].weight
                if not w.is_contiguous():
                    raise ValueError(
                        f"`{name}.weight` must be contiguous to flip in place; "
                        f"got strides {w.stride()}"
                    )
                if kind == "magnitude":
                    restores.append(_magnitude_all(w, idx))
                    continue
                flat = w.data.view(-1)
                t = _as_index(idx, w)
                old = flat[t].clone()  # (k,) the only copy made
                restores.append(lambda flat=flat, t=t, old=old: flat.index_copy_(0, t, old))
                if kind == "flip":
                    new = -old
                elif kind == "scaled_flip":
                    new = (old.double() * (1.0 - 2.0 * scale)).to(old.dtype)
                else:
                    o64 = old.double()
                    delta = 2.0 * torch.sqrt((o64**2).mean())
                    new = (o64 + delta * torch.sign(o64)).to(old.dtype)
                flat[t] = new
        yield
    finally:
        with torch.no_grad():
            for restore in reversed(restores):
                restore()


# --------------------------------------------------------------------------- activations


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


# --------------------------------------------------------------------------- Table 1


def vector_cos2(weight, *, samples: int = 2000, rng=None, batch: int = 1000):
    """Vector-level cos²(W x̂, W_T x̂) over x̂ uniform on the sphere (Theorem 4, Table 1).

    ``W_T = s ⊙ sign(W)`` with per-row absmean scale ``s_i = ‖w_i‖₁ / n``. Computed with torch
    on the weight's device in float32 (float64 sums); the sphere samples come from a numpy
    generator so the result does not depend on the device. Returns an MCEstimate over samples.
    """
    import torch

    from companion._validate import as_generator
    from companion.stats import mean_estimate

    samples = check_int(samples, "samples", low=2)
    g = as_generator(rng)
    W = weight.detach().float()  # (m, n)
    WT = W.abs().mean(dim=1, keepdim=True) * torch.sign(W)  # (m, n)
    vals = []
    for s in range(0, samples, batch):
        b = min(batch, samples - s)
        x = torch.as_tensor(
            g.standard_normal((b, W.shape[1])), dtype=torch.float32, device=W.device
        )  # (b, n)
        x = x / x.norm(dim=1, keepdim=True)
        z, zt = x @ W.T, x @ WT.T  # (b, m)
        c = (z * zt).double().sum(1) ** 2 / ((z * z).double().sum(1) * (zt * zt).double().sum(1))
        vals.append(c.cpu().numpy())
    return mean_estimate(np.concatenate(vals))


def table1_layer(name: str, weight, *, samples: int = 2000, rng=None) -> dict:
    """One Table 1 record: row-level and vector-level cos², and the weight tails."""
    from companion.theory.bussgang import row_cos2

    W = weight.detach().float().cpu().numpy().astype(np.float64)  # (m, n)
    rc = row_cos2(W)  # (m,)
    vec = vector_cos2(weight, samples=samples, rng=rng)
    z = (W - W.mean()) / W.std()
    return {
        "layer": name,
        "shape": list(W.shape),
        "row_cos2": float(rc.mean()),
        "row_cos2_min": float(rc.min()),
        "vector_cos2": vec.value,
        "vector_cos2_se": vec.stderr,
        "kurtosis": float((z**4).mean()),
    }


# --------------------------------------------------------------------------- experiments
# (drivers are below, after the integration with the engine's loading/data/runs modules)


@dataclass(frozen=True)
class Setup:
    """Sizes of the sign-flip experiments at one scale.

    ``cpu``: 4 windows of 256 tokens of the offline Wikipedia text (1,020 predicted tokens,
    the paper scores 20,470), 4 disjoint calibration windows, 2 seeds (the paper uses 5–10)
    and 12 columns for Exp G (the paper 20): sized for 2 shared CPU cores, enough for the
    qualitative results and orders of magnitude, not for the paper's confidence bands.
    ``full``: the paper's protocol (10 × 2048 windows of WikiText-2 test, 5 outlier-calibration
    windows, 10 seeds, 10,000 sphere samples). ``smoke``: the full path in seconds (tests): 2
    windows of 32 tokens of the offline Wikipedia text (WikiText-2 needs the hub) on a model
    built at random init and tiny width.
    """

    scale: str
    eval_windows: int
    window: int
    calib_windows: int
    seeds: int
    leverage_seeds: int
    sphere_samples: int
    source: str
    table1_layers: int = 20
    outlier_p: float = 0.05
    outlier_frac: float = 0.05
    leverage_ps: tuple = (0.05, 0.005, 0.001, 0.0005, 0.0001)
    n_columns: int = 20
    min_calib_tokens: int = 512


SETUPS = {
    "cpu": Setup(
        "cpu",
        eval_windows=4,
        window=256,
        calib_windows=4,
        seeds=2,
        leverage_seeds=2,
        sphere_samples=2000,
        source="wiki",
        n_columns=12,
    ),
    "full": Setup(
        "full",
        eval_windows=10,
        window=2048,
        calib_windows=5,
        seeds=5,
        leverage_seeds=10,
        sphere_samples=10000,
        source="wikitext-2",
    ),
    "smoke": Setup(
        "smoke",
        eval_windows=2,
        window=32,
        calib_windows=2,
        seeds=2,
        leverage_seeds=2,
        sphere_samples=50,
        source="wiki",
        n_columns=4,
        min_calib_tokens=64,
    ),
}


def setup(scale: str = "cpu") -> Setup:
    """The :class:`Setup` of ``scale``.

    Examples
    --------
    >>> setup("full").eval_windows, setup("full").window
    (10, 2048)
    """
    return SETUPS[check_choice(scale, "scale", tuple(SETUPS))]


def default_target(layers: dict) -> str:
    """The α / column-flip target: the q_proj at depth ≈ 12/22 (the paper's layer 12 of 22)."""
    qs = [n for n in layers if n.endswith("q_proj")]
    if not qs:
        names = list(layers)
        return names[len(names) // 2]
    return qs[int(round(12 / 22 * (len(qs) - 1)))] if len(qs) != 22 else qs[12]


def _delta(res, base) -> dict:
    """ΔNLL, ΔPPL and the per-window ΔNLL spread of a perturbed evaluation."""
    dw = np.asarray(res.per_window) - np.asarray(base.per_window)
    se = float(dw.std(ddof=1) / math.sqrt(len(dw))) if len(dw) > 1 else float("nan")
    return {
        "nll": res.nll,
        "ppl": res.ppl,
        "dnll": res.nll - base.nll,
        "dppl": res.ppl - base.ppl,
        "dnll_window_se": se,
        "dnll_per_window": dw.tolist(),
    }


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


def leverage_prediction(layers: dict, moments: dict, columns: dict) -> dict:
    """First-order predictions of the count-matched leverage from the measured α.

    With flips allocated in proportion to pool size, the expected count-matched ratio is the
    ratio of pool-averaged per-flip energies. ``n_E_alpha2_outlier`` is the paper's
    n·E[α²] over outlier columns (a delocalised column has nα² = 1); ``alpha2_ratio`` is
    E[α²|outlier]/E[α²|non] (the count-matched form, weights ignored) and ``energy_ratio``
    uses the exact single-flip energies 4 W_ij² E[x_j²] (weights included).
    """
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


# --------------------------------------------------------------------------- drivers


@dataclass
class _Context:
    """What every experiment needs: the model, its Linear layers and the token windows."""

    model: object
    name: str
    scale: str
    cfg: Setup
    layers: dict
    windows: object
    calib: object
    calibration: str
    meta: dict
    _base: object = None

    def baseline(self):
        from companion.llm.evaluate import evaluate_nll

        if self._base is None:
            self._base = evaluate_nll(self.model, self.windows)
        return self._base


def _meta(model, name: str, scale: str, experiment: str, windows, calib, calibration) -> dict:
    import platform

    import torch
    import transformers

    p = next(model.parameters())
    return {
        "model": name,
        "scale": scale,
        "experiment": experiment,
        "dtype": str(p.dtype).removeprefix("torch."),
        "device": str(p.device),
        "eval_windows": int(windows.shape[0]) if windows is not None else 0,
        "window": int(windows.shape[1]) if windows is not None else 0,
        "eval_tokens_predicted": int(windows.shape[0] * (windows.shape[1] - 1))
        if windows is not None
        else 0,
        "calib_windows": int(calib.shape[0]) if calib is not None else 0,
        "calibration": calibration,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "machine": platform.machine(),
        "threads": torch.get_num_threads(),
    }


def _exp_table1(ctx: _Context, store, seeds: int, bar) -> None:
    names = evenly_spaced(list(ctx.layers), ctx.cfg.table1_layers)
    for i, name in enumerate(bar(names, desc="table1")):
        key = f"table1|{name}"
        if store.done(key):
            continue
        t0 = time.perf_counter()
        rec = table1_layer(
            name,
            ctx.layers[name].weight,
            samples=ctx.cfg.sphere_samples,
            rng=np.random.default_rng([42, i]),
        )
        store.append(
            {
                "key": key,
                **rec,
                "index": list(ctx.layers).index(name),
                "wall_s": time.perf_counter() - t0,
            }
        )


def _calibrate(ctx: _Context, store):
    """Outlier columns (top 5% by mean |input|) and the input moments, recorded once."""
    t0 = time.perf_counter()
    mom = input_moments(ctx.model, ctx.calib, ctx.layers, min_tokens=ctx.cfg.min_calib_tokens)
    cols = outlier_columns({n: v["abs_mean"] for n, v in mom.items()}, ctx.cfg.outlier_frac)
    key = f"calibration|{ctx.calibration}"
    if not store.done(key):
        pred = leverage_prediction(ctx.layers, mom, cols)
        pool_out = sum(pool_sizes(ctx.layers, cols, "outlier").values())
        pool_all = sum(pool_sizes(ctx.layers, cols, "all").values())
        store.append(
            {
                "key": key,
                "calibration": ctx.calibration,
                "calib_tokens": int(ctx.calib.shape[0] * ctx.calib.shape[1]),
                "outlier_pool": int(pool_out),
                "all_weights": int(pool_all),
                "n_matrices": len(ctx.layers),
                **pred,
                "wall_s": time.perf_counter() - t0,
            }
        )
    return mom, cols


def _record_baseline(ctx: _Context, store) -> None:
    if not store.done("baseline"):
        t0 = time.perf_counter()
        b = ctx.baseline()
        store.append(
            {
                "key": "baseline",
                "nll": b.nll,
                "ppl": b.ppl,
                "per_window": b.per_window.tolist(),
                "tokens": b.tokens,
                "wall_s": time.perf_counter() - t0,
            }
        )


def _eval_perturbed(ctx: _Context, flips: FlipSet, kind: str = "flip", scale: float = 1.0) -> dict:
    from companion.llm.evaluate import evaluate_nll

    with perturbed(ctx.layers, flips, kind=kind, scale=scale):
        res = evaluate_nll(ctx.model, ctx.windows)
    return _delta(res, ctx.baseline())


def _exp_outlier(ctx: _Context, store, seeds: int, bar, p: float) -> None:
    """Exp D: flips at rate p in outlier / non-outlier columns / everywhere (+ controls)."""
    _record_baseline(ctx, store)
    _, cols = _calibrate(ctx, store)
    proto = ctx.calibration
    conds = (
        ("all", "flip"),
        ("all", "magnitude"),
        ("outlier", "flip"),
        ("non", "flip"),
        ("outlier", "scaled_flip"),
        ("non", "scaled_flip"),
    )
    if proto == "overlap":  # the all-entry conditions do not depend on the calibration
        conds = conds[2:]
    jobs = [(s, pool, kind) for s in range(seeds) for pool, kind in conds]
    for s, pool, kind in bar(jobs, desc="outlier"):
        key = f"outlier|{proto}|p={p:g}|{pool}|{kind}|seed={s}"
        if store.done(key):
            continue
        t0 = time.perf_counter()
        fs = bernoulli_flips(ctx.layers, p, seed=s, columns=cols, pool=pool)
        scale = 1.0
        if kind == "scaled_flip":
            # the author's Frobenius matching: rescale ΔW to the norm of the all-entry flips
            ref = bernoulli_flips(ctx.layers, p, seed=s, pool="all")
            scale = math.sqrt(ref.sq_norm(ctx.layers) / fs.sq_norm(ctx.layers))
        rec = _eval_perturbed(ctx, fs, kind, scale)
        store.append(
            {
                "key": key,
                "protocol": proto,
                "p": p,
                "pool": pool,
                "kind": kind,
                "seed": s,
                "n_flips": fs.count,
                "rescale": scale,
                **rec,
                "wall_s": time.perf_counter() - t0,
            }
        )


def _exp_leverage(ctx: _Context, store, seeds: int, bar, ps) -> None:
    """Exp E: count-matched flips (same number in each pool) at fractions p of the outlier pool."""
    _record_baseline(ctx, store)
    _, cols = _calibrate(ctx, store)
    pool_out = sum(pool_sizes(ctx.layers, cols, "outlier").values())
    jobs = [(p, s, pool) for p in ps for s in range(seeds) for pool in ("outlier", "non")]
    for p, s, pool in bar(jobs, desc="leverage"):
        key = f"leverage|{ctx.calibration}|p={p:g}|{pool}|seed={s}"
        if store.done(key):
            continue
        t0 = time.perf_counter()
        n = max(1, int(round(p * pool_out)))
        fs = count_matched_flips(ctx.layers, n, columns=cols, pool=pool, seed=s)
        rec = _eval_perturbed(ctx, fs)
        store.append(
            {
                "key": key,
                "p": p,
                "pool": pool,
                "seed": s,
                "n_flips": fs.count,
                **rec,
                "wall_s": time.perf_counter() - t0,
            }
        )


def _alpha_record(ctx: _Context, target: str) -> dict:
    stats = activation_stats(
        ctx.model, ctx.windows, ctx.layers, target, min_tokens=ctx.cfg.min_calib_tokens
    )
    a_ratio, a_tok = alpha_from_stats(stats)
    W = ctx.layers[target].weight.detach().double().cpu().numpy()  # (m, n)
    energy = single_flip_energy(W, stats["ex2"])
    out = outlier_columns({"t": stats["abs_mean"]}, ctx.cfg.outlier_frac)["t"]
    mask = np.zeros(len(a_ratio), dtype=bool)
    mask[out] = True
    colnorm = np.sqrt((W * W).sum(0))
    return {
        "layer": target,
        "n": int(W.shape[1]),
        "m": int(W.shape[0]),
        "tokens": stats["tokens"],
        "enorm2": stats["enorm2"],
        "spearman_alpha2_energy": spearman(a_ratio**2, energy),
        "spearman_alpha2tok_energy": spearman(a_tok**2, energy),
        "pearson_alpha2_energy": float(np.corrcoef(a_ratio**2, energy)[0, 1]),
        "alpha_ratio_median": float(np.median(a_ratio)),
        "alpha_ratio_max": float(a_ratio.max()),
        "alpha_ratio_median_outlier": float(np.median(a_ratio[mask])),
        "alpha_tok_median": float(np.median(a_tok)),
        "alpha_tok_max": float(a_tok.max()),
        "alpha_tok_median_outlier": float(np.median(a_tok[mask])),
        "argmax_alpha": int(a_ratio.argmax()),
        "energy_ratio_outlier_non": float(energy[mask].mean() / energy[~mask].mean()),
        "alpha2_ratio_outlier_non": float(
            (a_ratio[mask] ** 2).mean() / (a_ratio[~mask] ** 2).mean()
        ),
        "colnorm_ratio_outlier_non": float(colnorm[mask].mean() / colnorm[~mask].mean()),
        "alpha_ratio": a_ratio.tolist(),
        "alpha_tok": a_tok.tolist(),
        "energy": energy.tolist(),
        "colnorm": colnorm.tolist(),
        "outlier_columns": out.tolist(),
    }


def _exp_alpha(ctx: _Context, store, seeds: int, bar, target: str) -> None:
    """Exp F: α of one mid-depth attention input projection and the single-flip energies."""
    key = f"alpha|{target}"
    if store.done(key):
        return
    t0 = time.perf_counter()
    store.append({"key": key, **_alpha_record(ctx, target), "wall_s": time.perf_counter() - t0})


def _exp_columns(ctx: _Context, store, seeds: int, bar, target: str) -> None:
    """Exp G: whole-column flips of columns log-spaced in α; ΔNLL per column."""
    _record_baseline(ctx, store)
    akey = f"alpha|{target}"
    arec = next((r for r in store.records() if r.get("key") == akey), None)
    if arec is None:
        arec = {"key": akey, **_alpha_record(ctx, target)}
        store.append(arec)
    a_ratio = np.asarray(arec["alpha_ratio"])
    cols = log_spaced_columns(a_ratio, ctx.cfg.n_columns)
    W = ctx.layers[target].weight
    for j in bar(cols.tolist(), desc="columns"):
        key = f"column|{target}|{j}"
        if store.done(key):
            continue
        t0 = time.perf_counter()
        rec = _eval_perturbed(ctx, column_flip_set(target, tuple(W.shape), j))
        store.append(
            {
                "key": key,
                "layer": target,
                "column": j,
                "alpha": float(a_ratio[j]),
                "alpha_tok": float(arec["alpha_tok"][j]),
                "colnorm": float(arec["colnorm"][j]),
                **rec,
                "wall_s": time.perf_counter() - t0,
            }
        )


# --------------------------------------------------------------------------- summaries


def _ratio(num: float, den: float, floor: float = 0.0) -> float:
    """num / den with the denominator floored at ``floor`` (the author's convention)."""
    d = max(den, floor) if floor > 0 else den
    return float(num / d) if d != 0 else float("inf") * np.sign(num)


def _quartiles(x) -> dict:
    x = np.asarray([v for v in x if np.isfinite(v)], dtype=np.float64)
    if x.size == 0:
        return {"median": float("nan"), "q25": float("nan"), "q75": float("nan"), "n": 0}
    q25, med, q75 = np.percentile(x, [25, 50, 75])
    return {"median": float(med), "q25": float(q25), "q75": float(q75), "n": int(x.size)}


def summarize(experiment: str, records: list) -> dict:
    """The numbers the chapter and the claims print, from one experiment's records."""
    check_choice(experiment, "experiment", EXPERIMENTS)
    by_key = {r["key"]: r for r in records if "key" in r}
    meta = next((r.get("meta", {}) for r in records if r.get("meta")), {})
    wall = float(sum(r.get("wall_s", 0.0) for r in records))
    out: dict = {"experiment": experiment, "meta": meta, "wall_s": wall}
    base = by_key.get("baseline")
    if base:
        out["baseline_nll"], out["baseline_ppl"] = base["nll"], base["ppl"]
    if experiment == "table1":
        rows = sorted(
            (r for r in records if r["key"].startswith("table1|")), key=lambda r: r["index"]
        )
        rc = np.array([r["row_cos2"] for r in rows])
        vc = np.array([r["vector_cos2"] for r in rows])
        two_pi = 2 / math.pi
        worst = sorted(rows, key=lambda r: r["row_cos2"])[:3]
        out.update(
            layers=len(rows),
            row_cos2=float(rc.mean()),
            vector_cos2=float(vc.mean()),
            row_cos2_range=(float(rc.min()), float(rc.max())),
            rel_dev_row=float((two_pi - rc.mean()) / two_pi),
            rel_dev_vec=float((two_pi - vc.mean()) / two_pi),
            worst=[(r["layer"], r["row_cos2"], r["vector_cos2"], r["kurtosis"]) for r in worst],
            rows=rows,
        )
    elif experiment == "outlier":
        recs = [r for r in records if r["key"].startswith("outlier|")]
        res = {}
        for proto in sorted({r["protocol"] for r in recs}):
            for kind in ("flip", "scaled_flip"):
                ratios, pratios = [], []
                for s in sorted({r["seed"] for r in recs}):
                    o = by_key.get(f"outlier|{proto}|p={recs[0]['p']:g}|outlier|{kind}|seed={s}")
                    n = by_key.get(f"outlier|{proto}|p={recs[0]['p']:g}|non|{kind}|seed={s}")
                    if o and n:
                        ratios.append(_ratio(o["dnll"], n["dnll"]))
                        pratios.append(_ratio(o["dppl"], n["dppl"], 0.01))
                if ratios:
                    res[f"{proto}|{kind}"] = {
                        "nll_ratio": _quartiles(ratios),
                        "ppl_ratio": _quartiles(pratios),
                        "nll_ratios": ratios,
                        "ppl_ratios": pratios,
                    }
        for pool, kind in (
            ("all", "flip"),
            ("all", "magnitude"),
            ("outlier", "flip"),
            ("non", "flip"),
            ("outlier", "scaled_flip"),
            ("non", "scaled_flip"),
        ):
            sel = [
                r
                for r in recs
                if r["pool"] == pool and r["kind"] == kind and r["protocol"] == "disjoint"
            ] or [r for r in recs if r["pool"] == pool and r["kind"] == kind]
            if sel:
                res[f"{pool}|{kind}"] = {
                    "dnll": float(np.median([r["dnll"] for r in sel])),
                    "ppl": float(np.median([r["ppl"] for r in sel])),
                    "n_flips": int(np.median([r["n_flips"] for r in sel])),
                    "rescale": float(np.median([r["rescale"] for r in sel])),
                }
        out["conditions"] = res
        out["calibration"] = {
            k.split("|", 1)[1]: v for k, v in by_key.items() if k.startswith("calibration|")
        }
    elif experiment == "leverage":
        recs = [r for r in records if r["key"].startswith("leverage|")]
        rows = []
        for p in sorted({r["p"] for r in recs}, reverse=True):
            nl, pl, dn_non, se_non, nflips = [], [], [], [], 0
            for s in sorted({r["seed"] for r in recs if r["p"] == p}):
                o = next(
                    (r for r in recs if r["p"] == p and r["seed"] == s and r["pool"] == "outlier"),
                    None,
                )
                n = next(
                    (r for r in recs if r["p"] == p and r["seed"] == s and r["pool"] == "non"), None
                )
                if o and n:
                    nl.append(_ratio(o["dnll"], n["dnll"]))
                    pl.append(_ratio(o["dppl"], n["dppl"], 0.001))
                    dn_non.append(n["dnll"])
                    se_non.append(n["dnll_window_se"])
                    nflips = o["n_flips"]
            rows.append(
                {
                    "p": p,
                    "n_flips": nflips,
                    "nll_lev": _quartiles(nl),
                    "ppl_lev": _quartiles(pl),
                    "nll_levs": nl,
                    "ppl_levs": pl,
                    "dnll_non_median": float(np.median(dn_non)) if dn_non else float("nan"),
                    "window_se_non_median": float(np.median(se_non)) if se_non else float("nan"),
                    "paper_nll": PAPER["leverage_nll_median"].get(p),
                    "paper_ppl": PAPER["leverage_ppl_median"].get(p),
                }
            )
        out["rows"] = rows
        cal = [v for k, v in by_key.items() if k.startswith("calibration|")]
        if cal:
            out["prediction"] = {
                k: cal[0][k] for k in ("n_E_alpha2_outlier", "alpha2_ratio", "energy_ratio")
            }
        lin = [r["nll_lev"]["median"] for r in rows if r["p"] <= 0.005 and r["p"] >= 0.0005]
        out["plateau_nll"] = float(np.median(lin)) if lin else float("nan")
    elif experiment == "alpha":
        rec = next(r for r in records if r["key"].startswith("alpha|"))
        out.update({k: v for k, v in rec.items() if not isinstance(v, list)})
        out["arrays"] = {
            k: rec[k] for k in ("alpha_ratio", "alpha_tok", "energy", "colnorm", "outlier_columns")
        }
    else:  # columns
        cols = sorted(
            (r for r in records if r["key"].startswith("column|")), key=lambda r: r["alpha"]
        )
        a2 = np.array([r["alpha"] ** 2 for r in cols])
        d = np.array([r["dnll"] for r in cols])
        pos = d > 0
        slope = (
            float(np.polyfit(np.log(a2[pos]), np.log(d[pos]), 1)[0])
            if pos.sum() >= 3
            else float("nan")
        )
        out.update(
            columns=len(cols),
            spearman=spearman(a2, d) if len(cols) > 2 else float("nan"),
            pearson=float(np.corrcoef(a2, d)[0, 1]) if len(cols) > 2 else float("nan"),
            spearman_weighted=spearman(a2 * np.array([r["colnorm"] ** 2 for r in cols]), d)
            if len(cols) > 2
            else float("nan"),
            loglog_slope=slope,
            negative=int((d <= 0).sum()),
            rows=cols,
            max_dnll=float(d.max()) if len(d) else float("nan"),
        )
    return out


# --------------------------------------------------------------------------- entry points


class _Store:
    """The engine's :class:`companion.results.ResultStore`, adding this run's metadata."""

    def __init__(self, path, meta: dict, command: str):
        from companion.results import ResultStore

        self.inner, self.meta, self.command = ResultStore(path), meta, command
        self.path = self.inner.path

    def done(self, key):
        return self.inner.done(key)

    def records(self):
        return self.inner.records()

    def append(self, rec):
        full = {
            "model": self.meta["model"],
            "dtype": self.meta["dtype"],
            "device": self.meta["device"],
            "seed": rec.get("seed"),
            "meta": self.meta,
            **rec,
        }
        return self.inner.append(full, command=self.command)


def results_path(out, model: str, experiment: str, scale: str = "cpu") -> str:
    """Where an experiment's records live: ``<out>/<model>/<experiment>-<scale>.jsonl``
    (``out=None``: the results root's ``sign_flips/``, :func:`results_root`)."""
    import os

    if out is None:
        from companion.results import locate

        return str(locate(RESULTS, model, f"{experiment}-{scale}.jsonl"))
    return os.path.join(os.fspath(out), model, f"{experiment}-{scale}.jsonl")


def results_root(*, write: bool = False) -> str:
    """The ``sign_flips`` folder of the results root (:func:`companion.results.results_root`:
    ``$COMPANION_RESULTS``, the checkout's ``results/``, the results shipped with the package,
    or a user data folder for new runs)."""
    from companion.results import experiment_dir

    return str(experiment_dir(RESULTS, write=write))


def load_results(model: str, experiment: str, *, scale: str = "cpu", out=None) -> list:
    """The stored records of one experiment ([] when the file is absent).

    ``out=None`` reads the results root (:func:`results_path`).
    """
    from companion.results import ResultStore

    return ResultStore(results_path(out, model, experiment, scale)).records()


def command_line(experiment: str, model: str, scale: str = "cpu", seeds: int | None = None) -> str:
    """The CLI command that produces an experiment's results file."""
    cmd = f"companion run sign-flips --experiment {experiment} --model {model} --scale {scale}"
    return cmd + (f" --seeds {seeds}" if seeds else "") + " --resume"


def run_experiment(
    experiment: str,
    model_name: str = "smollm2-135m",
    *,
    scale: str = "cpu",
    seeds: int | None = None,
    out=None,
    resume: bool = False,
    p: float | None = None,
    ps=None,
    layer: str | None = None,
    calibration: str = "disjoint",
    model=None,
    tokenizer=None,
    windows=None,
    calib=None,
    setup_override: Setup | None = None,
    command: str | None = None,
    progress: bool = True,
) -> list:
    """Run one experiment and return its records (also stored, one JSON line per setting).

    Parameters
    ----------
    experiment : {"table1", "outlier", "leverage", "alpha", "columns"}
    model_name : str
        A registered model (``companion models``); loaded with the engine's ``load_model``
        unless ``model`` is passed (tests pass a tiny random Llama).
    scale : {"cpu", "full", "smoke"}
        Picks :data:`SETUPS` (windows, seeds, text source).
    seeds : int, optional
        Seeds per setting (default: the setup's; fewer at CPU scale than in the paper).
    out : path, optional
        Results folder; the file is :func:`results_path` (default: the results root's
        ``sign_flips/``, a folder new records may be written to).
    resume : bool
        Skip settings already stored. Without it an existing file is started afresh.
    p : float, optional
        Flip rate of the outlier experiment (default 5%), in (0, 1].
    ps : sequence of float, optional
        Fractions of the outlier pool for the leverage sweep.
    layer : str, optional
        Target of ``alpha``/``columns`` (default :func:`default_target`).
    calibration : {"disjoint", "overlap"}
        Outlier calibration on windows disjoint from evaluation (default) or on the first
        evaluation windows (the author's protocol).

    Every argument is checked before anything is written: an invalid ``p``, an unknown
    experiment, a layer name that does not match or too few calibration tokens raise
    ValueError and leave no record.
    """
    import os
    import sys

    check_choice(experiment, "experiment", EXPERIMENTS)
    check_choice(calibration, "calibration", ("disjoint", "overlap"))
    cfg = setup_override or setup(scale)
    if p is not None:
        p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
    p = cfg.outlier_p if p is None else p
    ps = tuple(
        check_real(q, "p", low=0.0, high=1.0, low_open=True) for q in (ps or cfg.leverage_ps)
    )
    default_seeds = cfg.leverage_seeds if experiment == "leverage" else cfg.seeds
    seeds = default_seeds if seeds is None else check_int(seeds, "seeds", low=1)
    t_load = time.perf_counter()
    if model is None:
        import torch

        from companion.llm.loading import load_model

        dtype = torch.float16 if (scale == "full" and torch.cuda.is_available()) else None
        model, tokenizer = load_model(model_name, scale=scale, dtype=dtype)
    model.eval()
    layers = linear_layers(model)
    target = None
    if experiment in ("alpha", "columns"):
        target = default_target(layers) if layer is None else layer
        get_linear(model, target, layers)
    if windows is None and experiment != "table1":  # Table 1 reads weights only
        from companion.llm.data import token_windows

        windows = token_windows(
            tokenizer, n_windows=cfg.eval_windows, window=cfg.window, source=cfg.source
        )
    if experiment in ("outlier", "leverage"):
        if calib is None and calibration == "overlap":
            calib = windows[: cfg.calib_windows]
        elif calib is None:
            from companion.llm.data import token_windows

            calib = token_windows(
                tokenizer,
                n_windows=cfg.calib_windows,
                window=cfg.window,
                source=cfg.source,
                offset=int(windows.shape[0]),
            )
        _check_tokens(calib, cfg.min_calib_tokens)
    if experiment in ("alpha", "columns"):
        _check_tokens(windows, cfg.min_calib_tokens)
    load_s = time.perf_counter() - t_load
    if out is None:
        out = results_root(write=True)
    path = results_path(out, model_name, experiment, scale)
    if not resume and os.path.exists(path):
        os.remove(path)
    meta = _meta(model, model_name, scale, experiment, windows, calib, calibration)
    meta.update(seeds=seeds, load_s=load_s)
    if command is None:
        command = (
            " ".join(["companion"] + sys.argv[1:])
            if "sign-flips" in sys.argv
            else command_line(experiment, model_name, scale, seeds)
        )
    store = _Store(path, meta, command)
    ctx = _Context(model, model_name, scale, cfg, layers, windows, calib, calibration, meta)
    bar = (lambda it, desc: _progress(it, desc)) if progress else (lambda it, desc: it)
    t0 = time.perf_counter()
    if experiment == "table1":
        _exp_table1(ctx, store, seeds, bar)
    elif experiment == "outlier":
        _exp_outlier(ctx, store, seeds, bar, p)
    elif experiment == "leverage":
        _exp_leverage(ctx, store, seeds, bar, ps)
    elif experiment == "alpha":
        _exp_alpha(ctx, store, seeds, bar, target)
    else:
        _exp_columns(ctx, store, seeds, bar, target)
    store.append(
        {"key": f"run|{experiment}", "run_wall_s": time.perf_counter() - t0, "load_s": load_s}
    )
    return store.records()


def _progress(it, desc):
    from companion.llm.runs import progress

    return progress(it, desc=desc)


def run_cli(args) -> int:
    """``companion run sign-flips`` (args: experiment, model, scale, seeds, out, resume)."""
    experiment = args.experiment
    t0 = time.perf_counter()
    scale = getattr(args, "scale", None) or "cpu"
    out = getattr(args, "out", None) or results_root(write=True)
    recs = run_experiment(
        experiment,
        args.model,
        scale=scale,
        seeds=getattr(args, "seeds", None),
        out=out,
        resume=bool(getattr(args, "resume", False)),
        calibration=getattr(args, "calibration", None) or "disjoint",
        command=getattr(args, "command_line", None),
    )
    summ = summarize(experiment, recs)
    print(format_summary(summ))
    print(
        f"wall time {time.perf_counter() - t0:.1f} s; "
        f"records in {results_path(out, args.model, experiment, scale)}"
    )
    return 0


def format_summary(s: dict) -> str:
    """A few lines of text summarising :func:`summarize`'s output."""
    e, lines = s["experiment"], []
    m = s.get("meta", {})
    toks = f", {m.get('eval_windows')} x {m.get('window')} tokens" if m.get("window") else ""
    lines.append(
        f"{e}: model {m.get('model')} ({m.get('dtype')}, {m.get('device')}), "
        f"scale {m.get('scale')}{toks}"
    )
    if "baseline_ppl" in s:
        lines.append(f"baseline NLL {s['baseline_nll']:.4f}, PPL {s['baseline_ppl']:.3f}")
    if e == "table1":
        lines.append(
            f"row cos² {s['row_cos2']:.4f}, vector cos² {s['vector_cos2']:.4f} "
            f"over {s['layers']} layers (2/π = {2 / math.pi:.4f}; paper TinyLlama "
            f"{PAPER['table1_row_cos2']} / {PAPER['table1_vec_cos2']})"
        )
    elif e == "outlier":
        for k, v in s["conditions"].items():
            if "nll_ratio" in v:
                lines.append(
                    f"{k:24s} ΔNLL ratio out/non median {v['nll_ratio']['median']:.3g}"
                    f"  ΔPPL ratio {v['ppl_ratio']['median']:.3g}"
                )
            else:
                lines.append(
                    f"{k:24s} ΔNLL {v['dnll']:.4g}  PPL {v['ppl']:.4g}  "
                    f"flips {v['n_flips']}  rescale {v['rescale']:.3g}"
                )
    elif e == "leverage":
        for r in s["rows"]:
            lines.append(
                f"p={r['p']:<7g} n={r['n_flips']:<8d} NLL lev {r['nll_lev']['median']:.3g}"
                f" [{r['nll_lev']['q25']:.3g}, {r['nll_lev']['q75']:.3g}]  PPL lev "
                f"{r['ppl_lev']['median']:.3g}  ΔNLL_non {r['dnll_non_median']:.2e} "
                f"(window SE {r['window_se_non_median']:.1e})"
            )
        if "prediction" in s:
            lines.append(
                f"prediction: n·E[α²|out] {s['prediction']['n_E_alpha2_outlier']:.3g}, "
                f"energy ratio {s['prediction']['energy_ratio']:.3g}"
            )
    elif e == "alpha":
        lines.append(
            f"{s['layer']}: Spearman(α², energy) {s['spearman_alpha2_energy']:.3f} "
            f"(paper 0.955); α median {s['alpha_ratio_median']:.4f} max "
            f"{s['alpha_ratio_max']:.3f}; per-token α median {s['alpha_tok_median']:.4f} "
            f"max {s['alpha_tok_max']:.3f}"
        )
    else:
        lines.append(
            f"{s['columns']} columns: Spearman(α², ΔNLL) {s['spearman']:.3f} (paper 0.927),"
            f" log-log slope {s['loglog_slope']:.2f} (paper 0.78), "
            f"{s['negative']} with ΔNLL ≤ 0"
        )
    lines.append(f"measurement wall time {s['wall_s']:.1f} s")
    return "\n".join(lines)
