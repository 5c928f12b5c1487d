"""One package per chapter of the book, named like the chapter: its sizes, figures and claims.

``companion.chapters.<part>.<chapter>`` (``book/<part>/<chapter>.md``) holds

* ``SIZES = {"cpu": ..., "full": ..., "smoke": ...}``: every size that depends on the scale,
  read by the chapter (``ch.SIZES[SCALE]``) and by its claims (``SIZES[scale]``), so the two
  never drift apart;
* its Explore figure: ``explore()`` returns the :class:`companion.widgets.Explore` the page
  shows (live controls in a kernel, precomputed ones on the site), drawn by the package's
  ``draw(fig, **params)`` (pure: its randomness comes from a ``seed``) and moved in place by
  its ``update``;
* everything else the page calls as ``ch.<name>`` (tables, records, figures);
* in its module ``talk``, the dict ``TALK``: the chapter as a talk, the data of its deck
  (:mod:`companion.site.talk_spec`);
* in its module ``claims``, the tuple ``CLAIMS``: each :class:`companion.claims.Claim` with its
  ``measure(scale, full)``. ``claims`` imports from its chapter, never the reverse; the
  ledger (:mod:`companion.ledger`) collects every chapter's ``CLAIMS``.

:data:`PARTS` lists the chapters in book order (the order of ``_toc.yml``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["CHAPTERS", "PARTS", "docname", "explorer", "load_all", "module"]

#: The chapters of each part, in book order.
PARTS = {
    "sign_magnitude": (
        "bussgang",
        "rmsnorm_filter",
        "energy_equality",
        "theorem3",
        "theorem4",
        "multilayer",
        "leverage",
        "at_scale",
    ),
    "dead_directions": (
        "ln_kernel",
        "rms_no_kernel",
        "kfac_lift",
        "walk",
        "sigma_min",
        "schur_ratio",
        "classifier",
        "at_scale",
        "training",
    ),
}
#: ``"<part>/<chapter>"`` for every chapter, in book order.
CHAPTERS = tuple(f"{part}/{name}" for part, names in PARTS.items() for name in names)


def docname(chapter) -> str:
    """The book page of a chapter (module, module name or ``"<part>/<chapter>"``).

    Examples
    --------
    >>> docname("companion.chapters.sign_magnitude.bussgang")
    'book/sign_magnitude/bussgang'
    >>> docname("dead_directions/at_scale")
    'book/dead_directions/at_scale'
    """
    name = chapter.__name__ if isinstance(chapter, ModuleType) else str(chapter)
    name = name.removeprefix(__name__ + ".").removeprefix("book/").replace(".", "/")
    if name not in CHAPTERS:
        opts = ", ".join(repr(c) for c in CHAPTERS)
        raise ValueError(f"`chapter` must be one of {opts}; got {chapter!r}")
    return "book/" + name


def module(chapter) -> ModuleType:
    """The package of a chapter (package, its name, docname or ``"<part>/<chapter>"``)."""
    if isinstance(chapter, ModuleType):
        return chapter
    return importlib.import_module(
        __name__ + "." + docname(chapter).removeprefix("book/").replace("/", ".")
    )


def load_all() -> list[ModuleType]:
    """Import every chapter package in book order (their claims modules are not imported:
    :mod:`companion.ledger` collects those)."""
    return [module(c) for c in CHAPTERS]


def explorer(chapter, **kwargs):
    """The chapter's Explore figure, undisplayed and with nothing drawn yet:
    ``module(chapter).explore(**kwargs)`` (the bench and the tests walk every chapter).

    Examples
    --------
    >>> explorer("sign_magnitude/theorem3").grid
    ('p', 'n')
    """
    return module(chapter).explore(**kwargs)
