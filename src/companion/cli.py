"""``companion`` command line: the claims ledger, models, and long resumable runs.

companion claims [--paper dong|shirodkar] [--json] [--full] [--controls] [--id ID] [--list]
companion models
companion plan [--scale full] [--gpu-memory GB] [--json]
companion run dead-directions ... | companion run sign-flips ... | companion run what-fits ...
companion train --model tiny-gpt-ln|tiny-gpt-rms [--steps N] [--resume]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings

from companion.scale import SCALES

__all__ = ["main"]


def _claims(args) -> int:
    from companion import claims, ledger
    from companion.claims.render import fmt_value

    if args.list:
        for c in ledger.all_claims(args.paper):
            control = f"  control: {c.control_method or 'none: ' + c.control_none}"
            print(f"{c.id}  ({c.evidence}){control if args.controls else ''}")
        return 0
    try:
        ids = [ledger.get(i).id for i in args.id] if args.id else None
    except KeyError as err:  # an unknown id: one line, exit code 2 (no traceback)
        print(f"error: {err.args[0]}", file=sys.stderr)
        return 2
    results = ledger.run_many(args.paper, full=args.full, scale=args.scale, ids=ids)
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


# ----------------------------------------------------------------------------- user errors
# Every user error is one line on stderr, ``error: ...``, and exit code 2: argparse's own
# (a wrong choice, a missing option) through _Parser.error, and the library's one-style
# errors (``ValueError("`seeds` must be an integer >= 1; got 0")``) through main(), which
# names the option the parameter came from. COMPANION_DEBUG=1 shows the traceback instead.


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line ``error: ...`` (exit code 2)."""

    def error(self, message):
        self.exit(2, f"error: {message}\n")


#: Library parameter names -> the option (argparse dest) they come from, where they differ.
_ALIASES = {"name": "model", "model_name": "model", "num_layers": "layers", "claim_id": "id"}
_ONE_STYLE = re.compile(r"^`(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\[[^`]*\])?` (?P<rest>.*)$", re.S)


def _options(parser: argparse.ArgumentParser) -> dict:
    """``{dest: "--option"}`` of a (sub)command's options."""
    return {a.dest: a.option_strings[-1] for a in parser._actions if a.option_strings}


def _leaf_parsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _leaf_parsers(sub)
            return
    yield parser


def _user_message(err: BaseException, options: dict) -> str | None:
    """The one line for a user error (None for anything else: a bug keeps its traceback).

    User errors: the library's one-style ValueError/TypeError/LookupError (the message names
    a parameter in backticks), and the environment's OSError and ImportError (files, the
    network, packages). A named parameter that is an option becomes ``argument --option:``.
    """
    text = err.args[0] if isinstance(err, LookupError) and err.args else str(err)
    m = _ONE_STYLE.match(str(text))
    if isinstance(err, (ValueError, TypeError, LookupError)) and m is None:
        return None
    if not isinstance(err, (ValueError, TypeError, LookupError, OSError, ImportError)):
        return None
    if m is not None:
        option = options.get(_ALIASES.get(m["name"], m["name"]))
        if option is not None:
            return f"argument {option}: {m['rest']}"
    return str(text)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr if file is None else file)


def _build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="companion", description=__doc__.splitlines()[0])
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
    for leaf in _leaf_parsers(p):
        leaf.set_defaults(_options=_options(leaf))
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
    importlib.import_module("companion.llm.plan_cli").add_commands(sub)  # plan, run what-fits
    importlib.import_module("companion.llm.train.cli").add_commands(sub)  # train
    importlib.import_module("companion.llm.trajectory.cli").add_commands(sub)  # train-geometry


def main(argv=None) -> int:
    """Run the command line; user errors are one line ``error: ...`` and exit code 2."""
    args = _build_parser().parse_args(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # one line each, no source excerpt
        try:
            return args.func(args)
        except KeyboardInterrupt:
            hint = (
                ": finished records are kept (--resume continues)" if args.command == "run" else ""
            )
            print(f"interrupted{hint}", file=sys.stderr)
            return 130
        except Exception as err:
            message = _user_message(err, getattr(args, "_options", {}))
            if message is None or os.environ.get("COMPANION_DEBUG"):
                raise
            print(f"error: {message}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
