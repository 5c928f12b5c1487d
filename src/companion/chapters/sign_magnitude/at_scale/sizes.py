"""The chapter's sizes per scale, in a module of their own: its ``records`` and ``tables``
read them without importing the package ``__init__`` that re-exports them."""

from __future__ import annotations

from dataclasses import dataclass

from companion.llm.sign_flips import SETUPS, Setup


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
