"""Shared figure helpers: a theory curve against simulations with error bars, readable,
phone-friendly text and legends for every figure of the book (:mod:`~companion.plotting.core`),
and accessible, downloadable figures in IPython (:mod:`~companion.plotting.html`: registered
as the HTML form of every matplotlib figure when this package is imported inside IPython)."""

from companion.plotting.core import (
    COLORS,
    MIN_FONT_PT,
    MIN_TEXT_PX,
    PHONE_COLUMN_PX,
    PHONE_DPI,
    PHONE_MEDIA,
    PHONE_WIDTH_IN,
    READABLE_RC,
    legend,
    min_text_px,
    readable,
    set_errorbar,
    stack,
    theory_vs_sim,
)
from companion.plotting.html import (
    describe_figure,
    figure_html,
    figure_titles,
    register_figure_formatter,
)

__all__ = [
    "COLORS",
    "MIN_FONT_PT",
    "MIN_TEXT_PX",
    "PHONE_COLUMN_PX",
    "PHONE_DPI",
    "PHONE_MEDIA",
    "PHONE_WIDTH_IN",
    "READABLE_RC",
    "describe_figure",
    "figure_html",
    "figure_titles",
    "legend",
    "min_text_px",
    "readable",
    "register_figure_formatter",
    "set_errorbar",
    "stack",
    "theory_vs_sim",
]

register_figure_formatter()
