"""CLI commands of the model engine (added to ``companion`` by :func:`add_commands`).

    companion models
    companion run dead-directions --model NAME|all [--init random|trained] [--scale cpu|full|smoke]
                                  [--tokens N] [--out DIR] [--resume]
    companion run sign-flips --experiment table1|outlier|leverage|alpha|columns|
                             sign-vs-magnitude|outlier-random --model NAME
                             [--scale cpu|full|smoke] [--seeds K] [--device D] [--out DIR]
                             [--resume]

Both run commands append to their results file and never delete a finished record: with
``--resume`` a setting already stored is skipped, without it the setting is measured again
and its new record replaces the old one. Their options are checked before anything loads;
a bad value is one line ``error: argument --option: ...`` and exit code 2
(:func:`companion.cli.main`).

Building the parser imports neither torch nor transformers; the run commands import
their modules only when they execute.
"""

from __future__ import annotations

import sys

from companion.llm._checks import check_out
from companion.scale import SCALES

#: Bytes a calibration token costs before any model loads: its id, its text, its statistics.
_BYTES_PER_TOKEN = 16
#: Bytes a seed costs at least: its record (in the file and in memory) and its flip masks.
_BYTES_PER_SEED = 1024

__all__ = ["add_commands", "SIGN_FLIP_EXPERIMENTS"]

SIGN_FLIP_EXPERIMENTS = (
    "table1",
    "outlier",
    "leverage",
    "alpha",
    "columns",
    "sign-vs-magnitude",
    "outlier-random",
)


def _models(args) -> int:
    from companion.llm.registry import format_registry

    print(format_registry())
    return 0


def _check_device(args) -> None:
    if getattr(args, "device", None) is not None:
        from companion.llm.loading import check_device

        check_device(args.device)


def _dead_directions(args) -> int:
    """Check every option (names, depth, tokens, out, device) before any model loads."""
    from companion._validate import check_int, check_memory
    from companion.llm.dead_directions import run_cli
    from companion.llm.registry import get_spec, list_models

    specs = [get_spec(m) for m in args.model if m != "all"]
    if args.tokens is not None:
        tokens = check_int(args.tokens, "tokens", low=1)
        check_memory(
            _BYTES_PER_TOKEN * tokens,
            "tokens",
            tokens,
            what=f"~{_BYTES_PER_TOKEN} bytes a token: ids, text and statistics",
        )
    if isinstance(args.layers, int):
        if args.init == "trained":
            raise ValueError(f"`layers` must be left out with --init trained; got {args.layers}")
        if "all" in args.model:  # one line, not one per model
            # `all` leaves the trained-here twins out (as the driver does)
            low = min(
                (s for s in list_models() if s.source != "trained-here"), key=lambda s: s.n_layers
            )
            if not 1 <= args.layers <= low.n_layers:
                raise ValueError(
                    f"`layers` must be an integer in [1, {low.n_layers}] with --model all "
                    f"(the shallowest, {low.name}, has {low.n_layers} blocks); got {args.layers}"
                )
        for spec in specs:
            check_int(args.layers, "layers", low=1, high=spec.n_layers)
    check_out(args.out)
    _check_device(args)
    return run_cli(args)


def _sign_flips(args) -> int:
    """Check every option (seeds, out, device) before any model loads."""
    from companion._validate import check_int, check_memory
    from companion.llm.sign_flips import run_cli

    if args.seeds is not None:
        seeds = check_int(args.seeds, "seeds", low=1)
        check_memory(
            _BYTES_PER_SEED * seeds,
            "seeds",
            seeds,
            what=f"at least {_BYTES_PER_SEED} bytes a seed: its record and flips",
        )
    check_out(args.out)
    _check_device(args)
    return run_cli(args)


def _layers(text: str):
    return "full" if text == "full" else int(text)


def _command_line() -> str:
    argv = list(sys.argv)
    prog = (
        "companion"
        if argv and argv[0].endswith(("companion", "__main__.py", "cli.py"))
        else argv[0]
    )
    return " ".join([prog] + argv[1:]) if argv else "companion"


def add_commands(subparsers) -> None:
    """Add ``models`` and ``run {dead-directions, sign-flips}`` to the ``companion`` parser."""
    m = subparsers.add_parser("models", help="print the model registry")
    m.set_defaults(func=_models)
    r = subparsers.add_parser("run", help="long, resumable model experiments (results as JSONL)")
    rs = r.add_subparsers(dest="experiment_kind", required=True)

    d = rs.add_parser(
        "dead-directions", help="the dead-direction diagnostic (Shirodkar & Narayanan)"
    )
    d.add_argument(
        "--model",
        required=True,
        action="append",
        help="registered model name (repeatable), or 'all'",
    )
    d.add_argument("--init", choices=["random", "trained"], default="trained")
    d.add_argument("--scale", choices=SCALES, default="cpu")
    d.add_argument(
        "--tokens",
        type=int,
        default=None,
        help="calibration tokens N (default: the scale preset, N > d)",
    )
    d.add_argument(
        "--layers",
        type=_layers,
        default=None,
        help="depth of random-init models: an integer, or 'full' (the real depth)",
    )
    d.add_argument(
        "--revision",
        action="append",
        default=None,
        help="hub checkpoint revision, repeatable (one record each): e.g. --revision step0 "
        "--revision step1000 ... for the Pythia training trajectory",
    )
    d.add_argument(
        "--out",
        default=None,
        help="results folder (default: dead_directions[_SCALE] under the results root)",
    )
    d.add_argument(
        "--resume", action="store_true", help="skip settings already in the results file"
    )
    d.add_argument("--device", default=None, help="cpu, cuda, cuda:N or mps (default: cuda if any)")
    d.add_argument("--dtype", default=None, choices=[None, "float32", "bfloat16", "float16"])
    d.set_defaults(func=_dead_directions, command_line=_command_line())

    s = rs.add_parser("sign-flips", help="sign flips at scale (Dong)")
    s.add_argument("--experiment", required=True, choices=SIGN_FLIP_EXPERIMENTS)
    s.add_argument("--model", required=True)
    s.add_argument("--scale", choices=SCALES, default="cpu")
    s.add_argument("--seeds", type=int, default=None)
    s.add_argument(
        "--calibration",
        choices=["disjoint", "overlap"],
        default="disjoint",
        help="outlier calibration windows: disjoint from evaluation (default) or the "
        "author's overlapping protocol (calibrate on the first evaluation windows)",
    )
    s.add_argument(
        "--out", default=None, help="results folder (default: sign_flips under the results root)"
    )
    s.add_argument("--resume", action="store_true", help="skip settings already stored")
    s.add_argument("--device", default=None, help="cpu, cuda, cuda:N or mps (default: cuda if any)")
    s.set_defaults(func=_sign_flips, command_line=_command_line())

    from companion.llm.dead_directions.walk_cli import add_walk_command  # issue 23

    add_walk_command(rs, _command_line())

    from companion.llm.dead_directions.sublayers_run import add_split_command  # issue 22

    add_split_command(rs, _command_line())
