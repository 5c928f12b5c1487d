"""Shared fixtures. The library never seeds globally; tests pass explicit generators."""

import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fresh seeded generator per test (independent of test order)."""
    return np.random.default_rng(20260518)
