"""The sizes of the sign-flip experiments at each scale, and the paper's values.

One place holds them: :data:`SETUPS` (windows, seeds, sphere samples, text source per scale),
read by the engine and by the chapter module ``companion.chapters.sign_magnitude.at_scale``;
:data:`PAPER` holds the paper's TinyLlama-1.1B numbers that the chapter and the claims
compare with.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion._validate import check_choice, check_int, check_real
from companion.llm._checks import check_rates

__all__ = ["PAPER", "SETUPS", "Setup", "setup"]

#: The paper's TinyLlama-1.1B values (author's JSONs / abstract; see the spec §4.2 and §4.5).
PAPER = {
    "table1_row_cos2": 0.6084,
    "table1_vec_cos2": 0.6072,
    "outlier_nll_ratio": 4.97,
    "outlier_nll_ratio_abstract": 5.0,
    "leverage_plateau": 10.0,
    "leverage_nll_median": {0.05: 41.3, 0.005: 10.4, 0.001: 8.65, 0.0005: 9.48, 0.0001: 3.54},
    "leverage_ppl_median": {0.05: 89.8, 0.005: 10.5, 0.001: 8.67, 0.0005: 9.50, 0.0001: 2.26},
    "alpha_energy_spearman": 0.955,
    "alpha_median_abstract": 0.024,
    "alpha_max_abstract": 0.26,
    "alpha_max_json": 0.289,
    "column_flip_spearman": 0.927,
    "column_flip_slope": 0.78,
    "baseline_ppl": 7.3828,
}


@dataclass(frozen=True)
class Setup:
    """Sizes of the sign-flip experiments at one scale.

    ``cpu``: 4 windows of 256 tokens of the offline Wikipedia text (1,020 predicted tokens,
    the paper scores 20,470), 4 disjoint calibration windows, 2 seeds (the paper uses 5–10)
    and 12 columns for Exp G (the paper 20): sized for 2 shared CPU cores, enough for the
    qualitative results and orders of magnitude, not for the paper's confidence bands.
    Exp E takes 5 seeds at every fraction (``leverage_seeds``) and 40 in the linear regime
    0.05% ≤ p ≤ 0.5% (``leverage_linear_seeds``): there the non-outlier ΔNLL is of the order
    of its spread across windows, and that spread, like the spread between weight draws,
    averages down with seeds at a cost linear in windows x seeds (more windows per seed
    would average the window part only).
    ``full``: the paper's protocol (10 × 2048 windows of WikiText-2 test, 5 outlier-calibration
    windows, 10 seeds, 10,000 sphere samples). ``smoke``: the full path in seconds (tests): 2
    windows of 32 tokens of the offline Wikipedia text (WikiText-2 needs the hub) on a model
    built at random init and tiny width.
    """

    scale: str
    eval_windows: int
    window: int
    calib_windows: int
    seeds: int
    leverage_seeds: int
    sphere_samples: int
    source: str
    table1_layers: int = 20
    outlier_p: float = 0.05
    outlier_frac: float = 0.05
    leverage_ps: tuple = (0.05, 0.005, 0.001, 0.0005, 0.0001)
    leverage_linear_seeds: int = 0  # seeds of Exp E's linear-regime fractions (0: as others)
    n_columns: int = 20
    min_calib_tokens: int = 512

    def __post_init__(self):
        from companion.llm.data import SOURCES
        from companion.scale import SCALES

        check_choice(self.scale, "scale", SCALES)
        check_choice(self.source, "source", SOURCES)
        for name in ("eval_windows", "calib_windows", "seeds", "leverage_seeds", "n_columns"):
            check_int(getattr(self, name), name, low=1)
        check_int(self.window, "window", low=2)
        check_int(self.sphere_samples, "sphere_samples", low=2)
        check_int(self.table1_layers, "table1_layers", low=1)
        check_int(self.min_calib_tokens, "min_calib_tokens", low=1)
        check_int(self.leverage_linear_seeds, "leverage_linear_seeds", low=0)
        check_real(self.outlier_p, "outlier_p", low=0.0, high=1.0, low_open=True)
        check_real(
            self.outlier_frac, "outlier_frac", low=0.0, high=1.0, low_open=True, high_open=True
        )
        check_rates(self.leverage_ps, "leverage_ps")


SETUPS = {
    "cpu": Setup(
        "cpu",
        eval_windows=4,
        window=256,
        calib_windows=4,
        seeds=2,
        leverage_seeds=5,
        leverage_linear_seeds=40,
        sphere_samples=2000,
        source="wiki",
        n_columns=12,
    ),
    "full": Setup(
        "full",
        eval_windows=10,
        window=2048,
        calib_windows=5,
        seeds=5,
        leverage_seeds=10,
        sphere_samples=10000,
        source="wikitext-2",
    ),
    "smoke": Setup(
        "smoke",
        eval_windows=2,
        window=32,
        calib_windows=2,
        seeds=2,
        leverage_seeds=2,
        sphere_samples=50,
        source="wiki",
        n_columns=4,
        min_calib_tokens=64,
        table1_layers=7,  # every Linear of the one-block random-init build
    ),
}


def setup(scale: str = "cpu") -> Setup:
    """The :class:`Setup` of ``scale``.

    Examples
    --------
    >>> setup("full").eval_windows, setup("full").window
    (10, 2048)
    """
    return SETUPS[check_choice(scale, "scale", tuple(SETUPS))]
