"""One Explore figure per chapter: live controls in a kernel, the same controls without one.

A chapter gives a drawing function ``draw(fig, **params)`` (optionally an ``update``, see
:class:`PersistentFigure`) and its controls, made with :func:`control`::

    controls = {
        "p": widgets.control(0.01, 1e-4, 0.2, log=True, label="flip rate p",
                             values=(1e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.2)),
        "n": widgets.control(256, options=(64, 128, 256, 512), label="width n"),
    }
    widgets.explore(draw, controls, update=update, grid=("p", "n"))

:func:`explore` returns one output that carries two views of the same figure:

* ``application/vnd.jupyter.widget-view+json``: core ipywidgets controls and an
  ``ipywidgets.Image``, redrawn in place on every move (JupyterLab and Notebook 7 rank a
  widget view above HTML, so a running notebook shows this one);
* ``text/html``: the same controls as plain HTML over figures precomputed when the output
  was made (every combination of the ``grid`` parameters, every other control over its
  ``values`` with the rest at their defaults), stepped by ``book/_assets/companion.js``.
  The book's ``_config.yml`` ranks widget views after ``text/html`` for its HTML builders
  (``nb_mime_priority_overrides``), so the site shows this one. On Colab it is left out
  (``static="auto"``): nothing there would show it.

Each chapter module (``companion.chapters.<part>.<chapter>``) gives its figure as
``explore()``; the figure is made of :class:`Panel` s drawn once and moved in place
(:class:`Panels`), so that a live move costs a blit or one panel's redraw. The rules that
keep a move under ~100 ms (``bench/widget_redraw.py`` measures them; ``tests/unit/
test_widgets.py`` checks every chapter's moves give the pixels of a fresh draw):

* what a move changes is an animated artist (:func:`animate`), blitted over the cached
  background; everything else is drawn once;
* axis limits hold every value the controls reach (fixed, or set once from all of them);
  where they cannot, the move paints that one panel again (its ``key``);
* legends are static (text is the slowest thing to draw): a number that moves goes in a
  title or a text label, which are animated; tick labels keep one width (a fixed
  formatter or label position), or the panel outgrows its room and the whole figure is
  drawn again;
* scales are set before the data (autoscaling then agrees with a fresh draw), and the
  minor ticks of log axes are off;
* computations are cached per parameter value (``functools.lru_cache``).

The package by job: :mod:`~companion.widgets.controls` (what a control is),
:mod:`~companion.widgets.figure` (the persistent figure and its panels),
:mod:`~companion.widgets.explore` (the Explore output, live and on the page).
"""

from companion.widgets.controls import Control, control
from companion.widgets.explore import WIDGET_VIEW as WIDGET_VIEW
from companion.widgets.explore import Explore, explore
from companion.widgets.figure import Panel, Panels, PersistentFigure, animate
from companion.widgets.figure import clear as clear

__all__ = [
    "Control",
    "Explore",
    "Panel",
    "Panels",
    "PersistentFigure",
    "animate",
    "control",
    "explore",
]
