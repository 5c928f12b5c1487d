"""Part II at scale: the dead direction in real transformers (``book/dead_directions/at_scale.md``).

The chapter's sizes are here (the engine's tokens, window and depth are
:func:`llm.dead_directions.presets.preset`; which architectures are diagnosed at random init is
here); the rest is split by job and re-exported: its records (``records``: read from the
results written by ``companion run dead-directions``, or run now at ``full``/``smoke`` scale
when missing), its figures (``figures``: drawn from the records, no model runs on a slider
move), its tables (``tables``) and, apart, the claims ``shirodkar.init_*``, ``.classifier``,
``.trained_*`` and ``.sigma_min_models`` (``claims``).
"""

from __future__ import annotations

from companion.chapters import docname

__all__ = [
    "SIZES",
    "bench_table",
    "confusion_table",
    "diagnosis_table",
    "profile_figure",
    "profile_table",
    "random_init_table",
    "registry_table",
    "reproduce",
    "sigma_split_table",
    "trained_table",
    "commands",
    "confusion",
    "draw",
    "draw_null",
    "draw_random_table",
    "explore",
    "random_init",
    "readout",
    "records",
    "run_missing",
    "sigma_steps",
    "trained",
    "trained_models",
    "WHISPER",
    "WHISPER_CHECKPOINTS",
    "abs_gamma",
    "draw_whisper",
    "min_step",
    "whisper_commands",
    "whisper_depth_table",
    "whisper_kernel_table",
    "whisper_records",
]

CHAPTER = docname(__name__)

# The chapter's jobs, re-exported for the page (``ch.<name>``); they read SIZES above.
from companion.chapters.dead_directions.at_scale.figures import (  # noqa: E402
    draw,
    draw_null,
    draw_random_table,
    draw_whisper,
    explore,
    profile_figure,
    readout,
)
from companion.chapters.dead_directions.at_scale.records import (  # noqa: E402
    WHISPER,
    WHISPER_CHECKPOINTS,
    abs_gamma,
    commands,
    confusion,
    min_step,
    random_init,
    records,
    run_missing,
    sigma_steps,
    trained,
    trained_models,
    whisper_commands,
    whisper_records,
)
from companion.chapters.dead_directions.at_scale.sizes import SIZES  # noqa: E402
from companion.chapters.dead_directions.at_scale.tables import (  # noqa: E402
    bench_table,
    confusion_table,
    diagnosis_table,
    profile_table,
    random_init_table,
    registry_table,
    reproduce,
    sigma_split_table,
    trained_table,
    whisper_depth_table,
    whisper_kernel_table,
)
