"""Which weights to perturb: per-matrix seeded masks, pools of columns and count matching.

Masks are drawn from **per-matrix** seeded generators (:func:`matrix_rng`): each matrix gets
its own stream derived from ``(seed, tag, layer index)``, so equal-shaped layers never share
a mask (the author's ``dn_outlier.py`` reseeded every layer with the same seed, which made
layers of equal shape share masks), and masks are drawn on the CPU so they do not depend on
the device. A :class:`FlipSet` holds the flat indices of the chosen entries per matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion._validate import check_choice, check_int, check_real

__all__ = [
    "POOLS",
    "FlipSet",
    "allocate",
    "bernoulli_flips",
    "column_flip_set",
    "count_matched_flips",
    "matrix_rng",
    "pool_sizes",
]

#: Where flips may fall: every entry, only outlier columns, only non-outlier columns.
POOLS = ("all", "outlier", "non")

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
    return {k: int(v) for k, v in zip(names, base, strict=True)}


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
