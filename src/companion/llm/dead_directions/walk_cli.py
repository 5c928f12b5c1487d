"""``companion run walk``: the parser of the dead-direction walk (registered by
:func:`companion.llm.cli.add_commands`; building it imports neither torch nor transformers).

    companion run walk --model NAME [--model NAME ...] [--scale cpu|full|smoke]
                       [--tokens N] [--n-random K] [--out DIR] [--resume]
"""

from __future__ import annotations

from companion.scale import SCALES

__all__ = ["add_walk_command"]


def _run(args) -> int:
    from companion._validate import check_int
    from companion.llm._checks import check_out
    from companion.llm.dead_directions.walk import WALK_MODELS, run_cli
    from companion.llm.registry import get_spec

    args.model = args.model or list(WALK_MODELS)
    for m in args.model:  # names and sizes checked before any model loads
        get_spec(m)
    if args.tokens is not None:
        check_int(args.tokens, "tokens", low=8)
    check_int(args.n_random, "n_random", low=1)
    check_out(args.out)  # a folder it cannot write fails now, not after the walk
    return run_cli(args)


def add_walk_command(runs, command_line: str) -> None:
    """Add ``walk`` to the ``run`` subparsers ``runs``."""
    from companion.llm.dead_directions.walk import WALK_MODELS

    w = runs.add_parser(
        "walk", help="walk the dead direction of a trained model's final LayerNorm (Shirodkar)"
    )
    w.add_argument(
        "--model",
        action="append",
        default=None,
        help=f"registered model name (repeatable; default: {', '.join(WALK_MODELS)})",
    )
    w.add_argument("--scale", choices=SCALES, default="cpu")
    w.add_argument("--tokens", type=int, default=None, help="held-out tokens (cpu: 1000)")
    w.add_argument("--n-random", type=int, default=3, help="random directions per model")
    w.add_argument("--out", default=None, help="results folder (default: walk/ in the root)")
    w.add_argument("--resume", action="store_true", help="skip settings already stored")
    w.set_defaults(func=_run, command_line=command_line)
