"""``companion train-geometry`` (added to ``companion`` by :func:`add_commands`).

    companion train-geometry --model tiny-gpt-ln|tiny-gpt-rms [--steps N] [--resume]
                             [--run DIR] [--out DIR]

Bad input (an unknown model, ``--steps`` ≤ 0, no run or a foreign one in the folder, a
corrupt or other-twin checkpoint) is one line ``error: …``, exit code 2. Building the
parser imports neither torch nor transformers.
"""

from __future__ import annotations

from companion.llm.train.model import MODELS

__all__ = ["add_commands"]


def _geometry(args) -> int:
    from companion.llm.trajectory.driver import run_cli

    return run_cli(args)


def add_commands(subparsers) -> None:
    """Add ``train-geometry`` to the ``companion`` parser."""
    g = subparsers.add_parser(
        "train-geometry",
        help="both papers' geometry at every checkpoint of a trained run (one record each)",
    )
    g.add_argument("--model", required=True, choices=MODELS)
    g.add_argument("--steps", type=int, default=2000, help="the run's steps (default 2000)")
    g.add_argument("--resume", action="store_true", help="skip checkpoints already stored")
    g.add_argument("--run", default=None, help="run folder (default: under the model cache)")
    g.add_argument("--out", default=None, help="results folder (default: train/ in the root)")
    g.set_defaults(func=_geometry)
