"""A trained-here twin as the model registry hands it out (``load_model("tiny-gpt-ln")``).

Built and loaded by this package only: the generic random-init path of
:mod:`companion.llm.loading` would build ``tiny-gpt-rms`` as a LayerNorm GPT-NeoX (the
wrong norm).
"""

from __future__ import annotations

from companion._validate import check_choice, check_int
from companion.llm.train.checkpoints import CheckpointError, read_manifest
from companion.llm.train.model import MODELS, build_model
from companion.llm.train.trainer import load_trained, run_folder

__all__ = ["load_twin"]


def load_twin(name: str, init: str = "trained", num_layers=None, step=None):
    """Twin ``name`` at random init (its stated init) or trained (checkpoint ``step``, by
    default the last of the book's 2000-step run), in eval mode.

    Raises
    ------
    CheckpointError
        Trained, when no run of ``name`` is here: the message names ``companion train``.
    """
    check_choice(name, "name", tuple(MODELS))
    check_choice(init, "init", ("trained", "random"))
    if num_layers is not None:
        raise ValueError(
            f"`num_layers` must be None for trained-here model {name!r} (its depth is its "
            f"run's); got {num_layers!r}"
        )
    if step is not None:
        step = check_int(step, "step", low=0)
    if init == "random":
        if step is not None:
            raise ValueError(f"`step` must be None with init='random'; got {step!r}")
        return build_model(name).eval()
    manifest = read_manifest(run_folder(name, 2000))  # the book's run
    if manifest is None or not manifest["checkpoints"]:
        raise CheckpointError(
            f"{name!r} has no checkpoint here: train it first with "
            f"`companion train --model {name}` (or load it with init='random')"
        )
    last = max(c["step"] for c in manifest["checkpoints"])
    return load_trained(name, last if step is None else step)
