"""The dead-direction diagnostic on real transformers (Shirodkar & Narayanan 2026, at scale).

:func:`diagnose` runs the model over calibration batches once and reports, from the final
norm's parameters plus that one forward pass:

* the **γ-read** v* = γ⁻¹/‖γ⁻¹‖ (parameters only; its cost is timed);
* the final-norm output's centred covariance C (streamed in float64) and its bottom
  eigenvector u; |cos(u, v*)|; the Rayleigh quotient v*ᵀCv*/λ_max; the spectrum; the null
  99.9 % quantile of |cos| for that d; the classifier's verdict
  (:func:`companion.theory.null_classifier.classify_norm`, forward dtype as the precision);
* the same on the norm **recomputed in float64** from its captured input (removes the
  forward dtype's rounding floor);
* the Schur ratio R(v*) of the **pre-norm** final state
  (:func:`companion.theory.schur_ratio.schur_ratio`, our reconstruction) and its
  Marchenko–Pastur baseline;
* the σ_min profile of the **pre-norm** residual stream block by block (uncentred XᵀX,
  float64), with and without position 0 (attention-sink tokens dominate).

The forward dtype is reported with every number. :func:`run_dead_directions` is the
resumable experiment driver behind ``companion run dead-directions``.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import numpy as np

__all__ = [
    "Diagnosis",
    "diagnose",
    "near_null_alignment",
    "run_dead_directions",
    "run_cli",
    "results_dir",
    "results_path",
    "load_results",
]


@dataclass
class Diagnosis:
    """What :func:`diagnose` measures (see the module docs). Arrays are float64."""

    verdict: str
    classifier_reason: str
    norm_name: str
    norm_kind: str
    post_ln: bool
    d: int
    n_tokens: int
    dtype: str
    device: str
    vstar: np.ndarray = field(repr=False)
    bottom: np.ndarray = field(repr=False)
    cos: float
    rayleigh: float
    vstar_eigenvalue: float
    diag_rayleigh: float
    gap_ratio: float
    null_q999: float
    null_mean: float
    spectrum: np.ndarray = field(repr=False)
    cos_fp64: float
    rayleigh_fp64: float
    vstar_eigenvalue_fp64: float
    verdict_fp64: str
    schur_ratio: float
    schur_mp_baseline: float
    kernel_dim: int
    cos_subspace: float
    kernel_dim_fp64: int
    cos_subspace_fp64: float
    sigma_min: np.ndarray = field(repr=False)
    sigma_min_no_pos0: np.ndarray = field(repr=False)
    profile_tokens: int
    profile_degenerate: bool
    gamma_stats: dict
    timings: dict

    @property
    def sigma_ratio(self) -> np.ndarray:
        """σ_min(X_ℓ)/σ_min(X_0) with position 0."""
        return self.sigma_min / self.sigma_min[0] if self.sigma_min.size else self.sigma_min

    @property
    def sigma_ratio_no_pos0(self) -> np.ndarray:
        """σ_min(X_ℓ)/σ_min(X_0) without position 0."""
        s = self.sigma_min_no_pos0
        return s / s[0] if s.size else s

    def to_record(self) -> dict:
        """JSON-able dict (arrays as lists)."""
        out = {}
        for k, v in self.__dict__.items():
            out[k] = v.tolist() if isinstance(v, np.ndarray) else v
        out["sigma_ratio"] = self.sigma_ratio.tolist()
        out["sigma_ratio_no_pos0"] = self.sigma_ratio_no_pos0.tolist()
        return out


_UNIT = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}


def near_null_alignment(C, vstar, *, dtype: str = "float32", factor: float = 1e3):
    """``(k, ‖P_k v*‖)``: the number k of eigenvalues of C that are numerically zero, and
    the norm of v*'s projection on the span of their eigenvectors (k = 1 when none is).

    "Numerically zero" means λ_i ≤ factor · (u² + d·u₆₄) · λ_max, with u the unit roundoff
    of the precision the activations were produced in (their rounding floor) and d·u₆₄
    the float64 eigensolver's absolute accuracy: below that level eigenvectors are
    arbitrary mixtures, so the only meaningful question is whether v* lies in their span.
    When γ has (near-)zero entries every such coordinate is a kernel direction of its own
    (clause (a)(ii) of T1), the null space is several-dimensional and |cos| with the
    single bottom eigenvector is not the right read; this is.

    Examples
    --------
    >>> k, a = near_null_alignment(np.diag([0.0, 1e-20, 1.0, 2.0]), np.array([0.6, 0.8, 0, 0]))
    >>> k, round(a, 12)
    (2, 1.0)
    """
    C = np.asarray(C, dtype=np.float64)
    v = np.asarray(vstar, dtype=np.float64)
    d = C.shape[0]
    w, V = np.linalg.eigh(0.5 * (C + C.T))
    lam_max = float(w[-1])
    tau = factor * (_UNIT.get(dtype, 2.0**-24) ** 2 + d * _UNIT["float64"]) * lam_max
    k = max(1, int(np.sum(w <= tau)))
    proj = V[:, :k].T @ v  # (k,)
    return k, float(np.linalg.norm(proj) / np.linalg.norm(v))


def _as_inputs(batch):
    import torch

    if isinstance(batch, dict):
        return batch
    if torch.is_tensor(batch):
        return {"input_ids": batch if batch.ndim == 2 else batch.view(1, -1)}
    raise TypeError(
        f"`batches` must yield LongTensors of input ids or dicts of model inputs; "
        f"got {type(batch).__name__}"
    )


def _dtype_name(dt) -> str:
    return str(dt).removeprefix("torch.")


def diagnose(
    model,
    batches,
    *,
    final_norm=None,
    profile: bool = True,
    profile_tokens: int | None = None,
    recompute_fp64: bool = True,
    show_progress: bool = False,
    total: int | None = None,
) -> Diagnosis:
    """The dead-direction diagnostic of ``model`` over ``batches`` (see the module docs).

    Parameters
    ----------
    model : transformers model (or any torch module with a recognisable final norm)
        Run through its ``base_model`` (heads are not needed).
    batches : iterable
        LongTensors of input ids ``(batch, seq)`` or dicts of model inputs (e.g.
        ``{"pixel_values": ...}``). Every token position is one sample.
    final_norm : FinalNorm, optional
        From :func:`companion.llm.norms.find_final_norm` (found here if omitted).
    profile : bool
        Also accumulate the pre-norm σ_min profile (``output_hidden_states``).
    profile_tokens : int, optional
        Stop adding rows to the profile after this many tokens (the profile costs one
        d×d Gram update per block; the final-norm statistics always use every token).
    recompute_fp64 : bool
        Also accumulate the norm recomputed in float64 from its captured input.

    Raises
    ------
    ValueError
        When the batches provide N ≤ d tokens (the bottom direction is not unique).
    """
    import torch

    from companion.llm.capture import StreamingGram, hooks
    from companion.llm.norms import find_final_norm, recompute_norm
    from companion.llm.runs import progress
    from companion.theory.null_classifier import classify_norm, random_direction_null
    from companion.theory.schur_ratio import mp_baseline, schur_ratio

    t0 = time.perf_counter()
    fn = final_norm if final_norm is not None else find_final_norm(model)
    t_find = time.perf_counter() - t0
    t0 = time.perf_counter()
    vstar = fn.vstar  # the γ-read: parameters only
    t_gamma = time.perf_counter() - t0
    base = getattr(model, "base_model", model)
    p = next(model.parameters())
    dtype, device = _dtype_name(p.dtype), str(p.device)
    g_out, g_rec, g_in = StreamingGram(), StreamingGram(), StreamingGram()
    prof_wo: list = []
    prof_p0: list = []
    t_acc = [0.0]
    seen = {"y": None, "x": None}

    def on_norm(name, m, inputs, output):
        t = time.perf_counter()
        x = inputs[0]
        y = output[0] if isinstance(output, tuple) else output
        seen["x"], seen["y"] = x, y
        g_out.update(y)
        g_in.update(x)
        if recompute_fp64:
            g_rec.update(recompute_norm(x, fn))
        t_acc[0] += time.perf_counter() - t

    n_prof = 0
    t_fwd = time.perf_counter()
    with torch.no_grad(), hooks({fn.name: fn.module}, on_norm):
        for batch in progress(batches, disable=not show_progress, total=total, desc="forward"):
            inputs = {
                k: (v.to(p.device) if torch.is_tensor(v) else v)
                for k, v in _as_inputs(batch).items()
            }
            want = profile and (profile_tokens is None or n_prof < profile_tokens)
            out = base(**inputs, output_hidden_states=want) if want else base(**inputs)
            if want:
                t = time.perf_counter()
                states = list(out.hidden_states)
                if (
                    seen["y"] is not None
                    and states[-1].shape == seen["y"].shape
                    and torch.equal(states[-1], seen["y"])
                ):
                    states[-1] = seen["x"]  # HF's last hidden state is post-norm: use pre-norm
                if not prof_wo:
                    prof_wo.extend(StreamingGram() for _ in states)
                    prof_p0.extend(StreamingGram() for _ in states)
                for gw, g0, h in zip(prof_wo, prof_p0, states):
                    h = h.reshape(h.shape[0], -1, h.shape[-1])  # (batch, seq, d)
                    gw.update(h[:, 1:])
                    g0.update(h[:, :1])
                n_prof += states[0].shape[0] * states[0].shape[1]
                t_acc[0] += time.perf_counter() - t
            seen["x"] = seen["y"] = None
    t_fwd = time.perf_counter() - t_fwd
    n, d = g_out.n, fn.d
    if n <= d:
        raise ValueError(
            f"`batches` must provide more than d = {d} tokens for a unique bottom "
            f"direction (the centred rank is at most N - 1); got {n}"
        )
    t0 = time.perf_counter()
    C = g_out.acc.covariance()
    cls = classify_norm(
        fn.gamma,
        cov=C,
        n_samples=n,
        mean=g_out.acc.mean,
        dtype=dtype if dtype in ("float32", "float16", "bfloat16") else "float64",
    )
    rep = cls.report  # kernel_report of C
    t_eig = time.perf_counter() - t0
    if recompute_fp64:
        C64 = g_rec.acc.covariance()
        cls64 = classify_norm(fn.gamma, cov=C64, n_samples=n, mean=g_rec.acc.mean, dtype="float64")
        rep64 = cls64.report
        cos64, ray64, ev64, v64 = rep64.cos, rep64.rayleigh, rep64.vstar_eigenvalue, cls64.verdict
    else:
        cos64 = ray64 = ev64 = float("nan")
        v64 = ""
    try:  # our reconstruction of the Schur ratio, on the pre-norm state
        schur = schur_ratio(g_in.acc.covariance(), vstar)
    except ValueError:  # singular pre-norm covariance (e.g. post-LN input): R is 0/0
        schur = float("nan")
    kdim, csub = near_null_alignment(C, vstar, dtype=dtype)
    if recompute_fp64:
        kdim64, csub64 = near_null_alignment(C64, vstar, dtype="float64")
    else:
        kdim64, csub64 = 0, float("nan")
    sig, sig_wo = [], []
    for gw, g0 in zip(prof_wo, prof_p0):
        sig_wo.append(gw.acc.sigma_min(centred=False))
        both = StreamingGram()
        both.acc.merge(gw.acc).merge(g0.acc)
        sig.append(both.acc.sigma_min(centred=False))
    null = random_direction_null(d)
    g = fn.gamma
    return Diagnosis(
        verdict=cls.verdict,
        classifier_reason=cls.reason,
        norm_name=fn.name,
        norm_kind=fn.kind,
        post_ln=fn.post_ln,
        d=d,
        n_tokens=n,
        dtype=dtype,
        device=device,
        vstar=vstar,
        bottom=rep.bottom,
        cos=rep.cos,
        rayleigh=rep.rayleigh,
        vstar_eigenvalue=rep.vstar_eigenvalue,
        diag_rayleigh=rep.diag_rayleigh,
        gap_ratio=rep.gap_ratio,
        null_q999=null.q999,
        null_mean=null.mean,
        spectrum=rep.spectrum,
        cos_fp64=cos64,
        rayleigh_fp64=ray64,
        vstar_eigenvalue_fp64=ev64,
        verdict_fp64=v64,
        schur_ratio=schur,
        schur_mp_baseline=mp_baseline(d, n),
        kernel_dim=kdim,
        cos_subspace=csub,
        kernel_dim_fp64=kdim64,
        cos_subspace_fp64=csub64,
        sigma_min=np.asarray(sig),
        sigma_min_no_pos0=np.asarray(sig_wo),
        profile_tokens=n_prof,
        profile_degenerate=bool(fn.post_ln),
        gamma_stats={
            "mean": float(g.mean()),
            "std": float(g.std()),
            "min": float(g.min()),
            "max": float(g.max()),
            "offset": fn.offset,
        },
        timings={
            "find_norm_s": t_find,
            "gamma_read_s": t_gamma,
            "forward_s": t_fwd,
            "accumulate_s": t_acc[0],
            "eigensolve_s": t_eig,
        },
    )


# ----------------------------------------------------------------------------- the driver


def _folder(scale: str) -> str:
    return "dead_directions" if scale == "cpu" else f"dead_directions_{scale}"


def results_dir(scale: str = "cpu", *, write: bool = False) -> str:
    """The results root's folder for ``scale``: ``dead_directions`` (CPU scale, committed),
    else ``dead_directions_<scale>`` (:mod:`companion.results`)."""
    from companion.results import experiment_dir

    return str(experiment_dir(_folder(scale), write=write))


def results_path(out: str | None = None, *, scale: str = "cpu") -> str:
    """The JSONL file the CLI writes under ``out`` (default: that of ``scale`` in the results
    root, the copy written here if there is one)."""
    import os

    if out is None:
        from companion.results import locate

        return str(locate(_folder(scale), "dead_directions.jsonl"))
    return os.path.join(out, "dead_directions.jsonl")


def load_results(out: str | None = None, *, scale: str = "cpu") -> list[dict]:
    """Every record the CLI wrote under ``out`` (default: the results root's folder for
    ``scale``); empty when absent."""
    from companion.results import ResultStore

    return ResultStore(results_path(out, scale=scale)).records()


def _batches(spec, tok, tokens: int, window: int, *, scale, batch_windows: int = 8):
    from companion.llm.data import image_batches, token_windows
    from companion.llm.registry import preset

    if spec.modality == "image":
        size = preset(scale).image_size
        patch = spec.config.get("patch_size", 16)
        per_image = (size // patch) ** 2 + 1
        n_images = math.ceil(tokens / per_image)
        return image_batches(n_images, size=size, batch_size=4), math.ceil(n_images / 4)
    n_win = math.ceil(tokens / window)
    ids = token_windows(tok, n_windows=n_win, window=window, source="wiki")  # (n_win, window)
    return list(ids.split(batch_windows)), math.ceil(n_win / batch_windows)


def run_dead_directions(
    name: str,
    *,
    init: str = "trained",
    scale: str = "cpu",
    tokens: int | None = None,
    layers: int | None = None,
    out: str | None = None,
    resume: bool = False,
    device=None,
    dtype=None,
    command: str | None = None,
    show_progress: bool = True,
    profile_tokens: int | None = None,
    revision: str | None = None,
) -> dict:
    """Diagnose one registered model and append one record to ``results_path(out)``.

    ``revision`` selects a hub checkpoint (e.g. ``"step1000"``: the Pythia training
    trajectory, one record per step); it is part of the record's settings.

    Checks the settings before loading anything (unknown name, N ≤ d, hub without network);
    a failing run writes nothing. With ``resume`` a stored record of the same settings is
    returned without recomputing.
    """
    from companion._validate import check_choice, check_int
    from companion.llm.loading import load_model, model_info
    from companion.llm.registry import get_spec, preset
    from companion.results import ResultStore, settings_key

    spec = get_spec(name)
    check_choice(init, "init", ("random", "trained"))
    pre = preset(scale)
    if tokens is None:
        tokens = (
            pre.n_tokens(spec.width)
            if init == "random"
            else max(pre.trained_tokens, pre.n_tokens(spec.width))
        )
    tokens = check_int(tokens, "tokens", low=1)
    if tokens <= spec.width:
        raise ValueError(
            f"`tokens` must be > d = {spec.width} for model {name!r} (a unique bottom "
            f"direction needs N > d); got {tokens}"
        )
    if init == "random" and layers is None:
        layers = pre.random_layers
    if layers == "full":
        layers = spec.n_layers
    if init == "trained" and layers is not None:
        raise ValueError(f"`layers` must be None for init='trained'; got {layers}")
    if revision is not None and (init != "trained" or spec.source != "hub"):
        raise ValueError(
            f"`revision` must be None unless init='trained' on a hub model; "
            f"got {revision!r} for {name!r} ({spec.source}, init={init!r})"
        )
    window = pre.window
    settings = {
        "experiment": "dead-directions",
        "model": name,
        "init": init,
        "scale": scale,
        "tokens": tokens,
        "layers": layers or spec.n_layers,
        "window": window,
        "source": "images" if spec.modality == "image" else "wiki",
        "dtype": str(dtype or "float32"),
        "seed": 0,
    }
    if revision is not None:  # only then: keeps the keys of earlier records
        settings["revision"] = revision
    store = ResultStore(results_path(out or results_dir(scale, write=True)))
    key = settings_key(settings)
    if resume:
        for r in store.records():
            if r.get("key") == key:
                if show_progress:
                    print(f"{name} ({init}): done, skipped (--resume)", file=sys.stderr)
                return r
    if spec.modality == "text" and init == "trained" and spec.source != "offline":
        pass  # load_model raises HubUnavailable at once when the hub is disabled
    t0 = time.perf_counter()
    model, tok = load_model(
        name,
        init=init,
        scale=scale,
        device=device,
        dtype=dtype,
        num_layers=layers if init == "random" else None,
        revision=revision,
    )
    t_load = time.perf_counter() - t0
    batches, total = _batches(spec, tok, tokens, window, scale=scale)
    if profile_tokens is None:
        profile_tokens = max(4 * spec.width, 8192) if scale == "cpu" else None
    diag = diagnose(
        model, batches, profile_tokens=profile_tokens, show_progress=show_progress, total=total
    )
    info = model_info(model)
    rec = {
        "key": key,
        "settings": settings,
        "model": name,
        "init": init,
        "scale": scale,
        "architecture": spec.architecture,
        "norm_registry": spec.norm,
        "width": spec.width,
        "layers": settings["layers"],
        "n_params_loaded": info["n_params"],
        "dtype": info["dtype"],
        "device": info["device"],
        "seed": 0,
        "load_s": t_load,
        **diag.to_record(),
    }
    return store.append(rec, command=command)


def run_cli(args) -> int:
    """``companion run dead-directions``: one record per model (``--model all``: every model)."""
    from companion.llm.loading import HubUnavailable
    from companion.llm.norms import NormNotFound
    from companion.llm.registry import list_models

    names = []
    for m in args.model:
        names.extend(s.name for s in list_models()) if m == "all" else names.append(m)
    cmd = getattr(args, "command_line", None)
    status = 0
    runs = [(n, r) for n in names for r in (getattr(args, "revision", None) or [None])]
    for name, revision in runs:
        try:
            rec = run_dead_directions(
                name,
                init=args.init,
                scale=args.scale,
                tokens=args.tokens,
                layers=getattr(args, "layers", None),
                out=args.out,
                resume=args.resume,
                device=getattr(args, "device", None),
                dtype=getattr(args, "dtype", None),
                command=cmd,
                revision=revision,
            )
        except (ValueError, HubUnavailable, NormNotFound, ModuleNotFoundError) as err:
            print(f"error: {name}{'@' + revision if revision else ''}: {err}", file=sys.stderr)
            status = 2
            continue
        print(
            f"{name:<15} {rec['init']:<7} d={rec['d']:<5} N={rec['n_tokens']:<6} "
            f"|cos|={rec['cos']:.6f} null-space={rec['cos_subspace_fp64']:.6f} "
            f"rayleigh={rec['rayleigh']:.2e} verdict={rec['verdict']} "
            f"({rec['dtype']}) min σ-ratio={min(rec['sigma_ratio_no_pos0'] or [float('nan')]):.3f}"
        )
    return status
