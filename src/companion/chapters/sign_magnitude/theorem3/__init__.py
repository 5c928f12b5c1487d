"""Theorem 3, the sign–magnitude asymmetry (``book/sign_magnitude/theorem3.md``): its sizes here;
split by job and re-exported, the Explore figure (``figures``: C(p), limit, the author's
formula, the exact kernel, simulation), the numbers the page and the claims share
(``records``), the tables (``tables``); apart, the claims ``dong.thm3.*`` (``claims``)."""

from __future__ import annotations

from companion.chapters import docname

__all__ = [
    "SIZES",
    "FLIP_RATES",
    "LADDER_PS",
    "SIM_RATES",
    "WIDTHS",
    "author_theorem3",
    "check_table",
    "draw",
    "explore",
    "ladder",
    "run_table2",
    "extrapolation_table",
    "readme_table",
    "table2",
    "table2_command",
    "table2_widths",
    "table2_path",
    "update",
    "width_extrapolation",
    "YLIM",
]

CHAPTER = docname(__name__)

# The chapter's jobs, re-exported for the page (``ch.<name>``); they read SIZES above.
from companion.chapters.sign_magnitude.theorem3.figures import (  # noqa: E402
    FLIP_RATES,
    SIM_RATES,
    WIDTHS,
    YLIM,
    draw,
    explore,
    update,
)
from companion.chapters.sign_magnitude.theorem3.records import (  # noqa: E402
    author_theorem3,
    ladder,
    run_table2,
    table2,
    table2_command,
    table2_path,
    width_extrapolation,
)
from companion.chapters.sign_magnitude.theorem3.sizes import LADDER_PS, SIZES  # noqa: E402
from companion.chapters.sign_magnitude.theorem3.tables import (  # noqa: E402
    check_table,
    extrapolation_table,
    readme_table,
    table2_widths,
)
