"""A chapter as a talk: the data in ``companion.chapters.<part>.<chapter>.talk`` and its text.

Each chapter that has a deck keeps, beside its package, a module ``talk`` holding one dict,
``TALK``, of literal data (no code, no imports)::

    TALK = {
        "statement": ("thm-theorem3",),      # label(s) of the statement box(es) on the page
        "steps": ("Arc-cosine kernel",),     # derivation paragraphs, by their bold lead
        "punchline": "dong.thm3.limit",      # the claim whose value ± SE is the headline
        "exercise": "ex-t3-expand",          # the exercise set in the room
        "figure": "draw",                    # drawn when the page has no kernel-free figure
        "slides": {                          # the talk, slide by slide (SLIDES below)
            "question": {
                "bullets": ("...",),         # what the slide shows: short, written to be said
                "say": "...",                # speaker notes: what to say
                "ask": "...",                # the one question to ask the room
                "min": 1.5,                  # minutes on this slide (0: skip it in the slot)
            },
            ...
        },
    }

The deck reads the statement, the derivation's equations, the figure, the exercise and its
solution from the chapter's built page, and every number from the claims measured when the
deck is built: a bullet or a note names a claim's value as ``[[ours]]``, ``[[paper]]`` or
``[[status]]`` (the punchline claim) or ``[[ours:<claim id>]]`` (another claim of the chapter),
and the chapter's tally of statuses as ``[[tally]]``; :func:`fill` puts the numbers in.
``**bold**`` marks a word to stress; ``\\(...\\)`` is inline math.
"""

from __future__ import annotations

import html
import importlib
import importlib.util
import re

from companion.claims.core import format_value

__all__ = [
    "BADGE",
    "SLIDES",
    "TALK_KEYS",
    "bullets_html",
    "check_talk",
    "fill",
    "format_value",
    "has_talk",
    "notes_html",
    "slide_keys",
    "talk_of",
    "tally",
]

#: Keys of a chapter's ``TALK`` (``statement``, ``punchline``, ``exercise``, ``slides``
#: required).
TALK_KEYS = ("statement", "steps", "punchline", "exercise", "figure", "figsize", "slides")
#: The slides of every talk, in order (the derivation steps, named by their lead, come after
#: ``statement``); those in :data:`SPOKEN` must have bullets written for the talk.
SLIDES = (
    "title",
    "question",
    "statement",
    "figure",
    "number",
    "exercise",
    "solution",
    "discuss",
    "claims",
    "next",
)
SPOKEN = ("question", "statement", "number", "discuss")
_ENTRY_KEYS = ("bullets", "say", "ask", "min")

BADGE = {
    "reproduced": "✔ reproduced",
    "deviates": "≠ deviates",
    "unresolved": "? unresolved",
    "not-run": "○ not run",
}


def slide_keys(spec: dict) -> tuple[str, ...]:
    """The slides of a talk in order: :data:`SLIDES` with the steps after the statement."""
    i = SLIDES.index("statement") + 1
    return SLIDES[:i] + tuple(spec["steps"]) + SLIDES[i:]


def check_talk(spec: dict, module: str = "the chapter") -> dict:
    """``spec`` completed with defaults (``steps=()``, ``figure="draw"``, ``figsize=(8, 4.4)``)
    and checked: every slide of :func:`slide_keys` has what to say, a question for the room
    and its minutes, and the spoken slides their bullets.

    Examples
    --------
    >>> s = {"say": "Hello.", "ask": "Why?", "min": 1}
    >>> spec = {"statement": "thm-a", "punchline": "x.y", "exercise": "ex-a",
    ...         "slides": {k: {**s, "bullets": ("b",)} for k in SLIDES}}
    >>> check_talk(spec)["statement"]
    ('thm-a',)
    >>> check_talk({"statement": "thm-a"})
    Traceback (most recent call last):
    ...
    ValueError: `TALK` of the chapter must name 'punchline', 'exercise', 'slides'; got ['statement']
    """
    missing = [k for k in ("statement", "punchline", "exercise", "slides") if k not in spec]
    unknown = [k for k in spec if k not in TALK_KEYS]
    if missing or unknown:
        what = f"name {', '.join(map(repr, missing))}" if missing else f"use only {TALK_KEYS}"
        raise ValueError(f"`TALK` of {module} must {what}; got {sorted(spec)}")
    out = {"steps": (), "figure": "draw", "figsize": (8, 4.4), **spec}
    for key in ("statement", "steps"):
        if isinstance(out[key], str):
            out[key] = (out[key],)
        out[key] = tuple(out[key])
    want = slide_keys(out)
    slides = out["slides"]
    lacking = [k for k in want if k not in slides]
    extra = [k for k in slides if k not in want]
    if lacking or extra:
        raise ValueError(
            f"`TALK['slides']` of {module} must have exactly the slides {list(want)}; "
            f"missing {lacking}, unknown {extra}"
        )
    for key in want:
        entry = slides[key]
        bad = [k for k in entry if k not in _ENTRY_KEYS]
        empty = [k for k in ("say", "ask") if not str(entry.get(k, "")).strip()]
        spoken = key in SPOKEN or key in out["steps"]
        if spoken and not entry.get("bullets"):
            empty.append("bullets")
        minutes = entry.get("min")
        if bad or empty or not isinstance(minutes, (int, float)) or minutes < 0:
            raise ValueError(
                f"`TALK['slides'][{key!r}]` of {module} must give 'say', 'ask' and 'min' >= 0"
                + (" and 'bullets'" if spoken else "")
                + f" (and only {_ENTRY_KEYS}); got {entry!r}"
            )
        if isinstance(entry.get("bullets", ()), str):
            raise ValueError(f"`TALK['slides'][{key!r}]['bullets']` of {module} must be a tuple")
    return out


def has_talk(chapter_module) -> bool:
    """Whether a chapter package has a ``talk`` module beside it."""
    return importlib.util.find_spec(chapter_module.__name__ + ".talk") is not None


def talk_of(chapter_module) -> dict:
    """The checked ``TALK`` of a chapter package (:func:`check_talk`)."""
    name = chapter_module.__name__ + ".talk"
    return check_talk(importlib.import_module(name).TALK, name)


def tally(results) -> str:
    """How the claims stand, e.g. ``"3 of 4 reproduced, 1 not run"``.

    >>> from types import SimpleNamespace as R
    >>> tally([R(status="reproduced"), R(status="not-run"), R(status="reproduced")])
    '2 of 3 reproduced, 1 not run'
    >>> tally([R(status="deviates"), R(status="deviates")])
    '0 of 2 reproduced, 2 deviate'
    """
    results = list(results)
    counts = {s: sum(r.status == s for r in results) for s in BADGE}
    words = {"not-run": "not run"}
    parts = [f"{counts['reproduced']} of {len(results)} reproduced"]
    for s, n in counts.items():
        if n and s != "reproduced":
            word = words.get(s, s)
            parts.append(f"{n} {word[:-1] if n > 1 and word == 'deviates' else word}")
    return ", ".join(parts)


_FIELD = re.compile(r"\[\[(ours|paper|status|tally)(?::([\w.\-]+))?\]\]")


def fill(text: str, results: dict, punchline: str) -> str:
    """``text`` with its ``[[...]]`` fields replaced by the claims measured now.

    ``results``: ``{claim id: ClaimResult}`` of the chapter.

    >>> from types import SimpleNamespace as R
    >>> res = {"a.b": R(value=2.70213, stderr=0.00461, paper_value="2.75", status="reproduced")}
    >>> fill("ours [[ours]] against [[paper:a.b]]: [[status]]; [[tally]]", res, "a.b")
    'ours 2.7021 ± 0.0046 against 2.75: reproduced; 1 of 1 reproduced'
    """

    def one(m):
        what, cid = m.group(1), m.group(2) or punchline
        if what == "tally":
            return tally(results.values())
        if cid not in results:
            raise LookupError(f"the talk names claim {cid!r}, not one of {sorted(results)}")
        r = results[cid]
        if what == "ours":
            return format_value(r.value, r.stderr)
        return r.paper_value if what == "paper" else r.status.replace("-", " ")

    return _FIELD.sub(one, text)


def _inline(text: str) -> str:
    """Escaped text with ``**bold**`` marked up (math ``\\(...\\)`` passes through)."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", html.escape(text, quote=False))


def bullets_html(bullets, results: dict, punchline: str, cls: str = "deck-bullets") -> str:
    """The talk's bullets of one slide as a list (empty string for none)."""
    items = "".join(f"<li>{_inline(fill(b, results, punchline))}</li>" for b in bullets)
    return f'<ul class="{cls}">{items}</ul>' if items else ""


def _clock(x: float) -> str:
    return f"{x:g}"


def notes_html(
    entry: dict,
    results: dict,
    punchline: str,
    *,
    at: float,
    total: float,
    slot: str,
    extra: str = "",
) -> str:
    """Speaker notes of one slide: what to say, the question for the room, the timing.

    ``at``: the minute this slide starts; ``total``: the talk's minutes; ``slot``: what those
    minutes are (the seminar's slot, or a talk on its own); ``extra``: HTML appended (what
    the slide's number rests on)."""
    say = _inline(fill(entry["say"], results, punchline))
    ask = _inline(fill(entry["ask"], results, punchline))
    m = entry["min"]
    if m:
        when = f"{_clock(m)} min, minute {_clock(at)}–{_clock(at + m)} of {_clock(total)} ({slot})."
    else:
        when = f"0 min in this talk's {_clock(total)} ({slot}): skip it, or take it if asked."
    return (
        f'<p class="deck-say"><b>Say:</b> {say}</p>'
        f'<p class="deck-ask"><b>Ask the room:</b> {ask}</p>'
        f'<p class="deck-time"><b>Time:</b> {when}</p>{extra}'
    )
