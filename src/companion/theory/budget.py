"""The size budget of the simulations: sizes refused in one line before any work when their
arrays would not fit in memory or their work would run for hours (a typo such as
``samples=10**12``), instead of a ``MemoryError``, numpy's "array is too big" or a loop that
never ends.
"""

from __future__ import annotations

from companion._validate import check_int, check_memory, check_real, check_work

__all__ = ["check_sizes"]


#: Multiply-adds a simulation may take: ~1e14 is days on one core, 100x the largest
#: full-scale run (Table 3's chains, ~1e12); beyond it a size is a typo, not an experiment.
WORK = 1e14


def check_sizes(sizes: dict, *, elements: float, ops: float = 0.0, what: str) -> None:
    """Refuse ``sizes`` ({parameter: value}) whose arrays hold more than memory allows
    (``elements`` float64 values) or whose work exceeds :data:`WORK` (``ops``); the
    message names the largest of them.

    Examples
    --------
    >>> check_sizes({"samples": 10**15, "n": 8}, elements=8 * 10**15, what="draws")
    Traceback (most recent call last):
    ...
    ValueError: `samples` must fit in this machine's memory (...); got ~1e15, ...
    """
    if not isinstance(sizes, dict) or not sizes:
        raise TypeError(f"`sizes` must be a non-empty dict of sizes; got {sizes!r}")
    for key, value in sizes.items():
        check_int(value, key)
    elements = check_real(elements, "elements", low=0.0)
    ops = check_real(ops, "ops", low=0.0)
    if not isinstance(what, str):
        raise TypeError(f"`what` must be a str; got {type(what).__name__}")
    name = max(sizes, key=lambda k: sizes[k])
    check_memory(8.0 * elements, name, sizes[name], what=what)
    check_work(ops, name, sizes[name], what=what, limit=WORK)
