"""Table 1 (Dong 2026, §4.2): sign quantisation of real weights, row- and vector-level cos².

For 20 Linear layers evenly spaced in depth: the row-level cos²(w, sign w) of each weight
row and the vector-level cos²(W x̂, W_T x̂) over inputs uniform on the sphere, with
``W_T = s ⊙ sign(W)`` (per-row absmean scale); Theorem 4 predicts both near 2/π. Reads
weights only (no text).
"""

from __future__ import annotations

import math

import numpy as np

from companion._validate import check_int
from companion.llm.sign_flips.context import Context, Experiment
from companion.llm.sign_flips.layers import evenly_spaced
from companion.llm.sign_flips.setups import PAPER

__all__ = ["table1_layer", "vector_cos2"]


def _weight(weight):
    """``weight`` as a float32 torch matrix (a Linear's weight, or any real 2-D array)."""
    import torch

    from companion._validate import check_matrix

    if isinstance(weight, torch.Tensor):
        W = weight.detach()
        if W.ndim != 2 or not W.is_floating_point() or not bool(torch.isfinite(W).all()):
            raise ValueError(
                f"`weight` must be a finite 2-D float matrix; got a {W.dtype} tensor of shape "
                f"{tuple(W.shape)}"
            )
        W = W.float()
    else:
        W = torch.as_tensor(check_matrix(weight, "weight"), dtype=torch.float32)
    if min(W.shape) < 1 or not bool((W != 0).any(dim=1).all()):
        raise ValueError(
            f"`weight` must be non-empty with no all-zero rows (cos² is 0/0 there); got shape "
            f"{tuple(W.shape)}"
        )
    return W  # (m, n)


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
    batch = check_int(batch, "batch", low=1)
    from companion._validate import check_memory  # the float64 values and their concatenation

    check_memory(16.0 * samples, "samples", samples, what=f"2 x {samples} float64 values")
    g = as_generator(rng)
    W = _weight(weight)  # (m, n)
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

    if not isinstance(name, str):
        raise TypeError(f"`name` must be a str; got {type(name).__name__}")
    W = _weight(weight).cpu().numpy().astype(np.float64)  # (m, n)
    if W.std() == 0:
        raise ValueError("`weight` must not be constant (its kurtosis is 0/0); got one value")
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


def run(ctx: Context) -> None:
    names = evenly_spaced(list(ctx.layers), ctx.cfg.table1_layers)
    for i, name in enumerate(ctx.bar(names, desc="table1")):

        def measure(i=i, name=name) -> dict:
            rec = table1_layer(
                name,
                ctx.layers[name].weight,
                samples=ctx.cfg.sphere_samples,
                rng=np.random.default_rng([42, i]),
            )
            return {**rec, "index": list(ctx.layers).index(name)}

        ctx.measure(f"table1|{name}", measure)


def summary(records: list, by_key: dict) -> dict:
    rows = sorted((r for r in records if r["key"].startswith("table1|")), key=lambda r: r["index"])
    rc = np.array([r["row_cos2"] for r in rows])
    vc = np.array([r["vector_cos2"] for r in rows])
    two_pi = 2 / math.pi
    worst = sorted(rows, key=lambda r: r["row_cos2"])[:3]
    return dict(
        layers=len(rows),
        row_cos2=float(rc.mean()),
        vector_cos2=float(vc.mean()),
        row_cos2_range=(float(rc.min()), float(rc.max())),
        rel_dev_row=float((two_pi - rc.mean()) / two_pi),
        rel_dev_vec=float((two_pi - vc.mean()) / two_pi),
        worst=[(r["layer"], r["row_cos2"], r["vector_cos2"], r["kurtosis"]) for r in worst],
        rows=rows,
    )


def describe(s: dict) -> list[str]:
    return [
        f"row cos² {s['row_cos2']:.4f}, vector cos² {s['vector_cos2']:.4f} "
        f"over {s['layers']} layers (2/π = {2 / math.pi:.4f}; paper TinyLlama "
        f"{PAPER['table1_row_cos2']} / {PAPER['table1_vec_cos2']})"
    ]


EXPERIMENT = Experiment("table1", run, summary, describe, prefix="table1|")
