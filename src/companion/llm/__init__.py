"""Models, hooks and experiments on real transformers (torch + transformers, imported lazily).

``import companion.llm`` is light: submodules load on first attribute access, and torch
and transformers only when a function that needs them runs.

* :mod:`~companion.llm.registry` — registered models and their sources (``companion models``),
  read from ``models.toml``; :mod:`~companion.llm.hub` — can the hub be used here;
* :mod:`~companion.llm.loading` — :func:`load_model` (offline GGUF/safetensors, random init, hub);
* :mod:`~companion.llm.devices` — :func:`check_device`, :func:`as_dtype` (shared by every loader);
* :mod:`~companion.llm.data` — :func:`token_windows` of real text, :func:`image_batches`;
* :mod:`~companion.llm.progress` — progress bars (the result store is :mod:`companion.results`);
* :mod:`~companion.llm.capture` — scoped hooks, streaming float64 Gram/covariance;
* :mod:`~companion.llm.norms` — the final norm and its effective γ, from the model itself;
* :mod:`~companion.llm.dead_directions` — :func:`diagnose` and the experiment driver;
* :mod:`~companion.llm.cli` — ``companion models`` and ``companion run ...``.
"""

from __future__ import annotations

import importlib

__all__ = [
    "registry",
    "loading",
    "devices",
    "data",
    "progress",
    "capture",
    "norms",
    "dead_directions",
    "cli",
    "load_model",
    "get_spec",
    "list_models",
    "preset",
    "token_windows",
    "diagnose",
]

_ATTRS = {
    "load_model": "loading",
    "get_spec": "registry",
    "list_models": "registry",
    "preset": "dead_directions.presets",
    "token_windows": "data",
    "diagnose": "dead_directions",
}


def __getattr__(name):
    if name in _ATTRS:
        return getattr(importlib.import_module(f"{__name__}.{_ATTRS[name]}"), name)
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
