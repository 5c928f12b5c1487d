"""Explore figures drawn once and updated in place: Theorem 3 (Part I) and the LayerNorm
kernel T1 (Part II), the two chapters that prove :func:`companion.widgets.explore`.

Each pair ``draw_*`` / ``update_*`` draws the same picture as the chapter's
``companion.figures`` module with the same numbers; what changes is the mechanics, and the
same rules make any chapter's moves fast:

* ``draw`` returns the artists that move and marks them animated: they are blitted over a
  cached background (a few ms), everything else is drawn once;
* axis limits do not follow the parameters a reader moves most, or move in coarse steps;
  when they do change, ``update`` returns that panel (it alone is redrawn);
* legends stay in the background (text is the slowest thing to draw): a number that moves
  goes in a title or a text label, which are animated;
* computations are cached per parameter value (``lru_cache``), and what a move does not
  change (the inputs, when only gamma moves) is cached apart;
* legends sit below their panels (:func:`companion.plotting.legend`).

``tests/unit/test_widgets.py`` checks that ``update`` gives the same pixels as ``draw``.
The roll-out moves each pair into its chapter module, with its ``explore()``; the generic
specs at the end (today's draw functions, redrawn whole) are where the other chapters start.
"""

from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace

import numpy as np
from matplotlib.ticker import MaxNLocator

from companion import widgets
from companion.plotting import COLORS, legend, set_errorbar

__all__ = [
    "draw_ln_kernel",
    "draw_theorem3",
    "ln_kernel",
    "theorem3",
    "update_ln_kernel",
    "update_theorem3",
]


#: chapter -> its figure module today (``companion.figures.<name>``).
_FIGURES = {
    "sign_magnitude/bussgang": "bussgang",
    "sign_magnitude/rmsnorm_filter": "rmsnorm_filter",
    "sign_magnitude/energy_equality": "energy_equality",
    "sign_magnitude/theorem3": "theorem3",
    "sign_magnitude/theorem4": "theorem4",
    "sign_magnitude/multilayer": "multilayer",
    "sign_magnitude/leverage": "leverage",
    "sign_magnitude/at_scale": "sign_flips",
    "dead_directions/ln_kernel": "ln_kernel",
    "dead_directions/rms_no_kernel": "rms_no_kernel",
    "dead_directions/kfac_lift": "kfac_lift",
    "dead_directions/sigma_min": "sigma_min",
    "dead_directions/schur_ratio": "schur_ratio",
    "dead_directions/classifier": "classifier",
    "dead_directions/at_scale": "dead_directions_at_scale",
}


def figures(chapter: str):
    """The module with a chapter's drawing functions: ``companion.chapters.<part>.<chapter>``
    once the library is restructured (issue 12), ``companion.figures.<name>`` until then."""
    import importlib

    part, name = chapter.split("/")
    try:
        return importlib.import_module(f"companion.chapters.{part}.{name}")
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("companion.chapters"):
            raise
    return importlib.import_module(f"companion.figures.{_FIGURES[chapter]}")


def _animate(*artists):
    for a in artists:
        a.set_animated(True)


# --- Theorem 3: C(p) against the flip rate p and the width n --------------------------------

#: y ranges that hold every width's simulation +- 2 SE (checked in tests/unit/test_widgets.py).
T3_YLIM = ((1.8, 2.95), (1.8, 6.8))


@lru_cache(maxsize=16)
def _t3_sims(n: int, seed: int):
    SIM_RATES = figures("sign_magnitude/theorem3").SIM_RATES
    from companion.theory.transverse_ratio import simulate_transverse_ratio_grid

    return tuple(simulate_transverse_ratio_grid(SIM_RATES, n, samples=400, seeds=3, rng=seed))


def _t3_title(p, n):
    from companion.theory.transverse_ratio import transverse_ratio_exact, transverse_ratio_paper

    return (
        f"p = {p:.2g}, n = {n}: exact {transverse_ratio_exact(p):.3f}, "
        f"author {transverse_ratio_paper(p):.3f}"
    )


def _t3_points(sims, post: bool):
    est = [s.C_post_norm_fd if post else s for s in sims]
    return [s.p for s in sims], [e.value for e in est], [2 * e.stderr for e in est]


def draw_theorem3(fig, p: float = 0.01, n: int = 256, seed: int = 0):
    """Left: C(p), three closed forms and simulation +- 2 SE. Right: the post-norm trap."""
    from companion.theory.transverse_ratio import (
        PAPER_TABLE2,
        post_norm_inflation,
        transverse_ratio_exact,
        transverse_ratio_limit,
        transverse_ratio_paper,
    )

    sims = _t3_sims(int(n), int(seed))
    grid = np.geomspace(1e-4, 0.2, 120)
    exact = transverse_ratio_exact(grid)
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    ax1.axhline(transverse_ratio_limit(), color="k", lw=1, ls="--", label="limit π/(π−2)")
    ax1.plot(
        grid,
        transverse_ratio_paper(grid),
        color=COLORS["paper"],
        lw=2,
        label="author's formula c(p)",
    )
    ax1.plot(grid, exact, color=COLORS["theory"], lw=2, label="exact kernel (ours)")
    sim1 = ax1.errorbar(
        *_t3_points(sims, False),
        fmt="o",
        color=COLORS["sim"],
        ms=4,
        capsize=3,
        label="simulation at width n ± 2 SE",
    )
    ps = sorted(PAPER_TABLE2)
    ax1.errorbar(
        ps,
        [PAPER_TABLE2[q][0] for q in ps],
        yerr=[2 * PAPER_TABLE2[q][1] for q in ps],
        fmt="s",
        mfc="none",
        color=COLORS["paper"],
        ms=5,
        capsize=2,
        label="paper's measured (n = 2048)",
    )
    line1 = ax1.axvline(p, color=COLORS["grey"], ls=":")
    ax1.set(
        xscale="log",
        xlim=(8e-5, 0.25),
        ylim=T3_YLIM[0],
        xlabel="flip rate p",
        ylabel="C = ΣT_sign / ΣT_mag",
        title=_t3_title(p, n),
    )
    legend(ax1)
    ax1.grid(alpha=0.3)
    ax2.plot(
        grid,
        exact * post_norm_inflation(grid),
        color=COLORS["sim"],
        lw=2,
        label="C_exact × (1 + 4√(2p/π) + 4p)",
    )
    ax2.plot(grid, exact, color=COLORS["theory"], lw=2, label="first order (Theorem 3)")
    sim2 = ax2.errorbar(
        *_t3_points(sims, True),
        fmt="o",
        color=COLORS["sim"],
        ms=4,
        capsize=3,
        label="post-norm finite difference (sim)",
    )
    line2 = ax2.axvline(p, color=COLORS["grey"], ls=":")
    ax2.set(
        xscale="log",
        xlim=(8e-5, 0.25),
        ylim=T3_YLIM[1],
        xlabel="flip rate p",
        title="trap: measuring after the norm",
    )
    legend(ax2, ncols=1)
    ax2.grid(alpha=0.3)
    sim_parts = [a for c in (sim1, sim2) for a in c.get_children()]
    _animate(line1, line2, ax1.title, *sim_parts)  # legends stay in the background: text is slow
    return SimpleNamespace(lines=(line1, line2), title=ax1.title, sims=(sim1, sim2))


def update_theorem3(state, p: float = 0.01, n: int = 256, seed: int = 0) -> bool:
    """Move the p marker and the title; on a new width, the simulation points."""
    for line in state.lines:
        line.set_xdata([p, p])
    state.title.set_text(_t3_title(p, n))
    sims = _t3_sims(int(n), int(seed))
    for container, post in zip(state.sims, (False, True), strict=True):
        set_errorbar(container, *_t3_points(sims, post))
    return False  # only animated artists changed


def theorem3() -> widgets.Explore:
    """Theorem 3's Explore figure: flip rate p x width n, all 28 combinations precomputed."""
    FLIP_RATES, WIDTHS = (
        figures("sign_magnitude/theorem3").FLIP_RATES,
        figures("sign_magnitude/theorem3").WIDTHS,
    )

    controls = {
        "p": widgets.control(0.01, 1e-4, 0.2, log=True, label="flip rate p", values=FLIP_RATES),
        "n": widgets.control(256, options=WIDTHS, label="width n"),
    }
    return widgets.explore(
        draw_theorem3, controls, update=update_theorem3, grid=("p", "n"), figsize=(8, 4.4)
    )


# --- T1: the LayerNorm kernel ---------------------------------------------------------------

_TINY = 1e-22  # where exact zeros are drawn on the log axis
#: Limits of the scatter panel: few steps, so that most moves keep its ticks (a blit).
_NICE = (0.5, 1.0, 1.5, 2.0, 3.0)


@lru_cache(maxsize=32)
def _ln_inputs(n: int, d: int, dist: str, seed: int):
    """The inputs and the generator's state after drawing them: moves of gamma, beta, eps
    or the precision reuse them (same draws as ``companion.figures.ln_kernel.data``)."""
    from companion.theory.ln_kernel import sample_inputs

    rng = np.random.default_rng(seed)
    x = sample_inputs(n, d, dist, rng=rng)  # (n, d)
    return x, rng.bit_generator.state


@lru_cache(maxsize=128)
def _ln_data(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed):
    """(gamma, report) for one setting, as ``companion.figures.ln_kernel.data`` computes it."""
    from companion.theory.ln_kernel import kernel_report, normalised_activations, sample_gamma

    x, state = _ln_inputs(int(n_ratio * d), d, dist, seed)
    rng = np.random.default_rng()
    rng.bit_generator.state = state
    g = sample_gamma(d, sigma, signs=signs, rng=rng)  # (d,)
    b = beta * rng.standard_normal(d)  # (d,)
    return g, kernel_report(normalised_activations(x, g, b, eps, precision=precision), g)


def _ln_view(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed):
    """Everything the figure shows for one setting (cached per setting)."""
    from companion.theory.null_classifier import precision_floor

    _, rep = _ln_data(
        int(d),
        float(sigma),
        bool(signs),
        float(beta),
        float(eps),
        dist,
        int(n_ratio),
        precision,
        int(seed),
    )
    lam = np.abs(rep.spectrum) / rep.spectrum[-1]
    diag = rep.rayleigh / rep.diag_rayleigh if rep.diag_rayleigh != 0 else np.nan
    floor = precision_floor(precision, d, offset_ratio=rep.offset_ratio) * diag
    v, u = rep.vstar, rep.bottom
    if u is not None and u @ v != 0:
        u = u * np.sign(u @ v)
    lim = 1.05 * max(np.abs(v).max(), np.abs(u).max() if u is not None else 0.0)  # v* alone if no u
    lim = next((x for x in _NICE if x >= lim), lim)  # limits move in steps, not every setting
    return SimpleNamespace(rep=rep, lam=np.maximum(lam, _TINY), floor=floor, v=v, u=u, lim=lim)


def draw_ln_kernel(
    fig,
    d: int = 64,
    sigma: float = 1.0,
    signs: bool = True,
    beta: float = 1.0,
    eps: float = 1e-5,
    dist: str = "student_t",
    n_ratio: int = 8,
    precision: str = "float64",
    seed: int = 0,
):
    """Left: the covariance spectrum with v*'s Rayleigh quotient and the rounding floor.
    Right: components of the measured bottom direction against v*."""
    ax1, ax2 = fig.subplots(1, 2)
    (dots,) = ax1.semilogy(
        [1], [1], ".", ms=4, color=COLORS["grey"], label="eigenvalues of C / λ_max"
    )
    ray = ax1.axhline(1, color=COLORS["sim"], lw=2, label="v*ᵀCv*/λ_max (value on the line)")
    ray_value = ax1.text(
        0.98,
        1,
        "",
        transform=ax1.get_yaxis_transform(),
        ha="right",
        va="bottom",
        color=COLORS["sim"],
    )
    floor = ax1.axhline(
        1, color=COLORS["theory"], ls="--", lw=1.2, label="rounding floor of the activations"
    )
    ax1.set(xlabel="eigenvalue index (ascending)", ylabel="relative eigenvalue", ylim=(_TINY, 3))
    legend(ax1, ncols=1)
    ax1.grid(alpha=0.3)
    (diag,) = ax2.plot([-1, 1], [-1, 1], color=COLORS["theory"], lw=1, label="perfect alignment")
    pts = ax2.scatter([0], [0], s=10, color=COLORS["sim"], alpha=0.8, label="coordinates i")
    none = ax2.text(
        0.5,
        0.5,
        "N ≤ d: the bottom direction is not unique\n(centred rank ≤ N − 1)",
        ha="center",
        va="center",
        transform=ax2.transAxes,
    )
    ax2.set(
        xlabel=r"predicted $v^*_i = \gamma_i^{-1}/\|\gamma^{-1}\|$",
        ylabel="measured bottom direction $u_i$",
    )
    for axis in (ax2.xaxis, ax2.yaxis):  # ticks at 0.1, 0.2, 0.5 steps, labels of one width:
        axis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))  # new limits then leave the
        axis.set_major_formatter("{x:.1f}")  # panel's footprint as it was (redrawn alone)
    legend(ax2)
    ax2.grid(alpha=0.3)
    # legends stay in the background (drawing text is slow); the numbers are in titles and labels
    _animate(dots, ray, ray_value, floor, ax1.title, diag, pts, none, ax2.title)
    state = SimpleNamespace(
        axes=(ax1, ax2),
        dots=dots,
        ray=ray,
        floor=floor,
        ray_value=ray_value,
        diag=diag,
        pts=pts,
        none=none,
        limits=None,
    )
    update_ln_kernel(state, d, sigma, signs, beta, eps, dist, n_ratio, precision, seed)
    return state


def update_ln_kernel(
    state,
    d: int = 64,
    sigma: float = 1.0,
    signs: bool = True,
    beta: float = 1.0,
    eps: float = 1e-5,
    dist: str = "student_t",
    n_ratio: int = 8,
    precision: str = "float64",
    seed: int = 0,
) -> bool:
    """Set the spectrum, the two levels, the scatter and the titles for this setting."""
    view = _ln_view(d, sigma, signs, beta, eps, dist, n_ratio, precision, seed)
    rep = view.rep
    ax1, ax2 = state.axes
    state.dots.set_data(np.arange(1, d + 1), view.lam)
    level = max(abs(rep.rayleigh), _TINY)
    state.ray.set_ydata([level] * 2)
    state.ray_value.set(y=level, text=f"{rep.rayleigh:.1e}")
    state.floor.set_ydata([view.floor] * 2)
    ax1.set_title(f"N = {rep.n_samples}, d = {d}, {precision} activations")
    unique = view.u is not None
    state.pts.set_visible(unique)
    state.diag.set_visible(unique)
    state.none.set_visible(not unique)
    if unique:
        state.pts.set_offsets(np.column_stack([view.v, view.u]))
        ax2.set_title(f"|cos(v*, bottom direction)| = {rep.cos:.4f}")
    else:
        ax2.set_title("no unique bottom direction")
    changed = []  # panels whose ticks move
    if state.limits is None or state.limits[0] != d:
        ax1.set_xlim(1 - 0.05 * (d - 1), d + 0.05 * (d - 1))  # matplotlib's own margins
        changed.append(ax1)
    if state.limits is None or state.limits[1] != view.lim:
        state.diag.set_data([-view.lim, view.lim], [-view.lim, view.lim])
        ax2.set(xlim=(-view.lim, view.lim), ylim=(-view.lim, view.lim))
        changed.append(ax2)
    state.limits = (d, view.lim)
    return changed


def ln_kernel() -> widgets.Explore:
    """T1's Explore figure: activation precision x gamma spread precomputed in full, the
    other six controls one at a time."""
    PRECISIONS_SWEEP = figures("dead_directions/ln_kernel").PRECISIONS_SWEEP
    from companion.theory.ln_kernel import INPUT_DISTRIBUTIONS

    c = widgets.control
    controls = {
        "precision": c("float64", options=PRECISIONS_SWEEP, label="activations"),
        "sigma": c(1.0, 0.0, 3.0, 0.1, label="γ spread σ", values=(0.0, 0.5, 1.0, 2.0, 3.0)),
        "d": c(64, 8, 128, 8, label="width d", values=(16, 32, 64, 128)),
        "n_ratio": c(8, 1, 16, 1, label="N / d", values=(1, 2, 4, 8, 16)),
        "signs": c(True, options=(("yes", True), ("no", False)), label="random signs"),
        "beta": c(1.0, 0.0, 5.0, 0.1, label="β scale", values=(0.0, 1.0, 5.0)),
        "eps": c(1e-5, 1e-6, 1.0, log=True, label="ε", values=(1e-6, 1e-5, 1e-3, 1e-1, 1.0)),
        "dist": c("student_t", options=INPUT_DISTRIBUTIONS, label="inputs"),
    }
    return widgets.explore(
        draw_ln_kernel,
        controls,
        update=update_ln_kernel,
        grid=("precision", "sigma"),
        figsize=(8, 4.4),
    )


# --- The other chapters: today's draw functions, redrawn whole on every move ----------------
# Their controls as the chapters offer them, so that the bench and the tests cover every
# chapter now; the roll-out gives each an update and moves it into its chapter module.


def _generic(chapter: str, controls: dict, grid, *, draw=None, figsize=(8, 3.6)):
    draw = draw or figures(chapter).draw
    return widgets.explore(draw, controls, grid=grid, figsize=figsize)


def bussgang() -> widgets.Explore:
    from companion.theory.sign_magnitude import DISTRIBUTIONS

    c = widgets.control
    return _generic(
        "sign_magnitude/bussgang",
        {
            "n": c(256, 4, 4096, 4, label="width n", values=(16, 64, 256, 1024, 4096)),
            "dist": c("gaussian", options=DISTRIBUTIONS, label="weights"),
            "nu": c(5.0, 2.5, 30.0, 0.5, label="Student-t ν", values=(2.5, 3.0, 5.0, 10.0, 30.0)),
        },
        ("n", "dist"),
    )


def rmsnorm_filter() -> widgets.Explore:
    ANGLES = figures("sign_magnitude/rmsnorm_filter").ANGLES

    c = widgets.control
    return _generic(
        "sign_magnitude/rmsnorm_filter",
        {
            "angle": c(60.0, 0.0, 180.0, 5.0, label="angle (°)", values=tuple(map(float, ANGLES))),
            "size": c(0.2, 0.02, 0.8, 0.02, label="‖Δ‖/‖u‖", values=(0.05, 0.1, 0.2, 0.4, 0.8)),
        },
        ("angle", "size"),
    )


def energy_equality() -> widgets.Explore:
    FLIP_RATES = figures("sign_magnitude/energy_equality").FLIP_RATES

    c = widgets.control
    return _generic(
        "sign_magnitude/energy_equality",
        {
            "p": c(0.05, 0.002, 0.3, log=True, label="flip rate p", values=FLIP_RATES),
            "m": c(128, 16, 512, 16, label="width m", values=(32, 64, 128, 256, 512)),
        },
        ("p", "m"),
    )


def theorem4() -> widgets.Explore:
    WIDTHS = figures("sign_magnitude/theorem4").WIDTHS
    from companion.theory.sign_magnitude import QUANTIZERS

    c = widgets.control
    return _generic(
        "sign_magnitude/theorem4",
        {
            "quantizer": c("sign_absmean", options=tuple(QUANTIZERS), label="quantiser"),
            "n": c(256, 16, 1024, 16, label="width n", values=WIDTHS),
        },
        ("quantizer", "n"),
    )


def multilayer() -> widgets.Explore:
    DEPTHS, FLIP_RATES = (
        figures("sign_magnitude/multilayer").DEPTHS,
        figures("sign_magnitude/multilayer").FLIP_RATES,
    )
    from companion.theory.multilayer import ACTIVATIONS

    c = widgets.control
    return _generic(
        "sign_magnitude/multilayer",
        {
            "depth": c(6, 1, 6, 1, label="depth L", values=DEPTHS),
            "p": c(0.01, options=FLIP_RATES, label="flip rate p"),
            "activation": c("relu", options=ACTIVATIONS, label="activation"),
        },
        ("depth", "p"),
    )


def leverage() -> widgets.Explore:
    ALPHAS = figures("sign_magnitude/leverage").ALPHAS

    c = widgets.control
    return _generic(
        "sign_magnitude/leverage",
        {
            "alpha": c(0.1, 0.005, 0.4, log=True, label="amplitude α", values=ALPHAS),
            "n": c(2048, options=(256, 512, 1024, 2048, 4096, 5632), label="width n"),
        },
        ("alpha", "n"),
    )


def sign_magnitude_at_scale(model: str = "smollm2-135m", scale: str = "cpu") -> widgets.Explore:
    sign_flips = figures("sign_magnitude/at_scale")

    c = widgets.control
    return _generic(
        "sign_magnitude/at_scale",
        {
            "p": c(0.001, options=sign_flips.PS, label="flip fraction p"),
            "metric": c("nll", options=("nll", "ppl"), label="leverage of"),
        },
        ("p", "metric"),
        draw=lambda fig, **kw: sign_flips.draw(fig, model=model, scale=scale, **kw),
    )


def rms_no_kernel() -> widgets.Explore:
    SIGMAS = figures("dead_directions/rms_no_kernel").SIGMAS
    from companion.theory.ln_kernel import INPUT_DISTRIBUTIONS

    c = widgets.control
    return _generic(
        "dead_directions/rms_no_kernel",
        {
            "d": c(64, 16, 192, 16, label="width d", values=(16, 32, 64, 128, 192)),
            "sigma": c(1.5, 0.0, 3.0, 0.1, label="γ spread σ", values=(*SIGMAS, 1.5)),
            "dist": c("offset", options=INPUT_DISTRIBUTIONS, label="inputs"),
            "n_ratio": c(8, 2, 16, 1, label="N / d", values=(2, 4, 8, 16)),
        },
        ("sigma", "dist"),
    )


def kfac_lift() -> widgets.Explore:
    BETA_SCALES, U_CHOICES = (
        figures("dead_directions/kfac_lift").BETA_SCALES,
        figures("dead_directions/kfac_lift").U_CHOICES,
    )

    c = widgets.control
    return _generic(
        "dead_directions/kfac_lift",
        {
            "beta_scale": c(1.0, 0.0, 2.0, 0.05, label="β scale", values=BETA_SCALES),
            "u": c("random u", options=U_CHOICES, label="choice of u"),
        },
        ("beta_scale", "u"),
    )


def sigma_min() -> widgets.Explore:
    CANCELS = figures("dead_directions/sigma_min").CANCELS

    c = widgets.control
    return _generic(
        "dead_directions/sigma_min",
        {
            "depth": c(12, 1, 24, 1, label="depth", values=(1, 6, 12, 18, 24)),
            "cancel": c(0.0, 0.0, 1.0, 0.05, label="cancellation c", values=CANCELS),
        },
        ("depth", "cancel"),
    )


def schur_ratio() -> widgets.Explore:
    PLAYER_RATIOS = figures("dead_directions/schur_ratio").PLAYER_RATIOS

    c = widgets.control
    return _generic(
        "dead_directions/schur_ratio",
        {
            "ratio": c(4.0, 1.5, 32.0, 0.5, label="N / d", values=tuple(map(float, PLAYER_RATIOS))),
            "d": c(32, 8, 64, 8, label="width d", values=(8, 16, 32, 64)),
        },
        ("ratio", "d"),
    )


def classifier() -> widgets.Explore:
    PRECISIONS_SWEEP = figures("dead_directions/classifier").PRECISIONS_SWEEP

    c = widgets.control
    return _generic(
        "dead_directions/classifier",
        {
            "d": c(768, 64, 4096, 64, label="width d", values=(64, 256, 768, 2048, 4096)),
            "precision": c("float32", options=PRECISIONS_SWEEP, label="activations"),
        },
        ("d", "precision"),
    )


def dead_directions_at_scale(scale: str = "cpu") -> widgets.Explore:
    fig_scale = figures("dead_directions/at_scale")

    models = fig_scale.trained_models(scale)
    controls = {"model": widgets.control(models[0], options=models, label="model")}
    return _generic(
        "dead_directions/at_scale",
        controls,
        ("model",),
        draw=lambda fig, model: fig_scale.draw(fig, model, scale),
        figsize=(9, 3.6),
    )
