"""A claim over a set of results records reports nothing on a subset: :func:`complete`
names the missing records (and can have them produced first)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from companion.claims.core import NotRun

__all__ = ["complete"]


def complete(
    expected: Iterable[str],
    present: Callable[[], Iterable[str]],
    *,
    command: str,
    full: bool = False,
    run: Callable[[list], object] | None = None,
    what: str = "records",
) -> str:
    """Check that a claim over a set of records has every record it expects.

    ``present()`` lists the names of the records stored now. When some are missing and
    ``full`` is set, ``run(missing)`` produces them (resumably) and they are counted again.
    A claim never reports a status on a subset: with records still missing this raises
    :class:`NotRun` naming them. Returns ``"n of n records"``.

    Examples
    --------
    >>> complete(["a", "b"], lambda: ["a", "b", "c"], command="make it")
    '2 of 2 records'
    >>> try:
    ...     complete(["a", "b", "c"], lambda: ["a"], command="make it")
    ... except NotRun as why:
    ...     print(why.present, why.expected, why.missing)
    1 3 ('b', 'c')
    """
    want = list(dict.fromkeys(expected))
    have = set(present())
    missing = [k for k in want if k not in have]
    if missing and full and run is not None:
        run(missing)
        have = set(present())
        missing = [k for k in want if k not in have]
    n = len(want)
    if missing:
        few = ", ".join(missing[:5]) + (
            f" … and {len(missing) - 5} more" if len(missing) > 5 else ""
        )
        raise NotRun(
            f"{n - len(missing)} of {n} expected {what} present; missing: {few}; produce them "
            f"with `{command}` (or `companion claims --full`)",
            command=command,
            present=n - len(missing),
            expected=n,
            missing=tuple(missing),
        )
    return f"{n} of {n} {what}"
