"""Part II at scale, its records: the results that ``companion run dead-directions`` wrote (the
records at each scale, the models still missing and the commands that make them, Whisper's
records) and what the page and the claims read from them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from companion.chapters.dead_directions.at_scale.sizes import SIZES


def results_folder(scale: str) -> str:
    return "dead_directions" if scale == "cpu" else f"dead_directions_{scale}"


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> tuple:
    from companion.results import read_jsonl

    return tuple(read_jsonl(path))


def stored_records(scale: str) -> list[dict]:
    from companion.llm.dead_directions import results_path

    path = Path(results_path(scale=scale))
    if not path.exists():
        return []
    return [r for r in _load(str(path), path.stat().st_mtime) if r.get("scale", "cpu") == scale]


def run_missing(scale: str) -> None:
    """Diagnose every model of ``SIZES[scale]`` not yet stored: random init, then trained
    (resumable; records go to the results root's ``dead_directions[_<scale>]`` folder)."""
    from companion.llm.dead_directions import run_dead_directions
    from companion.llm.registry import list_models

    sizes = SIZES[scale]
    # the trained-here twins are not part of the at-scale runs (companion train makes them)
    every = [s.name for s in list_models() if s.source != "trained-here"]
    for name in sizes.random_models or every:
        run_dead_directions(name, init="random", scale=scale, resume=True, show_progress=False)
    for name in sizes.engine.models:
        run_dead_directions(name, init="trained", scale=scale, resume=True, show_progress=False)


def commands(scale: str) -> str:
    """The two ``companion run dead-directions`` commands that write ``scale``'s records."""
    sizes = SIZES[scale]
    rand = " ".join(f"--model {m}" for m in sizes.random_models or ["all"])
    tr = " ".join(f"--model {m}" for m in sizes.engine.models)
    return (
        f"companion run dead-directions {rand} --init random --scale {scale} --resume\n"
        f"companion run dead-directions {tr} --init trained --scale {scale} --resume"
    )


def records(scale: str) -> list[dict]:
    """Every stored record at ``scale``; at ``full`` and ``smoke`` scale the diagnoses are run
    now when none is stored (:func:`run_missing`).

    Raises
    ------
    FileNotFoundError
        At CPU scale when the results file is absent (it ships with the package).
    """
    recs = stored_records(scale)
    if not recs and scale != "cpu":
        run_missing(scale)
        recs = stored_records(scale)
    if not recs:
        raise FileNotFoundError(
            f"no {scale}-scale records in {results_folder(scale)}/dead_directions.jsonl; run "
            f"`{commands(scale)}`"
        )
    return recs


def random_init(recs: list[dict]) -> list[dict]:
    """Random-init records at reduced depth (≤ 2 blocks at CPU scale; the table), one per model
    (the last written wins). Full-depth random records serve the init-vs-trained comparisons."""
    out = {}
    for r in recs:
        if r["init"] == "random" and (r["scale"] != "cpu" or r["layers"] <= 2):
            out[r["model"]] = r
    return list(out.values())


def trained(recs: list[dict]) -> dict:
    """``{model: record}`` of the trained checkpoints."""
    return {r["model"]: r for r in recs if r["init"] == "trained"}


def trained_models(scale: str) -> list[str]:
    """Models with a trained record, in file order."""
    return list(trained(records(scale)))


def verdict(r: dict, *, fp64: bool = False, stats: dict | None = None) -> str:
    """The classifier's verdict recomputed now from a record's stored statistics (ρ, the
    precision floor of its dtype and width, the dead share of v*) with the library's decision
    rule :func:`companion.theory.null_classifier.norm_verdict`, never the stored ``verdict``.

    ``fp64``: the float64 recomputation of the norm (``diag_rayleigh_fp64``); ``stats``: one
    of the record's controls (classified on float64 activations, with the record's v* unless
    the control has its own). The floor is taken without the activation-offset term, which
    the records do not keep (it is below 1% of the floor at these widths)."""
    from companion.theory import null_classifier as nc

    if stats is not None:
        rho, dtype, v = stats["diag_rayleigh"], "float64", stats.get("vstar", r["vstar"])
    elif fp64:
        rho, dtype, v = r["diag_rayleigh_fp64"], "float64", r["vstar"]
    else:
        rho, dtype, v = r["diag_rayleigh"], r["dtype"], r["vstar"]
    floor = nc.precision_floor(dtype, r["d"])
    return nc.norm_verdict(rho, floor, dead=nc.dead_share(v, dtype))[0]


def confusion(records) -> dict:
    """Counts ``{(registry norm, verdict): n}`` over records (the verdict recomputed from the
    stored statistics, :func:`verdict`)."""
    out: dict = {}
    for r in records:
        k = (r["norm_registry"], verdict(r))
        out[k] = out.get(k, 0) + 1
    return out


#: The packaged Whisper checkpoints (Whisper-base; tiny.en, English-only) and how a label
#: names them.
WHISPER_CHECKPOINTS = {"whisper-base": "base", "whisper-tiny-en": "tiny.en"}
#: Their trained pre-LN stacks, each with its own final LayerNorm; their input is speech
#: synthesised here by espeak-ng from Wikipedia text (companion.llm.speech).
WHISPER = tuple(f"{c}-{s}" for c in WHISPER_CHECKPOINTS for s in ("decoder", "encoder"))
_INITS = {"trained": "trained", "random-full": "random --layers full", "random": "random"}


def whisper_commands(checkpoint: str | None = None) -> dict:
    """The commands that write Whisper's records: ``{"trained", "random-full", "random"}``,
    of one checkpoint's two stacks (a key of :data:`WHISPER_CHECKPOINTS`), or of every stack
    in one command (``checkpoint=None``)."""
    from companion._validate import check_choice

    if checkpoint is None:
        models = WHISPER
    else:
        c = check_choice(checkpoint, "checkpoint", tuple(WHISPER_CHECKPOINTS))
        models = (f"{c}-decoder", f"{c}-encoder")
    run = "companion run dead-directions " + " ".join(f"--model {m}" for m in models)
    return {k: f"{run} --init {v} --resume" for k, v in _INITS.items()}


def whisper_records(scale: str = "cpu") -> list[dict]:
    """Whisper's records at ``scale``, else the CPU-scale ones (both checkpoints are small
    enough to be diagnosed on a CPU, and full scale adds nothing to them): per stack (in the
    order of :data:`WHISPER`), trained, then random init deepest first. Each record's
    ``scale`` says where it was measured."""
    recs = [r for r in stored_records(scale) if r["model"] in WHISPER] or [
        r for r in stored_records("cpu") if r["model"] in WHISPER
    ]
    return sorted(
        recs, key=lambda r: (WHISPER.index(r["model"]), r["init"] != "trained", -r["layers"])
    )


def stack_label(model: str) -> str:
    """A Whisper stack as a label names it: ``"base decoder"``, ``"tiny.en encoder"``."""
    ck, _, stack = model.rpartition("-")
    return f"{WHISPER_CHECKPOINTS.get(ck, ck)} {stack}"


def record_label(r: dict) -> str:
    init = "trained" if r["init"] == "trained" else "random init"
    return f"{stack_label(r['model'])}, {init} ({r['layers']} bl.)"


def min_step(r: dict) -> tuple:
    """``(block, step, SE)`` of the smallest block-to-block σ_min step (no position 0) of a
    record written with the steps' jackknife (Whisper's)."""
    steps = np.asarray(r["sigma_step_no_pos0"], dtype=float)
    se = np.asarray(r["sigma_step_se_no_pos0"], dtype=float)
    i = int(np.nanargmin(steps))
    return i + 1, float(steps[i]), float(se[i])


def sigma_steps(r: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """Block-to-block σ_min steps σ_min(X_ℓ+1)/σ_min(X_ℓ) of a record (position 0 excluded)
    and their jackknife SEs where the record has them (records written since the SEs)."""
    if r.get("sigma_step_se_no_pos0") is not None:
        return (
            np.asarray(r["sigma_step_no_pos0"], dtype=float),
            np.asarray(r["sigma_step_se_no_pos0"], dtype=float),
        )
    s = np.asarray(r["sigma_ratio_no_pos0"], dtype=float)
    return s[1:] / s[:-1], None


def abs_gamma(r: dict) -> tuple[float, float]:
    """min |γ| and max |γ| of a record (older records: from v*, since |γ_i| ∝ 1/|v*_i|)."""
    g = r["gamma_stats"]
    if "abs_min" in g:
        return g["abs_min"], g["abs_max"]
    v, top = np.abs(np.asarray(r["vstar"])), max(abs(g["min"]), abs(g["max"]))
    return top * v.min() / v.max(), top
