"""The Explore mechanism: controls, the persistent figure, the kernel-free HTML and the widget.

The browser side (book/_assets/companion.js) is tested with node: tests/js/explore.test.js.
"""

from __future__ import annotations

import base64
import html.parser
import json
import re
import sys

import numpy as np
import pytest
from matplotlib.figure import Figure

from companion import widgets
from companion.chapters import CHAPTERS, explorer, module
from companion.plotting import (
    MIN_FONT_PT,
    MIN_TEXT_PX,
    PHONE_COLUMN_PX,
    PHONE_MEDIA,
    figure_html,
    legend,
    readable,
)

# --- a small figure with a draw and an update ------------------------------------------------


def toy_draw(fig, a: float = 1.0, kind: str = "sin", ymax: float = 2.0):
    ax1, ax2 = fig.subplots(1, 2)
    x = np.linspace(0, 6, 50)
    (line,) = ax1.plot(x, np.sin(a * x), label="curve")
    ax1.set(xlabel="x", ylim=(-1.5, 1.5), title=f"a = {a:g}")
    (bar,) = ax2.plot([0, 1], [0, ymax], label="ramp")
    ax2.set(ylim=(0, ymax), xlabel="t")
    legend(ax2)
    for art in (line, ax1.title, bar):
        art.set_animated(True)
    return {"ax2": ax2, "line": line, "bar": bar, "x": x}


def toy_update(state, a: float = 1.0, kind: str = "sin", ymax: float = 2.0):
    f = np.sin if kind == "sin" else np.cos
    state["line"].set_ydata(f(a * state["x"]))
    state["line"].axes.set_title(f"a = {a:g}")
    state["bar"].set_ydata([0, ymax])
    if state["ax2"].get_ylim()[1] != ymax:
        state["ax2"].set_ylim(0, ymax)
        return state["ax2"]  # its ticks move: redraw that panel
    return None


def toy_draw_full(fig, a=1.0, kind="sin", ymax=2.0):
    state = toy_draw(fig, a, kind, ymax)
    toy_update(state, a, kind, ymax)
    return state


TOY_CONTROLS = {
    "a": widgets.control(1.0, 0.5, 3.0, label="frequency a", values=(0.5, 1.0, 2.0, 3.0)),
    "kind": widgets.control("sin", options=(("sine", "sin"), ("cosine", "cos")), label="curve"),
    "ymax": widgets.control(2.0, 1.0, 4.0, label="top of the right panel", values=(1.0, 2.0, 4.0)),
}


def toy_explore(**kw):
    return widgets.explore(toy_draw_full, TOY_CONTROLS, update=toy_update, grid=("a", "kind"), **kw)


# --- controls --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((1.0, 0.0, 2.0), {"label": ""}, "`label` must be a non-empty string"),
        ((3.0, 0.0, 2.0), {"label": "x"}, "`value` of control 'x' must be in [0.0, 2.0]; got 3.0"),
        ((1.0, 2.0, 0.0), {"label": "x"}, "control 'x' needs `low` < `high`"),
        ((0.5, 0.0, 1.0), {"label": "x", "log": True}, "`low` of log control 'x' must be > 0"),
        (("c",), {"label": "x", "options": ("a", "b")}, "must be one of its options; got 'c'"),
        (("a", 0, 1), {"label": "x", "options": ("a", "b")}, "give `options` or a range"),
        ((1,), {"label": "x"}, "needs `options`, a range (`low`, `high`) or `values`"),
        ((1.0, 0.0, 2.0), {"label": "x", "values": (0.5, 3.0)}, "must be in [0.0, 2.0]; got 3.0"),
        (("a",), {"label": "x", "options": ("a",), "values": ("z",)}, "among its options; got 'z'"),
        (
            (1.0, 0.0, 2.0),
            {"label": "x", "values": ()},
            "`values` of control 'x' must not be empty",
        ),
        ((1.0, 0.0, 2.0), {"label": "x", "when": {}}, "`when` of control 'x' must be a non-empty"),
        ((1.0, 0.0, 2.0), {"label": "x", "when": "kind"}, "control -> value; got 'kind'"),
    ],
)
def test_control_rejects_bad_input(args, kwargs, message):
    with pytest.raises(ValueError) as err:
        widgets.control(*args, **kwargs)
    assert message in str(err.value)


def test_page_values_hold_the_default_and_span_the_range():
    assert widgets.control(0.3, 0.0, 1.0, label="c").page_values() == (
        0.0,
        0.25,
        0.3,
        0.5,
        0.75,
        1.0,
    )
    assert widgets.control(1e-3, 1e-4, 1.0, log=True, label="p").page_values() == (
        1e-4,
        1e-3,
        1e-2,
        0.1,
        1.0,
    )
    assert widgets.control(12, 1, 24, label="depth").page_values() == (1, 7, 12, 13, 18, 24)
    assert widgets.control(3, 1, 9, label="d", values=(1, 9)).page_values() == (1, 3, 9)


def test_controls_become_core_ipywidgets_with_the_label():
    import ipywidgets as w

    kinds = {
        widgets.control(5, 1, 9, label="depth L"): w.IntSlider,
        widgets.control(0.5, 0.0, 1.0, label="cancel c"): w.FloatSlider,
        widgets.control(0.01, 1e-4, 0.2, log=True, label="flip rate p"): w.FloatLogSlider,
        widgets.control("a", options=("a", "b"), label="kind"): w.Dropdown,
        widgets.control(2, values=(1, 2, 4), label="steps"): w.SelectionSlider,
    }
    for ctl, cls in kinds.items():
        live = ctl.widget()
        assert type(live) is cls and live.description == ctl.label and live.value == ctl.value


# --- the persistent figure -------------------------------------------------------------------


def walk(fig, settings):
    return [fig.render(s) for s in settings]


def test_update_draws_the_same_pixels_as_drawing_afresh():
    # blitted moves, a panel redrawn alone (ymax) and back: pixel for pixel what clearing
    # the figure and calling draw again gives at the same (frozen) layout
    settings = [{}, {"a": 2.0}, {"ymax": 4.0}, {"kind": "cos", "a": 3.0}, {"ymax": 1.0}, {}]
    live = widgets.PersistentFigure(toy_draw_full, toy_update)
    fresh = widgets.PersistentFigure(toy_draw_full)
    for got, want in zip(walk(live, settings), walk(fresh, settings), strict=True):
        np.testing.assert_array_equal(got, want)
    assert live.full_redraws == 1 and live.partial_redraws == 4  # ymax: 4, 2, 1, 2
    assert fresh.full_redraws == len(settings)


def test_a_forgotten_artist_shows_as_different_pixels():
    # the negative control of the test above: an update that misses the title
    def lazy_update(state, a=1.0, kind="sin", ymax=2.0):
        state["line"].set_ydata(np.sin(a * state["x"]))

    live = widgets.PersistentFigure(toy_draw_full, lazy_update)
    fresh = widgets.PersistentFigure(toy_draw_full)
    got, want = walk(live, [{}, {"a": 2.0}])[-1], walk(fresh, [{}, {"a": 2.0}])[-1]
    assert (got != want).any()


def test_panels_repaint_only_the_panels_whose_key_changed():
    fig = Figure()
    calls = []

    def paint(ax, a, b):
        calls.append(ax)
        return ax.plot([0, a], [0, b])[0]

    panels = [widgets.Panel(paint, key=("a",)), widgets.Panel(paint, key=lambda p: p["b"] > 0)]
    state = widgets.Panels(fig.subplots(1, 2), panels, {"a": 1, "b": 1})
    assert state.update(b=2) == [] and len(calls) == 2  # neither key changed
    assert state.update(a=3) == [state.axes[0]] and calls[-1] is state.axes[0]
    assert state.update(b=-1) == [state.axes[1]]
    with pytest.raises(ValueError, match="2 axes for 1 panels"):
        widgets.Panels(fig.subplots(1, 2), panels[:1], {"a": 1, "b": 1})


def _moves(ex):
    """The defaults, then one control after another to its last page value (the earlier
    ones staying there), then every control to its first value, then back."""
    out, now = [dict(ex.defaults)], dict(ex.defaults)
    for name, ctl in ex.controls.items():
        now = {**now, name: ctl.page_values()[-1]}
        out.append(now)
    out.append({n: c.page_values()[0] for n, c in ex.controls.items()})
    return [*out, dict(ex.defaults)]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_updates_to_the_pixels_of_a_fresh_draw(chapter):
    # blitted moves and repainted panels give, pixel for pixel, what clearing the figure
    # and drawing it again gives at the same (frozen) layout
    ex = explorer(chapter)
    fresh = widgets.PersistentFigure(ex.figure._draw, figsize=ex.figure.figsize)
    for params in _moves(ex):
        got, want = ex.figure.render(params), fresh.render(params)
        assert np.array_equal(got, want), f"update and draw differ at {params}"


def test_ln_kernel_caches_compute_the_same_numbers():
    ch = module("dead_directions/ln_kernel")
    from companion.theory.ln_kernel import (
        kernel_report,
        normalised_activations,
        sample_gamma,
        sample_inputs,
    )

    for kw in ({}, {"sigma": 2.0, "precision": "bfloat16"}, {"d": 16, "n_ratio": 1}):
        p = {"d": 64, "sigma": 1.0, "n_ratio": 8, "precision": "float64", **kw}
        rng = np.random.default_rng(0)  # the chapter's draws, in order, uncached
        x = sample_inputs(p["n_ratio"] * p["d"], p["d"], "student_t", rng=rng)
        g = sample_gamma(p["d"], p["sigma"], signs=True, rng=rng)
        b = rng.standard_normal(p["d"])
        rep = kernel_report(normalised_activations(x, g, b, 1e-5, precision=p["precision"]), g)
        g2, rep2 = ch.data(**p)
        np.testing.assert_array_equal(g, g2)
        np.testing.assert_array_equal(rep.spectrum, rep2.spectrum)


def test_theorem3_limits_hold_every_width():
    from companion.chapters.sign_magnitude.theorem3 import figures as ch

    for n in ch.WIDTHS:
        for post, (lo, hi) in zip((False, True), ch.YLIM, strict=True):
            _, y, e = ch._points(ch._sims(n, 0), post)
            assert lo < min(np.subtract(y, e)) and max(np.add(y, e)) < hi, (n, post)


def test_sigma_min_depths_are_the_first_blocks_of_the_deepest_toy():
    sm = module("dead_directions/sigma_min")
    from companion.theory.sigma_min import residual_toy, sigma_min_profile

    toy = residual_toy(32, 6, n=256, cancel=0.5, rng=0)
    deep = sm._profiles(32, 256, 0.5, 0)
    np.testing.assert_array_equal(sigma_min_profile(toy.states).ratio, deep["ratio"][:7])
    np.testing.assert_array_equal(toy.branch_pairing, deep["pairing"][:6])


# --- the Explore output ----------------------------------------------------------------------


class _Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.found, self.data = [], [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.found.append((tag, a, [t for t, _ in self.stack]))
        if tag not in ("img", "input", "option"):
            self.stack.append((tag, a))

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1][0] == tag:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and "companion-explore-data" in self.stack[-1][1].get("class", ""):
            self.data = json.loads(data)


def test_combinations_are_the_grid_then_each_other_control():
    ex = toy_explore()
    combos = ex.combinations()
    assert combos[0] == ex.defaults
    assert len(combos) == 4 * 2 + 2  # the grid a x kind, then ymax's two other values
    assert {c["ymax"] for c in combos if c["ymax"] != 2.0} == {1.0, 4.0}
    assert all(c["a"] == 1.0 and c["kind"] == "sin" for c in combos if c["ymax"] != 2.0)


def test_html_is_the_contract_the_site_and_its_browser_test_rely_on():
    ex = toy_explore()
    page = _Page()
    page.feed(ex.html())
    root = page.found[0]
    assert root[0] == "div" and root[1]["class"] == "companion-explore"
    imgs = [f for f in page.found if f[0] == "img"]
    assert len(imgs) == 1 and "div" in imgs[0][2] and imgs[0][1]["alt"]
    ctls = {f[1]["data-param"]: f for f in page.found if "data-param" in f[1]}
    assert list(ctls) == ["a", "kind", "ymax"]
    assert ctls["a"][0] == "input" and ctls["a"][1]["max"] == "3" and ctls["a"][1]["value"] == "1"
    assert ctls["kind"][0] == "select"
    html = ex.html()
    for label in ("frequency a", "curve", "top of the right panel", ">sine<", ">cosine<"):
        assert label in html
    assert '<output class="companion-explore-value">1</output>' in html
    data = page.data
    assert data["params"] == ["a", "kind", "ymax"] and data["texts"][1] == ["sine", "cosine"]
    assert len(data["index"]) == len(ex.combinations())
    images = {e[0] for e in data["index"].values()}
    assert images == set(range(len(data["images"])))  # every image is used, none is missing
    assert {e[2] for e in data["index"].values()} == set(range(len(data["readouts"])))
    start = data["index"]["1,0,1"]  # a = 1.0, sine, ymax = 2.0
    assert imgs[0][1]["src"] == data["images"][start[0]]
    # the phone layout: a <source> for small screens before the desktop <img>, in a <picture>
    (source,) = [f for f in page.found if f[0] == "source"]
    assert "picture" in source[2] and "picture" in imgs[0][2]
    assert source[1]["media"] == PHONE_MEDIA and source[1]["srcset"] == data["phone"][start[3]]
    assert {e[3] for e in data["index"].values()} == set(range(len(data["phone"])))
    for uri in data["images"] + data["phone"]:
        raw = base64.b64decode(uri.removeprefix("data:image/webp;base64,"))
        assert raw[:4] == b"RIFF" and raw[8:12] == b"WEBP"  # lossless WebP frames
    assert (
        "every combination of <em>frequency a</em> (4 values) and <em>curve</em> (2 values)" in html
    )
    assert "<em>top of the right panel</em> over its values" in html


def test_every_control_changes_the_precomputed_figure():
    ex = toy_explore()
    data = ex.frames()
    base = data["index"][ex._key(ex.defaults)][0]
    for name, ctl in ex.controls.items():
        for v in ctl.page_values():
            if v != ctl.value:
                assert data["index"][ex._key({**ex.defaults, name: v})][0] != base, (name, v)


def test_explore_rejects_bad_input():
    with pytest.raises(ValueError, match="`grid` names 'b', which is not a control"):
        widgets.explore(toy_draw_full, TOY_CONTROLS, grid=("a", "b"))
    with pytest.raises(TypeError, match=r"`controls\['a'\]` must be made with widgets.control\(\)"):
        widgets.explore(toy_draw_full, {"a": 1.0})
    with pytest.raises(ValueError, match="give 10 figures to precompute; more than `max_frames`=5"):
        toy_explore(max_frames=5)
    with pytest.raises(ValueError, match="`static` must be 'auto', True or False"):
        toy_explore(static="yes")
    with pytest.raises(ValueError, match="`controls` must be a non-empty mapping"):
        widgets.explore(toy_draw_full, {})
    for when, message in [
        ({"b": "sin"}, "`when` of control 'ymax' names 'b', which is not another control"),
        ({"ymax": 2.0}, "names 'ymax', which is not another control"),
        ({"kind": "tan"}, "needs 'kind' = 'tan', which is not among its values ['sin', 'cos']"),
    ]:
        ymax = widgets.control(2.0, 1.0, 4.0, label="top", when=when)
        with pytest.raises(ValueError, match=re.escape(message)):
            widgets.explore(toy_draw_full, {**TOY_CONTROLS, "ymax": ymax})


def test_a_control_that_applies_at_one_value_of_another_is_disabled_elsewhere():
    gated = {**TOY_CONTROLS}
    gated["ymax"] = widgets.control(
        2.0, 1.0, 4.0, label="top", values=(1.0, 2.0, 4.0), when={"kind": "cos"}
    )
    ex = widgets.explore(toy_draw_full, gated, update=toy_update, grid=("a", "kind"))
    page = _Page()
    page.feed(ex.html())
    ymax = next(f[1] for f in page.found if f[1].get("data-param") == "ymax")
    assert json.loads(ymax["data-when"]) == {"kind": 1} and "disabled" in ymax
    kind = next(f[1] for f in page.found if f[1].get("data-param") == "kind")
    assert "disabled" not in kind
    row = ex.widget().children[0]
    assert row.children[2].disabled
    row.children[1].value = "cos"
    assert not row.children[2].disabled
    row.children[1].value = "sin"
    assert row.children[2].disabled


def test_one_output_carries_the_widget_and_the_html(monkeypatch):
    ex = toy_explore()
    bundle = ex._repr_mimebundle_()
    assert bundle[widgets.WIDGET_VIEW]["model_id"] == ex.widget().model_id
    assert bundle["text/html"].startswith('<div class="companion-explore">')
    assert "frequency a" in bundle["text/plain"]
    assert "text/html" not in toy_explore(static=False)._repr_mimebundle_()
    monkeypatch.setitem(sys.modules, "google.colab", object())
    assert "text/html" not in toy_explore()._repr_mimebundle_()


def test_the_live_widget_redraws_one_figure_in_place():
    ex = toy_explore()
    box = ex.widget()
    row, image, _, problem = box.children
    fig, first = ex.figure.fig, image.value
    row.children[0].value = 2.0
    assert image.value != first and ex.figure.fig is fig and problem.value == ""
    row.children[2].value = 3.7  # off the page's values: computed live
    assert ex.figure.fig is fig and ex.figure.partial_redraws == 1


def test_a_failing_move_is_shown_under_the_figure():
    def fragile(state, a=1.0, kind="sin", ymax=2.0):
        if a > 2.5:
            raise ValueError("`a` must be <= 2.5; got 3.0")
        return toy_update(state, a, kind, ymax)

    ex = widgets.explore(toy_draw_full, TOY_CONTROLS, update=fragile, static=False)
    row, image, _, problem = ex.widget().children
    row.children[0].value = 3.0
    assert "`a` must be &lt;= 2.5; got 3.0" in problem.value


# --- readable figures ------------------------------------------------------------------------


def test_readable_raises_small_text_and_keeps_legends_below_the_data():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(8, 3.6), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.plot([1, 2, 3], [3, 1, 2], label="closed form")
    ax.plot([1, 2, 3], [2, 2, 2], label="simulation")
    ax.set(xlabel="flip rate p", title="t")
    ax.tick_params(labelsize=6)
    leg = legend(ax, fontsize=6)
    readable(fig)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    sizes = [t.get_fontsize() for t in fig.findobj(lambda a: hasattr(a, "get_fontsize"))]
    assert min(sizes) >= MIN_FONT_PT
    assert ax.xaxis.get_major_ticks()[0].label1.get_fontsize() >= MIN_FONT_PT
    box = leg.get_window_extent(r)
    assert box.y1 < ax.xaxis.label.get_window_extent(r).y0  # under the x label
    assert box.y1 < ax.bbox.y0  # off the data


# --- every chapter ---------------------------------------------------------------------------


def test_every_chapter_of_the_book_has_an_explore_figure():
    import pathlib
    import re

    toc = (pathlib.Path(__file__).parents[2] / "_toc.yml").read_text(encoding="utf-8")
    chapters = re.findall(r"file: book/((?:sign_magnitude|dead_directions)/\w+)", toc)
    assert chapters == list(CHAPTERS)
    for chapter in chapters:
        ex = explorer(chapter)
        assert isinstance(ex, widgets.Explore) and ex.figure.fig is None  # nothing drawn yet
        assert len(ex.combinations()) <= ex.max_frames
        page = (pathlib.Path(__file__).parents[2] / "book" / f"{chapter}.md").read_text()
        explore = page[page.index("## Explore") :].split("\n## ")[0]
        assert "ch.explore(" in explore, f"{chapter}: the Explore section shows ch.explore()"
    with pytest.raises(ValueError, match="`chapter` must be one of"):
        explorer("sign_magnitude/nowhere")


def test_the_readout_follows_the_controls_on_the_page_and_live():
    """The sentence under the figure holds the numbers of the setting shown (issue 19): the
    panels' titles by default, or the chapter's own ``readout``; one per precomputed frame on
    the site, recomputed on every live move."""
    ex = toy_explore()
    data = ex.frames()
    at = {a: data["readouts"][data["index"][ex._key({**ex.defaults, "a": a})][2]] for a in
          (0.5, 1.0, 2.0)}  # fmt: skip
    assert at == {0.5: "a = 0.5", 1.0: "a = 1", 2.0: "a = 2"}
    assert '<p class="companion-explore-readout" aria-live="polite">a = 1</p>' in ex.html()
    own = toy_explore(readout=lambda a, kind, ymax: f"{kind} at a = {a:g}, top {ymax:g}")
    data = own.frames()
    key = own._key({**own.defaults, "kind": "cos"})
    assert data["readouts"][data["index"][key][2]] == "cos at a = 1, top 2"
    box = own.widget()
    readout = box.children[2]
    box.children[0].children[0].value = 2.0  # the live slider a
    assert readout.value == "sin at a = 2, top 2"
    with pytest.raises(TypeError, match="`readout` must be callable or None; got str"):
        toy_explore(readout="a = 1")


def test_theorem3_readout_holds_the_numbers_at_p():
    from companion.chapters.sign_magnitude.theorem3 import figures as t3
    from companion.theory.transverse_ratio import transverse_ratio_exact

    text = t3.readout(p=0.01, n=256)
    assert f"exact kernel C = {transverse_ratio_exact(0.01):.3f}" in text
    assert "simulated at n = 256" in text and "paper's measured (n = 2048): 2.639" in text
    assert t3.readout(p=0.2, n=256) != t3.readout(p=0.03, n=256)


def test_a_repainted_panel_is_as_readable_as_a_fresh_draw():
    # Panels.update paints a panel again; its small legend (fontsize=7) must be raised to
    # MIN_FONT_PT as in a fresh draw, or the repainted figure shows small text (walk chapter)
    def paint(ax, a):
        ax.plot([0, 1], [0, a], label="line")
        ax.set_xlabel("x")
        legend(ax, fontsize=7)

    def draw(fig, a=1.0):
        return widgets.Panels(fig.subplots(1, 2), [widgets.Panel(paint, key=("a",))] * 2, {"a": a})

    def update(state, a=1.0):
        return state.update(a=a)

    live = widgets.PersistentFigure(draw, update)
    fresh = widgets.PersistentFigure(draw)
    settings = [{}, {"a": 2.0}, {}]
    for got, want in zip(walk(live, settings), walk(fresh, settings), strict=True):
        np.testing.assert_array_equal(got, want)
    assert live.partial_redraws == 2
    assert (
        min(t.get_fontsize() for ax in live.fig.axes for t in ax.get_legend().get_texts())
        >= MIN_FONT_PT
    )


# --- legible on a phone (issue 19) -----------------------------------------------------------


def _shown_px(attrs, column=PHONE_COLUMN_PX):
    """The smallest text of an image as a 390 px phone shows it (CSS px): its text in image
    pixels (data-min-font-px) times the column over the image's width (it is never enlarged)."""
    return float(attrs["data-min-font-px"]) * min(1.0, column / int(attrs["width"]))


def test_the_phone_layout_keeps_text_legible_where_the_desktop_one_does_not():
    ex = toy_explore()
    page = _Page()
    page.feed(ex.html())
    (img,) = [f[1] for f in page.found if f[0] == "img"]
    (source,) = [f[1] for f in page.found if f[0] == "source"]
    assert _shown_px(img) < MIN_TEXT_PX <= _shown_px(source)  # 5.6 px and 10.7 px
    assert int(source["width"]) < int(source["height"])  # the panels one under another
    assert len(ex.phone.fig.axes) == 2
    (a, b) = (ax.get_position() for ax in ex.phone.fig.axes)
    assert a.y0 > b.y1  # the first panel above the second
    assert ex.figure.fig.get_figwidth() == 8  # the desktop figure is untouched


def test_a_static_figure_carries_its_phone_layout_and_its_text_size():
    fig = Figure(figsize=(8, 3.6), layout="constrained")
    a, b = fig.subplots(1, 2)
    a.plot([0, 1], label="one")
    b.plot([1, 0], label="two")
    legend(a)
    page = _Page()
    page.feed(figure_html(fig, "two lines", name="demo"))
    (img,) = [f[1] for f in page.found if f[0] == "img"]
    (source,) = [f[1] for f in page.found if f[0] == "source"]
    img["width"] = "800"
    assert source["media"] == PHONE_MEDIA and source["srcset"].startswith("data:image/png")
    assert _shown_px(img) < MIN_TEXT_PX <= _shown_px(source)
    assert fig.get_figwidth() == 8 and a.get_subplotspec().colspan.start == 0  # a copy moved
    assert b.get_subplotspec().colspan.start == 1


# --- no value breaks a figure (issue 19) -----------------------------------------------------


def _bad_values(ctl):
    """Values no control offers: NaN, infinities, negative, huge, wrong types, an unknown
    choice, and (for a range) just past each end."""
    out = [float("nan"), float("inf"), -1, -1e300, 1e300, 10**400, "bogus", None, [1], True]
    if not ctl.is_choice and ctl.low is not None:
        span = ctl.high - ctl.low
        out += [ctl.low - 0.01 * span, ctl.high + 0.01 * span]

    def allowed(v):
        if ctl.is_choice or ctl.low is None:
            return any(type(v) is type(ok) and v == ok for ok in ctl.page_values())
        return isinstance(v, (int, float)) and not isinstance(v, bool) and ctl.low <= v <= ctl.high

    return [v for v in out if not allowed(v)]


def _explore_args(chapter) -> list:
    import inspect

    return list(inspect.signature(module(chapter).explore).parameters)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_no_value_breaks_a_chapter_figure(chapter):
    """Every control of every chapter's Explore figure, given a value it does not offer,
    raises the one-style ValueError before anything is drawn; a move that fails halfway
    leaves the figure as a fresh one would be at the next setting (rms_no_kernel at d = NaN
    once broke every later move)."""
    ex = explorer(chapter)
    first = ex.figure.render(ex.defaults)
    for name, ctl in ex.controls.items():
        for bad in _bad_values(ctl):
            for call in (ex.figure.render, ex.phone.render, ex.readout_text):
                with pytest.raises(ValueError, match=rf"^`{re.escape(name)}` must be "):
                    call({**ex.defaults, name: bad})
    with pytest.raises(ValueError, match="`nowhere` is not a control of this figure"):
        ex.figure.render({"nowhere": 1})
    # a move that fails after the update changed the state: the figure starts over
    other = ex.combinations()[1]
    real = ex.figure._update

    def fails_halfway(state, **params):
        if real is not None:
            real(state, **params)
        raise RuntimeError("failed halfway")

    if real is None:  # no update: every move draws afresh
        draw = ex.figure._draw
        ex.figure._draw = lambda fig, **p: (draw(fig, **p), fails_halfway(None, **p))
    else:
        ex.figure._update = fails_halfway
    with pytest.raises(RuntimeError, match="failed halfway"):
        ex.figure.render(other)
    ex.figure._update = real
    if real is None:
        ex.figure._draw = draw
    np.testing.assert_array_equal(ex.figure.render(ex.defaults), first)
    fresh = widgets.PersistentFigure(ex.figure._draw, real, figsize=ex.figure.figsize)
    fresh.render(ex.defaults)
    np.testing.assert_array_equal(ex.figure.render(other), fresh.render(other))


@pytest.mark.parametrize("chapter", [c for c in CHAPTERS if _explore_args(c)])
def test_a_chapter_explore_refuses_an_unknown_scale_or_model(chapter):
    """An argument of a chapter's ``explore`` (``scale``, ``model``): an unknown name is the
    one-style ValueError; a value of the wrong type the library's one-style TypeError."""
    for name in _explore_args(chapter):
        for bad in ("bogus", "gpt9"):
            with pytest.raises(ValueError, match=rf"^`{name}` must be "):
                module(chapter).explore(**{name: bad})
        with pytest.raises((ValueError, TypeError), match=rf"^`{name}` must be "):
            module(chapter).explore(**{name: float("nan")})


# a measured value as a readout states it: a decimal or a power of ten ("0.782", "6.5e-77")
_VALUE = re.compile(r"\d\.\d|\de[-+]\d")


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_readout_states_numbers_that_follow_the_controls(chapter):
    """Issue 19: the sentence under every Explore figure states the figure's numbers at the
    setting shown (not only the panels' titles), and another setting gives another one."""
    ex = explorer(chapter)
    first, other = ex.defaults, ex.combinations()[1]
    ex.figure.render(first)  # the panels' titles, where a chapter has no readout of its own
    text = ex.readout_text(first)
    ex.figure.render(other)
    assert _VALUE.search(text), f"{chapter}: no number in the readout {text!r}"
    assert ex.readout_text(other) != text, f"{chapter}: the readout does not move at {other}"


def test_dead_directions_at_scale_readout_is_read_from_the_records():
    from companion.chapters.dead_directions.at_scale import figures as fig

    random, trained = fig._pair("minilm-l6", "cpu")
    text = fig.readout("minilm-l6", "cpu")
    pair = (trained, random)
    ray = " / ".join(f"{abs(r['rayleigh']):.1e}" for r in pair)
    assert f"6 blocks), trained / random init: |v*ᵀCv*|/λ_max {ray};" in text
    assert " / ".join(f"{r['cos']:.3f}" for r in pair) in text
    assert " / ".join(f"{r['diag_rayleigh']:.1e}" for r in pair) in text
    assert "read as LayerNorm / LayerNorm" in text
    assert f"last {trained['sigma_ratio_no_pos0'][-1]:.3g} / " in text
    assert "3-dim null space" in text and "degenerate" in text  # tiny γ entries; post-LN
    assert "read as RMSNorm / RMSNorm" in fig.readout("gemma3-270m", "cpu")
    with pytest.raises(ValueError, match="`model` 'gpt9' has no record"):
        fig.readout("gpt9", "cpu")
