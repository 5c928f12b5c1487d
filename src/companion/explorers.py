"""Where each chapter's Explore figure comes from: one table, read by the bench and the tests.

Each entry names a function (``"module:function"``) that returns the chapter's
:class:`companion.widgets.Explore`, undisplayed and with nothing computed yet. When a
chapter's figure moves (into ``companion.chapters.<part>.<chapter>``), repoint its entry;
nothing else refers to where the figures live.
"""

from __future__ import annotations

import importlib

__all__ = ["EXPLORERS", "explorer"]

#: chapter (its path under book/, without .md) -> "module:function" making its Explore figure.
EXPLORERS = {
    "sign_magnitude/bussgang": "companion.explore_proto:bussgang",
    "sign_magnitude/rmsnorm_filter": "companion.explore_proto:rmsnorm_filter",
    "sign_magnitude/energy_equality": "companion.explore_proto:energy_equality",
    "sign_magnitude/theorem3": "companion.explore_proto:theorem3",
    "sign_magnitude/theorem4": "companion.explore_proto:theorem4",
    "sign_magnitude/multilayer": "companion.explore_proto:multilayer",
    "sign_magnitude/leverage": "companion.explore_proto:leverage",
    "sign_magnitude/at_scale": "companion.explore_proto:sign_magnitude_at_scale",
    "dead_directions/ln_kernel": "companion.explore_proto:ln_kernel",
    "dead_directions/rms_no_kernel": "companion.explore_proto:rms_no_kernel",
    "dead_directions/kfac_lift": "companion.explore_proto:kfac_lift",
    "dead_directions/sigma_min": "companion.explore_proto:sigma_min",
    "dead_directions/schur_ratio": "companion.explore_proto:schur_ratio",
    "dead_directions/classifier": "companion.explore_proto:classifier",
    "dead_directions/at_scale": "companion.explore_proto:dead_directions_at_scale",
}


def explorer(chapter: str):
    """The chapter's Explore figure (nothing drawn until it is displayed or rendered).

    Examples
    --------
    >>> explorer("sign_magnitude/theorem3").grid
    ('p', 'n')
    """
    if chapter not in EXPLORERS:
        raise ValueError(f"`chapter` must be one of {', '.join(EXPLORERS)}; got {chapter!r}")
    module, _, name = EXPLORERS[chapter].partition(":")
    return getattr(importlib.import_module(module), name)()
