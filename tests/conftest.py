"""Shared fixtures. The library never seeds globally; tests pass explicit generators."""

import os

import numpy as np
import pytest

# No test may reach a model hub: without these a bad-input case that names a hub folder waits
# in huggingface_hub's retry loop (the Makefile sets them too; a bare `pytest` gets them here).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def rng():
    """A fresh seeded generator per test (independent of test order)."""
    return np.random.default_rng(20260518)


@pytest.fixture
def not_run_here():
    """The claims no run on this machine can measure: they need the paper's PDF, the hub or a
    GPU. Any other not-run claim means a results file was not found."""
    return {
        "dong.abstract.rcol_19",
        "dong.abstract.ppl_gap_67",
        "shirodkar.sigma_min_paper",
        "shirodkar.pythia_trajectory",
        "shirodkar.trained_vision",
        "shirodkar.classifier_paper",
    }
