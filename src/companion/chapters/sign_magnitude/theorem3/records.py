"""Theorem 3, the numbers the page and its claims share: the width ladder and its extrapolation
C(n) = C_inf + b/n, our Table 2 run at the paper's width (stored, resumable) and the author's
own numbers."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from companion.chapters.sign_magnitude.theorem3.sizes import LADDER_PS, SIZES
from companion.claims import NotRun, per_setting
from companion.stats import MCEstimate
from companion.theory import transverse_ratio as _tr
from companion.theory.transverse_ratio import PAPER_TABLE2, simulate_transverse_ratio_grid


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
    from companion.results import ResultStore, experiment_dir, run_record

    s = SIZES[scale]
    path = experiment_dir("theorem3", write=True) / f"table2-{scale}.jsonl"
    store = ResultStore(path)
    for i, p in enumerate(sorted(PAPER_TABLE2)):

        def measure(i=i, p=p):
            r = _tr.simulate_transverse_ratio(
                p,
                s.table2_n,
                samples=s.table2_samples,
                seeds=s.table2_seeds,
                post_norm=False,
                rng=np.random.default_rng([20261018, i]),
            )
            return {
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
            }

        run_record(
            store, None, measure, key=f"table2|p={p:g}", command=table2_command(scale),
            timed="wall_s",
        )  # fmt: skip
    return store.records()


def table2_records(scale: str, full: bool) -> tuple[dict, dict]:
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
    return table2_records(scale, False)[0]


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


def our_estimate(rec) -> MCEstimate:
    return MCEstimate(rec["C"], rec["C_se"], rec["seeds"])


def per_p(recs: dict) -> str:
    """Our C at each of Table 2's p, as a claim's "ours" shows them."""
    return per_setting({f"p = {p:g}": (recs[p]["C"], recs[p]["C_se"]) for p in sorted(recs)})


def author_estimate(a: dict, p: float) -> MCEstimate:
    c = a["C"][f"{p:g}"]
    return MCEstimate(c["mean"], c["se"], c["seeds"])


def z_score(a: MCEstimate, b: MCEstimate) -> float:
    return (a.value - b.value) / float(np.hypot(a.stderr, b.stderr))
