"""Where the book runs: Colab or not, GPU or not, and the ``scale`` switch.

``scale="cpu"`` (default) sizes every experiment for a 2-core laptop;
``scale="full"`` selects the papers' models and sizes. The chapters read
:data:`SCALE` once; set ``COMPANION_SCALE=cpu|full`` to override the detection.
Detection never imports torch (theory chapters stay light): a GPU is assumed
when ``nvidia-smi`` is on the PATH.
"""

from __future__ import annotations

import os
import shutil
import sys

__all__ = ["REPOSITORY", "SCALE", "detect_scale", "on_colab"]

#: The repository the Colab setup cell installs from (keep in sync with _config.yml).
REPOSITORY = "https://github.com/normalisation-geometry/companion"


def on_colab() -> bool:
    """True inside a Google Colab kernel."""
    return "google.colab" in sys.modules


def detect_scale() -> str:
    """``COMPANION_SCALE`` if set, else ``"full"`` with a GPU and ``"cpu"`` without."""
    env = os.environ.get("COMPANION_SCALE")
    if env is not None:
        if env not in ("cpu", "full"):
            raise ValueError(f"`COMPANION_SCALE` must be one of 'cpu', 'full'; got {env!r}")
        return env
    return "full" if shutil.which("nvidia-smi") else "cpu"


SCALE = detect_scale()
