"""Theorem 3, the tables: the chapter's two-flip-rate check, Table 2 across widths, the width
extrapolation and Table 2 three ways (README, the author's code, ours)."""

from __future__ import annotations

from companion.chapters.sign_magnitude.theorem3.records import (
    author_estimate,
    our_estimate,
    width_extrapolation,
    z_score,
)
from companion.chapters.sign_magnitude.theorem3.sizes import LADDER_PS
from companion.tables import Table, pm, table
from companion.theory.transverse_ratio import (
    PAPER_TABLE2,
    post_norm_inflation,
    transverse_ratio_exact,
    transverse_ratio_paper,
)


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
        a, o = author_estimate(author, p), our_estimate(ours[p])
        rows.append(
            {
                "p": f"{p:g}",
                "README": pm(rd, rd_se),
                "author's code": pm(a, fmt="{:.4f}"),
                "ours": pm(o, fmt="{:.4f}"),
                "README − author (SE)": f"{(rd - a.value) / a.stderr:+.1f}",
                "ours − author (SE)": f"{z_score(o, a):+.2f}",
            }
        )
    return table(rows)
