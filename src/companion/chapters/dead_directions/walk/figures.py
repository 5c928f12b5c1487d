"""Walking the dead direction, its static figure: the framework in three panels (Fisher decay on
the Gaussian anchor, the LayerNorm bracket on a small chain, the finite-t expansion's slopes)."""

from __future__ import annotations

import numpy as np

from companion.plotting import COLORS, legend
from companion.theory import fisher_decay as fd
from companion.theory import ln_bracket as lb
from companion.theory import ln_finite_t as ft

_K_COLOURS = (COLORS["theory"], COLORS["sim"], COLORS["alt"])


def framework_figure(n: int, seed: int = 0):
    """Left: Monte Carlo directional Fisher of the Gaussian anchor (k = 1, 2, 3, ± 2 SE)
    against k² t^(2(k−1)). Middle: local slope of the bracket chain's read moment through
    the LayerNorm (eps = 0 and eps = 1e-6) and without it (k_pre = 2, k_post = 1). Right:
    local slope of the three-term Fisher, Monte Carlo against the closed form."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11, 3.6), layout="constrained")
    a, b, c = fig.subplots(1, 3)
    ts = np.logspace(-2, 0, 9)
    for k, col in zip((1, 2, 3), _K_COLOURS, strict=True):
        cur = fd.simulate_gaussian_fisher(k, ts, n=n, rng=seed + k)
        kh, se = cur.k_hat()
        a.errorbar(ts, cur.fisher, 2 * cur.stderr, fmt="o", ms=3, color=col,
                   label=f"k = {k}: k̂ = {kh:.3f} ± {se:.3f}")  # fmt: skip
        a.loglog(ts, cur.exact, "-", lw=1, color=col)
    a.set(xscale="log", yscale="log", xlabel="t", ylabel="F(t)")
    a.set_title("Fisher decay: slope 2(k − 1)")
    legend(a, fontsize=7)
    tb = np.logspace(-5, 0, 21)
    cases = (
        ("through LN, ε = 0", dict(eps=0.0), COLORS["theory"], "-"),
        ("through LN, ε = 1e-6", dict(eps=1e-6), COLORS["sim"], "--"),
        ("no norm", dict(norm=False), COLORS["grey"], ":"),
    )
    for lab, kw, col, ls in cases:
        m = lb.bracket_chain(tb, k_pre=2, k_post=1, rng=seed, **kw)
        b.semilogx(tb, fd.local_slopes(tb, m), ls, color=col, lw=2, label=lab)
    b.axvline(lb.crossover_t(2, 1e-6, 1.0), color=COLORS["grey"], lw=0.8)
    b.set(xlabel="t", ylabel="local slope of E[o(t)²]", ylim=(0, 7))
    b.text(0.03, 0.55, r"$k_\mathrm{pre} = 2,\ k_\mathrm{post} = 1$", transform=b.transAxes)
    b.set_title(r"LN bracket: $2k_\mathrm{post}$ vs $2(k_\mathrm{pre} + k_\mathrm{post})$")
    legend(b, fontsize=7)
    tf = np.logspace(-5, 4, 19)
    coef = (1e-6, 1.0, 1e-4)  # (b0², b1², b2²) of the toy with b = (1e-3, 1, 1e-2)
    cur = ft.simulate_three_term(tf, (1e-3, 1.0, 1e-2), n=n, rng=seed)
    c.semilogx(tf, ft.expansion_slope(tf, *coef), "-", color=COLORS["theory"], label="t G′/G")
    c.semilogx(tf, fd.local_slopes(tf, cur.fisher), "o", ms=3, color=COLORS["sim"],
               label="Monte Carlo")  # fmt: skip
    for x in ft.regime_edges(*coef):
        c.axvline(x, color=COLORS["grey"], lw=0.8)
    c.set(xlabel="t", ylabel="local slope α(t)", ylim=(-0.3, 4.5))
    c.set_title("finite-t expansion: 0, 2, 4")
    legend(c, fontsize=7)
    for ax in (a, b, c):
        ax.grid(alpha=0.3)
    return fig
