"""The resumable driver behind ``companion run dead-directions``: settings checked before
loading, calibration input per modality (text, images, espeak-ng speech), one record per
model and settings in the results root (:mod:`companion.results`)."""

from __future__ import annotations

import math
import sys
import time

from companion.llm.dead_directions.diagnosis import diagnose

__all__ = [
    "run_dead_directions",
    "run_cli",
    "results_dir",
    "results_path",
    "load_results",
]

#: Transcript tokens per spoken clip (Whisper: 4 prompt tokens precede them, so one clip
#: gives 100 decoder positions and 1,500 encoder frames).
SPEECH_WINDOW = 96


def _folder(scale: str) -> str:
    from companion.llm.dead_directions.presets import preset

    preset(scale)  # checks `scale`
    return "dead_directions" if scale == "cpu" else f"dead_directions_{scale}"


def results_dir(scale: str = "cpu", *, write: bool = False) -> str:
    """The results root's folder for ``scale``: ``dead_directions`` (CPU scale, committed),
    else ``dead_directions_<scale>`` (:mod:`companion.results`)."""
    from companion._validate import check_bool
    from companion.results import experiment_dir

    return str(experiment_dir(_folder(scale), write=check_bool(write, "write")))


def results_path(out: str | None = None, *, scale: str = "cpu") -> str:
    """The JSONL file the CLI writes under ``out`` (default: that of ``scale`` in the results
    root, the copy written here if there is one)."""
    import os

    from companion.llm._checks import check_path

    folder = _folder(scale)
    if check_path(out, "out") is None:
        from companion.results import locate

        return str(locate(folder, "dead_directions.jsonl"))
    return os.path.join(out, "dead_directions.jsonl")


def load_results(out: str | None = None, *, scale: str = "cpu") -> list[dict]:
    """Every record the CLI wrote under ``out`` (default: the results root's folder for
    ``scale``); empty when absent."""
    from companion.results import ResultStore

    return ResultStore(results_path(out, scale=scale)).records()


def calibration_batches(spec, model, tok, settings):
    """``(batches, number of batches)`` of the calibration input of ``settings``."""
    from companion.llm.data import image_batches, token_windows
    from companion.llm.dead_directions.presets import preset

    tokens, window = settings["tokens"], settings["window"]
    if spec.modality == "speech":  # one set of clips for both stacks (see run_settings)
        from companion.llm.speech import speech_batches
        from companion.llm.whisper import feature_extractor

        n = settings["clips"]
        fe = feature_extractor(model.config)
        return speech_batches(tok, fe, n_clips=n, window=window, batch_size=4), math.ceil(n / 4)
    if spec.modality == "image":
        size = preset(settings["scale"]).image_size
        per_image = (size // spec.config.get("patch_size", 16)) ** 2 + 1
        n_images = math.ceil(tokens / per_image)
        return image_batches(n_images, size=size, batch_size=4), math.ceil(n_images / 4)
    n_win = math.ceil(tokens / window)
    ids = token_windows(tok, n_windows=n_win, window=window, source="wiki")  # (n_win, window)
    return list(ids.split(8)), math.ceil(n_win / 8)


def run_settings(spec, *, init, scale, tokens, layers, dtype, revision) -> tuple[dict, object]:
    """``(settings, depth to build)`` of one run, checked before anything is loaded.

    Speech (Whisper's stacks): ``tokens`` counts decoder positions; both stacks read the
    same clips (``clips_for_tokens(tokens)``: 21 clips = 2,100 decoder positions and
    31,500 encoder frames at the CPU default), at random init and trained alike.
    """
    from companion._validate import check_choice, check_int
    from companion.llm.dead_directions.presets import preset

    check_choice(init, "init", ("random", "trained"))
    pre = preset(scale)
    width = pre.width(spec)  # what is built: the smoke scale's text and image models are tiny
    if tokens is None:
        tokens = pre.n_tokens(width)
        if init == "trained" and spec.modality != "speech":
            tokens = max(pre.trained_tokens, tokens)
    tokens = check_int(tokens, "tokens", low=1)
    if tokens <= width:
        raise ValueError(
            f"`tokens` must be > d = {width} for model {spec.name!r} (a unique bottom "
            f"direction needs N > d); got {tokens}"
        )
    if init == "random" and layers is None:
        layers = pre.random_layers
    smoke = pre.scale == "smoke"  # builds every model, trained too, at its tiny depth
    if layers == "full":  # the depth the trained model is built at, here
        layers = pre.random_layers if smoke else spec.n_layers
    if layers is not None:
        layers = check_int(layers, "layers", low=1, high=spec.n_layers)
    if init == "trained" and layers is not None:
        raise ValueError(f"`layers` must be None for init='trained'; got {layers}")
    if revision is not None and (init != "trained" or spec.source != "hub"):
        raise ValueError(
            f"`revision` must be None unless init='trained' on a hub model; "
            f"got {revision!r} for {spec.name!r} ({spec.source}, init={init!r})"
        )
    source = {"image": "images", "speech": "espeak-ng speech of wiki"}.get(spec.modality, "wiki")
    settings = {
        "experiment": "dead-directions",
        **{"model": spec.name, "init": init, "scale": scale, "tokens": tokens},
        "layers": layers or (pre.random_layers if smoke else spec.n_layers),
        "window": SPEECH_WINDOW if spec.modality == "speech" else pre.window,
        **{"source": source, "dtype": str(dtype or "float32"), "seed": 0},
    }
    if spec.modality == "speech":
        from companion.llm.speech import clips_for_tokens

        settings["clips"] = clips_for_tokens(tokens, window=SPEECH_WINDOW)
    if revision is not None:  # only then: keeps the keys of earlier records
        settings["revision"] = revision
    return settings, layers


def _diagnose_model(spec, settings, layers, *, device, dtype, show_progress, profile_tokens):
    """Load the model of ``settings``, diagnose it, and return the record (without key)."""
    from companion.llm.dead_directions.presets import preset
    from companion.llm.loading import load_model, model_info

    init, scale = settings["init"], settings["scale"]
    t0 = time.perf_counter()
    model, tok = load_model(
        spec.name,
        init=init,
        scale=scale,
        device=device,
        dtype=dtype,
        num_layers=layers if init == "random" else None,
        revision=settings.get("revision"),
    )
    t_load = time.perf_counter() - t0
    batches, total = calibration_batches(spec, model, tok, settings)
    if profile_tokens is None:
        profile_tokens = max(4 * spec.width, 8192) if scale == "cpu" else None
    diag = diagnose(  # finds the final norm (Whisper's stacks: probed with example_input())
        model,
        batches,
        profile_tokens=profile_tokens,
        show_progress=show_progress,
        total=total,
    )
    info = model_info(model)
    return {
        "settings": settings,
        **{"model": spec.name, "init": init, "scale": scale},
        **{"architecture": spec.architecture, "norm_registry": spec.norm},
        **{"width": preset(scale).width(spec), "layers": settings["layers"]},
        **{"n_params_loaded": info["n_params"], "dtype": info["dtype"]},
        **{"device": info["device"], "seed": 0, "load_s": t_load},
        **diag.to_record(),
    }


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
    trajectory, one record per step); it is part of the record's settings. Speech models
    (Whisper's stacks) read clips spoken by espeak-ng (:mod:`companion.llm.speech`).

    Checks the settings before loading anything (unknown name, N ≤ d, hub without network);
    a failing run writes nothing. With ``resume`` a stored record of the same settings is
    returned without recomputing.
    """
    from companion._validate import check_bool
    from companion.llm._checks import check_optional_int, check_optional_str, check_path
    from companion.llm.devices import check_device
    from companion.llm.registry import get_spec
    from companion.results import ResultStore, run_record

    spec = get_spec(name)
    check_path(out, "out")
    resume, show_progress = check_bool(resume, "resume"), check_bool(show_progress, "show_progress")
    check_device(device)
    check_optional_str(command, "command")
    check_optional_int(profile_tokens, "profile_tokens", low=0)
    settings, depth = run_settings(
        spec, init=init, scale=scale, tokens=tokens, layers=layers, dtype=dtype, revision=revision
    )
    store = ResultStore(results_path(out or results_dir(scale, write=True)))
    measured = []

    def measure() -> dict:
        measured.append(True)
        if spec.modality == "speech":  # before loading: the clips need the synthesiser
            from companion.llm.speech import espeak

            espeak()
        return _diagnose_model(
            spec,
            settings,
            depth,
            device=device,
            dtype=dtype,
            show_progress=show_progress,
            profile_tokens=profile_tokens,
        )

    rec = run_record(store, settings, measure, resume=resume, command=command)
    if not measured and show_progress:
        print(f"{name} ({init}): done, skipped (--resume)", file=sys.stderr)
    return rec


def _summary(rec: dict) -> str:
    """One line per record for the CLI."""
    steps = rec.get("sigma_step_no_pos0") or []
    return (
        f"{rec['model']:<20} {rec['init']:<7} d={rec['d']:<5} N={rec['n_tokens']:<6} "
        f"|cos|={rec['cos']:.6f} null-space={rec.get('cos_subspace_fp64', float('nan')):.6f} "
        f"rho={rec['diag_rayleigh']:.2e} verdict={rec['verdict']} ({rec['dtype']}) "
        f"min σ-step={min(steps or [float('nan')]):.3f}"
    )


def run_cli(args) -> int:
    """``companion run dead-directions``: one record per model (``--model all``: every model)."""
    from companion.llm.loading import HubUnavailable
    from companion.llm.norms import NormNotFound
    from companion.llm.registry import list_models
    from companion.llm.speech import SpeechUnavailable

    names = []
    # `all`: the registry's engine models; the trained-here twins (companion train) join a
    # run only by name
    every = [s.name for s in list_models() if s.source != "trained-here"]
    for m in args.model:
        names.extend(every) if m == "all" else names.append(m)
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
                command=getattr(args, "command_line", None),
                revision=revision,
            )
        except (
            ValueError,
            HubUnavailable,
            NormNotFound,
            ModuleNotFoundError,
            SpeechUnavailable,
        ) as err:
            print(f"error: {name}{'@' + revision if revision else ''}: {err}", file=sys.stderr)
            status = 2
            continue
        print(_summary(rec))
    return status
