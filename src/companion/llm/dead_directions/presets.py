"""The sizes of the dead-direction engine at each scale (beside it, as
:mod:`companion.llm.sign_flips.setups` is beside its): :func:`preset`.

How a model is *built* at each scale (its depth at random init, the smoke scale's tiny width)
is the loader's (:data:`companion.llm.loading.RANDOM_LAYERS` and ``MAX_WIDTH``); a preset
repeats those values so that a chapter reads every size of a run in one place.

Examples
--------
>>> preset("cpu").random_layers
2
>>> preset("cpu").n_tokens(768)
3072
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.llm.loading import MAX_WIDTH, RANDOM_LAYERS

__all__ = ["ScalePreset", "preset"]


@dataclass(frozen=True)
class ScalePreset:
    """Sizes of the model engine for one ``scale`` (the one place that holds them; the
    chapter ``book/dead_directions/at_scale`` reads them through :func:`preset`).

    ``tokens_per_width``: calibration tokens N = max(min_tokens, tokens_per_width · d)
    (the bottom direction needs N > d; N ≳ 4 d keeps the Marchenko–Pastur bulk away from 0).
    ``random_layers``: depth of random-init models (None = real depth).
    ``window``: tokens per window; ``max_width``: widths above it are built at this width
    (None = real widths); ``models``: the trained checkpoints diagnosed at this scale.
    At ``smoke`` scale every model, trained or not, is its architecture at random init, tiny
    width and one block (:func:`companion.llm.loading.load_model`): no weights are read and
    nothing is downloaded, so the full path runs in seconds.
    """

    scale: str
    window: int
    tokens_per_width: int
    min_tokens: int
    random_layers: int | None
    max_width: int | None
    image_size: int
    trained_tokens: int
    models: tuple

    def width(self, spec) -> int:
        """The width ``spec``'s model is built at on this scale (its real width, but at the
        smoke scale text and image models are built at ``max_width``; Whisper's stacks keep
        theirs): what a record's ``"width"`` says.

        Examples
        --------
        >>> from companion.llm.registry import get_spec
        >>> preset("smoke").width(get_spec("gpt2")), preset("cpu").width(get_spec("gpt2"))
        (32, 768)
        """
        from companion._validate import check_instance
        from companion.llm.registry import ModelSpec

        spec = check_instance(spec, "spec", ModelSpec)
        tiny = self.max_width is not None and spec.modality != "speech"
        return min(spec.width, self.max_width) if tiny else spec.width

    def n_tokens(self, width: int) -> int:
        """Calibration tokens for a model of this width."""
        from companion._validate import check_int

        return max(self.min_tokens, self.tokens_per_width * check_int(width, "width", low=1))


_PRESETS = {
    "cpu": ScalePreset(
        "cpu",
        window=256,
        tokens_per_width=4,
        min_tokens=2048,
        random_layers=RANDOM_LAYERS["cpu"],
        max_width=MAX_WIDTH["cpu"],
        image_size=224,
        trained_tokens=16384,
        models=("minilm-l6", "smollm2-135m", "gemma3-270m"),
    ),
    "full": ScalePreset(
        "full",
        window=1024,
        tokens_per_width=16,
        min_tokens=65536,
        random_layers=RANDOM_LAYERS["full"],
        max_width=MAX_WIDTH["full"],
        image_size=224,
        trained_tokens=262144,
        models=(
            "gpt2",
            "pythia-160m",
            "pythia-1b",
            "opt-125m",
            "bloom-560m",
            "vit-base",
            "dinov2-small",
            "tinyllama-1.1b",
            "qwen2.5-0.5b",
            "smollm2-135m",
            "gemma3-1b",
        ),
    ),
    "smoke": ScalePreset(
        "smoke",
        window=32,
        tokens_per_width=4,
        min_tokens=256,
        random_layers=RANDOM_LAYERS["smoke"],
        max_width=MAX_WIDTH["smoke"],
        image_size=224,
        trained_tokens=256,
        models=("gpt2", "tinyllama-1.1b"),
    ),
}


def preset(scale: str = "cpu") -> ScalePreset:
    """The sizes for ``scale`` (``"cpu"``, ``"full"`` or ``"smoke"``).

    Examples
    --------
    >>> preset("full").window
    1024
    >>> preset("gpu")
    Traceback (most recent call last):
    ...
    ValueError: `scale` must be one of 'cpu', 'full', 'smoke'; got 'gpu'
    """
    from companion._validate import check_choice

    return _PRESETS[check_choice(scale, "scale", tuple(_PRESETS))]
