"""Sign flips, outlier columns and leverage on real language models (Dong 2026, §4.2, §4.5).

The building blocks of the chapter ``book/sign_magnitude/at_scale.md``, one module each:

* :mod:`~.layers`: the layers studied, every ``nn.Linear`` except the output head
  (embeddings are not ``Linear``), in module order (:func:`linear_layers`), 20 of them evenly
  spaced for Table 1;
* :mod:`~.masks`: which entries to perturb, from **per-matrix** seeded generators
  (:func:`matrix_rng`), so equal-shaped layers never share a mask; pools of outlier columns
  and count matching (:func:`count_matched_flips`: exactly ``n`` flips per pool, allocated
  across matrices in proportion to pool size, drawn without replacement);
* :mod:`~.perturbations`: the kinds (:data:`KINDS`) applied **in place** and undone
  **exactly** (:func:`perturbed`), so the restored model is bit-identical;
* :mod:`~.activations`: the layers' input statistics (mean |input| per dimension, α in
  both normalisations, the exact single-flip energy 4‖W[:, j]‖²/m · E[x_j²]);
* :mod:`~.setups`: the sizes per scale (:data:`SETUPS`) and the paper's values (:data:`PAPER`);
* one module per experiment, each with its run, summary and description:
  :mod:`~.table1` (Table 1), :mod:`~.outlier` (Exp D), :mod:`~.leverage` (Exp E),
  :mod:`~.alpha` (Exp F), :mod:`~.columns` (Exp G), named in :data:`EXPERIMENTS`;
* :mod:`~.runner`: :func:`run_experiment` writes one JSON record per setting to a resumable
  result store (:mod:`companion.results`) and is what ``companion run sign-flips`` calls
  (:func:`run_cli`); :func:`summarize` and :func:`format_summary` read the records back.
"""

from __future__ import annotations

from companion.llm.sign_flips.activations import (
    activation_stats,
    alpha_from_stats,
    input_abs_mean,
    input_moments,
    leverage_prediction,
    log_spaced_columns,
    outlier_columns,
    single_flip_energy,
    spearman,
)
from companion.llm.sign_flips.experiments import EXPERIMENTS, format_summary, summarize
from companion.llm.sign_flips.layers import default_target, evenly_spaced, get_linear, linear_layers
from companion.llm.sign_flips.masks import (
    POOLS,
    FlipSet,
    allocate,
    bernoulli_flips,
    column_flip_set,
    count_matched_flips,
    matrix_rng,
    pool_sizes,
)
from companion.llm.sign_flips.perturbations import KINDS, perturbed
from companion.llm.sign_flips.runner import (
    Inputs,
    Options,
    command_line,
    load_results,
    results_path,
    run_cli,
    run_experiment,
)
from companion.llm.sign_flips.setups import PAPER, SETUPS, Setup, setup
from companion.llm.sign_flips.table1 import table1_layer, vector_cos2

__all__ = [
    "EXPERIMENTS",
    "KINDS",
    "PAPER",
    "POOLS",
    "SETUPS",
    "FlipSet",
    "Inputs",
    "Options",
    "Setup",
    "activation_stats",
    "allocate",
    "alpha_from_stats",
    "bernoulli_flips",
    "column_flip_set",
    "command_line",
    "count_matched_flips",
    "default_target",
    "evenly_spaced",
    "format_summary",
    "get_linear",
    "input_abs_mean",
    "input_moments",
    "leverage_prediction",
    "linear_layers",
    "load_results",
    "log_spaced_columns",
    "matrix_rng",
    "outlier_columns",
    "perturbed",
    "pool_sizes",
    "results_path",
    "run_cli",
    "run_experiment",
    "setup",
    "single_flip_energy",
    "spearman",
    "summarize",
    "table1_layer",
    "vector_cos2",
]
