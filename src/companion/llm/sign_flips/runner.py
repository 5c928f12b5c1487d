"""Running an experiment: its options, its inputs, its results file, the CLI entry point.

:func:`run_experiment` writes one JSON record per setting to a resumable
:class:`companion.results.ResultStore` under the results root's ``sign_flips/`` folder
(:func:`results_path`); ``companion run sign-flips`` calls :func:`run_cli`.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

from companion._validate import check_choice, check_int, check_real
from companion.llm.sign_flips.activations import _check_tokens
from companion.llm.sign_flips.context import Context, Experiment
from companion.llm.sign_flips.experiments import experiment as _experiment
from companion.llm.sign_flips.experiments import format_summary, summarize
from companion.llm.sign_flips.layers import default_target, get_linear, linear_layers
from companion.llm.sign_flips.setups import Setup, setup

__all__ = [
    "Inputs",
    "Options",
    "command_line",
    "load_results",
    "results_path",
    "run_cli",
    "run_experiment",
]

#: The experiment's folder under the results root (:mod:`companion.results`).
RESULTS = "sign_flips"
CALIBRATIONS = ("disjoint", "overlap")


@dataclass(frozen=True)
class Options:
    """What an experiment measures, beyond its scale's :class:`Setup`.

    Parameters
    ----------
    seeds : int, optional
        Seeds per setting (default: the setup's; fewer at CPU scale than in the paper).
    p : float, optional
        Flip rate of the outlier experiment (default: the setup's 5%), in (0, 1].
    ps : sequence of float, optional
        Fractions of the outlier pool for the leverage sweep (default: the setup's).
    layer : str, optional
        Target of ``alpha``/``columns`` (default :func:`default_target`).
    calibration : {"disjoint", "overlap"}
        Outlier calibration on windows disjoint from evaluation (default) or on the first
        evaluation windows (the author's protocol).
    setup : Setup, optional
        Sizes replacing ``setup(scale)`` (tests: a few tiny windows).
    """

    seeds: int | None = None
    p: float | None = None
    ps: tuple | None = None
    layer: str | None = None
    calibration: str = "disjoint"
    setup: Setup | None = None


@dataclass(frozen=True)
class Inputs:
    """What an experiment measures on, when not loaded by name.

    ``model`` (a causal LM; tests pass a tiny random Llama) with its ``tokenizer``, or the
    registered model loaded on ``device``; ``windows`` (evaluation) and ``calib`` (outlier
    calibration) token windows, else cut from the setup's text.
    """

    model: object = None
    tokenizer: object = None
    windows: object = None
    calib: object = None
    device: str | None = None


def results_path(out, model: str, experiment: str, scale: str = "cpu") -> str:
    """Where an experiment's records live: ``<out>/<model>/<experiment>-<scale>.jsonl``
    (``out=None``: the results root's ``sign_flips/``, :func:`companion.results.locate`)."""
    if out is None:
        from companion.results import locate

        return str(locate(RESULTS, model, f"{experiment}-{scale}.jsonl"))
    return os.path.join(os.fspath(out), model, f"{experiment}-{scale}.jsonl")


def load_results(model: str, experiment: str, *, scale: str = "cpu", out=None) -> list:
    """The stored records of one experiment ([] when the file is absent).

    ``out=None`` reads the results root (:func:`results_path`).
    """
    from companion.results import ResultStore

    return ResultStore(results_path(out, model, experiment, scale)).records()


def command_line(experiment: str, model: str, scale: str = "cpu", seeds: int | None = None) -> str:
    """The CLI command that produces an experiment's results file."""
    cmd = f"companion run sign-flips --experiment {experiment} --model {model} --scale {scale}"
    return cmd + (f" --seeds {seeds}" if seeds else "") + " --resume"


class _Store:
    """The engine's :class:`companion.results.ResultStore`, adding this run's metadata."""

    def __init__(self, path, meta: dict, command: str):
        from companion.results import ResultStore

        self.inner, self.meta, self.command = ResultStore(path), meta, command
        self.path = self.inner.path

    def done(self, key):
        return self.inner.done(key)

    def records(self):
        return self.inner.records()

    def append(self, rec):
        full = {
            "model": self.meta["model"],
            "dtype": self.meta["dtype"],
            "device": self.meta["device"],
            "seed": rec.get("seed"),
            "meta": self.meta,
            **rec,
        }
        return self.inner.append(full, command=self.command)


def _meta(model, name: str, scale: str, experiment: str, windows, calib, calibration) -> dict:
    import platform

    import torch
    import transformers

    p = next(model.parameters())
    return {
        "model": name,
        "scale": scale,
        "experiment": experiment,
        "dtype": str(p.dtype).removeprefix("torch."),
        "device": str(p.device),
        "eval_windows": int(windows.shape[0]) if windows is not None else 0,
        "window": int(windows.shape[1]) if windows is not None else 0,
        "eval_tokens_predicted": int(windows.shape[0] * (windows.shape[1] - 1))
        if windows is not None
        else 0,
        "calib_windows": int(calib.shape[0]) if calib is not None else 0,
        "calibration": calibration,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "machine": platform.machine(),
        "threads": torch.get_num_threads(),
    }


def _checked(exp: Experiment, cfg: Setup, options: Options) -> dict:
    """The run's seeds, p and ps, each checked (defaults from the setup)."""
    check_choice(options.calibration, "calibration", CALIBRATIONS)
    p = (
        cfg.outlier_p
        if options.p is None
        else check_real(options.p, "p", low=0.0, high=1.0, low_open=True)
    )
    ps = tuple(
        check_real(q, "p", low=0.0, high=1.0, low_open=True)
        for q in (options.ps or cfg.leverage_ps)
    )
    default_seeds = getattr(cfg, exp.seeds_field)
    seeds = default_seeds if options.seeds is None else check_int(options.seeds, "seeds", low=1)
    return {"seeds": seeds, "p": p, "ps": ps}


def _load(model_name: str, scale: str, inputs: Inputs):
    """``inputs.model`` and its tokenizer, or the registered model loaded by name."""
    if inputs.model is not None:
        return inputs.model, inputs.tokenizer
    import torch

    from companion.llm.loading import load_model

    dtype = torch.float16 if (scale == "full" and torch.cuda.is_available()) else None
    return load_model(model_name, scale=scale, dtype=dtype, device=inputs.device)


def _windows(exp: Experiment, cfg: Setup, tokenizer, inputs: Inputs, calibration: str):
    """Evaluation and calibration windows the experiment needs (``None`` for the others)."""
    from companion.llm.data import token_windows

    windows, calib = inputs.windows, inputs.calib
    if windows is None and "windows" in exp.needs:  # Table 1 reads weights only
        windows = token_windows(
            tokenizer, n_windows=cfg.eval_windows, window=cfg.window, source=cfg.source
        )
    if "calib" in exp.needs:
        if calib is None and calibration == "overlap":
            calib = windows[: cfg.calib_windows]
        elif calib is None:
            calib = token_windows(
                tokenizer,
                n_windows=cfg.calib_windows,
                window=cfg.window,
                source=cfg.source,
                offset=int(windows.shape[0]),
            )
        _check_tokens(calib, cfg.min_calib_tokens)
    if "target" in exp.needs:
        _check_tokens(windows, cfg.min_calib_tokens)
    return windows, calib


def _default_command(experiment: str, model_name: str, scale: str, seeds: int) -> str:
    if "sign-flips" in sys.argv:
        return " ".join(["companion"] + sys.argv[1:])
    return command_line(experiment, model_name, scale, seeds)


def run_experiment(
    experiment: str,
    model_name: str = "smollm2-135m",
    *,
    scale: str = "cpu",
    options: Options | None = None,
    inputs: Inputs | None = None,
    out=None,
    resume: bool = False,
    command: str | None = None,
    progress: bool = True,
) -> list:
    """Run one experiment and return its records (also stored, one JSON line per setting).

    Parameters
    ----------
    experiment : {"table1", "outlier", "leverage", "alpha", "columns"}
    model_name : str
        A registered model (``companion models``); loaded with the engine's ``load_model``
        unless ``inputs.model`` is given (its name in the records is then ``model_name``).
    scale : {"cpu", "full", "smoke"}
        Picks :data:`SETUPS` (windows, seeds, text source).
    options : Options, optional
        Seeds, flip rates, target layer, calibration protocol, sizes (:class:`Options`).
    inputs : Inputs, optional
        A model, tokenizer and token windows to use instead of loading them (:class:`Inputs`).
    out : path, optional
        Results folder; the file is :func:`results_path` (default: the results root's
        ``sign_flips/``, a folder new records may be written to).
    resume : bool
        Skip settings already stored. Without it an existing file is started afresh.
    command : str, optional
        The command line stored with every record (default: this process's).
    progress : bool
        Progress bars (also silenced by ``COMPANION_PROGRESS=0``).

    Every argument is checked before anything is written: an invalid ``p``, an unknown
    experiment, a layer name that does not match or too few calibration tokens raise
    ValueError and leave no record.
    """
    exp = _experiment(experiment)
    options, inputs = options or Options(), inputs or Inputs()
    cfg = options.setup or setup(scale)
    run = _checked(exp, cfg, options)
    t_load = time.perf_counter()
    model, tokenizer = _load(model_name, scale, inputs)
    model.eval()
    layers = linear_layers(model)
    target = None
    if "target" in exp.needs:
        target = default_target(layers) if options.layer is None else options.layer
        get_linear(model, target, layers)
    windows, calib = _windows(exp, cfg, tokenizer, inputs, options.calibration)
    load_s = time.perf_counter() - t_load
    if out is None:
        from companion.results import experiment_dir

        out = experiment_dir(RESULTS, write=True)
    path = results_path(out, model_name, experiment, scale)
    if not resume and os.path.exists(path):
        os.remove(path)
    meta = _meta(model, model_name, scale, experiment, windows, calib, options.calibration)
    meta.update(seeds=run["seeds"], load_s=load_s)
    if command is None:
        command = _default_command(experiment, model_name, scale, run["seeds"])
    store = _Store(path, meta, command)
    ctx = Context(
        model, model_name, scale, cfg, layers, windows, calib, options.calibration, meta,
        store=store, target=target, bar=_bar if progress else (lambda it, desc: it), **run,
    )  # fmt: skip
    t0 = time.perf_counter()
    exp.run(ctx)
    store.append(
        {"key": f"run|{experiment}", "run_wall_s": time.perf_counter() - t0, "load_s": load_s}
    )
    return store.records()


def _bar(it, desc):
    from companion.llm.runs import progress

    return progress(it, desc=desc)


def run_cli(args) -> int:
    """``companion run sign-flips`` (args: experiment, model, scale, seeds, out, resume)."""
    from companion.results import experiment_dir

    experiment = args.experiment
    t0 = time.perf_counter()
    scale = getattr(args, "scale", None) or "cpu"
    out = getattr(args, "out", None) or experiment_dir(RESULTS, write=True)
    recs = run_experiment(
        experiment,
        args.model,
        scale=scale,
        options=Options(
            seeds=getattr(args, "seeds", None),
            calibration=getattr(args, "calibration", None) or "disjoint",
        ),
        inputs=Inputs(device=getattr(args, "device", None)),
        out=out,
        resume=bool(getattr(args, "resume", False)),
        command=getattr(args, "command_line", None),
    )
    print(format_summary(summarize(experiment, recs)))
    print(
        f"wall time {time.perf_counter() - t0:.1f} s; "
        f"records in {results_path(out, args.model, experiment, scale)}"
    )
    return 0
