"""What every experiment shares: its description, its run context and the summary helpers.

An experiment module (``table1``, ``outlier``, ``leverage``, ``alpha``, ``columns``) holds
its run, its summary and its description, and exports them as one :class:`Experiment`.
:class:`Context` carries the model, its layers, the token windows, the options and the
result store through a run; its methods are the steps several experiments take (the
baseline, the outlier calibration, a perturbed evaluation).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from companion.llm.sign_flips.activations import (
    input_moments,
    leverage_prediction,
    outlier_columns,
)
from companion.llm.sign_flips.masks import FlipSet, pool_sizes
from companion.llm.sign_flips.perturbations import perturbed
from companion.llm.sign_flips.setups import Setup
from companion.results import run_record


@dataclass(frozen=True)
class Experiment:
    """One experiment: how it runs, what its records summarise to, how it is described.

    ``run(ctx)`` appends records to ``ctx.store``; ``summary(records, by_key)`` returns the
    experiment's fields of :func:`~companion.llm.sign_flips.summarize`; ``describe(s)`` the
    lines of :func:`~companion.llm.sign_flips.format_summary`. ``prefix`` starts the keys of
    its own records; ``needs`` says which inputs it reads (``"windows"``, ``"calib"``,
    ``"target"``); ``seeds_field`` names the :class:`Setup` field of its default seeds.
    """

    name: str
    run: Callable
    summary: Callable
    describe: Callable
    prefix: str
    needs: frozenset = frozenset()
    seeds_field: str = "seeds"


@dataclass
class Context:
    """What every experiment needs: the model, its Linear layers, the token windows, the
    options of this run and the store its records go to."""

    model: object
    name: str
    scale: str
    cfg: Setup
    layers: dict
    windows: object
    calib: object
    calibration: str
    meta: dict
    store: object = None
    seeds: int = 1
    p: float = 0.05
    ps: tuple = ()
    target: str | None = None
    bar: Callable = field(default=lambda it, desc: it)
    _base: object = None

    def baseline(self):
        """The unperturbed evaluation (computed once per run)."""
        from companion.llm.evaluate import evaluate_nll

        if self._base is None:
            self._base = evaluate_nll(self.model, self.windows)
        return self._base

    def measure(self, key: str, compute: Callable[[], dict], *, since: float | None = None):
        """The one resume loop of every experiment: skip ``key`` when the store counts it as
        done (stored, under ``--resume``), else call ``compute()`` (the record's fields),
        time it and append ``{"key": key, **fields, "wall_s": seconds}``.

        ``since``: a ``time.perf_counter()`` reading to time from (work done before the
        call that belongs to this record). Returns the appended record, or None if skipped.
        """
        if self.store.done(key):
            return None
        return run_record(self.store, None, compute, key=key, timed="wall_s", since=since)

    def record_baseline(self) -> None:
        """Store the baseline NLL (once per results file)."""

        def measure() -> dict:
            b = self.baseline()
            return {
                "nll": b.nll,
                "ppl": b.ppl,
                "per_window": b.per_window.tolist(),
                "tokens": b.tokens,
            }

        self.measure("baseline", measure)

    def calibrate(self):
        """Outlier columns (top 5% by mean |input|) and the input moments, recorded once."""
        t0 = time.perf_counter()
        mom = input_moments(
            self.model, self.calib, self.layers, min_tokens=self.cfg.min_calib_tokens
        )
        cols = outlier_columns({n: v["abs_mean"] for n, v in mom.items()}, self.cfg.outlier_frac)

        def measure() -> dict:
            pred = leverage_prediction(self.layers, mom, cols)
            pool_out = sum(pool_sizes(self.layers, cols, "outlier").values())
            pool_all = sum(pool_sizes(self.layers, cols, "all").values())
            return {
                "calibration": self.calibration,
                "calib_tokens": int(self.calib.shape[0] * self.calib.shape[1]),
                "outlier_pool": int(pool_out),
                "all_weights": int(pool_all),
                "n_matrices": len(self.layers),
                **pred,
            }

        # the moments are timed with the record: they are what the calibration costs
        self.measure(f"calibration|{self.calibration}", measure, since=t0)
        return mom, cols

    def eval_perturbed(self, flips: FlipSet, kind: str = "flip", scale: float = 1.0) -> dict:
        """ΔNLL and ΔPPL of the model with ``flips`` applied (restored afterwards)."""
        from companion.llm.evaluate import evaluate_nll

        with perturbed(self.layers, flips, kind=kind, scale=scale):
            res = evaluate_nll(self.model, self.windows)
        return _delta(res, self.baseline())


def _delta(res, base) -> dict:
    """ΔNLL, ΔPPL and the per-window ΔNLL spread of a perturbed evaluation."""
    dw = np.asarray(res.per_window) - np.asarray(base.per_window)
    se = float(dw.std(ddof=1) / math.sqrt(len(dw))) if len(dw) > 1 else float("nan")
    return {
        "nll": res.nll,
        "ppl": res.ppl,
        "dnll": res.nll - base.nll,
        "dppl": res.ppl - base.ppl,
        "dnll_window_se": se,
        "dnll_per_window": dw.tolist(),
    }


def ratio(num: float, den: float, floor: float = 0.0) -> float:
    """num / den with the denominator floored at ``floor`` (the author's convention)."""
    d = max(den, floor) if floor > 0 else den
    return float(num / d) if d != 0 else float("inf") * np.sign(num)


def quartiles(x) -> dict:
    """Median and quartiles of the finite values of ``x`` (NaN and n = 0 when none)."""
    x = np.asarray([v for v in x if np.isfinite(v)], dtype=np.float64)
    if x.size == 0:
        return {"median": float("nan"), "q25": float("nan"), "q75": float("nan"), "n": 0}
    q25, med, q75 = np.percentile(x, [25, 50, 75])
    return {"median": float(med), "q25": float(q25), "q75": float(q75), "n": int(x.size)}
