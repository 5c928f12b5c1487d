"""The Explore output: live ipywidgets controls and the kernel-free page of the same figure."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from companion._validate import check_int
from companion.widgets.controls import Control
from companion.widgets.figure import PersistentFigure

__all__ = ["WIDGET_VIEW", "Explore", "explore"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


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
        from companion.plotting import PHONE_DPI, PHONE_WIDTH_IN

        self.figure = PersistentFigure(draw, update, figsize=figsize, dpi=dpi, check=self.check)
        # the same figure laid out for a phone (panels one under another): the page's frames
        # for small screens (companion.plotting.stack)
        self.phone = PersistentFigure(
            draw,
            update,
            figsize=(PHONE_WIDTH_IN, figsize[1]),
            dpi=PHONE_DPI,
            phone=True,
            check=self.check,
        )
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

    def check(self, params: Mapping) -> dict:
        """``params`` with the other controls at their defaults, each value checked against
        its control (:meth:`Control.check`): a setting no control offers is one ValueError,
        before anything is drawn.

        >>> from companion.widgets import control
        >>> ex = Explore(lambda fig, d: None, {"d": control(64, 16, 256, label="width d")})
        >>> ex.check({"d": -1})
        Traceback (most recent call last):
        ...
        ValueError: `d` must be an integer in [16, 256]; got -1
        """
        if not isinstance(params, Mapping):
            raise ValueError(
                f"`params` must be a mapping of control -> value; got {type(params).__name__}"
            )
        for name in params:
            if name not in self.controls:
                raise ValueError(
                    f"`{name}` is not a control of this figure; controls: {list(self.controls)}"
                )
        out = {**self.defaults, **params}
        for name, ctl in self.controls.items():
            ctl.check(out[name], name)
        return out

    @staticmethod
    def _applies(ctl: Control, params) -> bool:
        return all(params[o] == v for o, v in ctl.when)

    def _key(self, params) -> str:
        return ",".join(str(self._values[n].index(params[n])) for n in self.controls)

    def readout_text(self, params: Mapping) -> str:
        """The sentence under the figure with its numbers at ``params`` (the figure as last
        rendered): ``readout(**params)``, else the panels' titles."""
        params = self.check(params)
        if self.readout is not None:
            return str(self.readout(**params))
        from companion.plotting import figure_titles

        return figure_titles(self.figure.fig)

    def frames(self) -> dict:
        """``{"images", "phone", "alts", "readouts", "index": {key: [image, alt, readout,
        phone image]}, "min_px": [image, phone image]}`` for the page: WebP frames as data
        URIs (the site's build moves them to files: ``companion.site.frames``), the same
        frames laid out for a phone, their alt texts and readouts (identical ones stored
        once) keyed by the control indices, and the smallest text of each set of frames in
        pixels of its images."""
        import base64

        from companion.plotting import min_text_px

        def uri(webp: bytes) -> str:
            return "data:image/webp;base64," + base64.b64encode(webp).decode()

        if self._frames is None:
            images, phone, alts, reads, index = {}, {}, {}, {}, {}
            small = [float("inf"), float("inf")]
            for params in self.combinations():
                frame = uri(self.figure.webp(params))
                alt, read = self.figure.describe(), self.readout_text(params)
                narrow = uri(self.phone.webp(params))
                for k, fig in enumerate((self.figure.fig, self.phone.fig)):
                    small[k] = min(small[k], min_text_px(fig))
                index[self._key(params)] = [
                    images.setdefault(frame, len(images)),
                    alts.setdefault(alt, len(alts)),
                    reads.setdefault(read, len(reads)),
                    phone.setdefault(narrow, len(phone)),
                ]
            self._frames = {
                "images": list(images),
                "phone": list(phone),
                "alts": list(alts),
                "readouts": list(reads),
                "index": index,
                "min_px": [round(v, 2) for v in small],
                "phone_px": list(self.phone.size_px),
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

        from companion.plotting import PHONE_MEDIA

        frames = self.frames()
        start = frames["index"][self._key(self.defaults)]
        width, height = self.figure.size_px
        pw, ph = frames["phone_px"]
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
            **{k: v for k, v in frames.items() if k not in ("min_px", "phone_px")},
        }
        payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
        wide_px, phone_px = frames["min_px"]
        # the phone layout where the site's phone layout applies; each image says how large
        # its smallest text is in its own pixels (the browser suite checks it as shown)
        return (
            '<div class="companion-explore">'
            f'<div class="companion-explore-controls">{"".join(ctls)}</div>'
            '<div class="companion-explore-frame"><picture>'
            f'<source media="{PHONE_MEDIA}" width="{pw}" height="{ph}" '
            f'srcset="{frames["phone"][start[3]]}" data-min-font-px="{phone_px}">'
            f'<img class="companion-explore-figure" width="{width}" height="{height}" '
            f'src="{frames["images"][start[0]]}" data-min-font-px="{wide_px}" '
            f'alt="{_esc(frames["alts"][start[1]])}"></picture></div>'
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
