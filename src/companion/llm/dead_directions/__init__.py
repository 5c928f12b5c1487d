"""The dead-direction diagnostic on real transformers (Shirodkar & Narayanan 2026, at scale).

Two steps, in the manner of TransformerLens's ``run_with_cache`` followed by analysis:

* :func:`accumulate` runs the model **once** over calibration batches with scoped hooks on
  its final norm and gathers float64 second moments (:class:`Moments`): the norm's output
  as the forward pass computed it, the same norm recomputed in float64 from its captured
  input (no forward-dtype rounding), the *other* norm kind recomputed on that input (a
  control: RMSNorm for a LayerNorm model and vice versa), the norm's input, and the
  residual stream after every block (uncentred, split into folds for a jackknife);
* :func:`read_out` turns moments into a :class:`Diagnosis`, reading nothing but them and
  the final norm's parameters:

  - the **γ-read** v* = γ⁻¹/‖γ⁻¹‖ (parameters only) against each covariance, as a
    :class:`KernelRead`: the bottom eigenvector's |cos| with v*, the Rayleigh quotient
    v*ᵀCv*/λ_max, the γ-invariant exactness statistic ρ = v*ᵀCv*/Σᵢv*ᵢ²Cᵢᵢ, the
    alignment with the numerical null space, the spectrum and the classifier's verdict
    (:func:`companion.theory.null_classifier.classify_norm`);
  - controls that must fail: v* of a **shuffled** γ and the **swapped** norm kind;
  - the Schur ratio R(v*) of the pre-norm state (our reconstruction,
    :func:`companion.theory.schur_ratio.schur_ratio`), its Marchenko–Pastur baseline and
    R along random directions (:class:`SchurRead`);
  - the σ_min profile of the **pre-norm** residual stream block by block, with and
    without position 0 (attention sinks), and the jackknife SE of each block-to-block
    step (:class:`SigmaProfile`).

:func:`diagnose` is the two in a row. :meth:`Diagnosis.to_record` writes the flat record
the results files hold (``cos``, ``cos_fp64``, ``sigma_ratio`` ...: the names every
committed record and chapter uses) and :meth:`Diagnosis.from_record` reads one back, old
records included. :func:`run_dead_directions` is the resumable driver behind
``companion run dead-directions``.

Modules: :mod:`.reads` (one covariance's read of v*, the Schur ratio, the σ_min profile),
:mod:`.moments` (:func:`accumulate`), :mod:`.diagnosis` (:class:`Diagnosis`,
:func:`read_out`, :func:`diagnose`), :mod:`.driver` (results files, the CLI),
:mod:`.sublayers` (σ_min split by sublayer: attention or MLP) and :mod:`.sublayers_run`
(``companion run sigma-split``).
"""

from __future__ import annotations

from companion.llm.dead_directions.diagnosis import Diagnosis, diagnose, read_out
from companion.llm.dead_directions.driver import (
    load_results,
    results_dir,
    results_path,
    run_cli,
    run_dead_directions,
)
from companion.llm.dead_directions.moments import Moments, accumulate
from companion.llm.dead_directions.reads import (
    KernelRead,
    SchurRead,
    SigmaProfile,
    near_null_alignment,
)

__all__ = [
    "Diagnosis",
    "KernelRead",
    "Moments",
    "SchurRead",
    "SigmaProfile",
    "accumulate",
    "read_out",
    "diagnose",
    "near_null_alignment",
    "run_dead_directions",
    "run_cli",
    "results_dir",
    "results_path",
    "load_results",
]
