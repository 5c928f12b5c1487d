"""The claims of ``book/dead_directions/at_scale.md``, declared as data (:data:`CLAIMS`, collected
by :mod:`companion.ledger`), one module per job: :mod:`.kernel` (the γ⁻¹ kernel at random
initialisation), :mod:`.classifier` (the norm classifier and the kernel on trained
checkpoints), :mod:`.sigma_min` (σ_min block to block, the Schur ratio, further dead
directions) and :mod:`.other_models` (Whisper-base's stacks and the paper's checkpoints we
cannot run here); :mod:`._common` holds what they share. Each measure and its control read the
chapter's ``SIZES[scale]``."""

from __future__ import annotations

from companion.chapters.dead_directions.at_scale.claims import (
    classifier,
    kernel,
    other_models,
    sigma_min,
)

#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    *kernel.CLAIMS,
    *classifier.CLAIMS,
    *sigma_min.CLAIMS,
    *other_models.CLAIMS,
)
