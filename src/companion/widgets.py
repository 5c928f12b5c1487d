"""Interactive figures that also work without a kernel.

A chapter writes one pure drawing function ``draw(fig, **params)`` and gets

* :func:`panel`: ipywidgets sliders + the figure, redrawn on every move (live kernel,
  Colab, Binder). The executed book stores the panel's state, so the static page
  shows the sliders and the figure for the initial values.
* :func:`frame_player`: the same figure precomputed over a sweep of the main
  parameter and shown as a matplotlib ``to_jshtml`` frame player, which works in the
  rendered book with no kernel at all.

Both draw through the same function, so what a reader sees offline is exactly what
the live panel draws.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import matplotlib

from companion._validate import check_int

__all__ = ["frame_player", "panel", "redraw_time", "slider"]


def slider(
    value, low, high, step=None, *, description: str | None = None, log: bool = False, options=None
):
    """A core ipywidgets control (no third-party widgets, so Colab needs nothing extra).

    ``options`` gives a dropdown; ``log=True`` a log-scale float slider between
    ``low`` and ``high`` (given as values, not exponents).
    """
    import ipywidgets as w
    import numpy as np

    desc = description or ""
    style = {"description_width": "initial"}
    layout = w.Layout(width="360px")
    if options is not None:
        return w.Dropdown(options=list(options), value=value, description=desc, style=style)
    if log:
        return w.FloatLogSlider(
            value=value,
            base=10,
            min=np.log10(low),
            max=np.log10(high),
            step=step or 0.05,
            description=desc,
            style=style,
            layout=layout,
            continuous_update=False,
        )
    if (
        isinstance(value, int)
        and isinstance(low, int)
        and isinstance(high, int)
        and (step is None or isinstance(step, int))
    ):
        return w.IntSlider(
            value=value,
            min=low,
            max=high,
            step=step or 1,
            description=desc,
            style=style,
            layout=layout,
            continuous_update=False,
        )
    return w.FloatSlider(
        value=value,
        min=low,
        max=high,
        step=step or (high - low) / 100,
        description=desc,
        style=style,
        layout=layout,
        continuous_update=False,
        readout_format=".3g",
    )


def _new_figure(figsize):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def panel(draw: Callable, controls: Mapping, *, figsize=(8, 3.6), title: str | None = None):
    """Sliders plus a figure redrawn by ``draw(fig, **values)`` on every change.

    Parameters
    ----------
    draw : callable
        ``draw(fig, **params)`` draws into a fresh ``matplotlib.figure.Figure``.
    controls : mapping
        Parameter name -> ipywidgets control (see :func:`slider`).
    figsize : tuple
        Figure size in inches.
    title : str, optional
        A heading shown above the sliders.

    Returns
    -------
    ipywidgets.VBox
        Display it as the last expression of a cell.
    """
    import ipywidgets as w
    from IPython.display import display

    out = w.Output()

    def _update(**values):
        fig = _new_figure(figsize)
        draw(fig, **values)
        with out:
            out.clear_output(wait=True)
            display(fig)

    for name, ctl in controls.items():
        ctl.observe(lambda _change: _update(**{k: c.value for k, c in controls.items()}), "value")
    _update(**{k: c.value for k, c in controls.items()})
    children = ([w.HTML(f"<b>{title}</b>")] if title else []) + [
        w.HBox(list(controls.values()), layout=w.Layout(flex_flow="row wrap")),
        out,
    ]
    return w.VBox(children)


def frame_player(
    draw: Callable,
    param: str,
    values,
    *,
    fixed: Mapping | None = None,
    figsize=(8, 3.6),
    interval: int = 600,
    label: str | None = None,
    alt: str | None = None,
):
    """A kernel-free slider: ``draw`` precomputed for each value of ``param``.

    Returns an ``IPython.display.HTML`` holding a matplotlib ``to_jshtml`` player
    (frames are embedded PNGs and the controls are plain JavaScript).

    Parameters
    ----------
    draw : callable
        ``draw(fig, **params)``, the same function :func:`panel` uses.
    param : str
        The swept parameter.
    values : sequence
        Its values, one frame each (keep it under ~20 frames: each is a PNG).
    fixed : mapping, optional
        The other parameters.
    label : str, optional
        Caption above the player (defaults to "Move <param> (no kernel needed)").
    alt : str, optional
        Alt text of the player's image (defaults to a description read from the figure).
    """
    import html as _html

    from IPython.display import HTML
    from matplotlib.animation import FuncAnimation

    values = list(values)
    check_int(len(values), "len(values)", low=1, high=60)
    fixed = dict(fixed or {})
    fig = _new_figure(figsize)

    def _frame(i):
        fig.clear()
        draw(fig, **{**fixed, param: values[i]})
        return []

    with matplotlib.rc_context({"animation.embed_limit": 40}):
        anim = FuncAnimation(fig, _frame, frames=len(values), interval=interval, blit=False)
        html = anim.to_jshtml(default_mode="once")
    from companion.plotting import describe_figure

    alt_text = _html.escape(alt or f"{describe_figure(fig)} Frames sweep {param}.", quote=True)
    html = html.replace('<img id="_anim_img', f'<img alt="{alt_text}" id="_anim_img', 1)
    caption = label or f"Move <code>{param}</code> with the frame slider (no kernel needed)."
    return HTML(f'<div class="companion-player"><p>{caption}</p>{html}</div>')


def redraw_time(draw: Callable, params: Mapping, *, repeats: int = 5, figsize=(8, 3.6)) -> float:
    """Median seconds to compute and render one frame (the cost of a slider move)."""
    import io
    import statistics

    times = []
    for _ in range(check_int(repeats, "repeats", low=1)):
        t0 = time.perf_counter()
        fig = _new_figure(figsize)
        draw(fig, **params)
        fig.savefig(io.BytesIO(), format="png")
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
