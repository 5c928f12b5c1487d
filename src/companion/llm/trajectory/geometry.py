"""Both papers' geometry on one checkpoint of a trained-here twin (:func:`measure_checkpoint`).

Part II (Shirodkar & Narayanan) on **every** normalisation of the network (the two pre-norms
of each block and the final one), each read by the dead-direction engine
(:func:`companion.llm.dead_directions.diagnosis.diagnose` with that norm as its target): |cos|
between v* = γ⁻¹/‖γ⁻¹‖ and the bottom eigenvector of the norm output's centred covariance, the
γ-invariant exactness ρ = v*ᵀCv*/Σv*ᵢ²Cᵢᵢ, the classifier's verdict, the float64 recompute's
ρ, the shuffled-γ and swapped-norm controls, min/max |γ| and their spread, and (on the final
norm's pass) σ_min of the residual stream block to block and the Schur ratio.

Part I (Dong) on every ``nn.Linear`` but the head: cos²(w, sign w) averaged over rows (2/π for
Gaussian rows: the stated N(0, 0.02²) init), α per input column (αⱼ² = E xⱼ² / E‖x‖², median
and max), and, on the whole network at a small rate p, sign flips against the equal-norm
magnitude change δ·sign W (ΔNLL on validation windows, :data:`SEEDS` seeds), and flips inside
the outlier columns (top 5 % by mean |input| on calibration windows) against flips inside as
many random columns, at the same rate (the outlier-column sensitivity with its control).

Calibration activations come from the corpus's calibration split, ΔNLL from its validation
split: both disjoint from the training bytes (:mod:`~companion.llm.train.corpus`).
"""

from __future__ import annotations

import time

import numpy as np

from companion._validate import check_instance, check_int, check_real

__all__ = [
    "SEEDS",
    "GeometrySettings",
    "norm_modules",
    "norm_reads",
    "linear_reads",
    "flip_reads",
    "measure_checkpoint",
]

#: Seeds of every perturbation experiment.
SEEDS = 5


class GeometrySettings:
    """The sizes of one geometry read (stored in every record's settings).

    ``calib_windows`` × 64 bytes of calibration text feed the norm and α reads (N > d = 128
    needs ≥ 3 windows); ``eval_windows`` of validation text the ΔNLL; ``p`` is the flip rate
    of sign-vs-magnitude, ``p_outlier`` that inside the outlier and random columns.
    """

    def __init__(
        self,
        *,
        calib_windows: int = 256,
        eval_windows: int = 64,
        p: float = 0.01,
        p_outlier: float = 0.05,
        outlier_frac: float = 0.05,
        seeds: int = SEEDS,
    ):
        self.calib_windows = check_int(calib_windows, "calib_windows", low=3)
        self.eval_windows = check_int(eval_windows, "eval_windows", low=1)
        self.p = check_real(p, "p", low=0.0, high=1.0, low_open=True)
        self.p_outlier = check_real(p_outlier, "p_outlier", low=0.0, high=1.0, low_open=True)
        self.outlier_frac = check_real(
            outlier_frac, "outlier_frac", low=0.0, high=1.0, low_open=True, high_open=True
        )
        self.seeds = check_int(seeds, "seeds", low=1)

    def as_dict(self) -> dict:
        return dict(vars(self))


def norm_modules(model) -> dict:
    """Every LayerNorm / RMSNorm of ``model`` (name → module), in module order."""
    import torch

    check_instance(model, "model", torch.nn.Module)
    kinds = (torch.nn.LayerNorm, torch.nn.RMSNorm)
    out = {n: m for n, m in model.named_modules() if isinstance(m, kinds)}
    if not out:
        raise ValueError(
            f"`model` must contain a LayerNorm or RMSNorm; got none in {type(model).__name__}"
        )
    return out


def _check_windows(model, windows, name: str = "windows", *, min_tokens: int = 1):
    """Token windows of ``model``'s vocabulary (an out-of-vocabulary id would be a raw
    IndexError inside the embedding)."""
    from companion.llm._checks import check_module, check_windows

    check_module(model)
    check_windows(windows, name, min_tokens=min_tokens)
    try:
        vocab = model.get_input_embeddings().num_embeddings
    except (AttributeError, NotImplementedError):  # not a transformers model: no vocabulary
        return windows
    if int(windows.max()) >= vocab:
        raise ValueError(
            f"`{name}` must hold token ids in [0, {vocab - 1}] (the model's vocabulary); "
            f"got ids in [{int(windows.min())}, {int(windows.max())}]"
        )
    return windows


def _as_norm(name: str, module, final: bool):
    """The engine's :class:`~companion.llm.norms.FinalNorm` of one norm module (any norm
    is a target of :func:`diagnose`; only the final one is not "post-LN")."""
    from companion.llm.norms import FinalNorm, norm_form

    kind, gamma, beta, offset = norm_form(module)
    return FinalNorm(
        name=name,
        module=module,
        kind=kind,
        gamma=gamma,
        beta=beta,
        eps=float(module.eps),
        offset=offset,
        post_ln=False,
        how="every norm of a trained-here twin" + (" (final)" if final else ""),
    )


def _norm_fields(diag) -> dict:
    rec = diag.to_record()
    g = diag.gamma_stats
    shuffled = [c.diag_rayleigh for c in diag.controls.get("shuffled_gamma", [])]
    swap = diag.controls.get("norm_swap")
    return {
        "name": diag.norm_name,
        "kind": diag.norm_kind,
        "d": diag.d,
        "n_tokens": diag.n_tokens,
        "cos": rec["cos"],
        "rho": rec["diag_rayleigh"],
        "rayleigh": rec["rayleigh"],
        "kernel_dim": rec["kernel_dim"],
        "cos_subspace": rec["cos_subspace"],
        "verdict": rec["verdict"],
        "reason": rec["classifier_reason"],
        "cos_fp64": rec.get("cos_fp64"),
        "rho_fp64": rec.get("diag_rayleigh_fp64"),
        "verdict_fp64": rec.get("verdict_fp64"),
        "gamma_abs_min": g["abs_min"],
        "gamma_abs_max": g["abs_max"],
        "gamma_spread": g["abs_max"] / g["abs_min"] if g["abs_min"] > 0 else None,
        "gamma_std": g["std"],
        "shuffled_rho": shuffled,
        "swap_rho": None if swap is None else swap.diag_rayleigh,
        "swap_verdict": None if swap is None else swap.verdict,
    }


def norm_reads(model, windows) -> tuple[list, dict]:
    """``(per-norm fields, profile)``: the engine's read of every norm (module docs) on the
    input windows ``windows`` (LongTensor (n, context)); ``profile`` holds σ_min block to
    block and the Schur ratio, from the final norm's pass."""
    from companion.llm.dead_directions.diagnosis import diagnose

    mods = norm_modules(model)
    _check_windows(model, windows)
    final = list(mods)[-1]
    d = max(int(np.prod(m.normalized_shape)) for m in mods.values())
    if windows.numel() <= d:
        raise ValueError(
            f"`windows` must hold more than d = {d} tokens for a unique bottom direction; "
            f"got {windows.numel()}"
        )
    batches = list(windows.split(32))
    rows, profile = [], {}
    for name, mod in mods.items():
        fn = _as_norm(name, mod, name == final)
        diag = diagnose(model, batches, final_norm=fn, profile=name == final)
        rows.append(_norm_fields(diag))
        if name == final:
            p = diag.profile
            profile = {
                "sigma_min": p.sigma_min_no_pos0.tolist(),
                "sigma_step": p.steps.tolist(),
                "sigma_step_se": p.step_se.tolist(),
                "schur_ratio": diag.schur.ratio,
                "schur_mp_baseline": diag.schur.mp_baseline,
                "schur_random": diag.schur.random.tolist(),
            }
    return rows, profile


def linear_reads(model, windows, layers: dict | None = None) -> list:
    """Per Linear layer (the head excluded): cos²(w, sign w) over rows (mean, min) and α per
    input column (median, max) on ``windows``."""
    from companion.llm.sign_flips.activations import input_moments
    from companion.llm.sign_flips.layers import linear_layers
    from companion.theory.bussgang import row_cos2

    layers = linear_layers(model) if layers is None else layers  # checks `model`
    _check_windows(model, windows)
    mom = input_moments(model, windows, layers, min_tokens=1)
    rows = []
    for name, mod in layers.items():
        W = mod.weight.detach().double().cpu().numpy()  # (m, n)
        rc = row_cos2(W)
        m = mom[name]
        alpha = np.sqrt(m["ex2"] / m["enorm2"])  # (n,), Σ α² = 1
        rows.append(
            {
                "name": name,
                "shape": list(W.shape),
                "row_cos2": float(rc.mean()),
                "row_cos2_min": float(rc.min()),
                "alpha_median": float(np.median(alpha)),
                "alpha_max": float(alpha.max()),
                "alpha_uniform": float(1 / np.sqrt(alpha.size)),
            }
        )
    return rows


def _random_columns(layers: dict, frac: float, seed: int) -> dict:
    from companion.llm.sign_flips.masks import matrix_rng

    out = {}
    for i, (name, mod) in enumerate(layers.items()):
        n = mod.weight.shape[1]
        g = matrix_rng(seed, i, "columns")
        out[name] = np.sort(g.choice(n, size=max(1, int(frac * n)), replace=False))
    return out


def flip_reads(model, calib, windows, cfg: GeometrySettings, layers: dict | None = None) -> dict:
    """ΔNLL on ``windows`` per seed: sign flips and the equal-norm magnitude change at rate
    ``cfg.p`` on every Linear layer; flips at ``cfg.p_outlier`` inside the outlier columns
    (calibrated on ``calib``) and inside as many random columns (module docs)."""
    from companion.llm.evaluate import evaluate_nll
    from companion.llm.sign_flips.activations import input_moments, outlier_columns
    from companion.llm.sign_flips.layers import linear_layers
    from companion.llm.sign_flips.masks import bernoulli_flips
    from companion.llm.sign_flips.perturbations import perturbed

    cfg = check_instance(cfg, "cfg", GeometrySettings)
    layers = linear_layers(model) if layers is None else layers  # checks `model`
    _check_windows(model, calib, "calib")
    _check_windows(model, windows, min_tokens=2)  # a next-token NLL needs two tokens a window
    base = evaluate_nll(model, windows, batch_size=16).nll

    def dnll(fs, kind):
        with perturbed(layers, fs, kind=kind):
            return evaluate_nll(model, windows, batch_size=16).nll - base

    mom = input_moments(model, calib, layers, min_tokens=1)
    cols = outlier_columns({n: v["abs_mean"] for n, v in mom.items()}, cfg.outlier_frac)
    out = {"nll": base, "flip": [], "magnitude": [], "outlier": [], "random_columns": []}
    for s in range(cfg.seeds):
        fs = bernoulli_flips(layers, cfg.p, seed=s, pool="all")
        out["flip"].append(dnll(fs, "flip"))
        out["magnitude"].append(dnll(fs, "magnitude"))
        fo = bernoulli_flips(layers, cfg.p_outlier, seed=s, columns=cols, pool="outlier")
        rand = _random_columns(layers, cfg.outlier_frac, seed=1000 + s)
        fr = bernoulli_flips(layers, cfg.p_outlier, seed=s, columns=rand, pool="outlier")
        out["outlier"].append(dnll(fo, "flip"))
        out["random_columns"].append(dnll(fr, "flip"))
    return out


def _check_twin(model) -> None:
    """A transformers causal LM with a context length and a width (a trained-here twin)."""
    from companion.llm._checks import check_module

    check_module(model)
    config = getattr(model, "config", None)
    if not all(hasattr(config, k) for k in ("max_position_embeddings", "hidden_size")):
        raise TypeError(
            f"`model` must be a trained-here twin (a transformers model whose config has "
            f"max_position_embeddings and hidden_size); got a {type(model).__name__}"
        )


def measure_checkpoint(model, data, cfg: GeometrySettings | None = None) -> dict:
    """Everything the trajectory records of one checkpoint (module docs): ``norms``,
    ``profile``, ``linears``, ``flips``, each timed. ``data``: the corpus bytes."""
    import torch

    from companion.llm.train.corpus import SPLITS, check_data, split_ranges, split_windows

    _check_twin(model)
    cfg = GeometrySettings() if cfg is None else check_instance(cfg, "cfg", GeometrySettings)
    check_data(data)
    context = model.config.max_position_embeddings
    sizes = {k: hi - lo for k, (lo, hi) in split_ranges(max(len(data), len(SPLITS))).items()}
    if min(sizes["calibration"], sizes["validation"]) < context + 1:
        raise ValueError(
            f"`data` must give each of the calibration and validation splits more than the "
            f"model's context of {context} bytes; got {sizes['calibration']} and "
            f"{sizes['validation']} of {len(data)} bytes"
        )
    calib, _ = split_windows(data, "calibration", n_windows=cfg.calib_windows, context=context)
    val, _ = split_windows(data, "validation", n_windows=cfg.eval_windows, context=context)
    if calib.numel() <= model.config.hidden_size:
        raise ValueError(
            f"`data` must give more than d = {model.config.hidden_size} calibration tokens; "
            f"got {calib.numel()}"
        )
    timings = {}
    with torch.no_grad():
        t0 = time.perf_counter()
        norms, profile = norm_reads(model, calib)
        timings["norms_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        linears = linear_reads(model, calib)
        timings["linears_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        flips = flip_reads(model, calib, val, cfg)
        timings["flips_s"] = time.perf_counter() - t0
    return {"norms": norms, "profile": profile, "linears": linears, "flips": flips,
            "timings": timings}  # fmt: skip
