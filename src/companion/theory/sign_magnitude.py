"""Dong (2026), arXiv 2605.18933: the public face of the sign-magnitude theory.

Each result lives in a module named after its mathematical object; this module
re-exports them under the names the book and the claims ledger use.
"""

from companion.theory.bussgang import (  # noqa: F401
    DISTRIBUTIONS,
    bussgang_cos2,
    row_cos2,
    simulate_bussgang_cos2,
)
from companion.theory.leverage import *  # noqa: F401,F403  (Part I: outlier leverage)
