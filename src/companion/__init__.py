"""companion: the library behind the interactive companion book.

Two 2026 papers on the geometry of normalisation in transformers:

* Dong (arXiv 2605.18933): sign flips versus magnitude changes in a ReLU + RMSNorm
  block (``companion.theory.sign_magnitude``, ``companion.llm.sign_flips``).
* Shirodkar & Narayanan (arXiv 2606.19491): the algebraic dead direction of
  LayerNorm (``companion.theory.dead_directions``, ``companion.llm.dead_directions``).

``import companion`` is light: it never imports torch. The model code under
``companion.llm`` loads torch and transformers only when it is used.
"""

__version__ = "0.1.0"

from companion.stats import MCEstimate  # noqa: E402

__all__ = ["MCEstimate", "__version__"]
