"""The ``scale`` switch: how big every experiment of the book is, and where it runs.

* ``"cpu"`` (the default without a GPU) sizes every experiment for a 2-core laptop;
* ``"full"`` (the default with a GPU, e.g. on Colab) selects the papers' models and sizes;
* ``"smoke"`` runs the ``full`` code path with tiny sizes in seconds (the tests use it, so
  that no ``scale="full"`` path is one no test ran; hub models are built at random init and
  tiny width).

Each chapter's sizes live in its module, ``companion.chapters.<part>.<chapter>.SIZES``, one
entry per scale. The chapters read :data:`SCALE` once (it is detected when first read, so a
bad ``COMPANION_SCALE`` is one clear error there, not at import); set ``COMPANION_SCALE`` to
override the detection. Detection never imports torch (theory chapters stay light): a GPU is assumed
when ``nvidia-smi`` is on the PATH.
"""

from __future__ import annotations

import os
import shutil
import sys

__all__ = ["SCALE", "SCALES", "check_scale", "detect_scale", "on_colab"]  # noqa: F822 (lazy)

#: Every scale, smallest last.
SCALES = ("cpu", "full", "smoke")


def on_colab() -> bool:
    """True inside a Google Colab kernel."""
    return "google.colab" in sys.modules


def check_scale(scale: str, name: str = "scale") -> str:
    """``scale`` if it is one of :data:`SCALES`, else the one-style ``ValueError``.

    Examples
    --------
    >>> check_scale("smoke")
    'smoke'
    >>> check_scale("gpu")
    Traceback (most recent call last):
    ...
    ValueError: `scale` must be one of 'cpu', 'full', 'smoke'; got 'gpu'
    """
    from companion._validate import check_choice

    return check_choice(scale, name, SCALES)


def detect_scale() -> str:
    """``COMPANION_SCALE`` if set, else ``"full"`` with a GPU and ``"cpu"`` without."""
    env = os.environ.get("COMPANION_SCALE")
    if env is not None:
        return check_scale(env, "COMPANION_SCALE")
    return "full" if shutil.which("nvidia-smi") else "cpu"


_DETECTED: list = []


def __getattr__(name: str):
    """:data:`SCALE`, detected when first read (PEP 562): a bad ``COMPANION_SCALE`` is one
    ValueError where the scale is read, and importing this module (``companion models``, the
    CLI's parser) never fails on it."""
    if name == "SCALE":
        if not _DETECTED:
            _DETECTED.append(detect_scale())
        return _DETECTED[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
