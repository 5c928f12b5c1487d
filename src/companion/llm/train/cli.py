"""``companion train``: train a trained-here model (added to ``companion`` by :func:`add_commands`).

    companion train --model tiny-gpt-ln|tiny-gpt-rms [--steps N] [--resume]
                    [--threads N] [--out DIR]

Trains into ``--out`` (default ``<cache>/train/<model>-<steps>steps``, outside git), with
progress on the terminal (steps, loss, tokens/s; silent with ``COMPANION_PROGRESS=0``), and
prints one summary line. ``--resume`` continues a run killed or stopped (bit-identical to an
uninterrupted one at the same ``--threads``). Bad input (an unknown model, ``--steps`` ≤ 0, a
folder holding another run, a corrupt checkpoint) is one line ``error: …``, exit code 2.
Building the parser imports neither torch nor transformers.
"""

from __future__ import annotations

import sys

from companion.llm.train.model import MODELS

__all__ = ["add_commands"]


def _train(args) -> int:
    from companion.llm._checks import check_out
    from companion.llm.train.checkpoints import CheckpointError
    from companion.llm.train.trainer import TrainConfig, train

    check_out(args.out)  # a file or an unwritable folder: one line, before anything runs
    cfg = TrainConfig(args.model, steps=args.steps, threads=args.threads)
    try:
        manifest = train(cfg, folder=args.out, resume=args.resume)
    except CheckpointError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: finished checkpoints are kept (--resume continues)", file=sys.stderr)
        return 130
    last = manifest["checkpoints"][-1]
    state = "finished" if manifest["finished"] else "stopped"
    print(
        f"{args.model}: {state} at step {manifest['resume']['step'] if manifest['resume'] else 0}"
        f" of {cfg.steps}; validation loss {last['val_loss']:.3f} nats/byte at step "
        f"{last['step']}; {len(manifest['checkpoints'])} checkpoints"
    )
    return 0


def add_commands(subparsers) -> None:
    """Add ``train`` to the ``companion`` parser."""
    p = subparsers.add_parser(
        "train", help="train the book's tiny GPT (LayerNorm) or its RMSNorm twin, resumably"
    )
    p.add_argument("--model", required=True, choices=MODELS)
    p.add_argument("--steps", type=int, default=2000, help="optimiser steps (default 2000)")
    p.add_argument("--resume", action="store_true", help="continue the run in the folder")
    p.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (default 1; a resume must use the same)",
    )
    p.add_argument("--out", default=None, help="run folder (default: under the model cache)")
    p.set_defaults(func=_train)
