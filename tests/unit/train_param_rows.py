"""The rows of ``test_param_validation.py`` for the trained-here models (issue 20):
``companion.llm.train.{checkpoints, corpus, model, trainer}``, and the geometry of their
training trajectory, ``companion.llm.trajectory.{driver, geometry}``.

Built lazily, once (torch is imported only when ``companion.llm`` is collected): a 1-block,
width-8 LayerNorm twin trained 2 steps on 400 synthetic bytes into a temporary run folder
(finished, so ``train(..., resume=True)`` returns at once), and a scratch folder that the
writers (``write_tensors``, ``write_manifest``) write into. The trajectory rows read that
run's last checkpoint with tiny :class:`GeometrySettings` (3 calibration windows, 2 seeds)
and write their records into a temporary folder (stored once, so ``run_trajectory(...,
resume=True)`` returns at once). Each row is a function returning its valid arguments.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np

TINY = dict(layers=1, width=8, heads=2)


@functools.cache
def ns() -> SimpleNamespace:
    from companion.llm.train import TrainConfig, build_model, train
    from companion.llm.train.checkpoints import read_manifest
    from companion.llm.train.corpus import train_batch
    from companion.llm.train.trainer import make_optimizer

    root = Path(tempfile.mkdtemp(prefix="companion-train-rows-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    data = (np.arange(400) % 256).astype(np.uint8)
    cfg = TrainConfig(
        "tiny-gpt-ln", steps=2, batch=2, context=8, eval_windows=2, resume_every=1, **TINY
    )
    run = root / "run"
    train(cfg, folder=run, data=data)
    manifest = read_manifest(run)
    entry = manifest["checkpoints"][-1]
    scratch = root / "scratch"
    scratch.mkdir()
    model = build_model("tiny-gpt-ln", context=8, **TINY)
    x, y = train_batch(data, 0, batch=2, context=8)
    return SimpleNamespace(
        data=data,
        cfg=cfg,
        run=str(run),
        file=str(run / entry["file"]),
        sha=entry["sha256"],
        step=entry["step"],
        scratch=str(scratch),
        model=model,
        opt=make_optimizer(model, cfg),
        x=x,
        y=y,
    )


def _ckpt():
    return dict(folder=ns().run, step=ns().step, model="tiny-gpt-ln")


def _manifest():
    from companion.llm.train.checkpoints import read_manifest

    return read_manifest(ns().run)


def _tensors():
    import torch

    return dict(path=f"{ns().scratch}/t.safetensors", tensors={"w": torch.ones(2)}, metadata={})


def _cfg_row():
    return dict(
        model="tiny-gpt-rms",
        steps=4,
        batch=2,
        context=8,
        lr=1e-3,
        warmup=1,
        weight_decay=0.1,
        grad_clip=1.0,
        seed=0,
        threads=1,
        eval_windows=2,
        resume_every=2,
        **TINY,
    )


_P = "llm.train."
ROWS = {
    _P + "checkpoints.read_manifest": lambda: dict(folder=ns().run),
    _P + "checkpoints.read_tensors": lambda: dict(path=ns().file, sha256=ns().sha, model=None),
    _P + "checkpoints.sha256_file": lambda: dict(path=ns().file),
    _P + "checkpoints.verified": _ckpt,
    _P + "checkpoints.verify_run": lambda: dict(
        folder=ns().run, manifest=_manifest(), model="tiny-gpt-ln"
    ),
    _P + "checkpoints.write_manifest": lambda: dict(folder=ns().scratch, manifest={"a": 1}),
    _P + "checkpoints.write_tensors": _tensors,
    _P + "corpus.corpus_bytes": lambda: dict(source="wiki"),
    _P + "corpus.split_ranges": lambda: dict(n_bytes=1000),
    _P + "corpus.split_windows": lambda: dict(
        data=ns().data, split="calibration", n_windows=2, context=4
    ),
    _P + "corpus.train_batch": lambda: dict(data=ns().data, step=3, batch=2, context=8, seed=1),
    _P + "load.load_twin": lambda: dict(
        name="tiny-gpt-rms", init="random", num_layers=None, step=None
    ),
    _P + "model.build_model": lambda: dict(name="tiny-gpt-rms", seed=1, context=8, **TINY),
    _P + "model.model_norm": lambda: dict(name="tiny-gpt-rms"),
    _P + "model.sign_cos2": lambda: dict(weight=np.array([[1.0, -2.0], [0.5, 0.5]])),
    _P + "trainer.TrainConfig": _cfg_row,
    _P + "trainer.checkpoint_steps": lambda: dict(steps=20, n=4),
    _P + "trainer.learning_rate": lambda: dict(step=1, cfg=ns().cfg),
    _P + "trainer.load_trained": lambda: dict(
        model="tiny-gpt-ln", step=ns().step, folder=ns().run, steps=2
    ),
    _P + "trainer.make_optimizer": lambda: dict(model=ns().model, cfg=ns().cfg),
    _P + "trainer.run_folder": lambda: dict(model="tiny-gpt-ln", steps=2),
    _P + "trainer.train": lambda: dict(
        cfg=ns().cfg, folder=ns().run, resume=True, stop_after=1, data=ns().data
    ),
    _P + "trainer.train_step": lambda: dict(
        model=ns().model, opt=ns().opt, x=ns().x, y=ns().y, cfg=ns().cfg, step=0
    ),
}

EXEMPT = {
    _P + "cli.add_commands": "argparse plumbing: adds `companion train` to the CLI's subparsers "
    "(its arguments are checked by tests/unit/test_train.py's CLI cases)",
}


@functools.cache
def traj() -> SimpleNamespace:
    """The trajectory rows' settings, the trained twin, its windows and a results folder."""
    from companion.llm.train.corpus import split_windows
    from companion.llm.train.trainer import load_trained
    from companion.llm.trajectory.geometry import GeometrySettings

    out = Path(tempfile.mkdtemp(prefix="companion-trajectory-rows-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    cfg = GeometrySettings(calib_windows=3, eval_windows=2, p=0.25, p_outlier=0.5, seeds=2)
    net = load_trained("tiny-gpt-ln", ns().step, folder=ns().run)
    calib, _ = split_windows(ns().data, "calibration", n_windows=3, context=8)
    val, _ = split_windows(ns().data, "validation", n_windows=2, context=8)
    return SimpleNamespace(cfg=cfg, net=net, calib=calib, val=val, out=str(out))


def _trajectory():
    return dict(
        model="tiny-gpt-ln",
        steps=2,
        folder=ns().run,
        out=traj().out,
        resume=True,
        settings=traj().cfg,
        command="test",
        data=ns().data,
    )


_T = "llm.trajectory."
ROWS.update(
    {
        _T + "driver.checked_run": lambda: dict(model="tiny-gpt-ln", steps=2, folder=ns().run),
        _T + "driver.load_records": lambda: dict(out=traj().out),
        _T + "driver.results_path": lambda: dict(out=traj().out),
        _T + "driver.run_trajectory": _trajectory,
        _T + "geometry.GeometrySettings": lambda: dict(
            calib_windows=3, eval_windows=2, p=0.25, p_outlier=0.5, outlier_frac=0.5, seeds=2
        ),
        _T + "geometry.flip_reads": lambda: dict(
            model=traj().net, calib=traj().calib, windows=traj().val, cfg=traj().cfg
        ),
        _T + "geometry.linear_reads": lambda: dict(model=traj().net, windows=traj().calib),
        _T + "geometry.measure_checkpoint": lambda: dict(
            model=traj().net, data=ns().data, cfg=traj().cfg
        ),
        _T + "geometry.norm_modules": lambda: dict(model=traj().net),
        _T + "geometry.norm_reads": lambda: dict(model=traj().net, windows=traj().calib),
    }
)
EXEMPT[_T + "cli.add_commands"] = (
    "argparse plumbing: adds `companion train-geometry` to the CLI's subparsers (its "
    "arguments are checked by tests/unit/test_train_trajectory.py's CLI cases)"
)

NON_NEGATIVE = {"n_bytes", "steps", "warmup", "threads", "resume_every", "layers", "heads"}
NON_NEGATIVE |= {"p_outlier", "outlier_frac"}
POSITIVE = {"n_bytes", "steps", "threads", "resume_every", "layers", "heads", "stop_after"}
POSITIVE |= {"p_outlier", "outlier_frac"}
