"""``companion run sigma-split``: the σ_min split by sublayer (:mod:`.sublayers`) of one
registered model per record, resumable, in ``sigma_split[_<scale>]/sigma_split.jsonl`` of the
results root; its parser (:func:`add_split_command`, importing neither torch nor
transformers).

    companion run sigma-split --model NAME|all [--init trained|random] [--scale cpu|full|smoke]
                              [--tokens N] [--cancel mlp:BLOCK|attention:BLOCK]
                              [--out DIR] [--resume] [--device D] [--dtype T]

The calibration input and its size are those of ``companion run dead-directions`` (the
same windows of Wikipedia text, espeak-ng speech for Whisper's stacks; the σ_min profile's
token budget), so a record's block ratios are the σ_min records' steps. ``--cancel`` runs a
control: that block's MLP (or attention) replaced by a map removing 99% of the stream along
its smallest singular direction (found on the first batch of the unmodified model).
"""

from __future__ import annotations

import os
import sys
import time

from companion.llm._checks import check_out
from companion.scale import SCALES

__all__ = ["run_sigma_split", "split_results_path", "load_split_results", "split_models"]

FILE = "sigma_split.jsonl"
_DTYPES = ("float32", "bfloat16", "float16")


def _folder(scale: str) -> str:
    from companion.llm.dead_directions.presets import preset

    preset(scale)  # checks `scale`
    return "sigma_split" if scale == "cpu" else f"sigma_split_{scale}"


def split_results_path(out: str | None = None, *, scale: str = "cpu", write: bool = False) -> str:
    """The JSONL file of ``scale`` under ``out`` (default: the results root's folder, the
    copy written here if there is one; with ``write`` the folder new records go to)."""
    from companion._validate import check_bool
    from companion.llm._checks import check_path
    from companion.results import experiment_dir, locate

    write = check_bool(write, "write")
    folder = _folder(scale)
    if check_path(out, "out") is not None:
        return os.path.join(out, FILE)
    if write:
        return str(experiment_dir(folder, write=True) / FILE)
    return str(locate(folder, FILE))


def load_split_results(out: str | None = None, *, scale: str = "cpu") -> list[dict]:
    """Every record of ``scale`` (empty when none)."""
    from companion.results import ResultStore

    return ResultStore(split_results_path(out, scale=scale)).records()


def split_models() -> tuple:
    """The trained checkpoints available offline whose blocks can be split (``--model all``);
    the post-LN ones (MiniLM) are left out (:func:`.sublayers.find_sublayers`)."""
    from companion.llm.registry import list_models

    return tuple(s.name for s in list_models() if s.source == "offline" and not s.post_ln)


def parse_cancel(text: str | None) -> tuple | None:
    """``"mlp:5"`` → ``("mlp", 5)``; None stays None."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise TypeError(
            f"`cancel` must be a str such as 'mlp:5' or None; got {type(text).__name__}"
        )
    sub, _, block = str(text).partition(":")
    if sub not in ("mlp", "attention") or not block.isdigit() or int(block) < 1:
        raise ValueError(
            f"`cancel` must be 'mlp:BLOCK' or 'attention:BLOCK' (BLOCK >= 1); got {text!r}"
        )
    return sub, int(block)


def _settings(spec, *, init, scale, tokens, dtype, cancel):
    from companion.llm.dead_directions.driver import run_settings

    if spec.post_ln:
        raise ValueError(
            f"`model` must have pre-norm blocks; {spec.name!r} is post-LN (every state between "
            "sublayers is a LayerNorm output), so its stream has no σ_min to split"
        )
    settings, depth = run_settings(
        spec, init=init, scale=scale, tokens=tokens, layers=None, dtype=dtype, revision=None
    )
    settings["experiment"] = "sigma-split"
    if cancel is not None:  # only then: keeps the keys of the unmodified records
        sub, block = cancel
        if block > settings["layers"]:
            raise ValueError(f"`cancel` block must be in [1, {settings['layers']}]; got {block}")
        settings["cancel"] = f"{sub}:{block}"
    return settings, depth


def _measure(spec, settings, depth, *, device, dtype, cancel) -> dict:
    from companion.llm.dead_directions.driver import calibration_batches
    from companion.llm.dead_directions.presets import preset
    from companion.llm.dead_directions.sublayers import (
        accumulate_split,
        bottom_direction,
        cancelling,
        localise,
        split_of,
    )
    from companion.llm.loading import load_model, model_info
    from companion.theory.gram import GramAccumulator

    t_start = time.perf_counter()
    init, scale = settings["init"], settings["scale"]
    model, tok = load_model(spec.name, init=init, scale=scale, device=device, dtype=dtype,
                            num_layers=depth if init == "random" else None)  # fmt: skip
    t_load = time.perf_counter() - t_start
    budget = max(4 * spec.width, 8192) if scale == "cpu" else None  # the profile's budget
    batches = lambda: calibration_batches(spec, model, tok, settings)[0]  # noqa: E731
    extra = {}
    if cancel is None:
        m = accumulate_split(model, batches(), profile_tokens=budget)
    else:
        sub, block = cancel
        first = accumulate_split(model, batches(), profile_tokens=1)  # one batch
        at = 2 * block - 1 if sub == "mlp" else 2 * block - 2  # A_b, or X_(b-1)
        acc = GramAccumulator()
        for a in first.states[at][:-1]:
            acc.merge(a)
        v = bottom_direction(acc)
        with cancelling(model, block, sub, v):
            m = accumulate_split(model, batches(), profile_tokens=budget)
        extra = {"cancel_direction_tokens": first.tokens, "cancel_share": 0.99}
    split = split_of(m.states, tokens=m.tokens)
    info = model_info(model)
    return {
        **{"model": spec.name, "init": init, "scale": scale},
        **{"architecture": spec.architecture, "norm_registry": spec.norm},
        **{"width": preset(scale).width(spec), "layers": settings["layers"]},
        "blocks": m.blocks,
        **{"mlp_norm": m.mlp_norm, "dtype": info["dtype"], "device": info["device"]},
        **{"n_params_loaded": info["n_params"], "seed": 0, "load_s": t_load},
        **split.to_record(),
        "localised": localise(split),
        **extra,
    }


def run_sigma_split(
    name: str,
    *,
    init: str = "trained",
    scale: str = "cpu",
    tokens: int | None = None,
    cancel=None,
    out: str | None = None,
    resume: bool = False,
    device=None,
    dtype=None,
    command: str | None = None,
) -> dict:
    """Split one registered model's σ_min steps by sublayer and append one record (returned).

    ``cancel``: ``("mlp" | "attention", block)`` or its text ``"mlp:5"`` (a control, see the
    module docs). Every setting is checked before anything loads (unknown name, post-LN,
    N ≤ d, an unwritable ``out``); a failing run writes nothing; with ``resume`` a stored
    record of the same settings is returned without recomputing.
    """
    from companion._validate import check_bool
    from companion.llm._checks import check_optional_str, check_path
    from companion.llm.devices import check_device
    from companion.llm.registry import get_spec
    from companion.results import ResultStore, run_record

    spec = get_spec(name)
    cancel = parse_cancel(f"{cancel[0]}:{cancel[1]}" if isinstance(cancel, tuple) else cancel)
    check_path(out, "out")
    check_out(out)
    resume = check_bool(resume, "resume")
    check_device(device)
    check_optional_str(command, "command")
    if dtype is not None and dtype not in _DTYPES:
        raise ValueError(f"`dtype` must be None or one of {', '.join(_DTYPES)}; got {dtype!r}")
    settings, depth = _settings(
        spec, init=init, scale=scale, tokens=tokens, dtype=dtype, cancel=cancel
    )
    store = ResultStore(split_results_path(out, scale=scale, write=True))

    def measure() -> dict:
        if spec.modality == "speech":  # before loading: the clips need the synthesiser
            from companion.llm.speech import espeak

            espeak()
        return _measure(spec, settings, depth, device=device, dtype=dtype, cancel=cancel)

    return run_record(store, settings, measure, resume=resume, command=command, timed="wall_s")


def _summary(rec: dict) -> str:
    found = rec.get("localised") or []
    carriers = {}
    for d in found:
        carriers[d["carrier"]] = carriers.get(d["carrier"], 0) + 1
    told = ", ".join(f"{k} {v}" for k, v in sorted(carriers.items())) or "none"
    cancel = rec["settings"].get("cancel")
    return (
        f"{rec['model']:<20} {rec['init']:<7}{' cancel ' + cancel if cancel else ''} "
        f"blocks={len(rec['split_block'])} declines below 1 - 4 SE: {len(found)} ({told})"
    )


def run_cli(args) -> int:
    """``companion run sigma-split``: one record per model (``all``: :func:`split_models`)."""
    from companion.llm.loading import HubUnavailable
    from companion.llm.norms import NormNotFound
    from companion.llm.registry import get_spec
    from companion.llm.speech import SpeechUnavailable

    names = []
    for m in args.model:
        names.extend(split_models()) if m == "all" else names.append(m)
    try:  # every setting of every run checked before the first model loads
        cancel = parse_cancel(args.cancel)
        check_out(args.out)
        for n in names:
            _settings(get_spec(n), init=args.init, scale=args.scale, tokens=args.tokens,
                      dtype=args.dtype, cancel=cancel)  # fmt: skip
        if args.device is not None:
            from companion.llm.devices import check_device

            check_device(args.device)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    status = 0
    for name in names:
        try:
            rec = run_sigma_split(
                name, init=args.init, scale=args.scale, tokens=args.tokens, cancel=cancel,
                out=args.out, resume=args.resume, device=args.device, dtype=args.dtype,
                command=args.command_line,
            )  # fmt: skip
        except (ValueError, HubUnavailable, NormNotFound, SpeechUnavailable) as err:
            print(f"error: {name}: {err}", file=sys.stderr)
            status = 2
            continue
        print(_summary(rec))
    return status


def add_split_command(runs, command_line: str) -> None:
    """Add ``sigma-split`` to the ``run`` subparsers ``runs``."""
    p = runs.add_parser(
        "sigma-split", help="σ_min of the residual stream split by sublayer (Shirodkar)"
    )
    p.add_argument("--model", required=True, action="append",
                   help="registered model name (repeatable), or 'all' (the offline trained "
                   "pre-norm checkpoints)")  # fmt: skip
    p.add_argument("--init", choices=["random", "trained"], default="trained")
    p.add_argument("--scale", choices=SCALES, default="cpu")
    p.add_argument(
        "--tokens", type=int, default=None, help="calibration tokens (as dead-directions)"
    )
    p.add_argument("--cancel", default=None,
                   help="control: 'mlp:BLOCK' or 'attention:BLOCK' (that sublayer cancels the "
                   "stream's smallest singular direction)")  # fmt: skip
    p.add_argument("--out", default=None, help="results folder (default: sigma_split[_SCALE])")
    p.add_argument("--resume", action="store_true", help="skip settings already stored")
    p.add_argument("--device", default=None, help="cpu, cuda, cuda:N or mps (default: cuda if any)")
    p.add_argument("--dtype", default=None, choices=[None, "float32", "bfloat16", "float16"])
    p.set_defaults(func=run_cli, command_line=command_line)
