"""Monte Carlo estimates that carry their standard error.

Every simulated number in the book is an :class:`MCEstimate`, and a closed form
"agrees" with a simulation when it lies within ``k`` (default 4) standard errors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as _st

from companion._validate import check_finite_array, check_int, check_real

__all__ = ["MCEstimate", "mean_estimate", "ratio_difference_estimate", "ratio_estimate"]


@dataclass(frozen=True)
class MCEstimate:
    """A Monte Carlo estimate: value, standard error and number of independent draws.

    Examples
    --------
    >>> est = MCEstimate(0.637, 0.001, 1000)
    >>> est.agrees_with(2 / 3.141592653589793)
    True
    >>> est.ci(0.95)
    (0.635..., 0.638...)
    """

    value: float
    stderr: float
    n: int

    def __post_init__(self):
        # an estimate with a NaN value or a negative standard error compares as "agrees"
        # or "deviates" at random: refuse it where it is made
        check_real(self.value, "value")
        check_real(self.stderr, "stderr", low=0.0)
        check_int(self.n, "n", low=1)

    def agrees_with(self, exact: float, k: float = 4.0) -> bool:
        """True when ``|value - exact| <= k * stderr``."""
        exact = check_real(exact, "exact")
        k = check_real(k, "k", low=0.0)
        return bool(abs(self.value - exact) <= k * self.stderr)

    def z(self, exact: float) -> float:
        """Signed distance to ``exact`` in standard errors (inf when stderr is 0)."""
        diff = self.value - check_real(exact, "exact")
        if self.stderr == 0:
            return 0.0 if diff == 0 else float(np.sign(diff) * np.inf)
        return diff / self.stderr

    def ci(self, level: float = 0.95) -> tuple[float, float]:
        """Normal-approximation confidence interval."""
        level = check_real(level, "level", low=0.0, high=1.0, low_open=True, high_open=True)
        half = float(_st.norm.ppf(0.5 + level / 2)) * self.stderr
        return (float(self.value - half), float(self.value + half))

    def __format__(self, spec: str) -> str:
        spec = spec or ".4f"
        return f"{self.value:{spec}} ± {self.stderr:{spec}}"

    def __str__(self) -> str:
        return f"{self:.4g} (n={self.n})"


def mean_estimate(samples) -> MCEstimate:
    """Mean of i.i.d. draws with its standard error ``std / sqrt(n)``.

    Examples
    --------
    >>> mean_estimate([1.0, 2.0, 3.0]).value
    2.0
    """
    x = check_finite_array(samples, "samples").ravel()
    if x.size < 2:
        raise ValueError(f"`samples` must hold at least 2 draws; got {x.size}")
    return MCEstimate(float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size)), int(x.size))


def ratio_estimate(num, den) -> MCEstimate:
    """Ratio of sums ``sum(num) / sum(den)`` with its delta-method standard error.

    ``num`` and ``den`` are paired i.i.d. draws (one pair per independent unit,
    e.g. per seed or per sample); the paper's asymmetry ratio is a ratio of sums.

    Examples
    --------
    >>> r = ratio_estimate([2.0, 4.0, 6.0], [1.0, 2.0, 3.0])
    >>> r.value, r.stderr
    (2.0, 0.0)
    """
    a = check_finite_array(num, "num").ravel()
    b = check_finite_array(den, "den").ravel()
    if a.shape != b.shape:
        raise ValueError(f"`num` and `den` must have the same length; got {a.size} and {b.size}")
    if a.size < 2:
        raise ValueError(f"`num` must hold at least 2 draws; got {a.size}")
    total = b.sum()
    if total == 0:
        raise ValueError("`den` must have a non-zero sum (the ratio is undefined); got 0")
    r = a.sum() / total
    resid = a - r * b  # linearisation of the ratio around r
    se = np.sqrt(resid.var(ddof=1) / a.size) / abs(b.mean())
    return MCEstimate(float(r), float(se), int(a.size))


def ratio_difference_estimate(num_a, den_a, num_b, den_b) -> MCEstimate:
    """Difference of two ratios of sums, ``sum(num_a)/sum(den_a) - sum(num_b)/sum(den_b)``,
    with a paired delta-method standard error.

    The four arrays hold one entry per independent unit (e.g. per seed), all four from the
    same unit: the two ratios then correlate, and combining their SEs as if independent
    overstates the SE of the difference (by 10x or more when they share their noise).

    Examples
    --------
    >>> d = ratio_difference_estimate([2.0, 4.1], [1.0, 2.0], [2.0, 4.0], [1.0, 2.0])
    >>> round(d.value, 4)
    0.0333
    """
    names = ("num_a", "den_a", "num_b", "den_b")
    na, da, nb, db = (
        check_finite_array(x, name).ravel()
        for x, name in zip((num_a, den_a, num_b, den_b), names, strict=True)
    )
    for x, name in zip((da, nb, db), names[1:], strict=True):
        if x.shape != na.shape:
            raise ValueError(
                f"`{name}` must pair with `num_a` (same length); got {x.size} and {na.size}"
            )
    if na.size < 2:
        raise ValueError(f"`num_a` must hold at least 2 draws; got {na.size}")
    for x, name in ((da, "den_a"), (db, "den_b")):
        if x.sum() == 0:
            raise ValueError(f"`{name}` must have a non-zero sum (the ratio is undefined); got 0")
    ra, rb = na.sum() / da.sum(), nb.sum() / db.sum()
    # per-unit linearisation of each ratio, differenced within the unit
    resid = (na - ra * da) / da.mean() - (nb - rb * db) / db.mean()
    return MCEstimate(float(ra - rb), float(np.sqrt(resid.var(ddof=1) / na.size)), int(na.size))
