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

from companion._validate import check_bool, check_choice, check_int, check_real
from companion.llm._checks import (
    check_module,
    check_optional_str,
    check_path,
    check_rates,
    check_tokenizer,
    check_tokens,
    check_windows,
)
from companion.llm.sign_flips.context import Context, Experiment
from companion.llm.sign_flips.experiments import EXPERIMENTS, format_summary, summarize
from companion.llm.sign_flips.experiments import experiment as _experiment
from companion.llm.sign_flips.layers import check_layer_name, default_target, linear_layers
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

    def __post_init__(self):
        if self.seeds is not None:
            check_int(self.seeds, "seeds", low=1)
        if self.p is not None:
            check_real(self.p, "p", low=0.0, high=1.0, low_open=True)
        if self.ps is not None:
            object.__setattr__(self, "ps", check_rates(self.ps, "ps"))
        check_optional_str(self.layer, "layer")
        check_choice(self.calibration, "calibration", CALIBRATIONS)
        if self.setup is not None and not isinstance(self.setup, Setup):
            raise TypeError(f"`setup` must be a Setup or None; got {type(self.setup).__name__}")


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

    def __post_init__(self):
        if self.model is not None:
            check_module(self.model)
        if self.tokenizer is not None:
            check_tokenizer(self.tokenizer)
        for name in ("windows", "calib"):
            if getattr(self, name) is not None:
                check_windows(getattr(self, name), name, min_tokens=2)
        if self.device is not None:
            from companion.llm.devices import check_device

            check_device(self.device)


def results_path(out, model: str, experiment: str, scale: str = "cpu") -> str:
    """Where an experiment's records live: ``<out>/<model>/<experiment>-<scale>.jsonl``
    (``out=None``: the results root's ``sign_flips/``, :func:`companion.results.locate`)."""
    _check_names(model, experiment, scale)
    if check_path(out, "out") is None:
        from companion.results import locate

        return str(locate(RESULTS, model, f"{experiment}-{scale}.jsonl"))
    return os.path.join(os.fspath(out), model, f"{experiment}-{scale}.jsonl")


def load_results(model: str, experiment: str, *, scale: str = "cpu", out=None) -> list:
    """The stored records of one experiment ([] when the file is absent).

    ``out=None`` reads the results root (:func:`results_path`).
    """
    from companion.results import read_jsonl

    _check_names(model, experiment, scale)
    return read_jsonl(results_path(out, model, experiment, scale))


def command_line(experiment: str, model: str, scale: str = "cpu", seeds: int | None = None) -> str:
    """The CLI command that produces an experiment's results file."""
    _check_names(model, experiment, scale)
    if seeds is not None:
        check_int(seeds, "seeds", low=1)
    cmd = f"companion run sign-flips --experiment {experiment} --model {model} --scale {scale}"
    return cmd + (f" --seeds {seeds}" if seeds else "") + " --resume"


def _check_names(model: str, experiment: str, scale: str) -> None:
    from companion.scale import SCALES

    if not isinstance(model, str) or not model or "/" in model or model.startswith("."):
        got = repr(model) if isinstance(model, str) else type(model).__name__
        raise TypeError(f"`model` must be a model name (a str, no '/'); got {got}")
    check_choice(experiment, "experiment", EXPERIMENTS)
    check_choice(scale, "scale", SCALES)


class _Store:
    """The run's view of its :class:`companion.results.ResultStore`: adds the run's metadata
    to every record; without ``resume`` a setting counts as done only once this run wrote it
    (it is measured again and its new record replaces the stored one)."""

    def __init__(self, inner, meta: dict, command: str, *, resume: bool):
        self.inner, self.meta, self.command, self.resume = inner, meta, command, resume
        self.path, self.written = inner.path, set()

    def done(self, key) -> bool:
        return key in self.written or (self.resume and self.inner.done(key))

    def get(self, key) -> dict | None:
        """The stored record of ``key`` when it counts as done, else None."""
        if not self.done(key):
            return None
        return next((r for r in self.inner.records() if r.get("key") == key), None)

    def records(self):
        return self.inner.records()

    def append(self, rec, *, command=None):  # the run's own command is written
        full = {
            "model": self.meta["model"],
            "dtype": self.meta["dtype"],
            "device": self.meta["device"],
            "seed": rec.get("seed"),
            "meta": self.meta,
            **rec,
        }
        out = self.inner.append(full, command=self.command)
        self.written.add(out["key"])
        return out


def _meta(
    model, name: str, scale: str, experiment: str, windows, calib, calibration, source
) -> dict:
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
        "source": source,
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "machine": platform.machine(),
        "threads": torch.get_num_threads(),
    }


def _checked(exp: Experiment, cfg: Setup, options: Options) -> dict:
    """The run's seeds, p and ps (:class:`Options` checked them; defaults from the setup)."""
    return {
        "seeds": getattr(cfg, exp.seeds_field) if options.seeds is None else options.seeds,
        "p": cfg.outlier_p if options.p is None else options.p,
        "ps": options.ps or cfg.leverage_ps,
    }


def _check_model(model_name: str, inputs: Inputs, experiment: str = "") -> None:
    """A model to load by name must be a registered causal language model (Table 1, which
    reads the weights only, also takes Whisper's stacks)."""
    if not isinstance(model_name, str):
        raise TypeError(f"`model_name` must be a str; got {type(model_name).__name__}")
    if inputs.model is not None:
        return
    from companion.llm.registry import get_spec

    spec = get_spec(model_name)
    if experiment == "table1" and spec.modality == "speech":
        return
    if spec.modality != "text" or spec.post_ln:
        kind = "an encoder" if spec.modality == "text" else f"a {spec.modality} model"
        raise ValueError(
            f"`model_name` must be a causal language model (sign flips are scored by "
            f"next-token NLL), e.g. 'smollm2-135m'; got {model_name!r}, {kind} "
            f"({spec.architecture})"
        )


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
        check_tokens(calib, cfg.min_calib_tokens)
    if "target" in exp.needs:
        check_tokens(windows, cfg.min_calib_tokens)
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
        Skip settings already stored. Without it every setting of this run is measured
        again and replaces its stored record; no other record is removed.
    command : str, optional
        The command line stored with every record (default: this process's).
    progress : bool
        Progress bars (also silenced by ``COMPANION_PROGRESS=0``).

    Every argument is checked before anything is written: an invalid ``p``, an unknown
    experiment, a layer name that does not match or too few calibration tokens raise
    ValueError and leave no record. The results file is checked before the model loads
    (:class:`companion.results.ResultStore`: a corrupt line is refused, a truncated last
    line quarantined), so no work is lost to a bad file.
    """
    from companion.results import ResultStore, experiment_dir

    exp = _experiment(check_choice(experiment, "experiment", EXPERIMENTS))
    options = Options() if options is None else options
    inputs = Inputs() if inputs is None else inputs
    for name, value, cls in (("options", options, Options), ("inputs", inputs, Inputs)):
        if not isinstance(value, cls):
            raise TypeError(f"`{name}` must be {cls.__name__} or None; got {type(value).__name__}")
    check_bool(resume, "resume")
    check_bool(progress, "progress")
    check_optional_str(command, "command")
    check_path(out, "out")
    cfg = options.setup or setup(scale)
    run = _checked(exp, cfg, options)
    _check_model(model_name, inputs, experiment)
    out = experiment_dir(RESULTS, write=True) if out is None else out
    results = ResultStore(results_path(out, model_name, experiment, scale))
    results.recover()
    t_load = time.perf_counter()
    model, tokenizer = _load(model_name, scale, inputs)
    model.eval()
    layers = linear_layers(model)
    target = None
    if "target" in exp.needs:
        target = default_target(layers) if options.layer is None else options.layer
        check_layer_name(target, layers, "layer")
    windows, calib = _windows(exp, cfg, tokenizer, inputs, options.calibration)
    load_s = time.perf_counter() - t_load
    meta = _meta(
        model, model_name, scale, experiment, windows, calib, options.calibration, cfg.source
    )
    _check_compatible(results.records(), meta, results.path)
    meta.update(seeds=run["seeds"], load_s=load_s)
    if experiment == "leverage":
        meta["linear_seeds"] = max(run["seeds"], cfg.leverage_linear_seeds)
    if command is None:
        command = _default_command(experiment, model_name, scale, run["seeds"])
    store = _Store(results, meta, command, resume=resume)
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


#: The meta fields that define what a record measured: records that differ in one of them
#: (both sides set) are never mixed in one results file.
SAME = ("model", "dtype", "eval_windows", "window", "calib_windows", "source")


def _check_compatible(stored: list, meta: dict, path) -> None:
    """Refuse a run whose windows, text or dtype differ from the records already in its
    file: their ΔNLLs would be pooled as one measurement. Sizes of 0 (an experiment that
    reads the weights only) and fields an older record lacks are not compared."""
    for rec in stored:
        old = rec.get("meta") or {}
        diff = [
            f"{k} {old[k]!r} (stored) against {meta[k]!r} (this run)"
            for k in SAME
            if old.get(k) not in (None, 0) and meta.get(k) not in (None, 0) and old[k] != meta[k]
        ]
        if diff:
            raise ValueError(
                f"{path} holds records measured with other settings ({'; '.join(diff)}); "
                "write this run to another --out folder"
            )


def _bar(it, desc):
    from companion.llm.progress import progress

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
