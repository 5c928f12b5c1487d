"""How a mutation is applied: break one library function everywhere it is bound, run one
claim, put everything back.

A chapter's claims module often binds a library function by name (``from companion.stats
import ratio_estimate``) or calls it through its module (``_ee.energy_equality``); a break must
reach both, so :func:`mutated` replaces the object under every ``companion.*`` module attribute
that holds it, then clears every ``functools.lru_cache`` of the package (a cached simulation
would otherwise hide the break) and the ledger's result cache.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace

from companion import ledger


@dataclass(frozen=True)
class Mutation:
    """One row of the table: break ``target`` with ``make(original)``; ``claim`` must notice.

    ``target`` is ``"module.attr"`` (a library function or constant); ``what`` says the break
    in words (what the claim would miss without it); ``scale`` the claim runs at;
    ``expect``: ``"killed"`` (the claim's status changes: a reproduced claim turns to
    ``deviates``) or ``"survives"`` (a known blind spot, stated in ``what``: the suite checks
    that it still survives, so the table stays true).
    """

    claim: str
    target: str
    what: str
    make: Callable
    scale: str = "cpu"
    expect: str = "killed"
    heavy: bool = False  # seconds of simulation: marked slow

    @property
    def label(self) -> str:
        return f"{self.claim} <- {self.target}: {self.what}"


def _resolve(target: str):
    """``(owner, attr)``: the module, or the class of a method (``"pkg.mod.Cls.meth"``)."""
    mod, _, attr = target.rpartition(".")
    try:
        return importlib.import_module(mod), attr
    except ModuleNotFoundError:
        parent, _, cls = mod.rpartition(".")
        return getattr(importlib.import_module(parent), cls), attr


def _clear_caches() -> None:
    for name, mod in list(sys.modules.items()):
        if not name.startswith("companion") or mod is None:
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, functools._lru_cache_wrapper):
                obj.cache_clear()
    ledger._CACHE.clear()


@contextlib.contextmanager
def mutated(target: str, make: Callable):
    """Replace ``target`` by ``make(original)`` in every companion module that binds it."""
    mod, attr = _resolve(target)
    original = vars(mod)[attr] if isinstance(mod, type) else getattr(mod, attr)
    new = make(original)
    swapped = []
    if isinstance(mod, type):  # a method: the class binds it
        setattr(mod, attr, new)
        swapped.append((mod, attr))
    for name, m in list(sys.modules.items()):
        if not name.startswith("companion") or m is None:
            continue
        for key, val in list(vars(m).items()):
            if val is original:
                setattr(m, key, new)
                swapped.append((m, key))
    _clear_caches()
    try:
        yield
    finally:
        for m, key in swapped:
            setattr(m, key, original)
        _clear_caches()


def status(claim_id: str, scale: str) -> tuple[str, object]:
    """``(status, value)`` of a claim, measured now without its control."""
    r = ledger.run(claim_id, scale=scale, controls=False)
    return r.status, r.value


# --- the kinds of break -------------------------------------------------------------------


def times(k: float):
    """A result off by the factor ``k`` (a constant off by the claim's resolution)."""

    def make(f):
        @functools.wraps(f)
        def g(*a, **kw):
            return _scaled(f(*a, **kw), k)

        return g

    return make


def _scaled(x, k):
    from companion.stats import MCEstimate

    if isinstance(x, MCEstimate):
        return replace(x, value=x.value * k, stderr=x.stderr)
    return x * k


def constant(value):
    """A function that always answers ``value`` (a classifier answering one way)."""

    def make(f):
        @functools.wraps(f)
        def g(*a, **kw):
            return value(*a, **kw) if callable(value) else value

        return g

    return make


def with_args(**over):
    """The function called with some arguments replaced (an off-by-one, a dropped option)."""

    def make(f):
        @functools.wraps(f)
        def g(*a, **kw):
            return f(*a, **{**kw, **over})

        return g

    return make


def post(fn):
    """The function's result passed through ``fn(result, *args, **kwargs)``."""

    def make(f):
        @functools.wraps(f)
        def g(*a, **kw):
            return fn(f(*a, **kw), *a, **kw)

        return g

    return make
