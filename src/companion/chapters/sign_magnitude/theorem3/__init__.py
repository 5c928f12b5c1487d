"""Theorem 3, the sign–magnitude asymmetry (``book/sign_magnitude/theorem3.md``): its sizes, the
Explore figure (C(p): limit, the author's formula, the exact kernel, simulation) and the claims
``dong.thm3.*``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from types import SimpleNamespace

import numpy as np

from companion.chapters import docname
from companion.claims import NotRun
from companion.plotting import COLORS, legend, set_errorbar
from companion.stats import MCEstimate
from companion.tables import Table, pm, table
from companion.theory import transverse_ratio as _tr
from companion.theory.transverse_ratio import (
    PAPER_TABLE2,
    post_norm_inflation,
    simulate_transverse_ratio_grid,
    transverse_ratio_exact,
    transverse_ratio_limit,
    transverse_ratio_paper,
)
from companion.widgets import Explore, animate, control
from companion.widgets import explore as explore_figure

__all__ = [
    "SIZES",
    "FLIP_RATES",
    "LADDER_PS",
    "SIM_RATES",
    "WIDTHS",
    "author_theorem3",
    "check_table",
    "draw",
    "explore",
    "ladder",
    "run_table2",
    "extrapolation_table",
    "readme_table",
    "table2",
    "table2_command",
    "table2_widths",
    "table2_path",
    "update",
    "width_extrapolation",
]

CHAPTER = docname(__name__)


@dataclass(frozen=True)
class Sizes:
    check_n: int  # width n = m = d of the chapter's two-flip-rate check
    check_samples: int  # sphere inputs per seed there
    check_seeds: int  # independent weight draws there
    table_widths: tuple  # widths of the chapter's Table 2
    table_samples: int
    table_seeds: int
    ladder_widths: tuple  # widths n = m = d of the claims' width extrapolation
    ladder_samples: int  # sphere inputs per weight draw there
    ladder_seeds: int  # weight draws per width
    table2_n: int  # Table 2's width (dong.thm3.table2 / .author_code; a results file)
    table2_samples: int
    table2_seeds: int


SIZES = {
    "cpu": Sizes(
        check_n=256,
        check_samples=600,
        check_seeds=6,
        table_widths=(256, 512),
        table_samples=1000,
        table_seeds=3,
        ladder_widths=(256, 512, 1024),
        ladder_samples=1000,
        ladder_seeds=6,
        table2_n=2048,  # the author's protocol, 5 seeds: results/theorem3/table2-cpu.jsonl
        table2_samples=10000,
        table2_seeds=5,
    ),
    "full": Sizes(  # the author's protocol for Table 2: 20 seeds x 10,000 samples
        check_n=1024,
        check_samples=10000,
        check_seeds=10,
        table_widths=(256, 512, 1024, 2048),
        table_samples=10000,
        table_seeds=20,
        ladder_widths=(512, 1024, 2048),
        ladder_samples=10000,
        ladder_seeds=10,
        table2_n=2048,
        table2_samples=10000,
        table2_seeds=20,
    ),
    "smoke": Sizes(
        check_n=32,
        check_samples=50,
        check_seeds=2,
        table_widths=(32,),
        table_samples=50,
        table_seeds=2,
        ladder_widths=(16, 32, 64),
        ladder_samples=50,
        ladder_seeds=2,
        table2_n=64,
        table2_samples=100,
        table2_seeds=2,
    ),
}


#: Flip rates precomputed for the page.
FLIP_RATES = (1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.2)


#: Where the Explore figure simulates (cached per width: moving p only moves the marker).
SIM_RATES = (0.002, 0.01, 0.05, 0.2)


#: Widths offered by the Explore figure.
WIDTHS = (64, 128, 256, 512)


#: y ranges that hold every width's simulation +- 2 SE (checked in tests/unit/test_widgets.py).
YLIM = ((1.8, 2.95), (1.8, 6.8))


@lru_cache(maxsize=16)
def _sims(n, seed):
    return tuple(simulate_transverse_ratio_grid(SIM_RATES, n, samples=400, seeds=3, rng=seed))


def _title(p, n):
    return (
        f"p = {p:.2g}, n = {n}: exact {transverse_ratio_exact(p):.3f}, "
        f"author {transverse_ratio_paper(p):.3f}"
    )


def _points(sims, post: bool):
    est = [s.C_post_norm_fd if post else s for s in sims]
    return [s.p for s in sims], [e.value for e in est], [2 * e.stderr for e in est]


def draw(fig, p: float = 0.01, n: int = 256, seed: int = 0):
    """Left: first-order C(p), three closed forms and simulation +- 2 SE. Right: the post-norm
    trap. Returns the state :func:`update` moves."""
    sims = _sims(int(n), int(seed))
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
        *_points(sims, False),
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
        ylim=YLIM[0],
        xlabel="flip rate p",
        ylabel="C = ΣT_sign / ΣT_mag",
        title=_title(p, n),
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
        *_points(sims, True),
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
        ylim=YLIM[1],
        xlabel="flip rate p",
        title="trap: measuring after the norm",
    )
    legend(ax2, ncols=1)
    ax2.grid(alpha=0.3)
    # legends stay in the background (text is slow to draw); what moves is blitted
    animate(line1, line2, ax1.title, sim1, sim2)
    return SimpleNamespace(lines=(line1, line2), title=ax1.title, sims=(sim1, sim2))


def update(state, p: float = 0.01, n: int = 256, seed: int = 0) -> bool:
    """Move the p marker and the title; on a new width, the simulation points."""
    for line in state.lines:
        line.set_xdata([p, p])
    state.title.set_text(_title(p, n))
    sims = _sims(int(n), int(seed))
    for container, post in zip(state.sims, (False, True), strict=True):
        set_errorbar(container, *_points(sims, post))
    return False  # only animated artists changed


def explore() -> Explore:
    """The chapter's Explore figure: flip rate p x width n, all 28 combinations precomputed."""
    controls = {
        "p": control(0.01, 1e-4, 0.2, log=True, label="flip rate p", values=FLIP_RATES),
        "n": control(256, options=WIDTHS, label="width n"),
    }
    return explore_figure(draw, controls, update=update, grid=("p", "n"), figsize=(8, 4.4))


def check_table(sims, n: int) -> Table:
    """The chapter's numerical check as a table: one column per flip rate."""
    cols = [f"p = {s.p:g}" for s in sims]
    quantities = {
        f"C (n = {n}) ± SE": lambda s: pm(s, fmt="{:.4f}"),
        "exact kernel C_exact": lambda s: f"{transverse_ratio_exact(s.p):.4f}",
        "simulation / exact − 1": lambda s: (
            f"{100 * (s.value / transverse_ratio_exact(s.p) - 1):+.1f}%"
        ),
        "author's c(p)": lambda s: f"{transverse_ratio_paper(s.p):.4f}",
        "hidden-layer C": lambda s: pm(s.C_hidden, fmt="{:.4f}"),
        "R_sign, R_mag (output space)": lambda s: f"{s.R_sign.value:.4f}, {s.R_mag.value:.4f}",
        "post-norm finite difference (trap)": lambda s: pm(s.C_post_norm_fd),
        "C_exact × inflation": lambda s: (
            f"{transverse_ratio_exact(s.p) * post_norm_inflation(s.p):.3f}"
        ),
    }
    rows = [
        {"": name, **{c: f(s) for c, s in zip(cols, sims, strict=True)}}
        for name, f in quantities.items()
    ]
    return table(rows)


def table2_widths(rows: dict, *, samples: int, seeds: int) -> Table:
    """Table 2: C(p) by the author's formula, the exact kernel, our simulations at each width
    (``rows``: width -> the estimates at the paper's flip rates) and the paper's measured."""
    ps = sorted(PAPER_TABLE2)
    out = []
    for i, p in enumerate(ps):
        row = {
            "p": f"{p:g}",
            "author c(p)": transverse_ratio_paper(p),
            "exact (ours)": transverse_ratio_exact(p),
        }
        row.update({f"ours, n = {n}": pm(est[i]) for n, est in rows.items()})
        row["paper, n = 2048"] = pm(*PAPER_TABLE2[p])
        out.append(row)
    return table(
        out,
        formats={"author c(p)": "{:.3f}", "exact (ours)": "{:.3f}"},
        caption=f"Table 2: C(p); ours from {seeds} seeds × {samples} sphere samples per cell",
    )


#: Flip rates of the width ladder (Table 2's four and a small one for the limit).
LADDER_PS = (0.005, 0.01, 0.02, 0.05, 0.10)


@lru_cache(maxsize=4)
def ladder(scale: str) -> dict:
    """``{n: [C(p) for p in LADDER_PS]}``: first-order C simulated at the ladder's widths
    (one independent simulation per width; the claims and the chapter share it)."""
    s = SIZES[scale]
    return {
        n: tuple(
            simulate_transverse_ratio_grid(
                LADDER_PS,
                n,
                samples=s.ladder_samples,
                seeds=s.ladder_seeds,
                post_norm=False,
                rng=np.random.default_rng([20261201, n]),
            )
        )
        for n in s.ladder_widths
    }


def width_extrapolation(ns, estimates) -> tuple[MCEstimate, float]:
    """Weighted least-squares fit ``C(n) = C_inf + b/n`` to estimates at widths ``ns``.

    Returns ``C_inf`` as an MCEstimate (SE from the fit, weights 1/SE^2) and the fit's
    chi^2 (len(ns) - 2 degrees of freedom).

    Examples
    --------
    >>> e = [MCEstimate(2.0 - 1.0 / n, 0.001, 5) for n in (100, 200, 400)]
    >>> c, chi2 = width_extrapolation((100, 200, 400), e)
    >>> round(c.value, 6), round(chi2, 6)
    (2.0, 0.0)
    """
    x = 1.0 / np.asarray(ns, dtype=float)
    y = np.array([e.value for e in estimates])
    w = 1.0 / np.array([e.stderr for e in estimates]) ** 2
    X = np.stack([np.ones_like(x), x], axis=1)  # (widths, 2)
    cov = np.linalg.inv(X.T @ (X * w[:, None]))
    beta = cov @ (X.T @ (w * y))
    chi2 = float((w * (y - X @ beta) ** 2).sum())
    return MCEstimate(float(beta[0]), float(np.sqrt(cov[0, 0])), len(ns)), chi2


# Table 2 at the paper's width: our estimator against the README and the author's own code


def table2_path(scale: str) -> str:
    """Our n = 2048 (at CPU and full scale) run of Table 2, under the results root."""
    from companion.results import locate

    return str(locate("theorem3", f"table2-{scale}.jsonl"))


def table2_command(scale: str) -> str:
    """The command that writes (resumes) :func:`table2_path`."""
    return "companion claims --full --id dong.thm3.table2" + (
        f" --scale {scale}" if scale != "cpu" else ""
    )


def run_table2(scale: str) -> list[dict]:
    """Simulate Table 2 at ``SIZES[scale].table2_n``: one independent run per flip rate (so the
    four p are independent estimates), stored as it goes; a rerun resumes."""
    from companion.results import ResultStore, experiment_dir

    s = SIZES[scale]
    path = experiment_dir("theorem3", write=True) / f"table2-{scale}.jsonl"
    store = ResultStore(path)
    for i, p in enumerate(sorted(PAPER_TABLE2)):
        key = f"table2|p={p:g}"
        if store.done(key):
            continue
        t0 = time.perf_counter()
        r = _tr.simulate_transverse_ratio(
            p,
            s.table2_n,
            samples=s.table2_samples,
            seeds=s.table2_seeds,
            post_norm=False,
            rng=np.random.default_rng([20261018, i]),
        )
        store.append(
            {
                "key": key,
                "p": p,
                "n": s.table2_n,
                "samples": s.table2_samples,
                "seeds": s.table2_seeds,
                "scale": scale,
                "C": r.value,
                "C_se": r.stderr,
                "C_hidden": r.C_hidden.value,
                "R_sign": r.R_sign.value,
                "R_mag": r.R_mag.value,
                "wall_s": time.perf_counter() - t0,
            },
            command=table2_command(scale),
        )
    return store.records()


def _table2_records(scale: str, full: bool) -> tuple[dict, dict]:
    from companion.claims import complete, measured_on_records
    from companion.results import ResultStore

    def present():
        return [r["key"] for r in ResultStore(table2_path(scale)).records()]

    keys = [f"table2|p={p:g}" for p in sorted(PAPER_TABLE2)]
    full = full or scale != "cpu"  # as the model chapters: run what is missing off CPU scale
    complete(
        keys, present, command=table2_command(scale), full=full, run=lambda _: run_table2(scale)
    )
    recs = {r["p"]: r for r in ResultStore(table2_path(scale)).records() if r["key"] in keys}
    on = measured_on_records(recs.values(), file=f"theorem3/table2-{scale}.jsonl", scale=scale)
    return recs, on


def table2(scale: str) -> dict:
    """``{p: record}`` of our Table 2 run at ``scale`` (read from the results file; at full and
    smoke scale what is missing is run now by :func:`run_table2`)."""
    return _table2_records(scale, False)[0]


def author_theorem3() -> dict:
    """The author's own code run at Table 2's protocol (``results/author/theorem3_v1.json``,
    numbers only; written by ``tools/author_theorem3.py``)."""
    from companion.results import locate, read_json

    path = locate("author", "theorem3_v1.json")
    if not path.exists():
        # a results root without the shipped file (a user's own folder): the claims facing the
        # author's code cannot run, and say so
        raise NotRun(f"the author's Theorem 3 numbers are not in this results root ({path.name})")
    return read_json(path)


def extrapolation_table(lad: dict) -> Table:
    """The width ladder extrapolated, ``C(n) = C_inf + b/n``: C_inf at each flip rate against
    the exact kernel and the author's formula, with z-scores (``lad``: :func:`ladder`)."""
    ns = sorted(lad)
    rows = []
    for i, p in enumerate(LADDER_PS):
        c, _ = width_extrapolation(ns, [lad[n][i] for n in ns])
        ex, au = transverse_ratio_exact(p), transverse_ratio_paper(p)
        rows.append(
            {
                "p": f"{p:g}",
                "C∞ (ours)": pm(c, fmt="{:.4f}"),
                "exact kernel": ex,
                "z vs exact": f"{c.z(ex):+.1f}",
                "author c(p)": au,
                "z vs author": f"{c.z(au):+.1f}",
            }
        )
    fmt = {"exact kernel": "{:.4f}", "author c(p)": "{:.4f}"}
    return table(rows, formats=fmt, caption=f"C∞ from widths {', '.join(map(str, ns))}")


def readme_table(author: dict, ours: dict) -> Table:
    """Table 2 three ways at n = 2048: the README's values, the author's code and ours, with
    the README's and our distance from the author's code in standard errors."""
    rows = []
    for p in sorted(PAPER_TABLE2):
        rd, rd_se = PAPER_TABLE2[p]
        a, o = _author(author, p), _ours(ours[p])
        rows.append(
            {
                "p": f"{p:g}",
                "README": pm(rd, rd_se),
                "author's code": pm(a, fmt="{:.4f}"),
                "ours": pm(o, fmt="{:.4f}"),
                "README − author (SE)": f"{(rd - a.value) / a.stderr:+.1f}",
                "ours − author (SE)": f"{_z(o, a):+.2f}",
            }
        )
    return table(rows)


def _ours(rec) -> MCEstimate:
    return MCEstimate(rec["C"], rec["C_se"], rec["seeds"])


def _author(a: dict, p: float) -> MCEstimate:
    c = a["C"][f"{p:g}"]
    return MCEstimate(c["mean"], c["se"], c["seeds"])


def _z(a: MCEstimate, b: MCEstimate) -> float:
    return (a.value - b.value) / float(np.hypot(a.stderr, b.stderr))


#: The chapter as a talk: the parts of its page that its deck shows (companion.site.slides).
TALK = {
    "statement": "thm-theorem3",
    "steps": ("Arc-cosine kernel", "The trap: measuring after the norm"),
    "punchline": "dong.thm3.limit",
    "exercise": "ex-t3-expand",
}
