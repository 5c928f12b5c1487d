"""A deterministic, resumable trainer for the trained-here models.

AdamW (β = (0.9, 0.99), weight decay 0.1 on matrices and embeddings only, none on biases and
norm scales), gradient clipping at norm 1, and a stated learning-rate schedule
(:func:`learning_rate`): linear warm-up from 0 to ``lr`` over ``warmup`` steps, then a
half-cosine from ``lr`` down to ``lr / 10`` at the last step (nanoGPT's CPU recipe, batch 12 ×
context 64 bytes). Checkpoints at log-spaced steps (:func:`checkpoint_steps`: 0, then about
nine up to the last) go to the run folder (:mod:`~companion.llm.train.checkpoints`), by
default under the model cache (:func:`companion.llm.registry.cache_dir`), never into git.

Determinism: the batches are a function of (seed, step), the model has no dropout, and the
trainer fixes torch's intra-op threads (``threads``, recorded in the manifest), so a run
killed and resumed (``resume=True``, from the latest ``resume-<k>`` state) writes checkpoints
bit-identical to an uninterrupted run's. A resume with other settings is refused.

Threads default to 1: on the shared 2-core machine two torch threads ran a step 16× slower
than one (3.3 s against 0.15–0.21 s wall; their barriers wait for each other's core), and one
thread makes the checkpoints' hashes independent of the machine's core count (not of its
CPU: another instruction set may round differently, so hashes compare on one machine).

Across environments the bits are not promised: a fresh 2000-step run of the LayerNorm twin
on 2026-12-06 (torch 2.13.0, transformers 5.25.0, an AMD EPYC) matched the committed manifest's
step-0 checkpoint and every training loss to 1e-6 relative, but not the later checkpoints'
hashes, whose last bits differ. New manifests record their ``environment`` (library versions,
CPU, torch's CPU capability), and a resume in another one is warned.

Speed (``nice -n 10 python bench/train.py --threads 1 --steps 30``, torch 2.13 CPU, load
average 7.5–8 on 2 cores; results/train/bench-threads1.json): 0.07–0.08 CPU-s a step of 768
bytes for either twin, ≈ 50 % of the same process's float32 matmul rate, peak RSS ≈ 0.5 GB; the
book's 2000 steps take ≈ 2.4 CPU-minutes: measured whole, 137 s CPU and 4 min 36 s wall (LN
twin), 141 s CPU and 2 min 31 s wall (RMS twin). Their manifests (hashes, losses) are
committed as ``results/train/<model>-2000steps.manifest.json``; the checkpoints stay in the
cache.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from companion._validate import check_bool, check_instance, check_int, check_real
from companion.llm.train.checkpoints import (
    CheckpointError,
    check_path,
    environment,
    read_manifest,
    read_tensors,
    verify_run,
    write_manifest,
    write_tensors,
)
from companion.llm.train.model import CONTEXT, build_model, check_model

__all__ = [
    "TrainConfig",
    "learning_rate",
    "checkpoint_steps",
    "make_optimizer",
    "run_folder",
    "train",
    "train_step",
    "load_trained",
]


@dataclass(frozen=True)
class TrainConfig:
    """Everything that determines a run's checkpoints (stored in its manifest).

    ``layers``/``width``/``heads`` shrink the model for tests; the book trains the defaults.
    """

    model: str
    steps: int = 2000
    batch: int = 12
    context: int = CONTEXT
    lr: float = 1e-3
    warmup: int = 100
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    seed: int = 0
    threads: int = 1
    eval_windows: int = 64
    resume_every: int = 100
    layers: int = 4
    width: int = 128
    heads: int = 4

    def __post_init__(self):
        check_model(self.model)
        for name in (
            "steps",
            "batch",
            "context",
            "threads",
            "eval_windows",
            "resume_every",
            "layers",
            "width",
            "heads",
        ):
            check_int(getattr(self, name), name, low=1)
        check_int(self.warmup, "warmup", low=0)
        check_int(self.seed, "seed", low=0)
        check_real(self.lr, "lr", low=0.0, low_open=True)
        check_real(self.weight_decay, "weight_decay", low=0.0)
        check_real(self.grad_clip, "grad_clip", low=0.0, low_open=True)


def learning_rate(step: int, cfg: TrainConfig) -> float:
    """The learning rate of optimiser step ``step`` (0-based; see the module docs).

    Examples
    --------
    >>> cfg = TrainConfig("tiny-gpt-ln", steps=1000, warmup=100)
    >>> [round(learning_rate(s, cfg), 6) for s in (0, 99, 100, 1000)]
    [1e-05, 0.001, 0.001, 0.0001]
    """
    step = check_int(step, "step", low=0)
    cfg = check_instance(cfg, "cfg", TrainConfig)
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    span = max(1, cfg.steps - cfg.warmup)
    frac = min(1.0, (step - cfg.warmup) / span)
    low = cfg.lr / 10
    return low + 0.5 * (cfg.lr - low) * (1 + math.cos(math.pi * frac))


def checkpoint_steps(steps: int, n: int = 9) -> list[int]:
    """0, then ``n`` log-spaced steps from min(10, steps) to ``steps`` (duplicates merged).

    Examples
    --------
    >>> checkpoint_steps(2000)
    [0, 10, 19, 38, 73, 141, 274, 532, 1031, 2000]
    >>> checkpoint_steps(3)
    [0, 1, 2, 3]
    """
    steps = check_int(steps, "steps", low=1)
    n = check_int(n, "n", low=1)
    first = min(10, steps)
    if n == 1 or first == steps:
        grid = range(1, steps + 1) if steps <= n else [steps]
        return [0, *grid]
    ratio = (steps / first) ** (1 / (n - 1))
    out = sorted({round(first * ratio**i) for i in range(n)} | {steps})
    return [0, *out]


def run_folder(model: str, steps: int) -> Path:
    """The default run folder: ``<cache>/train/<model>-<steps>steps``."""
    from companion.llm.registry import trained_run_dir

    check_model(model)  # an unknown name fails here
    return trained_run_dir(model, check_int(steps, "steps", low=1))


def load_trained(model: str, step: int, *, folder=None, steps: int = 2000):
    """Trained-here ``model`` at checkpoint ``step`` of its run (default folder
    :func:`run_folder` of ``steps``), verified against the run's manifest; eval mode.

    Raises
    ------
    CheckpointError
        No run there, no checkpoint at ``step``, a corrupt file, or the other twin's.
    """
    from companion.llm.train.checkpoints import verified

    check_model(model)
    steps = check_int(steps, "steps", low=1)  # checked even when `folder` makes it unused
    step = check_int(step, "step", low=0)
    folder = check_path(folder, "folder") if folder is not None else run_folder(model, steps)
    tensors, _ = verified(folder, step, model=model)
    cfg = read_manifest(folder)["config"]
    net = build_model(
        model,
        seed=cfg["seed"],
        layers=cfg["layers"],
        width=cfg["width"],
        heads=cfg["heads"],
        context=cfg["context"],
    )
    net.load_state_dict(tensors, strict=True)
    return net.eval()


def _param_groups(model, cfg):
    decay = [p for p in model.parameters() if p.ndim >= 2]
    rest = [p for p in model.parameters() if p.ndim < 2]
    return [
        {"params": decay, "weight_decay": cfg.weight_decay},
        {"params": rest, "weight_decay": 0.0},
    ]


def _state_tensors(model, opt) -> dict:
    tensors = {f"model.{k}": v for k, v in model.state_dict().items()}
    params = [p for g in opt.param_groups for p in g["params"]]
    for i, p in enumerate(params):
        for k, v in opt.state.get(p, {}).items():
            tensors[f"optim.{i}.{k}"] = v.reshape(1) if v.ndim == 0 else v
    return tensors


def _load_state(model, opt, tensors) -> None:
    model.load_state_dict({k[6:]: v for k, v in tensors.items() if k.startswith("model.")})
    params = [p for g in opt.param_groups for p in g["params"]]
    for i, p in enumerate(params):
        keys = {k.split(".", 2)[2]: v for k, v in tensors.items() if k.startswith(f"optim.{i}.")}
        if keys:
            opt.state[p] = {k: (v.reshape(()) if k == "step" else v) for k, v in keys.items()}


def _eval_loss(model, windows) -> float:
    import torch

    x, y = windows
    model.eval()
    with torch.no_grad():
        logits = model(input_ids=x).logits  # (n, context, 256)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
    model.train()
    return float(loss)


def _start(folder: Path, cfg: TrainConfig, resume: bool):
    """The manifest to continue (a new one for a fresh run); refuses what would mix runs."""
    manifest = read_manifest(folder)
    if manifest is None:
        return {
            "config": asdict(cfg),
            "environment": environment(),
            "checkpoint_steps": checkpoint_steps(cfg.steps),
            "checkpoints": [],
            "resume": None,
            "finished": False,
        }
    if not resume:
        raise CheckpointError(
            f"a training run already exists in {folder}; pass --resume to continue it "
            f"(its checkpoints are never overwritten) or choose another folder"
        )
    theirs = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    if theirs.get("model") != cfg.model:
        raise CheckpointError(
            f"the run in {folder} trained {theirs.get('model')!r}, not {cfg.model!r}; "
            f"choose another folder"
        )
    if theirs != asdict(cfg):
        diff = sorted(k for k in asdict(cfg) if theirs.get(k) != asdict(cfg)[k])
        raise CheckpointError(
            f"the run in {folder} was started with other settings ({', '.join(diff)}); "
            f"resume it with the same ones or choose another folder"
        )
    # a corrupt, foreign or other-twin finished checkpoint stops the resume; it is kept
    verify_run(folder, manifest, model=cfg.model)
    theirs_env, ours = manifest.get("environment"), environment()
    if not manifest["finished"] and theirs_env != ours:
        import warnings

        diff = sorted(k for k in ours if (theirs_env or {}).get(k) != ours[k])
        warnings.warn(
            f"the run in {folder} was started in another environment ({', '.join(diff)}): "
            f"the checkpoints written from here on may differ in their last bits from an "
            f"uninterrupted run's",
            stacklevel=3,
        )
    return manifest


def train(
    cfg: TrainConfig, *, folder=None, resume: bool = False, stop_after: int | None = None, data=None
) -> dict:
    """Train ``cfg.model`` into ``folder`` (default :func:`run_folder`); returns the manifest.

    ``resume`` continues the run in ``folder`` from its latest resume state (required when
    the folder holds a run). ``stop_after`` ends after that many optimiser steps of this call
    (a deliberate interruption: tests). ``data``: the corpus bytes (default
    :func:`~companion.llm.train.corpus.corpus_bytes`).

    Raises
    ------
    CheckpointError
        The folder holds another run, a run without ``resume``, or a corrupt file.
    """
    import torch

    from companion.llm.progress import progress
    from companion.llm.train.corpus import check_data, corpus_bytes, split_windows, train_batch

    if not isinstance(cfg, TrainConfig):
        raise TypeError(f"`cfg` must be a TrainConfig; got {type(cfg).__name__}")
    resume = check_bool(resume, "resume")
    if stop_after is not None:
        stop_after = check_int(stop_after, "stop_after", low=1)
    if data is not None:
        check_data(data)
    if folder is None:
        folder = run_folder(cfg.model, cfg.steps)
    folder = check_path(folder, "folder")
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"`folder` must be a folder; got {str(folder)!r}, which is not one")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        why = err.strerror or type(err).__name__
        raise ValueError(
            f"`folder` must be a folder this process can write; got {str(folder)!r} ({why})"
        ) from None
    manifest = _start(folder, cfg, resume)
    if manifest["finished"]:
        return manifest
    data = corpus_bytes() if data is None else data
    val = split_windows(data, "validation", n_windows=cfg.eval_windows, context=cfg.context)
    threads = torch.get_num_threads()
    torch.set_num_threads(cfg.threads)
    try:
        return _loop(cfg, folder, manifest, data, val, stop_after, progress, train_batch)
    finally:
        torch.set_num_threads(threads)


def _loop(cfg, folder, manifest, data, val, stop_after, progress, train_batch):
    model = build_model(
        cfg.model,
        seed=cfg.seed,
        layers=cfg.layers,
        width=cfg.width,
        heads=cfg.heads,
        context=cfg.context,
    )
    opt = make_optimizer(model, cfg)
    start = 0
    if manifest["resume"] is not None:
        r = manifest["resume"]
        tensors, _ = read_tensors(folder / r["file"], sha256=r["sha256"], model=cfg.model)
        _load_state(model, opt, tensors)
        start = r["step"]
    meta = {"model": cfg.model, "norm": check_model(cfg.model)}
    done = {c["step"] for c in manifest["checkpoints"]}
    if 0 not in done:
        _checkpoint(folder, manifest, model, 0, float("nan"), _eval_loss(model, val), 0.0, meta)
    end = cfg.steps if stop_after is None else min(cfg.steps, start + stop_after)
    bar = progress(total=cfg.steps, initial=start, unit="step", desc=cfg.model)
    t0, tokens = time.perf_counter(), 0
    for step in range(start, end):
        x, y = train_batch(data, step, batch=cfg.batch, context=cfg.context, seed=cfg.seed)
        loss = train_step(model, opt, x, y, cfg, step)
        tokens += x.numel()
        rate = tokens / max(time.perf_counter() - t0, 1e-9)
        bar.update(1)
        bar.set_postfix(loss=f"{float(loss):.3f}", tok_s=f"{rate:.0f}", refresh=False)
        k = step + 1
        if k in manifest["checkpoint_steps"] and k not in done:
            _checkpoint(folder, manifest, model, k, float(loss), _eval_loss(model, val), rate, meta)
        if k % cfg.resume_every == 0 or k in manifest["checkpoint_steps"] or k == end:
            _save_resume(folder, manifest, model, opt, k, meta)
    bar.close()
    if end == cfg.steps:
        manifest["finished"] = True
        write_manifest(folder, manifest)
    return manifest


def train_step(model, opt, x, y, cfg: TrainConfig, step: int):
    """One optimiser step ``step`` (0-based) on inputs ``x`` and next-byte targets ``y``
    (``(batch, context)`` each): the schedule's learning rate, mean cross-entropy in nats per
    byte, gradient clipping, AdamW. Returns the (detached) training loss."""
    import torch

    check_instance(model, "model", torch.nn.Module)
    check_instance(opt, "opt", torch.optim.Optimizer)
    cfg = check_instance(cfg, "cfg", TrainConfig)
    step = check_int(step, "step", low=0)
    for name, t in (("x", x), ("y", y)):
        if not torch.is_tensor(t) or t.dtype != torch.int64 or t.ndim != 2 or t.numel() == 0:
            what = type(t).__name__ if not torch.is_tensor(t) else f"{t.dtype} {tuple(t.shape)}"
            raise TypeError(f"`{name}` must be a non-empty (batch, context) LongTensor; got {what}")
    if x.shape != y.shape:
        raise ValueError(f"`y` must have the shape of `x` {tuple(x.shape)}; got {tuple(y.shape)}")

    for g in opt.param_groups:
        g["lr"] = learning_rate(step, cfg)
    logits = model(input_ids=x).logits  # (batch, context, 256)
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
    opt.step()
    return loss.detach()


def make_optimizer(model, cfg: TrainConfig):
    """The run's AdamW (module docs): decay on matrices and embeddings, none on the rest."""
    import torch

    check_instance(model, "model", torch.nn.Module)
    cfg = check_instance(cfg, "cfg", TrainConfig)
    return torch.optim.AdamW(_param_groups(model, cfg), lr=cfg.lr, betas=(0.9, 0.99), eps=1e-8)


def _checkpoint(folder, manifest, model, step, train_loss, val_loss, rate, meta) -> None:
    name = f"step-{step:06d}.safetensors"
    digest = write_tensors(folder / name, model.state_dict(), {**meta, "step": step})
    manifest["checkpoints"].append(
        {
            "step": step,
            "file": name,
            "sha256": digest,
            "train_loss": None if math.isnan(train_loss) else train_loss,
            "val_loss": val_loss,
            "tokens_per_s": rate,
        }
    )
    write_manifest(folder, manifest)


def _save_resume(folder, manifest, model, opt, step, meta) -> None:
    old = manifest["resume"]
    if old is not None and old["step"] == step:
        return
    name = f"resume-{step:06d}.safetensors"
    digest = write_tensors(folder / name, _state_tensors(model, opt), {**meta, "step": step})
    manifest["resume"] = {"step": step, "file": name, "sha256": digest}
    write_manifest(folder, manifest)
    if old is not None and old["file"] != name:
        # the previous resume state is this trainer's scratch, superseded now (never a
        # finished checkpoint)
        (folder / old["file"]).unlink(missing_ok=True)
