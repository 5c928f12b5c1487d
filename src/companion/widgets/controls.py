"""The controls of an Explore figure: one description for the live widget and the page."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["Control", "control"]


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

    def check(self, value, name: str):
        """``value`` if this control can take it, else one ValueError in the library's style
        (wrong types included: a setting is a value of its control): a choice's value, one of
        ``values`` (a control without a range), or a finite number in ``[low, high]`` (an
        integer where the control is one).

        >>> control(0.5, 0.0, 1.0, label="c").check(float("nan"), "c")
        Traceback (most recent call last):
        ...
        ValueError: `c` must be a number in [0, 1]; got nan
        """
        import math
        import numbers

        if self.is_choice or self.low is None:
            allowed = [v for _, v in self.options] if self.is_choice else list(self.values)
            if not any(_same(value, v) for v in allowed):
                opts = ", ".join(repr(v) for v in allowed)
                raise ValueError(f"`{name}` must be one of {opts}; got {value!r}")
            return value
        whole = self._is_int()
        what = "an integer" if whole else "a number"
        span = f"[{self.low:g}, {self.high:g}]"
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"`{name}` must be {what} in {span}; got {value!r}")
        try:
            x = float(value)
        except OverflowError:  # an int beyond float64
            x = math.inf
        if not (math.isfinite(x) and self.low <= x <= self.high) or (whole and x != int(x)):
            raise ValueError(f"`{name}` must be {what} in {span}; got {value!r}")
        return value

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


def _same(a, b) -> bool:
    """``a == b`` for a control's values: numbers with numbers (not bools), strings with
    strings, never an array's elementwise answer."""
    import numbers

    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return bool(a == b)
    return isinstance(a, str) and isinstance(b, str) and a == b


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
