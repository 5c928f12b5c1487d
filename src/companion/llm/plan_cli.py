"""CLI commands of the at-scale plan (added to ``companion`` by :func:`add_commands`).

    companion plan [--scale full|smoke|cpu] [--gpu-memory GB] [--ram GB]
                   [--part dead-directions|sign-flips] [--json]
    companion run what-fits [--scale full|smoke] [--gpu-memory GB] [--ram GB]
                            [--part ...] [--out DIR]

``plan`` reads the runtime and prints every at-scale experiment with its precision,
estimated memory and time, and whether it fits (:mod:`companion.llm.plan`); ``run
what-fits`` runs those that fit, one model at a time, resumably (a finished record is never
measured twice), each failure in one line; exit code 0 when every step that fits ran, 1 when
one failed. Building the parser imports neither torch nor transformers.
"""

from __future__ import annotations

import argparse
import sys

from companion.scale import SCALES

__all__ = ["add_commands"]


def _gigabytes(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of GB; got {text!r}")
    return value


def _steps(args):
    from companion.llm import plan
    from companion.llm.runtime import read_runtime

    runtime = read_runtime(args.gpu_memory, ram_gb=args.ram)
    parts = tuple(args.part) if args.part else plan.PARTS
    return plan, runtime, plan.plan(args.scale, runtime=runtime, parts=parts)


def _plan(args) -> int:
    plan, runtime, steps = _steps(args)
    if args.json:
        print(plan.to_json(steps, runtime, args.scale))
    else:
        print(plan.format_plan(steps, runtime, args.scale))
    return 0


def _what_fits(args) -> int:
    plan, runtime, steps = _steps(args)
    print(f"scale {args.scale} on: {runtime.describe()}")
    outcomes = plan.run_what_fits(steps, args.scale, out=args.out)
    return 1 if any(status == "failed" for _, status, _ in outcomes) else 0


def _common(p) -> None:
    p.add_argument(
        "--gpu-memory",
        type=_gigabytes,
        default=None,
        metavar="GB",
        help="plan for a GPU of this memory instead of the one torch sees",
    )
    p.add_argument(
        "--ram", type=_gigabytes, default=None, metavar="GB", help="plan for this host memory"
    )
    p.add_argument(
        "--part",
        action="append",
        choices=["dead-directions", "sign-flips"],
        help="only this part's experiments (repeatable; default both)",
    )


def _run_subparsers(subparsers):
    run = subparsers.choices.get("run")
    if run is None:
        return None
    return next(a for a in run._actions if isinstance(a, argparse._SubParsersAction))


def add_commands(subparsers) -> None:
    """Add ``plan`` and ``run what-fits`` (when ``run`` exists) to the ``companion`` parser."""
    p = subparsers.add_parser(
        "plan", help="what the at-scale experiments need, and what fits this runtime"
    )
    p.add_argument("--scale", choices=SCALES, default="full")
    p.add_argument("--json", action="store_true", help="one JSON object per experiment")
    _common(p)
    p.set_defaults(func=_plan)
    rs = _run_subparsers(subparsers)
    if rs is None:
        return
    w = rs.add_parser("what-fits", help="run the at-scale experiments that fit this runtime")
    w.add_argument("--scale", choices=[s for s in SCALES if s != "cpu"], default="full")
    w.add_argument("--out", default=None, help="results folder (default: the results root)")
    _common(w)
    w.set_defaults(func=_what_fits, command_line=" ".join(["companion"] + sys.argv[1:]))
