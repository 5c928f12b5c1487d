"""The claims of ``book/sign_magnitude/at_scale.md``, declared as data (:data:`CLAIMS`, collected
by :mod:`companion.ledger`), one module per experiment family: :mod:`.table1` (Table 1 on
SmolLM2), :mod:`.outliers` (Exp D), :mod:`.leverage` (Exp E), :mod:`.activations` (Exp F / G),
:mod:`.sign_vs_magnitude` (Theorem 3's ordering on the real model) and :mod:`.other_models`
(Whisper, the author's stored results and the paper's numbers without our measurement);
:mod:`._common` holds what they share. Each measure and its control read the chapter's
``SIZES[scale]``."""

from __future__ import annotations

from companion.chapters.sign_magnitude.at_scale.claims import (
    activations,
    leverage,
    other_models,
    outliers,
    sign_vs_magnitude,
    table1,
)

#: The chapter's claims, in the order its claims box shows them.
CLAIMS = (
    *table1.CLAIMS,
    *outliers.CLAIMS,
    *leverage.CLAIMS,
    *activations.CLAIMS,
    *sign_vs_magnitude.CLAIMS,
    *other_models.CLAIMS,
)
