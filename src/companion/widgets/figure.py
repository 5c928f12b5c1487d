"""One figure drawn once and then moved in place: panels, animated artists, blitting.

See :mod:`companion.widgets` for the rules that keep a move under ~100 ms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["Panel", "Panels", "PersistentFigure", "animate", "clear"]


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

    ``phone``: the figure laid out for a phone (:func:`companion.plotting.stack`: its panels
    one under another, ``figsize`` narrowed), as the page shows it on a small screen.
    ``check(params) -> params``: refuses a bad setting before anything is drawn (an Explore
    figure's controls). A move that fails leaves the figure as it was first laid out, so
    the next move draws as if the failed one had never been asked for.
    """

    def __init__(
        self,
        draw: Callable,
        update: Callable | None = None,
        *,
        figsize=(8, 3.6),
        dpi=100,
        phone: bool = False,
        check: Callable | None = None,
    ):
        self._draw, self._update = draw, update
        self.figsize, self.dpi = tuple(figsize), dpi
        self.phone, self._check = bool(phone), check
        self._first = None  # the parameters the layout was frozen at
        self.fig = None
        self.full_redraws = self.partial_redraws = 0
        self._state = self._positions = self._background = None
        self._animated, self._boxes, self._cells = [], {}, {}
        self._pixels = None  # the background's pixels (where a partial redraw may draw)

    @property
    def size_px(self) -> tuple[int, int]:
        """(width, height) of the rendered image in pixels (a phone layout's height is
        known once it is drawn)."""
        w, h = self.figsize if self.fig is None else self.fig.get_size_inches()
        return round(w * self.dpi), round(h * self.dpi)

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

    def webp(self, params: Mapping) -> bytes:
        """The page's precomputed frame for ``params``: the pixels of ``png(params,
        compact=True)`` in lossless WebP, about a fifth smaller (the pages' weight is
        mostly frames)."""
        import io

        from PIL import Image

        img, buf = Image.open(io.BytesIO(self.png(params, compact=True))), io.BytesIO()
        img.save(buf, "webp", lossless=True, method=4, quality=100)
        return buf.getvalue()

    def _paint(self, params: Mapping) -> None:
        """Bring the canvas to ``params`` (checked first); after a failure, back to the
        first layout (a half-moved figure would break every later move)."""
        params = dict(params) if self._check is None else self._check(params)
        try:
            self._move_to(params)
        except Exception:
            first = self._first
            self._forget()
            if first is not None:
                try:
                    self._move_to(first)
                except Exception:
                    self._forget()
            raise
        if self._first is None:
            self._first = params

    def _forget(self) -> None:
        self.fig = self._state = self._positions = self._background = self._pixels = None
        self._animated, self._boxes, self._cells = [], {}, {}

    def _move_to(self, params: Mapping) -> None:
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
            self._size = tuple(self.fig.get_size_inches())
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
            self._state = self._drawn(params)
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
        self._state = self._drawn(params)
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

    def _drawn(self, params):
        from companion.plotting import stack

        state = self._draw(self.fig, **params)
        if self.phone:
            stack(self.fig)
            if self._positions is not None:  # laid out once: the first layout's size
                self.fig.set_size_inches(self._size)
        return state

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
