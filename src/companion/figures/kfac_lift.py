"""K-FAC lift widget: the true Fisher along Delta W = u v*^T of a LayerNorm-fed softmax head."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.plotting import COLORS
from companion.theory.kfac_lift import categorical_fisher, ln_softmax_head

__all__ = ["BETA_SCALES", "U_CHOICES", "draw", "fisher_cases"]

#: beta scales of the right panel (and of the kernel-free frame player).
BETA_SCALES = (0.0, 0.1, 0.5, 1.0, 2.0)
#: Choices of the head-side vector u (and how the direction is completed).
U_CHOICES = ("random u", "u = 1 (shift gauge)", "random u + bias fix", "tied head, random u")
_FLOOR = 1e-36  # where exact zeros are drawn on the log axis


@lru_cache(maxsize=256)
def _true_fisher(beta_scale: float, u: str, seed: int) -> float:
    # the right panel is the same in every frame: cache it (draw stays a pure function)
    return float(fisher_cases(beta_scale, u, seed=seed)["true Fisher"])


def fisher_cases(
    beta_scale: float = 1.0,
    u: str = "random u",
    *,
    V: int = 20,
    d: int = 16,
    n: int = 300,
    seed: int = 0,
) -> dict:
    """True directional Fisher along the chosen direction and its references, relative to a
    random rank-one direction of the same head; plus the constant ``c`` and K-FAC values."""
    tied = u.startswith("tied")
    head = ln_softmax_head(V, d, n=n, beta_scale=beta_scale, tied=tied, rng=seed)
    g = np.random.default_rng(seed + 1)
    uu = np.ones(V) if u.startswith("u = 1") else g.standard_normal(V)  # (V,)
    a = g.standard_normal(d)
    a /= np.linalg.norm(a)
    ref = head.fisher(np.outer(g.standard_normal(V), a))
    dW = np.outer(uu, head.vstar)  # (V, d) rank one
    db = -head.c * uu if u.endswith("bias fix") else None
    A_c, G = head.kfac_factors(centred=True)
    A_u, _ = head.kfac_factors(centred=False)
    v = head.vstar
    return {
        "true Fisher": head.fisher(dW, db=db) / ref,
        "c² E Var_p(u)": head.c**2 * categorical_fisher(head.logits(), np.tile(uu, (n, 1))) / ref
        if not tied
        else np.nan,
        "K-FAC, centred A": (v @ A_c @ v) * (uu @ G @ uu) / ref,
        "K-FAC, uncentred A": (v @ A_u @ v) * (uu @ G @ uu) / ref,
        "c": head.c,
    }


def draw(fig, beta_scale: float = 1.0, u: str = "random u", seed: int = 0):
    """Left: the Fisher along u v*^T at this beta (log scale, relative to a random direction).
    Right: the true Fisher against the beta scale for every choice of u."""
    ax1, ax2 = fig.subplots(1, 2)
    cases = fisher_cases(beta_scale, u, seed=seed)
    names = ["true Fisher", "c² E Var_p(u)", "K-FAC, centred A", "K-FAC, uncentred A"]
    vals = [abs(cases[k]) if np.isfinite(cases[k]) else np.nan for k in names]
    shown = [max(x, _FLOOR) if np.isfinite(x) else _FLOOR for x in vals]
    cols = [COLORS["sim"], COLORS["theory"], COLORS["alt"], COLORS["paper"]]
    ax1.barh(range(4), shown, color=cols, left=_FLOOR)
    ax1.set_xscale("log")
    ax1.set_xlim(_FLOOR, 10)
    ax1.axvline(1.0, color=COLORS["grey"], ls=":", lw=1)
    ax1.set_yticks(
        range(4), [n if np.isfinite(v) else n + " (n/a)" for n, v in zip(names, vals)], fontsize=8
    )
    ax1.set(xlabel="Fisher / Fisher of a random rank-one direction")
    ax1.set_title(f"{u}, β scale {beta_scale:g} (c = {cases['c']:.3f})", fontsize=9)
    for uc, col, mk in zip(
        U_CHOICES, [COLORS["sim"], COLORS["theory"], COLORS["alt"], COLORS["paper"]], "osD^"
    ):
        ys = [max(abs(_true_fisher(float(b), uc, int(seed))), _FLOOR) for b in BETA_SCALES]
        ax2.plot(BETA_SCALES, ys, marker=mk, color=col, label=uc, lw=1.5)
    ax2.axvline(beta_scale, color=COLORS["grey"], ls=":", lw=1)
    ax2.set(yscale="log", ylim=(_FLOOR / 10, 10), xlabel="β scale", ylabel="true Fisher (relative)")
    ax2.set_title("dead iff c = 0, u ∝ 1, or compensated", fontsize=9)
    ax2.legend(fontsize=7)
    ax2.grid(alpha=0.3)
