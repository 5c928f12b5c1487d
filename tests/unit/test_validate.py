import re

import numpy as np
import pytest

from companion import _validate as v
from companion import tables


@pytest.mark.parametrize(
    "call, exc, msg",
    [
        (lambda: v.check_probability(1.5), ValueError, "`p` must be in [0, 1]; got 1.5"),
        (lambda: tables.table([]), ValueError, "`rows` must hold at least one row"),
        (
            lambda: tables.html_table(["a", "b"], [["1", "2"], ["3"]]),
            ValueError,
            "each row of `rows` must have 2 cells, one per column; row 2 has 1",
        ),
        (
            lambda: tables.html_table(["a", "b"], [["1", "2"]], numeric=[True]),
            ValueError,
            "`numeric` must flag each of the 2 columns; got 1 flags",
        ),
        (lambda: v.check_probability(float("nan")), ValueError, "`p` must be finite; got nan"),
        (lambda: v.check_probability("0.5"), TypeError, "`p` must be a real number; got str"),
        (
            lambda: v.check_real(0.0, "eps", low=0, low_open=True),
            ValueError,
            "`eps` must be > 0; got 0",
        ),
        (lambda: v.check_int(1, "n", low=2), ValueError, "`n` must be an integer >= 2; got 1"),
        (lambda: v.check_int(2.0, "n", low=2), TypeError, "`n` must be an integer; got float"),
        (lambda: v.check_int(True, "n"), TypeError, "`n` must be an integer; got bool"),
        (
            lambda: v.check_int(9, "k", low=0, high=5),
            ValueError,
            "`k` must be an integer in [0, 5]; got 9",
        ),
        (
            lambda: v.check_choice("x", "dist", ["a", "b"]),
            ValueError,
            "`dist` must be one of 'a', 'b'; got 'x'",
        ),
        (
            lambda: v.check_matrix(np.ones(3), "W"),
            ValueError,
            "`W` must be a 2-D array; got shape (3,)",
        ),
        (
            lambda: v.check_matrix([[1.0, np.inf]], "W"),
            ValueError,
            "`W` must contain only finite values; got 1 non-finite entries",
        ),
        (
            lambda: v.as_generator("seed"),
            TypeError,
            "`rng` must be None, an int seed or a numpy Generator; got str",
        ),
        (lambda: v.as_generator(-1), ValueError, "`rng` must be a non-negative seed; got -1"),
        (
            lambda: v.check_choice(np.array(["a"]), "dist", ["a", "b"]),
            TypeError,
            "`dist` must be a string, one of 'a', 'b'; got ndarray",
        ),
        (
            lambda: v.check_finite_array("0.1", "p"),
            TypeError,
            "`p` must be a real number or an array of them; got str",
        ),
        (
            lambda: v.check_finite_array(["0.1"], "p"),
            TypeError,
            "`p` must be a real number or an array of them; got an array of dtype <U3",
        ),
        (
            lambda: v.check_finite_array(None, "x"),
            TypeError,
            "`x` must be a real number or an array of them; got NoneType",
        ),
        (
            lambda: v.check_finite_array(object(), "x"),
            TypeError,
            "`x` must be a real number or an array of them; got object",
        ),
        (
            lambda: v.check_finite_array([[1.0, 2.0], [3.0]], "x"),
            ValueError,
            "`x` must be a rectangular array; got a ragged sequence",
        ),
        (
            lambda: v.check_finite_array([1 + 2j], "x"),
            TypeError,
            "`x` must be a real number or an array of them; got an array of dtype complex128",
        ),
        (lambda: v.check_bool(1, "centred"), TypeError, "`centred` must be a bool; got int"),
        (lambda: v.check_instance(3, "toy", dict), TypeError, "`toy` must be a dict; got int"),
        (
            lambda: v.check_shape((2, 1.5)),
            TypeError,
            "`shape` must be an int or a tuple of ints; got (2, 1.5)",
        ),
        (
            lambda: v.check_shape((-1, 3)),
            ValueError,
            "`shape` must hold non-negative integers; got (-1, 3)",
        ),
        (
            lambda: v.check_nonempty(np.ones((0, 3)), "Y"),
            ValueError,
            "`Y` must not be empty; got shape (0, 3)",
        ),
        (
            lambda: v.check_symmetric(np.ones((2, 3)), "cov", min_size=2),
            ValueError,
            "`cov` must be a square (d, d) matrix with d >= 2; got shape (2, 3)",
        ),
        (
            lambda: v.check_symmetric([[1.0, 2.0], [2.001, 1.0]], "cov"),
            ValueError,
            "`cov` must be symmetric; got an asymmetry of 0.001",
        ),
    ],
)
def test_messages_are_pinned(call, exc, msg):
    with pytest.raises(exc, match=re.escape(msg)):
        call()


def test_as_generator_passes_generators_through_and_seeds_ints():
    g = np.random.default_rng(3)
    assert v.as_generator(g) is g
    assert v.as_generator(7).random() == np.random.default_rng(7).random()


def test_library_never_seeds_numpy_globally():
    state = np.random.get_state()[1].copy()
    from companion.theory.bussgang import simulate_bussgang_cos2

    simulate_bussgang_cos2(16, samples=10, rng=1)
    assert np.array_equal(np.random.get_state()[1], state)


def test_check_symmetric_averages_rounding_level_asymmetry():
    S = np.array([[1.0, 2.0], [2.0 + 1e-14, 1.0]])
    out = v.check_symmetric(S, "cov")
    np.testing.assert_array_equal(out, out.T)
    assert v.check_bool(np.bool_(True), "b") is True
    assert v.check_shape(3) == (3,)


def test_tensors_numpy_would_mangle_are_refused_in_one_line():
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=re.escape("got torch.complex64 (a complex value")):
        v.check_finite_array(torch.ones(3, dtype=torch.complex64), "x")  # was a warning
    with pytest.raises(TypeError, match=re.escape("requires_grad=True (pass `x.detach()`)")):
        v.check_finite_array(torch.ones(3, requires_grad=True), "x")  # was a RuntimeError
    with pytest.raises(TypeError, match="a tensor that requires grad"):
        v.check_finite_array([torch.ones(2, requires_grad=True)], "x")
    with pytest.raises(ValueError, match=re.escape("`n` must be within the float64 range")):
        v.check_real(10**400, "n")
    with pytest.raises(ValueError, match=re.escape("got an integer of 401 digits")):
        v.check_finite_array([[1.0, -(10**400)]], "x")
    np.testing.assert_array_equal(v.check_finite_array(torch.ones(2), "x"), [1.0, 1.0])


@pytest.mark.parametrize(
    "call, msg",
    [
        (lambda: v.check_int(10**18, "n", high=3), "`n` must be an integer <= 3; got ~1e18"),
        (lambda: v.check_int(10**5000, "n", high=3), "fits in 64 bits (|x| < 2**63); got ~1e5000"),
        (lambda: v.check_int(-(10**18), "n", low=0), "`n` must be an integer >= 0; got -~1e18"),
        (lambda: v.check_int(-(10**400), "n", low=0), "`n` must be an integer that fits in 64"),
        (lambda: v.check_int(10**17, "n", low=0, high=9), "in [0, 9]; got ~1e17"),
        (
            lambda: v.check_real(10**5000, "x"),
            "`x` must be within the float64 range (|x| <= 1.8e308); got an integer of 5001 digits",
        ),
        (
            lambda: v.check_memory(1e30, "samples", 10**5000, what="w"),
            "got ~1e5000, which needs",
        ),
    ],
)
def test_huge_integers_are_named_not_printed(call, msg):
    """A message printed 10**400 in full, and str() of an integer over 4,300 digits raised
    its own ValueError ("Exceeds the limit ...") in place of the parameter's message."""
    with pytest.raises(ValueError, match=re.escape(msg)):
        call()
    assert v.int_text(10**15 - 1) == "999999999999999" and v.int_text(0) == "0"
