"""Shared figure helpers: a theory curve against simulations with error bars."""

from __future__ import annotations

import numpy as np

__all__ = ["COLORS", "theory_vs_sim"]

#: Colour-blind-safe palette readable on light and dark backgrounds.
COLORS = {"theory": "#0072B2", "sim": "#D55E00", "alt": "#009E73", "paper": "#CC79A7", "grey": "#7f7f7f"}


def theory_vs_sim(ax, x, theory, sim_x=None, sim=None, *, k: float = 2.0, label_theory="closed form",
                  label_sim="simulation ± 2 SE"):
    """Plot a closed-form curve and simulated :class:`~companion.stats.MCEstimate` points."""
    ax.plot(x, theory, color=COLORS["theory"], lw=2, label=label_theory)
    if sim is not None:
        vals = np.array([s.value for s in sim])
        errs = k * np.array([s.stderr for s in sim])
        ax.errorbar(sim_x, vals, yerr=errs, fmt="o", ms=4, color=COLORS["sim"], capsize=3,
                    label=label_sim)
    ax.grid(alpha=0.3)
    return ax
