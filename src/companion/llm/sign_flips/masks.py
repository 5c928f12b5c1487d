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

from companion._validate import check_choice, check_int, check_real, check_shape
from companion.llm._checks import check_layers

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
    layer_index = check_int(layer_index, "layer_index", low=0)
    tag = check_choice(tag, "tag", tuple(_TAGS))
    return np.random.default_rng(np.random.SeedSequence([seed, _TAGS[tag], layer_index]))


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
        check_flips(layers, self)
        tot = 0.0
        for name, idx in self.indices.items():
            w = layers[name].weight.detach().reshape(-1)[as_index(idx, layers[name].weight)]
            tot += 4.0 * float((w.double() ** 2).sum())
        return tot


def check_flips(layers: dict, flips) -> None:
    """``flips`` is a :class:`FlipSet` of ``layers``: known names, indices inside each weight."""
    check_layers(layers)
    if not isinstance(flips, FlipSet):
        raise TypeError(f"`flips` must be a FlipSet; got {type(flips).__name__}")
    for name, idx in flips.indices.items():
        if name not in layers:
            raise ValueError(
                f"`flips` must name layers of `layers`; got {name!r}, which is not one of its "
                f"{len(layers)} layers"
            )
        idx = np.asarray(idx)
        numel = layers[name].weight.numel()
        if idx.size and (idx.dtype.kind not in "iu" or idx.ndim != 1):
            raise TypeError(f"`flips` must hold 1-D integer indices; got {idx.dtype} at {name!r}")
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= numel):
            raise ValueError(
                f"`flips` must hold flat indices in [0, {numel - 1}] for {name!r}; got "
                f"[{int(idx.min())}, {int(idx.max())}]"
            )


def check_columns(layers: dict, columns, pool: str) -> dict | None:
    """The pool's columns per layer: distinct input indices in [0, n_in) (None for "all")."""
    if pool == "all" and columns is None:
        return None
    if not isinstance(columns, dict):
        raise TypeError(
            f"`columns` must be a dict of column indices per layer (outlier_columns) for pool "
            f"{pool!r}; got {type(columns).__name__}"
        )
    out = {}
    for name, mod in layers.items():
        if name not in columns:
            raise ValueError(f"`columns` must have an entry for every layer; got none for {name!r}")
        cols = np.asarray(columns[name])
        n_in = mod.weight.shape[1]
        if cols.ndim != 1 or (cols.size and cols.dtype.kind not in "iu"):
            raise TypeError(
                f"`columns[{name!r}]` must be a 1-D array of integer column indices; "
                f"got {cols.dtype} of shape {cols.shape}"
            )
        cols = cols.astype(np.int64)
        if cols.size and (cols.min() < 0 or cols.max() >= n_in):
            raise ValueError(
                f"`columns[{name!r}]` must hold column indices in [0, {n_in - 1}]; got "
                f"[{cols.min()}, {cols.max()}]"
            )
        if len(np.unique(cols)) != cols.size:
            raise ValueError(f"`columns[{name!r}]` must hold distinct column indices")
        out[name] = cols
    return out


def as_index(idx, weight):
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
    check_layers(layers)
    check_choice(pool, "pool", POOLS)
    columns = check_columns(layers, columns, pool)
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
    check_layers(layers)
    check_choice(pool, "pool", POOLS)
    check_int(seed, "seed", low=0)
    if pool != "all" and columns is None:
        raise ValueError(f"`columns` must be given for pool {pool!r}; got None")
    columns = check_columns(layers, columns, pool)
    out = FlipSet(pool=pool)
    sizes = pool_sizes(layers, columns, pool)
    for i, (name, mod) in enumerate(layers.items()):
        g = matrix_rng(seed, i, pool)
        k = int(g.binomial(sizes[name], p))
        pos = g.choice(sizes[name], size=k, replace=False)
        cols = _pool_columns(mod.weight.shape[1], columns[name] if columns else None, pool)
        out.indices[name] = _positions_to_flat(pos, mod.weight.shape[1], cols)
    return out


def allocate(sizes: dict, n_flips: int) -> dict:
    """Split ``n_flips`` over matrices in proportion to their pool sizes (largest remainder).

    Examples
    --------
    >>> allocate({"a": 300, "b": 100}, 10)
    {'a': 8, 'b': 2}
    >>> allocate({"a": 1, "b": 1, "c": 1}, 2)
    {'a': 1, 'b': 1, 'c': 0}
    """
    if not isinstance(sizes, dict) or not sizes:
        raise TypeError(
            f"`sizes` must be a non-empty dict of pool sizes (pool_sizes); got "
            f"{'an empty dict' if isinstance(sizes, dict) else type(sizes).__name__}"
        )
    for name, size in sizes.items():
        check_int(size, f"sizes[{name!r}]", low=0)
    total = sum(sizes.values())
    n = check_int(n_flips, "n_flips", low=0, high=total)
    if total == 0:
        return dict.fromkeys(sizes, 0)
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
    check_int(seed, "seed", low=0)
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
    if not isinstance(layer_name, str):
        raise TypeError(f"`layer_name` must be a str; got {type(layer_name).__name__}")
    shape = check_shape(weight_shape, "weight_shape")
    if len(shape) != 2 or min(shape) < 1:
        raise ValueError(f"`weight_shape` must be (m, n) with m, n >= 1; got {shape}")
    m, n = shape
    column = check_int(column, "column", low=0, high=n - 1)
    return FlipSet({layer_name: np.arange(m, dtype=np.int64) * n + column}, pool="column")
