"""Shirodkar & Narayanan (2026), arXiv 2606.19491: the public face of the dead-direction theory.

Each result lives in a module named after its mathematical object; this module
re-exports their public names (each module's ``__all__``).
"""

from companion.theory.kfac_lift import *  # noqa: F401,F403
from companion.theory.ln_kernel import *  # noqa: F401,F403
from companion.theory.norms import layernorm, rmsnorm  # noqa: F401
from companion.theory.null_classifier import *  # noqa: F401,F403
from companion.theory.schur_ratio import *  # noqa: F401,F403
from companion.theory.sigma_min import *  # noqa: F401,F403
