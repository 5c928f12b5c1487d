"""Part I at scale: sign flips on real language models (``book/sign_magnitude/at_scale.md``).

The chapter's sizes are here (which model at which scale; the engine's windows, seeds and
samples are :data:`companion.llm.sign_flips.SETUPS`); the rest is split by job and re-exported:
its records (``records``: read from the results written by ``companion run sign-flips``, or run
now at ``full``/``smoke`` scale when missing), its figures (``figures``: pure functions of the
records, nothing random), its tables (``tables``) and, apart, the claims ``dong.real.*``
(``claims``).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.chapters import docname
from companion.llm.sign_flips import SETUPS, Setup

__all__ = [
    "PS",
    "SIZES",
    "alpha_table",
    "columns_table",
    "leverage_table",
    "outlier_conditions",
    "outlier_ratios",
    "random_columns_table",
    "records_table",
    "sign_vs_magnitude_table",
    "table1",
    "draw",
    "draw_alpha",
    "draw_columns",
    "draw_table1",
    "explore",
    "records",
    "update",
    "table1_models",
    "TABLE1_WHISPER",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    model: str  # the model of the five experiments (Table 1, Exp D-G)
    demo_model: str  # the live flip / evaluate / undo demonstration
    setup: Setup  # the engine's sizes: windows, seeds, sphere samples, text source
    claim_seeds: int = 5  # seeds the claims expect of Exp D, Exp E and sign-vs-magnitude


SIZES = {
    # SmolLM2-135M-Instruct dequantised from the Q4_1 GGUF on PyPI, offline Wikipedia text;
    # the claims read 5 seeds of Exp D, Exp E and sign-vs-magnitude
    "cpu": Sizes(model="smollm2-135m", demo_model="smollm2-135m", setup=SETUPS["cpu"]),
    # the paper's protocol: TinyLlama-1.1B on WikiText-2 (a GPU; Colab)
    "full": Sizes(model="tinyllama-1.1b", demo_model="tinyllama-1.1b", setup=SETUPS["full"]),
    # the full path in seconds: TinyLlama's architecture at random init and tiny width
    "smoke": Sizes(
        model="tinyllama-1.1b",
        demo_model="tinyllama-1.1b",
        setup=SETUPS["smoke"],
        claim_seeds=2,
    ),
}


# The chapter's jobs, re-exported for the page (``ch.<name>``); they read SIZES above.
from companion.chapters.sign_magnitude.at_scale.figures import (  # noqa: E402
    PS,
    draw,
    draw_alpha,
    draw_columns,
    draw_table1,
    explore,
    update,
)
from companion.chapters.sign_magnitude.at_scale.records import (  # noqa: E402
    records,
)
from companion.chapters.sign_magnitude.at_scale.tables import (  # noqa: E402
    TABLE1_WHISPER,
    alpha_table,
    columns_table,
    leverage_table,
    outlier_conditions,
    outlier_ratios,
    random_columns_table,
    records_table,
    sign_vs_magnitude_table,
    table1,
    table1_models,
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "def-sign-flip-leverage",
    "steps": ("Three traps",),
    "punchline": "dong.real.cos2_table1",
    "exercise": "ex-at-scale-count-matched",
}
