"""Theorem 4 (companion.theory.quantization)."""

import re

import numpy as np
import pytest

from companion.theory import quantization as qz
from companion.theory.bussgang import bussgang_cos2
from companion.theory.perturbations import gaussian_weights


def test_error_is_orthogonal_to_quantisation_rowwise():
    W = gaussian_weights(16, 64, rng=0)
    Q = qz.absmean_sign_quantize(W)
    assert np.allclose(np.sum(Q * (W - Q), axis=1), 0, atol=1e-12)


def test_post_relu_constant():
    assert qz.quantization_radial_post() == pytest.approx(0.36489, abs=5e-6)
    assert abs(qz.quantization_radial_post() / qz.quantization_radial_pre() - 1) < 0.0045


@pytest.mark.parametrize("m, n", [(256, 512), (512, 256)])
def test_sign_quantiser_geometry(m, n):
    geo = qz.quantization_error_geometry(gaussian_weights(m, n, rng=m), samples=1500, rng=n)
    assert geo.sign_preserving and geo.zero_fraction == 0
    assert geo.row_cos2.agrees_with(bussgang_cos2(n=n))
    assert geo.vector_cos2.agrees_with(qz.quantization_cos2_limit())
    assert geo.radial_pre.agrees_with(qz.quantization_radial_pre(m))
    assert geo.radial_post.agrees_with(qz.quantization_radial_post(m))


def test_ternary_differs():
    geo = qz.quantization_error_geometry(
        gaussian_weights(256, 512, rng=0), "ternary", samples=800, rng=1
    )
    assert not geo.sign_preserving
    assert geo.vector_cos2.value == pytest.approx(0.787, abs=0.01)
    assert geo.radial_pre.value == pytest.approx(0.645, abs=0.015)


@pytest.mark.parametrize(
    "call, msg",
    [
        (
            lambda: qz.quantization_error_geometry(np.array([[1.0, np.nan], [1.0, 2.0]])),
            "`W` must contain only finite values; got 1 non-finite entries",
        ),
        (
            lambda: qz.quantization_error_geometry(np.ones((4, 4)), "int4"),
            "`quantizer` must be one of 'sign_absmean', 'ternary'; got 'int4'",
        ),
        (
            lambda: qz.quantization_error_geometry(np.ones((1, 4))),
            "`W` must have at least 2 rows and 2 columns; got shape (1, 4)",
        ),
        (lambda: qz.absmean_sign_quantize(np.ones(3)), "`W` must be a 2-D array; got shape (3,)"),
        (lambda: qz.quantization_radial_post(m=1), "`m` must be an integer >= 2; got 1"),
    ],
)
def test_bad_inputs(call, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()
