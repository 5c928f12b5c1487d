"""``companion`` command line: the claims ledger, models, and long resumable runs.

companion claims [--paper dong|shirodkar] [--json] [--full] [--controls] [--id ID] [--list]
companion models
companion run dead-directions ... | companion run sign-flips ...
"""

from __future__ import annotations

import argparse
import sys

from companion.scale import SCALES

__all__ = ["main"]


def _claims(args) -> int:
    from companion import claims
    from companion.claims.render import fmt_value

    if args.list:
        for c in claims.all_claims(args.paper):
            print(f"{c.id}  ({c.evidence})")
        return 0
    try:
        ids = [claims.get(i).id for i in args.id] if args.id else None
    except KeyError as err:  # an unknown id: one line, exit code 2 (no traceback)
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    results = claims.run_many(args.paper, full=args.full, scale=args.scale, ids=ids)
    bad = [r for r in results if r.control_status == "reproduced"]
    if args.json:
        print(claims.to_json(results))
        return 1 if (args.controls and bad) else 0
    width = max((len(r.id) for r in results), default=10)
    if args.controls:
        for r in results:
            print(
                f"{r.id:<{width}}  {r.evidence:<13}  control {r.control_status:<10}  "
                f"{r.control_method or r.control_none}"
            )
            if r.control_detail:
                print(f"{'':<{width}}  {'':<13}  {r.control_detail}")
        shown = {s: sum(r.control_status == s for r in results) for s in claims.CONTROL_STATUSES}
        print("controls: " + ", ".join(f"{v} {k}" for k, v in shown.items()))
        return 1 if bad else 0
    for r in results:
        val = fmt_value(r)
        print(
            f"{r.id:<{width}}  {r.status:<10}  {r.evidence:<13}  ours {val:<22}  "
            f"paper {r.paper_value}"
        )
        if r.reason:
            print(f"{'':<{width}}  {'':<10}  {'':<13}  reason: {r.reason}")
    n = {s: sum(r.status == s for r in results) for s in claims.STATUSES}
    faced = sum(
        r.status == "reproduced" and r.evidence in ("paper-number", "author-result", "model")
        for r in results
    )
    print(
        ", ".join(f"{v} {k}" for k, v in n.items())
        + f" ({faced} of the reproduced face a paper, author or model number)"
    )
    return 0


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="companion", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser(
        "claims", help="measure the claims ledger (and its negative controls) and print it"
    )
    c.add_argument("--paper", choices=["dong", "shirodkar"])
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--full", action="store_true", help="also run the model experiments")
    c.add_argument("--scale", choices=SCALES, default="cpu")
    c.add_argument("--id", action="append", help="only this claim id (repeatable)")
    c.add_argument(
        "--controls",
        action="store_true",
        help="show every claim's negative control (exit code 1 if one does not deviate)",
    )
    c.add_argument("--list", action="store_true", help="list the claim ids and exit")
    c.set_defaults(func=_claims)
    _add_optional_commands(sub)
    return p


def _add_optional_commands(sub) -> None:
    """Commands whose modules register themselves (models, run ...)."""
    import importlib

    try:
        llm_cli = importlib.import_module("companion.llm.cli")
    except ModuleNotFoundError as err:
        if err.name not in ("companion.llm.cli",):
            raise
        return
    llm_cli.add_commands(sub)


def main(argv=None) -> int:
    args = _build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
