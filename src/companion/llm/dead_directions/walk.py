"""Walk the dead direction of a real model's final LayerNorm: ``companion run walk``.

One forward pass of the trained model over held-out input captures the final norm's input
``h`` (float64) and the next tokens; everything after it is a float64 copy of the output
head (:class:`companion.theory.head_walk.HeadWalk`), so walking the head never touches the
model. Where the model ties its head to the input embedding (Whisper-base, SmolLM2) the
copy is **untied**: the walk moves the output head only (the embedding that built ``h``
stays), which is the only setting in which ``u v*^T`` can be dead (spec §6, hazard 8).

Per model, along ``ts`` (several orders of magnitude):

* LayerNorm: the exact flat curve, the same curve without the ``beta`` compensation
  (``c = <gamma^-1, beta>/||gamma^-1||`` measured), ``n_random`` random straight lines of
  the same Frobenius length as the flat curve's ``Delta W`` and one random curve
  ``W + t^2 R`` (KL order 2, the control of the slope read-out);
* RMSNorm (the negative control): the gamma^-1 direction ``W + t (W w) v*^T`` (no beta to
  compensate with: its "flat curve" is refused) and the same random lines.

Each curve records the mean NLL, the directional Fisher from the model's own predictive
distribution and the mean KL from the start; plus K-FAC (centred and uncentred ``A``)
against the true Fisher along ``u v*^T`` (``u = W w``) and along random rank-one
directions. Records go to ``walk/walk.jsonl`` in the results root (``walk_<scale>/`` off
the CPU scale; :mod:`companion.results`), one per model and settings, resumable.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

__all__ = [
    "WALK_MODELS",
    "DEFAULT_TS",
    "capture_head",
    "walk_head",
    "run_walk",
    "load_walk",
    "results_path",
    "summary",
    "run_cli",
]

#: The offline trained models the walk applies to (LayerNorm first; RMSNorm = control).
WALK_MODELS = ("whisper-base-decoder", "smollm2-135m")
#: The walk's t grid: half-decades from 1e-4 to 1e2.
DEFAULT_TS = tuple(float(t) for t in np.logspace(-4, 2, 13))
#: Held-out input: clips / windows after the dead-direction calibration's (which start at 0).
HELD_OUT_OFFSET = 64
_WINDOW = {"speech": 96, "text": 128}
_SLOPE_T_MAX = 1e-2  # the k-hat fit reads F(t) on t <= this (the small-t end)


def _check_ts(ts) -> np.ndarray:
    from companion._validate import check_finite_array

    ts = np.atleast_1d(check_finite_array(ts, "ts"))
    if ts.ndim != 1 or ts.size == 0 or np.any(ts <= 0):
        raise ValueError("`ts` must be a non-empty 1-D array of finite values > 0")
    return ts


def _settings(name: str, *, scale: str, tokens, n_random: int, seed: int, ts) -> dict:
    from companion._validate import check_int
    from companion.llm.dead_directions.presets import preset
    from companion.llm.registry import get_spec

    spec = get_spec(name)
    preset(scale)
    if spec.modality not in _WINDOW:
        raise ValueError(
            f"`model` must be a text or speech decoder with an output head; got {name!r} "
            f"({spec.modality})"
        )
    if spec.name == "whisper-base-encoder":
        raise ValueError(
            "`model` must have an output head after its final norm; got 'whisper-base-encoder' "
            "(walk 'whisper-base-decoder')"
        )
    default = {"cpu": 1000, "full": 8000, "smoke": 64}[scale]
    tokens = check_int(default if tokens is None else tokens, "tokens", low=8)
    ts = _check_ts(ts)
    return {
        "experiment": "walk",
        "model": spec.name,
        "scale": scale,
        "tokens": tokens,
        "n_random": check_int(n_random, "n_random", low=1),
        "seed": check_int(seed, "seed", low=0),
        "ts": [float(t) for t in ts],
        "offset": HELD_OUT_OFFSET,
        "window": _WINDOW[spec.modality],
    }


def _batches(spec, model, tok, settings):
    """Held-out batches and, per batch, the number of leading positions not scored."""
    n, window = settings["tokens"], settings["window"]
    if spec.modality == "speech":
        from companion.llm.speech import speech_batches
        from companion.llm.whisper import decoder_prefix, feature_extractor

        clips = math.ceil(n / window)
        batches = speech_batches(
            tok,
            feature_extractor(model.config),
            n_clips=clips,
            window=window,
            offset=settings["offset"],
            batch_size=4,
        )
        return batches, len(decoder_prefix(tok)) - 1  # prompt predictions: not transcript
    from companion.llm.data import token_windows

    ids = token_windows(
        tok, n_windows=math.ceil(n / (window - 1)), window=window, offset=settings["offset"]
    )
    return ({"input_ids": b} for b in ids.split(4)), 0


def _tied(model, head) -> bool:
    import torch

    ptr = head.weight.data_ptr()
    return any(
        isinstance(m, torch.nn.Embedding) and m.weight.data_ptr() == ptr for m in model.modules()
    )


def capture_head(
    name: str, *, scale: str = "cpu", settings: dict | None = None, model=None, device=None
):
    """``(HeadWalk, info)`` of a trained model on held-out input (one forward pass on
    ``device``, default CUDA when available; the captured states come back to the CPU in
    float64, where the walk runs).

    ``info``: the model-dtype NLL of the same targets, whether the head is tied, the norm's
    name and kind, and the load and forward times.
    """
    import torch

    from companion.llm.loading import load_model
    from companion.llm.norms import find_final_norm
    from companion.llm.registry import get_spec
    from companion.theory.head_walk import HeadWalk

    spec = get_spec(name)
    _folder(scale)  # checks `scale`
    if settings is not None and not isinstance(settings, dict):
        raise TypeError(f"`settings` must be a dict or None; got {type(settings).__name__}")
    if model is not None and not (isinstance(model, tuple) and len(model) == 2):
        raise TypeError(
            f"`model` must be a (model, tokenizer) pair or None; got {type(model).__name__}"
        )
    if device is not None and not isinstance(device, (str, torch.device)):
        raise TypeError(
            f"`device` must be a str, a torch.device or None; got {type(device).__name__}"
        )
    settings = settings or _settings(
        name, scale=scale, tokens=None, n_random=3, seed=0, ts=DEFAULT_TS
    )
    t0 = time.perf_counter()
    if model is None:
        model, tok = load_model(name, init="trained", scale=scale, device=device)
    else:
        model, tok = model
    t_load = time.perf_counter() - t0
    fn = find_final_norm(model)
    head = model.get_output_embeddings()
    if head is None or getattr(head, "bias", None) is not None:
        raise ValueError(f"`model` must have a bias-free output head; got {type(head).__name__}")
    batches, skip = _batches(spec, model, tok, settings)
    hs, targets, nll32 = [], [], []
    seen = {}

    def grab(_, m, inputs, output):
        seen["h"], seen["y"] = inputs[0].detach(), output.detach()

    t1 = time.perf_counter()
    from companion.llm.capture import hooks

    dev = next(model.parameters()).device

    with torch.no_grad(), hooks({"norm": fn.module}, grab):
        for b in batches:
            b = {k: v.to(dev) for k, v in b.items()}
            model(**b)
            ids = b["input_ids"]
            h, y = seen["h"][:, skip:-1], seen["y"][:, skip:-1]  # (b, L', d) predicts ids[+1]
            tg = ids[:, skip + 1 :]
            logp = torch.log_softmax(head(y).float(), -1)
            nll32.append(-logp.gather(-1, tg[..., None]).squeeze(-1).reshape(-1).cpu())
            hs.append(h.reshape(-1, h.shape[-1]).double().cpu())
            targets.append(tg.reshape(-1).cpu())
            if sum(len(t) for t in targets) >= settings["tokens"]:
                break
    n = settings["tokens"]
    h = torch.cat(hs)[:n].numpy()
    tg = torch.cat(targets)[:n].numpy().astype(np.int64)
    W = head.weight.detach().double().cpu().numpy().copy()  # the untied float64 copy
    beta = fn.beta if fn.beta is not None else np.zeros(fn.d)
    hw = HeadWalk(h, tg, W, fn.gamma, np.asarray(beta, dtype=float), fn.eps, fn.kind)
    info = {
        "nll_model_dtype": float(torch.cat(nll32)[:n].double().mean()),
        "tied": _tied(model, head),
        "norm": fn.name,
        "kind": fn.kind,
        "load_s": t_load,
        "forward_s": time.perf_counter() - t1,
        "device": str(dev),
        "dtype": str(next(model.parameters()).dtype).removeprefix("torch."),
    }
    return hw, info


def _slope(ts, F):
    from companion.theory.fisher_decay import kl_order, loglog_slope

    keep = (ts <= _SLOPE_T_MAX) & (F > 0)
    if keep.sum() < 2:
        return None, None
    slope, se = loglog_slope(ts[keep], F[keep])
    return kl_order(slope, se)


def walk_head(hw, *, ts, n_random: int = 3, seed: int = 0) -> dict:
    """Every curve of the module docs on ``hw`` (a :class:`HeadWalk`) → the record's fields."""
    from companion._validate import check_int
    from companion.theory.head_walk import HeadWalk

    if not isinstance(hw, HeadWalk):
        raise TypeError(f"`hw` must be a HeadWalk; got {type(hw).__name__}")
    ts = _check_ts(ts)
    n_random, seed = check_int(n_random, "n_random", low=1), check_int(seed, "seed", low=0)
    g = np.random.default_rng(seed)
    V, d = hw.W.shape
    v = hw.vstar
    w = g.standard_normal(d)
    w /= np.linalg.norm(w)
    w = w if v @ w >= 0 else -w  # t > 0 never meets the pole 1 + t <v*, w> = 0
    Ww = hw.W @ w
    length = float(np.linalg.norm(Ww))  # ||t (W w) v*^T||_F / t
    curves = {}
    base = hw.walk("line", [0.0], R=np.zeros_like(hw.W)).nll[0]

    def put(name, pt):
        khat, se = _slope(ts, pt.fisher)
        curves[name] = {
            "nll": pt.nll.tolist(),
            "dnll": (pt.nll - base).tolist(),
            "max_abs_dnll": float(np.max(np.abs(pt.nll - base))),
            "fisher": pt.fisher.tolist(),
            "kl": pt.kl.tolist(),
            "k_hat": khat,
            "k_hat_se": se,
        }

    if hw.kind == "layernorm":
        put("flat", hw.walk("flat", ts, w=w))
        put("uncompensated", hw.walk("uncompensated", ts, w=w))
        refused = ""
    else:
        put("gamma_inv", hw.walk("uncompensated", ts, w=w))
        try:
            hw.flat_point(w, 1.0)
        except ValueError as err:
            refused = str(err)
    kfac_random = []
    for i in range(n_random):
        R = g.standard_normal((V, d))
        R *= length / np.linalg.norm(R)
        put(f"random_{i}", hw.walk("line", ts, R=R))
        if i == 0:
            put("random_square", hw.walk("square", ts, R=R))
        a = g.standard_normal(d)
        kfac_random.append(hw.kfac_vs_fisher(g.standard_normal(V), a / np.linalg.norm(a)))
    floor = 1e-20 * curves["random_0"]["fisher"][0]  # float64 can say no more than this
    for c in curves.values():
        if max(c["fisher"]) <= floor:  # a flat curve has no finite order: no slope to read
            c["k_hat"] = c["k_hat_se"] = None
    y = hw.y()
    reads = y @ v
    return {
        "ts": ts.tolist(),
        "nll0": float(base),
        "c": hw.c,
        "read_spread": float(np.max(np.abs(reads - reads.mean()))),
        "read_scale": float(np.sqrt(np.mean(np.sum(y * y, axis=1)))),
        "w_dot_vstar": float(v @ w),
        "dW_frobenius_per_t": length,
        "curves": curves,
        "kfac_dead": hw.kfac_vs_fisher(Ww, v),
        "kfac_random": kfac_random,
        "flat_refused": refused,
        "n_tokens": int(hw.h.shape[0]),
        "d": int(d),
        "vocab": int(V),
    }


def _folder(scale: str) -> str:
    from companion.llm.dead_directions.presets import preset

    preset(scale)  # checks `scale`
    return "walk" if scale == "cpu" else f"walk_{scale}"


def results_path(out: str | None = None, *, scale: str = "cpu") -> str:
    """``walk.jsonl`` under ``out`` (default: the results root's ``walk`` folder for the CPU
    scale, ``walk_<scale>`` otherwise; the copy written here if there is one)."""
    import os

    from companion.llm._checks import check_path

    folder = _folder(scale)
    if check_path(out, "out") is None:
        from companion.results import locate

        return str(locate(folder, "walk.jsonl"))
    return os.path.join(out, "walk.jsonl")


def load_walk(out: str | None = None, *, scale: str = "cpu") -> list[dict]:
    """Every walk record of ``scale`` (empty when none is stored)."""
    from companion.results import ResultStore

    return ResultStore(results_path(out, scale=scale)).records()


def run_walk(
    name: str,
    *,
    scale: str = "cpu",
    tokens: int | None = None,
    n_random: int = 3,
    seed: int = 0,
    ts=DEFAULT_TS,
    out: str | None = None,
    resume: bool = False,
    command: str | None = None,
) -> dict:
    """Walk one model and append its record (settings and ``out`` checked before anything
    loads)."""
    from companion._validate import check_bool
    from companion.llm._checks import check_optional_str, check_out, check_path
    from companion.results import ResultStore, experiment_dir, run_record

    settings = _settings(name, scale=scale, tokens=tokens, n_random=n_random, seed=seed, ts=ts)
    resume = check_bool(resume, "resume")
    check_path(out, "out")
    check_out(out)
    check_optional_str(command, "command")
    if out is None:
        out = str(experiment_dir(_folder(scale), write=True))
    store = ResultStore(results_path(out))

    def measure():
        hw, info = capture_head(name, scale=scale, settings=settings)
        rec = walk_head(hw, ts=settings["ts"], n_random=n_random, seed=seed)
        return {"model": name, **info, **rec}

    return run_record(store, settings, measure, resume=resume, command=command, timed="run_s")


def summary(rec: dict) -> str:
    """One line per record for the CLI."""
    from companion._validate import check_instance

    check_instance(rec, "rec", dict)
    missing = {"model", "c", "curves", "run_s"} - set(rec)
    if missing:
        raise ValueError(f"`rec` must be a walk record; it lacks {sorted(missing)}")
    parts = [f"{rec['model']:<22} c={rec['c']:+.3f}"]
    for k, c in rec["curves"].items():
        parts.append(f"{k}: max|ΔNLL|={c['max_abs_dnll']:.1e}")
    return "  ".join(parts) + f"  ({rec['run_s']:.0f} s)"


def run_cli(args) -> int:
    """``companion run walk``: one record per model."""
    from companion.llm.loading import HubUnavailable
    from companion.llm.norms import NormNotFound
    from companion.llm.speech import SpeechUnavailable

    status = 0
    for name in args.model:
        try:
            rec = run_walk(
                name,
                scale=args.scale,
                tokens=args.tokens,
                n_random=args.n_random,
                out=args.out,
                resume=args.resume,
                command=getattr(args, "command_line", None),
            )
        except (ValueError, HubUnavailable, NormNotFound, ModuleNotFoundError,
                SpeechUnavailable) as err:  # fmt: skip
            print(f"error: {name}: {err}", file=sys.stderr)
            status = 2
            continue
        print(summary(rec))
    return status
