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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from companion._validate import check_int

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

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


# --- Controls ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Control:
    """One control, described once for the live widget and the kernel-free page.

    Make it with :func:`control` (which validates); ``options`` holds ``(text, value)``
    pairs for a choice, ``values`` the values precomputed for the page, ``when`` the
    ``(control, value)`` pairs under which it applies (otherwise it is shown disabled).
    """

    label: str
    value: object
    low: float | None = None
    high: float | None = None
    step: float | None = None
    log: bool = False
    options: tuple = ()
    values: tuple = ()
    fmt: str = ".3g"
    when: tuple = ()

    @property
    def is_choice(self) -> bool:
        return bool(self.options)

    def text(self, value) -> str:
        """The readout of ``value``: an option's text, an integer, or a number in ``fmt``.

        >>> control(0.0123, 1e-4, 0.2, log=True, label="p").text(0.0123)
        '0.0123'
        """
        for text, v in self.options:
            if v == value:
                return text
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return str(value)
        if isinstance(value, int):
            return str(value)
        return format(value, self.fmt)

    def page_values(self) -> tuple:
        """The values offered without a kernel: ``values``, or all options, or five values
        spread over ``[low, high]`` (geometric when ``log``); the default always among them.

        >>> control(5, 1, 9, label="depth").page_values()
        (1, 3, 5, 7, 9)
        """
        import numpy as np

        if self.values:
            vals = list(self.values)
        elif self.is_choice:
            vals = [v for _, v in self.options]
        elif self.log:
            vals = [float(f"{v:.2g}") for v in np.geomspace(self.low, self.high, 5)]
        else:
            vals = list(np.linspace(self.low, self.high, 5))
            step = self.step or (1 if self._is_int() else None)
            if step:
                vals = [self.low + step * round((v - self.low) / step) for v in vals]
            vals = [int(round(v)) if self._is_int() else float(f"{v:.3g}") for v in vals]
        if self.value not in vals:
            vals.append(self.value)
        if not self.is_choice:
            vals = sorted(set(vals))
        return tuple(dict.fromkeys(vals))

    def _is_int(self) -> bool:
        nums = [self.value, self.low, self.high] + ([self.step] if self.step is not None else [])
        return not self.log and all(isinstance(v, int) and not isinstance(v, bool) for v in nums)

    def widget(self):
        """The live control: a core ipywidgets slider or dropdown (Colab needs nothing extra)."""
        import ipywidgets as w
        import numpy as np

        common = dict(description=self.label, style={"description_width": "initial"})
        if self.is_choice:
            return w.Dropdown(options=list(self.options), value=self.value, **common)
        common.update(layout=w.Layout(width="360px"), continuous_update=False)
        if self.low is None:  # values only: step through them
            opts = [(self.text(v), v) for v in self.page_values()]
            return w.SelectionSlider(options=opts, value=self.value, **common)
        if self.log:
            return w.FloatLogSlider(
                value=self.value,
                base=10,
                min=np.log10(self.low),
                max=np.log10(self.high),
                step=self.step or 0.05,
                readout_format=self.fmt,
                **common,
            )
        if self._is_int():
            return w.IntSlider(
                value=self.value, min=self.low, max=self.high, step=self.step or 1, **common
            )
        return w.FloatSlider(
            value=self.value,
            min=self.low,
            max=self.high,
            step=self.step or (self.high - self.low) / 100,
            readout_format=self.fmt,
            **common,
        )


def control(
    value,
    low=None,
    high=None,
    step=None,
    *,
    label: str,
    log: bool = False,
    options=None,
    values=None,
    fmt: str = ".3g",
    when: Mapping | None = None,
) -> Control:
    """Describe a control of an Explore figure.

    Parameters
    ----------
    value
        The starting value (the figure the page opens on).
    low, high, step
        The live slider's range and step (``step`` in exponent units when ``log``).
        Leave them out with ``options`` (a dropdown) or with ``values`` alone (a slider
        stepping through ``values``).
    label : str
        What the reader sees next to the control (not the Python name).
    log : bool
        A log-scale slider between ``low`` and ``high`` (given as values, not exponents).
    options : sequence, optional
        The choices: values, or ``(text, value)`` pairs.
    values : sequence, optional
        The values precomputed for the page without a kernel (default: every option,
        or five values over the range; the starting value is always added).
    fmt : str
        Format of numeric readouts.
    when : mapping, optional
        Other controls' values under which this one applies (``{"dist": "student_t"}`` for
        a Student-t ν): otherwise it is disabled, on the page and in the live widget, so
        that no reader moves a control that cannot change the figure.

    Examples
    --------
    >>> control(256, options=(64, 128, 256, 512), label="width n").page_values()
    (64, 128, 256, 512)
    >>> control(2.0, 0.0, 1.0, label="spread")
    Traceback (most recent call last):
    ...
    ValueError: `value` of control 'spread' must be in [0.0, 1.0]; got 2.0
    """
    if not isinstance(label, str) or not label.strip():
        raise ValueError(f"`label` must be a non-empty string; got {label!r}")
    opts = ()
    if options is not None:
        opts = tuple(o if isinstance(o, tuple) and len(o) == 2 else (str(o), o) for o in options)
        if not opts:
            raise ValueError(f"`options` of control {label!r} must not be empty")
        if low is not None or high is not None or log:
            raise ValueError(
                f"control {label!r}: give `options` or a range (`low`, `high`), not both"
            )
        if value not in [v for _, v in opts]:
            raise ValueError(
                f"`value` of control {label!r} must be one of its options; got {value!r}"
            )
    elif low is None and high is None:
        if not values:
            raise ValueError(
                f"control {label!r} needs `options`, a range (`low`, `high`) or `values`"
            )
    else:
        if low is None or high is None or not low < high:
            raise ValueError(f"control {label!r} needs `low` < `high`; got {low!r}, {high!r}")
        if log and low <= 0:
            raise ValueError(f"`low` of log control {label!r} must be > 0; got {low!r}")
        if not low <= value <= high:
            raise ValueError(
                f"`value` of control {label!r} must be in [{low}, {high}]; got {value!r}"
            )
    vals = tuple(values) if values is not None else ()
    if values is not None and not vals:
        raise ValueError(f"`values` of control {label!r} must not be empty")
    for v in vals:
        if opts and v not in [o for _, o in opts]:
            raise ValueError(f"`values` of control {label!r} must be among its options; got {v!r}")
        if low is not None and not low <= v <= high:
            raise ValueError(f"`values` of control {label!r} must be in [{low}, {high}]; got {v!r}")
    if when is not None and (not isinstance(when, Mapping) or not when):
        raise ValueError(
            f"`when` of control {label!r} must be a non-empty mapping of control -> value; "
            f"got {when!r}"
        )
    cond = tuple((when or {}).items())
    return Control(label, value, low, high, step, bool(log), opts, vals, fmt, cond)


# --- One figure, redrawn in place ----------------------------------------------------------


def animate(*artists):
    """Mark artists as moving (blitted over the cached background on every move); returns
    them as a list. An errorbar container counts as its lines and caps.

    >>> from matplotlib.figure import Figure
    >>> (line,) = Figure().subplots().plot([0, 1])
    >>> animate(line)[0].get_animated()
    True
    """
    from matplotlib.container import Container

    out = []
    for a in artists:
        out.extend(a.get_children() if isinstance(a, Container) else [a])
    for a in out:
        a.set_animated(True)
    return out


def clear(ax) -> None:
    """Remove what was plotted in ``ax`` (lines, patches, collections, texts, the legend)
    and forget its data limits, keeping the axes, their scales and their ticks: painting
    the panel again then costs what its data costs (``Axes.cla`` would make every tick
    anew, the slowest part of a redraw)."""
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images]:
        artist.remove()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    ax.containers.clear()
    ax.set_prop_cycle(None)  # colours restart as in a fresh panel
    ax.relim()
    ax.ignore_existing_data_limits = True
    for axis in (ax.xaxis, ax.yaxis):  # autoscaled again from the new data
        axis._set_autoscale_on(True) if hasattr(axis, "_set_autoscale_on") else None
    ax.set_autoscale_on(True)
    ax.set_title("")


@dataclass(frozen=True)
class Panel:
    """One panel of an Explore figure, for :class:`Panels`.

    ``paint(ax, **params)`` draws the panel into an empty ``ax`` and returns what ``move``
    needs; ``key``, a tuple of parameter names or ``key(params) -> hashable``, names what
    the panel depends on (a move that changes it paints the panel again); ``move(artists,
    **params)``, optional, makes the cheap changes (animated artists: a marker, a title)
    that every move makes, after any repaint.
    """

    paint: Callable
    key: tuple | Callable = ()
    move: Callable | None = None

    def key_of(self, params: Mapping):
        if callable(self.key):
            return self.key(params)
        return tuple(params[k] for k in self.key)


class Panels:
    """The state of a figure made of :class:`Panel` s: ``draw`` returns one, and
    ``update`` is :meth:`Panels.update` (a panel whose key changed is cleared and painted
    again, at its frozen position, and returned so that it alone is redrawn).

    >>> from matplotlib.figure import Figure
    >>> p = Panel(lambda ax, a, b: ax.plot([0, a])[0], key=("a",),
    ...           move=lambda line, a, b: line.set_alpha(b))
    >>> state = Panels(Figure().subplots(1, 2), [p, p], {"a": 1, "b": 0.5})
    >>> state.update(b=1.0), len(state.update(a=2))
    ([], 2)
    """

    def __init__(self, axes, panels, params: Mapping):
        import numpy as np

        self.axes = list(np.ravel(axes))
        self.panels = list(panels)
        if len(self.axes) != len(self.panels):
            raise ValueError(f"{len(self.axes)} axes for {len(self.panels)} panels")
        self.params = dict(params)
        self.keys = [p.key_of(self.params) for p in self.panels]
        self.artists = [
            p.paint(ax, **self.params) for ax, p in zip(self.axes, self.panels, strict=True)
        ]
        self._move()

    def _move(self):
        for panel, artists in zip(self.panels, self.artists, strict=True):
            if panel.move is not None:
                panel.move(artists, **self.params)

    def update(self, **params) -> list:
        """Bring every panel to ``params`` (missing ones keep their values); returns the
        panels painted again."""
        self.params = {**self.params, **params}
        changed = []
        for i, (ax, panel) in enumerate(zip(self.axes, self.panels, strict=True)):
            key = panel.key_of(self.params)
            if key != self.keys[i]:
                clear(ax)
                self.artists[i] = panel.paint(ax, **self.params)
                self.keys[i] = key
                changed.append(ax)
        self._move()
        return changed


class PersistentFigure:
    """One matplotlib figure drawn once and then updated in place, at a fixed layout.

    ``draw(fig, **params)`` draws the figure the first time and returns what ``update``
    needs (the artists it will change). Artists that ``draw`` marks with
    ``set_animated(True)`` are blitted: the rest of the figure is kept as a background
    image, so a move that changes only them costs a few milliseconds.
    ``update(state, **params)`` changes the artists in place and says what else changed:

    * ``None`` or ``False``: nothing but the animated artists (blit);
    * an ``Axes`` or a list of them: those panels' static parts too (their axis limits,
      ticks): they are redrawn into the background, the other panels are kept;
    * ``True``: anything; the whole figure is redrawn.

    Without ``update``, every move clears the figure and calls ``draw`` again (slower,
    same picture). The layout (constrained) is computed once, for the first parameters,
    and then frozen. Text is raised to :data:`companion.plotting.MIN_FONT_PT`.
    """

    def __init__(
        self, draw: Callable, update: Callable | None = None, *, figsize=(8, 3.6), dpi=100
    ):
        self._draw, self._update = draw, update
        self.figsize, self.dpi = tuple(figsize), dpi
        self.fig = None
        self.full_redraws = self.partial_redraws = 0
        self._state = self._positions = self._background = None
        self._animated, self._boxes, self._cells = [], {}, {}
        self._pixels = None  # the background's pixels (where a partial redraw may draw)

    @property
    def size_px(self) -> tuple[int, int]:
        """(width, height) of the rendered image in pixels."""
        return round(self.figsize[0] * self.dpi), round(self.figsize[1] * self.dpi)

    def render(self, params: Mapping):
        """Pixels of the figure for ``params``: an (height, width, 3) uint8 array."""
        self._paint(params)
        return np.asarray(self.fig.canvas.buffer_rgba())[..., :3].copy()

    def png(self, params: Mapping, *, compact: bool = False) -> bytes:
        """The figure for ``params`` as PNG bytes.

        ``compact``: a 256-colour palette PNG, about 3.5x smaller and visually the same
        (the page's precomputed frames); otherwise fast, lightly compressed RGB (live moves).
        """
        import io

        from PIL import Image

        self._paint(params)
        canvas = self.fig.canvas
        size = canvas.get_width_height(physical=True)
        img = Image.frombuffer("RGBA", size, canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        img, buf = img.convert("RGB"), io.BytesIO()
        if compact:
            img = img.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
            img.save(buf, "png", optimize=True)
        else:
            img.save(buf, "png", compress_level=1)
        return buf.getvalue()

    def _paint(self, params: Mapping) -> None:
        """Bring the canvas to ``params``: update, redraw what changed, blit the rest."""
        import matplotlib

        from companion.plotting import READABLE_RC

        with matplotlib.rc_context(READABLE_RC):
            changed = self._apply(dict(params))
            canvas = self.fig.canvas
            if changed and changed is not True and self._background is not None:
                boxes = self._panel_boxes(changed)
                if boxes is None:
                    changed = True  # a changed panel reaches into another: redraw it all
            if changed is True or self._background is None:
                self._draw_all()
            else:
                canvas.restore_region(self._background)
                if changed:
                    self._redraw_panels(boxes)
                    if self._spilled(boxes):  # a panel outgrew its room: lay it all again
                        self._draw_all()
                    else:
                        # the repainted panels' animated artists are new: collect them again
                        kept = [a for a in self._animated if a.axes not in boxes and a.get_figure()]
                        found = [a for ax in boxes for a in _animated_artists(ax)]
                        self._animated = sorted(kept + found, key=lambda a: a.get_zorder())
            if changed:
                self._background = canvas.copy_from_bbox(self.fig.bbox)
                self._pixels = np.asarray(canvas.buffer_rgba()).copy()
            for artist in self._animated:
                self.fig.draw_artist(artist)

    def _draw_all(self) -> None:
        """Draw the whole figure but its animated artists; note every panel's footprint."""
        canvas = self.fig.canvas
        canvas.draw()  # everything but the animated artists
        if self._positions is None:  # freeze the first layout
            self.fig.set_layout_engine("none")
            self._positions = [ax.get_position() for ax in self.fig.axes]
        self._animated = _animated_artists(self.fig)
        if self._update is not None:  # footprints, for redrawing single panels later
            renderer = canvas.get_renderer()
            self._boxes = {ax: ax.get_tightbbox(renderer) for ax in self.fig.axes}
            self._cells = _cells(self.fig, self._boxes, renderer)
        self.full_redraws += 1

    def _spilled(self, boxes) -> bool:
        """Whether the panels just drawn again changed a pixel outside the regions repainted
        for them (their new tick labels or legend reach further than the first layout left
        room for): a pixel comparison with the background, cheaper than measuring them."""
        now = np.asarray(self.fig.canvas.buffer_rgba())
        moved = np.any(now != self._pixels, axis=2)  # (height, width), row 0 at the top
        height = moved.shape[0]
        for box, _ in boxes.values():
            x0, y0 = max(math.floor(box.x0), 0), max(math.floor(box.y0), 0)
            x1, y1 = math.ceil(box.x1), math.ceil(box.y1)
            moved[max(height - y1, 0) : height - y0, x0:x1] = False
        return bool(moved.any())

    def _panel_boxes(self, axes):
        """The region to repaint for each changed panel: its cell (the room the first
        layout left it, up to the other panels), else its footprint before and after the
        change; None when that would erase part of another panel."""
        from matplotlib.transforms import Bbox

        renderer = self.fig.canvas.get_renderer()
        boxes = {}
        for ax in axes:
            if self._cells.get(ax) is not None:  # no need to measure the new footprint
                boxes[ax] = (self._cells[ax], self._boxes[ax])
                continue
            new = ax.get_tightbbox(renderer)
            # 2 px more: line widths and pixel snapping reach past a tight bbox
            boxes[ax] = (Bbox.union([self._boxes.get(ax, new), new]).padded(2), new)
        for ax, (box, _) in boxes.items():
            if self._cells.get(ax) is not None:
                continue
            for other, footprint in self._boxes.items():
                if other not in boxes and box.overlaps(footprint.padded(2)):
                    return None
        return boxes

    def _redraw_panels(self, boxes) -> None:
        """Repaint the footprint of each changed panel and draw it again (no animated artists)."""
        from matplotlib.patches import Rectangle
        from matplotlib.transforms import IdentityTransform

        renderer = self.fig.canvas.get_renderer()
        for box, _ in boxes.values():
            x0, y0 = math.floor(box.x0), math.floor(box.y0)
            x1, y1 = math.ceil(box.x1), math.ceil(box.y1)
            paint = Rectangle(  # whole pixels: a partly painted edge pixel would be drawn twice
                (x0, y0),
                x1 - x0,
                y1 - y0,
                transform=IdentityTransform(),
                facecolor=self.fig.get_facecolor(),
                edgecolor="none",
                antialiased=False,
            )
            paint.set_figure(self.fig)
            paint.draw(renderer)
        for ax in self.fig.axes:  # in drawing order
            if ax in boxes:
                ax.draw(renderer)  # skips the animated artists, like a full draw
                self._boxes[ax] = boxes[ax][1]
        self.partial_redraws += 1

    def _apply(self, params):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        from companion.plotting import readable

        if self.fig is None:
            self.fig = Figure(figsize=self.figsize, dpi=self.dpi, layout="constrained")
            self.fig.set_facecolor("white")
            FigureCanvasAgg(self.fig)
            self._state = self._draw(self.fig, **params)
            readable(self.fig)
            return True
        if self._update is not None:
            changed = self._update(self._state, **params)
            if changed is None or isinstance(changed, bool):
                if changed:
                    readable(self.fig)
                return bool(changed)
            from matplotlib.axes import Axes

            changed = [changed] if isinstance(changed, Axes) else list(changed)
            # a repainted panel's text (a legend at fontsize=7) is raised as a fresh draw's
            readable(self.fig, axes=changed)
            return changed
        self.fig.clear()
        self._state = self._draw(self.fig, **params)
        readable(self.fig)
        axes = self.fig.axes
        if len(axes) == len(self._positions):
            for ax, pos in zip(axes, self._positions, strict=True):
                ax.set_position(pos)
        else:  # a different panel layout for these parameters: lay it out afresh
            self.fig.set_layout_engine("constrained")
            self.fig.canvas.draw()
            self.fig.set_layout_engine("none")
        return True

    def describe(self) -> str:
        """Alt text for the figure as last rendered."""
        from companion.plotting import describe_figure

        return describe_figure(self.fig)


def _cells(fig, footprints: Mapping, renderer) -> dict:
    """Each panel's cell: its footprint widened left, right, up and down until it meets
    another panel's footprint (or a figure-level text or legend) or the figure's edge.
    None for a panel whose footprint already overlaps another's, and for every panel of a
    figure with subfigures (laid out apart)."""
    from matplotlib.transforms import Bbox

    if fig.subfigs:
        return dict.fromkeys(footprints)
    pads = {ax: box.padded(2) for ax, box in footprints.items()}
    extra = [a.get_window_extent(renderer).padded(2) for a in (*fig.texts, *fig.legends)]
    W, H = fig.bbox.width, fig.bbox.height
    cells = {}
    for ax, box in pads.items():
        others = [b for a, b in pads.items() if a is not ax] + extra
        if any(box.overlaps(o) for o in others):
            cells[ax] = None
            continue

        def rows(o, box=box):
            return o.y0 < box.y1 and o.y1 > box.y0

        def cols(o, box=box):
            return o.x0 < box.x1 and o.x1 > box.x0

        x0 = max([0.0] + [o.x1 for o in others if o.x1 <= box.x0 and rows(o)])
        x1 = min([W] + [o.x0 for o in others if o.x0 >= box.x1 and rows(o)])
        y0 = max([0.0] + [o.y1 for o in others if o.y1 <= box.y0 and cols(o)])
        y1 = min([H] + [o.y0 for o in others if o.y0 >= box.y1 and cols(o)])
        cell = Bbox.from_extents(
            math.ceil(x0), math.ceil(y0), math.floor(x1), math.floor(y1)
        )  # whole pixels inside the neighbours' footprints
        cells[ax] = None if any(cell.overlaps(o) for o in others) else cell
    return cells


def _animated_artists(fig) -> list:
    """The figure's animated artists in drawing order; a legend's handles are its own (they
    copy ``animated`` from the artists they stand for) and are drawn with the legend."""
    from matplotlib.legend import Legend

    found = []

    def walk(artist):
        for child in artist.get_children():
            if child.get_animated():
                found.append(child)
            elif not isinstance(child, Legend):
                walk(child)

    walk(fig)
    return sorted(found, key=lambda a: a.get_zorder())


# --- The Explore output --------------------------------------------------------------------


class Explore:
    """Live controls and a kernel-free HTML view of one figure; see :func:`explore`."""

    def __init__(
        self,
        draw: Callable,
        controls: Mapping[str, Control],
        *,
        update: Callable | None = None,
        grid=None,
        figsize=(8, 3.6),
        dpi: int = 100,
        static="auto",
        max_frames: int = 80,
        readout: Callable | None = None,
    ):
        if not isinstance(controls, Mapping) or not controls:
            raise ValueError("`controls` must be a non-empty mapping of parameter name -> control")
        for name, ctl in controls.items():
            if not isinstance(ctl, Control):
                raise TypeError(
                    f"`controls[{name!r}]` must be made with widgets.control(); "
                    f"got {type(ctl).__name__}"
                )
        self.controls = dict(controls)
        names = list(self.controls)
        for name, ctl in self.controls.items():
            for other, v in ctl.when:
                if other not in self.controls or other == name:
                    raise ValueError(
                        f"`when` of control {name!r} names {other!r}, which is not another "
                        f"control; controls: {names}"
                    )
                if v not in self.controls[other].page_values():
                    raise ValueError(
                        f"`when` of control {name!r} needs {other!r} = {v!r}, which is not "
                        f"among its values {list(self.controls[other].page_values())}"
                    )
        grid = tuple(names[:2] if grid is None else ([grid] if isinstance(grid, str) else grid))
        for g in grid:
            if g not in self.controls:
                raise ValueError(f"`grid` names {g!r}, which is not a control; controls: {names}")
        if static not in ("auto", True, False):
            raise ValueError(f"`static` must be 'auto', True or False; got {static!r}")
        self.grid, self.static = grid, static
        if readout is not None and not callable(readout):
            raise TypeError(f"`readout` must be callable or None; got {type(readout).__name__}")
        self.readout = readout
        self.max_frames = check_int(max_frames, "max_frames", low=1)
        self.figure = PersistentFigure(draw, update, figsize=figsize, dpi=dpi)
        self._values = {n: c.page_values() for n, c in self.controls.items()}
        if len(self.combinations()) > self.max_frames:
            raise ValueError(
                f"`grid` {grid} and the other controls' values give {len(self.combinations())} "
                f"figures to precompute; more than `max_frames`={self.max_frames}"
            )
        self._frames = self._widget = None

    @property
    def defaults(self) -> dict:
        """The starting value of every control."""
        return {n: c.value for n, c in self.controls.items()}

    def combinations(self) -> list[dict]:
        """The parameter settings precomputed for the page, starting with the defaults:
        the product of the ``grid`` controls' values, then each other control over its
        values with the rest at their defaults."""
        import itertools

        base = self.defaults
        out = [base]
        for combo in itertools.product(*(self._values[g] for g in self.grid)):
            out.append({**base, **dict(zip(self.grid, combo, strict=True))})
        for name in self.controls:
            if name not in self.grid:
                out.extend({**base, name: v} for v in self._values[name])
        return list({self._key(c): c for c in out}.values())

    @staticmethod
    def _applies(ctl: Control, params) -> bool:
        return all(params[o] == v for o, v in ctl.when)

    def _key(self, params) -> str:
        return ",".join(str(self._values[n].index(params[n])) for n in self.controls)

    def readout_text(self, params: Mapping) -> str:
        """The sentence under the figure with its numbers at ``params`` (the figure as last
        rendered): ``readout(**params)``, else the panels' titles."""
        if self.readout is not None:
            return str(self.readout(**params))
        from companion.plotting import figure_titles

        return figure_titles(self.figure.fig)

    def frames(self) -> dict:
        """``{"images", "alts", "readouts", "index": {key: [image, alt, readout]}}`` for the
        page: base64 PNG frames, their alt texts and readouts (identical ones stored once)
        keyed by the control indices."""
        import base64

        if self._frames is None:
            images, alts, reads, index = {}, {}, {}, {}
            for params in self.combinations():
                png = base64.b64encode(self.figure.png(params, compact=True)).decode()
                alt, read = self.figure.describe(), self.readout_text(params)
                index[self._key(params)] = [
                    images.setdefault(png, len(images)),
                    alts.setdefault(alt, len(alts)),
                    reads.setdefault(read, len(reads)),
                ]
            self._frames = {
                "images": list(images),
                "alts": list(alts),
                "readouts": list(reads),
                "index": index,
            }
            self.figure.render(self.defaults)  # leave the figure where the controls are
        return self._frames

    def note(self) -> str:
        """The sentence under the page's figure: which settings are precomputed."""

        def name(n):
            return f"<em>{_esc(self.controls[n].label)}</em> ({len(self._values[n])} values)"

        grid = [name(g) for g in self.grid]
        if len(grid) > 1:
            what = "every combination of " + ", ".join(grid[:-1]) + " and " + grid[-1]
        else:
            what = "every value of " + grid[0]
        others = [n for n in self.controls if n not in self.grid]
        if others:
            labels = [f"<em>{_esc(self.controls[n].label)}</em>" for n in others]
            what += (
                "; "
                + ", ".join(labels)
                + (" over their values" if len(labels) > 1 else " over its values")
                + ", each with the other controls at their starting values (moving "
                + ("one of them" if len(labels) > 1 else "it")
                + " resets the others)"
            )
        n = len(self.combinations())
        return (
            f"These controls step through {n} figures computed when this page was built: {what}. "
            "Running the notebook (Colab or Jupyter) computes any setting live."
        )

    def html(self) -> str:
        """The kernel-free view: controls, the figure and the precomputed frames (no script;
        ``book/_assets/companion.js`` steps it)."""
        import json

        frames = self.frames()
        start = frames["index"][self._key(self.defaults)]
        width, height = self.figure.size_px
        ctls = []
        for name, ctl in self.controls.items():
            vals = self._values[name]
            i = vals.index(ctl.value)
            label = f'<span class="companion-explore-label">{_esc(ctl.label)}</span>'
            attrs = f'data-param="{_esc(name)}"'
            if ctl.when:  # {control: value index}; companion.js disables it elsewhere
                cond = {o: self._values[o].index(v) for o, v in ctl.when}
                attrs += f" data-when='{_esc(json.dumps(cond))}'"
                attrs += " disabled" * (not self._applies(ctl, self.defaults))
            if ctl.is_choice:
                opts = "".join(
                    f'<option value="{k}"{" selected" * (k == i)}>{_esc(ctl.text(v))}</option>'
                    for k, v in enumerate(vals)
                )
                field = f"<select {attrs}>{opts}</select>"
            else:
                field = (
                    f'<input type="range" {attrs} min="0" max="{len(vals) - 1}" '
                    f'step="1" value="{i}" aria-valuetext="{_esc(ctl.text(ctl.value))}">'
                    f'<output class="companion-explore-value">{_esc(ctl.text(ctl.value))}</output>'
                )
            ctls.append(f'<label class="companion-explore-control">{label}{field}</label>')
        data = {
            "params": list(self.controls),
            "texts": [[c.text(v) for v in self._values[n]] for n, c in self.controls.items()],
            **frames,
        }
        payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
        return (
            '<div class="companion-explore">'
            f'<div class="companion-explore-controls">{"".join(ctls)}</div>'
            '<div class="companion-explore-frame">'
            f'<img class="companion-explore-figure" width="{width}" height="{height}" '
            f'src="data:image/png;base64,{frames["images"][start[0]]}" '
            f'alt="{_esc(frames["alts"][start[1]])}"></div>'
            '<p class="companion-explore-readout" aria-live="polite">'
            f"{_esc(frames['readouts'][start[2]])}</p>"
            '<p class="companion-explore-snap" aria-live="polite"></p>'
            f'<p class="companion-explore-note">{self.note()}'
            '<span class="companion-explore-zoom-hint"> On a small screen, tap the figure '
            "to see it at full size.</span></p>"
            f'<script type="application/json" class="companion-explore-data">{payload}</script>'
            "</div>"
        )

    def widget(self):
        """The live view: the controls and an ``ipywidgets.Image`` redrawn in place."""
        import html as _html

        import ipywidgets as w

        if self._widget is not None:
            return self._widget
        ctls = {n: c.widget() for n, c in self.controls.items()}
        width, _ = self.figure.size_px
        image = w.Image(
            value=self.figure.png(self.defaults, compact=True),  # small in saved notebooks
            format="png",
            layout=w.Layout(width=f"{width}px", max_width="100%", height="auto"),
        )
        problem = w.HTML()
        readout = w.HTML(_esc(self.readout_text(self.defaults)))
        readout.add_class("companion-explore-readout")

        def _move(_change):
            params = {n: c.value for n, c in ctls.items()}
            try:
                image.value = self.figure.png(params)
                readout.value = _esc(self.readout_text(params))
                problem.value = ""
            except Exception as exc:  # shown under the figure: a callback's error is invisible
                problem.value = f"<b>Could not draw this setting:</b> {_html.escape(str(exc))}"

        for c in ctls.values():
            c.observe(_move, "value")
        for name, ctl in self.controls.items():
            if ctl.when:  # disabled while the controls it depends on are elsewhere

                def _gate(_change=None, name=name, ctl=ctl):
                    now = {n: c.value for n, c in ctls.items()}
                    ctls[name].disabled = not self._applies(ctl, now)

                for other, _ in ctl.when:
                    ctls[other].observe(_gate, "value")
                _gate()
        row = w.HBox(list(ctls.values()), layout=w.Layout(flex_flow="row wrap"))
        self._widget = w.VBox([row, image, readout, problem])
        self._widget.add_class("companion-explore-live")
        return self._widget

    def _with_static(self) -> bool:
        if self.static != "auto":
            return self.static
        import sys

        return "google.colab" not in sys.modules  # Colab shows the live widget: skip the work

    def _repr_mimebundle_(self, include=None, exclude=None):
        box = self.widget()
        labels = ", ".join(c.label for c in self.controls.values())
        data = {
            "text/plain": f"Explore figure ({labels})",
            WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": box.model_id},
        }
        if self._with_static():
            data["text/html"] = self.html()
        return data


def explore(
    draw: Callable,
    controls: Mapping[str, Control],
    *,
    update: Callable | None = None,
    grid=None,
    figsize=(8, 3.6),
    dpi: int = 100,
    static="auto",
    max_frames: int = 80,
    readout: Callable | None = None,
) -> Explore:
    """A chapter's Explore figure: live controls in a kernel, precomputed ones on the site.

    Parameters
    ----------
    draw : callable
        ``draw(fig, **params)`` draws into a ``matplotlib.figure.Figure`` and returns what
        ``update`` needs (see :class:`PersistentFigure`).
    controls : mapping
        Parameter name -> :func:`control`, in display order.
    update : callable, optional
        ``update(state, **params)``: change the artists in place (fast live moves).
    grid : sequence of str, optional
        The two or three main parameters: every combination of their ``values`` is
        precomputed for the page (default: the first two controls). Every other control
        is precomputed over its values with the rest at their defaults.
    figsize, dpi
        Figure size in inches and its resolution (8 x 3.6 in at 100 dpi: 800 x 360 px).
    static : {"auto", True, False}
        Whether the output carries the kernel-free HTML; ``"auto"``: yes, except on Colab.
    max_frames : int
        Refuse more precomputed figures than this (each is ~15-25 KB on the page).
    readout : callable, optional
        ``readout(**params) -> str``: the sentence under the figure with its numbers at
        this setting (default: the panels' titles). It follows the controls on the site
        (one per precomputed frame) and live in a kernel.

    Returns
    -------
    Explore
        Display it as the last expression of a cell.
    """
    return Explore(
        draw,
        controls,
        update=update,
        grid=grid,
        figsize=figsize,
        dpi=dpi,
        static=static,
        max_frames=max_frames,
        readout=readout,
    )


def _esc(s) -> str:
    import html

    return html.escape(str(s), quote=True)
