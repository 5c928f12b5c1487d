"""Part I at scale: sign flips on real language models (``book/sign_magnitude/at_scale.md``).

The chapter's sizes are here (which model at which scale; the engine's windows, seeds and
samples are :data:`companion.llm.sign_flips.SETUPS`); the rest is split by job and re-exported:
its records (``records``: read from the results written by ``companion run sign-flips``, or run
now at ``full``/``smoke`` scale when missing), its figures (``figures``: pure functions of the
records, nothing random), its tables (``tables``) and, apart, the claims ``dong.real.*``
(``claims``).
"""

from __future__ import annotations

from companion.chapters import docname

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
from companion.chapters.sign_magnitude.at_scale.sizes import SIZES  # noqa: E402
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
