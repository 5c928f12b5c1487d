"""One error style for every public function.

Each message names the parameter in backticks, states the constraint and shows
the value received, e.g. ``ValueError("`p` must be in [0, 1]; got 1.5")``.
Tests pin these messages, so change them only together with the tests.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "as_generator",
    "check_choice",
    "check_finite_array",
    "check_int",
    "check_matrix",
    "check_probability",
    "check_real",
]


def _fmt(value) -> str:
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape}"
    return repr(value)


def as_generator(rng) -> np.random.Generator:
    """Turn ``None``, an int seed or a Generator into a ``numpy.random.Generator``.

    The library never seeds numpy globally; every stochastic function calls this.

    Examples
    --------
    >>> g = as_generator(0)
    >>> as_generator(g) is g
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            raise ValueError(f"`rng` must be a non-negative seed; got {rng}")
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    raise TypeError(
        f"`rng` must be None, an int seed or a numpy Generator; got {type(rng).__name__}"
    )


def check_real(value, name: str, *, low=None, high=None, low_open=False, high_open=False) -> float:
    """Return ``value`` as a finite float inside the given bounds, or raise.

    Examples
    --------
    >>> check_real(0.5, "p", low=0, high=1)
    0.5
    >>> check_real(1.5, "p", low=0, high=1)
    Traceback (most recent call last):
    ...
    ValueError: `p` must be in [0, 1]; got 1.5
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise TypeError(f"`{name}` must be a real number; got {type(value).__name__}")
    x = float(value)
    if not np.isfinite(x):
        raise ValueError(f"`{name}` must be finite; got {x}")
    lo_ok = low is None or (x > low if low_open else x >= low)
    hi_ok = high is None or (x < high if high_open else x <= high)
    if not (lo_ok and hi_ok):
        if low is not None and high is not None:
            rng_txt = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
            raise ValueError(f"`{name}` must be in {rng_txt}; got {value:g}")
        if low is not None:
            raise ValueError(f"`{name}` must be {'>' if low_open else '>='} {low:g}; got {value:g}")
        raise ValueError(f"`{name}` must be {'<' if high_open else '<='} {high:g}; got {value:g}")
    return x


def check_probability(p, name: str = "p") -> float:
    """A probability in [0, 1].

    Examples
    --------
    >>> check_probability(-0.1)
    Traceback (most recent call last):
    ...
    ValueError: `p` must be in [0, 1]; got -0.1
    """
    return check_real(p, name, low=0.0, high=1.0)


def check_int(value, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An integer (not a bool) inside ``[low, high]``.

    Examples
    --------
    >>> check_int(1, "n", low=2)
    Traceback (most recent call last):
    ...
    ValueError: `n` must be an integer >= 2; got 1
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"`{name}` must be an integer; got {type(value).__name__}")
    v = int(value)
    if low is not None and high is not None and not (low <= v <= high):
        raise ValueError(f"`{name}` must be an integer in [{low}, {high}]; got {v}")
    if low is not None and v < low:
        raise ValueError(f"`{name}` must be an integer >= {low}; got {v}")
    if high is not None and v > high:
        raise ValueError(f"`{name}` must be an integer <= {high}; got {v}")
    return v


def check_choice(value, name: str, choices) -> str:
    """One of a fixed set of strings.

    Examples
    --------
    >>> check_choice("cauchy", "dist", ["gaussian", "laplace"])
    Traceback (most recent call last):
    ...
    ValueError: `dist` must be one of 'gaussian', 'laplace'; got 'cauchy'
    """
    if value not in choices:
        opts = ", ".join(repr(c) for c in choices)
        raise ValueError(f"`{name}` must be one of {opts}; got {value!r}")
    return value


def check_finite_array(
    x, name: str, *, ndim: int | None = None, min_ndim: int | None = None, dtype=np.float64
) -> np.ndarray:
    """A finite real array, optionally of a given number of dimensions.

    Examples
    --------
    >>> check_finite_array([1.0, float("nan")], "x")
    Traceback (most recent call last):
    ...
    ValueError: `x` must contain only finite values; got 1 non-finite entries
    """
    arr = np.asarray(x, dtype=dtype) if dtype is not None else np.asarray(x)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"`{name}` must be a {ndim}-D array; got shape {arr.shape}")
    if min_ndim is not None and arr.ndim < min_ndim:
        raise ValueError(
            f"`{name}` must have at least {min_ndim} dimensions; got shape {arr.shape}"
        )
    bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
    if bad:
        raise ValueError(f"`{name}` must contain only finite values; got {bad} non-finite entries")
    return arr


def check_matrix(x, name: str, *, min_rows: int = 1, min_cols: int = 1) -> np.ndarray:
    """A finite 2-D float array with at least ``min_rows`` x ``min_cols`` entries.

    Examples
    --------
    >>> check_matrix([1.0, 2.0], "W")
    Traceback (most recent call last):
    ...
    ValueError: `W` must be a 2-D array; got shape (2,)
    """
    arr = check_finite_array(x, name, ndim=2)
    if arr.shape[0] < min_rows or arr.shape[1] < min_cols:
        raise ValueError(
            f"`{name}` must have at least {min_rows} rows and {min_cols} columns; "
            f"got shape {arr.shape}"
        )
    return arr
