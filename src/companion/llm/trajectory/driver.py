"""``companion train-geometry`` (:mod:`~companion.llm.trajectory.cli`): both papers' geometry
at every checkpoint of a trained run, one record per (model, checkpoint) in
``results/train/trajectory.jsonl``.

The settings are checked, the run's manifest read and every checkpoint verified (SHA-256,
format, model) before any model loads: a corrupt, foreign or other-twin file is refused
before anything is measured or written, and each file is verified again when it loads.
Records go through the results package's resumable helper
(:func:`companion.results.run_record`): with ``resume`` a stored (model, checkpoint,
settings) is skipped, so an interrupted pass continues where it stopped.
Each record holds the command, its wall time, the checkpoint's step and SHA-256, its
validation loss (from the manifest) and
:func:`~companion.llm.trajectory.geometry.measure_checkpoint`.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from companion._validate import check_bool, check_instance, check_int
from companion.llm.train.checkpoints import (
    CheckpointError,
    check_path,
    read_manifest,
    verify_run,
)
from companion.llm.train.model import check_model
from companion.llm.trajectory.geometry import GeometrySettings

__all__ = ["FILE", "results_path", "load_records", "checked_run", "run_trajectory"]

#: The records' file under the results root's ``train/`` folder.
FILE = "trajectory.jsonl"


def results_path(out=None) -> Path:
    """``<out>/trajectory.jsonl`` (default: the results root's ``train/``, the copy written
    here if there is one, :func:`companion.results.locate`)."""
    if out is None:
        from companion.results import locate

        return Path(locate("train", FILE))
    return check_path(out, "out") / FILE


def load_records(out=None) -> list[dict]:
    """Every stored trajectory record (empty when the file is absent)."""
    from companion.results import ResultStore

    path = results_path(out)
    return ResultStore(str(path)).records() if path.exists() else []


def checked_run(model: str, *, steps: int = 2000, folder=None) -> tuple[Path, dict]:
    """``(run folder, manifest)`` of ``model``'s run, checked before anything loads: a known
    model, ``steps`` ≥ 1, a finished run of that model in the folder, every checkpoint's
    SHA-256, format and model (:func:`~companion.llm.train.checkpoints.verify_run`).

    Raises
    ------
    ValueError
        Unknown model or ``steps`` ≤ 0.
    CheckpointError
        No run in the folder, an unreadable manifest, another model's run, or a corrupt,
        foreign or other-twin checkpoint file.
    """
    from companion.llm.train.trainer import run_folder

    check_model(model)
    steps = check_int(steps, "steps", low=1)
    folder = run_folder(model, steps) if folder is None else check_path(folder, "folder")
    manifest = read_manifest(folder)
    if manifest is None:
        raise CheckpointError(
            f"no training run of {model!r} in {folder}: train it first with "
            f"`companion train --model {model} --steps {steps}`"
        )
    theirs = manifest["config"].get("model")
    if theirs != model:
        raise CheckpointError(f"the run in {folder} trained {theirs!r}, not {model!r}")
    if not manifest.get("finished"):
        raise CheckpointError(
            f"the run in {folder} is unfinished: continue it with `companion train --model "
            f"{model} --steps {steps} --resume`"
        )
    verify_run(folder, manifest, model=model)  # every file, before any is measured
    return folder, manifest


def _command(model: str, steps: int) -> str:
    return f"companion train-geometry --model {model} --steps {steps} --resume"


def run_trajectory(
    model: str,
    *,
    steps: int = 2000,
    folder=None,
    out=None,
    resume: bool = False,
    settings: GeometrySettings | None = None,
    command: str | None = None,
    data=None,
) -> list[dict]:
    """One record per checkpoint of ``model``'s run (module docs); returns them in step order.

    ``data``: the corpus bytes (default :func:`~companion.llm.train.corpus.corpus_bytes`).
    """
    from companion.llm._checks import check_optional_str, check_out
    from companion.llm.progress import progress
    from companion.llm.train.checkpoints import sha256_file
    from companion.llm.train.corpus import check_data, corpus_bytes
    from companion.llm.train.trainer import load_trained
    from companion.llm.trajectory.geometry import measure_checkpoint
    from companion.results import ResultStore, experiment_dir, run_record

    resume = check_bool(resume, "resume")
    command = check_optional_str(command, "command")
    cfg = GeometrySettings() if settings is None else check_instance(
        settings, "settings", GeometrySettings
    )  # fmt: skip
    folder, manifest = checked_run(model, steps=steps, folder=folder)
    if data is not None:
        check_data(data)
    if out is not None:
        check_out(str(check_path(out, "out")))  # writable, before anything is measured
    path = results_path(out) if out is not None else experiment_dir("train", write=True) / FILE
    store = ResultStore(str(path))
    data = corpus_bytes() if data is None else data
    command = command or _command(model, steps)
    out_recs = []
    entries = manifest["checkpoints"]
    for entry in progress(entries, desc=f"{model} geometry", unit="checkpoint"):
        if sha256_file(folder / entry["file"]) != entry["sha256"]:  # before anything loads
            raise CheckpointError(
                f"checkpoint {folder / entry['file']} is corrupt: its SHA-256 is not the "
                f"manifest's; it is not used (retrain into another folder)"
            )
        key = {
            "experiment": "train-geometry",
            "model": model,
            "run_steps": manifest["config"]["steps"],
            "step": entry["step"],
            "sha256": entry["sha256"],
            **cfg.as_dict(),
        }

        def measure(entry=entry) -> dict:
            t0 = time.perf_counter()
            net = load_trained(model, entry["step"], folder=folder)
            geo = measure_checkpoint(net, data, cfg)
            return {
                "model": model,
                "norm": check_model(model),
                "step": entry["step"],
                "sha256": entry["sha256"],
                "val_loss": entry["val_loss"],
                "train_loss": entry["train_loss"],
                **geo,
                "dtype": "float32",
                "device": "cpu",
                "seed": manifest["config"]["seed"],
                "wall_s": time.perf_counter() - t0,
            }

        out_recs.append(run_record(store, key, measure, resume=resume, command=command))
    return out_recs


def run_cli(args) -> int:
    """``companion train-geometry``: errors as one ``error: …`` line, exit code 2."""
    try:
        recs = run_trajectory(
            args.model, steps=args.steps, folder=args.run, out=args.out, resume=args.resume
        )
    except CheckpointError as err:  # one-style ValueErrors reach companion.cli.main
        print(f"error: {err}", file=sys.stderr)
        return 2
    last = recs[-1]
    final = last["norms"][-1]
    print(
        f"{args.model}: {len(recs)} checkpoints; at step {last['step']} validation loss "
        f"{last['val_loss']:.3f}, final norm |cos| {final['cos']:.4f}, verdict {final['verdict']}"
    )
    return 0
