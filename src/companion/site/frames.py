"""Figures as files: the built site's pages carry no image data.

An executed output carries its figures as data URIs (a notebook must stand alone): the
Explore figure's precomputed frames in its JSON table (two sets, the desktop and the phone
layout), a static figure's PNG and its phone layout (:func:`companion.plotting.figure_html`).
In a page that is every frame of every setting, loaded before the reader moves anything.
When an HTML build finishes, :func:`move_to_files` writes each such image once to
``_images/companion/<hash>.<ext>`` and puts its relative URL where the data URI was: a
page then loads the frames it shows (the ``<picture>`` chooses the phone or the desktop
layout; ``companion.js`` swaps URLs on a move) and still works from ``file://``. Every page
of the site is rewritten, the talk decks (``slides/``, written at the same depth as their
chapters) included; files that no page names any more are removed.
"""

from __future__ import annotations

import base64
import hashlib
import posixpath
import re
from pathlib import Path

__all__ = ["FOLDER", "move_to_files"]

#: Where the images go, under the built site.
FOLDER = "_images/companion"
# A whole data URI in an attribute or a JSON string (closed by its quote): a split one (a
# to_jshtml player's lines end in a backslash) is left alone. Small ones (icons) stay.
_URI = re.compile(r"data:image/(png|webp);base64,([A-Za-z0-9+/]{400,}={0,2})(?=[\"'])")
_NAMED = re.compile(re.escape(FOLDER) + r"/([0-9a-f]{20}\.(?:png|webp))")
# folders of a Sphinx build without pages of their own
_SKIP = ("_static", "_sources", "_images", "_vendor")


def move_to_files(outdir: str | Path) -> dict:
    """Move every large image data URI of the HTML pages under ``outdir`` into a file of
    :data:`FOLDER` (named by its content's hash); returns ``{"pages", "images", "bytes",
    "removed"}``: pages rewritten, images written now, their bytes, stale files removed.

    >>> import tempfile
    >>> site = Path(tempfile.mkdtemp())
    >>> (site / "book").mkdir()
    >>> uri = "data:image/png;base64," + base64.b64encode(bytes(400)).decode()
    >>> _ = (site / "book" / "a.html").write_text(f'<img src="{uri}">')
    >>> move_to_files(site)["images"], (site / "book" / "a.html").read_text()
    (1, '<img src="../_images/companion/7a12e561363385e9dfee.png">')
    """
    outdir = Path(outdir)
    folder = outdir / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    used, stats = set(), {"pages": 0, "images": 0, "bytes": 0, "removed": 0}
    for page in sorted(outdir.rglob("*.html")):
        rel = page.relative_to(outdir)
        if rel.parts[0] in _SKIP:
            continue
        text = page.read_text(encoding="utf-8")
        up = posixpath.relpath(FOLDER, posixpath.dirname(rel.as_posix()) or ".")

        def to_file(m, up=up):
            raw = base64.b64decode(m.group(2))
            name = f"{hashlib.sha256(raw).hexdigest()[:20]}.{m.group(1)}"
            target = folder / name
            if not target.exists():
                target.write_bytes(raw)
                stats["images"] += 1
                stats["bytes"] += len(raw)
            return f"{up}/{name}"

        new = _URI.sub(to_file, text) if "data:image/" in text else text
        if new != text:
            page.write_text(new, encoding="utf-8")
            stats["pages"] += 1
        used.update(_NAMED.findall(new))
    for f in folder.iterdir():
        if f.name not in used:
            f.unlink()
            stats["removed"] += 1
    return stats
