"""``companion`` command line: the claims ledger, models, and long resumable runs.

companion claims [--paper dong|shirodkar] [--json] [--full]
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

    results = claims.run_many(args.paper, full=args.full, scale=args.scale, ids=args.id or None)
    if args.json:
        print(claims.to_json(results))
        return 0
    width = max((len(r.id) for r in results), default=10)
    for r in results:
        val = claims._fmt_value(r)
        print(f"{r.id:<{width}}  {r.status:<10}  ours {val:<22}  paper {r.paper_value}")
        if r.reason:
            print(f"{'':<{width}}  {'':<10}  reason: {r.reason}")
    counts = {s: sum(r.status == s for r in results) for s in claims.STATUSES}
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="companion", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("claims", help="measure the claims ledger now and print it")
    c.add_argument("--paper", choices=["dong", "shirodkar"])
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.add_argument("--full", action="store_true", help="also run the model experiments")
    c.add_argument("--scale", choices=SCALES, default="cpu")
    c.add_argument("--id", action="append", help="only this claim id (repeatable)")
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
