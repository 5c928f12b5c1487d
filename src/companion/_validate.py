"""One error style for every public function.

Each message names the parameter in backticks, states the constraint and shows
the value received, e.g. ``ValueError("`p` must be in [0, 1]; got 1.5")``.
Tests pin these messages, so change them only together with the tests.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "as_generator",
    "check_bool",
    "check_choice",
    "check_finite_array",
    "check_instance",
    "check_int",
    "check_matrix",
    "check_memory",
    "check_nonempty",
    "check_probability",
    "check_real",
    "check_shape",
    "check_symmetric",
    "check_work",
    "int_text",
    "memory_bytes",
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
    try:
        x = float(value)
    except OverflowError:  # an int beyond float64 (10**400)
        raise ValueError(_too_large(name, value)) from None
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


def _too_large(name: str, value) -> str:
    return (
        f"`{name}` must be within the float64 range (|x| <= 1.8e308); "
        f"got an integer of {math.floor(math.log10(abs(int(value)))) + 1} digits"
    )  # not len(str(value)): str() refuses integers over 4,300 digits


def int_text(v) -> str:
    """An integer for a message: in full up to 15 digits, else its size (``~1e400``), so that
    10**5000 is named instead of overflowing the message (str() refuses > 4,300 digits).

    Examples
    --------
    >>> int_text(123), int_text(-10**400)
    ('123', '-~1e400')
    """
    v = int(v)
    if abs(v) < 10**15:
        return str(v)
    return f"{'-' if v < 0 else ''}~1e{math.floor(math.log10(abs(v)))}"


def _check_tensor(x, name: str) -> None:
    """Refuse what numpy would silently mangle or fail on: complex tensors and numbers, and
    tensors that require grad (duck-typed: torch is never imported here)."""
    is_complex = getattr(x, "is_complex", None)
    if isinstance(x, (complex, np.complexfloating)) or (
        callable(is_complex) and not isinstance(x, np.ndarray) and is_complex()
    ):
        dtype = getattr(x, "dtype", None) or "complex"
        raise TypeError(
            f"`{name}` must be a real number or an array of them; got {dtype} (a complex "
            "value: its imaginary part would be dropped)"
        )
    if getattr(x, "requires_grad", False) is True:
        raise TypeError(
            f"`{name}` must be a plain array, not a tensor that requires grad; got a "
            f"{type(x).__name__} with requires_grad=True (pass `{name}.detach()`)"
        )


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
    if not -(2**63) <= v < 2**63:  # no size, count or index here is larger; numpy's are int64
        raise ValueError(
            f"`{name}` must be an integer that fits in 64 bits (|x| < 2**63); got {int_text(v)}"
        )
    if low is not None and high is not None and not (low <= v <= high):
        raise ValueError(f"`{name}` must be an integer in [{low}, {high}]; got {int_text(v)}")
    if low is not None and v < low:
        raise ValueError(f"`{name}` must be an integer >= {low}; got {int_text(v)}")
    if high is not None and v > high:
        raise ValueError(f"`{name}` must be an integer <= {high}; got {int_text(v)}")
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
    opts = ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise TypeError(f"`{name}` must be a string, one of {opts}; got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"`{name}` must be one of {opts}; got {value!r}")
    return value


def check_bool(value, name: str) -> bool:
    """A bool (or numpy bool); ints and other truthy objects are refused.

    Examples
    --------
    >>> check_bool(1, "centred")
    Traceback (most recent call last):
    ...
    TypeError: `centred` must be a bool; got int
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"`{name}` must be a bool; got {type(value).__name__}")
    return bool(value)


def check_instance(value, name: str, cls):
    """An instance of ``cls`` (e.g. a result record that a function reads).

    Examples
    --------
    >>> check_instance("toy", "toy", dict)
    Traceback (most recent call last):
    ...
    TypeError: `toy` must be a dict; got str
    """
    if not isinstance(value, cls):
        raise TypeError(f"`{name}` must be a {cls.__name__}; got {type(value).__name__}")
    return value


def check_shape(shape, name: str = "shape") -> tuple:
    """An array shape: a non-negative int or a tuple of them.

    Examples
    --------
    >>> check_shape(3), check_shape((2, 0))
    ((3,), (2, 0))
    >>> check_shape((-1, 3))
    Traceback (most recent call last):
    ...
    ValueError: `shape` must hold non-negative integers; got (-1, 3)
    """
    dims = (shape,) if isinstance(shape, (numbers.Integral, np.integer)) else shape
    if not isinstance(dims, (tuple, list)) or not all(
        isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, bool) for k in dims
    ):
        raise TypeError(f"`{name}` must be an int or a tuple of ints; got {_fmt(shape)}")
    dims = tuple(int(k) for k in dims)
    if any(k < 0 for k in dims):
        raise ValueError(f"`{name}` must hold non-negative integers; got {dims}")
    return dims


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
    >>> check_finite_array("0.1", "p")
    Traceback (most recent call last):
    ...
    TypeError: `p` must be a real number or an array of them; got str
    """
    what = f"`{name}` must be a real number or an array of them"
    kind = None
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"{what}; got {type(x).__name__}")
    _check_tensor(x, name)  # inside a list, numpy's dtype (complex) or error (grad) tells
    if isinstance(x, np.ndarray):
        kind = x.dtype.kind
    elif isinstance(x, (list, tuple)):
        try:
            kind = np.asarray(x).dtype.kind  # numpy would turn ["0.1"] into 0.1
        except ValueError:
            raise ValueError(
                f"`{name}` must be a rectangular array; got a ragged sequence"
            ) from None
        except RuntimeError:  # torch: a tensor that requires grad, inside the list
            raise TypeError(
                f"{what}; got {type(x).__name__} (a tensor that requires grad: pass it detached)"
            ) from None
        except OverflowError:
            kind = "O"  # Python ints beyond float64: refused below, with their size
    if kind is not None and kind not in "biufO":
        raise TypeError(f"{what}; got an array of dtype {np.asarray(x).dtype}")
    try:
        arr = np.asarray(x, dtype=dtype) if dtype is not None else np.asarray(x)
    except OverflowError:  # Python ints beyond float64 (10**400)
        big = max(
            (v for v in np.ravel(np.asarray(x, dtype=object)) if isinstance(v, int)),
            key=abs,
            default=0,
        )
        raise ValueError(_too_large(name, big)) from None
    except (TypeError, ValueError, RuntimeError) as err:  # RuntimeError: a tensor inside
        hint = " (a tensor that requires grad: pass it detached)" if "grad" in str(err) else ""
        raise TypeError(f"{what}; got {type(x).__name__}{hint}") from None
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


def check_nonempty(arr: np.ndarray, name: str) -> np.ndarray:
    """Refuse an array with a zero-length axis (no rows, or an empty last axis).

    Examples
    --------
    >>> check_nonempty(np.ones((0, 3)), "Y")
    Traceback (most recent call last):
    ...
    ValueError: `Y` must not be empty; got shape (0, 3)
    """
    if arr.size == 0:
        raise ValueError(f"`{name}` must not be empty; got shape {arr.shape}")
    return arr


def check_symmetric(x, name: str, *, min_size: int = 1) -> np.ndarray:
    """A finite, square, symmetric float64 matrix of size ``>= min_size``, symmetrised.

    Symmetric means to rounding: an asymmetry up to ``1e-10`` of the largest entry is
    averaged away (``(S + S^T)/2``, what accumulated covariances need); a larger one is
    an error, since the matrix is then not a covariance at all.

    Examples
    --------
    >>> check_symmetric([[2.0, 1.0], [0.0, 2.0]], "cov")
    Traceback (most recent call last):
    ...
    ValueError: `cov` must be symmetric; got an asymmetry of 1
    """
    S = check_finite_array(x, name, ndim=2)
    if S.shape[0] != S.shape[1] or S.shape[0] < min_size:
        raise ValueError(
            f"`{name}` must be a square (d, d) matrix with d >= {min_size}; got shape {S.shape}"
        )
    asym = float(np.max(np.abs(S - S.T)))
    if asym > 1e-10 * float(np.max(np.abs(S))):
        raise ValueError(f"`{name}` must be symmetric; got an asymmetry of {asym:.3g}")
    return 0.5 * (S + S.T)


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


def memory_bytes() -> int:
    """This machine's memory in bytes: the physical RAM, or the cgroup's limit when smaller
    (a container); ``COMPANION_MEMORY`` (bytes) overrides both."""
    import os

    env = os.environ.get("COMPANION_MEMORY")
    if env is not None:
        try:
            value = int(env)
        except ValueError:
            raise ValueError(
                f"`COMPANION_MEMORY` must be a number of bytes (an integer); got {env!r}"
            ) from None
        return check_int(value, "COMPANION_MEMORY", low=1)
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # not POSIX: assume a laptop
        total = 16 * 2**30
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(limit) as fh:
                text = fh.read().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return int(total)


def _value(value) -> str:
    ok = isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool)
    return int_text(value) if ok else str(value)


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def check_memory(nbytes: float, name: str, value, *, what: str) -> None:
    """Refuse a size whose estimated memory ``nbytes`` exceeds this machine's memory, in one
    line, before any work (instead of a MemoryError, or a swapping machine, later).

    Examples
    --------
    >>> check_memory(8 * 10**15, "samples", 10**12, what="10**12 x 1000 float64 draws")
    Traceback (most recent call last):
    ...
    ValueError: `samples` must fit in this machine's memory (...); got 1000000000000, ...
    """
    limit = memory_bytes()
    if nbytes > limit:
        raise ValueError(
            f"`{name}` must fit in this machine's memory ({_bytes(limit)}); got {_value(value)}, "
            f"which needs about {_bytes(nbytes)} ({what})"
        )


#: Elementary operations (random draws, multiply-adds) one call may take: ~1e11 is about
#: half an hour on one core; a size beyond it is a typo, not an experiment.
WORK_LIMIT = 1e11


def check_work(ops: float, name: str, value, *, what: str, limit: float = WORK_LIMIT) -> None:
    """Refuse a size whose work (``ops`` elementary operations) exceeds ``limit``.

    Examples
    --------
    >>> check_work(2e11, "d", 10**7, what="20000 samples x d draws")
    Traceback (most recent call last):
    ...
    ValueError: `d` must keep the work under 1e+11 operations (...); got 10000000, ...
    """
    if ops > limit:
        raise ValueError(
            f"`{name}` must keep the work under {limit:.3g} operations (about {limit / 2e11:.3g}"
            f" hours on one core); got {_value(value)}, which needs about {ops:.3g} ({what})"
        )
