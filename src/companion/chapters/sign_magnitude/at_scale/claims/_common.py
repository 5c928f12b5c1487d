"""What the Part I at-scale claims share: the records a claim needs (NotRun naming the
missing ones), the model it ran on, a seed mean with its SE, and the claims' common fields."""

from __future__ import annotations

import math

import numpy as np

from companion.chapters.sign_magnitude.at_scale import CHAPTER
from companion.chapters.sign_magnitude.at_scale.sizes import SIZES
from companion.stats import MCEstimate

#: Exp D's six conditions (pool, kind) at the disjoint calibration.
_OUTLIER_CONDITIONS = (
    ("all", "flip"),
    ("all", "magnitude"),
    ("outlier", "flip"),
    ("non", "flip"),
    ("outlier", "scaled_flip"),
    ("non", "scaled_flip"),
)


def _expected(experiment: str, scale: str) -> list[str] | None:
    """The record keys a claim over ``experiment`` needs at ``scale`` (None: counted)."""
    from companion.llm.sign_flips import outlier_random, sign_vs_magnitude

    cfg, seeds = SIZES[scale].setup, range(SIZES[scale].claim_seeds)
    if experiment == "outlier":
        return ["baseline", "calibration|disjoint"] + [
            f"outlier|disjoint|p={cfg.outlier_p:g}|{pool}|{kind}|seed={s}"
            for s in seeds
            for pool, kind in _OUTLIER_CONDITIONS
        ]
    if experiment == "leverage":
        return ["baseline", "calibration|disjoint"] + [
            f"leverage|disjoint|p={p:g}|{pool}|seed={s}"
            for p in cfg.leverage_ps
            for s in seeds
            for pool in ("outlier", "non")
        ]
    if experiment == "sign-vs-magnitude":
        return ["baseline"] + [
            f"svm|p={p:g}|{k}|seed={s}"
            for p in sign_vs_magnitude.PS
            for s in seeds
            for k in sign_vs_magnitude.KINDS
        ]
    if experiment == "outlier-random":
        return ["baseline"] + [
            f"outlier_random|p={cfg.outlier_p:g}|{pool}|{kind}|seed={s}"
            for s in seeds
            for pool, kind in outlier_random.CONDITIONS
        ]
    return None


def claim_summary(experiment: str, scale: str, full: bool) -> tuple[dict, str, dict]:
    """The summary a claim reads, its source and ``measured_on``. NotRun unless every
    expected record is present (with ``full``: the missing ones are run first)."""
    from companion.claims import complete, measured_on_records
    from companion.llm import sign_flips as sf

    model = SIZES[scale].model
    seeds = SIZES[scale].claim_seeds if _expected(experiment, scale) else None
    cmd = sf.command_line(experiment, model, scale, seeds)

    want = _expected(experiment, scale)
    prefix = {"table1": "table1|", "alpha": "alpha|", "columns": "column|"}.get(experiment)
    if want is None:  # table1, alpha, columns: one record per layer / column, counted
        n = {"table1": SIZES[scale].setup.table1_layers, "alpha": 1}.get(
            experiment, SIZES[scale].setup.n_columns
        )
        want = [f"{experiment} record {i + 1}" for i in range(n)]

    def present():
        keys = [r["key"] for r in sf.load_results(model, experiment, scale=scale)]
        if prefix is None:
            return keys
        n = sum(k.startswith(prefix) for k in keys)
        return [f"{experiment} record {i + 1}" for i in range(n)]

    def run(_missing):
        sf.run_experiment(
            experiment, model, scale=scale, options=sf.Options(seeds=seeds), resume=True,
            progress=False,
        )  # fmt: skip

    full = full or scale == "smoke"  # seconds at smoke size
    complete(want, present, command=cmd, full=full, run=run)
    recs = sf.load_results(model, experiment, scale=scale)
    s = sf.summarize(experiment, recs)
    file = f"sign_flips/{model}/{experiment}-{scale}.jsonl"
    on = measured_on_records(recs, file=file, scale=scale, models=(model,))
    return s, f"{file}; `{cmd}`", on


def who(s: dict) -> str:
    from companion.claims import display_name

    m = s.get("meta", {})
    return (
        f"{display_name(m.get('model'))}, {m.get('eval_windows')}×{m.get('window')} tokens, "
        f"{m.get('dtype')}"
    )


def mean_se(x) -> MCEstimate:
    x = np.asarray(x, dtype=float)
    return MCEstimate(float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)), int(x.size))


COMMON = dict(paper="dong", chapter=CHAPTER, heavy=True, evidence="model", models=("smollm2-135m",))


SMOL = "SmolLM2-135M-Instruct (Q4_1 GGUF, dequantised to float32)"
